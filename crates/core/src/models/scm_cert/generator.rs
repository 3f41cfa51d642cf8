//! `SequenceIdGenerator.getNextId` on the leader, at the pinned Java and at HDDS-8973's two
//! revisions ([`Revision`]).
//!
//! Java: [`getNextId`](crate::citation::java::SequenceIdGenerator::getNextId), under the
//! generator's lock. The batch is `[nextId, lastId]`: while `nextId <= lastId` a call hands
//! out `nextId++` with no Ratis call; otherwise it submits `allocateBatch(lastId, lastId +
//! size)` through Ratis (DIRECT: the leader's own apply is the reply). On success the batch
//! becomes `[lastId + 1, lastId + size]` and its first id is returned; on failure `lastId` is
//! reloaded from the state manager (`StateManagerImpl.getLastId`, the LOCAL map, loaded from
//! the LOCAL DB by the failed apply) and the allocation retried. A new generator (a new JVM,
//! that is after every restart) starts at `lastId` 0;
//! [`invalidateBatch`](crate::citation::java::SequenceIdGenerator::invalidateBatch) (on becoming
//! leader, and in `reinitialize` after a checkpoint install) sets `nextId = lastId + 1` and
//! keeps `lastId`. So the first call after a restart submits `allocateBatch(0, size)`, which
//! fails wherever the row is present, and the first call of a leader that led before in the
//! same JVM submits its stale `lastId`, which succeeds wherever the map still holds it. The
//! other SCMs apply the same compare-and-set against their own map, and a mismatch there only
//! logs.
//!
//! The pinned model's sequence is `CertificateId` (batch size 1: every call allocates).
//! HDDS-8973's scenario runs the same sequence with a larger batch, as `localId` has
//! (`ozone.scm.sequence.id.batch.size`), and a submission that throws: a DIRECT submission
//! on an SCM that is no longer the leader fails with `NotLeaderException`
//! ([`SCMRatisServerImpl.submitRequest`](crate::citation::java::hdds_8973_parent::SCMRatisServerImpl::submitRequest)'s
//! failed reply, thrown by
//! [`SCMHAInvocationHandler.invokeRatisImpl`](crate::citation::java::hdds_8973_parent::SCMHAInvocationHandler::invokeRatisImpl)
//! as an `SCMException`), and so does one a leader refuses when its pending-request permits
//! are taken (`ResourceUnavailableException`); `getNextId` propagates it with the lock
//! released.

use super::scm::{Reply, Scm};
use super::ScmTx;
use crate::citation::{java, Citation};
use crate::properties::Probe;
use crate::recorder::Actor;

/// Which Java revision of `getNextId`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Revision {
    /// 76267a36661^: `batch.lastId` is raised before `allocateBatch` is submitted, so a
    /// submission that throws leaves `[prev + 1, prev + size]` as the batch, allocated by no
    /// replica.
    Hdds8973Parent,
    /// 76267a36661 (HDDS-8973): `batch.lastId` is assigned only once `allocateBatch`
    /// returned true.
    Hdds8973,
    /// The pinned Java (the fix's order; `invalidateBatchInternal`).
    Pinned,
}

impl Revision {
    fn get_next_id(self) -> &'static Citation {
        match self {
            Revision::Hdds8973Parent => &java::hdds_8973_parent::SequenceIdGenerator::getNextId,
            Revision::Hdds8973 => &java::hdds_8973::SequenceIdGenerator::getNextId,
            Revision::Pinned => &java::SequenceIdGenerator::getNextId,
        }
    }

    /// The `invalidateBatch` of this revision.
    pub fn invalidate_batch(self) -> &'static Citation {
        match self {
            Revision::Hdds8973Parent | Revision::Hdds8973 => {
                &java::hdds_8973_parent::SequenceIdGenerator::invalidateBatch
            }
            Revision::Pinned => &java::SequenceIdGenerator::invalidateBatch,
        }
    }
}

/// A `getNextId` call ran on an SCM whose previous `allocateBatch` submission threw, before
/// any `invalidateBatch`: HDDS-8973's window.
pub const NEXT_ID_AFTER_FAILED_ALLOCATION: Probe = Probe::new(
    "NextIdAfterFailedAllocation",
    "a getNextId call ran on an SCM whose previous allocateBatch submission threw (NotLeader, ResourceUnavailable), before any invalidateBatch",
);

/// The parent's failed submission left `lastId` raised over a range no replica allocated.
pub const FAILED_ALLOCATION_RAISED_LAST_ID: Probe = Probe::new(
    "FailedAllocationRaisedLastId",
    "an allocateBatch submission threw and left the batch's lastId raised over ids no replica allocated",
);

/// `SequenceIdGenerator.Batch` for the model's one sequence: `[next, last]` is what is left
/// to hand out without Ratis.
#[derive(Debug)]
pub struct Batch {
    /// `lastId`: the batch's upper bound.
    pub last: u64,
    /// `nextId`: the next id to hand out from the batch.
    pub next: u64,
    /// Model bookkeeping for [`NEXT_ID_AFTER_FAILED_ALLOCATION`]: the last submission threw
    /// and no `invalidateBatch` or successful allocation came since.
    failed: bool,
}

impl Default for Batch {
    /// A new generator's batch: `lastId` 0, `nextId` 1.
    fn default() -> Self {
        Self {
            last: 0,
            next: 1,
            failed: false,
        }
    }
}

impl Batch {
    /// `invalidateBatch`'s body for this sequence: `nextId = lastId + 1` (`lastId` kept).
    pub fn invalidate(&mut self) {
        self.next = self.last + 1;
        self.failed = false;
    }
}

/// The submission threw, with nothing appended: Ratis refused it on an SCM that is not the
/// leader (`NotLeaderException`), or on a leader whose pending-request permits are taken
/// (`ResourceUnavailableException`, Ratis's `RaftServerImpl.appendTransaction`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubmitFailed(pub String);

/// `getNextId(CertificateId)` on the leader `scm` at the pinned Java (batch size 1), which
/// replicates a transaction through `submit` and returns its own apply's reply.
pub fn get_next_id(scm: &Scm, me: &Actor, mut submit: impl FnMut(ScmTx) -> Reply) -> u64 {
    get_next_id_at(scm, me, Revision::Pinned, 1, |tx| Ok(submit(tx)))
        .unwrap_or_else(|e| panic!("model error: a pinned submission does not throw: {e:?}"))
}

/// `getNextId` on `scm` at `revision` with batch size `size`: `submit` replicates a
/// transaction and returns its own apply's reply, or throws [`SubmitFailed`], which is
/// propagated as the Java does, the lock released.
pub fn get_next_id_at(
    scm: &Scm,
    me: &Actor,
    revision: Revision,
    size: u64,
    mut submit: impl FnMut(ScmTx) -> Result<Reply, SubmitFailed>,
) -> Result<u64, SubmitFailed> {
    let java = revision.get_next_id();
    let mut batch = scm.generator().lock();
    if batch.failed {
        me.probe(&NEXT_ID_AFTER_FAILED_ALLOCATION);
    }
    if batch.next <= batch.last {
        let id = batch.next;
        batch.next += 1;
        me.step_with(java, || {
            format!(
                "{} hands out {id} from its batch (lastId {})",
                scm.name(),
                batch.last
            )
        });
        return Ok(id);
    }
    let mut prev = batch.last;
    loop {
        batch.next = prev + 1;
        let next = prev + size;
        if revision == Revision::Hdds8973Parent {
            // The parent raises lastId before the replicated call (:128-129).
            batch.last = next;
        }
        match submit(ScmTx::AllocateBatch { prev, next }) {
            Ok(Ok(())) => {
                batch.last = next;
                batch.failed = false;
                let id = batch.next;
                batch.next += 1;
                me.step_with(java, || format!("{} hands out {id}", scm.name()));
                return Ok(id);
            }
            Ok(Err(_)) => {
                prev = scm.get_last_id(me);
                batch.last = prev;
                me.step_with(java, || {
                    format!("{} reloads lastId {prev} and retries", scm.name())
                });
            }
            Err(e) => {
                batch.failed = true;
                if batch.last > prev {
                    me.probe(&FAILED_ALLOCATION_RAISED_LAST_ID);
                }
                me.step_with(java, || {
                    format!(
                        "{} allocateBatch({prev} -> {next}) threw: batch [{}, {}] left",
                        scm.name(),
                        batch.next,
                        batch.last
                    )
                });
                return Err(e);
            }
        }
    }
}
