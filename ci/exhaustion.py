#!/usr/bin/env python3
"""Exhaust every holding case under loom at preemption bound 2, 3 and none (and, given a
default build, with the stateful engine), find the smallest bound that breaks every violating
case, and write the figures as JSON and as the exhaustion section of bench/RESULTS.md (beside
an earlier JSON, when one is given, as "before").

Usage: ci/exhaustion.py LOOM_BINARY OUT.json [--stateful BINARY] [--box SECONDS]
                        [--before BEFORE.json] [--results bench/RESULTS.md]
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

BEGIN = "<!-- exhaustion: begin (ci/exhaustion.py) -->"
END = "<!-- exhaustion: end -->"


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


def cell(run):
    if run is None:
        return "-"
    if run["exhausted"]:
        return f"{run['executions']:,} in {run['ms'] / 1000:.1f} s"
    return f"> {run['executions']:,} (not done in {run['ms'] / 1000:.0f} s)"


def at(row, bound):
    if row is None:
        return None
    return next((r for r in row["runs"] if r["bound"] == bound), None)


def smallest(row):
    if row is None:
        return "-"
    hit = next((r for r in row["runs"] if r["verdict"] == "violated"), None)
    return f"{hit['bound']} (execution {hit['first_violation']})" if hit else "not found"


def before_box(rows):
    stopped = [run["ms"] for r in rows for run in r["runs"] if not run["exhausted"]
               and run["verdict"] != "violated"]
    return round(max(stopped, default=0) / 1000)


def render(after, before, box):
    old = {key(r): r for r in before}
    lines = [BEGIN, "", "## Exhausting the holding cases: loom at bound 2, 3 and none; the stateful engine",
             "", f"Made by `ci/exhaustion.py`; every exploration is boxed at {box:g} s (a cell "
             "that was stopped says after how long). "
             "\"Points\" are the scheduling points an execution passes (the facade's count, "
             "what loom branches on). "
             + (f"\"Before\" is the earlier run given as `--before` (boxed at "
                f"{before_box(before):g} s)." if before else ""), ""]
    head = ["scenario", "variant", "plan"]
    for b in ("2", "3", "none"):
        head += [f"bound {b} before", f"bound {b} after"] if before else [f"bound {b}"]
    head += ["points/execution before", "points/execution after"] if before else ["points/execution"]
    stateful = any(at(r, "stateful") for r in after)
    if stateful:
        head += ["stateful engine"]
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in (r for r in after if r["expected"] == "holds"):
        prev = old.get(key(row))
        cells = list(key(row))
        for b in ("2", "3", "none"):
            if before:
                cells.append(cell(at(prev, b)))
            cells.append(cell(at(row, b)))
        if before:
            cells.append(str(at(prev, "2")["points"]) if at(prev, "2") else "-")
        cells.append(str(at(row, "2")["points"]))
        if stateful:
            cells.append(cell(at(row, "stateful")))
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "### Smallest preemption bound that breaks each violating case", ""]
    head = ["scenario", "variant", "plan"] + (["before", "after"] if before else ["bound"])
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in (r for r in after if r["expected"] != "holds"):
        cells = list(key(row)) + ([smallest(old.get(key(row)))] if before else []) + [smallest(row)]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", END]
    return "\n".join(lines) + "\n"


def splice(path, section):
    try:
        text = open(path).read()
    except FileNotFoundError:
        text = "# Benchmark results\n"
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        text = head + section.rstrip("\n") + rest.split(END, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + section
    open(path, "w").write(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("binary", help="a loom build of ozone-ha-check")
    ap.add_argument("out")
    ap.add_argument("--stateful", help="a default build, for the stateful engine's column")
    ap.add_argument("--box", type=float, default=60.0)
    ap.add_argument("--before")
    ap.add_argument("--results", default="bench/RESULTS.md")
    ap.add_argument("--only", nargs="*", default=[], help="only these scenarios")
    ap.add_argument("--which", choices=["all", "holding", "violating"], default="all")
    ap.add_argument("--render-only", action="store_true",
                    help="render OUT (already measured) instead of measuring")
    a = ap.parse_args()
    if a.render_only:
        rows = json.load(open(a.out))
    else:
        rows = measure(a.binary, a.stateful, a.box, set(a.only), a.which,
                       lambda m: print(m, flush=True))
        json.dump(rows, open(a.out, "w"), indent=1)
    before = json.load(open(a.before)) if a.before else []
    splice(a.results, render(rows, before, a.box))
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
