//! The HTML report: one self-contained page (no script, no external file: the diagrams and
//! plots are inline SVG, the style sheet is in the page), readable at 1,280 pixels and
//! printable.
//!
//! Top to bottom: a summary with a legend, one verdict matrix per scenario
//! ([`super::matrix`]), the benchmark plots and the found-against-minimized table when a
//! bench result is given, every case's details (its reports, and each counterexample as a
//! sequence diagram, [`super::svg`], with its timeline as text), and all reports as one
//! table.

use super::markdown::probes_text;
use super::matrix::{self, case_anchor, Matrix};
use super::text::minimized_words;
use super::{broke, counterexample_svg, harm, verdict_words, Outcome};
use crate::bench::{self, Row};
use crate::markup::anchor;
use maud::{html, Markup, PreEscaped, DOCTYPE};
use ozone_ha_check::citation::Links;
use ozone_ha_check::explore::Report;
use ozone_ha_check::trace::render_timeline;
use std::collections::BTreeMap;

pub use crate::markup::escape;

/// What the page shows.
#[derive(Clone, Copy, Debug)]
pub struct Page<'a> {
    /// The reports.
    pub reports: &'a [Report],
    /// Benchmark rows (`bench/results.json`), whose plots and minimization figures the page
    /// embeds.
    pub bench: Option<&'a [Row]>,
    /// Where each diagram's Java methods link to.
    pub links: &'a Links,
}

impl Default for Page<'_> {
    fn default() -> Self {
        Page {
            reports: &[],
            bench: None,
            links: Links::files_ref(),
        }
    }
}

const STYLE: &str = r#"
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { font: 15px/1.45 "DejaVu Sans", "Segoe UI", Roboto, Helvetica, Arial, sans-serif; color: #1d2430; margin: 0 auto; padding: 16px 24px 48px; max-width: 1232px; }
h1 { font-size: 1.6em; margin: .3em 0; }
h2 { font-size: 1.3em; margin: 1.8em 0 .5em; padding-bottom: .2em; border-bottom: 2px solid #d3dae4; }
h3 { font-size: 1.1em; margin: 1.4em 0 .4em; }
a { color: #0b57d0; }
code, .inv, pre { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; }
td, th, li, p, figcaption, summary { overflow-wrap: break-word; }
.summary { font-size: 1.05em; }
.summary .bad, .bad { color: #b00000; font-weight: 700; }
nav ul { display: flex; flex-wrap: wrap; gap: 4px 18px; margin: .4em 0; padding: 0; list-style: none; }
.legend { display: flex; flex-wrap: wrap; gap: 6px 18px; align-items: center; margin: .6em 0; padding: 0; list-style: none; }
table { border-collapse: collapse; }
table.matrix { width: 100%; table-layout: fixed; margin: .4em 0 1em; }
table.matrix caption { text-align: left; color: #5b6573; font-size: .9em; padding-bottom: 4px; }
.matrix th, .matrix td { border: 1px solid #c4ccd8; padding: 6px 8px; vertical-align: top; text-align: left; }
.matrix thead th { background: #eef2f7; }
.matrix th.corner { width: 13em; color: #5b6573; font-weight: normal; }
.matrix th[scope=row] { background: #f6f8fb; }
.name { display: block; font-weight: 700; }
.doc { display: block; font-weight: normal; font-size: .78em; color: #5b6573; line-height: 1.3; }
td.cell.violated { background: #fde4e2; }
td.cell.held { background: #e2f3e5; }
td.cell.vacuous { background: #fff3d1; }
td.cell.unwitnessed { background: #eceff3; }
td.cell.mixed { background: repeating-linear-gradient(135deg, #ffffff 0 8px, #f1f3f6 8px 16px); }
td.cell.none { color: #8a93a0; font-style: italic; }
td.cell.unexpected { outline: 4px solid #d00000; outline-offset: -4px; }
.mark { display: block; background: #d00000; color: #fff; font-weight: 800; padding: 3px 6px; margin: -2px -4px 6px; letter-spacing: .02em; }
ul.verdicts { list-style: none; margin: 0; padding: 0; }
ul.verdicts li { margin: 0 0 5px; }
.chip { display: inline-block; border-radius: 3px; padding: 0 6px; font-weight: 700; border: 1px solid; background: #fff; white-space: nowrap; }
.chip.violated { color: #9b1111; border-color: #d9807c; }
.chip.held { color: #17622a; border-color: #76b886; }
.chip.vacuous { color: #7d5200; border-color: #d8b25a; }
.chip.unwitnessed { color: #46505d; border-color: #9ba6b4; }
.engine { color: #33404f; font-size: .9em; }
.inv { display: block; font-size: .82em; color: #33404f; margin-left: 2px; }
a.details { font-size: .82em; }
section.case { margin-top: 1.6em; }
section.case h3 { border-top: 1px solid #d3dae4; padding-top: .6em; }
table.runs { width: 100%; font-size: .88em; margin: .4em 0; }
table.runs td, table.runs th { white-space: nowrap; }
table.runs td:last-child, table.runs th:last-child { white-space: normal; width: 100%; }
table.runs th, table.runs td, table.all th, table.all td { border: 1px solid #d3dae4; padding: 3px 6px; text-align: left; vertical-align: top; }
table.runs thead th, table.all thead th { background: #eef2f7; }
tr.unexpected td { background: #ffe1e1; }
figure { margin: 1em 0 1.6em; }
figure.cx figcaption { margin-bottom: .4em; }
figure svg, .plot svg { max-width: 100%; height: auto; display: block; }
.replay { font-size: .85em; background: #f4f6f9; padding: 4px 6px; display: block; overflow-wrap: anywhere; }
pre { background: #f4f6f9; padding: 8px; overflow-x: auto; font-size: 12px; line-height: 1.35; }
.plots { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 540px), 1fr)); gap: 12px; }
table.all { width: 100%; font-size: .82em; }
@media print {
  body { max-width: none; padding: 0; font-size: 10.5pt; }
  nav, .noprint, a.details, details { display: none; }
  a { color: inherit; text-decoration: none; }
  * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  table.matrix, .mark, figure.plot, table.runs tr { break-inside: avoid; }
  h2, h3 { break-after: avoid; }
  section.scenario { break-before: page; }
  section.scenario:first-of-type { break-before: auto; }
}
"#;

/// The page.
///
/// ```
/// use ozone_ha_check_cli::present::{html_report, Page};
/// let page = html_report(&Page::default());
/// assert!(page.starts_with("<!DOCTYPE html>\n<html lang=\"en\">"));
/// assert!(page.contains("0 reports: . Every verdict is the expected one."));
/// ```
pub fn html_report(page: &Page<'_>) -> String {
    let reports = page.reports;
    let diagrams = diagram_anchors(reports);
    let diagram = |i: usize| diagrams.get(&i).cloned();
    let matrices = matrix::matrices(reports);
    let markup = html! {
        (DOCTYPE) "\n"
        html lang="en" {
            head {
                meta charset="utf-8";
                "\n"
                meta name="viewport" content="width=device-width, initial-scale=1";
                "\n"
                title { "ozone-ha-check report" }
                "\n"
                style { (PreEscaped(STYLE)) }
            }
            body {
                "\n"
                h1 { "ozone-ha-check report" }
                "\n"
                (summary(reports))
                (navigation(&matrices, page.bench.is_some()))
                (legend())
                @for m in &matrices { (scenario_section(m, &diagram)) }
                @if let Some(rows) = page.bench { (bench_section(rows)) }
                h2 id="details" { "Cases" }
                "\n"
                @for m in &matrices { (case_sections(m, &diagrams, page.links)) }
                (all_reports(reports, &diagram))
            }
        }
        "\n"
    };
    markup.into_string()
}

/// The id of a scenario's section.
fn scenario_anchor(m: &Matrix<'_>) -> String {
    anchor(&format!("scenario-{}", m.scenario))
}

/// Links to each scenario's section, the benchmarks and the table of all reports.
fn navigation(matrices: &[Matrix<'_>], bench: bool) -> Markup {
    html! {
        nav {
            ul {
                @for m in matrices {
                    li { a href={ "#" (scenario_anchor(m)) } { (m.scenario) } }
                }
                @if bench { li { a href="#bench" { "benchmarks" } } }
                li { a href="#all-reports" { "all reports" } }
            }
        }
        "\n"
    }
}

/// A scenario's heading, with its Jira issue and title, and its verdict matrix.
fn scenario_section(m: &Matrix<'_>, diagram: &dyn Fn(usize) -> Option<String>) -> Markup {
    html! {
        section class="scenario" id=(scenario_anchor(m)) {
            h2 {
                (m.scenario)
                @if let Some((jira, title)) = m.about {
                    " " span class="doc" { (jira) ": " (title) }
                }
            }
            "\n"
            (matrix::table(m, diagram))
        }
        "\n"
    }
}

/// Which reports get a diagram of their own, and the anchor each violating report links
/// to: a report whose counterexample is the same as an earlier one of its case (another
/// engine or seed that found, or minimized to, the same trace) links to that one.
fn diagram_anchors(reports: &[Report]) -> BTreeMap<usize, String> {
    let mut out = BTreeMap::new();
    for (i, r) in reports.iter().enumerate() {
        if r.invariant.is_none() {
            continue;
        }
        let same = reports[..i].iter().position(|o| {
            o.invariant.is_some()
                && (&o.scenario, &o.variant, &o.plan, &o.invariant, &o.trace)
                    == (&r.scenario, &r.variant, &r.plan, &r.invariant, &r.trace)
        });
        let target = same.unwrap_or(i);
        out.insert(i, format!("cx-{target}"));
    }
    out
}

/// How many reports of each outcome, and a link to each case whose verdict was not the
/// expected one.
fn summary(reports: &[Report]) -> Markup {
    let unexpected: Vec<&Report> = reports.iter().filter(|r| !r.as_expected()).collect();
    let mut counts: BTreeMap<Outcome, usize> = BTreeMap::new();
    for r in reports {
        *counts.entry(Outcome::of(r)).or_default() += 1;
    }
    let parts: Vec<String> = counts
        .iter()
        .map(|(o, n)| format!("{n} {}", o.word()))
        .collect();
    html! {
        p class="summary" {
            (reports.len()) " reports: " (parts.join(", ")) ". "
            @if unexpected.is_empty() {
                "Every verdict is the expected one."
            } @else {
                span class="bad" { "⚠ " (unexpected.len()) " UNEXPECTED:" }
                " "
                @for (k, r) in unexpected.iter().enumerate() {
                    @if k > 0 { ", " }
                    a href={ "#" (case_anchor(&r.scenario, &r.variant, &r.plan)) } {
                        (r.scenario) " " (r.variant) "/" (r.plan) " (" (r.engine) ")"
                    }
                }
            }
        }
        "\n"
    }
}

/// What each outcome's colour and word mean, and the red mark of an unexpected verdict.
fn legend() -> Markup {
    let meaning = |o: Outcome| match o {
        Outcome::Violated => "an invariant broke (the diagram shows how)",
        Outcome::Held => "none broke, and the race window was reached",
        Outcome::Vacuous => "none broke, but the window was never reached",
        Outcome::NotWitnessed => "real threads did not happen to show the break",
    };
    html! {
        ul class="legend" {
            @for o in Outcome::ALL {
                li { span class={ "chip " (o.class()) } { (o.word()) } " " (meaning(o)) }
            }
            li {
                strong class="mark" style="display:inline-block;margin:0" { "⚠ UNEXPECTED" }
                " the verdict differs from the expected one"
            }
        }
        "\n"
    }
}

/// The details of every case of a matrix, row by row.
fn case_sections(m: &Matrix<'_>, diagrams: &BTreeMap<usize, String>, links: &Links) -> Markup {
    html! {
        @for v in &m.variants {
            @for p in &m.plans {
                @if let Some(cell) = m.cells.get(&(v.name.clone(), p.name.clone())) {
                    (case_section(m, &v.name, &p.name, cell, diagrams, links))
                }
            }
        }
    }
}

/// One case: what its variant and plan are, its reports, and a diagram per distinct
/// counterexample.
fn case_section(
    m: &Matrix<'_>,
    variant: &str,
    plan: &str,
    cell: &[(usize, &Report)],
    diagrams: &BTreeMap<usize, String>,
    links: &Links,
) -> Markup {
    let doc = |list: &[matrix::Heading], name: &str| {
        list.iter()
            .find(|h| h.name == name)
            .map(|h| h.doc.clone())
            .unwrap_or_default()
    };
    html! {
        section class="case" id=(case_anchor(&m.scenario, variant, plan)) {
            h3 { (m.scenario) " · " (variant) " · " (plan) }
            "\n"
            p class="doc" {
                "variant " (variant) ": " (doc(&m.variants, variant))
                " — plan " (plan) ": " (doc(&m.plans, plan))
            }
            "\n"
            (runs_table(cell, diagrams))
            @for (i, r) in cell {
                @if diagrams.get(i) == Some(&format!("cx-{i}")) {
                    (figure(*i, r, &same_counterexample(*i, cell, diagrams), links))
                }
            }
        }
        "\n"
    }
}

/// The other engines and seeds of a case whose counterexample is the one drawn at `i`.
fn same_counterexample(
    i: usize,
    cell: &[(usize, &Report)],
    diagrams: &BTreeMap<usize, String>,
) -> Vec<String> {
    let own = format!("cx-{i}");
    cell.iter()
        .filter(|(j, _)| *j != i && diagrams.get(j) == Some(&own))
        .map(|(_, o)| match o.seed {
            Some(seed) => format!("{} (seed {seed})", o.engine),
            None => o.engine.to_string(),
        })
        .collect()
}

/// `-` for nothing, else the value.
fn or_dash<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or_else(|| "-".into(), |v| v.to_string())
}

/// A case's reports: engine, seed, expected, verdict (linked to its diagram), invariant,
/// first violation, executions, time and probe hits.
fn runs_table(cell: &[(usize, &Report)], diagrams: &BTreeMap<usize, String>) -> Markup {
    const HEAD: [&str; 9] = [
        "engine",
        "seed",
        "expected",
        "verdict",
        "invariant",
        "first violation",
        "executions",
        "time",
        "probe hits",
    ];
    html! {
        table class="runs" {
            thead { tr { @for h in HEAD { th { (h) } } } }
            tbody {
                "\n"
                @for (i, r) in cell { (run_row(r, diagrams.get(i))) "\n" }
            }
        }
        "\n"
    }
}

/// One report of a case as a row of its table.
fn run_row(r: &Report, diagram: Option<&String>) -> Markup {
    html! {
        tr class=[(!r.as_expected()).then_some("unexpected")] {
            td { (r.engine) }
            td { (or_dash(r.seed)) }
            td { (r.expected.word()) }
            td {
                @match diagram {
                    Some(a) => a href={ "#" (a) } { (verdict_words(r)) },
                    None => (verdict_words(r)),
                }
                @if !r.as_expected() { " " strong class="bad" { "⚠ UNEXPECTED" } }
            }
            td { (r.invariant.as_deref().unwrap_or("-")) }
            td { (or_dash(r.first_violation)) }
            td { (r.executions) @if r.out_of_time { " (time budget)" } }
            td { (format!("{:.2} s", r.elapsed_ms as f64 / 1000.0)) }
            td { (probes_text(r)) }
        }
    }
}

/// A counterexample: what broke and its harm, how it was minimized, who else found it, the
/// replay command, the sequence diagram and the timeline as text.
fn figure(i: usize, r: &Report, also: &[String], links: &Links) -> Markup {
    html! {
        figure class="cx" id={ "cx-" (i) } {
            figcaption {
                strong { (r.invariant.as_deref().unwrap_or("")) " broken" }
                " under " (r.engine)
                @if let Some(s) = r.seed { " (seed " (s) ")" }
                " in execution " (r.first_violation.unwrap_or(0)) ": "
                (r.detail.as_deref().unwrap_or(""))
                @if let Some(h) = harm(r) { br; "Harm: " (h) }
                @if let Some(m) = &r.minimized { br; (minimized_words(m)) }
                @if !also.is_empty() { br; "The same counterexample under " (also.join(", ")) "." }
                @if let Some(schedule) = &r.schedule {
                    code class="replay" {
                        "ozone-ha-check replay " (r.scenario) " --variant " (r.variant)
                        " --plan " (r.plan) " --schedule '" (schedule) "'"
                    }
                }
            }
            "\n"
            (PreEscaped(counterexample_svg(r, links)))
            details {
                summary { "the same trace as text" }
                pre { (render_timeline(&r.trace, broke(r), 100)) }
            }
        }
        "\n"
    }
}

/// The benchmark plots and the table of preemptions as found and minimized.
fn bench_section(rows: &[Row]) -> Markup {
    html! {
        section id="bench" {
            h2 { "Benchmarks" }
            "\n"
            (plots(rows))
            (minimization_table(&bench::render::minimizations(rows)))
        }
        "\n"
    }
}

/// The bench's figures side by side, each SVG as drawn.
fn plots(rows: &[Row]) -> Markup {
    html! {
        @match bench::render::figures(rows) {
            Ok(figures) if !figures.is_empty() => {
                div class="plots" {
                    @for f in figures {
                        figure class="plot" {
                            (PreEscaped(f.svg))
                            figcaption { (f.title) }
                        }
                    }
                }
                "\n"
            }
            Ok(_) => { p { "The bench result has no plots." } "\n" }
            Err(e) => { p class="bad" { "The plots could not be drawn: " (e) } "\n" }
        }
    }
}

/// Each counterexample's preemptions as found and minimized beside loom's smallest
/// failing bound; a row where the two differ is marked.
fn minimization_table(minimized: &[bench::render::Minimization]) -> Markup {
    const HEAD: [&str; 8] = [
        "scenario",
        "variant",
        "plan",
        "engine",
        "found",
        "minimized",
        "loom's smallest bound",
        "replays",
    ];
    html! {
        @if !minimized.is_empty() {
            h3 { "Counterexamples: preemptions as found and minimized" }
            "\n"
            p class="doc" {
                "Preemptions counted as loom counts them; loom's smallest failing bound is what a minimized counterexample can reach."
            }
            "\n"
            table class="runs" {
                thead { tr { @for h in HEAD { th { (h) } } } }
                tbody {
                    "\n"
                    @for m in minimized {
                        tr class=[m.loom.is_some_and(|l| l != m.minimized).then_some("unexpected")] {
                            td { (m.scenario) } td { (m.variant) } td { (m.plan) } td { (m.engine) }
                            td { (m.found) } td { (m.minimized) } td { (or_dash(m.loom)) }
                            td { (m.replays) }
                        }
                        "\n"
                    }
                }
            }
            "\n"
        }
    }
}

/// Every report as one table, each broken invariant linked to its diagram.
fn all_reports(reports: &[Report], diagram: &dyn Fn(usize) -> Option<String>) -> Markup {
    const HEAD: [&str; 10] = [
        "scenario",
        "variant",
        "plan",
        "engine",
        "expected",
        "verdict",
        "invariant",
        "first violation",
        "executions",
        "time (ms)",
    ];
    html! {
        h2 id="all-reports" { "All reports" }
        "\n"
        table class="all" id="reports" {
            "\n"
            thead { tr { @for h in HEAD { th { (h) } } } }
            "\n"
            tbody {
                "\n"
                @for (i, r) in reports.iter().enumerate() {
                    tr class=[(!r.as_expected()).then_some("unexpected")] {
                        td { (r.scenario) } td { (r.variant) } td { (r.plan) }
                        td { (r.engine) } td { (r.expected.word()) }
                        td { (verdict_words(r)) @if !r.as_expected() { " ⚠ UNEXPECTED" } }
                        td {
                            @match (&r.invariant, diagram(i)) {
                                (Some(name), Some(a)) => a href={ "#" (a) } { (name) },
                                (Some(name), None) => (name),
                                (None, _) => "-",
                            }
                        }
                        td { (or_dash(r.first_violation)) } td { (r.executions) }
                        td { (r.elapsed_ms) }
                    }
                    "\n"
                }
            }
        }
        "\n"
    }
}
