//! The verdict check the test suites run under every engine: each case gets its expected
//! verdict, each expected invariant can be shown broken on its own, and a "held" verdict
//! comes with its required probes fired (and, under an exhaustive engine, with the schedules
//! exhausted). Under a randomized engine a violating case must break under every one of
//! [`RELIABILITY_SEEDS`] seeds at `check`'s default budget ([`verify_case_seeds`]), so that
//! a budget too small for some seed fails a test instead of a user's run.

/// Seeds under which every violating case must break under random and PCT exploration at
/// `check`'s default budget.
pub const RELIABILITY_SEEDS: u64 = 20;

use crate::engine::Strategy;
use crate::explore::{explore, Report, Request, Verdict};
use crate::scenario::Expected;
use crate::scenarios::{AnyScenario, CaseName};

/// One exploration; a watched invariant's is judged by its name alone, without a trace.
fn run(
    s: &dyn AnyScenario,
    case: CaseName,
    strategy: Strategy,
    watch: Option<&str>,
) -> Result<Report, String> {
    explore(
        s,
        &Request::new(case.variant, case.plan, strategy)
            .watch(watch)
            .trace(watch.is_none()),
    )
    .map_err(|e| format!("{} {}/{}: {e}", s.name(), case.variant, case.plan))
}

/// Check one case under `strategy` (called afresh for every exploration). `Err` says what
/// differs from the expectation.
pub fn verify_case(
    s: &dyn AnyScenario,
    case: CaseName,
    strategy: &dyn Fn() -> Strategy,
) -> Result<(), String> {
    let name = format!("{} {}/{}", s.name(), case.variant, case.plan);
    let expected = s
        .expected(case.variant, case.plan)
        .map_err(|e| e.to_string())?;
    match expected {
        Expected::Holds => {
            let r = run(s, case, strategy(), None)?;
            if r.verdict != Verdict::Held {
                return Err(format!(
                    "{name}: expected held, got {} ({:?}: {:?})",
                    r.verdict.word(),
                    r.invariant,
                    r.detail
                ));
            }
            for probe in s.required_probes() {
                if r.probes.get(probe).copied().unwrap_or(0) == 0 {
                    return Err(format!("{name}: probe {probe} never fired"));
                }
            }
            if r.engine.exhaustive() && !r.exhausted {
                return Err(format!(
                    "{name}: {} did not exhaust its schedules ({} executions)",
                    r.engine, r.executions
                ));
            }
        }
        Expected::Violates(properties) => {
            let names: Vec<&str> = properties.iter().map(|p| p.name).collect();
            let engine = strategy().engine();
            let reachable = s.asked_of(engine, case.variant, case.plan);
            if reachable.is_empty() {
                // Declared out of this engine's reach: the run must reach the declared
                // windows (or break an expected invariant after all).
                let r = run(s, case, strategy(), None)?;
                if !r.as_expected() {
                    return Err(format!(
                        "{name}: every expected invariant is declared beyond {engine}'s reach, and the run {} ({:?}; probes {:?})",
                        r.verdict.word(),
                        r.invariant,
                        r.probes
                    ));
                }
                return Ok(());
            }
            let r = run(s, case, strategy(), None)?;
            let broke = r.invariant.clone().unwrap_or_default();
            if r.verdict != Verdict::Violated || !names.contains(&broke.as_str()) {
                return Err(format!(
                    "{name}: expected one of {names:?} broken, got {} {broke}",
                    r.verdict.word()
                ));
            }
            if r.trace.is_empty() {
                return Err(format!("{name}: empty counterexample"));
            }
            for invariant in reachable {
                // One the execution above broke breaks first there when watched alone too:
                // the same seed makes the same choices up to that point.
                if r.broken.iter().any(|b| b == invariant) {
                    continue;
                }
                let watched = run(s, case, strategy(), Some(invariant))?;
                if watched.invariant.as_deref() != Some(invariant) {
                    return Err(format!(
                        "{name}: {invariant} never broke when watched alone ({} executions)",
                        watched.executions
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Check one case under `strategy(seed)`: a holding case under the first seed of `seeds`, a
/// violating case under each of them (a randomized engine's budget must suffice for every
/// seed). `Err` says what differs, for every seed that differs.
pub fn verify_case_seeds(
    s: &dyn AnyScenario,
    case: CaseName,
    strategy: &dyn Fn(u64) -> Strategy,
    seeds: std::ops::Range<u64>,
) -> Result<(), String> {
    // A case whose every expected invariant is out of the engine's reach is judged like a
    // holding one: under one seed.
    let engine = strategy(seeds.start).engine();
    let seeds = if s.asked_of(engine, case.variant, case.plan).is_empty() {
        seeds.start..seeds.start.saturating_add(1)
    } else {
        seeds
    };
    let failures: Vec<String> = seeds
        .filter_map(|seed| {
            verify_case(s, case, &|| strategy(seed))
                .err()
                .map(|e| format!("seed {seed}: {e}"))
        })
        .collect();
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n"))
    }
}
