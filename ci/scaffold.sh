#!/usr/bin/env bash
# `ozone-ha-check new` end to end, in a copy of this work tree (without target/ and .git):
# write the skeleton of hdds-0000, build it, `list` shows it, `check hdds-0000` gets every
# expected verdict (random and PCT, then the stateful engine), its counterexamples save as
# fixtures that replay, its shuttle tests and the probe and fixture suites pass, and
# `cargo fmt --check` is clean. The copy builds in target/scaffold/target (or
# $SCAFFOLD_TARGET_DIR), kept between runs so that only the workspace's crates recompile; a
# first run starts it from a copy of the work tree's release build, so that its dependencies
# do not compile again.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)
repo=$(pwd)
copy="$repo/target/scaffold/checkout"
work_tree_target="${CARGO_TARGET_DIR:-$repo/target}"
export CARGO_TARGET_DIR="${SCAFFOLD_TARGET_DIR:-$repo/target/scaffold/target}"

# Cargo names a path package's artifacts by its place in the workspace, not by the workspace's
# own path, so the copy's build finds the work tree's: its dependencies are fresh, and what
# `new` changes compiles again (its sources are newer than the artifacts). A copy, not links:
# the copy's build must not write into the work tree's files.
if [ ! -d "$CARGO_TARGET_DIR/release" ] && [ -d "$work_tree_target/release/deps" ]; then
    mkdir -p "$CARGO_TARGET_DIR/release"
    cp -a "$work_tree_target/release/deps" "$work_tree_target/release/build" \
        "$work_tree_target/release/.fingerprint" "$CARGO_TARGET_DIR/release/"
fi

rm -rf "$copy"
mkdir -p "$copy"
trap 'rm -rf "$copy"' EXIT
tar -C "$repo" --exclude=./target --exclude=./.git -cf - . | tar -C "$copy" -xf -
cd "$copy"

ohc() { cargo run --release --quiet -p ozone-ha-check -- "$@"; }

echo "== new hdds-0000 (in $copy)"
# `new` runs from the work tree's own build (a no-op build after ci/test.sh's first stage), so
# that the copy compiles once, with the new scenario in it.
CARGO_TARGET_DIR="$work_tree_target" cargo build --release --quiet \
    --manifest-path "$repo/Cargo.toml" -p ozone-ha-check
"$work_tree_target/release/ozone-ha-check" new hdds-0000 --root "$copy"

echo "== build, and list"
cargo build --release -p ozone-ha-check
ohc list --names | grep -qx hdds-0000 || { echo "list does not show hdds-0000" >&2; exit 1; }
ohc list | sed -n '/^hdds-0000 /,/^[^ ]/p'

echo "== check hdds-0000 (random and PCT)"
ohc check hdds-0000

echo "== check hdds-0000 under the stateful engine"
ohc check hdds-0000 --engine stateful

echo "== its counterexamples saved as fixtures"
ohc check hdds-0000 --engine pct --quiet --save crates/core/tests/shuttle/fixtures

echo "== its shuttle tests: the verdicts, its own, and the probe and fixture suites with it"
for filter in hdds-0000:: hdds_0000:: probes:: fixtures::; do
    cargo test --release -p ozone-ha-check-core --test shuttle -- "$filter"
done

echo "== cargo fmt --check"
cargo fmt --all -- --check

echo "ci/scaffold.sh: passed in $(( $(date +%s) - started )) s"
