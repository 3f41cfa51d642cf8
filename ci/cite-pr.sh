#!/usr/bin/env bash
# Which Java methods cited by the models a change to Ozone touches: runs
# `ozone-ha-check cite --ozone OZONE_DIR --since BASE --format markdown`, prints the table,
# appends it to $GITHUB_STEP_SUMMARY when that is set, and fails or warns when a cited
# method is touched. The composite action (action.yml) runs this; so can any CI or a shell.
#
# Usage: ci/cite-pr.sh OZONE_DIR BASE [fail|warn] [more cite options...]
#   OZONE_DIR  the Ozone git checkout (or bare git directory); its HEAD is the change's head
#   BASE       the change's base commit (or a ref); the history of OZONE_DIR must hold it
#   fail|warn  exit 1 (fail, the default) or 0 with a warning when a cited method is touched
# Environment: OZONE_HA_CHECK, the binary (default: target/release/ozone-ha-check of this
# repository).
# Exit: 0 nothing cited touched (or warn), 1 touched (fail), 2 bad input.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
if [ $# -lt 2 ]; then
    echo "usage: ci/cite-pr.sh OZONE_DIR BASE [fail|warn] [cite options...]" >&2
    exit 2
fi
ozone=$1
base=$2
mode=${3:-fail}
shift $(( $# < 3 ? $# : 3 ))
case "$mode" in
    fail | warn) ;;
    *)
        echo "error: the third argument is fail or warn, not \`$mode\`" >&2
        exit 2
        ;;
esac
bin=${OZONE_HA_CHECK:-$here/target/release/ozone-ha-check}
if [ ! -x "$bin" ]; then
    echo "error: no ozone-ha-check binary at $bin (cargo build --release -p ozone-ha-check, or set OZONE_HA_CHECK)" >&2
    exit 2
fi

table=$(mktemp)
trap 'rm -f "$table"' EXIT
"$bin" cite --ozone "$ozone" --since "$base" --format markdown "$@" >"$table"
code=$?
cat "$table"
if [ -n "${GITHUB_STEP_SUMMARY:-}" ] && [ -s "$table" ]; then
    cat "$table" >>"$GITHUB_STEP_SUMMARY"
fi
case $code in
    0) exit 0 ;;
    1)
        message="This change touches Java methods the ozone-ha-check models cite: re-read the scenarios listed in the job summary."
        if [ "$mode" = warn ]; then
            echo "::warning title=ozone-ha-check::$message"
            exit 0
        fi
        echo "::error title=ozone-ha-check::$message"
        exit 1
        ;;
    *)
        echo "::error title=ozone-ha-check::cite --since failed (exit $code): see the log above"
        exit 2
        ;;
esac
