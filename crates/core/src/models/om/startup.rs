//! OM startup after a stop or a crash: `OzoneManager.start` reopens the DB,
//! `OzoneManagerStateMachine.loadSnapshotInfoFromDB` reads the stored `TransactionInfo`, and
//! Ratis replays every log entry after it, through the apply thread while the double buffer's
//! flush thread runs ([`replay_after`]). A follower that installs a leader's checkpoint does the
//! same from the checkpoint's `TransactionInfo`, without restarting.

use super::actors::{apply_channels, apply_executor, ApplyEnd};
use super::node::OmNode;
use super::persist::IndexWrite;
use super::requests::OmRequest;
use super::OmRow;
use crate::citation::java;
use crate::kit::raft_log::{LogEntry, Payload, RaftLog};
use crate::kit::store::{Store, Tables};
use crate::kit::tx_info::{stored_index, TxRow, TX_KEY};
use crate::recorder::Actor;
use crate::sync::{thread, Arc};
use std::fmt;

/// Reopen `store` and read its stored index (`loadSnapshotInfoFromDB`); returns the index
/// and the durable tables the replay starts from. `who` names the OM in the trace.
pub fn load_snapshot_info<V: TxRow + fmt::Display>(
    store: &Store<V>,
    actor: &Actor,
    who: &str,
) -> (u64, Tables<V>) {
    store.reopen(actor, &java::OzoneManager::start);
    let view = store.durable();
    let stored = stored_index(&view);
    actor.step_with(
        &java::OzoneManagerStateMachine::loadSnapshotInfoFromDB,
        || {
            format!(
                "{who}applied = stored TX {stored}; Ratis replays from {}",
                stored + 1
            )
        },
    );
    (stored, view)
}

/// The data entries of `log` after `index`, in order.
pub fn data_after<E>(log: &RaftLog<E>, index: u64) -> impl Iterator<Item = (&LogEntry<E>, &E)> {
    log.after(index).filter_map(|entry| match &entry.payload {
        Payload::Data(request) => Some((entry, request)),
        Payload::Configuration => None,
    })
}

/// How a restart's replay ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Replayed {
    /// Every entry after the stored index was applied and flushed.
    Completed,
    /// The entry at `index` terminated the OM: its apply threw (`runCommand` terminated the OM
    /// before anything of that entry was queued, so the stored index still precedes it), or,
    /// in the snapshot model, its flush did.
    Terminated {
        /// The entry's index.
        index: u64,
        /// The throwable.
        why: String,
    },
}

/// Restart an OM whose DB is `store` and replay every key request after its stored index:
/// [`replay_after`] from the reopened DB.
pub fn restart_and_replay(
    store: &Arc<Store<OmRow>>,
    log: &RaftLog<OmRequest>,
    me: &Actor,
) -> Replayed {
    let (stored, view) = load_snapshot_info(store.as_ref(), me, "");
    replay_after(store, log, stored, view, me)
}

/// Apply and flush every data entry of `log` after `stored` on an OM whose DB is `store` and
/// whose table view is `view`, as Ratis does after a restart
/// ([`StateMachineUpdater.run`](java::StateMachineUpdater::run) from the loaded index) or
/// after a follower installed a leader's checkpoint (the updater's `reload` from the
/// checkpoint's `TransactionInfo`): `me` submits each entry and runs the apply executor
/// ([`apply_executor`], one thread applying in log order), while a spawned `replay-flush`
/// thread is the double buffer's flush thread ([`OmNode::flush_thread`]), so a batch may hold
/// several entries and an entry may be flushed before or after the next one is applied.
///
/// A request that throws terminates the OM ([`runCommand`](java::OzoneManagerStateMachine::runCommand)):
/// nothing of that entry is queued, so the stored index stays below it, whatever the flush
/// thread committed of the earlier entries. When every entry is applied, `me` waits for the
/// flush ([`awaitFlush`](java::OzoneManagerDoubleBuffer::awaitFlush)) and stops the flush
/// thread (the model's end; the OM would go on running).
///
/// Abstracted away: snapshots during the replay (none is triggered), the Ratis thread's
/// configuration entries (skipped: [`data_after`]).
pub fn replay_after(
    store: &Arc<Store<OmRow>>,
    log: &RaftLog<OmRequest>,
    stored: u64,
    view: Tables<OmRow>,
    me: &Actor,
) -> Replayed {
    if data_after(log, stored).next().is_none() {
        return Replayed::Completed;
    }
    let term = view
        .get(OmRow::TABLE, TX_KEY)
        .and_then(OmRow::term_index)
        .map_or(0, |t| t.term);
    let node = Arc::new(OmNode::new(
        Arc::clone(store),
        IndexWrite::Unguarded,
        stored,
        term,
    ));
    let flush = {
        let (node, flusher) = (Arc::clone(&node), Actor::new("replay-flush", me.recorder()));
        thread::spawn("replay-flush", move || node.flush_thread(&flusher))
    };
    let (futures, queue) = apply_channels();
    for (entry, request) in data_after(log, stored) {
        futures.submit(me, entry.index, entry.term, request);
    }
    futures.close();
    let end = apply_executor(&node, me, queue, view);
    if end == ApplyEnd::Drained && node.await_flush(me, &java::OzoneManagerDoubleBuffer::awaitFlush)
    {
        node.buffer().stop(me, "replay flushed");
    }
    flush.join();
    match end {
        ApplyEnd::Drained if node.exits().is_empty() => Replayed::Completed,
        ApplyEnd::Drained => Replayed::Terminated {
            index: stored_index(&store.durable()) + 1,
            why: node.exits().last().cloned().unwrap_or_default(),
        },
        ApplyEnd::Terminated { index } => Replayed::Terminated {
            index,
            why: node.exits().last().cloned().unwrap_or_default(),
        },
    }
}
