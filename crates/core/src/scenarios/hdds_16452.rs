//! HDDS-16452: the SCM's checkpoint download flushes in the middle of an apply.
//!
//! Java: `SCMHADBTransactionBufferImpl` ([`crate::models::scm::tx_buffer`]), `SCMStateMachine`
//! ([`crate::models::scm::state_machine`]), `InterSCMGrpcService`
//! ([`crate::models::scm::inter_scm`]), the replicated requests
//! ([`crate::models::scm::request`]) and the leader's deleted-block summary
//! ([`crate::models::scm::deleted_blocks`]).
//!
//! # Actors
//!
//! | actor | Java | does |
//! |---|---|---|
//! | `setup` | the SCM before the race | applies the leader's configuration entry (index 1, [`notifyTermIndexUpdated`](crate::citation::java::SCMStateMachine::notifyTermIndexUpdated)) and takes a snapshot ([`takeSnapshot`](crate::citation::java::SCMStateMachine::takeSnapshot)): the DB claims TX 1 and Ratis purged its log through 1, so a follower at 0 must install a checkpoint |
//! | `apply` | Ratis `StateMachineUpdater` in [`applyTransaction`](crate::citation::java::SCMStateMachine::applyTransaction) | begin; the request's buffer calls (read lock per call); `updateLatestTrxInfo(i)` (no lock); end |
//! | `download` | a gRPC thread in [`InterSCMGrpcService.download`](crate::citation::java::InterSCMGrpcService::download) | flush (variant-dependent), then the RocksDB checkpoint. In `with-leader-change` it runs on the `leader-change` thread once `notifyLeaderChanged` returned: Ratis calls that from `becomeLeader`, before `leader.start()` starts the appenders from which a follower learns of the new leader ([`RaftServerImpl.changeToLeader`](crate::citation::java::RaftServerImpl::changeToLeader)) |
//! | `leader-change` | the Ratis election thread in [`notifyLeaderChanged`](crate::citation::java::SCMStateMachine::notifyLeaderChanged) | flush (variant-dependent), then `onBecomeLeader`'s summary load |
//! | `main` | after the joins | a late download (every apply has finished), the leader's `takeSnapshot`; a follower at applied index 0 verifies the racing download's checkpoint, installs it, reloads, and re-applies the entries after its TX. In `leader-summary`: the updater applies the new leader's startup entry in Ratis's order ([`Updater::apply_startup_entry`](crate::models::scm::state_machine::Updater::apply_startup_entry): `notifyConfigurationChanged`, `checkReady` setting Ratis's ready flag, `notifyLeaderReady`, `notifyTermIndexUpdated`), then applies the client's entry |
//! | `client` | the OM's `deleteKeyBlocks` on an RPC handler ([`ScmBlockLocationProtocolServerSideTranslatorPB.send`](crate::citation::java::ScmBlockLocationProtocolServerSideTranslatorPB::send), which asks Ratis through [`checkLeader`](crate::citation::java::StorageContainerManager::checkLeader)) | started when Ratis's ready flag is set, racing the rest of the startup entry: one [`addTransactions`](crate::citation::java::SCMDeletedBlockTransactionStatusManager::addTransactions) with the leader's counters, appended to the log |
//!
//! # Plans
//!
//! | plan | log after the configuration entry | racing actors |
//! |---|---|---|
//! | `base` | `addTransactionsToDB` of txIDs 1 (2 blocks) and 2 (3 blocks) with the leader's summary (three puts) | `apply`, `download` |
//! | `container-transition` | the transition of container 1 from DELETING to CLOSED (one put) | `apply`, `download` |
//! | `with-leader-change` | the transition, then the deleted-block entry of `base` | `apply`, `leader-change` followed by `download` |
//! | `save-configuration` | the deleted-block entry of `base`; `saveConfiguration` of `ContainerBalancer` (a put, then the buffer's unguarded `flush()` inside the apply) | `apply`, `download` |
//! | `leader-summary` | two `addTransactionsToDB` of an earlier term (txID 1, 2 blocks; txID 2, 3 blocks; summaries 1/2 and 2/5), then, in `main`, this SCM's startup entry and the client's `addTransactionsToDB` of txID 3 (4 blocks) | `apply` (the two old entries), `leader-change`; then `main` (the startup entry), `client` |
//! | `generated` | a workload of [`VOCABULARY`] (at most two requests and two events by default, 520 workloads): its requests before `leader-change` in term 1, the rest in term 2 | `apply`, with `download` and/or `leader-change` as the workload says (else one monitor tick); after `leader-change`, `main` and `client` as in `leader-summary` (see "Generated workloads") |
//!
//! The size knob repeats the plan's entry (in `with-leader-change` the pair, one container
//! each; in `leader-summary` the old-term entries); `generated` ignores it (its bounds are
//! `check --requests/--faults`). `base` and `container-transition` are
//! apart rather than one log because an unbounded DFS of the two entries against a download
//! does not end within a million executions; `with-leader-change` runs them together.
//!
//! # Variants
//!
//! | variant | download | leader change | `saveConfiguration`'s flush | summary load |
//! |---|---|---|---|---|
//! | `buggy` | `flush()` | `flush()` | inside the apply, before the index | `onBecomeLeader` |
//! | `download-guarded` (the seed's fix) | `flushIfNeeded(0)` | `flush()` | before the index | `onBecomeLeader` |
//! | `fixed` | `flushIfNeeded(0)` | `flushIfNeeded(0)` | before the index | `onBecomeLeader` |
//! | `fixed-save-after-index` | `flushIfNeeded(0)` | `flushIfNeeded(0)` | after the index | `onBecomeLeader` |
//! | `fixed-load-on-ready` | `flushIfNeeded(0)` | `flushIfNeeded(0)` | after the index | `notifyLeaderReady`, after a flush |
//! | `fixed-load-before-ready` | `flushIfNeeded(0)` | `flushIfNeeded(0)` | after the index | the startup entry's `notifyConfigurationChanged`, after a flush |
//!
//! `takeSnapshot` keeps `flush()` in every variant: it runs on the apply thread between
//! applies.
//!
//! `fixed-save-after-index` stands for this change to the Java: delete the `flush()` at the
//! end of [`StatefulServiceStateManagerImpl.saveConfiguration`](crate::citation::java::StatefulServiceStateManagerImpl::saveConfiguration),
//! and have `SCMStateMachine.applyTransaction` call `transactionBuffer.flush()` for a
//! `saveConfiguration` request after `updateLatestTrxInfo(i)` and before
//! `endApplyingTransaction`. Ratis replies only after `applyTransaction` returns, so the
//! caller still reads its configuration from the DB at once (`readConfiguration` reads the
//! table), and the flush commits the configuration under its own index. `deleteConfiguration`,
//! which deletes straight from the table, would go through `removeFromBuffer` and the same
//! flush.
//!
//! `fixed-load-on-ready` adds this change: move the summary load
//! (`initDataDistributionData`) out of
//! [`onBecomeLeader`](crate::citation::java::SCMDeletedBlockTransactionStatusManager::onBecomeLeader)
//! into [`SCMStateMachine.notifyLeaderReady`](crate::citation::java::SCMStateMachine::notifyLeaderReady),
//! preceded there by `transactionBuffer.flush()`. Ratis calls `notifyLeaderReady` on the
//! updater thread when it applies the leader's startup entry: every entry of the earlier
//! terms is applied by then and nothing applies concurrently, so the unguarded flush there is
//! as safe as `takeSnapshot`'s, and the load reads the last summary of the earlier terms. But
//! Ratis calls it late: [`LeaderStateImpl.checkReady`](crate::citation::java::LeaderStateImpl::checkReady)
//! first completes the startup entry's future (`StartupLogEntry.checkStartIndex`), from
//! which on Ratis's `isLeaderReady` is true, Ratis accepts client writes, and the SCM's block
//! protocol (which asks Ratis, not `SCMContext`) accepts the OM's `deleteKeyBlocks`. A
//! submission in that gap reads the counters before the load: it replicates a stale summary,
//! and the load then overwrites its increment.
//!
//! `fixed-load-before-ready` moves the load (with its flush) into
//! [`SCMStateMachine.notifyConfigurationChanged`](crate::citation::java::SCMStateMachine::notifyConfigurationChanged)
//! for the new leader's startup entry (this SCM leads, `SCMContext.isLeaderReady` is still
//! false, the entry is of the current term). Ratis's
//! [`applyLogToStateMachine`](crate::citation::java::RaftServerImpl::applyLogToStateMachine)
//! calls it on the updater thread just before `checkReady`: every earlier entry is applied,
//! nothing applies concurrently, and Ratis refuses client writes (`LeaderNotReadyException`
//! from `checkLeaderState`) until the ready flag is set after it. Loading on the
//! `SCMContext` flag instead (load in `notifyLeaderReady` before `setLeaderReady`, and have
//! `addTransactions` refuse until `SCMContext.isLeaderReady`) would also close the gap, but
//! needs a new check on the request path.
//!
//! # Properties
//!
//! - `NoPartialTransaction`, `DurableIndexMatchesData` (at every durable write of the
//!   leader): the durable data is `apply(log[1..i])` for some i / for its own TX.
//! - `CheckpointConsistent` (at every download): the checkpoint is `apply(log[1..TX])`.
//! - `LateDownloadShipsLatest` (at quiescence): a download that starts once every apply has
//!   finished ships the whole log applied. A guarded flush that never runs would otherwise
//!   pass on safety alone. It also catches `saveConfiguration`'s state: after its inner
//!   flush nothing is pending, so a guarded download skips its flush and ships the
//!   configuration under the previous index.
//! - `ReplicasAgree` (at quiescence, on the plans with a racing download): the follower that
//!   installed the racing checkpoint re-applies every later entry without terminating and
//!   ends equal to the leader.
//! - `SummaryMatchesTable` (at quiescence, on every plan): the leader's persisted
//!   deleted-block summary counts the transactions and blocks of its deleted-block table.
//!   Every replica persists the same bytes, so `leader-summary` checks the leader only.
//! - `RestartCatchesUp` (`generated`, after a `kill`): the SCM restarted from its DB
//!   re-applies every entry after its TX without terminating and ends at `apply(log)`.
//! - Probes: `FlushDuringApply` (required: a download or leader-change flush was attempted
//!   while an apply was in flight) and `StaleSummaryLoaded` (a new leader's counters after
//!   its load differ from the summary of the last entry of the earlier terms) and
//!   `SubmitDuringStartupEntry` (the client read the counters once Ratis accepted writes and
//!   before the updater finished the startup entry: the gap of `fixed-load-on-ready`).
//!
//! # Replica harm: the container transition, not a counter
//!
//! Every replicated deleted-block write at the pinned commit puts bytes the leader computed
//! (the summary is an argument of `addTransactionsToDB`) or deletes keys, so replaying it
//! writes the same thing again: a checkpoint with data beyond its TX does not make a
//! follower's deleted-block log drift. (An earlier version of this model counted the summary
//! at apply time, a synthetic non-idempotent counter; it is gone.) The request whose second
//! apply differs is
//! [`ContainerStateManagerImpl.transitionDeletingOrDeletedToTargetState`](crate::citation::java::ContainerStateManagerImpl::transitionDeletingOrDeletedToTargetState):
//! the first apply moves the container from DELETING to CLOSED; on a CLOSED container it
//! throws `InvalidContainerStateException`, which is not an `SCMException`, so
//! `applyTransaction` terminates the SCM. When a flush lands between its put and
//! `updateLatestTrxInfo(i)`, the checkpoint holds the CLOSED container under TX i-1; the
//! follower reloads the container map from it, re-applies i and terminates, and since its DB
//! still claims i-1 it does so again on every restart. That is what `ReplicasAgree` reports.
//!
//! # What the model shows
//!
//! `buggy` breaks on `base` as the seed says: a download flush between the puts of
//! `addTransactionsToDB` commits txID 1 without txID 2 and the summary, half a transaction,
//! data beyond its TX, shipped in the checkpoint. The follower re-applies the entry and
//! overwrites it: no replica harm (the earlier model's `ReplicasAgree` break on `base` came
//! from its synthetic counter). On `container-transition` a download flush between the put
//! and `updateLatestTrxInfo(2)` ships the CLOSED container under TX 1, and the follower
//! terminates on the replay. `download-guarded` holds on both; on `with-leader-change` the
//! leader-change flush commits mid-apply while the download defers and then serves that
//! state, so it breaks all four.
//!
//! `save-configuration` breaks `download-guarded` and `fixed` in every execution:
//! `saveConfiguration` commits its configuration under the previous index by itself, with no
//! race, and resets the pending count, so the guarded download (and the late one) skips its
//! flush and ships that state. `buggy` breaks there too, but its unguarded late download
//! commits the index and ships the latest state. `fixed-save-after-index` holds.
//!
//! `leader-summary` breaks every variant that loads in `onBecomeLeader`, `buggy` included:
//! the load reads the DB before the old entries are applied (or flushed), the leader's next
//! `addTransactionsToDB` carries a stale summary, and every replica persists it. With the
//! guarded leader-change flush of `fixed` the load is stale in more interleavings (a flush
//! deferred while an entry applies leaves even older data). `fixed-load-on-ready` breaks too,
//! with one preemption: Ratis's ready flag is set, the client's `addTransactions` reads the
//! counters the SCM built over TX 0 (no summary row: zero) and submits summary 1/4, then
//! `notifyLeaderReady` flushes and loads 2/5; the table ends with 3 transactions, 9 blocks.
//! `fixed-load-before-ready` holds (every engine; the stateful engine exhausts it) with the
//! client racing the startup entry (`SubmitDuringStartupEntry`).
//!
//! # Generated workloads (`generated`)
//!
//! [`VOCABULARY`]'s requests are the ones the modelled SCM path applies, each the next of its
//! kind (txID, container, certificate serial, configuration value): no universes, so two
//! workloads differ only in their words and order.
//!
//! | word | Java | what its apply writes |
//! |---|---|---|
//! | `add-txns` | [`SCMDeletedBlockTransactionStatusManager.addTransactions`](crate::citation::java::SCMDeletedBlockTransactionStatusManager::addTransactions) on the leader, applied as [`DeletedBlockLogStateManagerImpl.addTransactionsToDB`](crate::citation::java::DeletedBlockLogStateManagerImpl::addTransactionsToDB) | the transaction and the leader's summary: two `addToBuffer` calls. In term 1 the summary counts right (an earlier leader's); in term 2 it is this SCM's counters, read when it submits |
//! | `transition` | [`ContainerStateManagerImpl.transitionDeletingOrDeletedToTargetState`](crate::citation::java::ContainerStateManagerImpl::transitionDeletingOrDeletedToTargetState) | the next DELETING container as CLOSED: one `addToBuffer`; a replay throws and terminates the SCM |
//! | `save-config` | [`StatefulServiceStateManagerImpl.saveConfiguration`](crate::citation::java::StatefulServiceStateManagerImpl::saveConfiguration) | one `addToBuffer`, then the buffer's `flush()` (inside the apply in the Java, after the index in the `fixed-save-after-index` family) |
//! | `store-cert` | [`SCMCertStore.storeValidCertificate`](crate::citation::java::SCMCertStore::storeValidCertificate) of a datanode certificate | `getValidCertsTable().put(serial, cert)` (`SCMCertStore.java:72`): straight into RocksDB, durable at once, no `TransactionInfo`, nothing pending in the buffer |
//!
//! Its events: `download` ([`InterSCMGrpcService.download`](crate::citation::java::InterSCMGrpcService::download)
//! racing the applies, first in the workload, or right after `leader-change`, where it runs
//! on the `leader-change` thread as in `with-leader-change`; a follower installs the
//! checkpoint and catches up); `leader-change` (the requests before it are term 1's, applied
//! by `apply` while `notifyLeaderChanged` flushes and loads on the `leader-change` thread;
//! then `main` applies the startup entry in Ratis's order, `notifyConfigurationChanged`,
//! `checkReady` setting Ratis's ready flag, `notifyLeaderReady`, `notifyTermIndexUpdated`,
//! with the first request of term 2 submitted by `client` from the ready flag on, and the
//! rest of term 2 after it); `snapshot` ([`takeSnapshot`](crate::citation::java::SCMStateMachine::takeSnapshot)
//! on the updater after the request before it); `kill` (after the last apply, with no late
//! download and no final snapshot: the SCM restarts from its DB, `init` reads its TX, and
//! the entries after it are applied again, `RestartCatchesUp`). Each event at most once;
//! nothing after `kill`. A workload with neither `download` nor `leader-change` races one
//! tick of the buffer's monitor task.
//!
//! Verdicts (`check`'s plan budget, random 10,000 and PCT 20,000 executions; each expected
//! invariant watched alone over seeds 0..20: worst and median executions to it):
//!
//! | variant | breaks | random | PCT | stateful |
//! |---|---|---|---|---|
//! | `buggy` | `NoPartialTransaction`, `DurableIndexMatchesData`, `CheckpointConsistent`, `ReplicasAgree`, `SummaryMatchesTable`, `RestartCatchesUp` | 2,798 (473, `RestartCatchesUp`) | 2,349 (555, `RestartCatchesUp`) | each, at most at 3,057 |
//! | `download-guarded` | all seven | 4,708 (1,819, `ReplicasAgree`) | 8,326 (798, `RestartCatchesUp`) | each, at most at 3,045 |
//! | `fixed`, `fixed-save-after-index`, `fixed-load-on-ready` | `NoPartialTransaction`, `DurableIndexMatchesData`, `CheckpointConsistent`, `LateDownloadShipsLatest`, `SummaryMatchesTable` | 1,152 (102, `SummaryMatchesTable`) | 1,437 (242, `SummaryMatchesTable`) | each, at most at 4,335 |
//! | `fixed-load-before-ready` | `NoPartialTransaction`, `DurableIndexMatchesData`, `CheckpointConsistent`, `LateDownloadShipsLatest` | 44 (9) | 67 (19) | each, at most at 130 |
//!
//! The certificate write breaks every variant, `fixed-save-after-index` and
//! `fixed-load-before-ready` included, and in the first executions (PCT's first
//! counterexample on every variant shrinks to the workload `store-cert` alone):
//! `storeValidCertificate` commits entry i's certificate while the DB claims TX i-1
//! (`DurableIndexMatchesData`), and, after an `add-txns` whose puts are still staged, a DB
//! that holds entry i's certificate without entry i-1's transaction
//! (`NoPartialTransaction`, workload `add-txns store-cert`). A guarded download finds
//! nothing pending afterwards and ships that state (`CheckpointConsistent`,
//! `LateDownloadShipsLatest`), as after the Java's `saveConfiguration`. Moving
//! `saveConfiguration`'s flush after the index does nothing for it: the certificate store
//! writes RocksDB itself, not through the buffer. No harm follows: the replay of
//! `storeValidCertificate` puts the same row, so a follower that installs such a checkpoint
//! and an SCM restarted after a kill both catch up (`ReplicasAgree`, `RestartCatchesUp` hold
//! for the fixes). With `store-cert` taken out of the vocabulary (a local change, measured
//! once, not a test), `fixed-save-after-index` and `fixed-load-before-ready` hold the first
//! three over 100,000 random and 100,000 PCT executions; `LateDownloadShipsLatest` still breaks on the workload `leader-change`
//! alone: the startup entry moves `latestTrxInfo` and stages nothing, so `flushIfNeeded(0)`
//! finds nothing pending and the late checkpoint claims the entry before it, with the same
//! data (the follower applies the configuration entry again; no harm).
//!
//! The other breaks are the written plans' in smaller workloads: `download transition` for
//! `buggy`'s `ReplicasAgree` (`container-transition`); `transition leader-change kill` for
//! `RestartCatchesUp` on `buggy` and `download-guarded` (the unguarded leader-change flush
//! commits the CLOSED container under TX 1, the SCM is killed before anything flushes again,
//! and its restart re-applies the transition and terminates, on every restart);
//! `add-txns leader-change add-txns` for `SummaryMatchesTable` on every variant that loads
//! in `onBecomeLeader` or `notifyLeaderReady` (`leader-summary`).
//!
//! # Abstractions
//!
//! | abstraction | why no verdict depends on it |
//! |---|---|
//! | `latestTrxInfo` is a volatile cell, not a plain field | it can only remove behaviours; a stale read would stage an older TX, the same violation class |
//! | the batch and its pending count inside the read-write lock, a staging taking it for writing | only the apply thread stages (every buffer call is an apply's), so a staging excludes a flush exactly as the Java's read lock does and never meets another staging |
//! | `latestSnapshot`, its second read in `flushUnderWriteLock`, [`onFlush`](crate::citation::java::DeletedBlockLogImpl::onFlush) | no plan or invariant reads them |
//! | no clock: `flushIfNeeded(0)` takes `timeDiff > 0` as true | a call within the same millisecond as the last flush skips, which leaves the DB at a state it already held and the invariants already checked, so no always-property changes. `LateDownloadShipsLatest` assumes the late download comes at least a millisecond after the last flush |
//! | no monitor task (`flushIfNeeded(60 s)`) that flushes; `generated` runs one tick that finds the interval not elapsed | guarded, on a ready leader only: a flush of it would come between applies and commit a consistent state. The tick only takes the lock, so that a workload with neither a download nor a leader change still races something |
//! | the follower commits each re-applied entry with its index | the same final state as Ratis applies followed by later flushes; the follower's refusal, install and termination are modelled |
//! | only the container states of `ContainerStateManagerImpl`'s maps | the transition reads only the state; the other fields never change in the plans |
//! | no `removeTransactionsFromDB`, `deleteConfiguration` | replaying either writes the same bytes or deletes again; `deleteConfiguration` (a direct delete at apply) puts data beyond TX like `saveConfiguration`, without a flush |
//! | no logical rejection (a non-fatal `SCMException` at apply) | no modelled request raises one |
//! | `updateLatestTrxInfo`'s throw is modelled but never reached | every plan's indices only increase; `takeSnapshot`'s catch-up is modelled but a no-op (`latestTrxInfo` equals the applied index at every snapshot of the plans) |
//! | one SCM's leader change, not an election | `notifyLeaderChanged` is what the new leader runs; Ratis calls it before it appends its startup entry, which is why `leader-summary` applies that entry in `main` after the joins |
//! | one client, started when Ratis's ready flag is set | a later client only drops interleavings; a client before the flag is refused by Ratis (`LeaderNotReadyException`) and by `checkLeader` |
//! | the setup's configuration entry runs `notifyTermIndexUpdated` only | the setup SCM's readiness plays no part in any plan |
//! | the summary's two sizes | they move with the counts |
//! | the checkpoint's memtable flush and TX read | neither changes the content |
//!
//! A follower flushes only where the apply thread flushes: at `takeSnapshot` (Ratis triggers
//! it every `ozone.scm.ha.ratis.snapshot.threshold` entries, a thousand by default) and
//! inside a `saveConfiguration` apply; the monitor's `flushIfNeeded` runs on a ready leader
//! only (`BackgroundSCMService` runs while `SCMContext.isLeaderReady`). So the stale window
//! of `leader-summary` on a real follower reaches back to its last snapshot or
//! `saveConfiguration`, up to a thousand entries: the plan's two entries are its smallest
//! case.

use crate::choices;
use crate::citation::java;
use crate::engine::Budget;
use crate::kit::raft_log::{LogEntry, RaftLog};
use crate::kit::store::durable_observer;
use crate::kit::store::{Checkpoint, Store, Tables};
use crate::kit::tx_info::{stored_index, TxRow};
use crate::models::scm::deleted_blocks::DeletedBlockStatus;
use crate::models::scm::inter_scm::download;
use crate::models::scm::request::ScmRequest;
use crate::models::scm::state_machine::replay_after;
use crate::models::scm::state_machine::{
    install_and_catch_up, notify_leader_changed, reference_states, ApplyOutcome, Install,
    SaveFlush, SummaryLoad, Updater,
};
use crate::models::scm::tx_buffer::{
    FlushPath, TransactionBuffer, FLUSH_DURING_APPLY, STAGED_FLUSHED_MID_APPLY,
};
use crate::models::scm::{initial_tables, stored_summary, table_summary, ScmRow, Summary};
use crate::properties::{Invariant, Probe, Property};
use crate::recorder::{Actor, Recorder};
use crate::scenario::{Case, Expected, Scenario, SizeKnob};
use crate::sync::ghost::Ghost;
use crate::sync::{thread, Arc};
use crate::workload::{Bounds, Item, Kind, Vocabulary, Word, Workload};

/// The scenario.
#[derive(Debug, Clone, Copy)]
pub struct Hdds16452;

choices! {
    /// Which flush paths are guarded, where saveConfiguration flushes, where the summary loads.
    pub enum Variant {
        /// the Java today: download and leader change call the unguarded flush()
        Buggy = "buggy",
        /// the seed's fix: download calls flushIfNeeded(0); leader change still calls flush()
        DownloadGuarded = "download-guarded",
        /// download and leader change both call flushIfNeeded(0)
        Fixed = "fixed",
        /// fixed, and saveConfiguration's flush moves after updateLatestTrxInfo(i)
        FixedSaveAfterIndex = "fixed-save-after-index",
        /// fixed-save-after-index, and the new leader loads its summary in notifyLeaderReady after a flush
        FixedLoadOnReady = "fixed-load-on-ready",
        /// fixed-save-after-index, and the new leader loads its summary after a flush on its startup entry, before Ratis is ready
        FixedLoadBeforeReady = "fixed-load-before-ready",
    }
}

choices! {
    /// Which log and which actors.
    pub enum Plan {
        /// apply thread and checkpoint download over a deleted-block entry; a follower installs the checkpoint and catches up
        Base = "base",
        /// as base, over a container transition, the one request whose replay throws
        ContainerTransition = "container-transition",
        /// the transition and the deleted-block entry, raced by a download and the leader-change flush of notifyLeaderChanged
        WithLeaderChange = "with-leader-change",
        /// the last entry is saveConfiguration, which flushes inside its apply, raced by a download
        SaveConfiguration = "save-configuration",
        /// old-term entries apply while this SCM becomes leader and loads its deleted-block summary
        LeaderSummary = "leader-summary",
        /// every workload of the vocabulary within the bounds: deleted-block adds, container transitions, saveConfiguration, certificate writes; a download, a leader change, a snapshot, a kill
        Generated = "generated",
    }
}

/// What a variant changes.
#[derive(Clone, Copy, Debug)]
struct Paths {
    download: FlushPath,
    leader_change: FlushPath,
    save: SaveFlush,
    load: SummaryLoad,
}

impl Variant {
    fn paths(self) -> Paths {
        use FlushPath::{Guarded, Unguarded};
        let (download, leader_change) = match self {
            Variant::Buggy => (Unguarded, Unguarded),
            Variant::DownloadGuarded => (Guarded, Unguarded),
            Variant::Fixed
            | Variant::FixedSaveAfterIndex
            | Variant::FixedLoadOnReady
            | Variant::FixedLoadBeforeReady => (Guarded, Guarded),
        };
        let save = match self {
            Variant::FixedSaveAfterIndex
            | Variant::FixedLoadOnReady
            | Variant::FixedLoadBeforeReady => SaveFlush::AfterIndex,
            _ => SaveFlush::Java,
        };
        let load = match self {
            Variant::FixedLoadOnReady => SummaryLoad::OnLeaderReady,
            Variant::FixedLoadBeforeReady => SummaryLoad::BeforeReady,
            _ => SummaryLoad::OnBecomeLeader,
        };
        Paths {
            download,
            leader_change,
            save,
            load,
        }
    }
}

/// `apply(log[1..i])` for every index i, with TX = i; `leader-summary` extends it when its
/// leader appends entries.
pub type Reference = Arc<Vec<Tables<ScmRow>>>;

/// One durable write on the leader, as its store's observer sees it.
pub struct DurableStep {
    /// The durable state after the write.
    pub after: Tables<ScmRow>,
    /// The reference states of the log so far.
    pub reference: Reference,
}

/// A checkpoint as a download took it.
pub struct CheckpointTaken {
    /// The checkpoint.
    pub checkpoint: Checkpoint<ScmRow>,
    /// The reference states of the log so far.
    pub reference: Reference,
}

/// The replicas at the end.
pub struct Replicas {
    /// The leader, after its `takeSnapshot` flush.
    pub leader: Tables<ScmRow>,
    /// The follower, after its install and catch-up.
    pub follower: Tables<ScmRow>,
    /// How the follower's install ended.
    pub install: Install,
}

fn matches_reference(
    what: &str,
    state: &Tables<ScmRow>,
    reference: &[Tables<ScmRow>],
) -> Result<(), String> {
    let tx = stored_index(state);
    let Some(expected) = usize::try_from(tx).ok().and_then(|i| reference.get(i)) else {
        return Err(format!("{what} claims TX {tx}, beyond the log"));
    };
    match state.first_difference_except(expected, ScmRow::TABLE) {
        None => Ok(()),
        Some(first) => Err(format!(
            "{what} claims TX {tx} but differs from apply(log[1..{tx}]): {first} ({what} vs log)"
        )),
    }
}

/// The leader's durable data is never part of a transaction.
pub const NO_PARTIAL_TRANSACTION: Invariant<DurableStep> = Invariant::always(
    "NoPartialTransaction",
    "the leader's durable data is always apply(log[1..i]) for some i, never part of a transaction",
    "A flush in the middle of an apply commits part of a Ratis entry to the leader's RocksDB under the previous TransactionInfo, and a checkpoint taken then ships half a transaction. On its own harmless for the deleted-block writes: the replay re-applies the whole entry and writes the same bytes.",
    |s| {
        if s
            .reference
            .iter()
            .any(|r| r.same_except(&s.after, ScmRow::TABLE))
        {
            return Ok(());
        }
        let data = s.after.without(ScmRow::TABLE);
        Err(format!(
            "durable data {data} is no apply(log[1..i]): part of a transaction"
        ))
    },
);

/// The leader's durable index matches its data.
pub const DURABLE_INDEX_MATCHES_DATA: Invariant<DurableStep> = Invariant::always(
    "DurableIndexMatchesData",
    "every durable state of the leader equals apply(log[1..TX]) for its own TX",
    "The leader's DB holds writes of an entry above its TransactionInfo index, so a restart or a follower installing its checkpoint re-applies that entry. Harmless for idempotent puts (deleted-block entries, saveConfiguration: a one-entry lag, a certificate); a container transition re-applied this way terminates the SCM: the follower that installed the checkpoint (ReplicasAgree) or the leader itself after a kill (RestartCatchesUp).",
    |s| matches_reference("DB", &s.after, &s.reference),
);

/// A checkpoint matches its index.
pub const CHECKPOINT_CONSISTENT: Invariant<CheckpointTaken> = Invariant::always(
    "CheckpointConsistent",
    "the checkpoint equals apply(log[1..TX]) for its own TX",
    "The checkpoint a follower downloads holds data beyond the TransactionInfo it carries, so the follower re-applies those entries after installing it. Harmless for idempotent puts; a re-applied container transition terminates the follower (ReplicasAgree).",
    |c| matches_reference("checkpoint", &c.checkpoint, &c.reference),
);

/// A download after every apply ships everything.
pub const LATE_DOWNLOAD_SHIPS_LATEST: Invariant<CheckpointTaken> = Invariant::eventually(
    "LateDownloadShipsLatest",
    "a checkpoint downloaded once every apply has finished holds the whole log applied",
    "A checkpoint downloaded after every apply has finished still claims an earlier index: after saveConfiguration's own flush nothing is pending, so the guarded download skips its flush and ships the configuration under the previous TransactionInfo. Harmless on its own: the installing follower re-applies the same put (a one-entry lag).",
    |c| {
        let last = c.reference.len().saturating_sub(1);
        match c.checkpoint.diff(&c.reference[last]).first() {
            None => Ok(()),
            Some(first) => Err(format!(
                "late checkpoint differs from apply(log[1..{last}]): {first} (checkpoint vs log)"
            )),
        }
    },
);

/// The follower catches up and agrees with the leader.
pub const REPLICAS_AGREE: Invariant<Replicas> = Invariant::eventually(
    "ReplicasAgree",
    "the follower that installed the checkpoint re-applies every later entry without terminating and equals the leader",
    "The follower that installed a mid-apply checkpoint re-applies a container transition on a container already CLOSED, InvalidContainerStateException terminates the SCM, and its DB still claims the previous index, so every restart terminates again: a crash loop.",
    |r| match &r.install {
        Install::Refused { checkpoint, applied } => Err(format!(
            "the follower refused the checkpoint: TX {checkpoint} is not above its applied index {applied}"
        )),
        Install::Terminated { index, reason } => Err(format!(
            "the follower terminated re-applying index {index} ({reason}); its DB still claims TX {}, so every restart replays {index} and terminates again",
            stored_index(&r.follower)
        )),
        Install::CaughtUp(_) => match r.follower.diff(&r.leader).first() {
            None => Ok(()),
            Some(first) => Err(format!("follower vs leader: {first}")),
        },
    },
);

/// The leader's persisted summary counts its deleted-block table.
pub const SUMMARY_MATCHES_TABLE: Invariant<Tables<ScmRow>> = Invariant::eventually(
    "SummaryMatchesTable",
    "the leader's persisted deleted-block summary counts the transactions and blocks of its deleted-block table",
    "A new leader replicates a stale deleted-block summary: every SCM persists transaction and block counts that differ from its deleted-block table, and reports them (getDeletedBlockSummary, the block-deleting metrics). Later updates add to the wrong base; no deleted-block transaction is lost.",
    |t| {
        let table = table_summary(t);
        let stored = stored_summary(t).unwrap_or_default();
        if stored == table {
            Ok(())
        } else {
            Err(format!(
                "persisted {stored} but the deleted-block table holds {} txns, {} blocks",
                table.tx_count, table.blocks
            ))
        }
    },
);

/// The new leader loaded a summary older than the earlier terms' last one.
pub const STALE_SUMMARY_LOADED: Probe = Probe::new(
    "StaleSummaryLoaded",
    "a new leader's counters after its summary load differ from the summary of the last entry of the earlier terms",
);

/// A client's submission read the new leader's counters after Ratis's ready flag was set and
/// before the updater finished the startup entry.
pub const SUBMIT_DURING_STARTUP_ENTRY: Probe = Probe::new(
    "SubmitDuringStartupEntry",
    "a deleted-block submission read the new leader's counters once Ratis accepted writes and before the updater finished the startup entry (notifyLeaderReady, notifyTermIndexUpdated)",
);

const DURABLE: &[Invariant<DurableStep>] = &[NO_PARTIAL_TRANSACTION, DURABLE_INDEX_MATCHES_DATA];

impl Scenario for Hdds16452 {
    type Variant = Variant;
    type Plan = Plan;
    const NAME: &'static str = "hdds-16452";
    const JIRA: &'static str = "HDDS-16452";
    const TITLE: &'static str =
        "SCM checkpoint download and saveConfiguration flush mid-apply; a follower re-applies the entry";
    const PROPERTIES: &'static [Property] = &[
        NO_PARTIAL_TRANSACTION.property(),
        DURABLE_INDEX_MATCHES_DATA.property(),
        CHECKPOINT_CONSISTENT.property(),
        LATE_DOWNLOAD_SHIPS_LATEST.property(),
        REPLICAS_AGREE.property(),
        SUMMARY_MATCHES_TABLE.property(),
        FLUSH_DURING_APPLY.required(),
        STAGED_FLUSHED_MID_APPLY.property(),
        STALE_SUMMARY_LOADED.property(),
        SUBMIT_DURING_STARTUP_ENTRY.property(),
        RESTART_CATCHES_UP.property(),
    ];
    const SIZE: Option<SizeKnob> = Some(SizeKnob {
        counts: "deleted-block entries in the log",
        default: 1,
    });
    const VOCABULARY: Option<Vocabulary> = Some(VOCABULARY);
    // Each expected invariant watched alone over seeds 0..20 on `generated`: PCT needs up
    // to 8,326 executions (`download-guarded`'s `RestartCatchesUp`, median 798), random up
    // to 4,708 (`download-guarded`'s `ReplicasAgree`, median 1,819).
    fn plan_executions(plan: Plan) -> Budget {
        match plan {
            Plan::Generated => Budget {
                random: 10_000,
                pct: 20_000,
                ..Budget::CHECK
            },
            _ => Self::EXECUTIONS,
        }
    }

    fn expected(variant: Variant, plan: Plan) -> Expected {
        const ALL: &[Property] = &[
            NO_PARTIAL_TRANSACTION.property(),
            DURABLE_INDEX_MATCHES_DATA.property(),
            CHECKPOINT_CONSISTENT.property(),
            REPLICAS_AGREE.property(),
        ];
        const HALF: &[Property] = &[
            NO_PARTIAL_TRANSACTION.property(),
            DURABLE_INDEX_MATCHES_DATA.property(),
            CHECKPOINT_CONSISTENT.property(),
        ];
        const REPLAY: &[Property] = &[
            DURABLE_INDEX_MATCHES_DATA.property(),
            CHECKPOINT_CONSISTENT.property(),
            REPLICAS_AGREE.property(),
        ];
        const SAVE_UNGUARDED: &[Property] = &[
            NO_PARTIAL_TRANSACTION.property(),
            DURABLE_INDEX_MATCHES_DATA.property(),
            CHECKPOINT_CONSISTENT.property(),
        ];
        const SAVE_GUARDED: &[Property] = &[
            DURABLE_INDEX_MATCHES_DATA.property(),
            CHECKPOINT_CONSISTENT.property(),
            LATE_DOWNLOAD_SHIPS_LATEST.property(),
        ];
        const SUMMARY_UNGUARDED: &[Property] = &[
            NO_PARTIAL_TRANSACTION.property(),
            DURABLE_INDEX_MATCHES_DATA.property(),
            SUMMARY_MATCHES_TABLE.property(),
        ];
        const SUMMARY: &[Property] = &[SUMMARY_MATCHES_TABLE.property()];
        const GENERATED_UNGUARDED: &[Property] = &[
            NO_PARTIAL_TRANSACTION.property(),
            DURABLE_INDEX_MATCHES_DATA.property(),
            CHECKPOINT_CONSISTENT.property(),
            REPLICAS_AGREE.property(),
            SUMMARY_MATCHES_TABLE.property(),
            RESTART_CATCHES_UP.property(),
        ];
        const GENERATED_LEADER_CHANGE: &[Property] = &[
            NO_PARTIAL_TRANSACTION.property(),
            DURABLE_INDEX_MATCHES_DATA.property(),
            CHECKPOINT_CONSISTENT.property(),
            LATE_DOWNLOAD_SHIPS_LATEST.property(),
            REPLICAS_AGREE.property(),
            SUMMARY_MATCHES_TABLE.property(),
            RESTART_CATCHES_UP.property(),
        ];
        const GENERATED_GUARDED: &[Property] = &[
            NO_PARTIAL_TRANSACTION.property(),
            DURABLE_INDEX_MATCHES_DATA.property(),
            CHECKPOINT_CONSISTENT.property(),
            LATE_DOWNLOAD_SHIPS_LATEST.property(),
            SUMMARY_MATCHES_TABLE.property(),
        ];
        const GENERATED_DIRECT: &[Property] = &[
            NO_PARTIAL_TRANSACTION.property(),
            DURABLE_INDEX_MATCHES_DATA.property(),
            CHECKPOINT_CONSISTENT.property(),
            LATE_DOWNLOAD_SHIPS_LATEST.property(),
        ];
        use Plan::{
            Base, ContainerTransition, Generated, LeaderSummary, SaveConfiguration,
            WithLeaderChange,
        };
        use Variant::{
            Buggy, DownloadGuarded, Fixed, FixedLoadBeforeReady, FixedLoadOnReady,
            FixedSaveAfterIndex,
        };
        match (variant, plan) {
            // The replay of a deleted-block entry writes the same bytes: no replica harm.
            (Buggy, Base) => Expected::Violates(HALF),
            (Buggy, ContainerTransition) => Expected::Violates(REPLAY),
            (Buggy | DownloadGuarded, WithLeaderChange) => Expected::Violates(ALL),
            (
                DownloadGuarded | Fixed | FixedSaveAfterIndex | FixedLoadOnReady
                | FixedLoadBeforeReady,
                Base | ContainerTransition,
            )
            | (
                Fixed | FixedSaveAfterIndex | FixedLoadOnReady | FixedLoadBeforeReady,
                WithLeaderChange,
            ) => Expected::Holds,
            (Buggy, SaveConfiguration) => Expected::Violates(SAVE_UNGUARDED),
            (DownloadGuarded | Fixed, SaveConfiguration) => Expected::Violates(SAVE_GUARDED),
            (FixedSaveAfterIndex | FixedLoadOnReady | FixedLoadBeforeReady, SaveConfiguration) => {
                Expected::Holds
            }
            (Buggy | DownloadGuarded, LeaderSummary) => Expected::Violates(SUMMARY_UNGUARDED),
            // fixed-load-on-ready: a client submits between Ratis's ready flag and the load.
            (Fixed | FixedSaveAfterIndex | FixedLoadOnReady, LeaderSummary) => {
                Expected::Violates(SUMMARY)
            }
            (FixedLoadBeforeReady, LeaderSummary) => Expected::Holds,
            // Generated: a certificate write commits under the previous index in every
            // variant (module docs, "Generated workloads").
            (Buggy, Generated) => Expected::Violates(GENERATED_UNGUARDED),
            (DownloadGuarded, Generated) => Expected::Violates(GENERATED_LEADER_CHANGE),
            (Fixed | FixedSaveAfterIndex | FixedLoadOnReady, Generated) => {
                Expected::Violates(GENERATED_GUARDED)
            }
            (FixedLoadBeforeReady, Generated) => Expected::Violates(GENERATED_DIRECT),
        }
    }

    fn prepare(&self, variant: Variant, plan: Plan, size: usize) -> Box<dyn Case> {
        if plan == Plan::Generated {
            return Box::new(GeneratedCase {
                paths: variant.paths(),
                bounds: VOCABULARY.bounds,
            });
        }
        let size = size as u64;
        let containers = match plan {
            Plan::ContainerTransition | Plan::WithLeaderChange => size,
            Plan::Base | Plan::SaveConfiguration | Plan::LeaderSummary | Plan::Generated => 0,
        };
        let initial = initial_tables(containers);
        let log = plan_log(plan, size);
        Box::new(Prepared {
            paths: variant.paths(),
            plan,
            size,
            reference: Arc::new(reference_states(&log, initial.clone())),
            log,
            initial,
        })
    }

    fn prepare_generated(
        &self,
        variant: Variant,
        bounds: Bounds,
        _size: usize,
    ) -> Option<Box<dyn Case>> {
        Some(Box::new(GeneratedCase {
            paths: variant.paths(),
            bounds,
        }))
    }
}

/// The deleted-block entry `n` (from 1): txIDs 2n-1 (2 blocks) and 2n (3 blocks), with the
/// summary of every entry up to it.
fn deleted_blocks_entry(n: u64) -> ScmRequest {
    ScmRequest::AddTransactionsToDb {
        txns: vec![(2 * n - 1, 2), (2 * n, 3)],
        summary: Some(Summary {
            tx_count: 2 * n,
            blocks: 5 * n,
        }),
    }
}

/// The old-term entries of `leader-summary`: entry k (from 1) adds txID k with k+1 blocks.
fn old_term_entry(k: u64) -> ScmRequest {
    ScmRequest::AddTransactionsToDb {
        txns: vec![(k, k + 1)],
        summary: Some(old_term_summary(k)),
    }
}

fn old_term_summary(k: u64) -> Summary {
    Summary {
        tx_count: k,
        blocks: (1..=k).map(|j| j + 1).sum(),
    }
}

/// The committed log of `plan` at `size`, as it stands when the actors start: the leader's
/// configuration entry (index 1), then the plan's entries.
pub fn plan_log(plan: Plan, size: u64) -> RaftLog<ScmRequest> {
    let mut log = RaftLog::new();
    log.start_term(1);
    match plan {
        Plan::Base => {
            for n in 1..=size {
                log.append(deleted_blocks_entry(n));
            }
        }
        Plan::ContainerTransition => {
            for n in 1..=size {
                log.append(ScmRequest::TransitionToClosed { container: n });
            }
        }
        Plan::WithLeaderChange => {
            for n in 1..=size {
                log.append(ScmRequest::TransitionToClosed { container: n });
                log.append(deleted_blocks_entry(n));
            }
        }
        Plan::SaveConfiguration => {
            for n in 1..=size {
                log.append(deleted_blocks_entry(n));
            }
            log.append(ScmRequest::SaveConfiguration {
                service: "ContainerBalancer",
                value: 1,
            });
        }
        Plan::LeaderSummary => {
            for k in 1..=size + 1 {
                log.append(old_term_entry(k));
            }
        }
        // Each execution draws its own entries.
        Plan::Generated => {}
    }
    log
}

/// A checkpoint download, checked against the log so far.
fn checked_download(
    buffer: &TransactionBuffer,
    reference: &Ghost<Reference>,
    me: &Actor,
    path: FlushPath,
) -> CheckpointTaken {
    let taken = CheckpointTaken {
        checkpoint: download(buffer, me, path),
        reference: reference.get(),
    };
    CHECKPOINT_CONSISTENT.check_into(&taken, me.recorder());
    taken
}

/// A follower's download on its own thread, racing the applies.
fn spawn_racing_download(
    buffer: &Arc<TransactionBuffer>,
    reference: &Arc<Ghost<Reference>>,
    recorder: &Arc<Recorder>,
    path: FlushPath,
) -> thread::JoinHandle<Checkpoint<ScmRow>> {
    let (buffer, reference, me) = (
        Arc::clone(buffer),
        Arc::clone(reference),
        Actor::new("download", recorder),
    );
    thread::spawn("download", move || {
        racing_download(&buffer, &reference, &me, path)
    })
}

/// A download racing the applies: the checkpoint, checked against the log so far.
fn racing_download(
    buffer: &TransactionBuffer,
    reference: &Ghost<Reference>,
    me: &Actor,
    path: FlushPath,
) -> Checkpoint<ScmRow> {
    checked_download(buffer, reference, me, path).checkpoint
}

/// The leader's store (each durable state checked against the log so far, `reference`), its
/// transaction buffer and its deleted-block status, from `initial`.
fn leader_store(
    initial: &Tables<ScmRow>,
    reference: &Arc<Ghost<Reference>>,
    recorder: &Arc<Recorder>,
) -> (
    Arc<Store<ScmRow>>,
    Arc<TransactionBuffer>,
    Arc<DeletedBlockStatus>,
) {
    let store = Arc::new(Store::with_state(
        initial.clone(),
        Some(durable_observer(recorder, DURABLE, {
            let reference = Arc::clone(reference);
            move |_before, after| DurableStep {
                after: after.clone(),
                reference: reference.get(),
            }
        })),
    ));
    let buffer = Arc::new(TransactionBuffer::new(Arc::clone(&store), 0, 0));
    let status = Arc::new(DeletedBlockStatus::new(initial));
    (store, buffer, status)
}

/// The leader's configuration entry, then a snapshot: the DB claims TX 1. The updater and
/// the entries left to apply.
fn set_up(
    buffer: &TransactionBuffer,
    recorder: &Arc<Recorder>,
    initial: &Tables<ScmRow>,
    log: &RaftLog<ScmRequest>,
    save: SaveFlush,
) -> (Updater, Vec<LogEntry<ScmRequest>>) {
    let setup = Actor::new("setup", recorder);
    let mut updater = Updater::new(initial.clone());
    let entries: Vec<LogEntry<ScmRequest>> = log.after(0).cloned().collect();
    assert_eq!(
        updater.apply(buffer, &setup, &entries[0], save),
        ApplyOutcome::Applied
    );
    updater.take_snapshot(buffer, &setup);
    (updater, entries[1..].to_vec())
}

/// This SCM becomes leader while the applies run: `notifyLeaderChanged` (its flush, and
/// `onBecomeLeader`'s summary load), the probe of a stale load where `counted` is the summary
/// an up-to-date load gives, and with `download` a follower that then asks this leader for a
/// checkpoint (it learns of the leader once its appenders run: `changeToLeader`).
fn spawn_leader_change(
    buffer: &Arc<TransactionBuffer>,
    status: &Arc<DeletedBlockStatus>,
    reference: &Arc<Ghost<Reference>>,
    recorder: &Arc<Recorder>,
    paths: Paths,
    counted: Option<Summary>,
    download: bool,
) -> thread::JoinHandle<Option<Checkpoint<ScmRow>>> {
    let (buffer, status, reference, me, grpc) = (
        Arc::clone(buffer),
        Arc::clone(status),
        Arc::clone(reference),
        Actor::new("leader-change", recorder),
        Actor::new("download", recorder),
    );
    thread::spawn("leader-change", move || {
        notify_leader_changed(&buffer, &me, paths.leader_change, &status, paths.load);
        if paths.load == SummaryLoad::OnBecomeLeader
            && counted.is_some_and(|counted| status.summary() != counted)
        {
            me.probe(&STALE_SUMMARY_LOADED);
        }
        download.then(|| {
            grpc.step(
                &java::RaftServerImpl::changeToLeader,
                "leader started: a follower learns of it and asks for a checkpoint",
            );
            racing_download(&buffer, &reference, &grpc, paths.download)
        })
    })
}

/// The new leader's startup entry on the updater, with the term's first request (`first`:
/// a request, or the txID of an `add-txns`, which reads the counters) submitted by a client
/// as soon as Ratis accepts writes, racing the rest of the entry (`notifyLeaderReady`'s
/// summary load). The submitted request, if any.
#[allow(clippy::too_many_arguments)]
fn startup_entry_with_client(
    updater: &mut Updater,
    buffer: &TransactionBuffer,
    me: &Actor,
    entry: &LogEntry<ScmRequest>,
    status: &Arc<DeletedBlockStatus>,
    load: SummaryLoad,
    first: Option<Result<ScmRequest, u64>>,
    why: &'static str,
) -> Option<ScmRequest> {
    let recorder = me.recorder();
    let finished = Arc::new(Ghost::new(false));
    let mut client = None;
    updater.apply_startup_entry(
        buffer,
        me,
        entry,
        status,
        load,
        || {
            let Some(first) = first else { return };
            let (status, finished, me) = (
                Arc::clone(status),
                Arc::clone(&finished),
                Actor::new("client", recorder),
            );
            client = Some(thread::spawn("client", move || {
                me.step(
                    &java::ScmBlockLocationProtocolServerSideTranslatorPB::send,
                    why,
                );
                first.unwrap_or_else(|tx| {
                    let request = status.add_transactions(&me, vec![(tx, tx + 1)]);
                    // Read after the counters: still unset, so they were read before the
                    // updater finished the startup entry.
                    if !finished.get() {
                        me.probe(&SUBMIT_DURING_STARTUP_ENTRY);
                    }
                    request
                })
            }));
        },
        || finished.set(true),
    );
    client.map(|c| c.join())
}

/// Once every apply has finished: a late download (checked), then the final
/// `takeSnapshot`. The leader's DB.
fn late_download_and_snapshot(
    updater: &Updater,
    buffer: &TransactionBuffer,
    store: &Store<ScmRow>,
    me: &Actor,
    reference: &Ghost<Reference>,
    download_path: FlushPath,
) -> Tables<ScmRow> {
    let late = checked_download(buffer, reference, me, download_path);
    LATE_DOWNLOAD_SHIPS_LATEST.check_into(&late, me.recorder());
    updater.take_snapshot(buffer, me);
    store.durable()
}

/// A follower at `initial` installs `checkpoint`, re-applies the log after it and is
/// compared with `leader`.
fn follower_installs(
    checkpoint: Checkpoint<ScmRow>,
    log: &RaftLog<ScmRequest>,
    initial: &Tables<ScmRow>,
    leader: Tables<ScmRow>,
    recorder: &Arc<Recorder>,
) {
    let follower_store: Store<ScmRow> = Store::with_state(initial.clone(), None);
    let applied = stored_index(initial);
    let follower_actor = Actor::new("follower", recorder);
    let install = install_and_catch_up(&follower_store, checkpoint, log, applied, &follower_actor);
    REPLICAS_AGREE.check_into(
        &Replicas {
            leader,
            follower: follower_store.durable(),
            install,
        },
        recorder,
    );
}

struct Prepared {
    paths: Paths,
    plan: Plan,
    size: u64,
    log: RaftLog<ScmRequest>,
    initial: Tables<ScmRow>,
    reference: Reference,
}

impl Case for Prepared {
    fn run(&self, recorder: &Arc<Recorder>) {
        let reference = Arc::new(Ghost::new(Arc::clone(&self.reference)));
        let (store, buffer, status) = leader_store(&self.initial, &reference, recorder);
        let paths = self.paths;
        let (mut updater, racing) = set_up(&buffer, recorder, &self.initial, &self.log, paths.save);

        let apply = {
            let (buffer, me) = (Arc::clone(&buffer), Actor::new("apply", recorder));
            thread::spawn("apply", move || {
                for entry in &racing {
                    updater.apply(&buffer, &me, entry, paths.save);
                }
                updater
            })
        };
        // In `with-leader-change` the download follows this SCM's notifyLeaderChanged: a
        // follower asks a new leader only once its appenders run (changeToLeader).
        let downloader = matches!(
            self.plan,
            Plan::Base | Plan::ContainerTransition | Plan::SaveConfiguration
        )
        .then(|| spawn_racing_download(&buffer, &reference, recorder, paths.download));
        let leader_change =
            matches!(self.plan, Plan::WithLeaderChange | Plan::LeaderSummary).then(|| {
                spawn_leader_change(
                    &buffer,
                    &status,
                    &reference,
                    recorder,
                    paths,
                    (self.plan == Plan::LeaderSummary).then(|| old_term_summary(self.size + 1)),
                    self.plan == Plan::WithLeaderChange,
                )
            });
        let mut updater = apply.join();
        let mut checkpoint = downloader.map(|d| d.join());
        if let Some(t) = leader_change {
            checkpoint = checkpoint.or(t.join());
        }
        recorder.quiesce();

        let me = Actor::new("main", recorder);
        let mut log = self.log.clone();
        if self.plan == Plan::LeaderSummary {
            // Ratis appends the new leader's startup entry once notifyLeaderChanged returned;
            // the updater applies it and the leader is ready. A client (the OM's
            // deleteKeyBlocks) submits as soon as Ratis accepts writes.
            let startup = log.start_term(2);
            reference.set(Arc::new(reference_states(&log, self.initial.clone())));
            let entry = log.entry(startup).cloned().expect("startup entry");
            let n = self.size + 2;
            let request = startup_entry_with_client(
                &mut updater,
                &buffer,
                &me,
                &entry,
                &status,
                paths.load,
                Some(Err(n)),
                "deleteKeyBlocks: checkLeader asks Ratis, which is ready",
            )
            .expect("spawned once ready");
            let index = log.append(request);
            reference.set(Arc::new(reference_states(&log, self.initial.clone())));
            let entry = log.entry(index).cloned().expect("submitted entry");
            updater.apply(&buffer, &me, &entry, paths.save);
        }
        let leader =
            late_download_and_snapshot(&updater, &buffer, &store, &me, &reference, paths.download);
        SUMMARY_MATCHES_TABLE.check_into(&leader, recorder);
        if let Some(checkpoint) = checkpoint {
            follower_installs(checkpoint, &log, &self.initial, leader, recorder);
        }
    }
}

/// The words of a generated workload (`generated`): the requests the modelled SCM path
/// applies and the events around it. No universes: each request takes the next name of its
/// kind (txID, container, serial), so two workloads differ only in their order.
pub const VOCABULARY: Vocabulary = Vocabulary {
    universes: &[],
    words: &[
        Word {
            name: "add-txns",
            kind: Kind::Request,
            args: &[],
            doc: "SCMDeletedBlockTransactionStatusManager.addTransactions, applied as DeletedBlockLogStateManagerImpl.addTransactionsToDB: the next txID and the leader's summary, two buffered puts",
        },
        Word {
            name: "transition",
            kind: Kind::Request,
            args: &[],
            doc: "ContainerStateManagerImpl.transitionDeletingOrDeletedToTargetState: the next DELETING container to CLOSED, one buffered put (a replay on CLOSED throws and terminates the SCM)",
        },
        Word {
            name: "save-config",
            kind: Kind::Request,
            args: &[],
            doc: "StatefulServiceStateManagerImpl.saveConfiguration of ContainerBalancer: a buffered put, then the buffer's flush() (inside the apply, or after the index: the variant)",
        },
        Word {
            name: "store-cert",
            kind: Kind::Request,
            args: &[],
            doc: "SCMCertStore.storeValidCertificate of a datanode certificate: a put straight into RocksDB (validCerts), not through the transaction buffer",
        },
        Word {
            name: "download",
            kind: Kind::Fault,
            args: &[],
            doc: "InterSCMGrpcService.download racing the applies (its flush: the variant); a follower installs the checkpoint and catches up. First, or right after leader-change",
        },
        Word {
            name: "leader-change",
            kind: Kind::Fault,
            args: &[],
            doc: "this SCM becomes leader: notifyLeaderChanged (flush, onBecomeLeader's summary load) races the applies before it; then its startup entry (notifyConfigurationChanged, Ratis's ready flag, notifyLeaderReady, notifyTermIndexUpdated) and the requests after it, which it submits",
        },
        Word {
            name: "snapshot",
            kind: Kind::Fault,
            args: &[],
            doc: "SCMStateMachine.takeSnapshot on the updater thread after the entry before it",
        },
        Word {
            name: "kill",
            kind: Kind::Fault,
            args: &[],
            doc: "the SCM is killed once every entry is applied (no late download, no final takeSnapshot), restarts from its DB and re-applies the entries after its TX",
        },
    ],
    bounds: Bounds {
        requests: 2,
        faults: 2,
    },
    allowed: scm_path,
};

/// One item of a generated workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Drawn {
    /// `add-txns`.
    AddTxns,
    /// `transition`.
    Transition,
    /// `save-config`.
    SaveConfig,
    /// `store-cert`.
    StoreCert,
    /// `download`.
    Download,
    /// `leader-change`.
    LeaderChange,
    /// `snapshot`.
    Snapshot,
    /// `kill`.
    Kill,
}

impl Drawn {
    fn of(item: &Item) -> Drawn {
        match VOCABULARY.words[item.word].name {
            "add-txns" => Drawn::AddTxns,
            "transition" => Drawn::Transition,
            "save-config" => Drawn::SaveConfig,
            "store-cert" => Drawn::StoreCert,
            "download" => Drawn::Download,
            "leader-change" => Drawn::LeaderChange,
            "snapshot" => Drawn::Snapshot,
            _ => Drawn::Kill,
        }
    }

    fn is_request(self) -> bool {
        matches!(
            self,
            Drawn::AddTxns | Drawn::Transition | Drawn::SaveConfig | Drawn::StoreCert
        )
    }
}

/// When an event may come. A `download` races the applies from the start (first) or follows
/// this SCM's `notifyLeaderChanged` (right after `leader-change`: a follower asks a new
/// leader once its appenders run); a `snapshot` follows a request, on the updater between
/// two applies; a `kill` follows a request and ends the workload. Each at most once.
fn scm_path(prefix: &[Item], item: &Item) -> bool {
    let drawn: Vec<Drawn> = prefix.iter().map(Drawn::of).collect();
    let this = Drawn::of(item);
    if drawn.contains(&Drawn::Kill) || (!this.is_request() && drawn.contains(&this)) {
        return false;
    }
    match this {
        Drawn::Download => drawn.last().is_none_or(|d| *d == Drawn::LeaderChange),
        Drawn::Snapshot => drawn.last().is_some_and(|d| d.is_request()),
        Drawn::Kill => drawn.iter().any(|d| d.is_request()),
        _ => true,
    }
}

/// A workload as the run meets it: the requests of term 1 (applied by the updater while the
/// events race) and of term 2 (after `leader-change`, submitted by this SCM), where the
/// download and the snapshot come, and whether the SCM is killed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Shape {
    /// Term 1's requests.
    pub first: Vec<Drawn>,
    /// Whether this SCM becomes leader of term 2 after `first`.
    pub leader_change: bool,
    /// Term 2's requests.
    pub second: Vec<Drawn>,
    /// A download: `Some(false)` racing from the start, `Some(true)` after
    /// `notifyLeaderChanged`.
    pub download: Option<bool>,
    /// The snapshot, after this many requests of the workload.
    pub snapshot_after: Option<usize>,
    /// Whether the SCM is killed at the end.
    pub kill: bool,
}

impl Shape {
    /// The shape of `workload`.
    pub fn of(workload: &Workload) -> Shape {
        let mut shape = Shape::default();
        for item in &workload.items {
            let requests = shape.first.len() + shape.second.len();
            match Drawn::of(item) {
                Drawn::Download => shape.download = Some(shape.leader_change),
                Drawn::LeaderChange => shape.leader_change = true,
                Drawn::Snapshot => shape.snapshot_after = Some(requests),
                Drawn::Kill => shape.kill = true,
                request if shape.leader_change => shape.second.push(request),
                request => shape.first.push(request),
            }
        }
        shape
    }
}

/// Names drawn in order: the next txID, container, certificate serial and configuration
/// value.
#[derive(Default)]
struct Names {
    txns: u64,
    containers: u64,
    serials: u64,
    configs: u64,
}

impl Names {
    /// The request for `drawn`, `None` for an `add-txns` (its summary is the submitting
    /// leader's): its txID then.
    fn next(&mut self, drawn: Drawn) -> Result<ScmRequest, u64> {
        let next = |n: &mut u64| {
            *n += 1;
            *n
        };
        match drawn {
            Drawn::AddTxns => Err(next(&mut self.txns)),
            Drawn::Transition => Ok(ScmRequest::TransitionToClosed {
                container: next(&mut self.containers),
            }),
            Drawn::SaveConfig => Ok(ScmRequest::SaveConfiguration {
                service: "ContainerBalancer",
                value: next(&mut self.configs),
            }),
            _ => Ok(ScmRequest::StoreValidCertificate {
                serial: next(&mut self.serials),
            }),
        }
    }
}

/// A killed SCM after its restart.
pub struct Restarted {
    /// How its replay ended.
    pub install: Install,
    /// Its DB after the replay.
    pub state: Tables<ScmRow>,
    /// `apply(log)`, with the last index.
    pub expected: Tables<ScmRow>,
}

/// A killed SCM restarts and re-applies its log to the end.
pub const RESTART_CATCHES_UP: Invariant<Restarted> = Invariant::eventually(
    "RestartCatchesUp",
    "a killed SCM restarts from its DB, re-applies every entry after its TX without terminating, and ends at apply(log)",
    "A killed SCM whose DB holds a container transition under the previous TransactionInfo (an unguarded flush inside the apply committed it) re-applies the transition on restart: the container is already CLOSED, InvalidContainerStateException terminates the SCM, and its DB still claims the previous index, so every restart terminates again: a crash loop.",
    |r| match &r.install {
        Install::Terminated { index, reason } => Err(format!(
            "the restarted SCM terminated re-applying index {index} ({reason}); its DB still claims TX {}, so every restart replays {index} and terminates again",
            stored_index(&r.state)
        )),
        _ => match r.state.diff(&r.expected).first() {
            None => Ok(()),
            Some(first) => Err(format!("restarted SCM vs apply(log): {first}")),
        },
    },
);

/// The `generated` case of one variant.
struct GeneratedCase {
    paths: Paths,
    bounds: Bounds,
}

impl Case for GeneratedCase {
    fn run(&self, recorder: &Arc<Recorder>) {
        // Drawn before anything is spawned, and shown first in the trace.
        let workload = VOCABULARY.draw_shown(self.bounds, &Actor::new("client", recorder));
        let shape = Shape::of(&workload);
        let paths = self.paths;
        let containers = u64::try_from(self.bounds.requests).unwrap_or(u64::MAX);
        let initial = initial_tables(containers);
        let mut names = Names::default();
        let mut log = RaftLog::new();
        log.start_term(1);
        // Term 1's entries, with the summaries of an earlier leader that counted right.
        let mut counted = Summary::default();
        for &drawn in &shape.first {
            log.append(names.next(drawn).unwrap_or_else(|tx| {
                counted.tx_count += 1;
                counted.blocks += tx + 1;
                ScmRequest::AddTransactionsToDb {
                    txns: vec![(tx, tx + 1)],
                    summary: Some(counted),
                }
            }));
        }
        let reference = Arc::new(Ghost::new(Arc::new(reference_states(
            &log,
            initial.clone(),
        ))));
        let (store, buffer, status) = leader_store(&initial, &reference, recorder);
        let (mut updater, racing) = set_up(&buffer, recorder, &initial, &log, paths.save);

        let apply = {
            let (buffer, me) = (Arc::clone(&buffer), Actor::new("apply", recorder));
            let snapshot_after = shape.snapshot_after;
            thread::spawn("apply", move || {
                for (n, entry) in racing.iter().enumerate() {
                    updater.apply(&buffer, &me, entry, paths.save);
                    if snapshot_after == Some(n + 1) {
                        updater.take_snapshot(&buffer, &me);
                    }
                }
                updater
            })
        };
        let downloader = (shape.download == Some(false))
            .then(|| spawn_racing_download(&buffer, &reference, recorder, paths.download));
        // Nothing else races the applies: one tick of the buffer's monitor task does, as on
        // a running leader (it finds the interval not elapsed and flushes nothing).
        let monitor = (shape.download.is_none() && !shape.leader_change).then(|| {
            let (buffer, me) = (Arc::clone(&buffer), Actor::new("monitor", recorder));
            thread::spawn("monitor", move || buffer.monitor_tick_within_interval(&me))
        });
        let leader_change = shape.leader_change.then(|| {
            spawn_leader_change(
                &buffer,
                &status,
                &reference,
                recorder,
                paths,
                Some(counted),
                shape.download == Some(true),
            )
        });
        let mut updater = apply.join();
        let mut checkpoint = downloader.map(|d| d.join());
        if let Some(t) = leader_change {
            checkpoint = checkpoint.or(t.join());
        }
        if let Some(m) = monitor {
            m.join();
        }
        recorder.quiesce();

        let me = Actor::new("main", recorder);
        if shape.leader_change {
            let startup = log.start_term(2);
            reference.set(Arc::new(reference_states(&log, initial.clone())));
            let entry = log.entry(startup).cloned().expect("startup entry");
            let mut second = shape.second.iter().copied();
            // The first request of term 2 is submitted as soon as Ratis accepts writes,
            // racing the rest of the startup entry; an `add-txns` reads the counters then.
            let first = second.next().map(|drawn| names.next(drawn));
            let submitted = startup_entry_with_client(
                &mut updater,
                &buffer,
                &me,
                &entry,
                &status,
                paths.load,
                first,
                "the request: checkLeader asks Ratis, which is ready",
            )
            .into_iter();
            let rest = second.map(|drawn| {
                names
                    .next(drawn)
                    .unwrap_or_else(|tx| status.add_transactions(&me, vec![(tx, tx + 1)]))
            });
            let requests: Vec<ScmRequest> = submitted.chain(rest).collect();
            for (n, request) in requests.into_iter().enumerate() {
                let index = log.append(request);
                reference.set(Arc::new(reference_states(&log, initial.clone())));
                let entry = log.entry(index).cloned().expect("submitted entry");
                updater.apply(&buffer, &me, &entry, paths.save);
                if shape.snapshot_after == Some(shape.first.len() + n + 1) {
                    updater.take_snapshot(&buffer, &me);
                }
            }
        }
        let whole = reference.get().last().cloned().expect("the setup state");
        let leader = if shape.kill {
            // No late download and no final snapshot: what the DB holds once every entry is
            // applied is what the SCM restarts from.
            me.step(
                &java::StorageContainerManager::start,
                "killed; restarts from its DB: SCMHADBTransactionBufferImpl.init reads its TX",
            );
            let install = replay_after(&store, &log, &me);
            let state = store.durable();
            RESTART_CATCHES_UP.check_into(
                &Restarted {
                    install,
                    state: state.clone(),
                    expected: whole.clone(),
                },
                recorder,
            );
            state
        } else {
            late_download_and_snapshot(&updater, &buffer, &store, &me, &reference, paths.download)
        };
        SUMMARY_MATCHES_TABLE.check_into(&leader, recorder);
        if let Some(checkpoint) = checkpoint {
            // A killed leader that could not restart is not what the follower is measured
            // against: apply(log) is.
            let leader = if shape.kill { whole } else { leader };
            follower_installs(checkpoint, &log, &initial, leader, recorder);
        }
    }
}
