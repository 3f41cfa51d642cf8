//! Choices (`sync::choose`) explored as schedules are: every engine of the default build
//! reaches every value, the stateful engine exhausts the product of choices and
//! interleavings, and a recorded schedule replays its choices.

use crate::support::collect;
use ozone_ha_check::engine::{Budget, DriveError, Schedule, Strategy};
use ozone_ha_check::sync::{choose, thread, Arc, Mutex};
use std::collections::BTreeSet;

/// The deepening without its random walks: what a test of one lane measures.
const NO_WALKS: Budget = Budget {
    random: 0,
    pct: 0,
    ..Budget::CHECK
};

/// The final states `strategy` reaches, the schedule of each, whether it exhausted, and
/// how many executions it ran.
type Reached = (Vec<(String, Option<Schedule>)>, bool, usize);

fn reached<F: Fn() -> String + Send + Sync + 'static>(
    strategy: Strategy,
    model: F,
) -> Result<Reached, DriveError> {
    let c = collect(&strategy, model);
    let driven = c.driven?;
    Ok((c.seen, driven.exhausted, driven.executions))
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
            part: None,
            deepening: Some(Budget::CHECK),
            sources: false,
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
            part: None,
            deepening: Some(Budget::CHECK),
            sources: false,
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

/// A workload of six requests, each one of three, then a race in which a writer lands
/// between two reads of the main task only if that task is preempted: the workload `[2, 0,
/// 0, 0, 0, 0]` with the write between the reads is one deviation from the first workload
/// and one preemption from the default order, and that workload is the 487th of the 729 in
/// depth-first order.
fn far_workload_then_preemption() -> String {
    let items: Vec<usize> = (0..6).map(|_| choose(3)).collect();
    let cell = Arc::new(Mutex::new(0));
    let w = {
        let cell = Arc::clone(&cell);
        thread::spawn("w", move || *cell.lock() = 1)
    };
    let before = *cell.lock();
    let after = *cell.lock();
    w.join();
    format!("{items:?}:{before}{after}")
}

/// The stateful engine's deviations lane reaches a workload far from the first values when
/// it needs few deviations: within 400 executions (212 measured, without the random walks),
/// where the preemption-bounded passes take every one of the 729 workloads at each bound
/// (their pass 0 alone takes 729 executions, and the write never lands between the reads
/// there: that needs a preemption).
fn the_deviations_lane_reaches_a_far_workload_early() {
    let c = collect(
        &Strategy::Stateful {
            executions: 400,
            part: None,
            deepening: Some(NO_WALKS),
            sources: false,
        },
        far_workload_then_preemption,
    );
    assert!(c.driven.is_ok());
    let seen = states(&c.seen);
    assert!(
        seen.contains("[2, 0, 0, 0, 0, 0]:01"),
        "not reached in 400 executions: {} states",
        seen.len()
    );
}

/// A workload of four requests, each one of three, then two tasks that each append their
/// letter to a log four times, one lock section at a time: the log alternates (`abababab`
/// or `babababa`) only with six preemptions or more, and counts only when the workload
/// begins with 2, which the depth-first order of the unbounded search meets after the 54
/// workloads that begin with 0 or 1, each with all its interleavings.
fn far_workload_then_many_preemptions() -> String {
    let first = choose(3);
    for _ in 0..3 {
        choose(3);
    }
    let log = Arc::new(Mutex::new(String::new()));
    let b = {
        let log = Arc::clone(&log);
        thread::spawn("b", move || {
            for _ in 0..4 {
                log.lock().push('b');
            }
        })
    };
    for _ in 0..4 {
        log.lock().push('a');
    }
    b.join();
    let alternates = log.lock().as_bytes().windows(2).all(|w| w[0] != w[1]);
    format!("{first}:{alternates}")
}

/// The stateful engine's random walks reach an outcome that is common among random
/// schedules but needs many preemptions and a workload off the first values: within 3,000
/// executions (2,502 measured; the walks' seeds are fixed, so the count is the same on every
/// run, but it moves with the decisions the walks draw at: 274 before a join had a decision
/// of its own and an exited thread's last step lost its own). Without the walks the engine
/// took 10,072; the unbounded search alone takes between 2,049 and 4,096, and has not
/// reached it in 1,000.
fn the_walk_reaches_what_needs_many_preemptions_early() {
    let reaches = |deepening: bool, executions: usize| {
        let c = collect(
            &Strategy::Stateful {
                executions,
                part: None,
                deepening: deepening.then_some(Budget::CHECK),
                sources: false,
            },
            far_workload_then_many_preemptions,
        );
        assert!(c.driven.is_ok());
        states(&c.seen).contains("2:true")
    };
    assert!(reaches(true, 3_000), "not reached in 3,000 executions");
    assert!(
        !reaches(false, 1_000),
        "the unbounded search alone reached it"
    );
}

/// A vocabulary with a symmetric universe of three keys, an asymmetric one of two roles, a
/// two-argument request and a fault.
mod words {
    use ozone_ha_check::workload::{Bounds, Kind, Universe, Vocabulary, Word};

    const UNIVERSES: &[Universe] = &[
        Universe {
            name: "keys",
            values: &["k1", "k2", "k3"],
            symmetric: true,
        },
        Universe {
            name: "roles",
            values: &["scm", "datanode"],
            symmetric: false,
        },
    ];
    const WORDS: &[Word] = &[
        Word {
            name: "create",
            kind: Kind::Request,
            args: &[0],
            doc: "a create",
        },
        Word {
            name: "rename",
            kind: Kind::Request,
            args: &[0, 0],
            doc: "a rename",
        },
        Word {
            name: "issue",
            kind: Kind::Request,
            args: &[1],
            doc: "a certificate",
        },
        Word {
            name: "kill",
            kind: Kind::Fault,
            args: &[],
            doc: "a kill",
        },
    ];
    pub(super) const VOCABULARY: Vocabulary = Vocabulary {
        universes: UNIVERSES,
        words: WORDS,
        bounds: Bounds {
            requests: 2,
            faults: 1,
        },
        allowed: ozone_ha_check::workload::any_item,
    };
}

/// Every workload within the bounds, names not canonicalised: the space the canonical draw
/// must cover up to renaming.
fn every_workload(
    v: &ozone_ha_check::workload::Vocabulary,
    bounds: ozone_ha_check::workload::Bounds,
) -> Vec<ozone_ha_check::workload::Workload> {
    use ozone_ha_check::workload::{Item, Kind, Workload};
    let mut all = vec![Workload::default()];
    let mut frontier = vec![Workload::default()];
    while let Some(w) = frontier.pop() {
        for (word, spec) in v.words.iter().enumerate() {
            let mut args: Vec<Vec<usize>> = vec![Vec::new()];
            for &u in spec.args {
                args = args
                    .into_iter()
                    .flat_map(|a| {
                        (0..v.universes[u].values.len()).map(move |x| {
                            let mut a = a.clone();
                            a.push(x);
                            a
                        })
                    })
                    .collect();
            }
            for a in args {
                let mut next = w.clone();
                next.items.push(Item { word, args: a });
                if v.within(&next, bounds) {
                    all.push(next.clone());
                    frontier.push(next);
                }
            }
        }
        let _ = Kind::Request;
    }
    all
}

/// A canonical workload of [`words::VOCABULARY`] within its bounds, drawn and shown.
fn drawn_workload() -> String {
    let v = words::VOCABULARY;
    let w = v.draw(v.bounds);
    assert_eq!(v.canonical(&w), w, "draws are canonical");
    assert!(v.within(&w, v.bounds));
    v.show(&w)
}

fn the_stateful_engine_draws_every_canonical_workload_once() {
    let v = words::VOCABULARY;
    let want: BTreeSet<String> = every_workload(&v, v.bounds)
        .iter()
        .filter(|w| !w.items.is_empty())
        .map(|w| v.show(&v.canonical(w)))
        .collect();
    let c = collect(
        &Strategy::Stateful {
            executions: 100_000,
            part: None,
            deepening: Some(Budget::CHECK),
            sources: false,
        },
        drawn_workload,
    );
    let seen = c.states();
    let driven = c.driven.unwrap();
    assert!(driven.exhausted);
    assert_eq!(seen, want);
    assert_eq!(seen.len() as u128, v.count(v.bounds));
    // The draw is a tree of choices and choices are never preemptions: the first lane's
    // first pass (bounded by 0 preemptions) refuses nothing, meets every workload once and
    // exhausts the search, so the later passes are not run. From the second execution on,
    // the two random walks took one in four each and the searches the others, the
    // deviations lane first, then the first lane's pass, in turn; the search ended at the
    // pass's last execution: its n-th, n > 1, is the k-th in all with k = 1 modulo 4. The
    // others met final states it meets too.
    let first_lane = |k: usize| k % 4 == 1;
    let last = (1..).filter(|&k| first_lane(k)).nth(seen.len() - 1);
    assert_eq!(Some(driven.executions), last);
    for text in &seen {
        assert_eq!(v.show(&v.parse(text).unwrap()), *text);
    }
}

/// With a precondition (hdds-16092's: a commit only for an open key, one open create per
/// key), the draws are exactly the canonical forms of the workloads in which every item is
/// allowed after its prefix, as many as `count` says.
fn the_draws_keep_to_the_vocabularys_preconditions() {
    let v = ozone_ha_check::scenarios::hdds_16092::VOCABULARY;
    let want: BTreeSet<String> = every_workload(&v, v.bounds)
        .iter()
        .filter(|w| !w.items.is_empty())
        .filter(|w| (0..w.items.len()).all(|i| (v.allowed)(&w.items[..i], &w.items[i])))
        .map(|w| v.show(&v.canonical(w)))
        .collect();
    let c = collect(
        &Strategy::Stateful {
            executions: 100_000,
            part: None,
            deepening: Some(Budget::CHECK),
            sources: false,
        },
        || {
            let v = ozone_ha_check::scenarios::hdds_16092::VOCABULARY;
            v.show(&v.draw(v.bounds))
        },
    );
    let seen = c.states();
    assert!(c.driven.unwrap().exhausted);
    assert_eq!(seen, want);
    assert_eq!(seen.len() as u128, v.count(v.bounds));
    assert!(!seen.iter().any(|w| w.starts_with("commit")));
}

fn a_malformed_workload_is_a_one_line_error() {
    let v = words::VOCABULARY;
    for (text, says) in [
        ("create(k4)", "`k4` is not one of the keys (k1, k2, k3)"),
        (
            "delete(k1)",
            "unknown request or fault `delete` (known: create, rename, issue, kill)",
        ),
        ("rename(k1)", "`rename(k1)`: `rename` takes 2 arguments"),
        ("create(k1", "an argument list ends with `)`"),
        (
            "issue(root)",
            "`root` is not one of the roles (scm, datanode)",
        ),
    ] {
        let e = v.parse(text).unwrap_err().to_string();
        assert!(e.contains(says), "{text}: {e}");
        assert!(!e.contains('\n'));
    }
}

/// A scenario has a `generated` plan exactly when it has a vocabulary, and written plans
/// refuse workload bounds.
fn a_generated_plan_comes_with_a_vocabulary() {
    use ozone_ha_check::scenario::GENERATED;
    use ozone_ha_check::scenarios::{all, hdds_template::HddsTemplate, AnyScenario};
    use ozone_ha_check::workload::Bounds;
    let template: &dyn AnyScenario = &HddsTemplate;
    for s in all().iter().copied().chain([template]) {
        let has_plan = s.plans().iter().any(|p| p.name == GENERATED);
        assert_eq!(s.vocabulary().is_some(), has_plan, "{}", s.name());
        let written = s.plans().iter().find(|p| p.name != GENERATED).unwrap().name;
        let variant = s.variants()[0].name;
        let bounds = Some(Bounds {
            requests: 1,
            faults: 0,
        });
        let refused = s.prepare(variant, written, None, bounds).err().unwrap();
        assert!(refused.to_string().contains("a written plan"), "{refused}");
    }
    let scope = template.scope(GENERATED, None).unwrap();
    assert_eq!(
        scope,
        "every workload of at most 3 requests and 0 faults (3 workloads)"
    );
}

/// The template's generated plan end to end: PCT breaks the buggy variant with a workload
/// it records in the schedule, the trace shows the workload first, and the report states
/// its scope; the stateful engine exhausts the fix over every workload.
fn the_template_generated_plan_breaks_under_pct_and_replays() {
    use ozone_ha_check::explore::{explore, Request, Verdict};
    use ozone_ha_check::scenarios::hdds_template::HddsTemplate;
    let s = &HddsTemplate;
    let found = explore(
        s,
        &Request::new(
            "buggy",
            "generated",
            Strategy::Pct {
                seed: 0,
                depth: 3,
                executions: 1_000,
            },
        ),
    )
    .unwrap();
    assert_eq!(found.verdict, Verdict::Violated);
    assert_eq!(found.trace[0].actor, "client");
    assert!(found.trace[0].action.starts_with("update update"));
    assert!(found.scope.as_deref().unwrap().contains("3 workloads"));
    let schedule = found.schedule.clone().unwrap();
    let again = explore(
        s,
        &Request::new("buggy", "generated", Strategy::Replay { schedule }),
    )
    .unwrap();
    assert_eq!(again.trace, found.trace);
    let held = explore(
        s,
        &Request::new(
            "fixed",
            "generated",
            Strategy::Stateful {
                executions: 1_000_000,
                part: None,
                deepening: Some(Budget::CHECK),
                sources: false,
            },
        ),
    )
    .unwrap();
    assert_eq!(held.verdict, Verdict::Held);
    assert!(held.exhausted);
}

/// This module's tests.
pub(crate) fn trials() -> Vec<libtest_mimic::Trial> {
    crate::trials![
        the_stateful_engine_exhausts_every_workload_and_interleaving,
        random_and_pct_reach_every_workload_and_replay_its_choices,
        the_stateful_engine_explores_choices_that_follow_a_race,
        the_deviations_lane_reaches_a_far_workload_early,
        the_walk_reaches_what_needs_many_preemptions_early,
        the_stateful_engine_draws_every_canonical_workload_once,
        a_malformed_workload_is_a_one_line_error,
        the_draws_keep_to_the_vocabularys_preconditions,
        a_generated_plan_comes_with_a_vocabulary,
        the_template_generated_plan_breaks_under_pct_and_replays,
    ]
}
