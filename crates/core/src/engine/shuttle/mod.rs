//! Driving shuttle: a recording wrapper around its schedulers, and a strict replayer. One
//! file per scheduler: [`random`] (uniform), shuttle's own PCT and DFS, the stateful search
//! ([`crate::engine::stateful`]) and [`steered`] (replay); [`tape`] records what each decided.
//!
//! The failing schedule is taken from the tape, which sees every decision the wrapped
//! scheduler makes, rather than from shuttle's panic output (shuttle installs its panic hook
//! once per process, and a violation here is not a panic at all).

mod random;
mod steered;
mod tape;

use super::stateful::{self, SearchEnd, Stateful};
use super::{panic_message, DriveError, Driven, Exploration, Strategy, Yields};
use ::shuttle::scheduler::{DfsScheduler, PctScheduler, Scheduler};
use ::shuttle::{Config, FailurePersistence, Runner};
use random::Uniform;
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use steered::{Steer, Steered};
use tape::{close_execution, Recording, Tape};

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
        states: None,
        final_states: None,
        reduction: None,
        state_origins: None,
        walks: None,
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
        Strategy::Stateful {
            executions,
            part,
            deepening,
            sources,
        } => {
            let end = Rc::new(RefCell::new(SearchEnd::default()));
            stateful::registry::activate();
            let tape = Tape {
                yields: Yields::Stateful { cut: None },
                ..Tape::default()
            };
            let driven = run_recorded_on(
                Stateful::new(
                    *executions,
                    part.clone(),
                    *deepening,
                    *sources,
                    exploration.orders_witnesses(),
                    Rc::clone(&end),
                ),
                exploration,
                None,
                Rc::new(RefCell::new(tape)),
            );
            stateful::registry::deactivate();
            let mut driven = driven?;
            let end = end.borrow();
            if let Some(failure) = &end.failure {
                return Err(DriveError::ModelFailure(failure.clone()));
            }
            driven.exhausted = end.exhausted;
            driven.states = Some(end.states);
            driven.final_states = Some(end.finals);
            driven.reduction = Some(end.reduction);
            driven.walks = Some(end.walks);
            driven.state_origins = Some(
                end.origins
                    .iter()
                    .map(|(kinds, n)| (kinds.map_or_else(|| "start".to_string(), |k| k.name()), *n))
                    .collect(),
            );
            Ok(driven)
        }
        Strategy::Replay { schedule } => {
            let steps = schedule.steps.clone();
            match schedule.yields {
                Yields::Shuttle => steer(Steer::Exact { steps, cut: None }, exploration),
                // The tasks yield to the engine as they did in the search, and stop yielding
                // at its operations where it cut the path.
                Yields::Stateful { cut } => {
                    stateful::registry::activate();
                    let driven = steer(Steer::Exact { steps, cut }, exploration);
                    stateful::registry::deactivate();
                    driven
                }
            }
        }
        Strategy::Guided { switches, values } => steer(
            Steer::Switches {
                switches: switches.iter().copied().collect(),
                values: values.iter().copied().collect(),
            },
            exploration,
        ),
        Strategy::Loosely { tasks, values } => steer(
            Steer::Loosely {
                tasks: tasks.iter().copied().collect(),
                values: values.iter().copied().collect(),
            },
            exploration,
        ),
        Strategy::Along { segments, values } => steer(
            Steer::Along {
                segments: segments.iter().copied().collect(),
                started: false,
                counts: std::collections::BTreeMap::new(),
                seen: crate::sync::points::counted(),
                values: values.iter().copied().collect(),
            },
            exploration,
        ),
        Strategy::Shuffle { seed, values } => steer(
            Steer::Shuffle {
                state: *seed,
                values: values.iter().copied().collect(),
            },
            exploration,
        ),
        Strategy::Follow { tasks, values } => steer(
            Steer::Follow {
                tasks: tasks.clone(),
                values: values.iter().copied().collect(),
            },
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
