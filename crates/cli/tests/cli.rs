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
fn list_shows_each_invariant_s_harm_and_no_probe_s() {
    let json = cli(&["list", "--json"]);
    let text = cli(&["list"]);
    assert!(json.status.success() && text.status.success());
    let text = String::from_utf8_lossy(&text.stdout);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let listed = v.as_array().unwrap();
    assert_eq!(listed.len(), ozone_ha_check::scenarios::all().len());
    for s in listed {
        let scenario = ozone_ha_check::scenarios::find(s["scenario"].as_str().unwrap()).unwrap();
        let invariants = s["invariants"].as_array().unwrap();
        assert!(!invariants.is_empty(), "{s}");
        for i in invariants {
            let name = i["name"].as_str().unwrap();
            let harm = i["harm"].as_str().unwrap_or_default();
            assert!(!harm.trim().is_empty(), "{name} has no harm: {i}");
            assert_eq!(Some(harm), scenario.invariant(name).and_then(|p| p.harm()));
            assert!(text.contains(&format!(" harm: {harm}\n")), "{name}: {harm}");
        }
        for p in s["probes"].as_array().unwrap() {
            assert!(p.get("harm").is_none(), "a probe with a harm: {p}");
        }
    }
}

#[test]
fn list_json_names_every_case_with_its_expectation() {
    let out = cli(&["list", "--json"]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let scenarios = v.as_array().unwrap();
    let expected = [
        ("hdds-16092", 25),
        ("hdds-16452", 36),
        ("hdds-17215", 50),
        ("hdds-16900", 28),
        ("hdds-7279", 9),
        ("hdds-8036", 6),
        ("hdds-8681", 9),
        ("hdds-8685", 9),
        ("hdds-8832", 6),
        ("hdds-8973", 6),
        ("hdds-10408", 9),
        ("hdds-10590", 8),
        ("hdds-11152", 36),
        ("hdds-11453", 6),
    ];
    assert_eq!(
        scenarios.len(),
        expected.len(),
        "every scenario is counted here"
    );
    for (name, cases) in expected {
        let s = scenarios
            .iter()
            .find(|s| s["scenario"] == name)
            .unwrap_or_else(|| panic!("{name} is not listed"));
        assert_eq!(s["expected"].as_array().unwrap().len(), cases, "{name}");
    }
    for s in scenarios {
        assert!(!s["expected"].as_array().unwrap().is_empty(), "{s}");
    }
    // hdds-16092's generated plan: its vocabulary, bounds and the size of its space.
    let v = &scenarios
        .iter()
        .find(|s| s["scenario"] == "hdds-16092")
        .unwrap()["vocabulary"];
    assert_eq!(v["bounds"]["requests"], 3);
    assert_eq!(v["bounds"]["faults"], 2);
    assert_eq!(v["workloads"], "8676");
    let words: Vec<&str> = v["words"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        words,
        [
            "create", "commit", "rename", "delete", "allocate", "volume", "bucket", "snapshot",
            "stop", "kill", "install"
        ]
    );
}

#[test]
fn bounds_run_only_the_generated_plan_and_off_the_defaults_are_not_judged() {
    let out = cli(&[
        "check",
        "hdds-16092",
        "--requests",
        "1",
        "--engine",
        "pct",
        "--executions",
        "200",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let lines: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("hdds-16092"))
        .collect();
    assert_eq!(lines.len(), 5, "{stdout}");
    assert!(lines.iter().all(|l| l.contains("/generated")), "{stdout}");
    assert!(
        stdout.contains("every workload of at most 1 request and 2 faults (48 workloads)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("5 not judged (off the default size or bounds)"),
        "{stdout}"
    );
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
    assert_eq!(rows.len(), 25);
    let generated: Vec<&serde_json::Value> =
        rows.iter().filter(|r| r["plan"] == "generated").collect();
    assert_eq!(generated.len(), 5);
    for r in generated {
        assert!(
            r["scope"].as_str().unwrap().contains("8676 workloads"),
            "{r}"
        );
    }
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
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("FAILED"), "{stdout}");
    assert!(
        stdout.contains("unexpected: hdds-16092 compare-only/"),
        "{stdout}"
    );
    // The counterexample of an unexpected verdict is printed; expected ones are not.
    assert!(
        stdout.lines().last().unwrap().contains("unexpected"),
        "{stdout}"
    );
}

/// `replay hdds-16092 --variant buggy --plan steady --schedule` followed by `rest`.
fn replay_buggy_steady<'a>(rest: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "replay",
        "hdds-16092",
        "--variant",
        "buggy",
        "--plan",
        "steady",
        "--schedule",
    ];
    args.extend_from_slice(rest);
    args
}

#[test]
fn bad_input_is_a_usage_error() {
    assert_usage_error(&["check", "hdds-99999"], "unknown scenario");
    assert_usage_error(&["check", "--variant", "nope"], "unknown variant");
    assert_usage_error(&["check", "--plan", "nope"], "unknown plan");
    assert_usage_error(
        &["check", "--engine", "warp"],
        "possible values: random, pct",
    );
    assert_usage_error(&["check", "--engine", "replay"], "invalid value");
    assert_usage_error(&["check", "--engine", "loom"], "--cfg loom");
    assert_usage_error(&["check", "--invariant", "Nope"], "unknown invariant");
    assert_usage_error(&["check", "--executions", "many"], "invalid value");
    assert_usage_error(&["check", "--jobs", "0"], "not in 1..");
    assert_usage_error(
        &["check", "--source-sets", "--engine", "pct"],
        "add `--engine stateful`",
    );
    assert_usage_error(&["check", "--unbounded-only"], "add `--engine stateful`");
    assert_usage_error(
        &replay_buggy_steady(&["garbage"]),
        "cannot read schedule file",
    );
    assert_usage_error(&replay_buggy_steady(&["v1:x"]), "not a schedule");
    // Workload bounds: only for generated plans, and never empty.
    assert_usage_error(
        &["check", "hdds-16092", "--plan", "steady", "--requests", "2"],
        "`steady` is a written plan",
    );
    assert_usage_error(
        &["check", "--requests", "0", "--faults", "0"],
        "leaves no workload",
    );
    assert_usage_error(
        &replay_buggy_steady(&["v1:0", "--requests", "2"]),
        "`steady` is a written plan",
    );
}

#[test]
fn a_schedule_that_no_longer_fits_is_a_clear_error() {
    let out = cli(&replay_buggy_steady(&["v1:0x3,9"]));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("does not fit the model"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn trace_formats_and_saved_fixtures() {
    let mermaid = cli(&[
        "check",
        "hdds-16092",
        "--variant",
        "buggy",
        "--plan",
        "steady",
        "--engine",
        "pct",
        "--trace",
        "mermaid",
        "--quiet",
    ]);
    let text = String::from_utf8_lossy(&mermaid.stdout);
    assert!(text.contains("```mermaid\nsequenceDiagram"), "{text}");

    let dir = std::env::temp_dir().join(format!("ohc-save-{}", std::process::id()));
    let saved = cli(&[
        "check",
        "hdds-16092",
        "--variant",
        "lock-only",
        "--plan",
        "steady",
        "--engine",
        "pct",
        "--save",
        dir.to_str().unwrap(),
        "--trace",
        "json",
        "--quiet",
    ]);
    assert_eq!(saved.status.code(), Some(0));
    let file = dir.join("hdds-16092__lock-only__steady__TxIndexMonotone__pct.json");
    let json = std::fs::read_to_string(&file).expect("saved fixture");
    let again = cli(&[
        "replay",
        "hdds-16092",
        "--variant",
        "lock-only",
        "--plan",
        "steady",
        "--schedule",
        file.to_str().unwrap(),
        "--trace",
        "json",
    ]);
    let replayed: serde_json::Value = serde_json::from_slice(&again.stdout).unwrap();
    let original: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(replayed["trace"], original["trace"]);
    assert_eq!(replayed["format"], "ozone-ha-check/counterexample/v1");
    // Beside the fixture, the same counterexample drawn; `replay --trace svg` draws it again.
    let drawn = std::fs::read_to_string(file.with_extension("svg")).expect("saved diagram");
    assert!(drawn.starts_with("<svg") && drawn.contains("class=\"step broken\""));
    let svg = cli(&[
        "replay",
        "hdds-16092",
        "--variant",
        "lock-only",
        "--plan",
        "steady",
        "--schedule",
        file.to_str().unwrap(),
        "--trace",
        "svg",
    ]);
    assert_eq!(svg.status.code(), Some(0));
    let svg = String::from_utf8_lossy(&svg.stdout);
    // The same steps, titled by the engine that ran them.
    let steps = |s: &str| s.matches("<g class=\"step").count();
    assert_eq!(steps(&svg), steps(&drawn));
    assert_eq!(
        svg.matches("class=\"lifeline\"").count(),
        drawn.matches("class=\"lifeline\"").count()
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// The steps of a violating case as `check --trace json` prints them, with these extra
/// arguments; the process's stderr beside them.
fn traced_steps(extra: &[&str]) -> (Vec<serde_json::Value>, String) {
    let mut args = vec![
        "check",
        "hdds-17215",
        "--variant",
        "buggy",
        "--plan",
        "lagging-follower",
        "--engine",
        "pct",
        "--trace",
        "json",
        "--quiet",
    ];
    args.extend_from_slice(extra);
    let out = cli(&args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    // The case's line, the counterexample, then the summary line.
    let stdout = String::from_utf8_lossy(&out.stdout);
    let start = stdout.find("\n{").unwrap_or_else(|| panic!("{stdout}"));
    let v: serde_json::Value = serde_json::Deserializer::from_str(&stdout[start..])
        .into_iter()
        .next()
        .unwrap()
        .unwrap();
    (v["trace"].as_array().unwrap().clone(), stderr)
}

#[test]
fn every_trace_step_links_to_its_java_method_or_to_nothing() {
    use ozone_ha_check::citation as cite;
    let (steps, _) = traced_steps(&[]);
    let (mut cited, mut model) = (0, 0);
    for step in &steps {
        let java = step["java"].as_str().unwrap();
        let url = step.get("java_url").expect("every step has java_url");
        match cite::find(java) {
            Some(c) => {
                let url = url.as_str().unwrap_or_else(|| panic!("{step}"));
                assert_eq!(url, c.pinned_url(None), "no line range without --ozone");
                if c.source == cite::Source::Ozone {
                    assert!(
                        url.starts_with("https://github.com/apache/ozone/blob/78d5650c313"),
                        "{url}"
                    );
                }
                cited += 1;
            }
            None => {
                assert!(url.is_null(), "a model step links nowhere: {step}");
                model += 1;
            }
        }
    }
    assert!(cited > 0 && model > 0, "{cited} cited, {model} model steps");
    // The same key in `check --json`, and the files `--save` writes read back unchanged.
    let out = cli(&[
        "check",
        "hdds-17215",
        "--variant",
        "buggy",
        "--plan",
        "lagging-follower",
        "--engine",
        "pct",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let trace = v[0]["trace"].as_array().unwrap();
    assert_eq!(trace, &steps, "the same steps, the same links");
}

#[test]
fn source_checkouts_are_checked_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().to_str().unwrap();
    let case = [
        "hdds-16092",
        "--variant",
        "buggy",
        "--plan",
        "steady",
        "--engine",
        "pct",
        "--quiet",
    ];
    for cmd in ["check", "report"] {
        let mut args = vec![cmd];
        args.extend_from_slice(&case);
        args.extend_from_slice(&["--ozone", plain]);
        assert_usage_error(&args, "is not an Ozone source tree");
        let mut args = vec![cmd];
        args.extend_from_slice(&case);
        args.extend_from_slice(&["--ratis", plain]);
        assert_usage_error(&args, "is not a Ratis source tree");
    }
    assert_usage_error(
        &[
            "replay",
            "hdds-16092",
            "--variant",
            "buggy",
            "--plan",
            "steady",
            "--schedule",
            "v1:0x3",
            "--ozone",
            plain,
        ],
        "is not an Ozone source tree",
    );
    // An Ozone-shaped tree that is no checkout of the pinned commit: file links, and one
    // line saying why.
    let tree = dir.path().join("ozone");
    for d in ["hadoop-ozone", "hadoop-hdds"] {
        std::fs::create_dir_all(tree.join(d)).unwrap();
    }
    std::fs::write(
        tree.join("pom.xml"),
        "<project><artifactId>ozone-main</artifactId></project>\n",
    )
    .unwrap();
    let (steps, stderr) = traced_steps(&["--ozone", tree.to_str().unwrap()]);
    assert_eq!(stderr.matches("warning:").count(), 1, "{stderr}");
    assert!(
        stderr.contains("pinned ozone commit 78d5650c313")
            && stderr.contains("without line ranges"),
        "{stderr}"
    );
    assert!(steps
        .iter()
        .all(|s| !s["java_url"].as_str().unwrap_or("").contains("#L")));
}

#[test]
fn check_draws_counterexamples_as_svg() {
    let out = cli(&[
        "check",
        "hdds-16452",
        "--variant",
        "buggy",
        "--plan",
        "base",
        "--engine",
        "pct",
        "--trace",
        "svg",
        "--quiet",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout.matches("<svg ").count(), 1, "{stdout}");
    assert!(stdout.contains("<a class=\"java\" href=\"https://github.com/apache/ozone/blob/"));
}

#[test]
fn report_formats_cover_the_matrix() {
    let html = cli(&[
        "report",
        "hdds-16452",
        "--engine",
        "pct",
        "--format",
        "html",
        "--quiet",
    ]);
    assert_eq!(html.status.code(), Some(0));
    let page = String::from_utf8_lossy(&html.stdout);
    assert!(page.starts_with("<!DOCTYPE html>"));
    // One verdict matrix, a cell per case, and every report in the table of all.
    assert_eq!(page.matches("<table class=\"matrix\"").count(), 1);
    assert_eq!(page.matches("<td class=\"cell ").count(), 36, "{page}");
    assert_eq!(page.matches("<tr><td>hdds-16452").count(), 36, "{page}");
    // Every violated cell links to a diagram on the page.
    for anchor in page.split("class=\"to-diagram\" href=\"#").skip(1) {
        let id = &anchor[..anchor.find('"').unwrap()];
        assert!(
            page.contains(&format!("<figure class=\"cx\" id=\"{id}\">")),
            "{id}"
        );
    }
    assert!(page.contains("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"seq\""));
    assert!(!page.contains("<script") && !page.contains("<link"));
    let md = cli(&[
        "report",
        "hdds-16452",
        "--engine",
        "pct",
        "--format",
        "md",
        "--quiet",
    ]);
    assert!(String::from_utf8_lossy(&md.stdout)
        .contains("| hdds-16452 | fixed | base | pct | holds | held |"));
}

#[test]
fn shards_are_disjoint_and_their_merge_is_the_whole_run() {
    let run = |extra: &[&str]| -> Vec<serde_json::Value> {
        let mut args = vec![
            "check",
            "hdds-16452",
            "--engine",
            "pct",
            "--seeds",
            "3",
            "--json",
            "--quiet",
        ];
        args.extend_from_slice(extra);
        let out = cli(&args);
        serde_json::from_slice::<serde_json::Value>(&out.stdout)
            .unwrap()
            .as_array()
            .unwrap()
            .clone()
    };
    let key = |r: &serde_json::Value| format!("{} {} {}", r["variant"], r["plan"], r["seed"]);
    let whole: Vec<String> = run(&[]).iter().map(key).collect();
    let mut parts: Vec<String> = Vec::new();
    let mut outputs = Vec::new();
    for i in 1..=3 {
        let shard = format!("{i}/3");
        let part = run(&["--shard", &shard]);
        parts.extend(part.iter().map(key));
        outputs.push(serde_json::to_vec(&part).unwrap());
    }
    let (mut a, mut b) = (whole.clone(), parts.clone());
    a.sort();
    b.sort();
    assert_eq!(a, b, "the shards' union is the whole run, each item once");
    let merged = merge_outputs("shards", &outputs);
    assert_eq!(merged.status.code(), Some(0));
    let merged: serde_json::Value = serde_json::from_slice(&merged.stdout).unwrap();
    assert_eq!(merged.as_array().unwrap().len(), whole.len());
    assert_usage_error(&["check", "--shard", "3/2"], "need 1 <= I <= N");
    assert_usage_error(&["check", "--shard", "0/2"], "need 1 <= I <= N");
}

#[test]
fn the_stateful_shards_of_a_generated_plan_merge_into_one_verdict() {
    let mut outputs = Vec::new();
    for i in 1..=2 {
        let shard = format!("{i}/2");
        let out = cli(&[
            "check",
            "hdds-17215",
            "--variant",
            "buggy",
            "--plan",
            "generated",
            "--engine",
            "stateful",
            "--shard",
            &shard,
            "--no-minimize",
            "--json",
            "--quiet",
        ]);
        assert_eq!(out.status.code(), Some(0));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v[0]["parts"]["present"], serde_json::json!([i]));
        assert!(v[0]["scope"]
            .as_str()
            .unwrap()
            .starts_with(&format!("part {i}/2 (")));
        outputs.push(out.stdout);
    }
    let both = merge_outputs("generated", &outputs);
    assert_eq!(both.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&both.stdout).unwrap();
    assert_eq!(
        v.as_array().unwrap().len(),
        1,
        "the parts join into one report"
    );
    assert_eq!(v[0]["verdict"], "violated");
    assert_eq!(v[0]["parts"]["present"], serde_json::json!([1, 2]));
    assert_eq!(v[0]["parts"]["workloads"], 13521);
    let origins: u64 = v[0]["state_origins"]
        .as_object()
        .expect("the merged report counts where its states came from")
        .values()
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert_eq!(
        Some(origins),
        v[0]["states"].as_u64(),
        "the parts' sums add up"
    );
    let one = merge_outputs("generated", &outputs[..1]);
    let stderr = String::from_utf8_lossy(&one.stderr);
    assert!(stderr.contains("part [2] of 2 missing"), "{stderr}");
    let v: serde_json::Value = serde_json::from_slice(&one.stdout).unwrap();
    assert!(v[0]["scope"]
        .as_str()
        .unwrap()
        .contains("part 2 of 2 missing"));
}

/// `report --format json --merge` over `outputs` (each a `check --json` output), written to
/// files in a directory of their own, removed after.
fn merge_outputs(label: &str, outputs: &[Vec<u8>]) -> std::process::Output {
    let dir = std::env::temp_dir().join(format!("ohc-{label}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let files: Vec<String> = outputs
        .iter()
        .enumerate()
        .map(|(i, output)| {
            let file = dir.join(format!("part-{}.json", i + 1));
            std::fs::write(&file, output).unwrap();
            file.to_string_lossy().into_owned()
        })
        .collect();
    let mut args = vec!["report", "--format", "json", "--merge"];
    args.extend(files.iter().map(String::as_str));
    let out = cli(&args);
    let _ = std::fs::remove_dir_all(dir);
    out
}

/// The nightly job splits each generated space across runners with the search over source
/// sets: each part explores the executions whose workload begins with its prefixes, so the
/// parts' executions and final states add up to the whole search's, and the merge says the
/// whole space was exhausted.
#[test]
fn the_parts_of_a_search_over_source_sets_add_up_to_the_whole() {
    let args = [
        "check",
        "hdds-8973",
        "--variant",
        "fixed",
        "--plan",
        "generated",
        "--requests",
        "2",
        "--faults",
        "1",
        "--engine",
        "stateful",
        "--unbounded-only",
        "--source-sets",
        "--json",
        "--quiet",
    ];
    let report = |extra: &[&str]| {
        let out = cli(&[&args[..], extra].concat());
        assert_eq!(out.status.code(), Some(0));
        out.stdout
    };
    let whole: serde_json::Value = serde_json::from_slice(&report(&[])).unwrap();
    let outputs: Vec<Vec<u8>> = (1..=3)
        .map(|i| report(&["--shard", &format!("{i}/3")]))
        .collect();
    let out = merge_outputs("source-parts", &outputs);
    assert_eq!(out.status.code(), Some(0));
    let joined: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let (whole, joined) = (&whole[0], &joined[0]);
    assert_eq!(whole["verdict"], "held");
    assert_eq!(joined["verdict"], "held");
    assert_eq!(whole["exhausted"], true);
    assert_eq!(joined["exhausted"], true);
    assert!(whole["executions"].as_u64().unwrap() > 100, "{whole}");
    for figure in ["executions", "final_states"] {
        assert_eq!(whole[figure], joined[figure], "{figure}");
    }
}

/// The stateful engine's report on hdds-11453 `variant` on `crash`, with `extra` flags
/// (the run must end as expected).
fn stateful_crash_report(variant: &str, extra: &[&str]) -> serde_json::Value {
    let args = [
        "check",
        "hdds-11453",
        "--variant",
        variant,
        "--plan",
        "crash",
        "--engine",
        "stateful",
        "--json",
        "--quiet",
    ];
    let out = cli(&[&args[..], extra].concat());
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v[0].clone()
}

#[test]
fn the_unbounded_search_alone_meets_the_same_states_in_fewer_executions() {
    let run = stateful_crash_report;
    let both = run("fixed", &[]);
    let alone = run("fixed", &["--unbounded-only"]);
    for report in [&both, &alone] {
        assert_eq!(report["verdict"], "held");
        assert_eq!(report["exhausted"], true);
    }
    for counted in ["states", "final_states"] {
        assert_eq!(alone[counted], both[counted], "{counted}");
    }
    assert!(both["walks"].as_u64().unwrap() > 0);
    assert_eq!(alone["walks"], 0);
    let executions = |r: &serde_json::Value| r["executions"].as_u64().unwrap();
    assert!(executions(&alone) < executions(&both), "{alone} {both}");
    let settings = alone["settings"].as_str().unwrap();
    assert!(settings.starts_with("each state once, the unbounded search alone"));
    // A violation is still found.
    let broken = run("buggy", &["--unbounded-only"]);
    assert_eq!(broken["verdict"], "violated", "{broken}");
}

#[test]
fn both_unbounded_searches_exhaust_a_case_to_the_same_final_states() {
    let run = |extra: &[&str]| {
        let v = stateful_crash_report("fixed", extra);
        assert_eq!(v["verdict"], "held");
        assert_eq!(v["exhausted"], true);
        (v["final_states"].as_u64().unwrap(), v["settings"].clone())
    };
    let (states, settings) = run(&[]);
    let (sources, source_settings) = run(&["--source-sets"]);
    assert_eq!(sources, states, "the same final states");
    assert!(states > 1);
    assert!(settings.as_str().unwrap().starts_with("each state once"));
    assert!(source_settings.as_str().unwrap().starts_with("source sets"));
}

#[test]
fn explain_states_lists_what_reached_the_states() {
    let args = [
        "check",
        "hdds-16452",
        "--variant",
        "fixed",
        "--plan",
        "base",
        "--engine",
        "stateful",
        "--quiet",
    ];
    let json = cli(&[&args[..], &["--json"]].concat());
    assert_eq!(json.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let states = v[0]["states"]
        .as_u64()
        .expect("a stateful report counts states");
    let origins = v[0]["state_origins"].as_object().unwrap();
    assert_eq!(
        origins.values().map(|n| n.as_u64().unwrap()).sum::<u64>(),
        states
    );
    assert_eq!(origins["start"], 1);
    let text = cli(&[&args[..], &["--explain-states"]].concat());
    assert_eq!(text.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&text.stdout);
    assert!(
        stdout.contains(&format!(
            "  stateful: {states} states, by what reached them:\n"
        )),
        "{stdout}"
    );
    for (what, n) in origins {
        assert!(
            stdout
                .lines()
                .any(|l| l.trim_start().starts_with(&n.to_string())
                    && l.ends_with(&format!("%  {what}"))),
            "{what}: {stdout}"
        );
    }
    let plain = cli(&args);
    assert!(!String::from_utf8_lossy(&plain.stdout).contains("by what reached them"));
}

#[test]
fn a_time_budget_stops_and_says_how_far_it_got() {
    let out = cli(&[
        "check",
        "hdds-16092",
        "--variant",
        "fixed",
        "--plan",
        "steady",
        "--engine",
        "pct",
        "--executions",
        "100000000",
        "--time-budget",
        "0.5",
        "--json",
        "--quiet",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let r = &v[0];
    assert_eq!(r["out_of_time"], true);
    let executions = r["executions"].as_u64().unwrap();
    assert!(executions > 0 && executions < 100_000_000);
    assert_usage_error(
        &["check", "--time-budget", "0"],
        "positive number of seconds",
    );
}

#[test]
fn other_sizes_are_reported_not_judged() {
    let out = cli(&[
        "check",
        "hdds-16092",
        "--size",
        "2",
        "--engine",
        "pct",
        "--executions",
        "300",
        "--json",
        "--quiet",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["expected"] == "-" && r["size"] == 2));
    assert_usage_error(&["check", "hdds-16092", "--size", "0"], "at least 1");
}

#[test]
fn bench_measures_a_part_and_merges_it_into_results() {
    let dir = std::env::temp_dir().join(format!("ohc-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let part = dir.join("part.json");
    let out = cli(&[
        "bench",
        "hdds-16452",
        "--seeds",
        "3",
        "--max-executions",
        "2000",
        "--rate-executions",
        "200",
        "--time-box",
        "1",
        "--sizes",
        "1,2",
        "--quiet",
        "--out",
        part.to_str().unwrap(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&part).unwrap()).unwrap();
    let rows = rows.as_array().unwrap();
    let buggy = rows
        .iter()
        .find(|r| {
            r["variant"] == "buggy" && r["plan"] == "base" && r["engine"] == "pct" && r["size"] == 1
        })
        .expect("a row for buggy/base under PCT");
    assert!(buggy["first_violation"]["median"].as_u64().unwrap() >= 1);
    assert!(buggy["floor_per_second"].as_f64().unwrap() > 0.0);
    assert!(
        rows.iter().any(|r| r["size"] == 2),
        "scaling rows at size 2"
    );
    let results = dir.join("results");
    let merged = cli(&[
        "bench",
        "--merge",
        part.to_str().unwrap(),
        "--results-dir",
        results.to_str().unwrap(),
    ]);
    assert_eq!(merged.status.code(), Some(0));
    let md = std::fs::read_to_string(results.join("RESULTS.md")).unwrap();
    assert!(md.contains("| hdds-16452 | buggy | base | pct |"), "{md}");
    let svg = std::fs::read_to_string(results.join("scaling-hdds-16452.svg")).unwrap();
    assert!(svg.starts_with("<svg"));
    // Found against minimized preemptions, in the table and as a figure.
    assert!(
        md.contains("| hdds-16452 | buggy | base | pct |")
            && md.contains("## Counterexamples: preemptions as found and minimized"),
        "{md}"
    );
    assert!(results.join("minimization.svg").exists());
    // The page embeds the plots of a bench result.
    let html = cli(&[
        "report",
        "hdds-16452",
        "--variant",
        "buggy",
        "--plan",
        "base",
        "--engine",
        "pct",
        "--format",
        "html",
        "--quiet",
        "--bench",
        results.join("results.json").to_str().unwrap(),
    ]);
    assert_eq!(html.status.code(), Some(0));
    let page = String::from_utf8_lossy(&html.stdout);
    assert!(page.contains("<section id=\"bench\">"));
    assert!(
        page.matches("<figure class=\"plot\"><svg").count() >= 2,
        "{page}"
    );
    assert_usage_error(
        &[
            "report",
            "--format",
            "html",
            "--bench",
            part.to_str().unwrap(),
            "--merge",
            "Cargo.toml",
        ],
        "not a JSON array of reports",
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn check_prints_a_line_per_case_and_a_summary() {
    let out = cli(&[
        "check",
        "hdds-16452",
        "--engine",
        "pct",
        "--executions",
        "500",
        "--quiet",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().filter(|l| !l.is_empty()).collect();
    // 36 cases, one line each, then the summary; no counterexample is printed when every
    // verdict is as expected.
    assert_eq!(lines.len(), 37, "{stdout}");
    assert!(lines[..36].iter().all(|l| l.contains(" ok ")), "{stdout}");
    let last = lines[36];
    assert!(
        last.starts_with("36 cases as expected: 18 violated, 18 held; 0 unexpected ("),
        "{last}"
    );
    // With --trace every counterexample is printed.
    let traced = cli(&[
        "check",
        "hdds-16452",
        "--engine",
        "pct",
        "--executions",
        "500",
        "--quiet",
        "--trace",
    ]);
    assert!(String::from_utf8_lossy(&traced.stdout).contains("trace ("));
}

#[test]
fn only_exhaustive_engines_report_exhaustion() {
    let out = cli(&[
        "check",
        "hdds-16452",
        "--variant",
        "fixed",
        "--plan",
        "base",
        "--executions",
        "50",
        "--json",
        "--quiet",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for row in v.as_array().unwrap() {
        assert_eq!(row["exhausted"], false, "{row}");
    }
    let dfs = cli(&[
        "check",
        "hdds-16452",
        "--variant",
        "fixed",
        "--plan",
        "base",
        "--engine",
        "dfs",
        "--executions",
        "1000000",
        "--json",
        "--quiet",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&dfs.stdout).unwrap();
    assert_eq!(v[0]["exhausted"], true, "{v}");
}

#[test]
fn preemption_bounds_are_numbers_or_none() {
    assert_usage_error(
        &["check", "--preemption-bound", "some"],
        "give a number, or `none`",
    );
    // Accepted by the default build, though only loom uses it.
    let out = cli(&[
        "check",
        "hdds-16452",
        "--variant",
        "fixed",
        "--plan",
        "base",
        "--engine",
        "pct",
        "--executions",
        "20",
        "--preemption-bound",
        "none",
        "--quiet",
    ]);
    assert_ne!(out.status.code(), Some(2));
}

#[test]
fn an_unwritable_save_directory_exits_1_with_its_path() {
    let file = std::env::temp_dir().join(format!("ohc-not-a-dir-{}", std::process::id()));
    std::fs::write(&file, "a file, not a directory").unwrap();
    let out = cli(&[
        "check",
        "hdds-16452",
        "--variant",
        "buggy",
        "--plan",
        "base",
        "--engine",
        "pct",
        "--quiet",
        "--save",
        file.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains(file.to_str().unwrap()), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let _ = std::fs::remove_file(file);
}

mod fuzz {
    //! Arbitrary schedules, counterexample files and option values never make the command
    //! panic: every run ends with exit 0, or with 1 or 2 and a message.
    use super::cli;
    use proptest::prelude::*;
    use std::process::Output;

    fn assert_clean(args: &[String], out: &Output) -> Result<(), TestCaseError> {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let code = out.status.code();
        prop_assert!(
            matches!(code, Some(0..=2)),
            "{args:?}: exit {code:?}: {stderr}"
        );
        prop_assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        // Exit 1 without an error is a run whose verdict was not the expected one (a budget
        // cut short on a busy machine can leave a fixed variant's window unreached): the
        // summary line says so.
        let stdout = String::from_utf8_lossy(&out.stdout);
        let judged = code == Some(1) && stdout.contains(" unexpected (");
        if code != Some(0) && !judged {
            prop_assert!(stderr.contains("error"), "{args:?}: no message: {stderr}");
        }
        Ok(())
    }

    fn run(args: Vec<String>) -> Result<(), TestCaseError> {
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        assert_clean(&args, &cli(&refs))
    }

    fn replay_args(schedule: String) -> Vec<String> {
        [
            "replay",
            "hdds-16452",
            "--variant",
            "buggy",
            "--plan",
            "base",
            "--schedule",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain([schedule])
        .collect()
    }

    fn schedule_text() -> impl Strategy<Value = String> {
        prop_oneof![
            any::<String>(),
            "v1:[0-9x,r]{0,40}",
            prop::collection::vec((0usize..6, 1usize..4), 0..30).prop_map(|steps| {
                let body: Vec<String> = steps.iter().map(|(t, n)| format!("{t}x{n}")).collect();
                format!("v1:{}", body.join(","))
            }),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

        #[test]
        fn replay_takes_any_schedule_text(schedule in schedule_text()) {
            prop_assume!(!schedule.starts_with('-') && !schedule.contains('\0'));
            run(replay_args(schedule))?;
        }

        #[test]
        fn replay_takes_any_counterexample_file(
            format in prop_oneof![Just("ozone-ha-check/counterexample/v1".to_string()), any::<String>()],
            schedule in schedule_text(),
            body in any::<String>(),
            truncate in any::<bool>(),
        ) {
            let json = serde_json::json!({
                "format": format, "scenario": "hdds-16452", "variant": "buggy", "plan": "base",
                "engine": "pct", "invariant": "CheckpointConsistent", "detail": "",
                "violation_step": 0, "schedule": schedule, "context_switches": null, "trace": [],
            });
            let mut text = if body.len() % 3 == 0 { body } else { json.to_string() };
            if truncate && text.len() > 4 {
                let mut cut = text.len() / 2;
                while !text.is_char_boundary(cut) {
                    cut -= 1;
                }
                text.truncate(cut);
            }
            let file = tempfile::NamedTempFile::new().unwrap();
            std::fs::write(file.path(), text).unwrap();
            run(replay_args(file.path().to_string_lossy().into_owned()))?;
        }

        #[test]
        fn check_takes_any_option_values(
            option in prop::sample::select(vec![
                "--executions", "--seed", "--depth", "--preemption-bound", "--size", "--seeds",
                "--shard", "--time-budget", "--variant", "--plan", "--engine", "--invariant",
            ]),
            value in prop_oneof![
                any::<String>(),
                "-?[0-9]{1,22}",
                "[0-9]{1,3}/[0-9]{1,3}",
                Just("none".to_string()),
                Just("NaN".to_string()),
                Just("inf".to_string()),
            ],
        ) {
            prop_assume!(!value.starts_with('-') && !value.contains('\0'));
            // Keep a valid run short: one small case under PCT.
            let mut args: Vec<String> = ["check", "hdds-16452", "--variant", "fixed", "--plan", "base", "--engine", "pct", "--quiet"]
                .iter().map(|s| s.to_string()).collect();
            let replaces = ["--variant", "--plan", "--engine"].contains(&option);
            if replaces {
                let at = args.iter().position(|a| a == option).unwrap();
                args[at + 1] = value;
            } else {
                args.push(option.to_string());
                args.push(value);
                if option != "--executions" {
                    args.extend(["--executions".to_string(), "20".to_string()]);
                }
                // A valid but huge count must not make the test hang: a budget bounds it.
                if option != "--time-budget" {
                    args.extend(["--time-budget".to_string(), "2".to_string()]);
                }
            }
            run(args)?;
        }
    }
}

#[test]
fn the_engine_table_is_listed_and_loom_s_variable_never_fails_another_build() {
    let out = cli(&["list", "--engines", "--json"]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["engine"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["random", "pct", "dfs", "stateful", "replay", "loom", "threads"]
    );
    let out = Command::new(env!("CARGO_BIN_EXE_ozone-ha-check"))
        .args(["check", "hdds-7279", "--engine", "pct", "--quiet"])
        .env("LOOM_MAX_PREEMPTIONS", "none")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
