//! Planning a run: which (scenario, variant, plan) cases, under which engines and seeds, in
//! which shard, within which time budget; and running the plan.
//!
//! The command line only parses its flags into a [`Selection`] and prints what [`run`]
//! reports.
//!
//! ```
//! use ozone_ha_check::jobs::{plan, Selection, Shard};
//!
//! let whole = plan(&Selection::default()).unwrap();
//! let first = plan(&Selection { shard: Some(Shard::parse("1/2").unwrap()), ..Selection::default() }).unwrap();
//! let second = plan(&Selection { shard: Some(Shard::parse("2/2").unwrap()), ..Selection::default() }).unwrap();
//! assert_eq!(first.len() + second.len(), whole.len());
//! ```

use crate::engine::{available_engines, Ask, Budget, Engine, Part, PreemptionBound, Strategy};
use crate::explore::{explore, ExploreError, Report, Request};
use crate::minimize::minimize;
use crate::scenario::GENERATED;
use crate::scenarios::{self, AnyScenario, UnknownName};
use crate::workload::Bounds;
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The most items one run may plan; a larger run is split with `--shard`.
pub const MAX_ITEMS: u64 = 1_000_000;

/// Part `index` (from 1) of `count` of a run's items, as `cargo nextest --partition
/// count:I/N` counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// Which part, from 1.
    pub index: usize,
    /// How many parts.
    pub count: usize,
}

impl Shard {
    /// Parse `I/N` with `1 <= I <= N`.
    ///
    /// ```
    /// use ozone_ha_check::jobs::Shard;
    /// assert_eq!(Shard::parse("2/4").unwrap(), Shard { index: 2, count: 4 });
    /// assert!(Shard::parse("0/4").is_err());
    /// assert!(Shard::parse("5/4").is_err());
    /// ```
    pub fn parse(text: &str) -> Result<Self, String> {
        let (i, n) = text
            .split_once('/')
            .ok_or_else(|| format!("`{text}` is not I/N"))?;
        let index: usize = i
            .trim()
            .parse()
            .map_err(|_| format!("`{i}` is not a number"))?;
        let count: usize = n
            .trim()
            .parse()
            .map_err(|_| format!("`{n}` is not a number"))?;
        if index == 0 || count == 0 || index > count {
            return Err(format!(
                "shard {index}/{count}: need 1 <= I <= N (parts count from 1)"
            ));
        }
        Ok(Shard { index, count })
    }

    /// Whether item `k` (from 0) of the whole run belongs to this part.
    pub fn holds(&self, k: usize) -> bool {
        k % self.count == self.index - 1
    }

    /// The part of a test suite this process runs: with [`TEST_SHARD_VAR`] set to `I/N`,
    /// the tests `k` (from 0, in the suite's order) that part I [holds](Shard::holds);
    /// unset, all of them. The loom harness calls it, so that CI runs that suite as two
    /// processes of one test thread rather than one process of two: loom maps and unmaps
    /// its tasks' stacks at every execution, and in one process running on two cores each
    /// unmap also flushes the other core's TLB (on two cores, the suite at bound 3 took
    /// 623 s with two test threads, 555 s of its CPU time in the kernel; as two processes,
    /// 197 s).
    ///
    /// ```
    /// use ozone_ha_check::jobs::{Shard, TEST_SHARD_VAR};
    ///
    /// std::env::set_var(TEST_SHARD_VAR, "2/3");
    /// assert_eq!(Shard::of_test_suite(vec!['a', 'b', 'c', 'd', 'e']).unwrap(), ['b', 'e']);
    /// std::env::set_var(TEST_SHARD_VAR, "4/3");
    /// assert!(Shard::of_test_suite(vec!['a']).unwrap_err().contains(TEST_SHARD_VAR));
    /// std::env::remove_var(TEST_SHARD_VAR);
    /// assert_eq!(Shard::of_test_suite(vec!['a', 'b']).unwrap(), ['a', 'b']);
    /// ```
    pub fn of_test_suite<T>(tests: Vec<T>) -> Result<Vec<T>, String> {
        let Ok(text) = std::env::var(TEST_SHARD_VAR) else {
            return Ok(tests);
        };
        let shard = Shard::parse(&text).map_err(|e| format!("{TEST_SHARD_VAR}: {e}"))?;
        Ok(tests
            .into_iter()
            .enumerate()
            .filter_map(|(k, t)| shard.holds(k).then_some(t))
            .collect())
    }
}

/// The environment variable that gives a test harness its part of the suite
/// ([`Shard::of_test_suite`]).
pub const TEST_SHARD_VAR: &str = "OHC_TEST_SHARD";

/// What to run, as the command line says it.
#[derive(Clone, Debug, PartialEq)]
pub struct Selection {
    /// Scenarios (empty: all).
    pub scenarios: Vec<String>,
    /// Only this variant.
    pub variant: Option<String>,
    /// Only this plan.
    pub plan: Option<String>,
    /// Watch only this invariant; cases of scenarios without it are left out.
    pub invariant: Option<String>,
    /// The engine (default: every engine of the build that `check` runs, as the engine
    /// table says).
    pub engine: Option<Engine>,
    /// Executions per case (random, PCT, DFS) or runs (threads).
    pub executions: Option<usize>,
    /// The first seed.
    pub seed: u64,
    /// Seeds per case for random and PCT.
    pub seeds: u64,
    /// PCT's depth (`None`: each plan's, [`Budget::pct_depth`]).
    pub depth: Option<usize>,
    /// loom's bound.
    pub preemption_bound: PreemptionBound,
    /// The size knob (`None`: each scenario's default).
    pub size: Option<usize>,
    /// Requests at most in a generated workload (`None`: each vocabulary's default). Given
    /// this or [`Selection::faults`], only generated plans are run.
    pub requests: Option<usize>,
    /// Faults at most in a generated workload (`None`: each vocabulary's default).
    pub faults: Option<usize>,
    /// Run only this part.
    pub shard: Option<Shard>,
    /// Seconds for the whole run: what is left of it split evenly across the items left,
    /// as each starts.
    pub time_budget: Option<f64>,
    /// Keep counterexamples as found.
    pub no_minimize: bool,
    /// The stateful engine's unbounded search explores source sets
    /// ([`Strategy::Stateful::sources`]).
    pub sources: bool,
    /// The stateful engine's unbounded search runs alone ([`Ask::unbounded_only`]).
    pub unbounded_only: bool,
    /// Items explored at once, each on its own OS thread (1: one after another). Every item
    /// is seeded on its own, so the reports are the same whatever this is, and they come in
    /// the items' order.
    pub workers: usize,
}

impl Default for Selection {
    fn default() -> Self {
        Self {
            scenarios: Vec::new(),
            variant: None,
            plan: None,
            invariant: None,
            engine: None,
            executions: None,
            seed: 0,
            seeds: 1,
            depth: None,
            preemption_bound: PreemptionBound::DEFAULT,
            size: None,
            requests: None,
            faults: None,
            shard: None,
            time_budget: None,
            no_minimize: false,
            sources: false,
            unbounded_only: false,
            workers: 1,
        }
    }
}

/// One item of a run: a case under one strategy.
#[derive(Clone)]
pub struct Job {
    /// The scenario.
    pub scenario: &'static dyn AnyScenario,
    /// The variant.
    pub variant: &'static str,
    /// The plan.
    pub plan: &'static str,
    /// The engine and its settings.
    pub strategy: Strategy,
}

impl fmt::Debug for Job {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {}/{} {:?}",
            self.scenario.name(),
            self.variant,
            self.plan,
            self.strategy
        )
    }
}

/// Why a selection cannot be planned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlanError {
    /// A name is unknown.
    Unknown(UnknownName),
    /// The engine is not compiled into this build.
    EngineMissing(Engine),
    /// No case matches.
    NoMatch,
    /// A number is out of range.
    Invalid(String),
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlanError::Unknown(u) => u.fmt(f),
            PlanError::EngineMissing(e) => write!(
                f,
                "engine `{e}` is not in this build; build it with: {} check --engine {e}",
                e.build_hint()
            ),
            PlanError::NoMatch => f.write_str(
                "no case matches the scenario, variant, plan, invariant and shard given; see `ozone-ha-check list`",
            ),
            PlanError::Invalid(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for PlanError {}

fn engines(selection: &Selection) -> Result<Vec<Engine>, PlanError> {
    match selection.engine {
        None => Ok(available_engines()
            .into_iter()
            .filter(|e| e.capabilities().in_check)
            .collect()),
        Some(engine) if !engine.capabilities().selectable => Err(PlanError::Invalid(format!(
            "engine `{engine}` runs a recorded schedule (`replay`), not a case"
        ))),
        Some(engine) if !engine.available() => Err(PlanError::EngineMissing(engine)),
        Some(engine) => Ok(vec![engine]),
    }
}

fn strategy(selection: &Selection, budget: Budget, engine: Engine, seed: u64) -> Strategy {
    engine.strategy(&Ask {
        seed,
        depth: selection.depth,
        executions: selection.executions,
        budget,
        preemption_bound: selection.preemption_bound,
        sources: selection.sources,
        unbounded_only: selection.unbounded_only,
    })
}

/// The strategy `check` uses for `scenario` under `engine` with `seed` when no flag says
/// otherwise, at the scenario's budget ([`AnyScenario::executions`]); a plan with its own
/// budget gets [`plan_strategy`].
///
/// ```
/// use ozone_ha_check::engine::{Engine, Strategy};
/// use ozone_ha_check::jobs::default_strategy;
///
/// let s = ozone_ha_check::scenarios::find("hdds-16092").unwrap();
/// assert_eq!(
///     default_strategy(s, Engine::Random, 3),
///     Strategy::Random { seed: 3, executions: s.executions().random }
/// );
/// ```
pub fn default_strategy(scenario: &dyn AnyScenario, engine: Engine, seed: u64) -> Strategy {
    strategy(&Selection::default(), scenario.executions(), engine, seed)
}

/// The strategy `check` uses for `plan` of `scenario` under `engine` with `seed` when no
/// flag says otherwise: [`default_strategy`] with the plan's own budget
/// ([`AnyScenario::plan_executions`]), which every test of a verdict uses.
///
/// ```
/// use ozone_ha_check::engine::{Engine, Strategy};
/// use ozone_ha_check::jobs::plan_strategy;
///
/// let s = ozone_ha_check::scenarios::find("hdds-16092").unwrap();
/// assert_eq!(
///     plan_strategy(s, "generated", Engine::Pct, 3),
///     Strategy::Pct { seed: 3, depth: 3, executions: s.plan_executions("generated").pct }
/// );
/// ```
pub fn plan_strategy(
    scenario: &dyn AnyScenario,
    plan: &str,
    engine: Engine,
    seed: u64,
) -> Strategy {
    strategy(
        &Selection::default(),
        scenario.plan_executions(plan),
        engine,
        seed,
    )
}

/// Check that `given` names something of at least one of `scenarios`.
fn known(
    scenarios: &[&'static dyn AnyScenario],
    kind: &'static str,
    given: Option<&str>,
    names: impl Fn(&dyn AnyScenario) -> Vec<&'static str>,
) -> Result<(), PlanError> {
    let Some(given) = given else {
        return Ok(());
    };
    let mut all: Vec<&'static str> = scenarios.iter().flat_map(|s| names(*s)).collect();
    all.sort_unstable();
    all.dedup();
    if all.contains(&given) {
        return Ok(());
    }
    Err(PlanError::Unknown(UnknownName {
        kind,
        name: given.to_string(),
        scenario: None,
        known: all,
    }))
}

/// The items of `selection`, in a stable order (case, then engine, then seed), restricted
/// to its shard: item k of the whole run is in shard I of N when k mod N = I - 1, except
/// that the stateful engine on a generated plan is an item of every shard, each exploring
/// its own part of the workloads ([`crate::workload::Vocabulary::split`]).
pub fn plan(selection: &Selection) -> Result<Vec<Job>, PlanError> {
    let scenarios: Vec<&'static dyn AnyScenario> = if selection.scenarios.is_empty() {
        scenarios::all().to_vec()
    } else {
        selection
            .scenarios
            .iter()
            .map(|n| scenarios::lookup(n).map_err(PlanError::Unknown))
            .collect::<Result<_, _>>()?
    };
    match selection.size {
        Some(0) => return Err(PlanError::Invalid("the size must be at least 1".into())),
        Some(n) if n > scenarios::MAX_SIZE => {
            return Err(PlanError::Invalid(format!(
                "the size must be at most {} (each model's state grows with it)",
                scenarios::MAX_SIZE
            )))
        }
        _ => {}
    }
    if selection.depth == Some(0) {
        return Err(PlanError::Invalid("PCT's depth must be at least 1".into()));
    }
    if selection.executions == Some(0) {
        return Err(PlanError::Invalid("--executions must be at least 1".into()));
    }
    if selection
        .time_budget
        .is_some_and(|b| !(b.is_finite() && b > 0.0))
    {
        return Err(PlanError::Invalid(
            "--time-budget takes a positive number of seconds".into(),
        ));
    }
    let engines = engines(selection)?;
    let items = (scenarios
        .iter()
        .map(|s| s.cases().len() as u64)
        .sum::<u64>())
    .saturating_mul(engines.len() as u64)
    .saturating_mul(selection.seeds.max(1));
    if items > MAX_ITEMS {
        return Err(PlanError::Invalid(format!(
            "{} seeds make more than {MAX_ITEMS} items; use fewer seeds or split the run with --shard",
            selection.seeds
        )));
    }
    known(&scenarios, "variant", selection.variant.as_deref(), |s| {
        s.variants().iter().map(|v| v.name).collect()
    })?;
    known(&scenarios, "plan", selection.plan.as_deref(), |s| {
        s.plans().iter().map(|p| p.name).collect()
    })?;
    known(
        &scenarios,
        "invariant",
        selection.invariant.as_deref(),
        |s| s.invariants().iter().map(|p| p.name).collect(),
    )?;
    let bounded = selection.requests.is_some() || selection.faults.is_some();
    if selection.requests == Some(0) && selection.faults == Some(0) {
        return Err(PlanError::Invalid(
            "--requests 0 --faults 0 leaves no workload: a workload has at least one item".into(),
        ));
    }
    if bounded {
        if let Some(plan) = selection.plan.as_deref().filter(|p| *p != GENERATED) {
            return Err(PlanError::Invalid(format!(
                "--requests and --faults bound generated workloads; `{plan}` is a written \
                 plan (use --plan {GENERATED})"
            )));
        }
        if !scenarios.iter().any(|s| s.vocabulary().is_some()) {
            return Err(PlanError::Invalid(format!(
                "--requests and --faults bound generated workloads, and no selected scenario \
                 has a `{GENERATED}` plan (`list` shows each scenario's vocabulary)"
            )));
        }
    }
    let mut jobs = Vec::new();
    for s in scenarios {
        if let Some(i) = &selection.invariant {
            if s.invariant(i).is_none() {
                continue;
            }
        }
        for case in s.cases() {
            if selection
                .variant
                .as_deref()
                .is_some_and(|v| v != case.variant)
                || selection.plan.as_deref().is_some_and(|p| p != case.plan)
                || (bounded && case.plan != GENERATED)
            {
                continue;
            }
            for engine in &engines {
                // Seeds mean nothing to loom, DFS and real threads: one item each.
                let seeds = if engine.capabilities().seeded {
                    selection.seeds.max(1)
                } else {
                    1
                };
                for seed in selection.seed..selection.seed.saturating_add(seeds) {
                    jobs.push(Job {
                        scenario: s,
                        variant: case.variant,
                        plan: case.plan,
                        strategy: strategy(selection, s.plan_executions(case.plan), *engine, seed),
                    });
                }
            }
        }
    }
    if let Some(shard) = selection.shard {
        // The stateful engine on a generated plan runs in every shard, on the shard's part
        // of the workloads; the other items are dealt out among the shards.
        let mut k = 0;
        jobs = jobs
            .into_iter()
            .filter_map(|mut job| {
                if let Some(part) = workload_part(selection, &job, shard) {
                    if let Strategy::Stateful { part: p, .. } = &mut job.strategy {
                        *p = Some(part);
                    }
                    return Some(job);
                }
                k += 1;
                shard.holds(k - 1).then_some(job)
            })
            .collect();
    }
    if jobs.is_empty() {
        return Err(PlanError::NoMatch);
    }
    Ok(jobs)
}

/// The part of the generated space that `shard` explores of `job`, when `job` is the
/// stateful engine on a generated plan ([`crate::workload::Vocabulary::split`]).
fn workload_part(selection: &Selection, job: &Job, shard: Shard) -> Option<Part> {
    if job.plan != GENERATED || !matches!(job.strategy, Strategy::Stateful { .. }) {
        return None;
    }
    let vocabulary = job.scenario.vocabulary()?;
    let within = bounds(selection.requests, selection.faults, job.scenario, job.plan)
        .unwrap_or(vocabulary.bounds);
    Some(vocabulary.split(within, shard.index, shard.count))
}

/// The workload bounds of a generated plan: the ones given (`--requests`, `--faults`),
/// each missing one from the scenario's vocabulary; `None` when none were given or the plan
/// is written (the scenario then refuses them when both are given, see
/// [`AnyScenario::prepare`]).
pub fn bounds(
    requests: Option<usize>,
    faults: Option<usize>,
    scenario: &dyn AnyScenario,
    plan: &str,
) -> Option<Bounds> {
    if requests.is_none() && faults.is_none() {
        return None;
    }
    let default = scenario.vocabulary().filter(|_| plan == GENERATED).map_or(
        Bounds {
            requests: 0,
            faults: 0,
        },
        |v| v.bounds,
    );
    Some(Bounds {
        requests: requests.unwrap_or(default.requests),
        faults: faults.unwrap_or(default.faults),
    })
}

/// Why a run stopped early.
#[derive(Debug)]
pub struct RunError {
    /// The item that failed.
    pub job: Box<Job>,
    /// What went wrong.
    pub error: ExploreError,
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} {}: {}",
            self.job.scenario.name(),
            self.job.variant,
            self.job.plan,
            self.error
        )
    }
}

impl std::error::Error for RunError {}

/// Run every job: explore, then minimize a counterexample unless `selection.no_minimize`,
/// on [`Selection::workers`] threads at once. `started` is told each job as it starts,
/// `finished` each report in the jobs' order (a report that is ready before an earlier job's
/// waits for it), both on the calling thread. On a failure no further job starts; the jobs
/// already running finish, and the first failure in the jobs' order is returned.
pub fn run(
    selection: &Selection,
    jobs: &[Job],
    mut started: impl FnMut(&Job),
    mut finished: impl FnMut(&Job, &Report),
) -> Result<Vec<Report>, RunError> {
    // A budget too far ahead for the clock is no deadline at all.
    let end = selection
        .time_budget
        .and_then(|b| Duration::try_from_secs_f64(b).ok())
        .and_then(|b| Instant::now().checked_add(b));
    let workers = selection.workers.clamp(1, jobs.len().max(1));
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let (events, received) = mpsc::channel::<Event>();
    std::thread::scope(|scope| {
        for worker in 1..=workers {
            let events = events.clone();
            let (next, failed) = (&next, &failed);
            // The main thread's stack size, where one worker ran every job before.
            let thread = std::thread::Builder::new()
                .name(format!("explore-{worker}"))
                .stack_size(MAIN_STACK);
            let spawned = thread.spawn_scoped(scope, move || {
                let _stop = StopOthersOnPanic(failed);
                while !failed.load(Ordering::SeqCst) {
                    let k = next.fetch_add(1, Ordering::SeqCst);
                    let Some(job) = jobs.get(k) else { break };
                    // The channel outlives the workers: the receiving loop below ends only
                    // when every worker has dropped its sender.
                    let _ = events.send(Event::Started(k));
                    let found = run_one(selection, job, deadline(end, jobs.len() - k, workers));
                    if found.is_err() {
                        failed.store(true, Ordering::SeqCst);
                    }
                    let _ = events.send(Event::Finished(k, Box::new(found)));
                }
            });
            spawned.expect("the system refused a thread to explore on");
        }
        drop(events);
        let mut ready: Vec<Option<Result<Report, ExploreError>>> =
            std::iter::repeat_with(|| None).take(jobs.len()).collect();
        let mut reports = Vec::with_capacity(jobs.len());
        let mut first_failure = None;
        for event in received {
            match event {
                Event::Started(k) => started(&jobs[k]),
                Event::Finished(k, found) => ready[k] = Some(*found),
            }
            // Hand on, in order, every report whose predecessors are all handed on.
            while first_failure.is_none() {
                match ready.get_mut(reports.len()).and_then(Option::take) {
                    Some(Ok(report)) => {
                        finished(&jobs[reports.len()], &report);
                        reports.push(report);
                    }
                    Some(Err(error)) => {
                        first_failure = Some(RunError {
                            job: Box::new(jobs[reports.len()].clone()),
                            error,
                        })
                    }
                    None => break,
                }
            }
        }
        // Without a failure every job has reported, unless a worker panicked, and then the
        // scope passes its panic on.
        first_failure.map_or(Ok(reports), Err)
    })
}

/// The stack of each exploring thread: the size Linux gives a program's main thread.
const MAIN_STACK: usize = 8 << 20;

/// Stops the other workers from starting jobs when its worker panics.
struct StopOthersOnPanic<'a>(&'a AtomicBool);

impl Drop for StopOthersOnPanic<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.store(true, Ordering::SeqCst);
        }
    }
}

/// What a worker tells the calling thread.
enum Event {
    /// Job `k` has started.
    Started(usize),
    /// Job `k` has ended.
    Finished(usize, Box<Result<Report, ExploreError>>),
}

/// The deadline of an item that starts now with `left` items (itself among them) still to
/// start: what is left of the run's time, split evenly across the rounds of `workers` items
/// that the items left make. An item that ends early (a violation found, a space exhausted)
/// leaves its time to the others.
fn deadline(end: Option<Instant>, left: usize, workers: usize) -> Option<Instant> {
    end.map(|end| {
        let now = Instant::now();
        let rounds = left.div_ceil(workers).max(1);
        now + end.saturating_duration_since(now) / u32::try_from(rounds).unwrap_or(u32::MAX)
    })
}

/// One job: explore, then minimize unless told not to.
fn run_one(
    selection: &Selection,
    job: &Job,
    deadline: Option<Instant>,
) -> Result<Report, ExploreError> {
    let request = Request::new(job.variant, job.plan, job.strategy.clone())
        .stop_at_first(job.strategy.engine() != Engine::Threads)
        .watch(selection.invariant.as_deref())
        .size(selection.size)
        .bounds(bounds(
            selection.requests,
            selection.faults,
            job.scenario,
            job.plan,
        ))
        .deadline(deadline);
    explore(job.scenario, &request).and_then(|r| {
        if selection.no_minimize {
            Ok(r)
        } else {
            minimize(job.scenario, &r)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(jobs: &[Job]) -> Vec<String> {
        jobs.iter().map(|j| format!("{j:?}")).collect()
    }

    /// Reports as JSON without their times, which are all that may differ between runs.
    #[cfg(not(any(loom, ohc_threads)))]
    fn timeless(reports: &[Report]) -> Vec<serde_json::Value> {
        reports
            .iter()
            .map(|r| {
                let mut v = serde_json::to_value(r).unwrap();
                v["elapsed_ms"] = serde_json::Value::Null;
                v
            })
            .collect()
    }

    /// Items explored on several threads give the same reports, handed on in the items'
    /// order, as one after another; a scenario with many violations, so that minimized
    /// counterexamples are compared too.
    #[cfg(not(any(loom, ohc_threads)))]
    #[test]
    fn workers_change_the_time_only() {
        let selection = |workers| Selection {
            scenarios: vec!["hdds-11152".into()],
            workers,
            ..Selection::default()
        };
        let jobs = plan(&selection(1)).unwrap();
        let alone = run(&selection(1), &jobs, |_| {}, |_, _| {}).unwrap();
        let (mut started, mut handed_on) = (0, Vec::new());
        let together = run(
            &selection(3),
            &jobs,
            |_| started += 1,
            |job, r| handed_on.push((format!("{job:?}"), r.clone())),
        )
        .unwrap();
        assert_eq!(started, jobs.len());
        assert_eq!(
            names(&jobs),
            handed_on.iter().map(|h| h.0.clone()).collect::<Vec<_>>()
        );
        let handed_on: Vec<Report> = handed_on.into_iter().map(|h| h.1).collect();
        assert_eq!(timeless(&together), timeless(&handed_on));
        assert_eq!(timeless(&alone), timeless(&together));
        assert!(alone.iter().filter(|r| r.minimized.is_some()).count() > 10);
    }

    /// A failing item stops the run with its error, the first in the items' order.
    #[cfg(not(any(loom, ohc_threads)))]
    #[test]
    fn a_failing_item_ends_the_run_with_its_error() {
        let selection = Selection {
            scenarios: vec!["hdds-11152".into()],
            workers: 2,
            ..Selection::default()
        };
        let mut jobs = plan(&selection).unwrap();
        let good = jobs.len();
        jobs[3].plan = "no-such-plan";
        jobs[good - 1].plan = "no-such-plan-either";
        let mut handed_on = 0;
        let err = run(&selection, &jobs, |_| {}, |_, _| handed_on += 1).unwrap_err();
        assert_eq!(err.job.plan, "no-such-plan");
        assert_eq!(handed_on, 3);
    }

    /// The main job (`check` with no flags) runs, case by case, what the shuttle suite's
    /// verdict tests run at seed 0 (`tests/shuttle/verdicts.rs`: PCT and random at
    /// [`plan_strategy`]), so the test command need not run it again after them.
    #[cfg(not(any(loom, ohc_threads)))]
    #[test]
    fn the_main_job_is_the_verdict_tests_at_seed_0() {
        let mut main_job = names(&plan(&Selection::default()).unwrap());
        let mut verdict_tests = Vec::new();
        for s in scenarios::all() {
            for case in s.cases() {
                for engine in [Engine::Pct, Engine::Random] {
                    verdict_tests.push(Job {
                        scenario: *s,
                        variant: case.variant,
                        plan: case.plan,
                        strategy: plan_strategy(*s, case.plan, engine, 0),
                    });
                }
            }
        }
        let mut verdict_tests = names(&verdict_tests);
        main_job.sort();
        verdict_tests.sort();
        assert_eq!(main_job, verdict_tests);
    }

    #[test]
    fn shards_partition_the_run() {
        let whole = names(&plan(&Selection::default()).unwrap());
        let mut union = Vec::new();
        for index in 1..=3 {
            let part = Selection {
                shard: Some(Shard { index, count: 3 }),
                ..Selection::default()
            };
            union.extend(names(&plan(&part).unwrap()));
        }
        union.sort();
        let mut sorted = whole.clone();
        sorted.sort();
        assert_eq!(union, sorted);
    }

    #[test]
    fn the_stateful_engine_on_a_generated_plan_runs_in_every_shard_on_its_part() {
        if !Engine::Stateful.available() {
            return;
        }
        let selection = Selection {
            engine: Some(Engine::Stateful),
            ..Selection::default()
        };
        let whole = plan(&selection).unwrap();
        let generated = |jobs: &[Job]| -> Vec<Job> {
            jobs.iter()
                .filter(|j| j.plan == GENERATED)
                .cloned()
                .collect()
        };
        let others: Vec<String> = names(&whole)
            .into_iter()
            .zip(&whole)
            .filter(|(_, j)| j.plan != GENERATED)
            .map(|(n, _)| n)
            .collect();
        assert!(!generated(&whole).is_empty() && !others.is_empty());
        let mut dealt = Vec::new();
        for index in 1..=3 {
            let part = plan(&Selection {
                shard: Some(Shard { index, count: 3 }),
                ..selection.clone()
            })
            .unwrap();
            let mine = generated(&part);
            assert_eq!(mine.len(), generated(&whole).len());
            for job in &mine {
                let Strategy::Stateful { part: Some(p), .. } = &job.strategy else {
                    panic!("{job:?} explores no part");
                };
                assert_eq!((p.index, p.count), (index, 3));
                let v = job.scenario.vocabulary().unwrap();
                assert_eq!(p, &v.split(v.bounds, index, 3));
            }
            dealt.extend(
                names(&part)
                    .into_iter()
                    .zip(&part)
                    .filter(|(_, j)| j.plan != GENERATED)
                    .map(|(n, _)| n),
            );
        }
        dealt.sort();
        let mut others = others;
        others.sort();
        assert_eq!(dealt, others);
    }

    #[test]
    fn shard_bounds_count_from_one() {
        assert!(Shard::parse("0/3").is_err());
        assert!(Shard::parse("4/3").is_err());
        assert!(Shard::parse("3/0").is_err());
        assert!(Shard::parse("x/3").is_err());
        assert_eq!(Shard::parse("3/3").unwrap().index, 3);
    }

    #[test]
    fn seeds_multiply_randomized_engines_only() {
        let one = plan(&Selection::default()).unwrap().len();
        let three = plan(&Selection {
            seeds: 3,
            ..Selection::default()
        })
        .unwrap()
        .len();
        // Under the default build every engine `check` runs is seeded; under loom and
        // threads none is.
        let seeded = available_engines()
            .into_iter()
            .filter(|e| e.capabilities().in_check)
            .all(|e| e.capabilities().seeded);
        if seeded {
            assert_eq!(three, 3 * one);
        } else {
            assert_eq!(three, one);
        }
    }

    #[test]
    fn unknown_names_and_bad_numbers_are_plan_errors() {
        let bad = |s: Selection| plan(&s).unwrap_err();
        assert!(matches!(
            bad(Selection {
                scenarios: vec!["hdds-1".into()],
                ..Selection::default()
            }),
            PlanError::Unknown(_)
        ));
        assert!(matches!(
            bad(Selection {
                variant: Some("nope".into()),
                ..Selection::default()
            }),
            PlanError::Unknown(_)
        ));
        assert!(matches!(
            bad(Selection {
                engine: Some(Engine::Replay),
                ..Selection::default()
            }),
            PlanError::Invalid(_)
        ));
        for size in [0, scenarios::MAX_SIZE + 1] {
            assert!(matches!(
                bad(Selection {
                    size: Some(size),
                    ..Selection::default()
                }),
                PlanError::Invalid(_)
            ));
        }
        assert!(matches!(
            bad(Selection {
                time_budget: Some(-1.0),
                ..Selection::default()
            }),
            PlanError::Invalid(_)
        ));
    }

    #[test]
    fn an_invariant_selects_the_scenarios_that_have_it() {
        let jobs = plan(&Selection {
            invariant: Some("TxIndexMonotone".into()),
            ..Selection::default()
        })
        .unwrap();
        assert!(jobs.iter().all(|j| j.scenario.name() == "hdds-16092"));
    }

    #[test]
    fn a_filter_that_matches_nothing_is_an_error() {
        // Each name exists, but in different scenarios.
        let none = plan(&Selection {
            scenarios: vec!["hdds-16092".into(), "hdds-16452".into()],
            variant: Some("lock-only".into()),
            plan: Some("base".into()),
            ..Selection::default()
        });
        assert_eq!(none.unwrap_err(), PlanError::NoMatch);
    }
}
