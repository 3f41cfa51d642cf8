//! HDDS-17215 under shuttle, and deterministic reproductions of the seed's three tests, of
//! symptom 2 and of the apply-versus-flush reorder.
// Reference: HDDS-17215.

use crate::support::{pct, run};
use ozone_ha_check::engine::run_once;
use ozone_ha_check::explore::Verdict;
use ozone_ha_check::kit::external_store::Fault;
use ozone_ha_check::kit::store::Tables;
use ozone_ha_check::kit::store::WriteBatch;
use ozone_ha_check::kit::tx_info::stored_index;
use ozone_ha_check::models::s3_secret::cache::{Lookup, SecretCache};
use ozone_ha_check::models::s3_secret::node::{
    fresh_db, restart_and_replay, Om, Response, Shared, FLUSH_REVOKES_NEWER_SECRET,
    LEAKED_TENANT_ENTRY, PRINCIPAL_EVICTED_FIRST, REVOKED_SECRET_RESTORED, STALE_WRITE_REFUSED,
    TOMBSTONE_THEN_STORE_WRITE,
};
use ozone_ha_check::models::s3_secret::requests::{FlushCall, S3Request, Termination};
use ozone_ha_check::models::s3_secret::{
    initial_tables, Design, Row, Secret, StoredSecret, TENANT_ACCESS_ID_TABLE,
};
use ozone_ha_check::recorder::{Actor, Recorder};
use ozone_ha_check::scenario::Scenario;
use ozone_ha_check::scenarios::hdds_17215::{Hdds17215, Plan, SET_BY_ANOTHER_CALLER};
use ozone_ha_check::sync::Arc;

const S: &str = "hdds-17215";

fn leader_side_reconciled_holds_over_many_seeds_with_its_window_reached() {
    for seed in 0..3 {
        for plan in [
            "lagging-follower",
            "crash-replay",
            "apply-vs-flush",
            "store-failure",
            "leader-change",
            "pipelined",
        ] {
            let r = run(S, "leader-side-reconciled", plan, pct(seed, 2_000), None);
            assert_eq!(r.verdict, Verdict::Held, "seed {seed} {plan}");
            assert!(r.probes["LateApply"] > 0, "seed {seed} {plan}");
        }
        for plan in ["partitioned-leader", "submit-fails", "lost-store-reply"] {
            let r = run(S, "leader-side-periodic", plan, pct(seed, 2_000), None);
            assert_eq!(r.verdict, Verdict::Held, "seed {seed} {plan}");
            assert!(r.probes["UncommittedStoreWrite"] > 0, "seed {seed} {plan}");
        }
    }
}

fn the_registered_scenario_is_this_one() {
    assert_eq!(Hdds17215::NAME, S);
}

fn entries(plan: Plan) -> Vec<(u64, S3Request)> {
    plan.log()
        .after(1)
        .map(|e| match &e.payload {
            ozone_ha_check::kit::raft_log::Payload::Data(r) => (e.index, *r),
            ozone_ha_check::kit::raft_log::Payload::Configuration => unreachable!(),
        })
        .collect()
}

fn held(shared: &Shared, id: &str) -> Option<Secret> {
    shared.store().rows().get(id).and_then(|s| s.live())
}

fn has_access_id(t: &Tables<Row>) -> bool {
    t.get(TENANT_ACCESS_ID_TABLE, "u1").is_some()
}

/// `laggingFollowerAppliesTenantAssignAfterReassign`: the follower applies index 2 after
/// the leader applied and flushed 2..4, rejects the assign, and the revoke's NPE terminates
/// it; the restart replays index 3 and terminates again.
fn lagging_follower_rejects_the_assign_then_terminates_on_every_restart() {
    run_once(|| {
        let rec = Arc::new(Recorder::new(None));
        let (a1, a2) = (Actor::new("om1", &rec), Actor::new("om2", &rec));
        let log = Plan::LaggingFollower.log();
        let shared = Arc::new(Plan::LaggingFollower.shared(Design::PerOm));
        let om1 = Om::new("om1", true, Arc::clone(&shared), fresh_db());
        let om2 = Om::new("om2", false, Arc::clone(&shared), fresh_db());
        let mut v1 = initial_tables();
        for (i, r) in entries(Plan::LaggingFollower) {
            assert!(om1.apply_and_flush(&a1, &mut v1, i, &r));
        }
        assert_eq!(held(&shared, "u1"), Some(Secret("S4")));
        let mut v2 = initial_tables();
        let log2 = entries(Plan::LaggingFollower);
        assert!(om2.apply_and_flush(&a2, &mut v2, log2[0].0, &log2[0].1));
        assert!(
            !has_access_id(&om2.db().durable()),
            "the assign was rejected"
        );
        assert_eq!(
            stored_index(&om2.db().durable()),
            2,
            "the rejection was flushed"
        );
        assert!(!om2.apply_and_flush(&a2, &mut v2, log2[1].0, &log2[1].1));
        assert!(om2.terminated());
        for restart in 1..=2 {
            let again = restart_and_replay("om2", &shared, om2.db(), &log, &a2);
            assert!(again.terminated(), "restart {restart}");
            assert_eq!(stored_index(&again.db().durable()), 2);
        }
        // The run is over: every thread is done.
        rec.quiesce();
        let t = shared.terminations(&rec);
        assert_eq!(t.len(), 3);
        assert!(
            t.iter().all(|t| t.contains("omDBAccessIdInfo == null")),
            "{t:?}"
        );
        assert!(has_access_id(&om1.db().durable()));
    });
}

/// `replayedSetAppliesAgainstLaterStoreState`: one OM flushes the revoke, rejects the set,
/// the getsecret stores S4 and answers it; it crashes with 3 and 4 unflushed, and the replay
/// accepts the set against S4 and overwrites it.
fn replaying_single_om_accepts_the_rejected_set_and_overwrites_the_issued_secret() {
    run_once(|| {
        let rec = Arc::new(Recorder::new(None));
        let me = Actor::new("om1", &rec);
        let log = Plan::CrashReplay.log();
        let shared = Arc::new(Plan::CrashReplay.shared(Design::PerOm));
        let om = Om::new("om1", true, Arc::clone(&shared), fresh_db());
        let mut view = initial_tables();
        let e = entries(Plan::CrashReplay);
        let revoke = om.apply(&me, &mut view, e[0].0, &e[0].1).unwrap();
        om.flush(&me, vec![revoke]).unwrap();
        let set = om.apply(&me, &mut view, e[1].0, &e[1].1).unwrap();
        assert_eq!(set.call, None, "the leader rejects the set");
        let _get = om.apply(&me, &mut view, e[2].0, &e[2].1).unwrap();
        assert_eq!(held(&shared, "u1"), Some(Secret("S4")));
        assert_eq!(shared.issued()["u1"], Some(Secret("S4")));
        // Crash: responses 3 and 4 were never flushed.
        let replayed = restart_and_replay("om1", &shared, om.db(), &log, &me);
        assert!(!replayed.terminated());
        assert_eq!(held(&shared, "u1"), Some(SET_BY_ANOTHER_CALLER));
    });
}

/// The same with `index-per-secret`: the replayed set at index 3 cannot replace S4@4.
fn index_per_secret_refuses_the_replayed_overwrite() {
    run_once(|| {
        let rec = Arc::new(Recorder::new(None));
        let me = Actor::new("om1", &rec);
        let log = Plan::CrashReplay.log();
        let shared = Arc::new(Plan::CrashReplay.shared(Design::IndexPerSecret));
        let om = Om::new("om1", true, Arc::clone(&shared), fresh_db());
        let mut view = initial_tables();
        let e = entries(Plan::CrashReplay);
        let revoke = om.apply(&me, &mut view, e[0].0, &e[0].1).unwrap();
        om.flush(&me, vec![revoke]).unwrap();
        om.apply(&me, &mut view, e[1].0, &e[1].1).unwrap();
        om.apply(&me, &mut view, e[2].0, &e[2].1).unwrap();
        restart_and_replay("om1", &shared, om.db(), &log, &me);
        assert_eq!(held(&shared, "u1"), Some(Secret("S4")));
        assert!(rec.take().probes[STALE_WRITE_REFUSED.name] > 0);
    });
}

/// `restartedFollowerAppliesSetAgainstLaterStoreState`: the follower applied index 2 and
/// restarted; the leader applies 2..4; the follower's replay of 3 accepts the set against S4.
fn restarted_follower_accepts_the_rejected_set_and_overwrites_the_issued_secret() {
    run_once(|| {
        let rec = Arc::new(Recorder::new(None));
        let (a1, a2) = (Actor::new("om1", &rec), Actor::new("om2", &rec));
        let log = Plan::CrashReplay.log();
        let shared = Arc::new(Plan::CrashReplay.shared(Design::PerOm));
        let om1 = Om::new("om1", true, Arc::clone(&shared), fresh_db());
        let om2 = Om::new("om2", false, Arc::clone(&shared), fresh_db());
        let e = entries(Plan::CrashReplay);
        let (mut v1, mut v2) = (initial_tables(), initial_tables());
        assert!(om2.apply_and_flush(&a2, &mut v2, e[0].0, &e[0].1));
        om2.stop(&a2, "om2 stops after index 2");
        for (i, r) in &e {
            assert!(om1.apply_and_flush(&a1, &mut v1, *i, r));
        }
        assert_eq!(shared.issued()["u1"], Some(Secret("S4")));
        assert_eq!(held(&shared, "u1"), Some(Secret("S4")));
        let om2 = restart_and_replay("om2", &shared, om2.db(), &log, &a2);
        assert!(!om2.terminated());
        assert_eq!(held(&shared, "u1"), Some(SET_BY_ANOTHER_CALLER));
    });
}

/// Symptom 2: om2's store read fails while it applies the assign; the INTERNAL_ERROR
/// response is flushed before the termination, so the restart resumes after index 2 and om2
/// has skipped the assign that om1 applied.
fn store_failure_terminates_and_a_flushed_error_response_skips_the_entry() {
    run_once(|| {
        let rec = Arc::new(Recorder::new(None));
        let (a1, a2) = (Actor::new("om1", &rec), Actor::new("om2", &rec));
        let log = Plan::StoreFailure.log();
        let shared = Arc::new(Plan::StoreFailure.shared(Design::PerOm));
        let om1 = Om::new("om1", true, Arc::clone(&shared), fresh_db());
        let om2 = Om::new("om2", false, Arc::clone(&shared), fresh_db());
        let e = entries(Plan::StoreFailure);
        let (mut v1, mut v2) = (initial_tables(), initial_tables());
        for (i, r) in &e {
            assert!(om1.apply_and_flush(&a1, &mut v1, *i, r));
        }
        let why = om2.apply(&a2, &mut v2, e[0].0, &e[0].1).unwrap_err();
        assert!(matches!(why, Termination::InternalError(_)), "{why:?}");
        let error = Response {
            index: e[0].0,
            rows: WriteBatch::new(),
            call: None,
            internal_error: true,
            tenant_epoch: true,
        };
        om2.flush(&a2, vec![error]).unwrap();
        om2.terminate(&a2, &why);
        assert_eq!(shared.store().failures(), 1);
        let om2 = restart_and_replay("om2", &shared, om2.db(), &log, &a2);
        assert!(!om2.terminated());
        assert_eq!(stored_index(&om2.db().durable()), 3);
        assert!(has_access_id(&om1.db().durable()));
        assert!(!has_access_id(&om2.db().durable()), "om2 skipped index 2");
        rec.quiesce();
        assert_eq!(shared.terminations(&rec).len(), 1);
    });
}

/// The apply-versus-flush reorder: revoke(3) writes a tombstone over the cached S2,
/// getsecret(4) hits it and stores S4 at once, then the flush of 3 revokes S4.
fn flush_of_a_revoke_deletes_the_secret_a_later_getsecret_stored() {
    for (design, left) in [
        (Design::PerOm, None),
        (Design::IndexPerSecret, Some(Secret("S4"))),
    ] {
        run_once(move || {
            let rec = Arc::new(Recorder::new(None));
            let me = Actor::new("om1", &rec);
            let shared = Arc::new(Plan::ApplyVsFlush.shared(design));
            let om = Om::new("om1", true, Arc::clone(&shared), fresh_db());
            let mut view = initial_tables();
            let responses: Vec<Response> = entries(Plan::ApplyVsFlush)
                .iter()
                .map(|(i, r)| om.apply(&me, &mut view, *i, r).unwrap())
                .collect();
            assert_eq!(held(&shared, "u1"), Some(Secret("S4")));
            om.flush(&me, responses).unwrap();
            assert_eq!(shared.issued()["u1"], Some(Secret("S4")));
            assert_eq!(held(&shared, "u1"), left, "{design:?}");
            let probes = rec.take().probes;
            assert_eq!(probes[TOMBSTONE_THEN_STORE_WRITE.name], 1);
            assert_eq!(probes[FLUSH_REVOKES_NEWER_SECRET.name], 1);
        });
    }
}

/// The explored plans reach the paths the deterministic tests stage: on `store-failure` an
/// error response flushed before the termination, on `apply-vs-flush` the tombstone reorder.
fn explored_plans_reach_the_staged_paths() {
    use ozone_ha_check::explore::{explore, Request};
    use ozone_ha_check::scenarios::find;
    for (variant, plan, probe) in [
        (
            "buggy",
            "store-failure",
            "ErrorResponseFlushedBeforeTermination",
        ),
        ("buggy", "apply-vs-flush", TOMBSTONE_THEN_STORE_WRITE.name),
        ("buggy", "apply-vs-flush", FLUSH_REVOKES_NEWER_SECRET.name),
        ("buggy", "lagging-follower", LEAKED_TENANT_ENTRY.name),
        ("leader-side", "leader-change", "UncommittedStoreWrite"),
        (
            "leader-side-reconciled",
            "leader-change",
            "UncommittedStoreWrite",
        ),
        ("buggy", "lagging-follower", PRINCIPAL_EVICTED_FIRST.name),
        (
            "leader-side-reconciled",
            "pipelined",
            "PreExecuteWaitedForApply",
        ),
        ("buggy", "lagging-follower", REVOKED_SECRET_RESTORED.name),
        (
            "leader-side-periodic",
            "partitioned-leader",
            "UncommittedStoreWrite",
        ),
        (
            "leader-side-periodic",
            "submit-fails",
            "UncommittedStoreWrite",
        ),
        (
            "leader-side-periodic",
            "lost-store-reply",
            "UncommittedStoreWrite",
        ),
    ] {
        let r = explore(
            find(S).unwrap(),
            &Request::new(variant, plan, pct(0, 2_000)).stop_at_first(false),
        )
        .unwrap();
        assert!(r.probes[probe] > 0, "{variant} {plan}: {probe} never fired");
    }
}

/// One OM over a store holding `rows`, with the clients told nothing.
fn om_over(design: Design, rows: &[(&'static str, &'static str)]) -> (Arc<Shared>, Om) {
    let rows: Vec<_> = rows
        .iter()
        .map(|(id, s)| {
            (
                *id,
                StoredSecret {
                    secret: Secret(s),
                    index: 0,
                    revoked: false,
                },
            )
        })
        .collect();
    let shared = Arc::new(Shared::new(design, &rows, None, &[]));
    let om = Om::new("om1", true, Arc::clone(&shared), fresh_db());
    (shared, om)
}

/// A getsecret (createIfNotExist) of an access id that has a secret and is assigned to no
/// tenant is refused with S3_SECRET_ALREADY_EXISTS: nothing is told, written or stored.
// Reference: S3GetSecretRequest.validateAndUpdateCache.
fn getsecret_on_an_existing_non_tenant_id_is_refused() {
    run_once(|| {
        let rec = Arc::new(Recorder::new(None));
        let me = Actor::new("om1", &rec);
        let (shared, om) = om_over(Design::PerOm, &[("u1", "S0")]);
        let mut view = initial_tables();
        let get = S3Request::GetSecret {
            id: "u1",
            secret: Secret("S2"),
        };
        let r = om.apply(&me, &mut view, 2, &get).unwrap();
        assert_eq!(r.call, None);
        assert!(r.rows.is_empty());
        assert!(shared.issued().is_empty(), "nothing told");
        assert_eq!(held(&shared, "u1"), Some(Secret("S0")));
        let trace = rec.take().trace;
        assert!(trace
            .iter()
            .any(|e| e.action.contains("S3_SECRET_ALREADY_EXISTS")));
        // Assigned to a tenant, the same getsecret returns the existing secret.
        let rec = Arc::new(Recorder::new(None));
        let me = Actor::new("om1", &rec);
        let (shared, om) = om_over(Design::PerOm, &[("u1", "S0")]);
        let mut view = initial_tables();
        view.put(
            TENANT_ACCESS_ID_TABLE,
            "u1",
            Row::AccessIdInfo { tenant: "t1" },
        );
        om.apply(&me, &mut view, 2, &get).unwrap();
        assert_eq!(shared.issued()["u1"], Some(Secret("S0")));
    });
}

/// `getSecret` caches a store hit, and the store's value carries index 0, which no flush
/// evicts: the entry outlives the flush of the request that read it.
// Reference: S3SecretManagerImpl.getSecret, VaultS3SecretStore.getSecret,
// S3InMemoryCache.clearCache.
fn a_store_hit_is_cached_at_index_0_and_survives_the_flush() {
    run_once(|| {
        let rec = Arc::new(Recorder::new(None));
        let me = Actor::new("om1", &rec);
        let (_shared, om) = om_over(Design::PerOm, &[("u1", "S0")]);
        let mut view = initial_tables();
        let set = S3Request::SetSecret {
            id: "u2",
            secret: Secret("X"),
        };
        // A set of another id misses; a revoke of u1 reads the store and caches S0@0.
        om.apply(&me, &mut view, 2, &set).unwrap();
        let revoke = om
            .apply(&me, &mut view, 3, &S3Request::RevokeSecret { id: "u1" })
            .unwrap();
        assert_eq!(
            revoke.call,
            Some(FlushCall::Revoke {
                id: "u1",
                locked: false
            })
        );
        // The tombstone keeps index 0, so the flush of 3 leaves it in place.
        om.flush(&me, vec![revoke]).unwrap();
        assert_eq!(om.secret_cache().lookup("u1"), Lookup::Hit(None));
        assert_eq!(om.secret_cache().index_of("u1"), Some(0));
    });
}

/// A tombstone keeps the old entry's index; `clearCache` evicts exactly the flushed indices,
/// through a map from index to key built before it invalidates.
// Reference: S3InMemoryCache.invalidate, S3InMemoryCache.clearCache, S3SecretValue.deleted.
fn a_tombstone_keeps_the_old_index_and_eviction_is_by_exact_index() {
    let mut cache = SecretCache::default();
    assert!(!cache.invalidate("u1"), "an uncached id stays uncached");
    assert_eq!(cache.lookup("u1"), Lookup::Miss);
    cache.put("u1", Secret("S2"), 2);
    assert!(cache.invalidate("u1"));
    assert_eq!(cache.lookup("u1"), Lookup::Hit(None));
    assert_eq!(cache.index_of("u1"), Some(2));
    assert!(
        cache.keys_at(&[3]).is_empty(),
        "3 is not the tombstone's index"
    );
    assert_eq!(cache.keys_at(&[1, 2]), vec!["u1"]);
    // The key found at 2 is invalidated whatever its entry has become since.
    let keys = cache.keys_at(&[2]);
    cache.put("u1", Secret("S4"), 4);
    for k in keys {
        cache.evict(k);
    }
    assert_eq!(cache.lookup("u1"), Lookup::Miss);
}

/// The flush-time `storeSecret` / `revokeSecret` of a set or a revoke go through the inner
/// manager the request's lambda got: no lock (they complete while another thread holds the
/// id's lock); the tenant responses hold the locked manager. Both update the cache after the
/// store call.
// Reference: OMSetSecretRequest.validateAndUpdateCache,
// S3RevokeSecretRequest.validateAndUpdateCache, S3SecretLockedManager.storeSecret,
// S3SecretLockedManager.revokeSecret, S3SecretLockedManager.clearS3Cache,
// S3SecretLockedManager.doUnderLock,
// S3SecretManagerImpl.storeSecret, S3SecretManagerImpl.revokeSecret,
// OMTenantAssignUserAccessIdRequest.validateAndUpdateCache.
fn flush_time_set_and_revoke_take_no_lock_and_update_the_cache() {
    run_once(|| {
        let rec = Arc::new(Recorder::new(None));
        let me = Actor::new("om1", &rec);
        let (shared, om) = om_over(Design::PerOm, &[("u1", "S0")]);
        let om = Arc::new(om);
        let mut view = initial_tables();
        let set = S3Request::SetSecret {
            id: "u1",
            secret: Secret("X"),
        };
        let response = om.apply(&me, &mut view, 2, &set).unwrap();
        assert_eq!(
            response.call,
            Some(FlushCall::Store {
                id: "u1",
                secret: Secret("X"),
                locked: false
            })
        );
        let held_lock = om.hold_secret_lock();
        let flush = {
            let (om, me) = (Arc::clone(&om), Actor::new("flush", &rec));
            ozone_ha_check::sync::thread::spawn("flush", move || {
                om.flush(&me, vec![response]).unwrap()
            })
        };
        flush.join();
        drop(held_lock);
        assert_eq!(held(&shared, "u1"), Some(Secret("X")));
        let trace = rec.take().trace;
        let stored = trace
            .iter()
            .position(|e| e.java == "S3SecretManagerImpl.storeSecret")
            .unwrap();
        let cached = trace
            .iter()
            .position(|e| e.java == "S3InMemoryCache.put")
            .unwrap();
        assert!(stored < cached, "store first, then the cache");
        // The tenant assign's response holds the locked manager.
        let (_shared, om) = om_over(Design::PerOm, &[]);
        let assign = S3Request::TenantAssign {
            id: "u1",
            tenant: "t1",
            secret: Secret("S2"),
        };
        let r = om.apply(&me, &mut initial_tables(), 2, &assign).unwrap();
        assert_eq!(
            r.call,
            Some(FlushCall::Store {
                id: "u1",
                secret: Secret("S2"),
                locked: true
            })
        );
    });
}

/// The tenant revoke invalidates the secret cache through the locked manager's default
/// `invalidateCacheEntry`, which takes no lock.
// Reference: OMTenantRevokeUserAccessIdRequest.validateAndUpdateCache,
// S3SecretManager.invalidateCacheEntry.
fn the_tenant_revoke_invalidates_without_the_lock() {
    run_once(|| {
        let rec = Arc::new(Recorder::new(None));
        let (_shared, om) = om_over(Design::PerOm, &[]);
        let om = Arc::new(om);
        let mut view = initial_tables();
        view.put(
            TENANT_ACCESS_ID_TABLE,
            "u1",
            Row::AccessIdInfo { tenant: "t1" },
        );
        let held_lock = om.hold_secret_lock();
        let apply = {
            let (om, me) = (Arc::clone(&om), Actor::new("apply", &rec));
            ozone_ha_check::sync::thread::spawn("apply", move || {
                om.apply(&me, &mut view, 3, &S3Request::TenantRevoke { id: "u1" })
                    .unwrap()
            })
        };
        let r = apply.join();
        drop(held_lock);
        assert_eq!(
            r.call,
            Some(FlushCall::Revoke {
                id: "u1",
                locked: true
            })
        );
    });
}

/// A tenant assign adds its tenant-table cache entry before it checks the store, and a
/// rejection leaves the entry: until the flush of that index evicts it, a tenant revoke finds
/// the access id and is accepted; after the eviction it throws the NPE.
// Reference: OMTenantAssignUserAccessIdRequest.validateAndUpdateCache,
// OMTenantRevokeUserAccessIdRequest.validateAndUpdateCache, PartialTableCache.cleanup,
// PartialTableCache.evictCache.
fn a_rejected_assign_leaves_its_tenant_entry_until_the_flush_evicts_it() {
    run_once(|| {
        let rec = Arc::new(Recorder::new(None));
        let me = Actor::new("om2", &rec);
        let assign = S3Request::TenantAssign {
            id: "u1",
            tenant: "t1",
            secret: Secret("S2"),
        };
        let revoke = S3Request::TenantRevoke { id: "u1" };
        // Before the flush: the revoke finds the leaked entry.
        let (_shared, om) = om_over(Design::PerOm, &[("u1", "S4")]);
        let mut view = initial_tables();
        let rejected = om.apply(&me, &mut view, 2, &assign).unwrap();
        assert_eq!(rejected.call, None);
        assert!(view.get(TENANT_ACCESS_ID_TABLE, "u1").is_none());
        assert!(om.apply(&me, &mut view, 3, &revoke).is_ok());
        assert_eq!(rec.take().probes[LEAKED_TENANT_ENTRY.name], 1);
        // After the flush of 2: the entry is evicted and the revoke throws.
        let (_shared, om) = om_over(Design::PerOm, &[("u1", "S4")]);
        let mut view = initial_tables();
        let rejected = om.apply(&me, &mut view, 2, &assign).unwrap();
        om.flush(&me, vec![rejected]).unwrap();
        let why = om.apply(&me, &mut view, 3, &revoke).unwrap_err();
        assert!(matches!(why, Termination::Throwable(_)), "{why:?}");
    });
}

/// The Java `OMSetSecretRequest.preExecute` reads the store through the locked manager on the
/// leader's RPC thread and caches the hit at index 0; with no secret it refuses the request
/// (ACCESS_ID_NOT_FOUND) and nothing is replicated.
// Reference: OMSetSecretRequest.preExecute.
fn set_pre_execute_reads_the_store_and_fills_the_leaders_cache() {
    run_once(|| {
        let rec = Arc::new(Recorder::new(None));
        let me = Actor::new("h1", &rec);
        let set = S3Request::SetSecret {
            id: "u1",
            secret: Secret("X"),
        };
        let (_shared, om) = om_over(Design::PerOm, &[("u1", "S0")]);
        let pre = om.pre_execute(&me, &initial_tables(), &set);
        assert_eq!(pre.refused, None);
        assert!(pre.called_store && !pre.wrote_store);
        assert_eq!(
            om.secret_cache().lookup("u1"),
            Lookup::Hit(Some(Secret("S0")))
        );
        assert_eq!(om.secret_cache().index_of("u1"), Some(0));
        let (_shared, om) = om_over(Design::PerOm, &[]);
        assert_eq!(
            om.pre_execute(&me, &initial_tables(), &set).refused,
            Some("ACCESS_ID_NOT_FOUND")
        );
    });
}

/// `leader-change` staged: both requests pass the leader's `preExecute` (leader-side: the set
/// writes X, the revoke deletes it) before either is appended; the set is appended first,
/// commits and is told X; the revoke never commits. The store holds nothing. The reconciling
/// new leader restores X from its replicated row.
// Reference: OMExecutionFlow.submitExecutionToRatis; LeaderStateImpl.isReady,
// LeaderStateImpl.checkReady (Ratis).
fn leader_side_loses_the_committed_secret_to_an_uncommitted_pre_execute() {
    for (design, left) in [
        (Design::LeaderSide, None),
        (Design::LeaderSideReconciled, Some(Secret("X"))),
    ] {
        run_once(move || {
            let rec = Arc::new(Recorder::new(None));
            let (h1, h2, om2a) = (
                Actor::new("h1", &rec),
                Actor::new("h2", &rec),
                Actor::new("om2", &rec),
            );
            let shared = Arc::new(Plan::LeaderChange.shared(design));
            let om1 = Om::new("om1", true, Arc::clone(&shared), fresh_db());
            let om2 = Om::new("om2", false, Arc::clone(&shared), fresh_db());
            let [a, b] = ozone_ha_check::scenarios::hdds_17215::leader_change_requests();
            let pa = om1.pre_execute(&h1, &initial_tables(), &a);
            let pb = om1.pre_execute(&h2, &initial_tables(), &b);
            assert!(pa.wrote_store && pb.wrote_store);
            shared.record_decision(2, pa.decision.unwrap());
            shared.record_decision(3, pb.decision.unwrap());
            assert!(om1.apply_and_flush(&h1, &mut initial_tables(), 2, &a));
            assert!(om2.apply_and_flush(&om2a, &mut initial_tables(), 2, &a));
            assert_eq!(shared.issued()["u1"], Some(Secret("X")));
            assert_eq!(held(&shared, "u1"), None, "B's preExecute deleted X");
            if design == Design::LeaderSideReconciled {
                om2.reconcile(&om2a);
            }
            assert_eq!(held(&shared, "u1"), left, "{design:?}");
        });
    }
}

/// A lost reply: the store write takes effect, the call fails. The leader-side
/// `preExecute` turns the failure into a clean error (the entry is not replicated) while
/// the store holds the new secret.
// Reference: OMExecutionFlow.submitExecutionToRatis.
fn a_lost_store_reply_leaves_the_write_in_place() {
    run_once(|| {
        let rec = Arc::new(Recorder::new(None));
        let me = Actor::new("h1", &rec);
        let shared = Arc::new(Shared::new(
            Design::LeaderSide,
            &[(
                "u1",
                StoredSecret {
                    secret: Secret("S0"),
                    index: 0,
                    revoked: false,
                },
            )],
            Some(Fault {
                caller: "om1",
                nth: 2,
                lost_reply: true,
            }),
            &[("u1", Some(Secret("S0")))],
        ));
        let om = Om::new("om1", true, Arc::clone(&shared), fresh_db());
        let set = S3Request::SetSecret {
            id: "u1",
            secret: Secret("X"),
        };
        let pre = om.pre_execute(&me, &initial_tables(), &set);
        assert_eq!(pre.refused, Some("store failure"));
        assert!(pre.wrote_store);
        assert_eq!(held(&shared, "u1"), Some(Secret("X")));
        assert_eq!(shared.issued()["u1"], Some(Secret("S0")));
    });
}

/// The revoke reads the access id, then its principal, each from its table's cache before
/// the DB (`requireNonNull` on each); the two caches are evicted on two executors
/// (`PartialTableCache.cleanup`, one single-thread executor per table). A rejected assign
/// left both entries; with the principal's evicted, the revoke throws on `principalInfo`.
// Reference: OMTenantRevokeUserAccessIdRequest.validateAndUpdateCache; PartialTableCache.cleanup.
fn a_revoke_finding_the_access_id_without_its_principal_throws() {
    let r = {
        use ozone_ha_check::explore::{explore, Request};
        use ozone_ha_check::scenarios::find;
        explore(
            find(S).unwrap(),
            &Request::new("buggy", "lagging-follower", pct(0, 2_000)).stop_at_first(false),
        )
        .unwrap()
    };
    assert!(r.probes[PRINCIPAL_EVICTED_FIRST.name] > 0);
    assert!(r.probes[LEAKED_TENANT_ENTRY.name] > 0);
}

/// `index-per-secret`'s store keeps a tombstone with the delete's index: the late OM's
/// write of the assign at 2 after the revoke at 3 is refused, where `buggy`'s lands.
fn index_per_secret_keeps_a_tombstone_that_refuses_a_lower_write() {
    use ozone_ha_check::explore::{explore, Request};
    use ozone_ha_check::scenarios::find;
    let probes = |variant: &str| {
        explore(
            find(S).unwrap(),
            &Request::new(variant, "lagging-follower", pct(0, 2_000)).stop_at_first(false),
        )
        .unwrap()
        .probes
    };
    assert!(probes("buggy")[REVOKED_SECRET_RESTORED.name] > 0);
    let ips = probes("index-per-secret");
    assert_eq!(
        ips.get(REVOKED_SECRET_RESTORED.name).copied().unwrap_or(0),
        0
    );
    assert!(ips[STALE_WRITE_REFUSED.name] > 0);
}

/// A fault a generated workload draws is armed at a point of the run: the OM's next call
/// fails; an armed lost reply waits for the OM's next write (a read has no effect to keep),
/// which lands and then fails. Other callers are not hit.
// Reference: VaultS3SecretStore.getSecret, VaultS3SecretStore.storeSecret (the calls that fail).
fn an_armed_fault_hits_the_next_call_and_a_lost_reply_the_next_write() {
    run_once(|| {
        let rec = Arc::new(Recorder::new(None));
        let me = Actor::new("om1", &rec);
        let (shared, om) = om_over(Design::LeaderSide, &[]);
        let store = shared.store();
        let vault = ozone_ha_check::citation::Label::model("the vault");
        let s = |name| StoredSecret {
            secret: Secret(name),
            index: 0,
            revoked: false,
        };
        store.arm("om1", false);
        assert!(
            store.get(&me, vault, "om2", 2, "u1").is_ok(),
            "om2 is not hit"
        );
        assert!(store.get(&me, vault, "om1", 2, "u1").is_err());
        assert!(
            store.get(&me, vault, "om1", 2, "u1").is_ok(),
            "one call only"
        );
        store.arm("om1", true);
        assert!(
            store.get(&me, vault, "om1", 3, "u1").is_ok(),
            "a read is not hit"
        );
        assert!(store.put(&me, vault, "om1", 3, "u1", s("X")).is_err());
        assert_eq!(held(&shared, "u1"), Some(Secret("X")), "the write landed");
        assert_eq!(store.failures(), 2);
        // The leader-side set of the generated plan: read, then the write whose reply is lost.
        store.arm("om1", true);
        let set = S3Request::SetSecret {
            id: "u1",
            secret: Secret("Y"),
        };
        let pre = om.pre_execute(&me, &initial_tables(), &set);
        assert_eq!(pre.refused, Some("store failure"));
        assert_eq!(held(&shared, "u1"), Some(Secret("Y")));
        let _ = &ozone_ha_check::citation::java::OMSetSecretRequest::preExecute;
    });
}

/// A follower that takes over tells the clients from its own applies on
/// (`become_leader`), and a reconciling new leader whose flush trails its apply reconciles
/// from the rows it applied, flushed or not: the OM reads its tables through the table
/// cache, which holds the unflushed rows.
// Reference: LeaderStateImpl.isReady (Ratis); OMRangerBGSyncService.triggerRangerSyncOnce.
fn a_follower_that_takes_over_answers_and_reconciles_its_applied_rows() {
    run_once(|| {
        let rec = Arc::new(Recorder::new(None));
        let me = Actor::new("om2", &rec);
        let shared = Arc::new(Shared::new(Design::LeaderSideReconciled, &[], None, &[]));
        let om2 = Om::new("om2", false, Arc::clone(&shared), fresh_db());
        let get = S3Request::GetSecret {
            id: "u1",
            secret: Secret("S2"),
        };
        let pre = om2.pre_execute(&me, &initial_tables(), &get);
        assert!(pre.wrote_store);
        shared.record_decision(2, pre.decision.unwrap());
        let mut view = initial_tables();
        // Applied as a follower: nothing told, the response queued, not flushed.
        assert!(om2.apply_and_queue(&me, &mut view, 2, &get));
        assert!(shared.issued().is_empty());
        assert_eq!(stored_index(&om2.db().durable()), 0);
        // A stray delete (an uncommitted preExecute of the old leader).
        let _ = shared.store().delete_unless(
            &me,
            ozone_ha_check::citation::Label::model("stray"),
            "om1",
            0,
            "u1",
            |_| false,
        );
        assert_eq!(held(&shared, "u1"), None);
        om2.become_leader();
        om2.reconcile_applied(&me, &view);
        assert_eq!(
            held(&shared, "u1"),
            Some(Secret("S2")),
            "from the applied row"
        );
        let again = S3Request::SetSecret {
            id: "u1",
            secret: Secret("S3"),
        };
        let pre = om2.pre_execute(&me, &view, &again);
        shared.record_decision(3, pre.decision.unwrap());
        assert!(om2.apply_and_queue(&me, &mut view, 3, &again));
        assert_eq!(
            shared.issued()["u1"],
            Some(Secret("S3")),
            "the new leader tells"
        );
        let _ = &ozone_ha_check::citation::java::LeaderStateImpl::isReady;
    });
}

/// The written fixed-log plans are workloads of the vocabulary (the store starts empty in
/// `generated`, so `crash-replay`'s S0 is a `get` first), and for every variant each
/// invariant some written plan breaks is one `generated` is expected to break (the verdict
/// tests show each broken under every seed); the variant every written plan holds for
/// holds on `generated` too.
fn the_generated_space_finds_what_the_written_plans_find() {
    use ozone_ha_check::scenario::{Choice, Expected};
    use ozone_ha_check::scenarios::hdds_17215::{Variant, VOCABULARY};
    use ozone_ha_check::workload::Bounds;
    for (plan, workload, bounds) in [
        (
            "lagging-follower",
            "assign(u1) tenant-revoke(u1) assign(u1)",
            VOCABULARY.bounds,
        ),
        (
            "apply-vs-flush",
            "get(u1) revoke(u1) get(u1)",
            VOCABULARY.bounds,
        ),
        (
            "store-failure",
            "assign(u1) fail(om2) get(u2)",
            VOCABULARY.bounds,
        ),
        (
            "leader-change",
            "get(u1) set(u1) leader-change revoke(u1)",
            VOCABULARY.bounds,
        ),
        (
            "lost-store-reply",
            "get(u1) set(u1) lost-reply(om1) set(u1)",
            VOCABULARY.bounds,
        ),
        (
            "crash-replay",
            "get(u1) revoke(u1) set(u1) get(u1) crash",
            Bounds {
                requests: 4,
                faults: 1,
            },
        ),
    ] {
        let w = VOCABULARY.parse(workload).unwrap();
        assert_eq!(VOCABULARY.canonical(&w), w, "{plan}");
        assert!(VOCABULARY.within(&w, bounds), "{plan}");
        for end in 0..w.items.len() {
            let next = VOCABULARY.candidates(&w.items[..end], bounds);
            assert!(next.contains(&w.items[end]), "{plan}: item {end}");
        }
    }
    // The space of the default bounds; om2 cannot both crash and take over.
    assert_eq!(VOCABULARY.count(VOCABULARY.bounds), 13_521);
    let two = Bounds {
        requests: 1,
        faults: 2,
    };
    for first in ["crash", "leader-change"] {
        let w = VOCABULARY.parse(first).unwrap();
        assert!(VOCABULARY
            .candidates(&w.items, two)
            .iter()
            .all(|i| !matches!(VOCABULARY.words[i.word].name, "crash" | "leader-change")));
    }
    for &variant in Variant::ALL {
        let broken = |plan: Plan| Hdds17215::expected(variant, plan).invariants();
        let generated = broken(Plan::Generated);
        let mut written: Vec<&str> = Plan::ALL
            .iter()
            .filter(|p| **p != Plan::Generated)
            .flat_map(|p| broken(*p))
            .collect();
        written.sort_unstable();
        written.dedup();
        for invariant in &written {
            assert!(generated.contains(invariant), "{variant:?}: {invariant}");
        }
        if written.is_empty() {
            assert!(matches!(
                Hdds17215::expected(variant, Plan::Generated),
                Expected::Holds
            ));
        }
    }
}

/// `leader-side-periodic` holds on `generated` with the windows reached: an OM applied an
/// entry after the store served a later one (`LateApply`), and a leader's `preExecute`
/// changed the store for an entry that never committed (`UncommittedStoreWrite`: a lost
/// reply, or a leader change with the request in flight), which the periodic run repaired.
fn leader_side_periodic_holds_on_generated_workloads_with_its_windows_reached() {
    for seed in 0..3 {
        let r = run(
            S,
            "leader-side-periodic",
            "generated",
            pct(seed, 2_000),
            None,
        );
        assert_eq!(r.verdict, Verdict::Held, "seed {seed}");
        assert!(r.probes["LateApply"] > 0, "seed {seed}");
        assert!(r.probes["UncommittedStoreWrite"] > 0, "seed {seed}");
    }
}

/// Two plain requests on a fixed log, no fault: `revoke(u1) get(u1)`. The leader answers the
/// revoke at 2 `S3_SECRET_NOT_FOUND`, then creates S3 at 3 and stores it; the follower
/// applies the revoke at 2 after that, finds S3 in the store, accepts, and its flush deletes
/// the secret the client was just given. `index-per-secret`'s store refuses that delete.
// Reference: S3RevokeSecretRequest.validateAndUpdateCache; S3RevokeSecretResponse.addToDBBatch.
fn a_lagging_followers_revoke_deletes_the_secret_the_leader_created_after_it() {
    for (design, left) in [
        (Design::PerOm, None),
        (Design::IndexPerSecret, Some(Secret("S3"))),
    ] {
        run_once(move || {
            let rec = Arc::new(Recorder::new(None));
            let (a1, a2) = (Actor::new("om1", &rec), Actor::new("om2", &rec));
            let shared = Arc::new(Shared::new(design, &[], None, &[]));
            let om1 = Om::new("om1", true, Arc::clone(&shared), fresh_db());
            let om2 = Om::new("om2", false, Arc::clone(&shared), fresh_db());
            let revoke = S3Request::RevokeSecret { id: "u1" };
            let get = S3Request::GetSecret {
                id: "u1",
                secret: Secret("S3"),
            };
            let mut v1 = initial_tables();
            assert!(om1.apply_and_flush(&a1, &mut v1, 2, &revoke));
            assert!(
                shared.issued().is_empty(),
                "S3_SECRET_NOT_FOUND: nothing told"
            );
            assert!(om1.apply_and_flush(&a1, &mut v1, 3, &get));
            assert_eq!(shared.issued()["u1"], Some(Secret("S3")));
            assert_eq!(held(&shared, "u1"), Some(Secret("S3")));
            let mut v2 = initial_tables();
            let response = om2.apply(&a2, &mut v2, 2, &revoke).unwrap();
            assert_eq!(
                response.call,
                Some(FlushCall::Revoke {
                    id: "u1",
                    locked: false
                }),
                "{design:?}: the late revoke is accepted"
            );
            om2.flush(&a2, vec![response]).unwrap();
            assert_eq!(held(&shared, "u1"), left, "{design:?}");
            let _ = &ozone_ha_check::citation::java::S3RevokeSecretRequest::validateAndUpdateCache;
            let _ = &ozone_ha_check::citation::java::S3RevokeSecretResponse::addToDBBatch;
        });
    }
}

/// This module's tests.
pub(crate) fn trials() -> Vec<libtest_mimic::Trial> {
    crate::trials![
        leader_side_reconciled_holds_over_many_seeds_with_its_window_reached,
        the_registered_scenario_is_this_one,
        lagging_follower_rejects_the_assign_then_terminates_on_every_restart,
        replaying_single_om_accepts_the_rejected_set_and_overwrites_the_issued_secret,
        index_per_secret_refuses_the_replayed_overwrite,
        restarted_follower_accepts_the_rejected_set_and_overwrites_the_issued_secret,
        store_failure_terminates_and_a_flushed_error_response_skips_the_entry,
        flush_of_a_revoke_deletes_the_secret_a_later_getsecret_stored,
        explored_plans_reach_the_staged_paths,
        getsecret_on_an_existing_non_tenant_id_is_refused,
        a_store_hit_is_cached_at_index_0_and_survives_the_flush,
        a_tombstone_keeps_the_old_index_and_eviction_is_by_exact_index,
        flush_time_set_and_revoke_take_no_lock_and_update_the_cache,
        the_tenant_revoke_invalidates_without_the_lock,
        a_rejected_assign_leaves_its_tenant_entry_until_the_flush_evicts_it,
        set_pre_execute_reads_the_store_and_fills_the_leaders_cache,
        leader_side_loses_the_committed_secret_to_an_uncommitted_pre_execute,
        a_lost_store_reply_leaves_the_write_in_place,
        a_revoke_finding_the_access_id_without_its_principal_throws,
        index_per_secret_keeps_a_tombstone_that_refuses_a_lower_write,
        an_armed_fault_hits_the_next_call_and_a_lost_reply_the_next_write,
        a_follower_that_takes_over_answers_and_reconciles_its_applied_rows,
        the_generated_space_finds_what_the_written_plans_find,
        leader_side_periodic_holds_on_generated_workloads_with_its_windows_reached,
        a_lagging_followers_revoke_deletes_the_secret_the_leader_created_after_it
    ]
}
