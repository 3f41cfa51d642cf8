//! The floor: an empty scenario with a given number of tasks and scheduling points, so that a
//! scenario's executions per second can be read as a ratio to the engine's own cost.

use ozone_ha_check::choices;
use ozone_ha_check::properties::{Probe, Property};
use ozone_ha_check::recorder::Recorder;
use ozone_ha_check::scenario::{Case, Expected, Scenario};
use ozone_ha_check::sync::{thread, Arc, Mutex};

/// `tasks - 1` spawned threads, each taking one shared lock `locks` times; no model.
#[derive(Debug, Clone, Copy)]
pub struct Floor {
    /// Tasks, the main thread included.
    pub tasks: usize,
    /// Lock acquisitions per spawned thread.
    pub locks: usize,
}

choices! {
    /// The floor's only variant.
    pub enum Variant {
        /// no model
        Empty = "empty",
    }
}

choices! {
    /// The floor's only plan.
    pub enum Plan {
        /// each thread takes one shared lock repeatedly
        Locks = "locks",
    }
}

/// The probe every floor execution fires, so that its verdict is "held".
const RAN: Probe = Probe::new("Ran", "an execution ran");

impl Scenario for Floor {
    type Variant = Variant;
    type Plan = Plan;
    const NAME: &'static str = "floor";
    const JIRA: &'static str = "-";
    const TITLE: &'static str = "no model: threads taking one lock, the engine's own cost";
    const PROPERTIES: &'static [Property] = &[RAN.required()];

    fn expected(_variant: Variant, _plan: Plan) -> Expected {
        Expected::Holds
    }

    fn prepare(&self, _variant: Variant, _plan: Plan, _size: usize) -> Box<dyn Case> {
        Box::new(*self)
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
        recorder.probe(RAN.name);
    }
}
