//! `OzoneManagerStateMachine`: the applied index, Ratis notifications, and `takeSnapshot`.
//!
//! Java (`om/ratis/OzoneManagerStateMachine.java`): `notifyTermIndexUpdated` (:242),
//! `updateLastAppliedTermIndex` (:262) and `takeSnapshotImpl` (:596) are `synchronized` on
//! the state machine; here that monitor is [`StateMachine`]'s mutex. `takeSnapshotImpl`
//! computes `index = max(applied, notified)` (:597-599) and writes `TRANSACTION_INFO_KEY`
//! with an unbatched put (:604), then `flushDB` (:605).
//!
//! The variants of that write ([`IndexWrite`]) are the Java as it is and the fixes proposed
//! for HDDS-16092 (apache/ozone PR #10953 and its two halves).
//!
//! Abstracted away: the wait loop in `takeSnapshot` (:582-591) runs only while
//! `applied < lastSkippedIndex`, and `lastSkippedIndex` moves only when Ratis skips indices
//! in its notifications, which these plans never do (their one configuration entry is index
//! 1, right after 0); terms beyond a number; `snapshotInfo` and the in-memory
//! `TransactionInfo` copy (nothing in the plans reads them).

use super::node::OmNode;
use super::{OmRow, TX_KEY, TX_TABLE};
use crate::recorder::Actor;
use crate::sync::Mutex;

/// How `takeSnapshotImpl` persists its index, and whether the batch commit takes the same
/// lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexWrite {
    /// The Java today: an unbatched put of the candidate, no lock, no comparison.
    Unguarded,
    /// One lock orders the commit and the put, but the put is unconditional.
    LockOnly,
    /// Read the stored index (skipping the cache) and write only if higher, without a lock.
    CompareOnly,
    /// Lock and comparison, but the stored index is read through the table cache, and the
    /// guarded write also fills the cache (the only writer that could).
    CachedCompare,
    /// The fix: `persistIfNewer` under the double buffer's `transactionInfoLock`, reading with
    /// the cache skipped; the snapshot reports what is stored.
    PersistIfNewer,
}

impl IndexWrite {
    /// Whether the double buffer's batch commit holds `transactionInfoLock`.
    pub fn commit_takes_lock(self) -> bool {
        matches!(
            self,
            IndexWrite::LockOnly | IndexWrite::CachedCompare | IndexWrite::PersistIfNewer
        )
    }
}

/// The fields the state machine's monitor guards.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Indices {
    /// `BaseStateMachine.lastAppliedTermIndex` (index and term).
    applied: (u64, u64),
    /// `lastNotifiedTermIndex`.
    notified: (u64, u64),
}

/// The state machine's monitor and the indices it guards.
#[derive(Debug)]
pub struct StateMachine {
    monitor: Mutex<Indices>,
}

/// The snapshot's probe: it chose its index while a committed batch was ahead of `applied`.
pub const PROBE_SNAPSHOT_IN_WINDOW: &str = "SnapshotInFlushWindow";
/// A comparing write refused a candidate below the stored index.
pub const PROBE_STALE_REFUSED: &str = "StaleCandidateRefused";

impl StateMachine {
    /// A state machine whose applied index is `index` (`loadSnapshotInfoFromDB`, :709-724).
    pub fn new(index: u64, term: u64) -> Self {
        Self {
            monitor: Mutex::new(Indices {
                applied: (index, term),
                notified: (index, term),
            }),
        }
    }

    /// `notifyTermIndexUpdated`: Ratis reports an entry without state-machine data (the
    /// configuration entry of a new term). When it is the next index, applied moves to it.
    pub fn notify_term_index_updated(&self, actor: &Actor, term: u64, index: u64) {
        let mut m = self.monitor.lock();
        m.notified = (index, term);
        let moved = if index == m.applied.0 + 1 {
            m.applied = (index, term);
            format!(", applied -> {index}")
        } else {
            String::new()
        };
        actor.step_with("OzoneManagerStateMachine.notifyTermIndexUpdated", || {
            format!("configuration entry {index}: notified -> {index}{moved}")
        });
    }

    /// `updateLastAppliedTermIndex`: the flush thread advances applied after a commit.
    pub fn update_last_applied(&self, actor: &Actor, term: u64, index: u64) {
        let mut m = self.monitor.lock();
        if index > m.applied.0 {
            m.applied = (index, term);
        }
        actor.step_with(
            "OzoneManagerStateMachine.updateLastAppliedTermIndex",
            || format!("applied -> {}", m.applied.0),
        );
    }

    /// `takeSnapshot` / `takeSnapshotImpl`: persist the snapshot index as `write` says, and
    /// return the index reported to Ratis.
    pub fn take_snapshot(&self, node: &OmNode, actor: &Actor, why: &str) -> u64 {
        const JAVA: &str = "OzoneManagerStateMachine.takeSnapshotImpl";
        let m = self.monitor.lock();
        let (candidate, term) = if m.applied.0 >= m.notified.0 {
            m.applied
        } else {
            m.notified
        };
        actor.step_with(JAVA, || {
            format!(
                "{why}: index = max(applied {}, notified {}) = {candidate}",
                m.applied.0, m.notified.0
            )
        });
        if node.flush_window().is_some_and(|n| n > candidate) {
            actor.probe(PROBE_SNAPSHOT_IN_WINDOW);
        }
        let row = OmRow::TxInfo {
            term,
            index: candidate,
        };
        let store = node.store();
        let reported = match node.index_write() {
            IndexWrite::Unguarded => {
                store.put(actor, JAVA, TX_TABLE, TX_KEY, row);
                candidate
            }
            IndexWrite::LockOnly => {
                let _tx = node.tx_info_lock().lock();
                store.put(actor, JAVA, TX_TABLE, TX_KEY, row);
                candidate
            }
            IndexWrite::CompareOnly => {
                let stored = index_of(store.get_skip_cache(actor, JAVA, TX_TABLE, TX_KEY));
                self.write_if_newer(node, actor, row, candidate, stored, false)
            }
            IndexWrite::CachedCompare => {
                let _tx = node.tx_info_lock().lock();
                let stored = index_of(store.get(actor, JAVA, TX_TABLE, TX_KEY));
                self.write_if_newer(node, actor, row, candidate, stored, true)
            }
            IndexWrite::PersistIfNewer => {
                let _tx = node.tx_info_lock().lock();
                let java = "OzoneManagerDoubleBuffer.persistIfNewer";
                let stored = index_of(store.get_skip_cache(actor, java, TX_TABLE, TX_KEY));
                self.write_if_newer(node, actor, row, candidate, stored, false)
            }
        };
        actor.step_with("RDBStore.flushDB", || {
            format!("flushDB; snapshot index reported to Ratis: {reported}")
        });
        drop(m);
        reported
    }

    fn write_if_newer(
        &self,
        node: &OmNode,
        actor: &Actor,
        row: OmRow,
        candidate: u64,
        stored: u64,
        fill_cache: bool,
    ) -> u64 {
        const JAVA: &str = "OzoneManagerDoubleBuffer.persistIfNewer";
        if candidate > stored {
            node.store().put(actor, JAVA, TX_TABLE, TX_KEY, row);
            if fill_cache {
                node.store().cache_put(actor, JAVA, TX_TABLE, TX_KEY, row);
            }
            candidate
        } else {
            actor.probe(PROBE_STALE_REFUSED);
            actor.step_with(JAVA, || {
                format!("candidate {candidate} <= stored {stored}: keep {stored}")
            });
            stored
        }
    }
}

fn index_of(row: Option<OmRow>) -> u64 {
    match row {
        Some(OmRow::TxInfo { index, .. }) => index,
        _ => 0,
    }
}
