#!/usr/bin/env python3
"""Per scenario, how far the stateful engine got over its generated space.

    python3 ci/generated_table.py JOINED.json > table.md

JOINED.json is `report --merge generated-*.json --format json`: the shards' reports of
`check --engine stateful --plan generated --shard I/N`, each case's parts joined into one
report. Prints a Markdown table, a row per (scenario, variant) and a total per scenario:
the bounds and workloads, the parts present, states and executions (summed over the parts),
the time (summed over the parts: what the runners spent together), whether the whole space
was exhausted, and the verdict. Exit 1 when a case misses a part (a shard that did not
report), 0 otherwise: a space the time budget did not exhaust is reported, not failed.
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


def main(path):
    reports = [
        r
        for r in json.load(open(path))
        if r.get("plan") == "generated" and r.get("engine") == "stateful"
    ]
    missing_any = False
    by_scenario = {}
    for r in reports:
        by_scenario.setdefault(r["scenario"], []).append(r)
    print("| scenario | variant | bounds | workloads | parts | states | executions | time "
          "| exhausted | verdict |")
    print("|---|---|---|---:|---|---:|---:|---:|---|---|")
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
                f"| {r.get('states') or 0} | {r['executions']} | {seconds(r['elapsed_ms'])} "
                f"| {'yes' if r['exhausted'] else 'no'} | {verdict} |"
            )
        print(
            f"| **{scenario}** | all {len(rows)} | | | "
            f"| {sum(r.get('states') or 0 for r in rows)} "
            f"| {sum(r['executions'] for r in rows)} "
            f"| {seconds(sum(r['elapsed_ms'] for r in rows))} "
            f"| {'yes' if all(r['exhausted'] for r in rows) else 'no'} | |"
        )
    print()
    print("Exhausted: every part of the case's space present and searched to its end. A "
          "violating case stops at its first violation, so it is not exhausted.")
    return 1 if missing_any else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
