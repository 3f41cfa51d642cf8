//! Exhaustive exploration under loom (`RUSTFLAGS="--cfg loom"`), one test per registered
//! case, named `<scenario>::<variant>::<plan>` so that CI can shard by name filter
//! (`cargo test --release --test loom -- hdds-16092::`). The cases come from the registry:
//! a new scenario needs no test code here.
//!
//! Each test explores its case at `LOOM_MAX_PREEMPTIONS` (default 2; `none` for no bound):
//! a violating case must break each of its expected invariants, a holding case must
//! exhaust its schedules with its required probes fired. A name filter that matches no test
//! fails the run, so a misspelt CI filter cannot pass by running nothing.
// As in tokio's loom CI: the bound is 2 by default (`LOOM_MAX_PREEMPTIONS=2`), and CI runs the
// tests in groups selected by name filter (tokio's `loom_pool::group_a` and so on).

use libtest_mimic::{Arguments, Failed, Trial};
use ozone_ha_check::engine::{Engine, PreemptionBound, Strategy};
use ozone_ha_check::scenarios::all;
use ozone_ha_check::verify::verify_case;
use std::process::ExitCode;

fn trials(bound: Option<usize>) -> Vec<Trial> {
    let mut trials = Vec::new();
    for s in all() {
        for case in s.cases() {
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
    let bound = match PreemptionBound::from_env() {
        Ok(b) => b.as_option(),
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let trials = trials(bound);
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
    libtest_mimic::run(&args, trials).exit_code()
}
