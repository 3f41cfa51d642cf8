# Shared by the ci/ scripts: backend build settings that add to the caller's RUSTFLAGS, and
# a package installer that works as root (CI here) or through sudo (GitHub's runners).

loom_env() {
    export RUSTFLAGS="${RUSTFLAGS:+$RUSTFLAGS }--cfg loom" CARGO_TARGET_DIR=target/loom
}

threads_env() {
    export RUSTFLAGS="${RUSTFLAGS:+$RUSTFLAGS }--cfg ohc_threads" CARGO_TARGET_DIR=target/threads
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
