//! A Raft-like replicated log: the committed entries every replica applies in order.
//!
//! It stands for the committed prefix of a Ratis `RaftLog`. Raft guarantees that replicas
//! agree on committed entries, so the models share one log and keep per replica only what
//! differs: how far each has applied, and from where it replays after a restart or a
//! checkpoint install. Abstracted away: elections, terms beyond a number, uncommitted
//! entries, the network.
//!
//! Every leader term starts with a configuration entry that carries no state-machine data
//! (Ratis's `LeaderStateImpl` startup entry). The state machine learns of it through
//! `notifyTermIndexUpdated`, not `applyTransaction`, so it can move the applied index with no
//! database write: models that ignore it miss the HDDS-16092 partial-fix failures.
//!
//! ```
//! use ozone_ha_check::kit::raft_log::{Payload, RaftLog};
//! let mut log = RaftLog::new();
//! log.start_term(1);
//! log.append("create k1");
//! log.append("commit k1");
//! assert_eq!(log.last_index(), 3);
//! assert!(matches!(log.entry(1).unwrap().payload, Payload::Configuration));
//! assert_eq!(log.after(1).count(), 2);
//! ```

/// What an entry carries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Payload<E> {
    /// A configuration entry: no state-machine data.
    Configuration,
    /// A state-machine transaction.
    Data(E),
}

/// One committed entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogEntry<E> {
    /// The log index, from 1.
    pub index: u64,
    /// The leader term that wrote it.
    pub term: u64,
    /// The payload.
    pub payload: Payload<E>,
}

/// The committed log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RaftLog<E> {
    entries: Vec<LogEntry<E>>,
    term: u64,
    purged_through: u64,
}

impl<E> Default for RaftLog<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> RaftLog<E> {
    /// An empty log.
    pub fn new() -> Self {
        Self {
            entries: Vec::new(),
            term: 0,
            purged_through: 0,
        }
    }

    /// A new leader term: appends its configuration entry and returns its index.
    pub fn start_term(&mut self, term: u64) -> u64 {
        self.term = term;
        self.push(Payload::Configuration)
    }

    /// Append a transaction in the current term and return its index.
    pub fn append(&mut self, data: E) -> u64 {
        self.push(Payload::Data(data))
    }

    fn push(&mut self, payload: Payload<E>) -> u64 {
        let index = self.last_index() + 1;
        self.entries.push(LogEntry {
            index,
            term: self.term,
            payload,
        });
        index
    }

    /// The index through which entries were purged, 0 when none were.
    pub fn purged_through(&self) -> u64 {
        self.purged_through
    }

    /// The index of the last entry, 0 when empty.
    pub fn last_index(&self) -> u64 {
        self.entries.last().map_or(0, |e| e.index)
    }

    /// The entry at `index`, unless it is absent or purged.
    pub fn entry(&self, index: u64) -> Option<&LogEntry<E>> {
        if index <= self.purged_through {
            return None;
        }
        self.entries
            .get(usize::try_from(index).ok()?.checked_sub(1)?)
    }

    /// Every entry after `index` that is still in the log, in order: what a replica replays
    /// when its state covers `index`. Check [`RaftLog::can_replay_from`] first: after a purge
    /// past `index` the replica must install a checkpoint instead.
    pub fn after(&self, index: u64) -> impl Iterator<Item = &LogEntry<E>> {
        let from = index.max(self.purged_through);
        self.entries.iter().filter(move |e| e.index > from)
    }

    /// Whether a replica whose state covers `index` can catch up from the log alone.
    pub fn can_replay_from(&self, index: u64) -> bool {
        index >= self.purged_through
    }

    /// Purge entries up to and including `index` (after a snapshot at that index).
    pub fn purge_through(&mut self, index: u64) {
        self.purged_through = self.purged_through.max(index.min(self.last_index()));
    }

    /// Every entry up to and including `index`, in order.
    pub fn prefix(&self, index: u64) -> impl Iterator<Item = &LogEntry<E>> {
        self.entries.iter().take_while(move |e| e.index <= index)
    }
}
