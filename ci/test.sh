#!/usr/bin/env bash
# The test command: the default (shuttle) build, loom, real threads, and the main job.
set -euo pipefail
cd "$(dirname "$0")/.."
source ci/env.sh
# loom's bound for its tests and the main job: three preemptions fit the time this has.
export LOOM_MAX_PREEMPTIONS="${LOOM_MAX_PREEMPTIONS:-3}"

echo "== default build (shuttle): unit, doc, shuttle, CLI and citation tests"
cargo test --release

echo "== loom (exhaustive, preemption bound $LOOM_MAX_PREEMPTIONS)"
(loom_env && cargo test --release --test loom)

echo "== real OS threads"
(threads_env && cargo test --release --test threads)

echo "== main job: every scenario, every case, every engine of each build"
cargo run --release --quiet -- check --quiet
(loom_env && cargo run --release --quiet -- check --quiet)
(threads_env && cargo run --release --quiet -- check --quiet)

echo "== the HTML report in headless Chromium"
bash ci/html-check.sh

echo "== rocksdb feature: the store model against Debian's librocksdb"
bash ci/rocksdb.sh
