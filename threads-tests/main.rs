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
        let info = scenario.info();
        for (variant, plan) in info.cases() {
            if (info.expected)(variant, plan) != Expected::Holds {
                continue;
            }
            let r = explore(
                *scenario,
                &Request::new(variant, plan, Strategy::Threads { runs: 5_000 })
                    .stop_at_first(false),
            )
            .unwrap();
            assert_ne!(
                r.verdict,
                Verdict::Violated,
                "{} {variant} {plan}: {:?}",
                info.name,
                r.detail
            );
            assert_eq!(r.executions, 5_000);
            assert_eq!(r.violations, 0);
            eprintln!("{} {variant} {plan}: probes {:?}", info.name, r.probes);
        }
    }
}
