//! The leader's `/dbCheckpoint` servlet as a bootstrapping follower calls it
//! (`DBCheckpointServlet.generateSnapshotCheckpoint` with `OMDBCheckpointServlet`'s
//! `writeDbDataToStream`), and the follower that installs what it ships.
//!
//! The servlet takes a RocksDB checkpoint of the active DB and takes the bootstrap lock, in
//! an order that HDDS-8681 changed ([`LockOrder`]). The lock
//! ([`OMDBCheckpointServlet.Lock.lock`](crate::citation::java::hdds_8681_parent::OMDBCheckpointServlet::Lock::lock))
//! takes the bootstrap semaphores of four background services and then waits for the double
//! buffer to flush what it holds (`awaitDoubleBufferFlush`); it never blocks the apply or the
//! flush thread. The archive then holds the checkpoint and, of the live snapshot directories,
//! exactly those the **checkpoint's** `snapshotInfoTable` names
//! ([`waitForSnapshotDirs`](crate::citation::java::hdds_8681_parent::OMDBCheckpointServlet::waitForSnapshotDirs),
//! [`processDir`](crate::citation::java::hdds_8681_parent::OMDBCheckpointServlet::processDir) skips
//! any other): a directory it names that does not exist fails the request.
//!
//! Abstracted away: tar streaming, SST exclusion and hard-link lists, the compaction backup
//! directory, the `flush` parameter of `getCheckpoint`, the four semaphores (none of them
//! excludes a snapshot create's flush: the create is a Ratis apply, not a background service).

use super::node::SnapshotOm;
use crate::citation::Citation;
use crate::models::om::{OmTables, SNAPSHOT_INFO_TABLE};
use crate::properties::Probe;
use crate::recorder::Actor;
use std::collections::BTreeMap;

/// The servlet locked or took its checkpoint while a response (the snapshot create) was
/// applied but not committed: the window a "held" must have reached.
pub const CREATE_IN_FLIGHT_AT_BOOTSTRAP: Probe = Probe::new(
    "CreateInFlightAtBootstrap",
    "the servlet locked or checkpointed while the snapshot create was applied but not yet committed",
);

/// The probes the checkpoint servlet fires: a scenario that runs it inherits them
/// ([`Scenario::MODEL_PROBES`](crate::scenario::Scenario::MODEL_PROBES)).
pub const PROBES: &[Probe] = &[CREATE_IN_FLIGHT_AT_BOOTSTRAP];

/// When the servlet takes the bootstrap lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LockOrder {
    /// 1ae0401b1ac^: checkpoint first, then the lock (inside `writeDbDataToStream`).
    AfterCheckpoint,
    /// 1ae0401b1ac: the lock first, then the checkpoint.
    BeforeCheckpoint,
}

/// The servlet's methods, at the commit a model follows.
#[derive(Clone, Copy, Debug)]
pub struct ServletCites {
    /// `DBCheckpointServlet.generateSnapshotCheckpoint` (the checkpoint).
    pub checkpoint: &'static Citation,
    /// `OMDBCheckpointServlet.writeDbDataToStream` (the archive).
    pub write: &'static Citation,
    /// `OMDBCheckpointServlet.Lock.lock`.
    pub lock: &'static Citation,
    /// `OMDBCheckpointServlet.waitForSnapshotDirs`.
    pub wait_dirs: &'static Citation,
    /// `OMDBCheckpointServlet.processDir`.
    pub process_dir: &'static Citation,
}

/// What the servlet ships: the checkpoint of the active DB and the snapshot directories.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tarball {
    /// The active DB's checkpoint.
    pub active: OmTables,
    /// Each shipped snapshot directory's DB, by snapshot name.
    pub snapshots: BTreeMap<String, OmTables>,
}

/// Serve one bootstrap request from `leader`: the archive, or why the request failed.
pub fn serve(
    leader: &SnapshotOm,
    order: LockOrder,
    c: &ServletCites,
    actor: &Actor,
) -> Result<Tarball, String> {
    let window = || {
        leader
            .in_flight()
            .probe_if(actor, &CREATE_IN_FLIGHT_AT_BOOTSTRAP, |n| *n > 0)
    };
    let lock = || {
        window();
        leader.await_flush(actor, c.lock)
    };
    if order == LockOrder::BeforeCheckpoint && !lock() {
        return Err("the leader is gone".into());
    }
    window();
    let active = leader.store().checkpoint(actor, c.checkpoint);
    if order == LockOrder::AfterCheckpoint && !lock() {
        return Err("the leader is gone".into());
    }
    let names: Vec<String> = active
        .iter()
        .filter(|(t, _, _)| *t == SNAPSHOT_INFO_TABLE)
        .map(|(_, k, _)| k.to_string())
        .collect();
    actor.step_with(c.wait_dirs, || {
        format!("the checkpoint's snapshotInfoTable names {names:?}")
    });
    let mut snapshots = BTreeMap::new();
    for name in names {
        match leader.snapshots().dirs.content(&name) {
            Some(db) => {
                snapshots.insert(name, db);
            }
            None => {
                let why = format!("IOException: snapshot dir doesn't exist: {name}");
                actor.step_with(c.wait_dirs, || why.clone());
                return Err(why);
            }
        }
    }
    // `processDir` lists the live snapshot directories and skips those the checkpoint does
    // not name.
    let skipped: Vec<String> = leader
        .snapshots()
        .dirs
        .names()
        .into_iter()
        .filter(|n| !snapshots.contains_key(n))
        .collect();
    actor.step_with(c.process_dir, || {
        format!(
            "archive: the checkpoint and snapshot dirs {:?}; skipped unknown dirs {skipped:?}",
            snapshots.keys().collect::<Vec<_>>()
        )
    });
    actor.step_with(c.write, || format!("shipped {active}"));
    Ok(Tarball { active, snapshots })
}
