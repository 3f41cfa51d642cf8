//! Bookkeeping that the engines must not see.
//!
//! The trace, probe counters and ghost variables (state kept only so that a probe or an
//! invariant can be evaluated) live behind a plain `std::sync::Mutex`. Under shuttle and loom
//! every thread runs on one OS thread, so this lock never blocks and never becomes a
//! scheduling point: recording a step does not change which interleavings are explored.
//! Under real threads it is a real lock, held only for a few instructions.

/// A cell for bookkeeping state, invisible to the exploration engines.
#[derive(Debug, Default)]
pub struct Ghost<T>(std::sync::Mutex<T>);

impl<T> Ghost<T> {
    /// A new ghost cell.
    pub fn new(value: T) -> Self {
        Self(std::sync::Mutex::new(value))
    }

    /// Run `f` on the value.
    pub fn with<R>(&self, f: impl FnOnce(&mut T) -> R) -> R {
        let mut guard = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        f(&mut guard)
    }
}

impl<T: Clone> Ghost<T> {
    /// A copy of the value.
    pub fn get(&self) -> T {
        self.with(|v| v.clone())
    }

    /// Replace the value.
    pub fn set(&self, value: T) {
        self.with(|v| *v = value);
    }
}
