//! A counterexample as a file: the schedule that replays it and the domain trace it gave,
//! in a stable JSON schema (`ozone-ha-check/counterexample/v1`).
//!
//! Schedules change meaning when a model or an engine changes; the domain trace does not.
//! A committed counterexample is replayed in CI, and a replay whose trace no longer matches
//! fails with a diff of the two traces.
//!
//! Schema (every key always present; `null` where not known):
//!
//! | key | type | meaning |
//! |---|---|---|
//! | `format` | string | `"ozone-ha-check/counterexample/v1"` |
//! | `scenario`, `variant`, `plan`, `engine` | string | what was explored, and by which engine |
//! | `invariant` | string | the invariant that broke |
//! | `detail` | string | the state that breaks it |
//! | `violation_step` | number | the trace step at which it broke |
//! | `schedule` | string or null | the replayable schedule (`v1:...`), shuttle engines only |
//! | `context_switches` | number or null | task switches in the schedule |
//! | `trace` | array | steps: `{step, actor, java, action, java_url}` |
//!
//! A step's `java_url` is the link of the Java method it stands for: the file at the
//! pinned commit on GitHub, with `#L<first>-L<last>` when a checkout at that commit located
//! the method (`--ozone`, `--ratis`; see [`crate::citation::links`]), or `null` for a model
//! step. It is derived from `java` and is not read back: files written before it existed
//! parse, and traces compare by their four other keys.

use crate::citation::Links;
use crate::engine::Schedule;
use crate::explore::Report;
use crate::trace::{Event, Linked};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// The schema tag.
pub const FORMAT: &str = "ozone-ha-check/counterexample/v1";

/// Why a text is not a counterexample.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CounterexampleError {
    /// Not JSON of the schema.
    NotJson(String),
    /// JSON of another schema.
    Format(String),
}

impl std::fmt::Display for CounterexampleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CounterexampleError::NotJson(e) => write!(f, "not a counterexample file: {e}"),
            CounterexampleError::Format(found) => write!(
                f,
                "unknown counterexample format `{found}` (expected `{FORMAT}`)"
            ),
        }
    }
}

impl std::error::Error for CounterexampleError {}

/// A saved counterexample.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counterexample {
    /// The schema tag, [`FORMAT`].
    pub format: String,
    /// Scenario.
    pub scenario: String,
    /// Variant.
    pub variant: String,
    /// Plan.
    pub plan: String,
    /// Engine that found it.
    pub engine: String,
    /// The broken invariant.
    pub invariant: String,
    /// The state that breaks it.
    pub detail: String,
    /// The step at which it broke.
    pub violation_step: usize,
    /// The replayable schedule.
    pub schedule: Option<Schedule>,
    /// Task switches in the schedule.
    pub context_switches: Option<usize>,
    /// The domain trace.
    pub trace: Vec<Event>,
}

impl Counterexample {
    /// The counterexample of a violated report.
    pub fn from_report(r: &Report) -> Option<Self> {
        Some(Self {
            format: FORMAT.to_string(),
            scenario: r.scenario.clone(),
            variant: r.variant.clone(),
            plan: r.plan.clone(),
            engine: r.engine.name().to_string(),
            invariant: r.invariant.clone()?,
            detail: r.detail.clone()?,
            violation_step: r.violation_step?,
            schedule: r.schedule.clone(),
            context_switches: r.context_switches,
            trace: r.trace.clone(),
        })
    }

    /// Parse a saved counterexample, checking its schema tag.
    pub fn parse(text: &str) -> Result<Self, CounterexampleError> {
        let c: Self =
            serde_json::from_str(text).map_err(|e| CounterexampleError::NotJson(e.to_string()))?;
        if c.format != FORMAT {
            return Err(CounterexampleError::Format(c.format));
        }
        Ok(c)
    }

    /// The file name it is saved under.
    pub fn file_name(&self) -> String {
        format!(
            "{}__{}__{}__{}__{}.json",
            self.scenario, self.variant, self.plan, self.invariant, self.engine
        )
    }

    /// Pretty JSON, each step's `java_url` from `links`.
    ///
    /// ```
    /// use ozone_ha_check::citation::Links;
    /// use ozone_ha_check::counterexample::{Counterexample, FORMAT};
    /// use ozone_ha_check::trace::Event;
    /// let id = "OzoneManagerDoubleBuffer.flushTransactions";
    /// let c = Counterexample {
    ///     format: FORMAT.into(), scenario: "s".into(), variant: "v".into(), plan: "p".into(),
    ///     engine: "pct".into(), invariant: "I".into(), detail: "d".into(), violation_step: 0,
    ///     schedule: None, context_switches: None,
    ///     trace: vec![Event { step: 0, actor: "flush".into(), java: id.into(), action: "commit".into() }],
    /// };
    /// let json = c.to_json(&Links::with_lines([(id.to_string(), (10, 20))]));
    /// assert!(json.contains("OzoneManagerDoubleBuffer.java#L10-L20"));
    /// assert_eq!(Counterexample::parse(&json).unwrap(), c);
    /// ```
    pub fn to_json(&self, links: &Links) -> String {
        let view = View {
            format: &self.format,
            scenario: &self.scenario,
            variant: &self.variant,
            plan: &self.plan,
            engine: &self.engine,
            invariant: &self.invariant,
            detail: &self.detail,
            violation_step: self.violation_step,
            schedule: self.schedule.as_ref(),
            context_switches: self.context_switches,
            trace: self.trace.iter().map(|e| e.linked(links)).collect(),
        };
        serde_json::to_string_pretty(&view).unwrap_or_default() + "\n"
    }
}

/// [`Counterexample`] as written, its steps linked with a given table.
#[derive(Serialize)]
struct View<'a> {
    format: &'a str,
    scenario: &'a str,
    variant: &'a str,
    plan: &'a str,
    engine: &'a str,
    invariant: &'a str,
    detail: &'a str,
    violation_step: usize,
    schedule: Option<&'a Schedule>,
    context_switches: Option<usize>,
    trace: Vec<Linked<'a>>,
}

/// One line per step, as the diff shows them.
fn line(e: &Event) -> String {
    format!("{:>3} {:<8} {} ‹{}›", e.step, e.actor, e.action, e.java)
}

/// `None` when the traces are equal, else a line diff (`-` expected, `+` actual) around the
/// first difference.
///
/// ```
/// use ozone_ha_check::counterexample::diff_traces;
/// use ozone_ha_check::trace::Event;
/// let a = vec![Event { step: 0, actor: "f".into(), java: "J.m".into(), action: "commit TX 3".into() }];
/// let mut b = a.clone();
/// assert!(diff_traces(&a, &b).is_none());
/// b[0].action = "commit TX 4".into();
/// assert!(diff_traces(&a, &b).unwrap().contains("+   0 f        commit TX 4"));
/// ```
pub fn diff_traces(expected: &[Event], actual: &[Event]) -> Option<String> {
    if expected == actual {
        return None;
    }
    let first = expected
        .iter()
        .zip(actual)
        .position(|(a, b)| a != b)
        .unwrap_or(expected.len().min(actual.len()));
    let mut out = String::new();
    let _ = writeln!(
        out,
        "traces differ from step {first} (expected {} steps, got {}):",
        expected.len(),
        actual.len()
    );
    for e in &expected[first.saturating_sub(2)..first] {
        let _ = writeln!(out, "  {}", line(e));
    }
    for e in expected.iter().skip(first).take(6) {
        let _ = writeln!(out, "- {}", line(e));
    }
    for e in actual.iter().skip(first).take(6) {
        let _ = writeln!(out, "+ {}", line(e));
    }
    Some(out)
}
