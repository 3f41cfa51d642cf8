//! HDDS-10590 under shuttle: the SST filter's locked get-put of a `SnapshotInfo` against the
//! snapshot purge's rewrite at apply and write at flush. The parent loses the purge's rewrite
//! (or brings a purged row back); the fix's locks end with the apply, and the flag the filter
//! puts between apply and flush is still lost.
// Reference: HDDS-10590, fix 7da5ecb5855 (PR #6456), parent a38570a7993.

use crate::support::{pct, run};
use ozone_ha_check::citation::java::{hdds_10590 as fix, hdds_10590_parent as parent};
use ozone_ha_check::engine::run_once_returning;
use ozone_ha_check::explore::Verdict;
use ozone_ha_check::models::om::snapshot::chain::{ChainOm, Info};
use ozone_ha_check::recorder::{Actor, Recorder};
use ozone_ha_check::scenarios::hdds_10590::{
    initial, request, Plan, Variant, EXCLUSIVE_SIZE, FILTER_CITES, PURGE_INDEX,
};
use ozone_ha_check::sync::Arc;
use std::collections::BTreeMap;

const S: &str = "hdds-10590";

fn fixed_holds_on_purge_unfiltered_in_the_window() {
    for seed in 0..3 {
        let r = run(S, "fixed", "purge-unfiltered", pct(seed, 500), None);
        assert_eq!(r.verdict, Verdict::Held, "seed {seed}");
        assert!(r.probes["FilterDuringPurge"] > 0);
        assert_eq!(r.probes["FilterStraddledPurge"], 0);
        let r = run(S, "buggy", "purge-unfiltered", pct(seed, 500), None);
        assert_eq!(r.verdict, Verdict::Violated, "seed {seed}");
    }
}

/// The purge and the filter on one thread in a fixed order: `filter_at` 0 before the apply,
/// 1 between the apply and the flush, 2 after the flush. The committed rows and what the
/// filter marked.
fn staged(variant: Variant, plan: Plan, filter_at: u8) -> (BTreeMap<String, Info>, Vec<String>) {
    run_once_returning(move || {
        let rec = Arc::new(Recorder::with_tracing(None, true));
        let me = Actor::new("om", &rec);
        let om = ChainOm::new(&initial(plan), variant.java());
        let mut marked = Vec::new();
        let mut filter = |at: u8| {
            if at == filter_at {
                marked = om.sst_filter_run(&me, &FILTER_CITES);
            }
        };
        filter(0);
        assert!(om.apply(&me, PURGE_INDEX, &request(plan)));
        filter(1);
        om.flush_thread(&me, PURGE_INDEX);
        filter(2);
        (om.rows(), marked)
    })
}

/// [`markSSTFilteredFlagForSnapshot`] between the purge's apply and its flush reads the
/// purge's object from the table cache (a copy: previous ids cleared, deepClean cleared) and
/// puts it flagged; the flush then writes the purge's own object, unflagged. At the parent
/// and at the fix alike: the fix's locks are released when the apply returns.
// Reference: SstFilteringService.java:123-144 at a38570a7993; OMSnapshotPurgeRequest.java:
// 112-147 and OMSnapshotPurgeResponse.java:78-102 at 7da5ecb5855.
fn staged_a_filter_between_apply_and_flush_loses_its_flag() {
    let _ = (
        &parent::SstFilteringService::SstFilteringTask::markSSTFilteredFlagForSnapshot,
        &parent::TypedTable::get,
        &parent::TypedTable::put,
        &fix::OMSnapshotPurgeRequest::validateAndUpdateCache,
        &fix::OMSnapshotPurgeResponse::addToDBBatch,
    );
    for variant in [Variant::Buggy, Variant::Fixed] {
        let (rows, marked) = staged(variant, Plan::PurgeNext, 1);
        assert_eq!(marked, ["s2"], "{variant:?}");
        let s2 = &rows["s2"];
        assert_eq!((&s2.path_prev, &s2.global_prev), (&None, &None));
        assert!(!s2.deep_clean);
        assert!(
            !s2.sst_filtered,
            "{variant:?}: the flush wrote the purge's object"
        );
        assert!(!rows.contains_key("s1"));
    }
}

/// Before the apply or after the flush, the filter's put and the purge's rewrite compose:
/// the purge's `get` reads the flagged row from RocksDB, or the filter reads the purge's.
// Reference: OMSnapshotPurgeRequest.java:123-230 at a38570a7993 (`updateSnapshotInfoAndCache`,
// `updateSnapshotChainAndCache`).
fn staged_a_filter_outside_the_purge_keeps_both() {
    let _ = (
        &parent::OMSnapshotPurgeRequest::updateSnapshotInfoAndCache,
        &parent::OMSnapshotPurgeRequest::updateSnapshotChainAndCache,
        &fix::OMSnapshotPurgeRequest::updateSnapshotChainAndCache,
        &fix::OMSnapshotPurgeRequest::updateSnapshotInfoAndCache,
    );
    for variant in [Variant::Buggy, Variant::Fixed] {
        for at in [0, 2] {
            let (rows, marked) = staged(variant, Plan::PurgeNext, at);
            assert_eq!(marked, ["s2"], "{variant:?} {at}");
            let s2 = &rows["s2"];
            assert!(s2.sst_filtered && !s2.deep_clean && s2.path_prev.is_none());
        }
    }
}

/// A filter that reaches the purged s1 after the apply reads null (the purge's delete in the
/// table cache, then RocksDB) and dereferences it: nothing is marked, nothing written.
// Reference: SstFilteringService.java:135-137, 217 at a38570a7993; OMSnapshotPurgeRequest.java:
// 108-109 there.
fn staged_a_filter_after_the_apply_throws_on_the_purged_row() {
    let _ = (
        &parent::SstFilteringService::SstFilteringTask::call,
        &parent::OMSnapshotPurgeRequest::validateAndUpdateCache,
    );
    for variant in [Variant::Buggy, Variant::Fixed] {
        for at in [1, 2] {
            let (rows, marked) = staged(variant, Plan::PurgeUnfiltered, at);
            assert!(marked.is_empty(), "{variant:?} {at}");
            assert!(!rows.contains_key("s1"));
        }
    }
}

/// [`OMSnapshotSetPropertyRequest.validateAndUpdateCache`] adds to the exclusive size of a
/// copy it puts into the table cache; a filter between its apply and its flush marks a copy
/// of that object, and the flush writes the request's own object, unflagged: the fix's lock
/// ends with the apply. Before the apply or after the flush both updates stay.
// Reference: OMSnapshotSetPropertyRequest.java:65-103 at a38570a7993, :72-131 at 7da5ecb5855;
// OMSnapshotSetPropertyResponse.java:57 at a38570a7993.
fn staged_a_set_property_and_the_filter() {
    let _ = (
        &parent::OMSnapshotSetPropertyRequest::validateAndUpdateCache,
        &parent::OMSnapshotSetPropertyResponse::addToDBBatch,
        &fix::OMSnapshotSetPropertyRequest::validateAndUpdateCache,
    );
    for variant in [Variant::Buggy, Variant::Fixed] {
        for at in [0, 1, 2] {
            let (rows, marked) = staged(variant, Plan::SetProperty, at);
            assert_eq!(marked, ["s2"], "{variant:?} {at}");
            let s2 = &rows["s2"];
            assert_eq!(s2.exclusive_size, EXCLUSIVE_SIZE, "{variant:?} {at}");
            assert_eq!(s2.sst_filtered, at != 1, "{variant:?} {at}");
        }
    }
}

/// The generated plan's space, and how a workload becomes a log and a filter start.
fn generated_workloads_map_to_a_log_and_a_filter_start() {
    use ozone_ha_check::models::om::snapshot::chain::ChainRequest;
    use ozone_ha_check::scenarios::hdds_10590::{log, VOCABULARY};
    assert_eq!(VOCABULARY.count(VOCABULARY.bounds), 201);
    // A set-property request or a second purge of a purged snapshot is not drawn.
    for refused in ["purge(s1) set-property(s1)", "purge(s1) purge(s1)"] {
        let w = VOCABULARY.parse(refused).unwrap();
        assert_eq!(VOCABULARY.encode(&w, VOCABULARY.bounds), None, "{refused}");
    }
    let w = VOCABULARY
        .parse("set-property(s2) filter purge(s1)")
        .unwrap();
    let (entries, filter_at) = log(&w);
    assert_eq!(filter_at, Some(1));
    assert_eq!(
        entries,
        vec![
            (
                PURGE_INDEX,
                ChainRequest::SetProperty {
                    snapshot: "s2".into(),
                    exclusive_size: EXCLUSIVE_SIZE
                }
            ),
            (
                PURGE_INDEX + 1,
                ChainRequest::Purge {
                    snapshot: "s1".into()
                }
            ),
        ]
    );
    assert_eq!(log(&VOCABULARY.parse("purge(s2)").unwrap()).1, None);
}

/// This module's tests.
pub(crate) fn trials() -> Vec<libtest_mimic::Trial> {
    crate::trials![
        fixed_holds_on_purge_unfiltered_in_the_window,
        staged_a_filter_between_apply_and_flush_loses_its_flag,
        staged_a_filter_outside_the_purge_keeps_both,
        staged_a_filter_after_the_apply_throws_on_the_purged_row,
        staged_a_set_property_and_the_filter,
        generated_workloads_map_to_a_log_and_a_filter_start
    ]
}
