//! Driving real OS threads: run the exploration's body a number of times.

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
        switches: None,
    })
}

pub(super) fn run_once(f: impl Fn() + Send + Sync + 'static) {
    f();
}
