//! Per-execution bookkeeping: the trace, the first violation, and probe hits.
//!
//! It lives in [`crate::sync::ghost`] cells, so recording is never a scheduling point and
//! cannot change the interleavings an engine explores.

use crate::citation::Label;
use crate::properties::{Breaks, Probe};
use crate::sync::ghost::Ghost;
use crate::sync::Arc;
use crate::trace::Event;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering::SeqCst};

/// A broken invariant, as first seen in one execution.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// The invariant's name.
    pub invariant: &'static str,
    /// One line saying what state breaks it.
    pub detail: String,
    /// The trace step at which it broke (the step just recorded).
    pub step: usize,
}

#[derive(Debug, Default)]
struct Execution {
    trace: Vec<Event>,
    violation: Option<Violation>,
    probes: BTreeMap<&'static str, u64>,
    broken: Vec<&'static str>,
    quiesced: bool,
}

/// What one execution left behind.
#[derive(Debug, Default)]
pub struct Outcome {
    /// The trace.
    pub trace: Vec<Event>,
    /// The first violation of a watched invariant, if any.
    pub violation: Option<Violation>,
    /// Hits per probe name.
    pub probes: BTreeMap<&'static str, u64>,
    /// Every invariant reported broken, watched or not, in order (repeats removed).
    pub broken: Vec<&'static str>,
}

/// Collects one execution's trace, violation and probe hits.
#[derive(Debug, Default)]
pub struct Recorder {
    watch: Option<&'static str>,
    tracing: bool,
    state: Ghost<Execution>,
    /// Whether `state` holds a violation: the schedulers ask at every scheduling decision,
    /// and a flag costs less than a look under the cell's lock.
    violated: AtomicBool,
}

impl Recorder {
    /// A recorder that counts every invariant, or only `watch` when it is given, and keeps
    /// the trace.
    pub fn new(watch: Option<&'static str>) -> Self {
        Self::with_tracing(watch, true)
    }

    /// A recorder that keeps the trace only when `tracing`. An exploration that can replay
    /// its failing execution explores without a trace (formatting every step of every
    /// execution costs more than the model) and replays the failure with one.
    pub fn with_tracing(watch: Option<&'static str>, tracing: bool) -> Self {
        Self {
            watch,
            tracing,
            state: Ghost::bookkeeping(Execution::default()),
            violated: AtomicBool::new(false),
        }
    }

    /// Whether steps are kept.
    pub fn tracing(&self) -> bool {
        self.tracing
    }

    /// Forget the previous execution.
    pub fn reset(&self) {
        self.state.with(|s| *s = Execution::default());
        self.violated.store(false, SeqCst);
    }

    /// Append a step to the trace.
    pub fn record(&self, actor: &str, label: Label, action: String) {
        if !self.tracing {
            return;
        }
        self.state.with(|s| {
            let step = s.trace.len();
            s.trace.push(Event {
                step,
                actor: actor.to_string(),
                java: label.text().to_string(),
                action,
            });
        });
    }

    /// Count a hit of a reachability probe.
    pub fn probe(&self, name: &'static str) {
        self.state.with(|s| *s.probes.entry(name).or_default() += 1);
    }

    /// Mark the execution quiesced: every actor has stopped, and the eventually-properties
    /// may be checked.
    pub fn quiesce(&self) {
        self.state.with(|s| s.quiesced = true);
    }

    /// Whether [`Recorder::quiesce`] was called in this execution.
    pub fn quiesced(&self) -> bool {
        self.state.with(|s| s.quiesced)
    }

    /// Report that `invariant` is broken. Only the first watched violation is kept.
    pub fn violate(&self, invariant: &'static str, detail: String) {
        self.state.with(|s| {
            if !s.broken.contains(&invariant) {
                s.broken.push(invariant);
            }
        });
        if self.watch.is_some_and(|w| w != invariant) {
            return;
        }
        self.state.with(|s| {
            if s.violation.is_none() {
                let step = s.trace.len().saturating_sub(1);
                s.violation = Some(Violation {
                    invariant,
                    detail,
                    step,
                });
            }
        });
        self.violated.store(true, SeqCst);
    }

    /// Whether a watched invariant has broken in this execution.
    pub fn violated(&self) -> bool {
        self.violated.load(SeqCst)
    }

    /// Take what this execution recorded.
    pub fn take(&self) -> Outcome {
        self.violated.store(false, SeqCst);
        self.state.with(|s| {
            let e = std::mem::take(s);
            Outcome {
                trace: e.trace,
                violation: e.violation,
                probes: e.probes,
                broken: e.broken,
            }
        })
    }
}

/// A named participant of an execution (a thread, or a replica's startup code) that records
/// the steps it takes.
#[derive(Clone, Debug)]
pub struct Actor {
    name: Arc<str>,
    recorder: Arc<Recorder>,
}

impl Actor {
    /// An actor that records into `recorder`.
    pub fn new(name: &str, recorder: &Arc<Recorder>) -> Self {
        Self {
            name: name.into(),
            recorder: Arc::clone(recorder),
        }
    }

    /// The actor's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Record a step: `label` names the Java method it stands for (a citation), or says
    /// that it is a step of the model alone ([`Label::model`]).
    pub fn step(&self, label: impl Into<Label>, action: impl Into<String>) {
        if self.recorder.tracing() {
            self.recorder
                .record(&self.name, label.into(), action.into());
        }
    }

    /// Record a step whose text is built only when the trace is kept.
    pub fn step_with(&self, label: impl Into<Label>, action: impl FnOnce() -> String) {
        if self.recorder.tracing() {
            self.recorder.record(&self.name, label.into(), action());
        }
    }

    /// Whether this actor's steps are kept.
    pub fn tracing(&self) -> bool {
        self.recorder.tracing()
    }

    /// Count a hit of a reachability probe.
    pub fn probe(&self, probe: &Probe) {
        self.recorder.probe(probe.name);
    }

    /// The recorder this actor writes to.
    pub fn recorder(&self) -> &Arc<Recorder> {
        &self.recorder
    }
}

impl Breaks for Recorder {
    fn quiesced(&self) -> bool {
        Recorder::quiesced(self)
    }

    fn violate(&self, invariant: &'static str, detail: String) {
        Recorder::violate(self, invariant, detail)
    }
}
