//! Driving shuttle: a recording wrapper around its schedulers, and a strict replayer.
//!
//! The failing schedule is taken from [`Recording`], which sees every decision the wrapped
//! scheduler makes, rather than from shuttle's panic output (shuttle installs its panic hook
//! once per process, and a violation here is not a panic at all).

use super::schedule::{Schedule, Step};
use super::{panic_message, DriveError, Driven, Exploration, Flow, Strategy};
use ::shuttle::scheduler::{
    DfsScheduler, PctScheduler, Schedule as ShuttleSchedule, Scheduler, Task, TaskId,
};

/// Uniformly random choices from a SplitMix64 stream. shuttle's `RandomScheduler` reads
/// `SHUTTLE_RANDOM_SEED` from the environment and prints its seed to stderr whenever an
/// exploration stops early; this one does neither, so a seed means the same run everywhere.
struct Uniform {
    state: u64,
    left: usize,
}

impl Uniform {
    fn next(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

impl Scheduler for Uniform {
    fn new_execution(&mut self) -> Option<ShuttleSchedule> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        Some(ShuttleSchedule::new(self.state))
    }

    fn next_task(
        &mut self,
        runnable: &[&Task],
        _current: Option<TaskId>,
        _is_yielding: bool,
    ) -> Option<TaskId> {
        let len = u64::try_from(runnable.len()).unwrap_or(u64::MAX);
        let pick = usize::try_from(self.next() % len).unwrap_or(0);
        Some(runnable[pick].id())
    }

    fn next_u64(&mut self) -> u64 {
        self.next()
    }
}
use crate::sync::owned;
use ::shuttle::{Config, FailurePersistence, Runner};
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

/// State shared between the driver and the scheduler it hands to shuttle's `Runner`.
#[derive(Default)]
struct Tape {
    current: Vec<Step>,
    in_execution: bool,
    stopped: bool,
    executions: usize,
    mismatch: Option<String>,
    derived: Vec<(usize, usize)>,
}

/// Records every decision of `inner` and reports finished executions to the exploration.
struct Recording<S> {
    inner: S,
    tape: Rc<RefCell<Tape>>,
    exploration: Arc<dyn Exploration>,
}

fn close_execution(tape: &RefCell<Tape>, exploration: &dyn Exploration) {
    let mut t = tape.borrow_mut();
    if !t.in_execution {
        return;
    }
    t.in_execution = false;
    let schedule = Schedule {
        steps: std::mem::take(&mut t.current),
    };
    drop(t);
    if exploration.end(Some(schedule)) == Flow::Stop {
        tape.borrow_mut().stopped = true;
    }
}

impl<S: Scheduler> Scheduler for Recording<S> {
    fn new_execution(&mut self) -> Option<ShuttleSchedule> {
        close_execution(&self.tape, self.exploration.as_ref());
        if self.tape.borrow().stopped {
            return None;
        }
        let next = self.inner.new_execution()?;
        let mut t = self.tape.borrow_mut();
        t.in_execution = true;
        t.executions += 1;
        Some(next)
    }

    fn next_task(
        &mut self,
        runnable: &[&Task],
        current: Option<TaskId>,
        is_yielding: bool,
    ) -> Option<TaskId> {
        if self.exploration.settled() {
            return None;
        }
        let task = self.inner.next_task(runnable, current, is_yielding)?;
        self.tape
            .borrow_mut()
            .current
            .push(Step::Task(usize::from(task)));
        Some(task)
    }

    fn next_u64(&mut self) -> u64 {
        let v = self.inner.next_u64();
        self.tape.borrow_mut().current.push(Step::Random(v));
        v
    }
}

/// One decision of the stateful search: the tasks it could run (the one that ran before
/// first, when it can still run), which of them the current path takes, and what the state
/// was, so that a re-execution can check it meets the same decision.
struct Frame {
    options: Vec<usize>,
    chosen: usize,
    /// Whether `options[0]` is the task that ran before: any other choice is a preemption.
    continues: bool,
    /// Preemptions on the path before this decision.
    preemptions: usize,
    signature: u128,
}

impl Frame {
    /// The preemptions on the path once option `i` is taken.
    fn preemptions_after(&self, i: usize) -> usize {
        self.preemptions + usize::from(self.continues && i > 0)
    }
}

/// The passes of the stateful search: preemption bounds tried in turn before the search
/// without a bound, so that a violation that needs one early preemption is found before the
/// depth-first order reaches the far corners of the unbounded space.
const DEEPENING: &[usize] = &[0, 1, 2];

/// Depth-first search over schedules that explores each state once.
///
/// The facade runs in its own mode ([`owned`]): every task stands just before its next
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
/// The search runs in passes ([`DEEPENING`]): first with at most 0, 1, 2 preemptions (a
/// switch away from a task that could go on), then without a bound. A bounded pass keys its
/// visited states by the task that runs next and keeps the fewest preemptions each was
/// reached with: a state reached again with fewer has more of its future left to explore.
/// Only the unbounded pass can exhaust the search; the bounded ones find violations sooner.
struct Stateful {
    stack: Vec<Frame>,
    depth: usize,
    /// The preemption bound of this pass; `None` for the last pass.
    bound: Option<usize>,
    passes: std::vec::IntoIter<Option<usize>>,
    visited: std::collections::HashMap<(u128, u32), usize>,
    /// The operation count at the last lookup of this execution.
    looked_up_at: Option<u64>,
    /// Set once this execution met a state already explored: it is then run to its end
    /// without preemptions, rather than stopped, because shuttle leaks what the tasks of a
    /// stopped execution hold on their stacks (measured: about 6.5 KB per execution, 24 GiB
    /// over the whole suite).
    finishing: bool,
    started: bool,
    left: usize,
    /// How the search ended: exhausted, or stopped by a model failure (a deadlock, a
    /// nondeterministic model). A failure is not raised inside shuttle's scheduler, where a
    /// panic would leave the runtime half torn down: the execution is stopped and the driver
    /// reports it.
    end: Rc<RefCell<SearchEnd>>,
}

/// How a stateful search ended, besides running out of executions or being stopped.
#[derive(Default)]
struct SearchEnd {
    exhausted: bool,
    failure: Option<String>,
}

impl Stateful {
    fn new(executions: usize, end: Rc<RefCell<SearchEnd>>) -> Self {
        let mut passes: Vec<Option<usize>> = DEEPENING.iter().copied().map(Some).collect();
        passes.push(None);
        let mut passes = passes.into_iter();
        Self {
            stack: Vec::new(),
            depth: 0,
            bound: passes.next().flatten(),
            passes,
            visited: std::collections::HashMap::new(),
            looked_up_at: None,
            finishing: false,
            started: false,
            left: executions,
            end,
        }
    }

    /// Whether option `i` of `frame` keeps the path within this pass's bound.
    fn allowed(&self, frame: &Frame, i: usize) -> bool {
        self.bound.is_none_or(|b| frame.preemptions_after(i) <= b)
    }

    /// Move to the next path of this pass; false when the pass is over.
    fn backtrack(&mut self) -> bool {
        while let Some(frame) = self.stack.last() {
            let next = frame.chosen + 1;
            if next < frame.options.len() && self.allowed(frame, next) {
                self.stack.last_mut().expect("a frame").chosen = next;
                return true;
            }
            self.stack.pop();
        }
        false
    }

    /// Stop the search with a model failure.
    fn fail(&mut self, message: String) -> Option<TaskId> {
        self.end.borrow_mut().failure = Some(message);
        None
    }

    /// Start the next pass; false when the unbounded one is over.
    fn next_pass(&mut self) -> bool {
        if self.bound.is_none() {
            self.end.borrow_mut().exhausted = true;
            return false;
        }
        self.bound = self.passes.next().flatten();
        self.visited.clear();
        true
    }
}

impl Scheduler for Stateful {
    fn new_execution(&mut self) -> Option<ShuttleSchedule> {
        if self.end.borrow().failure.is_some() {
            return None;
        }
        if self.started && !self.backtrack() && !self.next_pass() {
            return None;
        }
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        self.started = true;
        self.depth = 0;
        self.looked_up_at = None;
        self.finishing = false;
        owned::reset();
        Some(ShuttleSchedule::new(0))
    }

    fn next_task(
        &mut self,
        runnable: &[&Task],
        current: Option<TaskId>,
        _is_yielding: bool,
    ) -> Option<TaskId> {
        let mut options: Vec<usize> = runnable
            .iter()
            .map(|t| usize::from(t.id()))
            .filter(|t| owned::enabled(*t))
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
            return Some(TaskId::from(options[0]));
        }
        let (signature, operations) = owned::signature();
        if self.depth < self.stack.len() {
            let frame = &self.stack[self.depth];
            if frame.options != options || frame.signature != signature {
                let message = format!(
                    "the model is not deterministic: decision {} of a replayed path meets \
                     another state (tasks {:?} the first time, {options:?} now)",
                    self.depth + 1,
                    frame.options
                );
                return self.fail(message);
            }
            self.depth += 1;
            self.looked_up_at = Some(operations);
            return Some(TaskId::from(frame.options[frame.chosen]));
        }
        let preemptions = self
            .stack
            .last()
            .map_or(0, |f| f.preemptions_after(f.chosen));
        // Without a bound, how a state was reached does not matter.
        let cost = if self.bound.is_some() { preemptions } else { 0 };
        if self.looked_up_at != Some(operations) {
            self.looked_up_at = Some(operations);
            // A bounded pass tells states apart by who runs next too: the same state costs a
            // preemption more or less depending on the task that ran before.
            let next = if self.bound.is_some() && continues {
                owned::task_name(options[0])
            } else {
                0
            };
            match self.visited.entry((signature, next)) {
                std::collections::hash_map::Entry::Occupied(mut seen) => {
                    if *seen.get() <= cost {
                        self.finishing = true;
                        return Some(TaskId::from(options[0]));
                    }
                    seen.insert(cost);
                }
                std::collections::hash_map::Entry::Vacant(v) => {
                    v.insert(cost);
                }
            }
        }
        let first = options[0];
        self.stack.push(Frame {
            options,
            chosen: 0,
            continues,
            preemptions,
            signature,
        });
        self.depth += 1;
        Some(TaskId::from(first))
    }

    fn next_u64(&mut self) -> u64 {
        0
    }
}

/// The choice of a non-preemptive scheduler: the running task while it can run, else the
/// lowest-numbered runnable task.
fn default_choice(ids: &[usize], current: Option<TaskId>) -> usize {
    match current.map(usize::from) {
        Some(c) if ids.contains(&c) => c,
        _ => ids.iter().copied().min().unwrap_or(0),
    }
}

/// What a single steered execution follows.
enum Steer {
    /// Exactly these recorded decisions; past their end, the non-preemptive default.
    Exact(Vec<Step>),
    /// The non-preemptive default, except at these `decision -> task` switches.
    Switches(std::collections::BTreeMap<usize, usize>),
}

/// Runs one execution as [`Steer`] says, records where it left the non-preemptive default,
/// and stops with a clear message where a recorded schedule no longer fits.
struct Steered {
    steer: Steer,
    decision: usize,
    started: bool,
    tape: Rc<RefCell<Tape>>,
}

impl Steered {
    fn new(steer: Steer, tape: &Rc<RefCell<Tape>>) -> Self {
        Self {
            steer,
            decision: 0,
            started: false,
            tape: Rc::clone(tape),
        }
    }

    fn mismatch(&self, message: String) -> Option<TaskId> {
        self.tape.borrow_mut().mismatch = Some(message);
        None
    }
}

impl Scheduler for Steered {
    fn new_execution(&mut self) -> Option<ShuttleSchedule> {
        if self.started {
            return None;
        }
        self.started = true;
        Some(ShuttleSchedule::new(0))
    }

    fn next_task(
        &mut self,
        runnable: &[&Task],
        current: Option<TaskId>,
        _is_yielding: bool,
    ) -> Option<TaskId> {
        let ids: Vec<usize> = runnable.iter().map(|t| usize::from(t.id())).collect();
        let default = default_choice(&ids, current);
        let n = self.decision + 1;
        let chosen = match &self.steer {
            Steer::Switches(switches) => match switches.get(&self.decision) {
                Some(t) if ids.contains(t) => *t,
                _ => default,
            },
            Steer::Exact(steps) => match steps.get(self.decision).copied() {
                None => default,
                Some(Step::Task(t)) if ids.contains(&t) => t,
                Some(Step::Task(t)) => {
                    return self.mismatch(format!(
                        "decision {n} runs task {t}, but only tasks {ids:?} can run there"
                    ))
                }
                Some(Step::Random(_)) => {
                    return self.mismatch(format!(
                        "decision {n} is a random value, but the model asks which task runs"
                    ))
                }
            },
        };
        if chosen != default {
            self.tape.borrow_mut().derived.push((self.decision, chosen));
        }
        self.decision += 1;
        Some(TaskId::from(chosen))
    }

    fn next_u64(&mut self) -> u64 {
        match &self.steer {
            Steer::Exact(steps) => match steps.get(self.decision).copied() {
                Some(Step::Random(v)) => {
                    self.decision += 1;
                    v
                }
                _ => 0,
            },
            Steer::Switches(_) => 0,
        }
    }
}

fn config() -> Config {
    let mut config = Config::new();
    config.failure_persistence = FailurePersistence::None;
    config.silence_warnings = true;
    config
}

fn body(exploration: &Arc<dyn Exploration>) -> impl Fn() + Send + Sync + 'static {
    let x = Arc::clone(exploration);
    move || {
        x.begin();
        x.body();
    }
}

/// Run `inner` to its end, recording every decision. `dfs_limit` is the execution limit of
/// an exhaustive enumeration, which has run out of schedules when it stops short of it.
fn run_recorded<S: Scheduler + 'static>(
    inner: S,
    exploration: Arc<dyn Exploration>,
    dfs_limit: Option<usize>,
) -> Result<Driven, DriveError> {
    run_recorded_on(
        inner,
        exploration,
        dfs_limit,
        Rc::new(RefCell::new(Tape::default())),
    )
}

fn run_recorded_on<S: Scheduler + 'static>(
    inner: S,
    exploration: Arc<dyn Exploration>,
    dfs_limit: Option<usize>,
    tape: Rc<RefCell<Tape>>,
) -> Result<Driven, DriveError> {
    let scheduler = Recording {
        inner,
        tape: Rc::clone(&tape),
        exploration: Arc::clone(&exploration),
    };
    let f = body(&exploration);
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        Runner::new(scheduler, config()).run(f)
    }));
    if let Err(payload) = outcome {
        return Err(DriveError::ModelFailure(panic_message(payload.as_ref())));
    }
    close_execution(&tape, exploration.as_ref());
    let t = tape.borrow();
    Ok(Driven {
        executions: t.executions,
        exhausted: dfs_limit.is_some_and(|limit| !t.stopped && t.executions < limit),
        switches: None,
    })
}

pub(super) fn drive(
    strategy: &Strategy,
    exploration: Arc<dyn Exploration>,
) -> Result<Driven, DriveError> {
    match strategy {
        Strategy::Random { seed, executions } => run_recorded(
            Uniform {
                state: *seed,
                left: *executions,
            },
            exploration,
            None,
        ),
        Strategy::Pct {
            seed,
            depth,
            executions,
        } => run_recorded(
            PctScheduler::new_from_seed(*seed, (*depth).max(1), *executions),
            exploration,
            None,
        ),
        Strategy::Dfs { executions } => run_recorded(
            DfsScheduler::new(Some(*executions), false),
            exploration,
            Some(*executions),
        ),
        Strategy::Stateful { executions } => {
            let end = Rc::new(RefCell::new(SearchEnd::default()));
            owned::activate();
            let driven = run_recorded(
                Stateful::new(*executions, Rc::clone(&end)),
                exploration,
                None,
            );
            owned::deactivate();
            let mut driven = driven?;
            let end = end.borrow();
            if let Some(failure) = &end.failure {
                return Err(DriveError::ModelFailure(failure.clone()));
            }
            driven.exhausted = end.exhausted;
            Ok(driven)
        }
        Strategy::Replay { schedule } => steer(Steer::Exact(schedule.steps.clone()), exploration),
        Strategy::Guided { switches } => steer(
            Steer::Switches(switches.iter().copied().collect()),
            exploration,
        ),
        Strategy::Loom { .. } | Strategy::Threads { .. } => {
            Err(DriveError::EngineMissing(strategy.engine()))
        }
    }
}

fn steer(steer: Steer, exploration: Arc<dyn Exploration>) -> Result<Driven, DriveError> {
    let tape = Rc::new(RefCell::new(Tape::default()));
    let outcome = run_recorded_on(
        Steered::new(steer, &tape),
        exploration,
        None,
        Rc::clone(&tape),
    );
    if let Some(m) = tape.borrow_mut().mismatch.take() {
        return Err(DriveError::ScheduleMismatch(m));
    }
    let mut driven = outcome?;
    driven.switches = Some(std::mem::take(&mut tape.borrow_mut().derived));
    Ok(driven)
}

pub(super) fn run_once(f: impl Fn() + Send + Sync + 'static) {
    Runner::new(Uniform { state: 0, left: 1 }, config()).run(f);
}
