//! What the sync facade calls: the hooks by which each operation yields to the stateful
//! engine, takes effect and is recorded, or blocks until its object changes. Nothing else of
//! the engine is visible to the facade.

pub(crate) use super::registry::{
    active, await_exit, block, block_task, current_task, finished, hold_mark, in_hold, left_mover,
    lock_state, look, new_object, part, passing_engine_lock, point, record, record_added,
    record_read, short_hold, spawning, started, touch, unblock, unblock_as, wait_for, wants,
    witness, Access, ObjectId, Op,
};
#[cfg(not(any(loom, ohc_threads)))]
pub(crate) use super::registry::{choosing, chose, spawned};
