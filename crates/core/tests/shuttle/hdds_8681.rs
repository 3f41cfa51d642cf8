//! HDDS-8681 under shuttle: the fix holds for a create already in flight, breaks for a create
//! applied after its lock, and the batched cleanup holds both ways; and staged tests of the
//! snapshot create's flush as each revision has it.
// Reference: HDDS-8681, fix 1ae0401b1ac (PR #4950); HDDS-11183, 1996f3aeb4e.

use crate::support::{apply_then_flush, pct, run};
use ozone_ha_check::citation::java::{hdds_11183, hdds_7279_parent, hdds_8681_parent};
use ozone_ha_check::citation::Citation;
use ozone_ha_check::engine::run_once_returning;
use ozone_ha_check::explore::Verdict;
use ozone_ha_check::kit::store::{Store, Tables};
use ozone_ha_check::kit::tx_info::put_tx_info;
use ozone_ha_check::models::om::snapshot::node::SnapshotOm;
use ozone_ha_check::models::om::snapshot::{
    CreateRevision, Dirs, Java, SnapshotDb, Snapshots, Split,
};
use ozone_ha_check::models::om::{OmRow, OmTables, DELETED_TABLE, SNAPSHOT_INFO_TABLE};
use ozone_ha_check::recorder::{Actor, Recorder};
use ozone_ha_check::scenarios::hdds_8681::{create_log, Variant};
use ozone_ha_check::sync::Arc;
use ozone_ha_check::trace::Event;

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

/// What one staged create left: the trace, the active DB, s2's directory.
struct Created {
    trace: Vec<Event>,
    active: OmTables,
    s2: Option<OmTables>,
}

/// `deletedTable/d1`, `d2` and `TransactionInfo` 0, as the scenario's leader.
fn leader_tables() -> OmTables {
    let mut t = Tables::default();
    for key in ["d1", "d2"] {
        t.put(
            DELETED_TABLE,
            key,
            OmRow::Key {
                size: 10,
                update_id: 0,
            },
        );
    }
    put_tx_info(&mut t, 0, 0);
    t
}

/// A directory s2 left by an earlier run of the same create (a crash before its batch
/// committed): distinct from any checkpoint this run could take.
fn earlier_s2() -> OmTables {
    let mut t = Tables::default();
    t.put(
        DELETED_TABLE,
        "d0",
        OmRow::Key {
            size: 10,
            update_id: 0,
        },
    );
    t
}

/// One OM applies `CreateSnapshot s2`, then flushes it, with the create's flush at
/// `revision`; with `existing`, s2's directory is already on disk.
fn staged_create(revision: CreateRevision, existing: Option<OmTables>) -> Created {
    run_once_returning(move || {
        let rec = Arc::new(Recorder::new(None));
        let me = Actor::new("om", &rec);
        let dirs =
            Arc::new(Dirs::new(existing.clone().map(|db| {
                ("s2".to_string(), Arc::new(SnapshotDb::with_state(db, None)))
            })));
        let store = Arc::new(Store::with_state(leader_tables(), None));
        let java = Java::without_purges(Split::AtCreate, revision);
        let snaps = Snapshots::new(Arc::clone(&dirs), [], &[], java, Variant::Fixed.cites());
        let om = SnapshotOm::new(Arc::clone(&store), snaps, false);
        let log = create_log();
        apply_then_flush(&om, &me, &log, 0);
        Created {
            trace: rec.take().trace,
            active: store.durable(),
            s2: dirs.content("s2"),
        }
    })
}

/// Where the first step citing `java` whose action starts with `action` is.
fn at(trace: &[Event], java: &Citation, action: &str) -> usize {
    trace
        .iter()
        .position(|e| e.java == java.id && e.action.starts_with(action))
        .unwrap_or_else(|| panic!("no step {} {action}", java.id))
}

/// `createOmSnapshotCheckpoint` at 2f71ee00ab0 (and 1ae0401b1ac) and at 1996f3aeb4e cleans the
/// active DB's `deletedTable` after the `Files.exists` test in both of its branches: a create
/// that finds its directory (a replay) keeps the directory and still deletes the rows. At
/// 67e67250bd0 nothing is cleaned.
// Reference: OmSnapshotManager.createOmSnapshotCheckpoint (2f71ee00ab0: the cleanup after the
// if/else; 1996f3aeb4e: the same, into the batch).
fn a_create_cleans_the_deleted_table_whether_or_not_its_directory_exists() {
    let cleaning = [
        (
            CreateRevision::HDDS_8681_PARENT,
            &hdds_8681_parent::OmSnapshotManager::createOmSnapshotCheckpoint,
        ),
        (
            CreateRevision::HDDS_8681,
            &hdds_8681_parent::OmSnapshotManager::createOmSnapshotCheckpoint,
        ),
        (
            CreateRevision::HDDS_11183,
            &hdds_11183::OmSnapshotManager::createOmSnapshotCheckpoint,
        ),
    ];
    for (revision, checkpoint) in cleaning {
        for existing in [None, Some(earlier_s2())] {
            let c = staged_create(revision, existing.clone());
            let which = format!(
                "{} with a directory: {}",
                revision.commit,
                existing.is_some()
            );
            for key in ["d1", "d2"] {
                assert!(c.active.get(DELETED_TABLE, key).is_none(), "{which}: {key}");
            }
            assert!(c.active.get(SNAPSHOT_INFO_TABLE, "s2").is_some(), "{which}");
            let expected_s2 = existing.unwrap_or_else(leader_tables);
            assert_eq!(c.s2.as_ref(), Some(&expected_s2), "{which}");
            if c.s2 == Some(earlier_s2()) {
                at(&c.trace, checkpoint, "s2's directory exists: reuse it");
            }
        }
    }
    // The unbatched cleanup of a replayed create is two durable writes, after the reuse.
    let replayed = staged_create(CreateRevision::HDDS_8681_PARENT, Some(earlier_s2()));
    let checkpoint = &hdds_8681_parent::OmSnapshotManager::createOmSnapshotCheckpoint;
    assert!(
        at(&replayed.trace, checkpoint, "s2's directory exists")
            < at(&replayed.trace, checkpoint, "deleteRange deletedTable")
    );
    for existing in [None, Some(earlier_s2())] {
        let c = staged_create(CreateRevision::HDDS_7279_PARENT, existing);
        for key in ["d1", "d2"] {
            assert!(
                c.active.get(DELETED_TABLE, key).is_some(),
                "67e67250bd0: {key}"
            );
        }
    }
}

/// `OMSnapshotCreateResponse.addToDBBatch` stages the row (`putWithBatch`) before
/// `createOmSnapshotCheckpoint` from 2f71ee00ab0 on, after it at 67e67250bd0.
// Reference: OMSnapshotCreateResponse.addToDBBatch at 67e67250bd0 (checkpoint, then the put)
// and at 2f71ee00ab0 and 1996f3aeb4e (the put, then the checkpoint).
fn the_creates_row_is_staged_before_the_checkpoint_from_2f71ee00ab0_on() {
    let staged = "snapshot s2's row staged";
    let before: [(CreateRevision, &Citation, &Citation); 2] = [
        (
            CreateRevision::HDDS_8681_PARENT,
            &hdds_8681_parent::OMSnapshotCreateResponse::addToDBBatch,
            &hdds_8681_parent::OmSnapshotManager::createOmSnapshotCheckpoint,
        ),
        (
            CreateRevision::HDDS_11183,
            &hdds_11183::OMSnapshotCreateResponse::addToDBBatch,
            &hdds_11183::OmSnapshotManager::createOmSnapshotCheckpoint,
        ),
    ];
    for (revision, response, checkpoint) in before {
        let c = staged_create(revision, None);
        assert!(
            at(&c.trace, response, staged) < at(&c.trace, checkpoint, "checkpoint"),
            "{}",
            revision.commit
        );
    }
    let c = staged_create(CreateRevision::HDDS_7279_PARENT, None);
    assert!(
        at(
            &c.trace,
            &hdds_7279_parent::OmSnapshotManager::createOmSnapshotCheckpoint,
            "checkpoint"
        ) < at(
            &c.trace,
            &hdds_7279_parent::OMSnapshotCreateResponse::addToDBBatch,
            staged
        )
    );
}

/// The generated plan's space, and how a workload becomes a log and the requests applied
/// before the download.
fn generated_workloads_map_to_a_log_and_a_download_point() {
    use ozone_ha_check::models::om::snapshot::requests::SnapshotRequest;
    use ozone_ha_check::models::om::startup::data_after;
    use ozone_ha_check::scenarios::hdds_8681::{workload_log, VOCABULARY};
    assert_eq!(VOCABULARY.count(VOCABULARY.bounds), 8);
    let creates = |text: &str| {
        let (log, before) = workload_log(&VOCABULARY.parse(text).unwrap());
        let entries: Vec<(u64, SnapshotRequest)> = data_after(&log, 0)
            .map(|(e, r)| (e.index, r.clone()))
            .collect();
        (entries, before)
    };
    let create = |snapshot: &str| SnapshotRequest::CreateSnapshot {
        snapshot: snapshot.into(),
    };
    assert_eq!(
        creates("snapshot download snapshot"),
        (vec![(2, create("s1")), (3, create("s2"))], 1)
    );
    assert_eq!(creates("download snapshot"), (vec![(2, create("s1"))], 0));
    // Without a download, the request arrives after the last create.
    assert_eq!(creates("snapshot"), (vec![(2, create("s1"))], 1));
    assert_eq!(creates("download"), (vec![], 0));
}

/// This module's tests.
pub(crate) fn trials() -> Vec<libtest_mimic::Trial> {
    crate::trials![
        the_holding_cases_hold_over_many_seeds_with_the_create_in_flight,
        the_fix_breaks_only_for_a_create_applied_after_its_lock,
        the_parents_checkpoint_inside_the_creates_flush_ships_no_snapshot,
        a_create_cleans_the_deleted_table_whether_or_not_its_directory_exists,
        the_creates_row_is_staged_before_the_checkpoint_from_2f71ee00ab0_on,
        generated_workloads_map_to_a_log_and_a_download_point
    ]
}
