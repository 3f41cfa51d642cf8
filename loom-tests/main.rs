//! Exhaustive exploration under loom (`RUSTFLAGS="--cfg loom"`), at preemption bound 2.
//! Tests are named `<scenario>::<case>` so CI can shard them by name filter.
#![cfg(loom)]

use ozone_ha_check::explore::{explore, Report, Request, Verdict};
use ozone_ha_check::scenario::{find, Expected};
use ozone_ha_check::sync::drive::Strategy;

fn run(scenario: &str, variant: &str, plan: &str, bound: usize, watch: Option<&str>) -> Report {
    explore(
        find(scenario).unwrap(),
        &Request::new(
            variant,
            plan,
            Strategy::Loom {
                preemption_bound: Some(bound),
            },
        )
        .watch(watch),
    )
    .unwrap()
}

/// Every case of `scenario` at `bound`: violations with their invariants, fixed variants
/// exhausted with their probes fired.
fn assert_matrix(scenario: &str, bound: usize) {
    let info = find(scenario).unwrap().info();
    for (variant, plan) in info.cases() {
        match (info.expected)(variant, plan) {
            Expected::Holds => {
                let r = run(scenario, variant, plan, bound, None);
                assert_eq!(r.verdict, Verdict::Held, "{variant}/{plan}");
                assert!(r.exhausted, "{variant}/{plan} did not exhaust");
            }
            Expected::Violates(names) => {
                for name in names {
                    let r = run(scenario, variant, plan, bound, Some(name));
                    assert_eq!(r.verdict, Verdict::Violated, "{variant}/{plan}: {name}");
                    assert_eq!(r.invariant.as_deref(), Some(*name));
                    assert!(!r.trace.is_empty());
                }
            }
        }
    }
}

mod hdds_16092 {
    // Reference: HDDS-16092, seeds/002_376d2b1cb9c9e262.txt.
    use super::*;

    #[test]
    fn matrix_at_bound_2() {
        assert_matrix("hdds-16092", 2);
    }

    #[test]
    fn buggy_breaks_at_bound_1() {
        let r = run("hdds-16092", "buggy", "steady", 1, None);
        assert_eq!(r.verdict, Verdict::Violated);
    }
}

mod hdds_16452 {
    // Reference: HDDS-16452, seeds/004_f602220297222a8a.txt.
    use super::*;

    #[test]
    fn matrix_at_bound_2() {
        assert_matrix("hdds-16452", 2);
    }

    #[test]
    fn buggy_breaks_at_bound_1() {
        let r = run("hdds-16452", "buggy", "base", 1, None);
        assert_eq!(r.verdict, Verdict::Violated);
    }
}

mod hdds_17215 {
    // Reference: HDDS-17215, seeds/001_faf9eec80e528ec4.txt.
    use super::*;

    #[test]
    fn matrix_at_bound_2() {
        assert_matrix("hdds-17215", 2);
    }
}

mod hdds_16900 {
    // Reference: HDDS-16900, seeds/000_0a279f86879c9feb.txt.
    use super::*;

    #[test]
    fn matrix_at_bound_2() {
        assert_matrix("hdds-16900", 2);
    }
}
