//! HDDS-16092 under shuttle, and deterministic staged tests of each Java semantic the model
//! follows.
// Reference: HDDS-16092, apache/ozone PR #10953.

use crate::support::{pct, replay, run};
use ozone_ha_check::engine::{run_once, Budget, Strategy};
use ozone_ha_check::explore::Verdict;
use ozone_ha_check::kit::store::{Store, Tables};
use ozone_ha_check::kit::tx_info::{put_tx_info, stored_index};
use ozone_ha_check::models::om::double_buffer::{DoubleBuffer, Life, Response};
use ozone_ha_check::models::om::node::OmNode;
use ozone_ha_check::models::om::persist::{IndexWrite, TxInfoWriter};
use ozone_ha_check::models::om::requests::OmRequest;
use ozone_ha_check::models::om::startup::{restart_and_replay, Replayed};
use ozone_ha_check::models::om::state_machine::StateMachine;
use ozone_ha_check::models::om::{
    initial_tables, OmRow, TermIndex, BUCKET, BUCKET_TABLE, KEY_TABLE, OPEN_KEY_TABLE, VOLUME,
    VOLUME_TABLE,
};
use ozone_ha_check::recorder::{Actor, Recorder};
use ozone_ha_check::scenarios::hdds_16092::{
    install_checkpoint, reference_states, second_term_log, sized_log, workload_log, VOCABULARY,
};
use ozone_ha_check::sync::{thread, Arc};

const S: &str = "hdds-16092";

fn fixed_and_1d260d5_hold_over_many_seeds_with_their_window_reached() {
    for variant in ["fixed", "cached-read-1d260d5"] {
        for seed in 0..3 {
            for plan in ["steady", "restart", "second-term"] {
                let r = run(S, variant, plan, pct(seed, 2_000), None);
                assert_eq!(r.verdict, Verdict::Held, "{variant} seed {seed} {plan}");
                assert!(r.probes["SnapshotInFlushWindow"] > 0, "{variant} {plan}");
                assert!(r.probes["StaleCandidateRefused"] > 0, "{variant} {plan}");
            }
        }
    }
}

fn pct_finds_the_buggy_violation_quickly() {
    let r = run(S, "buggy", "steady", pct(0, 50), None);
    assert_eq!(r.verdict, Verdict::Violated);
    assert!(r.first_violation.unwrap() <= 50);
}

const TERMINATION_FIXTURE: &str =
    include_str!("fixtures/hdds-16092__buggy__restart__NoOmTermination__pct.json");

fn termination_schedule() -> String {
    ozone_ha_check::counterexample::Counterexample::parse(TERMINATION_FIXTURE)
        .unwrap()
        .schedule
        .unwrap()
        .to_string()
}

/// The committed counterexample: the stop snapshot puts TX 1 over the batch {2, 3}; the
/// restart replays `CreateKey k1` (index 2) against the committed k1 (updateID 3) and
/// terminates (the next restart does the same: see
/// `replaying_a_committed_keys_create_terminates_the_om_on_every_restart`).
fn committed_termination_counterexample_replays() {
    let r = replay(
        S,
        "buggy",
        "restart",
        termination_schedule(),
        Some("NoOmTermination"),
    );
    assert_eq!(r.verdict, Verdict::Violated);
    assert_eq!(r.invariant.as_deref(), Some("NoOmTermination"));
    let detail = r.detail.unwrap();
    assert!(
        detail.contains("1 termination(s)") && detail.contains("IllegalArgumentException"),
        "{detail}"
    );
}

fn replaying_twice_gives_identical_traces() {
    let a = replay(S, "buggy", "restart", termination_schedule(), None);
    let b = replay(S, "buggy", "restart", termination_schedule(), None);
    assert_eq!(a.trace, b.trace);
    assert_eq!(a.invariant.as_deref(), Some("TxIndexMonotone"));
}

/// Ratis waits for every submitted apply before each snapshot (`StateMachineUpdater.takeSnapshot`
/// calls `applyLogFutures.get()` first): in the committed second-term counterexample every
/// snapshot comes after the queueing of every entry submitted before it.
// Reference: StateMachineUpdater.takeSnapshot (Ratis).
fn every_snapshot_follows_the_applies_submitted_before_it() {
    let fixture =
        include_str!("fixtures/hdds-16092__buggy__second-term__NoOmTermination__pct.json");
    let saved = ozone_ha_check::counterexample::Counterexample::parse(fixture).unwrap();
    let r = replay(
        S,
        "buggy",
        "second-term",
        saved.schedule.as_ref().unwrap(),
        Some("NoOmTermination"),
    );
    let mut submitted = Vec::new();
    let mut queued = Vec::new();
    let mut snapshots = 0;
    for e in &r.trace {
        if e.java == "OzoneManagerStateMachine.applyTransaction" {
            submitted.push(e.action.clone());
        } else if e.java == "OzoneManagerDoubleBuffer.add" {
            queued.push(e.action.clone());
        } else if e.java == "OzoneManagerStateMachine.takeSnapshotImpl"
            && e.action.contains("index")
            && !e.action.contains("put")
        {
            snapshots += 1;
            assert_eq!(queued.len(), submitted.len(), "at step {}", e.step);
        }
    }
    assert_eq!(snapshots, 2, "a periodic and a stop snapshot");
}

fn a_schedule_from_another_model_is_refused_clearly() {
    let s = find_error("v1:0x3,9,9,9");
    assert!(s.contains("does not fit the model"), "{s}");
}

fn find_error(schedule: &str) -> String {
    let scenario = ozone_ha_check::scenarios::find(S).unwrap();
    let err = ozone_ha_check::explore::explore(
        scenario,
        &ozone_ha_check::explore::Request::new(
            "buggy",
            "steady",
            Strategy::Replay {
                schedule: schedule.parse().unwrap(),
            },
        ),
    )
    .unwrap_err();
    err.to_string()
}

/// A node whose DB holds `stored` and whose applied index is `applied`, as the PR's staged
/// test sets it up.
fn staged(
    write: IndexWrite,
    stored: u64,
    applied: u64,
) -> (Arc<Recorder>, Arc<Store<OmRow>>, OmNode) {
    let rec = Arc::new(Recorder::new(None));
    let mut tables = initial_tables();
    put_tx_info(&mut tables, 1, stored);
    let store = Arc::new(Store::with_state(tables, None));
    let node = OmNode::new(Arc::clone(&store), write, applied, 1);
    (rec, store, node)
}

fn staged_values_of_the_pr_buggy_lowers_105_to_100() {
    run_once(|| {
        let (rec, store, node) = staged(IndexWrite::Unguarded, 105, 100);
        let me = Actor::new("ratis", &rec);
        let taken = node.take_snapshot(&me, "snapshot").unwrap();
        assert_eq!((taken.chosen, taken.reported), (100, 100));
        assert_eq!(stored_index(&store.durable()), 100);
    });
}

/// The PR's staged values, for its last commit (skip-cache read) and its first (`Table.get`
/// on the PARTIAL_CACHE table, whose put fills no cache entry): the same outcome.
fn staged_values_of_the_pr_fixed_and_1d260d5_keep_105_and_report_it() {
    for write in [IndexWrite::PersistIfNewer, IndexWrite::CachedGet] {
        run_once(move || {
            let (rec, store, node) = staged(write, 105, 100);
            let me = Actor::new("ratis", &rec);
            assert_eq!(node.take_snapshot(&me, "snapshot").unwrap().reported, 105);
            assert_eq!(stored_index(&store.durable()), 105);
            // From stored 50 the candidate 100 is written, and a second snapshot reads it back
            // (1d260d5's Table.get misses the cache and reads RocksDB).
            let (rec, store, node) = staged(write, 50, 100);
            let me = Actor::new("ratis", &rec);
            assert_eq!(node.take_snapshot(&me, "snapshot").unwrap().reported, 100);
            assert_eq!(stored_index(&store.durable()), 100);
            assert_eq!(node.take_snapshot(&me, "again").unwrap().reported, 100);
            let trace = rec.take().trace;
            assert!(
                trace.iter().all(|e| !e.action.contains("(from cache)")),
                "{write:?}"
            );
        });
    }
}

/// The stop snapshot left TX = 1 over the data of 2 and 3 (the seed's M < N). The restart
/// replays `CreateKey k1` at index 2 against the committed k1, whose updateID is 3:
/// `prepareFileInfo` builds the open key from it with `setUpdateID(2)`, `WithObjectID`'s
/// builder throws IllegalArgumentException, `validateAndUpdateCache` does not catch it and
/// `runCommand` terminates the OM, before any row changed. The next restart does the same.
// Reference: OMKeyCreateRequest.validateAndUpdateCache, OMKeyRequest.prepareFileInfo,
// WithObjectID.Builder.validate, OzoneManagerStateMachine.runCommand.
fn replaying_a_committed_keys_create_terminates_the_om_on_every_restart() {
    run_once(|| {
        let log = sized_log(1);
        let reference = reference_states(&log);
        let mut lowered: Tables<OmRow> = reference[3].clone();
        put_tx_info(&mut lowered, 1, 1);
        let store = Arc::new(Store::with_state(lowered.clone(), None));
        let rec = Arc::new(Recorder::new(None));
        let me = Actor::new("restart", &rec);
        for _ in 0..2 {
            match restart_and_replay(&store, &log, &me) {
                Replayed::Terminated { index, why } => {
                    assert_eq!(index, 2);
                    assert!(why.contains("IllegalArgumentException"), "{why}");
                }
                Replayed::Completed => panic!("the replay of index 2 must terminate"),
            }
            assert_eq!(store.durable(), lowered, "no row changed");
        }
        let after = store.durable();
        assert_eq!(stored_index(&after), 1);
        assert_eq!(
            after.get(BUCKET_TABLE, BUCKET),
            Some(&OmRow::Bucket {
                used_bytes: 10,
                used_namespace: 1
            })
        );
        assert_eq!(
            after.get(KEY_TABLE, "k1"),
            Some(&OmRow::Key {
                size: 10,
                update_id: 3
            })
        );
        assert_eq!(after.get(OPEN_KEY_TABLE, "k1"), None);
        // The peer, which applied each entry once, holds the same rows: no drift.
        assert!(after
            .without("transactionInfoTable")
            .diff(&reference[3].without("transactionInfoTable"))
            .is_empty());
    });
}

/// Lowered to 2, the replayed `CommitKey` reads the committed key, finds no open key and fails
/// with KEY_NOT_FOUND (an OMException: an error response, no rows); the flush writes TX 3.
// Reference: OMKeyCommitRequest.validateAndUpdateCache.
fn a_regression_to_2_replays_a_commit_that_finds_no_open_key() {
    run_once(|| {
        let log = sized_log(1);
        let reference = reference_states(&log);
        let mut lowered = reference[3].clone();
        put_tx_info(&mut lowered, 1, 2);
        let store = Arc::new(Store::with_state(lowered, None));
        let rec = Arc::new(Recorder::new(None));
        let replayed = restart_and_replay(&store, &log, &Actor::new("restart", &rec));
        assert_eq!(replayed, Replayed::Completed);
        assert_eq!(store.durable(), reference[3]);
    });
}

/// A `CreateKey` over a committed key at a later index (an overwrite) builds the open key from
/// it; the `CommitKey` then subtracts the old key's bytes and leaves the namespace count alone.
// Reference: OMKeyRequest.prepareFileInfo, OMKeyCommitRequest.validateAndUpdateCache.
fn an_overwrite_discounts_the_old_key() {
    let mut view = initial_tables();
    let create = |size| OmRequest::CreateKey {
        key: "k1".into(),
        size,
    };
    let commit = OmRequest::CommitKey { key: "k1".into() };
    create(10).apply(2, &mut view).unwrap();
    commit.apply(3, &mut view).unwrap();
    let applied = create(30).apply(4, &mut view).unwrap();
    assert!(applied.summary.contains("from the committed key"));
    commit.apply(5, &mut view).unwrap();
    assert_eq!(
        view.get(BUCKET_TABLE, BUCKET),
        Some(&OmRow::Bucket {
            used_bytes: 30,
            used_namespace: 1
        })
    );
    assert_eq!(
        view.get(KEY_TABLE, "k1"),
        Some(&OmRow::Key {
            size: 30,
            update_id: 5
        })
    );
    // Neither request writes the bucket's updateID (the row has none).
    assert!(create(10).apply(3, &mut view).is_err(), "3 < updateID 5");
}

/// `OMKeyDeleteRequest`: a committed key is deleted and taken off the bucket (bytes and one
/// namespace entry); its response deletes the key row and writes the bucket. A key not
/// committed is `KEY_NOT_FOUND`, an error response; a replayed delete below the key's
/// `updateID` throws from `WithObjectID`'s builder, like a replayed create.
fn staged_delete_takes_the_key_off_the_bucket() {
    use ozone_ha_check::citation::java;
    let _ = (
        &java::OMKeyDeleteRequest::validateAndUpdateCache,
        &java::OMKeyDeleteResponse::addToDBBatch,
        &java::WithObjectID::Builder::validate,
    );
    let mut view = initial_tables();
    let delete = OmRequest::DeleteKey { key: "k1".into() };
    let missing = delete.apply(2, &mut view).unwrap();
    assert!(missing.summary.contains("KEY_NOT_FOUND"));
    assert!(missing.rows.is_empty());
    OmRequest::CreateKey {
        key: "k1".into(),
        size: 10,
    }
    .apply(3, &mut view)
    .unwrap();
    OmRequest::CommitKey { key: "k1".into() }
        .apply(4, &mut view)
        .unwrap();
    let mut replayed = view.clone();
    let applied = delete.apply(5, &mut view).unwrap();
    assert_eq!(view.get(KEY_TABLE, "k1"), None);
    assert_eq!(
        view.get(BUCKET_TABLE, BUCKET),
        Some(&OmRow::Bucket {
            used_bytes: 0,
            used_namespace: 0
        })
    );
    assert!(!applied.rows.is_empty());
    // A delete at an index below the committed key's updateID 4 throws.
    assert!(delete.apply(3, &mut replayed).is_err());
}

/// Restart an OM whose DB holds `workload`'s log applied through `holds` with its stored
/// index lowered to `stored`; returns the store, how the replay ended, the trace's actions
/// and what a peer that applied the log once holds.
fn replay_lowered(
    workload: &str,
    holds: usize,
    stored: u64,
) -> (Arc<Store<OmRow>>, Replayed, Vec<String>, Tables<OmRow>) {
    let log = workload_log(&VOCABULARY.parse(workload).unwrap());
    let reference = reference_states(&log);
    let mut lowered = reference[holds].clone();
    put_tx_info(&mut lowered, 1, stored);
    let store = Arc::new(Store::with_state(lowered, None));
    let rec = Arc::new(Recorder::new(None));
    let replayed = restart_and_replay(&store, &log, &Actor::new("restart", &rec));
    let actions = rec.take().trace.iter().map(|e| e.action.clone()).collect();
    let peer = reference[reference.len() - 1].clone();
    (store, replayed, actions, peer)
}

/// `OMAllocateBlockRequest`: an open key gains a block (`OmKeyInfo.appendNewBlocks`, a plain
/// append) and the allocation's index as `updateID`; no open key is `KEY_NOT_FOUND`, an error
/// response. Lowered to 2 with the allocation at 3 in the DB, the replayed allocation finds
/// the open key at `updateID` 3, which `WithObjectID.Builder.validate` accepts (3 is not
/// below 3), and appends the same block again: the OM runs on with three blocks where its
/// peer lists two. Lowered to 1, the replayed create rebuilds the open key from the request
/// and the replay agrees with the peer.
fn staged_a_replayed_allocate_block_lists_the_block_twice() {
    use ozone_ha_check::citation::java;
    let _ = (
        &java::OMAllocateBlockRequest::validateAndUpdateCache,
        &java::OmKeyInfo::appendNewBlocks,
        &java::WithObjectID::Builder::validate,
    );
    run_once(|| {
        let mut view = initial_tables();
        let allocate = OmRequest::AllocateBlock { key: "k1".into() };
        let missing = allocate.apply(2, &mut view).unwrap();
        assert!(missing.summary.contains("KEY_NOT_FOUND"));
        assert!(missing.rows.is_empty());

        let (store, replayed, actions, peer) = replay_lowered("create(k1) allocate(k1)", 3, 2);
        assert_eq!(replayed, Replayed::Completed);
        let after = store.durable();
        assert_eq!(stored_index(&after), 3);
        let open = |blocks| OmRow::OpenKey {
            size: 10,
            update_id: 3,
            blocks,
        };
        assert_eq!(after.get(OPEN_KEY_TABLE, "k1"), Some(&open(3)));
        assert_eq!(peer.get(OPEN_KEY_TABLE, "k1"), Some(&open(2)));
        assert!(
            !actions.iter().any(|a| a.contains("Exception")),
            "{actions:#?}"
        );

        let (store, replayed, _, peer) = replay_lowered("create(k1) allocate(k1)", 3, 1);
        assert_eq!(replayed, Replayed::Completed);
        assert_eq!(
            store.durable().get(OPEN_KEY_TABLE, "k1"),
            peer.get(OPEN_KEY_TABLE, "k1")
        );
    });
}

/// Two allocations of one open key, the stored index lowered between the create and the
/// first: the replayed first allocation (index 3) finds the open key the second wrote
/// (`updateID` 4), `WithObjectID.Builder.validate` throws `IllegalArgumentException`, and the
/// OM terminates before anything of the entry is queued: the stored index stays at 2, so
/// every restart terminates again.
fn staged_a_replayed_allocate_below_a_later_one_terminates_the_om() {
    use ozone_ha_check::citation::java;
    let _ = (
        &java::OMAllocateBlockRequest::validateAndUpdateCache,
        &java::WithObjectID::Builder::validate,
        &java::OzoneManagerStateMachine::runCommand,
    );
    run_once(|| {
        let (store, replayed, _, _) = replay_lowered("create(k1) allocate(k1) allocate(k1)", 4, 2);
        assert!(
            matches!(replayed, Replayed::Terminated { index: 3, .. }),
            "{replayed:?}"
        );
        assert_eq!(stored_index(&store.durable()), 2);
        // The next restart replays from the same index and terminates again.
        let log = workload_log(
            &VOCABULARY
                .parse("create(k1) allocate(k1) allocate(k1)")
                .unwrap(),
        );
        let rec = Arc::new(Recorder::new(None));
        assert!(matches!(
            restart_and_replay(&store, &log, &Actor::new("restart", &rec)),
            Replayed::Terminated { index: 3, .. }
        ));
    });
}

/// `OMVolumeCreateRequest` and `OMBucketCreateRequest`: the first apply writes the volume, or
/// the bucket and its volume's `usedNamespace` + 1; the replay of either meets the existence
/// check (`VOLUME_ALREADY_EXISTS`, `BUCKET_ALREADY_EXISTS`: error responses, no rows), so a
/// replay from below both leaves the OM as its peer.
fn staged_replayed_volume_and_bucket_creates_are_error_responses() {
    use ozone_ha_check::citation::java;
    let _ = (
        &java::OMVolumeCreateRequest::validateAndUpdateCache,
        &java::OMBucketCreateRequest::validateAndUpdateCache,
    );
    run_once(|| {
        let mut view = initial_tables();
        let volume = OmRequest::CreateVolume {
            volume: "/vol2".into(),
        };
        let bucket = OmRequest::CreateBucket {
            bucket: "/vol1/bucket2".into(),
        };
        assert!(!volume.apply(2, &mut view).unwrap().rows.is_empty());
        assert!(!bucket.apply(3, &mut view).unwrap().rows.is_empty());
        assert_eq!(
            view.get(VOLUME_TABLE, VOLUME),
            Some(&OmRow::Volume { used_namespace: 2 })
        );
        let again = volume.apply(4, &mut view).unwrap();
        assert!(again.summary.contains("VOLUME_ALREADY_EXISTS") && again.rows.is_empty());
        let again = bucket.apply(4, &mut view).unwrap();
        assert!(again.summary.contains("BUCKET_ALREADY_EXISTS") && again.rows.is_empty());

        let (store, replayed, actions, peer) = replay_lowered("volume bucket", 3, 1);
        assert_eq!(replayed, Replayed::Completed);
        assert_eq!(store.durable(), peer);
        assert!(actions.iter().any(|a| a.contains("VOLUME_ALREADY_EXISTS")));
        assert!(actions.iter().any(|a| a.contains("BUCKET_ALREADY_EXISTS")));
    });
}

/// `notifyTermIndexUpdated` of a configuration entry that skips a data entry sets
/// `lastSkippedIndex`; the flush that reports the skipped entry moves applied to the notified
/// configuration entry (the jump), comparing `(term, index)`.
// Reference: OzoneManagerStateMachine.notifyTermIndexUpdated,
// OzoneManagerStateMachine.updateLastAppliedTermIndex.
fn a_flush_inside_the_notification_gap_jumps_to_the_notified_entry() {
    run_once(|| {
        let rec = Arc::new(Recorder::new(None));
        let me = Actor::new("ratis", &rec);
        let sm = StateMachine::new(TermIndex::default());
        sm.notify_term_index_updated(&me, 1, 1).unwrap();
        assert_eq!(sm.applied(), TermIndex::new(1, 1));
        sm.notify_term_index_updated(&me, 2, 3).unwrap();
        assert_eq!(sm.applied(), TermIndex::new(1, 1), "entry 2 is not flushed");
        sm.update_last_applied(&me, TermIndex::new(1, 2)).unwrap();
        assert_eq!(sm.applied(), TermIndex::new(2, 3));
        // Flushed before the notification instead: applied 2, then the notification (3 - 2 = 1)
        // moves it.
        let sm = StateMachine::new(TermIndex::default());
        sm.notify_term_index_updated(&me, 1, 1).unwrap();
        sm.update_last_applied(&me, TermIndex::new(1, 2)).unwrap();
        sm.notify_term_index_updated(&me, 2, 3).unwrap();
        assert_eq!(sm.applied(), TermIndex::new(2, 3));
    });
}

/// `assertUpdateIncreasingly`: a flush that reports an index below applied throws
/// IllegalArgumentException; `flushCurrentBuffer` catches it and terminates the OM.
// Reference: OzoneManagerStateMachine.updateLastAppliedTermIndex,
// OzoneManagerStateMachine.assertUpdateIncreasingly, OzoneManagerDoubleBuffer.flushCurrentBuffer.
fn a_decreasing_applied_index_terminates_the_om_on_the_flush_thread() {
    run_once(|| {
        let rec = Arc::new(Recorder::new(None));
        let me = Actor::new("flush", &rec);
        let store = Arc::new(Store::with_state(initial_tables(), None));
        let node = OmNode::new(Arc::clone(&store), IndexWrite::PersistIfNewer, 5, 1);
        node.buffer().add(
            &me,
            Response {
                index: 3,
                term: 1,
                rows: Default::default(),
            },
        );
        // The flush thread commits {3}, then reports (t1, 3) below applied (t1, 5).
        node.flush_thread(&me);
        assert_eq!(node.buffer().life(), Life::Terminated);
        let exits = node.exits();
        assert_eq!(exits.len(), 1);
        assert!(exits[0].contains("IllegalArgumentException"), "{exits:?}");
        // The notification assertion on the Ratis thread.
        let sm = StateMachine::new(TermIndex::default());
        sm.notify_term_index_updated(&me, 2, 4).unwrap();
        assert!(sm.notify_term_index_updated(&me, 1, 3).is_err());
    });
}

/// `takeSnapshot` waits while `applied < lastSkippedIndex` and only then takes the snapshot;
/// without the wait, `takeSnapshotImpl` picks the notified configuration entry over an
/// unflushed data entry.
// Reference: OzoneManagerStateMachine.takeSnapshot, OzoneManagerStateMachine.takeSnapshotImpl.
fn take_snapshot_waits_for_the_flush_of_the_skipped_entry() {
    run_once(|| {
        let rec = Arc::new(Recorder::new(None));
        let me = Actor::new("ratis", &rec);
        let store = Arc::new(Store::with_state(initial_tables(), None));
        let node = Arc::new(OmNode::new(
            Arc::clone(&store),
            IndexWrite::PersistIfNewer,
            0,
            0,
        ));
        let sm = node.state_machine();
        sm.notify_term_index_updated(&me, 1, 1).unwrap();
        sm.notify_term_index_updated(&me, 2, 3).unwrap();
        let snapshot = {
            let (node, me) = (Arc::clone(&node), me.clone());
            thread::spawn("ratis", move || {
                node.take_snapshot(&me, "snapshot").unwrap()
            })
        };
        // The flush of entry 2: commit, then report it.
        let flush = Actor::new("flush", &rec);
        let mut batch = ozone_ha_check::kit::store::WriteBatch::new();
        ozone_ha_check::kit::tx_info::stage_tx_info(&mut batch, 1, 2);
        store.commit(
            &flush,
            ozone_ha_check::citation::Label::model("flush 2"),
            batch,
        );
        node.state_machine()
            .update_last_applied(&flush, TermIndex::new(1, 2))
            .unwrap();
        let taken = snapshot.join();
        assert_eq!(taken.chosen, 3);
        assert_eq!(stored_index(&store.durable()), 3);

        // takeSnapshotImpl alone, before the flush: it picks 3 with entry 2 unflushed.
        let store = Arc::new(Store::with_state(initial_tables(), None));
        let writer = TxInfoWriter::new(Arc::clone(&store), IndexWrite::PersistIfNewer);
        let sm = StateMachine::new(TermIndex::default());
        sm.notify_term_index_updated(&me, 1, 1).unwrap();
        sm.notify_term_index_updated(&me, 2, 3).unwrap();
        assert_eq!(sm.take_snapshot_impl(&writer, &me, "no wait").chosen, 3);
        assert_eq!(stored_index(&store.durable()), 3);
        // A stopped OM makes the wait loop throw instead.
        let writer = TxInfoWriter::new(
            Arc::new(Store::with_state(initial_tables(), None)),
            IndexWrite::PersistIfNewer,
        );
        sm.stop();
        assert!(sm.take_snapshot(&writer, &me, "stopped").is_err());
    });
}

/// The flush loop reads `isRunning` before `canFlush`, and `canFlush` returns as soon as the
/// current buffer is non-empty: a daemon past the `isRunning` read swaps and flushes after
/// `stop()`. A daemon back at the top of its loop exits; one waiting on an empty buffer is
/// interrupted and exits.
// Reference: OzoneManagerDoubleBuffer.flushTransactions, OzoneManagerDoubleBuffer.stop,
// OzoneManagerDoubleBuffer.stopDaemon, OzoneManagerDoubleBuffer.canFlush,
// OzoneManagerDoubleBuffer.swapCurrentAndReadyBuffer.
fn a_flush_past_its_running_check_still_swaps_after_stop() {
    run_once(|| {
        let rec = Arc::new(Recorder::new(None));
        let me = Actor::new("flush", &rec);
        let queued = |buffer: &DoubleBuffer<Response>| {
            buffer.add(
                &me,
                Response {
                    index: 2,
                    term: 1,
                    rows: Default::default(),
                },
            );
        };
        let buffer = DoubleBuffer::new();
        queued(&buffer);
        assert!(buffer.is_running());
        buffer.stop(&me, "stop");
        assert!(buffer.can_flush(), "a non-empty buffer ignores isRunning");
        assert_eq!(buffer.swap(&me).map(|b| b.len()), Some(1));

        let buffer = DoubleBuffer::new();
        queued(&buffer);
        buffer.stop(&me, "stop");
        assert!(buffer.next_batch(&me).is_none(), "at the loop top: exits");

        let buffer: DoubleBuffer<Response> = DoubleBuffer::new();
        buffer.stop(&me, "stop");
        assert!(!buffer.can_flush(), "empty: interrupted");
    });
}

/// The OM's flush thread reports each flush after it advanced applied, so `awaitFlush`
/// returns once everything queued before it is committed, and only then.
// Reference: OzoneManagerDoubleBuffer.java:319-347 at 78d5650c313
fn await_flush_returns_after_the_flush_thread_reports() {
    run_once(|| {
        let rec = Arc::new(Recorder::new(None));
        let me = Actor::new("apply", &rec);
        let store = Arc::new(Store::with_state(initial_tables(), None));
        let node = Arc::new(OmNode::new(Arc::clone(&store), IndexWrite::Unguarded, 0, 0));
        node.buffer().add(
            &me,
            Response {
                index: 1,
                term: 1,
                rows: Default::default(),
            },
        );
        let flush = {
            let (node, me) = (Arc::clone(&node), Actor::new("flush", &rec));
            thread::spawn("flush", move || node.flush_thread(&me))
        };
        assert!(node.await_flush(
            &me,
            &ozone_ha_check::citation::java::OzoneManagerDoubleBuffer::awaitFlush
        ));
        assert_eq!(stored_index(&store.durable()), 1);
        assert_eq!(node.state_machine().applied(), TermIndex::new(1, 1));
        node.buffer().stop(&me, "stop");
        flush.join();
    });
}

/// On second-term the configuration entry 3 arrives while entry 2 is queued: `fixed` keeps
/// every durable state consistent because the snapshot waits for the flush of 2.
fn second_term_log_has_a_data_entry_inside_the_notification_gap() {
    let log = second_term_log(1);
    assert_eq!(log.last_index(), 5);
    assert_eq!(log.entry(3).unwrap().term, 2);
    let reference = reference_states(&log);
    assert_eq!(
        reference[3].get(OPEN_KEY_TABLE, "k1"),
        Some(&OmRow::Key {
            size: 10,
            update_id: 2
        })
    );
}

/// A follower that installs a checkpoint whose `TransactionInfo` was lowered to 1 (k1 committed
/// at 3): `installCheckpoint` takes the index from the checkpoint, `verifyTransactionInfo`
/// accepts it (above the follower's 0), and Ratis applies 2 and 3 over the checkpoint. The
/// replayed `CreateKey k1` throws and the follower terminates without any restart; its DB is
/// the checkpoint's, unchanged.
// Reference: OzoneManager.java:4305-4312, 4343-4409 and HAUtils.java:303-321 at 78d5650c313;
// StateMachineUpdater.java:229-241 at Ratis 37932bf6011.
fn a_follower_installing_a_lowered_checkpoint_replays_and_terminates() {
    let _ = &ozone_ha_check::citation::java::OzoneManager::installCheckpoint__String_Path;
    let _ = &ozone_ha_check::citation::java::StateMachineUpdater::reload;
    run_once(|| {
        let log = sized_log(1);
        let reference = reference_states(&log);
        let mut lowered: Tables<OmRow> = reference[3].clone();
        put_tx_info(&mut lowered, 1, 1);
        let leader = Store::with_state(lowered.clone(), None);
        let rec = Arc::new(Recorder::new(None));
        let me = Actor::new("follower", &rec);
        let (follower, replayed) = install_checkpoint(&leader, &log, &me);
        assert!(
            matches!(&replayed, Replayed::Terminated { index: 2, why } if why.contains("IllegalArgumentException")),
            "{replayed:?}"
        );
        assert_eq!(follower.durable(), lowered, "the checkpoint, unchanged");
        // The leader is untouched: only the follower replays.
        assert_eq!(leader.durable(), lowered);
        // Its next start replays from the same index and terminates again.
        assert!(matches!(
            restart_and_replay(&follower, &log, &me),
            Replayed::Terminated { index: 2, .. }
        ));
    });
}

/// A key created, committed and renamed, with the stored index lowered below the create:
/// the replayed `CreateKey` finds no key under the old name and builds a fresh one, the
/// `CommitKey` counts it in the bucket a second time, and the `RenameKey` fails with
/// `KEY_ALREADY_EXISTS` (`OMKeyRenameRequest.validateAndUpdateCache`, an error response): the
/// OM runs on with two keys and doubled bucket counters, where its peer holds one key. No
/// `Throwable` escapes, so nothing terminates: the drift is silent.
fn a_replayed_create_commit_and_rename_drift_silently() {
    run_once(|| {
        let workload = VOCABULARY
            .parse("create(k1) commit(k1) rename(k1,k2)")
            .unwrap();
        let log = workload_log(&workload);
        let reference = reference_states(&log);
        let mut lowered: Tables<OmRow> = reference[4].clone();
        put_tx_info(&mut lowered, 1, 1);
        let store = Arc::new(Store::with_state(lowered, None));
        let rec = Arc::new(Recorder::new(None));
        let me = Actor::new("restart", &rec);
        assert!(matches!(
            restart_and_replay(&store, &log, &me),
            Replayed::Completed
        ));
        let after = store.durable();
        assert_eq!(stored_index(&after), 4);
        assert_eq!(
            after.get(BUCKET_TABLE, BUCKET),
            Some(&OmRow::Bucket {
                used_bytes: 20,
                used_namespace: 2
            })
        );
        for key in ["k1", "k2"] {
            assert!(after.get(KEY_TABLE, key).is_some(), "{key}");
        }
        // The peer that applied the log once holds k2 alone.
        assert_eq!(reference[4].get(KEY_TABLE, "k1"), None);
        assert_eq!(
            reference[4].get(BUCKET_TABLE, BUCKET),
            Some(&OmRow::Bucket {
                used_bytes: 10,
                used_namespace: 1
            })
        );
        let summaries: Vec<String> = rec.take().trace.iter().map(|e| e.action.clone()).collect();
        assert!(
            summaries
                .iter()
                .any(|a| a.contains("k2: KEY_ALREADY_EXISTS")),
            "{summaries:#?}"
        );
        // Cited: the request whose error response hides the drift.
        let _ = &ozone_ha_check::citation::java::OMKeyRenameRequest::validateAndUpdateCache;
    });
}

/// Over the generated workloads (no plan names a rename or an allocation), the stateful
/// engine finds a silent drift on `buggy` and `lock-only`: `ReplicasAgree` broken after a
/// replay in which no OM terminated, either on the workload create, commit, rename of one
/// key and a restart (the rename drift), or on a replayed `AllocateBlock` that lists its
/// block twice, whichever its search order meets first. At most one fault, so that the
/// search reaches it in a test's time (the restart needs it).
fn the_generated_space_drifts_silently_after_a_rename() {
    use ozone_ha_check::explore::{explore, Request};
    use ozone_ha_check::scenarios::hdds_16092::Hdds16092;
    use ozone_ha_check::workload::Bounds;
    for variant in ["buggy", "lock-only"] {
        let r = explore(
            &Hdds16092,
            &Request::new(
                variant,
                "generated",
                Strategy::Stateful {
                    executions: 500_000,
                    part: None,
                    deepening: Some(Budget::CHECK),
                    sources: false,
                },
            )
            .bounds(Some(Bounds {
                requests: 3,
                faults: 1,
            }))
            .watch(Some("ReplicasAgree")),
        )
        .unwrap();
        assert_eq!(r.verdict, Verdict::Violated, "{variant}");
        // The lowered index breaks the index invariants as always; no OM terminates.
        assert!(r.broken.iter().any(|b| b == "ReplicasAgree"), "{variant}");
        assert!(
            !r.broken.iter().any(|b| b == "NoOmTermination"),
            "{variant}"
        );
        let workload = &r.trace[0].action;
        assert!(
            !r.trace.iter().any(|e| e.action.contains("Exception")),
            "{variant}: nothing thrown, no OM terminated"
        );
        if workload.contains("allocate") {
            // The replayed AllocateBlock appends its block a second time.
            assert!(
                r.trace.iter().any(|e| e.action.contains("3 blocks")),
                "{variant}: {workload}"
            );
        } else {
            assert!(
                workload.starts_with("create(k1) commit(k1) rename(k1,k2) "),
                "{variant}: {workload}"
            );
            assert!(
                r.trace
                    .iter()
                    .any(|e| e.action.contains("k2: KEY_ALREADY_EXISTS")),
                "{variant}: the replayed rename fails with an error response"
            );
        }
        assert!(r.scope.as_deref().unwrap().contains("3843 workloads"));
    }
}

/// The fault words: `snapshot` puts the periodic snapshot right after the entry of the
/// request before it (`StateMachineUpdater.takeSnapshot`), `stop` keeps the stop snapshot
/// (`shouldTakeSnapshot` at stop) and restarts (`loadSnapshotInfoFromDB`), `kill` restarts
/// without it, `install` hands the DB to a follower (`OzoneManager.installCheckpoint`). Faults
/// write no log entry; an ending comes last and after a request; one snapshot, after a
/// request.
fn staged_fault_words_place_the_snapshot_and_end_the_run() {
    use ozone_ha_check::citation::java;
    use ozone_ha_check::models::om::actors::SnapshotTrigger;
    use ozone_ha_check::scenarios::hdds_16092::{workload_faults, Fault};
    let _ = (
        &java::StateMachineUpdater::takeSnapshot,
        &java::StateMachineUpdater::shouldTakeSnapshot,
        &java::OzoneManagerStateMachine::loadSnapshotInfoFromDB,
        &java::OzoneManager::installCheckpoint__String_Path,
    );
    let w = VOCABULARY
        .parse("create(k1) snapshot commit(k1) kill")
        .unwrap();
    // 1 configuration, 2 create, 3 commit: the snapshot follows index 2.
    assert_eq!(
        workload_faults(&w),
        (SnapshotTrigger::AfterIndex(2), Some(Fault::Kill))
    );
    assert_eq!(workload_log(&w).last_index(), 3);
    let w = VOCABULARY.parse("create(k1) commit(k1)").unwrap();
    assert_eq!(workload_faults(&w), (SnapshotTrigger::Never, None));
    for ending in ["stop", "kill", "install"] {
        let w = VOCABULARY
            .parse(&format!("create(k1) commit(k1) {ending}"))
            .unwrap();
        let (prefix, last) = w.items.split_at(2);
        assert!((VOCABULARY.allowed)(prefix, &last[0]), "{ending}");
        // Nothing after an ending, no ending or snapshot first, one snapshot.
        let after = VOCABULARY.parse("commit(k1)").unwrap().items[0].clone();
        assert!(!(VOCABULARY.allowed)(&w.items, &after), "{ending}");
        assert!(!(VOCABULARY.allowed)(&[], &last[0]), "{ending}");
    }
    let w = VOCABULARY.parse("create(k1) snapshot commit(k1)").unwrap();
    let snapshot = w.items[1].clone();
    assert!(!(VOCABULARY.allowed)(&[], &snapshot));
    assert!(!(VOCABULARY.allowed)(&w.items[..2], &snapshot));
    assert!(!(VOCABULARY.allowed)(&w.items, &snapshot));
}

/// Beyond the written plans: with no periodic snapshot (the OM's threshold is 400,000
/// entries, so the stop snapshot is usually the first after a start), `compare-only`'s
/// stop snapshot reads the initial TX 0, the flush commits TX 3, and the comparing put
/// writes its candidate 1 over it: the restart replays `CreateKey k1` against the committed
/// k1 and terminates, as in `buggy`. The written plans' periodic snapshot always stores at
/// least 2 first, which hid it.
fn compare_only_lowers_below_a_create_when_the_stop_snapshot_is_the_first() {
    use ozone_ha_check::explore::{explore, Request};
    use ozone_ha_check::scenarios::hdds_16092::Hdds16092;
    use ozone_ha_check::workload::Bounds;
    let _ = &ozone_ha_check::citation::java::StateMachineUpdater::shouldTakeSnapshot;
    let r = explore(
        &Hdds16092,
        &Request::new(
            "compare-only",
            "generated",
            Strategy::Stateful {
                executions: 500_000,
                part: None,
                deepening: Some(Budget::CHECK),
                sources: false,
            },
        )
        .bounds(Some(Bounds {
            requests: 3,
            faults: 1,
        }))
        .watch(Some("NoOmTermination")),
    )
    .unwrap();
    assert_eq!(r.verdict, Verdict::Violated);
    let workload = &r.trace[0].action;
    assert!(!workload.contains("snapshot"), "{workload}");
    assert!(
        r.trace.iter().any(|e| e
            .action
            .contains("put transactionInfoTable/#TRANSACTIONINFO=TX 1")),
        "the stop snapshot puts 1"
    );
    assert!(r
        .trace
        .iter()
        .any(|e| e.action.contains("IllegalArgumentException")));
}

/// This module's tests.
pub(crate) fn trials() -> Vec<libtest_mimic::Trial> {
    crate::trials![
        fixed_and_1d260d5_hold_over_many_seeds_with_their_window_reached,
        pct_finds_the_buggy_violation_quickly,
        committed_termination_counterexample_replays,
        replaying_twice_gives_identical_traces,
        every_snapshot_follows_the_applies_submitted_before_it,
        a_schedule_from_another_model_is_refused_clearly,
        staged_values_of_the_pr_buggy_lowers_105_to_100,
        staged_values_of_the_pr_fixed_and_1d260d5_keep_105_and_report_it,
        replaying_a_committed_keys_create_terminates_the_om_on_every_restart,
        a_regression_to_2_replays_a_commit_that_finds_no_open_key,
        a_follower_installing_a_lowered_checkpoint_replays_and_terminates,
        an_overwrite_discounts_the_old_key,
        a_flush_inside_the_notification_gap_jumps_to_the_notified_entry,
        a_decreasing_applied_index_terminates_the_om_on_the_flush_thread,
        take_snapshot_waits_for_the_flush_of_the_skipped_entry,
        a_flush_past_its_running_check_still_swaps_after_stop,
        await_flush_returns_after_the_flush_thread_reports,
        second_term_log_has_a_data_entry_inside_the_notification_gap,
        a_replayed_create_commit_and_rename_drift_silently,
        the_generated_space_drifts_silently_after_a_rename,
        staged_fault_words_place_the_snapshot_and_end_the_run,
        staged_delete_takes_the_key_off_the_bucket,
        staged_a_replayed_allocate_block_lists_the_block_twice,
        staged_a_replayed_allocate_below_a_later_one_terminates_the_om,
        staged_replayed_volume_and_bucket_creates_are_error_responses,
        compare_only_lowers_below_a_create_when_the_stop_snapshot_is_the_first,
    ]
}
