//! Figures for the closing notes and the README: executions to the first violation over many
//! seeds (random, PCT), loom's failing execution and smallest preemption bound, loom's
//! exhaustion of the fixed variants, and real-thread violation counts. A benchmark, not a
//! test: it prints numbers and asserts nothing.
//!
//! ```sh
//! cargo run --release --example figures [SEEDS]
//! RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom cargo run --release --example figures
//! RUSTFLAGS="--cfg ohc_threads" CARGO_TARGET_DIR=target/threads cargo run --release --example figures
//! ```

use ozone_ha_check::explore::{explore, Report, Request};
use ozone_ha_check::scenario::{all, Expected, Scenario};
use ozone_ha_check::sync::drive::Strategy;

fn run(s: &dyn Scenario, v: &str, p: &str, strategy: Strategy, stop: bool) -> Option<Report> {
    let request = Request::new(v, p, strategy).stop_at_first(stop);
    match explore(s, &request) {
        Ok(r) => Some(r),
        Err(e) => {
            eprintln!("{} {v} {p}: {e}", s.info().name);
            None
        }
    }
}

fn stats(mut xs: Vec<usize>) -> String {
    if xs.is_empty() {
        return "never".into();
    }
    xs.sort_unstable();
    format!("median {}, worst {}", xs[xs.len() / 2], xs[xs.len() - 1])
}

fn main() {
    let seeds: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(100);
    let probe = Strategy::Pct {
        seed: 0,
        depth: 3,
        executions: 1,
    };
    let shuttle = probe.available();
    let loom = (Strategy::Loom {
        preemption_bound: None,
    })
    .available();
    for s in all() {
        let info = s.info();
        for (v, p) in info.cases() {
            let expected = (info.expected)(v, p);
            let label = format!("{} {v:<14} {p:<20}", info.name);
            if shuttle && expected != Expected::Holds {
                for (name, make) in [
                    (
                        "random",
                        &(|seed| Strategy::Random {
                            seed,
                            executions: 100_000,
                        }) as &dyn Fn(u64) -> Strategy,
                    ),
                    ("pct d3", &|seed| Strategy::Pct {
                        seed,
                        depth: 3,
                        executions: 100_000,
                    }),
                ] {
                    let mut firsts = Vec::new();
                    let mut steps = Vec::new();
                    for seed in 0..seeds {
                        if let Some(r) = run(*s, v, p, make(seed), true) {
                            if let Some(n) = r.first_violation {
                                firsts.push(n);
                                steps.push(r.trace.len());
                            }
                        }
                    }
                    println!(
                        "{label} {name:<7} first violation over {seeds} seeds: {} ({} found); trace steps: {}",
                        stats(firsts.clone()),
                        firsts.len(),
                        stats(steps)
                    );
                }
            }
            if loom {
                if expected == Expected::Holds {
                    for bound in [2, 3] {
                        if let Some(r) = run(
                            *s,
                            v,
                            p,
                            Strategy::Loom {
                                preemption_bound: Some(bound),
                            },
                            true,
                        ) {
                            println!(
                                "{label} loom bound {bound}: {} executions, exhausted {}, {} ms, verdict {}",
                                r.executions, r.exhausted, r.elapsed_ms, r.verdict.word()
                            );
                        }
                    }
                } else {
                    for bound in 0..=3 {
                        let Some(r) = run(
                            *s,
                            v,
                            p,
                            Strategy::Loom {
                                preemption_bound: Some(bound),
                            },
                            true,
                        ) else {
                            continue;
                        };
                        if let Some(n) = r.first_violation {
                            println!(
                                "{label} loom: smallest bound {bound}, failing execution {n}, {} ms, {} trace steps",
                                r.elapsed_ms,
                                r.trace.len()
                            );
                            break;
                        }
                    }
                }
            }
            if !shuttle && !loom {
                if let Some(r) = run(*s, v, p, Strategy::Threads { runs: 10_000 }, false) {
                    println!(
                        "{label} threads: {} violations in {} runs, {} ms",
                        r.violations, r.executions, r.elapsed_ms
                    );
                }
            }
        }
    }
}
