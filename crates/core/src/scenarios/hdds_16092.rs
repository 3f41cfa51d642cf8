//! HDDS-16092: `takeSnapshotImpl`'s unbatched `TransactionInfo` put lowers the OM's persisted
//! transaction index below the DB's content.
//!
//! Java: `OzoneManagerStateMachine` ([`crate::models::om::state_machine`]),
//! `OzoneManagerDoubleBuffer` ([`crate::models::om::double_buffer`]), `OMKeyCreateRequest`,
//! `OMKeyCommitRequest`, `OMKeyRenameRequest`, `OMKeyDeleteRequest`, `OMAllocateBlockRequest`,
//! `OMVolumeCreateRequest`, `OMBucketCreateRequest` ([`crate::models::om::requests`]), Ratis'
//! `StateMachineUpdater` (the `ratis` actor).
//!
//! # Actors
//!
//! The three threads are the OM's shared actors ([`crate::models::om::actors`]): `ratis` is
//! [`ratis_updater`] with the periodic snapshot after the first data entry that follows the
//! last configuration entry ([`SnapshotTrigger::first_data_after_last_configuration`]) and
//! the stop snapshot; `apply` is [`apply_executor`]; `flush` is [`OmNode::flush_thread`]. The
//! scenario keeps the index each snapshot chose (for `SnapshotIndexPersisted`).
//!
//! | actor | Java | does |
//! |---|---|---|
//! | `ratis` | Ratis `StateMachineUpdater` | notifies each configuration entry ([`notifyTermIndexUpdated`](crate::citation::java::OzoneManagerStateMachine::notifyTermIndexUpdated)), submits each data entry to `apply` ([`applyTransaction`](crate::citation::java::OzoneManagerStateMachine::applyTransaction)); before each snapshot waits for the apply futures of every entry it submitted ([`StateMachineUpdater.takeSnapshot`](crate::citation::java::StateMachineUpdater::takeSnapshot)); takes a periodic snapshot after the first data entry that follows the last configuration entry, and the stop snapshot when its applied index is past the last snapshot's ([`shouldTakeSnapshot`](crate::citation::java::StateMachineUpdater::shouldTakeSnapshot)); checks the returned index (above applied: a logged `StateMachineException`; below the last one: the server closes, [`run`](crate::citation::java::StateMachineUpdater::run)); stops the double buffer |
//! | `apply` | `OMStateMachineApplyTransactionThread` | runs `validateAndUpdateCache` and adds the response to the double buffer; a throwable that is not an `IOException` terminates the OM ([`runCommand`](crate::citation::java::OzoneManagerStateMachine::runCommand)) |
//! | `flush` | `OMDoubleBufferFlushThread` | reads `isRunning`, `canFlush`, swaps, commits `{rows, TX = last (term, index)}`, cleans up, advances applied (an assertion failure there terminates the OM, [`flushCurrentBuffer`](crate::citation::java::OzoneManagerDoubleBuffer::flushCurrentBuffer)) |
//! | `restart` | OM startup (`restart`, `second-term`) | reopens the DB, `loadSnapshotInfoFromDB`, and replays the log after the stored index as Ratis does: it submits and applies each entry while a `replay-flush` thread flushes ([`replay_after`]) |
//! | `follower` | a follower's `installCheckpoint` (`install`) | installs the OM's DB as a checkpoint and applies the log after the checkpoint's `TransactionInfo`, with its own `replay-flush` thread ([`install_checkpoint`]) |
//!
//! # Plans
//!
//! - `steady`: 1 the leader's configuration entry (no DB write; it moves applied through
//!   `notifyTermIndexUpdated`), 2 `CreateKey k1` (10 bytes), 3 `CommitKey k1`; the periodic
//!   snapshot follows the apply of 2. Without entry 1 the stored index could never trail
//!   applied and `compare-only` would look fixed.
//! - `restart`: the same, then the OM restarts from its persisted index and replays the log,
//!   while a peer OM that did not restart holds `apply(log[1..3])` exactly once. The peer is a
//!   sequential application of the same request code: its own races are this OM's, and loom's
//!   four-thread limit is spent on the three threads above.
//! - `install`: `steady`, then a follower that has applied nothing installs the OM's DB as its
//!   checkpoint (`notifyInstallSnapshotFromLeader` -> `installSnapshotFromLeader` ->
//!   `installCheckpoint`) and applies the log after the checkpoint's index; the OM itself does
//!   not restart. Checked against the same peer as `restart`.
//! - `generated`: `steady`'s threads on every workload of the vocabulary ([`VOCABULARY`]):
//!   at most three of `CreateKey`, `CommitKey`, `RenameKey`, `DeleteKey` and `AllocateBlock`
//!   over two interchangeable keys, `CreateVolume /vol2` and `CreateBucket /vol1/bucket2`
//!   (each at most once: a second is the error response its replay gives), a commit or an
//!   allocation only for a key with an open create ([`workload_log`] turns a workload into the
//!   log after the configuration entry), and at most two faults ([`Fault`]): the periodic
//!   `snapshot` after a request, and one ending, last: `stop` (`restart`'s stop snapshot,
//!   restart and replay), `kill` (the same restart without the stop snapshot) or `install`
//!   (`install`'s follower); without an ending the OM stops as in `steady`. 8,676 workloads
//!   (4,512 before `AllocateBlock` and the volume and bucket creates).
//!   A replayed `DeleteKey` after its key's create and commit rewrites the rows the first
//!   delete wrote (and throws, like a create, when the key was committed again later, which
//!   needs more than three requests).
//!   No written plan renames a key or allocates a block; this one finds the silent drifts
//!   below, the `AllocateBlock` crash loop, and a `compare-only` termination no written plan
//!   shows (the stop snapshot as the first one).
//! - `second-term`: a leader change. 1 configuration (term 1), 2 `CreateKey k1` (term 1, left
//!   open), 3 configuration (term 2), 4 `CreateKey k2`, 5 `CommitKey k2` (term 2); the periodic
//!   snapshot follows the apply of 4; then the restart and the peer, as in `restart`. Entry 3
//!   jumps two past the last notification (1), so `lastSkippedIndex` becomes 2: entry 2 is the
//!   data entry inside the notification gap, and the snapshot's wait loop and the jump in
//!   `updateLastAppliedTermIndex` are exercised.
//!
//! # Variants ([`crate::models::om::persist::IndexWrite`])
//!
//! - `buggy`: the Java today.
//! - `lock-only`: one lock orders commit and put; the candidate was chosen from `applied`
//!   before the lock, so the put still lowers the index.
//! - `compare-only`: read-then-write without the lock: a commit lands between the read and
//!   the write. (With `lock-only`, the two halves PR #10953's commit 1eb8d78 tests separately.)
//! - `cached-read-1d260d5`: PR #10953 as its first commit 1d260d5 wrote it (1eb8d78 only adds a
//!   test hook): lock and comparison, the stored index read with
//!   [`Table.get`](crate::citation::java::Table::get) through the table cache. The OM's
//!   `transactionInfoTable` is a PARTIAL_CACHE table, no code adds a cache entry for its key,
//!   and neither the batch commit nor [`Table.put`](crate::citation::java::Table::put) touches the
//!   cache, so the read always misses and goes to RocksDB. **Finding: it behaves exactly like
//!   `fixed`** (it holds on every plan). The last commit, f9434f5, switched to `getSkipCache`
//!   because a FULL_CACHE table answers a miss with null; that reason is real for FULL_CACHE
//!   tables but does not apply to this one.
//! - `fixed`: PR #10953 at f9434f5: `transactionInfoLock` around the batch commit and
//!   `persistIfNewer` with a skip-cache read; the snapshot reports what is stored.
//!
//! The suite used to carry a `cached-read` variant whose guarded write also filled the table
//! cache, so that a later snapshot compared against a stale cached index. No commit of the PR
//! (nor any other code at the pinned commit) fills that cache entry, so it was dropped: a
//! violating verdict for code nobody wrote says nothing about the fix, and the failure it
//! showed (a comparison against a stale stored value) is the one `compare-only` already shows.
//!
//! # What replaying entries the DB already holds does
//!
//! Nothing guards a replay: Ratis resumes after the stored `TransactionInfo` and the request
//! code runs again. The model follows the requests' Java ([`crate::models::om::requests`]):
//!
//! - lowered to 1 (below `CreateKey k1`, with k1 committed at 3): the replayed create reads the
//!   committed k1 and builds the open key from it with `updateID` 2 < 3;
//!   [`WithObjectID.Builder.validate`](crate::citation::java::WithObjectID::Builder::validate)
//!   throws `IllegalArgumentException`, which the request does not catch, and
//!   [`runCommand`](crate::citation::java::OzoneManagerStateMachine::runCommand) terminates the OM
//!   before any row or cache changed. The replay runs as Ratis runs it (the apply thread and the
//!   double buffer's flush thread concurrently), but the harm is decided at apply time, before
//!   anything of the entry is queued: whatever the flush thread committed of earlier replayed
//!   entries, the stored index stays below the throwing entry, so every restart replays it and
//!   terminates again: **a crash loop, not drift**, whatever the interleaving (the scenario
//!   runs one restart, loom's five threads leaving no room for a second; the staged test
//!   `replaying_a_committed_keys_create_terminates_the_om_on_every_restart` runs two). Every row stays as the peer's (k1 with updateID 3,
//!   usedBytes 10, usedNamespace 1, no open key); only `TransactionInfo` is lower.
//! - lowered to 2: the replayed `CommitKey` reads the committed key, finds no open key and fails
//!   with `KEY_NOT_FOUND`; the flush writes TX 3. No damage.
//!
//! - a key created and given a block (`AllocateBlock`, still open), lowered to the create
//!   (between it and the allocation): the replayed `AllocateBlock` finds the open key its
//!   first apply wrote, with that same `updateID`, which
//!   [`validate`](crate::citation::java::WithObjectID::Builder::validate) accepts (it refuses
//!   only a lower one), and
//!   [`appendNewBlocks`](crate::citation::java::OmKeyInfo::appendNewBlocks) appends the same
//!   block again. The OM runs on with the open key listing the block twice where its peer
//!   lists it once: **silent drift** in `openKeyTable`. The key's commit heals it: the commit
//!   writes the client's list, and `verifyAndGetKeyLocations` (`OmKeyInfo.java:346-379`) maps
//!   the allocated blocks by block id, so the duplicate collapses. Until then the OM counts
//!   one block more in the quota check of the key's next allocation
//!   (`OMAllocateBlockRequest.java:216-226`: `hadAllocatedKeySize` from the block count), so
//!   near a bucket's quota this OM alone could refuse an allocation its peers accept (not
//!   modelled: no quota is set). Lowered below the create, the replayed create rebuilds the
//!   open key from its request and the allocations replay exactly.
//! - a key given two blocks, lowered between its create and the first allocation: the
//!   replayed first `AllocateBlock` finds the open key the second one wrote (a higher
//!   `updateID`), `validate` throws `IllegalArgumentException` and the OM terminates, on every
//!   restart: **a crash loop**, as with a committed key's create (the staged test
//!   `staged_a_replayed_allocate_below_a_later_one_terminates_the_om`).
//! - `CreateVolume` and `CreateBucket` check existence first
//!   ([`OMVolumeCreateRequest`](crate::citation::java::OMVolumeCreateRequest::validateAndUpdateCache):
//!   `VOLUME_ALREADY_EXISTS`, `OMVolumeCreateRequest.java:154-157`;
//!   [`OMBucketCreateRequest`](crate::citation::java::OMBucketCreateRequest::validateAndUpdateCache):
//!   `BUCKET_ALREADY_EXISTS`, `OMBucketCreateRequest.java:248-251`) and compare no
//!   `updateID`: replayed over their own rows, both are error responses that write nothing
//!   (there is no volume or bucket delete in the vocabulary to make the replay find them
//!   gone). They do no harm; they shift the other entries' indices.
//! - a key created, committed and then renamed, lowered below its create: the replayed
//!   `CreateKey` finds no key under the old name and builds a fresh one (nothing to validate
//!   against), the `CommitKey` counts its bytes and namespace in the bucket a second time,
//!   and the `RenameKey` fails with `KEY_ALREADY_EXISTS`
//!   ([`OMKeyRenameRequest`](crate::citation::java::OMKeyRenameRequest::validateAndUpdateCache)),
//!   an error response. Nothing is thrown and the OM runs on, holding both keys (in Ozone
//!   with one objectID, derived from the create's index) and usedBytes 20, usedNamespace 2
//!   where its peer holds one key, 10 and 1: **silent drift**. Only the rename's error in
//!   the OM's log (and the audit log's failed `RENAME_KEY`) shows it.
//!
//! So `buggy` and `lock-only` break `NoOmTermination` after the restart of `restart` and
//! `second-term`, where `ReplicasAgree` (the tables, `TransactionInfo` aside) holds; on the
//! `generated` workloads they break `ReplicasAgree` as well, without terminating. The
//! rename drift alone was not found reliably: it needs three requests, the stored index
//! lowered to 1 (a snapshot that chose index 1 writing it after the flush of the rename)
//! and a restart, one workload in 4,512 with a narrow interleaving; within 200,000
//! executions PCT (depth 3) missed it for 2 of 5 seeds and random for 1 of 5 (the stateful
//! engine at one fault finds it in 202,039 executions, the test
//! `the_generated_space_drifts_silently_after_a_rename`). Deeper PCT does not help: over
//! seeds 0..5 within 200,000, depth 4 found the silent drift on no seed (what it found were
//! terminated replays whose tables stop at the throwing entry, which `ReplicasAgree` no
//! longer counts, see Properties), depth 5 on 3 of 5 (worst 83,228). The `AllocateBlock` drift needs two
//! requests and any snapshot whose put lands after the allocation's flush, which every
//! snapshot kind gives (the stop snapshot, then an install, is the one PCT meets first), so
//! `ReplicasAgree` is in the expectation: over seeds 0..20 PCT breaks it within 16,702
//! executions on `buggy` (8,365 on `lock-only`) and random within 2,129 (1,017), inside the
//! plan's budget ([`Hdds16092::plan_executions`](Scenario::plan_executions)). An
//! earlier claim that the replay of a create and its commit counts the key's bytes twice
//! did not survive the Java (the replayed create then finds the committed key and throws);
//! the double count needs the key gone from its name, which a rename (or a delete, not
//! modelled) does.
//!
//! The seed reports a replay on a real cluster (stored index lowered from 41 to 33) that ran
//! and succeeded, and withdrew its crash-loop claim. The model follows the Java, and that
//! conflicts with the report for any log that holds a key's `CreateKey` above the stored index
//! and its `CommitKey` at or below the index the DB reflects. The report does not say which
//! entries lay in 34..41. The replay succeeds exactly when no replayed request rebuilds an
//! object whose stored `updateID` is above the replayed entry's index: `prepareFileInfo` builds
//! the open key with `toBuilder()` from the stored key and `setUpdateID(index)`, and
//! [`WithObjectID.Builder.validate`](crate::citation::java::WithObjectID::Builder::validate)
//! throws when that index is below the stored one. So a replayed `CreateKey` whose key's
//! `CommitKey` is also among the replayed entries (already in the DB, with the commit's higher
//! `updateID`) is precisely the entry that terminates the OM; a replay of entries none of which
//! meets a later write of its object (volume or bucket creation, keys created and committed
//! at or below the stored index, keys committed only after the DB's content) succeeds
//! (`CreateVolume` and `CreateBucket` are error responses on a replay, and a replayed
//! `AllocateBlock` over its own write succeeds, listing its block twice; other requests are
//! not modelled). No
//! replay check exists at the pinned commit (no request compares the index with the stored
//! `updateID` to skip an entry). This is an open discrepancy with the report, not a statement
//! about that experiment.
//!
//! # A follower that installs the lowered checkpoint (`install`)
//!
//! The restart is not the only path to that replay. A follower too far behind the leader's log
//! is told to install a snapshot: [`notifyInstallSnapshotFromLeader`](crate::citation::java::OzoneManagerStateMachine::notifyInstallSnapshotFromLeader)
//! downloads the leader's DB checkpoint, and
//! [`installCheckpoint`](crate::citation::java::OzoneManager::installCheckpoint__String_Path)
//! takes the checkpoint's index from the `TransactionInfo` stored in that checkpoint, which is
//! the leader's lowered index. [`verifyTransactionInfo`](crate::citation::java::HAUtils::verifyTransactionInfo)
//! accepts it when it is above the follower's applied index;
//! [`installCheckpoint`](crate::citation::java::OzoneManager::installCheckpoint__String_Path_TransactionInfo)
//! replaces the DB, sets the in-memory `TransactionInfo` and unpauses the state machine at that
//! index, and returns it to Ratis, which reloads the state machine
//! ([`StateMachineUpdater.reload`](crate::citation::java::StateMachineUpdater::reload): applied
//! = `getLatestSnapshot()`, the checkpoint's index) and applies the entries after it. Those
//! entries' effects are already in the checkpoint, so the follower, which never restarted,
//! replays them: a `CreateKey` whose key is committed in the checkpoint terminates it, and its
//! next start replays from the same stored index. `install` shows it with the same verdicts
//! as `restart` (`NoOmTermination` for `buggy` and `lock-only`; `ReplicasAgree` holds). The
//! leader sends the follower the entries after the checkpoint's index: its Ratis log is purged
//! at most up to the index its `takeSnapshot` reported, and the lowered index is one that a
//! snapshot reported.
//!
//! The comparing variants lower the index only from 3 to 2 on the first log (the periodic
//! snapshot's candidate always beats the initial 0, so a comparing write can never put 1 over a
//! higher index), and on `second-term` only to 3 or 4 while k2's create is at 4 and its commit
//! at 5 (the periodic snapshot runs after the wait loop and always stores at least 3, and a
//! later write of 3 needs a read of 2 or less): `compare-only` breaks `TxIndexMonotone` and
//! `DurableIndexCoversData` but never terminates the OM on the written plans.
//!
//! That rests on the periodic snapshot coming first. With the stop snapshot as the first
//! snapshot after a start (the usual case: the OM sets `autoSnapshotThreshold` to 400,000
//! entries, `OMConfigKeys.java:271` and `OzoneManagerRatisServer.java:869-871`, and Ratis
//! takes the stop snapshot by default, `RaftServerConfigKeys.java:745`,
//! [`shouldTakeSnapshot`](crate::citation::java::StateMachineUpdater::shouldTakeSnapshot)),
//! `compare-only` on the generated workload `create(k1) commit(k1) stop` chooses 1 (applied
//! before the flush moved it), reads the initial TX 0, the flush commits {2, 3} with TX 3,
//! and the comparing put writes 1 over it: the restart replays `CreateKey k1` against the
//! committed k1 and terminates, as `buggy` does. **Finding: a comparison without the lock
//! still lets the OM crash-loop**, not only lower the index across a commit. PCT misses it
//! for some seeds at the default budget, so `compare-only`'s expectation on `generated`
//! keeps the two index invariants and the test
//! `compare_only_lowers_below_a_create_when_the_stop_snapshot_is_the_first` shows it
//! (stateful, at one fault: 1,726 executions, its uniform walk first; 61,120 with its
//! bounded passes alone).
//!
//! # `second-term`
//!
//! `fixed` (and `cached-read-1d260d5`) hold: the snapshot waits until entry 2 is flushed
//! (applied then jumps to the notified 3), so the notified index is never persisted over
//! unflushed data, and `persistIfNewer` never lowers. Without the wait loop `fixed` would break
//! there: the snapshot would write TX 3 with k1's open key not yet flushed, and the flush of 2
//! would commit TX 2 over it (the staged test `take_snapshot_waits_for_the_flush_of_the_skipped_entry`
//! shows `takeSnapshotImpl` alone picking 3 before the flush). `buggy` and `lock-only` break
//! `TxIndexMonotone` and `DurableIndexCoversData` (a snapshot puts 3 after the batch {4, 5} or
//! {4} committed) and, when the last write is that 3, `NoOmTermination`: the restart replays
//! `CreateKey k2` (4) against k2 committed at 5.
//!
//! # Properties
//!
//! `TxIndexMonotone` and `DurableIndexCoversData` are checked at every durable write;
//! `SnapshotIndexPersisted` once every thread has stopped (a snapshot that does not persist
//! its index, say a guarded write that never writes, breaks it); `ReplicasAgree` and
//! `NoOmTermination` after the restarts. `ReplicasAgree` judges only a replay that completed:
//! a terminated replay stops at the throwing entry, so its tables lack the entries after it
//! (a difference from the peer that is the crash loop's, `NoOmTermination`), and counting
//! that as drift made `ReplicasAgree` break on workloads that never drift. Counterexamples:
//! `crates/core/tests/shuttle/fixtures/hdds-16092__*` (the termination ones under `NoOmTermination`).
//!
//! # Abstractions
//!
//! | merged or left out | why no verdict depends on it |
//! |---|---|
//! | Ratis' first entry is index 0 in the Java, 1 here; the initial `(0, -1)` of applied and notified and `lastSkippedIndex = -1` are `(0, 0)` and 0 | a relabelling: every comparison and difference is preserved |
//! | OBJECT_STORE tables (`keyTable`, `openKeyTable`) instead of the OM default FILE_SYSTEM_OPTIMIZED (`fileTable`, `openFileTable`) | for a key at the bucket root the FSO requests ([`OMKeyCreateRequestWithFSO`](crate::citation::java::OMKeyCreateRequestWithFSO::validateAndUpdateCache), [`OMKeyCommitRequestWithFSO`](crate::citation::java::OMKeyCommitRequestWithFSO::validateAndUpdateCache)) read the committed file, build the open file with [`prepareFileInfo`](crate::citation::java::OMKeyRequest::prepareFileInfo) and account the bucket the same way |
//! | key paths, object ids, client ids, block lists, replication (10 bytes stand for the replicated size) | decisions depend on a committed key's presence, its update id and its size; no plan overwrites a key, so block identity ([`filterOutBlocksStillInUse`](crate::citation::java::OMKeyRequest::filterOutBlocksStillInUse)) never matters: with one block per key the overwrite accounting is `+new - old` bytes and an unchanged namespace whether or not the blocks are shared |
//! | the overwrite's deleted-table rows and `snapshotUsedBytes` / `snapshotUsedNamespace` | no plan overwrites a key: every create is the first of its key, and the only create that meets a committed key is a replay with a lower index, which throws first |
//! | quota, ACL, encryption, atomic-rewrite, hsync and recovery branches; parent directories | no quota, no expected generation, no hsync, keys at the bucket root: these branches never fire |
//! | the bucket, volume and key locks | one apply thread orders the requests |
//! | sub-batches at snapshot create/purge, metrics, the 10,000-permit semaphore, the pause flag, the 1 s timed wait | no such requests; at most 3 pending responses; `add` and `stop` notify |
//! | table-cache eviction of the key tables (asynchronous, after the commit): the apply thread's view keeps every applied row | an evicted entry is in RocksDB with the same value (the commit precedes the eviction) |
//! | `awaitFlush` completes after two flush notifications; here the wait wakes when applied moves | the loop re-checks its condition; only its exit matters |
//! | the last check of `takeSnapshot`'s wait loop and `takeSnapshotImpl`'s monitor entry are one step | applied only grows and `lastSkippedIndex` is written only by the Ratis thread that takes the snapshot |
//! | `stopDaemon`'s join of the flush thread; a wait both notified and interrupted returns rather than throws | nothing after `stop()` on the Ratis thread depends on it, and the scenario joins every thread; the other outcome leaves the batch to the replay, which the model reaches when the flush thread is busy at the stop |
//! | the in-memory `TransactionInfo` copy, `getLatestSnapshot`, Ratis log purge | read only by Ratis at a restart, where the model reads the stored row (`loadSnapshotInfoFromDB` sets both from it) |
//! | `flushDB`; RocksDB's WAL without fsync | every write is durable at once; an OS crash is not a plan |
//! | the peer is a sequential `apply(log)` | its own races only lower its `TransactionInfo`, which `ReplicasAgree` does not compare; it does not restart |
//! | the replay (restart or install) runs the apply executor and a flush thread with a fresh state machine at the stored index, and takes no snapshot; one restart | replay snapshots could only lower `TransactionInfo` again in `buggy`, which already violates; the termination stops the replay exactly where `runCommand` would, before the throwing entry is queued, so a second restart starts from the same index |
//! | the periodic snapshot's trigger (`autoSnapshotThreshold` against the state machine's applied index) is one fixed point per log | any trigger point waits for the same futures and takes the same snapshot; the chosen point puts a snapshot between a data entry's apply and the next entry |
//! | `processResponse` terminations (INTERNAL_ERROR, METADATA_ERROR) | no request of these logs returns either |
//! | generated faults: one periodic snapshot per workload; a kill only once Ratis has handed over the last entry; no restart in the middle of a workload, no leader change | the snapshot's trigger point is a choice of the workload; the kill differs from the stop by the stop snapshot, which the model shows both ways; a restart with requests after it needs a second round of the three threads, which loom's thread limit has no room for (`second-term` has the written leader change) |
//! | `deletedTable` rows of a `DeleteKey` | a replayed delete of a key puts the row the first delete put (objectID from the create's index, `updateID` the delete's index) |
//! | a volume's owner and `userTable` row, bucket and volume `updateID`s, block ids | written only on the branch where the volume or bucket does not exist, which a replay over its own rows never takes; a key's blocks are a count, the open key's latest version only, and one block per create |
//! | requests other than key create, commit, rename, delete, `AllocateBlock`, volume and bucket create | not in the logs |

use crate::choices;
use crate::citation::Label;
use crate::kit::raft_log::RaftLog;
use crate::kit::store::durable_observer;
use crate::kit::store::{Store, Tables};
use crate::kit::tx_info::{self, stored_index, TxRow};
use crate::models::om::actors::{
    apply_channels, apply_executor, ratis_updater, SnapshotTrigger, UpdaterConfig,
};
use crate::models::om::node::OmNode;
use crate::models::om::persist::{IndexWrite, TxInfoWriter, SNAPSHOT_IN_FLUSH_WINDOW};
use crate::models::om::requests::OmRequest;
use crate::models::om::startup::{replay_after, restart_and_replay, Replayed};
use crate::models::om::{initial_tables, OmRow};
use crate::properties::{Invariant, Probe, Property};
use crate::recorder::{Actor, Recorder};
use crate::scenario::{Budget, Case, Expected, Scenario, SizeKnob};
use crate::sync::ghost::Ghost;
use crate::sync::{thread, Arc};
use crate::workload::{Bounds, Item, Kind, Universe, Vocabulary, Word};

/// The scenario.
#[derive(Debug, Clone, Copy)]
pub struct Hdds16092;

choices! {
    /// How `takeSnapshotImpl` persists its index.
    pub enum Variant {
        /// the Java today: unbatched put of the later of applied and notified, no lock, no comparison
        Buggy = "buggy",
        /// one lock orders the batch commit and the snapshot's put; no comparison
        LockOnly = "lock-only",
        /// skip-cache read of the stored index, write only if higher; no lock
        CompareOnly = "compare-only",
        /// PR #10953 at its first commit 1d260d5: lock and comparison, stored index read with Table.get through the PARTIAL_CACHE table cache
        CachedRead1d260d5 = "cached-read-1d260d5",
        /// PR #10953: transactionInfoLock + persistIfNewer with a skip-cache read
        Fixed = "fixed",
    }
}

choices! {
    /// Which log and which actors run.
    pub enum Plan {
        /// flush, apply and Ratis updater threads with a periodic and a stop snapshot
        Steady = "steady",
        /// steady, then the OM restarts and replays from its persisted index; a peer did not restart
        Restart = "restart",
        /// a leader change: a configuration entry after a data entry, then data of the new term; then the restart
        SecondTerm = "second-term",
        /// steady, then a follower installs the OM's DB checkpoint and applies the log after the checkpoint's TransactionInfo; the OM does not restart
        Install = "install",
        /// steady's threads on every workload of the vocabulary within the bounds: create, commit, rename, delete, allocate over two keys, a volume and a bucket create; a snapshot; a stop, kill or install that ends the run
        Generated = "generated",
    }
}

/// The words of a generated workload: what the OM's key path does with keys `k1` and `k2`
/// (interchangeable names; `create`, `commit`, `rename`, `delete`, `allocate`: [`OmRequest`]),
/// a volume and a bucket create (one name each: with no delete, a second create of a name
/// is the error response a replay meets, so one name shows every outcome), and the snapshot
/// and restart kinds the written plans run. Each
/// workload follows the leader's configuration entry and runs on `steady`'s three threads;
/// its faults place the periodic snapshot and choose how the run ends ([`Fault`]).
pub const VOCABULARY: Vocabulary = Vocabulary {
    universes: &[Universe {
        name: "keys",
        values: &["k1", "k2"],
        symmetric: true,
    }],
    words: &[
        Word {
            name: "create",
            kind: Kind::Request,
            args: &[0],
            doc: "OMKeyCreateRequest: open the key (10 bytes), from the committed key if there is one",
        },
        Word {
            name: "commit",
            kind: Kind::Request,
            args: &[0],
            doc: "OMKeyCommitRequest: commit the open key and count it in the bucket",
        },
        Word {
            name: "rename",
            kind: Kind::Request,
            args: &[0, 0],
            doc: "OMKeyRenameRequest: move a committed key to a name no key has",
        },
        Word {
            name: "delete",
            kind: Kind::Request,
            args: &[0],
            doc: "OMKeyDeleteRequest: delete a committed key and take it off the bucket",
        },
        Word {
            name: "allocate",
            kind: Kind::Request,
            args: &[0],
            doc: "OMAllocateBlockRequest: append a block to the open key",
        },
        Word {
            name: "volume",
            kind: Kind::Request,
            args: &[],
            doc: "OMVolumeCreateRequest: create the volume /vol2 (VOLUME_ALREADY_EXISTS once it exists)",
        },
        Word {
            name: "bucket",
            kind: Kind::Request,
            args: &[],
            doc: "OMBucketCreateRequest: create the bucket /vol1/bucket2 (BUCKET_ALREADY_EXISTS once it exists)",
        },
        Word {
            name: "snapshot",
            kind: Kind::Fault,
            args: &[],
            doc: "StateMachineUpdater.takeSnapshot after the entry before it: wait for its applies, OzoneManagerStateMachine.takeSnapshot",
        },
        Word {
            name: "stop",
            kind: Kind::Fault,
            args: &[],
            doc: "the OM stops cleanly (the stop snapshot, OzoneManagerDoubleBuffer.stop), restarts from its stored TransactionInfo and replays",
        },
        Word {
            name: "kill",
            kind: Kind::Fault,
            args: &[],
            doc: "the OM is killed once Ratis handed over the last entry: no stop snapshot; it restarts from its stored TransactionInfo and replays",
        },
        Word {
            name: "install",
            kind: Kind::Fault,
            args: &[],
            doc: "the OM stops cleanly; a fresh follower installs its DB as checkpoint (OzoneManager.installCheckpoint) and applies the log after it",
        },
    ],
    bounds: Bounds {
        requests: 3,
        faults: 2,
    },
    allowed: client_and_cluster,
};

/// A drawn fault ([`VOCABULARY`]'s `Kind::Fault` words).
///
/// - `snapshot`: Ratis' periodic snapshot right after the entry of the request before it
///   ([`StateMachineUpdater.takeSnapshot`](crate::citation::java::StateMachineUpdater::takeSnapshot):
///   wait for the applies submitted since the last snapshot, then
///   [`takeSnapshot`](crate::citation::java::OzoneManagerStateMachine::takeSnapshot)). Where
///   `autoSnapshotThreshold` puts it is the model's choice of trigger point
///   ([`SnapshotTrigger::AfterIndex`]); at most one per workload, after a request.
/// - `stop`: the OM stops cleanly: Ratis takes the stop snapshot when its applied index is past
///   the last snapshot's ([`shouldTakeSnapshot`](crate::citation::java::StateMachineUpdater::shouldTakeSnapshot)),
///   stops the double buffer ([`stop`](crate::citation::java::OzoneManagerDoubleBuffer::stop)),
///   and the OM restarts from its stored `TransactionInfo`
///   ([`loadSnapshotInfoFromDB`](crate::citation::java::OzoneManagerStateMachine::loadSnapshotInfoFromDB))
///   and replays the log after it: `restart`'s ending.
/// - `kill`: the process dies (kill -9) once Ratis has handed over the last entry: no stop
///   snapshot; the flush thread stops where it is, responses not yet flushed are lost; then
///   the same restart and replay.
/// - `install`: the OM stops as in `stop`, and a fresh follower installs its DB as a checkpoint
///   ([`installCheckpoint`](crate::citation::java::OzoneManager::installCheckpoint__String_Path))
///   and applies the log after the checkpoint's index: `install`'s ending.
///
/// `stop`, `kill` and `install` end a workload (nothing follows them, and each needs a request
/// before it); a workload without one stops cleanly and nothing restarts, as in `steady`.
/// Left out: a restart in the middle of a workload (requests after it would need the OM to
/// rejoin as leader, a second round of the three threads that loom's thread limit has no
/// room for), and a leader change (`second-term`'s written log).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The periodic snapshot after the entry before it.
    Snapshot,
    /// A clean stop, then the restart and replay.
    Stop,
    /// A kill without the stop snapshot, then the restart and replay.
    Kill,
    /// A clean stop, then a follower installs the checkpoint.
    Install,
}

impl Fault {
    fn of(item: &Item) -> Option<Fault> {
        match VOCABULARY.words[item.word].name {
            "snapshot" => Some(Fault::Snapshot),
            "stop" => Some(Fault::Stop),
            "kill" => Some(Fault::Kill),
            "install" => Some(Fault::Install),
            _ => None,
        }
    }

    fn ends(self) -> bool {
        self != Fault::Snapshot
    }
}

/// What a client can send and when a fault may happen. A key's `CommitKey` and
/// `AllocateBlock` only while the key has a `CreateKey` not yet committed (both carry the
/// create's `clientID`, which the client learns from the create's reply); the volume and the
/// bucket create once each; and no second `CreateKey` of a key while one is
/// open (the model keys open keys by name alone, where Ozone keys them by name and
/// `clientID`). Renames of any two names: the Java answers the impossible ones with an error
/// response. A `snapshot` follows a request and comes once; an ending (`stop`, `kill`,
/// `install`) follows a request, and nothing follows it ([`Fault`]).
fn client_and_cluster(prefix: &[Item], item: &Item) -> bool {
    if prefix.iter().any(|i| Fault::of(i).is_some_and(Fault::ends)) {
        return false;
    }
    let word = |i: &Item| VOCABULARY.words[i.word].name;
    let open = |key: usize| {
        prefix
            .iter()
            .filter(|i| Fault::of(i).is_none() && i.args.first() == Some(&key))
            .fold(false, |open, i| match word(i) {
                "create" => true,
                "commit" => false,
                _ => open,
            })
    };
    let after_request = prefix.last().is_some_and(|i| Fault::of(i).is_none());
    match (Fault::of(item), word(item)) {
        (Some(Fault::Snapshot), _) => {
            after_request && !prefix.iter().any(|i| Fault::of(i) == Some(Fault::Snapshot))
        }
        (Some(_), _) => prefix.iter().any(|i| Fault::of(i).is_none()),
        (None, "create") => !open(item.args[0]),
        (None, "commit" | "allocate") => open(item.args[0]),
        (None, "volume" | "bucket") => !prefix.iter().any(|i| i.word == item.word),
        _ => true,
    }
}

/// The log of a workload: the leader's configuration entry, then each request; faults write
/// no entry.
pub fn workload_log(workload: &crate::workload::Workload) -> RaftLog<OmRequest> {
    let mut log = RaftLog::new();
    log.start_term(1);
    let keys = VOCABULARY.universes[0].values;
    for item in &workload.items {
        let key = |i: usize| keys[item.args[i]].to_string();
        log.append(match VOCABULARY.words[item.word].name {
            "create" => OmRequest::CreateKey {
                key: key(0),
                size: 10,
            },
            "commit" => OmRequest::CommitKey { key: key(0) },
            "rename" => OmRequest::RenameKey {
                from: key(0),
                to: key(1),
            },
            "delete" => OmRequest::DeleteKey { key: key(0) },
            "allocate" => OmRequest::AllocateBlock { key: key(0) },
            "volume" => OmRequest::CreateVolume {
                volume: "/vol2".into(),
            },
            "bucket" => OmRequest::CreateBucket {
                bucket: "/vol1/bucket2".into(),
            },
            _ => continue,
        });
    }
    log
}

/// A workload's faults: after which log index the periodic snapshot fires, and how the run
/// ends (`None`: a clean stop, no restart).
pub fn workload_faults(workload: &crate::workload::Workload) -> (SnapshotTrigger, Option<Fault>) {
    // Index 1 is the configuration entry; each request appends one entry.
    let mut index = 1;
    let mut trigger = SnapshotTrigger::Never;
    let mut end = None;
    for item in &workload.items {
        match Fault::of(item) {
            None => index += 1,
            Some(Fault::Snapshot) => trigger = SnapshotTrigger::AfterIndex(index),
            Some(fault) => end = Some(fault),
        }
    }
    (trigger, end)
}

impl Variant {
    fn index_write(self) -> IndexWrite {
        match self {
            Variant::Buggy => IndexWrite::Unguarded,
            Variant::LockOnly => IndexWrite::LockOnly,
            Variant::CompareOnly => IndexWrite::CompareOnly,
            Variant::CachedRead1d260d5 => IndexWrite::CachedGet,
            Variant::Fixed => IndexWrite::PersistIfNewer,
        }
    }
}

/// One durable write, as the store's observer sees it.
pub struct DurableStep {
    /// The persisted index before the write.
    pub before_tx: u64,
    /// The durable state after it.
    pub after: Tables<OmRow>,
    /// `apply(log[1..i])` for every index i, with TX = i.
    pub reference: Arc<Vec<Tables<OmRow>>>,
}

/// The OM once every thread has stopped.
pub struct Stopped {
    /// The persisted index.
    pub stored: u64,
    /// The index each snapshot chose, in order.
    pub candidates: Vec<u64>,
}

/// The replicas at the end of the `restart` and `second-term` plans.
pub struct Replicas {
    /// The OM that restarted and replayed.
    pub restarted: Tables<OmRow>,
    /// A peer that applied every entry once.
    pub peer: Tables<OmRow>,
    /// Whether the replay terminated the OM (then its tables stop at the throwing entry,
    /// which is `NoOmTermination`'s harm, not drift).
    pub terminated: bool,
}

/// Every way the OM ended, in order.
pub struct Exits {
    /// One line per termination.
    pub exits: Vec<String>,
}

/// The persisted index never decreases.
pub const TX_INDEX_MONOTONE: Invariant<DurableStep> = Invariant::always(
    "TxIndexMonotone",
    "the persisted TransactionInfo index never decreases",
    "The OM's persisted TransactionInfo goes backwards, below entries its DB already holds. Harmless while the OM runs; a restart, or a follower that installs this DB as its checkpoint, replays those entries (see NoOmTermination and ReplicasAgree for what the replay does).",
    |s| {
        let (before, after) = (s.before_tx, stored_index(&s.after));
        if after < before {
            return Err(format!("persisted TX went {before} -> {after}"));
        }
        Ok(())
    },
);

/// Every durable state is the log applied up to its own index.
pub const DURABLE_INDEX_COVERS_DATA: Invariant<DurableStep> = Invariant::always(
    "DurableIndexCoversData",
    "every durable DB state equals apply(log[1..TX]) for its own TX",
    "The OM's DB holds the writes of entries above the index its TransactionInfo claims. Harmless while the OM runs; a restart or a checkpoint install re-applies them, which terminates the OM on a committed key's CreateKey or double-counts a renamed key.",
    |s| {
        let tx = stored_index(&s.after);
        let Some(expected) = usize::try_from(tx).ok().and_then(|i| s.reference.get(i)) else {
            return Err(format!("TX {tx} is beyond the log"));
        };
        match s.after.first_difference_except(expected, OmRow::TABLE) {
            None => Ok(()),
            Some(first) => Err(format!(
                "DB claims TX {tx} but differs from apply(log[1..{tx}]): {first} (DB vs log)"
            )),
        }
    },
);

/// Every snapshot persisted its index.
pub const SNAPSHOT_INDEX_PERSISTED: Invariant<Stopped> = Invariant::eventually(
    "SnapshotIndexPersisted",
    "once the OM has stopped, its persisted index is at least every index a snapshot chose",
    "The index the OM reported to Ratis as its snapshot is not durable: after a restart the OM resumes from a lower index than its snapshot claimed. No variant breaks it: it keeps a fix that stops persisting the index from passing.",
    |s| match s.candidates.iter().max() {
        Some(&highest) if highest > s.stored => Err(format!(
            "a snapshot chose index {highest}, but the persisted TX is {}",
            s.stored
        )),
        _ => Ok(()),
    },
);

/// The restarted OM agrees with a peer.
pub const REPLICAS_AGREE: Invariant<Replicas> = Invariant::eventually(
    "ReplicasAgree",
    "after a restart and replay that completes, the OM's tables (TransactionInfo aside) equal a peer's that applied each entry once",
    "After a replay that raised nothing the OM's tables differ from its peers': a key renamed after its commit is back under its old name and the bucket's usedBytes and usedNamespace count it twice, or an open key lists a block twice. Silent drift: the OM runs on, and only the failed RenameKey (KEY_ALREADY_EXISTS) shows in its log, or nothing at all.",
    |r| {
        // A terminated replay stops at the throwing entry: its tables are behind, not
        // drifted, and the OM does not run on (`NoOmTermination`).
        if r.terminated {
            return Ok(());
        }
        match r.restarted.first_difference_except(&r.peer, OmRow::TABLE) {
            None => Ok(()),
            Some(first) => Err(format!("restarted OM vs peer: {first}")),
        }
    },
);

/// The OM never terminates.
pub const NO_OM_TERMINATION: Invariant<Exits> = Invariant::eventually(
    "NoOmTermination",
    "the OM never terminates",
    "The OM terminates replaying a CreateKey whose key is already committed (WithObjectID.Builder.validate throws IllegalArgumentException), and its stored index stays below that entry, so every restart terminates again: a crash loop. A follower that installs the lowered checkpoint terminates the same way.",
    |e| {
        match e.exits.first() {
            None => Ok(()),
            Some(first) => Err(format!("{} termination(s), first {first}", e.exits.len())),
        }
    },
);

const DURABLE: &[Invariant<DurableStep>] = &[TX_INDEX_MONOTONE, DURABLE_INDEX_COVERS_DATA];

impl Scenario for Hdds16092 {
    type Variant = Variant;
    type Plan = Plan;
    const NAME: &'static str = "hdds-16092";
    const JIRA: &'static str = "HDDS-16092";
    const TITLE: &'static str =
        "OM snapshot's unbatched TransactionInfo put lowers the persisted index";
    // `NoOmTermination` watched alone needs a restart that replays a committed key: over
    // seeds 0..20 a random walk needed up to 27,395 executions on `restart` (median about
    // 3,100) and PCT up to 2,089 on `second-term` (`bench --budgets`), measured before the
    // replay ran its own flush thread. With it, PCT over seeds 0..20 needs up to 5,071 on
    // `buggy/second-term` (median about 700) and 2,475 on `lock-only/second-term`.
    const EXECUTIONS: Budget = Budget {
        random: 60_000,
        pct: 15_000,
        ..Budget::CHECK
    };
    const VOCABULARY: Option<Vocabulary> = Some(VOCABULARY);
    // The generated space (8,676 workloads) dilutes the workloads that terminate the OM.
    // Watched alone over seeds 0..20, `NoOmTermination` needs PCT up to 41,196 executions on
    // `buggy` (38,633 on `lock-only`), random up to 6,207 (2,760); `ReplicasAgree` PCT up to
    // 16,702 (8,365), random up to 2,129 (1,017). The budget is at least twice each.
    fn plan_executions(plan: Plan) -> Budget {
        match plan {
            Plan::Generated => Budget {
                random: 60_000,
                pct: 90_000,
                ..Budget::CHECK
            },
            _ => Self::EXECUTIONS,
        }
    }
    const PROPERTIES: &'static [Property] = &[
        TX_INDEX_MONOTONE.property(),
        DURABLE_INDEX_COVERS_DATA.property(),
        SNAPSHOT_INDEX_PERSISTED.property(),
        REPLICAS_AGREE.property(),
        NO_OM_TERMINATION.property(),
        SNAPSHOT_IN_FLUSH_WINDOW.required(),
    ];
    // `StaleCandidateRefused` comes with the persistence model.
    const MODEL_PROBES: &'static [&'static [Probe]] = &[TxInfoWriter::PROBES];
    const SIZE: Option<SizeKnob> = Some(SizeKnob {
        counts: "CreateKey+CommitKey pairs in the log (after the leader change in second-term)",
        default: 1,
    });

    fn expected(variant: Variant, plan: Plan) -> Expected {
        const DURABLE_BOTH: &[Property] = &[
            TX_INDEX_MONOTONE.property(),
            DURABLE_INDEX_COVERS_DATA.property(),
        ];
        const AND_TERMINATES: &[Property] = &[
            TX_INDEX_MONOTONE.property(),
            DURABLE_INDEX_COVERS_DATA.property(),
            NO_OM_TERMINATION.property(),
        ];
        const AND_TERMINATES_AND_DRIFTS: &[Property] = &[
            TX_INDEX_MONOTONE.property(),
            DURABLE_INDEX_COVERS_DATA.property(),
            NO_OM_TERMINATION.property(),
            REPLICAS_AGREE.property(),
        ];
        use Plan::{Generated, Install, Restart, SecondTerm, Steady};
        use Variant::{Buggy, CachedRead1d260d5, CompareOnly, Fixed, LockOnly};
        match (variant, plan) {
            // 1d260d5's Table.get misses the PARTIAL_CACHE table cache and reads RocksDB.
            (Fixed | CachedRead1d260d5, Steady | Restart | SecondTerm | Install | Generated) => {
                Expected::Holds
            }
            // Over generated workloads `ReplicasAgree` breaks too, silently: a replayed
            // `AllocateBlock` lists its block twice in the open key, and a renamed key's
            // replay counts it twice (module docs).
            (Buggy | LockOnly, Generated) => Expected::Violates(AND_TERMINATES_AND_DRIFTS),
            // `NoOmTermination` breaks too when the stop snapshot is the first (module docs);
            // PCT misses it at the default budget for some seeds, the test
            // `compare_only_lowers_below_a_create_when_the_stop_snapshot_is_the_first` shows it.
            (CompareOnly, Generated) => Expected::Violates(DURABLE_BOTH),
            // A comparing write lowers the index only across a CommitKey, never below a
            // CreateKey whose key is committed: the replay finds no open key (module docs).
            (CompareOnly, Steady | Restart | SecondTerm | Install) | (Buggy | LockOnly, Steady) => {
                Expected::Violates(DURABLE_BOTH)
            }
            // Lowered below a committed key's CreateKey: the replayed create throws and the OM
            // terminates, on every restart; a follower that installs the lowered checkpoint
            // applies the same entries and terminates the same way.
            (Buggy | LockOnly, Restart | SecondTerm | Install) => {
                Expected::Violates(AND_TERMINATES)
            }
        }
    }

    fn prepare(&self, variant: Variant, plan: Plan, size: usize) -> Box<dyn Case> {
        let log = match plan {
            Plan::Steady | Plan::Restart | Plan::Install => sized_log(size),
            Plan::SecondTerm => second_term_log(size),
            Plan::Generated => return Box::new(Prepared::drawn(variant, VOCABULARY.bounds)),
        };
        Box::new(Prepared {
            write: variant.index_write(),
            after: match plan {
                Plan::Steady => After::Nothing,
                Plan::Restart | Plan::SecondTerm | Plan::Generated => After::Restart,
                Plan::Install => After::Install,
            },
            log: Source::Written(Written::of(log)),
        })
    }

    fn prepare_generated(
        &self,
        variant: Variant,
        bounds: Bounds,
        _size: usize,
    ) -> Option<Box<dyn Case>> {
        Some(Box::new(Prepared::drawn(variant, bounds)))
    }
}

/// The configuration entry, then `pairs` times `CreateKey kN` (10 bytes) and `CommitKey kN`.
pub fn sized_log(pairs: usize) -> RaftLog<OmRequest> {
    let mut log = RaftLog::new();
    log.start_term(1);
    append_pairs(&mut log, 1, pairs);
    log
}

/// Term 1's configuration entry and `CreateKey k1` (left open); term 2's configuration entry
/// (a leader change); then `pairs` times `CreateKey kN` and `CommitKey kN` from k2 on.
pub fn second_term_log(pairs: usize) -> RaftLog<OmRequest> {
    let mut log = RaftLog::new();
    log.start_term(1);
    log.append(OmRequest::CreateKey {
        key: "k1".into(),
        size: 10,
    });
    log.start_term(2);
    append_pairs(&mut log, 2, pairs);
    log
}

fn append_pairs(log: &mut RaftLog<OmRequest>, first: usize, pairs: usize) {
    for n in first..first + pairs {
        let key = format!("k{n}");
        log.append(OmRequest::CreateKey {
            key: key.clone(),
            size: 10,
        });
        log.append(OmRequest::CommitKey { key });
    }
}

/// `apply(log[1..i])` with TX = i, for i = 0..=last: what a replica that applied each entry
/// once holds at index i.
pub fn reference_states(log: &RaftLog<OmRequest>) -> Vec<Tables<OmRow>> {
    tx_info::reference_states(log, initial_tables(), |entry, request, view| {
        request
            .apply(entry.index, view)
            .expect("a log applied once never meets a committed key's create");
    })
}

/// What follows the run of the three threads.
#[derive(Clone, Copy, PartialEq, Eq)]
enum After {
    Nothing,
    /// The OM restarts and replays after its stored index.
    Restart,
    /// A fresh follower installs the OM's checkpoint and applies the log after its index.
    Install,
}

/// A log with what a replica that applied it once holds at each index, and when the
/// periodic snapshot fires.
#[derive(Clone)]
struct Written {
    log: Arc<RaftLog<OmRequest>>,
    reference: Arc<Vec<Tables<OmRow>>>,
    updater: UpdaterConfig,
}

impl Written {
    fn of(log: RaftLog<OmRequest>) -> Self {
        Written {
            reference: Arc::new(reference_states(&log)),
            updater: UpdaterConfig {
                start: 0,
                periodic: SnapshotTrigger::first_data_after_last_configuration(&log),
                stop_snapshot: true,
            },
            log: Arc::new(log),
        }
    }
}

/// Where an execution's log comes from: a plan's, or a workload drawn within the bounds at
/// the start of the execution.
enum Source {
    Written(Written),
    Drawn(Bounds),
}

struct Prepared {
    write: IndexWrite,
    after: After,
    log: Source,
}

impl Prepared {
    fn drawn(variant: Variant, bounds: Bounds) -> Self {
        Prepared {
            write: variant.index_write(),
            after: After::Restart,
            log: Source::Drawn(bounds),
        }
    }
}

impl Case for Prepared {
    fn run(&self, recorder: &Arc<Recorder>) {
        let (
            Written {
                log,
                reference,
                updater,
            },
            after,
        ) = match &self.log {
            Source::Written(written) => (written.clone(), self.after),
            Source::Drawn(bounds) => {
                // Drawn before anything is spawned, and shown first in the trace.
                let workload = VOCABULARY.draw_shown(*bounds, &Actor::new("client", recorder));
                let (periodic, end) = workload_faults(&workload);
                let mut written = Written::of(workload_log(&workload));
                written.updater.periodic = periodic;
                written.updater.stop_snapshot = end != Some(Fault::Kill);
                let after = match end {
                    None => After::Nothing,
                    Some(Fault::Install) => After::Install,
                    Some(_) => After::Restart,
                };
                (written, after)
            }
        };
        let store = Arc::new(Store::with_state(
            initial_tables(),
            Some(durable_observer(recorder, DURABLE, {
                let reference = Arc::clone(&reference);
                move |before, after| DurableStep {
                    before_tx: stored_index(before),
                    after: after.clone(),
                    reference: Arc::clone(&reference),
                }
            })),
        ));
        let node = Arc::new(OmNode::new(Arc::clone(&store), self.write, 0, 0));
        let candidates = Arc::new(Ghost::new(Vec::new()));
        let (futures, queue) = apply_channels();

        let flush = {
            let (node, me) = (Arc::clone(&node), Actor::new("flush", recorder));
            thread::spawn("flush", move || node.flush_thread(&me))
        };
        let apply = {
            let (node, me) = (Arc::clone(&node), Actor::new("apply", recorder));
            thread::spawn("apply", move || {
                apply_executor(&node, &me, queue, initial_tables());
            })
        };
        let ratis = {
            let (node, log, candidates, me) = (
                Arc::clone(&node),
                Arc::clone(&log),
                Arc::clone(&candidates),
                Actor::new("ratis", recorder),
            );
            let config = updater;
            thread::spawn("ratis", move || {
                ratis_updater(&node, &log, &me, futures, config, |_, snapshot| {
                    candidates.with(|c| c.push(snapshot.taken.chosen));
                });
            })
        };
        ratis.join();
        apply.join();
        flush.join();
        recorder.quiesce();
        let stopped = Stopped {
            stored: stored_index(&store.durable()),
            candidates: candidates.get(),
        };
        SNAPSHOT_INDEX_PERSISTED.check_into(&stopped, recorder);

        let mut exits = node.exits();
        if after != After::Nothing {
            let (replica, replayed) = match after {
                After::Install => {
                    let me = Actor::new("follower", recorder);
                    let (replica, replayed) = install_checkpoint(&store, &log, &me);
                    (replica, replayed)
                }
                _ => {
                    // One restart: a second would replay from the same stored index (the
                    // terminating entry queued nothing), so it terminates at the same entry;
                    // the staged test `replaying_a_committed_keys_create_terminates_the_om_on_every_restart`
                    // shows it. Loom's five threads do not leave room for it.
                    let me = Actor::new("restart", recorder);
                    let replayed = restart_and_replay(&store, &log, &me);
                    (Arc::clone(&store), replayed)
                }
            };
            let terminated = matches!(replayed, Replayed::Terminated { .. });
            if let Replayed::Terminated { index, why } = replayed {
                exits.push(format!("replay of index {index}: {why}"));
            }
            let last = usize::try_from(log.last_index()).unwrap_or(usize::MAX);
            let peer = reference[last].clone();
            let me = Actor::new("peer", recorder);
            me.step_with(Label::model("peer OM"), || {
                format!("applied 1..{last} once, no restart: {peer}")
            });
            let restarted = replica.durable();
            REPLICAS_AGREE.check_into(
                &Replicas {
                    restarted,
                    peer,
                    terminated,
                },
                recorder,
            );
        }
        NO_OM_TERMINATION.check_into(&Exits { exits }, recorder);
    }
}

/// A fresh follower (applied index 0) installs `leader`'s DB as a checkpoint
/// ([`OzoneManager.installCheckpoint`](crate::citation::java::OzoneManager::installCheckpoint__String_Path_TransactionInfo)):
/// the checkpoint's index is the `TransactionInfo` stored in it (the two-argument
/// [`installCheckpoint`](crate::citation::java::OzoneManager::installCheckpoint__String_Path)
/// reads it from the checkpoint's own DB);
/// the install proceeds when that index is above the follower's applied index
/// ([`verifyTransactionInfo`](crate::citation::java::HAUtils::verifyTransactionInfo)), replaces
/// the DB and unpauses the state machine at it; Ratis then applies the log after it
/// ([`StateMachineUpdater.reload`](crate::citation::java::StateMachineUpdater::reload)), here
/// through [`replay_after`]. A checkpoint at index 0 is refused: the follower applies the
/// whole log on its empty DB. Returns the follower's DB and how its apply ended.
///
/// Abstracted away: the download, the backup of the old DB, the RPC server and background
/// services, the leader's log purge (the follower receives every entry after the checkpoint's
/// index, which the leader still holds: its Ratis snapshot index is at most the index its
/// `takeSnapshot` reported).
pub fn install_checkpoint(
    leader: &Store<OmRow>,
    log: &RaftLog<OmRequest>,
    me: &Actor,
) -> (Arc<Store<OmRow>>, Replayed) {
    let checkpoint = leader.checkpoint(
        me,
        &crate::citation::java::OzoneManager::installCheckpoint__String_Path,
    );
    let index = stored_index(&checkpoint);
    let (state, from) = if index > 0 {
        me.step_with(
            &crate::citation::java::HAUtils::verifyTransactionInfo,
            || format!("checkpoint TX {index} > applied 0: install it, unpause at {index}"),
        );
        (checkpoint, index)
    } else {
        me.step(
            &crate::citation::java::HAUtils::verifyTransactionInfo,
            "checkpoint TX 0 <= applied 0: refused; apply the log from 1",
        );
        (initial_tables(), 0)
    };
    let store = Arc::new(Store::with_state(state.clone(), None));
    let replayed = replay_after(&store, log, from, state, me);
    (store, replayed)
}
