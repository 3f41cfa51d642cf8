#!/usr/bin/env bash
# The `rocksdb` feature: the store model checked against a real RocksDB.
# Links Debian's librocksdb (7.8.3) instead of building RocksDB from source.
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

echo "== rocksdb feature: unit tests and the differential test against RocksDB"
cargo test --release -p ozone-ha-check-core --features rocksdb --lib --test rocksdb
cargo test --release -p ozone-ha-check-core --features rocksdb --doc kit::rocks

echo "== real OS threads against RocksDB: hdds-16092 and hdds-16452, fixed never breaks"
(threads_env && cargo test --release -p ozone-ha-check-core --features rocksdb --test rocksdb-threads -- --nocapture)
