//! HDDS-16452 under shuttle: the holding cases over many seeds, and one staged test per
//! modelled semantic of the Java.
// Reference: HDDS-16452.

use crate::support::{pct, run};
use ozone_ha_check::citation::java;
use ozone_ha_check::engine::run_once;
use ozone_ha_check::explore::Verdict;
use ozone_ha_check::kit::raft_log::{LogEntry, RaftLog};
use ozone_ha_check::kit::store::{Store, Tables};
use ozone_ha_check::kit::tx_info::stored_index;
use ozone_ha_check::models::scm::deleted_blocks::DeletedBlockStatus;
use ozone_ha_check::models::scm::inter_scm::download;
use ozone_ha_check::models::scm::request::ScmRequest;
use ozone_ha_check::models::scm::state_machine::{
    install_and_catch_up, notify_leader_changed, reference_states, replay_after, take_snapshot,
    ApplyOutcome, Install, SaveFlush, SummaryLoad, Updater,
};
use ozone_ha_check::models::scm::tx_buffer::{FlushPath, TransactionBuffer};
use ozone_ha_check::models::scm::{
    cert_key, container_key, initial_tables, stored_summary, table_summary, txn_key,
    LifeCycleState, ScmRow, Summary, CONTAINERS_TABLE, DELETED_BLOCKS_TABLE,
    STATEFUL_SERVICE_CONFIG_TABLE, VALID_CERTS_TABLE,
};
use ozone_ha_check::recorder::{Actor, Recorder};
use ozone_ha_check::scenario::Scenario;
use ozone_ha_check::scenarios::hdds_16452::{
    plan_log, Drawn, Hdds16452, Plan, Shape, Variant, VOCABULARY,
};
use ozone_ha_check::sync::Arc;

const S: &str = "hdds-16452";

fn holding_cases_hold_over_many_seeds_with_their_window_reached() {
    for seed in 0..5 {
        for (variant, plan) in [
            ("fixed", "base"),
            ("fixed", "container-transition"),
            ("fixed", "with-leader-change"),
            ("download-guarded", "base"),
            ("download-guarded", "container-transition"),
            ("fixed-save-after-index", "save-configuration"),
            ("fixed-load-before-ready", "leader-summary"),
        ] {
            let r = run(S, variant, plan, pct(seed, 2_000), None);
            assert_eq!(r.verdict, Verdict::Held, "seed {seed} {variant} {plan}");
            assert!(
                r.probes["FlushDuringApply"] > 0,
                "seed {seed} {variant} {plan}"
            );
            if plan == "leader-summary" {
                assert!(
                    r.probes["SubmitDuringStartupEntry"] > 0,
                    "seed {seed}: the client never raced the startup entry"
                );
            }
        }
    }
}

fn the_registered_scenario_is_this_one() {
    assert_eq!(Hdds16452::NAME, S);
}

/// A leader whose DB holds `initial` at TX 0, with its buffer and its updater.
struct Leader {
    rec: Arc<Recorder>,
    store: Arc<Store<ScmRow>>,
    buffer: TransactionBuffer,
    updater: Updater,
}

impl Leader {
    fn new(initial: Tables<ScmRow>) -> Self {
        let rec = Arc::new(Recorder::new(None));
        let store = Arc::new(Store::with_state(initial.clone(), None));
        let buffer = TransactionBuffer::new(Arc::clone(&store), 0, 0);
        Self {
            rec,
            store,
            buffer,
            updater: Updater::new(initial),
        }
    }

    fn actor(&self, name: &str) -> Actor {
        Actor::new(name, &self.rec)
    }

    fn apply(&mut self, entry: &LogEntry<ScmRequest>, save: SaveFlush) -> ApplyOutcome {
        let me = self.actor("apply");
        self.updater.apply(&self.buffer, &me, entry, save)
    }
}

fn entry(log: &RaftLog<ScmRequest>, index: u64) -> LogEntry<ScmRequest> {
    log.entry(index).cloned().expect("entry in the log")
}

/// Begin an apply, stage txID 1 of its two, and download the checkpoint over `path`.
fn download_mid_transaction(path: FlushPath) -> (Arc<Recorder>, Tables<ScmRow>) {
    let l = Leader::new(initial_tables(0));
    let (apply, grpc) = (l.actor("apply"), l.actor("download"));
    l.buffer.begin_applying(&apply);
    l.buffer.add_to_buffer(
        &apply,
        DELETED_BLOCKS_TABLE,
        &txn_key(1),
        ScmRow::DeletedTxn { blocks: 2 },
    );
    let checkpoint = download(&l.buffer, &grpc, path);
    (l.rec, checkpoint)
}

/// The seed's steps 1-2 at their shortest: begin, stage txID 1, the download's flush
/// commits it under TX 0, and the checkpoint ships half a transaction.
// Reference: InterSCMGrpcService.download, SCMHADBTransactionBufferImpl.addToBuffer,
// SCMHADBTransactionBufferImpl.flush, SCMHADBTransactionBufferImpl.flushUnderWriteLock.
fn four_steps_unguarded_download_ships_half_a_transaction() {
    run_once(|| {
        let (_rec, checkpoint) = download_mid_transaction(FlushPath::Unguarded);
        assert_eq!(stored_index(&checkpoint), 0);
        assert!(checkpoint.get(DELETED_BLOCKS_TABLE, &txn_key(1)).is_some());
        assert!(checkpoint.get(DELETED_BLOCKS_TABLE, &txn_key(2)).is_none());
        assert_eq!(stored_summary(&checkpoint), None);
    });
}

// Reference: SCMHADBTransactionBufferImpl.flushIfNeeded.
fn four_steps_guarded_download_defers_and_ships_the_last_flush() {
    run_once(|| {
        let (rec, checkpoint) = download_mid_transaction(FlushPath::Guarded);
        assert_eq!(checkpoint, initial_tables(0));
        let out = rec.take();
        assert_eq!(out.probes["FlushDuringApply"], 1);
    });
}

/// `saveConfiguration` flushes inside its own apply, before `updateLatestTrxInfo(i)`: the DB
/// holds its configuration under TX i-1, and the pending count is 0, so a guarded download
/// afterwards skips its flush and ships exactly that state.
// Reference: StatefulServiceStateManagerImpl.saveConfiguration, SCMStateMachine.applyTransaction,
// SCMHADBTransactionBufferImpl.flushUnderWriteLock.
fn save_configuration_commits_its_row_under_the_previous_index() {
    run_once(|| {
        let log = plan_log(Plan::SaveConfiguration, 1);
        let mut l = Leader::new(initial_tables(0));
        for i in 1..=3 {
            assert_eq!(
                l.apply(&entry(&log, i), SaveFlush::Java),
                ApplyOutcome::Applied
            );
        }
        let durable = l.store.durable();
        assert_eq!(
            stored_index(&durable),
            2,
            "committed under the previous index"
        );
        assert_eq!(
            durable.get(STATEFUL_SERVICE_CONFIG_TABLE, "ContainerBalancer"),
            Some(&ScmRow::Config(1))
        );
        assert_eq!(l.buffer.latest_trx_info(), (1, 3));
        let grpc = l.actor("download");
        let checkpoint = download(&l.buffer, &grpc, FlushPath::Guarded);
        assert_eq!(
            checkpoint, durable,
            "nothing pending: the guarded flush skips"
        );
        let reference = reference_states(&log, initial_tables(0));
        assert_ne!(checkpoint, reference[2]);
        assert_eq!(
            checkpoint.without("scmTransactionInfos"),
            reference[3].without("scmTransactionInfos")
        );
    });
}

/// The proposed change: the flush after `updateLatestTrxInfo(i)` commits the configuration
/// under its own index.
// Reference: SCMStateMachine.applyTransaction (the change moves the buffer flush at the end of
// StatefulServiceStateManagerImpl.saveConfiguration after the apply's updateLatestTrxInfo call).
fn save_configuration_flushed_after_its_index_commits_its_own_index() {
    run_once(|| {
        let log = plan_log(Plan::SaveConfiguration, 1);
        let mut l = Leader::new(initial_tables(0));
        for i in 1..=3 {
            l.apply(&entry(&log, i), SaveFlush::AfterIndex);
        }
        let reference = reference_states(&log, initial_tables(0));
        assert_eq!(l.store.durable(), reference[3]);
    });
}

/// `updateLatestTrxInfo` throws on an index that is not larger. Inside `applyTransaction`
/// that terminates the SCM; inside `notifyTermIndexUpdated` (a configuration entry) the Ratis
/// updater closes the server and the SCM shuts down.
// Reference: SCMHADBTransactionBufferImpl.updateLatestTrxInfo, SCMStateMachine.applyTransaction,
// SCMStateMachine.notifyTermIndexUpdated; StateMachineUpdater.run (Ratis).
fn a_non_increasing_index_terminates_the_apply() {
    run_once(|| {
        let log = plan_log(Plan::Base, 1);
        let mut l = Leader::new(initial_tables(1));
        let me = l.actor("apply");
        assert!(l.buffer.update_latest_trx_info(&me, 1, 2).is_ok());
        assert!(l.buffer.update_latest_trx_info(&me, 1, 2).is_err());
        for index in [1, 2] {
            match l.apply(&entry(&log, index), SaveFlush::Java) {
                ApplyOutcome::Terminated(msg) => {
                    assert!(msg.starts_with("IllegalArgumentException"), "{msg}")
                }
                other => panic!("index {index}: {other:?}"),
            }
        }
        assert_eq!(l.buffer.latest_trx_info(), (1, 2));
        let trace = l.rec.take().trace;
        assert!(trace.iter().any(|e| e.java == "StateMachineUpdater.run"));
        assert!(trace
            .iter()
            .any(|e| e.java == "ExitUtils.terminate(int,String,Throwable,Logger)"));
    });
}

/// `takeSnapshot` catches `latestTrxInfo` up to the applied index before its flush.
// Reference: SCMStateMachine.takeSnapshot.
fn take_snapshot_catches_the_index_up_to_the_applied_one() {
    run_once(|| {
        let l = Leader::new(initial_tables(0));
        let me = l.actor("apply");
        take_snapshot(&l.buffer, &me, (1, 4));
        assert_eq!(stored_index(&l.store.durable()), 4);
        assert_eq!(l.buffer.latest_trx_info(), (1, 4));
    });
}

/// A follower refuses a checkpoint whose TX is not above its applied index.
// Reference: SCMHAManagerImpl.verifyCheckpointFromLeader, HAUtils.verifyTransactionInfo.
fn a_follower_refuses_a_checkpoint_not_above_its_applied_index() {
    run_once(|| {
        let rec = Arc::new(Recorder::new(None));
        let log = plan_log(Plan::ContainerTransition, 1);
        let follower = Store::with_state(initial_tables(1), None);
        let me = Actor::new("follower", &rec);
        let r = install_and_catch_up(&follower, initial_tables(1), &log, 0, &me);
        assert_eq!(
            r,
            Install::Refused {
                checkpoint: 0,
                applied: 0
            }
        );
        assert_eq!(follower.durable(), initial_tables(1));
    });
}

/// The flush lands between the container transition's put and `updateLatestTrxInfo(2)`: the
/// checkpoint holds the CLOSED container under TX 1. The follower reloads it, re-applies
/// index 2, gets `InvalidContainerStateException` and terminates; its DB still claims TX 1.
/// (This replaces the former model's synthetic counter, which counted the blocks twice.)
// Reference: ContainerStateManagerImpl.transitionDeletingOrDeletedToTargetState (which throws
// InvalidContainerStateException), SCMStateMachine.applyTransaction.
fn follower_that_installs_a_closed_container_under_tx_1_terminates_on_replay() {
    run_once(|| {
        let log = plan_log(Plan::ContainerTransition, 1);
        let mut l = Leader::new(initial_tables(1));
        l.apply(&entry(&log, 1), SaveFlush::Java);
        let setup = l.actor("setup");
        l.updater.take_snapshot(&l.buffer, &setup);
        let (apply, grpc) = (l.actor("apply"), l.actor("download"));
        l.buffer.begin_applying(&apply);
        l.buffer.add_to_buffer(
            &apply,
            CONTAINERS_TABLE,
            &container_key(1),
            ScmRow::Container(LifeCycleState::Closed),
        );
        let checkpoint = download(&l.buffer, &grpc, FlushPath::Unguarded);
        assert!(l.buffer.update_latest_trx_info(&apply, 1, 2).is_ok());
        l.buffer.end_applying(&apply);
        assert_eq!(stored_index(&checkpoint), 1);
        let follower = Store::with_state(initial_tables(1), None);
        let r = install_and_catch_up(&follower, checkpoint, &log, 0, &l.actor("follower"));
        match r {
            Install::Terminated { index, reason } => {
                assert_eq!(index, 2);
                assert!(
                    reason.starts_with("InvalidContainerStateException"),
                    "{reason}"
                );
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(stored_index(&follower.durable()), 1);
    });
}

/// Replaying `addTransactionsToDB` puts the leader's summary argument again: the same bytes.
// Reference: DeletedBlockLogStateManagerImpl.addTransactionsToDB.
fn a_replayed_deleted_block_entry_writes_the_same_rows() {
    run_once(|| {
        let log = plan_log(Plan::SaveConfiguration, 1);
        let add = entry(&log, 2);
        let ozone_ha_check::kit::raft_log::Payload::Data(request) = &add.payload else {
            panic!("a data entry");
        };
        let mut once = initial_tables(0);
        request.apply(&mut once).unwrap();
        let mut twice = once.clone();
        request.apply(&mut twice).unwrap();
        assert_eq!(once, twice);
        assert_eq!(stored_summary(&twice), Some(table_summary(&twice)));
    });
}

/// The new leader's flush defers while an old-term entry applies, and `onBecomeLeader`
/// loads the summary from the DB: the last flush's, not the last entry's. The leader's next
/// submission carries the stale summary, and every replica persists it.
// Reference: SCMStateMachine.notifyLeaderChanged,
// SCMDeletedBlockTransactionStatusManager.onBecomeLeader,
// SCMDeletedBlockTransactionStatusManager.addTransactions,
// SCMDeletedBlockTransactionStatusManager.initDataDistributionData,
// SCMDeletedBlockTransactionStatusManager.loadDeletedBlocksSummary.
fn a_leader_change_during_an_apply_loads_and_submits_a_stale_summary() {
    run_once(|| {
        let log = plan_log(Plan::LeaderSummary, 1);
        let mut l = Leader::new(initial_tables(0));
        let status = DeletedBlockStatus::new(&initial_tables(0));
        l.apply(&entry(&log, 1), SaveFlush::Java);
        l.apply(&entry(&log, 2), SaveFlush::Java);
        let (apply, election) = (l.actor("apply"), l.actor("leader-change"));
        l.buffer.begin_applying(&apply);
        notify_leader_changed(
            &l.buffer,
            &election,
            FlushPath::Guarded,
            &status,
            SummaryLoad::OnBecomeLeader,
        );
        l.buffer.end_applying(&apply);
        assert_eq!(status.summary(), Summary::default(), "nothing flushed yet");
        let request = status.add_transactions(&election, vec![(3, 4)]);
        let mut final_state = reference_states(&log, initial_tables(0))[3].clone();
        request.apply(&mut final_state).unwrap();
        assert_eq!(
            stored_summary(&final_state),
            Some(Summary {
                tx_count: 1,
                blocks: 4
            })
        );
        assert_eq!(
            table_summary(&final_state),
            Summary {
                tx_count: 3,
                blocks: 9
            }
        );
    });
}

/// The proposed change: the load on `notifyLeaderReady`, after a flush, reads the last
/// summary of the earlier terms.
// Reference: SCMStateMachine.notifyLeaderReady (the change moves there the call of
// SCMDeletedBlockTransactionStatusManager.initDataDistributionData that
// SCMDeletedBlockTransactionStatusManager.onBecomeLeader makes).
fn the_load_on_leader_ready_reads_the_last_summary() {
    run_once(|| {
        let mut log = plan_log(Plan::LeaderSummary, 1);
        let mut l = Leader::new(initial_tables(0));
        let status = DeletedBlockStatus::new(&initial_tables(0));
        let election = l.actor("leader-change");
        notify_leader_changed(
            &l.buffer,
            &election,
            FlushPath::Guarded,
            &status,
            SummaryLoad::OnLeaderReady,
        );
        for i in 1..=3 {
            l.apply(&entry(&log, i), SaveFlush::AfterIndex);
        }
        let startup = log.start_term(2);
        let me = l.actor("apply");
        l.updater.apply_startup_entry(
            &l.buffer,
            &me,
            &entry(&log, startup),
            &status,
            SummaryLoad::OnLeaderReady,
            || {},
            || {},
        );
        assert_eq!(
            status.summary(),
            Summary {
                tx_count: 2,
                blocks: 5
            }
        );
    });
}

/// A leader of term 2 over `leader-summary`'s log: the old-term entries applied, its
/// startup entry appended (not applied), and its deleted-block manager built over TX 0.
fn new_leader_before_its_startup_entry() -> (Leader, LogEntry<ScmRequest>, DeletedBlockStatus) {
    let mut log = plan_log(Plan::LeaderSummary, 1);
    let mut l = Leader::new(initial_tables(0));
    let status = DeletedBlockStatus::new(&initial_tables(0));
    for i in 1..=3 {
        assert_eq!(
            l.apply(&entry(&log, i), SaveFlush::AfterIndex),
            ApplyOutcome::Applied
        );
    }
    let startup = log.start_term(2);
    (l, entry(&log, startup), status)
}

/// Ratis applies the leader's startup entry as `notifyConfigurationChanged`, then
/// `checkReady` (the ready flag, then `notifyLeaderReady`), then `notifyTermIndexUpdated`: a
/// flush in `notifyLeaderReady` commits the previous entry's index, and the index moves to
/// the startup entry only afterwards.
// Reference: RaftServerImpl.applyLogToStateMachine, LeaderStateImpl.checkReady (Ratis);
// SCMStateMachine.notifyLeaderReady, SCMStateMachine.notifyTermIndexUpdated.
fn the_startup_entry_notifies_leader_ready_before_its_term_index() {
    run_once(|| {
        let (mut l, startup, status) = new_leader_before_its_startup_entry();
        let me = l.actor("apply");
        let mut at_ready = None;
        let outcome = l.updater.apply_startup_entry(
            &l.buffer,
            &me,
            &startup,
            &status,
            SummaryLoad::OnLeaderReady,
            || at_ready = Some(l.buffer.latest_trx_info()),
            || {},
        );
        assert_eq!(outcome, ApplyOutcome::Applied);
        assert_eq!(
            at_ready,
            Some((1, 3)),
            "ready before the startup entry's index"
        );
        assert_eq!(
            stored_index(&l.store.durable()),
            3,
            "notifyLeaderReady's flush commits TX 3"
        );
        assert_eq!(l.buffer.latest_trx_info(), (2, 4));
        assert_eq!(l.updater.last_applied, (2, 4));
        let trace = l.rec.take().trace;
        let at = |id: &str| {
            trace
                .iter()
                .rposition(|e| e.java == id)
                .unwrap_or_else(|| panic!("no step of {id}"))
        };
        let order = [
            at(java::SCMStateMachine::notifyConfigurationChanged.id),
            at(java::LeaderStateImpl::checkReady.id),
            at(java::SCMStateMachine::notifyLeaderReady.id),
            at(java::SCMStateMachine::notifyTermIndexUpdated.id),
        ];
        assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}");
    });
}

/// Ratis accepts writes once `checkReady` completed the startup future, before it calls
/// `notifyLeaderReady`: a `deleteKeyBlocks` submission in that gap reads the counters before
/// a load on `notifyLeaderReady`, submits a stale summary, and the load then overwrites its
/// increment. A load on the startup entry's `notifyConfigurationChanged` precedes the flag.
// Reference: LeaderStateImpl.checkReady (Ratis), StorageContainerManager.checkLeader,
// ScmBlockLocationProtocolServerSideTranslatorPB.send,
// SCMDeletedBlockTransactionStatusManager.addTransactions, SCMStateMachine.notifyLeaderReady,
// SCMStateMachine.notifyConfigurationChanged.
fn a_submission_once_ratis_is_ready_precedes_a_load_on_leader_ready() {
    run_once(|| {
        for (load, submitted, after) in [
            (
                SummaryLoad::OnLeaderReady,
                Summary {
                    tx_count: 1,
                    blocks: 4,
                },
                Summary {
                    tx_count: 2,
                    blocks: 5,
                },
            ),
            (
                SummaryLoad::BeforeReady,
                Summary {
                    tx_count: 3,
                    blocks: 9,
                },
                Summary {
                    tx_count: 3,
                    blocks: 9,
                },
            ),
        ] {
            let (mut l, startup, status) = new_leader_before_its_startup_entry();
            let (me, client) = (l.actor("apply"), l.actor("client"));
            let mut request = None;
            l.updater.apply_startup_entry(
                &l.buffer,
                &me,
                &startup,
                &status,
                load,
                || request = Some(status.add_transactions(&client, vec![(3, 4)])),
                || {},
            );
            let Some(ScmRequest::AddTransactionsToDb { summary, .. }) = request else {
                panic!("{load:?}: no submission");
            };
            assert_eq!(summary, Some(submitted), "{load:?}");
            assert_eq!(status.summary(), after, "{load:?}");
        }
    });
}

/// In `with-leader-change` the download comes only after this SCM's `notifyLeaderChanged`:
/// Ratis runs it (through `becomeLeader`) before `leader.start()` starts the appenders from
/// which a follower learns of the new leader.
// Reference: RaftServerImpl.changeToLeader (Ratis), SCMStateMachine.notifyLeaderChanged,
// InterSCMGrpcService.download.
fn with_leader_change_downloads_after_notify_leader_changed() {
    run_once(|| {
        let rec = Arc::new(Recorder::new(None));
        Hdds16452
            .prepare(Variant::Fixed, Plan::WithLeaderChange, 1)
            .run(&rec);
        let trace = rec.take().trace;
        let changed = trace
            .iter()
            .position(|e| e.java == java::SCMStateMachine::notifyLeaderChanged.id)
            .expect("a leader change");
        let first_download = trace
            .iter()
            .position(|e| e.actor == "download")
            .expect("a download");
        assert!(changed < first_download, "{changed} vs {first_download}");
    });
}

/// `SCMCertStore.storeValidCertificate` puts straight into RocksDB inside the apply: the DB
/// holds the certificate of entry 2 under TX 1 at once, nothing is pending in the buffer, so
/// a guarded download ships exactly that; a follower that installs it, and the SCM itself
/// after a kill, re-apply entry 2, which puts the same row again.
// Reference: SCMCertStore.storeValidCertificate, SCMStateMachine.applyTransaction,
// SCMHADBTransactionBufferImpl.flushIfNeeded.
fn a_certificate_write_commits_under_the_previous_index() {
    run_once(|| {
        let _ = &java::SCMCertStore::storeValidCertificate;
        let mut log = RaftLog::new();
        log.start_term(1);
        log.append(ScmRequest::StoreValidCertificate { serial: 1 });
        let reference = reference_states(&log, initial_tables(0));
        let mut l = Leader::new(initial_tables(0));
        assert_eq!(
            l.apply(&entry(&log, 1), SaveFlush::AfterIndex),
            ApplyOutcome::Applied
        );
        let me = l.actor("apply");
        l.updater.take_snapshot(&l.buffer, &me);
        assert_eq!(
            l.apply(&entry(&log, 2), SaveFlush::AfterIndex),
            ApplyOutcome::Applied
        );
        let durable = l.store.durable();
        assert_eq!(stored_index(&durable), 1, "no TransactionInfo with it");
        assert_eq!(
            durable.get(VALID_CERTS_TABLE, &cert_key(1)),
            Some(&ScmRow::Certificate),
            "durable at once"
        );
        assert!(l.buffer.staged().is_empty(), "nothing staged");
        assert_eq!(l.buffer.latest_trx_info(), (1, 2));
        let checkpoint = download(&l.buffer, &l.actor("download"), FlushPath::Guarded);
        assert_eq!(
            checkpoint, durable,
            "nothing pending: the guarded flush skips"
        );
        assert_ne!(checkpoint, reference[1]);
        // A follower installs it and re-applies entry 2: the same row.
        let follower: Store<ScmRow> = Store::with_state(initial_tables(0), None);
        let install = install_and_catch_up(&follower, checkpoint, &log, 0, &l.actor("follower"));
        assert_eq!(install, Install::CaughtUp(2));
        assert_eq!(follower.durable(), reference[2]);
        // Killed here, the SCM restarts from its DB and re-applies entry 2 the same way.
        assert_eq!(
            replay_after(&l.store, &log, &l.actor("main")),
            Install::CaughtUp(2)
        );
        assert_eq!(l.store.durable(), reference[2]);
    });
}

/// One tick of `SCMHATransactionBufferMonitorTask` within its interval takes the buffer's
/// write lock and returns: the staged batch and the DB stay as they were.
// Reference: SCMHADBTransactionBufferImpl.flushIfNeeded.
fn a_monitor_tick_within_its_interval_changes_nothing() {
    run_once(|| {
        let l = Leader::new(initial_tables(0));
        let apply = l.actor("apply");
        l.buffer.begin_applying(&apply);
        l.buffer.add_to_buffer(
            &apply,
            DELETED_BLOCKS_TABLE,
            &txn_key(1),
            ScmRow::DeletedTxn { blocks: 2 },
        );
        let staged = l.buffer.staged();
        l.buffer.monitor_tick_within_interval(&l.actor("monitor"));
        assert_eq!(l.buffer.staged(), staged);
        assert_eq!(l.store.durable(), initial_tables(0));
        let out = l.rec.take();
        assert!(out
            .trace
            .iter()
            .any(|e| e.java == java::SCMHADBTransactionBufferImpl::flushIfNeeded.id));
    });
}

/// The vocabulary's events: a download first or right after `leader-change`; a snapshot
/// after a request; a kill after a request, and nothing after it; each at most once. The
/// requests after `leader-change` are of term 2.
fn the_generated_events_come_where_the_java_allows_them() {
    let ok = |text: &str| {
        let w = VOCABULARY.parse(text).unwrap();
        VOCABULARY.encode(&w, VOCABULARY.bounds).is_some()
    };
    assert!(ok("download transition kill"));
    assert!(ok("add-txns leader-change download"));
    assert!(ok("store-cert snapshot save-config"));
    assert!(
        !ok("transition download"),
        "a download races from the start"
    );
    assert!(!ok("snapshot store-cert"), "a snapshot follows a request");
    assert!(!ok("kill"), "a kill follows a request");
    assert!(!ok("store-cert kill add-txns"), "nothing after a kill");
    assert!(!ok("download leader-change download"), "one download");
    let shape = Shape::of(
        &VOCABULARY
            .parse("add-txns leader-change download store-cert")
            .unwrap(),
    );
    assert_eq!(shape.first, vec![Drawn::AddTxns]);
    assert_eq!(shape.second, vec![Drawn::StoreCert]);
    assert_eq!(shape.download, Some(true));
    assert!(shape.leader_change && !shape.kill);
}

/// With no written plan holding a certificate write, the generated space breaks
/// `fixed-save-after-index` through one: PCT's first counterexample breaks at the
/// certificate's own commit (`check` shrinks its workload to `store-cert` alone), and
/// neither replica harm nor a failed restart comes of it (the replay puts the same row).
// Reference: SCMCertStore.storeValidCertificate.
fn the_generated_space_breaks_fixed_save_after_index_through_a_certificate_write() {
    let r = run(
        S,
        "fixed-save-after-index",
        "generated",
        pct(0, 2_000),
        Some("DurableIndexMatchesData"),
    );
    assert_eq!(r.verdict, Verdict::Violated);
    assert!(
        r.trace[0].action.contains("store-cert"),
        "{}",
        r.trace[0].action
    );
    // Broken at the certificate's own commit.
    let step = r.violation_step.expect("a violating step");
    assert_eq!(
        r.trace[step].java,
        java::SCMCertStore::storeValidCertificate.id
    );
    for harm in ["ReplicasAgree", "RestartCatchesUp"] {
        let r = run(
            S,
            "fixed-save-after-index",
            "generated",
            pct(0, 20_000),
            Some(harm),
        );
        assert_eq!(r.verdict, Verdict::Held, "{harm}");
    }
}

/// Every invariant a written plan breaks for a variant, the generated space breaks too.
fn the_generated_space_finds_what_the_written_plans_find() {
    use ozone_ha_check::scenario::Choice;
    for &variant in Variant::ALL {
        let generated = Hdds16452::expected(variant, Plan::Generated).invariants();
        for &plan in Plan::ALL {
            for broken in Hdds16452::expected(variant, plan).invariants() {
                assert!(
                    generated.contains(&broken),
                    "{variant:?} breaks {broken} on {plan:?} but not on generated"
                );
            }
        }
    }
}

/// This module's tests.
pub(crate) fn trials() -> Vec<libtest_mimic::Trial> {
    crate::trials![
        holding_cases_hold_over_many_seeds_with_their_window_reached,
        the_registered_scenario_is_this_one,
        four_steps_unguarded_download_ships_half_a_transaction,
        four_steps_guarded_download_defers_and_ships_the_last_flush,
        save_configuration_commits_its_row_under_the_previous_index,
        save_configuration_flushed_after_its_index_commits_its_own_index,
        a_non_increasing_index_terminates_the_apply,
        take_snapshot_catches_the_index_up_to_the_applied_one,
        a_follower_refuses_a_checkpoint_not_above_its_applied_index,
        follower_that_installs_a_closed_container_under_tx_1_terminates_on_replay,
        a_replayed_deleted_block_entry_writes_the_same_rows,
        a_leader_change_during_an_apply_loads_and_submits_a_stale_summary,
        the_load_on_leader_ready_reads_the_last_summary,
        the_startup_entry_notifies_leader_ready_before_its_term_index,
        a_submission_once_ratis_is_ready_precedes_a_load_on_leader_ready,
        with_leader_change_downloads_after_notify_leader_changed,
        a_certificate_write_commits_under_the_previous_index,
        a_monitor_tick_within_its_interval_changes_nothing,
        the_generated_events_come_where_the_java_allows_them,
        the_generated_space_breaks_fixed_save_after_index_through_a_certificate_write,
        the_generated_space_finds_what_the_written_plans_find
    ]
}
