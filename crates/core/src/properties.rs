//! Named properties: invariants that must always hold, properties that must hold once an
//! execution has quiesced, and reachability probes that must sometimes fire.
//!
//! An [`Invariant`] is a plain function over some view of the state, named so that a report
//! can say which one broke (stateright's `Property::always`), with its harm: what goes wrong
//! in a running Ozone cluster when it breaks, which reports print beside the break. Its [`Kind`] says when it is
//! checked: [`Kind::Always`] at every step that could break it, [`Kind::Eventually`] once
//! every thread has stopped (what must have become durable, shipped or agreed by the end),
//! so that a "fix" that simply stops doing the work cannot pass on safety alone.
//!
//! A [`Probe`] is a "sometimes" property: it counts how often an execution reached a race
//! window. A variant that holds every invariant but never fired its required probes proves
//! nothing, and is reported as vacuous.
//!
//! Each property is one constant, written once; a scenario lists them
//! ([`crate::scenario::Scenario::PROPERTIES`]) and everything else refers to the constants.
//!
//! ```
//! use ozone_ha_check::properties::{Invariant, Kind, Probe};
//!
//! const NEVER_NEGATIVE: Invariant<i64> = Invariant::always(
//!     "NeverNegative",
//!     "the counter is never below zero",
//!     "a negative count reaches the client",
//!     |n| if *n < 0 { Err(format!("counter {n}")) } else { Ok(()) },
//! );
//! const WENT_UP: Probe = Probe::new("WentUp", "the counter was incremented");
//!
//! assert_eq!(NEVER_NEGATIVE.property().kind, Kind::Always);
//! assert_eq!(NEVER_NEGATIVE.property().harm(), Some("a negative count reaches the client"));
//! assert!(WENT_UP.required().required);
//! assert_eq!(WENT_UP.required().harm(), None);
//! assert!((NEVER_NEGATIVE.check)(&-1).is_err());
//! ```

use serde::Serialize;

/// When a property is checked, and what it asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Holds at every step that could break it.
    Always,
    /// Holds once the execution has quiesced (every thread stopped).
    Eventually,
    /// A probe: fires in some execution when the race window is reached.
    Sometimes,
}

impl Kind {
    /// The word listings use.
    pub fn word(self) -> &'static str {
        match self {
            Kind::Always => "always",
            Kind::Eventually => "eventually",
            Kind::Sometimes => "sometimes",
        }
    }
}

/// A scenario's entry for one property: its name, meaning and kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Property {
    /// The name reports use.
    pub name: &'static str,
    /// What it asserts, in one sentence.
    pub doc: &'static str,
    /// Always, eventually, or a probe.
    pub kind: Kind,
    /// For a probe: whether a "held" verdict needs it to have fired.
    pub required: bool,
    /// For an invariant: what goes wrong in a running cluster when it breaks. Private, so
    /// that only [`Invariant::property`] sets it and a probe's entry never carries one.
    #[serde(skip_serializing_if = "Option::is_none")]
    harm: Option<&'static str>,
}

impl Property {
    /// Whether this is an invariant (always or eventually), not a probe.
    pub fn is_invariant(&self) -> bool {
        self.kind != Kind::Sometimes
    }

    /// For an invariant, what goes wrong in a running Ozone cluster when it breaks; `None`
    /// for a probe.
    pub fn harm(&self) -> Option<&'static str> {
        self.harm
    }
}

/// A named predicate over a state `S`.
pub struct Invariant<S: ?Sized> {
    /// The name reports use.
    pub name: &'static str,
    /// What it asserts, in one sentence.
    pub doc: &'static str,
    /// What goes wrong in a running Ozone cluster when it breaks, in one or two sentences:
    /// no more than the model shows (a transient or harmless break says so).
    pub harm: &'static str,
    /// [`Kind::Always`] or [`Kind::Eventually`].
    pub kind: Kind,
    /// `Err(detail)` when the state breaks it.
    pub check: fn(&S) -> Result<(), String>,
}

impl<S: ?Sized> Invariant<S> {
    /// An invariant checked at every step that could break it.
    pub const fn always(
        name: &'static str,
        doc: &'static str,
        harm: &'static str,
        check: fn(&S) -> Result<(), String>,
    ) -> Self {
        Self {
            name,
            doc,
            harm,
            kind: Kind::Always,
            check,
        }
    }

    /// A property checked once the execution has quiesced.
    pub const fn eventually(
        name: &'static str,
        doc: &'static str,
        harm: &'static str,
        check: fn(&S) -> Result<(), String>,
    ) -> Self {
        Self {
            name,
            doc,
            harm,
            kind: Kind::Eventually,
            check,
        }
    }

    /// Its entry in a scenario's property list.
    pub const fn property(&self) -> Property {
        Property {
            name: self.name,
            doc: self.doc,
            kind: self.kind,
            required: false,
            harm: Some(self.harm),
        }
    }

    /// Check `state`, reporting a break to `recorder`. Returns whether it held. An
    /// eventually-property checked before the execution quiesced is a bug in the scenario,
    /// reported as a model failure.
    pub fn check_into(&self, state: &S, recorder: &(impl Breaks + ?Sized)) -> bool {
        if self.kind == Kind::Eventually {
            assert!(
                recorder.quiesced(),
                "{} is checked at quiescence, but the execution has not quiesced",
                self.name
            );
        }
        match (self.check)(state) {
            Ok(()) => true,
            Err(detail) => {
                recorder.violate(self.name, detail);
                false
            }
        }
    }
}

/// Where an invariant reports a break: the execution's recorder
/// ([`Recorder`](crate::recorder::Recorder)), which implements it. A trait, so that the
/// properties sit below the recorder that counts them.
pub trait Breaks {
    /// Whether the execution has quiesced (its actors joined), so an eventually-property
    /// may be checked.
    fn quiesced(&self) -> bool;
    /// Report that `invariant` broke, with what was seen.
    fn violate(&self, invariant: &'static str, detail: String);
}

impl<T: Breaks + ?Sized> Breaks for std::sync::Arc<T> {
    fn quiesced(&self) -> bool {
        (**self).quiesced()
    }

    fn violate(&self, invariant: &'static str, detail: String) {
        (**self).violate(invariant, detail)
    }
}

/// Check every invariant of `set` against `state`; each break is reported to `recorder`.
pub fn check_all<S: ?Sized>(set: &[Invariant<S>], state: &S, recorder: &(impl Breaks + ?Sized)) {
    for invariant in set {
        invariant.check_into(state, recorder);
    }
}

/// A reachability probe: it counts executions that reached a race window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Probe {
    /// The name reports use.
    pub name: &'static str,
    /// What reaching it means, in one sentence.
    pub doc: &'static str,
}

impl Probe {
    /// A probe.
    pub const fn new(name: &'static str, doc: &'static str) -> Self {
        Self { name, doc }
    }

    /// Its entry in a scenario's list, counted but not required.
    pub const fn property(&self) -> Property {
        Property {
            name: self.name,
            doc: self.doc,
            kind: Kind::Sometimes,
            required: false,
            harm: None,
        }
    }

    /// Its entry in a scenario's list, required for a "held" verdict.
    pub const fn required(&self) -> Property {
        Property {
            required: true,
            ..self.property()
        }
    }
}
