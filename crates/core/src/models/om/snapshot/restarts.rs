//! One OM through a log in incarnations ([`Restarts::run`]): the first runs its apply and
//! flush threads ([`SnapshotOm::run_threads`]) up to its first target; after each kill,
//! termination or clean stop a new incarnation restarts from the DB ([`SnapshotOm::restart`])
//! and replays ([`SnapshotOm::replay`]) up to its target, until the last target is flushed or
//! the OM has terminated often enough. What a scenario looks at between incarnations is a
//! [`Watch`].

use super::node::SnapshotOm;
use super::requests::{Crash, SnapshotRequest};
use super::{Cites, Dirs, Java, Snapshots};
use crate::kit::raft_log::RaftLog;
use crate::kit::store::Store;
use crate::models::om::startup::{data_after, Replayed};
use crate::models::om::OmRow;
use crate::properties::Probe;
use crate::recorder::{Actor, Recorder};
use crate::sync::Arc;

/// What a scenario looks at as the incarnations end.
pub trait Watch {
    /// An incarnation ended (the first run, or a restart's replay): `om` is what it left.
    fn ended(&mut self, _om: &SnapshotOm) {}

    /// `kill` (the index of the request whose flush it killed, and where) fired in `om`'s
    /// incarnation; `me` is about to restart the OM.
    fn killed(&mut self, _me: &Actor, _om: &SnapshotOm, _kill: (u64, Crash)) {}
}

/// The watch that looks at nothing.
impl Watch for () {}

/// One OM's run through `log` in incarnations.
pub struct Restarts<'a> {
    /// The DB, which outlives the incarnations.
    pub store: &'a Arc<Store<OmRow>>,
    /// The snapshot directories, which outlive them too.
    pub dirs: &'a Arc<Dirs>,
    /// The knobs of every incarnation.
    pub java: Java,
    /// The citations of every incarnation.
    pub cites: &'static Cites,
    /// The whole log: 1 the leader's configuration entry, then one entry per request.
    pub log: &'a RaftLog<SnapshotRequest>,
    /// Each clean stop, in order: the last index flushed before it. An incarnation runs to
    /// the next stop, the last one to the log's end.
    pub stops: &'a [u64],
    /// Each kill, in order: the index of the request whose flush it kills, and where. The
    /// next one is armed in each incarnation until it fires.
    pub kills: &'a [(u64, Crash)],
    /// Terminations after which the OM is not restarted again.
    pub terminations: usize,
    /// Fired when a replay applied and flushed every entry up to its target.
    pub completed: &'static Probe,
    /// Fired when a replay terminated the OM.
    pub terminated: &'static Probe,
}

impl Restarts<'_> {
    /// Run the first incarnation over `snaps`, then restart and replay until the last target
    /// is flushed or [`Restarts::terminations`] terminations. Returns every termination: the
    /// first incarnation's as it gave them, a replay's as `restart N, replay of index I: why`.
    pub fn run(
        &self,
        snaps: Snapshots,
        recorder: &Arc<Recorder>,
        watch: &mut impl Watch,
    ) -> Vec<String> {
        // Where each incarnation stops: at each clean restart, then at the last index.
        let targets: Vec<u64> = self
            .stops
            .iter()
            .copied()
            .chain([self.log.last_index()])
            .collect();
        let mut kills = self.kills.iter().copied();
        let mut armed = kills.next();
        let arm = |om: &SnapshotOm, armed: Option<(u64, Crash)>| {
            if let Some((index, crash)) = armed {
                om.arm(crash, index);
            }
        };
        let om = Arc::new(SnapshotOm::with_crash(
            Arc::clone(self.store),
            snaps,
            Crash::Never,
        ));
        arm(&om, armed);
        SnapshotOm::run_threads(
            &[Arc::clone(&om)],
            &Arc::new(self.through(targets[0])),
            recorder,
        );
        recorder.quiesce();
        let mut exits = om.exits();
        watch.ended(&om);
        let me = Actor::new("restart", recorder);
        let (mut target, mut terminations, mut restarts) = (0, 0, 0);
        let mut om = om;
        loop {
            if om.crashed() {
                if let Some(kill) = armed {
                    watch.killed(&me, &om, kill);
                }
                armed = kills.next();
            } else if exits.len() > terminations {
                terminations = exits.len();
                if terminations >= self.terminations {
                    break;
                }
            } else {
                // Every entry up to the target is flushed: a clean stop, or the end.
                target += 1;
                if target == targets.len() {
                    break;
                }
            }
            restarts += 1;
            let (next, stored) = SnapshotOm::restart(
                Arc::clone(self.store),
                Arc::clone(self.dirs),
                self.java,
                self.cites,
                &me,
            );
            arm(&next, armed);
            om = Arc::new(next);
            let replayed = om.replay(&self.through(targets[target]), stored, &me);
            watch.ended(&om);
            match replayed {
                Replayed::Completed if om.crashed() => {}
                Replayed::Completed => me.probe(self.completed),
                Replayed::Terminated { index, why } => {
                    me.probe(self.terminated);
                    exits.push(format!(
                        "restart {restarts}, replay of index {index}: {why}"
                    ));
                }
            }
        }
        exits
    }

    /// The log up to `index`.
    fn through(&self, index: u64) -> RaftLog<SnapshotRequest> {
        let mut log = RaftLog::new();
        log.start_term(1);
        for (_, request) in data_after(self.log, 0).take_while(|(e, _)| e.index <= index) {
            log.append(request.clone());
        }
        log
    }
}
