//! HDDS-TEMPLATE: TODO what goes wrong, between which threads or replicas, and what a user
//! of Ozone sees.
//!
//! TODO Buggy: the Java at FIX^ (PARENT); fixed: at the fix FIX (PR #N). Models: TODO
//! `crate::models::...`. Historical citations: `@hdds-template-parent` and `@hdds-template`
//! in `citations.toml`.
//!
//! # The race
//!
//! TODO the race step by step, each step naming the Java method it stands for. Until then,
//! this module's own model: request handlers each read one row and write it back
//! incremented. `buggy` holds no lock around the read and the write, so a handler that reads
//! between another's read and write writes a value that loses that update; `fixed` holds one
//! lock around both.
//!
//! # Plans
//!
//! - `two-handlers`: TODO which actors run, which fault happens. Two handlers update the row.
//! - `three-handlers`: TODO. Three handlers update the row.
//! - `generated`: every workload of the vocabulary
//!   ([`VOCABULARY`](crate::scenarios::hdds_template::VOCABULARY)) within its bounds, each
//!   drawn by the engine: TODO the requests and faults the Java path meets. Here: up to
//!   three updates, each on its own handler.
//!
//! # Properties
//!
//! TODO `NoLostUpdate` (at every write: the value written counts every update applied
//! before it), `AllUpdatesApplied` (at quiescence: the row counts every handler). Probe
//! `UpdateOverlapped` (required): a handler began its update while another's was in flight,
//! the window the fix must survive.
//!
//! # Abstractions
//!
//! | Java (class.method) | what the model keeps | what it merges or leaves out, and why no verdict depends on it |
//! |---|---|---|
//! | TODO `Class.method` | TODO | TODO |
//! | TODO `Class.method` | TODO | TODO |

use crate::choices;
use crate::citation::Label;
use crate::properties::{Invariant, Probe, Property};
use crate::recorder::{Actor, Recorder};
use crate::scenario::{Case, Expected, Scenario};
use crate::sync::ghost::{Ghost, Witness};
use crate::sync::{thread, Arc, Mutex, Volatile};
use crate::workload::{any_item, Bounds, Kind, Vocabulary, Word};

/// The scenario.
#[derive(Debug, Clone, Copy)]
pub struct HddsTemplate;

choices! {
    /// TODO what the variants differ in.
    pub enum Variant {
        /// TODO FIX^, the Java with the bug: no lock around the read and the write
        Buggy = "buggy",
        /// TODO FIX, the fix: one lock around the read and the write
        Fixed = "fixed",
    }
}

choices! {
    /// TODO what the plans vary: which actors run, which faults happen.
    pub enum Plan {
        /// TODO two handlers update the row
        TwoHandlers = "two-handlers",
        /// TODO three handlers update the row
        ThreeHandlers = "three-handlers",
        /// every workload of the vocabulary within its bounds, drawn by the engine
        Generated = "generated",
    }
}

/// TODO the requests and faults the modelled Java path handles, each citing its Java, with
/// the universes their arguments range over (keys, buckets, ids) and the default bounds.
pub const VOCABULARY: Vocabulary = Vocabulary {
    universes: &[],
    words: &[Word {
        name: "update",
        kind: Kind::Request,
        args: &[],
        doc: "a handler's read and write of the row, on its own thread",
    }],
    bounds: Bounds {
        requests: 3,
        faults: 0,
    },
    // TODO what a client can send next, given what it sent (`any_item`: anything).
    allowed: any_item,
};

/// What a handler saw at its write.
pub struct Write {
    /// The value it wrote.
    pub wrote: u64,
    /// The updates applied so far, its own included.
    pub applied: u64,
}

/// TODO an invariant checked at every step that could break it.
pub const NO_LOST_UPDATE: Invariant<Write> = Invariant::always(
    "NoLostUpdate",
    "every write counts every update applied before it",
    "TODO what goes wrong in a running Ozone cluster when it breaks. Here: a write overwrites an update that was applied before it, and that update is lost.",
    |w| {
        if w.wrote == w.applied {
            return Ok(());
        }
        Err(format!("wrote {} after {} updates", w.wrote, w.applied))
    },
);

/// What the execution left behind.
pub struct End {
    /// The row's last value.
    pub row: u64,
    /// How many handlers ran.
    pub handlers: u64,
}

/// TODO a property checked once the execution has quiesced: the work a fix must still do.
pub const ALL_UPDATES_APPLIED: Invariant<End> = Invariant::eventually(
    "AllUpdatesApplied",
    "once every handler has returned, the row counts every handler's update",
    "TODO what goes wrong in a running Ozone cluster when it breaks. Here: an update whose handler returned is missing from the row.",
    |e| {
        if e.row == e.handlers {
            return Ok(());
        }
        Err(format!("the row is {} after {} updates", e.row, e.handlers))
    },
);

/// TODO the race window a "held" verdict needs reached.
pub const UPDATE_OVERLAPPED: Probe = Probe::new(
    "UpdateOverlapped",
    "a handler began its update while another's was between its read and its write",
);

impl Scenario for HddsTemplate {
    type Variant = Variant;
    type Plan = Plan;
    const NAME: &'static str = "hdds-template";
    const JIRA: &'static str = "HDDS-TEMPLATE";
    const TITLE: &'static str = "TODO a read-modify-write of one row without a lock loses updates";
    // Also, when needed: `const SIZE` (a size knob) and `const EXECUTIONS` (a raised budget).
    const PROPERTIES: &'static [Property] = &[
        NO_LOST_UPDATE.property(),
        ALL_UPDATES_APPLIED.property(),
        UPDATE_OVERLAPPED.required(),
    ];
    const VOCABULARY: Option<Vocabulary> = Some(VOCABULARY);

    fn expected(variant: Variant, plan: Plan) -> Expected {
        const LOST: &[Property] = &[NO_LOST_UPDATE.property(), ALL_UPDATES_APPLIED.property()];
        // TODO one arm per verdict, no `_`; say why where the Java is not obvious.
        match (variant, plan) {
            (Variant::Buggy, Plan::TwoHandlers | Plan::ThreeHandlers | Plan::Generated) => {
                Expected::Violates(LOST)
            }
            (Variant::Fixed, Plan::TwoHandlers | Plan::ThreeHandlers | Plan::Generated) => {
                Expected::Holds
            }
        }
    }

    fn prepare(&self, variant: Variant, plan: Plan, _size: usize) -> Box<dyn Case> {
        let handlers = match plan {
            Plan::TwoHandlers => 2,
            Plan::ThreeHandlers | Plan::Generated => 3,
        };
        Box::new(Prepared {
            variant,
            handlers: Handlers::Written(handlers),
        })
    }

    fn prepare_generated(
        &self,
        variant: Variant,
        bounds: Bounds,
        _size: usize,
    ) -> Option<Box<dyn Case>> {
        Some(Box::new(Prepared {
            variant,
            handlers: Handlers::Drawn(bounds),
        }))
    }
}

// TODO cite the Java each step stands for (`&java::Class::method`, from `citations.toml`);
// `Label::model` is for steps that stand for no one Java method.
const READ: Label = Label::model("read the row");
const WRITE: Label = Label::model("write the row");

/// TODO the model of the Java: in `src/models/`, reusing and extending the existing ones.
pub struct Row {
    value: Volatile<u64>,
    lock: Mutex<()>,
    /// The handlers between their read and their write, for the probe: a witness, as
    /// nothing else reads it (the engines need not tell states apart by it).
    in_flight: Witness<u64>,
    /// Ghost: the updates applied, for `NoLostUpdate`.
    applied: Ghost<u64>,
}

impl Default for Row {
    fn default() -> Self {
        Row {
            value: Volatile::new(0),
            lock: Mutex::new(()),
            in_flight: Witness::new(0),
            applied: Ghost::new(0),
        }
    }
}

impl Row {
    /// One handler's update: the read and the write, under the lock in `fixed`.
    pub fn update(&self, variant: Variant, me: &Actor) {
        self.in_flight.probe_if(me, &UPDATE_OVERLAPPED, |n| *n > 0);
        let _guard = match variant {
            Variant::Buggy => None,
            Variant::Fixed => Some(self.lock.lock()),
        };
        let read = self.read(me);
        self.write(me, read + 1);
    }

    /// Read the row.
    pub fn read(&self, me: &Actor) -> u64 {
        self.in_flight.update(|n| *n += 1);
        let value = self.value.get();
        me.step_with(READ, || format!("read {value}"));
        value
    }

    /// Write `value`, checking that it counts every update applied so far.
    pub fn write(&self, me: &Actor, value: u64) {
        self.value.set(value);
        let applied = self.applied.with(|n| {
            *n += 1;
            *n
        });
        me.step_with(WRITE, || format!("wrote {value}"));
        let write = Write {
            wrote: value,
            applied,
        };
        NO_LOST_UPDATE.check_into(&write, me.recorder());
        self.in_flight.update(|n| *n -= 1);
    }

    /// The row's value.
    pub fn value(&self) -> u64 {
        self.value.get()
    }
}

/// How many handlers run: as a plan writes it, or as many as the updates of a workload
/// drawn within the bounds.
enum Handlers {
    Written(u64),
    Drawn(Bounds),
}

struct Prepared {
    variant: Variant,
    handlers: Handlers,
}

impl Case for Prepared {
    fn run(&self, recorder: &Arc<Recorder>) {
        // A workload is drawn before anything is spawned (see `Vocabulary::draw`), and the
        // trace shows it first.
        let handlers = match self.handlers {
            Handlers::Written(n) => n,
            Handlers::Drawn(bounds) => {
                let workload = VOCABULARY.draw_shown(bounds, &Actor::new("client", recorder));
                workload.items.len() as u64
            }
        };
        let row = Arc::new(Row::default());
        let threads: Vec<_> = (1..=handlers)
            .map(|i| {
                let name = format!("handler{i}");
                let (row, me, variant) =
                    (Arc::clone(&row), Actor::new(&name, recorder), self.variant);
                thread::spawn(&name, move || row.update(variant, &me))
            })
            .collect();
        // The client reads the row while its requests are served, so that even a workload
        // of one request races something: PCT needs its first execution to make a choice.
        let _ = row.value();
        for t in threads {
            t.join();
        }
        recorder.quiesce();
        let end = End {
            row: row.value(),
            handlers,
        };
        ALL_UPDATES_APPLIED.check_into(&end, recorder);
    }
}

// ---- `ozone-ha-check new` copies nothing below this line ----

/// The skeleton runs as a scenario: its buggy variant breaks both invariants, its fix holds
/// with the window reached, under PCT, random and the stateful engine.
#[cfg(all(test, not(any(loom, ohc_threads))))]
mod tests {
    use super::*;
    use crate::engine::Engine;
    use crate::jobs::plan_strategy;
    use crate::scenarios::AnyScenario;
    use crate::verify::verify_case;

    #[test]
    fn the_buggy_variant_breaks_its_invariants_and_the_fix_holds() {
        let s: &dyn AnyScenario = &HddsTemplate;
        for case in s.cases() {
            let expected = s.expected(case.variant, case.plan).unwrap();
            let violates = matches!(expected, Expected::Violates(_));
            assert_eq!(violates, case.variant == "buggy", "{case:?}");
            for engine in [Engine::Pct, Engine::Random, Engine::Stateful] {
                verify_case(s, case, &|| plan_strategy(s, case.plan, engine, 0))
                    .unwrap_or_else(|e| panic!("{engine}: {e}"));
            }
        }
    }
}
