//! The kit's store operations on a real RocksDB (feature `rocksdb`).
//!
//! [`RocksStore`] does what [`Store`](super::store::Store) models, on a RocksDB database in a
//! directory: each table is a column family, a [`WriteBatch`] commits as one RocksDB write
//! batch, an unbatched put is one `put_cf`, a checkpoint is RocksDB's Checkpoint API into a
//! fresh directory that is then opened read-only and read back, a reopen closes the database
//! and opens it again, and an install replaces the database directory by one holding exactly
//! the checkpoint's rows. The write-ahead log is on (RocksDB's default), as in Ozone.
//!
//! The table cache is Ozone's (`TableCache`), not RocksDB's: it lives in the process, beside
//! the database, and a reopen empties it.
//!
//! Column families rather than a key prefix: Ozone's `RDBStore` maps each table to a column
//! family, a checkpoint and a reopen must then carry every family along, and a table with no
//! rows stays a real (empty) family, which is what the checks below exercise.
//!
//! ```
//! use ozone_ha_check::kit::rocks::RocksStore;
//! use ozone_ha_check::kit::store::WriteBatch;
//!
//! let dir = std::env::temp_dir().join(format!("ohc-rocks-doc-{}", std::process::id()));
//! let _ = std::fs::remove_dir_all(&dir);
//! let db: RocksStore<u64> = RocksStore::open(&dir).unwrap();
//! let mut batch = WriteBatch::new();
//! batch.put("keyTable", "k1", 10);
//! db.commit(&batch).unwrap();
//! db.put("transactionInfoTable", "TX", 1).unwrap();
//! db.reopen().unwrap();
//! assert_eq!(db.get_skip_cache("keyTable", "k1").unwrap(), Some(10));
//! assert_eq!(db.checkpoint().unwrap().get("transactionInfoTable", "TX"), Some(&1));
//! drop(db);
//! std::fs::remove_dir_all(&dir).unwrap();
//! ```

use super::store::{Checkpoint, Shadow, ShadowFactory, TableName, Tables, WriteBatch};
use rocksdb::{checkpoint::Checkpoint as RocksCheckpoint, IteratorMode, Options, DB};
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::sync::Mutex;

/// A value that can be stored as RocksDB bytes.
pub trait Codec: Sized {
    /// The value's bytes.
    fn encode(&self) -> Vec<u8>;
    /// The value back from its bytes; `None` if they are not one.
    fn decode(bytes: &[u8]) -> Option<Self>;
}

impl Codec for u64 {
    fn encode(&self) -> Vec<u8> {
        self.to_be_bytes().to_vec()
    }
    fn decode(bytes: &[u8]) -> Option<Self> {
        Some(u64::from_be_bytes(bytes.try_into().ok()?))
    }
}

impl Codec for String {
    fn encode(&self) -> Vec<u8> {
        self.as_bytes().to_vec()
    }
    fn decode(bytes: &[u8]) -> Option<Self> {
        String::from_utf8(bytes.to_vec()).ok()
    }
}

/// An error from RocksDB, the file system, or a row whose bytes do not decode.
#[derive(Debug)]
pub struct RocksError(pub String);

impl fmt::Display for RocksError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for RocksError {}

impl From<rocksdb::Error> for RocksError {
    fn from(e: rocksdb::Error) -> Self {
        RocksError(format!("rocksdb: {e}"))
    }
}

impl From<std::io::Error> for RocksError {
    fn from(e: std::io::Error) -> Self {
        RocksError(format!("io: {e}"))
    }
}

/// The result of a RocksDB store operation.
pub type Result<T> = std::result::Result<T, RocksError>;

const DEFAULT_CF: &str = "default";

struct Inner<V> {
    db: Option<DB>,
    cache: BTreeMap<(TableName, String), V>,
    names: BTreeMap<String, TableName>,
}

/// A RocksDB database in a directory, with Ozone's table cache beside it.
pub struct RocksStore<V> {
    path: PathBuf,
    inner: Mutex<Inner<V>>,
    checkpoints: AtomicU64,
}

fn options() -> Options {
    let mut opts = Options::default();
    opts.create_if_missing(true);
    opts.create_missing_column_families(true);
    opts
}

fn open_db(path: &Path) -> Result<DB> {
    let opts = options();
    let cfs = if path.join("CURRENT").exists() {
        DB::list_cf(&opts, path)?
    } else {
        vec![DEFAULT_CF.to_string()]
    };
    Ok(DB::open_cf(&opts, path, cfs)?)
}

/// Every row of every column family but `default`, with table names mapped through `names`.
fn read_all<V: Codec + Clone>(
    db: &DB,
    path: &Path,
    names: &mut BTreeMap<String, TableName>,
) -> Result<Tables<V>> {
    let mut tables = Tables::default();
    for cf_name in DB::list_cf(&options(), path)? {
        if cf_name == DEFAULT_CF {
            continue;
        }
        let table = table_name(names, &cf_name);
        let cf = db
            .cf_handle(&cf_name)
            .ok_or_else(|| RocksError(format!("no column family {cf_name}")))?;
        for item in db.iterator_cf(cf, IteratorMode::Start) {
            let (k, v) = item?;
            let key = String::from_utf8(k.to_vec())
                .map_err(|_| RocksError(format!("{cf_name}: a key is not UTF-8")))?;
            let value = V::decode(&v)
                .ok_or_else(|| RocksError(format!("{cf_name}/{key}: value does not decode")))?;
            tables.put(table, &key, value);
        }
    }
    Ok(tables)
}

fn table_name(names: &mut BTreeMap<String, TableName>, cf: &str) -> TableName {
    names
        .entry(cf.to_string())
        .or_insert_with(|| Box::leak(cf.to_string().into_boxed_str()))
}

impl<V: Codec + Clone> RocksStore<V> {
    /// Open (or create) the database in `path`.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref().to_path_buf();
        let db = open_db(&path)?;
        Ok(Self {
            path,
            inner: Mutex::new(Inner {
                db: Some(db),
                cache: BTreeMap::new(),
                names: BTreeMap::new(),
            }),
            checkpoints: AtomicU64::new(0),
        })
    }

    /// The database directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner<V>> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Make sure the column family of `table` exists.
    fn ensure_cf(inner: &mut Inner<V>, table: TableName) -> Result<()> {
        inner.names.insert(table.to_string(), table);
        let db = inner.db.as_mut().expect("database is open");
        if db.cf_handle(table).is_none() {
            db.create_cf(table, &options())?;
        }
        Ok(())
    }

    /// Commit a batch as one atomic RocksDB write batch.
    pub fn commit(&self, batch: &WriteBatch<V>) -> Result<()> {
        Self::commit_locked(&mut self.lock(), batch)
    }

    fn commit_locked(inner: &mut Inner<V>, batch: &WriteBatch<V>) -> Result<()> {
        for (table, _, _) in batch.iter() {
            Self::ensure_cf(inner, table)?;
        }
        let db = inner.db.as_ref().expect("database is open");
        let mut wb = rocksdb::WriteBatch::default();
        for (table, key, value) in batch.iter() {
            let cf = db.cf_handle(table).expect("created above");
            match value {
                Some(v) => wb.put_cf(cf, key, v.encode()),
                None => wb.delete_cf(cf, key),
            }
        }
        db.write(wb)?;
        Ok(())
    }

    /// An unbatched put; it does not touch the cache.
    pub fn put(&self, table: TableName, key: &str, value: V) -> Result<()> {
        let mut inner = self.lock();
        Self::ensure_cf(&mut inner, table)?;
        let db = inner.db.as_ref().expect("database is open");
        db.put_cf(
            db.cf_handle(table).expect("created above"),
            key,
            value.encode(),
        )?;
        Ok(())
    }

    fn read_db(inner: &Inner<V>, table: TableName, key: &str) -> Result<Option<V>> {
        let db = inner.db.as_ref().expect("database is open");
        let Some(cf) = db.cf_handle(table) else {
            return Ok(None);
        };
        match db.get_cf(cf, key)? {
            None => Ok(None),
            Some(bytes) => V::decode(&bytes)
                .map(Some)
                .ok_or_else(|| RocksError(format!("{table}/{key}: value does not decode"))),
        }
    }

    /// Read through the table cache: a cached entry wins, else the committed row.
    pub fn get(&self, table: TableName, key: &str) -> Result<Option<V>> {
        let inner = self.lock();
        if let Some(v) = inner.cache.get(&(table, key.to_string())) {
            return Ok(Some(v.clone()));
        }
        Self::read_db(&inner, table, key)
    }

    /// Read the committed row, skipping the cache.
    pub fn get_skip_cache(&self, table: TableName, key: &str) -> Result<Option<V>> {
        Self::read_db(&self.lock(), table, key)
    }

    /// Put an entry into the table cache; nothing is written to the database.
    pub fn cache_put(&self, table: TableName, key: &str, value: V) {
        self.lock().cache.insert((table, key.to_string()), value);
    }

    /// A RocksDB checkpoint in a fresh directory beside the database, opened read-only and
    /// read back; the directory is removed afterwards.
    pub fn checkpoint(&self) -> Result<Checkpoint<V>> {
        let mut inner = self.lock();
        let n = self.checkpoints.fetch_add(1, Ordering::Relaxed);
        let dir = self.path.with_file_name(format!(
            "{}.checkpoint-{n}",
            self.path
                .file_name()
                .map_or("db".into(), |f| f.to_string_lossy())
        ));
        if dir.exists() {
            std::fs::remove_dir_all(&dir)?;
        }
        RocksCheckpoint::new(inner.db.as_ref().expect("database is open"))?
            .create_checkpoint(&dir)?;
        let read = (|| {
            let cfs = DB::list_cf(&options(), &dir)?;
            let snap = DB::open_cf_for_read_only(&options(), &dir, cfs, false)?;
            read_all(&snap, &dir, &mut inner.names)
        })();
        std::fs::remove_dir_all(&dir)?;
        read
    }

    /// Close the database and open it again: committed rows survive, the cache is empty.
    pub fn reopen(&self) -> Result<()> {
        let mut inner = self.lock();
        inner.cache.clear();
        drop(inner.db.take());
        inner.db = Some(open_db(&self.path)?);
        Ok(())
    }

    /// Replace the database by one holding exactly `checkpoint`'s rows, and empty the cache
    /// (installing a leader's checkpoint replaces the DB directory).
    pub fn install(&self, checkpoint: &Checkpoint<V>) -> Result<()> {
        let mut inner = self.lock();
        inner.cache.clear();
        drop(inner.db.take());
        std::fs::remove_dir_all(&self.path)?;
        inner.db = Some(open_db(&self.path)?);
        let mut batch = WriteBatch::new();
        for (table, key, value) in checkpoint.iter() {
            batch.put(table, key, value.clone());
        }
        Self::commit_locked(&mut inner, &batch)
    }

    /// Every committed row, read from the database.
    pub fn durable(&self) -> Result<Tables<V>> {
        let mut inner = self.lock();
        let Inner { db, names, .. } = &mut *inner;
        read_all(db.as_ref().expect("database is open"), &self.path, names)
    }
}

/// A RocksDB database that follows a model store write for write, inside the model's lock.
/// Values are stored as their `Display` text. Every read the model answers from the committed
/// state, every checkpoint (through RocksDB's Checkpoint API) and the whole committed state
/// after every write are compared with the database; a difference panics, naming it.
pub struct Mirror {
    db: RocksStore<String>,
    dir: PathBuf,
}

static MIRRORS: AtomicU64 = AtomicU64::new(0);

fn must<T>(what: &str, r: Result<T>) -> T {
    r.unwrap_or_else(|e| panic!("RocksDB mirror: {what}: {e}"))
}

impl Mirror {
    /// How many mirrors this process has created.
    pub fn created() -> u64 {
        MIRRORS.load(Ordering::Relaxed)
    }

    /// A fresh database under `root` holding `initial`; removed when the mirror is dropped.
    pub fn create(root: &Path, initial: &Tables<String>) -> Result<Self> {
        let n = MIRRORS.fetch_add(1, Ordering::Relaxed);
        let dir = root.join(format!("store-{}-{n}", std::process::id()));
        if dir.exists() {
            std::fs::remove_dir_all(&dir)?;
        }
        std::fs::create_dir_all(&dir)?;
        let db = RocksStore::open(dir.join("db"))?;
        let mut batch = WriteBatch::new();
        for (t, k, v) in initial.iter() {
            batch.put(t, k, v.clone());
        }
        db.commit(&batch)?;
        Ok(Self { db, dir })
    }

    /// A factory for [`install_shadows`](super::store::install_shadows): every new store
    /// gets a fresh mirror under `root`.
    pub fn factory(root: PathBuf) -> Arc<ShadowFactory> {
        Arc::new(move |initial: &Tables<String>| -> Box<dyn Shadow> {
            Box::new(
                Mirror::create(&root, initial)
                    .unwrap_or_else(|e| panic!("RocksDB mirror under {}: {e}", root.display())),
            )
        })
    }
}

impl Shadow for Mirror {
    fn commit(&self, batch: &WriteBatch<String>) {
        must("commit", self.db.commit(batch));
    }

    fn put(&self, table: TableName, key: &str, value: &str) {
        must("put", self.db.put(table, key, value.to_string()));
    }

    fn check_read(&self, table: TableName, key: &str, model: Option<&str>) {
        let rocks = must("get", self.db.get_skip_cache(table, key));
        assert_eq!(
            model,
            rocks.as_deref(),
            "RocksDB mirror: read of {table}/{key}: model vs RocksDB"
        );
    }

    fn check_state(&self, what: &str, model: &Tables<String>) {
        let rocks = must("read", self.db.durable());
        let diff = model.diff(&rocks);
        assert!(
            diff.is_empty(),
            "RocksDB mirror: {what}: model vs RocksDB differ: {diff:?}"
        );
    }

    fn checkpoint(&self, model: &Tables<String>) {
        let rocks = must("checkpoint", self.db.checkpoint());
        let diff = model.diff(&rocks);
        assert!(
            diff.is_empty(),
            "RocksDB mirror: checkpoint: model vs RocksDB differ: {diff:?}"
        );
    }

    fn reopen(&self) {
        must("reopen", self.db.reopen());
    }

    fn install(&self, checkpoint: &Tables<String>) {
        must("install", self.db.install(checkpoint));
    }
}

impl Drop for Mirror {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
