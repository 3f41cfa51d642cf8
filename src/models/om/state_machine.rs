//! `OzoneManagerStateMachine`: the applied index, Ratis notifications, and `takeSnapshot`.
//!
//! Java (`om/ratis/OzoneManagerStateMachine.java`): `notifyTermIndexUpdated` (:242),
//! `updateLastAppliedTermIndex` (:262) and `takeSnapshotImpl` (:596) are `synchronized` on
//! the state machine; here that monitor is [`StateMachine`]'s mutex. `takeSnapshotImpl`
//! computes `index = max(applied, notified)` (:597-599) and writes `TRANSACTION_INFO_KEY`
//! with an unbatched put (:604), then `flushDB` (:605).
//!
//! The variants of that write ([`super::persist::IndexWrite`]) are the Java as it is and the
//! fixes proposed for HDDS-16092 (apache/ozone PR #10953 and its two halves).
//!
//! Abstracted away: the wait loop in `takeSnapshot` (:582-591) runs only while
//! `applied < lastSkippedIndex`, and `lastSkippedIndex` moves only when Ratis skips indices
//! in its notifications, which these plans never do (their one configuration entry is index
//! 1, right after 0); terms beyond a number; `snapshotInfo` and the in-memory
//! `TransactionInfo` copy (nothing in the plans reads them).

use super::persist::TxInfoWriter;
use crate::cite::{java, Citation};
use crate::recorder::Actor;
use crate::sync::Mutex;

/// What one `takeSnapshot` did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SnapshotTaken {
    /// The index it chose: `max(applied, notified)`.
    pub chosen: u64,
    /// The index it reported to Ratis.
    pub reported: u64,
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
        actor.step_with(
            &java::OzoneManagerStateMachine::notifyTermIndexUpdated,
            || format!("configuration entry {index}: notified -> {index}{moved}"),
        );
    }

    /// `updateLastAppliedTermIndex`: the flush thread advances applied after a commit.
    pub fn update_last_applied(&self, actor: &Actor, term: u64, index: u64) {
        let mut m = self.monitor.lock();
        if index > m.applied.0 {
            m.applied = (index, term);
        }
        actor.step_with(
            &java::OzoneManagerStateMachine::updateLastAppliedTermIndex,
            || format!("applied -> {}", m.applied.0),
        );
    }

    /// `takeSnapshot` / `takeSnapshotImpl`: under the monitor, choose
    /// `max(applied, notified)` and persist it through `writer`.
    pub fn take_snapshot(&self, writer: &TxInfoWriter, actor: &Actor, why: &str) -> SnapshotTaken {
        const JAVA: &Citation = &java::OzoneManagerStateMachine::takeSnapshotImpl;
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
        let reported = writer.persist_snapshot(actor, JAVA, term, candidate);
        actor.step_with(&java::RDBStore::flushDB, || {
            format!("flushDB; snapshot index reported to Ratis: {reported}")
        });
        drop(m);
        SnapshotTaken {
            chosen: candidate,
            reported,
        }
    }
}
