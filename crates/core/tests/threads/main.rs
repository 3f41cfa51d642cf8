//! Real OS threads (`RUSTFLAGS="--cfg ohc_threads"`): the fixed variants never break an
//! invariant over many runs. A buggy variant may or may not show in a given number of runs;
//! its count is a benchmark figure, not a test.
#![cfg(ohc_threads)]

use ozone_ha_check::engine::Strategy;
use ozone_ha_check::explore::{explore, Request, Verdict};
use ozone_ha_check::scenario::Expected;
use ozone_ha_check::scenarios::all;

#[test]
fn fixed_variants_hold_on_real_threads() {
    for scenario in all() {
        for case in scenario.cases() {
            if scenario.expected(case.variant, case.plan) != Ok(Expected::Holds) {
                continue;
            }
            let r = explore(
                *scenario,
                &Request::new(case.variant, case.plan, Strategy::Threads { runs: 5_000 })
                    .stop_at_first(false),
            )
            .unwrap();
            let name = format!("{} {}/{}", scenario.name(), case.variant, case.plan);
            assert_ne!(r.verdict, Verdict::Violated, "{name}: {:?}", r.detail);
            assert_eq!(r.executions, 5_000);
            assert_eq!(r.violations, 0);
            eprintln!("{name}: probes {:?}", r.probes);
        }
    }
}
