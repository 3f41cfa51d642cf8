//! What a scenario is, and the registry of all of them.
//!
//! A scenario is one bug: its variants (the Java as it is, the partial fixes, the fix), its
//! plans (which actors run, which faults happen), its invariants and probes, and the verdict
//! each (variant, plan) is expected to get. Adding a scenario to the CLI and the test suites
//! is one line in [`all`].

use crate::invariants::Described;
use crate::recorder::Recorder;
use crate::sync::Arc;

/// What a (variant, plan) is expected to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expected {
    /// Every invariant holds, and the required probes fire.
    Holds,
    /// Some invariant breaks; each of these can be shown broken.
    Violates(&'static [&'static str]),
}

impl Expected {
    /// `"holds"` or `"violates"`.
    pub fn word(&self) -> &'static str {
        match self {
            Expected::Holds => "holds",
            Expected::Violates(_) => "violates",
        }
    }

    /// The invariants expected to break (empty for [`Expected::Holds`]).
    pub fn invariants(&self) -> &'static [&'static str] {
        match self {
            Expected::Holds => &[],
            Expected::Violates(names) => names,
        }
    }
}

/// A scenario's static description.
pub struct Info {
    /// Name on the command line, e.g. `hdds-16092`.
    pub name: &'static str,
    /// The Jira issue.
    pub jira: &'static str,
    /// One line.
    pub title: &'static str,
    /// Variants, the Java as it is first.
    pub variants: &'static [Described],
    /// Plans.
    pub plans: &'static [Described],
    /// Every invariant the scenario checks.
    pub invariants: &'static [Described],
    /// Every reachability probe it counts.
    pub probes: &'static [Described],
    /// The probes that must fire for a "held" verdict to mean anything.
    pub required_probes: &'static [&'static str],
    /// The expected verdict of a (variant, plan).
    pub expected: fn(variant: &str, plan: &str) -> Expected,
}

impl Info {
    /// Every (variant, plan) pair, variants first.
    pub fn cases(&self) -> impl Iterator<Item = (&'static str, &'static str)> + '_ {
        self.variants
            .iter()
            .flat_map(|v| self.plans.iter().map(move |p| (v.name, p.name)))
    }

    /// The invariant called `name`, with its static name.
    pub fn invariant(&self, name: &str) -> Option<&'static str> {
        self.invariants
            .iter()
            .find(|i| i.name == name)
            .map(|i| i.name)
    }
}

/// One (variant, plan), prepared to run many times.
pub trait Case: Send + Sync {
    /// One execution: spawn the actors, join them, check the invariants into `recorder`.
    fn run(&self, recorder: &Arc<Recorder>);
}

/// A scenario's size knob: how many transactions, requests or replicas a plan uses, for
/// measuring how exploration cost grows with the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SizeKnob {
    /// What the size counts.
    pub counts: &'static str,
    /// The size the expectations and tests are written for.
    pub default: usize,
}

/// A modelled bug.
pub trait Scenario: Sync {
    /// The static description.
    fn info(&self) -> &'static Info;
    /// Prepare a (variant, plan) at the default size; `Err` names what is unknown.
    fn prepare(&self, variant: &str, plan: &str) -> Result<Box<dyn Case>, String>;
    /// The size knob, if the scenario has one.
    fn size_knob(&self) -> Option<SizeKnob> {
        None
    }
    /// Prepare a (variant, plan) at `size`. Expectations are stated for the default size.
    fn prepare_sized(
        &self,
        variant: &str,
        plan: &str,
        size: usize,
    ) -> Result<Box<dyn Case>, String> {
        match self.size_knob() {
            Some(knob) if knob.default != size => Err(format!(
                "{} does not implement sizes other than {}",
                self.info().name,
                knob.default
            )),
            None if size != 1 => Err(format!("{} has no size knob", self.info().name)),
            _ => self.prepare(variant, plan),
        }
    }
}

/// Every registered scenario.
pub fn all() -> &'static [&'static dyn Scenario] {
    &[
        &crate::scenarios::hdds_16092::Hdds16092,
        &crate::scenarios::hdds_16452::Hdds16452,
        &crate::scenarios::hdds_17215::Hdds17215,
        &crate::scenarios::hdds_16900::Hdds16900,
    ]
}

/// The scenario called `name`.
pub fn find(name: &str) -> Option<&'static dyn Scenario> {
    all().iter().copied().find(|s| s.info().name == name)
}

/// Check that `name` is one of `known`, or say which names are.
pub fn check_name(kind: &str, name: &str, known: &[Described]) -> Result<&'static str, String> {
    known
        .iter()
        .find(|d| d.name == name)
        .map(|d| d.name)
        .ok_or_else(|| {
            let names: Vec<&str> = known.iter().map(|d| d.name).collect();
            format!("unknown {kind} `{name}`; known: {}", names.join(", "))
        })
}
