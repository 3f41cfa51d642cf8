//! Merge the parts measured under each build into `RESULTS.md`, `results.json` and SVG plots.

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

/// One scaling plot: `y_desc` (log scale) against size.
fn plot(path: &Path, title: &str, y_desc: &str, series: &[Series]) -> Result<(), String> {
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
    let root = SVGBackend::new(path, (720, 420)).into_drawing_area();
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

/// Write `RESULTS.md`, `results.json` and one `scaling-<scenario>.svg` per scenario with a
/// size knob into `dir`. Returns the files written.
pub fn write_results(dir: &Path, rows: &[Row]) -> Result<Vec<String>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let mut written = Vec::new();
    let mut md = render(rows);
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
    if !by_scenario.is_empty() {
        md.push_str("\nPlots:\n\n");
    }
    for (scenario, series) in &by_scenario {
        let name = format!("scaling-{scenario}.svg");
        plot(
            &dir.join(&name),
            &format!("{scenario}: executions against size"),
            "executions",
            series,
        )?;
        let _ = writeln!(md, "![{scenario} scaling]({name})\n");
        written.push(name);
        if let Some(series) = times.get(scenario) {
            let name = format!("scaling-{scenario}-time.svg");
            let title = format!("{scenario}: milliseconds against size");
            plot(&dir.join(&name), &title, "milliseconds", series)?;
            let _ = writeln!(md, "![{scenario} scaling, time]({name})\n");
            written.push(name);
        }
    }
    std::fs::write(dir.join("RESULTS.md"), md).map_err(|e| e.to_string())?;
    written.push("RESULTS.md".into());
    let json = serde_json::to_string_pretty(rows).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("results.json"), json + "\n").map_err(|e| e.to_string())?;
    written.push("results.json".into());
    Ok(written)
}
