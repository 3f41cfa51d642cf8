//! The domain-level trace of one execution: who did what, naming the Java method it stands
//! for and the values read and written.

use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// One domain step.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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

/// Render a trace as text, one step per line, with the violated invariant marked at the step
/// where it broke.
///
/// ```
/// use ozone_ha_check::trace::{render_text, Event};
/// let trace = vec![Event { step: 0, actor: "F".into(), java: "Db.commit".into(), action: "commit TX=3".into() }];
/// let text = render_text(&trace, Some((0, "TxIndexMonotone", "TX went 3 -> 1")));
/// assert!(text.contains("TxIndexMonotone"));
/// ```
pub fn render_text(trace: &[Event], broke: Option<(usize, &str, &str)>) -> String {
    let width = trace
        .iter()
        .map(|e| e.actor.len())
        .max()
        .unwrap_or(5)
        .max(5);
    let mut out = String::new();
    for e in trace {
        let _ = writeln!(
            out,
            "  {:>3}  {:<width$}  {}  [{}]",
            e.step, e.actor, e.action, e.java
        );
        if let Some((step, name, detail)) = broke {
            if step == e.step {
                let _ = writeln!(
                    out,
                    "  {:>3}  {:<width$}  ^^^ {name} broken: {detail}",
                    "", ""
                );
            }
        }
    }
    if let Some((step, name, detail)) = broke {
        if step >= trace.len() {
            let _ = writeln!(out, "       at the end: {name} broken: {detail}");
        }
    }
    out
}
