//! The stateful search, as a shuttle scheduler: depth-first over the facade's states, each
//! explored once (see the [module documentation](super) for what it assumes and proves).

use super::dpor::Trace;
use super::registry::{self, Footprint, OpKinds};
use super::states::{Key, PassVisits, States, LANES, MAX_BOUND};
use crate::engine::{Budget, Part};
use ::shuttle::scheduler::{Schedule as ShuttleSchedule, Scheduler, Task, TaskId};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

/// One decision of the stateful search: the tasks it could run (the one that ran before
/// first, when it can still run), or the values of a choice ([`crate::sync::choose`]); which
/// of them the current path takes; and what the state was, so that a re-execution can check
/// it meets the same decision.
struct Frame {
    /// Whether this is a choice of a value rather than of a task.
    choice: bool,
    options: Vec<usize>,
    chosen: usize,
    /// Whether `options[0]` is the task that ran before: any other choice is a preemption.
    continues: bool,
    /// What the path cost before this decision, as the search's [`Lane`] counts.
    cost: usize,
    signature: u128,
    /// The unbounded search's sleep set here: tasks whose transitions from this state are not
    /// taken, as every execution that starts with one of them is covered by an execution
    /// explored elsewhere (see [`Stateful`]).
    sleep: Vec<Sleeper>,
    /// Per option, what its transition touched, once observed (`None` too when it made a
    /// choice: its footprint depends on the value, so it never sleeps).
    footprints: Vec<Option<Footprint>>,
    /// Whether this is the decision where the state was looked up (the first after an
    /// operation): once it is popped, every path from the state has been taken or cut.
    lookup: bool,
    /// The unbounded search's exit steps here ([`registry::exit_steps`]): the first `lead`
    /// options, explored first. Once each is known to touch only what no other task will
    /// touch ([`registry::exit_private`]: `lead_private`), the options after them are not
    /// taken; 0 when there are none, or every option is one.
    lead: usize,
    lead_private: bool,
    /// Whether some path below this decision was refused by the pass's bound, or cut at a
    /// state whose own paths were not all taken: the state is then not [complete](Stateful).
    incomplete: bool,
    /// With source sets (the unbounded search's dynamic partial-order reduction), per
    /// option: whether it is to be explored (the source set so far, grown by the races
    /// found below), and whether it was. Empty otherwise.
    source: Vec<bool>,
    taken: Vec<bool>,
}

/// A task asleep at a decision, with what its transition from there touches.
#[derive(Clone)]
struct Sleeper {
    task: usize,
    footprint: Footprint,
}

impl Frame {
    /// Whether option `i` is asleep.
    fn asleep(&self, i: usize) -> bool {
        self.sleep.iter().any(|s| s.task == self.options[i])
    }

    /// The first option after `i` that is not asleep.
    fn awake_after(&self, i: usize) -> Option<usize> {
        (i + 1..self.options.len()).find(|&j| !self.asleep(j))
    }

    /// Whether option `j` was explored here before the one taken now.
    fn explored_before(&self, j: usize) -> bool {
        if self.taken.is_empty() {
            j < self.chosen
        } else {
            self.taken[j] && j != self.chosen
        }
    }

    /// With source sets: the next option of the source set not yet explored and not asleep.
    fn next_source(&self) -> Option<usize> {
        (0..self.options.len()).find(|&j| self.source[j] && !self.taken[j] && !self.asleep(j))
    }

    /// A race found below this decision can be reversed by running one of `initials` here
    /// first: unless one of them is in the source set already, or asleep (every execution
    /// that starts with it here is covered elsewhere), add the first that is an option here.
    /// When none is (each is blocked here, or not yet spawned), add every option, as
    /// Flanagan and Godefroid's search does when the racing task is not enabled.
    fn add_source(&mut self, initials: &[usize]) {
        let at: Vec<usize> = initials
            .iter()
            .filter_map(|t| self.options.iter().position(|o| o == t))
            .collect();
        if at.iter().any(|&i| self.source[i] || self.asleep(i)) {
            return;
        }
        match at.first() {
            Some(&i) => self.source[i] = true,
            None => self.source.iter_mut().for_each(|b| *b = true),
        }
    }

    /// Whether the exit steps here are a persistent set: each was explored or is asleep,
    /// and touched only what no other task will touch. The options after them are then
    /// not taken.
    fn exit_steps_suffice(&self) -> bool {
        self.lead > 0
            && self.lead_private
            && (0..self.lead).all(|i| self.asleep(i) || self.footprints[i].is_some())
    }

    /// The options from `i` on that are awake.
    fn awake_from(&self, i: usize) -> u64 {
        (i..self.options.len()).filter(|&j| !self.asleep(j)).count() as u64
    }

    /// What the path costs once option `i` is taken: a preemption costs one, and with
    /// `deviations` a value of a choice other than its first too.
    fn cost_after(&self, i: usize, deviations: bool) -> usize {
        self.cost + usize::from((self.continues || (self.choice && deviations)) && i > 0)
    }
}

/// What a pass of the deepening counts against its bound; each lane has its own record of
/// the states its passes reached ([`LANES`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Lane {
    /// Preemptions: every value of a choice is free.
    Preemptions = 0,
    /// Preemptions and deviations, a deviation being a value of a choice other than its
    /// first (delay bounding, with the workload's choices as a second scheduler).
    Deviations = 1,
}

const _: () = assert!(Lane::Deviations as usize + 1 == LANES);

/// A pass's bound: at most `limit` of what its lane counts.
#[derive(Clone, Copy, Debug)]
struct Bound {
    limit: usize,
    lane: Lane,
}

/// One of the random walks beside the searches: each of its executions takes a random
/// option at every decision, task or value, looks no state up, keeps none and proves
/// nothing; a violation it finds is a real execution, as a random scheduler's is. The
/// uniform walk takes a uniformly random option; the PCT walk ([`Pct`]) the task of highest
/// priority, and a uniformly random value. Both draw from the engine's SplitMix64 stream
/// ([`crate::engine::splitmix64`]) with a fixed seed, so that a search is the same on every
/// run (no OS randomness) and meets its violations at the same executions.
#[derive(Clone, Debug)]
struct Walk {
    rng: u64,
    /// The PCT walk's priorities (`None`: the uniform walk).
    pct: Option<Pct>,
    /// The executions this walk has left ([`Walk::for_budget`]).
    left: usize,
}

/// PCT's priorities, as shuttle's `PctScheduler` keeps them (Burckhardt, Kothari, Musuvathi
/// and Nagarakatte, ASPLOS 2010): each task draws a random priority when first met, the
/// enabled task of highest priority runs, and at `depth - 1` change points, drawn per
/// execution among the decisions with more than one task, the running task's priority
/// drops below every other's.
#[derive(Clone, Debug, Default)]
struct Pct {
    depth: usize,
    /// By shuttle task number. Drawn priorities have the top bit set; a lowered one is
    /// below 2^32 and below every one lowered before it.
    priorities: BTreeMap<usize, u64>,
    /// The priority the next lowered task gets.
    lowered: u64,
    change_points: Vec<usize>,
    /// The decisions with more than one task met so far in this execution.
    steps: usize,
    /// The most `steps` an execution of this walk met: the change points are drawn below.
    max_steps: usize,
}

impl Walk {
    /// The uniform walk's seed (the PCT walk's differs in its last bit): any fixed value
    /// would do.
    const SEED: u64 = 0x9e37_79b9_7f4a_7c15;

    /// The walks of a search whose plan's randomized engines have `budget`: the uniform
    /// walk runs as many executions as the random scheduler would, and the PCT walk as many
    /// as PCT would, at PCT's depth.
    fn for_budget(budget: Budget) -> Vec<Walk> {
        vec![
            Walk {
                rng: Self::SEED,
                pct: None,
                left: budget.random,
            },
            Walk {
                rng: Self::SEED ^ 1,
                pct: Some(Pct {
                    depth: budget.pct_depth,
                    ..Pct::default()
                }),
                left: budget.pct,
            },
        ]
    }

    /// A value in `0..n` (`n > 0`), near enough to uniform for `n` this small.
    fn below(&mut self, n: usize) -> usize {
        below(&mut self.rng, n)
    }

    /// A new execution: the PCT walk forgets its priorities and draws its change points in
    /// `1..max_steps`, as many as its depth allows.
    fn start(&mut self) {
        let Walk {
            rng,
            pct: Some(pct),
            ..
        } = self
        else {
            return;
        };
        pct.priorities.clear();
        pct.lowered = 1 << 32;
        pct.steps = 0;
        pct.change_points.clear();
        let points = (pct.depth.saturating_sub(1)).min(pct.max_steps.saturating_sub(1));
        while pct.change_points.len() < points {
            let point = 1 + below(rng, pct.max_steps - 1);
            if !pct.change_points.contains(&point) {
                pct.change_points.push(point);
            }
        }
    }

    /// The task to run among `options`, `current` having run last.
    fn task(&mut self, options: &[usize], current: Option<usize>) -> usize {
        let Walk {
            rng,
            pct: Some(pct),
            ..
        } = self
        else {
            return options[self.below(options.len())];
        };
        if options.len() > 1 {
            if let Some(c) = current.filter(|_| pct.change_points.contains(&pct.steps)) {
                pct.lowered -= 1;
                pct.priorities.insert(c, pct.lowered);
            }
            pct.steps += 1;
            pct.max_steps = pct.max_steps.max(pct.steps);
        }
        let mut best = (0, options[0]);
        for &task in options {
            let priority = *pct
                .priorities
                .entry(task)
                .or_insert_with(|| crate::engine::splitmix64(rng) | 1 << 63);
            if priority > best.0 {
                best = (priority, task);
            }
        }
        best.1
    }
}

/// A value in `0..n` (`n > 0`) from the SplitMix64 stream at `rng`.
fn below(rng: &mut u64, n: usize) -> usize {
    (crate::engine::splitmix64(rng) % n as u64) as usize
}

/// The deepening's round of turns, by [`Search::turn`]: its two lanes' passes take turns;
/// the deviations lane's go to the first lane until it starts.
const ROUND: [usize; 2] = [PREEMPTIONS, DEVIATIONS];

/// Who takes each execution while the walks have executions left: a walk, by its place in
/// [`Walk::for_budget`], or the searches (`None`). Each walk takes one in four; once it has
/// none left, its turns go to the searches.
const TURNS: [Option<usize>; 4] = [Some(0), None, Some(1), None];

/// The first lane's place in the round ([`Search::turn`]).
const PREEMPTIONS: usize = Lane::Preemptions as usize;
/// The second lane's place in the round.
const DEVIATIONS: usize = Lane::Deviations as usize;

/// The last bound of the first lane whose pass runs without the unbounded search: the
/// passes bounded by 0, 1 and 2 preemptions take every execution (with the second lane's
/// passes beside them); from bound 3 on, the deepening and the unbounded search share them
/// ([`share`]).
const ALONE: usize = 2;

/// How many executions the unbounded search takes for each one of the deepening's, when
/// the least bound of its passes is `bound` (past [`ALONE`]): one at bound 3, twice as many
/// at each bound after. Few violations need many preemptions, and a case that holds is
/// proven by the unbounded search alone: the deepening's share shrinks as its passes grow.
fn share(bound: usize) -> usize {
    1 << bound.saturating_sub(ALONE + 1).min(20)
}

/// Depth-first search over schedules that explores each state once.
///
/// The facade runs in its own mode ([`registry`]): every task stands just before its next
/// operation at each decision, and a state is named by the signature of the per-object orders
/// of the operations done so far. At the first decision after an operation, a state already
/// seen ends the path: everything reachable from it was, or is being, explored from its first
/// visit (which is on the current path or fully explored, as this is depth first); the
/// execution then runs to its end without preemptions and without further lookups.
/// Decisions between two operations (a task passing a point inside shuttle that changes
/// nothing the others can see) are taken but not looked up, so a state is never cut short
/// before its own successors are reached. Every path ends when its state has been seen or
/// the execution finishes; a pass is over when every option of every decision on the stack
/// has been taken.
///
/// Several searches share the executions. The *deepening* runs bounded passes from the
/// root, each with its own visited states, so that a violation a few steps off the default
/// order is found before the depth-first order of the unbounded search reaches the far
/// corners of its space; it has two lanes, each a sequence of passes with growing bounds:
/// [`Lane::Preemptions`] bounds the preemptions (a switch away from a task that could go
/// on) by 0, 1, 2, 3, ... and takes every value of every choice; [`Lane::Deviations`]
/// bounds preemptions and deviations (a value of a choice other than its first) together,
/// by 0, 1, 2, ..., from the first execution that made a choice with more than one value
/// (without one it would repeat the first lane). A violation that needs a few preemptions
/// in a long workload is near in the first lane; one that needs a workload far from the
/// first values and few preemptions, in the second. One that needs both, or a few ordering
/// constraints deep in a long execution, is often common among random schedules: two random
/// walks ([`Walk`]) take one execution in four each ([`TURNS`]) until they have run the
/// plan's random and PCT budgets, keep nothing and prove nothing. The *unbounded search* is
/// the one whose end proves a case. The passes of the first lane bounded by 0, 1 and 2
/// ([`ALONE`]) run without the unbounded search, as they are cheap, taking turns with the
/// second lane's passes; then the unbounded search starts, and it and the deepening share
/// the searches' executions until one of them exhausts: the deepening takes one execution
/// for each of the unbounded search's while its least bound is 3, one for each 2^(k - 3)
/// while it is k ([`share`]), and its lanes take those turns in turn ([`ROUND`]). The
/// unbounded search's proof costs at most twice its own executions past the first lane's
/// first three passes (less as the passes grow), and a violation within bound k >= 3 of a
/// lane is found within 2 (1 + 2^(k - 3)) times the executions that lane needs to reach
/// it, both counting the searches' executions only.
///
/// A bounded pass keys its visited states by the task that runs next and keeps the least
/// cost each was reached with: a state reached again at a lower cost has more of its future
/// left to explore (the [module documentation](super) has the argument). A pass whose bound
/// never refused an option explored every path the unbounded one would (it only revisited
/// more states): it exhausts the search, and every search stops. Otherwise only the
/// unbounded search can exhaust it. A lane's passes end only at [`MAX_BOUND`]: bound k + 1
/// follows bound k as long as the unbounded search runs.
///
/// The unbounded search adds sleep sets (Godefroid's state-space caching with sleep sets; the
/// [module documentation](super) has the argument). Each transition (a task's run from one
/// decision to the next) is observed to touch a set of objects ([`Footprint`]). Once an
/// option of a decision is explored, it sleeps in the states reached by its later siblings,
/// and a sleeping task stays asleep through transitions independent of its own; a sleeping
/// task is not taken. A visited state keeps the sleep set it was explored with, as (task,
/// where it stands) pairs ([`registry::standing`]), and a later visit is cut only when its
/// sleep set contains the stored one; otherwise it is explored again and the stored set
/// becomes the intersection. It also takes a decision's exit steps (an exited thread's last
/// step, a woken join: [`registry::exit_steps`]) first, and once each is found to touch
/// nothing another task will touch, none of the decision's other options: a persistent set
/// (the [module documentation](super) has the argument).
///
/// A state that a search finished with every path from it taken is *complete*, whichever
/// search finished it: every search cuts a path there (the [module documentation](super)
/// has the rule and the argument).
///
/// Given a [`Part`] of a generated space, the search explores only the executions whose
/// choices begin with one of the part's prefixes: the other values of a choice are not
/// options. Two executions with different choices are different states (a value is the
/// chooser's operation), so the parts of a space share no state past their prefixes and each
/// part's search keeps its own visited set.
pub(crate) struct Stateful {
    /// The search the current execution belongs to: a bounded pass of the deepening, or the
    /// unbounded search.
    search: Search,
    /// The searches waiting for their turn: the deepening's other lane once it runs, and
    /// the unbounded search once it runs (from the first lane's first bound past
    /// [`ALONE`]).
    waiting: Vec<Search>,
    /// The random walks beside the searches ([`Walk::for_budget`]; none without the
    /// deepening).
    walks: Vec<Walk>,
    /// The walk the current execution belongs to (`None`: a search's).
    walking: Option<usize>,
    /// The place in [`TURNS`] of the next execution.
    next_owner: usize,
    /// The executions the unbounded search has taken since the deepening's last one.
    since_deepening: usize,
    /// The place in [`ROUND`] of the deepening's next turn.
    next_turn: usize,
    /// Whether the deviations lane is yet to start: with the deepening, until an execution
    /// meets a choice with more than one value (without one, it would repeat the first lane).
    second_lane_due: bool,
    depth: usize,
    /// The last decision of the replayed path that is not a choice: a transition run from it
    /// reaches the first new decision (the choices after it are its own), whose sleep set is
    /// made from that transition's footprint.
    track_from: usize,
    /// The operation count at the last lookup of this execution.
    looked_up_at: Option<u64>,
    /// Set once this execution met a state already explored: it is then run to its end
    /// without preemptions, rather than stopped, because shuttle leaks what the tasks of a
    /// stopped execution hold on their stacks (measured: about 6.5 KB per execution, 24 GiB
    /// over the whole suite). The registry knows it too ([`registry::finish`]): a task then
    /// runs on past its operations' yield points, as the engine would only let it go on.
    finishing: bool,
    started: bool,
    left: usize,
    /// How the search ended: exhausted, or stopped by a model failure (a deadlock, a
    /// nondeterministic model). A failure is not raised inside shuttle's scheduler, where a
    /// panic would leave the runtime half torn down: the execution is stopped and the driver
    /// reports it.
    end: Rc<RefCell<SearchEnd>>,
    /// The part of a generated space this search owns, if any: only the choice values that
    /// keep the path's choices on one of its prefixes are options.
    part: Option<Part>,
    /// The values of this execution's choices so far, in order.
    choices: Vec<u64>,
    /// Every state any of the searches looked up, by signature: whether it is *complete*
    /// (a search finished it with every execution through it covered by one it explored, see
    /// [`Stateful`]; every search cuts a path there), the unbounded search's visit and the
    /// current pass's.
    states: States,
    /// What the reductions saved so far, over every search; written to [`SearchEnd`] with the
    /// state count.
    reduction: crate::engine::Reduction,
    /// Whether the unbounded search explores source sets (a dynamic partial-order
    /// reduction) rather than every state with sleep sets.
    sources: bool,
    /// With source sets: witness cells are ordered ([`registry::witness`]).
    witnesses: bool,
    /// The current execution's transitions, when it is the unbounded search's and that
    /// explores source sets.
    trace: Trace,
}

/// One depth-first search: a pass of the deepening (with a bound) or the unbounded search,
/// with its own stack. All keep their visits in [`Stateful::states`].
struct Search {
    stack: Vec<Frame>,
    /// The bound of this pass and what it counts; `None` for the unbounded search.
    bound: Option<Bound>,
    /// Whether this pass's bound has refused an option, so that its paths are not all.
    refused: bool,
    /// A pass's visits of states beside those [`Stateful::states`] keeps.
    pass: PassVisits,
}

impl Search {
    fn new(bound: Option<Bound>) -> Self {
        Self {
            stack: Vec::new(),
            bound,
            refused: false,
            pass: PassVisits::default(),
        }
    }

    /// Whether this is the unbounded search, the one whose end proves a case.
    fn unbounded(&self) -> bool {
        self.bound.is_none()
    }

    /// Who this search is in the deepening's round of turns ([`ROUND`]): its lane; `None`
    /// for the unbounded search.
    fn turn(&self) -> Option<usize> {
        self.bound.map(|b| b.lane as usize)
    }

    /// A pass of `lane` bounded by `limit`.
    fn pass(lane: Lane, limit: usize) -> Self {
        Self::new(Some(Bound { limit, lane }))
    }

    /// Whether this search counts deviations.
    fn deviations(&self) -> bool {
        self.bound.is_some_and(|b| b.lane == Lane::Deviations)
    }

    /// What the path costs at the next decision.
    fn cost_here(&self) -> usize {
        let deviations = self.deviations();
        self.stack
            .last()
            .map_or(0, |f| f.cost_after(f.chosen, deviations))
    }
}

/// How a stateful search ended, besides running out of executions or being stopped.
#[derive(Default)]
pub(crate) struct SearchEnd {
    pub(crate) exhausted: bool,
    pub(crate) failure: Option<String>,
    /// Distinct states met by any of the searches, counted as each is met.
    pub(crate) states: usize,
    /// Distinct final states the searches' executions ended in (the walks' left out),
    /// counted as each execution ends.
    pub(crate) finals: usize,
    /// What the reductions saved, over every search.
    pub(crate) reduction: crate::engine::Reduction,
    /// The executions the random walks took.
    pub(crate) walks: usize,
    /// The distinct states met (by any of the searches), by the kinds of the operations the
    /// transition that first reached each recorded (`None`: the first state, which none
    /// reached). Counted as they are met.
    pub(crate) origins: BTreeMap<Option<OpKinds>, u64>,
}

impl Stateful {
    /// A search of at most `executions` executions, over `part` of a generated space if
    /// given; with a `deepening` budget, the deepening and the random walks beside the
    /// unbounded search ([`Walk::for_budget`]), without, the unbounded search alone. The
    /// unbounded search explores source sets if `sources`, with witness cells ordered if
    /// `witnesses` too.
    pub(crate) fn new(
        executions: usize,
        part: Option<Part>,
        deepening: Option<Budget>,
        sources: bool,
        witnesses: bool,
        end: Rc<RefCell<SearchEnd>>,
    ) -> Self {
        Self {
            search: if deepening.is_some() {
                Search::pass(Lane::Preemptions, 0)
            } else {
                Search::new(None)
            },
            waiting: Vec::new(),
            walks: deepening.map_or_else(Vec::new, Walk::for_budget),
            walking: None,
            next_owner: 0,
            since_deepening: 0,
            next_turn: 1,
            second_lane_due: deepening.is_some(),
            depth: 0,
            track_from: 0,
            looked_up_at: None,
            finishing: false,
            started: false,
            left: executions,
            end,
            part,
            choices: Vec::new(),
            states: States::default(),
            reduction: crate::engine::Reduction::default(),
            sources,
            witnesses: sources && witnesses,
            trace: Trace::default(),
        }
    }

    /// Whether the current execution is the unbounded search's, exploring source sets, and
    /// not yet cut: its transitions are traced and its races found.
    fn tracing(&self) -> bool {
        self.sources && self.search.unbounded() && self.walking.is_none() && !self.finishing
    }

    /// The transition that led to the current decision touched `done`: trace it, and add
    /// to the source sets above what reverses its races and the races of every task's
    /// pending operation at the state it reached. Only a transition run from a decision at
    /// or past `track_from` is new; the ones before were traced, with their races and the
    /// pending operations after them, in an earlier execution.
    fn trace_transition(&mut self, done: &Footprint) {
        let Some(start) = self.search.stack[..self.depth]
            .iter()
            .rposition(|f| !f.choice)
        else {
            return;
        };
        let frame = &self.search.stack[start];
        let task = frame.options[frame.chosen];
        let fresh = start >= self.track_from;
        if self.trace.has(start) {
            // Kept from the execution before, which took the same transition.
            debug_assert!(!fresh, "a new transition traced before");
            return;
        }
        let mut races = self.trace.add(start, task, done, fresh);
        if fresh {
            races.extend(registry::pending().into_iter().filter_map(
                |(p, object, access, acquire)| self.trace.pending(p, object, access, acquire),
            ));
        }
        for race in races {
            self.search.stack[race.decision].add_source(&race.initials);
        }
    }

    /// The values among `0..n` this search may take at the next choice: all of them, or with
    /// a part, those that keep the choices so far on one of its prefixes (a path whose
    /// choices already begin with a prefix takes every value). The prefixes of a part are
    /// none a prefix of another, so a path is in at most one part, and in one exactly when
    /// the parts' prefixes together cover the choice tree.
    fn values(&self, n: usize) -> Vec<usize> {
        let Some(part) = &self.part else {
            return (0..n).collect();
        };
        let path = &self.choices;
        if part.prefixes.iter().any(|p| path.starts_with(p)) {
            return (0..n).collect();
        }
        (0..n)
            .filter(|&v| {
                part.prefixes.iter().any(|p| {
                    p.len() > path.len() && p.starts_with(path) && p[path.len()] == v as u64
                })
            })
            .collect()
    }

    /// Move to the next path of this pass; false when the pass is over.
    fn backtrack(&mut self) -> bool {
        let deviations = self.search.deviations();
        while let Some(frame) = self.search.stack.last_mut() {
            if !frame.source.is_empty() {
                if let Some(next) = frame.next_source() {
                    frame.chosen = next;
                    frame.taken[next] = true;
                    return true;
                }
                let left = (0..frame.options.len())
                    .filter(|&j| !frame.taken[j] && !frame.asleep(j))
                    .count();
                self.reduction.sources += left as u64;
                self.search.stack.pop();
                continue;
            }
            let next = frame.awake_after(frame.chosen);
            if let Some(next) = next.filter(|&n| n >= frame.lead && frame.exit_steps_suffice()) {
                self.reduction.persistent += frame.awake_from(next);
            } else if let Some(next) = next {
                if self
                    .search
                    .bound
                    .is_none_or(|b| frame.cost_after(next, deviations) <= b.limit)
                {
                    frame.chosen = next;
                    return true;
                }
                // Every later option costs one more, as this one does: all are refused.
                self.search.refused = true;
                frame.incomplete = true;
            }
            let done = self.search.stack.pop().expect("a frame");
            if done.incomplete {
                if let Some(parent) = self.search.stack.last_mut() {
                    parent.incomplete = true;
                }
            } else if done.lookup && done.sleep.is_empty() {
                self.states.at(Key::new(done.signature)).complete = true;
            }
        }
        false
    }

    /// Stop the search with a model failure.
    fn fail(&mut self, message: String) -> Option<TaskId> {
        self.end.borrow_mut().failure = Some(message);
        None
    }

    /// The message of a replayed path that met another decision than the first time.
    fn nondeterministic(&self, first: &Frame, now: &str) -> String {
        let was = if first.choice {
            format!("a choice among {} values", first.options.len())
        } else {
            format!("tasks {:?}", first.options)
        };
        format!(
            "the model is not deterministic: decision {} of a replayed path meets another \
             state ({was} the first time, {now} now)",
            self.depth + 1
        )
    }

    /// The search just run has no path left: start its lane's next pass (and the unbounded
    /// search after the first lane's [`ALONE`]); false when the search is exhausted: the
    /// unbounded search is over, or a bounded pass ended without its bound refusing anything.
    fn next_pass(&mut self) -> bool {
        let bound = match self.search.bound {
            Some(b) if self.search.refused => b,
            _ => {
                let mut end = self.end.borrow_mut();
                end.exhausted = true;
                end.reduction = self.reduction;
                return false;
            }
        };
        let limit = bound.limit + 1;
        if limit > MAX_BOUND {
            // The lane ends. Another search runs: the second lane runs beside the first, and
            // the unbounded search beside it from its bound 3.
            self.search = self.waiting.pop().expect("another search runs");
            return true;
        }
        self.search = Search::pass(bound.lane, limit);
        if bound.lane == Lane::Preemptions && limit == ALONE + 1 {
            self.waiting.push(Search::new(None));
        }
        true
    }

    /// The walk whose turn the next execution is, as [`TURNS`] orders them (`None`: the
    /// searches'); a walk's turn goes to the searches once it has no executions left.
    fn walk_turn(&mut self) -> Option<usize> {
        let owner = TURNS[self.next_owner];
        self.next_owner = (self.next_owner + 1) % TURNS.len();
        let w = owner.filter(|&w| self.walks.get(w).is_some_and(|w| w.left > 0))?;
        self.walks[w].left -= 1;
        Some(w)
    }

    /// Hand the next execution to the search whose turn it is: once the unbounded search
    /// runs, the deepening takes one execution for each [`share`] of its, by the least
    /// bound of the deepening's passes; before, the deepening takes them all. Its lanes'
    /// passes take its turns as [`ROUND`] orders them.
    fn take_turn(&mut self) {
        let next = if self.search.unbounded() {
            let Some(least) = self
                .waiting
                .iter()
                .filter_map(|s| s.bound.map(|b| b.limit))
                .min()
            else {
                return;
            };
            self.since_deepening += 1;
            if self.since_deepening < share(least) {
                return;
            }
            self.since_deepening = 0;
            self.deepening_turn()
        } else {
            self.waiting
                .iter()
                .position(Search::unbounded)
                .or_else(|| self.deepening_turn())
        };
        let Some(next) = next else {
            return;
        };
        std::mem::swap(&mut self.search, &mut self.waiting[next]);
    }

    /// The search of the deepening whose turn it is, by its place in `waiting` (`None`: the
    /// current search keeps it), and the round moves on. The turn is that of
    /// [`Stateful::next_turn`]'s place in [`ROUND`], or when that search does not run (the
    /// deviations lane before its start), the first lane's pass, or whichever search of the
    /// deepening is left.
    fn deepening_turn(&mut self) -> Option<usize> {
        let turn = ROUND[self.next_turn];
        self.next_turn = (self.next_turn + 1) % ROUND.len();
        let waiting = |t: usize| self.waiting.iter().position(|s| s.turn() == Some(t));
        let runs = |t: usize| self.search.turn() == Some(t) || waiting(t).is_some();
        match [turn, PREEMPTIONS].into_iter().find(|&t| runs(t)) {
            Some(t) => waiting(t),
            None => self.waiting.iter().position(|s| s.turn().is_some()),
        }
    }

    /// The sleep set of the state the transition `done` (just observed) led to from the
    /// decision before it: the tasks asleep there and the options explored there before it,
    /// those whose transitions are independent of `done` and that can still run. The
    /// decision before is the one the transition started at: the choices the transition made
    /// on the way are passed over. Empty in a bounded pass and at the first decision.
    fn sleep_after(&self, done: Option<&Footprint>, options: &[usize]) -> Vec<Sleeper> {
        // The decision the transition started at: the last one that was not a choice (the
        // choices after it were made by the transition's own task).
        let start = self.search.stack[..self.depth]
            .iter()
            .rposition(|f| !f.choice);
        let (Some(done), None, Some(parent)) = (
            done,
            self.search.bound,
            start.map(|d| &self.search.stack[d]),
        ) else {
            return Vec::new();
        };
        let explored = (0..parent.options.len())
            .filter(|&j| parent.explored_before(j) && !parent.asleep(j))
            .filter_map(|j| {
                parent.footprints[j].as_ref().map(|f| Sleeper {
                    task: parent.options[j],
                    footprint: f.clone(),
                })
            });
        parent
            .sleep
            .iter()
            .cloned()
            .chain(explored)
            .filter(|s| s.footprint.independent(done) && options.contains(&s.task))
            .collect()
    }

    /// This execution's path is cut: run `task` on, and the execution to its end without
    /// preemptions and without further lookups.
    fn finish(&mut self, task: usize) -> Option<TaskId> {
        self.finishing = true;
        registry::finish();
        Self::run(task)
    }

    /// Run `task` until the next decision.
    fn run(task: usize) -> Option<TaskId> {
        registry::begin_transition(task);
        Some(TaskId::from(task))
    }
}

impl Scheduler for Stateful {
    fn new_execution(&mut self) -> Option<ShuttleSchedule> {
        // Kept up to date, as the exploration may be stopped after any execution (the state
        // count is, as each state is met).
        // The execution that just ended, if no cut stopped its recording, ended in a final
        // state. Every final state ends some execution that was not cut (the module docs,
        // "Final states", say why), so the count is exact once the search is exhausted. A
        // walk's execution proves nothing and is not counted.
        if self.started && self.walking.is_none() && !self.finishing {
            self.states.ended(Key::new(registry::signature().0));
        }
        // The execution's last transition reached no decision: its races are found here.
        if self.started && self.tracing() {
            if let Some(done) = registry::end_transition() {
                self.trace_transition(&done);
            }
        }
        {
            let mut end = self.end.borrow_mut();
            end.reduction = self.reduction;
            end.finals = self.states.finals();
            if end.failure.is_some() {
                return None;
            }
        }
        // A part that owns no workload (more parts than workloads): nothing to explore.
        if self.part.as_ref().is_some_and(|p| p.prefixes.is_empty()) {
            self.end.borrow_mut().exhausted = true;
            return None;
        }
        if self.started {
            // A walk's execution leaves the searches where they were.
            if self.walking.is_none() && !self.backtrack() && !self.next_pass() {
                return None;
            }
            self.walking = self.walk_turn();
            if self.walking.is_none() {
                self.take_turn();
            }
        }
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        if self.walking.is_some() {
            self.end.borrow_mut().walks += 1;
        }
        self.choices.clear();
        self.started = true;
        self.depth = 0;
        self.track_from = self
            .search
            .stack
            .iter()
            .rposition(|f| !f.choice)
            .unwrap_or(0);
        self.looked_up_at = None;
        self.finishing = false;
        // Only the unbounded search's executions trace (walks and passes between them leave
        // the trace as it was), and this one replays that search's path before `track_from`:
        // the transitions traced there are kept.
        if self.tracing() {
            self.trace.truncate(self.track_from);
        }
        if let Some(w) = self.walking {
            self.walks[w].start();
        }
        registry::reset();
        registry::order_witnesses(self.witnesses);
        // The run to the first decision belongs to no decision's options.
        registry::track(false);
        Some(ShuttleSchedule::new(0))
    }

    fn next_task(
        &mut self,
        runnable: &[&Task],
        current: Option<TaskId>,
        _is_yielding: bool,
    ) -> Option<TaskId> {
        if let Some(c) = current.filter(|&c| registry::passing(usize::from(c))) {
            if runnable.iter().any(|t| t.id() == c) {
                return Some(c);
            }
        }
        let done = registry::end_transition();
        if self.end.borrow().failure.is_some() {
            return None;
        }
        let mut options: Vec<usize> = runnable
            .iter()
            .map(|t| usize::from(t.id()))
            .filter(|t| registry::enabled(*t))
            .collect();
        options.sort_unstable();
        let mut continues = false;
        if let Some(c) = current.map(usize::from) {
            if let Some(i) = options.iter().position(|t| *t == c) {
                options[..=i].rotate_right(1);
                continues = true;
            }
        }
        if options.is_empty() {
            return self.fail(
                "deadlock: every task that can run waits for a lock, a notification or a join"
                    .into(),
            );
        }
        if self.finishing {
            return Self::run(options[0]);
        }
        if let Some(w) = self.walking {
            let task = self.walks[w].task(&options, current.map(usize::from));
            return Self::run(task);
        }
        if let Some(done) = done.as_ref().filter(|_| self.tracing()) {
            self.trace_transition(done);
        }
        // The unbounded search takes the exit steps first (in the same order when a path is
        // replayed): see "Exit steps" in the module docs.
        let mut lead = 0;
        if self.search.bound.is_none() && !self.sources {
            let exits = registry::exit_steps(&options);
            if !exits.is_empty() && exits.len() < options.len() {
                continues &= exits.contains(&options[0]);
                let (mut first, rest): (Vec<usize>, Vec<usize>) =
                    options.iter().partition(|t| exits.contains(t));
                first.extend(rest);
                options = first;
                lead = exits.len();
            }
        }
        // What the transition that led here touched belongs to the decision it was taken at.
        if let (Some(parent), Some(done)) = (
            self.depth.checked_sub(1).map(|d| &mut self.search.stack[d]),
            done.as_ref(),
        ) {
            if !parent.choice
                && self.search.bound.is_none()
                && parent.footprints[parent.chosen].is_none()
            {
                if parent.chosen < parent.lead {
                    parent.lead_private &= registry::exit_private(done);
                }
                parent.footprints[parent.chosen] = Some(done.clone());
            }
        }
        let (signature, operations) = registry::signature();
        if self.depth < self.search.stack.len() {
            let frame = &self.search.stack[self.depth];
            if frame.choice || frame.options != options || frame.signature != signature {
                let message = self.nondeterministic(frame, &format!("tasks {options:?}"));
                return self.fail(message);
            }
            // The unbounded search keeps a replayed transition's footprint only where it is
            // needed: the option was not run from here before (the last backtrack moved to
            // it), or the transition reaches the first new decision, whose sleep set it makes
            // (with a choice inside, it is not the transition of the footprint kept).
            registry::track(
                !frame.footprints.is_empty()
                    && (frame.footprints[frame.chosen].is_none()
                        || self.depth >= self.track_from
                        || self.sources),
            );
            self.depth += 1;
            self.looked_up_at = Some(operations);
            return Self::run(frame.options[frame.chosen]);
        }
        let cost = self.search.cost_here();
        let sleep = self.sleep_after(done.as_ref(), &options);
        let lookup = self.looked_up_at != Some(operations);
        if lookup {
            self.looked_up_at = Some(operations);
            let Self {
                states,
                search,
                end,
                sources,
                ..
            } = self;
            let key = Key::new(signature);
            let known = states.len();
            let met = states.at(key);
            // With source sets the unbounded search cuts no path at a state met before: the
            // races past the cut would be hidden from the decisions before it. The state is
            // only counted.
            let sourcing = *sources && search.bound.is_none();
            // Every execution through a complete state is covered: no search goes on there.
            if met.complete && !sourcing {
                self.reduction.complete += 1;
                return self.finish(options[0]);
            }
            let covered = if sourcing {
                false
            } else if let Some(bound) = search.bound {
                // A bounded pass tells states apart by who runs next too: the same state
                // costs a preemption more or less depending on the task that ran before.
                // Reached before at as low a cost, everything this visit would explore was
                // explored.
                let next = if continues {
                    registry::task_name(options[0])
                } else {
                    0
                };
                let lane = bound.lane as usize;
                search.pass.reach(met, lane, bound.limit, key, next, cost)
            } else {
                // The unbounded search tells states apart by where each task stands, so that
                // a task asleep in two visits of a state is asleep before the same transition.
                let mut names: Vec<(u32, u32)> =
                    sleep.iter().map(|s| registry::standing(s.task)).collect();
                names.sort_unstable();
                states.visit(key, &names)
            };
            if states.len() > known {
                // A state no search met before (every state is first met here): what reached
                // it, and the count, up to date for a search stopped at any point.
                let reached_by = done.is_some().then(registry::last_recorded);
                let mut end = end.borrow_mut();
                *end.origins.entry(reached_by).or_default() += 1;
                end.states = states.len();
            }
            if covered {
                self.reduction.revisits += 1;
                // Not complete (or it would have been cut above): a bounded pass left some of
                // its paths untaken, and so some of this one's.
                if let Some(parent) = search.stack.last_mut() {
                    parent.incomplete |= search.bound.is_some();
                }
                return self.finish(options[0]);
            }
        }
        let n = options.len();
        // An exit step asleep here was observed where it ran, with what it touched there.
        let lead_private = sleep
            .iter()
            .filter(|s| options[..lead].contains(&s.task))
            .all(|s| registry::exit_private(&s.footprint));
        let mut frame = Frame {
            choice: false,
            options,
            chosen: 0,
            continues,
            cost,
            signature,
            sleep,
            footprints: if self.search.bound.is_none() {
                vec![None; n]
            } else {
                Vec::new()
            },
            lookup,
            incomplete: false,
            lead,
            lead_private,
            source: Vec::new(),
            taken: Vec::new(),
        };
        if self.sources && self.search.unbounded() {
            frame.source = vec![false; n];
            frame.taken = vec![false; n];
        }
        self.reduction.asleep += (0..n).filter(|&i| frame.asleep(i)).count() as u64;
        // Every task asleep (or every exit step, when they suffice): each execution from
        // here is covered elsewhere.
        let Some(first) = (0..n).find(|&i| !frame.asleep(i)) else {
            return self.finish(frame.options[0]);
        };
        if first >= lead && frame.exit_steps_suffice() {
            self.reduction.persistent += frame.awake_from(first);
            return self.finish(frame.options[0]);
        }
        frame.chosen = first;
        if !frame.source.is_empty() {
            frame.source[first] = true;
            frame.taken[first] = true;
        }
        let task = frame.options[first];
        registry::track(!frame.footprints.is_empty());
        self.search.stack.push(frame);
        self.depth += 1;
        Self::run(task)
    }

    /// A request for a random value is a decision when the facade announced it as a choice
    /// ([`crate::sync::choose`]): every value is explored, as every task is at a scheduling
    /// decision. A choice is never a preemption (a value other than its first is a deviation,
    /// which the second lane counts), and it is not looked up in the visited set:
    /// the value is recorded as the chooser's operation, so the state after it is looked up
    /// at the next scheduling decision. With a [`Part`], only the values that keep the
    /// execution's choices on one of the part's prefixes are options. Other requests (none
    /// from the models) get 0.
    fn next_u64(&mut self) -> u64 {
        let Some(n) = registry::take_choice() else {
            return 0;
        };
        if self.end.borrow().failure.is_some() {
            return 0;
        }
        let options = self.values(n);
        if options.is_empty() {
            self.fail(format!(
                "the part's prefixes do not fit the model's choices: none continues {:?} \
                 with a value below {n}",
                self.choices
            ));
            return 0;
        }
        if let Some(w) = self.walking {
            let value = options[self.walks[w].below(options.len())] as u64;
            self.choices.push(value);
            return value;
        }
        // A finishing execution stays within the part too.
        if self.finishing {
            self.choices.push(options[0] as u64);
            return options[0] as u64;
        }
        let (signature, _) = registry::signature();
        if self.depth < self.search.stack.len() {
            let frame = &self.search.stack[self.depth];
            if !frame.choice || frame.options != options || frame.signature != signature {
                let message = self.nondeterministic(frame, &format!("a choice among {n} values"));
                self.fail(message);
                return 0;
            }
            self.depth += 1;
            let value = frame.options[frame.chosen] as u64;
            self.choices.push(value);
            return value;
        }
        let cost = self.search.cost_here();
        let first = options[0];
        if self.second_lane_due && options.len() > 1 {
            // It takes its first turn after this execution.
            self.second_lane_due = false;
            self.waiting.push(Search::pass(Lane::Deviations, 0));
        }
        self.search.stack.push(Frame {
            choice: true,
            options,
            chosen: 0,
            continues: false,
            cost,
            signature,
            sleep: Vec::new(),
            footprints: Vec::new(),
            lookup: false,
            incomplete: false,
            lead: 0,
            lead_private: false,
            source: Vec::new(),
            taken: Vec::new(),
        });
        self.depth += 1;
        self.choices.push(first as u64);
        first as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// One execution of `walk` over three tasks that can always run, `steps` decisions
    /// long: the tasks it ran, in order.
    fn execution(walk: &mut Walk, steps: usize) -> Vec<usize> {
        walk.start();
        let mut ran: Vec<usize> = Vec::new();
        for _ in 0..steps {
            let task = walk.task(&[0, 1, 2], ran.last().copied());
            ran.push(task);
        }
        ran
    }

    #[test]
    fn a_pct_walk_preempts_exactly_at_its_change_points() {
        let budget = Budget {
            random: 5,
            pct: 7,
            pct_depth: 3,
        };
        let [uniform, mut pct] = <[Walk; 2]>::try_from(Walk::for_budget(budget)).unwrap();
        assert_eq!((uniform.left, pct.left), (5, 7));
        assert!(uniform.pct.is_none());
        // The first execution has no change points (no steps known yet): one task runs.
        let first = execution(&mut pct, 10);
        assert!(first.iter().all(|&t| t == first[0]), "{first:?}");
        // Then the running task's priority drops at each of the depth's two change points,
        // drawn anew per execution, and only there: with every task able to run, each is a
        // preemption.
        let mut points = BTreeSet::new();
        let mut leaders = BTreeSet::new();
        for _ in 0..300 {
            let ran = execution(&mut pct, 10);
            let at: Vec<usize> = (1..ran.len()).filter(|&i| ran[i] != ran[i - 1]).collect();
            assert_eq!(at.len(), 2, "{ran:?}");
            points.insert(at);
            leaders.insert(ran[0]);
        }
        assert!(points.len() > 10, "{points:?}");
        assert_eq!(leaders.len(), 3, "{leaders:?}");
    }

    #[test]
    fn a_pct_walk_counts_only_decisions_between_tasks() {
        let mut pct = Walk::for_budget(Budget::CHECK).remove(1);
        // Ten decisions among three tasks, then ten where only the running task can run:
        // the change points fall among the first ten, as only they are PCT's steps.
        let mut execution = || {
            let ran = execution(&mut pct, 10);
            for _ in 0..10 {
                let last = *ran.last().expect("ten steps");
                assert_eq!(pct.task(&[last], Some(last)), last);
            }
            ran
        };
        execution();
        for _ in 0..100 {
            let ran = execution();
            assert_eq!(
                ran.windows(2).filter(|w| w[0] != w[1]).count(),
                2,
                "{ran:?}"
            );
        }
    }

    #[test]
    fn a_task_lowered_later_runs_after_one_lowered_before() {
        let mut walk = Walk::for_budget(Budget::CHECK).remove(1);
        walk.start();
        walk.pct.as_mut().expect("the PCT walk").change_points = vec![1, 2];
        let first = walk.task(&[0, 1, 2], None);
        let second = walk.task(&[0, 1, 2], Some(first));
        let third = walk.task(&[0, 1, 2], Some(second));
        assert_eq!(
            BTreeSet::from([first, second, third]),
            BTreeSet::from([0, 1, 2])
        );
        // With the third task unable to run, the first lowered outranks the second, in
        // whichever order they are offered.
        assert_eq!(walk.task(&[first, second], Some(third)), first);
        assert_eq!(walk.task(&[second, first], Some(third)), first);
    }

    #[test]
    fn the_walks_are_the_same_on_every_run() {
        let walks = || Walk::for_budget(Budget::CHECK);
        let (mut a, mut b) = (walks(), walks());
        for w in 0..2 {
            for _ in 0..20 {
                assert_eq!(execution(&mut a[w], 12), execution(&mut b[w], 12));
            }
        }
    }
}
