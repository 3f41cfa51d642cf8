//! Per scenario, the verdict matrix: variants as rows, plans as columns, and in each cell
//! every engine's verdict, by colour and by word, with the invariant that broke. A cell
//! whose verdict is not the expected one carries a red `UNEXPECTED` bar saying what was
//! expected. Each cell links to its case's details, and each violation to its diagram.

use super::html::{anchor, escape};
use super::Outcome;
use crate::explore::Report;
use crate::scenarios::{self, Named};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// A row or column heading.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Heading {
    /// The variant's or plan's name.
    pub name: String,
    /// Its one-line description (empty for a scenario this build does not know).
    pub doc: String,
}

/// One scenario's matrix.
#[derive(Clone, Debug)]
pub struct Matrix<'a> {
    /// The scenario.
    pub scenario: String,
    /// Its Jira issue and title, when this build knows it.
    pub about: Option<(&'static str, &'static str)>,
    /// Rows: the variants that have reports, in the scenario's order.
    pub variants: Vec<Heading>,
    /// Columns: the plans that have reports, in the scenario's order.
    pub plans: Vec<Heading>,
    /// The reports of each (variant, plan), with their positions in the whole list.
    pub cells: BTreeMap<(String, String), Vec<(usize, &'a Report)>>,
}

/// The reports of one engine within a [`Verdict`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineRuns {
    /// The engine.
    pub engine: String,
    /// How many of its reports (seeds).
    pub count: usize,
    /// The position of the first of them in the whole list of reports.
    pub first: usize,
}

/// What one cell shows for the reports that agree: the same outcome, the same broken
/// invariant, and both expected or both not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// Their outcome.
    pub outcome: Outcome,
    /// The invariant that broke.
    pub invariant: Option<String>,
    /// Whether these verdicts are the expected ones.
    pub expected: bool,
    /// The engines that gave it, in the order the reports came.
    pub engines: Vec<EngineRuns>,
}

impl Matrix<'_> {
    /// The verdicts of one cell, in the order the reports came.
    pub fn verdicts(&self, variant: &str, plan: &str) -> Vec<Verdict> {
        let mut out: Vec<Verdict> = Vec::new();
        for (i, r) in self
            .cells
            .get(&(variant.to_string(), plan.to_string()))
            .into_iter()
            .flatten()
        {
            let (outcome, expected) = (Outcome::of(r), r.as_expected());
            let at = match out.iter().position(|o| {
                (o.outcome, &o.invariant, o.expected) == (outcome, &r.invariant, expected)
            }) {
                Some(at) => at,
                None => {
                    out.push(Verdict {
                        outcome,
                        invariant: r.invariant.clone(),
                        expected,
                        engines: Vec::new(),
                    });
                    out.len() - 1
                }
            };
            let engines = &mut out[at].engines;
            match engines.iter_mut().find(|e| e.engine == r.engine.name()) {
                Some(e) => e.count += 1,
                None => engines.push(EngineRuns {
                    engine: r.engine.to_string(),
                    count: 1,
                    first: *i,
                }),
            }
        }
        out
    }
}

fn headings(known: Option<Vec<Named>>, seen: &[String]) -> Vec<Heading> {
    let mut out: Vec<Heading> = known
        .unwrap_or_default()
        .into_iter()
        .filter(|n| seen.iter().any(|s| s == n.name))
        .map(|n| Heading {
            name: n.name.to_string(),
            doc: n.doc.to_string(),
        })
        .collect();
    for s in seen {
        if !out.iter().any(|h| &h.name == s) {
            out.push(Heading {
                name: s.clone(),
                doc: String::new(),
            });
        }
    }
    out
}

/// One matrix per scenario of `reports`, in the registry's order (scenarios this build
/// does not know, from merged files, after them in the order they came).
pub fn matrices(reports: &[Report]) -> Vec<Matrix<'_>> {
    let mut names: Vec<String> = Vec::new();
    for r in reports {
        if !names.contains(&r.scenario) {
            names.push(r.scenario.clone());
        }
    }
    let order = |n: &String| {
        scenarios::all()
            .iter()
            .position(|s| s.name() == n)
            .unwrap_or(usize::MAX)
    };
    names.sort_by_key(order);
    names
        .into_iter()
        .map(|name| {
            let known = scenarios::find(&name);
            let mine: Vec<(usize, &Report)> = reports
                .iter()
                .enumerate()
                .filter(|(_, r)| r.scenario == name)
                .collect();
            let mut variants: Vec<String> = Vec::new();
            let mut plans: Vec<String> = Vec::new();
            let mut cells: BTreeMap<(String, String), Vec<(usize, &Report)>> = BTreeMap::new();
            for (i, r) in mine {
                if !variants.contains(&r.variant) {
                    variants.push(r.variant.clone());
                }
                if !plans.contains(&r.plan) {
                    plans.push(r.plan.clone());
                }
                cells
                    .entry((r.variant.clone(), r.plan.clone()))
                    .or_default()
                    .push((i, r));
            }
            Matrix {
                about: known.map(|s| (s.jira(), s.title())),
                variants: headings(known.map(|s| s.variants()), &variants),
                plans: headings(known.map(|s| s.plans()), &plans),
                scenario: name,
                cells,
            }
        })
        .collect()
}

/// The anchor of a case's details.
pub fn case_anchor(scenario: &str, variant: &str, plan: &str) -> String {
    anchor(&format!("case-{scenario}--{variant}--{plan}"))
}

/// The matrix as an HTML table. `diagram` gives the anchor of the diagram that shows the
/// report at a position, if one does.
pub fn html(m: &Matrix<'_>, diagram: &dyn Fn(usize) -> Option<String>) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<table class=\"matrix\" id=\"{}\">",
        anchor(&format!("matrix-{}", m.scenario))
    );
    let _ = writeln!(
        out,
        "<caption>{}: variants (rows) by plans (columns)</caption>",
        escape(&m.scenario)
    );
    out.push_str("<thead><tr><th scope=\"col\" class=\"corner\">variant \\ plan</th>");
    for p in &m.plans {
        let _ = write!(
            out,
            "<th scope=\"col\"><span class=\"name\">{}</span><span class=\"doc\">{}</span></th>",
            escape(&p.name),
            escape(&p.doc)
        );
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for v in &m.variants {
        let _ = write!(
            out,
            "<tr><th scope=\"row\"><span class=\"name\">{}</span><span class=\"doc\">{}</span></th>",
            escape(&v.name),
            escape(&v.doc)
        );
        for p in &m.plans {
            out.push_str(&cell(m, &v.name, &p.name, diagram));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table>\n");
    out
}

fn cell(
    m: &Matrix<'_>,
    variant: &str,
    plan: &str,
    diagram: &dyn Fn(usize) -> Option<String>,
) -> String {
    let verdicts = m.verdicts(variant, plan);
    if verdicts.is_empty() {
        return "<td class=\"cell none\">not run</td>".to_string();
    }
    let outcomes: Vec<Outcome> = verdicts.iter().map(|v| v.outcome).collect();
    let class = if outcomes.iter().all(|o| *o == outcomes[0]) {
        outcomes[0].class()
    } else {
        "mixed"
    };
    let unexpected = verdicts.iter().any(|v| !v.expected);
    let reports = &m.cells[&(variant.to_string(), plan.to_string())];
    let mut out = format!(
        "<td class=\"cell {class}{}\">",
        if unexpected { " unexpected" } else { "" }
    );
    if unexpected {
        let r = reports
            .iter()
            .map(|(_, r)| *r)
            .find(|r| !r.as_expected())
            .unwrap_or(reports[0].1);
        let invariants = if r.expected_invariants.is_empty() {
            String::new()
        } else {
            format!(" ({})", r.expected_invariants.join(", "))
        };
        let _ = write!(
            out,
            "<strong class=\"mark\">⚠ UNEXPECTED: expected {}{}</strong>",
            r.expected.word(),
            escape(&invariants)
        );
    }
    out.push_str("<ul class=\"verdicts\">");
    for v in &verdicts {
        let engines: Vec<String> = v
            .engines
            .iter()
            .map(|e| {
                let times = if e.count > 1 {
                    format!(" ×{}", e.count)
                } else {
                    String::new()
                };
                let name = format!("{}{times}", escape(&e.engine));
                match diagram(e.first) {
                    Some(a) => format!("<a class=\"to-diagram\" href=\"#{a}\">{name}</a>"),
                    None => name,
                }
            })
            .collect();
        let mark = if v.expected {
            ""
        } else {
            " <span class=\"bad\">✗ unexpected</span>"
        };
        let invariant = v
            .invariant
            .as_ref()
            .map(|i| format!("<span class=\"inv\">{}</span>", escape(i)))
            .unwrap_or_default();
        let _ = write!(
            out,
            "<li><span class=\"chip {}\">{}</span> <span class=\"engine\">{}</span>{mark}{invariant}</li>",
            v.outcome.class(),
            v.outcome.word(),
            engines.join(" · ")
        );
    }
    let _ = write!(
        out,
        "</ul><a class=\"details\" href=\"#{}\">details ›</a></td>",
        case_anchor(&m.scenario, variant, plan)
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Engine;
    use crate::explore::{Expectation, Verdict as V};

    pub(crate) fn report(variant: &str, plan: &str, engine: Engine, verdict: V) -> Report {
        let violated = verdict == V::Violated;
        Report {
            scenario: "hdds-16092".into(),
            variant: variant.into(),
            plan: plan.into(),
            engine,
            expected: if variant == "fixed" {
                Expectation::Holds
            } else {
                Expectation::Violates
            },
            expected_invariants: if variant == "fixed" {
                Vec::new()
            } else {
                vec!["TxIndexMonotone".into()]
            },
            verdict,
            invariant: violated.then(|| "TxIndexMonotone".into()),
            detail: violated.then(|| "persisted TX went 3 -> 2".into()),
            violation_step: violated.then_some(0),
            executions: 10,
            first_violation: violated.then_some(3),
            violations: usize::from(violated),
            exhausted: false,
            elapsed_ms: 5,
            seed: Some(0),
            settings: String::new(),
            schedule: None,
            context_switches: None,
            trace: Vec::new(),
            probes: BTreeMap::new(),
            probe_executions: BTreeMap::new(),
            watched: None,
            minimized: None,
            size: None,
            out_of_time: false,
            decisions_per_execution: None,
            tasks: None,
            switches: None,
        }
    }

    #[test]
    fn rows_and_columns_follow_the_scenario_and_cells_group_engines() {
        let reports = vec![
            report("fixed", "steady", Engine::Pct, V::Held),
            report("buggy", "restart", Engine::Pct, V::Violated),
            report("buggy", "steady", Engine::Random, V::Violated),
            report("buggy", "steady", Engine::Pct, V::Violated),
            report("buggy", "steady", Engine::Pct, V::Violated),
        ];
        let m = matrices(&reports);
        assert_eq!(m.len(), 1);
        let names = |h: &[Heading]| h.iter().map(|h| h.name.clone()).collect::<Vec<_>>();
        assert_eq!(names(&m[0].variants), ["buggy", "fixed"]);
        assert_eq!(names(&m[0].plans), ["steady", "restart"]);
        let cell = m[0].verdicts("buggy", "steady");
        assert_eq!(cell.len(), 1, "both engines broke the same invariant");
        let e = &cell[0].engines;
        assert_eq!(
            (e[0].engine.as_str(), e[0].count, e[0].first),
            ("random", 1, 2)
        );
        assert_eq!(
            (e[1].engine.as_str(), e[1].count, e[1].first),
            ("pct", 2, 3)
        );
        let page = html(&m[0], &|i| Some(format!("cx-{i}")));
        assert_eq!(page.matches("<td class=\"cell").count(), 4);
        assert!(page.contains("<td class=\"cell none\">not run</td>"));
        assert!(page.contains("href=\"#cx-2\""));
        assert!(!page.contains("UNEXPECTED"));
    }

    #[test]
    fn an_unexpected_verdict_cannot_be_missed() {
        let reports = vec![report("fixed", "steady", Engine::Pct, V::Violated)];
        let m = matrices(&reports);
        let page = html(&m[0], &|_| None);
        assert!(page.contains("class=\"cell violated unexpected\""));
        assert!(page.contains("⚠ UNEXPECTED: expected holds"));
        assert!(page.contains("✗ unexpected"));
    }
}
