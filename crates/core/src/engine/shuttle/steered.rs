//! The steered scheduler (`replay`, and the minimizer's guided runs): one execution that
//! follows a recorded schedule, or the non-preemptive default with forced switches.

use super::tape::Tape;
use crate::engine::schedule::Step;
use crate::engine::stateful::registry;
use ::shuttle::scheduler::{Schedule as ShuttleSchedule, Scheduler, Task, TaskId};
use std::cell::RefCell;
use std::collections::{BTreeMap, VecDeque};
use std::rc::Rc;

/// The choice of a non-preemptive scheduler: the running task while it can run, else the
/// lowest-numbered runnable task.
fn default_choice(ids: &[usize], current: Option<TaskId>) -> usize {
    match current.map(usize::from) {
        Some(c) if ids.contains(&c) => c,
        _ => ids.iter().copied().min().unwrap_or(0),
    }
}

/// What a single steered execution follows.
pub(super) enum Steer {
    /// Exactly these recorded decisions, task choices and random values where they were
    /// made; past their end, the non-preemptive default and 0. At step `cut`, the stateful
    /// engine's registry is told that its search cut the path ([`crate::engine::Yields::Stateful`]).
    Exact {
        /// The recorded decisions.
        steps: Vec<Step>,
        /// The first step after the stateful search's cut, if the schedule has one.
        cut: Option<usize>,
    },
    /// These task choices (a task that cannot run is a mismatch), then the non-preemptive
    /// default; random requests take these values in order, wherever they come, then 0.
    Follow {
        /// The task of each scheduling decision.
        tasks: Vec<usize>,
        /// The values of the random requests.
        values: VecDeque<u64>,
    },
    /// These task choices, each skipped where its task cannot run (blocked or finished),
    /// then the non-preemptive default; random requests take these values in order, then
    /// 0: a recorded interleaving carried over to a model that runs a little differently (a
    /// smaller workload).
    Loosely {
        /// The task choices still to make.
        tasks: VecDeque<usize>,
        /// The values of the random requests.
        values: VecDeque<u64>,
    },
    /// A stateful engine's execution as segments ([`crate::engine::Strategy::Along`]): the
    /// first segment's task runs while it can and has counted fewer operations than the
    /// segment's end (at least once), then the next segment's; a segment whose task cannot
    /// run is skipped.
    Along {
        /// The segments still to run: a task, and its operations when the next one starts.
        segments: VecDeque<(usize, u64)>,
        /// Whether the first segment's task has run.
        started: bool,
        /// The operations each task has counted.
        counts: BTreeMap<usize, u64>,
        /// All operations counted at the last decision
        /// ([`crate::sync::points::counted`]); those since are the running task's.
        seen: u64,
        /// The values of the random requests.
        values: VecDeque<u64>,
    },
    /// Uniformly random task choices from a SplitMix64 stream at `state`; random requests
    /// take these values in order, then 0.
    Shuffle {
        /// The stream's state.
        state: u64,
        /// The values of the random requests.
        values: VecDeque<u64>,
    },
    /// The non-preemptive default, except at these `decision -> task` switches; random
    /// requests take these values in order, then 0.
    Switches {
        /// The forced switches, by scheduling decision from 0.
        switches: BTreeMap<usize, usize>,
        /// The values of the random requests.
        values: VecDeque<u64>,
    },
}

/// Runs one execution as [`Steer`] says, records where it left the non-preemptive default
/// (by scheduling decision, random values not counted), and stops with a clear message
/// where a recorded schedule no longer fits.
pub(super) struct Steered {
    steer: Steer,
    /// Scheduling decisions made.
    decision: usize,
    /// Recorded steps consumed ([`Steer::Exact`]).
    at: usize,
    started: bool,
    tape: Rc<RefCell<Tape>>,
}

impl Steered {
    pub(super) fn new(steer: Steer, tape: &Rc<RefCell<Tape>>) -> Self {
        Self {
            steer,
            decision: 0,
            at: 0,
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
        let chosen = match &mut self.steer {
            Steer::Loosely { tasks, .. } => loop {
                match tasks.pop_front() {
                    None => break default,
                    Some(t) if ids.contains(&t) => break t,
                    Some(_) => {}
                }
            },
            Steer::Along {
                segments,
                started,
                counts,
                seen,
                ..
            } => {
                // The operations counted since the last decision are the running task's.
                let counted = crate::sync::points::counted();
                if let Some(c) = current {
                    *counts.entry(usize::from(c)).or_default() += counted - *seen;
                }
                *seen = counted;
                loop {
                    let Some(&(task, end)) = segments.front() else {
                        break default;
                    };
                    let done = counts.get(&task).copied().unwrap_or(0);
                    if ids.contains(&task) && (!*started || done < end) {
                        *started = true;
                        break task;
                    }
                    segments.pop_front();
                    *started = false;
                }
            }
            Steer::Shuffle { state, .. } => {
                let pick = crate::engine::splitmix64(state) % ids.len().max(1) as u64;
                ids.get(usize::try_from(pick).unwrap_or(0))
                    .copied()
                    .unwrap_or(default)
            }
            Steer::Switches { switches, .. } => match switches.get(&self.decision) {
                Some(t) if ids.contains(t) => *t,
                _ => default,
            },
            Steer::Follow { tasks, .. } => match tasks.get(self.decision).copied() {
                None => default,
                Some(t) if ids.contains(&t) => t,
                Some(t) => {
                    let n = self.decision + 1;
                    return self.mismatch(format!(
                        "scheduling decision {n} runs task {t}, but only tasks {ids:?} can run"
                    ));
                }
            },
            Steer::Exact { steps, cut } => {
                let n = self.at + 1;
                if *cut == Some(self.at) {
                    registry::finish();
                }
                match steps.get(self.at).copied() {
                    None => default,
                    Some(Step::Task(t)) if ids.contains(&t) => {
                        self.at += 1;
                        t
                    }
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
                }
            }
        };
        if chosen != default {
            self.tape.borrow_mut().derived.push((self.decision, chosen));
        }
        self.decision += 1;
        Some(TaskId::from(chosen))
    }

    fn next_u64(&mut self) -> u64 {
        match &mut self.steer {
            Steer::Exact { steps, .. } => match steps.get(self.at).copied() {
                Some(Step::Random(v)) => {
                    self.at += 1;
                    v
                }
                _ => 0,
            },
            Steer::Follow { values, .. }
            | Steer::Switches { values, .. }
            | Steer::Shuffle { values, .. }
            | Steer::Loosely { values, .. }
            | Steer::Along { values, .. } => values.pop_front().unwrap_or(0),
        }
    }
}
