#!/usr/bin/env bash
# Regenerate the README's pictures: a verdict matrix (`report --format svg-matrix`) and a
# counterexample's sequence diagram (the SVG `check --save` writes beside each fixture).
# Both come from deterministic runs (fixed seeds), so they change only with the models.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo run --release --quiet -- report hdds-16452 --format svg-matrix --quiet > docs/matrix-hdds-16452.svg

saved=$(mktemp -d)
trap 'rm -rf "$saved"' EXIT
cargo run --release --quiet -- check hdds-16092 --variant buggy --plan steady --engine pct \
  --invariant TxIndexMonotone --save "$saved" --quiet > /dev/null
cp "$saved"/hdds-16092__buggy__steady__TxIndexMonotone__pct.svg docs/counterexample-hdds-16092-buggy-steady.svg
echo "wrote docs/matrix-hdds-16452.svg and docs/counterexample-hdds-16092-buggy-steady.svg"
