//! Shortening a counterexample found by a shuttle engine, or by the stateful engine once it
//! is carried to shuttle.
//!
//! A counterexample is easiest to follow when the threads rarely interrupt each other, so
//! the measure is the number of *preemptions*, counted as loom's preemption bound counts
//! them: a switch away from a task that could have continued. Choosing which task runs
//! when the current one blocks or finishes is not a preemption. Loom's smallest failing
//! bound is therefore the figure to reach (up to the two engines' scheduling points, which
//! differ slightly).
//!
//! Whether a switch is a preemption is asked of the engine: a replay of the schedule up to
//! that decision, followed by the task that was running, is refused exactly when that task
//! could not run there. A switch to the task the non-preemptive default (the one of
//! [`Strategy::Guided`]: the running task while it can
//! run, else the lowest-numbered runnable one) would have picked anyway is never one, so
//! only the other switches cost a replay, and each answer is remembered.
//!
//! A schedule's random values (a generated plan's workload, drawn with
//! [`crate::sync::choose`]) are set aside from its task decisions ([`Schedule::split`]):
//! every run of the search answers the model's random requests with them in order
//! ([`Strategy::Follow`], [`Strategy::Guided`]), so the interleaving shrinks around the
//! workload that was found.
//!
//! A stateful engine's counterexample replays only in that engine's mode, where the tasks
//! also yield before every facade operation and locks are kept outside shuttle, so its
//! schedule is never written out ([`Report::stateful_schedule`]). It is first *carried* to
//! shuttle, with its values: its execution followed segment by segment
//! ([`Strategy::Along`]: each block of one task's decisions runs until the task has counted
//! as many of the facade's operations, one each under every engine, or one more when the
//! last had run by the block's end), then the non-preemptive execution, then uniformly
//! random interleavings, until one breaks the same invariant, within a third of the budget.
//! That shuttle execution is then the one found, shortened as below; the report gives the
//! stateful execution's steps and context switches beside it ([`Carried`]), and its
//! schedule replays under `replay`. One not carried stays as found, without a schedule. A
//! segment can drift from the execution it follows (the engines stop a task at different
//! points between its operations), hence the other tries; of the 294 stateful
//! counterexamples of the violating cases, 284 were carried by following, 8 by a random
//! interleaving and 2 not at all (README, Minimization).
//!
//! The search runs within a budget of replays (probes included), keeps the same invariant
//! broken, and takes a schedule only when it has fewer preemptions, or as many and fewer
//! context switches, or as many of both and fewer steps:
//!
//! 1. *Cut*: keep the schedule up to one of its preemptions and let the non-preemptive
//!    default run the rest (a binary search for the earliest cut that still breaks).
//! 2. *Merge*: around each switch, let the preempted task go on with its next block of
//!    steps (pull that block forward), or move its block back to join that next block;
//!    every task keeps its own order of steps. A schedule that no longer fits the model is
//!    refused by the engine and skipped. Repeated, with a cut after each success, until no
//!    merge helps.
//! 3. *Deepen*: keep no preemption of the result, then each single one, then each pair,
//!    ..., dropping all the others at once, both as forced switches of a guided run (which
//!    skips a switch that cannot happen) and as merged exact schedules. A success goes back
//!    to 1. This is what leaves the local minima of one-at-a-time drops behind: a
//!    preemption that matters only together with another one is dropped with it.
//! 4. *Bounded search*: while preemptions remain, the non-preemptive execution itself, then
//!    every single forced switch (each decision, each task), for a counterexample with
//!    fewer preemptions; one found is shortened by 1 to 3 in turn.
//! 5. *Workload* (a generated plan): the values are decoded into the workload they drew
//!    ([`Vocabulary::decode`]); each item dropped, then each argument lowered toward the
//!    canonical first value, is encoded back ([`Vocabulary::encode`]) and tried with the
//!    minimized interleaving (its tasks exactly, then loosely, then its forced switches),
//!    the non-preemptive execution and a few uniformly random interleavings. A workload
//!    that still breaks the invariant, cut and merged (steps 1 and 2), is kept when it is
//!    no longer than the counterexample as found (fewer items first, even at more
//!    preemptions than the shortened one), and the drops start again; the smallest is
//!    shortened by 1 to 4. Steps 1 to 4 on the workload as found get a third of the
//!    budget, this step the next third.

use crate::engine::{DriveError, Schedule, Step, Strategy, Yields};
use crate::explore::{explore, Carried, ExploreError, Minimized, Report, Request};
use crate::scenario::GENERATED;
use crate::scenarios::AnyScenario;
use crate::workload::{Bounds, Vocabulary, Workload};
use std::collections::{BTreeMap, BTreeSet};

/// The most replays one minimization may run, the probes that count preemptions
/// included.
pub const MINIMIZE_BUDGET: usize = 1_500;

/// Uniformly random interleavings tried per candidate workload, after the minimized
/// interleaving and the non-preemptive execution.
const RANDOM_TRIES: usize = 8;

/// Shorten a violation found by a shuttle engine, or by the stateful engine once carried to
/// shuttle, within [`MINIMIZE_BUDGET`] replays; see the module documentation. Returns the
/// report with the shorter counterexample (a shuttle schedule) and both lengths; a report
/// without a schedule, or whose stateful counterexample was not carried, comes back
/// unchanged.
pub fn minimize(scenario: &dyn AnyScenario, report: &Report) -> Result<Report, ExploreError> {
    minimize_within(scenario, report, MINIMIZE_BUDGET)
}

/// [`minimize`] with a budget of `budget` replays.
pub fn minimize_within(
    scenario: &dyn AnyScenario,
    report: &Report,
    budget: usize,
) -> Result<Report, ExploreError> {
    // A stateful engine's schedule replays only in its mode: it is carried to shuttle first.
    let carrying = report.schedule.is_none();
    let schedule = report
        .schedule
        .as_ref()
        .or(report.stateful_schedule.as_ref());
    let (Some(schedule), Some(invariant)) = (schedule, &report.invariant) else {
        return Ok(report.clone());
    };
    let (tasks, values) = schedule.split();
    let mut search = Search {
        scenario,
        report,
        invariant,
        values,
        replays: 0,
        budget,
        fits: BTreeMap::new(),
        tried: BTreeSet::new(),
    };
    // The found schedule is replayed (or carried to shuttle) and its preemptions counted
    // whatever the budget; one not carried within a third of it stays as found.
    let (found, carried) = if carrying {
        match search.carry(&segments(schedule))? {
            Some((found, replays)) => {
                let carried = Carried {
                    steps: report.trace.len(),
                    context_switches: schedule.context_switches(),
                    replays,
                };
                (found, Some(carried))
            }
            None => return Ok(report.clone()),
        }
    } else {
        match search.exact(&tasks, true)? {
            Some(found) => (found, None),
            None => return Ok(report.clone()),
        }
    };
    let drawn = Drawn::of(scenario, report, &search.values);
    // A generated plan's budget: a third to shorten the interleaving as found, a third to
    // shrink the workload, the rest to shorten the interleaving of the smaller workload.
    if drawn.is_some() {
        search.budget = budget / 3;
    }
    let mut best = search.shorten(found.clone())?;
    let mut workloads = None;
    if let Some(drawn) = drawn {
        search.budget = budget * 2 / 3;
        let found_items = drawn.workload.items.len();
        let (shrunk, items) = search.shrink(best, drawn, found.key())?;
        search.budget = budget;
        best = search.shorten(shrunk)?;
        workloads = Some((found_items, items));
    }
    let mut out = report.clone();
    out.minimized = Some(Minimized {
        found_steps: found.report.trace.len(),
        found_context_switches: found.report.context_switches.unwrap_or(0),
        found_preemptions: found.preempted.len(),
        steps: best.report.trace.len(),
        context_switches: best.report.context_switches.unwrap_or(0),
        preemptions: best.preempted.len(),
        replays: search.replays,
        found_workload: workloads.map(|(found, _)| found),
        workload: workloads.map(|(_, items)| items),
        carried,
    });
    out.detail = best.report.detail;
    out.violation_step = best.report.violation_step;
    out.schedule = best.report.schedule;
    out.stateful_schedule = None;
    out.context_switches = best.report.context_switches;
    out.trace = best.report.trace;
    Ok(out)
}

/// The workload a generated plan's counterexample drew, and what it was drawn from.
struct Drawn {
    vocabulary: Vocabulary,
    bounds: Bounds,
    workload: Workload,
    /// The values after the draw's (later choices of the model), kept as they are.
    rest: Vec<u64>,
}

impl Drawn {
    /// The workload `values` draw, when `report` is of a generated plan.
    fn of(scenario: &dyn AnyScenario, report: &Report, values: &[u64]) -> Option<Drawn> {
        if report.plan != GENERATED {
            return None;
        }
        let vocabulary = scenario.vocabulary()?;
        let bounds = report.bounds.unwrap_or(vocabulary.bounds);
        let (workload, used) = vocabulary.decode(values, bounds);
        Some(Drawn {
            vocabulary,
            bounds,
            workload,
            rest: values[used..].to_vec(),
        })
    }

    /// Smaller workloads than `w`, each one step away, as [`Vocabulary::draw`] makes them:
    /// `w` without one of its items (the last first), then `w` with one argument lowered
    /// (each to every lower value), each put in canonical form. Each is shorter, or as long
    /// and lexicographically smaller, so trying them in turn ends.
    fn smaller(&self, w: &Workload) -> Vec<Workload> {
        let v = &self.vocabulary;
        let mut out: Vec<Workload> = Vec::new();
        for i in (0..w.items.len()).rev() {
            let mut items = w.items.clone();
            items.remove(i);
            out.push(v.canonical(&Workload { items }));
        }
        for i in 0..w.items.len() {
            for a in 0..w.items[i].args.len() {
                for lower in 0..w.items[i].args[a] {
                    let mut items = w.items.clone();
                    items[i].args[a] = lower;
                    out.push(v.canonical(&Workload { items }));
                }
            }
        }
        out.retain(|c| !c.items.is_empty() && c != w);
        out.dedup();
        out
    }

    /// The values that draw `w`, the later choices after them; `None` when the draw cannot
    /// make `w` (a precondition refuses it).
    fn values(&self, w: &Workload) -> Option<Vec<u64>> {
        let mut values = self.vocabulary.encode(w, self.bounds)?;
        values.extend_from_slice(&self.rest);
        Some(values)
    }
}

/// A stateful engine's execution as [`Strategy::Along`] runs it: each block of consecutive
/// decisions of one task, with the operations that task had counted when the next block's
/// decision came, one more if its last operation had run by then (it passed a decision
/// since: under shuttle it runs on to its next operation, past stops, such as a lock's
/// release, that the stateful engine does not have); the last block runs on. Up to the
/// search's cut, if any: after it the tasks yielded only where shuttle switches, and ran
/// without preemptions.
fn segments(schedule: &Schedule) -> Vec<(usize, u64)> {
    let tasks: Vec<usize> = schedule
        .steps
        .iter()
        .take(match schedule.yields {
            Yields::Stateful { cut: Some(cut) } => cut,
            _ => usize::MAX,
        })
        .filter_map(|s| match s {
            Step::Task(t) => Some(*t),
            Step::Random(_) => None,
        })
        .collect();
    // Each task's operations counted, and whether it passed a decision since its last.
    let mut done: BTreeMap<usize, (u64, bool)> = BTreeMap::new();
    let mut segments = Vec::new();
    for d in 1..tasks.len().min(schedule.counted.len()) {
        // The operations counted between two decisions are the task's that ran between them.
        let ran = tasks[d - 1];
        let (operations, past) = done.entry(ran).or_default();
        let counted = schedule.counted[d] - schedule.counted[d - 1];
        *operations += counted;
        *past = counted == 0;
        if tasks[d] != ran {
            segments.push((ran, *operations + u64::from(*past)));
        }
    }
    if let Some(&last) = tasks.last() {
        segments.push((last, u64::MAX));
    }
    segments
}

/// Where each block of consecutive decisions of one task starts, after the first.
fn block_starts(tasks: &[usize]) -> Vec<usize> {
    (1..tasks.len())
        .filter(|&i| tasks[i] != tasks[i - 1])
        .collect()
}

/// A violating execution of the watched invariant, with its preemptions.
#[derive(Clone, Debug)]
struct Found {
    report: Report,
    /// The task of every decision.
    tasks: Vec<usize>,
    /// The decisions at which a task that could have continued was switched away from.
    preempted: Vec<usize>,
}

impl Found {
    /// Fewest preemptions first (each is a choice a reader must follow), then context
    /// switches, then steps.
    fn key(&self) -> (usize, usize, usize) {
        (
            self.preempted.len(),
            self.report.context_switches.unwrap_or(usize::MAX),
            self.report.trace.len(),
        )
    }
}

struct Search<'a> {
    scenario: &'a dyn AnyScenario,
    report: &'a Report,
    invariant: &'a str,
    /// The answers to the model's random requests (a generated plan's workload), in order:
    /// every run replays them, wherever the model asks.
    values: Vec<u64>,
    replays: usize,
    budget: usize,
    /// Whether a task can run after a prefix of decisions: `(values, prefix + [task])` ->
    /// answer.
    fits: BTreeMap<(Vec<u64>, Vec<usize>), bool>,
    /// Explicit schedules already replayed, with their values.
    tried: BTreeSet<(Vec<u64>, Vec<usize>)>,
}

impl Search<'_> {
    fn spent(&self) -> bool {
        self.replays >= self.budget
    }

    /// Run one execution; `None` when the schedule does not fit the model.
    fn run(&mut self, strategy: Strategy) -> Result<Option<Report>, ExploreError> {
        self.replays += 1;
        let request = Request::new(&self.report.variant, &self.report.plan, strategy)
            .watch(Some(self.invariant))
            .size(self.report.size)
            .bounds(self.report.bounds);
        match explore(self.scenario, &request) {
            Ok(r) => Ok(Some(r)),
            Err(ExploreError::Drive(DriveError::ScheduleMismatch(_))) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Whether `task` can run after the decisions `prefix` (one replay, remembered).
    fn fits(&mut self, prefix: &[usize], task: usize) -> Result<bool, ExploreError> {
        let mut probe = prefix.to_vec();
        probe.push(task);
        let key = (self.values.clone(), probe);
        if let Some(known) = self.fits.get(&key) {
            return Ok(*known);
        }
        let fits = self
            .run(Strategy::Follow {
                tasks: key.1.clone(),
                values: self.values.clone(),
            })?
            .is_some();
        self.fits.insert(key, fits);
        Ok(fits)
    }

    /// The violating execution of `r`, its preemptions counted; `None` when it does not
    /// break the watched invariant, or when the budget ran out while counting (unless
    /// `always`).
    fn found(&mut self, r: Report, always: bool) -> Result<Option<Found>, ExploreError> {
        if r.invariant.as_deref() != Some(self.invariant) {
            return Ok(None);
        }
        let Some((tasks, _)) = r.schedule.as_ref().map(Schedule::split) else {
            return Ok(None);
        };
        let mut preempted = Vec::new();
        // A switch the non-preemptive default would have made is not a preemption: the
        // running task could not go on. Only the others are probed.
        for (decision, task) in r.switches.clone().unwrap_or_default() {
            if decision == 0 || decision >= tasks.len() || tasks[decision - 1] == task {
                continue;
            }
            if self.spent() && !always {
                return Ok(None);
            }
            if self.fits(&tasks[..decision], tasks[decision - 1])? {
                preempted.push(decision);
            }
        }
        Ok(Some(Found {
            report: r,
            tasks,
            preempted,
        }))
    }

    /// Replay exactly `tasks` (then the non-preemptive default), with the values.
    fn exact(&mut self, tasks: &[usize], always: bool) -> Result<Option<Found>, ExploreError> {
        if !always && (self.spent() || !self.tried.insert((self.values.clone(), tasks.to_vec()))) {
            return Ok(None);
        }
        match self.run(Strategy::Follow {
            tasks: tasks.to_vec(),
            values: self.values.clone(),
        })? {
            Some(r) => self.found(r, always),
            None => Ok(None),
        }
    }

    /// Run the non-preemptive default with these forced switches.
    fn guided(&mut self, switches: Vec<(usize, usize)>) -> Result<Option<Report>, ExploreError> {
        if self.spent() {
            return Ok(None);
        }
        self.run(Strategy::Guided {
            switches,
            values: self.values.clone(),
        })
    }

    /// Steps 1 to 4 of the module documentation: the fewest preemptions for the values.
    fn shorten(&mut self, found: Found) -> Result<Found, ExploreError> {
        let mut best = self.improve(found)?;
        best = self.deepen(best)?;
        if !best.preempted.is_empty() {
            if let Some(other) = self.bounded(best.preempted.len())? {
                let other = self.improve(other)?;
                let other = self.deepen(other)?;
                if other.key() < best.key() {
                    best = other;
                }
            }
        }
        Ok(best)
    }

    /// Step 5: the smallest workload that still breaks the invariant (each success cut and
    /// merged, steps 1 and 2, before the next drop, and kept only when no longer than
    /// `limit`, the key of the counterexample as found); returns it with its number of
    /// items.
    fn shrink(
        &mut self,
        mut best: Found,
        drawn: Drawn,
        limit: (usize, usize, usize),
    ) -> Result<(Found, usize), ExploreError> {
        let mut workload = drawn.workload.clone();
        let mut tried = BTreeSet::new();
        'smaller: while !self.spent() {
            for candidate in drawn.smaller(&workload) {
                if !tried.insert(drawn.vocabulary.show(&candidate)) {
                    continue;
                }
                let Some(values) = drawn.values(&candidate) else {
                    continue;
                };
                let old = self.values.clone();
                if let Some(f) = self.with_values(values, &best)? {
                    let f = self.improve(f)?;
                    // Never longer than the counterexample as found.
                    if f.key() <= limit {
                        workload = candidate;
                        best = f;
                        continue 'smaller;
                    }
                    self.values = old;
                }
                if self.spent() {
                    break 'smaller;
                }
            }
            break;
        }
        Ok((best, workload.items.len()))
    }

    /// A violating execution with `values` in place of the current ones: the tasks of
    /// `like` (exactly, then loosely: [`Strategy::Loosely`]), its forced switches, the
    /// non-preemptive execution, then [`RANDOM_TRIES`]
    /// uniformly random interleavings ([`Strategy::Shuffle`]). The values stay when one
    /// breaks the invariant.
    fn with_values(
        &mut self,
        values: Vec<u64>,
        like: &Found,
    ) -> Result<Option<Found>, ExploreError> {
        let old = std::mem::replace(&mut self.values, values);
        if let Some(f) = self.exact(&like.tasks, false)? {
            return Ok(Some(f));
        }
        let loosely = self.run(Strategy::Loosely {
            tasks: like.tasks.clone(),
            values: self.values.clone(),
        })?;
        if let Some(f) = loosely.map(|r| self.found(r, false)).transpose()?.flatten() {
            return Ok(Some(f));
        }
        let switches = like.report.switches.clone().unwrap_or_default();
        for forced in [switches, Vec::new()] {
            let Some(r) = self.guided(forced)? else {
                break;
            };
            if let Some(f) = self.found(r, false)? {
                return Ok(Some(f));
            }
        }
        for seed in 0..RANDOM_TRIES as u64 {
            if self.spent() {
                break;
            }
            let Some(r) = self.run(Strategy::Shuffle {
                seed,
                values: self.values.clone(),
            })?
            else {
                continue;
            };
            if let Some(f) = self.found(r, false)? {
                return Ok(Some(f));
            }
        }
        self.values = old;
        Ok(None)
    }

    /// A shuttle execution that breaks the invariant with the values of a stateful engine's
    /// counterexample, and the replays it took: that execution followed segment by segment
    /// ([`Strategy::Along`]), the non-preemptive execution, then uniformly random
    /// interleavings ([`Strategy::Shuffle`]), within a third of the budget. Its preemptions
    /// are counted whatever the budget.
    fn carry(&mut self, segments: &[(usize, u64)]) -> Result<Option<(Found, usize)>, ExploreError> {
        let budget = self.budget / 3;
        let values = self.values.clone();
        let tries = [
            Strategy::Along {
                segments: segments.to_vec(),
                values: values.clone(),
            },
            Strategy::Guided {
                switches: Vec::new(),
                values: values.clone(),
            },
        ]
        .into_iter()
        .chain((0..).map(|seed| Strategy::Shuffle {
            seed,
            values: values.clone(),
        }));
        for strategy in tries {
            if self.replays >= budget {
                break;
            }
            let Some(r) = self.run(strategy)? else {
                continue;
            };
            let replays = self.replays;
            if let Some(f) = self.found(r, true)? {
                return Ok(Some((f, replays)));
            }
        }
        Ok(None)
    }

    /// Cut and merge until neither helps or the budget is spent.
    fn improve(&mut self, mut best: Found) -> Result<Found, ExploreError> {
        best = self.cut(best)?;
        'merge: while !self.spent() {
            for candidate in merges(&best.tasks, &best.preempted) {
                if let Some(f) = self.exact(&candidate, false)? {
                    if f.key() < best.key() {
                        best = self.cut(f)?;
                        continue 'merge;
                    }
                }
                if self.spent() {
                    break 'merge;
                }
            }
            break;
        }
        Ok(best)
    }

    /// Iterative deepening over the preemptions of `best`: keep none of them, then each
    /// one, then each two, ..., dropping all the others at once, both as forced switches
    /// (the engine's guided run, which skips a switch that cannot happen) and as an exact
    /// schedule with each dropped preemption merged away; each success is improved again
    /// and the deepening restarts from it.
    fn deepen(&mut self, mut best: Found) -> Result<Found, ExploreError> {
        'restart: while !best.preempted.is_empty() && !self.spent() {
            let preempted = best.preempted.clone();
            let switches = best.report.switches.clone().unwrap_or_default();
            for k in 0..preempted.len() {
                let mut keep = Combinations::new(preempted.len(), k);
                while let Some(chosen) = keep.next_indices() {
                    let kept: Vec<usize> = chosen.iter().map(|&i| preempted[i]).collect();
                    let forced: Vec<(usize, usize)> = switches
                        .iter()
                        .copied()
                        .filter(|(d, _)| !preempted.contains(d) || kept.contains(d))
                        .collect();
                    let mut candidates = Vec::new();
                    if let Some(r) = self.guided(forced)? {
                        candidates.push(self.found(r, false)?);
                    }
                    for how in [Removal::Pull, Removal::Push] {
                        let merged = keeping(&best.tasks, &preempted, &kept, how);
                        candidates.push(self.exact(&merged, false)?);
                    }
                    for f in candidates.into_iter().flatten() {
                        if f.key() < best.key() {
                            best = self.improve(f)?;
                            continue 'restart;
                        }
                    }
                    if self.spent() {
                        break 'restart;
                    }
                }
            }
            break;
        }
        Ok(best)
    }

    /// The earliest cut at a preemption that still breaks the invariant (a binary
    /// search: cutting at the k-th preemption keeps k of them).
    fn cut(&mut self, best: Found) -> Result<Found, ExploreError> {
        let mut best = best;
        let (mut lo, mut hi) = (0, best.preempted.len());
        let cuts = best.preempted.clone();
        let tasks = best.tasks.clone();
        while lo < hi && !self.spent() {
            let mid = (lo + hi) / 2;
            match self.exact(&tasks[..cuts[mid]], false)? {
                Some(f) if f.preempted.len() <= mid => {
                    if f.key() < best.key() {
                        best = f;
                    }
                    hi = mid;
                }
                _ => lo = mid + 1,
            }
        }
        Ok(best)
    }

    /// Iterative deepening from the non-preemptive execution: no forced switch, then each
    /// single forced switch. Returns the first violating execution with fewer than
    /// `bound` preemptions, the fewest found.
    fn bounded(&mut self, bound: usize) -> Result<Option<Found>, ExploreError> {
        let Some(plain) = self.guided(Vec::new())? else {
            return Ok(None);
        };
        if let Some(f) = self.found(plain.clone(), false)? {
            if f.preempted.len() < bound {
                return Ok(Some(f));
            }
        }
        let decisions = plain.decisions_per_execution.unwrap_or(0.0).round() as usize;
        let tasks = plain.tasks.unwrap_or(0);
        let mut best: Option<Found> = None;
        for decision in 1..decisions {
            for task in 0..tasks {
                let Some(r) = self.guided(vec![(decision, task)])? else {
                    return Ok(best);
                };
                if r.switches.as_ref().is_none_or(Vec::is_empty) {
                    continue;
                }
                let Some(f) = self.found(r, false)? else {
                    continue;
                };
                let limit = best.as_ref().map_or(bound, |b| b.preempted.len());
                if f.preempted.len() < limit {
                    let done = f.preempted.is_empty();
                    best = Some(f);
                    if done {
                        return Ok(best);
                    }
                }
            }
        }
        Ok(best)
    }
}

/// How a switch at decision `d` is taken out of a schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Removal {
    /// The preempted task goes on at `d` with its next block of steps.
    Pull,
    /// The preempted task's block waits and runs just before its next block.
    Push,
}

/// `tasks` without the switch at decision `d` (`0 < d < tasks.len()`), as `how` says; a
/// task that never runs again simply goes on, the rest left to the default.
fn remove(tasks: &[usize], d: usize, how: Removal) -> Vec<usize> {
    let x = tasks[d - 1];
    let Some(a) = (d..tasks.len()).find(|&i| tasks[i] == x) else {
        return tasks[..d].to_vec();
    };
    let b = (a..tasks.len())
        .find(|&i| tasks[i] != x)
        .unwrap_or(tasks.len());
    let mut out = Vec::with_capacity(tasks.len());
    match how {
        Removal::Pull => {
            out.extend_from_slice(&tasks[..d]);
            out.extend_from_slice(&tasks[a..b]);
            out.extend_from_slice(&tasks[d..a]);
            out.extend_from_slice(&tasks[b..]);
        }
        Removal::Push => {
            let start = (0..d).rev().find(|&i| tasks[i] != x).map_or(0, |i| i + 1);
            out.extend_from_slice(&tasks[..start]);
            out.extend_from_slice(&tasks[d..a]);
            out.extend_from_slice(&tasks[start..d]);
            out.extend_from_slice(&tasks[a..]);
        }
    }
    out
}

/// Schedules that remove one switch of `tasks` each: around each preemption (the last
/// first), then around the other switches.
fn merges(tasks: &[usize], preempted: &[usize]) -> Vec<Vec<usize>> {
    let mut at: Vec<usize> = preempted.iter().rev().copied().collect();
    at.extend(
        block_starts(tasks)
            .into_iter()
            .rev()
            .filter(|d| !preempted.contains(d)),
    );
    let mut out: Vec<Vec<usize>> = Vec::new();
    for d in at {
        for how in [Removal::Pull, Removal::Push] {
            let candidate = remove(tasks, d, how);
            if !out.contains(&candidate) {
                out.push(candidate);
            }
        }
    }
    out
}

/// `tasks` keeping only the preemptions `keep` of `preempted`, every other one removed
/// (the last first) as `how` says.
fn keeping(tasks: &[usize], preempted: &[usize], keep: &[usize], how: Removal) -> Vec<usize> {
    let mut out = tasks.to_vec();
    for &d in preempted.iter().rev().filter(|d| !keep.contains(d)) {
        if d < out.len() && out[d - 1] != out[d] {
            out = remove(&out, d, how);
        }
    }
    out
}

/// The `k`-element subsets of `0..n` in lexicographic order, one at a time.
struct Combinations {
    n: usize,
    indices: Vec<usize>,
    started: bool,
}

impl Combinations {
    fn new(n: usize, k: usize) -> Self {
        Self {
            n,
            indices: (0..k).collect(),
            started: false,
        }
    }

    fn next_indices(&mut self) -> Option<&[usize]> {
        let k = self.indices.len();
        if !self.started {
            self.started = true;
            return (k <= self.n).then_some(&self.indices[..]);
        }
        // The rightmost index that can still move right.
        let i = (0..k).rev().find(|&i| self.indices[i] < self.n - k + i)?;
        self.indices[i] += 1;
        for j in i + 1..k {
            self.indices[j] = self.indices[j - 1] + 1;
        }
        Some(&self.indices[..])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stateful_execution_splits_into_segments_up_to_its_cut() {
        use crate::engine::Step::{Random, Task};
        let mut schedule = Schedule {
            steps: vec![Task(0), Task(0), Task(1), Random(5), Task(1), Task(0)],
            yields: Yields::Stateful { cut: None },
            counted: vec![10, 11, 12, 12, 14],
        };
        // Task 0 counts two operations over its two decisions and is switched away before
        // its third; task 1 passes a decision without one, then counts two; the last block
        // runs on.
        assert_eq!(segments(&schedule), vec![(0, 2), (1, 2), (0, u64::MAX)]);
        // Task 1 passes two decisions without an operation: the one it stood before ran,
        // so under shuttle it runs on to its next.
        schedule.counted = vec![10, 11, 12, 12, 12];
        assert_eq!(segments(&schedule)[1], (1, 1));
        // The cut comes before step 4 (the random value counts as a step).
        schedule.yields = Yields::Stateful { cut: Some(4) };
        assert_eq!(segments(&schedule), vec![(0, 2), (1, u64::MAX)]);
    }

    #[test]
    fn schedules_round_trip_through_their_tasks() {
        let tasks = vec![0, 0, 0, 1, 2, 2, 0];
        let s = Schedule::of_tasks(&tasks);
        assert_eq!(s.to_string(), "v1:0x3,1,2x2,0");
        assert_eq!(
            s.to_string().parse::<Schedule>().unwrap().tasks_only(),
            Some(tasks)
        );
    }

    #[test]
    fn merges_pull_and_push_the_preempted_block() {
        // 1 is preempted at decision 2 by 2, and goes on at decision 4.
        let m = merges(&[1, 1, 2, 2, 1, 1], &[2]);
        assert_eq!(m[0], vec![1, 1, 1, 1, 2, 2], "pull");
        assert_eq!(m[1], vec![2, 2, 1, 1, 1, 1], "push");
    }

    #[test]
    fn keeping_removes_every_other_preemption() {
        // 1 preempted by 2 at 1, 2 preempted by 1 at 2, 1 preempted by 3 at 4; the last
        // is kept. 2 goes on with its next step at 2, then 1 with its next two at 1.
        let tasks = [1, 2, 1, 1, 3, 2, 1];
        assert_eq!(
            keeping(&tasks, &[1, 2, 4], &[4], Removal::Pull),
            vec![1, 1, 1, 2, 2, 3, 1]
        );
        let mut all = Vec::new();
        let mut c = Combinations::new(3, 2);
        while let Some(x) = c.next_indices() {
            all.push(x.to_vec());
        }
        assert_eq!(all, vec![vec![0, 1], vec![0, 2], vec![1, 2]]);
        let mut none = Combinations::new(3, 0);
        assert_eq!(none.next_indices(), Some(&[][..]));
        assert_eq!(none.next_indices(), None);
    }
}
