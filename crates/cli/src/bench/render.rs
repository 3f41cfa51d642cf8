//! Merge the parts measured under each build into `RESULTS.md`, `results.json` and SVG
//! plots; the same plots and the found-against-minimized figures for the HTML report.

use super::Row;
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

/// The Markdown tables of `rows`.
pub fn render(rows: &[Row]) -> String {
    let mut out = String::from(
        "# Benchmark results\n\nMade by `ci/bench.sh` on the machine that ran it; figures from a shared, noisy machine are indicative. Regenerate them rather than edit them.\n\n",
    );
    let default_size = |r: &&Row| r.expected != "-";

    out.push_str("## Executions to the first violation (shuttle, over many seeds)\n\n");
    out.push_str("| scenario | variant | plan | engine | median | p90 | worst | found within CI budget | found | executions/s | floor/s | ratio to floor |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for r in rows
        .iter()
        .filter(default_size)
        .filter(|r| r.first_violation.is_some())
    {
        let f = r.first_violation.as_ref().expect("filtered");
        let ratio = r
            .executions_per_second
            .zip(r.floor_per_second)
            .map(|(a, b)| a / b);
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {:.0}% | {:.0}% | {} | {} | {} |",
            r.scenario,
            r.variant,
            r.plan,
            r.engine,
            f.median,
            f.p90,
            f.worst,
            f.within_ci_budget * 100.0,
            f.found * 100.0,
            rate(r.executions_per_second),
            rate(r.floor_per_second),
            ratio.map_or_else(|| "-".into(), |x| format!("{x:.2}"))
        );
    }

    out.push_str("\n## PCT's guarantee beside its measured hit rate (depth 3)\n\nn tasks, k scheduling decisions per execution; the guarantee is 1/(n k^2) per execution.\n\n");
    out.push_str("| scenario | variant | plan | n | k | guaranteed | measured |\n|---|---|---|---|---|---|---|\n");
    for r in rows
        .iter()
        .filter(default_size)
        .filter(|r| r.engine == "pct" && r.expected == "violates")
    {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} |",
            r.scenario,
            r.variant,
            r.plan,
            opt(r.tasks),
            r.decisions
                .map_or_else(|| "-".into(), |k| format!("{k:.0}")),
            prob(r.pct_bound),
            prob(r.pct_hit_rate)
        );
    }

    out.push_str("\n## Executions per second against the floor (holding variants)\n\nThe floor runs the same number of tasks and scheduling decisions with no model; a ratio of 0.5 means the model doubles the engine's own cost.\n\n");
    out.push_str("| scenario | variant | plan | engine | executions/s | floor/s | ratio |\n|---|---|---|---|---|---|---|\n");
    for r in rows
        .iter()
        .filter(default_size)
        .filter(|r| r.expected == "holds" && r.executions_per_second.is_some())
    {
        let ratio = r
            .executions_per_second
            .zip(r.floor_per_second)
            .map(|(a, b)| a / b);
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} |",
            r.scenario,
            r.variant,
            r.plan,
            r.engine,
            rate(r.executions_per_second),
            rate(r.floor_per_second),
            ratio.map_or_else(|| "-".into(), |x| format!("{x:.2}"))
        );
    }

    out.push_str("\n## loom: smallest preemption bound exposing each violation\n\n| scenario | variant | plan | bound | failing execution | ms |\n|---|---|---|---|---|---|\n");
    for r in rows
        .iter()
        .filter(default_size)
        .filter(|r| r.engine == "loom" && r.expected == "violates")
    {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |",
            r.scenario,
            r.variant,
            r.plan,
            opt(r.smallest_bound),
            opt(r.loom_first_violation),
            opt(r.loom_first_ms)
        );
    }

    let minimized = minimizations(rows);
    if !minimized.is_empty() {
        out.push_str("\n## Counterexamples: preemptions as found and minimized\n\nThe first seed's counterexample under each shuttle engine, its preemptions counted as loom counts them (a switch away from a task that could have continued), before and after minimization, beside loom's smallest failing preemption bound: the least a counterexample can have, up to the two engines' scheduling points.\n\n| scenario | variant | plan | engine | found | minimized | loom's smallest bound | replays |\n|---|---|---|---|---|---|---|---|\n");
        for m in &minimized {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} | {} | {} |",
                m.scenario,
                m.variant,
                m.plan,
                m.engine,
                m.found,
                m.minimized,
                opt(m.loom),
                m.replays
            );
        }
    }

    out.push_str("\n## Exhausting the holding variants (loom by preemption bound, DFS unbounded; time-boxed)\n\n| scenario | variant | plan | engine | bound | executions | exhausted | ms |\n|---|---|---|---|---|---|---|---|\n");
    for r in rows.iter().filter(default_size) {
        for e in &r.exhaustion {
            let engine = if e.bound.is_some() { "loom" } else { "dfs" };
            let _ = writeln!(
                out,
                "| {} | {} | {} | {engine} | {} | {} | {} | {} |",
                r.scenario,
                r.variant,
                r.plan,
                opt(e.bound),
                e.executions,
                if e.exhausted { "yes" } else { "no (time box)" },
                e.ms
            );
        }
    }

    out.push_str("\n## Real threads\n\n| scenario | variant | plan | expected | violations per 10,000 runs | runs/s |\n|---|---|---|---|---|---|\n");
    for r in rows
        .iter()
        .filter(default_size)
        .filter(|r| r.engine == "threads")
    {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |",
            r.scenario,
            r.variant,
            r.plan,
            r.expected,
            r.violations_per_10k
                .map_or_else(|| "-".into(), |v| format!("{v:.1}")),
            rate(r.runs_per_second)
        );
    }

    out.push_str("\n## Scaling\n\n| scenario | case | size | engine | first violation (median / loom) | exhaustion at bound 2 (executions, ms) |\n|---|---|---|---|---|---|\n");
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
    for r in scaling.into_iter().filter(|r| {
        sized.contains(&(r.scenario.as_str(), r.variant.as_str(), r.plan.as_str()))
            && r.engine != "threads"
    }) {
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
            continue;
        }
        let _ = writeln!(
            out,
            "| {} | {} / {} | {} | {} | {first} | {exhaust} |",
            r.scenario, r.variant, r.plan, r.size, r.engine
        );
    }
    out
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

/// Found against minimized preemptions, one row per case and engine, with loom's bound:
/// hand-drawn SVG.
fn minimization_figure(ms: &[Minimization]) -> Option<String> {
    if ms.is_empty() {
        return None;
    }
    let most = ms
        .iter()
        .map(|m| m.found.max(m.minimized))
        .max()
        .unwrap_or(1)
        .max(1);
    let label =
        |m: &Minimization| format!("{} {} / {} ({})", m.scenario, m.variant, m.plan, m.engine);
    // Room for the longest label (measured as monospace, wider than the sans-serif drawn).
    let longest = ms
        .iter()
        .map(|m| crate::present::svg::text_width(&label(m), 11.0))
        .fold(0.0, f64::max);
    let (left, right, top, row) = (longest + 20.0, 30.0, 56.0, 18.0);
    let width = left + 420.0 + right;
    let plot_w = width - left - right;
    let height = top + row * ms.len() as f64 + 36.0;
    // A square-root scale: the minimized counts (0 to 2) stay apart from the found ones.
    let x = |v: usize| left + plot_w * (v as f64 / most as f64).sqrt();
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{height:.0}\" viewBox=\"0 0 {width:.0} {height:.0}\" font-family=\"DejaVu Sans, sans-serif\" font-size=\"11\"><rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n<text x=\"{:.0}\" y=\"20\" font-size=\"15\" text-anchor=\"middle\">Preemptions: found, minimized, loom's smallest bound</text>\n",
        width / 2.0
    );
    let legend = [
        ("#c0392b", "found", "circle"),
        ("#1f77b4", "minimized", "dot"),
        ("#222", "loom's bound", "tick"),
    ];
    for (i, (color, name, shape)) in legend.iter().enumerate() {
        let lx = left + i as f64 * 130.0;
        let mark = match *shape {
            "circle" => format!("<circle cx=\"{lx:.1}\" cy=\"36\" r=\"4.5\" fill=\"none\" stroke=\"{color}\" stroke-width=\"2\"/>"),
            "dot" => format!("<circle cx=\"{lx:.1}\" cy=\"36\" r=\"4.5\" fill=\"{color}\"/>"),
            _ => format!("<line x1=\"{lx:.1}\" y1=\"29\" x2=\"{lx:.1}\" y2=\"43\" stroke=\"{color}\" stroke-width=\"2\"/>"),
        };
        let _ = writeln!(
            svg,
            "{mark}<text x=\"{:.1}\" y=\"40\">{name}</text>",
            lx + 9.0
        );
    }
    let ticks: Vec<usize> = [0, 1, 2, 5, 10, 20, 50, 100, 200]
        .into_iter()
        .filter(|t| *t <= most)
        .collect();
    let bottom = top + row * ms.len() as f64;
    for t in ticks {
        let _ = writeln!(
            svg,
            "<line x1=\"{0:.1}\" y1=\"{top:.1}\" x2=\"{0:.1}\" y2=\"{bottom:.1}\" stroke=\"#e3e7ed\"/><text x=\"{0:.1}\" y=\"{1:.1}\" text-anchor=\"middle\" fill=\"#555\">{t}</text>",
            x(t),
            bottom + 14.0
        );
    }
    for (i, m) in ms.iter().enumerate() {
        let y = top + row * i as f64 + row / 2.0;
        let _ = writeln!(
            svg,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text><line x1=\"{:.1}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"#9aa7b8\"/>",
            left - 8.0,
            y + 4.0,
            crate::present::svg::escape(&label(m)),
            x(m.minimized),
            x(m.found)
        );
        if let Some(l) = m.loom {
            let _ = writeln!(
                svg,
                "<line x1=\"{0:.1}\" y1=\"{1:.1}\" x2=\"{0:.1}\" y2=\"{2:.1}\" stroke=\"#222\" stroke-width=\"2\"/>",
                x(l),
                y - 7.0,
                y + 7.0
            );
        }
        let _ = writeln!(
            svg,
            "<circle cx=\"{:.1}\" cy=\"{y:.1}\" r=\"4.5\" fill=\"none\" stroke=\"#c0392b\" stroke-width=\"2\"/><circle cx=\"{:.1}\" cy=\"{y:.1}\" r=\"4.5\" fill=\"#1f77b4\"/>",
            x(m.found),
            x(m.minimized)
        );
    }
    let _ = writeln!(
        svg,
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"#333\">preemptions (square-root scale)</text></svg>",
        left + plot_w / 2.0,
        bottom + 30.0
    );
    Some(svg)
}

/// Every figure of `rows`: per scenario with a size knob, executions and milliseconds
/// against size (loom's first violation and bound-2 exhaustion, PCT's median time to the
/// first violation), and the found-against-minimized preemptions.
pub fn figures(rows: &[Row]) -> Result<Vec<Figure>, String> {
    let mut by_scenario: BTreeMap<&str, Vec<Series>> = BTreeMap::new();
    let mut times: BTreeMap<&str, Vec<Series>> = BTreeMap::new();
    let sized: Vec<&Row> = rows.iter().filter(|r| r.expected == "-").collect();
    for key in sized
        .iter()
        .map(|r| (r.scenario.as_str(), r.variant.as_str(), r.plan.as_str()))
        .collect::<std::collections::BTreeSet<_>>()
    {
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
        let executions = [
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
        let milliseconds = [
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
                    Some(
                        r.first_violation.as_ref()?.median as f64 * 1000.0
                            / r.executions_per_second?,
                    )
                }),
            ),
        ];
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

/// The sections of an earlier RESULTS.md that other runs write (`ci/exhaustion.py` between
/// `<!-- exhaustion: begin ... -->` and `<!-- exhaustion: end -->`, `bench --budgets` between
/// [`super::budgets::BEGIN`] and [`super::budgets::END`]), kept when the file is rewritten.
fn kept_sections(old: &str) -> String {
    let mut kept = String::new();
    for (begin, end) in [
        ("<!-- exhaustion: begin", "<!-- exhaustion: end -->"),
        (super::budgets::BEGIN, super::budgets::END),
    ] {
        let Some(start) = old.find(begin) else {
            continue;
        };
        if let Some(len) = old[start..].find(end) {
            kept.push_str(&format!("\n{}\n", &old[start..start + len + end.len()]));
        }
    }
    kept
}

/// Write `RESULTS.md`, `results.json` and the [`figures`] into `dir`. Returns the files
/// written. The exhaustion and budgets sections of an earlier `RESULTS.md` are carried over.
pub fn write_results(dir: &Path, rows: &[Row]) -> Result<Vec<String>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let mut written = Vec::new();
    let mut md = render(rows);
    let figures = figures(rows)?;
    if !figures.is_empty() {
        md.push_str("\nPlots:\n\n");
    }
    for f in figures {
        std::fs::write(dir.join(&f.file), &f.svg)
            .map_err(|e| format!("cannot write {}: {e}", f.file))?;
        let _ = writeln!(md, "![{}]({})\n", f.title, f.file);
        written.push(f.file);
    }
    let results = dir.join("RESULTS.md");
    if let Ok(old) = std::fs::read_to_string(&results) {
        md.push_str(&kept_sections(&old));
    }
    std::fs::write(&results, md).map_err(|e| e.to_string())?;
    written.push("RESULTS.md".into());
    let json = serde_json::to_string_pretty(rows).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("results.json"), json + "\n").map_err(|e| e.to_string())?;
    written.push("results.json".into());
    Ok(written)
}

#[cfg(test)]
mod kept_tests {
    use super::kept_sections;

    #[test]
    fn the_exhaustion_section_is_carried_over_and_nothing_else() {
        let old = "# Benchmark results\n\nold table\n\n<!-- exhaustion: begin (x) -->\n| a |\n<!-- exhaustion: end -->\ntail\n";
        assert_eq!(
            kept_sections(old),
            "\n<!-- exhaustion: begin (x) -->\n| a |\n<!-- exhaustion: end -->\n"
        );
        assert_eq!(kept_sections("# Benchmark results\n"), "");
        assert_eq!(kept_sections("<!-- exhaustion: begin, never ended"), "");
    }
}
