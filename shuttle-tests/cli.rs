//! The command-line contract: listings, JSON keys, exit codes, and no panic on bad input.
#![cfg(not(any(loom, ohc_threads)))]

use std::process::{Command, Output};

fn cli(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ozone-ha-check"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn assert_usage_error(args: &[&str], needle: &str) {
    let out = cli(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(stderr.contains(needle), "{args:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
}

#[test]
fn list_json_names_every_case_with_its_expectation() {
    let out = cli(&["list", "--json"]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let scenarios = v.as_array().unwrap();
    let s = scenarios
        .iter()
        .find(|s| s["scenario"] == "hdds-16092")
        .expect("hdds-16092 is listed");
    assert_eq!(s["expected"].as_array().unwrap().len(), 10);
    for s in scenarios {
        assert!(!s["expected"].as_array().unwrap().is_empty(), "{s}");
    }
}

#[test]
fn check_json_has_the_contract_keys_and_exit_0() {
    let out = cli(&[
        "check",
        "hdds-16092",
        "--engine",
        "pct",
        "--executions",
        "500",
        "--json",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = v.as_array().unwrap();
    assert_eq!(rows.len(), 10);
    for row in rows {
        for key in [
            "scenario",
            "variant",
            "plan",
            "engine",
            "expected",
            "verdict",
            "invariant",
            "executions",
            "first_violation",
            "elapsed_ms",
            "seed",
        ] {
            assert!(row.get(key).is_some(), "missing {key}");
        }
    }
}

#[test]
fn a_verdict_that_differs_exits_1() {
    // Two executions are too few for PCT to reach compare-only's window at this seed.
    let out = cli(&[
        "check",
        "hdds-16092",
        "--variant",
        "compare-only",
        "--engine",
        "pct",
        "--executions",
        "2",
        "--quiet",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("MISMATCH"));
}

#[test]
fn bad_input_is_a_usage_error() {
    assert_usage_error(&["check", "hdds-99999"], "unknown scenario");
    assert_usage_error(&["check", "--variant", "nope"], "unknown variant");
    assert_usage_error(&["check", "--plan", "nope"], "unknown plan");
    assert_usage_error(&["check", "--engine", "warp"], "unknown engine");
    assert_usage_error(&["check", "--engine", "loom"], "--cfg loom");
    assert_usage_error(&["check", "--invariant", "Nope"], "unknown invariant");
    assert_usage_error(&["check", "--executions", "many"], "invalid value");
    assert_usage_error(
        &[
            "replay",
            "hdds-16092",
            "--variant",
            "buggy",
            "--plan",
            "steady",
            "--schedule",
            "garbage",
        ],
        "cannot read schedule file",
    );
    assert_usage_error(
        &[
            "replay",
            "hdds-16092",
            "--variant",
            "buggy",
            "--plan",
            "steady",
            "--schedule",
            "v1:x",
        ],
        "not a schedule",
    );
}

#[test]
fn a_schedule_that_no_longer_fits_is_a_clear_error() {
    let out = cli(&[
        "replay",
        "hdds-16092",
        "--variant",
        "buggy",
        "--plan",
        "steady",
        "--schedule",
        "v1:0x3,9",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("does not fit the model"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}
