//! The threads that drive one [`OmNode`]: Ratis' state-machine updater, the OM's apply
//! executor, and when the updater takes its snapshots.
//!
//! | piece | Java | does |
//! |---|---|---|
//! | [`ratis_updater`] | Ratis [`StateMachineUpdater.run`](java::StateMachineUpdater::run) | walks the log: a configuration entry is [`notifyTermIndexUpdated`](java::OzoneManagerStateMachine::notifyTermIndexUpdated); a data entry is submitted to the apply executor ([`applyTransaction`](java::OzoneManagerStateMachine::applyTransaction)); after the entry the [`SnapshotTrigger`] names it takes the periodic snapshot, and at the end the stop snapshot ([`shouldTakeSnapshot`](java::StateMachineUpdater::shouldTakeSnapshot)); then it stops the double buffer |
//! | [`Updater::snapshot`] | Ratis [`StateMachineUpdater.takeSnapshot`](java::StateMachineUpdater::takeSnapshot) | waits for the apply future of every entry submitted since the last snapshot (`applyLogFutures.get()`), calls the state machine's [`takeSnapshot`](java::OzoneManagerStateMachine::takeSnapshot), and checks the index it returns: above the updater's applied index, a logged `StateMachineException`; below the last snapshot's, the server closes ([`run`](java::StateMachineUpdater::run)) |
//! | [`apply_executor`] | `OMStateMachineApplyTransactionThread`, [`runCommand`](java::OzoneManagerStateMachine::runCommand) | runs each request's `validateAndUpdateCache` in submission order, queues its response in the double buffer and completes its future; a throwable that is not an `IOException` terminates the OM |
//!
//! What a scenario decides is passed in ([`UpdaterConfig`]: where the updater starts, when it
//! takes its periodic snapshot, whether it takes the stop snapshot) or handed back: each
//! snapshot goes to the caller's hook as a [`Snapshot`], with what the state machine
//! observed while taking it ([`SnapshotTaken`]), and each thread returns how it ended
//! ([`UpdaterEnd`], [`ApplyEnd`]). No probe is fired here; the persistence model's own probes
//! are [`TxInfoWriter::PROBES`](super::persist::TxInfoWriter::PROBES).
//!
//! Abstracted away: Ratis' log reading, its `StateMachineUpdater` states (`RUNNING`,
//! `STOP`, `RELOAD`, `EXCEPTION`), the purge of the log after a snapshot, the election and
//! leader-only paths of `applyTransaction` (every entry here is committed), the executor's
//! thread pool (the OM applies on one thread, in order), and `autoSnapshotThreshold`: the
//! periodic snapshot is one fixed point per log ([`SnapshotTrigger`]). A snapshot's trigger
//! point matters only through which entries it follows: the updater waits for every
//! submitted apply before it, wherever it is.

use super::double_buffer::{Life, Response};
use super::node::OmNode;
use super::requests::OmRequest;
use super::state_machine::{Exit, SnapshotTaken};
use super::OmRow;
use crate::citation::{java, Citation};
use crate::kit::raft_log::{Payload, RaftLog};
use crate::kit::store::Tables;
use crate::recorder::Actor;
use crate::sync::channel;

/// A data entry Ratis hands to the apply executor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Submission {
    /// Its log index.
    pub index: u64,
    /// Its term.
    pub term: u64,
    /// The request.
    pub request: OmRequest,
}

/// Ratis' side of the apply executor: it submits data entries and waits for their futures.
pub struct ApplyFutures {
    submit: channel::Sender<Submission>,
    completed: channel::Receiver<u64>,
}

impl ApplyFutures {
    /// `applyTransaction` of a data entry outside [`ratis_updater`] (a replay): submit it to
    /// the apply executor.
    pub fn submit(&self, me: &Actor, index: u64, term: u64, request: &OmRequest) {
        me.step_with(&java::OzoneManagerStateMachine::applyTransaction, || {
            format!("submit index {index} {request}")
        });
        self.submit.send(Submission {
            index,
            term,
            request: request.clone(),
        });
    }

    /// Nothing more to submit: the executor drains what was submitted and returns.
    pub fn close(self) {}
}

/// The apply executor's side: the submitted entries, and the futures it completes.
pub struct ApplyQueue {
    submitted: channel::Receiver<Submission>,
    done: channel::Sender<u64>,
}

/// The two ends between [`ratis_updater`] and [`apply_executor`].
pub fn apply_channels() -> (ApplyFutures, ApplyQueue) {
    let (submit, submitted) = channel::unbounded::<Submission>();
    let (done, completed) = channel::unbounded::<u64>();
    (
        ApplyFutures { submit, completed },
        ApplyQueue { submitted, done },
    )
}

/// After which entry Ratis takes its periodic snapshot (the model's stand-in for
/// `autoSnapshotThreshold` against the applied index).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SnapshotTrigger {
    /// No periodic snapshot.
    Never,
    /// Right after the entry at this index.
    AfterIndex(u64),
}

impl SnapshotTrigger {
    /// The first data entry after the last configuration entry of `log` (no periodic snapshot
    /// for a log without one): the point at which a snapshot falls between a data entry's
    /// apply and the next entry, after every leader change of the log.
    pub fn first_data_after_last_configuration<E>(log: &RaftLog<E>) -> Self {
        let last_conf = log
            .after(0)
            .filter(|e| matches!(e.payload, Payload::Configuration))
            .map(|e| e.index)
            .max()
            .unwrap_or(0);
        log.after(last_conf)
            .find(|e| matches!(e.payload, Payload::Data(_)))
            .map_or(SnapshotTrigger::Never, |e| {
                SnapshotTrigger::AfterIndex(e.index)
            })
    }

    fn fires_after(self, index: u64) -> bool {
        self == SnapshotTrigger::AfterIndex(index)
    }
}

/// What a scenario decides about the updater.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UpdaterConfig {
    /// The index the state machine was loaded at (`snapshotIndex` and `appliedIndex` start
    /// there; 0 on a fresh OM); the updater walks the entries after it.
    pub start: u64,
    /// When it takes its periodic snapshot.
    pub periodic: SnapshotTrigger,
    /// Whether it takes the stop snapshot once its applied index is past the last
    /// snapshot's (Ratis does, when the server closes).
    pub stop_snapshot: bool,
}

/// Which of the updater's snapshots a [`Snapshot`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SnapshotKind {
    /// The periodic snapshot, at the [`SnapshotTrigger`].
    Periodic,
    /// The snapshot when the server stops.
    Stop,
}

impl SnapshotKind {
    /// The trace's word for it.
    pub fn word(self) -> &'static str {
        match self {
            SnapshotKind::Periodic => "periodic snapshot",
            SnapshotKind::Stop => "stop snapshot",
        }
    }
}

/// One snapshot the state machine took, as the updater hands it to its caller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Snapshot {
    /// Periodic or stop.
    pub kind: SnapshotKind,
    /// What `takeSnapshot` chose, reported and observed.
    pub taken: SnapshotTaken,
}

/// How [`ratis_updater`] ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UpdaterEnd {
    /// It walked the whole log, took its snapshots and stopped the double buffer.
    Stopped,
    /// The OM ended under it (an assertion on the Ratis thread, a decreasing snapshot index,
    /// or an exit on another thread): it stopped there.
    OmGone,
}

/// What Ratis' `StateMachineUpdater` keeps between entries.
pub struct Updater<'a> {
    node: &'a OmNode,
    me: &'a Actor,
    completed: &'a channel::Receiver<u64>,
    /// Data entries submitted whose apply future Ratis has not waited for.
    pending: Vec<u64>,
    /// `snapshotIndex`: the start, then each snapshot's.
    snapshot_index: u64,
    /// `appliedIndex`: every entry handed to the state machine.
    applied: u64,
}

impl Updater<'_> {
    /// `StateMachineUpdater.takeSnapshot`: wait for every submitted apply, then the state
    /// machine's `takeSnapshot`, hand what it took to `on_snapshot`, then check the index it
    /// returned. `false` once the OM is gone; a state machine that threw while the OM still
    /// runs is logged by Ratis, which goes on (`true`, and no snapshot).
    pub fn snapshot(
        &mut self,
        kind: SnapshotKind,
        on_snapshot: &mut dyn FnMut(&Actor, &Snapshot),
    ) -> bool {
        const JAVA: &Citation = &java::StateMachineUpdater::takeSnapshot;
        if !self.pending.is_empty() {
            self.me.step_with(JAVA, || {
                format!(
                    "applyLogFutures.get(): wait for the applies of {:?}",
                    self.pending
                )
            });
            for _ in self.pending.drain(..) {
                if self.completed.recv().is_none() {
                    return false;
                }
            }
        }
        let taken = match self.node.take_snapshot(self.me, kind.word()) {
            Ok(taken) => taken,
            Err(_) => return self.node.buffer().life() == Life::Running,
        };
        // Persisted by now, whatever the updater makes of its index.
        on_snapshot(self.me, &Snapshot { kind, taken });
        if taken.reported > self.applied {
            self.me.step_with(JAVA, || {
                format!(
                    "StateMachineException: snapshot index {} > applied {}",
                    taken.reported, self.applied
                )
            });
        } else if taken.reported < self.snapshot_index {
            let exit = Exit {
                java: &java::StateMachineUpdater::run,
                what: format!(
                    "snapshotIndex {} -> {}: not increasing; the server closes",
                    self.snapshot_index, taken.reported
                ),
            };
            self.node.exit(self.me, &exit);
            return false;
        } else {
            self.snapshot_index = taken.reported;
        }
        true
    }
}

/// The Ratis `StateMachineUpdater` over `log`: notifies configuration entries, submits data
/// entries to the apply executor through `futures`, waits for every submitted apply before
/// each snapshot, takes the periodic snapshot at `config.periodic` and, when applied is past
/// the last snapshot and `config.stop_snapshot`, the stop snapshot; then stops the double
/// buffer. Every snapshot the state machine took goes to `on_snapshot`, also one whose
/// index the updater then refuses (the state machine has persisted it by then).
pub fn ratis_updater(
    node: &OmNode,
    log: &RaftLog<OmRequest>,
    me: &Actor,
    futures: ApplyFutures,
    config: UpdaterConfig,
    mut on_snapshot: impl FnMut(&Actor, &Snapshot),
) -> UpdaterEnd {
    let ApplyFutures { submit, completed } = futures;
    let mut updater = Updater {
        node,
        me,
        completed: &completed,
        pending: Vec::new(),
        snapshot_index: config.start,
        applied: config.start,
    };
    for entry in log.after(config.start) {
        match &entry.payload {
            Payload::Configuration => {
                if let Err(exit) =
                    node.state_machine()
                        .notify_term_index_updated(me, entry.term, entry.index)
                {
                    node.exit(me, &exit);
                    return UpdaterEnd::OmGone;
                }
            }
            Payload::Data(request) => {
                me.step_with(&java::OzoneManagerStateMachine::applyTransaction, || {
                    format!("submit index {} {request}", entry.index)
                });
                submit.send(Submission {
                    index: entry.index,
                    term: entry.term,
                    request: request.clone(),
                });
                updater.pending.push(entry.index);
            }
        }
        updater.applied = entry.index;
        if config.periodic.fires_after(entry.index)
            && !updater.snapshot(SnapshotKind::Periodic, &mut on_snapshot)
        {
            return UpdaterEnd::OmGone;
        }
    }
    drop(submit);
    if config.stop_snapshot {
        if updater.applied > updater.snapshot_index {
            if !updater.snapshot(SnapshotKind::Stop, &mut on_snapshot) {
                return UpdaterEnd::OmGone;
            }
        } else {
            me.step(
                &java::StateMachineUpdater::shouldTakeSnapshot,
                "applied == snapshot index: no stop snapshot",
            );
        }
    }
    node.buffer().stop(me, "stop flush thread");
    UpdaterEnd::Stopped
}

/// How [`apply_executor`] ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ApplyEnd {
    /// Ratis submitted nothing more: every entry was applied.
    Drained,
    /// The request at `index` threw and the OM terminated.
    Terminated {
        /// The entry's index.
        index: u64,
    },
}

/// The apply executor: for each submitted entry, `validateAndUpdateCache` against `view`
/// (the OM's table cache over its DB), then the response into the double buffer and the
/// entry's future completed. A throwable that is not an `IOException` reaches `runCommand`,
/// which terminates the OM: nothing of that entry is queued.
pub fn apply_executor(
    node: &OmNode,
    me: &Actor,
    queue: ApplyQueue,
    mut view: Tables<OmRow>,
) -> ApplyEnd {
    let ApplyQueue { submitted, done } = queue;
    while let Some(Submission {
        index,
        term,
        request,
    }) = submitted.recv()
    {
        match request.apply(index, &mut view) {
            Ok(applied) => {
                me.step_with(request.java(), || {
                    format!("index {index} {request}: {}", applied.summary)
                });
                node.buffer().add(
                    me,
                    Response {
                        index,
                        term,
                        rows: applied.rows,
                    },
                );
                done.send(index);
            }
            Err(thrown) => {
                me.step_with(thrown.java, || format!("index {index} {request}: {thrown}"));
                let exit = Exit {
                    java: &java::OzoneManagerStateMachine::runCommand,
                    what: thrown.what,
                };
                node.exit(me, &exit);
                return ApplyEnd::Terminated { index };
            }
        }
    }
    ApplyEnd::Drained
}
