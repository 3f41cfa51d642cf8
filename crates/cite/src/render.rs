//! A [`CiteReport`] as text or JSON, with the cases that use each changed or missing
//! citation.

use super::check::{Checked, CiteReport, SourceChecked, Status};
use super::since::SinceReport;
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

/// The cases of `usage` that use `id`, grouped by scenario: (scenario, variants, plans),
/// each in order and without repeats.
pub fn scenarios_of(usage: &Usage, id: &str) -> Vec<(String, Vec<String>, Vec<String>)> {
    let mut by: std::collections::BTreeMap<&str, (Vec<String>, Vec<String>)> =
        std::collections::BTreeMap::new();
    for k in usage.get(id).map_or(&[][..], Vec::as_slice) {
        let (variants, plans) = by.entry(&k.scenario).or_default();
        for (list, item) in [(variants, &k.variant), (plans, &k.plan)] {
            if !list.contains(item) {
                list.push(item.clone());
            }
        }
    }
    by.into_iter()
        .map(|(s, (v, p))| (s.to_string(), v, p))
        .collect()
}

/// Where a scenario's model is, in this repository (its module documentation has the
/// Abstractions table).
pub fn model_path(scenario: &str) -> String {
    format!(
        "crates/core/src/scenarios/{}.rs",
        scenario.replace('-', "_")
    )
}

/// Lines at one commit, `-` when the method is not there.
fn since_lines(lines: Option<(usize, usize)>) -> String {
    match lines {
        Some(l) => span(Some(l)).trim_start_matches(':').to_string(),
        None => "-".to_string(),
    }
}

/// `--since` as text: the two commits, one block per touched citation (change, lines at
/// both commits, the cases that use it, links at both commits), and the counts.
pub fn since_text(report: &SinceReport, usage: Option<&Usage>) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "ozone in {}: {} ({}) -> HEAD {}",
        report.dir.display(),
        short(&report.base),
        report.rev,
        short(&report.head)
    );
    for t in &report.touched {
        let _ = writeln!(
            out,
            "{:<8} {}  {}:{} -> {}",
            t.change.word(),
            t.id,
            t.file,
            since_lines(t.base_lines),
            since_lines(t.head_lines)
        );
        if let Some(d) = &t.detail {
            let _ = writeln!(out, "    ({d})");
        }
        match usage {
            None => {
                let _ = writeln!(out, "    (cases not computed)");
            }
            Some(u) => match u.get(&t.id).filter(|v| !v.is_empty()) {
                None => {
                    let _ = writeln!(out, "    no explored trace prints it");
                }
                Some(cases) => {
                    for k in cases {
                        let _ =
                            writeln!(out, "    used by {} {} {}", k.scenario, k.variant, k.plan);
                    }
                }
            },
        }
        if t.base_lines.is_some() {
            let _ = writeln!(
                out,
                "    base: {}",
                report.url(&report.base, &t.file, t.base_lines)
            );
        }
        if t.head_lines.is_some() {
            let _ = writeln!(
                out,
                "    head: {}",
                report.url(&report.head, &t.file, t.head_lines)
            );
        }
    }
    let _ = writeln!(
        out,
        "{} touched, {} unchanged, {} moved, {} at neither commit",
        report.touched.len(),
        report.unchanged,
        report.moved,
        report.absent
    );
    out
}

/// `--since` as JSON: the report's fields, each touched citation with `used_by` (the
/// cases, when computed) and `base_url` / `head_url`.
pub fn since_json(report: &SinceReport, usage: Option<&Usage>) -> Value {
    let mut v = json!(report);
    if let Some(list) = v.get_mut("touched").and_then(Value::as_array_mut) {
        for (item, t) in list.iter_mut().zip(&report.touched) {
            let Some(obj) = item.as_object_mut() else {
                continue;
            };
            if let Some(u) = usage {
                obj.insert(
                    "used_by".into(),
                    json!(u.get(&t.id).map_or(&[][..], Vec::<CaseRef>::as_slice)),
                );
            }
            let url = |commit: &str, lines: Option<(usize, usize)>| {
                lines.map(|l| report.url(commit, &t.file, Some(l)))
            };
            obj.insert("base_url".into(), json!(url(&report.base, t.base_lines)));
            obj.insert("head_url".into(), json!(url(&report.head, t.head_lines)));
        }
    }
    if let Some(obj) = v.as_object_mut() {
        obj.insert("touches".into(), json!(report.touches()));
    }
    v
}

/// `--since` as Markdown, for a pull request's comment or a job's summary: a heading, a
/// table (method, change, scenarios to re-read, links at both commits) and a line of
/// counts; one sentence when nothing cited was touched.
pub fn since_markdown(report: &SinceReport, usage: Option<&Usage>) -> String {
    let mut out = String::new();
    let commits = format!(
        "`{}` (`{}`) → `{}`",
        short(&report.base),
        report.rev.replace('`', ""),
        short(&report.head)
    );
    if !report.touches() {
        let _ = writeln!(
            out,
            "### ozone-ha-check: no cited Ozone method touched\n\n{commits}: {} cited methods unchanged, {} moved only.",
            report.unchanged, report.moved
        );
        return out;
    }
    let _ = writeln!(
        out,
        "### ozone-ha-check: {} cited Ozone method(s) touched\n\n{commits}. The models cite these methods: re-read each scenario's model (its Abstractions table) against the new code.\n",
        report.touched.len()
    );
    let _ = writeln!(
        out,
        "| Method | Change | Scenarios to re-read | Base | Head |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|");
    for t in &report.touched {
        let scenarios = match usage {
            None => "(not computed)".to_string(),
            Some(u) => {
                let groups = scenarios_of(u, &t.id);
                if groups.is_empty() {
                    "none (no explored trace prints it)".to_string()
                } else {
                    groups
                        .iter()
                        .map(|(s, v, p)| {
                            format!(
                                "`{s}` (`{}`; variants {}; plans {})",
                                model_path(s),
                                v.join(", "),
                                p.join(", ")
                            )
                        })
                        .collect::<Vec<_>>()
                        .join("<br>")
                }
            }
        };
        let link = |commit: &str, lines: Option<(usize, usize)>| match lines {
            Some(l) => format!(
                "[{}]({})",
                span(Some(l)).trim_start_matches(':'),
                report.url(commit, &t.file, Some(l))
            ),
            None => "-".to_string(),
        };
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} | {} |",
            t.id,
            t.change.word(),
            scenarios,
            link(&report.base, t.base_lines),
            link(&report.head, t.head_lines)
        );
    }
    let _ = writeln!(
        out,
        "\n{} unchanged, {} moved only. After the models are updated, re-pin with `ozone-ha-check cite --record`.",
        report.unchanged, report.moved
    );
    out
}
