//! HDDS-8832 under shuttle: the flush thread's purge checks that the chain's tail has no next,
//! the apply thread's create links to it, the purge unlinks it; the create's row keeps the
//! purged snapshot as its previous, at the parent and at the fix, and not once the purge
//! updates the chain at apply (HDDS-8665).
// Reference: HDDS-8832, fix 57d8a4144a2 (PR #4909), parent 5306f65603f; HDDS-8665 fcf5b17a4ed.

use crate::support::{pct, run};
use ozone_ha_check::citation::java::{
    hdds_8665 as h8665, hdds_8832 as fix, hdds_8832_parent as parent,
};
use ozone_ha_check::engine::run_once_returning;
use ozone_ha_check::explore::Verdict;
use ozone_ha_check::models::om::snapshot::chain::{Chain, ChainOm, Info};
use ozone_ha_check::recorder::{Actor, Recorder};
use ozone_ha_check::scenarios::hdds_8832::{initial, log, logs, Variant, PATH, VOCABULARY};
use ozone_ha_check::sync::Arc;
use std::collections::BTreeMap;

const S: &str = "hdds-8832";

fn info(prev: Option<&str>, created: u64) -> Info {
    Info {
        path: PATH.into(),
        path_prev: prev.map(Into::into),
        global_prev: prev.map(Into::into),
        created,
        deep_clean: false,
        sst_filtered: false,
        exclusive_size: 0,
    }
}

fn buggy_and_fixed_break_the_chain_and_hdds_8665_holds_in_the_window() {
    for seed in 0..5 {
        for variant in ["buggy", "fixed"] {
            let r = run(S, variant, "purge-latest", pct(seed, 500), None);
            assert_eq!(r.verdict, Verdict::Violated, "seed {seed} {variant}");
        }
        let r = run(S, "hdds-8665", "purge-latest", pct(seed, 500), None);
        assert_eq!(r.verdict, Verdict::Held, "seed {seed}");
        assert!(r.probes["CreateDuringPurgeFlush"] > 0);
        assert_eq!(r.probes["LinkedAfterPurgeChecked"], 0);
    }
}

/// [`loadFromSnapshotInfoTable`] adds the rows in creation-time order through
/// [`addSnapshot`], which throws when a row's previous is not in the chain: a row naming a
/// purged snapshot fails the OM's start.
// Reference: SnapshotChainManager.java:72-91, 233-254 at 5306f65603f.
fn staged_the_load_fails_on_a_purged_previous() {
    let _ = (
        &parent::SnapshotChainManager::loadFromSnapshotInfoTable,
        &parent::SnapshotChainManager::addSnapshot,
        &fix::SnapshotChainManager::loadFromSnapshotInfoTable,
    );
    let (s0, s2) = (info(None, 0), info(Some("s1"), 3));
    let err = Chain::load([("s2", &s2), ("s0", &s0)]).unwrap_err();
    assert!(err.contains("Previous snapshotId: s1"), "{err}");
    let s1 = info(Some("s0"), 1);
    // Creation time, not key order, decides the order.
    assert!(Chain::load([("s2", &s2), ("s1", &s1), ("s0", &s0)]).is_ok());
}

/// The race on the chain alone, in the order the flush and apply threads take it: the purge
/// finds no next for s1, the create links s2 to s1, [`deleteSnapshot`] unlinks s1 and relinks
/// s0 <- s2 in memory. The running chain is consistent; the row the create writes (previous
/// s1) is not, and the next start fails.
// Reference: OMSnapshotPurgeResponse.java:101-157, SnapshotChainManager.java:127-228 at
// 5306f65603f.
fn staged_delete_relinks_memory_not_the_row() {
    let _ = (
        &parent::OMSnapshotPurgeResponse::cleanupSnapshotChain,
        &parent::SnapshotChainManager::deleteSnapshot,
        &fix::SnapshotChainManager::deleteSnapshot,
    );
    let rows = initial();
    let mut chain = Chain::load(rows.iter().map(|(k, v)| (*k, v))).unwrap();
    assert_eq!(chain.next_global("s1"), Ok(None));
    assert_eq!(chain.next_path(PATH, "s1"), Ok(None));
    let s2 = info(chain.latest_global().as_deref(), 3);
    assert_eq!(s2.global_prev.as_deref(), Some("s1"));
    chain.add("s2", &s2).unwrap();
    assert_eq!(chain.delete("s1", PATH), Ok(true));
    let links = chain.previous_ids();
    assert_eq!(links["s2"], (Some("s0".into()), Some("s0".into())));
    assert_eq!(chain.latest_global().as_deref(), Some("s2"));
    let s0 = &rows[0].1;
    assert!(Chain::load([("s0", s0), ("s2", &s2)]).is_err());
}

/// The create reads the tail, the purge unlinks it whole, then [`addSnapshot`] finds no s1:
/// the create fails, and the parent's catch leaves the chain alone (s2 is not the tail). The
/// story's order fails the create; it does not corrupt the chain.
// Reference: OMSnapshotCreateRequest.java:167-201 at 5306f65603f.
fn staged_the_story_order_fails_the_create() {
    let _ = &parent::OMSnapshotCreateRequest::validateAndUpdateCache;
    let rows = initial();
    let mut chain = Chain::load(rows.iter().map(|(k, v)| (*k, v))).unwrap();
    let s2 = info(chain.latest_global().as_deref(), 3);
    assert_eq!(chain.delete("s1", PATH), Ok(true));
    let err = chain.add("s2", &s2).unwrap_err();
    assert!(err.contains("Previous snapshotId: s1"), "{err}");
    assert_ne!(chain.latest_global().as_deref(), Some("s2"));
    assert_eq!(chain.latest_global().as_deref(), Some("s0"));
}

/// Committed rows and the running chain after the plan's two entries applied and flushed in
/// a fixed order: `flush_between` flushes the purge before the create is applied.
fn sequential(variant: Variant, flush_between: bool) -> (BTreeMap<String, Info>, Chain) {
    run_once_returning(move || {
        let rec = Arc::new(Recorder::with_tracing(None, true));
        let me = Actor::new("om", &rec);
        let om = ChainOm::new(&initial(), variant.java());
        let log = log();
        assert!(om.apply(&me, log[0].0, &log[0].1));
        if flush_between {
            om.flush_thread(&me, log[0].0);
        }
        assert!(om.apply(&me, log[1].0, &log[1].1));
        om.flush_thread(&me, log[1].0);
        assert!(om.exits().is_empty());
        (om.rows(), om.chain())
    })
}

/// Applied and flushed one after the other, every variant ends with s0 <- s2 in the rows and
/// the chain. With both applied before the flush, the parent's purge finds s2 as s1's next and
/// rewrites s2's previous through the `SnapshotInfo` the table cache holds: the parent's
/// `Table.get` hands out that object itself (`DelegatedCodec.CopyType.SHALLOW`,
/// SnapshotInfo.java:56-63 at 5306f65603f), the one the create's response then writes, so
/// the row says s0. HDDS-8665 does the same at apply through a copy it puts in the cache.
// Reference: OMSnapshotPurgeResponse.java:112-154 at 5306f65603f;
// OMSnapshotPurgeRequest.java:142-225 at fcf5b17a4ed.
fn staged_the_purge_rewrites_the_next_row_when_it_sees_it() {
    let _ = (
        &parent::OMSnapshotPurgeResponse::addToDBBatch,
        &parent::OMSnapshotCreateResponse::addToDBBatch,
        &fix::OMSnapshotCreateRequest::addSnapshotInfoToSnapshotChainAndCache,
        &h8665::OMSnapshotPurgeRequest::updateSnapshotChainAndCache,
        &h8665::OMSnapshotPurgeResponse::addToDBBatch,
    );
    for variant in [Variant::Buggy, Variant::Fixed, Variant::Hdds8665] {
        for flush_between in [true, false] {
            let (rows, chain) = sequential(variant, flush_between);
            let keys: Vec<&str> = rows.keys().map(String::as_str).collect();
            assert_eq!(keys, ["s0", "s2"], "{variant:?} {flush_between}");
            let s2 = &rows["s2"];
            assert_eq!(
                (s2.path_prev.as_deref(), s2.global_prev.as_deref()),
                (Some("s0"), Some("s0")),
                "{variant:?} {flush_between}"
            );
            assert_eq!(
                chain.previous_ids()["s2"],
                (Some("s0".into()), Some("s0".into()))
            );
        }
    }
}

/// A generated workload applied and flushed one entry at a time, then the OM restarted
/// ([`ChainOm::restart`]): the rows and the chain before the restart, and the restarted
/// OM's chain (`None` when it does not start).
fn sequential_workload(
    variant: Variant,
    workload: &str,
) -> (BTreeMap<String, Info>, Chain, Option<Chain>) {
    let workload = VOCABULARY.parse(workload).unwrap();
    run_once_returning(move || {
        let rec = Arc::new(Recorder::with_tracing(None, true));
        let me = Actor::new("om", &rec);
        let om = ChainOm::new(&initial(), variant.java());
        let logs = logs(&workload);
        assert_eq!(logs.len(), 1);
        for (index, request) in &logs[0] {
            assert!(om.apply(&me, *index, request));
            om.flush_thread(&me, *index);
        }
        assert!(om.exits().is_empty());
        let restarted = om.restart(&me).ok().map(|o| o.chain());
        (om.rows(), om.chain(), restarted)
    })
}

/// HDDS-9073, with no race: purging s2, first in `/v/c` (no path previous, global previous
/// s1), gives its global next s3 the *path* previous, none, as its global previous at the
/// parent and at the fix; the running chain relinks s1 <- s3. fcf5b17a4ed (with e374aae82db)
/// gives s3 the global previous s1. The restart loads the rows without a throw (a global
/// previous of none is not checked), into a chain with two global heads.
// Reference: OMSnapshotPurgeResponse.java:129-154 at 5306f65603f and 57d8a4144a2;
// OMSnapshotPurgeRequest.java:190-224 at fcf5b17a4ed; SnapshotChainManager.java:72-91 and
// 233-254 at 5306f65603f.
fn staged_hdds_9073_the_next_global_gets_the_path_previous() {
    let _ = (
        &parent::OMSnapshotPurgeResponse::cleanupSnapshotChain,
        &h8665::OMSnapshotPurgeRequest::updateSnapshotChainAndCache,
        &parent::SnapshotChainManager::loadFromSnapshotInfoTable,
        &fix::SnapshotChainManager::loadFromSnapshotInfoTable,
    );
    let workload = "create(/v/c) create(/v/b) purge(s2)";
    for variant in [Variant::Buggy, Variant::Fixed] {
        let (rows, chain, restarted) = sequential_workload(variant, workload);
        let s3 = &rows["s3"];
        assert_eq!(
            (s3.path_prev.as_deref(), s3.global_prev.as_deref()),
            (Some("s1"), None),
            "{variant:?}"
        );
        assert_eq!(
            chain.previous_ids()["s3"],
            (Some("s1".into()), Some("s1".into()))
        );
        let restarted = restarted.expect("the load does not check a missing global previous");
        assert_eq!(restarted.previous_ids()["s3"], (Some("s1".into()), None));
    }
    let (rows, chain, restarted) = sequential_workload(Variant::Hdds8665, workload);
    assert_eq!(rows["s3"].global_prev.as_deref(), Some("s1"));
    assert_eq!(restarted, Some(chain));
}

/// Two purges in one flush batch at the parent: `create(/v/b) purge(s0) purge(s1)`, every
/// entry applied before the flush thread takes the ready buffer, which
/// `splitReadyBufferAtCreateSnapshot` cuts into [create s2], [purge s0, purge s1]. Purge s0
/// stages s1's row with no previous; purge s1's `Table.get` reads s1's committed row, whose
/// previous is still s0, and gives s2 that stale s0 as its previous. The running chain
/// relinks s2 to nothing; the rows name the purged s0, and the OM does not start. At
/// fcf5b17a4ed the purges update the chain and the cache at apply, and the second reads the
/// first's cached copy.
// Reference: OzoneManagerDoubleBuffer.java:300-313, 446-473 and OMSnapshotPurgeResponse.java:
// 77-158 at 5306f65603f; OMSnapshotPurgeRequest.java:90-103, 142-225 at fcf5b17a4ed.
fn staged_two_purges_in_one_batch_read_a_stale_row() {
    let _ = (
        &parent::OzoneManagerDoubleBuffer::flushBatch,
        &parent::OMSnapshotPurgeResponse::addToDBBatch,
        &parent::OMSnapshotPurgeResponse::cleanupSnapshotChain,
        &h8665::OMSnapshotPurgeRequest::validateAndUpdateCache,
    );
    let ends = |variant: Variant| {
        let workload = VOCABULARY
            .parse("create(/v/b) purge(s0) purge(s1)")
            .unwrap();
        run_once_returning(move || {
            let rec = Arc::new(Recorder::with_tracing(None, true));
            let me = Actor::new("om", &rec);
            let om = ChainOm::new(&initial(), variant.java());
            let log = &logs(&workload)[0];
            for (index, request) in log {
                assert!(om.apply(&me, *index, request));
            }
            om.flush_thread(&me, log.last().unwrap().0);
            assert!(om.exits().is_empty());
            let started = om.restart(&me).map(|o| o.chain());
            (om.rows(), om.chain(), started)
        })
    };
    for variant in [Variant::Buggy, Variant::Fixed] {
        let (rows, chain, started) = ends(variant);
        assert_eq!(rows.keys().collect::<Vec<_>>(), ["s2"], "{variant:?}");
        assert_eq!(rows["s2"].path_prev.as_deref(), Some("s0"), "{variant:?}");
        assert_eq!(chain.previous_ids()["s2"], (None, None));
        let err = started.unwrap_err();
        assert!(err.contains("Previous snapshotId: s0"), "{err}");
    }
    let (rows, chain, started) = ends(Variant::Hdds8665);
    assert_eq!(rows["s2"].path_prev, None);
    assert_eq!(started, Ok(chain));
}

/// This module's tests.
pub(crate) fn trials() -> Vec<libtest_mimic::Trial> {
    crate::trials![
        buggy_and_fixed_break_the_chain_and_hdds_8665_holds_in_the_window,
        staged_the_load_fails_on_a_purged_previous,
        staged_delete_relinks_memory_not_the_row,
        staged_the_story_order_fails_the_create,
        staged_the_purge_rewrites_the_next_row_when_it_sees_it,
        staged_hdds_9073_the_next_global_gets_the_path_previous,
        staged_two_purges_in_one_batch_read_a_stale_row
    ]
}
