#!/usr/bin/env bash
# Render `report --format html` in headless Chromium (Debian's package) as a person would
# see it, 1,280 pixels wide, and check the laid-out page (ci/html_check.py): every violated
# cell of a verdict matrix links to a diagram that exists and marks the break, no element is
# wider than the viewport, no text leaves its box in a diagram, the page has no script and
# loads nothing, and the table of all reports has one row per case. Screenshots of a matrix
# and of one diagram, the page and the measurements are kept under target/report-artefacts/
# (or $REPORT_ARTEFACTS).
set -euo pipefail
cd "$(dirname "$0")/.."

source ci/env.sh
install_packages chromium

artefacts=${REPORT_ARTEFACTS:-target/report-artefacts}
rm -rf "$artefacts"
mkdir -p "$artefacts"

start=$(date +%s.%N)
cargo run --release --quiet -- report --engine pct --format html --bench bench/results.json --quiet > "$artefacts/report.html"
end=$(date +%s.%N)
expected=$(cargo run --release --quiet -- list --json | python3 -c 'import json,sys; print(sum(len(s["expected"]) for s in json.load(sys.stdin)))')
echo "report --engine pct --format html: $(python3 -c "print(f'{$end - $start:.1f}')") s, $(wc -c < "$artefacts/report.html") bytes"

python3 ci/html_check.py "$artefacts/report.html" "$artefacts" "$expected"
echo "artefacts (screenshots, page, measurements): $(cd "$artefacts" && pwd)"
