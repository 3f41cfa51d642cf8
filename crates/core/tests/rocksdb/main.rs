//! Differential test: the kit's store model ([`Store`]) against a real RocksDB ([`RocksStore`]).
//!
//! Generated sequences of store operations run on both, and every observable result is
//! compared: each read (through the table cache and skipping it), each checkpoint's contents,
//! and the whole committed state after every operation, including after a close and reopen
//! (the table cache empties, committed rows survive, a staged batch never committed is lost)
//! and after installing an earlier checkpoint. Shrunk failures are kept in
//! `proptest-regressions/rocksdb.txt` and replayed first on every run.
//!
//! `PROPTEST_CASES` sets the number of sequences (256 by default).

#![cfg(not(loom))]

use ozone_ha_check::citation::Label;
use ozone_ha_check::kit::rocks::RocksStore;
use ozone_ha_check::kit::store::{Store, TableName, Tables, WriteBatch};
use ozone_ha_check::recorder::{Actor, Recorder};
use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence, TestCaseError, TestRunner};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

const TABLES: [TableName; 3] = ["keyTable", "transactionInfoTable", "deletedTable"];
const KEYS: [&str; 4] = ["k0", "k1", "k2", "TX"];
/// The label of every store step the differential test takes.
const AT: Label = Label::model("differential test step");

/// One store operation; tables and keys are indices into [`TABLES`] and [`KEYS`].
#[derive(Clone, Debug)]
enum Op {
    /// Commit a fresh batch of puts (`Some`) and deletes (`None`).
    Commit(Vec<(usize, usize, Option<u64>)>),
    /// Stage a put or delete into the pending batch (the owner's memory).
    Stage(usize, usize, Option<u64>),
    /// Commit the pending batch.
    CommitStaged,
    Put(usize, usize, u64),
    Get(usize, usize),
    GetSkipCache(usize, usize),
    CachePut(usize, usize, u64),
    Checkpoint,
    /// Close and reopen; the pending batch is lost with the process.
    Reopen,
    /// Install the n-th checkpoint taken so far (modulo their number), or an empty one.
    Install(usize),
}

/// What one operation lets an observer see.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Seen {
    Read(Option<u64>),
    Checkpoint(Tables<u64>),
    Done,
}

/// An operation's result and the committed state right after it.
type Step = (Seen, Tables<u64>);

fn row() -> impl Strategy<Value = (usize, usize)> {
    (0..TABLES.len(), 0..KEYS.len())
}

fn value() -> impl Strategy<Value = u64> {
    0u64..6
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => prop::collection::vec((row(), prop::option::weighted(0.8, value())), 0..5)
            .prop_map(|ops| Op::Commit(ops.into_iter().map(|((t, k), v)| (t, k, v)).collect())),
        3 => (row(), prop::option::weighted(0.8, value())).prop_map(|((t, k), v)| Op::Stage(t, k, v)),
        2 => Just(Op::CommitStaged),
        3 => (row(), value()).prop_map(|((t, k), v)| Op::Put(t, k, v)),
        3 => row().prop_map(|(t, k)| Op::Get(t, k)),
        3 => row().prop_map(|(t, k)| Op::GetSkipCache(t, k)),
        3 => (row(), value()).prop_map(|((t, k), v)| Op::CachePut(t, k, v)),
        1 => Just(Op::Checkpoint),
        1 => Just(Op::Reopen),
        1 => (0usize..4).prop_map(Op::Install),
    ]
}

fn batch_of(ops: &[(usize, usize, Option<u64>)]) -> WriteBatch<u64> {
    let mut batch = WriteBatch::new();
    for &(t, k, v) in ops {
        stage(&mut batch, t, k, v);
    }
    batch
}

fn stage(batch: &mut WriteBatch<u64>, t: usize, k: usize, v: Option<u64>) {
    match v {
        Some(v) => batch.put(TABLES[t], KEYS[k], v),
        None => batch.delete(TABLES[t], KEYS[k]),
    }
}

/// The sequence on the model, inside one engine execution (its locks need one).
fn run_model(ops: &[Op]) -> Vec<Step> {
    let ops = Arc::new(ops.to_vec());
    let out = Arc::new(Mutex::new(Vec::new()));
    let (ops2, out2) = (ops.clone(), out.clone());
    ozone_ha_check::engine::run_once(move || {
        let rec = ozone_ha_check::sync::Arc::new(Recorder::new(None));
        let me = Actor::new("test", &rec);
        let db: Store<u64> = Store::new();
        let mut pending = WriteBatch::new();
        let mut checkpoints = Vec::new();
        let mut steps = Vec::new();
        for op in ops2.iter() {
            let seen = match op {
                Op::Commit(rows) => {
                    db.commit(&me, AT, batch_of(rows));
                    Seen::Done
                }
                Op::Stage(t, k, v) => {
                    stage(&mut pending, *t, *k, *v);
                    Seen::Done
                }
                Op::CommitStaged => {
                    db.commit(&me, AT, std::mem::take(&mut pending));
                    Seen::Done
                }
                Op::Put(t, k, v) => {
                    db.put(&me, AT, TABLES[*t], KEYS[*k], *v);
                    Seen::Done
                }
                Op::Get(t, k) => Seen::Read(db.get(&me, AT, TABLES[*t], KEYS[*k])),
                Op::GetSkipCache(t, k) => {
                    Seen::Read(db.get_skip_cache(&me, AT, TABLES[*t], KEYS[*k]))
                }
                Op::CachePut(t, k, v) => {
                    db.cache_put(&me, AT, TABLES[*t], KEYS[*k], *v);
                    Seen::Done
                }
                Op::Checkpoint => {
                    let c = db.checkpoint(&me, AT);
                    checkpoints.push(c.clone());
                    Seen::Checkpoint(c)
                }
                Op::Reopen => {
                    pending = WriteBatch::new();
                    db.reopen(&me, AT);
                    Seen::Done
                }
                Op::Install(n) => {
                    let c = pick(&checkpoints, *n);
                    db.install(&me, AT, c);
                    Seen::Done
                }
            };
            steps.push((seen, db.durable()));
        }
        *out2.lock().unwrap() = steps;
    });
    let steps = std::mem::take(&mut *out.lock().unwrap());
    steps
}

fn pick(checkpoints: &[Tables<u64>], n: usize) -> Tables<u64> {
    if checkpoints.is_empty() {
        Tables::default()
    } else {
        checkpoints[n % checkpoints.len()].clone()
    }
}

/// The sequence on RocksDB in a fresh temporary directory.
fn run_rocks(ops: &[Op]) -> Vec<Step> {
    let dir = tempfile::tempdir().expect("temp dir");
    let db: RocksStore<u64> = RocksStore::open(dir.path().join("db")).expect("open");
    let mut pending = WriteBatch::new();
    let mut checkpoints = Vec::new();
    let mut steps = Vec::new();
    for op in ops {
        let seen = match op {
            Op::Commit(rows) => {
                db.commit(&batch_of(rows)).expect("commit");
                Seen::Done
            }
            Op::Stage(t, k, v) => {
                stage(&mut pending, *t, *k, *v);
                Seen::Done
            }
            Op::CommitStaged => {
                db.commit(&std::mem::take(&mut pending)).expect("commit");
                Seen::Done
            }
            Op::Put(t, k, v) => {
                db.put(TABLES[*t], KEYS[*k], *v).expect("put");
                Seen::Done
            }
            Op::Get(t, k) => Seen::Read(db.get(TABLES[*t], KEYS[*k]).expect("get")),
            Op::GetSkipCache(t, k) => {
                Seen::Read(db.get_skip_cache(TABLES[*t], KEYS[*k]).expect("get"))
            }
            Op::CachePut(t, k, v) => {
                db.cache_put(TABLES[*t], KEYS[*k], *v);
                Seen::Done
            }
            Op::Checkpoint => {
                let c = db.checkpoint().expect("checkpoint");
                checkpoints.push(c.clone());
                Seen::Checkpoint(c)
            }
            Op::Reopen => {
                pending = WriteBatch::new();
                db.reopen().expect("reopen");
                Seen::Done
            }
            Op::Install(n) => {
                db.install(&pick(&checkpoints, *n)).expect("install");
                Seen::Done
            }
        };
        steps.push((seen, db.durable().expect("durable")));
    }
    steps
}

static OPS: AtomicU64 = AtomicU64::new(0);
static COMPARED: AtomicU64 = AtomicU64::new(0);

/// Run both and compare step by step; on a difference, name the first differing step.
fn compare(ops: &[Op]) -> Result<(), TestCaseError> {
    let model = run_model(ops);
    let rocks = run_rocks(ops);
    OPS.fetch_add(ops.len() as u64, Ordering::Relaxed);
    for (i, (m, r)) in model.iter().zip(&rocks).enumerate() {
        COMPARED.fetch_add(2, Ordering::Relaxed);
        if m != r {
            return Err(TestCaseError::fail(format!(
                "step {i} ({:?}) differs:\n  model: {:?} / {}\n  rocks: {:?} / {}\n  diff (model vs rocks): {:?}",
                ops[i],
                m.0,
                m.1,
                r.0,
                r.1,
                m.1.diff(&r.1)
            )));
        }
    }
    prop_assert_eq!(model.len(), rocks.len());
    Ok(())
}

#[test]
fn model_matches_rocksdb() {
    let config = Config {
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "proptest-regressions/rocksdb.txt",
        ))),
        source_file: Some(file!()),
        ..Config::default()
    };
    let mut runner = TestRunner::new(config);
    let result = runner.run(&prop::collection::vec(op(), 1..48), |ops| compare(&ops));
    eprintln!(
        "model vs RocksDB: {} operations in {} sequences, {} observations compared",
        OPS.load(Ordering::Relaxed),
        runner.config().cases,
        COMPARED.load(Ordering::Relaxed)
    );
    if let Err(e) = result {
        panic!("{e}");
    }
}

/// The claims the model rests on, spelled out once on RocksDB alone.
#[test]
fn reopen_empties_cache_keeps_commits_and_loses_staged_batch() {
    let dir = tempfile::tempdir().unwrap();
    let db: RocksStore<u64> = RocksStore::open(dir.path().join("db")).unwrap();
    let mut committed = WriteBatch::new();
    committed.put("keyTable", "k1", 1);
    committed.put("transactionInfoTable", "TX", 7);
    db.commit(&committed).unwrap();
    let mut staged = WriteBatch::new();
    staged.put("keyTable", "k2", 2);
    db.cache_put("keyTable", "k1", 9);
    assert_eq!(db.get("keyTable", "k1").unwrap(), Some(9));
    assert_eq!(db.get_skip_cache("keyTable", "k1").unwrap(), Some(1));
    drop(staged);
    db.reopen().unwrap();
    assert_eq!(db.get("keyTable", "k1").unwrap(), Some(1));
    assert_eq!(db.get("keyTable", "k2").unwrap(), None);
    let c = db.checkpoint().unwrap();
    assert_eq!(c, db.durable().unwrap());
    assert_eq!(c.get("transactionInfoTable", "TX"), Some(&7));
}
