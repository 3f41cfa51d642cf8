//! The recording wrapper around every scheduler but the steered one: it keeps each
//! execution's decisions (the schedule a violation reports) and tells the exploration when
//! an execution ends.

use crate::engine::schedule::{Schedule, Step, Yields};
use crate::engine::stateful::registry;
use crate::engine::{Exploration, Flow};
use ::shuttle::scheduler::{Schedule as ShuttleSchedule, Scheduler, Task, TaskId};
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

/// State shared between the driver and the scheduler it hands to shuttle's `Runner`.
#[derive(Default)]
pub(super) struct Tape {
    pub(super) current: Vec<Step>,
    pub(super) in_execution: bool,
    pub(super) stopped: bool,
    pub(super) executions: usize,
    pub(super) mismatch: Option<String>,
    pub(super) derived: Vec<(usize, usize)>,
    /// Where the recorded tasks yield: the stateful engine's too, whose search may cut an
    /// execution's path (`cut`: the first step after it, in the current execution).
    pub(super) yields: Yields,
    /// Under the stateful engine, the operations counted at each task decision of the
    /// current execution ([`Schedule::counted`]).
    pub(super) counted: Vec<u64>,
}

/// Records every decision of `inner` and reports finished executions to the exploration.
pub(super) struct Recording<S> {
    pub(super) inner: S,
    pub(super) tape: Rc<RefCell<Tape>>,
    pub(super) exploration: Arc<dyn Exploration>,
}

pub(super) fn close_execution(tape: &RefCell<Tape>, exploration: &dyn Exploration) {
    let mut t = tape.borrow_mut();
    if !t.in_execution {
        return;
    }
    t.in_execution = false;
    let yields = t.yields;
    if let Yields::Stateful { cut } = &mut t.yields {
        *cut = None;
    }
    let schedule = Schedule {
        steps: std::mem::take(&mut t.current),
        yields,
        counted: std::mem::take(&mut t.counted),
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
        let mut t = self.tape.borrow_mut();
        let at = t.current.len();
        if let Yields::Stateful { cut } = &mut t.yields {
            if cut.is_none() && registry::finishing() {
                *cut = Some(at);
            }
            t.counted.push(crate::sync::points::counted());
        }
        t.current.push(Step::Task(usize::from(task)));
        Some(task)
    }

    fn next_u64(&mut self) -> u64 {
        let v = self.inner.next_u64();
        self.tape.borrow_mut().current.push(Step::Random(v));
        v
    }
}
