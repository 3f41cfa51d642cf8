//! Helpers shared by the shuttle tests.

use ozone_ha_check::explore::{explore, Report, Request, Verdict};
use ozone_ha_check::scenario::{find, Expected};
use ozone_ha_check::sync::drive::{Schedule, Strategy};

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

/// Assert that every (variant, plan) of `scenario` gets its expected verdict under
/// `strategy`, and that each expected invariant can be shown broken on its own.
pub fn assert_matrix(scenario: &str, strategy: impl Fn() -> Strategy) {
    let info = find(scenario).expect("registered scenario").info();
    for (variant, plan) in info.cases() {
        let report = run(scenario, variant, plan, strategy(), None);
        match (info.expected)(variant, plan) {
            Expected::Holds => {
                assert_eq!(
                    report.verdict,
                    Verdict::Held,
                    "{variant}/{plan}: {report:#?}"
                );
                for probe in info.required_probes {
                    assert!(
                        report.probes[*probe] > 0,
                        "{variant}/{plan}: probe {probe} never fired"
                    );
                }
            }
            Expected::Violates(names) => {
                assert_eq!(
                    report.verdict,
                    Verdict::Violated,
                    "{variant}/{plan} was not violated"
                );
                let broke = report.invariant.clone().unwrap_or_default();
                assert!(
                    names.contains(&broke.as_str()),
                    "{variant}/{plan} broke {broke}, expected one of {names:?}"
                );
                assert!(
                    !report.trace.is_empty(),
                    "{variant}/{plan}: empty counterexample"
                );
                for name in names {
                    let watched = run(scenario, variant, plan, strategy(), Some(name));
                    assert_eq!(
                        watched.verdict,
                        Verdict::Violated,
                        "{variant}/{plan}: {name} never broke"
                    );
                    assert_eq!(watched.invariant.as_deref(), Some(*name));
                }
            }
        }
    }
}

/// Replay a schedule.
pub fn replay(
    scenario: &str,
    variant: &str,
    plan: &str,
    schedule: &str,
    watch: Option<&str>,
) -> Report {
    let schedule = Schedule::parse(schedule).expect("committed schedule parses");
    run(
        scenario,
        variant,
        plan,
        Strategy::Replay { schedule },
        watch,
    )
}
