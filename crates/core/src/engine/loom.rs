//! Driving loom: every execution of `loom::model` is one execution of the exploration.
//!
//! loom cannot abandon an execution midway or stop between executions on request, so an
//! exploration that is done panics with [`StopSignal`] at the end of an execution, and the
//! driver catches it. loom records no schedule that survives a code change; the domain trace
//! is the counterexample.

use super::quiet_panics::{Quiet, StopSignal};
use super::{panic_message, DriveError, Driven, Exploration, Flow, Strategy};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

pub(super) fn drive(
    strategy: &Strategy,
    exploration: Arc<dyn Exploration>,
) -> Result<Driven, DriveError> {
    let Strategy::Loom { preemption_bound } = strategy else {
        return Err(DriveError::EngineMissing(strategy.engine()));
    };
    let executions = Arc::new(AtomicUsize::new(0));
    let stopped = Arc::new(AtomicBool::new(false));
    let mut builder = ::loom::model::Builder::new();
    builder.preemption_bound = *preemption_bound;
    let (x, n, s) = (
        Arc::clone(&exploration),
        Arc::clone(&executions),
        Arc::clone(&stopped),
    );
    let quiet = Quiet::install();
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
        builder.check(move || {
            n.fetch_add(1, Ordering::SeqCst);
            x.begin();
            x.body();
            if x.end(None) == Flow::Stop {
                s.store(true, Ordering::SeqCst);
                std::panic::panic_any(StopSignal);
            }
        })
    }));
    drop(quiet);
    let stopped = stopped.load(Ordering::SeqCst);
    if let Err(payload) = outcome {
        if !stopped {
            return Err(DriveError::ModelFailure(panic_message(payload.as_ref())));
        }
    }
    Ok(Driven {
        executions: executions.load(Ordering::SeqCst),
        exhausted: !stopped,
        switches: None,
    })
}

pub(super) fn run_once(f: impl Fn() + Send + Sync + 'static) {
    ::loom::model(f);
}
