//! One module per modelled bug, and the registry the CLI, the explorer and the test suites
//! iterate. Registering a scenario is one line in [`all`].
//!
//! The registry is dynamic (names as strings, as the command line has them); it wraps the
//! typed [`Scenario`]s, so a misspelt name is an error with the known names, never a silent
//! fallback.
//!
//! ```
//! use ozone_ha_check::scenarios;
//!
//! let s = scenarios::find("hdds-16092").unwrap();
//! assert!(s.cases().iter().any(|c| c.variant == "fixed"));
//! assert!(s.expected("fixed", "steady").is_ok());
//! assert!(s.expected("fixd", "steady").is_err());
//! ```

pub mod hdds_10408;
pub mod hdds_10590;
pub mod hdds_11152;
pub mod hdds_11453;
pub mod hdds_16092;
pub mod hdds_16452;
pub mod hdds_16900;
pub mod hdds_17215;
pub mod hdds_7279;
pub mod hdds_8036;
pub mod hdds_8681;
pub mod hdds_8685;
pub mod hdds_8832;
pub mod hdds_8973;
/// The skeleton `ozone-ha-check new` copies, with its names replaced, for a new scenario:
/// compiled and unit-tested here, never registered.
pub mod hdds_template;

use crate::engine::Engine;
use crate::properties::{Kind, Property};
use crate::scenario::{
    BeyondReach, Budget, ByConstruction, Case, Choice, Expected, Scenario, SizeKnob, GENERATED,
};
use crate::workload::{Bounds, Vocabulary};
use std::fmt;

/// Every registered scenario.
pub fn all() -> &'static [&'static dyn AnyScenario] {
    &[
        &hdds_16092::Hdds16092,
        &hdds_16452::Hdds16452,
        &hdds_17215::Hdds17215,
        &hdds_16900::Hdds16900,
        &hdds_7279::Hdds7279,
        &hdds_8036::Hdds8036,
        &hdds_8681::Hdds8681,
        &hdds_8685::Hdds8685,
        &hdds_8832::Hdds8832,
        &hdds_8973::Hdds8973,
        &hdds_10408::Hdds10408,
        &hdds_10590::Hdds10590,
        &hdds_11152::Hdds11152,
        &hdds_11453::Hdds11453,
    ]
}

/// The scenario called `name`.
pub fn find(name: &str) -> Option<&'static dyn AnyScenario> {
    all().iter().copied().find(|s| s.name() == name)
}

/// The scenario called `name`, or an error that lists the known ones.
pub fn lookup(name: &str) -> Result<&'static dyn AnyScenario, UnknownName> {
    find(name).ok_or_else(|| UnknownName {
        kind: "scenario",
        name: name.to_string(),
        scenario: None,
        known: all().iter().map(|s| s.name()).collect(),
    })
}

/// A name on the command line that names nothing known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownName {
    /// `"scenario"`, `"variant"`, `"plan"`, `"invariant"` or `"engine"`.
    pub kind: &'static str,
    /// The name given.
    pub name: String,
    /// The scenario it was looked up in, if one.
    pub scenario: Option<&'static str>,
    /// The names that exist.
    pub known: Vec<&'static str>,
}

impl fmt::Display for UnknownName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown {} `{}`", self.kind, self.name)?;
        if let Some(scenario) = self.scenario {
            write!(f, " for {scenario}")?;
        }
        write!(f, "; known: {}", self.known.join(", "))
    }
}

impl std::error::Error for UnknownName {}

/// The largest size knob accepted: a model builds its log and reference states before the
/// time budget starts, so an unbounded size could keep a run from ever reaching it.
pub const MAX_SIZE: usize = 64;

/// Why a case could not be prepared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PrepareError {
    /// A variant or plan name is unknown.
    Unknown(UnknownName),
    /// The scenario does not implement this size (0, above [`MAX_SIZE`], or other than 1
    /// without a size knob).
    Size {
        /// The scenario.
        scenario: &'static str,
        /// The size asked for.
        size: usize,
    },
    /// Workload bounds were given for a plan whose workload is written, not generated.
    Bounds {
        /// The scenario.
        scenario: &'static str,
        /// The plan.
        plan: String,
    },
    /// The scenario declares a vocabulary but prepares no generated case (a scenario bug).
    NoGenerated {
        /// The scenario.
        scenario: &'static str,
    },
}

impl fmt::Display for PrepareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PrepareError::Unknown(u) => u.fmt(f),
            PrepareError::Size { scenario, size: 0 } => {
                write!(f, "{scenario}: the size must be at least 1")
            }
            PrepareError::Size { scenario, size } if *size > MAX_SIZE => write!(
                f,
                "{scenario}: the size must be at most {MAX_SIZE} (each model's state grows with it), not {size}"
            ),
            PrepareError::Size { scenario, size } => write!(
                f,
                "{scenario} has no size knob; it runs at size 1 only, not {size}"
            ),
            PrepareError::Bounds { scenario, plan } => write!(
                f,
                "{scenario}: `{plan}` is a written plan; workload bounds apply to the \
                 `{GENERATED}` plan only"
            ),
            PrepareError::NoGenerated { scenario } => write!(
                f,
                "{scenario} has a vocabulary but prepares no `{GENERATED}` case"
            ),
        }
    }
}

impl std::error::Error for PrepareError {}

/// A (variant, plan) by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CaseName {
    /// The variant.
    pub variant: &'static str,
    /// The plan.
    pub plan: &'static str,
}

/// A name and its one-line description, for listings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Named {
    /// The name.
    pub name: &'static str,
    /// One line.
    pub doc: &'static str,
}

/// A registered scenario, by name: what the CLI, the explorer and the tests see.
pub trait AnyScenario: Sync {
    /// Name on the command line.
    fn name(&self) -> &'static str;
    /// The Jira issue.
    fn jira(&self) -> &'static str;
    /// One line.
    fn title(&self) -> &'static str;
    /// The variants, the Java as it is first.
    fn variants(&self) -> Vec<Named>;
    /// The plans.
    fn plans(&self) -> Vec<Named>;
    /// Every property: invariants, eventually-properties and probes. The scenario's own list
    /// ([`Scenario::PROPERTIES`]) first, then each probe of its models
    /// ([`Scenario::MODEL_PROBES`]) that list does not name, in the models' order.
    fn properties(&self) -> Vec<Property>;
    /// The required probes a plan fires by construction ([`Scenario::BY_CONSTRUCTION`]).
    fn by_construction(&self) -> &'static [ByConstruction];
    /// The expected violations declared out of an engine's reach
    /// ([`Scenario::BEYOND_REACH`]).
    fn beyond_reach(&self) -> &'static [BeyondReach];
    /// The size knob, if any.
    fn size_knob(&self) -> Option<SizeKnob>;
    /// Executions per random and PCT run when none are asked for
    /// ([`Scenario::EXECUTIONS`]).
    fn executions(&self) -> Budget;
    /// Executions per random and PCT run of `plan` when none are asked for
    /// ([`Scenario::plan_executions`]); an unknown plan gets [`AnyScenario::executions`].
    fn plan_executions(&self, plan: &str) -> Budget;
    /// Every (variant, plan), variants first.
    fn cases(&self) -> Vec<CaseName>;
    /// The expected verdict of a (variant, plan) at the default size.
    fn expected(&self, variant: &str, plan: &str) -> Result<Expected, UnknownName>;
    /// The requests and faults of its generated plan, if it has one
    /// ([`Scenario::VOCABULARY`]).
    fn vocabulary(&self) -> Option<Vocabulary>;
    /// Prepare a (variant, plan) at `size` (`None`: the default size); for the generated
    /// plan, drawing workloads within `bounds` (`None`: the vocabulary's defaults). Bounds
    /// for a written plan are an error.
    fn prepare(
        &self,
        variant: &str,
        plan: &str,
        size: Option<usize>,
        bounds: Option<Bounds>,
    ) -> Result<Box<dyn Case>, PrepareError>;

    /// What a verdict on `plan` covers, for a generated plan: the bounds and how many
    /// workloads lie within them (`None` for a written plan).
    ///
    /// ```
    /// use ozone_ha_check::scenarios::find;
    /// let s = find("hdds-16092").unwrap();
    /// assert_eq!(s.scope("steady", None), None);
    /// ```
    fn scope(&self, plan: &str, bounds: Option<Bounds>) -> Option<String> {
        let vocabulary = self.vocabulary().filter(|_| plan == GENERATED)?;
        let bounds = bounds.unwrap_or(vocabulary.bounds);
        Some(format!(
            "every workload of {bounds} ({} workloads)",
            vocabulary.count(bounds)
        ))
    }

    /// The invariant (always or eventually) called `name`.
    fn invariant(&self, name: &str) -> Option<Property> {
        self.properties()
            .into_iter()
            .find(|p| p.is_invariant() && p.name == name)
    }

    /// Every invariant (always or eventually), in listing order.
    fn invariants(&self) -> Vec<Property> {
        self.properties()
            .into_iter()
            .filter(Property::is_invariant)
            .collect()
    }

    /// Every probe, in listing order.
    fn probes(&self) -> Vec<Property> {
        self.properties()
            .into_iter()
            .filter(|p| p.kind == Kind::Sometimes)
            .collect()
    }

    /// The probes a "held" verdict needs.
    fn required_probes(&self) -> Vec<&'static str> {
        self.properties()
            .into_iter()
            .filter(|p| p.required)
            .map(|p| p.name)
            .collect()
    }

    /// Whether `probe` is declared fired by construction ([`Scenario::BY_CONSTRUCTION`]).
    fn fires_by_construction(&self, probe: &str) -> bool {
        self.by_construction().iter().any(|b| b.probe.name == probe)
    }

    /// The declaration that puts `invariant` of (`variant`, `plan`) out of `engine`'s reach,
    /// if there is one.
    fn beyond(
        &self,
        engine: Engine,
        variant: &str,
        plan: &str,
        invariant: &str,
    ) -> Option<&'static BeyondReach> {
        self.beyond_reach()
            .iter()
            .find(|b| b.covers(engine, variant, plan, invariant))
    }

    /// The invariants `engine` is asked to break on (`variant`, `plan`): the expected ones
    /// not declared beyond its reach (none for a holding case or an unknown name).
    fn asked_of(&self, engine: Engine, variant: &str, plan: &str) -> Vec<&'static str> {
        match self.expected(variant, plan) {
            Ok(Expected::Violates(properties)) => properties
                .iter()
                .map(|p| p.name)
                .filter(|i| self.beyond(engine, variant, plan, i).is_none())
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Whether `size` is the size the expectations are written for.
    fn is_default_size(&self, size: Option<usize>) -> bool {
        size.is_none_or(|n| n == self.size_knob().map_or(1, |k| k.default))
    }
}

fn parse<C: Choice>(
    scenario: &'static str,
    kind: &'static str,
    name: &str,
) -> Result<C, UnknownName> {
    C::parse(name).ok_or_else(|| UnknownName {
        kind,
        name: name.to_string(),
        scenario: Some(scenario),
        known: C::names(),
    })
}

fn named<C: Choice>() -> Vec<Named> {
    C::ALL
        .iter()
        .map(|c| Named {
            name: c.name(),
            doc: c.doc(),
        })
        .collect()
}

impl<S: Scenario> AnyScenario for S {
    fn name(&self) -> &'static str {
        S::NAME
    }

    fn jira(&self) -> &'static str {
        S::JIRA
    }

    fn title(&self) -> &'static str {
        S::TITLE
    }

    fn variants(&self) -> Vec<Named> {
        named::<S::Variant>()
    }

    fn plans(&self) -> Vec<Named> {
        named::<S::Plan>()
    }

    fn properties(&self) -> Vec<Property> {
        let mut all = S::PROPERTIES.to_vec();
        for probe in S::MODEL_PROBES.iter().flat_map(|m| m.iter()) {
            if !all.iter().any(|p| p.name == probe.name) {
                all.push(probe.property());
            }
        }
        all
    }

    fn by_construction(&self) -> &'static [ByConstruction] {
        S::BY_CONSTRUCTION
    }

    fn beyond_reach(&self) -> &'static [BeyondReach] {
        S::BEYOND_REACH
    }

    fn size_knob(&self) -> Option<SizeKnob> {
        S::SIZE
    }

    fn executions(&self) -> Budget {
        S::EXECUTIONS
    }

    fn plan_executions(&self, plan: &str) -> Budget {
        S::Plan::parse(plan).map_or(S::EXECUTIONS, S::plan_executions)
    }

    fn cases(&self) -> Vec<CaseName> {
        S::Variant::ALL
            .iter()
            .flat_map(|v| {
                S::Plan::ALL.iter().map(move |p| CaseName {
                    variant: v.name(),
                    plan: p.name(),
                })
            })
            .collect()
    }

    fn expected(&self, variant: &str, plan: &str) -> Result<Expected, UnknownName> {
        Ok(<S as Scenario>::expected(
            parse(S::NAME, "variant", variant)?,
            parse(S::NAME, "plan", plan)?,
        ))
    }

    fn vocabulary(&self) -> Option<Vocabulary> {
        S::VOCABULARY
    }

    fn prepare(
        &self,
        variant: &str,
        plan: &str,
        size: Option<usize>,
        bounds: Option<Bounds>,
    ) -> Result<Box<dyn Case>, PrepareError> {
        let v = parse(S::NAME, "variant", variant).map_err(PrepareError::Unknown)?;
        let p: S::Plan = parse(S::NAME, "plan", plan).map_err(PrepareError::Unknown)?;
        let size = size.unwrap_or_else(|| S::SIZE.map_or(1, |k| k.default));
        if size == 0 || size > MAX_SIZE || (S::SIZE.is_none() && size != 1) {
            return Err(PrepareError::Size {
                scenario: S::NAME,
                size,
            });
        }
        match S::VOCABULARY.filter(|_| p.name() == GENERATED) {
            Some(vocabulary) => {
                let bounds = bounds.unwrap_or(vocabulary.bounds);
                Scenario::prepare_generated(self, v, bounds, size)
                    .ok_or(PrepareError::NoGenerated { scenario: S::NAME })
            }
            None if bounds.is_some() => Err(PrepareError::Bounds {
                scenario: S::NAME,
                plan: plan.to_string(),
            }),
            None => Ok(Scenario::prepare(self, v, p, size)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every declaration of a violation beyond an engine's reach names real variants, plans,
    /// an invariant each of those cases is expected to break and listed window probes, and
    /// an engine whose default run is sampled or searched (never loom, which must show it).
    #[test]
    fn every_beyond_reach_declaration_is_well_formed() {
        for s in all() {
            for b in s.beyond_reach() {
                let what = format!("{} {:?} {}", s.name(), b.engine, b.invariant);
                assert!(
                    matches!(b.engine, Engine::Random | Engine::Pct | Engine::Stateful),
                    "{what}: only random, PCT or stateful may be declared"
                );
                assert!(!b.measured.trim().is_empty(), "{what}: no measurement");
                assert!(!b.window.is_empty(), "{what}: no window probe");
                for probe in b.window {
                    assert!(
                        s.probes().iter().any(|p| p.name == probe.name),
                        "{what}: window probe {} not among the scenario's probes",
                        probe.name
                    );
                }
                for variant in b.variants {
                    for plan in b.plans {
                        let expected = s.expected(variant, plan).expect("known names");
                        assert!(
                            expected.invariants().contains(&b.invariant),
                            "{what}: {variant}/{plan} is not expected to break it"
                        );
                    }
                }
            }
        }
    }

    /// Every invariant says what breaking it does to a running cluster; a probe, which
    /// only counts a race window, says nothing of the kind (its entry cannot carry a harm).
    #[test]
    fn every_invariant_has_a_harm_and_no_probe_has_one() {
        let template: Vec<Property> = hdds_template::HddsTemplate::PROPERTIES.to_vec();
        let mut lists: Vec<(&str, Vec<Property>)> =
            all().iter().map(|s| (s.name(), s.properties())).collect();
        lists.push(("hdds-template", template));
        for (scenario, properties) in lists {
            assert!(properties.iter().any(Property::is_invariant), "{scenario}");
            for p in properties {
                match p.harm() {
                    Some(harm) if p.is_invariant() => {
                        let harm = harm.trim();
                        assert!(!harm.is_empty(), "{scenario}: {} has an empty harm", p.name);
                        assert!(
                            harm.ends_with('.')
                                && harm.chars().next().is_some_and(char::is_uppercase),
                            "{scenario}: {}'s harm is not a sentence: {harm}",
                            p.name
                        );
                        assert_ne!(harm, p.doc, "{scenario}: {}'s harm repeats its doc", p.name);
                    }
                    None if !p.is_invariant() => {}
                    harm => panic!("{scenario}: {} ({:?}) has harm {harm:?}", p.name, p.kind),
                }
            }
        }
    }
}
