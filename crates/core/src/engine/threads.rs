//! Driving real OS threads: run the exploration's body a number of times.
//!
//! A model's choices ([`crate::sync::choose`]) come from a stream seeded by the execution's
//! number: each run draws a workload, and the same run number draws the same one when the
//! model makes its choices in a fixed order (before it spawns).

use super::{panic_message, DriveError, Driven, Exploration, Flow, Strategy};
use std::cell::RefCell;
use std::sync::{Arc, Mutex, PoisonError};

pub(super) fn drive(
    strategy: &Strategy,
    exploration: Arc<dyn Exploration>,
) -> Result<Driven, DriveError> {
    let Strategy::Threads { runs } = strategy else {
        return Err(DriveError::EngineMissing(strategy.engine()));
    };
    let mut executions = 0;
    while executions < *runs {
        executions += 1;
        seed_choices(executions);
        exploration.begin();
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| exploration.body()));
        if let Err(payload) = run {
            return Err(DriveError::ModelFailure(panic_message(payload.as_ref())));
        }
        if exploration.end(None) == Flow::Stop {
            break;
        }
    }
    Ok(Driven {
        executions,
        exhausted: false,
        states: None,
        final_states: None,
        reduction: None,
        state_origins: None,
        walks: None,
        switches: None,
    })
}

pub(super) fn run_once(f: impl Fn() + Send + Sync + 'static) {
    f();
}

/// A run's stream of choices: SplitMix64 state, seeded by the run's number.
pub(crate) type Stream = Arc<Mutex<u64>>;

thread_local! {
    /// The stream of the run this thread works for: the driver sets it for each run, and
    /// the threads the model spawns take their spawner's ([`stream`], [`adopt`]). Per
    /// thread, so drivers running side by side (tests in parallel) never draw from each
    /// other's stream.
    static STREAM: RefCell<Option<Stream>> = const { RefCell::new(None) };
}

/// Choices made on a thread that works for no run (a model run outside the driver).
static UNSEEDED: Mutex<u64> = Mutex::new(0);

/// Seed the choices of execution number `execution` (SplitMix64 from its number), so that
/// the same execution number makes the same choices in the same order.
fn seed_choices(execution: usize) {
    adopt(Some(Arc::new(Mutex::new(execution as u64))));
}

/// The stream of the run this thread works for, if any: handed to a thread it spawns.
pub(crate) fn stream() -> Option<Stream> {
    STREAM.with(|s| s.borrow().clone())
}

/// Work for the run of `stream` (a spawned thread takes its spawner's).
pub(crate) fn adopt(stream: Option<Stream>) {
    STREAM.with(|s| *s.borrow_mut() = stream);
}

/// The next choice among `n` options of the current execution.
pub(crate) fn choice(n: usize) -> usize {
    let draw = |state: &mut u64| (super::splitmix64(state) % n as u64) as usize;
    match stream() {
        Some(stream) => draw(&mut stream.lock().unwrap_or_else(PoisonError::into_inner)),
        None => draw(&mut UNSEEDED.lock().unwrap_or_else(PoisonError::into_inner)),
    }
}
