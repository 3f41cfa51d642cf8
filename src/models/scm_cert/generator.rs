//! `SequenceIdGenerator.getNextId(CertificateId)` on the leader.
//!
//! Under the generator's lock, with batch size 1 for certificates: if the batch is empty it
//! is loaded from the state manager (`StateManagerImpl.getLastId`, the LOCAL map, itself
//! loaded from the LOCAL DB); then `allocateBatch(prev, prev + 1)` is submitted through
//! Ratis. The reply is the leader's own apply of it: on success the batch moves to the new
//! id, which is returned; on failure the batch is reloaded from the state manager and the
//! allocation retried. The other SCMs apply the same compare-and-set against their own map,
//! and a mismatch there only logs.

use super::scm::{Reply, Scm};
use super::ScmTx;
use crate::cite::java;
use crate::recorder::Actor;

/// `getNextId(CertificateId)` on the leader `scm`, which replicates a transaction through
/// `submit` and returns its own apply's reply.
pub fn get_next_id(scm: &Scm, me: &Actor, mut submit: impl FnMut(ScmTx) -> Reply) -> u64 {
    let mut batch = scm.generator().lock();
    let mut prev = match batch.last {
        Some(last) => last,
        None => scm.get_last_id(me),
    };
    loop {
        let next = prev + 1;
        match submit(ScmTx::AllocateBatch { prev, next }) {
            Ok(()) => {
                batch.last = Some(next);
                me.step(
                    &java::SequenceIdGenerator::getNextId,
                    format!("{} hands out {next}", scm.name()),
                );
                return next;
            }
            Err(_) => {
                prev = scm.get_last_id(me);
                me.step(
                    &java::SequenceIdGenerator::getNextId,
                    format!("{} reloads lastId {prev} and retries", scm.name()),
                );
            }
        }
    }
}
