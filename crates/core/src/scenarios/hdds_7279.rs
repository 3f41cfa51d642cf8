//! HDDS-7279: the double buffer flushed its whole ready buffer as one batch, and a snapshot
//! create inside that batch checkpoints the DB before the batch's earlier entries commit, so
//! the snapshot's content depends on where the flush thread's swap cut the buffer.
//!
//! Buggy: the Java at 6fe2ab80115^ (67e67250bd0); fixed: at the fix 6fe2ab80115 (PR #3958);
//! `split-at-create`: the split's test as HDDS-7906 (4d09962a659) corrected it. The create's
//! own flush is the same at all three commits ([`CreateRevision::HDDS_7279_PARENT`]: the
//! checkpoint, then the row; no `deletedTable` cleanup). Models:
//! [`crate::models::om::snapshot`]. Historical citations: `@hdds-7279-parent`, `@hdds-7279`,
//! `@hdds-7906` in `citations.toml`.
//!
//! # The race
//!
//! After the leader's configuration entry (1), the log holds 2 `CreateKey k1` and 3
//! `CreateSnapshot s1`. The snapshot is taken on the flush thread, inside the create's
//! [`addToDBBatch`](crate::citation::java::hdds_7279_parent::OMSnapshotCreateResponse::addToDBBatch):
//! [`createOmSnapshotCheckpoint`](crate::citation::java::hdds_7279_parent::OmSnapshotManager::createOmSnapshotCheckpoint)
//! is a RocksDB checkpoint of what the DB has **committed**. At the parent,
//! [`flushTransactions`](crate::citation::java::hdds_7279_parent::OzoneManagerDoubleBuffer::flushTransactions)
//! stages every response of the ready buffer into one batch and commits once. When one swap
//! takes 2 and 3 together, 2's open key is only staged when 3 checkpoints: the snapshot
//! misses k1 and says `TransactionInfo` 0. When the swap took 2 alone, 2 committed first and
//! the snapshot holds k1 with `TransactionInfo` 2. Each OM's flush thread cuts its buffer
//! where its own timing puts the swap, so the same log gives different snapshots on different
//! OMs.
//!
//! **Java wins over the one-line summary:** the snapshot does not see "part of a batch": it
//! sees exactly the batches committed before the create's, never the earlier entries of its
//! own batch.
//!
//! The fix splits the ready buffer so that a create is alone in its batch
//! ([`splitReadyBufferAtCreateSnapshot`](crate::citation::java::hdds_7279::OzoneManagerDoubleBuffer::splitReadyBufferAtCreateSnapshot),
//! [`flushBatch`](crate::citation::java::hdds_7279::OzoneManagerDoubleBuffer::flushBatch)).
//! **As committed, every response is alone in its batch:** the split's test is
//! `omResponse.getCreateSnapshotResponse() != null`, and `OMResponse` is a proto2 message
//! (`OmClientProtocol.proto`: `syntax = "proto2"`), whose getter returns the default instance,
//! never null, for an unset field. The fix's unit test mocked the getter to return null
//! (`TestOzoneManagerDoubleBuffer`, `thenReturn(null)`), which hid it. HDDS-7906 changed the
//! test to `hasCreateSnapshotResponse()`
//! ([`splitReadyBufferAtCreateSnapshot`](crate::citation::java::hdds_7906::OzoneManagerDoubleBuffer::splitReadyBufferAtCreateSnapshot)),
//! which splits only around creates: `split-at-create`. Both hold.
//!
//! # Plans
//!
//! - `one-om`: one OM; its snapshot must hold exactly what the log before the create wrote.
//! - `two-oms`: two OMs apply the same log (one apply thread feeding both, a flush thread
//!   each); their snapshots must also agree.
//! - `generated`: every workload of [`VOCABULARY`] within its bounds (at most three requests
//!   by default: 20 workloads, the largest space the stateful engine exhausts within 10
//!   minutes) on two OMs, as `two-oms` runs them; see "Generated
//!   workloads". The written plans' log is its workload `key(k1) snapshot(s1)`.
//!
//! # Properties
//!
//! `SnapshotCoversPrefix`: each OM's snapshot equals the log applied in order up to the
//! entry before its create, with that entry's `TransactionInfo` ([`reference()`]; the written
//! plans' s1: `apply(log[1..2])`, `TransactionInfo` 2). `ReplicaSnapshotsAgree` (`two-oms`,
//! `generated`): the two OMs' copies of each snapshot are equal. `SnapshotCreated`: each OM
//! ends with every snapshot's row committed and its directory present (a variant that never
//! snapshots cannot pass). All at quiescence. Probe `CreateSwappedWithEarlier` (required): a
//! swap took a create together with an earlier response.
//!
//! # Generated workloads (`generated`)
//!
//! [`VOCABULARY`]: two requests over two keys and two snapshots (each universe symmetric: no
//! request reads another name). The log is the leader's configuration entry, then one entry
//! per request; the flush threads' swaps, which decide the batches, are the scheduler's.
//!
//! | word | kind | Java (at 67e67250bd0; the split at 6fe2ab80115 and 4d09962a659) | what it does |
//! |---|---|---|---|
//! | `key(k)` | request | [`OMKeyCreateRequest.validateAndUpdateCache`](crate::citation::java::hdds_7279_parent::OMKeyCreateRequest::validateAndUpdateCache) | opens k; its response's row goes into whichever batch the flush gives it |
//! | `snapshot(s)` | request | [`OMSnapshotCreateRequest.validateAndUpdateCache`](crate::citation::java::hdds_7279_parent::OMSnapshotCreateRequest::validateAndUpdateCache), [`OMSnapshotCreateResponse.addToDBBatch`](crate::citation::java::hdds_7279_parent::OMSnapshotCreateResponse::addToDBBatch) | the row into the table cache at apply; at flush the checkpoint of the committed DB, then the row staged (OMSnapshotCreateResponse.java:63-71 at 67e67250bd0), in the batch the variant cuts |
//!
//! A snapshot name is created once (`allowed`): a second create of it is an error response
//! (OMSnapshotCreateRequest.java:130-133 at 67e67250bd0) that writes nothing. Each variant
//! cuts what one swap took as the Java does (OzoneManagerDoubleBuffer.java:277-321 at
//! 67e67250bd0: the whole ready buffer, one batch; :428-455 at 6fe2ab80115 and 4d09962a659:
//! a new batch at the first response, at each create and after each create, so two creates
//! in one swap are two batches, a create first or last is alone, and the keys after a create
//! share a batch of their own).
//!
//! Verdicts (the default budget, 2,000 random and 2,000 PCT executions; each expected
//! invariant watched alone over seeds 0..20, worst and median executions to it):
//!
//! | variant | breaks | random | PCT (depth 3) | stateful |
//! |---|---|---|---|---|
//! | `buggy` | `SnapshotCoversPrefix`, `ReplicaSnapshotsAgree` | 26 (5), 26 (9) | 10 (4), 19 (6) | at 8, at 20 |
//! | `fixed` | nothing | held in 2,000 on every seed (window `CreateSwappedWithEarlier` in 302 to 350 of them) | held in 2,000 (696 to 799) | held, exhausted: 9,054,275 states, 6,385,576 executions, 442 s (at four requests, 56 workloads, not exhausted in 600 s: 14,680,928 states) |
//! | `split-at-create` | nothing | held in 2,000 (284 to 369) | held in 2,000 (695 to 796) | held, exhausted: 8,094,703 states, 5,818,552 executions, 337 s (at four requests not exhausted in 600 s: 13,145,155 states) |
//!
//! The space adds a break of `buggy` with no key at all: `snapshot(s1) snapshot(s2)`
//! (minimized, both invariants). When one swap takes both creates, s2's checkpoint runs after
//! s1's row was only staged in the same batch (OMSnapshotCreateResponse.java:64-71,
//! OzoneManagerDoubleBuffer.java:277-295 at 67e67250bd0), so s2 lacks s1's
//! `snapshotInfoTable` row and says `TransactionInfo` 0, not 2; an OM whose swap took s1
//! alone has both. `key(k1) snapshot(s1)`, the written plans' log, is the minimized
//! workload of `SnapshotCoversPrefix` under random. A create first in a swap is right at
//! every commit (nothing before it in its batch). `fixed` and `split-at-create` cut every
//! such swap so that a create's batch holds nothing before it.
//!
//! Left out of the vocabulary:
//! - key deletes, commits and renames: their responses are rows of the active DB's batch,
//!   as a key create's; the snapshot misses or holds them exactly as it does the open key.
//! - a restart (clean stop and replay): a clean stop comes once every entry before it is
//!   flushed, so the replay's first swap starts from an empty buffer as the first run's does;
//!   it only adds a cut. A kill inside a create's flush is hdds-8685's (a create alone in its
//!   batch there).
//! - snapshot delete and purge: they do not change what a create's checkpoint takes at these
//!   commits; the purges' batching is hdds-11453's.
//!
//! # Abstractions
//!
//! | merged or left out | why no verdict depends on it |
//! |---|---|
//! | the checkpoint is a copy of the committed tables; SST files, hard links and the compaction-DAG bookkeeping (`appendSequenceNumberToCompactionLog`) are left out | the committed content is what the snapshot serves; the file layout does not change it |
//! | the snapshot's id, `dbTxSequenceNumber` and creation time, generated per OM | the invariants compare table content only; per-OM metadata differences are another bug |
//! | `CreateKey` reduced to its open-key row (10 bytes, update id = index), named by the key (the Java's open-key name carries the client id, OMKeyCreateRequest.java:290-292 at 67e67250bd0, so a second create of one key is a second row; here it replaces the first with a later update id) | the snapshot's content is compared row by row: one staged row before the create shows the missing prefix, and a snapshot between two creates of one key holds the first's update id |
//! | the snapshot create's locks (bucket read, snapshot write) at apply | one apply thread orders the requests; nothing locks the flush |
//! | Ratis, the leader; the `two-oms` apply thread applies each entry to both OMs in turn | each OM's batching depends only on its own apply/flush race |
//! | table-cache cleanup, permits, metrics, the flush's `isRunning` loop | the flush thread runs until the log is flushed |

use crate::choices;
use crate::citation::java::{hdds_7279 as fix, hdds_7279_parent as parent, hdds_7906};
use crate::kit::raft_log::RaftLog;
use crate::kit::store::{Store, Tables};
use crate::kit::tx_info::put_tx_info;
use crate::models::om::double_buffer::BufferCites;
use crate::models::om::snapshot::node::{SnapshotOm, CREATE_SWAPPED_WITH_EARLIER};
use crate::models::om::snapshot::reference::apply_in_order;
use crate::models::om::snapshot::requests::{self, SnapshotRequest};
use crate::models::om::snapshot::{
    Cites, CreateCites, CreateRevision, Dirs, Java, Snapshots, Split,
};
use crate::models::om::{OmTables, SNAPSHOT_INFO_TABLE};
use crate::properties::{Invariant, Probe, Property};
use crate::recorder::{Actor, Recorder};
use crate::scenario::{ByConstruction, Case, Expected, Scenario};
use crate::sync::Arc;
use crate::workload::{Bounds, Item, Kind, Universe, Vocabulary, Word, Workload};

/// The scenario.
#[derive(Debug, Clone, Copy)]
pub struct Hdds7279;

choices! {
    /// How the double buffer cuts its ready buffer into batches.
    pub enum Variant {
        /// 6fe2ab80115^: the whole ready buffer is one batch
        Buggy = "buggy",
        /// 6fe2ab80115 as committed: every response alone in its batch (the null test never holds)
        Fixed = "fixed",
        /// 4d09962a659 (HDDS-7906): a snapshot create alone in its batch
        SplitAtCreate = "split-at-create",
    }
}

choices! {
    /// How many OMs apply the log.
    pub enum Plan {
        /// one OM
        OneOm = "one-om",
        /// two OMs, the same log, a flush thread each
        TwoOms = "two-oms",
        /// every workload of the vocabulary within the bounds on two OMs: key and snapshot creates over two keys and two snapshots
        Generated = "generated",
    }
}

/// The snapshot the plans create.
const SNAPSHOT: &str = "s1";

/// What the OMs left behind.
pub struct End {
    /// Per OM: each snapshot's content in [`End::reference`]'s order (`None` without a
    /// directory), and its committed DB.
    pub oms: Vec<(Vec<Option<OmTables>>, OmTables)>,
    /// Each snapshot the log creates, in log order, and what it must hold (the written plans:
    /// s1, `apply(log[1..2])` with `TransactionInfo` 2).
    pub reference: Vec<(String, OmTables)>,
}

/// The snapshot holds exactly the log before the create.
pub const SNAPSHOT_COVERS_PREFIX: Invariant<End> = Invariant::eventually(
    "SnapshotCoversPrefix",
    "each OM's snapshot holds exactly what the log before the create wrote, with that TransactionInfo",
    "An OM snapshot misses writes of entries before its create in the log (they were in the same double-buffer batch): reads and snapshot diffs through it miss those keys, and a snapshot is never rewritten.",
    |e| {
        for (i, (snapshots, _)) in e.oms.iter().enumerate() {
            for (snapshot, (name, before)) in snapshots.iter().zip(&e.reference) {
                if let Some(first) = snapshot.as_ref().and_then(|s| s.diff(before).first().cloned()) {
                    return Err(format!("om{}'s {name} vs the log before it: {first}", i + 1));
                }
            }
        }
        Ok(())
    },
);

/// The OMs' snapshots agree.
pub const REPLICA_SNAPSHOTS_AGREE: Invariant<End> = Invariant::eventually(
    "ReplicaSnapshotsAgree",
    "every OM's snapshot of the same log entry holds the same rows",
    "Two OMs' snapshots of the same create hold different keys (each OM cut its double-buffer batches differently), so what a snapshot read or diff returns depends on which OM serves it.",
    |e| {
        for (j, (name, _)) in e.reference.iter().enumerate() {
            let snapshots: Vec<&OmTables> =
                e.oms.iter().filter_map(|(s, _)| s[j].as_ref()).collect();
            for (i, other) in snapshots.iter().enumerate().skip(1) {
                if let Some(first) = snapshots[0].diff(other).first() {
                    return Err(format!("om1's {name} vs om{}'s: {first}", i + 1));
                }
            }
        }
        Ok(())
    },
);

/// Every OM created the snapshot.
pub const SNAPSHOT_CREATED: Invariant<End> = Invariant::eventually(
    "SnapshotCreated",
    "once the log is flushed, every OM has the snapshot's row committed and its directory",
    "An OM lacks a snapshot whose create it applied (no row or no checkpoint directory). No variant breaks it: it keeps a fix that skips the snapshot from passing.",
    |e| {
        for (i, (snapshots, durable)) in e.oms.iter().enumerate() {
            for (snapshot, (name, _)) in snapshots.iter().zip(&e.reference) {
                if snapshot.is_none() || durable.get(SNAPSHOT_INFO_TABLE, name).is_none() {
                    return Err(format!("om{} has no {name}", i + 1));
                }
            }
        }
        Ok(())
    },
);

/// The parent's double buffer: the swap is `setReadyBuffer`, inlined in the `flushTransactions`
/// loop, and `stop` clears `isRunning` itself (no `stopDaemon` yet).
const BUFFER_PARENT: BufferCites = BufferCites {
    add: &parent::OzoneManagerDoubleBuffer::add,
    stop: &parent::OzoneManagerDoubleBuffer::stop,
    flush_transactions: &parent::OzoneManagerDoubleBuffer::flushTransactions,
    swap: &parent::OzoneManagerDoubleBuffer::setReadyBuffer,
};

/// The fix's double buffer (also under HDDS-7906's split, which leaves these methods alone).
const BUFFER_FIX: BufferCites = BufferCites {
    add: &fix::OzoneManagerDoubleBuffer::add,
    stop: &fix::OzoneManagerDoubleBuffer::stop,
    flush_transactions: &fix::OzoneManagerDoubleBuffer::flushTransactions,
    swap: &fix::OzoneManagerDoubleBuffer::swapCurrentAndReadyBuffer,
};

const CREATES_PARENT: CreateCites = CreateCites {
    key_request: Some(&parent::OMKeyCreateRequest::validateAndUpdateCache),
    create_request: &parent::OMSnapshotCreateRequest::validateAndUpdateCache,
};

impl Variant {
    /// The knobs: only the split differs; the create's flush is the parent's at all three
    /// commits (a checkpoint, then the row; no cleanup).
    pub fn java(self) -> Java {
        let (split, create) = match self {
            Variant::Buggy => (Split::OneBatch, CreateRevision::HDDS_7279_PARENT),
            Variant::Fixed => (Split::Every, CreateRevision::HDDS_7279),
            Variant::SplitAtCreate => (Split::AtCreate, CreateRevision::HDDS_7279),
        };
        Java::without_purges(split, create)
    }

    /// The commits its steps cite: the parent's requests and responses (the fixes change only
    /// the double buffer), the variant's own flush.
    pub fn cites(self) -> &'static Cites {
        const BUGGY: Cites = Cites {
            add_to_batch: &parent::OzoneManagerDoubleBuffer::flushTransactions,
            flush_batch: &parent::OzoneManagerDoubleBuffer::flushTransactions,
            split: &parent::OzoneManagerDoubleBuffer::flushTransactions,
            buffer: &BUFFER_PARENT,
            purge: None,
            create: Some(&CREATES_PARENT),
        };
        const FIXED: Cites = Cites {
            add_to_batch: &fix::OzoneManagerDoubleBuffer::flushBatch,
            flush_batch: &fix::OzoneManagerDoubleBuffer::flushBatch,
            split: &fix::OzoneManagerDoubleBuffer::splitReadyBufferAtCreateSnapshot,
            buffer: &BUFFER_FIX,
            ..BUGGY
        };
        const SPLIT_AT_CREATE: Cites = Cites {
            split: &hdds_7906::OzoneManagerDoubleBuffer::splitReadyBufferAtCreateSnapshot,
            ..FIXED
        };
        match self {
            Variant::Buggy => &BUGGY,
            Variant::Fixed => &FIXED,
            Variant::SplitAtCreate => &SPLIT_AT_CREATE,
        }
    }
}

impl Scenario for Hdds7279 {
    type Variant = Variant;
    type Plan = Plan;
    const NAME: &'static str = "hdds-7279";
    const JIRA: &'static str = "HDDS-7279";
    const TITLE: &'static str =
        "a snapshot create batched with earlier entries checkpoints the DB without them";
    const PROPERTIES: &'static [Property] = &[
        SNAPSHOT_COVERS_PREFIX.property(),
        REPLICA_SNAPSHOTS_AGREE.property(),
        SNAPSHOT_CREATED.property(),
        CREATE_SWAPPED_WITH_EARLIER.required(),
    ];
    const MODEL_PROBES: &'static [&'static [Probe]] = &[SnapshotOm::PROBES, requests::PROBES];
    const VOCABULARY: Option<Vocabulary> = Some(VOCABULARY);
    const BY_CONSTRUCTION: &'static [ByConstruction] = &[ByConstruction {
        probe: CREATE_SWAPPED_WITH_EARLIER,
        why: "a flush thread blocked in canFlush on the empty buffer lets the apply thread queue the key write and the create before its first swap without any preemption; other schedules swap the key write alone",
    }];

    fn expected(variant: Variant, plan: Plan) -> Expected {
        const PREFIX: &[Property] = &[SNAPSHOT_COVERS_PREFIX.property()];
        const PREFIX_AND_AGREE: &[Property] = &[
            SNAPSHOT_COVERS_PREFIX.property(),
            REPLICA_SNAPSHOTS_AGREE.property(),
        ];
        match (variant, plan) {
            (Variant::Buggy, Plan::OneOm) => Expected::Violates(PREFIX),
            // One OM's swap takes both entries, the other's takes the key write alone.
            (Variant::Buggy, Plan::TwoOms) => Expected::Violates(PREFIX_AND_AGREE),
            // Every workload of the vocabulary on two OMs (module docs, "Generated workloads").
            (Variant::Buggy, Plan::Generated) => Expected::Violates(PREFIX_AND_AGREE),
            (
                Variant::Fixed | Variant::SplitAtCreate,
                Plan::OneOm | Plan::TwoOms | Plan::Generated,
            ) => Expected::Holds,
        }
    }

    fn prepare(&self, variant: Variant, plan: Plan, _size: usize) -> Box<dyn Case> {
        let source = match plan {
            Plan::Generated => Source::Drawn(VOCABULARY.bounds),
            Plan::OneOm | Plan::TwoOms => Source::Written(Arc::new(create_log())),
        };
        Box::new(Prepared {
            variant,
            oms: if plan == Plan::OneOm { 1 } else { 2 },
            source,
        })
    }

    fn prepare_generated(
        &self,
        variant: Variant,
        bounds: Bounds,
        _size: usize,
    ) -> Option<Box<dyn Case>> {
        Some(Box::new(Prepared {
            variant,
            oms: 2,
            source: Source::Drawn(bounds),
        }))
    }
}

/// 1 the leader's configuration entry, 2 `CreateKey k1`, 3 `CreateSnapshot s1`.
pub fn create_log() -> RaftLog<SnapshotRequest> {
    let mut log = RaftLog::new();
    log.start_term(1);
    log.append(SnapshotRequest::CreateKey { key: "k1".into() });
    log.append(SnapshotRequest::CreateSnapshot {
        snapshot: SNAPSHOT.into(),
    });
    log
}

/// A fresh OM's DB: `TransactionInfo` 0 and nothing else.
fn fresh() -> OmTables {
    let mut t = Tables::default();
    put_tx_info(&mut t, 0, 0);
    t
}

/// Each snapshot `log` creates, in log order, and what it must hold: the log applied to a
/// fresh DB one entry at a time, each committed before the next, up to the entry before its
/// create (`TransactionInfo` that entry's index), no `deletedTable` cleanup
/// ([`apply_in_order`]). The written plans: s1 holds k1's open key and
/// `TransactionInfo` 2.
pub fn reference(log: &RaftLog<SnapshotRequest>) -> Vec<(String, OmTables)> {
    apply_in_order(log, fresh(), None, false)
        .snapshots
        .into_iter()
        .map(|(name, _, before)| (name, before))
        .collect()
}

const KEYS: Universe = Universe {
    name: "keys",
    values: &["k1", "k2"],
    symmetric: true,
};

const SNAPSHOTS: Universe = Universe {
    name: "snapshots",
    values: &["s1", "s2"],
    // No request reads another snapshot: the names are interchangeable.
    symmetric: true,
};

/// `key` and `snapshot` by index into [`VOCABULARY`]'s words.
const KEY: usize = 0;
const SNAPSHOT_WORD: usize = 1;

/// The words of a generated workload (`generated`): the requests whose responses share the
/// double buffer's batches with a snapshot create (module docs, "Generated workloads"). The
/// flush's swap, which decides the batches, is the scheduler's.
pub const VOCABULARY: Vocabulary = Vocabulary {
    universes: &[KEYS, SNAPSHOTS],
    words: &[
        Word {
            name: "key",
            kind: Kind::Request,
            args: &[0],
            doc: "OMKeyCreateRequest.validateAndUpdateCache (67e67250bd0): opens the key (a second create of one key replaces the model's row, see the Abstractions); its response's addToDBBatch puts the open key's row into whichever batch the flush gives it",
        },
        Word {
            name: "snapshot",
            kind: Kind::Request,
            args: &[1],
            doc: "OMSnapshotCreateRequest.validateAndUpdateCache (67e67250bd0): the snapshot's row into the table cache; at flush OMSnapshotCreateResponse.addToDBBatch checkpoints the committed DB (OmSnapshotManager.createOmSnapshotCheckpoint), then stages the row, in the batch the variant's split gives it (flushTransactions: the whole ready buffer; splitReadyBufferAtCreateSnapshot at 6fe2ab80115 and 4d09962a659)",
        },
    ],
    // The largest the stateful engine exhausts for both holding variants within 10 minutes
    // on two cores: `fixed` in 442 s (9,054,275 states), `split-at-create` in 337 s
    // (8,094,703); four requests (56 workloads) were not exhausted in 600 s.
    bounds: Bounds {
        requests: 3,
        faults: 0,
    },
    allowed: distinct_snapshots,
};

/// A snapshot is created once: `OMSnapshotCreateRequest` answers a second create of the name
/// with an error response (`FILE_ALREADY_EXISTS`, OMSnapshotCreateRequest.java:130-133 at
/// 67e67250bd0), which writes nothing.
fn distinct_snapshots(prefix: &[Item], item: &Item) -> bool {
    item.word != SNAPSHOT_WORD
        || !prefix
            .iter()
            .any(|i| i.word == SNAPSHOT_WORD && i.args[0] == item.args[0])
}

/// `workload`'s log: 1 the leader's configuration entry, then one entry per request.
pub fn log(workload: &Workload) -> RaftLog<SnapshotRequest> {
    let mut log = RaftLog::new();
    log.start_term(1);
    for item in &workload.items {
        log.append(match item.word {
            KEY => SnapshotRequest::CreateKey {
                key: KEYS.values[item.args[0]].into(),
            },
            _ => SnapshotRequest::CreateSnapshot {
                snapshot: SNAPSHOTS.values[item.args[0]].into(),
            },
        });
    }
    log
}

/// Where a case's log comes from.
enum Source {
    /// A written plan's.
    Written(Arc<RaftLog<SnapshotRequest>>),
    /// A workload drawn within the bounds.
    Drawn(Bounds),
}

struct Prepared {
    variant: Variant,
    oms: usize,
    source: Source,
}

impl Case for Prepared {
    fn run(&self, recorder: &Arc<Recorder>) {
        let log = match &self.source {
            Source::Written(log) => Arc::clone(log),
            Source::Drawn(bounds) => {
                // Drawn before anything is spawned, and shown first in the trace.
                let workload = VOCABULARY.draw_shown(*bounds, &Actor::new("client", recorder));
                Arc::new(log(&workload))
            }
        };
        let reference = reference(&log);
        let (java, cites) = (self.variant.java(), self.variant.cites());
        let oms: Vec<(Arc<SnapshotOm>, Arc<Dirs>)> = (0..self.oms)
            .map(|_| {
                let dirs = Arc::new(Dirs::new([]));
                let store = Arc::new(Store::with_state(fresh(), None));
                let snaps = Snapshots::new(Arc::clone(&dirs), [], &[], java, cites);
                (Arc::new(SnapshotOm::new(store, snaps, false)), dirs)
            })
            .collect();
        let running: Vec<Arc<SnapshotOm>> = oms.iter().map(|(om, _)| Arc::clone(om)).collect();
        SnapshotOm::run_threads(&running, &log, recorder);
        recorder.quiesce();
        let end = End {
            oms: oms
                .iter()
                .map(|(om, dirs)| {
                    let snapshots = reference.iter().map(|(name, _)| dirs.content(name));
                    (snapshots.collect(), om.store().durable())
                })
                .collect(),
            reference,
        };
        SNAPSHOT_COVERS_PREFIX.check_into(&end, recorder);
        if self.oms > 1 {
            REPLICA_SNAPSHOTS_AGREE.check_into(&end, recorder);
        }
        SNAPSHOT_CREATED.check_into(&end, recorder);
    }
}
