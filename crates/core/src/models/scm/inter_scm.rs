//! `InterSCMGrpcService.download`: a follower asks the leader for a DB checkpoint.
//!
//! Java: [`InterSCMGrpcService.download`](crate::citation::java::InterSCMGrpcService::download)
//! calls `flush()` on the transaction buffer (UNGUARDED today; HDDS-16452's proposed fix
//! calls `flushIfNeeded(0)`), reads the TX (it must be present), then
//! [`SCMDBCheckpointProvider.writeDBCheckPointToSream`](crate::citation::java::SCMDBCheckpointProvider::writeDBCheckPointToSream)
//! takes a RocksDB checkpoint of the committed DB and streams it.
//!
//! Abstracted away: the TX read and its log line, the memtable flush of the checkpoint (it
//! does not change the content), the tarball and the stream. The follower's verification is
//! in [`super::state_machine::install_and_catch_up`].

use super::tx_buffer::{FlushPath, TransactionBuffer};
use super::ScmRow;
use crate::citation::java;
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
