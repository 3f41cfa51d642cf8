//! HDDS-7279 under shuttle: both fixes hold with the create swapped together with the key
//! write, and the parent's one batch checkpoints the DB without the key.
// Reference: HDDS-7279, fix 6fe2ab80115 (PR #3958); HDDS-7906, 4d09962a659.

use crate::support::{apply_then_flush, pct, run};
use ozone_ha_check::engine::run_once_returning;
use ozone_ha_check::explore::Verdict;
use ozone_ha_check::kit::raft_log::Payload;
use ozone_ha_check::kit::store::Store;
use ozone_ha_check::kit::tx_info::{put_tx_info, stored_index};
use ozone_ha_check::models::om::snapshot::node::SnapshotOm;
use ozone_ha_check::models::om::snapshot::{Dirs, Snapshots};
use ozone_ha_check::models::om::{OmRow, OmTables, OPEN_KEY_TABLE};
use ozone_ha_check::recorder::{Actor, Recorder};
use ozone_ha_check::scenarios::hdds_7279::{create_log, log, reference, Variant, VOCABULARY};
use ozone_ha_check::sync::Arc;

const S: &str = "hdds-7279";

fn both_fixes_hold_over_many_seeds_with_the_create_swapped_with_the_key() {
    for seed in 0..5 {
        for variant in ["fixed", "split-at-create"] {
            for plan in ["one-om", "two-oms"] {
                let r = run(S, variant, plan, pct(seed, 2_000), None);
                assert_eq!(r.verdict, Verdict::Held, "seed {seed} {variant} {plan}");
                assert!(r.probes["CreateSwappedWithEarlier"] > 0, "{variant} {plan}");
            }
        }
    }
}

/// Both entries applied before the first swap. Returns whether the snapshot holds k1, and
/// its `TransactionInfo`.
fn create_swapped_with_the_key(variant: Variant) -> (bool, u64) {
    run_once_returning(move || {
        let rec = Arc::new(Recorder::new(None));
        let me = Actor::new("om", &rec);
        let dirs = Arc::new(Dirs::new([]));
        let store = Arc::new(Store::with_state(Default::default(), None));
        let snaps = Snapshots::new(Arc::clone(&dirs), [], &[], variant.java(), variant.cites());
        let om = SnapshotOm::new(store, snaps, false);
        let log = create_log();
        apply_then_flush(&om, &me, &log, 0);
        let s1 = dirs.content("s1").expect("the snapshot was created");
        (s1.get(OPEN_KEY_TABLE, "k1").is_some(), stored_index(&s1))
    })
}

fn the_parents_single_batch_checkpoints_without_the_earlier_entry() {
    assert_eq!(create_swapped_with_the_key(Variant::Buggy), (false, 0));
    assert_eq!(create_swapped_with_the_key(Variant::Fixed), (true, 2));
    assert_eq!(
        create_swapped_with_the_key(Variant::SplitAtCreate),
        (true, 2)
    );
}

/// `workload` applied whole before one flush, so a single swap takes every response: the
/// batches the variant's split cut (the split step's text, none for one batch), and each
/// snapshot's content, in log order.
fn one_swap(variant: Variant, workload: &str) -> (Option<String>, Vec<Option<OmTables>>) {
    let w = VOCABULARY.parse(workload).unwrap();
    run_once_returning(move || {
        let rec = Arc::new(Recorder::new(None));
        let me = Actor::new("om", &rec);
        let dirs = Arc::new(Dirs::new([]));
        let mut fresh = OmTables::default();
        put_tx_info(&mut fresh, 0, 0);
        let store = Arc::new(Store::with_state(fresh, None));
        let snaps = Snapshots::new(Arc::clone(&dirs), [], &[], variant.java(), variant.cites());
        let om = SnapshotOm::new(store, snaps, false);
        let log = log(&w);
        apply_then_flush(&om, &me, &log, 0);
        let split = rec
            .take()
            .trace
            .iter()
            .find(|e| e.action.starts_with("split into batches"))
            .map(|e| e.action.clone());
        let contents = reference(&log)
            .iter()
            .map(|(name, _)| dirs.content(name))
            .collect();
        (split, contents)
    })
}

/// `splitReadyBufferAtCreateSnapshot` where one swap takes a create first, two creates, or
/// keys after a create: a new batch at the first response, at a create and after a create
/// (OzoneManagerDoubleBuffer.java:443-448 at 4d09962a659, 443-448 at 6fe2ab80115 with the
/// getter's `!= null`, true for every response of a proto2 `OMResponse`); at the parent
/// `flushTransactions` stages the whole ready buffer into one batch.
fn staged_one_swap_cuts_at_creates_and_the_snapshots_hold_their_prefix() {
    use ozone_ha_check::citation::java;
    let _ = (
        &java::hdds_7279_parent::OzoneManagerDoubleBuffer::flushTransactions,
        &java::hdds_7279::OzoneManagerDoubleBuffer::splitReadyBufferAtCreateSnapshot,
        &java::hdds_7906::OzoneManagerDoubleBuffer::splitReadyBufferAtCreateSnapshot,
    );
    let cases = [
        // A create first, keys after it.
        ("snapshot(s1) key(k1) key(k2)", "[[2], [3, 4]]"),
        // Two creates in one swap, a create last.
        (
            "key(k1) key(k2) snapshot(s1) snapshot(s2)",
            "[[2, 3], [4], [5]]",
        ),
        // A key between two creates.
        (
            "key(k1) snapshot(s1) key(k2) snapshot(s2)",
            "[[2], [3], [4], [5]]",
        ),
    ];
    for (workload, at_create) in cases {
        let expected: Vec<Option<OmTables>> = reference(&log(&VOCABULARY.parse(workload).unwrap()))
            .into_iter()
            .map(|(_, t)| Some(t))
            .collect();
        let (split, held) = one_swap(Variant::SplitAtCreate, workload);
        assert_eq!(
            split.as_deref(),
            Some(format!("split into batches {at_create}").as_str())
        );
        assert_eq!(held, expected, "split-at-create {workload}");
        let (split, held) = one_swap(Variant::Fixed, workload);
        assert!(split.is_some(), "{workload}");
        assert_eq!(held, expected, "fixed {workload}");
        let (split, held) = one_swap(Variant::Buggy, workload);
        assert_eq!(split, None);
        // One batch: every snapshot is the DB before the swap, TransactionInfo 0.
        assert!(held
            .iter()
            .all(|s| s.as_ref().is_some_and(|s| stored_index(s) == 0)));
        assert_eq!(
            held == expected,
            workload.starts_with("snapshot"),
            "buggy {workload}"
        );
    }
}

/// The generated plan's space and how a workload becomes a log.
fn generated_workloads_map_to_a_log() {
    use ozone_ha_check::models::om::snapshot::requests::SnapshotRequest;
    assert_eq!(VOCABULARY.count(VOCABULARY.bounds), 20);
    // A second create of one snapshot is not drawn.
    let w = VOCABULARY
        .parse("snapshot(s1) key(k1) snapshot(s1)")
        .unwrap();
    assert_eq!(VOCABULARY.encode(&w, VOCABULARY.bounds), None);
    // The written plans are the workload `key(k1) snapshot(s1)`.
    let written = log(&VOCABULARY.parse("key(k1) snapshot(s1)").unwrap());
    assert_eq!(written.last_index(), create_log().last_index());
    let requests = |l: &ozone_ha_check::kit::raft_log::RaftLog<SnapshotRequest>| {
        l.after(0)
            .filter_map(|e| match &e.payload {
                Payload::Data(r) => Some(r.clone()),
                _ => None,
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(requests(&written), requests(&create_log()));
    // A repeated key: the snapshot between the creates holds the first one's row.
    let l = log(&VOCABULARY.parse("key(k1) snapshot(s1) key(k1)").unwrap());
    let r = reference(&l);
    assert_eq!(r.len(), 1);
    assert_eq!(
        r[0].1.get(OPEN_KEY_TABLE, "k1"),
        Some(&OmRow::Key {
            size: 10,
            update_id: 2
        })
    );
    assert_eq!(stored_index(&r[0].1), 2);
}

/// This module's tests.
pub(crate) fn trials() -> Vec<libtest_mimic::Trial> {
    crate::trials![
        both_fixes_hold_over_many_seeds_with_the_create_swapped_with_the_key,
        the_parents_single_batch_checkpoints_without_the_earlier_entry,
        staged_one_swap_cuts_at_creates_and_the_snapshots_hold_their_prefix,
        generated_workloads_map_to_a_log
    ]
}
