//! The engine-independent driver: run one (scenario, variant, plan) under one engine and
//! return a [`Report`].

use crate::engine::{self, DriveError, Engine, Exploration, Flow, Schedule, Strategy};
use crate::recorder::{Outcome, Recorder};
use crate::scenario::{BeyondReach, Case, GENERATED};
use crate::scenarios::{AnyScenario, PrepareError, UnknownName};
use crate::sync::ghost::Ghost;
use crate::sync::Arc;
use crate::trace::Event;
use crate::workload::Bounds;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::time::Instant;

/// The outcome of an exploration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// No watched invariant broke, and every required probe fired.
    Held,
    /// A watched invariant broke.
    Violated,
    /// No invariant broke, but a required probe never fired: the race window was not reached.
    Vacuous,
}

impl Verdict {
    /// The lower-case word.
    pub fn word(&self) -> &'static str {
        match self {
            Verdict::Held => "held",
            Verdict::Violated => "violated",
            Verdict::Vacuous => "vacuous",
        }
    }
}

/// What a report expected, as the JSON spells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Expectation {
    /// Every invariant holds, with the required probes fired.
    #[serde(rename = "holds")]
    Holds,
    /// One of `expected_invariants` breaks.
    #[serde(rename = "violates")]
    Violates,
    /// No expectation: the case ran at a size other than the scenario's default.
    #[serde(rename = "-")]
    NotJudged,
}

impl Expectation {
    /// The word the table and the JSON use.
    pub fn word(&self) -> &'static str {
        match self {
            Expectation::Holds => "holds",
            Expectation::Violates => "violates",
            Expectation::NotJudged => "-",
        }
    }
}

/// Everything one exploration found.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Report {
    /// Scenario name.
    pub scenario: String,
    /// Variant name.
    pub variant: String,
    /// Plan name.
    pub plan: String,
    /// The engine.
    pub engine: Engine,
    /// What was expected; not judged at a size other than the scenario's default.
    pub expected: Expectation,
    /// The invariants the expectation names.
    pub expected_invariants: Vec<String>,
    /// The expected invariants this engine is declared unable to reach
    /// ([`crate::scenario::BeyondReach`]): when they are all of them, a run that breaks
    /// nothing, with the declared window probes fired, is as expected ("not witnessed").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub beyond_reach: Vec<String>,
    /// The verdict.
    pub verdict: Verdict,
    /// The broken invariant.
    pub invariant: Option<String>,
    /// One line: the state that breaks it.
    pub detail: Option<String>,
    /// The trace step at which it broke.
    pub violation_step: Option<usize>,
    /// Every invariant the first violating execution broke before it stopped, watched or
    /// not, in order: each of them, watched alone, breaks first in that same execution.
    #[serde(default)]
    pub broken: Vec<String>,
    /// Executions run.
    pub executions: usize,
    /// The number (from 1) of the first violating execution.
    pub first_violation: Option<usize>,
    /// Violating executions seen (the engine stops at the first, except real threads).
    pub violations: usize,
    /// Whether an exhaustive engine (DFS, loom) ran out of schedules within its bound.
    pub exhausted: bool,
    /// Wall-clock time of the exploration.
    pub elapsed_ms: u128,
    /// The seed of a randomized engine.
    pub seed: Option<u64>,
    /// The engine's settings in words (depth, bound, runs).
    pub settings: String,
    /// The failing execution's schedule, for `replay` (shuttle engines only, and a stateful
    /// counterexample once the minimizer has carried it to shuttle).
    pub schedule: Option<Schedule>,
    /// The stateful engine's failing schedule, which replays only in that engine's mode (its
    /// tasks also yield at the facade's operations): never written out, it is what the
    /// minimizer carries to shuttle ([`crate::minimize`]).
    #[serde(skip)]
    pub stateful_schedule: Option<Schedule>,
    /// The failing execution's context switches.
    pub context_switches: Option<usize>,
    /// The failing execution's domain trace.
    pub trace: Vec<Event>,
    /// Hits of every probe, summed over all executions.
    pub probes: BTreeMap<String, u64>,
    /// For every probe, the executions in which it fired at least once: a probe that fires
    /// in every execution shows nothing about a race window.
    #[serde(default)]
    pub probe_executions: BTreeMap<String, u64>,
    /// The invariant watched alone, if the exploration was restricted to one.
    pub watched: Option<String>,
    /// How the counterexample was shortened, when it was.
    pub minimized: Option<Minimized>,
    /// The size knob's value, when one was given.
    pub size: Option<usize>,
    /// The workload bounds, when they were given (a generated plan).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bounds: Option<Bounds>,
    /// What the verdict covers, for a generated plan: the bounds and the number of
    /// workloads within them ([`AnyScenario::scope`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// For the stateful engine on a part of a generated space (`check --shard`): which
    /// parts of how many the report covers ([`crate::shards`] joins the parts' reports).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parts: Option<Parts>,
    /// The states the stateful engine visited (its unbounded search, or the pass that exhausted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub states: Option<usize>,
    /// The distinct final states the stateful engine's searches ended their executions in
    /// ([`engine::Driven::final_states`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub final_states: Option<usize>,
    /// What the stateful engine's reductions saved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reduction: Option<engine::Reduction>,
    /// Of the executions, those the stateful engine's random walks took
    /// ([`engine::Driven::walks`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub walks: Option<usize>,
    /// With the stateful engine: the executions of its search over source sets with witness
    /// cells ordered, run after the first search exhausted the case without meeting every
    /// required probe; it stops once they are met (`None`: not run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub witness_search: Option<usize>,
    /// The distinct states the stateful engine met, by what reached each
    /// ([`engine::Driven::state_origins`]): where the state space comes from.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub state_origins: BTreeMap<String, u64>,
    /// Whether `--time-budget` ended the exploration before the engine did.
    pub out_of_time: bool,
    /// Scheduling decisions per execution, on average (shuttle engines only).
    pub decisions_per_execution: Option<f64>,
    /// Tasks (threads, the main one included) the engine scheduled (shuttle engines only).
    pub tasks: Option<usize>,
    /// Scheduling points per execution, on average, by kind (`store`, `lock`, `volatile`,
    /// `channel`, `condvar wait`, `rwlock read`, `spawn`, ...): what the engine branches on.
    /// Empty under real threads.
    #[serde(default)]
    pub points_per_execution: BTreeMap<String, f64>,
    /// For a replayed or guided run: where it left the non-preemptive default.
    #[serde(skip)]
    pub switches: Option<Vec<(usize, usize)>>,
}

/// Which parts of a generated space a report covers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Parts {
    /// How many parts the space was cut into.
    pub count: usize,
    /// The parts covered, from 1, in order: one for a shard's report, every part present
    /// for a joined one.
    pub present: Vec<usize>,
    /// The workloads in the parts covered.
    pub workloads: u64,
}

impl Parts {
    /// The parts missing from `1..=count`.
    pub fn missing(&self) -> Vec<usize> {
        (1..=self.count)
            .filter(|i| !self.present.contains(i))
            .collect()
    }
}

/// The lengths of a counterexample before and after minimization.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Minimized {
    /// Domain steps of the failing execution as found.
    pub found_steps: usize,
    /// Its context switches.
    pub found_context_switches: usize,
    /// Its preemptions: decisions that left a non-preemptive default (run the current task
    /// while it can run, else the lowest-numbered runnable one).
    pub found_preemptions: usize,
    /// Domain steps of the minimized counterexample.
    pub steps: usize,
    /// Its preemptions.
    pub preemptions: usize,
    /// Its context switches.
    pub context_switches: usize,
    /// Replays the minimization ran.
    pub replays: usize,
    /// Items of the workload as found (a generated plan).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub found_workload: Option<usize>,
    /// Items of the minimized counterexample's workload (a generated plan).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workload: Option<usize>,
    /// For a counterexample the stateful engine found: its execution, which the minimizer
    /// carried to shuttle before shortening it (the figures `found_*` are then those of the
    /// first shuttle execution that broke the invariant).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub carried: Option<Carried>,
}

/// A stateful engine's counterexample, as found, before the minimizer carried it to shuttle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Carried {
    /// Domain steps of the stateful engine's failing execution.
    pub steps: usize,
    /// Its context switches.
    pub context_switches: usize,
    /// The replays it took to break the invariant under shuttle (counted in
    /// [`Minimized::replays`] too).
    pub replays: usize,
}

impl Report {
    /// Whether the verdict is the expected one (and, for a violation, of an expected
    /// invariant).
    pub fn as_expected(&self) -> bool {
        let expected_break = || {
            self.expected == Expectation::Violates
                && self
                    .invariant
                    .as_ref()
                    .is_some_and(|i| self.expected_invariants.contains(i))
        };
        if self.expected == Expectation::NotJudged {
            return true;
        }
        if self.witness_only() {
            // Real threads can only witness: a break must be an expected one, and nothing
            // else is judged.
            return self.verdict != Verdict::Violated || expected_break();
        }
        match self.verdict {
            Verdict::Held => self.expected == Expectation::Holds || self.unwitnessed(),
            Verdict::Vacuous => false,
            Verdict::Violated => expected_break(),
        }
    }

    /// Whether every expected invariant is declared out of this engine's reach
    /// ([`crate::scenario::BeyondReach`]).
    pub fn all_beyond_reach(&self) -> bool {
        self.expected == Expectation::Violates
            && !self.expected_invariants.is_empty()
            && self
                .expected_invariants
                .iter()
                .all(|i| self.beyond_reach.contains(i))
    }

    /// Whether the engine can only witness a violation, never rule one out nor show that a
    /// race window is unreachable (real threads).
    pub fn witness_only(&self) -> bool {
        self.engine.witness_only()
    }

    /// A violating case that a witness-only engine did not see break, or that an engine
    /// declared unable to reach its violations ran to its end with the declared windows
    /// reached.
    pub fn unwitnessed(&self) -> bool {
        (self.witness_only()
            && self.expected == Expectation::Violates
            && self.verdict != Verdict::Violated)
            || (self.all_beyond_reach() && self.verdict == Verdict::Held)
    }
}

/// What to explore and how.
#[derive(Clone, Debug)]
pub struct Request<'a> {
    /// The variant.
    pub variant: &'a str,
    /// The plan.
    pub plan: &'a str,
    /// The engine and its settings.
    pub strategy: Strategy,
    /// Watch only this invariant (the others are still evaluated but do not count).
    pub watch: Option<&'a str>,
    /// Stop at the first violation (real threads default to counting every one).
    pub stop_at_first: bool,
    /// The scenario's size knob; `None` is its default size.
    pub size: Option<usize>,
    /// The bounds of a generated plan's workloads; `None` is the vocabulary's defaults.
    pub bounds: Option<Bounds>,
    /// Stop exploring at this instant and report how far the exploration got.
    pub deadline: Option<Instant>,
    /// Keep the counterexample's trace. An engine that explores without one finds its
    /// first failure again with it (a replay of its schedule); without,
    /// the report names the invariant and its detail, and its trace is empty.
    pub trace: bool,
}

impl<'a> Request<'a> {
    /// Explore `variant` x `plan` under `strategy`, watching every invariant, stopping at the
    /// first violation, at the default size, with no deadline.
    pub fn new(variant: &'a str, plan: &'a str, strategy: Strategy) -> Self {
        Self {
            variant,
            plan,
            strategy,
            watch: None,
            stop_at_first: true,
            size: None,
            bounds: None,
            deadline: None,
            trace: true,
        }
    }

    /// Watch only this invariant (or every one, with `None`).
    pub fn watch(mut self, invariant: Option<&'a str>) -> Self {
        self.watch = invariant;
        self
    }

    /// Whether to stop at the first violation.
    pub fn stop_at_first(mut self, stop: bool) -> Self {
        self.stop_at_first = stop;
        self
    }

    /// The size knob's value.
    pub fn size(mut self, size: Option<usize>) -> Self {
        self.size = size;
        self
    }

    /// The bounds of a generated plan's workloads.
    pub fn bounds(mut self, bounds: Option<Bounds>) -> Self {
        self.bounds = bounds;
        self
    }

    /// Stop at this instant.
    pub fn deadline(mut self, deadline: Option<Instant>) -> Self {
        self.deadline = deadline;
        self
    }

    /// Whether to keep the counterexample's trace.
    pub fn trace(mut self, trace: bool) -> Self {
        self.trace = trace;
        self
    }
}

/// Why an exploration could not run.
#[derive(Debug)]
pub enum ExploreError {
    /// A name is unknown.
    Unknown(UnknownName),
    /// The case cannot be prepared (an unsupported size).
    Prepare(PrepareError),
    /// The engine failed, or the model did.
    Drive(DriveError),
}

impl ExploreError {
    /// Whether the error is the caller's (a name or size), not the model's or the engine's.
    pub fn is_usage(&self) -> bool {
        match self {
            ExploreError::Unknown(_) | ExploreError::Prepare(_) => true,
            ExploreError::Drive(DriveError::EngineMissing(_)) => true,
            ExploreError::Drive(_) => false,
        }
    }
}

impl fmt::Display for ExploreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExploreError::Unknown(e) => e.fmt(f),
            ExploreError::Prepare(e) => e.fmt(f),
            ExploreError::Drive(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ExploreError {}

impl From<PrepareError> for ExploreError {
    fn from(e: PrepareError) -> Self {
        match e {
            PrepareError::Unknown(u) => ExploreError::Unknown(u),
            other => ExploreError::Prepare(other),
        }
    }
}

#[derive(Default)]
struct Tally {
    executions: usize,
    violations: usize,
    probes: BTreeMap<&'static str, u64>,
    probe_executions: BTreeMap<&'static str, u64>,
    first: Option<(usize, Outcome, Option<Schedule>)>,
    out_of_time: bool,
    decisions: usize,
    tasks: usize,
    points: BTreeMap<&'static str, u64>,
    /// A property name the model reported that the scenario does not list.
    unlisted: Option<String>,
}

impl Tally {
    /// Whether `probe` fired at least once.
    fn fired(&self, probe: &str) -> bool {
        self.probes.get(probe).is_some_and(|&n| n > 0)
    }
}

struct Run {
    case: Box<dyn Case>,
    recorder: Arc<Recorder>,
    /// The names of the scenario's properties: what the model may report.
    listed: Vec<&'static str>,
    stop_at_first: bool,
    deadline: Option<Instant>,
    tally: Ghost<Tally>,
    /// Probes that end the exploration once each has fired: the search over source sets run
    /// again, ordering witnesses, to meet those its first run left unmet
    /// ([`witnessed_search`]). Empty for every other run.
    awaited: Vec<&'static str>,
}

impl Exploration for Run {
    fn begin(&self) {
        self.recorder.reset();
        crate::sync::points::take();
    }

    fn body(&self) {
        self.case.run(&self.recorder);
    }

    fn end(&self, schedule: Option<Schedule>) -> Flow {
        let outcome = self.recorder.take();
        let points = crate::sync::points::take();
        let out_of_time = self.deadline.is_some_and(|d| Instant::now() >= d);
        self.tally.with(|t| {
            t.executions += 1;
            for (kind, n) in points {
                *t.points.entry(kind).or_default() += n;
            }
            if let Some(s) = &schedule {
                t.decisions += s.steps.len();
                t.tasks = t.tasks.max(s.tasks());
            }
            if out_of_time {
                t.out_of_time = true;
            }
            let reported = outcome.probes.keys().chain(outcome.broken.iter());
            if let Some(name) = reported.into_iter().find(|n| !self.listed.contains(n)) {
                t.unlisted = Some((*name).to_string());
                return Flow::Stop;
            }
            for (name, hits) in &outcome.probes {
                *t.probes.entry(name).or_default() += hits;
                *t.probe_executions.entry(name).or_default() += 1;
            }
            let met = !self.awaited.is_empty() && self.awaited.iter().all(|p| t.fired(p));
            if outcome.violation.is_none() {
                return if out_of_time || met {
                    Flow::Stop
                } else {
                    Flow::Continue
                };
            }
            t.violations += 1;
            if t.first.is_none() {
                t.first = Some((t.executions, outcome, schedule));
            }
            if self.stop_at_first || out_of_time {
                Flow::Stop
            } else {
                Flow::Continue
            }
        })
    }

    fn settled(&self) -> bool {
        self.recorder.violated()
    }

    fn orders_witnesses(&self) -> bool {
        !self.awaited.is_empty()
    }
}

/// Explore one (variant, plan) of `scenario`.
///
/// ```
/// use ozone_ha_check::engine::Strategy;
/// use ozone_ha_check::explore::{explore, Request, Verdict};
/// use ozone_ha_check::scenarios::find;
///
/// # if (Strategy::Pct { seed: 1, depth: 3, executions: 1 }).available() {
/// let scenario = find("hdds-16092").unwrap();
/// let request = Request::new("buggy", "steady", Strategy::Pct { seed: 1, depth: 3, executions: 500 });
/// let report = explore(scenario, &request).unwrap();
/// assert_eq!(report.verdict, Verdict::Violated);
/// assert_eq!(report.invariant.as_deref(), Some("TxIndexMonotone"));
/// # }
/// ```
pub fn explore(scenario: &dyn AnyScenario, request: &Request<'_>) -> Result<Report, ExploreError> {
    let expected = scenario
        .expected(request.variant, request.plan)
        .map_err(ExploreError::Unknown)?;
    let watch = match request.watch {
        None => None,
        Some(w) => Some(
            scenario
                .invariant(w)
                .ok_or_else(|| {
                    ExploreError::Unknown(UnknownName {
                        kind: "invariant",
                        name: w.to_string(),
                        scenario: Some(scenario.name()),
                        known: scenario.invariants().iter().map(|p| p.name).collect(),
                    })
                })?
                .name,
        ),
    };
    let replayable = request.strategy.replayable();
    // Engines that can replay a failure explore without a trace and replay it with one. So
    // does the stateful search, whose schedules only it can replay (its tasks also yield at
    // the facade's operations): they are replayed here, in its mode.
    let retrace = replayable || matches!(request.strategy, Strategy::Stateful { .. });
    let run = new_run(scenario, request, watch, !retrace, Vec::new())?;
    let started = Instant::now();
    let driven = engine::drive(&request.strategy, Arc::clone(&run) as Arc<dyn Exploration>)
        .map_err(ExploreError::Drive)?;
    let elapsed_ms = started.elapsed().as_millis();
    let mut tally = run.tally.with(std::mem::take);
    if let Some(name) = &tally.unlisted {
        return Err(ExploreError::Drive(DriveError::ModelFailure(format!(
            "the model reported property `{name}`, which {} does not list",
            scenario.name()
        ))));
    }
    // Watching one invariant, the expectation is about that invariant alone. Expectations
    // are stated for the default size; at other sizes the verdict is reported, not judged.
    let expected_invariants: Vec<String> = expected
        .invariants()
        .into_iter()
        .filter(|i| watch.is_none_or(|w| w == *i))
        .map(str::to_string)
        .collect();
    // Likewise for a generated plan's workloads: the expectations are over the default bounds.
    let off_bounds = request
        .bounds
        .is_some_and(|b| scenario.vocabulary().is_some_and(|v| v.bounds != b));
    let (expectation, expected_invariants) =
        if !scenario.is_default_size(request.size) || off_bounds {
            (Expectation::NotJudged, Vec::new())
        } else if expected_invariants.is_empty() {
            (Expectation::Holds, expected_invariants)
        } else {
            (Expectation::Violates, expected_invariants)
        };
    let engine = request.strategy.engine();
    let beyond: Vec<&BeyondReach> = expected_invariants
        .iter()
        .filter_map(|i| scenario.beyond(engine, request.variant, request.plan, i))
        .collect();
    let beyond_reach: Vec<String> = beyond.iter().map(|b| b.invariant.to_string()).collect();
    // A run under an engine declared unable to break any expected invariant must show it
    // reached the declared windows instead.
    let mut required = scenario.required_probes();
    if !beyond.is_empty() && beyond.len() == expected_invariants.len() {
        required.extend(beyond.iter().flat_map(|b| b.window.iter().map(|p| p.name)));
    }
    let witness_search =
        witnessed_search(scenario, request, watch, &driven, &mut tally, &required)?;
    let verdict = if tally.first.is_some() {
        Verdict::Violated
    } else if required.iter().all(|p| tally.fired(p)) {
        Verdict::Held
    } else {
        Verdict::Vacuous
    };
    let (first_violation, mut outcome, schedule) = match tally.first {
        Some((n, o, s)) => (Some(n), o, s),
        None => (None, Outcome::default(), None),
    };
    if let Some(schedule) = schedule.as_ref().filter(|_| retrace && request.trace) {
        outcome = traced(scenario, request, watch, schedule)?;
    }
    let violation = outcome.violation;
    // The stateful engine's schedules replay only in its mode, which their text form does not
    // carry: reports keep them aside, for the minimizer to carry to shuttle.
    let (schedule, stateful_schedule) = match request.strategy {
        Strategy::Stateful { .. } => (None, schedule),
        _ => (schedule, None),
    };
    let part = match &request.strategy {
        Strategy::Stateful { part: Some(p), .. } if request.plan == GENERATED => Some(p),
        _ => None,
    };
    Ok(Report {
        scenario: scenario.name().to_string(),
        variant: request.variant.to_string(),
        plan: request.plan.to_string(),
        engine: request.strategy.engine(),
        expected: expectation,
        expected_invariants,
        beyond_reach,
        verdict,
        invariant: violation.as_ref().map(|v| v.invariant.to_string()),
        detail: violation.as_ref().map(|v| v.detail.clone()),
        violation_step: violation.as_ref().map(|v| v.step),
        broken: outcome.broken.iter().map(|b| b.to_string()).collect(),
        executions: driven.executions.max(tally.executions),
        first_violation,
        violations: tally.violations,
        exhausted: driven.exhausted,
        elapsed_ms,
        seed: request.strategy.seed(),
        settings: request.strategy.settings(),
        context_switches: schedule.as_ref().map(Schedule::context_switches),
        stateful_schedule,
        schedule,
        trace: outcome.trace,
        probes: scenario
            .probes()
            .iter()
            .map(|p| {
                (
                    p.name.to_string(),
                    tally.probes.get(p.name).copied().unwrap_or(0),
                )
            })
            .collect(),
        probe_executions: scenario
            .probes()
            .iter()
            .map(|p| {
                (
                    p.name.to_string(),
                    tally.probe_executions.get(p.name).copied().unwrap_or(0),
                )
            })
            .collect(),
        watched: watch.map(str::to_string),
        minimized: None,
        size: request.size,
        bounds: request.bounds,
        scope: scenario
            .scope(request.plan, request.bounds)
            .map(|whole| match part {
                Some(p) => format!(
                    "part {}/{} ({} workloads) of {whole}",
                    p.index, p.count, p.workloads
                ),
                None => whole,
            }),
        parts: part.map(|p| Parts {
            count: p.count,
            present: vec![p.index],
            workloads: u64::try_from(p.workloads).unwrap_or(u64::MAX),
        }),
        states: driven.states,
        final_states: driven.final_states,
        reduction: driven.reduction,
        walks: driven.walks,
        witness_search,
        state_origins: driven.state_origins.unwrap_or_default(),
        out_of_time: tally.out_of_time,
        tasks: (tally.tasks > 0).then_some(tally.tasks),
        decisions_per_execution: (tally.decisions > 0)
            .then(|| tally.decisions as f64 / tally.executions.max(1) as f64),
        points_per_execution: tally
            .points
            .iter()
            .map(|(kind, n)| (kind.to_string(), *n as f64 / tally.executions.max(1) as f64))
            .collect(),
        switches: driven.switches,
    })
}

/// A run of `request`'s case; `awaited`: the probes that end it once each has fired
/// ([`witnessed_search`]; empty for every other run).
fn new_run(
    scenario: &dyn AnyScenario,
    request: &Request<'_>,
    watch: Option<&'static str>,
    tracing: bool,
    awaited: Vec<&'static str>,
) -> Result<Arc<Run>, ExploreError> {
    let case = scenario.prepare(request.variant, request.plan, request.size, request.bounds)?;
    Ok(Arc::new(Run {
        case,
        recorder: Arc::new(Recorder::with_tracing(watch, tracing)),
        listed: scenario.properties().iter().map(|p| p.name).collect(),
        stop_at_first: request.stop_at_first,
        deadline: request.deadline,
        tally: Ghost::default(),
        awaited,
    }))
}

/// After the stateful engine exhausted a case without meeting every probe in `required`,
/// its search over source sets with witness cells ordered
/// ([`Exploration::orders_witnesses`]), alone and stopped once each of them has fired; its
/// probes are added to `tally`, and its executions returned (`None`: it was not needed).
///
/// A witness is in no state and, unless ordered, in no footprint. So a probe's read is
/// never reordered against the writes that open and close its window: the search over
/// source sets takes one of the two orders, and the search over states has the two reach
/// one state, the witness being in none. Either may leave a window
/// unmet that an interleaving reaches (`a_probe_of_a_window_is_met_once_witnesses_are_ordered`
/// in the shuttle tests; README, "Every schedule, without a preemption bound"). Ordering
/// witnesses makes more classes of executions, hence a second search only where needed;
/// run to its end without meeting a probe, it shows that no interleaving reaches the window.
/// It has every conflict the first search had, so it cannot break what the first
/// exhausted: a violation there is an engine failure, reported as one.
fn witnessed_search(
    scenario: &dyn AnyScenario,
    request: &Request<'_>,
    watch: Option<&'static str>,
    driven: &engine::Driven,
    tally: &mut Tally,
    required: &[&'static str],
) -> Result<Option<usize>, ExploreError> {
    let Strategy::Stateful {
        executions, part, ..
    } = &request.strategy
    else {
        return Ok(None);
    };
    let unmet: Vec<&'static str> = required
        .iter()
        .copied()
        .filter(|p| !tally.fired(p))
        .collect();
    if !driven.exhausted || tally.first.is_some() || unmet.is_empty() {
        return Ok(None);
    }
    let mut again = request.clone();
    again.strategy = Strategy::Stateful {
        executions: *executions,
        part: part.clone(),
        deepening: None,
        sources: true,
    };
    let run = new_run(scenario, &again, watch, false, unmet)?;
    engine::drive(&again.strategy, Arc::clone(&run) as Arc<dyn Exploration>)
        .map_err(ExploreError::Drive)?;
    let second = run.tally.with(std::mem::take);
    if let Some((n, outcome, _)) = second.first {
        let broken = outcome
            .violation
            .map_or_else(String::new, |v| v.invariant.to_string());
        return Err(ExploreError::Drive(DriveError::ModelFailure(format!(
            "{}: the search over source sets with witnesses ordered broke {broken} at its \
             execution {n}, after the stateful engine exhausted the case: the engine missed \
             an interleaving",
            scenario.name()
        ))));
    }
    for (name, hits) in second.probes {
        *tally.probes.entry(name).or_default() += hits;
    }
    for (name, n) in second.probe_executions {
        *tally.probe_executions.entry(name).or_default() += n;
    }
    tally.out_of_time |= second.out_of_time;
    Ok(Some(second.executions))
}

/// The failure found again with the trace kept, by replaying its schedule: the exploration
/// ran without one.
fn traced(
    scenario: &dyn AnyScenario,
    request: &Request<'_>,
    watch: Option<&'static str>,
    schedule: &Schedule,
) -> Result<Outcome, ExploreError> {
    let mut replay = request.clone().stop_at_first(true).deadline(None);
    replay.strategy = Strategy::Replay {
        schedule: schedule.clone(),
    };
    let run = new_run(scenario, &replay, watch, true, Vec::new())?;
    let not_deterministic = |how: &str| {
        ExploreError::Drive(DriveError::ModelFailure(format!(
            "{}: the failing schedule {how} when replayed: the model is not deterministic",
            scenario.name()
        )))
    };
    match engine::drive(&replay.strategy, Arc::clone(&run) as Arc<dyn Exploration>) {
        Ok(_) => {}
        Err(DriveError::ScheduleMismatch(m)) => {
            return Err(not_deterministic(&format!("no longer fit ({m})")))
        }
        Err(e) => return Err(ExploreError::Drive(e)),
    }
    let first = run.tally.with(|t| t.first.take());
    first
        .map(|(_, outcome, _)| outcome)
        .ok_or_else(|| not_deterministic("did not fail again"))
}
