//! Benchmarks: how fast each engine finds each violation, how cheaply it proves each fix, how
//! that cost compares with the engine's own floor, and how it grows with a scenario's size.
//!
//! One build has one backend, so [`measure`] takes the figures its engines can give and
//! returns them as [`Row`]s; `ci/bench.sh` runs it under the default, loom and threads
//! builds and [`write_results`] merges the parts into `bench/RESULTS.md` (with the sections of
//! [`exhaustion`] and [`budgets`]), `bench/results.json` and SVG plots. These are figures,
//! not tests: nothing here asserts a speed.

pub mod budgets;
pub mod exhaustion;
mod floor;
pub mod long_proofs;
pub mod render;

pub use floor::Floor;
pub use render::{render, write_results};

use ozone_ha_check::engine::{available_engines, Ask, Engine, Strategy};
use ozone_ha_check::explore::{explore, Report, Request, Verdict};
use ozone_ha_check::scenario::Expected;
use ozone_ha_check::scenarios::{all, AnyScenario, CaseName};
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

/// What to measure and how long to spend.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Seeds per violating case for random and PCT.
    pub seeds: u64,
    /// Executions a seed may spend looking for a violation.
    pub max_executions: usize,
    /// The executions `check` spends per case by default: the CI budget.
    pub ci_budget: usize,
    /// Executions to time for executions per second.
    pub rate_executions: usize,
    /// Time box of each loom or DFS exhaustion.
    pub time_box: Duration,
    /// Runs of each case on real threads.
    pub thread_runs: usize,
    /// Sizes for the scaling figures.
    pub sizes: Vec<usize>,
    /// Scenarios to measure (empty: all).
    pub scenarios: Vec<String>,
    /// Measure no new case after this instant.
    pub deadline: Option<Instant>,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            seeds: 100,
            max_executions: 100_000,
            ci_budget: 2_000,
            rate_executions: 2_000,
            time_box: Duration::from_secs(60),
            thread_runs: 10_000,
            sizes: vec![1, 2, 3, 4, 5],
            scenarios: Vec::new(),
            deadline: None,
        }
    }
}

/// Median, 90th percentile and worst of the executions to the first violation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FirstViolation {
    /// Median over the seeds that found it.
    pub median: usize,
    /// 90th percentile.
    pub p90: usize,
    /// Worst.
    pub worst: usize,
    /// Seeds that found it within the CI budget, out of all seeds.
    pub within_ci_budget: f64,
    /// Seeds that found it at all (within `max_executions`).
    pub found: f64,
}

/// One exhaustive run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Exhaustion {
    /// Preemption bound (loom), or `None` for DFS.
    pub bound: Option<usize>,
    /// Executions run.
    pub executions: usize,
    /// Whether the engine ran out of interleavings before the time box.
    pub exhausted: bool,
    /// Milliseconds.
    pub ms: u128,
}

/// The figures of one (scenario, variant, plan, engine, size).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// Scenario.
    pub scenario: String,
    /// Variant.
    pub variant: String,
    /// Plan.
    pub plan: String,
    /// Engine.
    pub engine: String,
    /// Size knob.
    pub size: usize,
    /// `holds`, `violates`, or `-` off the default size.
    pub expected: String,
    /// Executions to the first violation over many seeds (random, PCT).
    pub first_violation: Option<FirstViolation>,
    /// Executions per second on a run that does not stop.
    pub executions_per_second: Option<f64>,
    /// The floor's executions per second with the same tasks and scheduling points.
    pub floor_per_second: Option<f64>,
    /// Tasks n (threads, main included).
    pub tasks: Option<usize>,
    /// Scheduling decisions k per execution.
    pub decisions: Option<f64>,
    /// PCT's guaranteed per-execution probability 1/(n k^(d-1)) at depth 3.
    pub pct_bound: Option<f64>,
    /// PCT's measured share of violating executions at depth 3.
    pub pct_hit_rate: Option<f64>,
    /// loom: the smallest preemption bound that exposes the violation.
    pub smallest_bound: Option<usize>,
    /// loom: the failing execution at that bound.
    pub loom_first_violation: Option<usize>,
    /// loom: milliseconds to that failing execution.
    pub loom_first_ms: Option<u128>,
    /// loom (bounds 1..3) or DFS exhaustion of a holding variant.
    pub exhaustion: Vec<Exhaustion>,
    /// Real threads: violating runs per 10,000.
    pub violations_per_10k: Option<f64>,
    /// Real threads: runs per second.
    pub runs_per_second: Option<f64>,
    /// Random and PCT, violating cases: the preemptions of the counterexample the first
    /// seed found (counted as loom counts them).
    #[serde(default)]
    pub found_preemptions: Option<usize>,
    /// The preemptions of that counterexample once minimized.
    #[serde(default)]
    pub minimized_preemptions: Option<usize>,
    /// The replays the minimization spent.
    #[serde(default)]
    pub minimize_replays: Option<usize>,
}

fn run(s: &dyn AnyScenario, request: Request<'_>) -> Option<Report> {
    match explore(s, &request) {
        Ok(r) => Some(r),
        Err(e) => {
            eprintln!(
                "bench: {} {} {}: {e}",
                s.name(),
                request.variant,
                request.plan
            );
            None
        }
    }
}

fn per_second(executions: usize, ms: u128) -> f64 {
    executions as f64 * 1000.0 / (ms.max(1) as f64)
}

fn percentile(sorted: &[usize], p: f64) -> usize {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn first_violation(
    s: &dyn AnyScenario,
    v: &str,
    p: &str,
    size: usize,
    settings: &Settings,
    strategy: impl Fn(u64) -> Strategy,
) -> Option<FirstViolation> {
    let mut firsts = Vec::new();
    for seed in 0..settings.seeds {
        let request = Request::new(v, p, strategy(seed)).size(Some(size));
        if let Some(n) = run(s, request).and_then(|r| r.first_violation) {
            firsts.push(n);
        }
    }
    if firsts.is_empty() {
        return None;
    }
    firsts.sort_unstable();
    let seeds = settings.seeds.max(1) as f64;
    Some(FirstViolation {
        median: percentile(&firsts, 0.5),
        p90: percentile(&firsts, 0.9),
        worst: firsts[firsts.len() - 1],
        within_ci_budget: firsts.iter().filter(|n| **n <= settings.ci_budget).count() as f64
            / seeds,
        found: firsts.len() as f64 / seeds,
    })
}

/// Executions per second of the floor with `tasks` tasks and about `decisions` scheduling
/// decisions per execution (calibrated once).
fn floor_rate(tasks: usize, decisions: f64, executions: usize) -> Option<f64> {
    let spawned = tasks.saturating_sub(1).max(1);
    let mut floor = Floor {
        tasks,
        locks: ((decisions / spawned as f64) as usize).max(1),
    };
    let rate = |floor: Floor| {
        let r = explore(
            &floor,
            &Request::new(
                "empty",
                "locks",
                Strategy::Random {
                    seed: 0,
                    executions,
                },
            )
            .stop_at_first(false),
        )
        .ok()?;
        Some((
            per_second(r.executions, r.elapsed_ms),
            r.decisions_per_execution?,
        ))
    };
    let (_, measured) = rate(floor)?;
    floor.locks = ((floor.locks as f64 * decisions / measured.max(1.0)).round() as usize).max(1);
    rate(floor).map(|(r, _)| r)
}

/// The seeded engine's strategy for `seed` at `executions`, as the engine table builds it
/// (PCT at its default depth).
fn shuttle_strategy(engine: Engine, seed: u64, executions: usize) -> Strategy {
    engine.strategy(&Ask {
        seed,
        executions: Some(executions),
        ..Ask::default()
    })
}

fn measure_shuttle(
    s: &dyn AnyScenario,
    v: &str,
    p: &str,
    size: usize,
    settings: &Settings,
    row: &mut Row,
    engine: Engine,
) {
    let violates = s.expected(v, p).is_ok_and(|e| e != Expected::Holds);
    let max = settings.max_executions;
    let strategy = |seed: u64| shuttle_strategy(engine, seed, max);
    if violates {
        row.first_violation = first_violation(s, v, p, size, settings, strategy);
        if row.expected != "-" {
            minimization(s, v, p, size, strategy(0), row);
        }
    }
    measure_rate(s, (v, p, size), settings, row, engine);
    if !violates && engine == Engine::Random {
        measure_dfs(s, (v, p, size), settings, row);
    }
}

/// A run that does not stop at violations: executions per second, the floor's, and PCT's
/// guaranteed and measured hit rates.
fn measure_rate(
    s: &dyn AnyScenario,
    (v, p, size): (&str, &str, usize),
    settings: &Settings,
    row: &mut Row,
    engine: Engine,
) {
    let strategy = shuttle_strategy(engine, 0, settings.rate_executions);
    let request = Request::new(v, p, strategy)
        .stop_at_first(false)
        .size(Some(size));
    let Some(r) = run(s, request) else {
        return;
    };
    row.executions_per_second = Some(per_second(r.executions, r.elapsed_ms));
    row.tasks = r.tasks;
    row.decisions = r.decisions_per_execution;
    if engine == Engine::Pct {
        if let (Some(n), Some(k)) = (r.tasks, r.decisions_per_execution) {
            row.pct_bound = Some(1.0 / (n as f64 * k * k));
        }
        row.pct_hit_rate = Some(r.violations as f64 / r.executions.max(1) as f64);
    }
    if let (Some(n), Some(k)) = (r.tasks, r.decisions_per_execution) {
        row.floor_per_second = floor_rate(n, k, settings.rate_executions);
    }
}

/// DFS without a bound, time-boxed: a holding case exhausted where tractable.
fn measure_dfs(
    s: &dyn AnyScenario,
    (v, p, size): (&str, &str, usize),
    settings: &Settings,
    row: &mut Row,
) {
    let deadline = Instant::now().checked_add(settings.time_box);
    let request = Request::new(
        v,
        p,
        Strategy::Dfs {
            executions: 1_000_000,
        },
    )
    .size(Some(size))
    .deadline(deadline);
    if let Some(r) = run(s, request) {
        row.exhaustion.push(Exhaustion {
            bound: None,
            executions: r.executions,
            exhausted: r.exhausted,
            ms: r.elapsed_ms,
        });
    }
}

/// The first seed's counterexample, minimized: preemptions before and after, and the
/// replays spent.
fn minimization(
    s: &dyn AnyScenario,
    v: &str,
    p: &str,
    size: usize,
    strategy: Strategy,
    row: &mut Row,
) {
    let Some(found) = run(s, Request::new(v, p, strategy).size(Some(size))) else {
        return;
    };
    if found.verdict != Verdict::Violated {
        return;
    }
    match ozone_ha_check::minimize::minimize(s, &found) {
        Ok(small) => {
            if let Some(m) = small.minimized {
                row.found_preemptions = Some(m.found_preemptions);
                row.minimized_preemptions = Some(m.preemptions);
                row.minimize_replays = Some(m.replays);
            }
        }
        Err(e) => eprintln!("bench: {} {v} {p}: minimizing: {e}", s.name()),
    }
}

fn measure_loom(
    s: &dyn AnyScenario,
    v: &str,
    p: &str,
    size: usize,
    settings: &Settings,
    row: &mut Row,
) {
    let holds = s.expected(v, p) == Ok(Expected::Holds);
    if holds {
        for bound in 1..=3 {
            let deadline = Instant::now().checked_add(settings.time_box);
            let request = Request::new(
                v,
                p,
                Strategy::Loom {
                    preemption_bound: Some(bound),
                },
            )
            .size(Some(size))
            .deadline(deadline);
            if let Some(r) = run(s, request) {
                let done = r.exhausted && r.verdict != Verdict::Violated;
                row.exhaustion.push(Exhaustion {
                    bound: Some(bound),
                    executions: r.executions,
                    exhausted: r.exhausted,
                    ms: r.elapsed_ms,
                });
                if !done {
                    break;
                }
            }
        }
    } else {
        for bound in 0..=3 {
            let deadline = Instant::now().checked_add(settings.time_box);
            let request = Request::new(
                v,
                p,
                Strategy::Loom {
                    preemption_bound: Some(bound),
                },
            )
            .size(Some(size))
            .deadline(deadline);
            let Some(r) = run(s, request) else { continue };
            if let Some(n) = r.first_violation {
                row.smallest_bound = Some(bound);
                row.loom_first_violation = Some(n);
                row.loom_first_ms = Some(r.elapsed_ms);
                break;
            }
        }
    }
}

fn measure_threads(
    s: &dyn AnyScenario,
    v: &str,
    p: &str,
    size: usize,
    settings: &Settings,
    row: &mut Row,
) {
    let request = Request::new(
        v,
        p,
        Strategy::Threads {
            runs: settings.thread_runs,
        },
    )
    .stop_at_first(false)
    .size(Some(size));
    if let Some(r) = run(s, request) {
        row.violations_per_10k = Some(r.violations as f64 * 10_000.0 / r.executions.max(1) as f64);
        row.runs_per_second = Some(per_second(r.executions, r.elapsed_ms));
    }
}

/// Measure every case of the selected scenarios with the engines of this build, at the
/// default size, and the scaling cases (the first violating and the first holding case of
/// each scenario) at every size. `progress` is told each case as it starts.
pub fn measure(settings: &Settings, progress: &dyn Fn(&str)) -> Vec<Row> {
    let mut rows = Vec::new();
    let engines: Vec<Engine> = available_engines()
        .iter()
        .copied()
        .filter(|e| e.capabilities().in_check)
        .collect();
    for s in all().iter().copied().filter(|s| {
        settings.scenarios.is_empty() || settings.scenarios.iter().any(|n| n == s.name())
    }) {
        let default = s.size_knob().map_or(1, |k| k.default);
        let cases = s.cases();
        let expected = |c: &CaseName| s.expected(c.variant, c.plan).ok();
        let mut items: Vec<(&str, &str, usize)> =
            cases.iter().map(|c| (c.variant, c.plan, default)).collect();
        let scaling: Vec<(&str, &str)> = [
            cases.iter().find(|c| expected(c) != Some(Expected::Holds)),
            cases.iter().find(|c| expected(c) == Some(Expected::Holds)),
        ]
        .into_iter()
        .flatten()
        .map(|c| (c.variant, c.plan))
        .collect();
        if s.size_knob().is_some() {
            for size in settings.sizes.iter().copied().filter(|n| *n != default) {
                items.extend(scaling.iter().map(|(v, p)| (*v, *p, size)));
            }
        }
        for (v, p, size) in items {
            for engine in &engines {
                if settings.deadline.is_some_and(|d| Instant::now() >= d) {
                    progress("time budget spent: the remaining cases are not measured");
                    return rows;
                }
                progress(&format!("{} {v} {p} size {size} {engine}", s.name()));
                let expected = if size == default {
                    s.expected(v, p).map_or("-", |e| e.word()).to_string()
                } else {
                    "-".to_string()
                };
                let mut row = Row {
                    scenario: s.name().into(),
                    variant: v.into(),
                    plan: p.into(),
                    engine: engine.name().into(),
                    size,
                    expected,
                    ..Row::default()
                };
                match engine {
                    Engine::Random | Engine::Pct => {
                        measure_shuttle(s, v, p, size, settings, &mut row, *engine)
                    }
                    Engine::Loom => measure_loom(s, v, p, size, settings, &mut row),
                    _ => measure_threads(s, v, p, size, settings, &mut row),
                }
                rows.push(row);
            }
        }
    }
    rows
}
