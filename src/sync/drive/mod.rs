//! Engine drivers: run an [`Exploration`] under the engine this build has.
//!
//! The explorer (`crate::explore`) is engine-independent; the code here is the part that
//! has to call shuttle's `Runner`, loom's `model::Builder` or spawn OS threads.

mod schedule;
pub use schedule::{Schedule, ScheduleError};

#[cfg(not(any(loom, ohc_threads)))]
mod shuttle_driver;
#[cfg(not(any(loom, ohc_threads)))]
use shuttle_driver as backend;

#[cfg(loom)]
mod loom_driver;
#[cfg(loom)]
use loom_driver as backend;

#[cfg(ohc_threads)]
mod threads_driver;
#[cfg(ohc_threads)]
use threads_driver as backend;

use std::fmt;
use std::sync::Arc;

/// How to choose interleavings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// shuttle's uniformly random scheduler.
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
    /// Re-run one recorded schedule under shuttle.
    Replay {
        /// The recorded schedule.
        schedule: Schedule,
    },
    /// Re-run under shuttle with a non-preemptive default (keep the running task while it can
    /// run, else the lowest-numbered runnable one) and switch tasks only at these
    /// `(decision, task)` points. Minimization drops switches one at a time.
    Guided {
        /// The forced switches, by decision number from 0.
        switches: Vec<(usize, usize)>,
    },
    /// loom's exhaustive DPOR exploration.
    Loom {
        /// `LOOM_MAX_PREEMPTIONS`; `None` explores without a bound.
        preemption_bound: Option<usize>,
    },
    /// Real OS threads, run a number of times.
    Threads {
        /// Runs.
        runs: usize,
    },
}

impl Strategy {
    /// The engine's name as the CLI spells it.
    pub fn engine_name(&self) -> &'static str {
        match self {
            Strategy::Random { .. } => "random",
            Strategy::Pct { .. } => "pct",
            Strategy::Dfs { .. } => "dfs",
            Strategy::Replay { .. } | Strategy::Guided { .. } => "replay",
            Strategy::Loom { .. } => "loom",
            Strategy::Threads { .. } => "threads",
        }
    }

    /// Whether this build can run the strategy.
    pub fn available(&self) -> bool {
        available_engines().contains(&self.engine_name())
    }
}

/// The engines this build can run, by name.
pub fn available_engines() -> &'static [&'static str] {
    backend::ENGINES
}

/// The command that builds a binary with `engine`, for an error message.
pub fn build_hint(engine: &str) -> &'static str {
    match engine {
        "loom" => "RUSTFLAGS=\"--cfg loom\" CARGO_TARGET_DIR=target/loom cargo run --release --",
        "threads" => {
            "RUSTFLAGS=\"--cfg ohc_threads\" CARGO_TARGET_DIR=target/threads cargo run --release --"
        }
        _ => "cargo run --release --",
    }
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
    /// Whether the engine ran out of interleavings (exhaustive engines only).
    pub exhausted: bool,
    /// For a replayed or guided execution: the decisions at which it left the
    /// non-preemptive default, as `(decision, task)`.
    pub switches: Option<Vec<(usize, usize)>>,
}

/// Why a drive failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DriveError {
    /// The engine is not compiled into this build.
    EngineMissing(&'static str),
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
                build_hint(engine)
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
        return Err(DriveError::EngineMissing(strategy.engine_name()));
    }
    quiet_panics::install();
    backend::drive(strategy, exploration)
}

/// Run `f` once under this build's backend (shuttle: one random execution; loom: one
/// model; threads: a plain call). For examples and smoke tests.
pub fn run_once(f: impl Fn() + Send + Sync + 'static) {
    backend::run_once(f);
}

/// Payload of the panic an engine uses to stop a loom model early; never shown to users.
#[derive(Debug)]
pub(crate) struct StopSignal;

pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic with a non-string payload".to_string()
    }
}

mod quiet_panics {
    //! A panic hook that keeps [`super::StopSignal`] out of the terminal and forwards every
    //! other panic to the hook that was there before.
    use std::sync::Once;

    static INSTALL: Once = Once::new();

    pub(super) fn install() {
        INSTALL.call_once(|| {
            let previous = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| {
                if info.payload().downcast_ref::<super::StopSignal>().is_none() {
                    previous(info);
                }
            }));
        });
    }
}
