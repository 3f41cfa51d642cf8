#!/usr/bin/env bash
# Render `report --format html` in headless Chromium (Debian's package) and check that the
# browser shows the result table with one row per case.
set -euo pipefail
cd "$(dirname "$0")/.."

source ci/env.sh
install_packages chromium

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cargo run --release --quiet -- report --engine pct --format html --quiet > "$out/report.html"
expected=$(cargo run --release --quiet -- list --json | python3 -c 'import json,sys; print(sum(len(s["expected"]) for s in json.load(sys.stdin)))')

chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$out/profile" --dump-dom "file://$out/report.html" > "$out/dom.html" 2>"$out/chromium.log"

rows=$(python3 - "$out/dom.html" <<'PY'
import sys
from html.parser import HTMLParser

class Rows(HTMLParser):
    def __init__(self):
        super().__init__()
        self.in_table = False
        self.in_body = False
        self.rows = 0
    def handle_starttag(self, tag, attrs):
        if tag == "table" and ("id", "matrix") in attrs:
            self.in_table = True
        elif self.in_table and tag == "tbody":
            self.in_body = True
        elif self.in_body and tag == "tr":
            self.rows += 1
    def handle_endtag(self, tag):
        if tag == "table":
            self.in_table = self.in_body = False

p = Rows()
p.feed(open(sys.argv[1], encoding="utf-8").read())
print(p.rows)
PY
)
echo "chromium rendered the matrix with $rows rows (expected $expected)"
[ "$rows" = "$expected" ]
