#!/usr/bin/env bash
# Mutation testing of the models: cargo-mutants over src/models, judged by the shuttle suite.
#
#   ci/mutants.sh                 every mutant (hours on two cores)
#   ci/mutants.sh --shard 0/8     one eighth, spread over every file (round-robin)
#
# Extra arguments go to cargo-mutants. A mutant is "caught" when the suite fails, "missed"
# when it passes; the lists are under mutants.out/ (caught.txt, missed.txt, timeout.txt,
# unviable.txt). The kill rate is caught / (caught + missed + timeout).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! cargo mutants --version >/dev/null 2>&1; then
  cargo install --locked cargo-mutants
fi

# The `mutants` profile (Cargo.toml) is release with incremental builds, so each mutant
# rebuilds in seconds rather than minutes. The shuttle suite is what judges the models:
# every case's verdict under PCT and random, the per-scenario tests, the saved
# counterexamples and the probes.
exec cargo mutants \
  --profile mutants \
  --file 'src/models/**' \
  --sharding round-robin \
  --baseline skip \
  --timeout "${MUTANTS_TIMEOUT:-600}" \
  --jobs 1 \
  "$@" \
  -- --test shuttle
