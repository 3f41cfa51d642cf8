//! The floor: an empty scenario with a given number of tasks and scheduling points, so that a
//! scenario's executions per second can be read as a ratio to the engine's own cost.

use crate::invariants::Described;
use crate::recorder::Recorder;
use crate::scenario::{Case, Expected, Info, Scenario};
use crate::sync::{thread, Arc, Mutex};

/// `tasks - 1` spawned threads, each taking one shared lock `locks` times; no model.
#[derive(Debug, Clone, Copy)]
pub struct Floor {
    /// Tasks, the main thread included.
    pub tasks: usize,
    /// Lock acquisitions per spawned thread.
    pub locks: usize,
}

/// The probe every floor execution fires, so that its verdict is "held".
const PROBE: &str = "Ran";

static INFO: Info = Info {
    name: "floor",
    jira: "-",
    title: "no model: threads taking one lock, the engine's own cost",
    variants: &[Described {
        name: "empty",
        doc: "no model",
    }],
    plans: &[Described {
        name: "locks",
        doc: "each thread takes one shared lock repeatedly",
    }],
    invariants: &[],
    probes: &[Described {
        name: PROBE,
        doc: "an execution ran",
    }],
    required_probes: &[PROBE],
    expected: |_, _| Expected::Holds,
};

impl Scenario for Floor {
    fn info(&self) -> &'static Info {
        &INFO
    }

    fn prepare(&self, _variant: &str, _plan: &str) -> Result<Box<dyn Case>, String> {
        Ok(Box::new(*self))
    }
}

impl Case for Floor {
    fn run(&self, recorder: &Arc<Recorder>) {
        let lock = Arc::new(Mutex::new(0u64));
        let threads: Vec<_> = (1..self.tasks.max(2))
            .map(|_| {
                let (lock, locks) = (Arc::clone(&lock), self.locks);
                thread::spawn("floor", move || {
                    for _ in 0..locks {
                        *lock.lock() += 1;
                    }
                })
            })
            .collect();
        for t in threads {
            t.join();
        }
        recorder.probe(PROBE);
    }
}
