//! Per scenario, the verdict matrix: variants as rows, plans as columns, and in each cell
//! every engine's verdict, by colour and by word, with the invariant that broke. A cell
//! whose verdict is not the expected one carries a red `UNEXPECTED` bar saying what was
//! expected. Each cell links to its case's details, and each violation to its diagram.
//!
//! [`html()`] draws a matrix for the page; [`svg`] draws matrices as one picture (for a
//! README, where a page cannot be embedded): `report --format svg-matrix`.

use super::svg::wrap;
use super::Outcome;
use crate::markup::{anchor, f0, f1, text_width, El};
use maud::{html, Markup};
use ozone_ha_check::explore::Report;
use ozone_ha_check::scenarios::{self, Named};
use std::collections::BTreeMap;

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
    table(m, diagram).into_string()
}

/// The matrix as an HTML table, for the page's template.
pub fn table(m: &Matrix<'_>, diagram: &dyn Fn(usize) -> Option<String>) -> Markup {
    html! {
        table class="matrix" id=(anchor(&format!("matrix-{}", m.scenario))) {
            "\n"
            caption { (m.scenario) ": variants (rows) by plans (columns)" }
            "\n"
            thead {
                tr {
                    th scope="col" class="corner" { "variant \\ plan" }
                    @for p in &m.plans { (heading("col", p)) }
                }
            }
            "\n"
            tbody {
                "\n"
                @for v in &m.variants {
                    tr {
                        (heading("row", v))
                        @for p in &m.plans { (cell(m, &v.name, &p.name, diagram)) }
                    }
                    "\n"
                }
            }
        }
        "\n"
    }
}

/// A row's or column's heading: the name, and its description under it.
fn heading(scope: &str, h: &Heading) -> Markup {
    html! {
        th scope=(scope) { span class="name" { (h.name) } span class="doc" { (h.doc) } }
    }
}

/// One cell: the red bar when a verdict is not the expected one, each verdict with its
/// engines, and the link to the case's details.
fn cell(
    m: &Matrix<'_>,
    variant: &str,
    plan: &str,
    diagram: &dyn Fn(usize) -> Option<String>,
) -> Markup {
    let verdicts = m.verdicts(variant, plan);
    if verdicts.is_empty() {
        return html! { td class="cell none" { "not run" } };
    }
    let unexpected = verdicts.iter().any(|v| !v.expected);
    let class = format!(
        "cell {}{}",
        cell_class(&verdicts),
        if unexpected { " unexpected" } else { "" }
    );
    html! {
        td class=(class) {
            @if unexpected { (unexpected_bar(&m.cells[&(variant.to_string(), plan.to_string())])) }
            ul class="verdicts" {
                @for v in &verdicts { (verdict_item(v, diagram)) }
            }
            a class="details" href={ "#" (case_anchor(&m.scenario, variant, plan)) } { "details ›" }
        }
    }
}

/// The class of a cell: its outcome's when every verdict agrees, else `mixed`.
fn cell_class(verdicts: &[Verdict]) -> &'static str {
    let first = verdicts[0].outcome;
    if verdicts.iter().all(|v| v.outcome == first) {
        first.class()
    } else {
        "mixed"
    }
}

/// The red bar of a cell with an unexpected verdict: what was expected.
fn unexpected_bar(reports: &[(usize, &Report)]) -> Markup {
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
    html! {
        strong class="mark" { "⚠ UNEXPECTED: expected " (r.expected.word()) (invariants) }
    }
}

/// One verdict of a cell: the outcome's chip, the engines that gave it (each linked to
/// its diagram where it has one), and the invariant that broke.
fn verdict_item(v: &Verdict, diagram: &dyn Fn(usize) -> Option<String>) -> Markup {
    html! {
        li {
            span class={ "chip " (v.outcome.class()) } { (v.outcome.word()) }
            " "
            span class="engine" {
                @for (k, e) in v.engines.iter().enumerate() {
                    @if k > 0 { " · " }
                    (engine_runs(e, diagram))
                }
            }
            @if !v.expected { " " span class="bad" { "✗ unexpected" } }
            @if let Some(i) = &v.invariant { span class="inv" { (i) } }
        }
    }
}

/// An engine's name, with how many of its reports agree when more than one, linked to
/// the diagram of the first.
fn engine_runs(e: &EngineRuns, diagram: &dyn Fn(usize) -> Option<String>) -> Markup {
    let name = html! {
        (e.engine)
        @if e.count > 1 { " ×" (e.count) }
    };
    match diagram(e.first) {
        Some(a) => html! { a class="to-diagram" href={ "#" (a) } { (name) } },
        None => name,
    }
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

const MONO: &str = "DejaVu Sans Mono, Menlo, Consolas, Liberation Mono, monospace";
/// Space around the picture.
const MARGIN: f64 = 12.0;
/// Width of the column of variant headings.
const HEAD_W: f64 = 210.0;
/// Line height of a plan's name.
const LINE: f64 = 15.0;
/// Line height of descriptions.
const DOC_LINE: f64 = 12.5;

/// The columns' width, shared by every matrix of the picture.
fn column_width(matrices: &[Matrix<'_>]) -> f64 {
    let plans = matrices
        .iter()
        .map(|m| m.plans.len())
        .max()
        .unwrap_or(1)
        .max(1);
    ((1180.0 - 2.0 * MARGIN - HEAD_W) / plans as f64).clamp(200.0, 320.0)
}

/// Matrices drawn as one SVG picture, one under the other, with a legend: the same cells
/// as the page (colour and word per verdict, engines, broken invariant, a red
/// `UNEXPECTED` bar), without the links.
pub fn svg(matrices: &[Matrix<'_>]) -> String {
    let col_w = column_width(matrices);
    let plans = matrices
        .iter()
        .map(|m| m.plans.len())
        .max()
        .unwrap_or(1)
        .max(1);
    let width = 2.0 * MARGIN + HEAD_W + plans as f64 * col_w;
    let mut body = String::new();
    let mut y = MARGIN;
    for m in matrices {
        y = draw_matrix(&mut body, m, y, width, col_w) + 18.0;
    }
    y += 6.0;
    draw_legend(&mut body, y);
    let (w, h) = (f0(width), f0(y + 12.0 + MARGIN));
    let svg = El::new("svg")
        .attr("xmlns", "http://www.w3.org/2000/svg")
        .attr("class", "matrix")
        .attr("width", &w)
        .attr("height", &h)
        .attr("viewBox", format!("0 0 {w} {h}"))
        .attr("font-family", MONO)
        .attr("role", "img")
        .attr("aria-label", "verdict matrix");
    let background =
        El::new("rect").attrs(&[("width", "100%"), ("height", "100%"), ("fill", "#ffffff")]);
    format!(
        "{}{}{}\n{body}</svg>\n",
        svg.open(),
        El::new("title").text("verdict matrix"),
        background.empty()
    )
}

/// A `<text>` element at (`x`, `y`), one to a line of output.
fn text(out: &mut String, x: f64, y: f64, size: f64, attrs: &[(&str, &str)], t: &str) {
    let el = El::new("text")
        .attr("x", f1(x))
        .attr("y", f1(y))
        .attr("font-size", size)
        .attrs(attrs);
    out.push_str(&el.text(t));
    out.push('\n');
}

/// A rectangle at (`x`, `y`), `w` by `h`, with `attrs`, one to a line of output.
fn rect(out: &mut String, (x, y, w, h): (String, String, String, String), attrs: &[(&str, &str)]) {
    let el = El::new("rect")
        .attr("x", x)
        .attr("y", y)
        .attr("width", w)
        .attr("height", h)
        .attrs(attrs);
    out.push_str(&el.empty());
    out.push('\n');
}

/// At most `max` lines of `t` in `w` pixels at `size`, the last ending in `…` when cut.
fn lines(t: &str, w: f64, size: f64, max: usize) -> Vec<String> {
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
}

/// One matrix from `y` down: its title, the plans' headings and a row per variant.
/// Returns the bottom.
fn draw_matrix(body: &mut String, m: &Matrix<'_>, mut y: f64, width: f64, col_w: f64) -> f64 {
    let title = match m.about {
        Some((jira, t)) => format!("{} ({jira}): {t}", m.scenario),
        None => m.scenario.clone(),
    };
    for t in lines(&title, width - 2.0 * MARGIN, 14.0, 2) {
        y += 18.0;
        text(
            body,
            MARGIN,
            y,
            14.0,
            &[("font-weight", "bold"), ("fill", "#1d2430")],
            &t,
        );
    }
    y = draw_plan_headings(body, m, y + 8.0, col_w);
    for v in &m.variants {
        y = draw_variant_row(body, m, v, y, col_w);
    }
    y
}

/// The row of plan headings, each with its description. Returns its bottom.
fn draw_plan_headings(body: &mut String, m: &Matrix<'_>, y: f64, col_w: f64) -> f64 {
    let docs: Vec<Vec<String>> = m
        .plans
        .iter()
        .map(|p| lines(&p.doc, col_w - 12.0, 10.0, 3))
        .collect();
    let head_h = 10.0 + LINE + docs.iter().map(Vec::len).max().unwrap_or(0) as f64 * DOC_LINE + 6.0;
    let full = HEAD_W + m.plans.len() as f64 * col_w;
    rect(
        body,
        (MARGIN.to_string(), f1(y), f1(full), f1(head_h)),
        &[("fill", "#eef2f7"), ("stroke", "#c4ccd8")],
    );
    text(
        body,
        MARGIN + 6.0,
        y + 18.0,
        11.0,
        &[("fill", "#5b6573")],
        "variant \\ plan",
    );
    for (j, (p, doc)) in m.plans.iter().zip(&docs).enumerate() {
        let x = MARGIN + HEAD_W + j as f64 * col_w;
        let rule = El::new("line")
            .attr("x1", f1(x))
            .attr("y1", f1(y))
            .attr("x2", f1(x))
            .attr("y2", f1(y + head_h))
            .attr("stroke", "#c4ccd8");
        body.push_str(&rule.empty());
        body.push('\n');
        text(
            body,
            x + 6.0,
            y + 18.0,
            12.5,
            &[("font-weight", "bold"), ("fill", "#1d2430")],
            &p.name,
        );
        for (k, d) in doc.iter().enumerate() {
            text(
                body,
                x + 6.0,
                y + 32.0 + k as f64 * DOC_LINE,
                10.0,
                &[("fill", "#5b6573")],
                d,
            );
        }
    }
    y + head_h
}

/// The height a cell's verdicts need: a bar when one is unexpected, a line per verdict
/// and one per broken invariant.
fn cell_height(vs: &[Verdict]) -> f64 {
    let bar = if vs.iter().any(|v| !v.expected) {
        22.0
    } else {
        0.0
    };
    8.0 + bar
        + vs.iter()
            .map(|v| 22.0 + if v.invariant.is_some() { 13.0 } else { 0.0 })
            .sum::<f64>()
}

/// A variant's row from `y`: its heading and a cell per plan. Returns its bottom.
fn draw_variant_row(body: &mut String, m: &Matrix<'_>, v: &Heading, y: f64, col_w: f64) -> f64 {
    let vdoc = lines(&v.doc, HEAD_W - 12.0, 10.0, 4);
    let cells: Vec<Vec<Verdict>> = m
        .plans
        .iter()
        .map(|p| m.verdicts(&v.name, &p.name))
        .collect();
    let row_h = cells
        .iter()
        .map(|vs| cell_height(vs))
        .fold(24.0 + vdoc.len() as f64 * DOC_LINE, f64::max)
        .max(40.0);
    rect(
        body,
        (MARGIN.to_string(), f1(y), HEAD_W.to_string(), f1(row_h)),
        &[("fill", "#f6f8fb"), ("stroke", "#c4ccd8")],
    );
    text(
        body,
        MARGIN + 6.0,
        y + 17.0,
        12.5,
        &[("font-weight", "bold"), ("fill", "#1d2430")],
        &v.name,
    );
    for (k, d) in vdoc.iter().enumerate() {
        text(
            body,
            MARGIN + 6.0,
            y + 31.0 + k as f64 * DOC_LINE,
            10.0,
            &[("fill", "#5b6573")],
            d,
        );
    }
    for (j, vs) in cells.iter().enumerate() {
        let x = MARGIN + HEAD_W + j as f64 * col_w;
        let reports = &m.cells.get(&(v.name.clone(), m.plans[j].name.clone()));
        draw_cell(
            body,
            vs,
            reports.map_or(&[][..], |r| &r[..]),
            (x, y),
            (col_w, row_h),
        );
    }
    y + row_h
}

/// One cell at (`x`, `y`), `col_w` by `row_h`: its background, the red frame and bar when
/// a verdict is unexpected, and each verdict.
fn draw_cell(
    body: &mut String,
    vs: &[Verdict],
    reports: &[(usize, &Report)],
    (x, y): (f64, f64),
    (col_w, row_h): (f64, f64),
) {
    let outcome = vs.first().map(|v| v.outcome);
    let same = vs.iter().all(|v| Some(v.outcome) == outcome);
    let fill = match outcome {
        Some(o) if same => colours(o).0,
        _ => "#ffffff",
    };
    rect(
        body,
        (f1(x), f1(y), f1(col_w), f1(row_h)),
        &[("fill", fill), ("stroke", "#c4ccd8")],
    );
    let mut cy = y + 6.0;
    if vs.iter().any(|v| !v.expected) {
        draw_unexpected_bar(body, reports, (x, y), (col_w, row_h));
        cy += 22.0;
    }
    if vs.is_empty() {
        text(
            body,
            x + 8.0,
            y + 20.0,
            11.0,
            &[("font-style", "italic"), ("fill", "#8a93a0")],
            "not run",
        );
    }
    for v in vs {
        cy = draw_verdict(body, v, x, cy, col_w);
    }
}

/// The red frame of a cell with an unexpected verdict, and the bar saying what was
/// expected.
fn draw_unexpected_bar(
    body: &mut String,
    reports: &[(usize, &Report)],
    (x, y): (f64, f64),
    (col_w, row_h): (f64, f64),
) {
    let frame = El::new("rect")
        .attr("x", f1(x + 2.0))
        .attr("y", f1(y + 2.0))
        .attr("width", f1(col_w - 4.0))
        .attr("height", f1(row_h - 4.0))
        .attrs(&[
            ("fill", "none"),
            ("stroke", "#d00000"),
            ("stroke-width", "4"),
        ]);
    let bar = El::new("rect")
        .attr("x", f1(x + 2.0))
        .attr("y", f1(y + 2.0))
        .attr("width", f1(col_w - 4.0))
        .attrs(&[("height", "18"), ("fill", "#d00000")]);
    body.push_str(&frame.empty());
    body.push_str(&bar.empty());
    body.push('\n');
    let r = reports.iter().map(|(_, r)| *r).find(|r| !r.as_expected());
    let what = format!(
        "⚠ UNEXPECTED: expected {}",
        r.map_or("-", |r| r.expected.word())
    );
    let t = lines(&what, col_w - 16.0, 11.0, 1);
    text(
        body,
        x + 8.0,
        y + 15.0,
        11.0,
        &[("font-weight", "bold"), ("fill", "#ffffff")],
        &t[0],
    );
}

/// An outcome's chip at (`x`, `y`): its word in its colour on white. Returns its width.
fn draw_chip(body: &mut String, o: Outcome, x: f64, y: f64) -> f64 {
    let (_, border, ink) = colours(o);
    let w = text_width(o.word(), 12.0) + 10.0;
    rect(
        body,
        (f1(x), f1(y), f1(w), "18".into()),
        &[("rx", "3"), ("fill", "#ffffff"), ("stroke", border)],
    );
    text(
        body,
        x + 5.0,
        y + 13.5,
        12.0,
        &[("font-weight", "bold"), ("fill", ink)],
        o.word(),
    );
    w
}

/// One verdict of a cell from `cy` down: the chip, the engines, the broken invariant.
/// Returns where the next one starts.
fn draw_verdict(body: &mut String, v: &Verdict, x: f64, mut cy: f64, col_w: f64) -> f64 {
    let chip_w = draw_chip(body, v.outcome, x + 8.0, cy);
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
    let t = lines(&rest, col_w - chip_w - 26.0, 11.0, 1);
    let ink: &[(&str, &str)] = if v.expected {
        &[("fill", "#33404f")]
    } else {
        &[("fill", "#b00000"), ("font-weight", "bold")]
    };
    text(body, x + 16.0 + chip_w, cy + 13.0, 11.0, ink, &t[0]);
    cy += 22.0;
    if let Some(i) = &v.invariant {
        let t = lines(i, col_w - 20.0, 10.5, 1);
        text(
            body,
            x + 10.0,
            cy + 6.0,
            10.5,
            &[("fill", "#33404f")],
            &t[0],
        );
        cy += 13.0;
    }
    cy
}

/// The legend along the baseline `y`: every outcome's chip and the red `UNEXPECTED` bar.
fn draw_legend(body: &mut String, y: f64) {
    let mut x = MARGIN;
    for o in Outcome::ALL {
        x += draw_chip(body, o, x, y - 13.5) + 14.0;
    }
    let w = text_width("⚠ UNEXPECTED", 12.0) + 10.0;
    rect(
        body,
        (f1(x), f1(y - 13.5), f1(w), "18".into()),
        &[("fill", "#d00000")],
    );
    text(
        body,
        x + 5.0,
        y,
        12.0,
        &[("font-weight", "bold"), ("fill", "#ffffff")],
        "⚠ UNEXPECTED",
    );
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
            beyond_reach: Vec::new(),
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
            stateful_schedule: None,
            context_switches: None,
            trace: Vec::new(),
            probes: BTreeMap::new(),
            probe_executions: BTreeMap::new(),
            watched: None,
            minimized: None,
            size: None,
            bounds: None,
            scope: None,
            parts: None,
            states: None,
            final_states: None,
            reduction: None,
            walks: None,
            witness_search: None,
            state_origins: BTreeMap::new(),
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
