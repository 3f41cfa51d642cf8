//! Shortening a counterexample found by a shuttle engine.

use crate::engine::{Schedule, Strategy};
use crate::explore::{explore, ExploreError, Minimized, Report, Request};
use crate::scenarios::AnyScenario;

/// The most replays one minimization may run.
const MINIMIZE_BUDGET: usize = 400;

/// Shorten a violation found by a shuttle engine: replay its schedule, then drop its
/// preemptions one (or, when that no longer helps, two) at a time, keeping a drop whenever
/// the same invariant still breaks with fewer preemptions (then fewer context switches, then
/// fewer steps), until no drop helps or the budget of replays is spent. Returns the report with the shorter counterexample and both lengths; a report
/// without a replayable schedule comes back unchanged.
pub fn minimize(scenario: &dyn AnyScenario, report: &Report) -> Result<Report, ExploreError> {
    let (Some(text), Some(invariant)) = (&report.schedule, &report.invariant) else {
        return Ok(report.clone());
    };
    let Ok(schedule) = Schedule::parse(text) else {
        return Ok(report.clone());
    };
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
