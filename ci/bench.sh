#!/usr/bin/env bash
# Measure every scenario under the default (shuttle), loom and real-thread builds, and merge
# the parts into bench/RESULTS.md, bench/results.json and bench/scaling-*.svg.
# Extra arguments go to every `bench` run (for example `--seeds 20 --time-box 10`).
set -euo pipefail
cd "$(dirname "$0")/.."
source ci/env.sh

parts=$(mktemp -d)
trap 'rm -rf "$parts"' EXIT

cargo run --release --quiet -- bench "$@" --out "$parts/shuttle.json"
(loom_env && cargo run --release --quiet -- bench "$@" --out "$parts/loom.json")
(threads_env && cargo run --release --quiet -- bench "$@" --out "$parts/threads.json")
cargo run --release --quiet -- bench --merge "$parts/shuttle.json" "$parts/loom.json" "$parts/threads.json" --results-dir bench
