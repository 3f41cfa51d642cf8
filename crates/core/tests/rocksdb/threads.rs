//! Real OS threads against real RocksDB (`RUSTFLAGS="--cfg ohc_threads"`, feature `rocksdb`):
//! every store of `hdds-16092` and `hdds-16452` is mirrored to a RocksDB database
//! ([`Mirror`], installed as every store's shadow), and the fixed variants never break an invariant
//! on the plans where they are expected to hold. The buggy variants' counts
//! are printed as figures, not asserted: real threads can only witness a race.
#![cfg(ohc_threads)]

use ozone_ha_check::engine::Strategy;
use ozone_ha_check::explore::{explore, Request, Verdict};
use ozone_ha_check::kit::rocks::Mirror;
use ozone_ha_check::kit::store::install_shadows;
use ozone_ha_check::scenario::Expected;
use ozone_ha_check::scenarios::all;

/// Runs per case; `OHC_ROCKSDB_RUNS` overrides.
fn runs() -> usize {
    std::env::var("OHC_ROCKSDB_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200)
}

#[test]
fn scenarios_on_real_threads_against_rocksdb() {
    let dir = tempfile::tempdir().unwrap();
    install_shadows(Some(Mirror::factory(dir.path().to_path_buf())));
    let runs = runs();
    for scenario in all() {
        let name = scenario.name();
        if !["hdds-16092", "hdds-16452"].contains(&name) {
            continue;
        }
        for case in scenario.cases() {
            let (variant, plan) = (case.variant, case.plan);
            if !["buggy", "fixed"].contains(&variant) {
                continue;
            }
            let before = Mirror::created();
            let r = explore(
                *scenario,
                &Request::new(variant, plan, Strategy::Threads { runs }).stop_at_first(false),
            )
            .unwrap();
            assert!(
                Mirror::created() > before,
                "no store was mirrored to RocksDB"
            );
            assert_eq!(r.executions, runs);
            eprintln!(
                "{} {variant} {plan}: {} of {runs} runs violated ({:?}), probes {:?}",
                name, r.violations, r.invariant, r.probes
            );
            let holds = scenario.expected(variant, plan).ok() == Some(Expected::Holds);
            if variant == "fixed" && holds {
                assert_ne!(r.verdict, Verdict::Violated, "{name}: {:?}", r.detail);
                assert_eq!(r.violations, 0);
            }
        }
    }
}
