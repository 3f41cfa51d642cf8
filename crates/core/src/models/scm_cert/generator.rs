//! `SequenceIdGenerator.getNextId(CertificateId)` on the leader.
//!
//! Java: [`getNextId`](crate::citation::java::SequenceIdGenerator::getNextId), under the
//! generator's lock, with batch size 1 for certificates. The batch's `lastId` is 0 in a new
//! generator (a new JVM, that is after every restart) and
//! [`invalidateBatch`](crate::citation::java::SequenceIdGenerator::invalidateBatch) (on becoming
//! leader, and in `reinitialize` after a checkpoint install) keeps it. Every call submits
//! `allocateBatch(lastId, lastId + 1)` through Ratis (DIRECT: the leader's own apply is the
//! reply). On success the batch moves to the new id, which is returned; on failure `lastId`
//! is reloaded from the state manager (`StateManagerImpl.getLastId`, the LOCAL map, loaded
//! from the LOCAL DB by the failed apply) and the allocation retried. So the first call after
//! a restart submits `allocateBatch(0, 1)`, which fails wherever the row is present, and the
//! first call of a leader that led before in the same JVM submits its stale `lastId`, which
//! succeeds wherever the map still holds it. The other SCMs apply the same compare-and-set
//! against their own map, and a mismatch there only logs.

use super::scm::{Reply, Scm};
use super::ScmTx;
use crate::citation::java;
use crate::recorder::Actor;

/// `getNextId(CertificateId)` on the leader `scm`, which replicates a transaction through
/// `submit` and returns its own apply's reply.
pub fn get_next_id(scm: &Scm, me: &Actor, mut submit: impl FnMut(ScmTx) -> Reply) -> u64 {
    let mut batch = scm.generator().lock();
    let mut prev = batch.last;
    loop {
        let next = prev + 1;
        match submit(ScmTx::AllocateBatch { prev, next }) {
            Ok(()) => {
                batch.last = next;
                me.step(
                    &java::SequenceIdGenerator::getNextId,
                    format!("{} hands out {next}", scm.name()),
                );
                return next;
            }
            Err(_) => {
                prev = scm.get_last_id(me);
                batch.last = prev;
                me.step(
                    &java::SequenceIdGenerator::getNextId,
                    format!("{} reloads lastId {prev} and retries", scm.name()),
                );
            }
        }
    }
}
