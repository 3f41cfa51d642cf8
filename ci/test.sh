#!/usr/bin/env bash
# The test command: the default (shuttle) build, loom, real threads, and the main job.
# Each stage prints its wall time, and the total at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
source ci/env.sh
# loom's bound for its tests and the main job: three preemptions fit the time this has.
export LOOM_MAX_PREEMPTIONS="${LOOM_MAX_PREEMPTIONS:-3}"

started=$(date +%s)
stage_started=$started
stage() {
    local now
    now=$(date +%s)
    [ -n "${stage_name:-}" ] && echo "-- ${stage_name}: $((now - stage_started)) s"
    stage_name=$1
    stage_started=$now
    echo "== $1"
}

stage "default build (shuttle): unit, doc, shuttle, CLI and citation tests"
cargo test --release

stage "loom (exhaustive, preemption bound $LOOM_MAX_PREEMPTIONS)"
(loom_env && cargo test --release --test loom)

stage "real OS threads"
(threads_env && cargo test --release --test threads)

stage "main job: every scenario, every case, every engine of each build"
cargo run --release --quiet -- check --quiet
(loom_env && cargo run --release --quiet -- check --quiet)
(threads_env && cargo run --release --quiet -- check --quiet)

stage "the HTML report in headless Chromium"
bash ci/html-check.sh

stage "rocksdb feature: the store model against Debian's librocksdb"
bash ci/rocksdb.sh

stage "done"
echo "ci/test.sh: passed in $(( $(date +%s) - started )) s"
