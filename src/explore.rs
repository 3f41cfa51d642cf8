//! The engine-independent driver: run one (scenario, variant, plan) under one engine and
//! return a [`Report`].

use crate::recorder::{Outcome, Recorder};
use crate::scenario::{check_name, Case, Expected, Scenario};
use crate::sync::drive::{self, DriveError, Exploration, Flow, Schedule, Strategy};
use crate::sync::ghost::Ghost;
use crate::sync::Arc;
use crate::trace::Event;
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

/// Everything one exploration found.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Report {
    /// Scenario name.
    pub scenario: String,
    /// Variant name.
    pub variant: String,
    /// Plan name.
    pub plan: String,
    /// Engine name.
    pub engine: String,
    /// `"holds"` or `"violates"`; `"-"` at a size other than the scenario's default, where
    /// no expectation is stated.
    pub expected: String,
    /// The invariants the expectation names.
    pub expected_invariants: Vec<String>,
    /// The verdict.
    pub verdict: Verdict,
    /// The broken invariant.
    pub invariant: Option<String>,
    /// One line: the state that breaks it.
    pub detail: Option<String>,
    /// The trace step at which it broke.
    pub violation_step: Option<usize>,
    /// Executions run.
    pub executions: usize,
    /// The number (from 1) of the first violating execution.
    pub first_violation: Option<usize>,
    /// Violating executions seen (the engine stops at the first, except real threads).
    pub violations: usize,
    /// Whether an exhaustive engine ran out of interleavings.
    pub exhausted: bool,
    /// Wall-clock time of the exploration.
    pub elapsed_ms: u128,
    /// The seed of a randomized engine.
    pub seed: Option<u64>,
    /// The engine's settings in words (depth, bound, runs).
    pub settings: String,
    /// The failing execution's schedule, for `replay` (shuttle engines only).
    pub schedule: Option<String>,
    /// The failing execution's context switches.
    pub context_switches: Option<usize>,
    /// The failing execution's domain trace.
    pub trace: Vec<Event>,
    /// Hits of every probe, summed over all executions.
    pub probes: BTreeMap<String, u64>,
    /// The invariant watched alone, if the exploration was restricted to one.
    pub watched: Option<String>,
    /// How the counterexample was shortened, when it was.
    pub minimized: Option<Minimized>,
    /// The size knob's value, when not the default.
    pub size: Option<usize>,
    /// Whether `--time-budget` ended the exploration before the engine did.
    pub out_of_time: bool,
    /// Scheduling decisions per execution, on average (shuttle engines only).
    pub decisions_per_execution: Option<f64>,
    /// Tasks (threads, the main one included) the engine scheduled (shuttle engines only).
    pub tasks: Option<usize>,
    /// For a replayed or guided run: where it left the non-preemptive default.
    #[serde(skip)]
    pub switches: Option<Vec<(usize, usize)>>,
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
}

impl Report {
    /// Whether the verdict is the expected one (and, for a violation, of an expected
    /// invariant).
    pub fn as_expected(&self) -> bool {
        let expected_break = || {
            self.expected == "violates"
                && self
                    .invariant
                    .as_ref()
                    .is_some_and(|i| self.expected_invariants.contains(i))
        };
        if self.expected == "-" {
            return true;
        }
        if self.witness_only() {
            // Real threads can only witness: a break must be an expected one, and nothing
            // else is judged.
            return self.verdict != Verdict::Violated || expected_break();
        }
        match self.verdict {
            Verdict::Held => self.expected == "holds",
            Verdict::Vacuous => false,
            Verdict::Violated => expected_break(),
        }
    }

    /// Whether the engine can only witness a violation, never rule one out nor show that a
    /// race window is unreachable (real threads).
    pub fn witness_only(&self) -> bool {
        self.engine == "threads"
    }

    /// A violating variant that a witness-only engine did not see break.
    pub fn unwitnessed(&self) -> bool {
        self.witness_only() && self.expected == "violates" && self.verdict != Verdict::Violated
    }
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
            deadline: None,
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

    /// Stop at this instant.
    pub fn deadline(mut self, deadline: Option<Instant>) -> Self {
        self.deadline = deadline;
        self
    }
}

/// Why an exploration could not run.
#[derive(Debug)]
pub enum ExploreError {
    /// A name on the command line is unknown.
    Usage(String),
    /// The engine failed.
    Drive(DriveError),
}

impl fmt::Display for ExploreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExploreError::Usage(m) => f.write_str(m),
            ExploreError::Drive(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ExploreError {}

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
    /// Stop exploring at this instant and report how far the exploration got.
    pub deadline: Option<Instant>,
}

#[derive(Default)]
struct Tally {
    executions: usize,
    violations: usize,
    probes: BTreeMap<&'static str, u64>,
    first: Option<(usize, Outcome, Option<Schedule>)>,
    out_of_time: bool,
    decisions: usize,
    tasks: usize,
}

struct Run {
    case: Box<dyn Case>,
    recorder: Arc<Recorder>,
    stop_at_first: bool,
    deadline: Option<Instant>,
    tally: Ghost<Tally>,
}

impl Exploration for Run {
    fn begin(&self) {
        self.recorder.reset();
    }

    fn body(&self) {
        self.case.run(&self.recorder);
    }

    fn end(&self, schedule: Option<Schedule>) -> Flow {
        let outcome = self.recorder.take();
        let out_of_time = self.deadline.is_some_and(|d| Instant::now() >= d);
        self.tally.with(|t| {
            t.executions += 1;
            if let Some(s) = &schedule {
                t.decisions += s.steps.len();
                t.tasks = t.tasks.max(s.tasks());
            }
            if out_of_time {
                t.out_of_time = true;
            }
            for (name, hits) in &outcome.probes {
                *t.probes.entry(name).or_default() += hits;
            }
            if outcome.violation.is_none() {
                return if out_of_time {
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
}

fn settings_words(strategy: &Strategy) -> (Option<u64>, String) {
    match strategy {
        Strategy::Random { seed, executions } => (Some(*seed), format!("{executions} executions")),
        Strategy::Pct {
            seed,
            depth,
            executions,
        } => (
            Some(*seed),
            format!("depth {depth}, {executions} executions"),
        ),
        Strategy::Dfs { executions } => (None, format!("at most {executions} executions")),
        Strategy::Replay { .. } => (None, "one recorded schedule".into()),
        Strategy::Guided { switches } => (None, format!("{} forced switches", switches.len())),
        Strategy::Loom { preemption_bound } => (
            None,
            match preemption_bound {
                Some(b) => format!("preemption bound {b}"),
                None => "no preemption bound".into(),
            },
        ),
        Strategy::Threads { runs } => (None, format!("{runs} runs")),
    }
}

/// Explore one (variant, plan) of `scenario`.
///
/// ```
/// use ozone_ha_check::explore::{explore, Request, Verdict};
/// use ozone_ha_check::scenario::find;
/// use ozone_ha_check::sync::drive::Strategy;
///
/// # if (Strategy::Pct { seed: 1, depth: 3, executions: 1 }).available() {
/// let scenario = find("hdds-16092").unwrap();
/// let request = Request::new("buggy", "steady", Strategy::Pct { seed: 1, depth: 3, executions: 500 });
/// let report = explore(scenario, &request).unwrap();
/// assert_eq!(report.verdict, Verdict::Violated);
/// assert_eq!(report.invariant.as_deref(), Some("TxIndexMonotone"));
/// # }
/// ```
pub fn explore(scenario: &dyn Scenario, request: &Request<'_>) -> Result<Report, ExploreError> {
    let info = scenario.info();
    let variant =
        check_name("variant", request.variant, info.variants).map_err(ExploreError::Usage)?;
    let plan = check_name("plan", request.plan, info.plans).map_err(ExploreError::Usage)?;
    let watch = match request.watch {
        None => None,
        Some(w) => Some(info.invariant(w).ok_or_else(|| {
            let names: Vec<&str> = info.invariants.iter().map(|i| i.name).collect();
            ExploreError::Usage(format!(
                "unknown invariant `{w}` for {}; known: {}",
                info.name,
                names.join(", ")
            ))
        })?),
    };
    if request.size == Some(0) {
        return Err(ExploreError::Usage("the size must be at least 1".into()));
    }
    let case = match request.size {
        Some(size) => scenario.prepare_sized(variant, plan, size),
        None => scenario.prepare(variant, plan),
    }
    .map_err(ExploreError::Usage)?;
    // Engines that can replay a failure explore without a trace and replay it with one.
    let replayable = matches!(
        request.strategy,
        Strategy::Random { .. } | Strategy::Pct { .. } | Strategy::Dfs { .. }
    );
    let run = Arc::new(Run {
        case,
        recorder: Arc::new(Recorder::with_tracing(watch, !replayable)),
        stop_at_first: request.stop_at_first,
        deadline: request.deadline,
        tally: Ghost::default(),
    });
    let started = Instant::now();
    let driven = drive::drive(&request.strategy, Arc::clone(&run) as Arc<dyn Exploration>)
        .map_err(ExploreError::Drive)?;
    let elapsed_ms = started.elapsed().as_millis();
    let tally = run.tally.with(std::mem::take);
    let expected: Expected = (info.expected)(variant, plan);
    // Watching one invariant, the expectation is about that invariant alone.
    let expected_invariants: Vec<String> = expected
        .invariants()
        .iter()
        .filter(|i| watch.is_none_or(|w| w == **i))
        .map(|i| i.to_string())
        .collect();
    // Expectations are stated for the default size; at other sizes the verdict is
    // reported, not judged.
    let off_size = request
        .size
        .is_some_and(|n| scenario.size_knob().map_or(n != 1, |k| k.default != n));
    let (expected_word, expected_invariants) = if off_size {
        ("-", Vec::new())
    } else if expected_invariants.is_empty() {
        ("holds", expected_invariants)
    } else {
        ("violates", expected_invariants)
    };
    let verdict = if tally.first.is_some() {
        Verdict::Violated
    } else if info
        .required_probes
        .iter()
        .all(|p| tally.probes.get(p).copied().unwrap_or(0) > 0)
    {
        Verdict::Held
    } else {
        Verdict::Vacuous
    };
    let (seed, settings) = settings_words(&request.strategy);
    let (first_violation, mut outcome, schedule) = match tally.first {
        Some((n, o, s)) => (Some(n), o, s),
        None => (None, Outcome::default(), None),
    };
    if replayable {
        if let Some(schedule) = &schedule {
            outcome = traced_replay(scenario, request, watch, schedule)?;
        }
    }
    let violation = outcome.violation;
    Ok(Report {
        scenario: info.name.to_string(),
        variant: variant.to_string(),
        plan: plan.to_string(),
        engine: request.strategy.engine_name().to_string(),
        expected: expected_word.to_string(),
        expected_invariants,
        verdict,
        invariant: violation.as_ref().map(|v| v.invariant.to_string()),
        detail: violation.as_ref().map(|v| v.detail.clone()),
        violation_step: violation.as_ref().map(|v| v.step),
        executions: driven.executions.max(tally.executions),
        first_violation,
        violations: tally.violations,
        exhausted: driven.exhausted,
        elapsed_ms,
        seed,
        settings,
        context_switches: schedule.as_ref().map(Schedule::context_switches),
        schedule: schedule.map(|s| s.to_string()),
        trace: outcome.trace,
        probes: info
            .probes
            .iter()
            .map(|p| {
                (
                    p.name.to_string(),
                    tally.probes.get(p.name).copied().unwrap_or(0),
                )
            })
            .collect(),
        watched: watch.map(str::to_string),
        minimized: None,
        size: request.size,
        out_of_time: tally.out_of_time,
        tasks: (tally.tasks > 0).then_some(tally.tasks),
        decisions_per_execution: (tally.decisions > 0)
            .then(|| tally.decisions as f64 / tally.executions.max(1) as f64),
        switches: driven.switches,
    })
}

/// Replay a failing schedule with the trace kept: the exploration ran without one.
fn traced_replay(
    scenario: &dyn Scenario,
    request: &Request<'_>,
    watch: Option<&'static str>,
    schedule: &Schedule,
) -> Result<Outcome, ExploreError> {
    let info = scenario.info();
    let case = match request.size {
        Some(size) => scenario.prepare_sized(request.variant, request.plan, size),
        None => scenario.prepare(request.variant, request.plan),
    }
    .map_err(ExploreError::Usage)?;
    let run = Arc::new(Run {
        case,
        recorder: Arc::new(Recorder::with_tracing(watch, true)),
        stop_at_first: true,
        deadline: None,
        tally: Ghost::default(),
    });
    let strategy = Strategy::Replay {
        schedule: schedule.clone(),
    };
    drive::drive(&strategy, Arc::clone(&run) as Arc<dyn Exploration>)
        .map_err(ExploreError::Drive)?;
    let first = run.tally.with(|t| t.first.take());
    match first {
        Some((_, outcome, _)) => Ok(outcome),
        None => Err(ExploreError::Drive(DriveError::ModelFailure(format!(
            "{}: the failing schedule did not fail again when replayed: the model is not deterministic",
            info.name
        )))),
    }
}

/// The most replays one minimization may run.
const MINIMIZE_BUDGET: usize = 400;

/// Shorten a violation found by a shuttle engine: replay its schedule, then drop its
/// preemptions one (or, when that no longer helps, two) at a time, keeping a drop whenever
/// the same invariant still breaks with fewer preemptions (then fewer context switches, then
/// fewer steps), until no drop helps or the budget of replays is spent. Returns the report with the shorter counterexample and both lengths; a report
/// without a replayable schedule comes back unchanged.
pub fn minimize(scenario: &dyn Scenario, report: &Report) -> Result<Report, ExploreError> {
    let (Some(text), Some(invariant)) = (&report.schedule, &report.invariant) else {
        return Ok(report.clone());
    };
    let schedule = Schedule::parse(text).map_err(|e| ExploreError::Usage(e.to_string()))?;
    let run = |strategy: Strategy| {
        explore(
            scenario,
            &Request::new(&report.variant, &report.plan, strategy)
                .watch(Some(invariant))
                .size(report.size),
        )
    };
    let breaks = |r: &Report| r.invariant.as_deref() == Some(invariant.as_str());
    // Fewest preemptions first (each is a choice a reader must follow), then context
    // switches, then steps.
    let size = |r: &Report| {
        (
            r.switches.as_ref().map_or(usize::MAX, Vec::len),
            r.context_switches.unwrap_or(usize::MAX),
            r.trace.len(),
        )
    };
    let mut best = run(Strategy::Replay { schedule })?;
    if !breaks(&best) {
        return Ok(report.clone());
    }
    let found = (
        best.switches.as_ref().map_or(0, Vec::len),
        report.context_switches.unwrap_or(0),
        report.trace.len(),
    );
    let mut replays = 1;
    // Drop one preemption at a time; when no single drop helps, try dropping two.
    'improve: while replays < MINIMIZE_BUDGET {
        let switches = best.switches.clone().unwrap_or_default();
        let n = switches.len();
        let singles = (0..n).rev().map(|i| vec![i]);
        let pairs = (0..n)
            .rev()
            .flat_map(|i| (0..i).rev().map(move |j| vec![i, j]));
        for drops in singles.chain(pairs) {
            if replays >= MINIMIZE_BUDGET {
                break 'improve;
            }
            let fewer: Vec<(usize, usize)> = switches
                .iter()
                .enumerate()
                .filter(|(k, _)| !drops.contains(k))
                .map(|(_, s)| *s)
                .collect();
            let candidate = run(Strategy::Guided { switches: fewer })?;
            replays += 1;
            if breaks(&candidate) && size(&candidate) < size(&best) {
                best = candidate;
                continue 'improve;
            }
        }
        break;
    }
    let mut out = report.clone();
    let small = size(&best);
    out.minimized = Some(Minimized {
        found_steps: found.2,
        found_context_switches: found.1,
        found_preemptions: found.0,
        steps: small.2,
        context_switches: small.1,
        preemptions: small.0,
        replays,
    });
    out.detail = best.detail;
    out.violation_step = best.violation_step;
    out.schedule = best.schedule;
    out.context_switches = best.context_switches;
    out.trace = best.trace;
    Ok(out)
}
