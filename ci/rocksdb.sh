#!/usr/bin/env bash
# The core under real OS threads, and the `rocksdb` feature: the store model checked against
# a real RocksDB. Links Debian's librocksdb (7.8.3) instead of building RocksDB from source.
set -euo pipefail
cd "$(dirname "$0")/.."

source ci/env.sh
install_packages librocksdb-dev libclang-dev

multiarch="$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)"
# librocksdb-sys: link the system library (dynamically) and generate bindings from its headers.
export ROCKSDB_LIB_DIR="/usr/lib/$multiarch"
export ROCKSDB_INCLUDE_DIR=/usr/include

echo "== clippy with the rocksdb feature"
cargo clippy --release --workspace --all-targets --features ozone-ha-check/rocksdb -- -D warnings

# One build, the real-threads one, with the feature: the real-threads suite, the differential
# test and the doc tests all run on it (the store behaves alike on every backend, nothing else
# here needs shuttle, and the feature only adds the mirror, which these suites install or not
# as they need); the unit tests are the default build's, which the feature does not change.
echo "== real OS threads: the suite; the differential test against RocksDB; hdds-16092 and hdds-16452 against it, fixed never breaks"
(threads_env && cargo test --release -p ozone-ha-check-core --features rocksdb \
    --test threads --test rocksdb --test rocksdb-threads -- --nocapture)
echo "== the rocksdb module's doc tests"
(threads_env && RUSTDOCFLAGS="--cfg ohc_threads" \
    cargo test --release -p ozone-ha-check-core --features rocksdb --doc kit::rocks)
