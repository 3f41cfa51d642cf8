//! The order between one execution's transitions and the races in it, for the unbounded
//! search over source sets (a dynamic partial-order reduction: Abdulla, Aronis, Jonsson and
//! Sagonas, POPL 2014, Algorithm 1, with Flanagan and Godefroid's check of blocked tasks,
//! POPL 2005; see "Source sets" in the [module documentation](super)).
//!
//! A transition *happens before* a later one of the same execution when they are of one
//! task, when they conflict on an object ([`Access::conflicts`]), when the first spawned the
//! second's task or woke it (its task could not run before), or through a chain of these.
//! Each transition gets a vector clock: per task, how many of its transitions happen before
//! it (itself included). Two transitions of different tasks *race* when they conflict and
//! nothing between them orders them: the later one could have run first. A task that is
//! blocked, or stands before a lock taken against it, races too, with its pending
//! operation: its own transition, once it runs, comes after whatever let it run and no
//! longer shows the race ([`Trace::pending`]).

use super::registry::{Access, Footprint, ObjectId};
use std::collections::BTreeMap;

/// Per task (by shuttle id), a count of its transitions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Clock(Vec<u32>);

impl Clock {
    fn get(&self, task: usize) -> u32 {
        self.0.get(task).copied().unwrap_or(0)
    }

    fn set(&mut self, task: usize, value: u32) {
        if self.0.len() <= task {
            self.0.resize(task + 1, 0);
        }
        self.0[task] = value;
    }

    fn join(&mut self, other: &Clock) {
        if self.0.len() < other.0.len() {
            self.0.resize(other.0.len(), 0);
        }
        for (mine, theirs) in self.0.iter_mut().zip(&other.0) {
            *mine = (*mine).max(*theirs);
        }
    }
}

/// One transition of the execution.
#[derive(Debug)]
struct Event {
    /// The decision it was taken at (its place in the search's stack).
    decision: usize,
    task: usize,
    /// Its number among its task's transitions, from 1.
    seq: u32,
    clock: Clock,
    /// The tasks it woke (unblocked).
    woke: Vec<usize>,
    /// The clocks of the next transitions it changed, each as it was before, in the order
    /// changed: what [`Trace::truncate`] restores.
    undo: Vec<(usize, Clock)>,
}

impl Event {
    /// Whether this transition happens before (or is) the one with `clock`.
    fn before(&self, clock: &Clock) -> bool {
        clock.get(self.task) >= self.seq
    }
}

/// A race found: the transition at `decision` could have been preceded by one of
/// `initials` (by shuttle id), the tasks whose first transition in the reordered sequence
/// depends on nothing before it there (the `I[E'](v)` of the paper).
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Race {
    pub(super) decision: usize,
    pub(super) initials: Vec<usize>,
}

/// One execution's transitions, in order, with their clocks.
#[derive(Default)]
pub(super) struct Trace {
    events: Vec<Event>,
    /// Per task (by shuttle id): the clock its next transition starts from.
    next: Vec<Clock>,
    /// Per object: the transitions that touched it, in order, with how, and whether the
    /// transition only let it go (a lock released, not taken).
    touched: BTreeMap<ObjectId, Vec<(usize, Access, bool)>>,
}

impl Trace {
    /// Forget the transitions taken at decisions from `decision` on, keeping those before as
    /// if only they had been added. An execution that replays its path up to `decision`
    /// takes the same transitions before it, so their clocks and races need not be found
    /// again ([`Trace::has`]).
    pub(super) fn truncate(&mut self, decision: usize) {
        let keep = self.events.partition_point(|e| e.decision < decision);
        while self.events.len() > keep {
            let event = self.events.pop().expect("an event past the kept ones");
            for (task, clock) in event.undo.into_iter().rev() {
                self.next[task] = clock;
            }
        }
        for accesses in self.touched.values_mut() {
            while accesses.last().is_some_and(|&(k, _, _)| k >= keep) {
                accesses.pop();
            }
        }
    }

    /// Whether the transition taken at `decision` is traced already (kept by
    /// [`Trace::truncate`]).
    pub(super) fn has(&self, decision: usize) -> bool {
        self.events.last().is_some_and(|e| e.decision >= decision)
    }

    fn next_of(&mut self, task: usize) -> &mut Clock {
        if self.next.len() <= task {
            self.next.resize(task + 1, Clock::default());
        }
        &mut self.next[task]
    }

    /// `task`'s transition taken at `decision` touched `footprint`: add it, and with
    /// `races`, return the transitions it races with (the latest first). A lock taken after
    /// another task let it go is ordered after that release but does not race with it: the
    /// two could never both run next (the taker waits while the lock is held), and the race
    /// that matters is with the other task's taking, found from the taker's pending
    /// operation ([`Trace::pending`]) or past the release here. A join is ordered after the
    /// exit it waits for in the same way (the exit lets the exit object go, the join takes
    /// it).
    pub(super) fn add(
        &mut self,
        decision: usize,
        task: usize,
        footprint: &Footprint,
        races: bool,
    ) -> Vec<Race> {
        let index = self.events.len();
        let mut clock = self.next_of(task).clone();
        let seq = clock.get(task) + 1;
        let mut conflicting: Vec<usize> = Vec::new();
        let mut ordered: Vec<usize> = Vec::new();
        for &(object, access) in footprint.accesses() {
            let acquires = footprint.acquired.contains(&object);
            for &(k, other, release) in self.touched.get(&object).into_iter().flatten() {
                if self.events[k].task != task && other.conflicts(access) {
                    // A lock taken after a release by another task could not have been
                    // taken before it: the race is with that task's taking.
                    if release && acquires {
                        ordered.push(k);
                    } else {
                        conflicting.push(k);
                    }
                }
            }
        }
        // A release of a lock this transition takes is no race on any object: this one could
        // not run before it, the lock being held until then. Left among the conflicts for
        // another object the two touch (a release followed, in its transition, by a write
        // this one reads), it would order away, unreversed, the race with that task's taking.
        conflicting.retain(|k| !ordered.contains(k));
        conflicting.sort_unstable();
        conflicting.dedup();
        // Its order after the others: everything it conflicts with comes before it.
        let mut whole = clock.clone();
        for &k in conflicting.iter().chain(&ordered) {
            whole.join(&self.events[k].clock);
        }
        whole.set(task, seq);
        let mut racing = Vec::new();
        // From the latest: one already ordered before, through a later one or the task's
        // own, is no race.
        for &k in conflicting.iter().rev() {
            let earlier = &self.events[k];
            if earlier.before(&clock) {
                continue;
            }
            clock.join(&earlier.clock);
            if races {
                racing.push(Race {
                    decision: earlier.decision,
                    initials: self.initials(k, task, &whole),
                });
            }
        }
        for &(object, access) in footprint.accesses() {
            let release =
                footprint.released.contains(&object) && !footprint.acquired.contains(&object);
            self.touched
                .entry(object)
                .or_default()
                .push((index, access, release));
        }
        // A task spawned or woken here could not run before: its next transition comes after.
        let mut undo = Vec::new();
        for &t in footprint.children.iter().chain(&footprint.woke) {
            let next = self.next_of(t);
            undo.push((t, next.clone()));
            next.join(&whole);
        }
        let next = self.next_of(task);
        undo.push((task, std::mem::replace(next, whole.clone())));
        self.events.push(Event {
            decision,
            task,
            seq,
            clock: whole,
            woke: footprint.woke.clone(),
            undo,
        });
        racing
    }

    /// The race of `task`'s pending operation (one it stands before, or is blocked in) on
    /// `object` with the latest transition of another task that conflicts with it and could
    /// run beside it (not a release of the lock it would take, nor one that woke it): the
    /// pending operation could have run first, unless that transition happens before the
    /// task. Flanagan and Godefroid's check of every task's next transition at every state
    /// (POPL 2005), which sees races a blocked task's own transition never shows.
    pub(super) fn pending(
        &self,
        task: usize,
        object: ObjectId,
        access: Access,
        acquire: bool,
    ) -> Option<Race> {
        let none = Clock::default();
        let clock = self.next.get(task).unwrap_or(&none);
        for &(k, other, release) in self.touched.get(&object)?.iter().rev() {
            let e = &self.events[k];
            if e.task == task || !other.conflicts(access) {
                continue;
            }
            if (release && acquire) || e.woke.contains(&task) {
                continue;
            }
            if e.before(clock) {
                return None;
            }
            return Some(Race {
                decision: e.decision,
                initials: vec![task],
            });
        }
        None
    }

    /// The tasks that could start the sequence that reverses the race between transition
    /// `k` and a new one of `task`, ordered by `clock`: the transitions after `k` that do
    /// not happen after it, then the new one. A task is an initial when its first
    /// transition there has none of the others before it.
    fn initials(&self, k: usize, task: usize, clock: &Clock) -> Vec<usize> {
        let first = &self.events[k];
        // Each task's first transition in the sequence, in order: its task, order and number.
        let mut firsts: Vec<(usize, &Clock, u32)> = Vec::new();
        let sequence = self.events[k + 1..]
            .iter()
            .filter(|e| !first.before(&e.clock))
            .map(|e| (e.task, &e.clock, e.seq))
            .chain([(task, clock, clock.get(task))]);
        for (t, c, seq) in sequence {
            if !firsts.iter().any(|f| f.0 == t) {
                firsts.push((t, c, seq));
            }
        }
        firsts
            .iter()
            .filter(|f| firsts.iter().all(|g| g.0 == f.0 || f.1.get(g.0) < g.2))
            .map(|f| f.0)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The race with the transition at `decision`, reversed by running `initial` there.
    fn race(decision: usize, initial: usize) -> Race {
        Race {
            decision,
            initials: vec![initial],
        }
    }

    fn footprint(objects: &[(ObjectId, Access)]) -> Footprint {
        Footprint::of(objects.to_vec())
    }

    /// A transition that takes `lock` and touches `objects` besides.
    fn taking(lock: ObjectId, objects: &[(ObjectId, Access)]) -> Footprint {
        let mut f = footprint(&[objects, &[(lock, Access::Write)]].concat());
        f.acquired.push(lock);
        f
    }

    /// A transition that lets `lock` go and touches `objects` besides.
    fn releasing(lock: ObjectId, objects: &[(ObjectId, Access)]) -> Footprint {
        let mut f = footprint(&[objects, &[(lock, Access::Write)]].concat());
        f.released.push(lock);
        f
    }

    #[test]
    fn conflicting_transitions_race_and_commuting_ones_do_not() {
        let mut t = Trace::default();
        let w = |o| footprint(&[(o, Access::Write)]);
        let r = |o| footprint(&[(o, Access::Read)]);
        assert!(t.add(0, 1, &w(7), true).is_empty());
        // Another object: no race.
        assert!(t.add(1, 2, &w(8), true).is_empty());
        // Task 2 writes 7 after task 1: a race with the decision of task 1's transition,
        // and task 2 could have gone first.
        assert_eq!(t.add(2, 2, &w(7), true), vec![race(0, 2)]);
        // Two reads commute; a read races with the last write only.
        assert!(t.add(3, 1, &r(9), true).is_empty());
        assert!(t.add(4, 2, &r(9), true).is_empty());
        assert_eq!(t.add(5, 1, &r(7), true), vec![race(2, 1)]);
    }

    #[test]
    fn a_race_ordered_through_a_third_transition_is_none() {
        let mut t = Trace::default();
        // 1 writes a, 2 writes a then b, 3 writes b then a: 3's write of a is ordered after
        // 1's through 2, and races only with 2's.
        t.add(0, 1, &footprint(&[(1, Access::Write)]), true);
        t.add(1, 2, &footprint(&[(1, Access::Write)]), true);
        t.add(2, 2, &footprint(&[(2, Access::Write)]), true);
        let races = t.add(3, 3, &footprint(&[(2, Access::Write)]), true);
        assert_eq!(races.len(), 1);
        assert_eq!(races[0].decision, 2);
        assert!(t
            .add(4, 3, &footprint(&[(1, Access::Write)]), true)
            .is_empty());
    }

    #[test]
    fn the_initials_leave_out_what_depends_on_the_sequence_before_it() {
        let mut t = Trace::default();
        // 1 writes a; 2 writes b; 3 reads b then writes a. Reversing 1's write and 3's:
        // the sequence is 2's write, 3's read of b, 3's write of a; 3's first depends on
        // 2's, so only 2 can start it.
        t.add(0, 1, &footprint(&[(1, Access::Write)]), true);
        t.add(1, 2, &footprint(&[(2, Access::Write)]), true);
        t.add(2, 3, &footprint(&[(2, Access::Read)]), true);
        let races = t.add(3, 3, &footprint(&[(1, Access::Write)]), true);
        assert_eq!(races, vec![race(0, 2)]);
    }

    #[test]
    fn a_task_waiting_for_a_lock_races_with_its_taking_not_its_release() {
        let mut t = Trace::default();
        let take = taking(7, &[]);
        t.add(0, 1, &take, true);
        // Task 2 stands before lock 7, taken by task 1: it could have taken it first.
        let with_taking = Some(race(0, 2));
        assert_eq!(t.pending(2, 7, Access::Write, true), with_taking);
        // Task 1 lets it go: the release is no race (the two are never both enabled), and
        // the taking before it still is one. (A task standing before a lock is not blocked,
        // so the release wakes no one.)
        t.add(1, 1, &releasing(7, &[]), true);
        assert_eq!(t.pending(2, 7, Access::Write, true), with_taking);
        // Once task 2 has taken it after the release, the race is ordered.
        t.add(2, 2, &take, true);
        assert_eq!(t.pending(3, 8, Access::Write, true), None);
        assert_eq!(t.pending(1, 7, Access::Write, true), Some(race(2, 1)));
    }

    /// Task 1 takes lock 7, then lets it go and writes object 3 in one transition; task 2
    /// takes the lock and reads 3 in one. The release is no race, though the two conflict on
    /// 3 too (task 2 could not have run before it): the race is with task 1's taking.
    #[test]
    fn a_release_that_also_writes_what_the_taker_reads_hides_no_race() {
        let mut t = Trace::default();
        t.add(0, 1, &taking(7, &[]), true);
        t.add(1, 1, &releasing(7, &[(3, Access::Write)]), true);
        let take_and_read = taking(7, &[(3, Access::Read)]);
        assert_eq!(t.add(2, 2, &take_and_read, true), vec![race(0, 2)]);
    }

    /// A path replayed up to a decision keeps what was traced before it: the races after it
    /// are those of a trace built from the root, spawns and wake-ups undone with the rest.
    #[test]
    fn a_truncated_trace_finds_the_races_of_one_built_again() {
        let w = |o| footprint(&[(o, Access::Write)]);
        let mut spawn = w(2);
        spawn.children.push(3);
        let mut wake = w(5);
        wake.woke.push(3);
        let prefix = [(0, 1, w(1)), (1, 2, spawn)];
        let mut kept = Trace::default();
        for (decision, task, f) in &prefix {
            kept.add(*decision, *task, f, true);
        }
        // A first continuation: 1 wakes 3, which writes 1 and 2.
        kept.add(2, 1, &wake, true);
        kept.add(3, 3, &w(1), true);
        kept.add(4, 3, &w(2), true);
        kept.truncate(2);
        assert!(kept.has(1) && !kept.has(2));
        // Another from decision 2: 3 runs first, so nothing orders it after 1's wake-up.
        let mut again = Trace::default();
        for (decision, task, f) in &prefix {
            again.add(*decision, *task, f, true);
        }
        let mut found = Vec::new();
        for trace in [&mut kept, &mut again] {
            found.push((
                trace.add(2, 3, &w(2), true),
                trace.add(3, 3, &w(1), true),
                trace.add(4, 1, &w(5), true),
                trace.pending(2, 1, Access::Write, false),
            ));
        }
        assert_eq!(found[0], found[1]);
        // Not ordered after 1's write by the wake-up undone: 3's write of 1 races with it,
        // and 2 (which spawned 3) could have gone first.
        assert_eq!(found[0].1, vec![race(0, 2)]);
    }

    #[test]
    fn a_spawned_or_woken_task_comes_after_its_maker() {
        let mut t = Trace::default();
        t.add(0, 1, &footprint(&[(1, Access::Write)]), true);
        let mut spawn = footprint(&[(2, Access::Write)]);
        spawn.children.push(3);
        t.add(1, 2, &spawn, true);
        // 3 was spawned after 1's write: no earlier transition than 2's could be 3's.
        assert_eq!(
            t.add(2, 3, &footprint(&[(1, Access::Write)]), true),
            vec![race(0, 2)]
        );
    }
}
