//! Driving loom: every execution of `loom::model` is one execution of the exploration.
//!
//! loom cannot abandon an execution midway or stop between executions on request, so an
//! exploration that is done panics with [`StopSignal`] at the end of an execution, and the
//! driver catches it. loom records no schedule that survives a code change; the domain trace
//! is the counterexample.
//!
//! loom has no choice of values, only of interleavings, so a model's choices
//! ([`crate::sync::choose`]) are read from a tape: the driver runs `loom::model` once per tape,
//! depth first over every sequence of values, and each run explores every interleaving under
//! its tape. A position of the tape must offer the same number of options in every execution
//! that reaches it (a model that draws its workload before it spawns does); a model that
//! does not is a model failure.

use super::quiet_panics::{Quiet, StopSignal};
use super::{panic_message, DriveError, Driven, Exploration, Flow, Strategy};
use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

/// The values of the current `loom::model` run's choices, and how many options each had.
#[derive(Default)]
struct Tape {
    values: Vec<usize>,
    options: Vec<usize>,
    /// The next position read in the current execution.
    at: usize,
    /// A position met with another number of options than the first time.
    mismatch: Option<String>,
}

impl Tape {
    /// Move to the next sequence of values, depth first; false when every one was run.
    fn advance(&mut self) -> bool {
        while let (Some(v), Some(n)) = (self.values.last_mut(), self.options.last()) {
            if *v + 1 < *n {
                *v += 1;
                return true;
            }
            self.values.pop();
            self.options.pop();
        }
        false
    }
}

thread_local! {
    // loom runs every thread of a model on the OS thread that called it.
    static TAPE: RefCell<Option<Tape>> = const { RefCell::new(None) };
}

/// The value of the next choice among `n` options, from the tape (0 outside [`drive`]:
/// `run_once` makes the first choice every time).
pub(crate) fn choice(n: usize) -> usize {
    TAPE.with(|t| {
        let mut t = t.borrow_mut();
        let Some(tape) = t.as_mut() else { return 0 };
        let at = tape.at;
        tape.at += 1;
        match tape.options.get(at) {
            Some(&m) if m != n => {
                tape.mismatch.get_or_insert(format!(
                    "choice {} offers {n} options in one execution and {m} in another: under \
                     loom, a model's choices must not depend on the interleaving",
                    at + 1
                ));
                0
            }
            Some(_) => tape.values[at],
            None => {
                tape.values.push(0);
                tape.options.push(n);
                0
            }
        }
    })
}

pub(super) fn drive(
    strategy: &Strategy,
    exploration: Arc<dyn Exploration>,
) -> Result<Driven, DriveError> {
    let Strategy::Loom { preemption_bound } = strategy else {
        return Err(DriveError::EngineMissing(strategy.engine()));
    };
    let executions = Arc::new(AtomicUsize::new(0));
    let stopped = Arc::new(AtomicBool::new(false));
    TAPE.with(|t| *t.borrow_mut() = Some(Tape::default()));
    let quiet = Quiet::install();
    let outcome = loop {
        let mut builder = ::loom::model::Builder::new();
        builder.preemption_bound = *preemption_bound;
        let (x, n, s) = (
            Arc::clone(&exploration),
            Arc::clone(&executions),
            Arc::clone(&stopped),
        );
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
            builder.check(move || {
                TAPE.with(|t| t.borrow_mut().as_mut().map(|tape| tape.at = 0));
                n.fetch_add(1, Ordering::SeqCst);
                x.begin();
                x.body();
                if x.end(None) == Flow::Stop {
                    s.store(true, Ordering::SeqCst);
                    std::panic::panic_any(StopSignal);
                }
            })
        }));
        let more = TAPE.with(|t| t.borrow_mut().as_mut().is_some_and(Tape::advance));
        if outcome.is_err() || stopped.load(Ordering::SeqCst) || !more {
            break outcome;
        }
    };
    drop(quiet);
    let tape = TAPE.with(|t| t.borrow_mut().take()).unwrap_or_default();
    let stopped = stopped.load(Ordering::SeqCst);
    if let Err(payload) = outcome {
        if !stopped {
            return Err(DriveError::ModelFailure(panic_message(payload.as_ref())));
        }
    }
    if let Some(mismatch) = tape.mismatch {
        return Err(DriveError::ModelFailure(mismatch));
    }
    Ok(Driven {
        executions: executions.load(Ordering::SeqCst),
        exhausted: !stopped,
        states: None,
        final_states: None,
        reduction: None,
        state_origins: None,
        walks: None,
        switches: None,
    })
}

pub(super) fn run_once(f: impl Fn() + Send + Sync + 'static) {
    ::loom::model(f);
}
