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

/// Count one scheduling point of `kind`.
pub fn count(kind: &'static str) {
    if cfg!(ohc_threads) {
        return;
    }
    POINTS.with(|p| *p.borrow_mut().entry(kind).or_default() += 1);
    COUNTED.with(|c| c.set(c.get() + 1));
}

/// Every point counted on this thread so far, of any kind ([`take`] does not reset it). A
/// scheduler reads it at each decision: what was counted since the last one is the running
/// task's, so it knows how far each task has gone, under either engine
/// ([`crate::engine::Standing`]).
pub(crate) fn counted() -> u64 {
    COUNTED.with(Cell::get)
}

/// The counts since the last call, by kind; the counter starts again from zero.
pub fn take() -> BTreeMap<&'static str, u64> {
    POINTS.with(|p| std::mem::take(&mut *p.borrow_mut()))
}
