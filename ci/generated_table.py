#!/usr/bin/env python3
"""Per scenario, how far the stateful engine got over its generated space.

    python3 ci/generated_table.py JOINED.json [--beyond-reach S1,S2,...] > table.md

JOINED.json is `report --merge generated-*.json --format json`: the shards' reports of
`check --engine stateful --plan generated --shard I/N`, each case's parts joined into one
report. Prints a Markdown table, a row per (scenario, variant) and a total per scenario:
the bounds and workloads, the parts present, states, final states and executions (summed
over the parts), the time (summed over the parts: what the runners spent together), whether
the whole space was exhausted, and the verdict; then the findings of gate(). Exit 1 when a case
misses a part (a shard that did not report) or the gate finds anything, 0 otherwise.

The gate: every case's verdict is its expectation (a violating case violated; a holding
case held, never vacuous), and a holding case's whole space is exhausted, except in the
scenarios named by --beyond-reach, whose default spaces the stateful engine is known not
to exhaust (README, "Every schedule, without a preemption bound"): their holding cases must
hold in what was searched, and at least one of them must be left unexhausted, so that a
scenario the engine has come to exhaust is taken off the list rather than reported as
beyond it.
"""

import json
import sys


def bounds(r):
    b = r.get("bounds")
    if not b:
        # The vocabulary's defaults: the scope says them.
        scope = r.get("scope") or ""
        return scope.split(" (")[0].removeprefix("every workload of ").split(", in ")[0]
    return f"at most {b['requests']} requests and {b['faults']} faults"


def seconds(ms):
    return f"{ms / 1000:.0f} s"


def gate(reports, beyond):
    """What keeps the nightly run from passing, one line each: a verdict that is not the
    expected one, a holding case whose space was not exhausted outside the `beyond`
    scenarios, and a `beyond` scenario whose holding cases were all exhausted (or that has
    none in the run)."""
    found = []
    holding = {}
    for r in reports:
        name = f"{r['scenario']} {r['variant']}"
        expected, verdict = r.get("expected"), r["verdict"]
        if expected == "violates" and verdict != "violated":
            found.append(f"{name}: expected to violate, {verdict}")
        if expected != "holds":
            continue
        holding.setdefault(r["scenario"], []).append(r)
        if verdict != "held":
            found.append(f"{name}: expected to hold, {verdict}")
        elif not r["exhausted"] and r["scenario"] not in beyond:
            found.append(f"{name}: held but not exhausted ({r['executions']} executions, "
                         f"{seconds(r['elapsed_ms'])}): its default space is meant to be")
    for scenario in sorted(beyond):
        rows = holding.get(scenario, [])
        if not rows:
            found.append(f"{scenario}: named beyond reach, but no holding case of it ran")
        elif all(r["exhausted"] for r in rows):
            found.append(f"{scenario}: named beyond reach, but every holding case was "
                         "exhausted: take it off the list")
    return found


def main(path, beyond=()):
    reports = [
        r
        for r in json.load(open(path))
        if r.get("plan") == "generated" and r.get("engine") == "stateful"
    ]
    missing_any = False
    by_scenario = {}
    for r in reports:
        by_scenario.setdefault(r["scenario"], []).append(r)
    print("| scenario | variant | bounds | workloads | parts | states | final states "
          "| executions | time | exhausted | verdict |")
    print("|---|---|---|---:|---|---:|---:|---:|---:|---|---|")
    for scenario, rows in by_scenario.items():
        for r in rows:
            parts = r.get("parts") or {"count": 1, "present": [1], "workloads": None}
            missing = [i for i in range(1, parts["count"] + 1) if i not in parts["present"]]
            missing_any = missing_any or bool(missing)
            shown = f"{len(parts['present'])}/{parts['count']}"
            if missing:
                shown += " (missing " + ", ".join(map(str, missing)) + ")"
            verdict = r["verdict"]
            if r.get("invariant"):
                verdict += f" ({r['invariant']})"
            print(
                f"| {scenario} | {r['variant']} | {bounds(r)} | {parts['workloads']} | {shown} "
                f"| {r.get('states') or 0} | {r.get('final_states') or 0} | {r['executions']} "
                f"| {seconds(r['elapsed_ms'])} "
                f"| {'yes' if r['exhausted'] else 'no'} | {verdict} |"
            )
        print(
            f"| **{scenario}** | all {len(rows)} | | | "
            f"| {sum(r.get('states') or 0 for r in rows)} "
            f"| {sum(r.get('final_states') or 0 for r in rows)} "
            f"| {sum(r['executions'] for r in rows)} "
            f"| {seconds(sum(r['elapsed_ms'] for r in rows))} "
            f"| {'yes' if all(r['exhausted'] for r in rows) else 'no'} | |"
        )
    print()
    print("Exhausted: every part of the case's space present and searched to its end. A "
          "violating case stops at its first violation, so it is not exhausted.")
    if beyond:
        print()
        print("Beyond the stateful engine's reach at their default bounds (sampled, not "
              "proven): " + ", ".join(sorted(beyond)) + ".")
    found = gate(reports, set(beyond))
    if found:
        print()
        print("**Gate failed:**")
        print()
        for line in found:
            print(f"- {line}")
    return 1 if missing_any or found else 0


def arguments(argv):
    """The joined report's path and the scenarios beyond reach, or exit with the usage."""
    if len(argv) == 1:
        return argv[0], ()
    if len(argv) == 3 and argv[1] == "--beyond-reach":
        return argv[0], tuple(s for s in argv[2].split(",") if s)
    sys.exit(__doc__)


if __name__ == "__main__":
    joined, beyond_reach = arguments(sys.argv[1:])
    sys.exit(main(joined, beyond_reach))
