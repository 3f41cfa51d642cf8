#!/usr/bin/env bash
# Mutation testing of the models: cargo-mutants over src/models, judged by the shuttle suite.
#
#   ci/mutants.sh                 every mutant (many hours on two cores)
#   ci/mutants.sh --shard 0/16    one sixteenth, spread over every file (round-robin)
#
# Extra arguments go to cargo-mutants. A mutant is "caught" when the suite fails, "missed"
# when it passes; the lists are under mutants.out/ (caught.txt, missed.txt, timeout.txt,
# unviable.txt). The kill rate is caught / (caught + missed + timeout).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! cargo mutants --version >/dev/null 2>&1; then
  cargo install --locked cargo-mutants
fi
if ! cargo nextest --version >/dev/null 2>&1; then
  cargo install --locked cargo-nextest
fi

# The `mutants` profile (Cargo.toml) is release with incremental builds, so each mutant
# rebuilds in about a minute. The shuttle suite judges the models: every case's verdict under
# PCT and random, the per-scenario staged tests, the saved counterexamples and the probes.
# Its verdict-matrix tests run at `check`'s default budget (2,000 executions per case instead
# of 20,000), and nextest stops at the first failing test, so a caught mutant costs little.
export OHC_MATRIX_EXECUTIONS="${OHC_MATRIX_EXECUTIONS:-2000}"
# A shard is a round-robin sample, spread over every file (cargo-mutants takes
# --sharding only together with --shard).
sharding=()
for arg in "$@"; do
  case "$arg" in --shard|--shard=*) sharding=(--sharding round-robin) ;; esac
done
exec cargo mutants \
  --profile mutants \
  --test-tool nextest \
  --file 'src/models/**' \
  "${sharding[@]}" \
  --baseline skip \
  --timeout "${MUTANTS_TIMEOUT:-900}" \
  --jobs 1 \
  "$@" \
  -- --test shuttle
