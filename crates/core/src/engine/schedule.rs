//! A recorded schedule: the engine's choices in one execution, as text that survives a
//! copy and paste.
//!
//! Format `v1:` followed by comma-separated steps: `T` is "run task T", `TxN` is "run task T
//! N times in a row", `rV` is "random value V" (a model's choice, [`crate::sync::choose`], takes
//! it modulo its number of options). Task 0 is the main thread, spawned threads
//! count up from 1 in spawn order.
//!
//! Reports and saved counterexamples carry a [`Schedule`], serialised as that text; the
//! minimizer works on its steps, the tasks apart from the random values ([`Schedule::split`]).

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// One engine decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Run this task next.
    Task(usize),
    /// Return this value to a request for random data.
    Random(u64),
}

/// The decisions of one execution.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Schedule {
    /// The decisions in order.
    pub steps: Vec<Step>,
    /// Where the tasks yielded to the engine, which the steps follow. Not in the text form:
    /// only the stateful engine's schedules differ from the default, and they are replayed
    /// in the run that recorded them, never written out.
    pub yields: Yields,
    /// For a stateful engine's schedule: the facade's operations counted at each task
    /// decision ([`crate::sync::points::count`], one per operation under every engine), so
    /// how far each task had gone there. Not in the text form; what the minimizer carries the
    /// execution to shuttle with ([`crate::engine::Strategy::Along`]). Empty for the other
    /// engines.
    pub counted: Vec<u64>,
}

/// Where the tasks of a recorded execution yielded to the engine: each yield is one step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Yields {
    /// Where shuttle's own primitives switch: every engine but the stateful one.
    #[default]
    Shuttle,
    /// Also just before each operation of the sync facade, as under the stateful engine
    /// ([`crate::engine::Strategy::Stateful`]), until the step numbered `cut` (from 0), if
    /// any: there the search cut the execution's path, and from that step on the tasks
    /// yield only where shuttle switches.
    Stateful {
        /// The first step taken after the cut.
        cut: Option<usize>,
    },
}

/// Why a text is not a schedule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScheduleError(pub String);

impl fmt::Display for ScheduleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "not a schedule: {}", self.0)
    }
}

impl std::error::Error for ScheduleError {}

impl Schedule {
    /// The number of task switches: consecutive scheduling decisions that pick different tasks.
    pub fn context_switches(&self) -> usize {
        let tasks: Vec<usize> = self
            .steps
            .iter()
            .filter_map(|s| match s {
                Step::Task(t) => Some(*t),
                Step::Random(_) => None,
            })
            .collect();
        tasks.windows(2).filter(|w| w[0] != w[1]).count()
    }

    /// The number of distinct tasks the schedule runs (the highest task number plus one).
    pub fn tasks(&self) -> usize {
        self.steps
            .iter()
            .filter_map(|s| match s {
                Step::Task(t) => Some(t + 1),
                Step::Random(_) => None,
            })
            .max()
            .unwrap_or(0)
    }

    /// The task of every decision, or `None` when the schedule holds random values (the
    /// choices of a model that draws its workload; [`Schedule::split`] sets them aside).
    ///
    /// ```
    /// use ozone_ha_check::engine::Schedule;
    /// let s = Schedule::of_tasks(&[0, 0, 1, 2, 2]);
    /// assert_eq!(s.to_string(), "v1:0x2,1,2x2");
    /// assert_eq!(s.tasks_only(), Some(vec![0, 0, 1, 2, 2]));
    /// assert_eq!("v1:0,r5".parse::<Schedule>().unwrap().tasks_only(), None);
    /// ```
    pub fn tasks_only(&self) -> Option<Vec<usize>> {
        self.steps
            .iter()
            .map(|s| match s {
                Step::Task(t) => Some(*t),
                Step::Random(_) => None,
            })
            .collect()
    }

    /// The task of every scheduling decision, and the random values, each in order: what a
    /// [`crate::engine::Strategy::Follow`] run replays, wherever the model asks for the
    /// values. The minimizer edits the tasks and keeps (or re-encodes) the values.
    ///
    /// ```
    /// use ozone_ha_check::engine::Schedule;
    /// let s: Schedule = "v1:0,r5,r7,0x2,1".parse().unwrap();
    /// assert_eq!(s.split(), (vec![0, 0, 0, 1], vec![5, 7]));
    /// ```
    pub fn split(&self) -> (Vec<usize>, Vec<u64>) {
        let mut tasks = Vec::new();
        let mut values = Vec::new();
        for step in &self.steps {
            match step {
                Step::Task(t) => tasks.push(*t),
                Step::Random(v) => values.push(*v),
            }
        }
        (tasks, values)
    }

    /// The schedule that runs `tasks` in order.
    pub fn of_tasks(tasks: &[usize]) -> Schedule {
        Schedule {
            steps: tasks.iter().map(|t| Step::Task(*t)).collect(),
            yields: Yields::Shuttle,
            counted: Vec::new(),
        }
    }

    /// Parse the text form.
    ///
    /// ```
    /// use ozone_ha_check::engine::Schedule;
    /// let s: Schedule = "v1:0x3,1,2x2".parse().unwrap();
    /// assert_eq!(s.steps.len(), 6);
    /// assert_eq!(s.to_string(), "v1:0x3,1,2x2");
    /// assert!("v9:0".parse::<Schedule>().is_err());
    /// ```
    pub fn parse(text: &str) -> Result<Self, ScheduleError> {
        let body = text
            .trim()
            .strip_prefix("v1:")
            .ok_or_else(|| ScheduleError("expected it to start with `v1:`".into()))?;
        let mut steps = Vec::new();
        for token in body.split(',').filter(|t| !t.is_empty()) {
            if let Some(v) = token.strip_prefix('r') {
                let v = v
                    .parse()
                    .map_err(|_| ScheduleError(format!("bad random value `{token}`")))?;
                steps.push(Step::Random(v));
                continue;
            }
            let (task, count) = match token.split_once('x') {
                Some((t, n)) => (t, n),
                None => (token, "1"),
            };
            let task: usize = task
                .parse()
                .map_err(|_| ScheduleError(format!("bad task `{token}`")))?;
            let count: usize = count
                .parse()
                .map_err(|_| ScheduleError(format!("bad repeat count `{token}`")))?;
            steps.extend(std::iter::repeat_n(Step::Task(task), count));
        }
        Ok(Self {
            steps,
            yields: Yields::Shuttle,
            counted: Vec::new(),
        })
    }
}

impl std::str::FromStr for Schedule {
    type Err = ScheduleError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

impl Serialize for Schedule {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Schedule {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

impl fmt::Display for Schedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("v1:")?;
        let mut first = true;
        let mut i = 0;
        while i < self.steps.len() {
            if !first {
                f.write_str(",")?;
            }
            first = false;
            match self.steps[i] {
                Step::Random(v) => {
                    write!(f, "r{v}")?;
                    i += 1;
                }
                Step::Task(t) => {
                    let run = self.steps[i..]
                        .iter()
                        .take_while(|s| **s == Step::Task(t))
                        .count();
                    if run == 1 {
                        write!(f, "{t}")?;
                    } else {
                        write!(f, "{t}x{run}")?;
                    }
                    i += run;
                }
            }
        }
        Ok(())
    }
}
