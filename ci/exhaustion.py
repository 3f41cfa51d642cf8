#!/usr/bin/env python3
"""Exhaust every holding case under loom at preemption bound 2, 3 and none (and, given a
default build, with the stateful engine), find the smallest bound that breaks every violating
case, and write the figures as JSON. Saved as bench/exhaustion.json (an earlier run as
bench/exhaustion-before.json), they are written into bench/RESULTS.md by the one writer of
that file: `ozone-ha-check bench --merge bench/results.json` (crates/cli/src/bench/exhaustion.rs).

Usage: ci/exhaustion.py LOOM_BINARY OUT.json [--stateful BINARY] [--box SECONDS]
                        [--only SCENARIO ...] [--which all|holding|violating]

LOOM_BINARY is a loom build of ozone-ha-check (`RUSTFLAGS="--cfg loom"`), BINARY a default
build. Each exploration runs under `check --time-budget`, so a case that does not finish
within the box is reported as not exhausted with the executions it reached. Exit 1 when a
holding case breaks or a violating case is not broken at any bound up to 3. Figures from a
shared machine are indicative.
"""
import argparse
import json
import subprocess
import sys

def explore(binary, s, v, p, bound, box):
    engine = ["--engine", "stateful"] if bound == "stateful" else ["--preemption-bound", bound]
    cmd = [binary, "check", s, "--variant", v, "--plan", p, *engine,
           "--time-budget", str(box), "--json", "--quiet", "--no-minimize"]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode not in (0, 1):
        sys.exit(f"{' '.join(cmd)}: exit {out.returncode}: {out.stderr.strip()}")
    r = json.loads(out.stdout)[0]
    points = r.get("points_per_execution") or {}
    return {
        "bound": bound,
        "verdict": r["verdict"],
        "executions": r["executions"],
        "exhausted": r["exhausted"],
        "ms": r["elapsed_ms"],
        "first_violation": r.get("first_violation"),
        "points": round(sum(points.values()), 1),
    }


def measure(binary, stateful, box, only, which, progress):
    listed = json.loads(subprocess.run([binary, "list", "--json"], capture_output=True,
                                       text=True, check=True).stdout)
    rows = []
    for scenario in listed:
        s = scenario["scenario"]
        if only and s not in only:
            continue
        for case in scenario["expected"]:
            v, p, holds = case["variant"], case["plan"], case["expected"] == "holds"
            if which != "all" and holds != (which == "holding"):
                continue
            row = {"scenario": s, "variant": v, "plan": p, "expected": case["expected"], "runs": []}
            bounds = ["2", "3", "none"] if holds else ["0", "1", "2", "3"]
            if stateful and holds:
                run = explore(stateful, s, v, p, "stateful", box)
                row["runs"].append(run)
                progress(f"{s} {v}/{p} stateful: {run['verdict']}, {run['executions']} "
                         f"executions, {'exhausted' if run['exhausted'] else 'not exhausted'}, "
                         f"{run['ms']} ms")
            for bound in bounds:
                run = explore(binary, s, v, p, bound, box)
                row["runs"].append(run)
                progress(f"{s} {v}/{p} bound {bound}: {run['verdict']}, {run['executions']} "
                         f"executions, {'exhausted' if run['exhausted'] else 'not exhausted'}, "
                         f"{run['ms']} ms")
                if holds and not run["exhausted"]:
                    break
                if not holds and run["verdict"] == "violated":
                    break
            rows.append(row)
    return rows


def key(row):
    return (row["scenario"], row["variant"], row["plan"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("binary", help="a loom build of ozone-ha-check")
    ap.add_argument("out")
    ap.add_argument("--stateful", help="a default build, for the stateful engine's column")
    ap.add_argument("--box", type=float, default=60.0)
    ap.add_argument("--only", nargs="*", default=[], help="only these scenarios")
    ap.add_argument("--which", choices=["all", "holding", "violating"], default="all")
    a = ap.parse_args()
    rows = measure(a.binary, a.stateful, a.box, set(a.only), a.which,
                   lambda m: print(m, flush=True))
    json.dump(rows, open(a.out, "w"), indent=1)
    broken = [key(r) for r in rows if r["expected"] == "holds"
              and any(run["verdict"] == "violated" for run in r["runs"])]
    missed = [key(r) for r in rows if r["expected"] != "holds"
              and not any(run["verdict"] == "violated" for run in r["runs"])]
    for k in broken:
        print(f"UNEXPECTED: {' '.join(k)} broke", file=sys.stderr)
    for k in missed:
        print(f"UNEXPECTED: {' '.join(k)} did not break at any bound up to 3", file=sys.stderr)
    sys.exit(1 if broken or missed else 0)


if __name__ == "__main__":
    main()
