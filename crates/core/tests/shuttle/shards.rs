//! A generated space split across `--shard I/N`: the stateful engine on part I explores
//! exactly the workloads of that part (the parts disjoint, their union every workload), and
//! `report --merge` joins the parts' reports of a case into one verdict and scope.

use crate::support::collect;
use ozone_ha_check::engine::{Budget, Part, Strategy};
use ozone_ha_check::explore::{explore, Report, Request, Verdict};
use ozone_ha_check::scenarios::hdds_template::HddsTemplate;
use ozone_ha_check::shards::join;
use ozone_ha_check::workload::Vocabulary;
use std::collections::BTreeSet;

/// The workloads the stateful engine draws from `v` (at its default bounds) within `part`,
/// checked to be as many as the part says and the search exhausted.
fn drawn(v: Vocabulary, part: Option<Part>) -> BTreeSet<String> {
    let workloads = part.as_ref().map(|p| p.workloads);
    let c = collect(
        &Strategy::Stateful {
            executions: 1_000_000,
            part,
            deepening: Some(Budget::CHECK),
            sources: false,
        },
        move || v.show(&v.draw(v.bounds)),
    );
    let seen = c.states();
    let runs = c.seen.len();
    let driven = c.driven.unwrap();
    assert!(driven.exhausted);
    // Each workload drawn once: the draw is a tree of choices, and each workload its own
    // final state.
    assert_eq!(runs, seen.len());
    assert_eq!(driven.final_states, Some(seen.len()));
    if let Some(w) = workloads {
        assert_eq!(seen.len() as u128, w);
    }
    seen
}

fn the_parts_of_a_generated_space_are_disjoint_and_cover_it() {
    // A vocabulary without preconditions, and hdds-16092's, whose preconditions shrink the
    // candidates (so the prefixes have uneven subtrees).
    let small = ozone_ha_check::workload::Vocabulary {
        bounds: ozone_ha_check::workload::Bounds {
            requests: 2,
            faults: 1,
        },
        ..ozone_ha_check::scenarios::hdds_16092::VOCABULARY
    };
    for (v, more) in [
        (small, true),
        (ozone_ha_check::scenarios::hdds_16092::VOCABULARY, false),
    ] {
        let whole = drawn(v, None);
        assert_eq!(whole.len() as u128, v.count(v.bounds));
        let mut counts = vec![1, 2, 3, 7];
        if more {
            // More parts than workloads: the parts left empty explore nothing.
            counts.push(whole.len() + 2);
        }
        for count in counts {
            let mut union = BTreeSet::new();
            let mut sizes = Vec::new();
            for index in 1..=count {
                let part = v.split(v.bounds, index, count);
                let mine = drawn(v, Some(part));
                sizes.push(mine.len());
                for w in mine {
                    assert!(union.insert(w.clone()), "{w} in two parts of {count}");
                }
            }
            assert_eq!(union, whole, "{count} parts");
            // Balanced: when each part has several prefixes, no part holds twice the mean.
            if count <= 3 {
                let most = sizes.iter().max().copied().unwrap_or(0);
                assert!(most * count <= 2 * whole.len(), "{count} parts: {sizes:?}");
            }
        }
    }
}

/// The template's generated plan (3 workloads) on `variant`, part `index` of `count`, the
/// stateful engine limited to `executions`.
fn part_report(variant: &str, index: usize, count: usize, executions: usize) -> Report {
    let v = template_vocabulary();
    explore(
        &HddsTemplate,
        &Request::new(
            variant,
            "generated",
            Strategy::Stateful {
                executions,
                part: Some(v.split(v.bounds, index, count)),
                deepening: Some(Budget::CHECK),
                sources: false,
            },
        ),
    )
    .unwrap()
}

fn template_vocabulary() -> Vocabulary {
    use ozone_ha_check::scenarios::AnyScenario;
    (&HddsTemplate as &dyn AnyScenario)
        .vocabulary()
        .expect("the template has a generated plan")
}

fn joined_parts_all_exhausted_hold_exhausted() {
    let parts: Vec<Report> = (1..=2)
        .map(|i| part_report("fixed", i, 2, 1_000_000))
        .collect();
    assert!(parts
        .iter()
        .all(|r| r.exhausted && r.verdict == Verdict::Held));
    assert!(parts[0].scope.as_deref().unwrap().starts_with("part 1/2 ("));
    let joined = join(parts.clone());
    assert_eq!(joined.len(), 1);
    let j = &joined[0];
    assert_eq!(j.verdict, Verdict::Held);
    assert!(j.exhausted);
    assert_eq!(
        j.executions,
        parts.iter().map(|r| r.executions).sum::<usize>()
    );
    let (a, b) = (parts[0].reduction.unwrap(), parts[1].reduction.unwrap());
    assert_eq!(j.reduction, Some(a + b));
    assert_eq!(
        j.reduction.unwrap().revisits,
        a.revisits + b.revisits,
        "summed field by field"
    );
    // The parts own disjoint workloads, so their final states add up to the whole space's.
    let whole = part_report("fixed", 1, 1, 1_000_000);
    assert!(whole.exhausted);
    assert!(whole.final_states.is_some_and(|f| f > 0));
    assert_eq!(j.final_states, whole.final_states);
    let info = j.parts.as_ref().unwrap();
    assert_eq!(info.present, vec![1, 2]);
    assert!(info.missing().is_empty());
    assert_eq!(
        u128::from(info.workloads),
        template_vocabulary().count(template_vocabulary().bounds)
    );
    assert_eq!(
        j.scope.as_deref().unwrap(),
        "every workload of at most 3 requests and 0 faults (3 workloads), in 2 parts: \
         every part exhausted"
    );
}

fn a_part_not_exhausted_leaves_the_join_not_exhausted() {
    let done = part_report("fixed", 1, 2, 1_000_000);
    let cut = part_report("fixed", 2, 2, 1);
    assert!(done.exhausted && !cut.exhausted);
    let joined = join(vec![cut, done]);
    let j = &joined[0];
    assert!(!j.exhausted);
    assert_eq!(j.verdict, Verdict::Held);
    assert!(
        j.scope
            .as_deref()
            .unwrap()
            .ends_with("not exhausted in part 2"),
        "{:?}",
        j.scope
    );
}

fn a_missing_part_is_named_and_the_join_not_exhausted() {
    let parts: Vec<Report> = [1, 3]
        .into_iter()
        .map(|i| part_report("fixed", i, 3, 1_000_000))
        .collect();
    assert!(parts.iter().all(|r| r.exhausted));
    let joined = join(parts);
    let j = &joined[0];
    assert!(!j.exhausted);
    assert_eq!(j.parts.as_ref().unwrap().missing(), vec![2]);
    assert!(
        j.scope
            .as_deref()
            .unwrap()
            .contains("part 2 of 3 missing (2 workloads covered)"),
        "{:?}",
        j.scope
    );
}

fn a_violation_in_one_part_is_the_cases_violation() {
    // Three parts of three workloads: one each. The buggy variant breaks on some workloads
    // and holds on others.
    let parts: Vec<Report> = (1..=3)
        .map(|i| part_report("buggy", i, 3, 1_000_000))
        .collect();
    let violated: Vec<usize> = parts
        .iter()
        .filter(|r| r.verdict == Verdict::Violated)
        .map(|r| r.parts.as_ref().unwrap().present[0])
        .collect();
    assert!(!violated.is_empty());
    let first = parts
        .iter()
        .find(|r| r.verdict == Verdict::Violated)
        .unwrap()
        .clone();
    // Joined in any order, the verdict is the violation, with its counterexample.
    let mut reversed = parts.clone();
    reversed.reverse();
    for order in [parts, reversed] {
        let joined = join(order);
        let j = &joined[0];
        assert_eq!(j.verdict, Verdict::Violated);
        assert_eq!(j.invariant, first.invariant);
        assert_eq!(j.trace, first.trace);
        assert!(!j.exhausted);
        let scope = j.scope.as_deref().unwrap();
        assert!(scope.contains("violated in part"), "{scope}");
    }
}

fn reports_without_parts_pass_through() {
    let whole = explore(
        &HddsTemplate,
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
    assert!(whole.parts.is_none());
    assert!(whole.states.is_some_and(|s| s > 0));
    let joined = join(vec![whole.clone(), part_report("fixed", 1, 2, 1_000_000)]);
    assert_eq!(joined.len(), 2);
    assert_eq!(joined[0].scope, whole.scope);
}

/// This module's tests.
pub(crate) fn trials() -> Vec<libtest_mimic::Trial> {
    crate::trials![
        the_parts_of_a_generated_space_are_disjoint_and_cover_it,
        joined_parts_all_exhausted_hold_exhausted,
        a_part_not_exhausted_leaves_the_join_not_exhausted,
        a_missing_part_is_named_and_the_join_not_exhausted,
        a_violation_in_one_part_is_the_cases_violation,
        reports_without_parts_pass_through,
    ]
}
