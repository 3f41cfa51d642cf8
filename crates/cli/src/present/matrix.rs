//! Per scenario, the verdict matrix: variants as rows, plans as columns, and in each cell
//! every engine's verdict, by colour and by word, with the invariant that broke. A cell
//! whose verdict is not the expected one carries a red `UNEXPECTED` bar saying what was
//! expected. Each cell links to its case's details, and each violation to its diagram.
//!
//! [`html`] draws a matrix for the page; [`svg`] draws matrices as one picture (for a
//! README, where a page cannot be embedded): `report --format svg-matrix`.

use super::html::{anchor, escape};
use super::Outcome;
use ozone_ha_check::explore::Report;
use ozone_ha_check::scenarios::{self, Named};
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

/// Colours of an outcome: cell background, chip border, chip text.
fn colours(o: Outcome) -> (&'static str, &'static str, &'static str) {
    match o {
        Outcome::Violated => ("#fde4e2", "#d9807c", "#9b1111"),
        Outcome::Held => ("#e2f3e5", "#76b886", "#17622a"),
        Outcome::Vacuous => ("#fff3d1", "#d8b25a", "#7d5200"),
        Outcome::NotWitnessed => ("#eceff3", "#9ba6b4", "#46505d"),
    }
}

/// Matrices drawn as one SVG picture, one under the other, with a legend: the same cells
/// as the page (colour and word per verdict, engines, broken invariant, a red
/// `UNEXPECTED` bar), without the links.
pub fn svg(matrices: &[Matrix<'_>]) -> String {
    use super::svg::{text_width, wrap};
    const MONO: &str = "DejaVu Sans Mono, Menlo, Consolas, Liberation Mono, monospace";
    let (margin, head_w, line) = (12.0, 210.0, 15.0);
    let plans = matrices
        .iter()
        .map(|m| m.plans.len())
        .max()
        .unwrap_or(1)
        .max(1);
    let col_w = ((1180.0 - 2.0 * margin - head_w) / plans as f64).clamp(200.0, 320.0);
    let width = 2.0 * margin + head_w + plans as f64 * col_w;
    let mut body = String::new();
    let mut y = margin;
    let text = |out: &mut String, x: f64, y: f64, size: f64, attrs: &str, t: &str| {
        let _ = writeln!(
            out,
            "<text x=\"{x:.1}\" y=\"{y:.1}\" font-size=\"{size}\" {attrs}>{}</text>",
            escape(t)
        );
    };
    // Lines of at most `max` lines of `t` in `w` pixels at `size`.
    let lines = |t: &str, w: f64, size: f64, max: usize| -> Vec<String> {
        let mut l = wrap(t, w, size);
        if l.len() > max {
            l.truncate(max);
            if let Some(last) = l.last_mut() {
                while !last.is_empty() && text_width(&format!("{last}…"), size) > w {
                    last.pop();
                }
                last.push('…');
            }
        }
        l
    };
    for m in matrices {
        let title = match m.about {
            Some((jira, t)) => format!("{} ({jira}): {t}", m.scenario),
            None => m.scenario.clone(),
        };
        for t in lines(&title, width - 2.0 * margin, 14.0, 2) {
            y += 18.0;
            text(
                &mut body,
                margin,
                y,
                14.0,
                "font-weight=\"bold\" fill=\"#1d2430\"",
                &t,
            );
        }
        y += 8.0;
        // Column headings.
        let docs: Vec<Vec<String>> = m
            .plans
            .iter()
            .map(|p| lines(&p.doc, col_w - 12.0, 10.0, 3))
            .collect();
        let head_h = 10.0 + line + docs.iter().map(Vec::len).max().unwrap_or(0) as f64 * 12.5 + 6.0;
        let _ = writeln!(
            body,
            "<rect x=\"{margin}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{head_h:.1}\" fill=\"#eef2f7\" stroke=\"#c4ccd8\"/>",
            head_w + m.plans.len() as f64 * col_w
        );
        text(
            &mut body,
            margin + 6.0,
            y + 18.0,
            11.0,
            "fill=\"#5b6573\"",
            "variant \\ plan",
        );
        for (j, p) in m.plans.iter().enumerate() {
            let x = margin + head_w + j as f64 * col_w;
            let _ = writeln!(
                body,
                "<line x1=\"{x:.1}\" y1=\"{y:.1}\" x2=\"{x:.1}\" y2=\"{:.1}\" stroke=\"#c4ccd8\"/>",
                y + head_h
            );
            text(
                &mut body,
                x + 6.0,
                y + 18.0,
                12.5,
                "font-weight=\"bold\" fill=\"#1d2430\"",
                &p.name,
            );
            for (k, d) in docs[j].iter().enumerate() {
                text(
                    &mut body,
                    x + 6.0,
                    y + 32.0 + k as f64 * 12.5,
                    10.0,
                    "fill=\"#5b6573\"",
                    d,
                );
            }
        }
        y += head_h;
        for v in &m.variants {
            let vdoc = lines(&v.doc, head_w - 12.0, 10.0, 4);
            let cells: Vec<Vec<Verdict>> = m
                .plans
                .iter()
                .map(|p| m.verdicts(&v.name, &p.name))
                .collect();
            let cell_h = |vs: &Vec<Verdict>| -> f64 {
                let bar = if vs.iter().any(|v| !v.expected) {
                    22.0
                } else {
                    0.0
                };
                8.0 + bar
                    + vs.iter()
                        .map(|v| 22.0 + if v.invariant.is_some() { 13.0 } else { 0.0 })
                        .sum::<f64>()
            };
            let row_h = cells
                .iter()
                .map(cell_h)
                .fold(24.0 + vdoc.len() as f64 * 12.5, f64::max)
                .max(40.0);
            let _ = writeln!(
                body,
                "<rect x=\"{margin}\" y=\"{y:.1}\" width=\"{head_w}\" height=\"{row_h:.1}\" fill=\"#f6f8fb\" stroke=\"#c4ccd8\"/>"
            );
            text(
                &mut body,
                margin + 6.0,
                y + 17.0,
                12.5,
                "font-weight=\"bold\" fill=\"#1d2430\"",
                &v.name,
            );
            for (k, d) in vdoc.iter().enumerate() {
                text(
                    &mut body,
                    margin + 6.0,
                    y + 31.0 + k as f64 * 12.5,
                    10.0,
                    "fill=\"#5b6573\"",
                    d,
                );
            }
            for (j, vs) in cells.iter().enumerate() {
                let x = margin + head_w + j as f64 * col_w;
                let outcome = vs.first().map(|v| v.outcome);
                let same = vs.iter().all(|v| Some(v.outcome) == outcome);
                let fill = match outcome {
                    Some(o) if same => colours(o).0,
                    _ => "#ffffff",
                };
                let _ = writeln!(
                    body,
                    "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{col_w:.1}\" height=\"{row_h:.1}\" fill=\"{fill}\" stroke=\"#c4ccd8\"/>"
                );
                let mut cy = y + 6.0;
                if vs.iter().any(|v| !v.expected) {
                    let _ = writeln!(
                        body,
                        "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"none\" stroke=\"#d00000\" stroke-width=\"4\"/><rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"18\" fill=\"#d00000\"/>",
                        x + 2.0, y + 2.0, col_w - 4.0, row_h - 4.0, x + 2.0, y + 2.0, col_w - 4.0
                    );
                    let r = m.cells[&(v.name.clone(), m.plans[j].name.clone())]
                        .iter()
                        .map(|(_, r)| *r)
                        .find(|r| !r.as_expected());
                    let what = format!(
                        "⚠ UNEXPECTED: expected {}",
                        r.map_or("-", |r| r.expected.word())
                    );
                    let t = lines(&what, col_w - 16.0, 11.0, 1);
                    text(
                        &mut body,
                        x + 8.0,
                        y + 15.0,
                        11.0,
                        "font-weight=\"bold\" fill=\"#ffffff\"",
                        &t[0],
                    );
                    cy += 22.0;
                }
                if vs.is_empty() {
                    text(
                        &mut body,
                        x + 8.0,
                        y + 20.0,
                        11.0,
                        "font-style=\"italic\" fill=\"#8a93a0\"",
                        "not run",
                    );
                }
                for v in vs {
                    let (_, border, ink) = colours(v.outcome);
                    let word = v.outcome.word();
                    let chip_w = text_width(word, 12.0) + 10.0;
                    let _ = writeln!(
                        body,
                        "<rect x=\"{:.1}\" y=\"{cy:.1}\" width=\"{chip_w:.1}\" height=\"18\" rx=\"3\" fill=\"#ffffff\" stroke=\"{border}\"/>",
                        x + 8.0
                    );
                    text(
                        &mut body,
                        x + 13.0,
                        cy + 13.5,
                        12.0,
                        &format!("font-weight=\"bold\" fill=\"{ink}\""),
                        word,
                    );
                    let engines: Vec<String> = v
                        .engines
                        .iter()
                        .map(|e| {
                            if e.count > 1 {
                                format!("{} ×{}", e.engine, e.count)
                            } else {
                                e.engine.clone()
                            }
                        })
                        .collect();
                    let mut rest = engines.join(" · ");
                    if !v.expected {
                        rest.push_str(" ✗ unexpected");
                    }
                    let room = col_w - chip_w - 26.0;
                    let t = lines(&rest, room, 11.0, 1);
                    text(
                        &mut body,
                        x + 16.0 + chip_w,
                        cy + 13.0,
                        11.0,
                        if v.expected {
                            "fill=\"#33404f\""
                        } else {
                            "fill=\"#b00000\" font-weight=\"bold\""
                        },
                        &t[0],
                    );
                    cy += 22.0;
                    if let Some(i) = &v.invariant {
                        let t = lines(i, col_w - 20.0, 10.5, 1);
                        text(
                            &mut body,
                            x + 10.0,
                            cy + 6.0,
                            10.5,
                            "fill=\"#33404f\"",
                            &t[0],
                        );
                        cy += 13.0;
                    }
                }
            }
            y += row_h;
        }
        y += 18.0;
    }
    // The legend.
    let mut x = margin;
    y += 6.0;
    for o in Outcome::ALL {
        let (_, border, ink) = colours(o);
        let w = text_width(o.word(), 12.0) + 10.0;
        let _ = writeln!(
            body,
            "<rect x=\"{x:.1}\" y=\"{:.1}\" width=\"{w:.1}\" height=\"18\" rx=\"3\" fill=\"#ffffff\" stroke=\"{border}\"/>",
            y - 13.5
        );
        text(
            &mut body,
            x + 5.0,
            y,
            12.0,
            &format!("font-weight=\"bold\" fill=\"{ink}\""),
            o.word(),
        );
        x += w + 14.0;
    }
    let w = text_width("⚠ UNEXPECTED", 12.0) + 10.0;
    let _ = writeln!(
        body,
        "<rect x=\"{x:.1}\" y=\"{:.1}\" width=\"{w:.1}\" height=\"18\" fill=\"#d00000\"/>",
        y - 13.5
    );
    text(
        &mut body,
        x + 5.0,
        y,
        12.0,
        "font-weight=\"bold\" fill=\"#ffffff\"",
        "⚠ UNEXPECTED",
    );
    let height = y + 12.0 + margin;
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"matrix\" width=\"{width:.0}\" height=\"{height:.0}\" viewBox=\"0 0 {width:.0} {height:.0}\" font-family=\"{MONO}\" role=\"img\" aria-label=\"verdict matrix\"><title>verdict matrix</title><rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n{body}</svg>\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use ozone_ha_check::engine::Engine;
    use ozone_ha_check::explore::{Expectation, Verdict as V};

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
            broken: Vec::new(),
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
            points_per_execution: BTreeMap::new(),
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
    fn the_matrix_as_a_picture_has_a_cell_per_case() {
        let reports = vec![
            report("buggy", "steady", Engine::Pct, V::Violated),
            report("fixed", "steady", Engine::Pct, V::Violated),
            report("fixed", "restart", Engine::Pct, V::Held),
        ];
        let picture = svg(&matrices(&reports));
        assert!(picture.starts_with("<svg") && picture.ends_with("</svg>\n"));
        assert_eq!(
            picture.matches(">violated</text>").count(),
            3,
            "two cells and the legend"
        );
        assert_eq!(picture.matches("⚠ UNEXPECTED: expected holds").count(), 1);
        assert!(picture.contains(">not run</text>"));
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
