//! `ozone-ha-check new hdds-NNNN`: a new scenario's skeleton, so that its framing is not typed
//! by hand.
//!
//! The skeleton is the checkout's own template, a scenario that the core compiles and
//! unit-tests but never registers (`crates/core/src/scenarios/hdds_template.rs`), and its
//! shuttle tests (`crates/core/tests/shuttle/hdds_template.rs`, which the suite runs). `new`
//! copies both with the names replaced (`hdds-template`, `hdds_template`, `HDDS-TEMPLATE`,
//! `HddsTemplate`) and registers them: the `pub mod` line (in sorted order) and the entry at
//! the end of `scenarios::all()` in `crates/core/src/scenarios/mod.rs`, the `mod` line (in
//! sorted order) and the `trials()` entry after the last scenario's in
//! `crates/core/tests/shuttle/main.rs`. Every place left to fill is marked `TODO`; `new`
//! lists them.
//!
//! It reads everything and builds every new text before it writes anything, and never
//! overwrites: a name already registered, or whose files exist, is refused (exit 2).

use crate::Failure;
use clap::Args;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// `new`'s arguments.
#[derive(Args)]
pub(crate) struct NewArgs {
    /// The scenario's name: `hdds-` and its Jira number, e.g. `hdds-12345`.
    name: String,
    /// The checkout to write into (default: the one this binary was built from).
    #[arg(long, value_name = "DIR")]
    root: Option<PathBuf>,
}

/// The scenarios' directory, from the root of a checkout.
const SCENARIOS: &str = "crates/core/src/scenarios";
/// The shuttle suite's directory.
const SHUTTLE: &str = "crates/core/tests/shuttle";
/// The template's module, in both directories.
const TEMPLATE: &str = "hdds_template";
/// The template scenario's line after which nothing is copied (its own unit test).
const CUT: &str = "// ---- `ozone-ha-check new` copies nothing below this line";
/// The most digits a Jira number may have.
const MAX_DIGITS: usize = 7;

/// A scenario's names, all from its command-line name.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Names {
    /// `hdds-12345`: the command line's.
    scenario: String,
    /// `hdds_12345`: the modules'.
    module: String,
    /// `HDDS-12345`: the Jira key.
    jira: String,
    /// `Hdds12345`: the scenario's type.
    type_name: String,
}

impl Names {
    /// The names of the scenario called `name`, or why it is not a scenario name.
    fn parse(name: &str) -> Result<Names, String> {
        let digits = name
            .strip_prefix("hdds-")
            .filter(|d| {
                (1..=MAX_DIGITS).contains(&d.len()) && d.bytes().all(|b| b.is_ascii_digit())
            })
            .ok_or_else(|| {
                format!(
                    "`{name}` is not a scenario name: expected `hdds-` and the Jira number \
                     (1 to {MAX_DIGITS} digits), e.g. `hdds-12345`"
                )
            })?;
        Ok(Names {
            scenario: format!("hdds-{digits}"),
            module: format!("hdds_{digits}"),
            jira: format!("HDDS-{digits}"),
            type_name: format!("Hdds{digits}"),
        })
    }

    /// `text` with the template's names replaced by these.
    fn substitute(&self, text: &str) -> String {
        text.replace("hdds-template", &self.scenario)
            .replace("hdds_template", &self.module)
            .replace("HDDS-TEMPLATE", &self.jira)
            .replace("HddsTemplate", &self.type_name)
    }
}

/// The template's text up to its cut line, the blank lines before it dropped.
fn skeleton(template: &str) -> &str {
    let kept = template
        .find(&format!("\n{CUT}"))
        .map_or(template, |at| &template[..=at]);
    let trimmed = kept.trim_end();
    &kept[..(trimmed.len() + 1).min(kept.len())]
}

/// The 1-based numbers of the lines of `text` that still name the template.
fn leftovers(text: &str) -> Vec<usize> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| l.to_ascii_lowercase().contains("template"))
        .map(|(i, _)| i + 1)
        .collect()
}

/// The module a line declares, if it is `{prefix}NAME;`.
fn declared<'a>(line: &'a str, prefix: &str) -> Option<&'a str> {
    line.strip_prefix(prefix)?.strip_suffix(';')
}

/// `text` with `lines` inserted among its `{prefix}NAME;` declarations, sorted by name: above
/// the doc comments and attributes of the first declaration whose name sorts after `module`,
/// or after the last declaration. `Err` when `text` declares no `hdds_` module.
fn insert_sorted(text: &str, prefix: &str, module: &str, new: &[String]) -> Result<String, String> {
    let lines: Vec<&str> = text.lines().collect();
    let declarations: Vec<(usize, &str)> = lines
        .iter()
        .enumerate()
        .filter_map(|(i, l)| declared(l, prefix).map(|name| (i, name)))
        .collect();
    if !declarations
        .iter()
        .any(|(_, name)| name.starts_with("hdds_"))
    {
        return Err(format!("no `{prefix}hdds_…;` line"));
    }
    let at = match declarations.iter().find(|(_, name)| *name > module) {
        Some(&(mut i, _)) => {
            while i > 0 && (lines[i - 1].starts_with("///") || lines[i - 1].starts_with("#[")) {
                i -= 1;
            }
            i
        }
        None => declarations.last().map_or(0, |(i, _)| i + 1),
    };
    Ok(splice(&lines, at, new))
}

/// `lines` with `new` inserted before line `at`, as one text ending in a newline.
fn splice(lines: &[&str], at: usize, new: &[String]) -> String {
    let mut out: Vec<&str> = lines[..at].to_vec();
    out.extend(new.iter().map(String::as_str));
    out.extend_from_slice(&lines[at..]);
    out.join("\n") + "\n"
}

/// The indentation and the position after the last line that `entry` accepts in the list
/// that starts at line `from` of `text` (up to its closing `]`).
fn after_last(text: &str, from: usize, entry: impl Fn(&str) -> bool) -> Option<(String, usize)> {
    text.lines()
        .enumerate()
        .skip(from)
        .take_while(|(_, l)| !l.trim_start().starts_with(']'))
        .filter(|(_, l)| entry(l.trim()))
        .last()
        .map(|(i, l)| (l[..l.len() - l.trim_start().len()].to_string(), i + 1))
}

/// Whether `s` is `hdds_` and digits.
fn numbered(s: &str) -> bool {
    s.strip_prefix("hdds_")
        .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
}

/// `scenarios/mod.rs` with the scenario registered: its `pub mod` line in sorted order, and
/// its entry after the last one of `all()` (the registry's order is the listing's).
fn register_scenario(text: &str, n: &Names) -> Result<String, String> {
    let text = insert_sorted(
        text,
        "pub mod ",
        &n.module,
        &[format!("pub mod {};", n.module)],
    )?;
    let all = text
        .lines()
        .position(|l| l.starts_with("pub fn all()"))
        .ok_or("no `pub fn all()`")?;
    let (indent, at) = after_last(&text, all, |l| {
        l.strip_prefix('&')
            .and_then(|l| l.split_once("::"))
            .is_some_and(|(module, _)| numbered(module))
    })
    .ok_or("no `&hdds_NNNN::HddsNNNN,` entry in `all()`")?;
    let lines: Vec<&str> = text.lines().collect();
    Ok(splice(
        &lines,
        at,
        &[format!("{indent}&{}::{},", n.module, n.type_name)],
    ))
}

/// The shuttle suite's `main.rs` with the scenario's tests registered: the `mod` line in
/// sorted order, with the attribute the other scenarios' carry, and its `trials()` after the
/// last scenario's.
fn register_tests(text: &str, n: &Names) -> Result<String, String> {
    let lines: Vec<&str> = text.lines().collect();
    let attribute = lines
        .iter()
        .position(|l| declared(l, "mod ").is_some_and(numbered))
        .and_then(|i| i.checked_sub(1))
        .map(|i| lines[i])
        .filter(|l| l.starts_with("#["));
    let mut new: Vec<String> = attribute.map(str::to_string).into_iter().collect();
    new.push(format!("mod {};", n.module));
    let text = insert_sorted(text, "mod ", &n.module, &new)?;
    let list = text
        .lines()
        .position(|l| l.contains("let trials"))
        .ok_or("no `let trials`")?;
    let trials = |l: &str| l.strip_suffix("::trials(),").is_some_and(numbered);
    let (indent, at) = after_last(&text, list, trials)
        .or_else(|| {
            let before = format!("{TEMPLATE}::trials(),");
            after_last(&text, list, |l| l == before).map(|(indent, at)| (indent, at - 1))
        })
        .ok_or("no `hdds_NNNN::trials(),` entry")?;
    let lines: Vec<&str> = text.lines().collect();
    Ok(splice(
        &lines,
        at,
        &[format!("{indent}{}::trials(),", n.module)],
    ))
}

/// Whether a registry already names the module.
fn registered(registry: &str, module: &str) -> bool {
    registry.lines().any(|l| {
        let l = l.trim();
        l == format!("pub mod {module};")
            || l == format!("mod {module};")
            || l.starts_with(&format!("&{module}::"))
            || l == format!("{module}::trials(),")
    })
}

/// The files `new` reads and writes, relative to the checkout's root.
struct Paths {
    scenario_template: PathBuf,
    test_template: PathBuf,
    registry: PathBuf,
    suite: PathBuf,
    scenario: PathBuf,
    test: PathBuf,
}

impl Paths {
    fn of(n: &Names) -> Paths {
        let (scenarios, shuttle) = (Path::new(SCENARIOS), Path::new(SHUTTLE));
        Paths {
            scenario_template: scenarios.join(format!("{TEMPLATE}.rs")),
            test_template: shuttle.join(format!("{TEMPLATE}.rs")),
            registry: scenarios.join("mod.rs"),
            suite: shuttle.join("main.rs"),
            scenario: scenarios.join(format!("{}.rs", n.module)),
            test: shuttle.join(format!("{}.rs", n.module)),
        }
    }
}

/// The checkout this binary was built from.
fn default_root() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    root.canonicalize().unwrap_or(root)
}

/// Write the skeleton of the scenario `args.name` into the checkout, register it, and list
/// what is left to fill.
pub(crate) fn new(args: &NewArgs) -> Result<ExitCode, Failure> {
    let n = Names::parse(&args.name).map_err(Failure::Usage)?;
    let root = args.root.clone().unwrap_or_else(default_root);
    let paths = Paths::of(&n);
    let read = |path: &Path| {
        std::fs::read_to_string(root.join(path)).map_err(|e| {
            Failure::Usage(format!(
                "{} is not an ozone-ha-check checkout (see --root): cannot read {}: {e}",
                root.display(),
                path.display()
            ))
        })
    };
    let (scenario_template, test_template) =
        (read(&paths.scenario_template)?, read(&paths.test_template)?);
    let (registry, suite) = (read(&paths.registry)?, read(&paths.suite)?);

    for path in [&paths.scenario, &paths.test] {
        if root.join(path).exists() {
            return Err(Failure::Usage(format!(
                "{} exists already ({}): `new` never overwrites a scenario",
                n.scenario,
                path.display()
            )));
        }
    }
    for (path, text) in [(&paths.registry, &registry), (&paths.suite, &suite)] {
        if registered(text, &n.module) {
            return Err(Failure::Usage(format!(
                "{} is registered already in {}: `new` never overwrites a scenario",
                n.scenario,
                path.display()
            )));
        }
    }

    let layout = |path: &Path, why: String| {
        Failure::Failed(format!("cannot register in {}: {why}", path.display()))
    };
    let registry = register_scenario(&registry, &n).map_err(|e| layout(&paths.registry, e))?;
    let suite = register_tests(&suite, &n).map_err(|e| layout(&paths.suite, e))?;
    let skeletons = [
        (&paths.scenario, n.substitute(skeleton(&scenario_template))),
        (&paths.test, n.substitute(skeleton(&test_template))),
    ];
    for (path, text) in &skeletons {
        if let Some(line) = leftovers(text).first() {
            return Err(Failure::Failed(format!(
                "the template still names itself after the names were replaced: {}, line {line}",
                path.display()
            )));
        }
    }

    let write = |path: &Path, text: &str, create: bool| {
        let full = root.join(path);
        let written = if create {
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&full)
                .and_then(|mut f| std::io::Write::write_all(&mut f, text.as_bytes()))
        } else {
            std::fs::write(&full, text)
        };
        written.map_err(|e| Failure::Failed(format!("cannot write {}: {e}", full.display())))
    };
    for (path, text) in &skeletons {
        write(path, text, true)?;
    }
    write(&paths.registry, &registry, false)?;
    write(&paths.suite, &suite, false)?;

    let mut out = format!(
        "wrote {} and {}\nregistered {} in {} and {}\n",
        paths.scenario.display(),
        paths.test.display(),
        n.scenario,
        paths.registry.display(),
        paths.suite.display()
    );
    let todos: Vec<String> = skeletons
        .iter()
        .flat_map(|(path, text)| {
            text.lines()
                .enumerate()
                .filter(|(_, l)| l.contains("TODO"))
                .map(move |(i, l)| format!("  {}:{}: {}\n", path.display(), i + 1, l.trim()))
        })
        .collect();
    out.push_str(&format!("{} places to fill, marked TODO:\n", todos.len()));
    out.extend(todos);
    out.push_str(&format!(
        "then: citations.toml and `cite --record`, `check {} --save {SHUTTLE}/fixtures`, \
         README.md's scenario table (README.md, \"Modelling a new bug\")\n",
        n.scenario
    ));
    crate::emit(&out);
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(n: &str) -> Names {
        Names::parse(n).unwrap()
    }

    #[test]
    fn names_are_hdds_and_digits() {
        assert_eq!(
            names("hdds-0000"),
            Names {
                scenario: "hdds-0000".into(),
                module: "hdds_0000".into(),
                jira: "HDDS-0000".into(),
                type_name: "Hdds0000".into(),
            }
        );
        for bad in [
            "",
            "hdds-",
            "hdds_1",
            "HDDS-1",
            "hdds-1a",
            "hdds-12345678",
            "hdds-template",
            "x/hdds-1",
        ] {
            assert!(Names::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_skeleton_stops_at_the_cut() {
        let template = format!("a\n\n{CUT} ----\n\nmod tests {{}}\n");
        assert_eq!(skeleton(&template), "a\n");
        assert_eq!(skeleton("a\nb\n"), "a\nb\n");
    }

    #[test]
    fn modules_go_in_sorted_order_above_doc_comments() {
        let new = |m: &str| vec![format!("pub mod {m};")];
        let plain = "pub mod a;\npub mod c;\n";
        assert!(
            insert_sorted(plain, "pub mod ", "b", &new("b")).is_err(),
            "no hdds_ module"
        );
        let text = "//! x\n\npub mod c;\npub mod hdds_1;\n/// doc\npub mod x;\n\nfn f() {}\n";
        let at = |m: &str| insert_sorted(text, "pub mod ", m, &new(m)).unwrap();
        assert!(at("a").contains("\n\npub mod a;\npub mod c;\n"));
        assert!(at("d").contains("pub mod c;\npub mod d;\npub mod hdds_1;\n"));
        assert!(at("hdds_2").contains("pub mod hdds_1;\npub mod hdds_2;\n/// doc\npub mod x;\n"));
        assert!(at("z").contains("pub mod x;\npub mod z;\n\nfn f()"));
    }
}
