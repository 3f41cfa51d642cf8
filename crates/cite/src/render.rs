//! A [`CiteReport`] as text or JSON, with the cases that use each changed or missing
//! citation.

use super::check::{Checked, CiteReport, SourceChecked, Status};
use super::usage::{CaseRef, Usage};
use serde_json::{json, Value};
use std::fmt::Write as _;

fn span(lines: Option<(usize, usize)>) -> String {
    match lines {
        Some((a, b)) if a == b => format!(":{a}"),
        Some((a, b)) => format!(":{a}-{b}"),
        None => String::new(),
    }
}

fn short(commit: &str) -> &str {
    commit.get(..12).unwrap_or(commit)
}

fn location(c: &Checked) -> String {
    let mut s = format!("{}{}", c.file, span(c.lines));
    if c.status == Status::Moved {
        let _ = write!(s, " (was {})", span(c.pinned_lines).trim_start_matches(':'));
    }
    if let Some(d) = &c.detail {
        let _ = write!(s, " ({d})");
    }
    s
}

/// One source: its name, commit and (historical source) repository and `about`, where
/// it was checked and how.
fn source_line(s: &SourceChecked) -> String {
    let name = if s.is_historical() {
        format!(
            "{}: {} {} ({})",
            s.source,
            s.repository,
            short(&s.pinned),
            s.about.as_deref().unwrap_or("")
        )
    } else {
        format!("{} {}", s.source, short(&s.pinned))
    };
    let why = |e: &str| e.lines().next().unwrap_or("").to_string();
    match (&s.dir, &s.baseline) {
        (None, _) if s.is_historical() => {
            format!("{name}: not checked (no --{} checkout given)", s.repository)
        }
        (None, _) => format!("{name}: not checked (no checkout given)"),
        (Some(d), Ok(())) if s.is_historical() => format!(
            "{name} in {}: read from git at that commit, whatever the work tree",
            d.display()
        ),
        (Some(d), Ok(())) => format!(
            "{name} in {}: lines compared with the pinned commit",
            d.display()
        ),
        (Some(d), Err(e)) if s.is_historical() => {
            format!("{name} in {}: not checked ({})", d.display(), why(e))
        }
        (Some(d), Err(e)) => format!(
            "{name} in {}: lines not compared ({}); a matching fingerprint counts as unchanged",
            d.display(),
            why(e)
        ),
    }
}

const ORDER: [Status; 5] = [
    Status::Unchanged,
    Status::Moved,
    Status::Changed,
    Status::Missing,
    Status::NotChecked,
];

/// One line per citation (status, id, file:lines), a summary line, then for each changed
/// or missing citation the cases that use it. `usage` is `None` when it was not computed.
pub fn text(report: &CiteReport, usage: Option<&Usage>) -> String {
    let mut out = String::new();
    for s in &report.sources {
        let _ = writeln!(out, "{}", source_line(s));
    }
    let width = report
        .citations
        .iter()
        .map(|c| c.id.len())
        .max()
        .unwrap_or(0);
    for c in &report.citations {
        let _ = writeln!(
            out,
            "{:<11} {:<width$}  {}",
            c.status.word(),
            c.id,
            location(c)
        );
    }
    let counts: Vec<String> = ORDER
        .iter()
        .map(|s| format!("{} {}", report.count(*s), s.word()))
        .collect();
    let _ = writeln!(out, "{}", counts.join(", "));
    let problems: Vec<&Checked> = report
        .citations
        .iter()
        .filter(|c| c.status.is_problem())
        .collect();
    if !problems.is_empty() {
        let _ = writeln!(out, "\nchanged or missing, and the cases that use them:");
        for c in problems {
            let _ = writeln!(out, "  {} ({})", c.id, c.status.word());
            match usage {
                None => {
                    let _ = writeln!(out, "    (cases not computed)");
                }
                Some(u) => match u.get(&c.id).filter(|v| !v.is_empty()) {
                    None => {
                        let _ = writeln!(out, "    no explored trace prints it");
                    }
                    Some(cases) => {
                        for k in cases {
                            let _ = writeln!(out, "    {} {} {}", k.scenario, k.variant, k.plan);
                        }
                    }
                },
            }
        }
    }
    out
}

/// The report as JSON: `sources` (each with `source`, `repository`, `historical`, `about`,
/// `pinned`, `dir`, and whether the checkout's history has the pinned commit:
/// `lines_compared`, or why not; a historical source without it is not checked),
/// `citations` (each with `status`, `lines`, `pinned_lines`, `detail` and, when `usage` is
/// given, `used_by` for the changed or missing ones) and `summary` (counts per status).
pub fn json(report: &CiteReport, usage: Option<&Usage>) -> Value {
    let sources: Vec<Value> = report
        .sources
        .iter()
        .map(|s| {
            json!({
                "source": s.source,
                "repository": s.repository,
                "historical": s.is_historical(),
                "about": s.about,
                "pinned": s.pinned,
                "dir": s.dir,
                "lines_compared": s.baseline.is_ok(),
                "lines_not_compared_because": s.baseline.as_ref().err(),
            })
        })
        .collect();
    let citations: Vec<Value> = report
        .citations
        .iter()
        .map(|c| {
            let mut v = json!(c);
            if let (Some(u), true, Some(obj)) = (usage, c.status.is_problem(), v.as_object_mut()) {
                obj.insert(
                    "used_by".into(),
                    json!(u.get(&c.id).map_or(&[][..], Vec::<CaseRef>::as_slice)),
                );
            }
            v
        })
        .collect();
    let summary: serde_json::Map<String, Value> = ORDER
        .iter()
        .map(|s| (s.word().to_string(), json!(report.count(*s))))
        .collect();
    json!({
        "sources": sources,
        "citations": citations,
        "summary": summary,
        "clean": report.clean(),
    })
}
