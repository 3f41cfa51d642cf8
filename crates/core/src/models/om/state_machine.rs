//! `OzoneManagerStateMachine`: the applied index, Ratis notifications, and `takeSnapshot`.
//!
//! Java (`om/ratis/OzoneManagerStateMachine.java`):
//! [`notifyTermIndexUpdated`](java::OzoneManagerStateMachine::notifyTermIndexUpdated),
//! [`updateLastAppliedTermIndex`](java::OzoneManagerStateMachine::updateLastAppliedTermIndex)
//! and [`takeSnapshotImpl`](java::OzoneManagerStateMachine::takeSnapshotImpl) are
//! `synchronized` on the state machine; here that monitor is [`StateMachine`]'s mutex.
//!
//! - `notifyTermIndexUpdated` (an entry without state-machine data, such as a leader's
//!   configuration entry): when the new index jumps more than one past the last notified one,
//!   `lastSkippedIndex = newIndex - 1` (the data entries in between are the double buffer's to
//!   report); the notified index must not decrease
//!   ([`assertUpdateIncreasingly`](java::OzoneManagerStateMachine::assertUpdateIncreasingly), a
//!   Guava `checkArgument`: `IllegalArgumentException`); when it is exactly one past applied,
//!   applied moves to it.
//! - `updateLastAppliedTermIndex` (the flush thread, after a commit): the same assertion
//!   against applied; then, when the new index lies in `[lastSkippedIndex, notified)`, applied
//!   jumps to the notified entry (everything between is a notification already received), and
//!   [`BaseStateMachine.updateLastAppliedTermIndex`](java::BaseStateMachine::updateLastAppliedTermIndex__TermIndex)
//!   stores it.
//!   An assertion failure on the flush thread is caught by `flushCurrentBuffer` and terminates
//!   the OM; on the Ratis thread it reaches `StateMachineUpdater.run`, which closes the server
//!   (and so the OM). Both are an [`Exit`] here.
//! - [`takeSnapshot`](java::OzoneManagerStateMachine::takeSnapshot), not synchronized: while
//!   `applied < lastSkippedIndex` it throws if the OM is stopped, else waits for the double
//!   buffer to flush ([`awaitFlush`](java::OzoneManagerDoubleBuffer::awaitFlush)); then
//!   `takeSnapshotImpl` chooses `applied` if it is above `notified` by `(term, index)`, else
//!   `notified`, and persists it ([`super::persist`]).
//!
//! # Revisions
//!
//! Those rules are the Java at the pinned commit; a [`Revision`] selects the state machine as
//! at another commit, with the citations of that commit:
//!
//! - [`Revision::BEFORE_HDDS_10546`] (a122acca970, the parent of HDDS-10546): applied moves
//!   only with the double buffer's flushes. `notifyTermIndexUpdated` records the notified
//!   index and `lastSkippedIndex` but never moves applied, and `updateLastAppliedTermIndex`
//!   stores the flushed index as it is.
//! - [`Revision::HDDS_10546`] (9afaeacf715): applied follows the notifications. A
//!   notification exactly one past applied moves applied to it; a flush below the notified
//!   index jumps applied to the notified entry when applied **before** the flush was at or
//!   above `lastSkippedIndex`.
//! - [`Revision::PINNED`] (the default; the rule since HDDS-10798, 4e9dc2faae5, unchanged up
//!   to the pinned commit): the same, but the jump is taken when the **flushed** index is at
//!   or above `lastSkippedIndex`.
//!
//! Indices are the Java's plus one: Ratis' first entry (index 0) is the model's 1, and the
//! Java's initial `(0, -1)` for applied and notified and its initial `lastSkippedIndex = -1`
//! are the model's `(0, 0)` and 0.
//!
//! Abstracted away: `awaitFlush` completes after two flush notifications of the double buffer;
//! here the wait wakes whenever applied moves, and the loop re-checks its condition either way.
//! The in-memory `TransactionInfo` copy (`setTransactionInfo`, read by Ratis only at a restart,
//! where the model reads the stored row itself), `snapshotInfo`, metrics.

use super::persist::TxInfoWriter;
use super::TermIndex;
use crate::citation::{java, Citation};
use crate::recorder::Actor;
use crate::sync::{Condvar, Mutex};

/// What one `takeSnapshot` did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SnapshotTaken {
    /// The index it chose: applied or notified, whichever is later.
    pub chosen: u64,
    /// The index it reported to Ratis.
    pub reported: u64,
}

/// A throwable that ends the OM: the Java exception and the thread it ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exit {
    /// The Java method whose failure it is.
    pub java: &'static Citation,
    /// The exception and its message.
    pub what: String,
}

impl std::fmt::Display for Exit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.what)
    }
}

/// When `updateLastAppliedTermIndex` moves applied past a flushed index, to the notified entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SkipJump {
    /// Never: applied is the flushed index.
    Never,
    /// When the flushed index is below notified and applied before the flush is at or above
    /// `lastSkippedIndex` (HDDS-10546 as merged).
    WhenAppliedReachedSkipped,
    /// When the flushed index is below notified and at or above `lastSkippedIndex`
    /// (HDDS-10798 onward).
    WhenFlushedReachesSkipped,
}

/// The state machine's rules as at one Java commit, and the citations of that commit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Revision {
    /// The commit (and the change that made it), for listings and docs.
    pub commit: &'static str,
    /// Whether `notifyTermIndexUpdated` moves applied to a notified entry exactly one past it.
    pub applied_follows_notifications: bool,
    /// When a flush moves applied to the notified entry.
    pub skip_jump: SkipJump,
    /// `notifyTermIndexUpdated` at that commit.
    pub notify_term_index_updated: &'static Citation,
    /// `updateLastAppliedTermIndex` at that commit.
    pub update_last_applied_term_index: &'static Citation,
}

impl Revision {
    /// The pinned commit (78d5650c313): the rule of HDDS-10798 (4e9dc2faae5).
    pub const PINNED: Revision = Revision {
        commit: "78d5650c313 (applied's jump as HDDS-10798 left it)",
        applied_follows_notifications: true,
        skip_jump: SkipJump::WhenFlushedReachesSkipped,
        notify_term_index_updated: &java::OzoneManagerStateMachine::notifyTermIndexUpdated,
        update_last_applied_term_index: &java::OzoneManagerStateMachine::updateLastAppliedTermIndex,
    };

    /// HDDS-10546 as merged (9afaeacf715): applied follows the notifications; the jump looks
    /// at applied before the flush.
    pub const HDDS_10546: Revision = Revision {
        commit: "9afaeacf715 (HDDS-10546)",
        applied_follows_notifications: true,
        skip_jump: SkipJump::WhenAppliedReachedSkipped,
        notify_term_index_updated:
            &java::hdds_10546::OzoneManagerStateMachine::notifyTermIndexUpdated,
        update_last_applied_term_index:
            &java::hdds_10546::OzoneManagerStateMachine::updateLastAppliedTermIndex,
    };

    /// The parent of HDDS-10546 (a122acca970): applied moves only with the flushes.
    pub const BEFORE_HDDS_10546: Revision = Revision {
        commit: "a122acca970 (HDDS-10546's parent)",
        applied_follows_notifications: false,
        skip_jump: SkipJump::Never,
        notify_term_index_updated:
            &java::hdds_10546_parent::OzoneManagerStateMachine::notifyTermIndexUpdated,
        update_last_applied_term_index:
            &java::hdds_10546_parent::OzoneManagerStateMachine::updateLastAppliedTermIndex,
    };
}

impl Default for Revision {
    fn default() -> Self {
        Revision::PINNED
    }
}

/// The fields the state machine's monitor guards.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Indices {
    /// `BaseStateMachine.lastAppliedTermIndex`.
    applied: TermIndex,
    /// `lastNotifiedTermIndex`.
    notified: TermIndex,
    /// `lastSkippedIndex`.
    last_skipped: u64,
    /// `ozoneManager.isStopped()`, as `takeSnapshot` reads it.
    stopped: bool,
}

/// The state machine's monitor and the indices it guards.
#[derive(Debug)]
pub struct StateMachine {
    revision: Revision,
    monitor: Mutex<Indices>,
    /// Wakes `takeSnapshot`'s wait loop (`awaitFlush`).
    flushed: Condvar,
}

fn assert_increasing(name: &str, old: TermIndex, new: TermIndex) -> Result<TermIndex, String> {
    if new >= old {
        Ok(new)
    } else {
        Err(format!(
            "IllegalArgumentException: {name}: newTermIndex = {new} < oldTermIndex = {old}"
        ))
    }
}

impl StateMachine {
    /// A state machine whose applied index is `applied`, as the constructor leaves it after
    /// `loadSnapshotInfoFromDB`: notified and `lastSkippedIndex` at their initial values.
    pub fn new(applied: TermIndex) -> Self {
        Self::at(Revision::PINNED, applied)
    }

    /// [`StateMachine::new`] with the rules of `revision`.
    pub fn at(revision: Revision, applied: TermIndex) -> Self {
        Self {
            revision,
            monitor: Mutex::labelled(
                "state machine",
                Indices {
                    applied,
                    ..Indices::default()
                },
            ),
            flushed: Condvar::new(),
        }
    }

    /// `notifyTermIndexUpdated`: Ratis reports an entry without state-machine data (the
    /// configuration entry of a new term). `Err` is the assertion's exception, which closes
    /// the Ratis server.
    pub fn notify_term_index_updated(
        &self,
        actor: &Actor,
        term: u64,
        index: u64,
    ) -> Result<(), Exit> {
        let java = self.revision.notify_term_index_updated;
        let mut m = self.monitor.lock();
        let new = TermIndex::new(term, index);
        let skipped = if index > m.notified.index + 1 {
            m.last_skipped = index - 1;
            format!(", lastSkipped -> {}", index - 1)
        } else {
            String::new()
        };
        m.notified = assert_increasing("lastNotified", m.notified, new).map_err(|what| {
            actor.step_with(java, || format!("configuration entry {index}: {what}"));
            Exit { java, what }
        })?;
        let follows = self.revision.applied_follows_notifications;
        let moved = if follows && m.notified.index.checked_sub(m.applied.index) == Some(1) {
            let notified = m.notified;
            let to = self.update_locked(&mut m, notified).map_err(|what| {
                actor.step_with(java, || format!("configuration entry {index}: {what}"));
                Exit { java, what }
            })?;
            format!(", applied -> {}", to.index)
        } else {
            String::new()
        };
        actor.step_with(java, || {
            format!("configuration entry {index} (t{term}): notified -> {index}{skipped}{moved}")
        });
        Ok(())
    }

    /// The body of `updateLastAppliedTermIndex`, under the monitor: returns the new applied.
    fn update_locked(&self, m: &mut Indices, new: TermIndex) -> Result<TermIndex, String> {
        let mut new = assert_increasing("lastApplied", m.applied, new)?;
        let reached = match self.revision.skip_jump {
            SkipJump::Never => false,
            SkipJump::WhenAppliedReachedSkipped => m.applied.index >= m.last_skipped,
            SkipJump::WhenFlushedReachesSkipped => new.index >= m.last_skipped,
        };
        if new.index < m.notified.index && reached {
            new = m.notified;
        }
        m.applied = new;
        self.flushed.notify_all();
        Ok(new)
    }

    /// `updateLastAppliedTermIndex`: the flush thread advances applied after a commit. `Err`
    /// is the assertion's exception, which terminates the OM on the flush thread.
    pub fn update_last_applied(&self, actor: &Actor, last: TermIndex) -> Result<(), Exit> {
        let java = self.revision.update_last_applied_term_index;
        let mut m = self.monitor.lock();
        match self.update_locked(&mut m, last) {
            Ok(to) => {
                actor.step_with(java, || {
                    if to == last {
                        format!("applied -> {}", to.index)
                    } else {
                        format!(
                            "flushed {}: within [lastSkipped {}, notified {}): applied -> {}",
                            last.index, m.last_skipped, m.notified.index, to.index
                        )
                    }
                });
                Ok(())
            }
            Err(what) => {
                actor.step(java, what.clone());
                Err(Exit { java, what })
            }
        }
    }

    /// The OM stopped or terminated: `takeSnapshot`'s wait loop gives up.
    pub fn stop(&self) {
        self.monitor.lock().stopped = true;
        self.flushed.notify_all();
    }

    /// The rules it follows.
    pub fn revision(&self) -> Revision {
        self.revision
    }

    /// The applied index.
    pub fn applied(&self) -> TermIndex {
        self.monitor.lock().applied
    }

    /// `takeSnapshot`: wait while `applied < lastSkippedIndex`, then `takeSnapshotImpl`, which
    /// under the monitor chooses applied or notified, whichever is later, and persists it
    /// through `writer`. `Err` is the `IOException` thrown when the OM stopped while waiting
    /// (Ratis logs it and skips the snapshot).
    ///
    /// The loop's last check and `takeSnapshotImpl`'s entry into the monitor are one step here.
    /// That loses no behaviour: applied only grows, and `lastSkippedIndex` is written only by
    /// `notifyTermIndexUpdated` on the Ratis thread, the thread that takes the snapshot, so a
    /// check that passes still passes when `takeSnapshotImpl` takes the monitor.
    pub fn take_snapshot(
        &self,
        writer: &TxInfoWriter,
        actor: &Actor,
        why: &str,
    ) -> Result<SnapshotTaken, String> {
        let mut m = self.monitor.lock();
        actor.step_with(&java::OzoneManagerStateMachine::takeSnapshot, || {
            format!(
                "{why}: applied {} vs lastSkipped {}",
                m.applied.index, m.last_skipped
            )
        });
        while m.applied.index < m.last_skipped {
            if m.stopped {
                let what = "IOException: OzoneManager is already stopped".to_string();
                actor.step(&java::OzoneManagerStateMachine::takeSnapshot, what.clone());
                return Err(what);
            }
            actor.step_with(&java::OzoneManagerDoubleBuffer::awaitFlush, || {
                format!(
                    "applied {} < lastSkipped {}: wait for a flush",
                    m.applied.index, m.last_skipped
                )
            });
            m = self.flushed.wait(m);
        }
        Ok(self.take_snapshot_locked(&m, writer, actor, why))
    }

    /// `takeSnapshotImpl` alone, under the monitor (no wait loop).
    pub fn take_snapshot_impl(
        &self,
        writer: &TxInfoWriter,
        actor: &Actor,
        why: &str,
    ) -> SnapshotTaken {
        let m = self.monitor.lock();
        self.take_snapshot_locked(&m, writer, actor, why)
    }

    fn take_snapshot_locked(
        &self,
        m: &Indices,
        writer: &TxInfoWriter,
        actor: &Actor,
        why: &str,
    ) -> SnapshotTaken {
        const JAVA: &Citation = &java::OzoneManagerStateMachine::takeSnapshotImpl;
        let candidate = if m.applied > m.notified {
            m.applied
        } else {
            m.notified
        };
        actor.step_with(JAVA, || {
            format!(
                "{why}: applied {} vs notified {}: index {}",
                m.applied, m.notified, candidate.index
            )
        });
        let reported = writer.persist_snapshot(actor, JAVA, candidate);
        actor.step_with(&java::RDBStore::flushDB, || {
            format!("flushDB; snapshot index reported to Ratis: {reported}")
        });
        SnapshotTaken {
            chosen: candidate.index,
            reported,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Revision, StateMachine};
    use crate::engine::run_once;
    use crate::models::om::TermIndex;
    use crate::recorder::{Actor, Recorder};
    use crate::sync::Arc;

    /// Notifications 1 and 3 (term 2; `lastSkippedIndex` 2), then the flush of entry 2.
    fn gap_then_flush(revision: Revision) -> (u64, u64) {
        let rec = Arc::new(Recorder::new(None));
        let me = Actor::new("ratis", &rec);
        let sm = StateMachine::at(revision, TermIndex::default());
        sm.notify_term_index_updated(&me, 1, 1).unwrap();
        let after_notification = sm.applied().index;
        sm.notify_term_index_updated(&me, 2, 3).unwrap();
        sm.update_last_applied(&me, TermIndex::new(1, 2)).unwrap();
        (after_notification, sm.applied().index)
    }

    #[test]
    fn each_revision_moves_applied_by_its_own_rule() {
        run_once(|| {
            // Pinned: the notification one past applied moves it; the flush of the skipped
            // entry 2 jumps to the notified 3.
            assert_eq!(gap_then_flush(Revision::default()), (1, 3));
            // HDDS-10546 as merged: applied (1) before the flush is below lastSkipped (2): no
            // jump.
            assert_eq!(gap_then_flush(Revision::HDDS_10546), (1, 2));
            // Before HDDS-10546: notifications never move applied; a flush stores its index.
            assert_eq!(gap_then_flush(Revision::BEFORE_HDDS_10546), (0, 2));
        });
    }

    #[test]
    fn a_historical_revision_cites_its_own_commit() {
        assert_eq!(
            Revision::BEFORE_HDDS_10546.notify_term_index_updated.pin,
            "hdds-10546-parent"
        );
        assert_eq!(
            Revision::HDDS_10546.update_last_applied_term_index.pin,
            "hdds-10546"
        );
        assert_eq!(Revision::PINNED.notify_term_index_updated.pin, "ozone");
    }
}
