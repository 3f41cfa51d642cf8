//! What a scenario is: one bug, with typed variants and plans, one list of properties, and
//! the verdict each (variant, plan) is expected to get.
//!
//! A scenario's variants (the Java as it is, the partial fixes, the fix) and plans (which
//! actors run, which faults happen) are enums declared with [`choices!`](crate::choices), so each name is
//! written once and [`Scenario::expected`] is an exhaustive `match`: a new variant or plan
//! does not compile until its verdict is stated. The dynamic registry the CLI uses wraps
//! these typed scenarios: see [`crate::scenarios`].
//!
//! ```
//! use ozone_ha_check::choices;
//! use ozone_ha_check::scenario::Choice;
//!
//! choices! {
//!     /// How a flush is guarded.
//!     pub enum Variant {
//!         /// no guard at all
//!         Buggy = "buggy",
//!         /// defer while an apply is in flight
//!         Fixed = "fixed",
//!     }
//! }
//!
//! assert_eq!(Variant::parse("fixed"), Some(Variant::Fixed));
//! assert_eq!(Variant::Buggy.doc(), "no guard at all");
//! assert_eq!(Variant::names(), vec!["buggy", "fixed"]);
//! ```

pub use crate::engine::Budget;
use crate::engine::Engine;
use crate::properties::{Probe, Property};
use crate::recorder::Recorder;
use crate::sync::Arc;
use crate::workload::{Bounds, Vocabulary};
use std::fmt::Debug;

/// A closed set of named choices: a scenario's variants or its plans.
pub trait Choice: Copy + Eq + Debug + Send + Sync + 'static {
    /// Every choice, in listing order.
    const ALL: &'static [Self];
    /// The name on the command line.
    fn name(self) -> &'static str;
    /// One line saying what it is.
    fn doc(self) -> &'static str;
    /// The choice called `name`.
    fn parse(name: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|c| c.name() == name)
    }
    /// Every name, in listing order.
    fn names() -> Vec<&'static str> {
        Self::ALL.iter().map(|c| c.name()).collect()
    }
}

/// Declare an enum of named choices: each variant with its doc comment (the listing's
/// one-line description) and its command-line name.
#[macro_export]
macro_rules! choices {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[doc = $doc:literal])+ $variant:ident = $text:literal ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        $vis enum $name {
            $( $(#[doc = $doc])+ $variant ),+
        }

        impl $crate::scenario::Choice for $name {
            const ALL: &'static [Self] = &[$($name::$variant),+];
            fn name(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }
            fn doc(self) -> &'static str {
                match self { $($name::$variant => concat!($($doc),+).trim()),+ }
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str($crate::scenario::Choice::name(*self))
            }
        }
    };
}

/// What a (variant, plan) is expected to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expected {
    /// Every invariant holds, and the required probes fire.
    Holds,
    /// Some invariant breaks; each of these can be shown broken.
    Violates(&'static [Property]),
}

impl Expected {
    /// `"holds"` or `"violates"`.
    pub fn word(&self) -> &'static str {
        match self {
            Expected::Holds => "holds",
            Expected::Violates(_) => "violates",
        }
    }

    /// The names of the invariants expected to break (empty for [`Expected::Holds`]).
    pub fn invariants(&self) -> Vec<&'static str> {
        match self {
            Expected::Holds => Vec::new(),
            Expected::Violates(properties) => properties.iter().map(|p| p.name).collect(),
        }
    }
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

/// A required probe whose window a plan sets up by construction (a follower that lags, a
/// fault or a kill injected in the setup, a fresh cluster, an order the non-preemptive
/// schedule gives), rather than one a race reaches: it may fire on the serial schedule (no
/// preemption at all) and in every execution of such a plan. A scenario declares each in
/// [`Scenario::BY_CONSTRUCTION`] with the reason, so that a new one is a deliberate change;
/// every other required probe must stay silent on the serial schedule of every holding
/// case, and every probe silent on some schedule (the shuttle suite's `probes` tests).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ByConstruction {
    /// The probe.
    pub probe: Probe,
    /// Why the plan fires it without a race.
    pub why: &'static str,
}

/// An expected violation that one randomized or search engine is not asked to find within
/// its default run, with the measurement that puts it out of that engine's reach. Loom,
/// exhaustive within its bound, cannot be declared: each declared violation must still break
/// under it (the loom suite), and under every engine not declared.
///
/// Under the declared engine a run that breaks nothing counts as expected ("not
/// witnessed") only when every one of `window` fired in it: the run reached the race window
/// even if it never found the interleaving that breaks the invariant there. A run that
/// does break the invariant is as expected too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BeyondReach {
    /// The engine: random, PCT or stateful.
    pub engine: Engine,
    /// The variants, by name.
    pub variants: &'static [&'static str],
    /// The plans, by name.
    pub plans: &'static [&'static str],
    /// The invariant, expected to break in every (variant, plan) named.
    pub invariant: &'static str,
    /// Probes that must fire in a run that does not break it.
    pub window: &'static [Probe],
    /// What was measured: executions, seeds, depth, time, and what they found.
    pub measured: &'static str,
}

impl BeyondReach {
    /// Whether this declaration covers `invariant` of (`variant`, `plan`) under `engine`.
    pub fn covers(&self, engine: Engine, variant: &str, plan: &str, invariant: &str) -> bool {
        self.engine == engine
            && self.invariant == invariant
            && self.variants.contains(&variant)
            && self.plans.contains(&plan)
    }
}

/// One (variant, plan), prepared to run many times.
pub trait Case: Send + Sync {
    /// One execution: spawn the actors, join them, mark the execution quiesced
    /// ([`Recorder::quiesce`]) and check the eventually-properties, with the invariants
    /// checked into `recorder` as the actors go.
    fn run(&self, recorder: &Arc<Recorder>);
}

/// A modelled bug.
pub trait Scenario: Send + Sync + 'static {
    /// Its variants: the Java as it is first, then the proposed fixes.
    type Variant: Choice;
    /// Its plans.
    type Plan: Choice;
    /// Name on the command line, e.g. `hdds-16092`.
    const NAME: &'static str;
    /// The Jira issue.
    const JIRA: &'static str;
    /// One line.
    const TITLE: &'static str;
    /// Every invariant, eventually-property and probe the scenario checks or counts. A probe
    /// of a model in [`Scenario::MODEL_PROBES`] need not be listed here, unless the scenario
    /// requires it (`.required()`).
    const PROPERTIES: &'static [Property];
    /// The probes the shared models this scenario runs may fire: each model's own list (a
    /// `PROBES` constant beside the model, e.g.
    /// [`TxInfoWriter::PROBES`](crate::models::om::persist::TxInfoWriter::PROBES)). They are
    /// counted as the scenario's own (not required, unless [`Scenario::PROPERTIES`] lists
    /// one with `.required()`), so a model may fire them without the scenario naming each;
    /// any other probe the model reports is a model failure.
    const MODEL_PROBES: &'static [&'static [Probe]] = &[];
    /// The required probes whose window a plan sets up by construction, each with why
    /// ([`ByConstruction`]); none by default.
    const BY_CONSTRUCTION: &'static [ByConstruction] = &[];
    /// The expected violations an engine's default run is not asked to find, each with its
    /// measurement ([`BeyondReach`]); none by default.
    const BEYOND_REACH: &'static [BeyondReach] = &[];
    /// The size knob, if the scenario has one; without one the only size is 1.
    const SIZE: Option<SizeKnob> = None;
    /// Executions per random and per PCT run when none are asked for: `check`'s default,
    /// unless that is too few for every seed to reach some expected violation. A raised
    /// budget is at least twice the worst of 20 seeds (`bench --budgets` measures it; the
    /// shuttle suite fails when a seed misses).
    const EXECUTIONS: Budget = Budget::CHECK;

    /// The budget of one plan: [`Scenario::EXECUTIONS`] unless the plan needs its own (a
    /// [`GENERATED`] plan whose violation hides in a few workloads of many), under the same
    /// rule: at least twice the worst of 20 seeds.
    fn plan_executions(plan: Self::Plan) -> Budget {
        let _ = plan;
        Self::EXECUTIONS
    }

    /// The requests and faults the modelled Java path handles ([`crate::workload`]), for
    /// the plan named [`GENERATED`]: each of its executions draws a workload from it. A
    /// scenario with a vocabulary has that plan, and one without has none (the shuttle
    /// suite checks both ways).
    const VOCABULARY: Option<Vocabulary> = None;

    /// The verdict `variant` is expected to get on `plan`, at the default size (for the
    /// [`GENERATED`] plan: over every workload within the default bounds).
    fn expected(variant: Self::Variant, plan: Self::Plan) -> Expected;

    /// Prepare a (variant, plan) at `size` (1 without a knob, else at least 1).
    fn prepare(&self, variant: Self::Variant, plan: Self::Plan, size: usize) -> Box<dyn Case>;

    /// Prepare the [`GENERATED`] plan of `variant`: a case that draws a workload within
    /// `bounds` ([`Vocabulary::draw`]) before it spawns, then runs it. `None` (the default)
    /// for a scenario without a vocabulary.
    fn prepare_generated(
        &self,
        variant: Self::Variant,
        bounds: Bounds,
        size: usize,
    ) -> Option<Box<dyn Case>> {
        let _ = (variant, bounds, size);
        None
    }
}

/// The name of the plan whose workloads are generated from the scenario's vocabulary
/// ([`Scenario::VOCABULARY`]) rather than written.
pub const GENERATED: &str = "generated";
