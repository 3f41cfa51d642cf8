//! Real OS threads against real RocksDB (`RUSTFLAGS="--cfg ohc_threads"`, feature `rocksdb`):
//! every store of `hdds-16092` and `hdds-16452` is mirrored to a RocksDB database
//! ([`Mirror`], installed as every store's shadow), and the fixed variants never break an invariant
//! on the plans where they are expected to hold. The buggy variants' counts
//! are printed as figures, not asserted: real threads can only witness a race.
#![cfg(ohc_threads)]

use ozone_ha_check::engine::Strategy;
use ozone_ha_check::explore::{explore, Report, Request, Verdict};
use ozone_ha_check::kit::rocks::Mirror;
use ozone_ha_check::kit::store::install_shadows;
use ozone_ha_check::scenario::Expected;
use ozone_ha_check::scenarios::{find, AnyScenario};

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
    // One run of each case alone first: its stores, and no other case's, are mirrored.
    for (scenario, variant, plan) in cases() {
        let before = Mirror::created();
        run(scenario, variant, plan, 1);
        assert!(
            Mirror::created() > before,
            "{} {variant} {plan}: no store was mirrored to RocksDB",
            scenario.name()
        );
    }
    // Then the two scenarios side by side: a run spends most of its time waiting on
    // RocksDB's files, so one scenario alone keeps less than one core busy.
    std::thread::scope(|s| {
        for name in SCENARIOS {
            s.spawn(move || {
                for (scenario, variant, plan) in cases().filter(|c| c.0.name() == name) {
                    let r = run(scenario, variant, plan, runs);
                    eprintln!(
                        "{name} {variant} {plan}: {} of {runs} runs violated ({:?}), probes {:?}",
                        r.violations, r.invariant, r.probes
                    );
                    let holds = scenario.expected(variant, plan).ok() == Some(Expected::Holds);
                    if variant == "fixed" && holds {
                        assert_ne!(r.verdict, Verdict::Violated, "{name}: {:?}", r.detail);
                        assert_eq!(r.violations, 0);
                    }
                }
            });
        }
    });
}

/// The scenarios whose stores are mirrored.
const SCENARIOS: [&str; 2] = ["hdds-16092", "hdds-16452"];

/// Every case of [`SCENARIOS`]' `buggy` and `fixed` variants.
fn cases() -> impl Iterator<Item = (&'static dyn AnyScenario, &'static str, &'static str)> {
    SCENARIOS.into_iter().flat_map(|name| {
        let scenario = find(name).expect("a registered scenario");
        scenario
            .cases()
            .into_iter()
            .filter(|c| ["buggy", "fixed"].contains(&c.variant))
            .map(move |c| (scenario, c.variant, c.plan))
    })
}

/// `runs` runs of one case, every one to its end.
fn run(scenario: &'static dyn AnyScenario, variant: &str, plan: &str, runs: usize) -> Report {
    let r = explore(
        scenario,
        &Request::new(variant, plan, Strategy::Threads { runs }).stop_at_first(false),
    )
    .unwrap();
    assert_eq!(r.executions, runs);
    r
}
