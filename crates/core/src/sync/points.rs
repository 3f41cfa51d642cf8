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

use std::cell::RefCell;
use std::collections::BTreeMap;

thread_local! {
    static POINTS: RefCell<BTreeMap<&'static str, u64>> = const { RefCell::new(BTreeMap::new()) };
}

/// Count one scheduling point of `kind`.
pub fn count(kind: &'static str) {
    if cfg!(ohc_threads) {
        return;
    }
    POINTS.with(|p| *p.borrow_mut().entry(kind).or_default() += 1);
}

/// The counts since the last call, by kind; the counter starts again from zero.
pub fn take() -> BTreeMap<&'static str, u64> {
    POINTS.with(|p| std::mem::take(&mut *p.borrow_mut()))
}
