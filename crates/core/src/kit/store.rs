//! A RocksDB-like store: named tables of rows, an atomic write-batch commit, an unbatched
//! put, a table cache, checkpoints and reopen.
//!
//! It stands for Ozone's `RDBStore` / `TypedTable` over RocksDB with the write-ahead log on:
//! every committed write is durable at once, so `flushDB` has nothing left to make durable
//! and is a trace-only step in the models. Abstracted away: memtables, compaction, WAL-less
//! writes, column-family options, iterators.
//!
//! The table cache follows Ozone's `TableCache`: a batch commit does not populate it (the
//! double buffer writes rows into the batch, not the cache), [`Store::get`] reads through it
//! and falls back to the committed row, [`Store::get_skip_cache`] reads the committed row.
//!
//! Every operation takes the store's lock once, so under shuttle and loom it is exactly one
//! scheduling point, as a RocksDB write is one atomic step. The stateful engine sees which
//! rows and cache entries each operation reads or writes: operations on different keys
//! commute, as they do in RocksDB; a scan, a checkpoint, a range delete, a reopen and an
//! install touch the whole store. An optional observer sees the
//! durable state before and after every write, inside that step, so that invariants over
//! durable states are checked at the moment they could break.
//!
//! ```
//! use ozone_ha_check::citation::Label;
//! use ozone_ha_check::kit::store::{Store, WriteBatch};
//! use ozone_ha_check::recorder::{Actor, Recorder};
//! use ozone_ha_check::sync::Arc;
//!
//! # ozone_ha_check::engine::run_once(|| {
//! let rec = Arc::new(Recorder::new(None));
//! let me = Actor::new("flush", &rec);
//! let db: Store<u64> = Store::new();
//! let mut batch = WriteBatch::new();
//! batch.put("keyTable", "k1", 10);
//! batch.put("transactionInfoTable", "TX", 3);
//! let at = Label::model("an example step");
//! db.commit(&me, at, batch);
//! db.put(&me, at, "transactionInfoTable", "TX", 1);
//! assert_eq!(db.get_skip_cache(&me, at, "transactionInfoTable", "TX"), Some(1));
//! let snapshot = db.checkpoint(&me, at);
//! assert_eq!(snapshot.get("keyTable", "k1"), Some(&10));
//! # });
//! ```

use crate::citation::Label;
use crate::properties::{check_all, Invariant};
use crate::recorder::{Actor, Recorder};
use crate::sync::{Arc, Native, Part};
use std::collections::BTreeMap;
use std::fmt;

/// A table's name.
pub type TableName = &'static str;

/// One table's rows, shared between copies of [`Tables`] until one of them changes it.
type Table<V> = std::sync::Arc<BTreeMap<String, V>>;

/// Committed rows: table -> key -> value.
///
/// Each table is shared between copies until one of them changes it, so a copy (a
/// checkpoint, an observer's view before and after a write) costs a pointer per table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tables<V> {
    rows: BTreeMap<TableName, Table<V>>,
}

impl<V> Default for Tables<V> {
    fn default() -> Self {
        Self {
            rows: BTreeMap::new(),
        }
    }
}

impl<V: Clone> Tables<V> {
    /// The row at `table`/`key`.
    pub fn get(&self, table: TableName, key: &str) -> Option<&V> {
        self.rows.get(table).and_then(|t| t.get(key))
    }

    /// Write a row.
    pub fn put(&mut self, table: TableName, key: &str, value: V) {
        Table::make_mut(self.rows.entry(table).or_default()).insert(key.to_string(), value);
    }

    /// Delete a row.
    pub fn delete(&mut self, table: TableName, key: &str) {
        if let Some(t) = self.rows.get_mut(table) {
            if !t.contains_key(key) {
                return;
            }
            Table::make_mut(t).remove(key);
            if t.is_empty() {
                self.rows.remove(table);
            }
        }
    }

    /// Apply a batch's operations in order.
    pub fn apply(&mut self, batch: &WriteBatch<V>) {
        for op in &batch.ops {
            match &op.value {
                Some(v) => self.put(op.table, &op.key, v.clone()),
                None => self.delete(op.table, &op.key),
            }
        }
    }

    /// Every row, ordered by table and key.
    pub fn iter(&self) -> impl Iterator<Item = (TableName, &str, &V)> {
        self.rows
            .iter()
            .flat_map(|(t, rows)| rows.iter().map(move |(k, v)| (*t, k.as_str(), v)))
    }

    /// The rows that differ between `self` and `other`, as `table/key: mine vs theirs` lines.
    pub fn diff(&self, other: &Tables<V>) -> Vec<String>
    where
        V: PartialEq + fmt::Display,
    {
        let mut keys: Vec<(TableName, &str)> = self
            .iter()
            .chain(other.iter())
            .map(|(t, k, _)| (t, k))
            .collect();
        keys.sort_unstable();
        keys.dedup();
        keys.into_iter()
            .filter_map(|(t, k)| {
                let (a, b) = (self.get(t, k), other.get(t, k));
                (a != b).then(|| difference_line(t, k, a, b))
            })
            .collect()
    }

    /// The first row, in table and key order, that differs between `self` and `other`
    /// outside table `skip`, as [`Self::diff`] words it: what
    /// `self.without(skip).diff(&other.without(skip)).first()` gives, without copying either
    /// side (stores' observers call it at every write).
    ///
    /// ```
    /// use ozone_ha_check::kit::store::Tables;
    ///
    /// let (mut a, mut b) = (Tables::default(), Tables::default());
    /// a.put("keys", "k1", 1);
    /// b.put("keys", "k1", 2);
    /// a.put("info", "tx", 7);
    /// assert_eq!(a.first_difference_except(&b, "info"), Some("keys/k1: 1 vs 2".to_string()));
    /// assert_eq!(a.first_difference_except(&b, "keys"), Some("info/tx: 7 vs absent".to_string()));
    /// b.put("keys", "k1", 1);
    /// assert_eq!(a.first_difference_except(&b, "info"), None);
    /// ```
    pub fn first_difference_except(&self, other: &Tables<V>, skip: TableName) -> Option<String>
    where
        V: PartialEq + fmt::Display,
    {
        let (mut mine, mut theirs) = (
            self.rows_except(skip).peekable(),
            other.rows_except(skip).peekable(),
        );
        loop {
            let (key, a, b) = match (mine.peek(), theirs.peek()) {
                (None, None) => return None,
                (Some((k, a)), None) => (*k, Some(*a), None),
                (None, Some((k, b))) => (*k, None, Some(*b)),
                (Some((ka, a)), Some((kb, b))) => match ka.cmp(kb) {
                    std::cmp::Ordering::Less => (*ka, Some(*a), None),
                    std::cmp::Ordering::Greater => (*kb, None, Some(*b)),
                    std::cmp::Ordering::Equal => (*ka, Some(*a), Some(*b)),
                },
            };
            if a.is_some() {
                mine.next();
            }
            if b.is_some() {
                theirs.next();
            }
            if a != b {
                return Some(difference_line(key.0, key.1, a, b));
            }
        }
    }

    /// Whether `self` and `other` hold the same rows outside table `skip` (without copying
    /// either side).
    pub fn same_except(&self, other: &Tables<V>, skip: TableName) -> bool
    where
        V: PartialEq,
    {
        let kept = |(name, _): &(&TableName, &Table<V>)| **name != skip;
        self.rows
            .iter()
            .filter(kept)
            .eq(other.rows.iter().filter(kept))
    }

    /// Every row outside table `skip`, ordered by table and key.
    fn rows_except(&self, skip: TableName) -> impl Iterator<Item = ((TableName, &str), &V)> {
        self.rows
            .iter()
            .filter(move |(name, _)| **name != skip)
            .flat_map(|(name, rows)| rows.iter().map(move |(k, v)| ((*name, k.as_str()), v)))
    }

    /// The rows of every table except `skip`.
    pub fn without(&self, skip: TableName) -> Tables<V> {
        let mut rows = self.rows.clone();
        rows.remove(skip);
        Tables { rows }
    }
}

impl<V: fmt::Display + Clone> fmt::Display for Tables<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("{")?;
        for (i, (t, k, v)) in self.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{t}/{k}={v}")?;
        }
        f.write_str("}")
    }
}

/// A checkpoint: a copy of the committed state (RocksDB's `Checkpoint.createCheckpoint`).
pub type Checkpoint<V> = Tables<V>;

#[derive(Clone, Debug, PartialEq, Eq)]
struct Op<V> {
    table: TableName,
    key: String,
    value: Option<V>,
}

/// Writes staged for one atomic commit (RocksDB's `WriteBatch`, Ozone's `BatchOperation`).
/// A staged batch lives in its owner's memory: a crash before the commit loses it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WriteBatch<V> {
    ops: Vec<Op<V>>,
}

impl<V> Default for WriteBatch<V> {
    fn default() -> Self {
        Self { ops: Vec::new() }
    }
}

impl<V> WriteBatch<V> {
    /// An empty batch.
    pub fn new() -> Self {
        Self::default()
    }

    /// Stage a put.
    pub fn put(&mut self, table: TableName, key: &str, value: V) {
        self.ops.push(Op {
            table,
            key: key.to_string(),
            value: Some(value),
        });
    }

    /// Stage a delete.
    pub fn delete(&mut self, table: TableName, key: &str) {
        self.ops.push(Op {
            table,
            key: key.to_string(),
            value: None,
        });
    }

    /// Whether nothing is staged.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// The staged ops in order: table, key, and the value of a put (`None` for a delete).
    pub fn iter(&self) -> impl Iterator<Item = (TableName, &str, Option<&V>)> {
        self.ops
            .iter()
            .map(|op| (op.table, op.key.as_str(), op.value.as_ref()))
    }

    /// Move every op of `other` to the end of this batch.
    pub fn append(&mut self, other: WriteBatch<V>) {
        self.ops.extend(other.ops);
    }
}

impl<V: fmt::Display> fmt::Display for WriteBatch<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("{")?;
        for (i, op) in self.ops.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            match &op.value {
                Some(v) => write!(f, "{}/{}={v}", op.table, op.key)?,
                None => write!(f, "delete {}/{}", op.table, op.key)?,
            }
        }
        f.write_str("}")
    }
}

/// Sees the durable state before and after each write, inside the write's atomic step.
pub type Observer<V> = Box<dyn Fn(&Tables<V>, &Tables<V>) + Send + Sync>;

/// A store observer that checks `set` at every durable write, on the state that `view`
/// builds from the durable tables before and after the write.
pub fn durable_observer<V, S>(
    recorder: &Arc<Recorder>,
    set: &'static [Invariant<S>],
    view: impl Fn(&Tables<V>, &Tables<V>) -> S + Send + Sync + 'static,
) -> Observer<V>
where
    S: 'static,
{
    let recorder = Arc::clone(recorder);
    Box::new(move |before, after| check_all(set, &view(before, after), &recorder))
}

/// A real database that follows a store write for write, inside the store's atomic step,
/// and checks the model's reads and states against its own (a difference panics, naming
/// it). Rows reach it as their `Display` text. With the `rocksdb` feature,
/// `kit::rocks::Mirror` is one.
pub trait Shadow: Send + Sync {
    /// A batch committed atomically.
    fn commit(&self, batch: &WriteBatch<String>);
    /// An unbatched put.
    fn put(&self, table: TableName, key: &str, value: &str);
    /// The model read `model` from the committed state.
    fn check_read(&self, table: TableName, key: &str, model: Option<&str>);
    /// The model's whole committed state after a write (`what` names it).
    fn check_state(&self, what: &str, model: &Tables<String>);
    /// The model took a checkpoint holding `model`.
    fn checkpoint(&self, model: &Tables<String>);
    /// The store was reopened.
    fn reopen(&self);
    /// The store was replaced by `checkpoint`.
    fn install(&self, checkpoint: &Tables<String>);
}

/// Builds the shadow of each new store from its initial rows.
pub type ShadowFactory = dyn Fn(&Tables<String>) -> Box<dyn Shadow> + Send + Sync;

static SHADOWS: std::sync::Mutex<Option<std::sync::Arc<ShadowFactory>>> =
    std::sync::Mutex::new(None);

/// Give every store built from now on a shadow made by `factory` (`None`: no shadows). The
/// caller installs it, for a test or a run against a real database; stores built before
/// keep what they had.
pub fn install_shadows(factory: Option<std::sync::Arc<ShadowFactory>>) {
    *SHADOWS.lock().unwrap_or_else(|e| e.into_inner()) = factory;
}

fn new_shadow<V: fmt::Display + Clone>(initial: &Tables<V>) -> Option<Box<dyn Shadow>> {
    let factory = SHADOWS.lock().unwrap_or_else(|e| e.into_inner()).clone()?;
    Some(factory(&texts(initial)))
}

/// Every row as its `Display` text.
pub fn texts<V: fmt::Display + Clone>(tables: &Tables<V>) -> Tables<String> {
    let mut out = Tables::default();
    for (t, k, v) in tables.iter() {
        out.put(t, k, v.to_string());
    }
    out
}

fn batch_texts<V: fmt::Display>(batch: &WriteBatch<V>) -> WriteBatch<String> {
    let mut out = WriteBatch::new();
    for (t, k, v) in batch.iter() {
        match v {
            Some(v) => out.put(t, k, v.to_string()),
            None => out.delete(t, k),
        }
    }
    out
}

struct State<V> {
    durable: Tables<V>,
    cache: BTreeMap<(TableName, String), Option<V>>,
}

/// A RocksDB-like store shared by a node's threads. It outlives the node's restarts: what
/// was committed survives [`Store::reopen`], the table cache does not.
pub struct Store<V> {
    /// Under the stateful engine, operations on different rows commute, and so do two reads
    /// (RocksDB takes no lock the model needs); under shuttle and loom every access is one
    /// hold of one lock.
    state: Native<State<V>>,
    observer: Option<Observer<V>>,
    /// A real database following every write, if one was installed ([`install_shadows`]).
    shadow: Option<Box<dyn Shadow>>,
}

impl<V: Clone + fmt::Display> Default for Store<V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<V: Clone + fmt::Display> Store<V> {
    /// An empty store.
    pub fn new() -> Self {
        Self::with_state(Tables::default(), None)
    }

    /// A store holding `durable`, whose writes are shown to `observer`, and followed by a
    /// shadow database if one is installed ([`install_shadows`]).
    pub fn with_state(durable: Tables<V>, observer: Option<Observer<V>>) -> Self {
        let shadow = new_shadow(&durable);
        Self {
            state: Native::labelled(
                "store",
                State {
                    durable,
                    cache: BTreeMap::new(),
                },
            ),
            observer,
            shadow,
        }
    }

    /// One atomic write of the committed rows `rows` (`None`: of the whole store). `mutate`
    /// describes the write only when the actor is tracing.
    fn write(
        &self,
        rows: Option<&[Part<'_>]>,
        mutate: impl FnOnce(&mut State<V>, bool) -> Option<String>,
        actor: &Actor,
        java: impl Into<Label>,
    ) {
        let java: Label = java.into();
        let body = |s: &mut State<V>| {
            let before = self.observer.as_ref().map(|_| s.durable.clone());
            if let Some(action) = mutate(s, actor.tracing()) {
                actor.step(java, action);
            }
            if let Some(m) = &self.shadow {
                m.check_state(java.text(), &texts(&s.durable));
            }
            if let (Some(observe), Some(before)) = (&self.observer, before) {
                observe(&before, &s.durable);
            }
        };
        match rows {
            // An observer reads every committed row.
            Some(rows) => self.state.parts(rows, self.observer.is_some(), body),
            None => self.state.write(body),
        }
    }

    /// Apply `batch` to the committed rows and to the shadow database, if any: the body of
    /// every write that changes rows by batch.
    fn apply_durably(&self, s: &mut State<V>, batch: &WriteBatch<V>) {
        s.durable.apply(batch);
        if let Some(m) = &self.shadow {
            m.commit(&batch_texts(batch));
        }
    }

    /// Commit a batch atomically (`RDBStore.commitBatchOperation`).
    pub fn commit(&self, actor: &Actor, java: impl Into<Label>, batch: WriteBatch<V>) {
        let java: Label = java.into();
        let rows: Vec<Part<'_>> = batch.iter().map(|(t, k, _)| row(t, k, true)).collect();
        self.write(
            Some(&rows),
            |s, tracing| {
                self.apply_durably(s, &batch);
                tracing.then(|| format!("commit batch {batch}"))
            },
            actor,
            java,
        );
    }

    /// An unbatched, immediately durable put (`Table.put`). It does not touch the cache.
    pub fn put(
        &self,
        actor: &Actor,
        java: impl Into<Label>,
        table: TableName,
        key: &str,
        value: V,
    ) {
        let java: Label = java.into();
        self.write(
            Some(&[row(table, key, true)]),
            |s, tracing| {
                let action = tracing.then(|| format!("put {table}/{key}={value} (unbatched)"));
                if let Some(m) = &self.shadow {
                    m.put(table, key, &value.to_string());
                }
                s.durable.put(table, key, value);
                action
            },
            actor,
            java,
        );
    }

    /// An unbatched, immediately durable delete (`Table.delete`). It does not touch the cache.
    pub fn delete(&self, actor: &Actor, java: impl Into<Label>, table: TableName, key: &str) {
        let java: Label = java.into();
        self.write(
            Some(&[row(table, key, true)]),
            |s, tracing| {
                let mut one = WriteBatch::new();
                one.delete(table, key);
                self.apply_durably(s, &one);
                tracing.then(|| format!("delete {table}/{key} (unbatched)"))
            },
            actor,
            java,
        );
    }

    /// An unbatched, immediately durable delete of every row of `table` whose key is in
    /// `[from, to)`, as one write (`Table.deleteRange`). It does not touch the cache.
    pub fn delete_range(
        &self,
        actor: &Actor,
        java: impl Into<Label>,
        table: TableName,
        from: &str,
        to: &str,
    ) {
        let java: Label = java.into();
        // Which rows it deletes depends on the rows there are: a write of the whole.
        self.write(
            None,
            |s, tracing| {
                let doomed: Vec<String> = s
                    .durable
                    .iter()
                    .filter(|(t, k, _)| *t == table && *k >= from && *k < to)
                    .map(|(_, k, _)| k.to_string())
                    .collect();
                let action = tracing.then(|| {
                    format!("deleteRange {table} [{from:?}, {to:?}): {doomed:?} (unbatched)")
                });
                let mut batch = WriteBatch::new();
                for key in &doomed {
                    batch.delete(table, key);
                }
                self.apply_durably(s, &batch);
                action
            },
            actor,
            java,
        );
    }

    /// Read through the table cache (`Table.get`): a cached entry wins, else the committed row.
    pub fn get(
        &self,
        actor: &Actor,
        java: impl Into<Label>,
        table: TableName,
        key: &str,
    ) -> Option<V> {
        let java: Label = java.into();
        let parts = [cached(table, key, false), row(table, key, false)];
        self.state.parts(&parts, false, |s| {
            let (value, from) = match s.cache.get(&(table, key.to_string())) {
                Some(cached) => (cached.clone(), "cache"),
                None => (s.durable.get(table, key).cloned(), "db"),
            };
            if from == "db" {
                self.check_read(table, key, &value);
            }
            actor.step_with(java, || {
                format!("read {table}/{key}={} (from {from})", show(&value))
            });
            value
        })
    }

    /// Show a read of the committed rows to the shadow database, if any.
    fn check_read(&self, table: TableName, key: &str, value: &Option<V>) {
        if let Some(m) = &self.shadow {
            m.check_read(
                table,
                key,
                value.as_ref().map(ToString::to_string).as_deref(),
            );
        }
    }

    /// Read the committed row, skipping the cache (`Table.getSkipCache`).
    pub fn get_skip_cache(
        &self,
        actor: &Actor,
        java: impl Into<Label>,
        table: TableName,
        key: &str,
    ) -> Option<V> {
        let java: Label = java.into();
        self.state.parts(&[row(table, key, false)], false, |s| {
            let value = s.durable.get(table, key).cloned();
            self.check_read(table, key, &value);
            actor.step_with(java, || {
                format!("read {table}/{key}={} (skip cache)", show(&value))
            });
            value
        })
    }

    /// Put an entry into the table cache (`Table.addCacheEntry`); nothing is written to disk.
    pub fn cache_put(
        &self,
        actor: &Actor,
        java: impl Into<Label>,
        table: TableName,
        key: &str,
        value: V,
    ) {
        let java: Label = java.into();
        self.state.parts(&[cached(table, key, true)], false, |s| {
            actor.step_with(java, || format!("cache {table}/{key}={value}"));
            s.cache.insert((table, key.to_string()), Some(value));
        })
    }

    /// Put a tombstone into the table cache (`Table.addCacheEntry(key, CacheValue.get(index))`
    /// with no value): reads through the cache see the row as deleted, the DB still holds it.
    pub fn cache_delete(&self, actor: &Actor, java: impl Into<Label>, table: TableName, key: &str) {
        let java: Label = java.into();
        self.state.parts(&[cached(table, key, true)], false, |s| {
            actor.step_with(java, || format!("cache {table}/{key}=deleted (tombstone)"));
            s.cache.insert((table, key.to_string()), None);
        })
    }

    /// The table cache's entry for a key (`Table.getCacheValue`): `None` without one,
    /// `Some(None)` for a tombstone.
    pub fn cache_entry(
        &self,
        actor: &Actor,
        java: impl Into<Label>,
        table: TableName,
        key: &str,
    ) -> Option<Option<V>> {
        let java: Label = java.into();
        self.state.parts(&[cached(table, key, false)], false, |s| {
            let entry = s.cache.get(&(table, key.to_string())).cloned();
            actor.step_with(java, || match &entry {
                None => format!("cache entry {table}/{key}: none"),
                Some(None) => format!("cache entry {table}/{key}: tombstone"),
                Some(Some(v)) => format!("cache entry {table}/{key}={v}"),
            });
            entry
        })
    }

    /// Read every committed row in one step (a full scan of the tables, skipping the cache).
    pub fn scan(&self, actor: &Actor, java: impl Into<Label>) -> Tables<V> {
        let java: Label = java.into();
        self.state.read(|s| {
            actor.step_with(java, || format!("read {}", s.durable));
            s.durable.clone()
        })
    }

    /// A checkpoint of the committed state (`RDBCheckpointManager.createCheckpoint`).
    pub fn checkpoint(&self, actor: &Actor, java: impl Into<Label>) -> Checkpoint<V> {
        let java: Label = java.into();
        self.state.read(|s| {
            if let Some(m) = &self.shadow {
                m.checkpoint(&texts(&s.durable));
            }
            actor.step_with(java, || format!("checkpoint {}", s.durable));
            s.durable.clone()
        })
    }

    /// Reopen after a stop or a crash: committed rows survive, the table cache is empty.
    pub fn reopen(&self, actor: &Actor, java: impl Into<Label>) {
        let java: Label = java.into();
        self.state.write(|s| {
            s.cache.clear();
            if let Some(m) = &self.shadow {
                m.reopen();
            }
            actor.step_with(java, || format!("reopen DB {}", s.durable));
        })
    }

    /// Replace the whole store with a checkpoint (installing a leader's checkpoint).
    pub fn install(&self, actor: &Actor, java: impl Into<Label>, checkpoint: Checkpoint<V>) {
        let java: Label = java.into();
        self.write(
            None,
            |s, tracing| {
                s.cache.clear();
                let action = tracing.then(|| format!("install checkpoint {checkpoint}"));
                if let Some(m) = &self.shadow {
                    m.install(&texts(&checkpoint));
                }
                s.durable = checkpoint;
                action
            },
            actor,
            java,
        );
    }

    /// The committed state, read as a final observation after every thread has stopped.
    pub fn durable(&self) -> Tables<V> {
        self.state.read(|s| {
            if let Some(m) = &self.shadow {
                m.check_state("durable", &texts(&s.durable));
            }
            s.durable.clone()
        })
    }
}

/// The committed row at `table`/`key`, as a part of the store's state.
fn row<'a>(table: TableName, key: &'a str, write: bool) -> Part<'a> {
    Part {
        space: (0, table),
        key,
        write,
    }
}

/// The table cache's entry for `table`/`key`, as a part of the store's state.
fn cached<'a>(table: TableName, key: &'a str, write: bool) -> Part<'a> {
    Part {
        space: (1, table),
        key,
        write,
    }
}

/// One row that differs between two sides, as [`Tables::diff`] and
/// [`Tables::first_difference_except`] both word it: `table/key: mine vs theirs`.
fn difference_line<V: fmt::Display>(t: TableName, k: &str, a: Option<&V>, b: Option<&V>) -> String {
    format!("{t}/{k}: {} vs {}", show_ref(a), show_ref(b))
}

fn show_ref<V: fmt::Display>(v: Option<&V>) -> String {
    v.map_or_else(|| "absent".to_string(), ToString::to_string)
}

fn show<V: fmt::Display>(v: &Option<V>) -> String {
    match v {
        Some(v) => v.to_string(),
        None => "absent".to_string(),
    }
}
