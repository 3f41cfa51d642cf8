//! The `ozone-ha-check` command line.

use clap::{Args, Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use ozone_ha_check::counterexample::Counterexample;
use ozone_ha_check::explore::{explore, minimize, ExploreError, Report, Request};
use ozone_ha_check::present;
use ozone_ha_check::scenario::{self, Scenario};
use ozone_ha_check::sync::drive::{available_engines, build_hint, Schedule, Strategy};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

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
    /// Explore like `check` and print the whole matrix as Markdown, JSON or HTML.
    Report(ReportArgs),
    /// Measure the engines of this build (a JSON part), or merge parts into bench/RESULTS.md.
    Bench(BenchArgs),
    /// Check the cited Java methods against an Ozone (and Ratis) checkout.
    Cite(CiteArgs),
}

#[derive(Args)]
struct BenchArgs {
    /// Scenarios to measure (default: all).
    scenarios: Vec<String>,
    /// Seeds per violating case for random and PCT.
    #[arg(long, default_value_t = 100)]
    seeds: u64,
    /// Executions a seed may spend looking for a violation.
    #[arg(long, default_value_t = 100_000)]
    max_executions: usize,
    /// Executions timed for executions per second and PCT's hit rate.
    #[arg(long, default_value_t = 2_000)]
    rate_executions: usize,
    /// Seconds each loom or DFS exhaustion may take.
    #[arg(long, default_value_t = 60.0)]
    time_box: f64,
    /// Runs of each case on real threads.
    #[arg(long, default_value_t = 10_000)]
    thread_runs: usize,
    /// Sizes for the scaling figures, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "1,2,3,4,5")]
    sizes: Vec<usize>,
    /// Stop measuring new cases after this many seconds in all.
    #[arg(long, value_name = "SECONDS")]
    time_budget: Option<f64>,
    /// Write the part here instead of stdout.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Merge these parts (from each build) into RESULTS.md, results.json and SVG plots.
    #[arg(long, value_name = "PART", num_args = 1..)]
    merge: Vec<PathBuf>,
    /// Where `--merge` writes.
    #[arg(long, default_value = "bench")]
    results_dir: PathBuf,
    /// No progress on stderr.
    #[arg(long)]
    quiet: bool,
}

/// How to print counterexamples.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum TraceFormat {
    /// A timeline, one lane per actor, 100 columns wide.
    Text,
    /// A Mermaid sequence diagram in a Markdown code block.
    Mermaid,
    /// The counterexample JSON schema (`ozone-ha-check/counterexample/v1`).
    Json,
}

#[derive(Args)]
struct ExploreArgs {
    /// Scenarios to check (default: all).
    scenarios: Vec<String>,
    /// Only this variant.
    #[arg(long)]
    variant: Option<String>,
    /// Only this plan.
    #[arg(long)]
    plan: Option<String>,
    /// Engine: random, pct or dfs (default build), loom (--cfg loom), threads (--cfg
    /// ohc_threads). Default: random and pct, loom, or threads, by build.
    #[arg(long)]
    engine: Option<String>,
    /// Executions per case for random, pct and dfs; runs for threads.
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
    /// Keep counterexamples as found instead of minimizing their context switches.
    #[arg(long)]
    no_minimize: bool,
    /// The scenarios' size knob (see `list`); expectations are stated for the default.
    #[arg(long)]
    size: Option<usize>,
    /// Seeds per case for random and PCT: seed, seed+1, ..., seed+SEEDS-1.
    #[arg(long, default_value_t = 1)]
    seeds: u64,
    /// Run only part I of N (from 0) of the (case, engine, seed) items; the N parts together
    /// are the whole run. Merge their `--json` outputs with `report --merge`.
    #[arg(long, value_name = "I/N", value_parser = parse_shard)]
    shard: Option<(usize, usize)>,
    /// Stop after this many seconds in all, split evenly across the items, and report how
    /// far each exploration got.
    #[arg(long, value_name = "SECONDS")]
    time_budget: Option<f64>,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
}

#[derive(Args)]
struct CheckArgs {
    #[command(flatten)]
    explore: ExploreArgs,
    /// Print one JSON array of reports instead of the table and traces.
    #[arg(long)]
    json: bool,
    /// Format of the counterexamples printed after the table.
    #[arg(long, value_enum, default_value_t = TraceFormat::Text)]
    trace: TraceFormat,
    /// Write every replayable counterexample to this directory as a regression fixture.
    #[arg(long, value_name = "DIR")]
    save: Option<PathBuf>,
}

#[derive(Args)]
struct ReportArgs {
    #[command(flatten)]
    explore: ExploreArgs,
    /// Do not explore: merge these JSON outputs of `check --json` or `report --format json`
    /// (from shards, say) into one report.
    #[arg(long, value_name = "FILE", num_args = 1..)]
    merge: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ReportFormat::Md)]
    format: ReportFormat,
}

/// Formats of the whole-matrix report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum ReportFormat {
    /// Markdown, with Mermaid counterexamples.
    Md,
    /// One JSON array of reports.
    Json,
    /// A self-contained HTML page.
    Html,
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
    /// The schedule, or a file holding it (a schedule, or a saved counterexample).
    #[arg(long)]
    schedule: String,
    /// Report only this invariant.
    #[arg(long)]
    invariant: Option<String>,
    /// Format of the trace.
    #[arg(long, value_enum, default_value_t = TraceFormat::Text)]
    trace: TraceFormat,
    /// The size knob the schedule was recorded at.
    #[arg(long)]
    size: Option<usize>,
}

fn parse_shard(text: &str) -> Result<(usize, usize), String> {
    let (i, n) = text
        .split_once('/')
        .ok_or_else(|| format!("`{text}` is not I/N"))?;
    let (i, n): (usize, usize) = (
        i.parse().map_err(|_| format!("`{i}` is not a number"))?,
        n.parse().map_err(|_| format!("`{n}` is not a number"))?,
    );
    if n == 0 || i >= n {
        return Err(format!("shard {i}/{n}: need 0 <= I < N"));
    }
    Ok((i, n))
}

/// A usage error: exit 2 with a message.
struct Usage(String);

/// Print to stdout; a closed pipe (`| head`) ends the output quietly instead of panicking.
fn emit(text: &str) {
    let mut out = std::io::stdout().lock();
    if out
        .write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .is_err()
    {
        std::process::exit(0);
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::List { json } => {
            if json {
                emit(&format!("{:#}\n", present::listing_json(scenario::all())));
            } else {
                emit(&present::listing(scenario::all()));
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Check(args) => check(&args),
        Command::Replay(args) => replay(&args),
        Command::Report(args) => report(&args),
        Command::Bench(args) => bench(&args),
        Command::Cite(args) => cite(&args),
    };
    result.unwrap_or_else(|Usage(message)| {
        eprintln!("error: {message}");
        ExitCode::from(2)
    })
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

fn strategies(args: &ExploreArgs) -> Result<Vec<Strategy>, Usage> {
    let mut all = Vec::new();
    for seed in args.seed..args.seed.saturating_add(args.seeds.max(1)) {
        for strategy in strategies_for_seed(args, seed)? {
            // Seeds mean nothing to loom, DFS and threads: one item each.
            if seed == args.seed
                || matches!(strategy, Strategy::Random { .. } | Strategy::Pct { .. })
            {
                all.push(strategy);
            }
        }
    }
    Ok(all)
}

fn strategies_for_seed(args: &ExploreArgs, seed: u64) -> Result<Vec<Strategy>, Usage> {
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
                seed,
                executions: args.executions.unwrap_or(2_000),
            },
            "pct" => Strategy::Pct {
                seed,
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

/// Run every selected case; `Err` is a usage error, `Ok(None)` an engine failure already
/// reported on stderr.
fn explore_all(args: &ExploreArgs) -> Result<Option<Vec<Report>>, Usage> {
    let scenarios = selected_scenarios(&args.scenarios)?;
    let strategies = strategies(args)?;
    known_name(&scenarios, "variant", args.variant.as_deref(), |i| {
        i.variants.iter().map(|d| d.name).collect()
    })?;
    known_name(&scenarios, "plan", args.plan.as_deref(), |i| {
        i.plans.iter().map(|d| d.name).collect()
    })?;
    known_name(&scenarios, "invariant", args.invariant.as_deref(), |i| {
        i.invariants.iter().map(|d| d.name).collect()
    })?;
    let mut jobs = Vec::new();
    for s in &scenarios {
        let info = s.info();
        if let Some(i) = &args.invariant {
            if info.invariant(i).is_none() {
                continue;
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
    if let Some((i, n)) = args.shard {
        jobs = jobs
            .into_iter()
            .enumerate()
            .filter(|(k, _)| k % n == i)
            .map(|(_, job)| job)
            .collect();
    }
    if jobs.is_empty() {
        return Err(Usage(
            "no case matches the scenario, variant, plan and invariant given; see `ozone-ha-check list`".into(),
        ));
    }
    let bar = Progress::new(jobs.len() as u64, args.quiet);
    let share = args
        .time_budget
        .filter(|b| b.is_finite() && *b > 0.0)
        .map(|b| Duration::from_secs_f64(b / jobs.len() as f64));
    if args.time_budget.is_some() && share.is_none() {
        return Err(Usage(
            "--time-budget takes a positive number of seconds".into(),
        ));
    }
    let mut reports = Vec::new();
    for (s, v, p, strategy) in jobs {
        bar.show(format!(
            "{} {v} {p} {}",
            s.info().name,
            strategy.engine_name()
        ));
        let deadline = share.map(|d| Instant::now() + d);
        let request = Request::new(v, p, strategy.clone())
            .stop_at_first(!matches!(strategy, Strategy::Threads { .. }))
            .watch(args.invariant.as_deref())
            .size(args.size)
            .deadline(deadline);
        let found = explore(s, &request).and_then(|r| {
            if args.no_minimize {
                Ok(r)
            } else {
                minimize(s, &r)
            }
        });
        match found {
            Ok(r) => {
                reports.push(r);
                bar.advance();
            }
            Err(ExploreError::Usage(m)) => {
                bar.done();
                return Err(Usage(m));
            }
            Err(e) => {
                bar.done();
                eprintln!("error: {} {v} {p}: {e}", s.info().name);
                return Ok(None);
            }
        }
    }
    bar.done();
    Ok(Some(reports))
}

/// Check that `given` names something of at least one selected scenario.
fn known_name(
    scenarios: &[&'static dyn Scenario],
    kind: &str,
    given: Option<&str>,
    names: impl Fn(&scenario::Info) -> Vec<&'static str>,
) -> Result<(), Usage> {
    let Some(given) = given else {
        return Ok(());
    };
    let mut known: Vec<&str> = scenarios.iter().flat_map(|s| names(s.info())).collect();
    known.sort_unstable();
    known.dedup();
    if known.contains(&given) {
        Ok(())
    } else {
        Err(Usage(format!(
            "unknown {kind} `{given}`; known: {}",
            known.join(", ")
        )))
    }
}

/// A progress bar on stderr that appears once a run has taken a second, and never when
/// stderr is not a terminal or `--quiet` is given.
struct Progress {
    bar: ProgressBar,
    started: Instant,
    enabled: bool,
}

impl Progress {
    fn new(len: u64, quiet: bool) -> Self {
        let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::hidden());
        if let Ok(style) =
            ProgressStyle::with_template("{bar:30} {pos}/{len} cases {elapsed} {msg}")
        {
            bar.set_style(style);
        }
        Self {
            bar,
            started: Instant::now(),
            enabled: !quiet && std::io::stderr().is_terminal(),
        }
    }

    fn show(&self, message: String) {
        self.bar.set_message(message);
        if self.enabled && self.bar.is_hidden() && self.started.elapsed() > Duration::from_secs(1) {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
            self.bar.enable_steady_tick(Duration::from_millis(200));
        }
    }

    fn advance(&self) {
        self.bar.inc(1);
    }

    fn done(&self) {
        self.bar.finish_and_clear();
    }
}

fn exit_for(reports: &[Report]) -> ExitCode {
    let mismatches = reports.iter().filter(|r| !r.as_expected()).count();
    if mismatches == 0 {
        ExitCode::SUCCESS
    } else {
        eprintln!("{mismatches} verdict(s) differ from their expectation");
        ExitCode::from(1)
    }
}

fn print_counterexample(r: &Report, format: TraceFormat) {
    match format {
        TraceFormat::Text => emit(&format!("\n{}", present::counterexample(r))),
        TraceFormat::Mermaid => emit(&format!("\n{}", present::counterexample_mermaid(r))),
        TraceFormat::Json => {
            if let Some(c) = Counterexample::from_report(r) {
                emit(&c.to_json());
            }
        }
    }
}

fn check(args: &CheckArgs) -> Result<ExitCode, Usage> {
    let Some(reports) = explore_all(&args.explore)? else {
        return Ok(ExitCode::from(1));
    };
    if let Some(dir) = &args.save {
        save(dir, &reports)?;
    }
    if args.json {
        emit(&format!("{:#}\n", present::reports_json(&reports)));
    } else {
        emit(&present::table(&reports));
        for r in reports.iter().filter(|r| r.invariant.is_some()) {
            print_counterexample(r, args.trace);
        }
    }
    Ok(exit_for(&reports))
}

fn save(dir: &Path, reports: &[Report]) -> Result<(), Usage> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Usage(format!("cannot create `{}`: {e}", dir.display())))?;
    for c in reports.iter().filter_map(Counterexample::from_report) {
        if c.schedule.is_none() {
            eprintln!(
                "not saved (no replayable schedule under {}): {}",
                c.engine,
                c.file_name()
            );
            continue;
        }
        let path = dir.join(c.file_name());
        std::fs::write(&path, c.to_json())
            .map_err(|e| Usage(format!("cannot write `{}`: {e}", path.display())))?;
        eprintln!("saved {}", path.display());
    }
    Ok(())
}

fn report(args: &ReportArgs) -> Result<ExitCode, Usage> {
    let reports = if args.merge.is_empty() {
        let Some(reports) = explore_all(&args.explore)? else {
            return Ok(ExitCode::from(1));
        };
        reports
    } else {
        merge(&args.merge)?
    };
    emit(&match args.format {
        ReportFormat::Md => present::markdown_report(&reports),
        ReportFormat::Json => format!("{:#}\n", present::reports_json(&reports)),
        ReportFormat::Html => present::html_report(&reports),
    });
    Ok(exit_for(&reports))
}

/// Read and concatenate JSON arrays of reports.
fn merge(files: &[PathBuf]) -> Result<Vec<Report>, Usage> {
    let mut reports = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(file)
            .map_err(|e| Usage(format!("cannot read `{}`: {e}", file.display())))?;
        let part: Vec<Report> = serde_json::from_str(&text).map_err(|e| {
            Usage(format!(
                "`{}` is not a JSON array of reports (from `check --json`): {e}",
                file.display()
            ))
        })?;
        reports.extend(part);
    }
    Ok(reports)
}

/// The schedule of `--schedule`: a literal, a schedule file, or a saved counterexample.
fn read_schedule(arg: &str) -> Result<Schedule, Usage> {
    let text = if arg.trim_start().starts_with("v1:") {
        arg.to_string()
    } else {
        let contents = std::fs::read_to_string(arg)
            .map_err(|e| Usage(format!("cannot read schedule file `{arg}`: {e}")))?;
        if contents.trim_start().starts_with('{') {
            let c = Counterexample::parse(&contents).map_err(Usage)?;
            c.schedule
                .ok_or_else(|| Usage(format!("`{arg}` holds no replayable schedule")))?
        } else {
            contents
        }
    };
    Schedule::parse(&text).map_err(|e| Usage(e.to_string()))
}

fn replay(args: &ReplayArgs) -> Result<ExitCode, Usage> {
    let s = selected_scenarios(std::slice::from_ref(&args.scenario))?[0];
    if !available_engines().contains(&"replay") {
        return Err(Usage(format!(
            "replay needs the default (shuttle) build: {} replay ...",
            build_hint("replay")
        )));
    }
    let schedule = read_schedule(&args.schedule)?;
    let request = Request::new(&args.variant, &args.plan, Strategy::Replay { schedule })
        .watch(args.invariant.as_deref())
        .size(args.size);
    let report = match explore(s, &request) {
        Ok(report) => report,
        Err(ExploreError::Usage(m)) => return Err(Usage(m)),
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::from(1));
        }
    };
    if report.invariant.is_some() {
        print_counterexample(&report, args.trace);
    } else {
        emit(&format!(
            "the schedule ran to the end with every invariant holding ({})\n",
            report.verdict.word()
        ));
    }
    Ok(ExitCode::SUCCESS)
}

fn seconds(value: f64, flag: &str) -> Result<Duration, Usage> {
    if value.is_finite() && value > 0.0 {
        Ok(Duration::from_secs_f64(value))
    } else {
        Err(Usage(format!("{flag} takes a positive number of seconds")))
    }
}

fn bench(args: &BenchArgs) -> Result<ExitCode, Usage> {
    if !args.merge.is_empty() {
        let mut rows = Vec::new();
        for file in &args.merge {
            let text = std::fs::read_to_string(file)
                .map_err(|e| Usage(format!("cannot read `{}`: {e}", file.display())))?;
            let part: Vec<ozone_ha_check::bench::Row> = serde_json::from_str(&text)
                .map_err(|e| Usage(format!("`{}` is not a bench part: {e}", file.display())))?;
            rows.extend(part);
        }
        let written =
            ozone_ha_check::bench::write_results(&args.results_dir, &rows).map_err(Usage)?;
        for name in written {
            eprintln!("wrote {}", args.results_dir.join(name).display());
        }
        return Ok(ExitCode::SUCCESS);
    }
    for name in &args.scenarios {
        selected_scenarios(std::slice::from_ref(name))?;
    }
    let settings = ozone_ha_check::bench::Settings {
        seeds: args.seeds.max(1),
        max_executions: args.max_executions.max(1),
        ci_budget: 2_000,
        rate_executions: args.rate_executions.max(1),
        time_box: seconds(args.time_box, "--time-box")?,
        thread_runs: args.thread_runs.max(1),
        sizes: args.sizes.clone(),
        scenarios: args.scenarios.clone(),
        deadline: match args.time_budget {
            Some(b) => Some(Instant::now() + seconds(b, "--time-budget")?),
            None => None,
        },
    };
    let started = Instant::now();
    let quiet = args.quiet;
    let rows = ozone_ha_check::bench::measure(&settings, &|what| {
        if !quiet {
            eprintln!("[{:>6.1}s] {what}", started.elapsed().as_secs_f64());
        }
    });
    let json = serde_json::to_string_pretty(&rows).unwrap_or_default() + "\n";
    match &args.out {
        Some(path) => std::fs::write(path, json)
            .map_err(|e| Usage(format!("cannot write `{}`: {e}", path.display())))?,
        None => emit(&json),
    }
    Ok(ExitCode::SUCCESS)
}

// ---- cite: the citations of Java methods, checked against a checkout ----

#[derive(Args)]
struct CiteArgs {
    /// The Ozone source tree (a clone of apache/ozone).
    #[arg(long, value_name = "DIR")]
    ozone: PathBuf,
    /// The Ratis source tree; without it Ratis citations are not checked.
    #[arg(long, value_name = "DIR")]
    ratis: Option<PathBuf>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
    /// Rewrite the manifest's fingerprints and pinned commits from the (clean) checkouts.
    #[arg(long)]
    record: bool,
    /// The manifest (default: the one built in; `--record` writes citations.toml of this
    /// crate).
    #[arg(long, value_name = "PATH")]
    manifest: Option<PathBuf>,
    /// Executions per case when finding which cases use a changed or missing citation.
    #[arg(long, default_value_t = 50)]
    usage_executions: usize,
}

/// Exit 0 when every citation is unchanged, moved or not checked, 1 when one changed or is
/// missing, 2 when a directory is not the source tree it should be or the manifest is
/// unreadable.
fn cite(args: &CiteArgs) -> Result<ExitCode, Usage> {
    use ozone_ha_check::cite::{self, render, CiteError};
    let failed = |e: CiteError| match e {
        CiteError::Unresolved { .. } => {
            eprintln!("error: {e}");
            Ok(ExitCode::from(1))
        }
        other => Err(Usage(other.to_string())),
    };
    if args.record {
        let path = args
            .manifest
            .clone()
            .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("citations.toml"));
        return match cite::record(&path, &args.ozone, args.ratis.as_deref()) {
            Ok(recorded) => {
                emit(&format!("wrote {}\n{recorded}", path.display()));
                Ok(ExitCode::SUCCESS)
            }
            Err(e) => failed(e),
        };
    }
    let manifest = match cite::load_manifest(args.manifest.as_deref()) {
        Ok(m) => m,
        Err(e) => return failed(e),
    };
    let report = match cite::check(&manifest, &args.ozone, args.ratis.as_deref()) {
        Ok(r) => r,
        Err(e) => return failed(e),
    };
    // Which cases use a citation is found by exploring every case: only worth it when
    // something changed.
    let usage = if report.clean() {
        None
    } else {
        match cite::usage_from_traces(args.usage_executions, 0) {
            Ok(u) => Some(u),
            Err(e) => {
                eprintln!("note: the cases using each citation are not listed: {e}");
                None
            }
        }
    };
    if args.json {
        emit(&format!("{:#}\n", render::json(&report, usage.as_ref())));
    } else {
        emit(&render::text(&report, usage.as_ref()));
    }
    Ok(if report.clean() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
