# Shared by the ci/ scripts: backend build settings that add to the caller's RUSTFLAGS, and
# a package installer that works as root (CI here) or through sudo (GitHub's runners).

loom_env() {
    export RUSTFLAGS="${RUSTFLAGS:+$RUSTFLAGS }--cfg loom" CARGO_TARGET_DIR=target/loom
}

threads_env() {
    export RUSTFLAGS="${RUSTFLAGS:+$RUSTFLAGS }--cfg ohc_threads" CARGO_TARGET_DIR=target/threads
}

# Run a cargo test command for the loom suite as two processes side by side, each with its
# part of the tests (OHC_TEST_SHARD=1/2 and 2/2, which the harness reads) and one test
# thread: on two cores that is about three times faster than one process of two test
# threads, where every execution's unmap of its tasks' stacks also flushes the other core's
# TLB (shuttle reuses its stacks, and its suite gains nothing). Builds first; part 1 prints
# as it runs, part 2 after it. Fails when either part fails.
in_halves() {
    "$@" --no-run
    local out status=0 second
    out=$(mktemp)
    OHC_TEST_SHARD=2/2 "$@" -- --test-threads 1 >"$out" 2>&1 &
    second=$!
    echo "-- part 1 of 2"
    OHC_TEST_SHARD=1/2 "$@" -- --test-threads 1 || status=1
    wait "$second" || status=1
    echo "-- part 2 of 2"
    cat "$out"
    rm -f "$out"
    return "$status"
}

# Install Debian packages that are missing.
install_packages() {
    local need=()
    for pkg in "$@"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need+=("$pkg")
    done
    [ "${#need[@]}" -eq 0 ] && return 0
    echo "== installing ${need[*]}"
    local sudo=()
    [ "$(id -u)" -eq 0 ] || sudo=(sudo)
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
}
