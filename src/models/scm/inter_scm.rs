//! `InterSCMGrpcService.download`: a follower asks the leader for a DB checkpoint.
//!
//! Java (`scm/ha/InterSCMGrpcService.java` :61-77): `flush()` on the transaction buffer
//! (UNGUARDED today; HDDS-16452's proposed fix calls `flushIfNeeded(0)`), then
//! `SCMDBCheckpointProvider.writeDBCheckpointToStream` (:57) takes a RocksDB checkpoint of
//! the committed DB and streams it.
//!
//! Abstracted away: reading and logging the TX before the checkpoint, the tarball, the
//! stream, and the follower's verification (it returns the checkpoint's TX, which the model
//! reads from the installed rows).

use super::tx_buffer::{FlushPath, TransactionBuffer};
use super::ScmRow;
use crate::cite::java;
use crate::kit::store::Checkpoint;
use crate::recorder::Actor;

/// `download`: flush along `path`, then take the checkpoint.
pub fn download(buffer: &TransactionBuffer, actor: &Actor, path: FlushPath) -> Checkpoint<ScmRow> {
    actor.step(
        &java::InterSCMGrpcService::download,
        "follower asks for a checkpoint",
    );
    buffer.flush_from(actor, path, "download");
    buffer.store().checkpoint(
        actor,
        &java::SCMDBCheckpointProvider::writeDBCheckPointToSream,
    )
}
