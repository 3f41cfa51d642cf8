#!/usr/bin/env python3
"""Exhaust every holding case under loom at preemption bound 2, 3 and none (and, given a
default build, with the stateful engine), find the smallest bound that breaks every violating
case, and write the figures as JSON. Saved as bench/exhaustion.json (an earlier run as
bench/exhaustion-before.json), they are written into bench/RESULTS.md by the one writer of
that file: `ozone-ha-check bench --merge bench/results.json` (crates/cli/src/bench/exhaustion.rs).

Usage: ci/exhaustion.py LOOM_BINARY OUT.json [--stateful BINARY] [--box SECONDS]
                        [--only SCENARIO ...] [--variant VARIANT ...] [--plan PLAN ...]
                        [--which all|holding|violating] [--no-loom]
                        [--expect REFERENCE.json] [--unbounded-only] [--source-sets]
       ci/exhaustion.py --join OUT.json PART.json ...

`--unbounded-only` runs the stateful engine's unbounded search alone (`check
--unbounded-only`: no bounded passes or random walks beside it; every run of that engine here
is of a holding case, which only that search proves). `--source-sets` has that search explore
source sets instead of every state once (`check --source-sets`). `--no-loom` runs the stateful column
alone (LOOM_BINARY is then not run); `--variant` and `--plan` keep the cases of those
variants and plans (`--plan generated`: the workload spaces alone); `--join` puts the runs of
several such files (loom's and the stateful engine's, or shards of scenarios) together, a
case's runs in the order the files are given.

With `--expect REFERENCE.json` (an earlier run, such as bench/exhaustion.json), a holding case
that an engine exhausted without a bound in the reference and does not now, or a generated
space proven there that no space proven now covers, is a regression: listed, and exit 1.
Filters that select no case are an error (exit 1), so a case renamed or removed is not
passed over in silence.

LOOM_BINARY is a loom build of ozone-ha-check (`RUSTFLAGS="--cfg loom"`), BINARY a default
build. A holding `generated` plan (a scenario's vocabulary) that the stateful engine does not
exhaust at its default bounds is tried at smaller bounds too, requests 1, 2, ... and faults 0,
1, ... (a larger count only after the smaller one was exhausted), so the report states the
largest spaces proven (`proven`: the bounds exhausted and held, not vacuous, that no other
such pair covers; `--join` derives it again from the runs). Each exploration runs under
`check --time-budget`, so a case that does not finish within the box is reported as not
exhausted with the executions it reached. Exit 1 when a
holding case breaks or a violating case is not broken at any bound up to 3. Figures from a
shared machine are indicative.
"""
import argparse
import json
import subprocess
import sys

def explore(binary, s, v, p, bound, box, space=None, flags=()):
    engine = (["--engine", "stateful", *flags] if bound == "stateful"
              else ["--preemption-bound", bound])
    if space:
        engine += ["--requests", str(space[0]), "--faults", str(space[1])]
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
        **({"states": r["states"]} if r.get("states") is not None else {}),
        **({"final_states": r["final_states"]} if r.get("final_states") is not None else {}),
        **({"reduction": r["reduction"]} if r.get("reduction") is not None else {}),
        **({"walks": r["walks"]} if r.get("walks") is not None else {}),
        **({"alone": True} if "--unbounded-only" in flags else {}),
        **({"sources": True} if "--source-sets" in flags else {}),
        **({"requests": space[0], "faults": space[1]} if space else {}),
    }


def smaller_spaces(stateful, s, v, bounds, box, progress, flags=()):
    """The stateful engine on the generated plan at bounds below the default: requests grow
    from 1 while the smallest fault count is exhausted, faults grow while exhausted. Returns
    the runs and the Pareto frontier of the exhausted, held bounds (`frontier`)."""
    runs = []
    for requests in range(1, bounds["requests"] + 1):
        grew = False
        for faults in range(0, bounds["faults"] + 1):
            if (requests, faults) == (bounds["requests"], bounds["faults"]):
                break  # the default bounds ran already
            run = explore(stateful, s, v, "generated", "stateful", box, (requests, faults),
                          flags)
            runs.append(run)
            progress(f"{s} {v}/generated stateful at {requests} requests, {faults} faults: "
                     f"{run['verdict']}, {run['executions']} executions, "
                     f"{'exhausted' if run['exhausted'] else 'not exhausted'}, {run['ms']} ms")
            if run["verdict"] == "violated" or not run["exhausted"]:
                break
            grew = True
        if not grew:
            break
    return runs, frontier(runs)


def frontier(runs):
    """The largest spaces proven: the bounds of the exhausted, held (not vacuous) runs that no
    other such run covers. A vacuous run was exhausted without reaching the race window: it
    proves nothing about the fix, so it is no proven space, though a larger one is still
    tried after it."""
    held = sorted({(r["requests"], r["faults"]) for r in runs
                   if r.get("requests") is not None and r["exhausted"]
                   and r["verdict"] == "held"})
    spaces = [{"requests": r, "faults": f} for r, f in held]
    return [b for b in spaces if not covers([o for o in spaces if o != b], b)]


def measure(binary, stateful, box, only, which, progress, loom=True, plans=(), flags=(),
            variants=()):
    """`flags`: added to each stateful `check` (`--unbounded-only`, `--source-sets`)."""
    # Under --no-loom the loom build is not needed: the default build lists the cases.
    listed = json.loads(subprocess.run([binary if loom else stateful, "list", "--json"],
                                       capture_output=True,
                                       text=True, check=True).stdout)
    rows = []
    for scenario in listed:
        s = scenario["scenario"]
        if only and s not in only:
            continue
        for case in scenario["expected"]:
            v, p, holds = case["variant"], case["plan"], case["expected"] == "holds"
            if (plans and p not in plans) or (variants and v not in variants):
                continue
            if which != "all" and holds != (which == "holding"):
                continue
            row = {"scenario": s, "variant": v, "plan": p, "expected": case["expected"], "runs": []}
            bounds = ["2", "3", "none"] if holds else ["0", "1", "2", "3"]
            if not loom:
                bounds = []
            if stateful and holds:
                run = explore(stateful, s, v, p, "stateful", box, flags=flags)
                row["runs"].append(run)
                progress(f"{s} {v}/{p} stateful: {run['verdict']}, {run['executions']} "
                         f"executions, {'exhausted' if run['exhausted'] else 'not exhausted'}, "
                         f"{run['ms']} ms")
                vocabulary = scenario.get("vocabulary")
                if p == "generated" and vocabulary:
                    space = vocabulary["bounds"]
                    if run["exhausted"] and run["verdict"] == "held":
                        row["proven"] = [dict(space)]
                    elif run["exhausted"] and run["verdict"] == "vacuous":
                        row["proven"] = []  # a smaller space is vacuous too
                    elif run["verdict"] != "violated":
                        smaller, row["proven"] = smaller_spaces(stateful, s, v, space, box,
                                                                progress, flags)
                        row["runs"] += smaller
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


def join(files):
    """The rows of several runs of this script as one list, in the first file's order (a case
    only in a later file after them); a case's runs and fields taken from every file."""
    rows, at = [], {}
    for f in files:
        for row in json.load(open(f)):
            if key(row) in at:
                old = at[key(row)]
                old["runs"] += row["runs"]
                old.update({k: v for k, v in row.items() if k != "runs"})
            else:
                at[key(row)] = row
                rows.append(row)
    for row in rows:
        if any(r.get("requests") is not None for r in row["runs"]):
            row["proven"] = frontier(row["runs"])
        elif "proven" in row and any(r["bound"] == "stateful" and r["verdict"] == "vacuous"
                                     for r in row["runs"]):
            row["proven"] = []
    return rows


def counted(n, thing):
    return f"{n} {thing}{'' if n == 1 else 's'}"


def covers(spaces, space):
    """Whether one of `spaces` holds every workload of `space`."""
    return any(o["requests"] >= space["requests"] and o["faults"] >= space["faults"]
               for o in spaces)


def regressions(rows, reference):
    """What `rows` no longer reach that `reference` (an earlier run, such as
    bench/exhaustion.json) did, for the cases both hold: a holding case an engine exhausted
    without a bound that it no longer exhausts, a generated space proven that is no longer
    covered by one proven now. A case the reference did not measure is not compared."""
    before = {key(r): r for r in reference}
    found = []
    for row in rows:
        old = before.get(key(row))
        if row["expected"] != "holds" or old is None:
            continue
        name = " ".join(key(row))
        for bound in ("stateful", "none"):
            def default(r, b=bound):
                return [run for run in r["runs"]
                        if run["bound"] == b and run.get("requests") is None]
            was, now = default(old), default(row)
            if any(r["exhausted"] for r in was) and now and not any(r["exhausted"] for r in now):
                engine = "the stateful engine" if bound == "stateful" else "loom unbounded"
                found.append(f"{name}: {engine} exhausted it before and does not now")
        for space in old.get("proven") or []:
            if not covers(row.get("proven") or [], space):
                found.append(f"{name}: the generated space of "
                             f"{counted(space['requests'], 'request')} and "
                             f"{counted(space['faults'], 'fault')} was proven before and is "
                             "not now")
    return found


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--join":
        json.dump(join(sys.argv[3:]), open(sys.argv[2], "w"), indent=1)
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("binary", help="a loom build of ozone-ha-check")
    ap.add_argument("out")
    ap.add_argument("--stateful", help="a default build, for the stateful engine's column")
    ap.add_argument("--box", type=float, default=60.0)
    ap.add_argument("--only", nargs="*", default=[], help="only these scenarios")
    ap.add_argument("--variant", nargs="*", default=[], help="only these variants")
    ap.add_argument("--plan", nargs="*", default=[], help="only these plans")
    ap.add_argument("--which", choices=["all", "holding", "violating"], default="all")
    ap.add_argument("--no-loom", action="store_true", help="the stateful column alone")
    ap.add_argument("--expect", metavar="REFERENCE.json",
                    help="fail when a holding case the reference exhausted (or a generated "
                         "space it proved) is no longer")
    ap.add_argument("--unbounded-only", action="store_true",
                    help="the stateful engine's unbounded search alone, no passes or walks")
    ap.add_argument("--source-sets", action="store_true",
                    help="the stateful engine's unbounded search over source sets")
    a = ap.parse_args()
    if a.no_loom and not a.stateful:
        sys.exit("--no-loom needs --stateful BINARY")
    rows = measure(a.binary, a.stateful, a.box, set(a.only), a.which,
                   lambda m: print(m, flush=True), loom=not a.no_loom, plans=set(a.plan),
                   variants=set(a.variant),
                   flags=(["--unbounded-only"] if a.unbounded_only else [])
                   + (["--source-sets"] if a.source_sets else []))
    if not rows:
        # A filter that names no case (a case renamed or removed) would otherwise pass.
        sys.exit("no case matches --only, --variant, --plan and --which")
    json.dump(rows, open(a.out, "w"), indent=1)
    broken = [key(r) for r in rows if r["expected"] == "holds"
              and any(run["verdict"] == "violated" for run in r["runs"])]
    # A violating case with no runs was not measured (`--no-loom` runs none).
    missed = [key(r) for r in rows if r["expected"] != "holds" and r["runs"]
              and not any(run["verdict"] == "violated" for run in r["runs"])]
    for k in broken:
        print(f"UNEXPECTED: {' '.join(k)} broke", file=sys.stderr)
    for k in missed:
        print(f"UNEXPECTED: {' '.join(k)} did not break at any bound up to 3", file=sys.stderr)
    lost = regressions(rows, json.load(open(a.expect))) if a.expect else []
    for message in lost:
        print(f"REGRESSION: {message}", file=sys.stderr)
    sys.exit(1 if broken or missed or lost else 0)


if __name__ == "__main__":
    main()
