//! Bookkeeping that the engines must not see.
//!
//! The trace, probe counters and ghost variables (state kept only so that a probe or an
//! invariant can be evaluated) live behind a plain `std::sync::Mutex`. Under shuttle and loom
//! every thread runs on one OS thread, so this lock never blocks and never becomes a
//! scheduling point: recording a step does not change which interleavings are explored.
//! Under real threads it is a real lock, held only for a few instructions.

/// A cell for bookkeeping state, invisible to the exploration engines.
///
/// Under the stateful engine ([`crate::engine::stateful`]) a model's ghost cell is one more object whose
/// accesses are recorded (not yielded on): two executions whose threads wrote a ghost in
/// different orders are then different states, so an end-of-run check that reads a ghost
/// sees every order it could see under any other engine. The recorder's own cell
/// ([`Ghost::bookkeeping`]) is not recorded: what it holds (the trace, probe counts, the
/// violations found) decides no verdict through the order of its writes.
#[derive(Debug)]
pub struct Ghost<T> {
    cell: std::sync::Mutex<T>,
    #[cfg(not(ohc_threads))]
    id: Option<crate::engine::stateful::facade::ObjectId>,
}

impl<T: Default> Default for Ghost<T> {
    fn default() -> Self {
        Self::new(T::default())
    }
}

impl<T> Ghost<T> {
    /// A new ghost cell.
    pub fn new(value: T) -> Self {
        Self {
            cell: std::sync::Mutex::new(value),
            #[cfg(not(ohc_threads))]
            id: Some(crate::engine::stateful::facade::new_object()),
        }
    }

    /// A ghost cell for the recorder's bookkeeping, whose accesses are never recorded.
    pub fn bookkeeping(value: T) -> Self {
        Self {
            cell: std::sync::Mutex::new(value),
            #[cfg(not(ohc_threads))]
            id: None,
        }
    }

    /// Run `f` on the value.
    pub fn with<R>(&self, f: impl FnOnce(&mut T) -> R) -> R {
        #[cfg(not(ohc_threads))]
        if let Some(id) = self.id {
            crate::engine::stateful::facade::record(id, crate::engine::stateful::facade::Op::Ghost);
        }
        let mut guard = self
            .cell
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
