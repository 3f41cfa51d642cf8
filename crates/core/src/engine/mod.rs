//! Engines: run an [`Exploration`] under the exploration engine this build has.
//!
//! The explorer ([`crate::explore`]) is engine-independent; the code here is the part that
//! calls shuttle's `Runner`, loom's `model::Builder` or spawns OS threads. Together with
//! [`crate::sync`] (the primitives the models use) it is the only code that names a backend.

mod quiet_panics;
mod schedule;
#[cfg(not(ohc_threads))]
pub(crate) mod stateful;
mod table;
pub use schedule::{Schedule, ScheduleError, Step, Yields};
pub use table::{Ask, Budget, Build, Capabilities, DefaultRun, PreemptionBound, TABLE};

#[cfg(not(any(loom, ohc_threads)))]
mod shuttle;
#[cfg(not(any(loom, ohc_threads)))]
use self::shuttle as backend;

#[cfg(loom)]
mod loom;
#[cfg(loom)]
use self::loom as backend;
#[cfg(loom)]
pub(crate) use self::loom::choice as loom_choice;

#[cfg(ohc_threads)]
mod threads;
#[cfg(ohc_threads)]
use self::threads as backend;
#[cfg(ohc_threads)]
pub(crate) use self::threads::{
    adopt as threads_adopt, choice as threads_choice, stream as threads_stream,
};

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

/// An exploration engine, as the CLI and the reports spell it; what each can do is its row
/// of the engine table ([`TABLE`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    /// shuttle's uniformly random scheduler (own seeded generator).
    Random,
    /// shuttle's PCT scheduler.
    Pct,
    /// shuttle's depth-first enumeration.
    Dfs,
    /// Depth-first search over the facade's own states: every schedule, each state explored
    /// once (the `engine::stateful` module); no preemption bound (default build).
    Stateful,
    /// One recorded or steered schedule under shuttle.
    Replay,
    /// loom's exhaustive DPOR exploration.
    Loom,
    /// Real OS threads.
    Threads,
}

impl fmt::Display for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The engines this build can run, in the table's order.
pub fn available_engines() -> Vec<Engine> {
    Engine::all().filter(|e| e.available()).collect()
}

/// How to choose interleavings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// Uniformly random choices from a seeded generator, under shuttle.
    Random {
        /// Seed of the scheduler's generator.
        seed: u64,
        /// Executions to run.
        executions: usize,
    },
    /// shuttle's PCT scheduler (probabilistic concurrency testing).
    Pct {
        /// Seed of the scheduler's generator.
        seed: u64,
        /// Bug depth d: the scheduler makes d-1 priority changes per execution.
        depth: usize,
        /// Executions to run.
        executions: usize,
    },
    /// shuttle's depth-first enumeration, stopped after a number of executions.
    Dfs {
        /// Executions to run at most.
        executions: usize,
    },
    /// Depth-first search over the facade's states, each explored once, at most this many
    /// executions.
    Stateful {
        /// The execution limit.
        executions: usize,
        /// Only this part of a generated space (`None`: all of it).
        part: Option<Part>,
        /// With a budget, the deepening runs beside the unbounded search: passes bounded by
        /// 0, 1, 2, ... preemptions, and when the model makes choices, passes bounded by as
        /// many preemptions and values of a choice other than its first together (they find
        /// a violation that needs few of either early), and a uniformly random walk and a
        /// PCT walk, for the budget's random and PCT executions, at its PCT depth. `None`:
        /// the unbounded search runs alone, what the tests of its reductions compare, as
        /// the passes would reach every outcome of a small model themselves.
        deepening: Option<Budget>,
        /// The unbounded search explores source sets: a dynamic partial-order reduction that
        /// keeps no states and runs about one execution per class of executions that order
        /// every two conflicting operations alike (see "Source sets" in the stateful
        /// engine's docs). `false`: it explores every state once, with sleep sets.
        sources: bool,
    },
    /// Re-run one recorded schedule under shuttle.
    Replay {
        /// The recorded schedule.
        schedule: Schedule,
    },
    /// Re-run under shuttle with a non-preemptive default (keep the running task while it can
    /// run, else the lowest-numbered runnable one) and switch tasks only at these
    /// `(decision, task)` points. Minimization drops switches one at a time.
    Guided {
        /// The forced switches, by scheduling decision from 0 (random values not counted).
        switches: Vec<(usize, usize)>,
        /// The answers to the model's random requests ([`crate::sync::choose`]), in order;
        /// past their end, 0.
        values: Vec<u64>,
    },
    /// Re-run under shuttle running these tasks in order (a task that cannot run where the
    /// list puts it is a [`DriveError::ScheduleMismatch`]), then the non-preemptive default;
    /// the model's random requests take `values` in order, wherever they come, then 0. A
    /// recorded schedule split ([`Schedule::split`]) and edited task by task.
    Follow {
        /// The task of each scheduling decision.
        tasks: Vec<usize>,
        /// The answers to the model's random requests, in order.
        values: Vec<u64>,
    },
    /// Like [`Strategy::Follow`], but a task that cannot run where the list puts it is
    /// skipped (the next one in the list is taken) instead of refused: a recorded
    /// interleaving carried over to a slightly different execution (a smaller workload).
    Loosely {
        /// The task of each scheduling decision.
        tasks: Vec<usize>,
        /// The answers to the model's random requests, in order.
        values: Vec<u64>,
    },
    /// Re-run under shuttle a stateful engine's execution, whose decisions came at other
    /// points than shuttle's (that engine keeps locks outside shuttle): as a list of
    /// `(task, operations)` segments, each running its task (at least once) until the
    /// facade has counted that many of its operations ([`crate::sync::points::count`]: one
    /// per operation under every engine) and it stands before the next, or until it cannot
    /// run; then the next segment, skipping one whose task cannot run; then the
    /// non-preemptive default. The model's random requests take `values` in order, then 0.
    /// What the minimizer carries a stateful counterexample to shuttle with.
    Along {
        /// The segments: a task, and its operations counted when the next one starts.
        segments: Vec<(usize, u64)>,
        /// The answers to the model's random requests, in order.
        values: Vec<u64>,
    },
    /// One execution under shuttle whose task choices are uniformly random from `seed` (a
    /// SplitMix64 stream) and whose random requests take `values` in order, then 0: a random
    /// interleaving of a given workload.
    Shuffle {
        /// Seed of the task choices.
        seed: u64,
        /// The answers to the model's random requests, in order.
        values: Vec<u64>,
    },
    /// loom's exhaustive DPOR exploration.
    Loom {
        /// The preemption bound; `None` explores without one.
        preemption_bound: Option<usize>,
    },
    /// Real OS threads, run a number of times.
    Threads {
        /// Runs.
        runs: usize,
    },
}

impl Strategy {
    /// The engine that runs the strategy.
    pub fn engine(&self) -> Engine {
        match self {
            Strategy::Random { .. } => Engine::Random,
            Strategy::Pct { .. } => Engine::Pct,
            Strategy::Dfs { .. } => Engine::Dfs,
            Strategy::Stateful { .. } => Engine::Stateful,
            Strategy::Replay { .. }
            | Strategy::Guided { .. }
            | Strategy::Follow { .. }
            | Strategy::Loosely { .. }
            | Strategy::Along { .. }
            | Strategy::Shuffle { .. } => Engine::Replay,
            Strategy::Loom { .. } => Engine::Loom,
            Strategy::Threads { .. } => Engine::Threads,
        }
    }

    /// Whether this build can run the strategy.
    pub fn available(&self) -> bool {
        self.engine().available()
    }

    /// Whether a violation found by this strategy can be replayed from its schedule.
    pub fn replayable(&self) -> bool {
        self.engine().capabilities().replayable
    }

    /// The seed of a randomized strategy.
    pub fn seed(&self) -> Option<u64> {
        match self {
            Strategy::Random { seed, .. } | Strategy::Pct { seed, .. } => Some(*seed),
            _ => None,
        }
    }

    /// The strategy's settings in words.
    pub fn settings(&self) -> String {
        match self {
            Strategy::Random { executions, .. } => format!("{executions} executions"),
            Strategy::Pct {
                depth, executions, ..
            } => format!("depth {depth}, {executions} executions"),
            Strategy::Dfs { executions } => format!("at most {executions} executions"),
            Strategy::Stateful {
                executions,
                part,
                deepening,
                sources,
            } => {
                let of = part.as_ref().map_or(String::new(), |p| {
                    format!(", part {}/{} of the workloads", p.index, p.count)
                });
                let how = if *sources {
                    "source sets"
                } else {
                    "each state once"
                };
                let alone = if deepening.is_none() {
                    ", the unbounded search alone"
                } else {
                    ""
                };
                format!("{how}{alone}, at most {executions} executions{of}")
            }
            Strategy::Replay { .. } => "one recorded schedule".into(),
            Strategy::Guided { switches, .. } => format!("{} forced switches", switches.len()),
            Strategy::Follow { tasks, .. } => format!("{} scheduling decisions", tasks.len()),
            Strategy::Loosely { tasks, .. } => {
                format!("{} scheduling decisions, loosely", tasks.len())
            }
            Strategy::Along { segments, .. } => {
                format!("{} segments of a stateful execution", segments.len())
            }
            Strategy::Shuffle { seed, .. } => format!("one random interleaving (seed {seed})"),
            Strategy::Loom { preemption_bound } => match preemption_bound {
                Some(b) => format!("preemption bound {b}"),
                None => "no preemption bound".into(),
            },
            Strategy::Threads { runs } => format!("{runs} runs"),
        }
    }
}

/// A part of a generated space for the stateful engine: the executions whose first choices
/// ([`crate::sync::choose`]) take the values of one of `prefixes`, none of which is a prefix
/// of another. [`crate::workload::Vocabulary::split`] cuts a vocabulary's workloads into
/// parts whose union is every workload, each in one part.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Part {
    /// Which part, from 1.
    pub index: usize,
    /// How many parts.
    pub count: usize,
    /// The choice values the part's executions begin with.
    pub prefixes: Vec<Vec<u64>>,
    /// How many workloads the part holds.
    pub workloads: u128,
}

/// What an engine asks of the exploration it drives.
pub trait Exploration: Send + Sync + 'static {
    /// Called at the start of every execution, on the engine's main thread.
    fn begin(&self);
    /// The body of one execution: it spawns the actors and joins them.
    fn body(&self);
    /// Called once an execution is over (finished or abandoned), with its schedule when the
    /// engine records one. Return [`Flow::Stop`] to end the exploration.
    fn end(&self, schedule: Option<Schedule>) -> Flow;
    /// Whether the current execution may be abandoned now (its outcome is already known).
    /// Engines that cannot stop an execution midway ignore it.
    fn settled(&self) -> bool;
    /// Whether the stateful engine's search over source sets is to order witness cells
    /// ([`crate::sync::ghost::Witness`]), so that it meets every probe a model can fire, at
    /// the cost of more executions: asked once, when the engine starts. The other engines
    /// ignore it.
    fn orders_witnesses(&self) -> bool {
        false
    }
}

/// Whether to go on exploring.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Run another execution.
    Continue,
    /// Stop the exploration.
    Stop,
}

/// What a finished drive reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Driven {
    /// Executions the engine started.
    pub executions: usize,
    /// Whether an exhaustive engine ran out of schedules (never for random, PCT, replay or
    /// real threads).
    pub exhausted: bool,
    /// The states the stateful engine's unbounded search, or the pass that exhausted, visited
    /// (`None` for the other engines).
    pub states: Option<usize>,
    /// The distinct final states the stateful engine's searches ended their executions in
    /// (`None` for the other engines). Exhausted, every final state is among them, and a
    /// reduction that keeps every final state needs at least one execution for each.
    pub final_states: Option<usize>,
    /// What the stateful engine's reductions saved (`None` for the other engines).
    pub reduction: Option<Reduction>,
    /// The distinct states the stateful engine met, by what reached each: the kinds of the
    /// operations (`lock`, `load`, `join`, ...) that the transition which first reached it
    /// recorded, joined by ` + ` (`nothing recorded` when it recorded none, `start` for the
    /// first state). They add up to [`Driven::states`]. `None` for the other engines.
    pub state_origins: Option<BTreeMap<String, u64>>,
    /// Of [`Driven::executions`], those the stateful engine's random walks took: they look
    /// no state up and prove nothing (`None` for the other engines).
    pub walks: Option<usize>,
    /// For a replayed or guided execution: the decisions at which it left the
    /// non-preemptive default, as `(decision, task)`.
    pub switches: Option<Vec<(usize, usize)>>,
}

/// What the stateful engine's reductions saved: the paths it cut where a state met before
/// covered them, and the options it did not take because their task was asleep. Each cut or
/// option left is one subtree of paths (at least one execution) not explored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reduction {
    /// Paths cut at a state explored before at no higher a cost (a bounded pass) or with a
    /// sleep set it contains (the unbounded search): state caching.
    pub revisits: u64,
    /// Paths cut at a *complete* state, one some search finished with every path from it.
    pub complete: u64,
    /// Options of a decision not taken because their task was asleep: sleep sets.
    pub asleep: u64,
    /// Options of a decision not taken because a thread's last steps and woken joins there
    /// were explored, and touched nothing another task will touch: persistent sets.
    #[serde(default)]
    pub persistent: u64,
    /// Options of a decision not taken because no race found below it needed them: source
    /// sets (the unbounded search's dynamic partial-order reduction).
    #[serde(default)]
    pub sources: u64,
}

/// The sum of two parts' reductions.
impl std::ops::Add for Reduction {
    type Output = Self;

    fn add(self, other: Self) -> Self {
        Self {
            revisits: self.revisits + other.revisits,
            complete: self.complete + other.complete,
            asleep: self.asleep + other.asleep,
            persistent: self.persistent + other.persistent,
            sources: self.sources + other.sources,
        }
    }
}

/// Why a drive failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DriveError {
    /// The engine is not compiled into this build.
    EngineMissing(Engine),
    /// A replayed schedule does not fit the model as it is now.
    ScheduleMismatch(String),
    /// The model panicked or deadlocked; the message says where.
    ModelFailure(String),
}

impl fmt::Display for DriveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DriveError::EngineMissing(engine) => write!(
                f,
                "engine `{engine}` is not in this build; build it with: {}",
                engine.build_hint()
            ),
            DriveError::ScheduleMismatch(m) => write!(
                f,
                "the schedule does not fit the model as it is now (was the model changed since it was recorded?): {m}"
            ),
            DriveError::ModelFailure(m) => write!(f, "the model failed: {m}"),
        }
    }
}

impl std::error::Error for DriveError {}

/// Run `exploration` under `strategy`.
pub fn drive(strategy: &Strategy, exploration: Arc<dyn Exploration>) -> Result<Driven, DriveError> {
    if !strategy.available() {
        return Err(DriveError::EngineMissing(strategy.engine()));
    }
    backend::drive(strategy, exploration)
}

/// Run `f` once under this build's backend (shuttle: one random execution; loom: one
/// model; threads: a plain call). For examples and smoke tests.
///
/// ```
/// use ozone_ha_check::sync::{thread, Arc, Mutex};
///
/// ozone_ha_check::engine::run_once(|| {
///     let n = Arc::new(Mutex::new(0));
///     let m = Arc::clone(&n);
///     thread::spawn("one", move || *m.lock() += 1).join();
///     assert_eq!(*n.lock(), 1);
/// });
/// ```
pub fn run_once(f: impl Fn() + Send + Sync + 'static) {
    backend::run_once(f);
}

/// [`run_once`], returning what `f` returned (its last execution's value under loom): for
/// staged tests that drive a model through fixed steps and then look at its state.
///
/// ```
/// use ozone_ha_check::sync::{thread, Arc, Mutex};
///
/// let n = ozone_ha_check::engine::run_once_returning(|| {
///     let n = Arc::new(Mutex::new(0));
///     let m = Arc::clone(&n);
///     thread::spawn("one", move || *m.lock() += 1).join();
///     let n = *n.lock();
///     n
/// });
/// assert_eq!(n, 1);
/// ```
pub fn run_once_returning<T: Send + 'static>(f: impl Fn() -> T + Send + Sync + 'static) -> T {
    // A plain std slot: it is outside the model, written once per execution.
    let slot = std::sync::Arc::new(std::sync::Mutex::new(None));
    let inner = std::sync::Arc::clone(&slot);
    run_once(move || {
        let value = f();
        *inner.lock().unwrap_or_else(|e| e.into_inner()) = Some(value);
    });
    let value = slot.lock().unwrap_or_else(|e| e.into_inner()).take();
    value.expect("run_once runs its function")
}

/// The next value of a SplitMix64 stream (Steele, Lea and Flood), advancing `state`: the
/// random scheduler's stream, real threads' choices and the stateful engine's walk.
#[cfg(not(loom))]
pub(crate) fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic with a non-string payload".to_string()
    }
}
