//! Helpers shared by the shuttle tests.

use ozone_ha_check::engine::{
    drive, DriveError, Driven, Exploration, Flow, Schedule, Strategy, Yields,
};
use ozone_ha_check::explore::{explore, Report, Request};
use ozone_ha_check::kit::raft_log::RaftLog;
use ozone_ha_check::models::om::snapshot::node::SnapshotOm;
use ozone_ha_check::models::om::snapshot::requests::SnapshotRequest;
use ozone_ha_check::models::om::startup::data_after;
use ozone_ha_check::recorder::Actor;
use ozone_ha_check::scenarios::find;
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

/// Explore one case.
pub fn run(
    scenario: &str,
    variant: &str,
    plan: &str,
    strategy: Strategy,
    watch: Option<&str>,
) -> Report {
    let s = find(scenario).expect("registered scenario");
    explore(s, &Request::new(variant, plan, strategy).watch(watch))
        .unwrap_or_else(|e| panic!("{scenario} {variant} {plan}: {e}"))
}

/// PCT at depth 3.
pub fn pct(seed: u64, executions: usize) -> Strategy {
    Strategy::Pct {
        seed,
        depth: 3,
        executions,
    }
}

/// Replay a schedule.
pub fn replay(
    scenario: &str,
    variant: &str,
    plan: &str,
    schedule: impl std::fmt::Display,
    watch: Option<&str>,
) -> Report {
    let schedule = Schedule::parse(&schedule.to_string()).expect("committed schedule parses");
    run(
        scenario,
        variant,
        plan,
        Strategy::Replay { schedule },
        watch,
    )
}

/// Apply every data entry of `log` after index `after` on `om` (each must apply), then run
/// its flush thread through the log's last index.
pub fn apply_then_flush(om: &SnapshotOm, me: &Actor, log: &RaftLog<SnapshotRequest>, after: u64) {
    for (entry, request) in data_after(log, after) {
        assert!(om.apply(me, entry.index, entry.term, request));
    }
    om.flush_thread(me, log.last_index());
}

/// Runs a model in every execution of an engine and keeps each distinct final state it
/// returns, with the schedule of the first execution that reached it.
struct Collector<F> {
    model: F,
    /// The state the running execution's model returned (none if it did not return).
    last: Mutex<Option<String>>,
    seen: Mutex<Vec<(String, Option<Schedule>)>>,
    cut: Mutex<Vec<(String, Schedule)>>,
    /// Whether the stateful engine's search over source sets orders witness cells.
    witnesses: bool,
}

impl<F: Fn() -> String + Send + Sync + 'static> Exploration for Collector<F> {
    fn begin(&self) {
        *self.last.lock().unwrap() = None;
    }
    fn body(&self) {
        *self.last.lock().unwrap() = Some((self.model)());
    }
    fn end(&self, schedule: Option<Schedule>) -> Flow {
        if let Some(state) = self.last.lock().unwrap().take() {
            // The stateful engine's first execution cut short to each state too.
            if let Some(s) = schedule
                .as_ref()
                .filter(|s| matches!(s.yields, Yields::Stateful { cut: Some(_) }))
            {
                let mut cut = self.cut.lock().unwrap();
                if !cut.iter().any(|(c, _)| *c == state) {
                    cut.push((state.clone(), s.clone()));
                }
            }
            let mut seen = self.seen.lock().unwrap();
            if !seen.iter().any(|(s, _)| *s == state) {
                seen.push((state, schedule));
            }
        }
        Flow::Continue
    }
    fn settled(&self) -> bool {
        false
    }
    fn orders_witnesses(&self) -> bool {
        self.witnesses
    }
}

/// What [`collect`] found.
pub struct Collected {
    /// Each distinct final state, in the order first reached, with that execution's
    /// schedule.
    pub seen: Vec<(String, Option<Schedule>)>,
    /// Under the stateful engine, each distinct final state that an execution whose path the
    /// search cut reached, with the first such execution's schedule.
    pub cut: Vec<(String, Schedule)>,
    /// What the engine reported.
    pub driven: Result<Driven, DriveError>,
}

impl Collected {
    /// The distinct final states.
    pub fn states(&self) -> BTreeSet<String> {
        self.seen.iter().map(|(s, _)| s.clone()).collect()
    }
}

/// Run `model` in every execution `strategy` makes and collect its final states.
pub fn collect<F: Fn() -> String + Send + Sync + 'static>(
    strategy: &Strategy,
    model: F,
) -> Collected {
    collect_ordering(strategy, model, false)
}

/// [`collect`], the stateful engine's search over source sets ordering witness cells if
/// `witnesses` ([`Exploration::orders_witnesses`]).
pub fn collect_ordering<F: Fn() -> String + Send + Sync + 'static>(
    strategy: &Strategy,
    model: F,
    witnesses: bool,
) -> Collected {
    let x = Arc::new(Collector {
        model,
        last: Mutex::new(None),
        seen: Mutex::new(Vec::new()),
        cut: Mutex::new(Vec::new()),
        witnesses,
    });
    let driven = drive(strategy, Arc::clone(&x) as Arc<dyn Exploration>);
    let seen = x.seen.lock().unwrap().clone();
    let cut = x.cut.lock().unwrap().clone();
    Collected { seen, cut, driven }
}
