//! Presentation: the result table, JSON, listings and counterexamples.

use crate::explore::Report;
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
                } else if r.as_expected() {
                    r.verdict.word().to_string()
                } else {
                    format!("{} MISMATCH", r.verdict.word())
                },
                r.invariant.clone().unwrap_or_else(|| "-".into()),
                r.first_violation
                    .map_or_else(|| "-".into(), |n| n.to_string()),
                r.executions.to_string(),
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
