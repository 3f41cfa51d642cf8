//! The engine table: one row per engine, with everything the rest of the crate (and the CLI)
//! needs to know about it. `list --engines` prints it; nothing outside `engine/` matches on
//! an engine to learn what it can do.
//!
//! Adding an engine means: a variant of [`Engine`] and of [`Strategy`], its row in [`TABLE`],
//! its arm in [`Engine::strategy`], and its scheduler in the backend file of the build that
//! has it. Everything else (the CLI's `--engine` values, which engines `check` runs, seeds,
//! budgets, error hints) reads the table.
//!
//! ```
//! use ozone_ha_check::engine::{Engine, TABLE};
//!
//! assert_eq!(TABLE.len(), Engine::all().count());
//! let loom = Engine::Loom.capabilities();
//! assert!(loom.exhaustive && !loom.seeded);
//! assert_eq!(Engine::from_name("pct"), Some(Engine::Pct));
//! ```

use super::{Engine, Strategy};

/// Which build compiles an engine in: exactly one backend is in each binary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Build {
    /// The default build (shuttle).
    Shuttle,
    /// `RUSTFLAGS="--cfg loom"`.
    Loom,
    /// `RUSTFLAGS="--cfg ohc_threads"`.
    Threads,
}

impl Build {
    /// The build this binary is.
    pub const CURRENT: Build = if cfg!(loom) {
        Build::Loom
    } else if cfg!(ohc_threads) {
        Build::Threads
    } else {
        Build::Shuttle
    };

    /// Its name, as `list --engines` prints it.
    pub fn name(self) -> &'static str {
        match self {
            Build::Shuttle => "default",
            Build::Loom => "loom",
            Build::Threads => "threads",
        }
    }

    /// The command that runs a binary of this build, for an error message.
    pub fn command(self) -> &'static str {
        match self {
            Build::Shuttle => "cargo run --release --",
            Build::Loom => {
                "RUSTFLAGS=\"--cfg loom\" CARGO_TARGET_DIR=target/loom cargo run --release --"
            }
            Build::Threads => {
                "RUSTFLAGS=\"--cfg ohc_threads\" CARGO_TARGET_DIR=target/threads cargo run --release --"
            }
        }
    }
}

/// How much an engine runs when no `--executions` is given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DefaultRun {
    /// The scenario's own budget for this engine ([`Budget`]; `check`'s default unless the
    /// scenario raised it).
    Budget,
    /// At most this many executions (an exhaustive engine stops earlier when it runs out).
    Executions(usize),
    /// Until the schedules within the preemption bound run out ([`PreemptionBound`]).
    Bound,
    /// This many runs.
    Runs(usize),
    /// One recorded schedule.
    Recorded,
}

/// What one engine is and can do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Capabilities {
    /// The engine.
    pub engine: Engine,
    /// Its name on the command line and in reports.
    pub name: &'static str,
    /// One line, as `--help` and `list --engines` print it.
    pub doc: &'static str,
    /// The build that has it.
    pub build: Build,
    /// Whether it enumerates every schedule (within its bound) and can run out of them,
    /// so that a search that found nothing may be a proof.
    pub exhaustive: bool,
    /// Whether a violation it finds keeps its schedule, to replay, minimize and save.
    pub replayable: bool,
    /// Whether it can only witness a violation, never rule one out or steer into a window.
    pub witness_only: bool,
    /// Whether its runs depend on a seed (`--seeds` multiplies its runs).
    pub seeded: bool,
    /// Whether `check` runs it when no `--engine` is given.
    pub in_check: bool,
    /// Whether `--engine` may name it (replay is driven by `replay`, not chosen).
    pub selectable: bool,
    /// How much it runs by default.
    pub default_run: DefaultRun,
}

/// Every engine, in the order the CLI lists them (the order of [`Engine`]'s variants).
pub const TABLE: &[Capabilities] = &[
    Capabilities {
        engine: Engine::Random,
        name: "random",
        doc: "shuttle's uniformly random scheduler, from a seeded generator",
        build: Build::Shuttle,
        exhaustive: false,
        replayable: true,
        witness_only: false,
        seeded: true,
        in_check: true,
        selectable: true,
        default_run: DefaultRun::Budget,
    },
    Capabilities {
        engine: Engine::Pct,
        name: "pct",
        doc: "shuttle's PCT scheduler (probabilistic concurrency testing), seeded",
        build: Build::Shuttle,
        exhaustive: false,
        replayable: true,
        witness_only: false,
        seeded: true,
        in_check: true,
        selectable: true,
        default_run: DefaultRun::Budget,
    },
    Capabilities {
        engine: Engine::Dfs,
        name: "dfs",
        doc: "shuttle's depth-first enumeration of schedules, stopped after its executions",
        build: Build::Shuttle,
        exhaustive: true,
        replayable: true,
        witness_only: false,
        seeded: false,
        in_check: false,
        selectable: true,
        default_run: DefaultRun::Executions(20_000),
    },
    Capabilities {
        engine: Engine::Stateful,
        name: "stateful",
        doc: "depth-first search over the facade's own states, each explored once (or over source sets: `--source-sets`); no preemption bound",
        build: Build::Shuttle,
        exhaustive: true,
        replayable: false,
        witness_only: false,
        seeded: false,
        in_check: false,
        selectable: true,
        // Far above what any scenario needs: it stops by exhausting its states (or at
        // `--time-budget`).
        default_run: DefaultRun::Executions(100_000_000),
    },
    Capabilities {
        engine: Engine::Replay,
        name: "replay",
        doc: "one recorded or steered schedule, under shuttle",
        build: Build::Shuttle,
        exhaustive: false,
        replayable: false,
        witness_only: false,
        seeded: false,
        in_check: false,
        selectable: false,
        default_run: DefaultRun::Recorded,
    },
    Capabilities {
        engine: Engine::Loom,
        name: "loom",
        doc: "loom's exhaustive DPOR exploration, within a preemption bound",
        build: Build::Loom,
        exhaustive: true,
        replayable: false,
        witness_only: false,
        seeded: false,
        in_check: true,
        selectable: true,
        default_run: DefaultRun::Bound,
    },
    Capabilities {
        engine: Engine::Threads,
        name: "threads",
        doc: "real OS threads (parking_lot, crossbeam), run many times",
        build: Build::Threads,
        exhaustive: false,
        replayable: false,
        witness_only: true,
        seeded: false,
        in_check: true,
        selectable: true,
        default_run: DefaultRun::Runs(10_000),
    },
];

/// Executions per run of the randomized engines when none are asked for, and PCT's depth when
/// none is asked for: a scenario's `EXECUTIONS`, or a plan's own. The stateful engine's
/// random walks run as many executions, at that depth.
///
/// ```
/// use ozone_ha_check::engine::{Budget, Engine};
///
/// let b = Budget { random: 60_000, ..Budget::CHECK };
/// assert_eq!(b.of(Engine::Random), Some(60_000));
/// assert_eq!(b.of(Engine::Pct), Some(2_000));
/// assert_eq!(b.of(Engine::Loom), None);
/// assert_eq!(b.pct_depth, 3);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Under the uniformly random scheduler.
    pub random: usize,
    /// Under PCT.
    pub pct: usize,
    /// PCT's depth: the number of priority change points plus one. A plan whose violation
    /// needs more ordering constraints than the default depth gives asks for more.
    pub pct_depth: usize,
}

impl Budget {
    /// `check`'s default: 2,000 executions under each.
    pub const CHECK: Budget = Budget {
        random: 2_000,
        pct: 2_000,
        pct_depth: Ask::DEFAULT_DEPTH,
    };

    /// The budget under `engine`, for the engines whose default run is a budget.
    pub fn of(&self, engine: Engine) -> Option<usize> {
        match engine {
            Engine::Random => Some(self.random),
            Engine::Pct => Some(self.pct),
            _ => None,
        }
    }
}

/// loom's preemption bound: a number, or none at all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PreemptionBound {
    /// At most this many preemptions per execution (0: none).
    At(usize),
    /// No bound: every schedule.
    Unbounded,
}

impl PreemptionBound {
    /// loom's bound when neither a flag nor `LOOM_MAX_PREEMPTIONS` gives one.
    pub const DEFAULT: PreemptionBound = PreemptionBound::At(2);

    /// Parse a number, or `none`.
    ///
    /// ```
    /// use ozone_ha_check::engine::PreemptionBound;
    /// assert_eq!(PreemptionBound::parse("0"), Ok(PreemptionBound::At(0)));
    /// assert_eq!(PreemptionBound::parse("none"), Ok(PreemptionBound::Unbounded));
    /// assert!(PreemptionBound::parse("-1").is_err());
    /// ```
    pub fn parse(text: &str) -> Result<Self, String> {
        match text.trim() {
            "none" => Ok(PreemptionBound::Unbounded),
            n => n.parse().map(PreemptionBound::At).map_err(|_| {
                format!("`{text}` is not a preemption bound: give a number, or `none`")
            }),
        }
    }

    /// The bound `LOOM_MAX_PREEMPTIONS` gives (a number or `none`), else [`DEFAULT`]: the
    /// one reader of that variable. A build without loom ignores it, so a value meant for
    /// loom never fails another build.
    ///
    /// [`DEFAULT`]: PreemptionBound::DEFAULT
    pub fn from_env() -> Result<Self, String> {
        if Build::CURRENT != Build::Loom {
            return Ok(Self::DEFAULT);
        }
        match std::env::var("LOOM_MAX_PREEMPTIONS") {
            Ok(text) => Self::parse(&text).map_err(|e| format!("LOOM_MAX_PREEMPTIONS: {e}")),
            Err(_) => Ok(Self::DEFAULT),
        }
    }

    /// [`from_env`](Self::from_env), then the variable is removed from the process's
    /// environment: loom's own `Builder::new` parses it as a number and panics on `none`
    /// (loom 0.7, `model.rs`), and every run sets the builder's bound itself. Call it at the
    /// start of `main`, before any thread runs.
    pub fn take_from_env() -> Result<Self, String> {
        let bound = Self::from_env();
        if Build::CURRENT == Build::Loom {
            std::env::remove_var("LOOM_MAX_PREEMPTIONS");
        }
        bound
    }

    /// The bound as loom's `Builder::preemption_bound` takes it.
    pub fn as_option(self) -> Option<usize> {
        match self {
            PreemptionBound::At(n) => Some(n),
            PreemptionBound::Unbounded => None,
        }
    }
}

impl Default for PreemptionBound {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// What a run asks of an engine; [`Engine::strategy`] turns it into the engine's
/// [`Strategy`], filling what is not given from the engine's [`DefaultRun`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ask {
    /// The seed, for a seeded engine.
    pub seed: u64,
    /// PCT's depth asked for; `None` for the budget's ([`Budget::pct_depth`]).
    pub depth: Option<usize>,
    /// Executions (or runs) asked for; `None` for the default run.
    pub executions: Option<usize>,
    /// The scenario's budget, for engines whose default run is [`DefaultRun::Budget`].
    pub budget: Budget,
    /// loom's bound.
    pub preemption_bound: PreemptionBound,
    /// The stateful engine's unbounded search explores source sets rather than every state
    /// once ([`Strategy::Stateful::sources`]).
    pub sources: bool,
    /// The stateful engine's unbounded search runs alone, without the deepening's bounded
    /// passes and walks ([`Strategy::Stateful::deepening`] `None`): a case that holds is
    /// proven sooner; a violation is reported when met, but the depth-first order can leave
    /// one unmet for long (see "Deepening" in the stateful engine's docs).
    pub unbounded_only: bool,
}

impl Ask {
    /// PCT's depth when none is given.
    pub const DEFAULT_DEPTH: usize = 3;
}

impl Default for Ask {
    fn default() -> Self {
        Ask {
            seed: 0,
            depth: None,
            executions: None,
            budget: Budget::CHECK,
            preemption_bound: PreemptionBound::DEFAULT,
            sources: false,
            unbounded_only: false,
        }
    }
}

impl Engine {
    /// Every engine, in the table's order.
    pub fn all() -> impl Iterator<Item = Engine> {
        TABLE.iter().map(|c| c.engine)
    }

    /// Its row of the table.
    pub fn capabilities(self) -> &'static Capabilities {
        TABLE
            .iter()
            .find(|c| c.engine == self)
            .expect("every engine has a row in the engine table")
    }

    /// The name on the command line.
    pub fn name(self) -> &'static str {
        self.capabilities().name
    }

    /// The engine called `name`.
    pub fn from_name(name: &str) -> Option<Engine> {
        TABLE.iter().find(|c| c.name == name).map(|c| c.engine)
    }

    /// Whether this build has the engine.
    pub fn available(self) -> bool {
        self.capabilities().build == Build::CURRENT
    }

    /// Whether the engine enumerates every schedule (within its bound) and can therefore
    /// run out of them.
    pub fn exhaustive(self) -> bool {
        self.capabilities().exhaustive
    }

    /// Whether the engine can only witness a violation (real threads).
    pub fn witness_only(self) -> bool {
        self.capabilities().witness_only
    }

    /// The command that runs a binary with this engine, for an error message.
    pub fn build_hint(self) -> &'static str {
        self.capabilities().build.command()
    }

    /// The strategy that runs `ask` under this engine: what `check` and every verdict test
    /// use.
    ///
    /// ```
    /// use ozone_ha_check::engine::{Ask, Budget, Engine, Strategy};
    /// let ask = Ask { seed: 7, budget: Budget { random: 60_000, ..Budget::CHECK }, ..Ask::default() };
    /// assert_eq!(Engine::Random.strategy(&ask), Strategy::Random { seed: 7, executions: 60_000 });
    /// assert_eq!(Engine::Dfs.strategy(&ask), Strategy::Dfs { executions: 20_000 });
    /// ```
    pub fn strategy(self, ask: &Ask) -> Strategy {
        // Asked to run a case, replay (which needs a recorded schedule) enumerates as DFS.
        let runs_as = if self == Engine::Replay {
            Engine::Dfs
        } else {
            self
        };
        let executions = ask
            .executions
            .or(match runs_as.capabilities().default_run {
                DefaultRun::Budget => ask.budget.of(runs_as),
                DefaultRun::Executions(n) | DefaultRun::Runs(n) => Some(n),
                DefaultRun::Bound | DefaultRun::Recorded => None,
            })
            .unwrap_or(Budget::CHECK.random);
        match runs_as {
            Engine::Random => Strategy::Random {
                seed: ask.seed,
                executions,
            },
            Engine::Pct => Strategy::Pct {
                seed: ask.seed,
                depth: ask.depth.unwrap_or(ask.budget.pct_depth),
                executions,
            },
            Engine::Dfs | Engine::Replay => Strategy::Dfs { executions },
            Engine::Stateful => Strategy::Stateful {
                executions,
                part: None,
                deepening: (!ask.unbounded_only).then(|| Budget {
                    pct_depth: ask.depth.unwrap_or(ask.budget.pct_depth),
                    ..ask.budget
                }),
                sources: ask.sources,
            },
            Engine::Loom => Strategy::Loom {
                preemption_bound: ask.preemption_bound.as_option(),
            },
            Engine::Threads => Strategy::Threads { runs: executions },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_lists_every_engine_once_in_order() {
        for (i, row) in TABLE.iter().enumerate() {
            assert_eq!(row.engine as usize, i, "{}", row.name);
            assert_eq!(Engine::from_name(row.name), Some(row.engine));
            assert_eq!(row.engine.strategy(&Ask::default()).engine(), {
                if row.engine == Engine::Replay {
                    Engine::Dfs
                } else {
                    row.engine
                }
            });
        }
    }

    #[test]
    fn a_build_without_loom_ignores_its_variable() {
        // The only reader of the variable is `from_env`, so setting it here races with nothing.
        std::env::set_var("LOOM_MAX_PREEMPTIONS", "not a bound");
        let read = PreemptionBound::from_env();
        std::env::remove_var("LOOM_MAX_PREEMPTIONS");
        if Build::CURRENT == Build::Loom {
            assert!(read.unwrap_err().contains("LOOM_MAX_PREEMPTIONS"));
        } else {
            assert_eq!(read, Ok(PreemptionBound::DEFAULT));
        }
    }
}
