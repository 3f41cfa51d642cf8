//! HDDS-8681 under shuttle: the fix holds for a create already in flight, breaks for a create
//! applied after its lock, and the batched cleanup holds both ways.
// Reference: HDDS-8681, fix 1ae0401b1ac (PR #4950); HDDS-11183, 1996f3aeb4e.

use crate::support::{pct, run};
use ozone_ha_check::explore::Verdict;

const S: &str = "hdds-8681";

fn the_holding_cases_hold_over_many_seeds_with_the_create_in_flight() {
    for seed in 0..3 {
        for (variant, plan) in [
            ("fixed", "in-flight"),
            ("batched-cleanup", "in-flight"),
            ("batched-cleanup", "racing"),
        ] {
            let r = run(S, variant, plan, pct(seed, 5_000), None);
            assert_eq!(r.verdict, Verdict::Held, "seed {seed} {variant} {plan}");
            assert!(
                r.probes["CreateInFlightAtBootstrap"] > 0,
                "{variant} {plan}"
            );
        }
    }
}

/// Where the first step of `actor` whose Java method starts with `java` is in the trace.
fn position(r: &ozone_ha_check::explore::Report, actor: &str, java: &str) -> usize {
    r.trace
        .iter()
        .position(|e| e.actor == actor && e.java.starts_with(java))
        .unwrap_or_else(|| panic!("no {actor} step {java}"))
}

fn the_fix_breaks_only_for_a_create_applied_after_its_lock() {
    for seed in 0..3 {
        let r = run(S, "fixed", "racing", pct(seed, 20_000), None);
        assert_eq!(r.verdict, Verdict::Violated, "seed {seed}");
        let lock = position(&r, "servlet", "OMDBCheckpointServlet.Lock.lock");
        let add = position(&r, "apply", "OzoneManagerDoubleBuffer.add");
        let snapshot = position(&r, "flush", "OmSnapshotManager.createOmSnapshotCheckpoint");
        let checkpoint = position(
            &r,
            "servlet",
            "DBCheckpointServlet.generateSnapshotCheckpoint",
        );
        let commit = position(&r, "flush", "OzoneManagerDoubleBuffer.flushBatch");
        assert!(lock < add, "seed {seed}: the lock came first");
        assert!(
            snapshot < checkpoint && checkpoint < commit,
            "seed {seed}: inside the flush"
        );
        assert!(r
            .detail
            .as_deref()
            .unwrap_or("")
            .contains("deletedTable/d1"));
    }
}

fn the_parents_checkpoint_inside_the_creates_flush_ships_no_snapshot() {
    let r = run(S, "buggy", "in-flight", pct(0, 5_000), None);
    assert_eq!(r.verdict, Verdict::Violated);
    let skipped = r
        .trace
        .iter()
        .find(|e| e.actor == "servlet" && e.java.starts_with("OMDBCheckpointServlet.processDir"))
        .expect("the archive step");
    assert!(
        skipped.action.contains("skipped unknown dirs [\"s2\"]"),
        "{}",
        skipped.action
    );
}

/// This module's tests.
pub(crate) fn trials() -> Vec<libtest_mimic::Trial> {
    crate::trials![
        the_holding_cases_hold_over_many_seeds_with_the_create_in_flight,
        the_fix_breaks_only_for_a_create_applied_after_its_lock,
        the_parents_checkpoint_inside_the_creates_flush_ships_no_snapshot
    ]
}
