//! Driving real OS threads: run the exploration's body a number of times.
//!
//! A model's choices ([`crate::sync::choose`]) come from a stream seeded by the execution's
//! number: each run draws a workload, and the same run number draws the same one when the
//! model makes its choices in a fixed order (before it spawns).

use super::{panic_message, DriveError, Driven, Exploration, Flow, Strategy};
use std::sync::Arc;

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
        switches: None,
    })
}

pub(super) fn run_once(f: impl Fn() + Send + Sync + 'static) {
    f();
}

/// The stream the choices of the current execution are drawn from ([`choice`]).
static CHOICES: std::sync::Mutex<u64> = std::sync::Mutex::new(0);

/// Seed the choices of execution number `execution` (SplitMix64 from its number), so that
/// the same execution number makes the same choices in the same order.
fn seed_choices(execution: usize) {
    *CHOICES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = execution as u64;
}

/// The next choice among `n` options of the current execution.
pub(crate) fn choice(n: usize) -> usize {
    let mut state = CHOICES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    (super::splitmix64(&mut state) % n as u64) as usize
}
