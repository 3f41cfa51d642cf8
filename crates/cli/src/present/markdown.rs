//! The Markdown report: the result table, then each counterexample as a Mermaid sequence
//! diagram (which GitHub and most Markdown viewers draw).

use super::{broke, harm, verdict_words};
use ozone_ha_check::explore::Report;
use ozone_ha_check::trace::render_mermaid;
use std::fmt::Write as _;

/// A violation's counterexample as a Mermaid sequence diagram in a Markdown code block,
/// after the broken invariant's harm.
pub fn counterexample_mermaid(r: &Report) -> String {
    let Some(invariant) = &r.invariant else {
        return String::new();
    };
    let harm = harm(r).map_or(String::new(), |h| format!("\n\nHarm: {h}"));
    format!(
        "{} / {} / {} under {}: {invariant} broken{harm}\n\n```mermaid\n{}```\n",
        r.scenario,
        r.variant,
        r.plan,
        r.engine,
        render_mermaid(&r.trace, broke(r))
    )
}

/// The probe hits of a report, `name hits` separated by commas.
pub fn probes_text(r: &Report) -> String {
    r.probes
        .iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect::<Vec<_>>()
        .join(", ")
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
            r.expected.word(),
            verdict_words(r),
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
