#!/usr/bin/env bash
# Formatting, and clippy with -D warnings under each backend.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo fmt --all -- --check
cargo clippy --release --all-targets -- -D warnings
RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom cargo clippy --release --all-targets -- -D warnings
RUSTFLAGS="--cfg ohc_threads" CARGO_TARGET_DIR=target/threads cargo clippy --release --all-targets -- -D warnings
