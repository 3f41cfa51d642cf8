#!/usr/bin/env bash
# Formatting, and clippy with -D warnings under each backend.
set -euo pipefail
cd "$(dirname "$0")/.."
source ci/env.sh

cargo fmt --all -- --check
cargo clippy --release --all-targets -- -D warnings
(loom_env && cargo clippy --release --all-targets -- -D warnings)
(threads_env && cargo clippy --release --all-targets -- -D warnings)
