//! Merge the parts measured under each build into `RESULTS.md`, `results.json` and SVG
//! plots; the same plots and the found-against-minimized figures for the HTML report.

use super::Row;
use crate::markup::{f0, f1, text_width, El};
use plotters::prelude::*;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

fn opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or_else(|| "-".into(), |v| v.to_string())
}

fn rate(v: Option<f64>) -> String {
    v.map_or_else(|| "-".into(), |v| format!("{v:.0}"))
}

fn prob(v: Option<f64>) -> String {
    v.map_or_else(|| "-".into(), |v| format!("{v:.2e}"))
}

/// A Markdown table: the heading, the rule, one line per row.
fn table(out: &mut String, head: &[&str], rows: impl IntoIterator<Item = Vec<String>>) {
    let _ = writeln!(
        out,
        "| {} |\n|{}",
        head.join(" | "),
        "---|".repeat(head.len())
    );
    for row in rows {
        let _ = writeln!(out, "| {} |", row.join(" | "));
    }
}

/// A row's case: scenario, variant, plan.
fn case(r: &Row) -> Vec<String> {
    vec![r.scenario.clone(), r.variant.clone(), r.plan.clone()]
}

/// The ratio of a model's executions per second to its floor's.
fn ratio_to_floor(r: &Row) -> String {
    r.executions_per_second
        .zip(r.floor_per_second)
        .map_or_else(|| "-".into(), |(a, b)| format!("{:.2}", a / b))
}

/// Rows measured at the scenario's default size (the scaling rows are not).
fn at_default_size(rows: &[Row]) -> impl Iterator<Item = &Row> {
    rows.iter().filter(|r| r.expected != "-")
}

/// The Markdown tables of `rows`.
pub fn render(rows: &[Row]) -> String {
    let mut out = String::from(
        "# Benchmark results\n\nMade by `ci/bench.sh` on the machine that ran it; figures from a shared, noisy machine are indicative. Regenerate them rather than edit them.\n\n",
    );
    first_violations(&mut out, rows);
    pct_guarantee(&mut out, rows);
    against_floor(&mut out, rows);
    loom_bounds(&mut out, rows);
    minimization_table(&mut out, rows);
    exhaustion_table(&mut out, rows);
    real_threads(&mut out, rows);
    scaling_table(&mut out, rows);
    out
}

/// Executions to the first violation over many seeds, beside executions per second.
fn first_violations(out: &mut String, rows: &[Row]) {
    out.push_str("## Executions to the first violation (shuttle, over many seeds)\n\n");
    let head = [
        "scenario",
        "variant",
        "plan",
        "engine",
        "median",
        "p90",
        "worst",
        "found within CI budget",
        "found",
        "executions/s",
        "floor/s",
        "ratio to floor",
    ];
    let lines = at_default_size(rows).filter_map(|r| {
        let f = r.first_violation.as_ref()?;
        let mut cells = case(r);
        cells.extend([
            r.engine.clone(),
            f.median.to_string(),
            f.p90.to_string(),
            f.worst.to_string(),
            format!("{:.0}%", f.within_ci_budget * 100.0),
            format!("{:.0}%", f.found * 100.0),
            rate(r.executions_per_second),
            rate(r.floor_per_second),
            ratio_to_floor(r),
        ]);
        Some(cells)
    });
    table(out, &head, lines);
}

/// PCT's guaranteed probability beside its measured hit rate.
fn pct_guarantee(out: &mut String, rows: &[Row]) {
    out.push_str("\n## PCT's guarantee beside its measured hit rate (depth 3)\n\nn tasks, k scheduling decisions per execution; the guarantee is 1/(n k^2) per execution.\n\n");
    let head = [
        "scenario",
        "variant",
        "plan",
        "n",
        "k",
        "guaranteed",
        "measured",
    ];
    let lines = at_default_size(rows)
        .filter(|r| r.engine == "pct" && r.expected == "violates")
        .map(|r| {
            let mut cells = case(r);
            cells.extend([
                opt(r.tasks),
                r.decisions
                    .map_or_else(|| "-".into(), |k| format!("{k:.0}")),
                prob(r.pct_bound),
                prob(r.pct_hit_rate),
            ]);
            cells
        });
    table(out, &head, lines);
}

/// The holding variants' executions per second against the floor.
fn against_floor(out: &mut String, rows: &[Row]) {
    out.push_str("\n## Executions per second against the floor (holding variants)\n\nThe floor runs the same number of tasks and scheduling decisions with no model; a ratio of 0.5 means the model doubles the engine's own cost.\n\n");
    let head = [
        "scenario",
        "variant",
        "plan",
        "engine",
        "executions/s",
        "floor/s",
        "ratio",
    ];
    let lines = at_default_size(rows)
        .filter(|r| r.expected == "holds" && r.executions_per_second.is_some())
        .map(|r| {
            let mut cells = case(r);
            cells.extend([
                r.engine.clone(),
                rate(r.executions_per_second),
                rate(r.floor_per_second),
                ratio_to_floor(r),
            ]);
            cells
        });
    table(out, &head, lines);
}

/// loom's smallest preemption bound exposing each violation.
fn loom_bounds(out: &mut String, rows: &[Row]) {
    out.push_str("\n## loom: smallest preemption bound exposing each violation\n\n");
    let head = [
        "scenario",
        "variant",
        "plan",
        "bound",
        "failing execution",
        "ms",
    ];
    let lines = at_default_size(rows)
        .filter(|r| r.engine == "loom" && r.expected == "violates")
        .map(|r| {
            let mut cells = case(r);
            cells.extend([
                opt(r.smallest_bound),
                opt(r.loom_first_violation),
                opt(r.loom_first_ms),
            ]);
            cells
        });
    table(out, &head, lines);
}

/// Each first counterexample's preemptions as found and minimized.
fn minimization_table(out: &mut String, rows: &[Row]) {
    let minimized = minimizations(rows);
    if minimized.is_empty() {
        return;
    }
    out.push_str("\n## Counterexamples: preemptions as found and minimized\n\nThe first seed's counterexample under each shuttle engine, its preemptions counted as loom counts them (a switch away from a task that could have continued), before and after minimization, beside loom's smallest failing preemption bound: the least a counterexample can have, up to the two engines' scheduling points.\n\n");
    let head = [
        "scenario",
        "variant",
        "plan",
        "engine",
        "found",
        "minimized",
        "loom's smallest bound",
        "replays",
    ];
    let lines = minimized.into_iter().map(|m| {
        vec![
            m.scenario,
            m.variant,
            m.plan,
            m.engine,
            m.found.to_string(),
            m.minimized.to_string(),
            opt(m.loom),
            m.replays.to_string(),
        ]
    });
    table(out, &head, lines);
}

/// Executions and time to exhaust the holding variants, by bound.
fn exhaustion_table(out: &mut String, rows: &[Row]) {
    out.push_str("\n## Exhausting the holding variants (loom by preemption bound, DFS unbounded; time-boxed)\n\n");
    let head = [
        "scenario",
        "variant",
        "plan",
        "engine",
        "bound",
        "executions",
        "exhausted",
        "ms",
    ];
    let lines = at_default_size(rows).flat_map(|r| {
        r.exhaustion.iter().map(|e| {
            let mut cells = case(r);
            cells.extend([
                if e.bound.is_some() { "loom" } else { "dfs" }.into(),
                opt(e.bound),
                e.executions.to_string(),
                if e.exhausted { "yes" } else { "no (time box)" }.into(),
                e.ms.to_string(),
            ]);
            cells
        })
    });
    table(out, &head, lines);
}

/// Violations per 10,000 runs on real threads.
fn real_threads(out: &mut String, rows: &[Row]) {
    out.push_str("\n## Real threads\n\n");
    let head = [
        "scenario",
        "variant",
        "plan",
        "expected",
        "violations per 10,000 runs",
        "runs/s",
    ];
    let lines = at_default_size(rows)
        .filter(|r| r.engine == "threads")
        .map(|r| {
            let mut cells = case(r);
            cells.extend([
                r.expected.clone(),
                r.violations_per_10k
                    .map_or_else(|| "-".into(), |v| format!("{v:.1}")),
                rate(r.runs_per_second),
            ]);
            cells
        });
    table(out, &head, lines);
}

/// The cases measured at several sizes: first violation and bound-2 exhaustion by size.
fn scaling_table(out: &mut String, rows: &[Row]) {
    out.push_str("\n## Scaling\n\n");
    let head = [
        "scenario",
        "case",
        "size",
        "engine",
        "first violation (median / loom)",
        "exhaustion at bound 2 (executions, ms)",
    ];
    let mut scaling: Vec<&Row> = rows.iter().collect();
    scaling.sort_by(|a, b| {
        (&a.scenario, &a.variant, &a.plan, &a.engine, a.size).cmp(&(
            &b.scenario,
            &b.variant,
            &b.plan,
            &b.engine,
            b.size,
        ))
    });
    let sized: Vec<(&str, &str, &str)> = rows
        .iter()
        .filter(|r| r.expected == "-")
        .map(|r| (r.scenario.as_str(), r.variant.as_str(), r.plan.as_str()))
        .collect();
    let lines = scaling
        .into_iter()
        .filter(|r| {
            sized.contains(&(r.scenario.as_str(), r.variant.as_str(), r.plan.as_str()))
                && r.engine != "threads"
        })
        .filter_map(scaling_cells);
    table(out, &head, lines);
}

/// One row of the scaling table, or `None` when it has neither figure.
fn scaling_cells(r: &Row) -> Option<Vec<String>> {
    let first = match r.engine.as_str() {
        "loom" => opt(r.loom_first_violation),
        _ => opt(r.first_violation.as_ref().map(|f| f.median)),
    };
    let exhaust = r
        .exhaustion
        .iter()
        .find(|e| e.bound == Some(2))
        .map_or_else(
            || "-".into(),
            |e| {
                format!(
                    "{}{}, {}",
                    e.executions,
                    if e.exhausted { "" } else { "+" },
                    e.ms
                )
            },
        );
    if first == "-" && exhaust == "-" {
        return None;
    }
    Some(vec![
        r.scenario.clone(),
        format!("{} / {}", r.variant, r.plan),
        r.size.to_string(),
        r.engine.clone(),
        first,
        exhaust,
    ])
}

/// A named line of (size, executions) points.
type Series = (String, Vec<(usize, f64)>);

/// One scaling plot: `y_desc` (log scale) against size, as SVG text.
fn plot(title: &str, y_desc: &str, series: &[Series]) -> Result<String, String> {
    let mut svg = String::new();
    plot_into(&mut svg, title, y_desc, series)?;
    Ok(svg)
}

fn plot_into(svg: &mut String, title: &str, y_desc: &str, series: &[Series]) -> Result<(), String> {
    let max_x = series
        .iter()
        .flat_map(|(_, p)| p.iter().map(|(x, _)| *x))
        .max()
        .unwrap_or(1)
        .max(2);
    let max_y = series
        .iter()
        .flat_map(|(_, p)| p.iter().map(|(_, y)| *y))
        .fold(1.0, f64::max)
        * 2.0;
    let root = SVGBackend::with_string(svg, (720, 420)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(64)
        .build_cartesian_2d(1usize..max_x, (1.0f64..max_y).log_scale())
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .x_desc("size")
        .y_desc(y_desc)
        .draw()
        .map_err(|e| e.to_string())?;
    let colors = [RED, BLUE, GREEN, MAGENTA, CYAN, BLACK];
    for (i, (name, points)) in series.iter().enumerate() {
        let color = colors[i % colors.len()];
        chart
            .draw_series(LineSeries::new(
                points.iter().map(|(x, y)| (*x, y.max(1.0))),
                color.stroke_width(2),
            ))
            .map_err(|e| e.to_string())?
            .label(name.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color));
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|e| e.to_string())?;
    root.present().map_err(|e| e.to_string())
}

/// A figure of the bench: a file name under the results directory, a title, the SVG.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Figure {
    /// The file it is written to, `scaling-<scenario>.svg` and the like.
    pub file: String,
    /// What it shows.
    pub title: String,
    /// The drawing.
    pub svg: String,
}

/// One violating case's counterexample before and after minimization.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Minimization {
    /// Scenario.
    pub scenario: String,
    /// Variant.
    pub variant: String,
    /// Plan.
    pub plan: String,
    /// The shuttle engine that found it.
    pub engine: String,
    /// Preemptions as found.
    pub found: usize,
    /// Preemptions once minimized.
    pub minimized: usize,
    /// loom's smallest failing preemption bound, where the loom part gives it.
    pub loom: Option<usize>,
    /// Replays spent.
    pub replays: usize,
}

/// Every minimization the rows record, at the default size, with loom's bound beside it.
pub fn minimizations(rows: &[Row]) -> Vec<Minimization> {
    rows.iter()
        .filter(|r| r.expected != "-")
        .filter_map(|r| {
            let loom = rows
                .iter()
                .find(|l| {
                    l.engine == "loom"
                        && (&l.scenario, &l.variant, &l.plan, l.size)
                            == (&r.scenario, &r.variant, &r.plan, r.size)
                })
                .and_then(|l| l.smallest_bound);
            Some(Minimization {
                scenario: r.scenario.clone(),
                variant: r.variant.clone(),
                plan: r.plan.clone(),
                engine: r.engine.clone(),
                found: r.found_preemptions?,
                minimized: r.minimized_preemptions?,
                loom,
                replays: r.minimize_replays.unwrap_or(0),
            })
        })
        .collect()
}

/// Where the minimization figure puts things: the plot's left edge and width, its top and
/// bottom, the height of a row, and the most preemptions drawn.
struct Chart {
    left: f64,
    plot_w: f64,
    top: f64,
    bottom: f64,
    row: f64,
    most: usize,
}

impl Chart {
    /// The x of `v` preemptions, on a square-root scale: the minimized counts (0 to 2) stay
    /// apart from the found ones.
    fn x(&self, v: usize) -> f64 {
        self.left + self.plot_w * (v as f64 / self.most as f64).sqrt()
    }

    /// The middle of row `i`.
    fn y(&self, i: usize) -> f64 {
        self.top + self.row * i as f64 + self.row / 2.0
    }
}

/// A row's label: the case and the engine.
fn minimization_label(m: &Minimization) -> String {
    format!("{} {} / {} ({})", m.scenario, m.variant, m.plan, m.engine)
}

/// A hollow circle (found), a dot (minimized) or a tick (loom's bound) at `x`; `y` is the
/// middle, top and bottom, as written.
fn mark(shape: &str, color: &str, x: f64, [y, top, bottom]: [String; 3]) -> String {
    match shape {
        "circle" => El::new("circle")
            .attr("cx", f1(x))
            .attr("cy", y)
            .attrs(&[
                ("r", "4.5"),
                ("fill", "none"),
                ("stroke", color),
                ("stroke-width", "2"),
            ])
            .empty(),
        "dot" => El::new("circle")
            .attr("cx", f1(x))
            .attr("cy", y)
            .attrs(&[("r", "4.5"), ("fill", color)])
            .empty(),
        _ => El::new("line")
            .attr("x1", f1(x))
            .attr("y1", top)
            .attr("x2", f1(x))
            .attr("y2", bottom)
            .attrs(&[("stroke", color), ("stroke-width", "2")])
            .empty(),
    }
}

/// Found against minimized preemptions, one row per case and engine, with loom's bound:
/// drawn through [`El`].
fn minimization_figure(ms: &[Minimization]) -> Option<String> {
    if ms.is_empty() {
        return None;
    }
    // Room for the longest label (measured as monospace, wider than the sans-serif drawn).
    let longest = ms
        .iter()
        .map(|m| text_width(&minimization_label(m), 11.0))
        .fold(0.0, f64::max);
    let (left, right, top, row) = (longest + 20.0, 30.0, 56.0, 18.0);
    let width = left + 420.0 + right;
    let chart = Chart {
        left,
        plot_w: width - left - right,
        top,
        bottom: top + row * ms.len() as f64,
        row,
        most: ms
            .iter()
            .map(|m| m.found.max(m.minimized))
            .max()
            .unwrap_or(1)
            .max(1),
    };
    let height = chart.bottom + 36.0;
    let mut svg = figure_frame(width, height);
    figure_legend(&mut svg, left);
    figure_ticks(&mut svg, &chart);
    for (i, m) in ms.iter().enumerate() {
        figure_row(&mut svg, &chart, chart.y(i), m);
    }
    let axis = El::new("text")
        .attr("x", f1(left + chart.plot_w / 2.0))
        .attr("y", f1(chart.bottom + 30.0))
        .attrs(&[("text-anchor", "middle"), ("fill", "#333")]);
    svg.push_str(&axis.text("preemptions (square-root scale)"));
    svg.push_str("</svg>\n");
    Some(svg)
}

/// The `<svg>` opening, the white background and the title.
fn figure_frame(width: f64, height: f64) -> String {
    let (w, h) = (f0(width), f0(height));
    let svg = El::new("svg")
        .attr("xmlns", "http://www.w3.org/2000/svg")
        .attr("width", &w)
        .attr("height", &h)
        .attr("viewBox", format!("0 0 {w} {h}"))
        .attrs(&[
            ("font-family", "DejaVu Sans, sans-serif"),
            ("font-size", "11"),
        ]);
    let background =
        El::new("rect").attrs(&[("width", "100%"), ("height", "100%"), ("fill", "#fff")]);
    let title = El::new("text").attr("x", f0(width / 2.0)).attrs(&[
        ("y", "20"),
        ("font-size", "15"),
        ("text-anchor", "middle"),
    ]);
    format!(
        "{}{}\n{}\n",
        svg.open(),
        background.empty(),
        title.text("Preemptions: found, minimized, loom's smallest bound")
    )
}

/// What the three marks mean, along the top.
fn figure_legend(svg: &mut String, left: f64) {
    let legend = [
        ("#c0392b", "found", "circle"),
        ("#1f77b4", "minimized", "dot"),
        ("#222", "loom's bound", "tick"),
    ];
    for (i, (color, name, shape)) in legend.iter().enumerate() {
        let lx = left + i as f64 * 130.0;
        let label = El::new("text").attr("x", f1(lx + 9.0)).attr("y", "40");
        let _ = writeln!(
            svg,
            "{}{}",
            mark(shape, color, lx, ["36".into(), "29".into(), "43".into()]),
            label.text(name)
        );
    }
}

/// A light rule and a number at each tick of the scale.
fn figure_ticks(svg: &mut String, chart: &Chart) {
    let ticks = [0, 1, 2, 5, 10, 20, 50, 100, 200]
        .into_iter()
        .filter(|t| *t <= chart.most);
    for t in ticks {
        let x = f1(chart.x(t));
        let rule = El::new("line")
            .attr("x1", &x)
            .attr("y1", f1(chart.top))
            .attr("x2", &x)
            .attr("y2", f1(chart.bottom))
            .attr("stroke", "#e3e7ed");
        let number = El::new("text")
            .attr("x", &x)
            .attr("y", f1(chart.bottom + 14.0))
            .attrs(&[("text-anchor", "middle"), ("fill", "#555")]);
        let _ = writeln!(svg, "{}{}", rule.empty(), number.text(&t.to_string()));
    }
}

/// The middle, top and bottom of a mark at height `y`.
fn around(y: f64) -> [String; 3] {
    [f1(y), f1(y - 7.0), f1(y + 7.0)]
}

/// One case's row at height `y`: its label, a line from minimized to found, loom's tick,
/// and the two marks.
fn figure_row(svg: &mut String, chart: &Chart, y: f64, m: &Minimization) {
    let label = El::new("text")
        .attr("x", f1(chart.left - 8.0))
        .attr("y", f1(y + 4.0))
        .attr("text-anchor", "end");
    let span = El::new("line")
        .attr("x1", f1(chart.x(m.minimized)))
        .attr("y1", f1(y))
        .attr("x2", f1(chart.x(m.found)))
        .attr("y2", f1(y))
        .attr("stroke", "#9aa7b8");
    let _ = writeln!(
        svg,
        "{}{}",
        label.text(&minimization_label(m)),
        span.empty()
    );
    if let Some(l) = m.loom {
        let _ = writeln!(svg, "{}", mark("tick", "#222", chart.x(l), around(y)));
    }
    let _ = writeln!(
        svg,
        "{}{}",
        mark("circle", "#c0392b", chart.x(m.found), around(y)),
        mark("dot", "#1f77b4", chart.x(m.minimized), around(y))
    );
}

/// One sized case's series: executions against size, and milliseconds against size
/// (loom's first violation and bound-2 exhaustion, PCT's median first violation).
fn case_series(rows: &[Row], key: (&str, &str, &str)) -> (Vec<Series>, Vec<Series>) {
    let case_rows: Vec<&Row> = rows
        .iter()
        .filter(|r| (r.scenario.as_str(), r.variant.as_str(), r.plan.as_str()) == key)
        .collect();
    let points = |engine: &str, f: &dyn Fn(&Row) -> Option<f64>| {
        let mut points: Vec<(usize, f64)> = case_rows
            .iter()
            .filter(|r| r.engine == engine)
            .filter_map(|r| f(r).map(|y| (r.size, y)))
            .collect();
        points.sort_by_key(|p| p.0);
        points
    };
    let bound_2 = |r: &Row| r.exhaustion.iter().find(|e| e.bound == Some(2)).cloned();
    let label = |what: &str| format!("{}/{} {what}", key.1, key.2);
    let executions = vec![
        (
            label("loom first violation"),
            points("loom", &|r| r.loom_first_violation.map(|n| n as f64)),
        ),
        (
            label("loom bound 2 exhaustion"),
            points("loom", &|r| bound_2(r).map(|e| e.executions as f64)),
        ),
        (
            label("PCT median first violation"),
            points("pct", &|r| {
                r.first_violation.as_ref().map(|f| f.median as f64)
            }),
        ),
    ];
    let milliseconds = vec![
        (
            label("loom first violation"),
            points("loom", &|r| r.loom_first_ms.map(|ms| ms as f64)),
        ),
        (
            label("loom bound 2 exhaustion"),
            points("loom", &|r| bound_2(r).map(|e| e.ms as f64)),
        ),
        (
            label("PCT median first violation"),
            points("pct", &|r| {
                Some(r.first_violation.as_ref()?.median as f64 * 1000.0 / r.executions_per_second?)
            }),
        ),
    ];
    (executions, milliseconds)
}

/// Every figure of `rows`: per scenario with a size knob, executions and milliseconds
/// against size (loom's first violation and bound-2 exhaustion, PCT's median time to the
/// first violation), and the found-against-minimized preemptions.
pub fn figures(rows: &[Row]) -> Result<Vec<Figure>, String> {
    let mut by_scenario: BTreeMap<&str, Vec<Series>> = BTreeMap::new();
    let mut times: BTreeMap<&str, Vec<Series>> = BTreeMap::new();
    let sized: std::collections::BTreeSet<(&str, &str, &str)> = rows
        .iter()
        .filter(|r| r.expected == "-")
        .map(|r| (r.scenario.as_str(), r.variant.as_str(), r.plan.as_str()))
        .collect();
    for key in sized {
        let (executions, milliseconds) = case_series(rows, key);
        for (map, series) in [(&mut by_scenario, executions), (&mut times, milliseconds)] {
            map.entry(key.0)
                .or_default()
                .extend(series.into_iter().filter(|(_, p)| !p.is_empty()));
        }
    }
    let mut out = Vec::new();
    for (scenario, series) in &by_scenario {
        let title = format!("{scenario}: executions against size");
        out.push(Figure {
            file: format!("scaling-{scenario}.svg"),
            svg: plot(&title, "executions", series)?,
            title,
        });
        if let Some(series) = times.get(scenario) {
            let title = format!("{scenario}: milliseconds against size");
            out.push(Figure {
                file: format!("scaling-{scenario}-time.svg"),
                svg: plot(&title, "milliseconds", series)?,
                title,
            });
        }
    }
    if let Some(svg) = minimization_figure(&minimizations(rows)) {
        out.push(Figure {
            file: "minimization.svg".into(),
            title: "Counterexamples: preemptions as found and minimized, and loom's smallest failing bound".into(),
            svg,
        });
    }
    Ok(out)
}

/// The text between `begin` (a prefix of the marker) and `end` in an earlier RESULTS.md,
/// markers included, with a newline after it.
fn kept(old: &str, begin: &str, end: &str) -> Option<String> {
    let start = old.find(begin)?;
    let len = old[start..].find(end)?;
    Some(format!("{}\n", &old[start..start + len + end.len()]))
}

/// `dir/name` parsed as JSON, or `None` when there is no such file.
fn read_json<T: serde::de::DeserializeOwned>(dir: &Path, name: &str) -> Result<Option<T>, String> {
    let path = dir.join(name);
    match std::fs::read_to_string(&path) {
        Ok(text) => serde_json::from_str(&text)
            .map(Some)
            .map_err(|e| format!("{}: {e}", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("cannot read {}: {e}", path.display())),
    }
}

/// The sections of `RESULTS.md` measured by other runs, each written from its JSON in
/// `dir`: the exhaustion section from `exhaustion.json` (beside `exhaustion-before.json`
/// when there is one, see [`super::exhaustion`]), the long proofs from
/// `exhaustion-long.json` ([`super::long_proofs`]) and the budgets section from
/// `budgets.json` (`bench --budgets`). A section whose JSON is missing is carried over
/// from the earlier `RESULTS.md`, `old`.
fn measured_sections(dir: &Path, old: &str) -> Result<Vec<String>, String> {
    use super::{budgets, exhaustion, long_proofs};
    let exhaustion = match read_json::<Vec<exhaustion::Case>>(dir, "exhaustion.json")? {
        Some(after) => {
            let before: Vec<exhaustion::Case> =
                read_json(dir, "exhaustion-before.json")?.unwrap_or_default();
            Some(exhaustion::render(&after, &before))
        }
        None => kept(old, "<!-- exhaustion: begin", exhaustion::END),
    };
    let long = match read_json::<Vec<exhaustion::Case>>(dir, "exhaustion-long.json")? {
        Some(cases) => Some(long_proofs::render(&cases)),
        None => kept(old, long_proofs::BEGIN, long_proofs::END),
    };
    let budgets = match read_json::<Vec<budgets::Budget>>(dir, "budgets.json")? {
        Some(rows) => Some(budgets::render(&rows)),
        None => kept(old, budgets::BEGIN, budgets::END),
    };
    Ok([exhaustion, long, budgets].into_iter().flatten().collect())
}

/// The whole of `RESULTS.md`: the tables of `rows`, the figures' links, and the sections
/// measured by other runs (see [`measured_sections`]).
fn results_md(dir: &Path, rows: &[Row], figures: &[Figure]) -> Result<String, String> {
    let mut md = render(rows);
    if !figures.is_empty() {
        md.push_str("\nPlots:\n\n");
    }
    for f in figures {
        let _ = writeln!(md, "![{}]({})\n", f.title, f.file);
    }
    let old = std::fs::read_to_string(dir.join("RESULTS.md")).unwrap_or_default();
    let sections = measured_sections(dir, &old)?;
    if !sections.is_empty() && !md.ends_with("\n\n") {
        md.push('\n');
    }
    md.push_str(&sections.join("\n"));
    Ok(md)
}

/// Write `RESULTS.md`, `results.json` and the [`figures`] into `dir`. Returns the files
/// written. This is the one writer of the whole `RESULTS.md`: the exhaustion, long proofs
/// and budgets sections are written from `exhaustion.json`, `exhaustion-long.json` and
/// `budgets.json` in `dir` (carried over from the earlier `RESULTS.md` where those are
/// missing).
pub fn write_results(dir: &Path, rows: &[Row]) -> Result<Vec<String>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let mut written = Vec::new();
    let figures = figures(rows)?;
    let md = results_md(dir, rows, &figures)?;
    for f in figures {
        std::fs::write(dir.join(&f.file), &f.svg)
            .map_err(|e| format!("cannot write {}: {e}", f.file))?;
        written.push(f.file);
    }
    std::fs::write(dir.join("RESULTS.md"), md).map_err(|e| e.to_string())?;
    written.push("RESULTS.md".into());
    let json = serde_json::to_string_pretty(rows).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("results.json"), json + "\n").map_err(|e| e.to_string())?;
    written.push("results.json".into());
    Ok(written)
}

#[cfg(test)]
mod kept_tests {
    use super::kept;

    #[test]
    fn a_section_is_carried_over_with_its_markers() {
        let old = "# Benchmark results\n\nold table\n\n<!-- exhaustion: begin (x) -->\n| a |\n<!-- exhaustion: end -->\ntail\n";
        assert_eq!(
            kept(old, "<!-- exhaustion: begin", "<!-- exhaustion: end -->").as_deref(),
            Some("<!-- exhaustion: begin (x) -->\n| a |\n<!-- exhaustion: end -->\n")
        );
        assert_eq!(kept("# Benchmark results\n", "<!-- a", "<!-- b -->"), None);
        assert_eq!(
            kept(
                "<!-- exhaustion: begin, never ended",
                "<!-- exhaustion: begin",
                "<!-- exhaustion: end -->"
            ),
            None
        );
    }
}
