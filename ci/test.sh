#!/usr/bin/env bash
# The test command: the default (shuttle) build, loom, real threads, and the main job.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== default build (shuttle): unit, doc, shuttle and CLI tests"
cargo test --release

echo "== loom (exhaustive, preemption bound 2)"
RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom cargo test --release --test loom

echo "== real OS threads"
RUSTFLAGS="--cfg ohc_threads" CARGO_TARGET_DIR=target/threads cargo test --release --test threads

echo "== main job: every scenario, every case, every engine of each build"
cargo run --release --quiet -- check --quiet
RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom cargo run --release --quiet -- check --quiet
RUSTFLAGS="--cfg ohc_threads" CARGO_TARGET_DIR=target/threads cargo run --release --quiet -- check --quiet

echo "== the HTML report in headless Chromium"
bash ci/html-check.sh

echo "== rocksdb feature: the store model against Debian's librocksdb"
bash ci/rocksdb.sh
