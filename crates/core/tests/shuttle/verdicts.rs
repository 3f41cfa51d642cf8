//! Every case of every registered scenario gets its expected verdict, one test per case and
//! engine: `<scenario>::<variant>::<plan>::<engine>`.
//!
//! - `pct` and `random`, at `check`'s default budget for the plan: a holding case holds (seed 0) with its
//!   required probes fired; a violating case breaks, and each of its expected invariants
//!   breaks when watched alone, under every one of [`RELIABILITY_SEEDS`] seeds.
//! - `stateful`, for violating cases: the exhaustive search breaks each expected invariant
//!   (it stops at the first violation, and tries few preemptions first).
//! - An expected invariant a scenario declares beyond an engine's reach
//!   ([`ozone_ha_check::scenario::BeyondReach`]) is not asked of that engine: a run that
//!   breaks nothing must fire the declared window probes instead.

use libtest_mimic::{Failed, Trial};
use ozone_ha_check::engine::Engine;
use ozone_ha_check::jobs::plan_strategy;
use ozone_ha_check::scenarios::all;
use ozone_ha_check::verify::{verify_case, verify_case_seeds, RELIABILITY_SEEDS};

/// One trial per case and engine, from the registry: a new scenario needs no test code here.
pub(crate) fn trials() -> Vec<Trial> {
    let mut trials = Vec::new();
    for s in all() {
        let scenario = *s;
        for case in s.cases() {
            let name =
                |engine: Engine| format!("{}::{}::{}::{engine}", s.name(), case.variant, case.plan);
            for engine in [Engine::Pct, Engine::Random] {
                trials.push(Trial::test(name(engine), move || {
                    verify_case_seeds(
                        scenario,
                        case,
                        &|seed| plan_strategy(scenario, case.plan, engine, seed),
                        0..RELIABILITY_SEEDS,
                    )
                    .map_err(Failed::from)
                }));
            }
            // The stateful engine is asked for every violation not declared beyond its reach.
            if !s
                .asked_of(Engine::Stateful, case.variant, case.plan)
                .is_empty()
            {
                trials.push(Trial::test(name(Engine::Stateful), move || {
                    verify_case(scenario, case, &|| {
                        plan_strategy(scenario, case.plan, Engine::Stateful, 0)
                    })
                    .map_err(Failed::from)
                }));
            }
        }
    }
    trials
}
