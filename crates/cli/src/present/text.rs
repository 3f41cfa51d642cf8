//! Text for a terminal: the per-case lines and summary of `check`, the result table, the
//! listing of `list`, and a counterexample as a timeline.

use super::{broke, verdict_words};
use ozone_ha_check::engine::Engine;
use ozone_ha_check::explore::{Expectation, Report, Verdict};
use ozone_ha_check::scenario::GENERATED;
use ozone_ha_check::scenarios::AnyScenario;
use ozone_ha_check::trace::render_timeline;
use ozone_ha_check::workload::{Kind, Vocabulary};
use serde_json::{json, Value};
use std::collections::BTreeSet;
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
                r.engine.to_string(),
                r.expected.word().to_string(),
                if r.as_expected() {
                    verdict_words(r)
                } else {
                    format!("{} MISMATCH", verdict_words(r))
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
    } else if r.engine == Engine::Stateful {
        let _ = writeln!(
            out,
            "  no replay: the stateful engine's schedules replay only in its own mode, and the \
             minimizer did not carry this one to shuttle (or `--no-minimize` kept it as found)"
        );
    }
    if let Some(m) = &r.minimized {
        let _ = writeln!(out, "  {}", minimized_words(m));
    }
    let _ = writeln!(out, "  trace ({} steps):", r.trace.len());
    out.push_str(&render_timeline(&r.trace, broke(r), 100));
    out
}

/// One line for one case (its reports under every engine and seed), as `cargo test` prints
/// one line per test: `scenario variant/plan ... ok` and what each engine found.
pub fn case_line(reports: &[Report]) -> String {
    let Some(first) = reports.first() else {
        return String::new();
    };
    let ok = reports.iter().all(Report::as_expected);
    let found: Vec<String> = reports
        .iter()
        .map(|r| {
            let seed = match (r.seed, reports.len() > 1 && r.seed.is_some()) {
                (Some(seed), true)
                    if reports.iter().filter(|o| o.engine == r.engine).count() > 1 =>
                {
                    format!(" seed {seed}")
                }
                _ => String::new(),
            };
            let what = match (&r.invariant, r.first_violation) {
                (Some(i), Some(n)) => format!("{} {i} at {n}", verdict_words(r)),
                _ => format!("{} in {}{}", verdict_words(r), r.executions, coverage(r)),
            };
            let mark = if r.as_expected() { "" } else { " (UNEXPECTED)" };
            format!("{}{seed}: {what}{mark}", r.engine)
        })
        .collect();
    let name = format!("{} {}/{}", first.scenario, first.variant, first.plan);
    format!(
        "{name:<46} {} {}",
        if ok { "ok    " } else { "FAILED" },
        found.join("; ")
    )
}

/// How far an exploration that found nothing got: every schedule (with loom's bound, or
/// `unbounded`), or stopped by the clock; nothing for the sampling engines. A generated
/// plan's line says over which workloads: `(exhausted; every workload of at most 2
/// requests and 1 fault (83 workloads))`, or `(sampled from every workload of ...)`.
fn coverage(r: &Report) -> String {
    let how = how_far(r);
    match (&r.scope, how.is_empty()) {
        (None, _) => how,
        (Some(scope), true) => format!(" (sampled from {scope})"),
        (Some(scope), false) => format!("{}; {scope})", how.trim_end_matches(')')),
    }
}

/// For each report of a case that counted them, the states the stateful engine met by what
/// reached each ([`Report::state_origins`]), most first, one line each, with its share.
pub fn state_origins(reports: &[Report]) -> String {
    let mut out = String::new();
    for r in reports.iter().filter(|r| !r.state_origins.is_empty()) {
        let total: u64 = r.state_origins.values().sum();
        out += &format!("  {}: {total} states, by what reached them:\n", r.engine);
        let mut origins: Vec<(&String, &u64)> = r.state_origins.iter().collect();
        origins.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        for (what, n) in origins {
            let share = *n as f64 * 100.0 / total as f64;
            out += &format!("    {n:>10} {share:5.1}%  {what}\n");
        }
    }
    out
}

fn how_far(r: &Report) -> String {
    if r.out_of_time {
        " (out of time: not exhausted)".to_string()
    } else if r.exhausted {
        match (r.engine, r.settings.as_str()) {
            (Engine::Loom, "no preemption bound") => " (exhausted, unbounded)".to_string(),
            (Engine::Loom, settings) => format!(" (exhausted, {settings})"),
            (Engine::Stateful, _) => match r.states {
                Some(states) if states > 0 => {
                    let searched = r.executions.saturating_sub(r.walks.unwrap_or(0)) as f64;
                    let (finals, per_final) = match r.final_states.filter(|&f| f > 0) {
                        Some(f) => (
                            format!(" and {f} final ones"),
                            format!(" and {:.2} per final state", searched / f as f64),
                        ),
                        None => (String::new(), String::new()),
                    };
                    format!(
                        " (exhausted: {states} states{finals}, {:.2} executions per \
                         state{per_final}{}{}{})",
                        searched / states as f64,
                        r.walks
                            .filter(|&w| w > 0)
                            .map_or_else(String::new, |w| format!(" besides {w} in random walks")),
                        r.reduction.map_or_else(String::new, |c| format!(
                            "; cut: {} paths at a state met before, {} at a complete state; \
                             {} options asleep, {} after exit steps{}",
                            c.revisits,
                            c.complete,
                            c.asleep,
                            c.persistent,
                            if c.sources > 0 {
                                format!(", {} outside the source sets", c.sources)
                            } else {
                                String::new()
                            }
                        )),
                        r.witness_search.map_or_else(String::new, |n| format!(
                            "; then {n} ordering witnesses, to meet the required probes"
                        ))
                    )
                }
                _ => " (exhausted)".to_string(),
            },
            _ => " (exhausted)".to_string(),
        }
    } else {
        String::new()
    }
}

/// The last line of a run: how many cases (and, when a case has several engines or seeds,
/// how many verdicts) were as expected, the expected verdicts by kind, and the time.
pub fn summary(reports: &[Report], elapsed: std::time::Duration) -> String {
    fn case(r: &Report) -> (&str, &str, &str) {
        (&r.scenario, &r.variant, &r.plan)
    }
    let expected: Vec<&Report> = reports.iter().filter(|r| r.as_expected()).collect();
    let count = |f: &dyn Fn(&Report) -> bool| expected.iter().filter(|r| f(r)).count();
    let mut parts = vec![
        format!("{} violated", count(&|r| r.verdict == Verdict::Violated)),
        format!(
            "{} held",
            count(&|r| r.verdict == Verdict::Held && !r.unwitnessed())
        ),
    ];
    let unwitnessed = count(&|r| r.unwitnessed());
    if unwitnessed > 0 {
        parts.push(format!("{unwitnessed} not witnessed"));
    }
    let unreached =
        count(&|r| r.witness_only() && r.verdict == Verdict::Vacuous && !r.unwitnessed());
    if unreached > 0 {
        parts.push(format!("{unreached} window not reached"));
    }
    let unjudged = count(&|r| r.expected == Expectation::NotJudged);
    if unjudged > 0 {
        parts.push(format!(
            "{unjudged} not judged (off the default size or bounds)"
        ));
    }
    let cases: BTreeSet<_> = reports.iter().map(case).collect();
    let failed: BTreeSet<_> = reports
        .iter()
        .filter(|r| !r.as_expected())
        .map(case)
        .collect();
    let good_cases = cases.len() - failed.len();
    let unexpected = reports.len() - expected.len();
    let head = if reports.len() == cases.len() {
        format!("{good_cases} cases as expected")
    } else {
        format!(
            "{good_cases} cases ({} verdicts) as expected",
            expected.len()
        )
    };
    format!(
        "{head}: {}; {unexpected} unexpected ({:.1}s)",
        parts.join(", "),
        elapsed.as_secs_f64()
    )
}

/// The scenarios, their variants, plans, properties (an invariant with its harm) and
/// expected verdicts, as text.
pub fn listing(scenarios: &[&dyn AnyScenario]) -> String {
    let mut out = String::new();
    for s in scenarios {
        let _ = writeln!(out, "{} ({}): {}", s.name(), s.jira(), s.title());
        let _ = writeln!(out, "  variants:");
        for v in s.variants() {
            let _ = writeln!(out, "    {:<18} {}", v.name, v.doc);
        }
        let _ = writeln!(out, "  plans:");
        for p in s.plans() {
            let _ = writeln!(out, "    {:<18} {}", p.name, p.doc);
        }
        if let Some(v) = s.vocabulary() {
            vocabulary(&mut out, &v);
        }
        let _ = writeln!(out, "  properties:");
        for p in s.properties() {
            let kind = if p.required {
                "sometimes, required".to_string()
            } else {
                p.kind.word().to_string()
            };
            let _ = writeln!(out, "    {:<38} {:<20} {}", p.name, kind, p.doc);
            if let Some(harm) = p.harm() {
                let _ = writeln!(out, "    {:<38} {:<20} harm: {harm}", "", "");
            }
        }
        let _ = writeln!(out, "  expected:");
        for c in s.cases() {
            if let Ok(e) = s.expected(c.variant, c.plan) {
                let names = e.invariants().join(", ");
                let _ = writeln!(
                    out,
                    "    {:<18} {:<18} {:<9} {names}",
                    c.variant,
                    c.plan,
                    e.word()
                );
            }
        }
    }
    out
}

/// The `generated` plan's vocabulary: universes, words and default bounds, with the number
/// of workloads within them.
fn vocabulary(out: &mut String, v: &Vocabulary) {
    let _ = writeln!(
        out,
        "  vocabulary (plan `{GENERATED}`; default: {}, {} workloads):",
        v.bounds,
        v.count(v.bounds)
    );
    for u in v.universes {
        let symmetric = if u.symmetric { ", symmetric" } else { "" };
        let _ = writeln!(out, "    {:<18} {}{symmetric}", u.name, u.values.join(", "));
    }
    for w in v.words {
        let args: Vec<&str> = w.args.iter().map(|&u| v.universes[u].name).collect();
        let kind = match w.kind {
            Kind::Request => "request",
            Kind::Fault => "fault",
        };
        let head = format!("{}({})", w.name, args.join(","));
        let _ = writeln!(out, "    {head:<18} {kind:<8} {}", w.doc);
    }
}

/// A vocabulary as JSON.
fn vocabulary_json(v: &Vocabulary) -> Value {
    json!({
        "universes": v.universes.iter().map(|u| json!({ "name": u.name, "values": u.values, "symmetric": u.symmetric })).collect::<Vec<_>>(),
        "words": v.words.iter().map(|w| json!({
            "name": w.name,
            "kind": w.kind,
            "args": w.args.iter().map(|&u| v.universes[u].name).collect::<Vec<_>>(),
            "doc": w.doc,
        })).collect::<Vec<_>>(),
        "bounds": v.bounds,
        "workloads": v.count(v.bounds).to_string(),
    })
}

/// The same listing as JSON.
pub fn listing_json(scenarios: &[&dyn AnyScenario]) -> Value {
    Value::Array(
        scenarios
            .iter()
            .map(|s| {
                let named = |n: Vec<ozone_ha_check::scenarios::Named>| -> Vec<Value> {
                    n.iter()
                        .map(|x| json!({ "name": x.name, "doc": x.doc }))
                        .collect()
                };
                let properties = |ps: Vec<ozone_ha_check::properties::Property>| -> Vec<Value> {
                    ps.iter()
                        .map(|p| {
                            let mut entry = json!({ "name": p.name, "doc": p.doc, "kind": p.kind, "required": p.required });
                            if let Some(harm) = p.harm() {
                                entry["harm"] = json!(harm);
                            }
                            entry
                        })
                        .collect()
                };
                let expected: Vec<Value> = s
                    .cases()
                    .iter()
                    .filter_map(|c| {
                        let e = s.expected(c.variant, c.plan).ok()?;
                        Some(json!({ "variant": c.variant, "plan": c.plan, "expected": e.word(), "invariants": e.invariants() }))
                    })
                    .collect();
                json!({
                    "scenario": s.name(),
                    "jira": s.jira(),
                    "title": s.title(),
                    "variants": named(s.variants()),
                    "plans": named(s.plans()),
                    "invariants": properties(s.invariants()),
                    "probes": properties(s.probes()),
                    "required_probes": s.required_probes(),
                    "size_knob": s.size_knob().map(|k| json!({ "counts": k.counts, "default": k.default })),
                    "vocabulary": s.vocabulary().as_ref().map(vocabulary_json),
                    "expected": expected,
                })
            })
            .collect(),
    )
}

/// `n` and `word`, in the plural unless `n` is 1.
fn count(n: usize, word: &str) -> String {
    match (n, word.ends_with("ch")) {
        (1, _) => format!("{n} {word}"),
        (_, true) => format!("{n} {word}es"),
        _ => format!("{n} {word}s"),
    }
}

/// How a counterexample was minimized, in one line.
///
/// ```
/// use ozone_ha_check::explore::Minimized;
/// use ozone_ha_check_cli::present::text::minimized_words;
/// use ozone_ha_check::explore::Carried;
/// let mut m = Minimized { found_steps: 19, found_context_switches: 41, found_preemptions: 33, steps: 9, preemptions: 1, context_switches: 6, replays: 733, found_workload: None, workload: None, carried: None };
/// assert_eq!(minimized_words(&m), "minimized from 33 preemptions, 41 context switches and 19 steps to 1 preemption, 6 context switches and 9 steps in 733 replays");
/// (m.found_workload, m.workload) = (Some(3), Some(2));
/// assert!(minimized_words(&m).ends_with("9 steps, the workload from 3 items to 2, in 733 replays"));
/// m.carried = Some(Carried { steps: 21, context_switches: 30, replays: 1 });
/// assert!(minimized_words(&m).starts_with("found in 30 context switches and 21 steps, carried to shuttle in 1 replay; minimized from 33 preemptions"));
/// ```
pub fn minimized_words(m: &ozone_ha_check::explore::Minimized) -> String {
    let workload = match (m.found_workload, m.workload) {
        (Some(found), Some(items)) => {
            format!(", the workload from {} to {items},", count(found, "item"))
        }
        _ => String::new(),
    };
    let carried = match m.carried {
        Some(c) => format!(
            "found in {} and {}, carried to shuttle in {}; ",
            count(c.context_switches, "context switch"),
            count(c.steps, "step"),
            count(c.replays, "replay")
        ),
        None => String::new(),
    };
    format!(
        "{carried}minimized from {}, {} and {} to {}, {} and {}{workload} in {}",
        count(m.found_preemptions, "preemption"),
        count(m.found_context_switches, "context switch"),
        count(m.found_steps, "step"),
        count(m.preemptions, "preemption"),
        count(m.context_switches, "context switch"),
        count(m.steps, "step"),
        count(m.replays, "replay"),
    )
}
