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
/// run: state that no decision and no invariant reads while threads run. The stateful engine
/// keeps it out of the state, so two executions that differ only in it are one state.
///
/// Its interface keeps it that way: a write returns nothing ([`Witness::update`]); a read
/// fires a probe ([`Witness::probe_if`]) and gives the model no value to branch on. The one read that returns the value,
/// [`Witness::settled`], is for the end of a run, after the recorder was quiesced, and is a
/// model failure before; it is sound when what it is used for does not depend on the order
/// in which different threads wrote (each thread's writes follow from its own history, which
/// the state determines; a map keyed by thread, or a list sorted before use).
///
/// The stateful engine's search over source sets explores one execution per class of
/// executions, and a class is made by the footprints of its transitions. A witness is in
/// none of them, unless the search orders witnesses (`explore`'s second search, run only
/// where a required probe went unmet): then a probe's read and every write touch the cell,
/// so that a race window's probe is reordered against the writes that open and close the
/// window. A cell only read at the end ([`Witness::unprobed`]) is never touched: the order
/// of its writes is the model's to argue away, as for `settled`.
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
    /// The object a probe's read and every write touch; `None`: read only at the end.
    #[cfg(not(ohc_threads))]
    id: Option<crate::engine::stateful::facade::ObjectId>,
}

/// How a transition touches a [`Witness`]: a probe reads it, an update writes it.
#[derive(Clone, Copy)]
enum Touch {
    Read,
    Write,
}

impl<T> Witness<T> {
    /// A new witness cell, which probes may read.
    pub fn new(value: T) -> Self {
        Self {
            cell: std::sync::Mutex::new(value),
            #[cfg(not(ohc_threads))]
            id: Some(crate::engine::stateful::facade::new_object()),
        }
    }

    /// A new witness cell read only at the end of the run ([`Witness::settled`]): its writes
    /// are ordered by nothing, and a probe of it is a model failure.
    pub fn unprobed(value: T) -> Self {
        Self {
            cell: std::sync::Mutex::new(value),
            #[cfg(not(ohc_threads))]
            id: None,
        }
    }

    fn with<R>(&self, f: impl FnOnce(&mut T) -> R) -> R {
        let mut guard = self
            .cell
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        f(&mut guard)
    }

    /// Tell the stateful engine how the running transition touches the cell (nothing to
    /// tell under real threads).
    #[cfg_attr(ohc_threads, allow(unused_variables))]
    fn touched(&self, touch: Touch) {
        #[cfg(not(ohc_threads))]
        if let Some(id) = self.id {
            use crate::engine::stateful::facade::{witness, Access};
            let access = match touch {
                Touch::Read => Access::Read,
                Touch::Write => Access::Write,
            };
            witness(id, access);
        }
    }

    /// Change the value.
    pub fn update(&self, f: impl FnOnce(&mut T)) {
        self.touched(Touch::Write);
        self.with(f)
    }

    /// Fire `probe` for `actor` if `when` holds of the value.
    pub fn probe_if(&self, actor: &Actor, probe: &Probe, when: impl FnOnce(&T) -> bool) {
        #[cfg(not(ohc_threads))]
        assert!(
            self.id.is_some(),
            "a witness made with Witness::unprobed was probed: make it with Witness::new"
        );
        self.touched(Touch::Read);
        if self.with(|v| when(v)) {
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

/// A ghost set of facts that only grows, for an invariant that forbids two facts that
/// conflict (a serial handed out twice, two rows at one durable index).
///
/// Under the stateful engine an addition commutes with every other: whichever of two threads
/// adds first, the set after both is their union, so executions that differ only in the
/// order of their additions are one state. What an addition checks does depend on the order:
/// a new fact is checked against the facts already there, and `report` is called with the
/// first of them (in the set's order) that conflicts with it. That is sound because of what
/// the interface allows:
/// - the conflict relation is symmetric by construction (two facts conflict when
///   `conflicts(a, b)` or `conflicts(b, a)`) and a plain function of the two facts, so a pair
///   that conflicts is reported by whichever of them is added second, in every order;
/// - `report` runs outside the set and may only tell the recorder (an invariant's
///   `check_into`): recording a facade operation there is a model failure, and the model
///   gets nothing back from [`Facts::add`] to branch on. Once an invariant breaks, the verdict
///   is made.
///
/// The set itself is read back only at the end of a run ([`Facts::settled`]).
///
/// ```
/// use ozone_ha_check::recorder::Recorder;
/// use ozone_ha_check::sync::ghost::Facts;
///
/// fn same_serial(a: &(u64, &'static str), b: &(u64, &'static str)) -> bool {
///     a.0 == b.0
/// }
/// let recorder = Recorder::new(None);
/// let handed_out = Facts::new([(1, "init")]);
/// let mut twice = Vec::new();
/// handed_out.add((2, "client"), same_serial, |new, old| twice.push((*new, *old)));
/// handed_out.add((2, "rpc"), same_serial, |new, old| twice.push((*new, *old)));
/// assert_eq!(twice, vec![((2, "rpc"), (2, "client"))]);
/// recorder.quiesce();
/// assert_eq!(handed_out.settled(&recorder).len(), 3);
/// ```
#[derive(Debug)]
pub struct Facts<T> {
    /// Unrecorded itself: the additions are recorded on `id`, each with its fact.
    set: Witness<std::collections::BTreeSet<T>>,
    #[cfg(not(ohc_threads))]
    id: crate::engine::stateful::facade::ObjectId,
}

impl<T: Ord + std::hash::Hash + Clone> Facts<T> {
    /// A set holding `initial`, known before any thread runs.
    pub fn new(initial: impl IntoIterator<Item = T>) -> Self {
        Self {
            set: Witness::unprobed(initial.into_iter().collect()),
            #[cfg(not(ohc_threads))]
            id: crate::engine::stateful::facade::new_object(),
        }
    }

    /// Add `fact`, and call `report(fact, known)` with the first fact already known that
    /// conflicts with it (an equal fact counts: it was added before), if there is one.
    pub fn add(&self, fact: T, conflicts: fn(&T, &T) -> bool, report: impl FnOnce(&T, &T)) {
        // The fact is hashed only for the stateful engine, which names the addition by it.
        #[cfg(not(ohc_threads))]
        if crate::engine::stateful::facade::active() {
            crate::engine::stateful::facade::record_added(self.id, crate::sync::fingerprint(&fact));
        }
        let known = self.set.with(|set| {
            let known = set
                .iter()
                .find(|k| conflicts(&fact, k) || conflicts(k, &fact))
                .cloned();
            set.insert(fact.clone());
            known
        });
        if let Some(known) = known {
            #[cfg(not(ohc_threads))]
            let mark = crate::engine::stateful::facade::hold_mark();
            report(&fact, &known);
            #[cfg(not(ohc_threads))]
            assert!(
                mark == crate::engine::stateful::facade::hold_mark(),
                "a conflict between facts was reported through a recorded operation: a report \
                 may only tell the recorder"
            );
        }
    }

    /// The facts at the end of the run: a model failure before `recorder` was quiesced.
    pub fn settled(&self, recorder: &Recorder) -> std::collections::BTreeSet<T> {
        assert!(
            recorder.quiesced(),
            "a set of facts was read before the run quiesced"
        );
        self.set.with(|set| set.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::{Facts, Witness};
    use crate::recorder::Recorder;

    fn same_key(a: &(u8, u8), b: &(u8, u8)) -> bool {
        a.0 == b.0
    }

    /// Two facts that conflict are reported by whichever comes second, and the set after both
    /// is the same; a fact that conflicts with nothing is reported by neither.
    #[test]
    fn a_conflicting_pair_is_reported_in_either_order() {
        let run = |first: (u8, u8), second: (u8, u8)| {
            let facts = Facts::new([(9, 9)]);
            let mut reported = Vec::new();
            for fact in [first, second, (3, 0)] {
                facts.add(fact, same_key, |new, known| reported.push((*new, *known)));
            }
            let recorder = Recorder::new(None);
            recorder.quiesce();
            (reported, facts.settled(&recorder))
        };
        let (one, after_one) = run((1, 1), (1, 2));
        let (other, after_other) = run((1, 2), (1, 1));
        assert_eq!(one, vec![((1, 2), (1, 1))]);
        assert_eq!(other, vec![((1, 1), (1, 2))]);
        assert_eq!(after_one, after_other);
        assert_eq!(after_one.len(), 4);
    }

    /// The relation is made symmetric by the cell: a one-sided `conflicts` still reports the
    /// pair in both orders; and a fact added twice conflicts with itself where the relation
    /// says so.
    #[test]
    fn the_conflict_relation_is_symmetric_and_an_equal_fact_counts() {
        fn smaller_key(a: &(u8, u8), b: &(u8, u8)) -> bool {
            a.0 < b.0
        }
        for (first, second) in [((1, 0), (2, 0)), ((2, 0), (1, 0))] {
            let facts = Facts::new([]);
            let mut reported = 0;
            facts.add(first, smaller_key, |_, _| reported += 1);
            facts.add(second, smaller_key, |_, _| reported += 1);
            assert_eq!(reported, 1, "{first:?} then {second:?}");
        }
        let facts = Facts::new([]);
        let mut reported = 0;
        facts.add((5, 5), same_key, |_, _| reported += 1);
        facts.add((5, 5), same_key, |_, _| reported += 1);
        assert_eq!(reported, 1);
    }

    #[test]
    #[should_panic(expected = "read before the run quiesced")]
    fn facts_read_while_threads_run_are_a_model_failure() {
        let recorder = Recorder::new(None);
        let _ = Facts::<u8>::new([1]).settled(&recorder);
    }

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
