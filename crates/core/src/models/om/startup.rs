//! OM startup after a stop or a crash: `OzoneManager.start` reopens the DB,
//! `OzoneManagerStateMachine.loadSnapshotInfoFromDB` reads the stored `TransactionInfo`, and
//! Ratis replays every log entry after it.

use super::requests::OmRequest;
use super::OmRow;
use crate::citation::java;
use crate::kit::raft_log::{LogEntry, Payload, RaftLog};
use crate::kit::store::{Store, Tables, WriteBatch};
use crate::kit::tx_info::{stage_tx_info, stored_index, TxRow};
use crate::recorder::Actor;
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
    /// Applying the entry at `index` threw; `runCommand` terminated the OM before anything of
    /// that entry was queued, so the stored index still precedes it.
    Terminated {
        /// The entry's index.
        index: u64,
        /// The throwable.
        why: String,
    },
}

/// Restart an OM whose DB is `store` and replay every key request after its stored index,
/// each applied and flushed in order, until a request throws: then the OM terminates
/// ([`runCommand`](java::OzoneManagerStateMachine::runCommand)) and the replay stops there.
pub fn restart_and_replay(store: &Store<OmRow>, log: &RaftLog<OmRequest>, me: &Actor) -> Replayed {
    let (stored, mut view) = load_snapshot_info(store, me, "");
    for (entry, request) in data_after(log, stored) {
        let applied = match request.apply(entry.index, &mut view) {
            Ok(applied) => applied,
            Err(thrown) => {
                me.step_with(thrown.java, || {
                    format!("replay index {} {request}: {thrown}", entry.index)
                });
                me.step_with(&java::OzoneManagerStateMachine::runCommand, || {
                    format!("index {}: not an IOException: terminate", entry.index)
                });
                me.step(
                    &java::ExitUtils::terminate__int_String_Throwable_Logger,
                    "OM terminates",
                );
                return Replayed::Terminated {
                    index: entry.index,
                    why: thrown.what,
                };
            }
        };
        me.step_with(request.java(), || {
            format!(
                "replay index {} {request}: {}",
                entry.index, applied.summary
            )
        });
        let mut batch: WriteBatch<OmRow> = applied.rows;
        stage_tx_info(&mut batch, entry.term, entry.index);
        store.commit(me, &java::OzoneManagerDoubleBuffer::flushBatch, batch);
    }
    Replayed::Completed
}
