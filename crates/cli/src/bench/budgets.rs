//! Whether `check`'s default budgets suffice: for every violating case, every randomized
//! engine and every expected invariant (watched alone, and "any of them" unwatched), the
//! executions each seed needs to the first violation, set beside the budget `check` gives.
//!
//! The shuttle suite fails when a violating case does not break under one of the first
//! [`RELIABILITY_SEEDS`](ozone_ha_check::verify::RELIABILITY_SEEDS) seeds at its default budget; this
//! measures by how much each budget clears its worst seed, so that a budget is raised by a
//! figure and not by a guess. `bench --budgets` writes the section of `bench/RESULTS.md`
//! between the markers [`BEGIN`] and [`END`].

use ozone_ha_check::engine::{Engine, Strategy};
use ozone_ha_check::explore::{explore, Request};
use ozone_ha_check::jobs::plan_strategy;
use ozone_ha_check::scenario::Expected;
use ozone_ha_check::scenarios::{all, AnyScenario};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// Start of the section this writes in `bench/RESULTS.md`.
pub const BEGIN: &str = "<!-- budgets: begin (bench --budgets) -->";
/// End of the section.
pub const END: &str = "<!-- budgets: end -->";

/// How far past its budget a seed may search before it counts as missed.
const SEARCH_FACTOR: usize = 10;

/// One violating case under one engine, one invariant watched (or none), over many seeds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Budget {
    /// Scenario.
    pub scenario: String,
    /// Variant.
    pub variant: String,
    /// Plan.
    pub plan: String,
    /// `random` or `pct`.
    pub engine: String,
    /// The invariant watched alone; `None`: any expected one, unwatched.
    pub invariant: Option<String>,
    /// The executions `check` gives the case by default.
    pub budget: usize,
    /// Seeds tried (0, 1, ...).
    pub seeds: u64,
    /// Executions to the first violation, by seed; `None` where none broke within
    /// ten times the budget.
    pub firsts: Vec<Option<usize>>,
}

impl Budget {
    /// The most executions a seed needed, if every seed broke.
    pub fn worst(&self) -> Option<usize> {
        self.firsts
            .iter()
            .copied()
            .collect::<Option<Vec<_>>>()?
            .into_iter()
            .max()
    }

    /// Seeds that did not break within the budget.
    pub fn over_budget(&self) -> usize {
        self.firsts
            .iter()
            .filter(|f| f.is_none_or(|n| n > self.budget))
            .count()
    }
}

fn first(
    s: &dyn AnyScenario,
    v: &str,
    p: &str,
    strategy: Strategy,
    watch: Option<&str>,
) -> Option<usize> {
    let request = Request::new(v, p, strategy).watch(watch);
    let r = explore(s, &request).ok()?;
    match watch {
        Some(w) if r.invariant.as_deref() != Some(w) => None,
        _ => r.first_violation,
    }
}

/// Measure every violating case of the selected scenarios (all when `scenarios` is empty).
/// `progress` is told each (case, engine, invariant) as it starts.
pub fn measure(seeds: u64, scenarios: &[String], progress: &dyn Fn(&str)) -> Vec<Budget> {
    let mut rows = Vec::new();
    for s in all()
        .iter()
        .copied()
        .filter(|s| scenarios.is_empty() || scenarios.iter().any(|n| n == s.name()))
    {
        for case in s.cases() {
            let Ok(Expected::Violates(properties)) = s.expected(case.variant, case.plan) else {
                continue;
            };
            for engine in [Engine::Pct, Engine::Random] {
                let watches = std::iter::once(None).chain(properties.iter().map(|p| Some(p.name)));
                for watch in watches {
                    progress(&format!(
                        "{} {}/{} {engine} {}",
                        s.name(),
                        case.variant,
                        case.plan,
                        watch.unwrap_or("(any)")
                    ));
                    let budget = executions(&plan_strategy(s, case.plan, engine, 0));
                    let firsts = (0..seeds)
                        .map(|seed| {
                            let strategy = with_executions(
                                plan_strategy(s, case.plan, engine, seed),
                                budget.saturating_mul(SEARCH_FACTOR),
                            );
                            first(s, case.variant, case.plan, strategy, watch)
                        })
                        .collect();
                    rows.push(Budget {
                        scenario: s.name().into(),
                        variant: case.variant.into(),
                        plan: case.plan.into(),
                        engine: engine.name().into(),
                        invariant: watch.map(str::to_string),
                        budget,
                        seeds,
                        firsts,
                    });
                }
            }
        }
    }
    rows
}

fn executions(strategy: &Strategy) -> usize {
    match strategy {
        Strategy::Random { executions, .. } | Strategy::Pct { executions, .. } => *executions,
        _ => 0,
    }
}

fn with_executions(strategy: Strategy, n: usize) -> Strategy {
    match strategy {
        Strategy::Random { seed, .. } => Strategy::Random {
            seed,
            executions: n,
        },
        Strategy::Pct { seed, depth, .. } => Strategy::Pct {
            seed,
            depth,
            executions: n,
        },
        other => other,
    }
}

/// The section of `bench/RESULTS.md`, markers included: one row per violating case, engine
/// and invariant, with the worst seed's executions and the budget's margin over it.
pub fn render(rows: &[Budget]) -> String {
    let mut md = String::new();
    let seeds = rows.iter().map(|r| r.seeds).max().unwrap_or(0);
    let _ = writeln!(md, "{BEGIN}");
    let _ = writeln!(
        md,
        "## Budgets: executions to the first violation over {seeds} seeds\n"
    );
    let _ = writeln!(
        md,
        "For every violating case, under random and PCT at `check`'s default budget: the \
         executions each of seeds 0..{seeds} needed to break the case (any expected \
         invariant) and each expected invariant watched alone (`check --invariant`). \
         `worst / budget` above 1 means some seed does not break within the budget; a seed \
         that found nothing within ten times the budget shows as `-`. The shuttle suite \
         fails when any of the first 20 seeds misses. Regenerate with \
         `cargo run --release -- bench --budgets`.\n"
    );
    let _ = writeln!(
        md,
        "| scenario | variant | plan | engine | invariant | median | worst | budget | worst / budget | seeds over budget |"
    );
    let _ = writeln!(md, "|---|---|---|---|---|---|---|---|---|---|");
    for r in rows {
        let mut found: Vec<usize> = r.firsts.iter().flatten().copied().collect();
        found.sort_unstable();
        let median = found
            .get(found.len() / 2)
            .map_or("-".into(), |n| n.to_string());
        let (worst, ratio) = match r.worst() {
            Some(w) => (
                w.to_string(),
                format!("{:.2}", w as f64 / r.budget.max(1) as f64),
            ),
            None => ("-".into(), "-".into()),
        };
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {median} | {worst} | {} | {ratio} | {} |",
            r.scenario,
            r.variant,
            r.plan,
            r.engine,
            r.invariant.as_deref().unwrap_or("(any)"),
            r.budget,
            r.over_budget()
        );
    }
    let _ = writeln!(md, "{END}");
    md
}

/// `results` with its budgets section replaced by `section` (or `section` appended).
pub fn splice(results: &str, section: &str) -> String {
    match (results.find(BEGIN), results.find(END)) {
        (Some(b), Some(e)) if e > b => {
            format!(
                "{}{}{}",
                &results[..b],
                section.trim_end(),
                &results[e + END.len()..]
            )
        }
        _ => format!("{}\n\n{section}", results.trim_end()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(firsts: Vec<Option<usize>>) -> Budget {
        Budget {
            scenario: "s".into(),
            variant: "v".into(),
            plan: "p".into(),
            engine: "pct".into(),
            invariant: None,
            budget: 10,
            seeds: firsts.len() as u64,
            firsts,
        }
    }

    #[test]
    fn the_worst_seed_and_the_seeds_over_budget() {
        let r = row(vec![Some(3), Some(12), Some(9)]);
        assert_eq!(r.worst(), Some(12));
        assert_eq!(r.over_budget(), 1);
        let missed = row(vec![Some(3), None]);
        assert_eq!(missed.worst(), None);
        assert_eq!(missed.over_budget(), 1);
        assert!(render(&[missed]).contains("| 3 | - | 10 | - | 1 |"));
    }

    #[test]
    fn the_section_is_replaced_in_place_or_appended() {
        let section = format!("{BEGIN}\nnew\n{END}\n");
        let old = format!("head\n{BEGIN}\nold\n{END}\ntail\n");
        assert_eq!(
            splice(&old, &section),
            format!("head\n{BEGIN}\nnew\n{END}\ntail\n")
        );
        assert_eq!(splice("head\n", &section), format!("head\n\n{section}"));
    }
}
