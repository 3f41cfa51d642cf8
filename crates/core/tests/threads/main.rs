//! Real OS threads (`RUSTFLAGS="--cfg ohc_threads"`): the fixed variants never break an
//! invariant over many runs. A buggy variant may or may not show in a given number of runs;
//! its count is a benchmark figure, not a test.
#![cfg(ohc_threads)]

use ozone_ha_check::engine::Strategy;
use ozone_ha_check::explore::{explore, Request, Verdict};
use ozone_ha_check::scenario::Expected;
use ozone_ha_check::scenarios::all;

// Two halves of the scenarios, so that the test harness runs them side by side: a run keeps
// about one core busy, its threads mostly handing over to each other.
#[test]
fn fixed_variants_hold_on_real_threads_even_scenarios() {
    fixed_variants_hold_on_real_threads(0);
}

#[test]
fn fixed_variants_hold_on_real_threads_odd_scenarios() {
    fixed_variants_hold_on_real_threads(1);
}

/// Every holding case of every other registered scenario, from the `first` (0 or 1).
fn fixed_variants_hold_on_real_threads(first: usize) {
    for scenario in all().iter().skip(first).step_by(2) {
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

/// Records the choices of every run of a model that draws a workload of three choices, the
/// last on a thread the model spawns.
#[derive(Default)]
struct Draws(std::sync::Mutex<Vec<[usize; 3]>>);

impl ozone_ha_check::engine::Exploration for Draws {
    fn begin(&self) {}
    fn body(&self) {
        use ozone_ha_check::sync::{choose, thread};
        let (first, second) = (choose(3), choose(2));
        let third = thread::spawn("draws", || choose(5)).join();
        self.0.lock().unwrap().push([first, second, third]);
    }
    fn end(&self, _: Option<ozone_ha_check::engine::Schedule>) -> ozone_ha_check::engine::Flow {
        ozone_ha_check::engine::Flow::Continue
    }
    fn settled(&self) -> bool {
        false
    }
}

/// The workloads 200 runs of [`Draws`] draw.
fn draws() -> Vec<[usize; 3]> {
    use ozone_ha_check::engine::{drive, Exploration};
    use std::sync::Arc;
    let x = Arc::new(Draws::default());
    drive(
        &Strategy::Threads { runs: 200 },
        Arc::clone(&x) as Arc<dyn Exploration>,
    )
    .unwrap();
    let seen = x.0.lock().unwrap().clone();
    seen
}

#[test]
fn choices_vary_between_runs_and_repeat_with_the_run_number() {
    let (a, b) = (draws(), draws());
    assert_eq!(a.len(), 200);
    assert_eq!(a, b, "the same run numbers draw the same workloads");
    for (i, n) in [3, 2, 5].into_iter().enumerate() {
        let values: std::collections::BTreeSet<usize> = a.iter().map(|d| d[i]).collect();
        assert_eq!(values, (0..n).collect(), "choice {i} reaches every option");
    }
}

/// Drivers side by side (as `check` runs its items, and as tests run) draw each from its own
/// runs' streams: running four at once changes no run's workload.
#[test]
fn drivers_side_by_side_draw_from_their_own_runs() {
    let alone = draws();
    let together: Vec<Vec<[usize; 3]>> = (0..4)
        .map(|_| std::thread::spawn(draws))
        .collect::<Vec<_>>()
        .into_iter()
        .map(|t| t.join().unwrap())
        .collect();
    for seen in together {
        assert_eq!(seen, alone);
    }
}
