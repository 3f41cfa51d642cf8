//! The exhaustion section of `bench/RESULTS.md`: every holding case exhausted under loom at
//! preemption bound 2, 3 and none (and by the stateful engine), and the smallest bound
//! that breaks each violating case. `ci/exhaustion.py` measures them into
//! `bench/exhaustion.json` (an earlier run may be kept as `bench/exhaustion-before.json`);
//! [`render`] writes the section from them, between [`BEGIN`] and [`END`].

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
}

impl Case {
    fn key(&self) -> (&str, &str, &str) {
        (&self.scenario, &self.variant, &self.plan)
    }

    fn at(&self, bound: &str) -> Option<&Run> {
        self.runs.iter().find(|r| r.bound == bound)
    }

    fn holds(&self) -> bool {
        self.expected == "holds"
    }
}

/// `n` with a comma between thousands.
fn thousands(n: u64) -> String {
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

/// An exploration as a cell: executions and seconds, or how far it got in its box.
fn cell(run: Option<&Run>) -> String {
    match run {
        None => "-".into(),
        Some(r) if r.exhausted => format!(
            "{} in {:.1} s",
            thousands(r.executions),
            r.ms as f64 / 1000.0
        ),
        Some(r) => format!(
            "> {} (not done in {:.0} s)",
            thousands(r.executions),
            r.ms as f64 / 1000.0
        ),
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
fn time_box(cases: &[Case]) -> u64 {
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
fn head(out: &mut String, names: &[String]) {
    let _ = writeln!(
        out,
        "| {} |\n|{}",
        names.join(" | "),
        "---|".repeat(names.len())
    );
}

/// The table of holding cases: executions to exhaust each at bound 2, 3 and none, before
/// and after when an earlier run is given, points per execution, the stateful engine.
fn holding_table(out: &mut String, after: &[Case], before: &BTreeMap<(&str, &str, &str), &Case>) {
    let compare = !before.is_empty();
    let stateful = after.iter().any(|c| c.at("stateful").is_some());
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
        names.push("stateful engine".into());
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
            cells.push(cell(case.at("stateful")));
        }
        let _ = writeln!(out, "| {} |", cells.join(" | "));
    }
}

/// The table of violating cases: the smallest bound that breaks each.
fn violating_table(out: &mut String, after: &[Case], before: &BTreeMap<(&str, &str, &str), &Case>) {
    let compare = !before.is_empty();
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
    let mut out = format!(
        "{BEGIN}\n\n## Exhausting the holding cases: loom at bound 2, 3 and none; the stateful engine\n\n\
         Made by `ci/exhaustion.py`; every exploration is boxed at {} s (a cell that was stopped \
         says after how long). \"Points\" are the scheduling points an execution passes (the \
         facade's count, what loom branches on). ",
        time_box(after)
    );
    if !before.is_empty() {
        let _ = write!(
            out,
            "\"Before\" is the earlier run given as `--before` (boxed at {} s).",
            time_box(before)
        );
    }
    out.push_str("\n\n");
    holding_table(&mut out, after, &old);
    out.push_str("\n### Smallest preemption bound that breaks each violating case\n\n");
    violating_table(&mut out, after, &old);
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
}
