#!/usr/bin/env bash
# The test command: the workspace under the default (shuttle) build, the core under loom, the
# HTML report, the core under real threads with RocksDB, `new` end to end and the scripts' own tests.
# Each stage prints its wall time, and the total at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
source ci/env.sh
# loom's bound for its tests: three preemptions fit the time this has.
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

stage "default build (shuttle): the workspace's unit, doc, shuttle, CLI and citation tests"
cargo test --release --workspace

stage "loom (exhaustive, preemption bound $LOOM_MAX_PREEMPTIONS)"
(loom_env && in_halves cargo test --release -p ozone-ha-check-core --test loom)

# The main job (`cargo run --release -- check`) is not run again here: each of its verdicts is
# one of the shuttle suite's verdict tests at seed 0, the same case, engine and budget (the
# core's `jobs::tests::the_main_job_is_the_verdict_tests_at_seed_0` pins that), and the CLI
# tests run `check` end to end. Under loom and real threads the loom suite and the real-threads
# suite (in the RocksDB stage) are its verdicts.

stage "the HTML report in headless Chromium"
bash ci/html-check.sh

stage "real OS threads, and the rocksdb feature: the store model against Debian's librocksdb"
bash ci/rocksdb.sh

stage "ozone-ha-check new: a new scenario's skeleton builds, lists, checks and passes its tests"
bash ci/scaffold.sh

stage "the bench scripts' own tests (ci/test_*.py)"
python3 -m unittest discover -s ci -p 'test_*.py'

stage "the GitHub action and the example Ozone workflow: YAML keys; actionlint on it and ci.yml"
bash ci/action-check.sh

stage "done"
echo "ci/test.sh: passed in $(( $(date +%s) - started )) s"
