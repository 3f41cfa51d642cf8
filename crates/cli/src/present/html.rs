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
use super::matrix::{self, case_anchor};
use super::text::minimized_words;
use super::{broke, counterexample_svg, verdict_words, Outcome};
use crate::bench::{self, Row};
use ozone_ha_check::citation::Links;
use ozone_ha_check::explore::Report;
use ozone_ha_check::trace::render_timeline;
use std::collections::BTreeMap;
use std::fmt::Write as _;

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

/// Escape text for HTML.
pub fn escape(text: &str) -> String {
    super::svg::escape(text)
}

/// `text` as an element id: letters, digits, `-` and `_` kept, anything else `-`.
pub fn anchor(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect()
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
pub fn html_report(page: &Page<'_>) -> String {
    let reports = page.reports;
    let diagrams = diagram_anchors(reports);
    let diagram = |i: usize| diagrams.get(&i).cloned();
    let mut out = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>ozone-ha-check report</title>\n<style>",
    );
    out.push_str(STYLE);
    out.push_str("</style></head><body>\n<h1>ozone-ha-check report</h1>\n");
    out.push_str(&summary(reports));
    let matrices = matrix::matrices(reports);
    out.push_str("<nav><ul>");
    for m in &matrices {
        let _ = write!(
            out,
            "<li><a href=\"#{}\">{}</a></li>",
            anchor(&format!("scenario-{}", m.scenario)),
            escape(&m.scenario)
        );
    }
    if page.bench.is_some() {
        out.push_str("<li><a href=\"#bench\">benchmarks</a></li>");
    }
    out.push_str("<li><a href=\"#all-reports\">all reports</a></li></ul></nav>\n");
    out.push_str(&legend());
    for m in &matrices {
        let _ = writeln!(
            out,
            "<section class=\"scenario\" id=\"{}\"><h2>{}{}</h2>",
            anchor(&format!("scenario-{}", m.scenario)),
            escape(&m.scenario),
            m.about
                .map(|(jira, title)| format!(
                    " <span class=\"doc\">{}: {}</span>",
                    escape(jira),
                    escape(title)
                ))
                .unwrap_or_default()
        );
        out.push_str(&matrix::html(m, &diagram));
        out.push_str("</section>\n");
    }
    if let Some(rows) = page.bench {
        out.push_str(&bench_section(rows));
    }
    out.push_str("<h2 id=\"details\">Cases</h2>\n");
    for m in &matrices {
        for v in &m.variants {
            for p in &m.plans {
                if let Some(cell) = m.cells.get(&(v.name.clone(), p.name.clone())) {
                    out.push_str(&case_section(
                        m, &v.name, &p.name, cell, &diagrams, page.links,
                    ));
                }
            }
        }
    }
    out.push_str(&all_reports(reports, &diagram));
    out.push_str("</body></html>\n");
    out
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

fn summary(reports: &[Report]) -> String {
    let unexpected: Vec<&Report> = reports.iter().filter(|r| !r.as_expected()).collect();
    let mut counts: BTreeMap<Outcome, usize> = BTreeMap::new();
    for r in reports {
        *counts.entry(Outcome::of(r)).or_default() += 1;
    }
    let parts: Vec<String> = counts
        .iter()
        .map(|(o, n)| format!("{n} {}", o.word()))
        .collect();
    let mut out = format!(
        "<p class=\"summary\">{} reports: {}. ",
        reports.len(),
        parts.join(", ")
    );
    if unexpected.is_empty() {
        out.push_str("Every verdict is the expected one.</p>\n");
    } else {
        let _ = write!(
            out,
            "<span class=\"bad\">⚠ {} UNEXPECTED:</span> ",
            unexpected.len()
        );
        let links: Vec<String> = unexpected
            .iter()
            .map(|r| {
                format!(
                    "<a href=\"#{}\">{} {}/{} ({})</a>",
                    case_anchor(&r.scenario, &r.variant, &r.plan),
                    escape(&r.scenario),
                    escape(&r.variant),
                    escape(&r.plan),
                    r.engine
                )
            })
            .collect();
        out.push_str(&links.join(", "));
        out.push_str("</p>\n");
    }
    out
}

fn legend() -> String {
    let mut out = String::from("<ul class=\"legend\">");
    for o in Outcome::ALL {
        let what = match o {
            Outcome::Violated => "an invariant broke (the diagram shows how)",
            Outcome::Held => "none broke, and the race window was reached",
            Outcome::Vacuous => "none broke, but the window was never reached",
            Outcome::NotWitnessed => "real threads did not happen to show the break",
        };
        let _ = write!(
            out,
            "<li><span class=\"chip {}\">{}</span> {what}</li>",
            o.class(),
            o.word()
        );
    }
    out.push_str("<li><strong class=\"mark\" style=\"display:inline-block;margin:0\">⚠ UNEXPECTED</strong> the verdict differs from the expected one</li></ul>\n");
    out
}

fn case_section(
    m: &matrix::Matrix<'_>,
    variant: &str,
    plan: &str,
    cell: &[(usize, &Report)],
    diagrams: &BTreeMap<usize, String>,
    links: &Links,
) -> String {
    let doc = |list: &[matrix::Heading], name: &str| {
        list.iter()
            .find(|h| h.name == name)
            .map(|h| h.doc.clone())
            .unwrap_or_default()
    };
    let mut out = format!(
        "<section class=\"case\" id=\"{}\"><h3>{} · {} · {}</h3>\n<p class=\"doc\">variant {}: {} — plan {}: {}</p>\n",
        case_anchor(&m.scenario, variant, plan),
        escape(&m.scenario),
        escape(variant),
        escape(plan),
        escape(variant),
        escape(&doc(&m.variants, variant)),
        escape(plan),
        escape(&doc(&m.plans, plan)),
    );
    out.push_str("<table class=\"runs\"><thead><tr><th>engine</th><th>seed</th><th>expected</th><th>verdict</th><th>invariant</th><th>first violation</th><th>executions</th><th>time</th><th>probe hits</th></tr></thead><tbody>\n");
    for (i, r) in cell {
        let verdict = match diagrams.get(i) {
            Some(a) => format!("<a href=\"#{a}\">{}</a>", escape(&verdict_words(r))),
            None => escape(&verdict_words(r)),
        };
        let _ = writeln!(
            out,
            "<tr{}><td>{}</td><td>{}</td><td>{}</td><td>{verdict}{}</td><td>{}</td><td>{}</td><td>{}{}</td><td>{:.2} s</td><td>{}</td></tr>",
            if r.as_expected() { "" } else { " class=\"unexpected\"" },
            r.engine,
            r.seed.map_or_else(|| "-".into(), |s| s.to_string()),
            r.expected.word(),
            if r.as_expected() { "" } else { " <strong class=\"bad\">⚠ UNEXPECTED</strong>" },
            escape(r.invariant.as_deref().unwrap_or("-")),
            r.first_violation.map_or_else(|| "-".into(), |n| n.to_string()),
            r.executions,
            if r.out_of_time { " (time budget)" } else { "" },
            r.elapsed_ms as f64 / 1000.0,
            escape(&probes_text(r)),
        );
    }
    out.push_str("</tbody></table>\n");
    for (i, r) in cell {
        let own = format!("cx-{i}");
        if diagrams.get(i) != Some(&own) {
            continue;
        }
        let also: Vec<String> = cell
            .iter()
            .filter(|(j, _)| j != i && diagrams.get(j) == Some(&own))
            .map(|(_, o)| match o.seed {
                Some(seed) => format!("{} (seed {seed})", o.engine),
                None => o.engine.to_string(),
            })
            .collect();
        out.push_str(&figure(*i, r, &also, links));
    }
    out.push_str("</section>\n");
    out
}

fn figure(i: usize, r: &Report, also: &[String], links: &Links) -> String {
    let mut out = format!(
        "<figure class=\"cx\" id=\"cx-{i}\"><figcaption><strong>{} broken</strong> under {}{} in execution {}: {}",
        escape(r.invariant.as_deref().unwrap_or("")),
        r.engine,
        r.seed.map_or_else(String::new, |s| format!(" (seed {s})")),
        r.first_violation.unwrap_or(0),
        escape(r.detail.as_deref().unwrap_or("")),
    );
    if let Some(m) = &r.minimized {
        let _ = write!(out, "<br>{}", escape(&minimized_words(m)));
    }
    if !also.is_empty() {
        let _ = write!(
            out,
            "<br>The same counterexample under {}.",
            escape(&also.join(", "))
        );
    }
    if let Some(schedule) = &r.schedule {
        let _ = write!(
            out,
            "<code class=\"replay\">ozone-ha-check replay {} --variant {} --plan {} --schedule '{}'</code>",
            escape(&r.scenario),
            escape(&r.variant),
            escape(&r.plan),
            escape(&schedule.to_string())
        );
    }
    out.push_str("</figcaption>\n");
    out.push_str(&counterexample_svg(r, links));
    let _ = writeln!(
        out,
        "<details><summary>the same trace as text</summary><pre>{}</pre></details></figure>",
        escape(&render_timeline(&r.trace, broke(r), 100))
    );
    out
}

fn bench_section(rows: &[Row]) -> String {
    let mut out = String::from("<section id=\"bench\"><h2>Benchmarks</h2>\n");
    match bench::render::figures(rows) {
        Ok(figures) if !figures.is_empty() => {
            out.push_str("<div class=\"plots\">");
            for f in figures {
                let _ = write!(
                    out,
                    "<figure class=\"plot\">{}<figcaption>{}</figcaption></figure>",
                    f.svg,
                    escape(&f.title)
                );
            }
            out.push_str("</div>\n");
        }
        Ok(_) => out.push_str("<p>The bench result has no plots.</p>\n"),
        Err(e) => {
            let _ = writeln!(
                out,
                "<p class=\"bad\">The plots could not be drawn: {}</p>",
                escape(&e)
            );
        }
    }
    let minimized = bench::render::minimizations(rows);
    if !minimized.is_empty() {
        out.push_str("<h3>Counterexamples: preemptions as found and minimized</h3>\n<p class=\"doc\">Preemptions counted as loom counts them; loom's smallest failing bound is what a minimized counterexample can reach.</p>\n<table class=\"runs\"><thead><tr><th>scenario</th><th>variant</th><th>plan</th><th>engine</th><th>found</th><th>minimized</th><th>loom's smallest bound</th><th>replays</th></tr></thead><tbody>\n");
        for m in minimized {
            let differs = m.loom.is_some_and(|l| l != m.minimized);
            let _ = writeln!(
                out,
                "<tr{}><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                if differs { " class=\"unexpected\"" } else { "" },
                escape(&m.scenario),
                escape(&m.variant),
                escape(&m.plan),
                escape(&m.engine),
                m.found,
                m.minimized,
                m.loom.map_or_else(|| "-".into(), |l| l.to_string()),
                m.replays
            );
        }
        out.push_str("</tbody></table>\n");
    }
    out.push_str("</section>\n");
    out
}

fn all_reports(reports: &[Report], diagram: &dyn Fn(usize) -> Option<String>) -> String {
    let mut out = String::from("<h2 id=\"all-reports\">All reports</h2>\n<table class=\"all\" id=\"reports\">\n<thead><tr><th>scenario</th><th>variant</th><th>plan</th><th>engine</th><th>expected</th><th>verdict</th><th>invariant</th><th>first violation</th><th>executions</th><th>time (ms)</th></tr></thead>\n<tbody>\n");
    for (i, r) in reports.iter().enumerate() {
        let invariant = match (&r.invariant, diagram(i)) {
            (Some(name), Some(a)) => format!("<a href=\"#{a}\">{}</a>", escape(name)),
            (Some(name), None) => escape(name),
            (None, _) => "-".into(),
        };
        let _ = writeln!(
            out,
            "<tr{}><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}{}</td><td>{invariant}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            if r.as_expected() { "" } else { " class=\"unexpected\"" },
            escape(&r.scenario),
            escape(&r.variant),
            escape(&r.plan),
            r.engine,
            r.expected.word(),
            escape(&verdict_words(r)),
            if r.as_expected() { "" } else { " ⚠ UNEXPECTED" },
            r.first_violation.map_or_else(|| "-".into(), |n| n.to_string()),
            r.executions,
            r.elapsed_ms
        );
    }
    out.push_str("</tbody></table>\n");
    out
}
