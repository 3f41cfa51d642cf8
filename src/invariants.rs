//! Named safety properties and reachability probes.
//!
//! An invariant is a plain function over some view of the state, named so that a report can
//! say which one broke (stateright's `Property::always`). A probe is a "sometimes" property:
//! it counts how often an execution reached a race window. A variant that holds every
//! invariant but never fired its required probes proves nothing, and is reported as vacuous.

use crate::kit::store::{Observer, Tables};
use crate::recorder::Recorder;
use crate::sync::Arc;

/// A named predicate over a state `S`.
pub struct Invariant<S: ?Sized> {
    /// The name reports use.
    pub name: &'static str,
    /// What it asserts, in one sentence.
    pub doc: &'static str,
    /// `Err(detail)` when the state breaks it.
    pub check: fn(&S) -> Result<(), String>,
}

impl<S: ?Sized> Invariant<S> {
    /// Check `state`, reporting a break to `recorder`. Returns whether it held.
    pub fn check_into(&self, state: &S, recorder: &Recorder) -> bool {
        match (self.check)(state) {
            Ok(()) => true,
            Err(detail) => {
                recorder.violate(self.name, detail);
                false
            }
        }
    }
}

/// Check every invariant of `set` against `state`; each break is reported to `recorder`.
pub fn check_all<S: ?Sized>(set: &[Invariant<S>], state: &S, recorder: &Recorder) {
    for invariant in set {
        invariant.check_into(state, recorder);
    }
}

/// The name and meaning of an invariant or a probe, for listings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Described {
    /// The name.
    pub name: &'static str,
    /// One sentence.
    pub doc: &'static str,
}

impl<S: ?Sized> From<&Invariant<S>> for Described {
    fn from(i: &Invariant<S>) -> Self {
        Self {
            name: i.name,
            doc: i.doc,
        }
    }
}

/// A store observer that checks `set` at every durable write, on the state that `view`
/// builds from the durable tables before and after the write.
pub fn durable_observer<V, S>(
    recorder: &Arc<Recorder>,
    set: &'static [Invariant<S>],
    view: impl Fn(&Tables<V>, &Tables<V>) -> S + Send + Sync + 'static,
) -> Observer<V>
where
    S: 'static,
{
    let recorder = Arc::clone(recorder);
    Box::new(move |before, after| check_all(set, &view(before, after), &recorder))
}
