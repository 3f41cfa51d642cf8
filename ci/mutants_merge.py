#!/usr/bin/env python3
"""Join the outcomes of ci/mutants.sh shards into one list and give the kill rate.

    python3 ci/mutants_merge.py OUT_DIR SHARD_DIR...

Each SHARD_DIR is a cargo-mutants output directory (the `mutants.out` that ci/mutants.sh
leaves, or a directory holding one). OUT_DIR receives caught.txt, missed.txt, timeout.txt and
unviable.txt (each sorted, one mutant per line) and summary.md. The kill rate is
caught / (caught + missed + timeout): unviable mutants (ones that do not build) are not
counted. Exit 1 when a shard's baseline failed or a shard has no outcome lists (a shard that
did not run cannot pass), 0 otherwise.
"""

import json
import sys
from pathlib import Path

KINDS = ("caught", "missed", "timeout", "unviable")


def shard_dir(path: Path) -> Path:
    return path / "mutants.out" if (path / "mutants.out").is_dir() else path


def baseline_failed(out: Path) -> bool:
    outcomes = out / "outcomes.json"
    if not outcomes.exists():
        return False
    data = json.loads(outcomes.read_text())
    for outcome in data.get("outcomes", []):
        if outcome.get("scenario") == "Baseline":
            return outcome.get("summary") not in ("Success",)
    return False


def main(argv: list[str]) -> int:
    if len(argv) < 3:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    target = Path(argv[1])
    merged = {kind: set() for kind in KINDS}
    problems = []
    for arg in argv[2:]:
        out = shard_dir(Path(arg))
        if not all((out / f"{kind}.txt").exists() for kind in KINDS):
            problems.append(f"{arg}: no outcome lists (did the shard run?)")
            continue
        if baseline_failed(out):
            problems.append(f"{arg}: the unchanged suite failed (baseline)")
        for kind in KINDS:
            lines = (out / f"{kind}.txt").read_text().splitlines()
            merged[kind].update(line for line in lines if line.strip())
    target.mkdir(parents=True, exist_ok=True)
    for kind in KINDS:
        (target / f"{kind}.txt").write_text("".join(f"{m}\n" for m in sorted(merged[kind])))
    viable = sum(len(merged[k]) for k in ("caught", "missed", "timeout"))
    rate = len(merged["caught"]) / viable if viable else 0.0
    summary = [
        "# Mutation testing: crates/core/src/models and crates/core/src/kit",
        "",
        f"- shards: {len(argv) - 2}",
        f"- caught: {len(merged['caught'])}",
        f"- missed: {len(merged['missed'])}",
        f"- timeout: {len(merged['timeout'])}",
        f"- unviable: {len(merged['unviable'])}",
        f"- kill rate of viable mutants: {rate:.1%} ({len(merged['caught'])} of {viable})",
        "",
        "## Missed",
        "",
    ]
    summary += [f"- `{m}`" for m in sorted(merged["missed"])] or ["none"]
    summary += ["", "## Timed out", ""]
    summary += [f"- `{m}`" for m in sorted(merged["timeout"])] or ["none"]
    if problems:
        summary += ["", "## Problems", ""] + [f"- {p}" for p in problems]
    (target / "summary.md").write_text("\n".join(summary) + "\n")
    print("\n".join(summary[:9]))
    for p in problems:
        print(f"error: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
