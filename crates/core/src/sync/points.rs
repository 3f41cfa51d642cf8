//! Counts of the scheduling points an execution passes, by kind: what an exploration engine
//! branches on (every lock, wait, notification, spawn and join of the facade).
//!
//! The counts live in a thread-local cell: under shuttle and loom every task of an
//! exploration runs on the thread that drives it, so one exploration's counts are its own.
//! Counting is never a scheduling point; real threads do not count.
//!
//! ```
//! use ozone_ha_check::sync::{points, Mutex};
//!
//! # ozone_ha_check::engine::run_once(|| {
//! points::take();
//! let m = Mutex::labelled("store", 0);
//! *m.lock() += 1;
//! # #[cfg(not(ohc_threads))]
//! assert_eq!(points::take().get("store"), Some(&1));
//! # });
//! ```

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;

thread_local! {
    static POINTS: RefCell<BTreeMap<&'static str, u64>> = const { RefCell::new(BTreeMap::new()) };
    static COUNTED: Cell<u64> = const { Cell::new(0) };
}

/// Count one scheduling point of `kind`, at an operation of the facade.
pub fn count(kind: &'static str) {
    if cfg!(ohc_threads) {
        return;
    }
    count_inner(kind);
    COUNTED.with(|c| c.set(c.get() + 1));
}

/// Count one scheduling point of `kind` inside an operation already counted (a channel's
/// wait for a value, its notification of a send, a woken waiter's taking its lock again
/// under the stateful engine): a point of its kind, not an operation of its own
/// ([`counted`]). Each engine runs an operation in steps of its own; it counts once under
/// every engine.
pub(crate) fn count_inner(kind: &'static str) {
    if cfg!(ohc_threads) {
        return;
    }
    POINTS.with(|p| *p.borrow_mut().entry(kind).or_default() += 1);
}

/// Every operation counted on this thread so far ([`count`]; [`take`] does not reset it). A
/// scheduler reads it at each decision: what was counted since the last one is the running
/// task's, so it knows how far each task has gone, under either engine
/// ([`crate::engine::Strategy::Along`]).
#[cfg(not(any(loom, ohc_threads)))]
pub(crate) fn counted() -> u64 {
    COUNTED.with(Cell::get)
}

/// The counts since the last call, by kind; the counter starts again from zero.
pub fn take() -> BTreeMap<&'static str, u64> {
    POINTS.with(|p| std::mem::take(&mut *p.borrow_mut()))
}
