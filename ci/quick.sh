#!/usr/bin/env bash
# The inner loop, after each change (default build, about half a minute warm on two cores):
# formatting, the library's unit tests, and the main job under PCT at check's budgets.
# The full test command is ci/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)

cargo fmt --all -- --check
cargo test --release --quiet --workspace --lib
cargo run --release --quiet -- check --engine pct --quiet

echo "ci/quick.sh: passed in $(( $(date +%s) - start )) s"
