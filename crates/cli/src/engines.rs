//! The engines as the command line offers them: `--engine`'s values and `list --engines`,
//! both read from the core's engine table ([`ozone_ha_check::engine::TABLE`]).
//!
//! ```
//! use clap::ValueEnum;
//! use ozone_ha_check::engine::Engine;
//! use ozone_ha_check_cli::engines::EngineArg;
//!
//! assert_eq!(EngineArg::from_str("pct", false), Ok(EngineArg(Engine::Pct)));
//! assert!(EngineArg::from_str("replay", false).is_err(), "replay runs a recorded schedule");
//! assert!(ozone_ha_check_cli::engines::text().contains("stateful"));
//! ```

use clap::builder::PossibleValue;
use clap::ValueEnum;
use ozone_ha_check::engine::{Build, DefaultRun, Engine, TABLE};
use serde_json::{json, Value};
use std::sync::OnceLock;

/// An engine `--engine` may name: every selectable row of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EngineArg(pub Engine);

impl ValueEnum for EngineArg {
    fn value_variants<'a>() -> &'a [Self] {
        static SELECTABLE: OnceLock<Vec<EngineArg>> = OnceLock::new();
        SELECTABLE.get_or_init(|| {
            TABLE
                .iter()
                .filter(|c| c.selectable)
                .map(|c| EngineArg(c.engine))
                .collect()
        })
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        let c = self.0.capabilities();
        let build = match c.build {
            Build::Shuttle => String::new(),
            other => format!(" ({} build)", other.name()),
        };
        Some(PossibleValue::new(c.name).help(format!("{}{build}", c.doc)))
    }
}

fn default_run(run: DefaultRun) -> String {
    match run {
        DefaultRun::Budget => "the scenario's budget".into(),
        DefaultRun::Executions(n) => format!("at most {n} executions"),
        DefaultRun::Bound => "every schedule within the preemption bound".into(),
        DefaultRun::Runs(n) => format!("{n} runs"),
        DefaultRun::Recorded => "one recorded schedule".into(),
    }
}

fn yes(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "-"
    }
}

/// The engine table as `list --engines` prints it: one line per engine, the ones this
/// build has marked.
pub fn text() -> String {
    let mut out = format!(
        "{:<9} {:<8} {:<10} {:<10} {:<6} {:<8} {}\n",
        "engine", "build", "exhaustive", "replayable", "seeded", "in check", "default run"
    );
    for c in TABLE {
        let here = if c.engine.available() { "*" } else { " " };
        out.push_str(&format!(
            "{:<9} {:<8} {:<10} {:<10} {:<6} {:<8} {}\n",
            format!("{}{here}", c.name),
            c.build.name(),
            yes(c.exhaustive),
            yes(c.replayable),
            yes(c.seeded),
            yes(c.in_check),
            default_run(c.default_run),
        ));
    }
    out.push_str(&format!(
        "* in this build ({}); replayable: a violation keeps its schedule, to replay, minimize and save\n",
        Build::CURRENT.name()
    ));
    out.push_str(
        "  (the stateful engine's schedules replay only in its mode: the minimizer carries its \
         violations to shuttle, and those it carries are saved and replayed from there)\n",
    );
    out
}

/// The engine table as JSON, one object per engine.
pub fn json() -> Value {
    Value::Array(
        TABLE
            .iter()
            .map(|c| {
                json!({
                    "engine": c.name,
                    "doc": c.doc,
                    "build": c.build.name(),
                    "available": c.engine.available(),
                    "exhaustive": c.exhaustive,
                    "replayable": c.replayable,
                    "witness_only": c.witness_only,
                    "seeded": c.seeded,
                    "in_check": c.in_check,
                    "selectable": c.selectable,
                    "default_run": default_run(c.default_run),
                })
            })
            .collect(),
    )
}
