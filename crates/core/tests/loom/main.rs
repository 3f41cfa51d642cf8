//! Exhaustive exploration under loom (`RUSTFLAGS="--cfg loom"`), one test per registered
//! case, named `<scenario>::<variant>::<plan>` so that CI can shard by name filter
//! (`cargo test --release --test loom -- hdds-16092::`). The cases come from the registry:
//! a new scenario needs no test code here.
//!
//! Generated plans are left out (one loom run per workload would take hours; random, PCT and
//! the stateful engine explore them). Each test explores its case at
//! `LOOM_MAX_PREEMPTIONS` (default 2; `none` for no bound): a violating case must break each
//! of its expected invariants, a holding case must exhaust its schedules with its required
//! probes fired. A name filter that matches no test
//! fails the run, so a misspelt CI filter cannot pass by running nothing.
//! `OHC_TEST_SHARD=I/N` runs part I of N of the tests (`jobs::Shard::of_test_suite`):
//! `ci/test.sh` runs two parts side by side, one test thread each.
// As in tokio's loom CI: the bound is 2 by default (`LOOM_MAX_PREEMPTIONS=2`), and CI runs the
// tests in groups selected by name filter (tokio's `loom_pool::group_a` and so on).

use libtest_mimic::{Arguments, Failed, Trial};
use ozone_ha_check::engine::{
    drive, Engine, Exploration, Flow, PreemptionBound, Schedule, Strategy,
};
use ozone_ha_check::jobs::Shard;
use ozone_ha_check::scenario::GENERATED;
use ozone_ha_check::scenarios::all;
use ozone_ha_check::sync::{choose, thread, Arc, Mutex};
use ozone_ha_check::verify::verify_case;
use std::collections::BTreeSet;
use std::process::ExitCode;

/// Collects the final state of every execution of a model that draws a workload (two
/// choices) and then races a writer against a reader.
#[derive(Default)]
struct Workloads {
    last: std::sync::Mutex<String>,
    seen: std::sync::Mutex<BTreeSet<String>>,
}

impl Exploration for Workloads {
    fn begin(&self) {}
    fn body(&self) {
        let (first, second) = (choose(3), choose(2));
        let cell = Arc::new(Mutex::new(first));
        let w = {
            let cell = Arc::clone(&cell);
            thread::spawn("w", move || *cell.lock() = 10 + second)
        };
        let read = *cell.lock();
        w.join();
        *self.last.lock().unwrap() = format!("{first}{second}:{read}");
    }
    fn end(&self, _: Option<Schedule>) -> Flow {
        let last = self.last.lock().unwrap().clone();
        self.seen.lock().unwrap().insert(last);
        Flow::Continue
    }
    fn settled(&self) -> bool {
        false
    }
}

/// loom runs the model once per sequence of choices: every workload, each under every
/// interleaving.
fn every_workload_is_run_under_every_interleaving() -> Result<(), Failed> {
    let x = Arc::new(Workloads::default());
    let driven = drive(
        &Strategy::Loom {
            preemption_bound: None,
        },
        Arc::clone(&x) as Arc<dyn Exploration>,
    )
    .map_err(|e| Failed::from(e.to_string()))?;
    let mut want = BTreeSet::new();
    for first in 0..3 {
        for second in 0..2 {
            want.insert(format!("{first}{second}:{first}"));
            want.insert(format!("{first}{second}:{}", 10 + second));
        }
    }
    let seen = x.seen.lock().unwrap().clone();
    if !driven.exhausted || seen != want {
        return Err(format!("exhausted {}, reached {seen:?}", driven.exhausted).into());
    }
    Ok(())
}

fn trials(bound: Option<usize>) -> Vec<Trial> {
    let mut trials = Vec::new();
    for s in all() {
        // A generated plan runs loom once per workload (hdds-16092's 8676 at the default
        // bounds, each as long as a written plan): random, PCT and the stateful engine
        // explore those spaces; here they would take hours.
        for case in s.cases().into_iter().filter(|c| c.plan != GENERATED) {
            let name = format!("{}::{}::{}", s.name(), case.variant, case.plan);
            let scenario = *s;
            trials.push(Trial::test(name, move || {
                verify_case(scenario, case, &|| Strategy::Loom {
                    preemption_bound: bound,
                })
                .map_err(Failed::from)
            }));
        }
    }
    trials
}

fn main() -> ExitCode {
    let args = Arguments::from_args();
    if !Engine::Loom.available() {
        eprintln!(
            "the loom tests need the loom build: RUSTFLAGS=\"--cfg loom\" CARGO_TARGET_DIR=target/loom cargo test --release -p ozone-ha-check-core --test loom"
        );
        return ExitCode::SUCCESS;
    }
    let bound = match PreemptionBound::take_from_env() {
        Ok(b) => b.as_option(),
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let mut trials = trials(bound);
    trials.push(Trial::test(
        "engine::every_workload_is_run_under_every_interleaving",
        every_workload_is_run_under_every_interleaving,
    ));
    if let Some(filter) = &args.filter {
        let matches = |name: &str| {
            if args.exact {
                name == filter
            } else {
                name.contains(filter.as_str())
            }
        };
        if !trials.iter().any(|t| matches(t.name())) {
            eprintln!("error: the filter `{filter}` matches no loom test; see `ozone-ha-check list --names`");
            return ExitCode::from(101);
        }
    }
    let trials = match Shard::of_test_suite(trials) {
        Ok(trials) => trials,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    libtest_mimic::run(&args, trials).exit_code()
}
