//! Several replicas over one committed log: a shared [`RaftLog`] behind a lock, and the
//! bookkeeping of one replica that applies it (its applied index, whether it is running,
//! catching up from the log or from a leader's checkpoint).
//!
//! It stands for the Ratis server side that every state machine of a group sees: the leader
//! appends, each running follower applies the committed entries in order, and a replica
//! whose next entry was purged gets the leader's snapshot instead
//! (`StateMachine.notifyInstallSnapshotFromLeader`). Abstracted away: elections (a plan
//! names the leader), acknowledgements and quorums (an appended entry is committed), and
//! the network (a running replica applies when someone drives it, see [`Applier`]).
//!
//! The log lock is taken once per append and once per read, so each is one scheduling
//! point.
//!
//! ```
//! use ozone_ha_check::kit::replica::{Applier, CatchUp, SharedLog};
//! # ozone_ha_check::engine::run_once(|| {
//! let log: SharedLog<&str> = SharedLog::new();
//! log.start_term(1);
//! log.append("a");
//! let mut me = Applier::new(0);
//! let mut seen = Vec::new();
//! let r = me.catch_up(&log, |e| seen.push(e.index));
//! assert_eq!(r, CatchUp::Applied(2));
//! assert_eq!(seen, vec![1, 2]);
//! log.purge_through(2);
//! assert_eq!(Applier::new(0).catch_up(&log, |_| ()), CatchUp::NeedsCheckpoint);
//! # });
//! ```

use super::raft_log::{LogEntry, RaftLog};
use crate::sync::{fingerprint, Concurrent};

/// The committed log every replica of a group applies.
#[derive(Debug)]
pub struct SharedLog<E> {
    /// Ratis's `SegmentedRaftLog` reads entries under its read lock (`get`, `getEntries`,
    /// `getLastEntryTermIndex`) and appends or purges under its write lock: reads commute.
    log: Concurrent<RaftLog<E>>,
}

impl<E: Clone> Default for SharedLog<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Clone> SharedLog<E> {
    /// An empty log.
    pub fn new() -> Self {
        Self {
            log: Concurrent::new("replicated log", RaftLog::new()),
        }
    }

    /// A shared log holding `log`.
    pub fn with_log(log: RaftLog<E>) -> Self {
        Self {
            log: Concurrent::new("replicated log", log),
        }
    }

    /// A new leader term (its configuration entry); returns the entry's index.
    pub fn start_term(&self, term: u64) -> u64 {
        self.log.write(|l| l.start_term(term))
    }

    /// Append (and commit) a transaction; returns its index.
    pub fn append(&self, data: E) -> u64 {
        self.log.write(|l| l.append(data))
    }

    /// The index of the last entry.
    pub fn last_index(&self) -> u64 {
        self.log.read_seen(RaftLog::last_index, RaftLog::last_index)
    }

    /// The entries after `index`, or `None` when some of them were purged.
    pub fn entries_after(&self, index: u64) -> Option<Vec<LogEntry<E>>> {
        // Every write appends an entry or purges the front, and an entry never changes once
        // appended: the log a read met is named by its last index and how far it was purged.
        self.log.read_seen(
            |l| fingerprint(&(l.last_index(), l.purged_through())),
            |log| {
                log.can_replay_from(index)
                    .then(|| log.after(index).cloned().collect())
            },
        )
    }

    /// Purge the log through `index` (after a snapshot there).
    pub fn purge_through(&self, index: u64) {
        self.log.write(|l| l.purge_through(index));
    }

    /// A copy of the whole log, for final observations.
    pub fn snapshot(&self) -> RaftLog<E> {
        self.log.read(|l| l.clone())
    }
}

/// What a catch-up did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CatchUp {
    /// Applied every entry up to this index (the replica's applied index now).
    Applied(u64),
    /// The next entry is purged: the replica must install a leader's checkpoint.
    NeedsCheckpoint,
}

/// One replica's position in the log. The owner keeps it under the lock that orders its
/// applies (the state machine's apply thread), so entries are applied once, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Applier {
    applied: u64,
}

impl Applier {
    /// A replica whose state covers `applied`.
    pub fn new(applied: u64) -> Self {
        Self { applied }
    }

    /// The applied index.
    pub fn applied(&self) -> u64 {
        self.applied
    }

    /// Apply, in order, every committed entry after the applied index.
    pub fn catch_up<E: Clone>(
        &mut self,
        log: &SharedLog<E>,
        mut apply: impl FnMut(&LogEntry<E>),
    ) -> CatchUp {
        let Some(entries) = log.entries_after(self.applied) else {
            return CatchUp::NeedsCheckpoint;
        };
        for entry in &entries {
            apply(entry);
            self.applied = entry.index;
        }
        CatchUp::Applied(self.applied)
    }

    /// As [`Applier::catch_up`], but first tell `appended` the last index fetched, before
    /// any of the entries is applied: a follower's log holds an entry (its match index moves)
    /// before its state machine applies it.
    pub fn catch_up_appending<E: Clone>(
        &mut self,
        log: &SharedLog<E>,
        appended: impl FnOnce(u64),
        mut apply: impl FnMut(&LogEntry<E>),
    ) -> CatchUp {
        let Some(entries) = log.entries_after(self.applied) else {
            return CatchUp::NeedsCheckpoint;
        };
        if let Some(last) = entries.last() {
            appended(last.index);
        }
        for entry in &entries {
            apply(entry);
            self.applied = entry.index;
        }
        CatchUp::Applied(self.applied)
    }

    /// The state now covers `index` (a checkpoint at that index was installed).
    pub fn installed(&mut self, index: u64) {
        self.applied = index;
    }
}
