#!/usr/bin/env bash
# Mutation testing of the models and the kit: cargo-mutants over crates/core/src/models and crates/core/src/kit,
# judged by the shuttle suite.
#
#   ci/mutants.sh                  every mutant (many hours on two cores)
#   ci/mutants.sh --shard 3/16     part 3 of 16 (counting from 1, as `check --shard`),
#                                  spread over every file (round-robin)
#   ci/mutants.sh --list           the mutants, without running them
#
# Extra arguments go to cargo-mutants. cargo-mutants first runs the unchanged suite (its
# baseline) and stops with an error if that fails: a mutant counts as caught only against a
# suite that passes. A mutant is "caught" when the suite fails, "missed" when it passes; the
# lists are under mutants.out/ (caught.txt, missed.txt, timeout.txt, unviable.txt, and
# outcomes.json). `ci/mutants_merge.py` joins the shards' outcomes into one list and gives the
# kill rate, caught / (caught + missed + timeout).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! cargo mutants --version >/dev/null 2>&1; then
  cargo install --locked cargo-mutants
fi
if ! cargo nextest --version >/dev/null 2>&1; then
  cargo install --locked cargo-nextest
fi

# A 1-based --shard I/N becomes cargo-mutants' 0-based one, spread round-robin over the files.
args=()
expect_shard=0
for arg in "$@"; do
  if [ "$expect_shard" = 1 ]; then
    arg="--shard=$arg"
    expect_shard=0
  elif [ "$arg" = --shard ]; then
    expect_shard=1
    continue
  fi
  case "$arg" in
    --shard=*)
      spec=${arg#--shard=}
      index=${spec%/*}
      count=${spec#*/}
      if ! [[ "$index" =~ ^[0-9]+$ && "$count" =~ ^[0-9]+$ ]] || [ "$index" -lt 1 ] || [ "$index" -gt "$count" ]; then
        echo "ci/mutants.sh: --shard takes I/N with 1 <= I <= N, got $spec" >&2
        exit 2
      fi
      args+=(--shard "$((index - 1))/$count" --sharding round-robin)
      ;;
    *) args+=("$arg") ;;
  esac
done

# The `mutants` profile (Cargo.toml) is release with incremental builds. The judge is the
# shuttle suite at the budgets `check` uses (every violating case under 20 seeds, each holding
# case, the staged reproductions, the fixtures, the probes), less the two tests of the
# engine and the facade that no model or kit change can reach: the random programs compared
# across engines, and the source check of the models' shared state (it reads the sources, so
# a mutant that kept to the facade's types passes it by construction). nextest stops at the
# first failing test, so a caught mutant costs little. kit/rocks.rs is compiled only with the
# `rocksdb` feature, which this suite does not build: its mutants would count as missed.
exec cargo mutants \
  --profile mutants \
  --test-tool nextest \
  --package ozone-ha-check-core \
  --file 'crates/core/src/models/**' \
  --file 'crates/core/src/kit/**' \
  --exclude 'crates/core/src/kit/rocks.rs' \
  --timeout "${MUTANTS_TIMEOUT:-600}" \
  --cargo-arg=--test=shuttle \
  --jobs 1 \
  "${args[@]}" \
  -- -E 'not test(/^stateful::(random_programs|models_share)/)'
