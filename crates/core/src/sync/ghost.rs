//! Bookkeeping that the engines must not see.
//!
//! The trace, probe counters and ghost variables (state kept only so that a probe or an
//! invariant can be evaluated) live behind a plain `std::sync::Mutex`. Under shuttle and loom
//! every thread runs on one OS thread, so this lock never blocks and never becomes a
//! scheduling point: recording a step does not change which interleavings are explored.
//! Under real threads it is a real lock, held only for a few instructions.

use crate::properties::Probe;
use crate::recorder::{Actor, Recorder};

/// A cell for bookkeeping state, invisible to the exploration engines.
///
/// Under the stateful engine (`--engine stateful`) a model's ghost cell is one more object whose
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

    /// A ghost cell for the recorder's bookkeeping, whose accesses are never recorded. A
    /// model's unrecorded state is a [`Witness`], whose interface keeps it out of decisions.
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

/// A cell a model writes only so that a probe can fire, or for a check at the end of the
/// run: state that no decision and no invariant reads while threads run. The stateful engine does
/// not record it, so two executions that differ only in it are one state.
///
/// Its interface keeps it that way: a write returns nothing ([`Witness::update`]); a read
/// fires a probe ([`Witness::probe_if`]) and gives the model no value to branch on. The one read that returns the value,
/// [`Witness::settled`], is for the end of a run, after the recorder was quiesced, and is a
/// model failure before; it is sound when what it is used for does not depend on the order
/// in which different threads wrote (each thread's writes follow from its own history, which
/// the state determines; a map keyed by thread, or a list sorted before use).
///
/// ```
/// use ozone_ha_check::properties::Probe;
/// use ozone_ha_check::recorder::{Actor, Recorder};
/// use ozone_ha_check::sync::ghost::Witness;
/// use ozone_ha_check::sync::Arc;
///
/// const OVERLAP: Probe = Probe::new("Overlap", "a second writer came in mid-write");
/// let recorder = Arc::new(Recorder::new(None));
/// let me = Actor::new("writer", &recorder);
/// let writing = Witness::new(0u32);
/// writing.update(|n| *n += 1);
/// writing.probe_if(&me, &OVERLAP, |n| *n > 0);
/// assert_eq!(recorder.take().probes["Overlap"], 1);
/// ```
#[derive(Debug)]
pub struct Witness<T> {
    cell: std::sync::Mutex<T>,
}

impl<T> Witness<T> {
    /// A new witness cell.
    pub fn new(value: T) -> Self {
        Self {
            cell: std::sync::Mutex::new(value),
        }
    }

    fn with<R>(&self, f: impl FnOnce(&mut T) -> R) -> R {
        let mut guard = self
            .cell
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        f(&mut guard)
    }

    /// Change the value.
    pub fn update(&self, f: impl FnOnce(&mut T)) {
        self.with(f)
    }

    /// Fire `probe` for `actor` if `when` holds of the value (which `when` may also change).
    pub fn probe_if(&self, actor: &Actor, probe: &Probe, when: impl FnOnce(&mut T) -> bool) {
        if self.with(when) {
            actor.probe(probe);
        }
    }
}

impl<T: Clone> Witness<T> {
    /// The value at the end of the run: a model failure before `recorder` was quiesced.
    pub fn settled(&self, recorder: &Recorder) -> T {
        assert!(
            recorder.quiesced(),
            "a witness cell was read before the run quiesced: make it a Ghost"
        );
        self.with(|v| v.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::Witness;
    use crate::recorder::Recorder;

    #[test]
    #[should_panic(expected = "read before the run quiesced")]
    fn a_witness_read_while_threads_run_is_a_model_failure() {
        let recorder = Recorder::new(None);
        let told = Witness::new(vec![1u32]);
        let _ = told.settled(&recorder);
    }

    #[test]
    fn a_witness_reads_back_once_the_run_quiesced() {
        let recorder = Recorder::new(None);
        let told = Witness::new(Vec::new());
        told.update(|t| t.push(7u32));
        recorder.quiesce();
        assert_eq!(told.settled(&recorder), vec![7]);
    }
}
