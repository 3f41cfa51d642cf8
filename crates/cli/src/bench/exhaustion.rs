//! The exhaustion section of `bench/RESULTS.md`: every holding case exhausted under loom at
//! preemption bound 2, 3 and none (and by the stateful engine), and the smallest bound
//! that breaks each violating case. `ci/exhaustion.py` measures them into
//! `bench/exhaustion.json` (an earlier run may be kept as `bench/exhaustion-before.json`);
//! [`render`] writes the section from them, between [`BEGIN`] and [`END`].

use ozone_ha_check::engine::Reduction;
use ozone_ha_check::workload::Bounds;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Start of the section.
pub const BEGIN: &str = "<!-- exhaustion: begin (ci/exhaustion.py) -->";
/// End of the section.
pub const END: &str = "<!-- exhaustion: end -->";

/// One case and its explorations, as `ci/exhaustion.py` writes them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Case {
    /// Scenario.
    pub scenario: String,
    /// Variant.
    pub variant: String,
    /// Plan.
    pub plan: String,
    /// `holds` or `violates`.
    pub expected: String,
    /// One exploration per bound tried, in order.
    pub runs: Vec<Run>,
    /// For a `generated` plan, the largest bounds the stateful engine exhausted (none of them
    /// covered by another), when it was tried at smaller ones than the default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proven: Option<Vec<Bounds>>,
}

/// One exploration of a case.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Run {
    /// loom's preemption bound (`0` ... `3`, `none`), or `stateful` for that engine.
    pub bound: String,
    /// `violated`, `held` or `vacuous`.
    pub verdict: String,
    /// Executions explored.
    pub executions: u64,
    /// Whether every schedule was explored within the box.
    pub exhausted: bool,
    /// Milliseconds spent.
    pub ms: u64,
    /// The first violating execution.
    pub first_violation: Option<u64>,
    /// Scheduling points an execution passes, on average.
    pub points: f64,
    /// Distinct states met (the stateful engine).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub states: Option<u64>,
    /// Distinct final states its searches' executions ended in (the stateful engine; absent
    /// from runs made before it was counted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub final_states: Option<u64>,
    /// What the stateful engine's reductions saved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reduction: Option<Reduction>,
    /// Of the executions, those the stateful engine's random walks took.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub walks: Option<u64>,
    /// The stateful engine ran its unbounded search alone (`--unbounded-only`), without the
    /// deepening's passes and walks.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub alone: bool,
    /// The stateful engine's unbounded search explored source sets (`--source-sets`) rather
    /// than every state once.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sources: bool,
    /// The bounds of the generated space explored, when not its default ones.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests: Option<usize>,
    /// See `requests`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub faults: Option<usize>,
}

impl Case {
    fn key(&self) -> (&str, &str, &str) {
        (&self.scenario, &self.variant, &self.plan)
    }

    /// The exploration at `bound`, over the default space.
    pub(super) fn at(&self, bound: &str) -> Option<&Run> {
        self.runs
            .iter()
            .find(|r| r.bound == bound && r.requests.is_none())
    }

    fn holds(&self) -> bool {
        self.expected == "holds"
    }
}

/// `n` with a comma between thousands.
pub(super) fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A number of points as written in the table: at least one decimal.
fn points(p: f64) -> String {
    let s = p.to_string();
    if s.contains('.') {
        s
    } else {
        format!("{s}.0")
    }
}

/// An exploration as a cell: executions and seconds, or how far it got in its box;
/// `vacuous` first when no execution reached the race window the scenario requires.
fn cell(run: Option<&Run>) -> String {
    let Some(r) = run else {
        return "-".into();
    };
    let extent = if r.exhausted {
        format!(
            "{} in {:.1} s",
            thousands(r.executions),
            r.ms as f64 / 1000.0
        )
    } else {
        format!(
            "> {} (not done in {:.0} s)",
            thousands(r.executions),
            r.ms as f64 / 1000.0
        )
    };
    if r.verdict == "vacuous" {
        format!("vacuous: {extent}")
    } else {
        extent
    }
}

/// `n` things, in the plural unless one.
fn counted(n: usize, thing: &str) -> String {
    format!("{n} {thing}{}", if n == 1 { "" } else { "s" })
}

/// As [`cell`], with the states and executions per state of an exhausted stateful run
/// (its searches' executions: those of its random walks, which look no state up, are
/// counted apart).
pub(super) fn with_states(run: Option<&Run>) -> String {
    let mut text = cell(run);
    if let Some(r) = run.filter(|r| r.exhausted) {
        if let Some(states) = r.states.filter(|&n| n > 0) {
            let walks = r.walks.unwrap_or(0);
            let _ = write!(
                text,
                " ({} states, {:.2} per state",
                thousands(states),
                r.executions.saturating_sub(walks) as f64 / states as f64
            );
            if let Some(finals) = r.final_states.filter(|&n| n > 0) {
                let _ = write!(
                    text,
                    ", {} final, {:.2} per final state",
                    thousands(finals),
                    r.executions.saturating_sub(walks) as f64 / finals as f64
                );
            }
            if walks > 0 {
                let _ = write!(text, ", {} in walks", thousands(walks));
            }
            text.push(')');
        }
    }
    text
}

/// The stateful engine's exploration: as [`cell`], with the states and executions per state
/// of an exhausted one, and, for a generated space it did not exhaust, the largest smaller
/// spaces it did.
fn stateful_cell(case: Option<&Case>) -> String {
    let Some(case) = case else {
        return "-".into();
    };
    let mut text = with_states(case.at("stateful"));
    let smaller: Vec<String> = case
        .proven
        .iter()
        .flatten()
        .filter_map(|space| {
            let r = case.runs.iter().find(|r| {
                r.bound == "stateful"
                    && r.requests == Some(space.requests)
                    && r.faults == Some(space.faults)
            })?;
            Some(format!(
                "{}, {}: {}",
                counted(space.requests, "request"),
                counted(space.faults, "fault"),
                with_states(Some(r))
            ))
        })
        .collect();
    if !smaller.is_empty() {
        let _ = write!(text, "; exhausted at {}", smaller.join("; "));
    }
    text
}

/// What the stateful engine's reductions saved at the default bounds: the paths cut at a
/// state met before and at a complete one, the options left asleep, and those left after
/// exit steps.
fn reduction_cell(run: Option<&Run>) -> String {
    match run.and_then(|r| r.reduction) {
        Some(c) => format!(
            "{} / {} / {} / {}",
            thousands(c.revisits),
            thousands(c.complete),
            thousands(c.asleep),
            thousands(c.persistent)
        ),
        None => "-".into(),
    }
}

/// The stateful engine's time over loom's without a bound, when at least one of them
/// exhausted the case (a bound when the other was stopped by its box).
fn ratio(case: &Case) -> String {
    let (Some(s), Some(l)) = (case.at("stateful"), case.at("none")) else {
        return "-".into();
    };
    // A run under a millisecond counts as one: the ratio stays finite.
    let (ts, tl) = (s.ms.max(1) as f64, l.ms.max(1) as f64);
    match (s.exhausted, l.exhausted) {
        (true, true) => format!("{:.2}", ts / tl),
        (true, false) => format!("< {:.2}", ts / tl),
        (false, true) => format!("> {:.2}", ts / tl),
        (false, false) => "-".into(),
    }
}

/// The smallest bound that broke a case, and in which execution.
fn smallest(case: Option<&Case>) -> String {
    let Some(case) = case else {
        return "-".into();
    };
    match case.runs.iter().find(|r| r.verdict == "violated") {
        Some(r) => format!(
            "{} (execution {})",
            r.bound,
            r.first_violation
                .map_or_else(|| "None".into(), |n| n.to_string())
        ),
        None => "not found".into(),
    }
}

/// The time box of a run, in seconds: its longest exploration that was stopped.
pub(super) fn time_box(cases: &[Case]) -> u64 {
    let stopped = cases
        .iter()
        .flat_map(|c| &c.runs)
        .filter(|r| !r.exhausted && r.verdict != "violated")
        .map(|r| r.ms)
        .max()
        .unwrap_or(0);
    (stopped as f64 / 1000.0).round_ties_even() as u64
}

/// A Markdown table's heading and rule.
pub(super) fn head(out: &mut String, names: &[String]) {
    let _ = writeln!(
        out,
        "| {} |\n|{}",
        names.join(" | "),
        "---|".repeat(names.len())
    );
}

/// Whether an earlier run is given and its loom explorations differ from this one's. When
/// only the stateful engine's column was measured again, the file carries loom's runs over
/// and the tables show loom's columns once.
fn loom_changed(after: &[Case], before: &BTreeMap<(&str, &str, &str), &Case>) -> bool {
    let loom = |case: &Case| -> Vec<Run> {
        case.runs
            .iter()
            .filter(|r| r.bound != "stateful")
            .cloned()
            .collect()
    };
    !before.is_empty()
        && after
            .iter()
            .any(|c| before.get(&c.key()).is_none_or(|p| loom(p) != loom(c)))
}

/// The table of holding cases: executions to exhaust each at bound 2, 3 and none, before
/// and after when an earlier run is given, points per execution, the stateful engine.
fn holding_table(
    out: &mut String,
    after: &[Case],
    before: &BTreeMap<(&str, &str, &str), &Case>,
    compare: bool,
) {
    let stateful = after.iter().any(|c| c.at("stateful").is_some());
    let cuts = after
        .iter()
        .any(|c| c.at("stateful").is_some_and(|r| r.reduction.is_some()));
    let mut names: Vec<String> = ["scenario", "variant", "plan"].map(String::from).to_vec();
    for b in ["2", "3", "none"] {
        if compare {
            names.extend([format!("bound {b} before"), format!("bound {b} after")]);
        } else {
            names.push(format!("bound {b}"));
        }
    }
    if compare {
        names.extend([
            "points/execution before".into(),
            "points/execution after".into(),
        ]);
    } else {
        names.push("points/execution".into());
    }
    if stateful {
        if !before.is_empty() {
            names.push("stateful engine before".into());
        }
        names.extend([
            "stateful engine".into(),
            "stateful time / loom unbounded time".into(),
        ]);
        if cuts {
            names.push("stateful cuts: met before / complete / asleep / after exit steps".into());
        }
    }
    head(out, &names);
    for case in after.iter().filter(|c| c.holds()) {
        let prev = before.get(&case.key()).copied();
        let mut cells: Vec<String> = vec![
            case.scenario.clone(),
            case.variant.clone(),
            case.plan.clone(),
        ];
        for b in ["2", "3", "none"] {
            if compare {
                cells.push(cell(prev.and_then(|p| p.at(b))));
            }
            cells.push(cell(case.at(b)));
        }
        if compare {
            cells.push(
                prev.and_then(|p| p.at("2"))
                    .map_or("-".into(), |r| points(r.points)),
            );
        }
        cells.push(case.at("2").map_or("-".into(), |r| points(r.points)));
        if stateful {
            if !before.is_empty() {
                cells.push(stateful_cell(prev));
            }
            cells.extend([stateful_cell(Some(case)), ratio(case)]);
            if cuts {
                cells.push(reduction_cell(case.at("stateful")));
            }
        }
        let _ = writeln!(out, "| {} |", cells.join(" | "));
    }
}

/// The table of violating cases: the smallest bound that breaks each.
fn violating_table(
    out: &mut String,
    after: &[Case],
    before: &BTreeMap<(&str, &str, &str), &Case>,
    compare: bool,
) {
    let mut names: Vec<String> = ["scenario", "variant", "plan"].map(String::from).to_vec();
    if compare {
        names.extend(["before".into(), "after".into()]);
    } else {
        names.push("bound".into());
    }
    head(out, &names);
    for case in after.iter().filter(|c| !c.holds()) {
        let mut cells = vec![
            case.scenario.clone(),
            case.variant.clone(),
            case.plan.clone(),
        ];
        if compare {
            cells.push(smallest(before.get(&case.key()).copied()));
        }
        cells.push(smallest(Some(case)));
        let _ = writeln!(out, "| {} |", cells.join(" | "));
    }
}

/// The section, markers included, from the cases measured (`after`) and an earlier run
/// (`before`, empty when there is none).
pub fn render(after: &[Case], before: &[Case]) -> String {
    let old: BTreeMap<_, _> = before.iter().map(|c| (c.key(), c)).collect();
    let compare = loom_changed(after, &old);
    let mut out = format!(
        "{BEGIN}\n\n## Exhausting the holding cases: loom at bound 2, 3 and none; the stateful engine\n\n\
         Made by `ci/exhaustion.py`; every exploration is boxed at {} s (a cell that was stopped \
         says after how long). \"Points\" are the scheduling points an execution passes (the \
         facade's count, what loom branches on). The stateful engine's cell gives, for a \
         case it exhausted, the distinct states it met and its searches' executions per \
         state, and, where counted, the distinct final states its searches' executions \
         ended in and their executions per final state: a reduction that keeps every final \
         state runs at least one execution for each, so that figure bounds what a \
         partial-order reduction could still save (its random walks' executions, counted in \
         the total, are given apart); for \
         a `generated` plan it did not exhaust at the default bounds, the largest smaller \
         spaces it did; the last column is its time over loom's without a bound (`<` when \
         the box stopped loom, `>` when it stopped the stateful engine). A cell that begins \
         `vacuous:` reached no race window the scenario requires: it proves nothing about the \
         fix, and a vacuous smaller space is not given as proven. Where measured, the last \
         column counts what the stateful engine's reductions saved at the default bounds: \
         paths cut at a state met before (state caching) and at a complete state, options \
         left asleep (sleep sets), and options left once a thread's last steps and woken \
         joins were explored (persistent sets), each a subtree not explored. ",
        time_box(after)
    );
    let every = |cases: &[Case], said: fn(&Run) -> bool| {
        let mut runs = cases.iter().flat_map(|c| &c.runs);
        let mut stateful = runs.by_ref().filter(|r| r.bound == "stateful").peekable();
        stateful.peek().is_some() && stateful.all(said)
    };
    let alone = |cases: &[Case]| every(cases, |r| r.alone);
    let sources = |cases: &[Case]| every(cases, |r| r.sources);
    if alone(after) {
        out.push_str(
            "The stateful engine ran its unbounded search alone (`ci/exhaustion.py \
             --unbounded-only`: no bounded passes or random walks beside it, which look for \
             violations early and prove nothing the search alone does not). ",
        );
    }
    if sources(after) {
        out.push_str(
            "That search explored source sets (`--source-sets`: a dynamic partial-order \
             reduction that keeps no states and aims at one execution per final state) \
             rather than every state once; its states are those its executions passed. ",
        );
    }
    if !before.is_empty() {
        let _ = write!(
            out,
            "\"Before\" is an earlier run, `bench/exhaustion-before.json` (boxed at {} s{}).",
            time_box(before),
            if alone(after) && !alone(before) {
                "; its stateful engine ran the deepening beside the unbounded search"
            } else if sources(after) && !sources(before) {
                "; its stateful engine searched every state once"
            } else {
                ""
            }
        );
        if !compare {
            out.push_str(
                " Both files hold the same loom runs (only the stateful engine was measured \
                 again), so loom's columns are shown once.",
            );
        }
    }
    out.push_str("\n\n");
    holding_table(&mut out, after, &old, compare);
    out.push_str("\n### Smallest preemption bound that breaks each violating case\n\n");
    violating_table(&mut out, after, &old, compare);
    let _ = writeln!(out, "\n{END}");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_and_points_are_written_as_the_table_has_them() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(6929), "6,929");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(points(60.0), "60.0");
        assert_eq!(points(54.9), "54.9");
    }

    fn run(bound: &str, executions: u64, exhausted: bool, ms: u64) -> Run {
        Run {
            bound: bound.into(),
            verdict: "held".into(),
            executions,
            exhausted,
            ms,
            first_violation: None,
            points: 10.0,
            states: None,
            final_states: None,
            reduction: None,
            walks: None,
            alone: false,
            sources: false,
            requests: None,
            faults: None,
        }
    }

    #[test]
    fn the_stateful_cell_gives_states_and_the_smaller_spaces_proven() {
        let mut default = run("stateful", 900, false, 60_000);
        default.states = Some(800);
        let mut smaller = run("stateful", 14_117, true, 1_200);
        smaller.states = Some(9_269);
        (smaller.requests, smaller.faults) = (Some(2), Some(1));
        let case = Case {
            scenario: "s".into(),
            variant: "fixed".into(),
            plan: "generated".into(),
            expected: "holds".into(),
            runs: vec![default, smaller, run("none", 50, true, 30_000)],
            proven: Some(vec![Bounds {
                requests: 2,
                faults: 1,
            }]),
        };
        assert_eq!(
            stateful_cell(Some(&case)),
            "> 900 (not done in 60 s); exhausted at 2 requests, 1 fault: 14,117 in 1.2 s \
             (9,269 states, 1.52 per state)"
        );
        assert_eq!(ratio(&case), "> 2.00");
        let mut only = case.clone();
        only.runs[0] = only.runs[1].clone();
        only.runs[0].requests = None;
        only.proven = None;
        assert_eq!(
            stateful_cell(Some(&only)),
            "14,117 in 1.2 s (9,269 states, 1.52 per state)"
        );
        assert_eq!(ratio(&only), "0.04");
        only.runs[0].verdict = "vacuous".into();
        assert_eq!(
            stateful_cell(Some(&only)),
            "vacuous: 14,117 in 1.2 s (9,269 states, 1.52 per state)"
        );
    }

    #[test]
    fn the_reductions_get_a_column_once_a_stateful_run_has_them() {
        let mut stateful = run("stateful", 900, true, 1_000);
        let case = Case {
            scenario: "s".into(),
            variant: "fixed".into(),
            plan: "p".into(),
            expected: "holds".into(),
            runs: vec![run("none", 10, true, 5), stateful.clone()],
            proven: None,
        };
        assert!(!render(std::slice::from_ref(&case), &[]).contains("stateful cuts"));
        stateful.reduction = Some(Reduction {
            revisits: 1_234,
            complete: 5,
            asleep: 67_890,
            persistent: 12,
            sources: 0,
        });
        let mut counted = case.clone();
        counted.runs[1] = stateful;
        let table = render(&[counted], &[]);
        assert!(
            table.contains("| stateful cuts: met before / complete / asleep / after exit steps |"),
            "{table}"
        );
        assert!(table.contains("| 1,234 / 5 / 67,890 / 12 |"), "{table}");
    }

    #[test]
    fn executions_per_state_count_the_searches_and_the_walks_apart() {
        let mut stateful = run("stateful", 1_500, true, 1_000);
        stateful.states = Some(800);
        assert_eq!(
            with_states(Some(&stateful)),
            "1,500 in 1.0 s (800 states, 1.88 per state)"
        );
        stateful.walks = Some(700);
        assert_eq!(
            with_states(Some(&stateful)),
            "1,500 in 1.0 s (800 states, 1.00 per state, 700 in walks)"
        );
        stateful.final_states = Some(40);
        assert_eq!(
            with_states(Some(&stateful)),
            "1,500 in 1.0 s (800 states, 1.00 per state, 40 final, 20.00 per final state, \
             700 in walks)"
        );
    }

    #[test]
    fn loom_columns_are_shown_once_when_both_runs_hold_the_same_loom_runs() {
        let mut stateful = run("stateful", 900, true, 1_000);
        stateful.states = Some(800);
        let case = Case {
            scenario: "s".into(),
            variant: "fixed".into(),
            plan: "p".into(),
            expected: "holds".into(),
            runs: vec![run("2", 10, true, 5), stateful.clone()],
            proven: None,
        };
        let mut before = case.clone();
        before.runs[1].executions = 1_800;
        let carried = render(std::slice::from_ref(&case), std::slice::from_ref(&before));
        assert!(!carried.contains("bound 2 before"), "{carried}");
        assert!(carried.contains("stateful engine before"), "{carried}");
        assert!(
            carried.contains("loom's columns are shown once"),
            "{carried}"
        );
        before.runs[0].executions = 20;
        let remeasured = render(&[case], &[before]);
        assert!(remeasured.contains("bound 2 before"), "{remeasured}");
        assert!(!remeasured.contains("shown once"), "{remeasured}");
    }

    /// A holding case whose stateful run was made with `--unbounded-only` (`alone`) and
    /// `--source-sets` (`sources`) or without.
    fn stateful_case(alone: bool, sources: bool) -> Case {
        let mut stateful = run("stateful", 900, true, 1_000);
        stateful.alone = alone;
        stateful.sources = sources;
        Case {
            scenario: "s".into(),
            variant: "fixed".into(),
            plan: "p".into(),
            expected: "holds".into(),
            runs: vec![run("2", 10, true, 5), stateful],
            proven: None,
        }
    }

    #[test]
    fn the_header_says_when_the_stateful_engine_ran_its_search_alone() {
        let case = |alone: bool| stateful_case(alone, false);
        let said = "ran its unbounded search alone";
        let now_alone = render(&[case(true)], &[case(false)]);
        assert!(now_alone.contains(said), "{now_alone}");
        assert!(now_alone.contains("the deepening beside"), "{now_alone}");
        let both_alone = render(&[case(true)], &[case(true)]);
        assert!(!both_alone.contains("the deepening beside"), "{both_alone}");
        let neither = render(&[case(false)], &[]);
        assert!(!neither.contains(said), "{neither}");
    }

    #[test]
    fn the_header_says_when_the_search_explored_source_sets() {
        let case = |sources: bool| stateful_case(true, sources);
        let said = "explored source sets";
        let now = render(&[case(true)], &[case(false)]);
        assert!(now.contains(said), "{now}");
        assert!(now.contains("searched every state once"), "{now}");
        let both = render(&[case(true)], &[case(true)]);
        assert!(!both.contains("searched every state once"), "{both}");
        let neither = render(&[case(false)], &[]);
        assert!(!neither.contains(said), "{neither}");
    }
}
