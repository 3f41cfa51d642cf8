//! One OM with snapshots: the apply thread's side ([`SnapshotOm::apply`]), the
//! `OMDoubleBufferFlushThread` loop with the batch split and `addToBatch`'s termination
//! ([`SnapshotOm::flush_thread`]), and a restart that replays the log after the stored index
//! ([`SnapshotOm::restart`], [`SnapshotOm::replay`], whose apply and flush run concurrently).
//!
//! `flushCurrentBuffer` swaps, splits the ready buffer
//! ([`splitReadyBufferAtCreateSnapshot`](super::Cites::split)) and runs `flushBatch` per
//! part: every response's `addToDBBatch`, then `TransactionInfo` = the part's last index, then
//! the commit. An exception inside `addToDBBatch` reaches `addToBatch`, which terminates the OM.

use super::requests::{add_to_batch, apply, Crash, SnapResponse, SnapshotRequest, Stop};
use super::{Cites, Dirs, Java, Snapshots, Split};
use crate::citation::java;
use crate::kit::raft_log::RaftLog;
use crate::kit::store::{Store, WriteBatch};
use crate::kit::tx_info::stage_tx_info;
use crate::models::om::double_buffer::{DoubleBuffer, Life};
use crate::models::om::startup::{data_after, load_snapshot_info, Replayed};
use crate::models::om::{OmRow, SNAPSHOT_INFO_TABLE};
use crate::properties::Probe;
use crate::recorder::{Actor, Recorder};
use crate::sync::ghost::{Ghost, Witness};
use crate::sync::{thread, Arc};

/// A swap took the purge of a snapshot together with an earlier purge of keys from it: the
/// window of HDDS-11453 (the fix then flushes them in separate batches).
pub const PURGE_SWAPPED_WITH_ITS_KEYS: Probe = Probe::new(
    "PurgeSwappedWithItsKeys",
    "one swap took a snapshot's purge together with a purge of keys from that snapshot",
);

/// A swap took a snapshot create together with an earlier response: the window of HDDS-7279
/// (the fix then flushes the earlier one in a batch of its own before the create's).
pub const CREATE_SWAPPED_WITH_EARLIER: Probe = Probe::new(
    "CreateSwappedWithEarlier",
    "one swap took a snapshot create together with an earlier response",
);

/// One OM: its DB, its snapshots, its double buffer.
pub struct SnapshotOm {
    store: Arc<Store<OmRow>>,
    snaps: Snapshots,
    buffer: DoubleBuffer<SnapResponse>,
    /// The plan's fault, armed until it fires.
    crash: Ghost<Crash>,
    /// The index of the snapshot create the fault fires in; `None`: the first create flushed.
    crash_at: Ghost<Option<u64>>,
    /// Responses queued and not yet committed (for probes).
    in_flight: Witness<usize>,
    exits: Ghost<Vec<String>>,
    /// Ghost: the index of the response whose `addToDBBatch` terminated the OM.
    terminated_at: Ghost<Option<u64>>,
    /// The process died in the flush of a swap that took a snapshot's purge together with a
    /// purge of keys from that snapshot (for a probe).
    crashed_in_shared_swap: Witness<bool>,
}

impl SnapshotOm {
    /// The probes the flush thread fires at its swap: a scenario that runs it inherits them
    /// ([`Scenario::MODEL_PROBES`](crate::scenario::Scenario::MODEL_PROBES)).
    pub const PROBES: &'static [Probe] =
        &[PURGE_SWAPPED_WITH_ITS_KEYS, CREATE_SWAPPED_WITH_EARLIER];

    /// An OM over `store` and `snaps`; with `crash`, the process dies right after the first
    /// snapshot directory its flush deletes.
    pub fn new(store: Arc<Store<OmRow>>, snaps: Snapshots, crash: bool) -> Self {
        let crash = if crash {
            Crash::AfterDirDelete
        } else {
            Crash::Never
        };
        Self::with_crash(store, snaps, crash)
    }

    /// An OM over `store` and `snaps` whose process dies once, where `crash` says.
    pub fn with_crash(store: Arc<Store<OmRow>>, snaps: Snapshots, crash: Crash) -> Self {
        Self {
            buffer: DoubleBuffer::with_cites(snaps.cites().buffer),
            store,
            snaps,
            crash: Ghost::new(crash),
            crash_at: Ghost::new(None),
            in_flight: Witness::new(0),
            exits: Ghost::new(Vec::new()),
            terminated_at: Ghost::new(None),
            crashed_in_shared_swap: Witness::new(false),
        }
    }

    /// Arm the process's death, where `crash` says, in the flush of the snapshot create (or,
    /// for [`Crash::AfterDirDelete`], the snapshot purge) at log index `index` only (a
    /// generated workload's kill names its request).
    pub fn arm(&self, crash: Crash, index: u64) {
        self.crash.set(crash);
        self.crash_at.set(Some(index));
    }

    /// Restart: reopen the DB, read the stored index (`loadSnapshotInfoFromDB`) and rebuild
    /// the id map from the `snapshotInfoTable` rows; the snapshot cache starts empty.
    /// Returns the OM and its stored index.
    pub fn restart(
        store: Arc<Store<OmRow>>,
        dirs: Arc<Dirs>,
        java: Java,
        cites: &'static Cites,
        actor: &Actor,
    ) -> (Self, u64) {
        let (stored, view) = load_snapshot_info(store.as_ref(), actor, "");
        let ids = view
            .iter()
            .filter(|(t, _, _)| *t == SNAPSHOT_INFO_TABLE)
            .map(|(_, k, _)| k.to_string());
        let snaps = Snapshots::new(dirs, ids, &[], java, cites);
        (Self::new(store, snaps, false), stored)
    }

    /// `kill -9` of the process (a generated workload's fault): nothing more is queued or
    /// flushed, the responses not yet committed are lost; a batch already swapped may still
    /// commit, as if the kill came after it.
    pub fn kill(&self, actor: &Actor) {
        self.buffer.crash(actor, "kill -9");
    }

    /// The DB.
    pub fn store(&self) -> &Arc<Store<OmRow>> {
        &self.store
    }

    /// The snapshots.
    pub fn snapshots(&self) -> &Snapshots {
        &self.snaps
    }

    /// `awaitFlush`: wait until every response queued before the call is committed.
    pub fn await_flush(&self, actor: &Actor, java: &'static crate::citation::Citation) -> bool {
        self.buffer.await_flush(actor, java)
    }

    /// How many responses were applied and are not yet committed: a witness, for probes
    /// (no scheduling point).
    pub fn in_flight(&self) -> &Witness<usize> {
        &self.in_flight
    }

    /// Whether the plan's crash fired.
    pub fn crashed(&self) -> bool {
        self.buffer.life() == Life::Crashed
    }

    /// Whether the process died in the flush of a swap that took a snapshot's purge together
    /// with a purge of keys from that snapshot: the window HDDS-11453's fix splits (a
    /// witness, for its probe).
    pub fn crashed_in_shared_swap(&self) -> &Witness<bool> {
        &self.crashed_in_shared_swap
    }

    /// Every termination (ghost).
    pub fn exits(&self) -> Vec<String> {
        self.exits.get()
    }

    /// Apply `request` at `index` and queue its response; `false` once the process is gone.
    /// An exception out of `validateAndUpdateCache` terminates the OM (`runCommand`).
    pub fn apply(&self, actor: &Actor, index: u64, term: u64, request: &SnapshotRequest) -> bool {
        let response = match apply(&self.snaps, &self.store, actor, index, term, request) {
            Ok(response) => response,
            Err(why) => {
                actor.step_with(self.snaps.java().purge.run_command, || {
                    format!("validateAndUpdateCache of index {index} threw: terminate")
                });
                self.terminated_at.set(Some(index));
                self.exit(actor, why);
                return false;
            }
        };
        // Applied: in flight until its batch commits.
        self.in_flight.update(|n| *n += 1);
        let added = self.buffer.add(actor, response);
        if !added {
            self.in_flight.update(|n| *n -= 1);
        }
        added
    }

    /// The end of a run whose log grows no more before its last index: wait until what is
    /// queued is flushed (`awaitFlush`), then stop the flush thread (`stop`), which waits for
    /// an index that never comes.
    pub fn settle(&self, actor: &Actor, java: &'static crate::citation::Citation) {
        if self.buffer.await_flush(actor, java) {
            self.buffer.stop(actor, "no more entries");
        }
    }

    /// The flush thread, until every index up to `last` is flushed or the process is gone.
    pub fn flush_thread(&self, actor: &Actor, last: u64) {
        let mut flushed = 0;
        while flushed < last {
            let Some(ready) = self.buffer.next_batch(actor) else {
                return;
            };
            let shared = swapped_with_its_keys(&ready);
            if shared {
                actor.probe(&PURGE_SWAPPED_WITH_ITS_KEYS);
            }
            if ready.iter().skip(1).any(SnapResponse::is_snapshot_create) {
                actor.probe(&CREATE_SWAPPED_WITH_EARLIER);
            }
            let parts = split(ready, self.snaps.java().split);
            if parts.len() > 1 {
                actor.step_with(self.snaps.cites().split, || {
                    let shown: Vec<Vec<u64>> = parts
                        .iter()
                        .map(|p| p.iter().map(|r| r.index).collect())
                        .collect();
                    format!("split into batches {shown:?}")
                });
            }
            for part in parts {
                match self.flush_batch(actor, &part) {
                    Ok(last_index) => flushed = last_index,
                    Err(crashed) => {
                        if shared && crashed {
                            self.crashed_in_shared_swap.update(|c| *c = true);
                        }
                        return;
                    }
                }
            }
        }
    }

    /// `flushBatch`: every response's `addToDBBatch`, `TransactionInfo`, the commit.
    /// `Err` when the OM terminated (`false`) or crashed (`true`).
    fn flush_batch(&self, actor: &Actor, part: &[SnapResponse]) -> Result<u64, bool> {
        let c = self.snaps.cites();
        let mut batch = WriteBatch::new();
        for response in part {
            let crash = match self.crash.get() {
                Crash::AfterDirDelete
                    if response.is_snapshot_purge()
                        && self.crash_at.get().is_none_or(|i| i == response.index) =>
                {
                    Crash::AfterDirDelete
                }
                c @ (Crash::AfterCheckpoint | Crash::BeforeCreateCommit)
                    if response.is_snapshot_create()
                        && self.crash_at.get().is_none_or(|i| i == response.index) =>
                {
                    c
                }
                _ => Crash::Never,
            };
            match add_to_batch(&self.snaps, &self.store, actor, response, &mut batch, crash) {
                Ok(()) => {}
                Err(Stop::Crash(how)) => {
                    self.crash.set(Crash::Never);
                    self.buffer.crash(actor, how);
                    return Err(true);
                }
                Err(Stop::Terminate(why)) => {
                    actor.step_with(c.add_to_batch, || {
                        format!("addToDBBatch of index {} threw: terminate", response.index)
                    });
                    self.terminated_at.set(Some(response.index));
                    self.exit(actor, why);
                    return Err(false);
                }
            }
        }
        let (term, index) = part
            .iter()
            .map(|r| (r.term, r.index))
            .max()
            .unwrap_or_default();
        stage_tx_info(&mut batch, term, index);
        self.store.commit(actor, c.flush_batch, batch);
        self.buffer.flushed(index);
        self.in_flight.update(|n| *n = n.saturating_sub(part.len()));
        Ok(index)
    }

    fn exit(&self, actor: &Actor, why: String) {
        self.buffer.terminate();
        actor.step_with(
            &java::ExitUtils::terminate__int_String_Throwable_Logger,
            || format!("OM terminates: {why}"),
        );
        self.exits.with(|e| e.push(why));
    }

    /// Spawn one flush thread per OM ([`SnapshotOm::flush_thread`], until index `last` is
    /// flushed), named `flush`, or `omN-flush` for several.
    pub fn spawn_flush_threads(
        oms: &[Arc<Self>],
        recorder: &Arc<Recorder>,
        last: u64,
    ) -> Vec<thread::JoinHandle<()>> {
        oms.iter()
            .enumerate()
            .map(|(i, om)| {
                let name = if oms.len() == 1 {
                    "flush".to_string()
                } else {
                    format!("om{}-flush", i + 1)
                };
                let (om, me) = (Arc::clone(om), Actor::new(&name, recorder));
                thread::spawn(&name, move || om.flush_thread(&me, last))
            })
            .collect()
    }

    /// Spawn the `apply` thread (every data entry of `log`, in order, applied to each OM in
    /// turn) and one flush thread per OM (`flush`, or `omN-flush` for several), each until
    /// the log's last index is flushed; join them all.
    pub fn run_threads(
        oms: &[Arc<Self>],
        log: &Arc<RaftLog<SnapshotRequest>>,
        recorder: &Arc<Recorder>,
    ) {
        let flushes = Self::spawn_flush_threads(oms, recorder, log.last_index());
        let apply = {
            let (oms, log, me) = (oms.to_vec(), Arc::clone(log), Actor::new("apply", recorder));
            thread::spawn("apply", move || {
                // A gone OM takes no more entries; the others still do.
                let mut alive = vec![true; oms.len()];
                for (entry, request) in data_after(&log, 0) {
                    for (om, alive) in oms.iter().zip(alive.iter_mut()) {
                        if *alive {
                            *alive = om.apply(&me, entry.index, entry.term, request);
                        }
                    }
                    if !alive.contains(&true) {
                        return;
                    }
                }
            })
        };
        apply.join();
        for flush in flushes {
            flush.join();
        }
    }

    /// Replay every entry of `log` after `stored` as a restarted OM does: Ratis'
    /// [`StateMachineUpdater`](java::StateMachineUpdater::run) hands each committed entry after
    /// the stored index to `applyTransaction`, and the double buffer's flush thread, started
    /// with the state machine, flushes what the apply thread queued, concurrently. `actor` is
    /// the updater and the apply thread (one thread applying in log order); a spawned
    /// `replay-flush` thread is [`SnapshotOm::flush_thread`]. Ends when every entry is flushed or
    /// a flush terminated the OM (the apply thread then queues nothing more).
    ///
    /// So whether a later entry's apply precedes an earlier entry's flush is a race here, as in
    /// the Java: the replay is not apply-then-flush per entry.
    pub fn replay(
        self: &Arc<Self>,
        log: &RaftLog<SnapshotRequest>,
        stored: u64,
        actor: &Actor,
    ) -> Replayed {
        let Some(last) = data_after(log, stored).map(|(e, _)| e.index).max() else {
            return Replayed::Completed;
        };
        let flush = {
            let (om, me) = (
                Arc::clone(self),
                Actor::new("replay-flush", actor.recorder()),
            );
            thread::spawn("replay-flush", move || om.flush_thread(&me, last))
        };
        for (entry, request) in data_after(log, stored) {
            if !self.apply(actor, entry.index, entry.term, request) {
                break;
            }
        }
        flush.join();
        match self.terminated_at.get() {
            None => Replayed::Completed,
            Some(index) => Replayed::Terminated {
                index,
                why: self.exits().last().cloned().unwrap_or_default(),
            },
        }
    }
}

/// A response of a purge of keys from `snapshot`.
fn purges_keys_of(response: &SnapResponse, snapshot: &str) -> bool {
    matches!(&response.effect, super::requests::Effect::PurgeKeys { from: Some(s), .. } if s == snapshot)
}

fn swapped_with_its_keys(ready: &[SnapResponse]) -> bool {
    ready.iter().enumerate().any(|(i, r)| match &r.effect {
        super::requests::Effect::PurgeSnapshot { snapshot } => {
            ready[..i].iter().any(|e| purges_keys_of(e, snapshot))
        }
        _ => false,
    })
}

/// `splitReadyBufferAtCreateSnapshot`: a new part at the first response, and around every
/// response the policy puts alone.
///
/// ```
/// use ozone_ha_check::models::om::snapshot::node::split;
/// use ozone_ha_check::models::om::snapshot::requests::{Effect, SnapResponse};
/// use ozone_ha_check::models::om::snapshot::Split;
/// use ozone_ha_check::kit::store::WriteBatch;
///
/// let key = |index| SnapResponse { index, term: 1, effect: Effect::Rows(WriteBatch::new()) };
/// let create = SnapResponse { index: 3, term: 1, effect: Effect::CreateSnapshot { snapshot: "s1".into() } };
/// let ready = vec![key(1), key(2), create, key(4)];
/// let sizes = |policy| split(ready.clone(), policy).iter().map(Vec::len).collect::<Vec<_>>();
/// assert_eq!(sizes(Split::OneBatch), [4]);
/// assert_eq!(sizes(Split::AtCreate), [2, 1, 1]);
/// assert_eq!(sizes(Split::Every), [1, 1, 1, 1]);
/// ```
pub fn split(ready: Vec<SnapResponse>, policy: Split) -> Vec<Vec<SnapResponse>> {
    let alone = |r: &SnapResponse| match policy {
        Split::OneBatch => false,
        Split::Every => true,
        Split::AtCreate => r.is_snapshot_create(),
        Split::AtCreateAndPurge => r.is_snapshot_create() || r.is_snapshot_purge(),
    };
    let mut parts: Vec<Vec<SnapResponse>> = Vec::new();
    let mut previous_alone = false;
    for r in ready {
        let this_alone = alone(&r);
        match parts.last_mut() {
            Some(part) if !this_alone && !previous_alone => part.push(r),
            _ => parts.push(vec![r]),
        }
        previous_alone = this_alone;
    }
    parts
}
