#!/usr/bin/env bash
# Formatting, clippy with -D warnings under each backend, and the libraries' docs (broken
# intra-doc links are errors).
set -euo pipefail
cd "$(dirname "$0")/.."
source ci/env.sh

cargo fmt --all -- --check
cargo clippy --release --workspace --all-targets -- -D warnings
# The loom and real-threads builds compile only the core (the CLI and the citation tool
# run on the default build).
(loom_env && cargo clippy --release -p ozone-ha-check-core --all-targets -- -D warnings)
(threads_env && cargo clippy --release -p ozone-ha-check-core --all-targets -- -D warnings)
RUSTDOCFLAGS="-D warnings" cargo doc --release --no-deps --workspace --lib
