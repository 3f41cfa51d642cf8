//! Helpers shared by the shuttle tests.

use ozone_ha_check::engine::{Schedule, Strategy};
use ozone_ha_check::explore::{explore, Report, Request};
use ozone_ha_check::scenarios::find;

/// Explore one case.
pub fn run(
    scenario: &str,
    variant: &str,
    plan: &str,
    strategy: Strategy,
    watch: Option<&str>,
) -> Report {
    let s = find(scenario).expect("registered scenario");
    explore(s, &Request::new(variant, plan, strategy).watch(watch))
        .unwrap_or_else(|e| panic!("{scenario} {variant} {plan}: {e}"))
}

/// PCT at depth 3.
pub fn pct(seed: u64, executions: usize) -> Strategy {
    Strategy::Pct {
        seed,
        depth: 3,
        executions,
    }
}

/// Replay a schedule.
pub fn replay(
    scenario: &str,
    variant: &str,
    plan: &str,
    schedule: impl std::fmt::Display,
    watch: Option<&str>,
) -> Report {
    let schedule = Schedule::parse(&schedule.to_string()).expect("committed schedule parses");
    run(
        scenario,
        variant,
        plan,
        Strategy::Replay { schedule },
        watch,
    )
}
