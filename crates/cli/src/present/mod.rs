//! Presentation: what `check`, `list`, `replay` and `report` print.
//!
//! - [`text`]: the per-case lines, the summary, the result table, listings and the
//!   counterexample timeline;
//! - [`markdown`]: the Markdown report, with counterexamples as Mermaid diagrams;
//! - [`matrix`]: per scenario, the verdict matrix (variants by plans, each engine's
//!   verdict in a cell);
//! - [`svg`]: a counterexample as an SVG sequence diagram;
//! - [`html`]: the self-contained HTML page that puts them together;
//! - [`jira`]: a counterexample as a bug report in Jira's markup;
//! - JSON here: every report as the `--json` array.

pub mod html;
pub mod jira;
pub mod markdown;
pub mod matrix;
pub mod svg;
pub mod text;

pub use html::{html_report, Page};
pub use jira::counterexample_jira;
pub use markdown::{counterexample_mermaid, markdown_report};
pub use text::{case_line, counterexample, listing, listing_json, state_origins, summary, table};

use ozone_ha_check::citation::Links;
use ozone_ha_check::explore::{Report, Verdict};
use ozone_ha_check::trace::{linked_trace, Broke};
use serde_json::{json, Value};

/// One report as a JSON object (the keys scripts rely on, plus the counterexample), each
/// trace step's `java_url` from `links`.
pub fn report_json(r: &Report, links: &Links) -> Value {
    let mut v = serde_json::to_value(r).unwrap_or_else(|e| json!({ "error": e.to_string() }));
    if let Some(trace) = v.get_mut("trace") {
        *trace = linked_trace(&r.trace, links);
    }
    v
}

/// Every report as one JSON array.
pub fn reports_json(reports: &[Report], links: &Links) -> Value {
    Value::Array(reports.iter().map(|r| report_json(r, links)).collect())
}

/// Where the report's invariant broke, for the renderers.
pub fn broke(r: &Report) -> Option<Broke<'_>> {
    Some(Broke {
        step: r.violation_step?,
        invariant: r.invariant.as_deref()?,
        detail: r.detail.as_deref()?,
    })
}

/// The harm of the report's broken invariant: what breaking it does to a running cluster.
pub fn harm(r: &Report) -> Option<&'static str> {
    let invariant = r.invariant.as_deref()?;
    ozone_ha_check::scenarios::find(&r.scenario)?
        .invariant(invariant)?
        .harm()
}

/// The verdict in words, with what a witness-only engine could not show.
pub fn verdict_words(r: &Report) -> String {
    if r.unwitnessed() && r.all_beyond_reach() {
        format!(
            "{} (not witnessed: declared beyond {}'s reach)",
            r.verdict.word(),
            r.engine
        )
    } else if r.unwitnessed() {
        format!("{} (not witnessed)", r.verdict.word())
    } else if r.witness_only() && r.verdict == Verdict::Vacuous {
        "vacuous (window not reached)".to_string()
    } else {
        r.verdict.word().to_string()
    }
}

/// The four outcomes a reader tells apart, each with its own colour and word.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Outcome {
    /// An invariant broke.
    Violated,
    /// Every invariant held, the race window reached.
    Held,
    /// Every invariant held, but the window was never reached: no evidence.
    Vacuous,
    /// A witness-only engine (real threads) did not see an expected violation.
    NotWitnessed,
}

impl Outcome {
    /// The outcome of a report.
    pub fn of(r: &Report) -> Outcome {
        if r.unwitnessed() {
            return Outcome::NotWitnessed;
        }
        match r.verdict {
            Verdict::Violated => Outcome::Violated,
            Verdict::Held => Outcome::Held,
            Verdict::Vacuous => Outcome::Vacuous,
        }
    }

    /// The word: `violated`, `held`, `vacuous` or `not witnessed`.
    pub fn word(self) -> &'static str {
        match self {
            Outcome::Violated => "violated",
            Outcome::Held => "held",
            Outcome::Vacuous => "vacuous",
            Outcome::NotWitnessed => "not witnessed",
        }
    }

    /// The CSS class of the page.
    pub fn class(self) -> &'static str {
        match self {
            Outcome::Violated => "violated",
            Outcome::Held => "held",
            Outcome::Vacuous => "vacuous",
            Outcome::NotWitnessed => "unwitnessed",
        }
    }

    /// Every outcome, for legends.
    pub const ALL: [Outcome; 4] = [
        Outcome::Violated,
        Outcome::Held,
        Outcome::Vacuous,
        Outcome::NotWitnessed,
    ];
}

/// The verdict matrices of `reports` as one SVG picture (`report --format svg-matrix`).
pub fn matrix_svg(reports: &[Report]) -> String {
    matrix::svg(&matrix::matrices(reports))
}

/// A report's counterexample as an SVG sequence diagram, headed by what broke where, each
/// Java method linked through `links`; the diagram of `check --trace svg`, `replay --trace
/// svg`, of the HTML report and of the file `check --save` writes beside each fixture.
/// Empty for a report without a violation.
pub fn counterexample_svg(r: &Report, links: &Links) -> String {
    let Some(invariant) = &r.invariant else {
        return String::new();
    };
    let title = format!(
        "{} / {} / {} under {}: {invariant} broken ({} steps)",
        r.scenario,
        r.variant,
        r.plan,
        r.engine,
        r.trace.len()
    );
    svg::sequence_diagram(&r.trace, broke(r), &title, links)
}
