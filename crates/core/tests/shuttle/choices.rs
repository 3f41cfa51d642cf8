//! Choices (`sync::choose`) explored as schedules are: every engine of the default build
//! reaches every value, the stateful engine exhausts the product of choices and
//! interleavings, and a recorded schedule replays its choices.

use ozone_ha_check::engine::{drive, DriveError, Exploration, Flow, Schedule, Strategy};
use ozone_ha_check::sync::{choose, thread, Arc, Mutex};
use std::collections::BTreeSet;

/// Runs `model` in every execution and keeps each final state with the schedule that
/// reached it first.
struct Outcomes<F> {
    model: F,
    last: std::sync::Mutex<String>,
    seen: std::sync::Mutex<Vec<(String, Option<Schedule>)>>,
}

impl<F: Fn() -> String + Send + Sync + 'static> Exploration for Outcomes<F> {
    fn begin(&self) {}
    fn body(&self) {
        *self.last.lock().unwrap() = (self.model)();
    }
    fn end(&self, schedule: Option<Schedule>) -> Flow {
        let outcome = self.last.lock().unwrap().clone();
        let mut seen = self.seen.lock().unwrap();
        if !seen.iter().any(|(o, _)| *o == outcome) {
            seen.push((outcome, schedule));
        }
        Flow::Continue
    }
    fn settled(&self) -> bool {
        false
    }
}

/// The final states `strategy` reaches, the schedule of each, whether it exhausted, and
/// how many executions it ran.
type Reached = (Vec<(String, Option<Schedule>)>, bool, usize);

fn reached<F: Fn() -> String + Send + Sync + 'static>(
    strategy: Strategy,
    model: F,
) -> Result<Reached, DriveError> {
    let x = Arc::new(Outcomes {
        model,
        last: std::sync::Mutex::new(String::new()),
        seen: std::sync::Mutex::new(Vec::new()),
    });
    let driven = drive(&strategy, Arc::clone(&x) as Arc<dyn Exploration>)?;
    let seen = x.seen.lock().unwrap().clone();
    Ok((seen, driven.exhausted, driven.executions))
}

fn states(seen: &[(String, Option<Schedule>)]) -> BTreeSet<String> {
    seen.iter().map(|(o, _)| o.clone()).collect()
}

/// A workload of two requests drawn up front (one of three, then one of two), then a race
/// whose outcome depends on the workload: a writer of the second value against a reader.
fn workload_then_race() -> String {
    let first = choose(3);
    let second = choose(2);
    let cell = Arc::new(Mutex::new(first));
    let w = {
        let cell = Arc::clone(&cell);
        thread::spawn("w", move || *cell.lock() = 10 + second)
    };
    let read = *cell.lock();
    w.join();
    format!("{first}{second}:{read}")
}

/// Every (workload, race outcome) pair: 3 x 2 workloads, each with the read before or after
/// the write.
fn every_outcome() -> BTreeSet<String> {
    let mut all = BTreeSet::new();
    for first in 0..3 {
        for second in 0..2 {
            all.insert(format!("{first}{second}:{first}"));
            all.insert(format!("{first}{second}:{}", 10 + second));
        }
    }
    all
}

fn the_stateful_engine_exhausts_every_workload_and_interleaving() {
    let (seen, exhausted, executions) = reached(
        Strategy::Stateful {
            executions: 100_000,
        },
        workload_then_race,
    )
    .unwrap();
    assert!(exhausted, "the search must end");
    assert_eq!(states(&seen), every_outcome());
    // Each of the 6 workloads needs at least the two orders of the race.
    assert!(executions >= 12, "{executions} executions");
}

fn random_and_pct_reach_every_workload_and_replay_its_choices() {
    for strategy in [
        Strategy::Random {
            seed: 3,
            executions: 2_000,
        },
        Strategy::Pct {
            seed: 3,
            depth: 2,
            executions: 2_000,
        },
    ] {
        let (seen, _, _) = reached(strategy.clone(), workload_then_race).unwrap();
        assert_eq!(states(&seen), every_outcome(), "{strategy:?}");
        for (outcome, schedule) in &seen {
            let schedule = schedule.clone().expect("shuttle records a schedule");
            assert!(
                schedule.to_string().contains(",r") || schedule.to_string().contains(":r"),
                "choices are recorded in the schedule: {schedule}"
            );
            let (again, _, runs) = reached(
                Strategy::Replay {
                    schedule: schedule.clone(),
                },
                workload_then_race,
            )
            .unwrap();
            assert_eq!(runs, 1);
            assert_eq!(again[0].0, *outcome, "replaying {schedule}");
        }
    }
}

/// A choice made by a spawned task, after a race: the number of options depends on the
/// interleaving, which the stateful engine explores as well.
fn choice_after_a_race() -> String {
    let cell = Arc::new(Mutex::new(0usize));
    let w = {
        let cell = Arc::clone(&cell);
        thread::spawn("w", move || *cell.lock() = 1)
    };
    let options = 2 + *cell.lock();
    let chosen = choose(options);
    w.join();
    format!("{options}:{chosen}")
}

fn the_stateful_engine_explores_choices_that_follow_a_race() {
    let (seen, exhausted, _) = reached(
        Strategy::Stateful {
            executions: 100_000,
        },
        choice_after_a_race,
    )
    .unwrap();
    assert!(exhausted);
    let want: BTreeSet<String> = ["2:0", "2:1", "3:0", "3:1", "3:2"]
        .into_iter()
        .map(String::from)
        .collect();
    assert_eq!(states(&seen), want);
}

/// This module's tests.
pub(crate) fn trials() -> Vec<libtest_mimic::Trial> {
    crate::trials![
        the_stateful_engine_exhausts_every_workload_and_interleaving,
        random_and_pct_reach_every_workload_and_replay_its_choices,
        the_stateful_engine_explores_choices_that_follow_a_race,
    ]
}
