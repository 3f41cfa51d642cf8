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

/// Records the choices of every run of a model that draws a workload of three choices.
#[derive(Default)]
struct Draws(std::sync::Mutex<Vec<[usize; 3]>>);

impl ozone_ha_check::engine::Exploration for Draws {
    fn begin(&self) {}
    fn body(&self) {
        use ozone_ha_check::sync::choose;
        let draw = [choose(3), choose(2), choose(5)];
        self.0.lock().unwrap().push(draw);
    }
    fn end(&self, _: Option<ozone_ha_check::engine::Schedule>) -> ozone_ha_check::engine::Flow {
        ozone_ha_check::engine::Flow::Continue
    }
    fn settled(&self) -> bool {
        false
    }
}

#[test]
fn choices_vary_between_runs_and_repeat_with_the_run_number() {
    use ozone_ha_check::engine::{drive, Exploration};
    use std::sync::Arc;
    let draws = || {
        let x = Arc::new(Draws::default());
        drive(
            &Strategy::Threads { runs: 200 },
            Arc::clone(&x) as Arc<dyn Exploration>,
        )
        .unwrap();
        let seen = x.0.lock().unwrap().clone();
        seen
    };
    let (a, b) = (draws(), draws());
    assert_eq!(a.len(), 200);
    assert_eq!(a, b, "the same run numbers draw the same workloads");
    for (i, n) in [3, 2, 5].into_iter().enumerate() {
        let values: std::collections::BTreeSet<usize> = a.iter().map(|d| d[i]).collect();
        assert_eq!(values, (0..n).collect(), "choice {i} reaches every option");
    }
}
