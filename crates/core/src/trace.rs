//! The domain-level trace of one execution: who did what, naming the Java method it stands
//! for and the values read and written; rendered as a timeline, a Mermaid sequence diagram
//! or JSON.
//!
//! As JSON a step is `{step, actor, java, action, java_url}`: `java_url` is derived from
//! `java` (the link of its citation, `null` for a model step) and is no part of the step.
//! Reading ignores it, and two steps are equal when their four fields are. Serializing an
//! [`Event`] alone links to the cited file; [`Linked`] (and [`linked_trace`]) serialize
//! with a [`Links`] table, whose line ranges the link then carries.

use crate::citation::Links;
use serde::ser::SerializeStruct;
use serde::{Deserialize, Serialize, Serializer};
use std::fmt::Write as _;

/// One domain step.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct Event {
    /// Position in the trace, from 0.
    pub step: usize,
    /// The actor (thread or replica) that took the step.
    pub actor: String,
    /// The Java class and method the step stands for.
    pub java: String,
    /// What happened, with the values read and written.
    pub action: String,
}

impl Event {
    /// The link of the Java method the step stands for (`None` for a model step).
    pub fn java_url(&self, links: &Links) -> Option<String> {
        links.url(&self.java)
    }

    /// The step with `links`, to serialize with its `java_url`.
    pub fn linked<'a>(&'a self, links: &'a Links) -> Linked<'a> {
        Linked { event: self, links }
    }
}

/// A step serialized with the link table its `java_url` comes from.
#[derive(Clone, Copy, Debug)]
pub struct Linked<'a> {
    /// The step.
    pub event: &'a Event,
    /// Where its Java method links to.
    pub links: &'a Links,
}

impl Serialize for Linked<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let e = self.event;
        let mut s = serializer.serialize_struct("Event", 5)?;
        s.serialize_field("step", &e.step)?;
        s.serialize_field("actor", &e.actor)?;
        s.serialize_field("java", &e.java)?;
        s.serialize_field("action", &e.action)?;
        s.serialize_field("java_url", &e.java_url(self.links))?;
        s.end()
    }
}

/// Serialized as a step with `java_url` linking to the cited file (no line range).
///
/// ```
/// use ozone_ha_check::trace::Event;
/// let e = Event { step: 0, actor: "flush".into(), java: "OzoneManagerDoubleBuffer.flushTransactions".into(), action: "commit TX=3".into() };
/// let v = serde_json::to_value(&e).unwrap();
/// assert!(v["java_url"].as_str().unwrap().starts_with("https://github.com/apache/ozone/blob/"));
/// let back: Event = serde_json::from_value(v).unwrap();
/// assert_eq!(back, e);
/// let model = Event { java: "peer OM".into(), ..e };
/// assert!(serde_json::to_value(&model).unwrap()["java_url"].is_null());
/// ```
impl Serialize for Event {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.linked(Links::files_ref()).serialize(serializer)
    }
}

/// A trace as a JSON array of steps, each `java_url` from `links`.
pub fn linked_trace(trace: &[Event], links: &Links) -> serde_json::Value {
    serde_json::Value::Array(
        trace
            .iter()
            .map(|e| serde_json::to_value(e.linked(links)).unwrap_or_default())
            .collect(),
    )
}

/// Where and how an invariant broke.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Broke<'a> {
    /// The step at which it broke.
    pub step: usize,
    /// The invariant's name.
    pub invariant: &'a str,
    /// The state that breaks it.
    pub detail: &'a str,
}

/// The actors of a trace, in order of first appearance.
pub fn actors(trace: &[Event]) -> Vec<&str> {
    let mut names: Vec<&str> = Vec::new();
    for e in trace {
        if !names.contains(&e.actor.as_str()) {
            names.push(&e.actor);
        }
    }
    names
}

/// Split `text` into lines of at most `width` characters, breaking at spaces where it can.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(8);
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let mut word = word.to_string();
        while word.chars().count() > width {
            if !line.is_empty() {
                lines.push(std::mem::take(&mut line));
            }
            let head: String = word.chars().take(width).collect();
            word = word.chars().skip(width).collect();
            lines.push(head);
        }
        let needed = line.chars().count() + usize::from(!line.is_empty()) + word.chars().count();
        if needed > width && !line.is_empty() {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&word);
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// Render a trace as a timeline `width` columns wide: one lane per actor, one row per step.
/// A step's text starts in its actor's lane and names the Java method it stands for; the
/// row after the step where an invariant broke says which one and why.
///
/// ```
/// use ozone_ha_check::trace::{render_timeline, Broke, Event};
/// let trace = vec![
///     Event { step: 0, actor: "flush".into(), java: "Db.commit".into(), action: "commit TX=3".into() },
///     Event { step: 1, actor: "ratis".into(), java: "Sm.snapshot".into(), action: "put TX=1".into() },
/// ];
/// let text = render_timeline(&trace, Some(Broke { step: 1, invariant: "TxIndexMonotone", detail: "TX 3 -> 1" }), 100);
/// assert!(text.lines().all(|l| l.chars().count() <= 100));
/// assert!(text.contains("TxIndexMonotone broken: TX 3 -> 1"));
/// ```
pub fn render_timeline(trace: &[Event], broke: Option<Broke<'_>>, width: usize) -> String {
    let lanes = actors(trace);
    let n = lanes.len().max(1);
    let gutter = 5;
    // Lanes as narrow as the names allow, so that the text keeps most of the width.
    let longest = lanes.iter().map(|a| a.chars().count()).max().unwrap_or(5);
    let lane = (longest + 3)
        .clamp(6, 16)
        .min(width.saturating_sub(gutter + 40) / n)
        .max(3);
    let mut out = String::new();
    let mut header = format!("{:>4} ", "step");
    for name in &lanes {
        let short: String = name.chars().take(lane - 1).collect();
        let _ = write!(header, "{short:<lane$}");
    }
    let _ = writeln!(out, "{}", header.trim_end());
    let prefix = |column: usize| -> String {
        let mut p = String::new();
        for _ in 0..column {
            let _ = write!(p, "{:<lane$}", "│");
        }
        p
    };
    for e in trace {
        let column = lanes.iter().position(|a| *a == e.actor).unwrap_or(0);
        let room = width.saturating_sub(gutter + column * lane + 2);
        let text = format!("{}  ‹{}›", e.action, e.java);
        for (i, line) in wrap(&text, room).into_iter().enumerate() {
            let step = if i == 0 {
                e.step.to_string()
            } else {
                String::new()
            };
            let mark = if i == 0 { "● " } else { "  " };
            let row = format!("{step:>4} {}{mark}{line}", prefix(column));
            let _ = writeln!(out, "{}", row.trim_end());
        }
        if let Some(b) = broke.filter(|b| b.step == e.step) {
            let note = format!("✗ {} broken: {}", b.invariant, b.detail);
            for (i, line) in wrap(&note, room).into_iter().enumerate() {
                let indent = if i == 0 { "" } else { "  " };
                let _ = writeln!(out, "{:>4} {}{indent}{line}", "", prefix(column));
            }
        }
    }
    if let Some(b) = broke.filter(|b| b.step >= trace.len()) {
        let _ = writeln!(
            out,
            "     ✗ at the end: {} broken: {}",
            b.invariant, b.detail
        );
    }
    out
}

/// Escape text for a Mermaid message: `#` and `;` end a message, so they become entities.
fn mermaid_text(text: &str) -> String {
    text.replace('#', "#35;").replace(';', "#59;")
}

/// Render a trace as a Mermaid sequence diagram (renders in GitHub and most Markdown
/// viewers): one participant per actor, each step a note over its actor, the break a
/// highlighted note.
///
/// ```
/// use ozone_ha_check::trace::{render_mermaid, Event};
/// let trace = vec![Event { step: 0, actor: "flush".into(), java: "Db.commit".into(), action: "commit TX=3".into() }];
/// let diagram = render_mermaid(&trace, None);
/// assert!(diagram.starts_with("sequenceDiagram"));
/// assert!(diagram.contains("participant flush"));
/// ```
pub fn render_mermaid(trace: &[Event], broke: Option<Broke<'_>>) -> String {
    let mut out = String::from("sequenceDiagram\n");
    for name in actors(trace) {
        let _ = writeln!(out, "    participant {name}");
    }
    for e in trace {
        let _ = writeln!(
            out,
            "    Note over {}: {}. {}<br/>‹{}›",
            e.actor,
            e.step,
            mermaid_text(&e.action),
            mermaid_text(&e.java)
        );
        if let Some(b) = broke.filter(|b| b.step == e.step) {
            let _ = writeln!(
                out,
                "    rect rgb(255, 220, 220)\n    Note over {}: ✗ {} broken: {}\n    end",
                e.actor,
                b.invariant,
                mermaid_text(b.detail)
            );
        }
    }
    out
}
