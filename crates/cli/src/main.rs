//! The `ozone-ha-check` command line: flag definitions and dispatch. What to run is planned
//! by [`ozone_ha_check::jobs`]; what it prints comes from [`ozone_ha_check_cli::present`].
//!
//! Exit codes: 0 every verdict as expected, 1 a verdict that is not (or a model, engine or
//! I/O failure, with the path), 2 bad usage.

use clap::{Args, Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use ozone_ha_check::citation::{CiteError, Links};
use ozone_ha_check::counterexample::Counterexample;
use ozone_ha_check::engine::{Engine, PreemptionBound, Schedule, Strategy};
use ozone_ha_check::explore::{explore, Report, Request};
use ozone_ha_check::jobs::{self, PlanError, Selection, Shard};
use ozone_ha_check::scenarios;
use ozone_ha_check_cite as cite;
use ozone_ha_check_cli::engines::EngineArg;
use ozone_ha_check_cli::present;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

mod scaffold;

/// Schedule-exploration checks of Apache Ozone's OM/SCM persistence races.
#[derive(Parser)]
#[command(name = "ozone-ha-check", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List scenarios, variants, plans, properties and expected verdicts.
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
        /// Print only the scenario names, one per line.
        #[arg(long, conflicts_with = "json")]
        names: bool,
        /// Print the engine table instead: what each engine is and can do, and which this
        /// build has.
        #[arg(long, conflicts_with = "names")]
        engines: bool,
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
    /// Write a new scenario's skeleton and register it: `new hdds-12345`.
    New(scaffold::NewArgs),
}

#[derive(Args)]
struct BenchArgs {
    /// Scenarios to measure (default: all).
    scenarios: Vec<String>,
    /// Seeds per violating case for random and PCT (default: 100; 20 with --budgets).
    #[arg(long)]
    seeds: Option<u64>,
    /// Executions a seed may spend looking for a violation.
    #[arg(long, default_value_t = 100_000)]
    max_executions: usize,
    /// Measure only whether `check`'s default budgets break every violating case under each
    /// seed, and write that section of RESULTS.md (and budgets.json) in --results-dir.
    #[arg(long)]
    budgets: bool,
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
    /// An SVG sequence diagram.
    Svg,
    /// A bug report in Jira's markup: the affected Java methods linked at the pinned commit,
    /// the steps numbered by thread, the invariant and its harm, the replay command.
    Jira,
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
    /// Engine (`list --engines` prints what each can do). Default: the engines of this build
    /// that `check` runs: random and pct, loom, or threads.
    #[arg(long, value_enum)]
    engine: Option<EngineArg>,
    /// Executions per case for random, pct, dfs and stateful (a limit for the last two); runs
    /// for threads.
    #[arg(long)]
    executions: Option<usize>,
    /// Seed of the random and PCT schedulers.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// PCT bug depth, of the pct engine and of the stateful engine's PCT walk (default: the
    /// plan's, 3 unless the scenario gives the plan its own).
    #[arg(long)]
    depth: Option<usize>,
    /// loom's preemption bound: a number (0: no preemptions at all), or `none` for no bound.
    /// Default: LOOM_MAX_PREEMPTIONS if set, else 2.
    #[arg(long, value_name = "N|none", value_parser = PreemptionBound::parse)]
    preemption_bound: Option<PreemptionBound>,
    /// Watch only this invariant: explore until it breaks.
    #[arg(long)]
    invariant: Option<String>,
    /// Keep counterexamples as found instead of minimizing their context switches.
    #[arg(long)]
    no_minimize: bool,
    /// With `--engine stateful`: its unbounded search explores source sets (a dynamic
    /// partial-order reduction that keeps no states) instead of every state once. Either
    /// search's `exhausted` covers every interleaving; source sets are faster on most large
    /// cases (README, "Every schedule, without a preemption bound"). Where either search
    /// exhausts a case with a required probe unmet, the search over source sets runs again
    /// with witness cells ordered, until the probe fires (or no interleaving fires it).
    #[arg(long)]
    source_sets: bool,
    /// With `--engine stateful`: run its unbounded search alone, without the bounded passes
    /// and random walks that look for violations first. For proving a fix: a case that
    /// holds is exhausted sooner (in a third of the time in the median over the holding
    /// cases); a violation is reported when met, but the depth-first order can leave one
    /// unmet for a long time.
    #[arg(long)]
    unbounded_only: bool,
    /// The scenarios' size knob (see `list`); expectations are stated for the default.
    #[arg(long)]
    size: Option<usize>,
    /// Requests at most in a generated workload (the `generated` plan; default: each
    /// scenario's vocabulary's bound, see `list`). Runs only generated plans.
    #[arg(long, value_name = "N")]
    requests: Option<usize>,
    /// Faults at most in a generated workload (default: the vocabulary's bound).
    #[arg(long, value_name = "F")]
    faults: Option<usize>,
    /// Seeds per case for random and PCT: seed, seed+1, ..., seed+SEEDS-1.
    #[arg(long, default_value_t = 1)]
    seeds: u64,
    /// Run only part I of N (counting from 1, as `cargo nextest --partition count:I/N`) of
    /// the (case, engine, seed) items; the N parts together are the whole run. The stateful
    /// engine on a generated plan is the exception: every shard runs that case on its own
    /// part of the workloads (cut by the prefix of the draw's choices), so each shard keeps
    /// its own visited states. Merge the shards' `--json` outputs with `report --merge`,
    /// which joins the parts of a case into one verdict.
    #[arg(long, value_name = "I/N", value_parser = Shard::parse)]
    shard: Option<Shard>,
    /// Stop after this many seconds in all, what is left split evenly across the items left
    /// as each starts (in rounds of --jobs items), and report how far each exploration got.
    #[arg(long, value_name = "SECONDS")]
    time_budget: Option<f64>,
    /// Items explored at once, each on its own thread (default: the machine's cores). Each
    /// item is seeded on its own, so the verdicts and counterexamples are the same for any
    /// number; 1 runs them one after another.
    #[arg(long, short = 'j', value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    jobs: Option<u16>,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    /// Mirror every model store to a fresh RocksDB under this directory and check each
    /// write, read and checkpoint against it (feature `rocksdb`).
    #[cfg(feature = "rocksdb")]
    #[arg(long, value_name = "DIR")]
    rocksdb_mirror: Option<PathBuf>,
}

/// The checkouts that give trace links their line ranges.
#[derive(Args)]
struct SourceArgs {
    /// An Ozone checkout at the pinned commit: link each cited Ozone method of the JSON and
    /// SVG outputs to its lines (`#L<first>-L<last>`), not just its file.
    #[arg(long, value_name = "DIR")]
    ozone: Option<PathBuf>,
    /// A Ratis checkout at the pinned commit, for the line ranges of cited Ratis methods.
    #[arg(long, value_name = "DIR")]
    ratis: Option<PathBuf>,
}

impl SourceArgs {
    /// Locate the cited methods in the checkouts given; a warning line on stderr for each
    /// checkout whose lines cannot all be used. A directory that is not the source tree
    /// it is given as is bad usage.
    fn links(&self) -> Result<Links, Failure> {
        let manifest = cite::load_manifest(cite::manifest_path().as_deref())
            .map_err(|e| Failure::Failed(e.to_string()))?;
        let (links, warnings) =
            cite::resolve_links(&manifest, self.ozone.as_deref(), self.ratis.as_deref()).map_err(
                |e| match e {
                    CiteError::NotOzoneTree { .. } | CiteError::NotRatisTree { .. } => {
                        Failure::Usage(e.to_string())
                    }
                    other => Failure::Failed(other.to_string()),
                },
            )?;
        for w in warnings {
            eprintln!("{w}");
        }
        Ok(links)
    }
}

#[derive(Args)]
struct CheckArgs {
    #[command(flatten)]
    explore: ExploreArgs,
    #[command(flatten)]
    sources: SourceArgs,
    /// Print one JSON array of reports instead of the per-case lines.
    #[arg(long)]
    json: bool,
    /// Print every counterexample in this format (default: only those of unexpected
    /// verdicts, as text).
    #[arg(long, value_enum, num_args = 0..=1, default_missing_value = "text")]
    trace: Option<TraceFormat>,
    /// Write every replayable counterexample to this directory as a regression fixture.
    #[arg(long, value_name = "DIR")]
    save: Option<PathBuf>,
    /// Under the stateful engine, after each case's line: the distinct states it met, by
    /// what reached each (the kinds of the operations that the transition which first
    /// reached it recorded), most first. Where a state space comes from. (`--json` always
    /// carries them, as `state_origins`.)
    #[arg(long)]
    explain_states: bool,
}

#[derive(Args)]
struct ReportArgs {
    #[command(flatten)]
    explore: ExploreArgs,
    #[command(flatten)]
    sources: SourceArgs,
    /// Do not explore: merge these JSON outputs of `check --json` or `report --format json`
    /// (from shards, say) into one report.
    #[arg(long, value_name = "FILE", num_args = 1..)]
    merge: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ReportFormat::Md)]
    format: ReportFormat,
    /// Embed the plots and minimization figures of this bench result (bench/results.json)
    /// in the HTML page.
    #[arg(long, value_name = "FILE")]
    bench: Option<PathBuf>,
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
    /// The verdict matrices as one SVG picture.
    SvgMatrix,
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
    /// The workload bounds the schedule was recorded at (a generated plan).
    #[arg(long, value_name = "N")]
    requests: Option<usize>,
    /// The workload bounds the schedule was recorded at (a generated plan).
    #[arg(long, value_name = "F")]
    faults: Option<usize>,
    #[command(flatten)]
    sources: SourceArgs,
}

/// Why a command failed: bad usage (exit 2), or a failure of the model, the engine or the
/// output (exit 1).
enum Failure {
    Usage(String),
    Failed(String),
}

impl From<PlanError> for Failure {
    fn from(e: PlanError) -> Self {
        Failure::Usage(e.to_string())
    }
}

/// Print to stdout. Output that cannot be written (a closed pipe, a full disk) is an I/O
/// failure: exit 1 with a message, never a panic.
fn emit(text: &str) {
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        eprintln!("error: cannot write to standard output: {e}");
        std::process::exit(1);
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::List {
            json,
            names,
            engines,
        } => {
            if engines && json {
                emit(&format!("{:#}\n", ozone_ha_check_cli::engines::json()));
            } else if engines {
                emit(&ozone_ha_check_cli::engines::text());
            } else if json {
                emit(&format!("{:#}\n", present::listing_json(scenarios::all())));
            } else if names {
                for s in scenarios::all() {
                    emit(&format!("{}\n", s.name()));
                }
            } else {
                emit(&present::listing(scenarios::all()));
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Check(args) => check(&args),
        Command::Replay(args) => replay(&args),
        Command::Report(args) => report(&args),
        Command::Bench(args) => bench(&args),
        Command::Cite(args) => cite(&args),
        Command::New(args) => scaffold::new(&args),
    };
    result.unwrap_or_else(|failure| match failure {
        Failure::Usage(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
        Failure::Failed(message) => {
            eprintln!("error: {message}");
            ExitCode::from(1)
        }
    })
}

/// loom's bound: the flag, else `LOOM_MAX_PREEMPTIONS` (read under a loom build only), else 2.
/// The variable is taken out of the environment either way, as loom would read it again.
fn preemption_bound(flag: Option<PreemptionBound>) -> Result<PreemptionBound, Failure> {
    let from_env = PreemptionBound::take_from_env();
    match flag {
        Some(bound) => Ok(bound),
        None => from_env.map_err(Failure::Usage),
    }
}

fn selection(args: &ExploreArgs) -> Result<Selection, Failure> {
    let stateful = args.engine.map(|e| e.0) == Some(Engine::Stateful);
    for (set, flag) in [
        (args.source_sets, "--source-sets"),
        (args.unbounded_only, "--unbounded-only"),
    ] {
        if set && !stateful {
            return Err(Failure::Usage(format!(
                "`{flag}` is a setting of the stateful engine: add `--engine stateful`"
            )));
        }
    }
    Ok(Selection {
        scenarios: args.scenarios.clone(),
        variant: args.variant.clone(),
        plan: args.plan.clone(),
        invariant: args.invariant.clone(),
        engine: args.engine.map(|e| e.0),
        executions: args.executions,
        seed: args.seed,
        seeds: args.seeds,
        depth: args.depth,
        preemption_bound: preemption_bound(args.preemption_bound)?,
        size: args.size,
        requests: args.requests,
        faults: args.faults,
        shard: args.shard,
        time_budget: args.time_budget,
        no_minimize: args.no_minimize,
        sources: args.source_sets,
        unbounded_only: args.unbounded_only,
        workers: args.jobs.map_or_else(
            || std::thread::available_parallelism().map_or(1, usize::from),
            usize::from,
        ),
    })
}

/// Plan and run every selected item; `line` is told each finished case's reports.
fn explore_all(
    args: &ExploreArgs,
    mut line: impl FnMut(&[Report]),
) -> Result<Vec<Report>, Failure> {
    let selection = selection(args)?;
    let jobs = jobs::plan(&selection)?;
    #[cfg(feature = "rocksdb")]
    if let Some(dir) = &args.rocksdb_mirror {
        std::fs::create_dir_all(dir)
            .map_err(|e| Failure::Failed(format!("cannot create `{}`: {e}", dir.display())))?;
        ozone_ha_check::kit::store::install_shadows(Some(
            ozone_ha_check::kit::rocks::Mirror::factory(dir.clone()),
        ));
    }
    let bar = Progress::new(jobs.len() as u64, args.quiet);
    let mut case: Vec<Report> = Vec::new();
    let result = jobs::run(
        &selection,
        &jobs,
        |job| {
            bar.show(format!(
                "{} {}/{} {}",
                job.scenario.name(),
                job.variant,
                job.plan,
                job.strategy.engine()
            ))
        },
        |_, report| {
            bar.advance();
            let same_case = case.last().is_some_and(|c| {
                (&c.scenario, &c.variant, &c.plan)
                    == (&report.scenario, &report.variant, &report.plan)
            });
            if !same_case && !case.is_empty() {
                bar.suspend(|| line(&case));
                case.clear();
            }
            case.push(report.clone());
        },
    );
    if !case.is_empty() {
        bar.suspend(|| line(&case));
    }
    bar.done();
    result.map_err(|e| {
        if e.error.is_usage() {
            Failure::Usage(e.error.to_string())
        } else {
            Failure::Failed(e.to_string())
        }
    })
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
            ProgressStyle::with_template("{bar:30} {pos}/{len} items {elapsed} {msg}")
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

    fn suspend(&self, f: impl FnOnce()) {
        self.bar.suspend(f);
    }

    fn advance(&self) {
        self.bar.inc(1);
    }

    fn done(&self) {
        self.bar.finish_and_clear();
    }
}

fn exit_for(reports: &[Report]) -> ExitCode {
    if reports.iter().all(Report::as_expected) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn counterexample_text(r: &Report, format: TraceFormat, links: &Links) -> String {
    match format {
        TraceFormat::Text => format!("\n{}", present::counterexample(r)),
        TraceFormat::Mermaid => format!("\n{}", present::counterexample_mermaid(r)),
        TraceFormat::Json => Counterexample::from_report(r)
            .map(|c| c.to_json(links))
            .unwrap_or_default(),
        TraceFormat::Svg => present::counterexample_svg(r, links),
        TraceFormat::Jira => format!("\n{}", present::counterexample_jira(r, links)),
    }
}

fn check(args: &CheckArgs) -> Result<ExitCode, Failure> {
    let started = Instant::now();
    let links = args.sources.links()?;
    let json = args.json;
    let reports = explore_all(&args.explore, |case| {
        if !json {
            emit(&format!("{}\n", present::case_line(case)));
            if args.explain_states {
                emit(&present::state_origins(case));
            }
        }
    })?;
    if let Some(dir) = &args.save {
        save(dir, &reports, &links)?;
    }
    if json {
        emit(&format!("{:#}\n", present::reports_json(&reports, &links)));
    } else {
        let (format, all) = match args.trace {
            Some(format) => (format, true),
            None => (TraceFormat::Text, false),
        };
        for r in reports
            .iter()
            .filter(|r| r.invariant.is_some() && (all || !r.as_expected()))
        {
            emit(&counterexample_text(r, format, &links));
        }
        for r in reports.iter().filter(|r| !r.as_expected()) {
            emit(&format!(
                "\nunexpected: {} {}/{} under {}: expected {}{}, got {}\n",
                r.scenario,
                r.variant,
                r.plan,
                r.engine,
                r.expected.word(),
                if r.expected_invariants.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", r.expected_invariants.join(", "))
                },
                present::verdict_words(r),
            ));
        }
        emit(&format!(
            "\n{}\n",
            present::summary(&reports, started.elapsed())
        ));
    }
    Ok(exit_for(&reports))
}

fn save(dir: &Path, reports: &[Report], links: &Links) -> Result<(), Failure> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Failure::Failed(format!("cannot create `{}`: {e}", dir.display())))?;
    for (r, c) in reports
        .iter()
        .filter_map(|r| Some((r, Counterexample::from_report(r)?)))
    {
        if c.schedule.is_none() {
            eprintln!(
                "not saved (no replayable schedule under {}): {}",
                c.engine,
                c.file_name()
            );
            continue;
        }
        let path = dir.join(c.file_name());
        std::fs::write(&path, c.to_json(links))
            .map_err(|e| Failure::Failed(format!("cannot write `{}`: {e}", path.display())))?;
        // The same counterexample drawn, beside it.
        let svg = path.with_extension("svg");
        std::fs::write(&svg, present::counterexample_svg(r, links))
            .map_err(|e| Failure::Failed(format!("cannot write `{}`: {e}", svg.display())))?;
        eprintln!("saved {} and {}", path.display(), svg.display());
    }
    Ok(())
}

fn report(args: &ReportArgs) -> Result<ExitCode, Failure> {
    let links = args.sources.links()?;
    let bench = match &args.bench {
        Some(file) => Some(read_bench(file)?),
        None => None,
    };
    let reports = if args.merge.is_empty() {
        explore_all(&args.explore, |_| ())?
    } else {
        let reports = ozone_ha_check::shards::join(merge(&args.merge)?);
        for r in &reports {
            if let Some(missing) = r
                .parts
                .as_ref()
                .map(|p| p.missing())
                .filter(|m| !m.is_empty())
            {
                eprintln!(
                    "warning: {} {}/{} under {}: part{} {:?} of {} missing",
                    r.scenario,
                    r.variant,
                    r.plan,
                    r.engine,
                    if missing.len() == 1 { "" } else { "s" },
                    missing,
                    r.parts.as_ref().map_or(0, |p| p.count)
                );
            }
        }
        reports
    };
    emit(&match args.format {
        ReportFormat::Md => present::markdown_report(&reports),
        ReportFormat::Json => format!("{:#}\n", present::reports_json(&reports, &links)),
        ReportFormat::Html => present::html_report(&present::Page {
            reports: &reports,
            bench: bench.as_deref(),
            links: &links,
        }),
        ReportFormat::SvgMatrix => present::matrix_svg(&reports),
    });
    Ok(exit_for(&reports))
}

/// Read a bench result (`bench/results.json`, or one part).
fn read_bench(file: &Path) -> Result<Vec<ozone_ha_check_cli::bench::Row>, Failure> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| Failure::Failed(format!("cannot read `{}`: {e}", file.display())))?;
    serde_json::from_str(&text)
        .map_err(|e| Failure::Usage(format!("`{}` is not a bench result: {e}", file.display())))
}

/// Read and concatenate JSON arrays of reports.
fn merge(files: &[PathBuf]) -> Result<Vec<Report>, Failure> {
    let mut reports = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(file)
            .map_err(|e| Failure::Failed(format!("cannot read `{}`: {e}", file.display())))?;
        let part: Vec<Report> = serde_json::from_str(&text).map_err(|e| {
            Failure::Usage(format!(
                "`{}` is not a JSON array of reports (from `check --json`): {e}",
                file.display()
            ))
        })?;
        reports.extend(part);
    }
    Ok(reports)
}

/// The schedule of `--schedule`: a literal, a schedule file, or a saved counterexample.
fn read_schedule(arg: &str) -> Result<Schedule, Failure> {
    let text = if arg.trim_start().starts_with("v1:") {
        arg.to_string()
    } else {
        let contents = std::fs::read_to_string(arg)
            .map_err(|e| Failure::Usage(format!("cannot read schedule file `{arg}`: {e}")))?;
        if contents.trim_start().starts_with('{') {
            let c = Counterexample::parse(&contents)
                .map_err(|e| Failure::Usage(format!("`{arg}`: {e}")))?;
            return c
                .schedule
                .ok_or_else(|| Failure::Usage(format!("`{arg}` holds no replayable schedule")));
        } else {
            contents
        }
    };
    Schedule::parse(&text).map_err(|e| Failure::Usage(e.to_string()))
}

fn replay(args: &ReplayArgs) -> Result<ExitCode, Failure> {
    let s = scenarios::lookup(&args.scenario).map_err(|e| Failure::Usage(e.to_string()))?;
    if !Engine::Replay.available() {
        return Err(Failure::Usage(format!(
            "replay needs the default (shuttle) build: {} replay ...",
            Engine::Replay.build_hint()
        )));
    }
    let schedule = read_schedule(&args.schedule)?;
    let links = args.sources.links()?;
    let request = Request::new(&args.variant, &args.plan, Strategy::Replay { schedule })
        .watch(args.invariant.as_deref())
        .size(args.size)
        .bounds(ozone_ha_check::jobs::bounds(
            args.requests,
            args.faults,
            s,
            &args.plan,
        ));
    let report = explore(s, &request).map_err(|e| {
        if e.is_usage() {
            Failure::Usage(e.to_string())
        } else {
            Failure::Failed(e.to_string())
        }
    })?;
    if report.invariant.is_some() {
        emit(&counterexample_text(&report, args.trace, &links));
    } else {
        emit(&format!(
            "the schedule ran to the end with every invariant holding ({})\n",
            report.verdict.word()
        ));
    }
    Ok(ExitCode::SUCCESS)
}

fn seconds(value: f64, flag: &str) -> Result<Duration, Failure> {
    match Duration::try_from_secs_f64(value) {
        Ok(d) if value > 0.0 => Ok(d),
        _ => Err(Failure::Usage(format!(
            "{flag} takes a positive number of seconds (at most about 1.8e19)"
        ))),
    }
}

fn bench(args: &BenchArgs) -> Result<ExitCode, Failure> {
    if !args.merge.is_empty() {
        let mut rows = Vec::new();
        for file in &args.merge {
            let text = std::fs::read_to_string(file)
                .map_err(|e| Failure::Failed(format!("cannot read `{}`: {e}", file.display())))?;
            let part: Vec<ozone_ha_check_cli::bench::Row> =
                serde_json::from_str(&text).map_err(|e| {
                    Failure::Usage(format!("`{}` is not a bench part: {e}", file.display()))
                })?;
            rows.extend(part);
        }
        let written = ozone_ha_check_cli::bench::write_results(&args.results_dir, &rows)
            .map_err(Failure::Failed)?;
        for name in written {
            eprintln!("wrote {}", args.results_dir.join(name).display());
        }
        return Ok(ExitCode::SUCCESS);
    }
    for name in &args.scenarios {
        scenarios::lookup(name).map_err(|e| Failure::Usage(e.to_string()))?;
    }
    if args.budgets {
        return budgets(args);
    }
    let settings = ozone_ha_check_cli::bench::Settings {
        seeds: args.seeds.unwrap_or(100).max(1),
        max_executions: args.max_executions.max(1),
        ci_budget: ozone_ha_check::engine::Budget::CHECK.random,
        rate_executions: args.rate_executions.max(1),
        time_box: seconds(args.time_box, "--time-box")?,
        thread_runs: args.thread_runs.max(1),
        sizes: args.sizes.clone(),
        scenarios: args.scenarios.clone(),
        deadline: match args.time_budget {
            Some(b) => Instant::now().checked_add(seconds(b, "--time-budget")?),
            None => None,
        },
    };
    let started = Instant::now();
    let quiet = args.quiet;
    let rows = ozone_ha_check_cli::bench::measure(&settings, &|what| {
        if !quiet {
            eprintln!("[{:>6.1}s] {what}", started.elapsed().as_secs_f64());
        }
    });
    let json = serde_json::to_string_pretty(&rows).unwrap_or_default() + "\n";
    match &args.out {
        Some(path) => std::fs::write(path, json)
            .map_err(|e| Failure::Failed(format!("cannot write `{}`: {e}", path.display())))?,
        None => emit(&json),
    }
    Ok(ExitCode::SUCCESS)
}

/// `bench --budgets`: measure, then write budgets.json and the section of RESULTS.md.
fn budgets(args: &BenchArgs) -> Result<ExitCode, Failure> {
    use ozone_ha_check_cli::bench::budgets;
    let started = Instant::now();
    let quiet = args.quiet;
    let rows = budgets::measure(
        args.seeds
            .unwrap_or(ozone_ha_check::verify::RELIABILITY_SEEDS)
            .max(1),
        &args.scenarios,
        &|what| {
            if !quiet {
                eprintln!("[{:>6.1}s] {what}", started.elapsed().as_secs_f64());
            }
        },
    );
    let dir = &args.results_dir;
    let write = |name: &str, text: String| {
        let path = dir.join(name);
        std::fs::write(&path, text)
            .map_err(|e| Failure::Failed(format!("cannot write `{}`: {e}", path.display())))?;
        eprintln!("wrote {}", path.display());
        Ok::<(), Failure>(())
    };
    std::fs::create_dir_all(dir)
        .map_err(|e| Failure::Failed(format!("cannot create `{}`: {e}", dir.display())))?;
    write(
        "budgets.json",
        serde_json::to_string_pretty(&rows).unwrap_or_default() + "\n",
    )?;
    let old = std::fs::read_to_string(dir.join("RESULTS.md")).unwrap_or_default();
    write("RESULTS.md", budgets::splice(&old, &budgets::render(&rows)))?;
    let short = rows.iter().filter(|r| r.over_budget() > 0).count();
    println!(
        "{} (case, engine, invariant) rows; {short} with a seed over its budget",
        rows.len()
    );
    Ok(if short == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `cite --since REV`: the cited Ozone methods the change from REV to the checkout's HEAD
/// touches, with the cases that use each and links at both commits. Exit 1 when one is
/// touched, 0 when none, 2 when REV is unknown or the checkout is not an Ozone git tree.
fn cite_since(
    args: &CiteArgs,
    manifest: &cite::manifest::Manifest,
    rev: &str,
    format: CiteFormat,
) -> Result<ExitCode, Failure> {
    use cite::render;
    let report =
        cite::since(manifest, &args.ozone, rev).map_err(|e| Failure::Usage(e.to_string()))?;
    // Which cases use a citation is found by exploring every case: only when one is touched.
    let usage = if report.touches() {
        match cite::usage_from_traces(args.usage_executions, 0) {
            Ok(u) => Some(u),
            Err(e) => {
                eprintln!("note: the cases using each citation are not listed: {e}");
                None
            }
        }
    } else {
        None
    };
    emit(&match format {
        CiteFormat::Text => render::since_text(&report, usage.as_ref()),
        CiteFormat::Json => format!("{:#}\n", render::since_json(&report, usage.as_ref())),
        CiteFormat::Markdown => render::since_markdown(&report, usage.as_ref()),
    });
    Ok(if report.touches() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

#[derive(Args)]
struct CiteArgs {
    /// The Ozone source tree (a clone of apache/ozone).
    #[arg(long, value_name = "DIR")]
    ozone: PathBuf,
    /// The Ratis source tree; without it Ratis citations are not checked.
    #[arg(long, value_name = "DIR")]
    ratis: Option<PathBuf>,
    /// Print JSON (the same as `--format json`).
    #[arg(long, conflicts_with = "format")]
    json: bool,
    /// The output: `text`, `json`, or `markdown` (with `--since`: a table for a pull
    /// request's comment or a CI job's summary).
    #[arg(long, value_enum, default_value_t = CiteFormat::Text)]
    format: CiteFormat,
    /// Report only the cited Ozone methods whose fingerprint differs between the commit
    /// REV (a pull request's base) and the checkout's HEAD, both read from git (uncommitted
    /// changes are not seen; a bare git directory or a shallow clone holding both commits
    /// works). Exit 1 when one is touched, 0 when none, 2 for bad input.
    #[arg(long, value_name = "REV", conflicts_with = "record")]
    since: Option<String>,
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

/// How `cite` prints its report.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum CiteFormat {
    /// Lines for a terminal.
    Text,
    /// JSON.
    Json,
    /// A Markdown table (with `--since`).
    Markdown,
}

/// Exit 0 when every citation is unchanged, moved or not checked, 1 when one changed or is
/// missing, 2 when a directory is not the source tree it should be or the manifest is
/// unreadable. With `--since`, see [`cite_since`].
fn cite(args: &CiteArgs) -> Result<ExitCode, Failure> {
    use cite::render;
    let failed = |e: CiteError| match e {
        CiteError::Unresolved { .. } => {
            eprintln!("error: {e}");
            Ok(ExitCode::from(1))
        }
        other => Err(Failure::Usage(other.to_string())),
    };
    if args.record {
        let Some(path) = args.manifest.clone().or_else(cite::manifest_path) else {
            return Err(Failure::Usage(
                "no citations.toml beside this build's sources: name the manifest to rewrite with --manifest".into(),
            ));
        };
        return match cite::record(&path, &args.ozone, args.ratis.as_deref()) {
            Ok(recorded) => {
                emit(&format!("wrote {}\n{recorded}", path.display()));
                Ok(ExitCode::SUCCESS)
            }
            Err(e) => failed(e),
        };
    }
    let format = if args.json {
        CiteFormat::Json
    } else {
        args.format
    };
    let manifest = match cite::load_manifest(
        args.manifest
            .clone()
            .or_else(cite::manifest_path)
            .as_deref(),
    ) {
        Ok(m) => m,
        Err(e) => return failed(e),
    };
    if let Some(rev) = &args.since {
        return cite_since(args, &manifest, rev, format);
    }
    if format == CiteFormat::Markdown {
        return Err(Failure::Usage(
            "--format markdown is for --since REV (a pull request's table)".into(),
        ));
    }
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
    if format == CiteFormat::Json {
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
