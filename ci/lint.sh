#!/usr/bin/env bash
# Formatting, and clippy with -D warnings under each backend.
set -euo pipefail
cd "$(dirname "$0")/.."
source ci/env.sh

cargo fmt --all -- --check
cargo clippy --release --workspace --all-targets -- -D warnings
# The loom and real-threads builds compile only the core (the CLI and the citation tool
# run on the default build).
(loom_env && cargo clippy --release -p ozone-ha-check-core --all-targets -- -D warnings)
(threads_env && cargo clippy --release -p ozone-ha-check-core --all-targets -- -D warnings)
