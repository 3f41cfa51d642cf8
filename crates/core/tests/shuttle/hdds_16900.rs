//! HDDS-16900 under shuttle: the verdict matrix, and the seed's numbers reproduced step by
//! step.
// Reference: HDDS-16900.

use crate::support::{pct, run};
use ozone_ha_check::citation::java;
use ozone_ha_check::engine::run_once;
use ozone_ha_check::explore::Verdict;
use ozone_ha_check::kit::raft_log::RaftLog;
use ozone_ha_check::kit::store::{Store, Tables};
use ozone_ha_check::kit::tx_info::{put_tx_info, stored_index};
use ozone_ha_check::models::scm::state_machine::{
    apply_writes, leader_change_flush, ApplyOutcome, SaveFlush, Write,
};
use ozone_ha_check::models::scm::tx_buffer::{FlushPath, TransactionBuffer};
use ozone_ha_check::models::scm_cert::cluster::{CertRequest, Checks, Cluster, Outcome, ScmSpec};
use ozone_ha_check::models::scm_cert::scm::Upgrade;
use ozone_ha_check::models::scm_cert::{
    initial_tables, last_id, serial_key, ScmRow, ScmTx, CERTIFICATE_ID, SEQUENCE_ID_TABLE,
    VALID_CERTS_TABLE, VALID_SCM_CERTS_TABLE,
};
use ozone_ha_check::recorder::{Actor, Recorder};
use ozone_ha_check::scenarios::hdds_16900::{fresh_scms, three_scms};
use ozone_ha_check::sync::{thread, Arc};

const S: &str = "hdds-16900";

fn through_ratis_holds_over_many_seeds_with_its_window_reached() {
    for seed in 0..5 {
        for plan in [
            "restart",
            "store-fails",
            "expired",
            "rejoin",
            "kill",
            "first-start",
        ] {
            let r = run(S, "through-ratis", plan, pct(seed, 2_000), None);
            assert_eq!(r.verdict, Verdict::Held, "seed {seed} {plan}");
            assert!(r.probes["StartupWindowReached"] > 0);
        }
    }
}

/// Which startup window each plan reaches: the lowering window after a clean stop, the
/// raising window after a kill, and on a fresh cluster only the absent row that the
/// non-forced upgrade seeds.
fn each_plan_reaches_its_own_startup_window() {
    let hits = |plan: &str, probe: &str| {
        let r = run(S, "no-forced-call", plan, pct(0, 2_000), None);
        r.probes.get(probe).copied().unwrap_or(0)
    };
    for plan in ["restart", "store-fails", "expired", "rejoin"] {
        assert!(hits(plan, "RowAboveLargestAtStartup") > 0, "{plan}");
        assert_eq!(hits(plan, "LargestAboveRowAtStartup"), 0, "{plan}");
    }
    assert!(hits("kill", "LargestAboveRowAtStartup") > 0);
    assert!(hits("first-start", "RowAbsentAtStartup") > 0);
    assert_eq!(hits("first-start", "RowAboveLargestAtStartup"), 0);
    assert_eq!(hits("first-start", "LargestAboveRowAtStartup"), 0);
}

fn valid(cluster: &Cluster, me: &Actor, subject: &str) -> Outcome {
    cluster.request(me, &CertRequest::valid(subject))
}

fn rows(cluster: &Cluster) -> Vec<Option<u64>> {
    cluster.rows().into_iter().map(|(_, _, row)| row).collect()
}

fn single_scm(rec: &Arc<Recorder>, upgrade: Upgrade) -> Cluster {
    let mut log = RaftLog::new();
    log.start_term(1);
    let scm1 = ScmSpec {
        name: "scm1",
        tables: initial_tables(),
        up: true,
    };
    Cluster::new(rec, upgrade, Checks::NONE, vec![scm1], log, 0, 1, 2)
}

fn handed_out_twice(rec: &Recorder, serial: u64) -> bool {
    rec.take()
        .trace
        .iter()
        .filter(|e| e.action.ends_with(&format!("hands out {serial}")))
        .count()
        == 2
}

fn one_scm_ids_up_to_4_largest_3_restart_hands_out_4_again() {
    run_once(|| {
        let rec = Arc::new(Recorder::new(None));
        let me = Actor::new("test", &rec);
        let c = single_scm(&rec, Upgrade::Forced);
        assert_eq!(valid(&c, &me, "dn1"), Outcome::Issued(3));
        let failed = c.request(&me, &CertRequest::failing("dn2"));
        assert_eq!(failed, Outcome::Failed(4));
        assert_eq!(rows(&c), vec![Some(4)]);
        c.restart(&me, 0);
        assert_eq!(rows(&c), vec![Some(3)], "the row after a clean restart");
        assert_eq!(valid(&c, &me, "dn3"), Outcome::Issued(4));
        assert!(handed_out_twice(&rec, 4));
    });
}

fn one_scm_serial_3_expired_and_removed_row_2_and_3_issued_again() {
    run_once(|| {
        let rec = Arc::new(Recorder::new(None));
        let me = Actor::new("test", &rec);
        let c = single_scm(&rec, Upgrade::Forced);
        assert_eq!(
            c.request(&me, &CertRequest::expiring("dn1")),
            Outcome::Issued(3)
        );
        assert_eq!(
            c.request(&me, &CertRequest::failing("dn2")),
            Outcome::Failed(4)
        );
        c.remove_expired(&me);
        c.restart(&me, 0);
        assert_eq!(rows(&c), vec![Some(2)]);
        // A second certificate with serial 3, for another subject.
        assert_eq!(valid(&c, &me, "om1"), Outcome::Issued(3));
        assert!(handed_out_twice(&rec, 3));
    });
}

fn one_scm_with_the_patch_keeps_4() {
    run_once(|| {
        let rec = Arc::new(Recorder::new(None));
        let me = Actor::new("test", &rec);
        let c = single_scm(&rec, Upgrade::RaiseOnly);
        valid(&c, &me, "dn1");
        c.request(&me, &CertRequest::failing("dn2"));
        c.restart(&me, 0);
        assert_eq!(rows(&c), vec![Some(4)]);
        assert_eq!(valid(&c, &me, "dn3"), Outcome::Issued(5));
    });
}

/// Three SCMs, `scm1` leading: 3..=7 issued, 8 and 9 allocated without a certificate.
fn up_to_9_largest_7(rec: &Arc<Recorder>, upgrade: Upgrade, down: &[&str]) -> (Cluster, Actor) {
    let me = Actor::new("test", rec);
    let c = three_scms(rec, upgrade, Checks::NONE, down);
    for (i, serial) in (3..=7).enumerate() {
        assert_eq!(valid(&c, &me, &format!("dn{i}")), Outcome::Issued(serial));
    }
    for serial in [8, 9] {
        let r = c.request(&me, &CertRequest::failing(&format!("om{serial}")));
        assert_eq!(r, Outcome::Failed(serial));
    }
    (c, me)
}

fn scm1_logged(rec: &Recorder, message: &str) -> bool {
    rec.take()
        .trace
        .iter()
        .any(|e| e.action.starts_with("scm1 applies") && e.action.contains(message))
}

fn three_scms_rows_7_9_9_two_failed_allocations_then_8_9_refused_10_11_issued_12() {
    run_once(|| {
        let rec = Arc::new(Recorder::new(None));
        let (c, me) = up_to_9_largest_7(&rec, Upgrade::Forced, &[]);
        c.transfer_leadership(&me, 1);
        c.restart(&me, 0);
        assert_eq!(rows(&c), vec![Some(7), Some(9), Some(9)]);
        rec.take();

        assert_eq!(valid(&c, &me, "dn10"), Outcome::Issued(10));
        assert!(scm1_logged(
            &rec,
            "Failed to allocate a batch for CertificateId, expected lastId is 9, actual lastId is 7."
        ));
        assert_eq!(valid(&c, &me, "dn11"), Outcome::Issued(11));
        assert!(scm1_logged(
            &rec,
            "Failed to allocate a batch for CertificateId, expected lastId is 10, actual lastId is 7."
        ));
        assert_eq!(rows(&c), vec![Some(7), Some(11), Some(11)]);

        c.transfer_leadership(&me, 0);
        let five: Vec<Outcome> = (0..5)
            .map(|i| valid(&c, &me, &format!("client{i}")))
            .collect();
        assert_eq!(
            five,
            vec![
                Outcome::Issued(8),
                Outcome::Issued(9),
                Outcome::Refused("Conflicting certificate ID10".into()),
                Outcome::Refused("Conflicting certificate ID11".into()),
                Outcome::Issued(12),
            ]
        );
        // The allocation of 12 is the first all three apply again: from there rows agree.
        let after = c.rows();
        assert!(after
            .iter()
            .all(|(_, i, row)| *row == Some(12) && *i == after[0].1));
        assert_eq!(valid(&c, &me, "client5"), Outcome::Issued(13));
        assert_eq!(rows(&c), vec![Some(13); 3]);
    });
}

fn three_scms_with_the_patch_keep_9_and_refuse_nothing() {
    run_once(|| {
        let rec = Arc::new(Recorder::new(None));
        let (c, me) = up_to_9_largest_7(&rec, Upgrade::RaiseOnly, &[]);
        c.transfer_leadership(&me, 1);
        c.restart(&me, 0);
        assert_eq!(rows(&c), vec![Some(9); 3]);
        assert_eq!(valid(&c, &me, "dn10"), Outcome::Issued(10));
        c.transfer_leadership(&me, 0);
        for serial in 11..=15 {
            assert_eq!(valid(&c, &me, "client"), Outcome::Issued(serial));
        }
    });
}

fn a_joining_scm_installs_the_lowered_checkpoint_and_issues_8() {
    run_once(|| {
        let rec = Arc::new(Recorder::new(None));
        // scm3 is new: it has no DB yet.
        let me = Actor::new("test", &rec);
        let mut log = RaftLog::new();
        log.start_term(1);
        let spec = |name, tables, up| ScmSpec { name, tables, up };
        let c = Cluster::new(
            &rec,
            Upgrade::Forced,
            Checks::NONE,
            vec![
                spec("scm1", initial_tables(), true),
                spec("scm2", initial_tables(), true),
                spec("scm3", Tables::default(), false),
            ],
            log,
            0,
            1,
            2,
        );
        for i in 3..=7 {
            assert_eq!(valid(&c, &me, &format!("dn{i}")), Outcome::Issued(i));
        }
        c.request(&me, &CertRequest::failing("om8"));
        c.request(&me, &CertRequest::failing("om9"));
        c.transfer_leadership(&me, 1);
        c.restart(&me, 0);
        c.transfer_leadership(&me, 0);
        c.rejoin(&me, 2);
        let after = c.rows();
        assert_eq!(after[2].2, Some(7), "the new SCM's row");
        assert_eq!(after[1].2, Some(9), "the remaining SCM's row");
        c.transfer_leadership(&me, 2);
        assert_eq!(valid(&c, &me, "dn8"), Outcome::Issued(8));
    });
}

fn with_log_purge_a_down_follower_installs_rows_7_9_7_at_one_index() {
    run_once(|| {
        let rec = Arc::new(Recorder::new(None));
        let (c, me) = up_to_9_largest_7(&rec, Upgrade::Forced, &[]);
        assert_eq!(rows(&c)[2], Some(9), "scm3 holds 9 durably");
        c.stop(&me, 2);
        c.transfer_leadership(&me, 1);
        c.restart(&me, 0);
        c.transfer_leadership(&me, 0);
        c.rejoin(&me, 2);
        let after = c.rows();
        let rows: Vec<Option<u64>> = after.iter().map(|r| r.2).collect();
        assert_eq!(rows, vec![Some(7), Some(9), Some(7)]);
        assert!(after.iter().all(|r| r.1 == after[0].1), "{after:?}");
        c.transfer_leadership(&me, 2);
        assert_eq!(valid(&c, &me, "dn8"), Outcome::Issued(8));
    });
}

fn with_log_purge_off_the_follower_replays_and_keeps_9() {
    run_once(|| {
        let rec = Arc::new(Recorder::new(None));
        let (c, me) = up_to_9_largest_7(&rec, Upgrade::Forced, &[]);
        c.stop(&me, 2);
        c.transfer_leadership(&me, 1);
        c.restart(&me, 0);
        c.transfer_leadership(&me, 0);
        c.restart(&me, 2);
        assert_eq!(rows(&c), vec![Some(7), Some(9), Some(9)]);
    });
}

/// Not in the seed: what the patch needs to put the primary ahead of its peers. A stored
/// serial above the replicated row (here an SCM certificate with serial 5 that only the
/// primary's DB holds, as a certificate issued before the sequence existed would be) is
/// raised into the primary's row locally; the peers keep theirs at the same index.
fn staged_raise_only_puts_the_primary_ahead_when_a_local_serial_is_above_the_row() {
    run_once(|| {
        let rec = Arc::new(Recorder::new(None));
        let me = Actor::new("test", &rec);
        let mut primary = initial_tables();
        primary.put(
            VALID_SCM_CERTS_TABLE,
            "5",
            ScmRow::Cert {
                subject: "scm1-old".into(),
                expired: false,
            },
        );
        let mut log = RaftLog::new();
        log.start_term(1);
        let spec = |name, tables| ScmSpec {
            name,
            tables,
            up: true,
        };
        let c = Cluster::new(
            &rec,
            Upgrade::RaiseOnly,
            Checks::NONE,
            vec![
                spec("scm1", primary),
                spec("scm2", initial_tables()),
                spec("scm3", initial_tables()),
            ],
            log,
            1,
            1,
            2,
        );
        c.restart(&me, 0);
        let after = c.rows();
        assert_eq!(
            after.iter().map(|r| r.2).collect::<Vec<_>>(),
            vec![Some(5), Some(2), Some(2)]
        );
        // The peers' allocations now fail on the primary, as in the seed's divergence.
        assert_eq!(valid(&c, &me, "dn3"), Outcome::Issued(3));
        assert!(scm1_logged(
            &rec,
            "Failed to allocate a batch for CertificateId, expected lastId is 2, actual lastId is 5."
        ));
        let after = c.rows();
        assert_eq!(
            after.iter().map(|r| r.2).collect::<Vec<_>>(),
            vec![Some(5), Some(3), Some(3)]
        );
        assert!(after.iter().all(|r| r.1 == after[0].1), "{after:?}");
    });
}

fn durable_row(c: &Cluster, i: usize) -> (u64, Option<u64>) {
    let t = c.scm(i).durable();
    (stored_index(&t), last_id(&t))
}

/// `allocateBatch` stages its row in the transaction buffer; `storeValidCertificate` writes
/// RocksDB at once. Killed before a flush, the primary keeps certificates 3 and 4 durably
/// over a durable row of 2 at TX 0, and replays every entry after TX 0.
// Reference: SequenceIdGenerator.StateManagerImpl.allocateBatch,
// SCMCertStore.storeValidCertificate, SCMCertStore.storeValidScmCertificate,
// SCMHADBTransactionBufferImpl.addToBuffer,
// SCMHADBTransactionBufferImpl.flushUnderWriteLock.
fn a_kill_loses_the_staged_row_but_not_the_stored_certificates() {
    run_once(|| {
        let rec = Arc::new(Recorder::new(None));
        let me = Actor::new("test", &rec);
        let c = three_scms(&rec, Upgrade::NoForcedCall, Checks::NONE, &[]);
        assert_eq!(valid(&c, &me, "dn1"), Outcome::Issued(3));
        assert_eq!(valid(&c, &me, "dn2"), Outcome::Issued(4));
        assert_eq!(rows(&c), vec![Some(4); 3], "the staged rows");
        assert_eq!(durable_row(&c, 0), (0, Some(2)), "nothing flushed");
        let durable = c.scm(0).durable();
        assert!(durable.get(VALID_CERTS_TABLE, &serial_key(4)).is_some());
        c.transfer_leadership(&me, 1);
        c.scm(0).kill(&me);
        assert_eq!(durable_row(&c, 0), (0, Some(2)));
        assert_eq!(c.scm(0).applied(), 0, "Ratis replays from the durable TX");
        c.boot(&me, 0);
        assert_eq!(rows(&c), vec![Some(4); 3], "the replay staged 3, then 4");
    });
}

/// Through a kill the seed's patch raises the row locally: a durable row of 4 at TX 0,
/// where every SCM held 2. The replay's allocations then fail on the primary only, and the
/// rows meet again at 4; no serial is handed out twice.
// Reference: SequenceIdGenerator.upgradeToCertificateSequenceId,
// StorageContainerManager.persistPrimarySCMCerts.
fn raise_only_after_a_kill_raises_the_durable_row_and_the_replay_heals_it() {
    run_once(|| {
        let rec = Arc::new(Recorder::new(None));
        let me = Actor::new("test", &rec);
        let c = three_scms(&rec, Upgrade::RaiseOnly, Checks::NONE, &[]);
        valid(&c, &me, "dn1");
        valid(&c, &me, "dn2");
        c.transfer_leadership(&me, 1);
        c.kill_and_restart(&me, 0);
        assert_eq!(durable_row(&c, 0), (0, Some(4)), "raised locally at TX 0");
        assert!(scm1_logged(
            &rec,
            "Failed to allocate a batch for CertificateId, expected lastId is 2, actual lastId is 4."
        ));
        assert_eq!(rows(&c), vec![Some(4); 3]);
        assert_eq!(valid(&c, &me, "dn3"), Outcome::Issued(5));
        c.transfer_leadership(&me, 0);
        assert_eq!(valid(&c, &me, "dn4"), Outcome::Issued(6));
    });
}

/// `storeValidCertificate` is a CLIENT replicate: a store in flight when the leadership
/// moves follows the new leader and succeeds. The allocating SCM still signs and checks.
// Reference: CertificateStore.storeValidCertificate (annotated `@Replicate` with invocation type
// CLIENT), ScmInvoker.invokeReplicateClient, HASecurityUtils.submitScmRequestToRatis.
fn a_store_in_flight_reaches_the_new_leader_and_succeeds() {
    run_once(|| {
        let rec = Arc::new(Recorder::new(None));
        let me = Actor::new("test", &rec);
        let c = three_scms(&rec, Upgrade::Forced, Checks::NONE, &[]);
        let f = c.allocate(&me, &CertRequest::valid("dn1"));
        assert_eq!(f.serial, 3);
        c.transfer_leadership(&me, 1);
        assert_eq!(c.sign_and_store(&me, f), Outcome::Issued(3));
        for i in 0..3 {
            let t = c.scm(i).durable();
            assert!(t.get(VALID_CERTS_TABLE, &serial_key(3)).is_some(), "scm{i}");
        }
        assert!(rec
            .take()
            .trace
            .iter()
            .any(|e| e.action == "scm1 signed 3; the store goes through the leader, scm2"));
    });
}

/// `removeAllExpiredCertificates` takes no arguments: each SCM sweeps validCertsTable and
/// validSCMCertsTable itself when it applies the entry, with a direct batch.
// Reference: SCMCertStore.removeAllExpiredCertificates, SCMCertStore.addExpiredCertsToBeRemoved,
// CertificateStore.removeAllExpiredCertificates.
fn each_scm_sweeps_both_tables_when_it_applies_the_expiry() {
    run_once(|| {
        let rec = Arc::new(Recorder::new(None));
        let me = Actor::new("test", &rec);
        let c = three_scms(&rec, Upgrade::Forced, Checks::NONE, &[]);
        let mut expiring_scm = CertRequest::scm("scm4");
        expiring_scm.expired = true;
        assert_eq!(c.request(&me, &expiring_scm), Outcome::Issued(3));
        assert_eq!(
            c.request(&me, &CertRequest::expiring("dn1")),
            Outcome::Issued(4)
        );
        c.remove_expired(&me);
        for i in 0..3 {
            let t = c.scm(i).durable();
            for serial in [3, 4] {
                assert!(t.get(VALID_CERTS_TABLE, &serial_key(serial)).is_none());
                assert!(t.get(VALID_SCM_CERTS_TABLE, &serial_key(serial)).is_none());
            }
            assert!(t.get(VALID_SCM_CERTS_TABLE, &serial_key(2)).is_some());
        }
    });
}

/// A new generator's batch starts at lastId 0: the first `getNextId` after a restart
/// submits `allocateBatch(0, 1)`, which fails everywhere. `invalidateBatch` keeps lastId, so
/// a leader that led before submits its stale lastId first.
// Reference: SequenceIdGenerator.getNextId, SequenceIdGenerator.invalidateBatch,
// SequenceIdGenerator.invalidateBatchInternal (and the nested class SequenceIdGenerator.Batch,
// whose lastId starts at 0), SCMStateMachine.notifyLeaderChanged (which calls invalidateBatch).
fn the_generator_submits_0_after_a_restart_and_its_stale_last_id_after_a_leader_change() {
    run_once(|| {
        let rec = Arc::new(Recorder::new(None));
        let me = Actor::new("test", &rec);
        let c = three_scms(&rec, Upgrade::Forced, Checks::NONE, &[]);
        assert_eq!(valid(&c, &me, "dn1"), Outcome::Issued(3));
        assert!(scm1_logged(
            &rec,
            "Failed to allocate a batch for CertificateId, expected lastId is 0, actual lastId is 2."
        ));
        c.transfer_leadership(&me, 1);
        assert_eq!(valid(&c, &me, "dn2"), Outcome::Issued(4));
        c.transfer_leadership(&me, 0);
        assert_eq!(
            c.scm(0).generator().lock().last,
            3,
            "kept by invalidateBatch"
        );
        assert_eq!(valid(&c, &me, "dn3"), Outcome::Issued(5));
        assert!(scm1_logged(
            &rec,
            "Failed to allocate a batch for CertificateId, expected lastId is 3, actual lastId is 4."
        ));
    });
}

/// `persistPrimarySCMCerts` stores the sub-CA certificate (2) and the root CA certificate
/// (1) into both tables, each only when validCertsTable lacks it.
// Reference: StorageContainerManager.persistPrimarySCMCerts,
// SCMCertStore.storeValidScmCertificate.
fn the_primary_stores_certificates_1_and_2_in_both_tables_only_if_absent() {
    run_once(|| {
        let rec = Arc::new(Recorder::new(None));
        let me = Actor::new("test", &rec);
        let c = fresh_scms(&rec, Upgrade::NoForcedCall, Checks::NONE);
        c.boot(&me, 0);
        let t = c.scm(0).durable();
        for serial in [1, 2] {
            for table in [VALID_CERTS_TABLE, VALID_SCM_CERTS_TABLE] {
                assert!(
                    t.get(table, &serial_key(serial)).is_some(),
                    "{table} {serial}"
                );
            }
        }
        let writes = |rec: &Recorder| {
            rec.take()
                .trace
                .iter()
                .filter(|e| e.java == "SCMCertStore.storeValidScmCertificate")
                .count()
        };
        assert_eq!(writes(&rec), 2);
        c.restart(&me, 0);
        assert_eq!(writes(&rec), 0, "present: not stored again");
    });
}

/// Every start of every SCM runs `upgradeToSequenceId` before `persistPrimarySCMCerts`: on a
/// fresh cluster its non-forced call seeds the row (max(2, stored serials) = 2) before the
/// forced call, so the forced call finds row = largest and every variant leaves 2. Joining
/// SCMs seed 2 in their own empty DBs, which is why the replayed `allocateBatch(0, 1)` fails
/// on them too.
// Reference: StorageContainerManager.initializeSystemManagers,
// StorageContainerManager.initializeCAnSecurityProtocol, StorageContainerManager.start,
// SequenceIdGenerator.upgradeToSequenceId, SequenceIdGenerator.upgradeToCertificateSequenceId.
fn on_a_first_start_the_row_is_seeded_before_the_forced_call_in_every_variant() {
    for upgrade in [
        Upgrade::Forced,
        Upgrade::RaiseOnly,
        Upgrade::NoForcedCall,
        Upgrade::ThroughRatis,
    ] {
        run_once(move || {
            let rec = Arc::new(Recorder::new(None));
            let me = Actor::new("test", &rec);
            let c = fresh_scms(&rec, upgrade, Checks::NONE);
            c.boot(&me, 0);
            assert_eq!(last_id(&c.scm(0).durable()), Some(2), "{upgrade:?}");
            let out = rec.take();
            assert_eq!(
                out.probes.get("RowAbsentAtStartup"),
                Some(&1),
                "{upgrade:?}"
            );
            assert_eq!(out.probes.get("RowAboveLargestAtStartup"), None);
            assert_eq!(out.probes.get("LargestAboveRowAtStartup"), None);
            c.join(&me, 1);
            c.join(&me, 2);
            assert_eq!(rows(&c), vec![Some(4); 3], "{upgrade:?}");
            assert_eq!(valid(&c, &me, "dn1"), Outcome::Issued(5));
            let t = c.scm(2).durable();
            assert!(t.get(VALID_SCM_CERTS_TABLE, &serial_key(3)).is_some());
        });
    }
}

/// The shared buffer over the certificate rows: `notifyLeaderChanged`'s flush runs on Ratis's
/// election thread and takes only the buffer's write lock (nothing in
/// [`java::SCMClientProtocolServer::transferLeadership`] holds an SCM lock across it), so it
/// can commit the `CertificateId` row an in-flight `allocateBatch` staged under the
/// `TransactionInfo` of the entry before it. Staged here: the apply of index 9 stages row 5
/// ([`java::SequenceIdGenerator::StateManagerImpl::allocateBatch`] through
/// [`java::SCMHADBTransactionBufferImpl::addToBuffer`]), the new leader's
/// [`java::SCMStateMachine::notifyLeaderChanged`] flushes
/// ([`java::SCMHADBTransactionBufferImpl::flush`]), then the apply ends with
/// [`java::SCMHADBTransactionBufferImpl::updateLatestTrxInfo`]. (The scenario's cluster still
/// orders that flush after the apply: see `crate::models::scm_cert::scm`.)
fn staged_a_leader_change_flush_inside_an_allocation_commits_its_row_under_the_previous_tx() {
    run_once(|| {
        let rec = Arc::new(Recorder::new(None));
        let me = Actor::new("test", &rec);
        let mut tables = initial_tables();
        put_tx_info(&mut tables, 0, 8);
        tables.put(SEQUENCE_ID_TABLE, CERTIFICATE_ID, ScmRow::LastId(4));
        let store = Arc::new(Store::with_state(tables, None));
        let buffer = TransactionBuffer::new(Arc::clone(&store), 0, 8);
        let mut entered = false;
        let outcome = apply_writes(&buffer, &me, (0, 9), SaveFlush::Java, || {
            entered = true;
            Ok(vec![Write::Buffered {
                table: SEQUENCE_ID_TABLE,
                key: CERTIFICATE_ID.to_string(),
                row: ScmRow::LastId(5),
            }])
        });
        assert!(entered);
        assert_eq!(outcome, ApplyOutcome::Applied);
        // The same staging, with the election thread's flush between it and the index.
        let store = Arc::new(Store::with_state(store.durable(), None));
        let buffer = TransactionBuffer::new(Arc::clone(&store), 0, 8);
        buffer.begin_applying(&me);
        buffer.add_to_buffer(&me, SEQUENCE_ID_TABLE, CERTIFICATE_ID, ScmRow::LastId(5));
        leader_change_flush(&buffer, &me, FlushPath::Unguarded, "scm1 becomes leader");
        let durable = store.durable();
        assert_eq!(
            stored_index(&durable),
            8,
            "the flush claims the previous entry"
        );
        assert_eq!(
            last_id(&durable),
            Some(5),
            "with the row of the entry in flight"
        );
        buffer.update_latest_trx_info(&me, 0, 9).unwrap();
        buffer.end_applying(&me);
        let out = rec.take();
        assert_eq!(out.probes.get("FlushDuringApply"), Some(&1));
        assert_eq!(out.probes.get("StagedFlushedMidApply"), Some(&1));
        let at = |id| out.trace.iter().rposition(|e| e.java == id).expect(id);
        assert!(
            at(java::SCMHADBTransactionBufferImpl::addToBuffer.id)
                < at(java::SCMStateMachine::notifyLeaderChanged.id)
        );
        assert!(
            at(java::SCMHADBTransactionBufferImpl::flushUnderWriteLock.id)
                < at(java::SCMHADBTransactionBufferImpl::updateLatestTrxInfo.id)
        );
    });
}

/// The stop snapshot ([`java::SCMStateMachine::takeSnapshot`] on the updater, between two
/// applies) still commits the staged row with the applied index, and a direct certificate
/// write ([`java::SCMCertStore::storeValidCertificate`]) is durable at apply, before any flush.
fn staged_the_stop_snapshot_commits_the_staged_row_with_the_applied_index() {
    run_once(|| {
        let rec = Arc::new(Recorder::new(None));
        let me = Actor::new("test", &rec);
        let c = three_scms(&rec, Upgrade::RaiseOnly, Checks::NONE, &[]);
        assert_eq!(valid(&c, &me, "dn1"), Outcome::Issued(3));
        let t = c.scm(0).durable();
        assert!(t.get(VALID_CERTS_TABLE, &serial_key(3)).is_some());
        assert_eq!(last_id(&t), Some(2), "the allocation is only staged");
        let applied = c.scm(0).applied();
        c.stop(&me, 0);
        let t = c.scm(0).durable();
        assert_eq!((stored_index(&t), last_id(&t)), (applied, Some(3)));
        let trace = rec.take().trace;
        let snapshot = trace
            .iter()
            .rposition(|e| e.java == java::SCMStateMachine::takeSnapshot.id)
            .expect("the stop snapshot");
        assert!(trace[..snapshot]
            .iter()
            .any(|e| e.java == java::SCMCertStore::storeValidCertificate.id));
    });
}

/// The transfer starts the election only once the transferee's log holds the leader's last
/// entry ([`java::TransferLeadership::sendStartLeaderElection`] after
/// [`java::TransferLeadership::isFollowerUpToDate`]), and a follower's log holds an entry
/// before its state machine applies it: an entry committed while scm2 has not appended it
/// keeps the transfer waiting, whichever thread runs first.
fn staged_the_transfer_waits_for_the_transferee_to_hold_the_last_entry() {
    run_once(|| {
        let rec = Arc::new(Recorder::new(None));
        let me = Actor::new("test", &rec);
        let c = Arc::new(three_scms(&rec, Upgrade::RaiseOnly, Checks::NONE, &[]));
        assert_eq!(valid(&c, &me, "dn1"), Outcome::Issued(3));
        let last = c.log().append(ScmTx::RemoveExpired);
        let transfer = {
            let c = Arc::clone(&c);
            let t = Actor::new("transfer", &rec);
            thread::spawn("transfer", move || c.transfer_leadership(&t, 1))
        };
        c.scm(1).catch_up(&me, c.log(), None);
        transfer.join();
        assert_eq!(c.leader(), 1);
        let trace = rec.take().trace;
        let holds = format!("scm2's log holds index {last}");
        let at = |pred: &dyn Fn(&ozone_ha_check::trace::Event) -> bool| {
            trace.iter().position(pred).expect("step")
        };
        let appended = at(&|e| e.action == holds);
        let applied = at(&|e| {
            e.java == java::SCMCertStore::removeAllExpiredCertificates.id
                && e.action.starts_with(&format!("scm2 applies index {last}"))
        });
        let up_to_date = at(&|e| e.java == java::TransferLeadership::isFollowerUpToDate.id);
        let election = at(&|e| e.java == java::TransferLeadership::sendStartLeaderElection.id);
        let flush = at(&|e| e.java == java::SCMStateMachine::notifyLeaderChanged.id);
        assert!(appended < applied, "appended before applied");
        assert!(appended < up_to_date, "the transfer waited for the append");
        assert!(up_to_date < election && election < flush);
        assert_eq!(
            trace[up_to_date].action,
            format!("scm2's match index {last} = the leader's last entry {last}")
        );
    });
}

/// This module's tests.
pub(crate) fn trials() -> Vec<libtest_mimic::Trial> {
    crate::trials![
        through_ratis_holds_over_many_seeds_with_its_window_reached,
        each_plan_reaches_its_own_startup_window,
        one_scm_ids_up_to_4_largest_3_restart_hands_out_4_again,
        one_scm_serial_3_expired_and_removed_row_2_and_3_issued_again,
        one_scm_with_the_patch_keeps_4,
        three_scms_rows_7_9_9_two_failed_allocations_then_8_9_refused_10_11_issued_12,
        three_scms_with_the_patch_keep_9_and_refuse_nothing,
        a_joining_scm_installs_the_lowered_checkpoint_and_issues_8,
        with_log_purge_a_down_follower_installs_rows_7_9_7_at_one_index,
        with_log_purge_off_the_follower_replays_and_keeps_9,
        staged_raise_only_puts_the_primary_ahead_when_a_local_serial_is_above_the_row,
        a_kill_loses_the_staged_row_but_not_the_stored_certificates,
        raise_only_after_a_kill_raises_the_durable_row_and_the_replay_heals_it,
        a_store_in_flight_reaches_the_new_leader_and_succeeds,
        each_scm_sweeps_both_tables_when_it_applies_the_expiry,
        the_generator_submits_0_after_a_restart_and_its_stale_last_id_after_a_leader_change,
        the_primary_stores_certificates_1_and_2_in_both_tables_only_if_absent,
        on_a_first_start_the_row_is_seeded_before_the_forced_call_in_every_variant,
        staged_a_leader_change_flush_inside_an_allocation_commits_its_row_under_the_previous_tx,
        staged_the_stop_snapshot_commits_the_staged_row_with_the_applied_index,
        staged_the_transfer_waits_for_the_transferee_to_hold_the_last_entry
    ]
}
