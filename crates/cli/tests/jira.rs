//! `replay --trace jira`: a saved counterexample as a Jira bug report, checked on the
//! regression fixtures: every section, the links at the pinned commits, and the replay
//! command it prints runs and breaks the same invariant.
#![cfg(not(any(loom, ohc_threads)))]

use ozone_ha_check::citation::Source;
use ozone_ha_check::scenarios;
use ozone_ha_check_cli::present::jira::escape;
use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_ozone-ha-check");

fn fixture(name: &str) -> (PathBuf, serde_json::Value) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../core/tests/shuttle/fixtures")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    (path, serde_json::from_str(&text).unwrap())
}

fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// The Jira report of the fixture `name`, replayed watching its invariant.
fn jira(name: &str) -> (serde_json::Value, String) {
    let (path, f) = fixture(name);
    let s = |k: &str| f[k].as_str().unwrap().to_string();
    let report = run(Command::new(BIN).args([
        "replay",
        &s("scenario"),
        "--variant",
        &s("variant"),
        "--plan",
        &s("plan"),
        "--invariant",
        &s("invariant"),
        "--schedule",
        path.to_str().unwrap(),
        "--trace",
        "jira",
    ]));
    (f, report)
}

/// The sections' headings in order, with `Workload` only when `workload`.
fn assert_sections(report: &str, workload: bool) {
    let headings: Vec<&str> = report
        .lines()
        .filter_map(|l| l.strip_prefix("h3. "))
        .collect();
    let want: Vec<&str> = [
        "Summary",
        "Affected Java methods",
        "Workload",
        "Interleaving",
        "Invariant broken and its harm",
        "Reproduce",
        "Model",
    ]
    .into_iter()
    .filter(|h| workload || *h != "Workload")
    .collect();
    assert_eq!(headings, want, "{report}");
}

/// Every `[label|url]` link of the report.
fn links(report: &str) -> Vec<&str> {
    report
        .split('[')
        .skip(1)
        .filter_map(|s| s.split_once('|').and_then(|(_, rest)| rest.split_once(']')))
        .map(|(url, _)| url)
        .collect()
}

#[test]
fn a_fixture_as_a_jira_bug_report() {
    let (f, report) = jira("hdds-16092__buggy__steady__TxIndexMonotone__pct.json");
    assert_sections(&report, false);
    assert!(
        report.contains(
            "HDDS-16092 model: *TxIndexMonotone* broken in variant _buggy_, plan _steady_"
        ),
        "{report}"
    );

    // Each numbered step is one trace step, with its thread in bold; the breaking one is
    // marked.
    let steps: Vec<&str> = report.lines().filter(|l| l.starts_with("# *")).collect();
    let trace = f["trace"].as_array().unwrap();
    assert_eq!(steps.len(), trace.len(), "{report}");
    // A cited step names its method in monospace, unlinked: the links are in the list of
    // affected methods, once each.
    for (line, step) in steps.iter().zip(trace) {
        let actor = step["actor"].as_str().unwrap();
        assert!(line.starts_with(&format!("# *{actor}* ")), "{line}");
        if step["java_url"].is_string() {
            let java = step["java"].as_str().unwrap();
            assert!(line.contains(&format!(" {{{{{java}}}}}: ")), "{line}");
        }
        assert!(links(line).is_empty(), "{line}");
    }
    let at = f["violation_step"].as_u64().unwrap() as usize;
    assert!(
        steps[at].ends_with("*<- TxIndexMonotone broken here*"),
        "{}",
        steps[at]
    );
    assert_eq!(
        steps.iter().filter(|l| l.contains("broken here")).count(),
        1
    );

    // Every link is at the pinned commit of its repository; every Java method of the
    // trace is among the affected ones.
    let pinned = [Source::Ozone, Source::Ratis]
        .map(|s| format!("{}/blob/{}/", s.repository(), s.pinned_commit()));
    let found = links(&report);
    assert!(!found.is_empty());
    for url in &found {
        assert!(
            pinned.iter().any(|p| url.starts_with(p.as_str())),
            "{url} is not at a pinned commit"
        );
    }
    let affected = report
        .split("h3. Affected Java methods")
        .nth(1)
        .and_then(|s| s.split("h3. ").next())
        .unwrap();
    for step in trace.iter().filter(|s| s["java_url"].is_string()) {
        let java = step["java"].as_str().unwrap();
        assert!(
            affected.contains(&format!("[{java}|")),
            "{java} not in {affected}"
        );
    }
    assert!(
        report.contains("*TxIndexMonotone*: the persisted TransactionInfo index never decreases.")
    );
    // The harm line is the broken invariant's own harm text, not the scenario's title.
    let harm = scenarios::hdds_16092::TX_INDEX_MONOTONE.harm;
    assert!(
        report.contains(&format!("\nHarm: {}\n", escape(harm))),
        "{report}"
    );
    assert!(!report.contains("Harm (HDDS-16092)"), "{report}");

    // The replay command printed runs, as printed, and breaks the same invariant with the
    // same state.
    let cmd = report
        .split("{code:bash}\n")
        .nth(1)
        .and_then(|s| s.split("\n{code}").next())
        .unwrap();
    assert!(
        cmd.starts_with(
            "ozone-ha-check replay hdds-16092 --variant buggy --plan steady --schedule 'v1:"
        ),
        "{cmd}"
    );
    let dir = Path::new(BIN).parent().unwrap();
    let path = format!(
        "{}:{}",
        dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let replayed = run(Command::new("bash").args(["-c", cmd]).env("PATH", path));
    assert!(replayed.contains("TxIndexMonotone broken"), "{replayed}");
    assert!(
        replayed.contains(f["detail"].as_str().unwrap()),
        "{replayed}"
    );
}

#[test]
fn a_generated_plan_s_report_has_its_workload() {
    let (f, report) = jira("hdds-16092__buggy__generated__TxIndexMonotone__pct.json");
    assert_sections(&report, true);
    let drawn = f["trace"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["java"] == "the workload drawn")
        .unwrap()["action"]
        .as_str()
        .unwrap();
    assert!(
        report.contains(&format!("{{noformat}}{drawn}{{noformat}}")),
        "{report}"
    );
}

#[test]
fn the_harm_line_is_the_broken_invariant_s_own() {
    // `ReplicasAgree` is an invariant of three scenarios, each with its own harm: the report
    // prints the one of the fixture's scenario.
    let (_, report) = jira("hdds-16452__buggy__container-transition__ReplicasAgree__pct.json");
    let own = scenarios::hdds_16452::REPLICAS_AGREE.harm;
    let other = scenarios::hdds_16092::REPLICAS_AGREE.harm;
    assert_ne!(own, other);
    let section = report
        .split("h3. Invariant broken and its harm\n")
        .nth(1)
        .and_then(|s| s.split("h3. ").next())
        .unwrap();
    assert!(
        section.contains(&format!("\nHarm: {}\n", escape(own))),
        "{section}"
    );
    assert!(!section.contains(&escape(other)), "{section}");
    assert!(own.contains("crash loop"), "{own}");
}
