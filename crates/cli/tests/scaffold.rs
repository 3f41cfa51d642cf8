//! `ozone-ha-check new`: names are validated (exit 2, nothing written), and on a copy of the
//! files it reads, the skeleton is written with the names replaced and registered in sorted
//! order, and never overwritten. Compiling the result is `ci/scaffold.sh`'s work.
#![cfg(not(any(loom, ohc_threads)))]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// What `new` reads, relative to a checkout's root.
const READS: &[&str] = &[
    "crates/core/src/scenarios/hdds_template.rs",
    "crates/core/src/scenarios/mod.rs",
    "crates/core/tests/shuttle/hdds_template.rs",
    "crates/core/tests/shuttle/main.rs",
];

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A temporary directory holding a copy of the files `new` reads.
fn checkout() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for file in READS {
        let to = dir.path().join(file);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(repository().join(file), to).unwrap();
    }
    dir
}

fn new(name: &str, root: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ozone-ha-check"))
        .args(["new", name, "--root"])
        .arg(root)
        .output()
        .expect("the binary runs")
}

fn read(root: &Path, file: &str) -> String {
    std::fs::read_to_string(root.join(file)).unwrap()
}

/// Every file under `root`, with its content.
fn snapshot(root: &Path) -> Vec<(PathBuf, String)> {
    let mut files = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                let text = std::fs::read_to_string(&path).unwrap();
                files.push((path, text));
            }
        }
    }
    files.sort();
    files
}

fn assert_usage_error(out: &Output, needle: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains(needle), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// The names declared by the lines `{prefix}NAME;` of `text`, in order.
fn declared<'a>(text: &'a str, prefix: &str) -> Vec<&'a str> {
    text.lines()
        .filter_map(|l| l.strip_prefix(prefix)?.strip_suffix(';'))
        .collect()
}

#[test]
fn a_name_that_is_not_hdds_and_digits_is_refused_with_nothing_written() {
    let dir = checkout();
    let before = snapshot(dir.path());
    for bad in [
        "",
        "hdds",
        "hdds-",
        "hdds-12a",
        "HDDS-123",
        "hdds_123",
        "hdds-12345678",
        "hdds-template",
        "../hdds-1",
        "hdds--1",
    ] {
        assert_usage_error(
            &new(bad, dir.path()),
            "expected `hdds-` and the Jira number",
        );
    }
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn a_root_that_is_not_a_checkout_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    assert_usage_error(
        &new("hdds-1", dir.path()),
        "is not an ozone-ha-check checkout",
    );
    assert!(snapshot(dir.path()).is_empty());
}

#[test]
fn new_writes_the_skeleton_with_its_names_and_registers_it_in_sorted_order() {
    let dir = checkout();
    let root = dir.path();
    let out = new("hdds-0000", root);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let scenario = read(root, "crates/core/src/scenarios/hdds_0000.rs");
    let tests = read(root, "crates/core/tests/shuttle/hdds_0000.rs");
    for needle in [
        "//! HDDS-0000: TODO",
        "pub struct Hdds0000;",
        "impl Scenario for Hdds0000 {",
        "const NAME: &'static str = \"hdds-0000\";",
        "const JIRA: &'static str = \"HDDS-0000\";",
        "`@hdds-0000-parent` and `@hdds-0000`",
        "choices! {",
        "fn expected(variant: Variant, plan: Plan) -> Expected {",
        "| Java (class.method) | what the model keeps |",
    ] {
        assert!(scenario.contains(needle), "{needle}");
    }
    assert!(tests.contains("use ozone_ha_check::scenarios::hdds_0000 as model;"));
    assert!(tests.contains("model::Hdds0000"));
    assert!(tests.contains("pub(crate) fn trials()"));
    for text in [&scenario, &tests] {
        assert!(!text.to_lowercase().contains("template"), "{text}");
        assert!(
            !text.contains("mod tests"),
            "the template's own unit test is not copied"
        );
        assert!(text.ends_with("}\n") && !text.ends_with("\n\n"));
    }

    // Every place to fill is marked, and `new` lists each.
    let marked = scenario
        .lines()
        .chain(tests.lines())
        .filter(|l| l.contains("TODO"))
        .count();
    assert!(stdout.contains(&format!("{marked} places to fill, marked TODO")));
    assert!((10..30).contains(&marked), "{marked} lines marked TODO");
    assert!(stdout.contains("crates/core/src/scenarios/hdds_0000.rs:1: //! HDDS-0000: TODO"));

    let registry = read(root, "crates/core/src/scenarios/mod.rs");
    let mods = declared(&registry, "pub mod ");
    assert_eq!(mods.first(), Some(&"hdds_0000"), "{mods:?}");
    let mut sorted = mods.clone();
    sorted.sort_unstable();
    assert_eq!(mods, sorted);
    let all = registry.split("pub fn all()").nth(1).unwrap();
    let all = &all[..all.find("\n    ]").unwrap()];
    assert!(
        all.ends_with("        &hdds_0000::Hdds0000,"),
        "the registry's last entry: {all}"
    );

    let suite = read(root, "crates/core/tests/shuttle/main.rs");
    let mods = declared(&suite, "mod ");
    let mut sorted = mods.clone();
    sorted.sort_unstable();
    assert_eq!(mods, sorted);
    assert!(suite.contains("#[cfg(not(any(loom, ohc_threads)))]\nmod hdds_0000;\n"));
    assert!(suite.contains("        hdds_0000::trials(),\n        hdds_template::trials(),\n"));
    assert_eq!(suite.matches("hdds_0000").count(), 2);
    assert_eq!(registry.matches("hdds_0000").count(), 2);
}

#[test]
fn a_second_scenario_goes_in_order_and_an_existing_one_is_never_overwritten() {
    let dir = checkout();
    let root = dir.path();
    assert!(new("hdds-99999", root).status.success());
    assert!(new("hdds-0000", root).status.success());
    let registry = read(root, "crates/core/src/scenarios/mod.rs");
    let mods = declared(&registry, "pub mod ");
    let (last, template) = (mods.len() - 2, mods.len() - 1);
    assert_eq!(
        (mods[0], mods[last], mods[template]),
        ("hdds_0000", "hdds_99999", "hdds_template")
    );
    assert!(registry.contains("&hdds_99999::Hdds99999,\n        &hdds_0000::Hdds0000,\n    ]"));
    let suite = read(root, "crates/core/tests/shuttle/main.rs");
    assert!(suite.contains("hdds_99999::trials(),\n        hdds_0000::trials(),\n"));

    let before = snapshot(root);
    assert_usage_error(&new("hdds-0000", root), "exists already");
    // Registered, with its files gone: still refused.
    std::fs::remove_file(root.join("crates/core/src/scenarios/hdds_0000.rs")).unwrap();
    std::fs::remove_file(root.join("crates/core/tests/shuttle/hdds_0000.rs")).unwrap();
    let before_without = snapshot(root);
    assert_usage_error(&new("hdds-0000", root), "registered already");
    assert_eq!(snapshot(root), before_without);
    // A scenario of the repository's registry.
    assert_usage_error(&new("hdds-16092", root), "registered already");
    assert_ne!(before, before_without);
}
