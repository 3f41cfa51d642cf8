//! HDDS-8685: a snapshot create's flush creates the snapshot's checkpoint directory before its
//! batch commits; after a crash between the two, the restart replays the create onto a
//! directory that already exists.
//!
//! Buggy: the Java at 9b59ade990a^ (534160f96c5); fixed: at the fix 9b59ade990a (PR #4946),
//! which changes only `OmSnapshotManager.createOmSnapshotCheckpoint`; `as-reported`: no commit,
//! the one-line story ("the replayed create fails because the directory exists: a crash
//! loop") as a model, to show what the invariants say of it. Models:
//! [`crate::models::om::snapshot`]. Historical citations: `@hdds-8685-parent` and
//! `@hdds-8685` in `citations.toml`.
//!
//! # The race
//!
//! The OM holds `deletedTable/d1` (a deleted key of the bucket) and `TransactionInfo` 0; after
//! its configuration entry (1) the log holds 2 `CreateKey k1`, 3 `CreateSnapshot s1` of that
//! bucket and 4 `CreateKey k2`. The double buffer puts a create alone in its batch
//! ([`splitReadyBufferAtCreateSnapshot`](crate::citation::java::hdds_8685_parent::OzoneManagerDoubleBuffer::splitReadyBufferAtCreateSnapshot)),
//! so 2 is committed before 3's flush. That flush
//! ([`OMSnapshotCreateResponse.addToDBBatch`](crate::citation::java::hdds_8685_parent::OMSnapshotCreateResponse::addToDBBatch),
//! [`createOmSnapshotCheckpoint`](crate::citation::java::hdds_8685_parent::OmSnapshotManager::createOmSnapshotCheckpoint),
//! as [`CreateRevision::HDDS_8685_PARENT`]) stages s1's row, checkpoints the active DB into
//! s1's directory (`{d1, k1, TransactionInfo 2}`), deletes the bucket's `deletedTable` rows
//! from the active DB unbatched (each write durable at once), and only then does
//! [`flushBatch`](crate::citation::java::hdds_8685_parent::OzoneManagerDoubleBuffer::flushBatch)
//! commit the row with `TransactionInfo` 3. The plans kill the process inside that window; the
//! DB then says `TransactionInfo` 2, has no row for s1, and the directory exists. The restart
//! replays 3 and 4 (apply and flush concurrently, as Ratis' updater and the double buffer's
//! flush thread run them).
//!
//! **What the parent does with the existing directory (the Java wins over the story).**
//! `getSnapshot` asks RocksDB for a new checkpoint in the existing directory; RocksDB's
//! `CheckpointImpl::CreateCheckpoint` refuses with `InvalidArgument` ("Directory exists"; read
//! in RocksDB's own source, which has had the check since long before 7.7.3, the parent's
//! `rocksdb.version`, not at that exact tag), on which
//! `RocksDatabase.closeOnError` does not close the DB (it closes on `Corruption` and `IOError`
//! only, RocksDatabase.java:431-439 at 534160f96c5); the `IOException` it throws is caught by
//! [`RDBCheckpointManager.createCheckpoint`](crate::citation::java::hdds_8685_parent::RDBCheckpointManager::createCheckpoint__String_String)
//! (RDBCheckpointManager.java:100-103), which logs "Unable to create RocksDB Snapshot." and
//! returns null. `createOmSnapshotCheckpoint` goes on with the cleanup (the rows the active DB
//! still holds), skips its "Created checkpoint" log, appends the snapshot to the compaction log
//! a second time and returns null, which `addToDBBatch` ignores (OmSnapshotManager.java:400-432,
//! OMSnapshotCreateResponse.java:81 at 534160f96c5); the batch commits. The
//! snapshot is the directory the crashed flush left: it holds d1 and k1, which is the right
//! content. **No exception reaches `addToBatch`: the parent has no crash loop**, and `buggy`
//! holds. The fix
//! ([`createOmSnapshotCheckpoint`](crate::citation::java::hdds_8685::OmSnapshotManager::createOmSnapshotCheckpoint),
//! OmSnapshotManager.java:401-434 at 9b59ade990a) checks `Files.exists` first and reuses the
//! directory (the same path `getSnapshot` would use: the DB's name, then the row's
//! `checkpointDir`); it still runs the cleanup, then logs "already exists" and returns before
//! the compaction-log append. So on the DB and the directories the fix changes nothing; what it
//! changes is an ERROR log and a second compaction-log entry for the same snapshot (the
//! compaction DAG, which the response's own comment says affects only snapshot-diff
//! performance, is not modelled). Its test (`testCreateSnapshotIdempotent`) checks the log
//! line only.
//!
//! Retaking the checkpoint would be the harm: at `crash-before-commit` the unbatched cleanup
//! already removed d1 from the active DB before the kill, so a new checkpoint at the replay
//! would lack it. Both commits keep the old directory; `SnapshotHoldsItsPrefix` checks it.
//!
//! `as-reported` makes the existing directory an exception that reaches `addToBatch`: each
//! restart terminates at index 3 with nothing committed, so the next restart is where it
//! started (`NoOmTermination`, `SnapshotCreated` break). It is not any commit's behaviour.
//!
//! # Plans
//!
//! - `crash-after-checkpoint`: the process dies right after s1's checkpoint directory is
//!   complete, before the cleanup and the commit; then restarts (twice at most).
//! - `crash-before-commit`: the process dies after the create's `addToDBBatch` returned (the
//!   unbatched cleanup done), before its batch commits; then restarts (twice at most).
//! - `generated`: every workload of [`VOCABULARY`] within its bounds (at most three requests
//!   and two faults by default: 194 workloads, the largest space the stateful engine exhausts
//!   within 10 minutes); see "Generated workloads". The two written
//!   plans are its workloads `key snapshot kill-after-checkpoint key` and
//!   `key snapshot kill-before-commit key`, and run through the same code.
//!
//! | plan | `buggy` | `fixed` | `as-reported` |
//! |---|---|---|---|
//! | `crash-after-checkpoint` | holds | holds | breaks `NoOmTermination`, `SnapshotCreated` |
//! | `crash-before-commit` | holds | holds | breaks `NoOmTermination`, `SnapshotCreated` |
//! | `generated` | holds | holds | breaks `NoOmTermination`, `SnapshotCreated` (minimized: `snapshot kill-before-commit`) |
//!
//! # Properties
//!
//! `NoOmTermination`, `SnapshotCreated` (every snapshot's row committed, its directory there,
//! every entry flushed) and `SnapshotHoldsItsPrefix` (each snapshot holds the committed state
//! before its create, as [`reference()`] applies the log: s1 of the written plans holds
//! `{d1, k1, TransactionInfo 2}`; the active DB no longer holds the deleted keys a snapshot
//! took): at quiescence, over every incarnation of the OM. Probe `CheckpointLeftUncommitted`
//! (required, by construction: the plans place the kill): after the crash, the killed
//! create's directory exists and the stored index precedes the create. Probes
//! `ReplayTerminated` and `ReplayCompleted` (counted).
//!
//! # Generated workloads (`generated`)
//!
//! [`VOCABULARY`] has no universes: each `key` opens the next key (`k1`, `k2`, ...), each
//! `snapshot` creates the next snapshot (`s1`, `s2`, ...) of the one bucket, whose
//! `deletedTable` holds d1 at the start. The log is the leader's configuration entry, then one
//! entry per request; the faults write no entry.
//!
//! | word | kind | Java (at 534160f96c5 unless the variant says) | what it does |
//! |---|---|---|---|
//! | `key` | request | [`OMKeyCreateRequest.validateAndUpdateCache`](crate::citation::java::hdds_8685_parent::OMKeyCreateRequest::validateAndUpdateCache) | opens the key; its row goes into whichever batch the split gives it |
//! | `snapshot` | request | [`OMSnapshotCreateRequest.validateAndUpdateCache`](crate::citation::java::hdds_8685_parent::OMSnapshotCreateRequest::validateAndUpdateCache), [`OMSnapshotCreateResponse.addToDBBatch`](crate::citation::java::hdds_8685_parent::OMSnapshotCreateResponse::addToDBBatch), [`createOmSnapshotCheckpoint`](crate::citation::java::hdds_8685_parent::OmSnapshotManager::createOmSnapshotCheckpoint) | the row into the table cache at apply; at flush, alone in its batch, the row staged, the checkpoint (or the existing directory, as the variant meets it), the unbatched cleanup |
//! | `kill-after-checkpoint` | fault | (the process dies) | in the flush of the `snapshot` right before it, once its directory is complete: `crash-after-checkpoint`'s kill |
//! | `kill-before-commit` | fault | (the process dies) | in the flush of the `snapshot` right before it, after its `addToDBBatch`: `crash-before-commit`'s kill |
//! | `restart` | fault | [`loadSnapshotInfoFromDB`](crate::citation::java::OzoneManagerStateMachine::loadSnapshotInfoFromDB), [`StateMachineUpdater.run`](crate::citation::java::StateMachineUpdater::run) | a clean stop once every entry before it is flushed, a restart from the stored `TransactionInfo` (the id map rebuilt from the rows), and the entries after it applied as a replay, apply and flush concurrently |
//!
//! A kill comes right after the `snapshot` whose flush it kills (one kill per create), a
//! `restart` right after a request. Each kill fires once, in whichever incarnation flushes
//! its create (the first run, or a replay after a clean restart or after an earlier kill);
//! after a kill the OM restarts and replays the log after its stored index, after a
//! termination it restarts again, twice at most. A workload of requests alone runs the
//! first incarnation only.
//!
//! Verdicts (the default budget, 2,000 random and 2,000 PCT executions at depth 3; each
//! expected invariant watched alone over seeds 0..20, worst and median executions to it):
//!
//! | variant | breaks | random | PCT (depth 3) | stateful |
//! |---|---|---|---|---|
//! | `buggy` | nothing | held in 2,000 on every seed (window `CheckpointLeftUncommitted` in 701 to 805) | held in 2,000 (665 to 772) | held, exhausted: 21,876,843 states, 5,800,805 executions, 418 s, the same as `fixed` (at four requests and two faults, 722 workloads, not exhausted in 600 s: 27,404,420 states) |
//! | `fixed` | nothing | held in 2,000 (701 to 805) | held in 2,000 (665 to 772) | held, exhausted: 21,876,843 states, 5,800,805 executions, 418 s (at four requests not exhausted in 600 s: 28,163,963 states) |
//! | `as-reported` | `NoOmTermination`, `SnapshotCreated` | 6 (2.5) each | 10 (3) each | at 2 each |
//!
//! `as-reported`'s minimized workload is `snapshot kill-before-commit`: the create alone in
//! the log, killed after its cleanup, and every restart terminates on the existing
//! directory. The space adds no break of `buggy` or `fixed`: a second snapshot checkpoints
//! the state with the first one's row and without d1 (its cleanup finds nothing), a kill in a
//! replay after a clean restart or after an earlier kill leaves the directory as the first
//! run's kill does, and the parent's swallowed failure and the fix's reuse both keep it.
//!
//! Left out of the vocabulary:
//! - snapshot delete (`OMSnapshotDeleteRequest`): it marks the row `SNAPSHOT_DELETED` in the
//!   table cache and its response puts the row into a later batch
//!   (OMSnapshotDeleteResponse.java:64 at 534160f96c5); it neither reads nor writes the
//!   checkpoint directory, so a kill inside the create's flush loses it with the create and the
//!   replay meets the same directory with or without it.
//! - snapshot purge (`OMSnapshotPurgeRequest`, sent by the `SnapshotDeletingService` for a
//!   deleted snapshot): the model's purge follows the 2024 commits (HDDS-10408 and on), not
//!   the parent's, and its own scenarios (hdds-10408, hdds-11152, hdds-11453) cover its
//!   crash between the directory's deletion and the commit. Whether a purge of a snapshot
//!   whose create is still uncommitted can be sent at 534160f96c5 is not modelled.
//! - key commits and deletes (`OMKeyCommitRequest`, `OMKeyDeleteRequest`): the model's key
//!   path opens keys only, and a deleted key reaches `deletedTable`, which the cleanup reads
//!   as it finds it; d1 at the start is such a row, and a second snapshot's cleanup finding
//!   none is the other case.
//! - two creates of one snapshot name: `OMSnapshotCreateRequest` answers the second with an
//!   error response ("Snapshot already exists", OMSnapshotCreateRequest.java:151-153 at
//!   534160f96c5), which writes nothing.
//! - a kill elsewhere than at the two points (see the Abstractions).
//!
//! # Abstractions
//!
//! | merged or left out | why no verdict depends on it |
//! |---|---|
//! | the kill points are fixed (after the directory is complete; after `addToDBBatch`) | RocksDB builds the checkpoint in `<dir>.tmp` and renames it whole, so a kill inside the checkpoint leaves no directory and the replay is a first attempt; a kill after the commit leaves nothing to replay; between the cleanup's `deleteRange` and its `delete` is the two plans' mixture (the replay's cleanup reads what remains) |
//! | `getSnapshot`'s failed attempt (`flushLog`, `flushWal`, `flush` before RocksDB refuses) is one step | flushes of committed data change no content |
//! | the compaction log (`appendSnapshotInfoToCompactionLog`, `setCurrentCompactionLog`): the parent appends the snapshot twice, the fix once | the compaction DAG serves snapshot diffs; the invariants are about the DB, the directory and the OM's life |
//! | log lines ("Unable to create RocksDB Snapshot.", "already exists") | not state |
//! | `deletedDirectoryTable` and `snapshotRenamedTable` | the directory cleanup is the same unbatched path as `deletedTable`; the renamed-table deletes are batched |
//! | the deleted-table write locks `createOmSnapshotCheckpoint` holds | they exclude the key-deleting services, which are not modelled |
//! | the snapshot's id (the directory's name), sequence number and creation time | the log entry carries the id the leader chose in `preExecute`, so the replay names the same directory |
//! | two restarts at most | `as-reported` terminates on each the same way; a third adds nothing |

use crate::choices;
use crate::citation::java::hdds_8685_parent as parent;
use crate::kit::raft_log::RaftLog;
use crate::kit::store::{Store, Tables};
use crate::kit::tx_info::{put_tx_info, stored_index};
use crate::models::om::double_buffer::BufferCites;
use crate::models::om::snapshot::node::SnapshotOm;
use crate::models::om::snapshot::reference::apply_in_order;
pub use crate::models::om::snapshot::reference::Reference;
use crate::models::om::snapshot::requests::{self, Crash, SnapshotRequest};
use crate::models::om::snapshot::restarts::{Restarts, Watch};
use crate::models::om::snapshot::{
    Cites, CreateCites, CreateRevision, Dirs, ExistingDir, Java, Snapshots, Split,
};
use crate::models::om::{OmRow, OmTables, DELETED_TABLE, OPEN_KEY_TABLE, SNAPSHOT_INFO_TABLE};
use crate::properties::{Invariant, Probe, Property};
use crate::recorder::{Actor, Recorder};
use crate::scenario::{ByConstruction, Case, Expected, Scenario};
use crate::sync::Arc;
use crate::workload::{Bounds, Item, Kind, Vocabulary, Word, Workload};

/// The scenario.
#[derive(Debug, Clone, Copy)]
pub struct Hdds8685;

choices! {
    /// What the create's flush does when its checkpoint directory already exists.
    pub enum Variant {
        /// 9b59ade990a^: getSnapshot onto the directory fails, is logged, and the flush goes on
        Buggy = "buggy",
        /// 9b59ade990a: the existing directory is reused
        Fixed = "fixed",
        /// no commit: the one-line story, the failure reaches addToBatch and terminates the OM
        AsReported = "as-reported",
    }
}

choices! {
    /// Where the OM process dies inside the create's flush.
    pub enum Plan {
        /// right after the checkpoint directory is complete, before the cleanup and the commit
        CrashAfterCheckpoint = "crash-after-checkpoint",
        /// after the create's addToDBBatch (cleanup done), before its batch commits
        CrashBeforeCommit = "crash-before-commit",
        /// every workload of the vocabulary within the bounds: key and snapshot creates, a kill inside a create's flush at either point, a clean restart
        Generated = "generated",
    }
}

/// The snapshot.
pub const SNAPSHOT: &str = "s1";

/// What the OM ended with, over every incarnation.
pub struct End {
    /// Every termination.
    pub exits: Vec<String>,
    /// The active DB's committed rows.
    pub durable: OmTables,
    /// Each snapshot the log creates, with its directory's content if the directory exists.
    pub dirs: Vec<(String, Option<OmTables>)>,
    /// What applying the log in order gives.
    pub reference: Reference,
}

/// `log` applied to [`initial`] in order, each entry committed before the next
/// ([`apply_in_order`]): a key create opens its key; a snapshot create takes the committed
/// state, moves the bucket's `deletedTable` rows into it (the cleanup), and adds its row.
pub fn reference(log: &RaftLog<SnapshotRequest>) -> Reference {
    apply_in_order(log, initial(), None, true)
}

/// After the crash, the checkpoint directory exists and the create is not committed: the
/// window of HDDS-8685.
pub const CHECKPOINT_LEFT_UNCOMMITTED: Probe = Probe::new(
    "CheckpointLeftUncommitted",
    "after the crash, the snapshot's directory exists and the stored index precedes its create",
);

/// A restart's replay terminated the OM.
pub const REPLAY_TERMINATED: Probe =
    Probe::new("ReplayTerminated", "a restart's replay terminated the OM");

/// A restart's replay applied and flushed every entry.
pub const REPLAY_COMPLETED: Probe = Probe::new(
    "ReplayCompleted",
    "a restart replayed every entry after its stored index without terminating",
);

/// The OM never terminates.
pub const NO_OM_TERMINATION: Invariant<End> = Invariant::eventually(
    "NoOmTermination",
    "no incarnation of the OM terminates",
    "The restarted OM terminates while replaying the snapshot create, and every restart does the same: a crash loop (the one-line story; the Java at 9b59ade990a^ swallows the failure).",
    |e| match e.exits.first() {
        None => Ok(()),
        Some(first) => Err(format!("the OM terminated: {first}")),
    },
);

/// Every create and every entry after it are committed, and the directories are there.
pub const SNAPSHOT_CREATED: Invariant<End> = Invariant::eventually(
    "SnapshotCreated",
    "every snapshot's row is committed, its directory exists, and every entry is flushed",
    "The OM never commits the snapshot create or the entries after it.",
    |e| {
        for (name, dir) in &e.dirs {
            if e.durable.get(SNAPSHOT_INFO_TABLE, name).is_none() {
                return Err(format!("no committed row for {name}"));
            }
            if dir.is_none() {
                return Err(format!("no directory for {name}"));
            }
        }
        match stored_index(&e.durable) {
            i if i == e.reference.last => Ok(()),
            i => Err(format!("stored index {i}, not {}", e.reference.last)),
        }
    },
);

/// Each snapshot holds the state before its create, and the active DB gave up to the
/// snapshots the deleted keys they took.
pub const SNAPSHOT_HOLDS_ITS_PREFIX: Invariant<End> = Invariant::eventually(
    "SnapshotHoldsItsPrefix",
    "each snapshot holds the committed state before its create (s1 of the written plans: {d1, k1, TransactionInfo 2}), and the active DB no longer holds the deleted keys a snapshot took",
    "A snapshot lacks the deleted key its bucket held at its create (a checkpoint retaken after the unbatched cleanup), so the key's blocks are never reclaimed. No variant breaks it: it keeps a fix that retakes the checkpoint from passing.",
    |e| {
        for ((name, dir), (_, index, before)) in e.dirs.iter().zip(&e.reference.snapshots) {
            if let Some(first) = dir.as_ref().and_then(|d| d.diff(before).first().cloned()) {
                return Err(format!("{name} vs apply(log[..{}]): {first}", index - 1));
            }
        }
        let kept = e
            .durable
            .iter()
            .filter(|(t, _, _)| *t == DELETED_TABLE)
            .find(|(t, k, _)| e.reference.active.get(t, k).is_none());
        match kept {
            Some((_, key, _)) => Err(format!("the active DB still holds {key}")),
            None => Ok(()),
        }
    },
);

/// The double buffer's own methods, at the commit its other methods come from.
const BUFFER: BufferCites = BufferCites {
    add: &parent::OzoneManagerDoubleBuffer::add,
    stop: &parent::OzoneManagerDoubleBuffer::stop,
    flush_transactions: &parent::OzoneManagerDoubleBuffer::flushTransactions,
    swap: &parent::OzoneManagerDoubleBuffer::swapCurrentAndReadyBuffer,
};

const CREATES: CreateCites = CreateCites {
    key_request: Some(&parent::OMKeyCreateRequest::validateAndUpdateCache),
    create_request: &parent::OMSnapshotCreateRequest::validateAndUpdateCache,
};

impl Variant {
    /// The knobs: the split at creates (HDDS-7906 on), the create's flush of the variant.
    pub fn java(self) -> Java {
        let create = match self {
            Variant::Buggy => CreateRevision::HDDS_8685_PARENT,
            Variant::Fixed => CreateRevision::HDDS_8685,
            Variant::AsReported => CreateRevision {
                commit: "none: the one-line story of HDDS-8685",
                existing: ExistingDir::Throws,
                ..CreateRevision::HDDS_8685_PARENT
            },
        };
        Java::without_purges(Split::AtCreate, create)
    }

    /// The commits its steps cite besides the create's revision: the parent's, for every
    /// variant.
    pub fn cites(self) -> &'static Cites {
        const PARENT: Cites = Cites {
            add_to_batch: &parent::OzoneManagerDoubleBuffer::addToBatch,
            flush_batch: &parent::OzoneManagerDoubleBuffer::flushBatch,
            split: &parent::OzoneManagerDoubleBuffer::splitReadyBufferAtCreateSnapshot,
            buffer: &BUFFER,
            purge: None,
            create: Some(&CREATES),
        };
        // The fix changes no other method; its `createOmSnapshotCheckpoint` is the
        // create's revision's (`CreateRevision::HDDS_8685`).
        &PARENT
    }

    /// Where the plan kills the process.
    fn crash(plan: Plan) -> Crash {
        match plan {
            Plan::CrashAfterCheckpoint => Crash::AfterCheckpoint,
            Plan::CrashBeforeCommit | Plan::Generated => Crash::BeforeCreateCommit,
        }
    }
}

impl Scenario for Hdds8685 {
    type Variant = Variant;
    type Plan = Plan;
    const NAME: &'static str = "hdds-8685";
    const JIRA: &'static str = "HDDS-8685";
    const TITLE: &'static str =
        "a crash between a snapshot's checkpoint and its commit: the replay finds the directory";
    const PROPERTIES: &'static [Property] = &[
        NO_OM_TERMINATION.property(),
        SNAPSHOT_CREATED.property(),
        SNAPSHOT_HOLDS_ITS_PREFIX.property(),
        CHECKPOINT_LEFT_UNCOMMITTED.required(),
        REPLAY_TERMINATED.property(),
        REPLAY_COMPLETED.property(),
    ];
    const MODEL_PROBES: &'static [&'static [Probe]] = &[SnapshotOm::PROBES, requests::PROBES];
    const BY_CONSTRUCTION: &'static [ByConstruction] = &[ByConstruction {
        probe: CHECKPOINT_LEFT_UNCOMMITTED,
        why: "both written plans, and every generated workload with a kill, kill the process inside a create's flush, after its checkpoint directory is complete and before its batch commits, in every execution",
    }];
    const VOCABULARY: Option<Vocabulary> = Some(VOCABULARY);

    fn expected(variant: Variant, plan: Plan) -> Expected {
        const LOOP: &[Property] = &[NO_OM_TERMINATION.property(), SNAPSHOT_CREATED.property()];
        match (variant, plan) {
            (Variant::AsReported, Plan::CrashAfterCheckpoint | Plan::CrashBeforeCommit) => {
                Expected::Violates(LOOP)
            }
            // The parent swallows getSnapshot's failure: no crash loop at either commit.
            (
                Variant::Buggy | Variant::Fixed,
                Plan::CrashAfterCheckpoint | Plan::CrashBeforeCommit,
            ) => Expected::Holds,
            // Every workload of the vocabulary (module docs, "Generated workloads").
            (Variant::AsReported, Plan::Generated) => Expected::Violates(LOOP),
            (Variant::Buggy | Variant::Fixed, Plan::Generated) => Expected::Holds,
        }
    }

    fn prepare(&self, variant: Variant, plan: Plan, _size: usize) -> Box<dyn Case> {
        if plan == Plan::Generated {
            return Box::new(Prepared {
                variant,
                source: Source::Drawn(VOCABULARY.bounds),
            });
        }
        // The written plans are the workload `key snapshot kill-... key`.
        Box::new(Prepared {
            variant,
            source: Source::Written(Shape {
                log: Arc::new(create_log()),
                kills: vec![(3, Variant::crash(plan))],
                stops: Vec::new(),
            }),
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
            source: Source::Drawn(bounds),
        }))
    }
}

/// 1 the leader's configuration entry, 2 `CreateKey k1`, 3 `CreateSnapshot s1`, 4 `CreateKey k2`.
pub fn create_log() -> RaftLog<SnapshotRequest> {
    let mut log = RaftLog::new();
    log.start_term(1);
    log.append(SnapshotRequest::CreateKey { key: "k1".into() });
    log.append(SnapshotRequest::CreateSnapshot {
        snapshot: SNAPSHOT.into(),
    });
    log.append(SnapshotRequest::CreateKey { key: "k2".into() });
    log
}

/// `deletedTable/d1` and `TransactionInfo` 0.
pub fn initial() -> OmTables {
    let mut t = Tables::default();
    t.put(
        DELETED_TABLE,
        "d1",
        OmRow::Key {
            size: 10,
            update_id: 0,
        },
    );
    put_tx_info(&mut t, 0, 0);
    t
}

/// `apply(log[1..2])`: d1, k1's open key and `TransactionInfo` 2: what s1 must hold.
pub fn prefix() -> OmTables {
    let mut t = initial();
    t.put(
        OPEN_KEY_TABLE,
        "k1",
        OmRow::Key {
            size: 10,
            update_id: 2,
        },
    );
    put_tx_info(&mut t, 1, 2);
    t
}

/// The words of a generated workload (`generated`): the requests whose responses share the
/// double buffer with a snapshot create, and the faults around its flush. No universes: each
/// `key` opens the next key (`k1`, `k2`, ...), each `snapshot` creates the next snapshot
/// (`s1`, `s2`, ...) of the one bucket, so two workloads differ only in their words and order.
pub const VOCABULARY: Vocabulary = Vocabulary {
    universes: &[],
    words: &[
        Word {
            name: "key",
            kind: Kind::Request,
            args: &[],
            doc: "OMKeyCreateRequest.validateAndUpdateCache (534160f96c5): opens the next key; its response's addToDBBatch puts the open key's row into the batch",
        },
        Word {
            name: "snapshot",
            kind: Kind::Request,
            args: &[],
            doc: "OMSnapshotCreateRequest.validateAndUpdateCache (534160f96c5): the next snapshot's row into the table cache; the double buffer flushes it alone (splitReadyBufferAtCreateSnapshot), and OMSnapshotCreateResponse.addToDBBatch stages the row, OmSnapshotManager.createOmSnapshotCheckpoint checkpoints the active DB into its directory (or meets the existing one, as the variant does) and deletes the bucket's deletedTable rows unbatched",
        },
        Word {
            name: "kill-after-checkpoint",
            kind: Kind::Fault,
            args: &[],
            doc: "the OM process dies in the flush of the snapshot create before it, once its checkpoint directory is complete (RocksDB renames it into place whole), before the cleanup and the commit: crash-after-checkpoint's fault; the OM restarts (loadSnapshotInfoFromDB) and replays the log after its stored index",
        },
        Word {
            name: "kill-before-commit",
            kind: Kind::Fault,
            args: &[],
            doc: "the OM process dies in the flush of the snapshot create before it, after its addToDBBatch returned (the unbatched cleanup done), before its batch commits: crash-before-commit's fault; the OM restarts and replays as after kill-after-checkpoint",
        },
        Word {
            name: "restart",
            kind: Kind::Fault,
            args: &[],
            doc: "the OM stops cleanly once every entry before it is flushed, restarts from its stored TransactionInfo (loadSnapshotInfoFromDB, the id map rebuilt from the snapshotInfoTable rows) and applies the entries after it as a replay (apply and flush concurrently)",
        },
    ],
    // The largest the stateful engine exhausts for both holding variants within 10 minutes
    // on two cores: `fixed` in 418 s (21,876,843 states), `buggy` in 418 s (the same states); four
    // requests and two faults (722 workloads) were not exhausted in 600 s.
    bounds: Bounds {
        requests: 3,
        faults: 2,
    },
    allowed: snapshot_path,
};

/// One item of a generated workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Drawn {
    Key,
    Snapshot,
    Kill(Crash),
    Restart,
}

impl Drawn {
    fn of(item: &Item) -> Drawn {
        match VOCABULARY.words[item.word].name {
            "key" => Drawn::Key,
            "snapshot" => Drawn::Snapshot,
            "kill-after-checkpoint" => Drawn::Kill(Crash::AfterCheckpoint),
            "kill-before-commit" => Drawn::Kill(Crash::BeforeCreateCommit),
            _ => Drawn::Restart,
        }
    }
}

/// Where a fault may come: a kill right after the snapshot create whose flush it kills (so
/// at most one kill per create), a clean restart right after a request (a restart right
/// after a kill is the kill's own restart).
fn snapshot_path(prefix: &[Item], item: &Item) -> bool {
    let last = prefix.last().map(Drawn::of);
    match Drawn::of(item) {
        Drawn::Key | Drawn::Snapshot => true,
        Drawn::Kill(_) => last == Some(Drawn::Snapshot),
        Drawn::Restart => matches!(last, Some(Drawn::Key | Drawn::Snapshot)),
    }
}

/// A workload as the run meets it.
#[derive(Clone, Debug)]
pub struct Shape {
    /// 1 the leader's configuration entry, then each request.
    pub log: Arc<RaftLog<SnapshotRequest>>,
    /// Each kill: the index of the create whose flush it kills, and where.
    pub kills: Vec<(u64, Crash)>,
    /// Each clean restart: the last index flushed before it.
    pub stops: Vec<u64>,
}

impl Shape {
    /// The shape of `workload`.
    pub fn of(workload: &Workload) -> Shape {
        let mut log = RaftLog::new();
        log.start_term(1);
        let (mut keys, mut snapshots) = (0, 0);
        let (mut kills, mut stops) = (Vec::new(), Vec::new());
        for item in &workload.items {
            match Drawn::of(item) {
                Drawn::Key => {
                    keys += 1;
                    log.append(SnapshotRequest::CreateKey {
                        key: format!("k{keys}"),
                    });
                }
                Drawn::Snapshot => {
                    snapshots += 1;
                    log.append(SnapshotRequest::CreateSnapshot {
                        snapshot: format!("s{snapshots}"),
                    });
                }
                Drawn::Kill(crash) => kills.push((log.last_index(), crash)),
                Drawn::Restart => stops.push(log.last_index()),
            }
        }
        Shape {
            log: Arc::new(log),
            kills,
            stops,
        }
    }
}

enum Source {
    Written(Shape),
    Drawn(Bounds),
}

struct Prepared {
    variant: Variant,
    source: Source,
}

/// Terminations after which the OM is restarted again: two restarts at most (a third adds
/// nothing, see the Abstractions).
const RESTARTS_AFTER_TERMINATION: usize = 2;

/// At each kill: [`CHECKPOINT_LEFT_UNCOMMITTED`] when the killed create's directory exists
/// and the stored index precedes the create.
struct Killed<'a> {
    store: &'a Store<OmRow>,
    dirs: &'a Dirs,
    reference: &'a Reference,
}

impl Watch for Killed<'_> {
    fn killed(&mut self, me: &Actor, _om: &SnapshotOm, (index, _): (u64, Crash)) {
        let name = self
            .reference
            .snapshots
            .iter()
            .find(|(_, i, _)| *i == index)
            .map(|(n, _, _)| n.as_str())
            .unwrap_or_default();
        if self.dirs.exists(name) && stored_index(&self.store.durable()) < index {
            me.probe(&CHECKPOINT_LEFT_UNCOMMITTED);
        }
    }
}

impl Case for Prepared {
    fn run(&self, recorder: &Arc<Recorder>) {
        let shape = match &self.source {
            Source::Written(shape) => shape.clone(),
            Source::Drawn(bounds) => {
                // Drawn before anything is spawned, and shown first in the trace.
                let workload = VOCABULARY.draw_shown(*bounds, &Actor::new("client", recorder));
                Shape::of(&workload)
            }
        };
        let (java, cites) = (self.variant.java(), self.variant.cites());
        let dirs = Arc::new(Dirs::new([]));
        let store = Arc::new(Store::with_state(initial(), None));
        let reference = reference(&shape.log);
        let restarts = Restarts {
            store: &store,
            dirs: &dirs,
            java,
            cites,
            log: &shape.log,
            stops: &shape.stops,
            kills: &shape.kills,
            terminations: RESTARTS_AFTER_TERMINATION,
            completed: &REPLAY_COMPLETED,
            terminated: &REPLAY_TERMINATED,
        };
        let snaps = Snapshots::new(Arc::clone(&dirs), [], &[], java, cites);
        let mut watch = Killed {
            store: &store,
            dirs: &dirs,
            reference: &reference,
        };
        let exits = restarts.run(snaps, recorder, &mut watch);
        let end = End {
            exits,
            durable: store.durable(),
            dirs: reference
                .snapshots
                .iter()
                .map(|(name, _, _)| (name.clone(), dirs.content(name)))
                .collect(),
            reference,
        };
        NO_OM_TERMINATION.check_into(&end, recorder);
        SNAPSHOT_CREATED.check_into(&end, recorder);
        SNAPSHOT_HOLDS_ITS_PREFIX.check_into(&end, recorder);
    }
}
