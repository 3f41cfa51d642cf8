//! The `ozone-ha-check` command line.

use clap::{Args, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use ozone_ha_check::explore::{explore, ExploreError, Report, Request};
use ozone_ha_check::present;
use ozone_ha_check::scenario::{self, Scenario};
use ozone_ha_check::sync::drive::{available_engines, build_hint, Schedule, Strategy};
use std::io::IsTerminal;
use std::process::ExitCode;

/// Schedule-exploration checks of Apache Ozone's OM/SCM persistence races.
#[derive(Parser)]
#[command(name = "ozone-ha-check", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List scenarios, variants, plans, invariants, probes and expected verdicts.
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Explore scenarios and compare every verdict with its expectation.
    Check(CheckArgs),
    /// Re-run one recorded schedule and print its trace.
    Replay(ReplayArgs),
}

#[derive(Args)]
struct CheckArgs {
    /// Scenarios to check (default: all).
    scenarios: Vec<String>,
    /// Only this variant.
    #[arg(long)]
    variant: Option<String>,
    /// Only this plan.
    #[arg(long)]
    plan: Option<String>,
    /// Engine: random, pct or dfs (default build), loom (--cfg loom), threads (--cfg
    /// ohc_threads). Default: every engine of this build.
    #[arg(long)]
    engine: Option<String>,
    /// Executions per (variant, plan) for random, pct and dfs; runs for threads.
    #[arg(long)]
    executions: Option<usize>,
    /// Seed of the random and PCT schedulers.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// PCT bug depth.
    #[arg(long, default_value_t = 3)]
    depth: usize,
    /// loom's preemption bound (LOOM_MAX_PREEMPTIONS); 0 means unbounded.
    #[arg(long, default_value_t = 2)]
    preemption_bound: usize,
    /// Watch only this invariant: explore until it breaks.
    #[arg(long)]
    invariant: Option<String>,
    /// Print one JSON array instead of the table and traces.
    #[arg(long)]
    json: bool,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
}

#[derive(Args)]
struct ReplayArgs {
    /// The scenario.
    scenario: String,
    /// The variant.
    #[arg(long)]
    variant: String,
    /// The plan.
    #[arg(long)]
    plan: String,
    /// The schedule, or a file holding it.
    #[arg(long)]
    schedule: String,
    /// Report only this invariant.
    #[arg(long)]
    invariant: Option<String>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

/// A usage error: exit 2 with a message.
struct Usage(String);

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::List { json } => {
            list(json);
            Ok(ExitCode::SUCCESS)
        }
        Command::Check(args) => check(&args),
        Command::Replay(args) => replay(&args),
    };
    result.unwrap_or_else(|Usage(message)| {
        eprintln!("error: {message}");
        ExitCode::from(2)
    })
}

fn list(json: bool) {
    if json {
        println!("{:#}", present::listing_json(scenario::all()));
    } else {
        print!("{}", present::listing(scenario::all()));
    }
}

fn selected_scenarios(names: &[String]) -> Result<Vec<&'static dyn Scenario>, Usage> {
    if names.is_empty() {
        return Ok(scenario::all().to_vec());
    }
    names
        .iter()
        .map(|n| {
            scenario::find(n).ok_or_else(|| {
                let known: Vec<&str> = scenario::all().iter().map(|s| s.info().name).collect();
                Usage(format!(
                    "unknown scenario `{n}`; known: {}",
                    known.join(", ")
                ))
            })
        })
        .collect()
}

const ALL_ENGINES: &[&str] = &["random", "pct", "dfs", "loom", "threads"];

fn strategies(args: &CheckArgs) -> Result<Vec<Strategy>, Usage> {
    let engines: Vec<&str> = match &args.engine {
        Some(e) if !ALL_ENGINES.contains(&e.as_str()) => {
            return Err(Usage(format!(
                "unknown engine `{e}`; known: {}",
                ALL_ENGINES.join(", ")
            )))
        }
        Some(e) if !available_engines().contains(&e.as_str()) => {
            return Err(Usage(format!(
                "engine `{e}` is not in this build; build it with: {} check --engine {e}",
                build_hint(e)
            )))
        }
        Some(e) => vec![e.as_str()],
        None => available_engines()
            .iter()
            .copied()
            .filter(|e| *e != "replay" && *e != "dfs")
            .collect(),
    };
    Ok(engines
        .into_iter()
        .map(|e| match e {
            "random" => Strategy::Random {
                seed: args.seed,
                executions: args.executions.unwrap_or(2_000),
            },
            "pct" => Strategy::Pct {
                seed: args.seed,
                depth: args.depth,
                executions: args.executions.unwrap_or(2_000),
            },
            "dfs" => Strategy::Dfs {
                executions: args.executions.unwrap_or(20_000),
            },
            "loom" => Strategy::Loom {
                preemption_bound: (args.preemption_bound > 0).then_some(args.preemption_bound),
            },
            _ => Strategy::Threads {
                runs: args.executions.unwrap_or(10_000),
            },
        })
        .collect())
}

fn check(args: &CheckArgs) -> Result<ExitCode, Usage> {
    let scenarios = selected_scenarios(&args.scenarios)?;
    let strategies = strategies(args)?;
    let mut jobs = Vec::new();
    for s in &scenarios {
        let info = s.info();
        if let Some(v) = &args.variant {
            scenario::check_name("variant", v, info.variants).map_err(Usage)?;
        }
        if let Some(p) = &args.plan {
            scenario::check_name("plan", p, info.plans).map_err(Usage)?;
        }
        if let Some(i) = &args.invariant {
            if info.invariant(i).is_none() {
                return Err(Usage(format!("unknown invariant `{i}` for {}", info.name)));
            }
        }
        for (v, p) in info.cases() {
            if args.variant.as_deref().is_some_and(|x| x != v)
                || args.plan.as_deref().is_some_and(|x| x != p)
            {
                continue;
            }
            for strategy in &strategies {
                jobs.push((*s, v, p, strategy.clone()));
            }
        }
    }
    let bar = progress(jobs.len() as u64, args.quiet);
    let mut reports: Vec<Report> = Vec::new();
    for (s, v, p, strategy) in jobs {
        bar.set_message(format!(
            "{} {v} {p} {}",
            s.info().name,
            strategy.engine_name()
        ));
        let stop_at_first = !matches!(strategy, Strategy::Threads { .. });
        let request = Request {
            variant: v,
            plan: p,
            strategy,
            watch: args.invariant.as_deref(),
            stop_at_first,
        };
        match explore(s, &request) {
            Ok(r) => reports.push(r),
            Err(e) => {
                bar.finish_and_clear();
                eprintln!("error: {} {v} {p}: {e}", s.info().name);
                return Ok(ExitCode::from(1));
            }
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    if args.json {
        println!("{:#}", present::reports_json(&reports));
    } else {
        print!("{}", present::table(&reports));
        for r in reports.iter().filter(|r| r.invariant.is_some()) {
            println!();
            print!("{}", present::counterexample(r));
        }
    }
    let all_match = reports.iter().all(Report::as_expected);
    if !all_match && !args.json {
        let n = reports.iter().filter(|r| !r.as_expected()).count();
        eprintln!("{n} verdict(s) differ from their expectation");
    }
    Ok(if all_match {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn progress(len: u64, quiet: bool) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template("{bar:30} {pos}/{len} {elapsed} {msg}") {
        bar.set_style(style);
    }
    bar
}

fn replay(args: &ReplayArgs) -> Result<ExitCode, Usage> {
    let s = selected_scenarios(std::slice::from_ref(&args.scenario))?[0];
    if !available_engines().contains(&"replay") {
        return Err(Usage(format!(
            "replay needs the default (shuttle) build: {} replay ...",
            build_hint("replay")
        )));
    }
    let text = match std::fs::read_to_string(&args.schedule) {
        Ok(contents) => contents,
        Err(_) if args.schedule.trim_start().starts_with("v1:") => args.schedule.clone(),
        Err(e) => {
            return Err(Usage(format!(
                "cannot read schedule file `{}`: {e}",
                args.schedule
            )))
        }
    };
    let schedule = Schedule::parse(&text).map_err(|e| Usage(e.to_string()))?;
    let request = Request {
        variant: &args.variant,
        plan: &args.plan,
        strategy: Strategy::Replay { schedule },
        watch: args.invariant.as_deref(),
        stop_at_first: true,
    };
    let report = match explore(s, &request) {
        Ok(report) => report,
        Err(ExploreError::Usage(m)) => return Err(Usage(m)),
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::from(1));
        }
    };
    if args.json {
        println!("{:#}", present::report_json(&report));
    } else if report.invariant.is_some() {
        print!("{}", present::counterexample(&report));
    } else {
        println!(
            "the schedule ran to the end with every invariant holding ({})",
            report.verdict.word()
        );
    }
    Ok(ExitCode::SUCCESS)
}
