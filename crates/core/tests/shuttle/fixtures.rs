//! Committed counterexamples (`crates/core/tests/shuttle/fixtures/*.json`, written by `check --save`)
//! still replay to the same invariant, the same domain trace and the same violation message
//! (its detail); and for every scenario, a
//! found counterexample replays twice to identical traces.

use crate::support::{pct, replay, run};
use ozone_ha_check::counterexample::{diff_traces, Counterexample};
use ozone_ha_check::engine::{Budget, Engine, Step, Strategy};
use ozone_ha_check::explore::{explore, Report, Request, Verdict};
use ozone_ha_check::jobs::plan_strategy;
use ozone_ha_check::minimize::minimize;
use ozone_ha_check::scenario::Expected;
use ozone_ha_check::scenarios::{all, AnyScenario, CaseName};
use std::path::Path;

fn committed_counterexamples_replay_to_the_same_trace() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/shuttle/fixtures");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no fixtures in {}", dir.display());
    let mut failures = Vec::new();
    for path in &files {
        let saved = Counterexample::parse(&std::fs::read_to_string(path).unwrap()).unwrap();
        let schedule = saved.schedule.as_ref().expect("fixtures carry a schedule");
        let r = replay(
            &saved.scenario,
            &saved.variant,
            &saved.plan,
            schedule,
            Some(&saved.invariant),
        );
        let name = path.file_name().unwrap().to_string_lossy();
        if r.invariant.as_deref() != Some(saved.invariant.as_str()) {
            failures.push(format!(
                "{name}: {} no longer breaks (got {:?})",
                saved.invariant, r.invariant
            ));
        } else if let Some(diff) = diff_traces(&saved.trace, &r.trace) {
            failures.push(format!("{name}: {diff}"));
        } else if r.detail.as_deref() != Some(saved.detail.as_str()) {
            failures.push(format!(
                "{name}: the violation now reads {:?}, the fixture {:?}",
                r.detail, saved.detail
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn every_scenario_replays_a_counterexample_identically_twice() {
    for scenario in all() {
        let name = scenario.name();
        let case = violating(*scenario)
            .into_iter()
            .next()
            .expect("every scenario has a violating case");
        let (variant, plan) = (case.variant, case.plan);
        let found = run(name, variant, plan, pct(0, 10_000), None);
        assert_eq!(found.verdict, Verdict::Violated, "{name}");
        let schedule = found.schedule.clone().unwrap();
        let a = replay(name, variant, plan, &schedule, None);
        let b = replay(name, variant, plan, &schedule, None);
        assert_eq!(a.trace, b.trace, "{name}");
        assert_eq!(
            a.trace, found.trace,
            "{name}: replay differs from the exploration"
        );
        assert_eq!(a.invariant, found.invariant);
    }
}

fn minimization_keeps_the_invariant_and_never_lengthens() {
    for scenario in all() {
        let name = scenario.name();
        for case in violating(*scenario) {
            let (variant, plan) = (case.variant, case.plan);
            if scenario
                .asked_of(Engine::Pct, case.variant, case.plan)
                .is_empty()
            {
                continue;
            }
            let found = run(
                name,
                variant,
                plan,
                plan_strategy(*scenario, plan, Engine::Pct, 3),
                None,
            );
            let small = minimize(*scenario, &found).unwrap();
            let m = small
                .minimized
                .clone()
                .expect("a shuttle counterexample is minimized");
            assert_eq!(small.invariant, found.invariant);
            // Preemptions first, then context switches, then steps: never longer by that
            // measure, and never more preemptions.
            assert!(
                (m.preemptions, m.context_switches, m.steps)
                    <= (m.found_preemptions, m.found_context_switches, m.found_steps),
                "{variant}/{plan}: {m:?}"
            );
            assert!(
                m.replays
                    <= ozone_ha_check::minimize::MINIMIZE_BUDGET + m.found_context_switches + 1
            );
            assert_eq!(m.steps, small.trace.len());
            // The minimized schedule replays to the minimized trace.
            let again = replay(
                name,
                variant,
                plan,
                small.schedule.as_ref().unwrap(),
                found.invariant.as_deref(),
            );
            assert_eq!(again.trace, small.trace, "{variant}/{plan}");
        }
    }
}

fn minimization_leaves_the_local_minimum_of_one_at_a_time_drops() {
    // Random schedules preempt at almost every decision; the snapshot's unbatched put needs
    // one preemption (loom's smallest failing bound is 1), and the minimized
    // counterexample has exactly one.
    let scenario = ozone_ha_check::scenarios::find("hdds-16092").unwrap();
    let found = run(
        "hdds-16092",
        "buggy",
        "steady",
        ozone_ha_check::engine::Strategy::Random {
            seed: 0,
            executions: 100,
        },
        None,
    );
    let small = minimize(scenario, &found).unwrap();
    let m = small.minimized.unwrap();
    assert!(m.found_preemptions > 10, "{m:?}");
    assert_eq!(m.preemptions, 1, "{m:?}");
}

fn generated_counterexamples_minimize_around_their_workload() {
    // The drawn workload's values are replayed in order by every run of the search, so a
    // generated plan's counterexample loses preemptions like a written plan's does.
    let scenarios: [&dyn AnyScenario; 2] = [
        ozone_ha_check::scenarios::find("hdds-16092").unwrap(),
        &ozone_ha_check::scenarios::hdds_template::HddsTemplate,
    ];
    let plan = ozone_ha_check::scenario::GENERATED;
    for scenario in scenarios {
        let name = scenario.name();
        let found = explore(scenario, &Request::new("buggy", plan, pct(0, 10_000))).unwrap();
        assert_eq!(found.verdict, Verdict::Violated, "{name}");
        let (_, values) = found.schedule.as_ref().unwrap().split();
        assert!(!values.is_empty(), "{name}: the workload is drawn");
        let small = minimize(scenario, &found).unwrap();
        let m = small.minimized.clone().expect("minimized");
        assert_eq!(small.invariant, found.invariant, "{name}");
        assert!(m.preemptions <= m.found_preemptions, "{name}: {m:?}");
        assert!(
            (m.preemptions, m.context_switches, m.steps)
                < (m.found_preemptions, m.found_context_switches, m.found_steps),
            "{name}: nothing was shortened: {m:?}"
        );
        let schedule = small.schedule.clone().unwrap();
        let again = explore(
            scenario,
            &Request::new("buggy", plan, Strategy::Replay { schedule })
                .watch(found.invariant.as_deref()),
        )
        .unwrap();
        assert_eq!(again.invariant, found.invariant, "{name}");
        assert_eq!(again.trace, small.trace, "{name}");
    }
}

fn a_generated_counterexample_shrinks_to_the_minimal_workload() {
    // The OM terminates when the replay meets a committed key's CreateKey below a lowered
    // index: a create and its commit, a snapshot to lower the index and an ending that
    // replays (here a follower that installs the lowered checkpoint, the `install` plan's run).
    let scenario = ozone_ha_check::scenarios::find("hdds-16092").unwrap();
    let watch = Some("NoOmTermination");
    let found = explore(
        scenario,
        &Request::new("buggy", "generated", pct(0, 15_000)).watch(watch),
    )
    .unwrap();
    assert_eq!(found.invariant.as_deref(), watch);
    let drawn = &found.trace[0];
    assert_eq!(drawn.java, "the workload drawn");
    assert_eq!(
        drawn.action,
        "rename(k1,k2) create(k1) commit(k1) snapshot install"
    );
    let small = minimize(scenario, &found).unwrap();
    let m = small.minimized.clone().unwrap();
    assert_eq!(small.invariant.as_deref(), watch);
    // The unrelated rename goes; the snapshot that lowers the index and the install whose
    // follower replays stay. (`stop`, a snapshot and a restart in one word, would make it
    // three items, but shrinking drops items and lowers arguments, it never swaps words.)
    assert_eq!((m.found_workload, m.workload), (Some(5), Some(4)), "{m:?}");
    assert_eq!(
        small.trace[0].action,
        "create(k1) commit(k1) snapshot install"
    );
    assert!(m.preemptions <= m.found_preemptions, "{m:?}");
    assert!(m.replays <= ozone_ha_check::minimize::MINIMIZE_BUDGET + m.found_context_switches + 1);
    // The minimized schedule carries the smaller workload's values and replays to it.
    let again = replay(
        "hdds-16092",
        "buggy",
        "generated",
        small.schedule.as_ref().unwrap(),
        watch,
    );
    assert_eq!(again.invariant.as_deref(), watch);
    assert_eq!(again.trace, small.trace);
}

/// The stateful engine's first violation of `invariant`, watched alone, in one case.
fn stateful_violation(
    name: &str,
    variant: &str,
    plan: &str,
    invariant: &str,
) -> (&'static dyn AnyScenario, Report) {
    let scenario = ozone_ha_check::scenarios::find(name).unwrap();
    let stateful = Strategy::Stateful {
        executions: 100_000,
        part: None,
        deepening: Some(Budget::CHECK),
        sources: false,
    };
    (
        scenario,
        run(name, variant, plan, stateful, Some(invariant)),
    )
}

/// A stateful engine's counterexample replays only in that engine's mode; the minimizer
/// carries it to shuttle, then shortens it as any other, and the result replays under
/// `replay`. The cases need a preemption (the non-preemptive execution does not break
/// them), and each is carried on the first replay, by following the stateful execution
/// segment by segment (`Strategy::Along`), not by a random interleaving. hdds-16092's was
/// carried only once a channel's inner wait counted as no operation of its own under
/// shuttle; hdds-17215's is the PCT walk's.
fn stateful_counterexamples_are_carried_to_shuttle_and_minimized() {
    let cases = [
        ("hdds-16092", "buggy", "restart", "NoOmTermination"),
        ("hdds-16452", "buggy", "base", "CheckpointConsistent"),
        ("hdds-8681", "buggy", "in-flight", "TarballMatchesItsIndex"),
        ("hdds-17215", "buggy", "pipelined", "StoreHoldsIssuedSecret"),
        (
            "hdds-16900",
            "raise-only",
            "store-fails",
            "SequenceRowsAgree",
        ),
    ];
    for (name, variant, plan, invariant) in cases {
        let (scenario, found) = stateful_violation(name, variant, plan, invariant);
        assert_eq!(
            found.invariant.as_deref(),
            Some(invariant),
            "{name} {variant}/{plan}"
        );
        assert!(found.schedule.is_none() && found.stateful_schedule.is_some());
        let small = minimize(scenario, &found).unwrap();
        let m = small.minimized.clone().expect("carried and minimized");
        let carried = m.carried.expect("a stateful counterexample is carried");
        assert_eq!(carried.replays, 1, "{name} {variant}/{plan}: {m:?}");
        assert_eq!(carried.steps, found.trace.len());
        assert!(m.preemptions >= 1, "{name} {variant}/{plan}: {m:?}");
        assert!(
            (m.preemptions, m.context_switches, m.steps)
                <= (m.found_preemptions, m.found_context_switches, m.found_steps),
            "{name} {variant}/{plan}: {m:?}"
        );
        assert_eq!(small.invariant, found.invariant);
        let again = replay(
            name,
            variant,
            plan,
            small.schedule.as_ref().expect("a shuttle schedule"),
            Some(invariant),
        );
        assert_eq!(again.invariant, found.invariant, "{name} {variant}/{plan}");
        assert_eq!(again.trace, small.trace, "{name} {variant}/{plan}");
    }
}

/// Carrying a stateful counterexample takes at most a third of the minimizer's budget; one
/// not carried within it comes back as found. hdds-16092's `DurableIndexCoversData` on
/// `generated` is carried at once by following the stateful execution; with its schedule's
/// tasks left out (its workload's values kept), it cannot be followed, nor broken without a
/// preemption, and is carried by a random interleaving after `k` replays: with a budget of
/// `3 k` it is carried, with `3 (k - 1)` it stays as found, without a schedule.
fn carrying_takes_at_most_a_third_of_the_budget() {
    let (name, variant, plan, invariant) =
        ("hdds-16092", "buggy", "generated", "DurableIndexCoversData");
    let (scenario, mut found) = stateful_violation(name, variant, plan, invariant);
    let carried = |found: &Report, budget| {
        ozone_ha_check::minimize::minimize_within(scenario, found, budget)
            .unwrap()
            .minimized
            .and_then(|m| m.carried)
    };
    let followed = carried(&found, ozone_ha_check::minimize::MINIMIZE_BUDGET);
    assert_eq!(followed.map(|c| c.replays), Some(1));
    let schedule = found
        .stateful_schedule
        .as_mut()
        .expect("a stateful schedule");
    schedule.steps.retain(|s| matches!(s, Step::Random(_)));
    let k = carried(&found, ozone_ha_check::minimize::MINIMIZE_BUDGET)
        .expect("carried within the whole budget")
        .replays;
    assert!(k > 2, "carried by following or without a preemption: {k}");
    assert_eq!(carried(&found, 3 * k).map(|c| c.replays), Some(k));
    let small = ozone_ha_check::minimize::minimize_within(scenario, &found, 3 * (k - 1)).unwrap();
    assert!(small.minimized.is_none() && small.schedule.is_none());
    assert_eq!(small.trace, found.trace);
}

/// The cases of `s` expected to break an invariant.
fn violating(s: &dyn AnyScenario) -> Vec<CaseName> {
    s.cases()
        .into_iter()
        .filter(|c| s.expected(c.variant, c.plan) != Ok(Expected::Holds))
        .collect()
}

/// This module's tests.
pub(crate) fn trials() -> Vec<libtest_mimic::Trial> {
    crate::trials![
        committed_counterexamples_replay_to_the_same_trace,
        every_scenario_replays_a_counterexample_identically_twice,
        minimization_keeps_the_invariant_and_never_lengthens,
        minimization_leaves_the_local_minimum_of_one_at_a_time_drops,
        generated_counterexamples_minimize_around_their_workload,
        a_generated_counterexample_shrinks_to_the_minimal_workload,
        stateful_counterexamples_are_carried_to_shuttle_and_minimized,
        carrying_takes_at_most_a_third_of_the_budget
    ]
}
