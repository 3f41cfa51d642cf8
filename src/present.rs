//! Presentation: the result table, JSON, listings and counterexamples.

use crate::explore::{Report, Verdict};
use crate::scenario::Scenario;
use crate::trace::{render_mermaid, render_timeline, Broke};
use serde_json::{json, Value};
use std::fmt::Write as _;

/// The result table, one row per report; rows whose verdict is not the expected one are
/// marked `MISMATCH`.
pub fn table(reports: &[Report]) -> String {
    let header = [
        "scenario",
        "variant",
        "plan",
        "engine",
        "expected",
        "verdict",
        "invariant",
        "first",
        "executions",
        "time",
    ];
    let rows: Vec<[String; 10]> = reports
        .iter()
        .map(|r| {
            [
                r.scenario.clone(),
                r.variant.clone(),
                r.plan.clone(),
                r.engine.clone(),
                r.expected.clone(),
                if r.unwitnessed() {
                    format!("{} (not witnessed)", r.verdict.word())
                } else if r.witness_only() && r.verdict == Verdict::Vacuous {
                    "vacuous (window not reached)".to_string()
                } else if r.as_expected() {
                    r.verdict.word().to_string()
                } else {
                    format!("{} MISMATCH", r.verdict.word())
                },
                r.invariant.clone().unwrap_or_else(|| "-".into()),
                r.first_violation
                    .map_or_else(|| "-".into(), |n| n.to_string()),
                if r.out_of_time {
                    format!("{} (time budget)", r.executions)
                } else {
                    r.executions.to_string()
                },
                format!("{:.2}s", r.elapsed_ms as f64 / 1000.0),
            ]
        })
        .collect();
    let mut widths: Vec<usize> = header.iter().map(|h| h.len()).collect();
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.len());
        }
    }
    let mut out = String::new();
    let line = |out: &mut String, cells: &[&str]| {
        let parts: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        let _ = writeln!(out, "{}", parts.join("  ").trim_end());
    };
    line(&mut out, &header);
    for row in &rows {
        let cells: Vec<&str> = row.iter().map(String::as_str).collect();
        line(&mut out, &cells);
    }
    out
}

/// One report as a JSON object (the keys scripts rely on, plus the counterexample).
pub fn report_json(r: &Report) -> Value {
    serde_json::to_value(r).unwrap_or_else(|e| json!({ "error": e.to_string() }))
}

/// Every report as one JSON array.
pub fn reports_json(reports: &[Report]) -> Value {
    Value::Array(reports.iter().map(report_json).collect())
}

/// A violation's counterexample as text: what broke, how to replay it, and the trace.
pub fn counterexample(r: &Report) -> String {
    let mut out = String::new();
    let (Some(invariant), Some(detail)) = (&r.invariant, &r.detail) else {
        return out;
    };
    let _ = writeln!(
        out,
        "{} / {} / {} under {}: {invariant} broken in execution {}",
        r.scenario,
        r.variant,
        r.plan,
        r.engine,
        r.first_violation.unwrap_or(0)
    );
    let _ = writeln!(out, "  {detail}");
    if r.violations > 1 {
        let _ = writeln!(
            out,
            "  {} of {} executions violated it",
            r.violations, r.executions
        );
    }
    if let Some(schedule) = &r.schedule {
        let _ = writeln!(
            out,
            "  replay: ozone-ha-check replay {} --variant {} --plan {} --schedule '{schedule}'",
            r.scenario, r.variant, r.plan
        );
    }
    if let Some(m) = &r.minimized {
        let _ = writeln!(
            out,
            "  minimized from {} steps, {} context switches ({} preemptions) to {} steps, {} ({}) in {} replays",
            m.found_steps,
            m.found_context_switches,
            m.found_preemptions,
            m.steps,
            m.context_switches,
            m.preemptions,
            m.replays
        );
    }
    let _ = writeln!(out, "  trace ({} steps):", r.trace.len());
    out.push_str(&render_timeline(&r.trace, broke(r), 100));
    out
}

/// Where the report's invariant broke, for the renderers.
pub fn broke(r: &Report) -> Option<Broke<'_>> {
    Some(Broke {
        step: r.violation_step?,
        invariant: r.invariant.as_deref()?,
        detail: r.detail.as_deref()?,
    })
}

/// A violation's counterexample as a Mermaid sequence diagram in a Markdown code block.
pub fn counterexample_mermaid(r: &Report) -> String {
    let Some(invariant) = &r.invariant else {
        return String::new();
    };
    format!(
        "{} / {} / {} under {}: {invariant} broken\n\n```mermaid\n{}```\n",
        r.scenario,
        r.variant,
        r.plan,
        r.engine,
        render_mermaid(&r.trace, broke(r))
    )
}

/// The scenarios, their variants, plans, invariants and expected verdicts, as text.
pub fn listing(scenarios: &[&dyn Scenario]) -> String {
    let mut out = String::new();
    for s in scenarios {
        let info = s.info();
        let _ = writeln!(out, "{} ({}): {}", info.name, info.jira, info.title);
        let _ = writeln!(out, "  variants:");
        for v in info.variants {
            let _ = writeln!(out, "    {:<14} {}", v.name, v.doc);
        }
        let _ = writeln!(out, "  plans:");
        for p in info.plans {
            let _ = writeln!(out, "    {:<14} {}", p.name, p.doc);
        }
        let _ = writeln!(out, "  invariants:");
        for i in info.invariants {
            let _ = writeln!(out, "    {:<24} {}", i.name, i.doc);
        }
        let _ = writeln!(out, "  probes:");
        for p in info.probes {
            let required = if info.required_probes.contains(&p.name) {
                " (required)"
            } else {
                ""
            };
            let _ = writeln!(out, "    {:<24} {}{required}", p.name, p.doc);
        }
        let _ = writeln!(out, "  expected:");
        for (v, p) in info.cases() {
            let e = (info.expected)(v, p);
            let names = e.invariants().join(", ");
            let _ = writeln!(out, "    {v:<14} {p:<10} {:<9} {names}", e.word());
        }
    }
    out
}

/// The same listing as JSON.
pub fn listing_json(scenarios: &[&dyn Scenario]) -> Value {
    let described = |d: &[crate::invariants::Described]| -> Vec<Value> {
        d.iter()
            .map(|x| json!({ "name": x.name, "doc": x.doc }))
            .collect()
    };
    Value::Array(
        scenarios
            .iter()
            .map(|s| {
                let info = s.info();
                let expected: Vec<Value> = info
                    .cases()
                    .map(|(v, p)| {
                        let e = (info.expected)(v, p);
                        json!({ "variant": v, "plan": p, "expected": e.word(), "invariants": e.invariants() })
                    })
                    .collect();
                json!({
                    "scenario": info.name,
                    "jira": info.jira,
                    "title": info.title,
                    "variants": described(info.variants),
                    "plans": described(info.plans),
                    "invariants": described(info.invariants),
                    "probes": described(info.probes),
                    "required_probes": info.required_probes,
                    "expected": expected,
                })
            })
            .collect(),
    )
}

/// The matrix as a Markdown table, with each counterexample as a Mermaid diagram.
pub fn markdown_report(reports: &[Report]) -> String {
    let mut out = String::from("# ozone-ha-check report\n\n");
    out.push_str("| scenario | variant | plan | engine | expected | verdict | invariant | first violation | executions | time (ms) | probe hits |\n");
    out.push_str("|---|---|---|---|---|---|---|---|---|---|---|\n");
    for r in reports {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {}{} | {} | {} | {} | {} | {} |",
            r.scenario,
            r.variant,
            r.plan,
            r.engine,
            r.expected,
            r.verdict.word(),
            if r.as_expected() { "" } else { " **MISMATCH**" },
            r.invariant.as_deref().unwrap_or("-"),
            r.first_violation
                .map_or_else(|| "-".into(), |n| n.to_string()),
            r.executions,
            r.elapsed_ms,
            probes_text(r)
        );
    }
    for r in reports.iter().filter(|r| r.invariant.is_some()) {
        out.push_str("\n## ");
        out.push_str(&counterexample_mermaid(r));
    }
    out
}

fn probes_text(r: &Report) -> String {
    r.probes
        .iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn html_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The matrix as one self-contained HTML page (no scripts, no external files), with each
/// counterexample's timeline.
pub fn html_report(reports: &[Report]) -> String {
    let mut out = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>ozone-ha-check report</title>\n<style>\nbody{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.25em .5em;text-align:left}\ntr.mismatch{background:#fdd}td.violated{color:#a00}td.held{color:#070}pre{background:#f6f6f6;padding:1em;overflow-x:auto}\n</style></head><body>\n<h1>ozone-ha-check report</h1>\n<table id=\"matrix\">\n<thead><tr><th>scenario</th><th>variant</th><th>plan</th><th>engine</th><th>expected</th><th>verdict</th><th>invariant</th><th>first violation</th><th>executions</th><th>time (ms)</th><th>probe hits</th></tr></thead>\n<tbody>\n",
    );
    for (i, r) in reports.iter().enumerate() {
        let class = if r.as_expected() {
            ""
        } else {
            " class=\"mismatch\""
        };
        let invariant = match &r.invariant {
            Some(name) => format!("<a href=\"#cx{i}\">{}</a>", html_escape(name)),
            None => "-".into(),
        };
        let _ = writeln!(
            out,
            "<tr{class}><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"{}\">{}</td><td>{invariant}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            html_escape(&r.scenario),
            html_escape(&r.variant),
            html_escape(&r.plan),
            html_escape(&r.engine),
            html_escape(&r.expected),
            r.verdict.word(),
            r.verdict.word(),
            r.first_violation.map_or_else(|| "-".into(), |n| n.to_string()),
            r.executions,
            r.elapsed_ms,
            html_escape(&probes_text(r))
        );
    }
    out.push_str("</tbody></table>\n");
    for (i, r) in reports
        .iter()
        .enumerate()
        .filter(|(_, r)| r.invariant.is_some())
    {
        let _ = writeln!(
            out,
            "<section id=\"cx{i}\"><h2>{} / {} / {} ({})</h2>\n<pre>{}</pre></section>",
            html_escape(&r.scenario),
            html_escape(&r.variant),
            html_escape(&r.plan),
            html_escape(&r.engine),
            html_escape(&counterexample(r))
        );
    }
    out.push_str("</body></html>\n");
    out
}
