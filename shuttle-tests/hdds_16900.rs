//! HDDS-16900 under shuttle: the verdict matrix, and the seed's numbers reproduced step by
//! step.
// Reference: HDDS-16900, seeds/000_0a279f86879c9feb.txt.

use crate::support::{pct, run};
use ozone_ha_check::engine::run_once;
use ozone_ha_check::explore::Verdict;
use ozone_ha_check::kit::raft_log::RaftLog;
use ozone_ha_check::kit::store::Tables;
use ozone_ha_check::models::scm_cert::cluster::{CertRequest, Checks, Cluster, Outcome, ScmSpec};
use ozone_ha_check::models::scm_cert::initial_tables;
use ozone_ha_check::models::scm_cert::scm::Upgrade;
use ozone_ha_check::recorder::{Actor, Recorder};
use ozone_ha_check::scenarios::hdds_16900::three_scms;
use ozone_ha_check::sync::Arc;

const S: &str = "hdds-16900";

#[test]
fn through_ratis_holds_over_many_seeds_with_its_window_reached() {
    for seed in 0..5 {
        for plan in ["restart", "store-fails", "expired", "rejoin"] {
            let r = run(S, "through-ratis", plan, pct(seed, 2_000), None);
            assert_eq!(r.verdict, Verdict::Held, "seed {seed} {plan}");
            assert!(r.probes["RowAboveLargestAtStartup"] > 0);
        }
    }
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

#[test]
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

#[test]
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

#[test]
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
        .any(|e| e.action.starts_with("scm1 applies") && e.action.ends_with(message))
}

#[test]
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

#[test]
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

#[test]
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

#[test]
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

#[test]
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
#[test]
fn staged_raise_only_puts_the_primary_ahead_when_a_local_serial_is_above_the_row() {
    run_once(|| {
        use ozone_ha_check::models::scm_cert::{ScmRow, VALID_SCM_CERTS_TABLE};
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
