//! The replicated SCM requests of the plans, and what each one writes when it is applied.
//!
//! Every request is a `@Replicate` method: the leader submits it through Ratis, and every
//! replica's `SCMStateMachine.applyTransaction` runs the implementation through
//! `invokeLocal`. Each write of the buffered requests is one call into the transaction
//! buffer, which takes and releases the read lock per call: that is why a concurrent flush
//! can land between two writes of one request. The certificate store writes RocksDB itself.
//!
//! - [`ScmRequest::AddTransactionsToDb`] stands for
//!   [`DeletedBlockLogStateManagerImpl.addTransactionsToDB`](crate::citation::java::DeletedBlockLogStateManagerImpl::addTransactionsToDB),
//!   which puts each transaction, then, when the leader passed one, the summary ARGUMENT (the
//!   leader computed it before submitting, see [`super::deleted_blocks`]). A replay puts the
//!   same bytes again.
//! - [`ScmRequest::SaveConfiguration`] stands for
//!   [`StatefulServiceStateManagerImpl.saveConfiguration`](crate::citation::java::StatefulServiceStateManagerImpl::saveConfiguration),
//!   which puts the service's configuration, then calls the buffer's unguarded `flush()`, inside
//!   the apply and before `updateLatestTrxInfo` (what [`Applied::flushes`] tells the state
//!   machine). A replay puts the same bytes again.
//! - [`ScmRequest::TransitionToClosed`] stands for
//!   [`ContainerStateManagerImpl.transitionDeletingOrDeletedToTargetState`](crate::citation::java::ContainerStateManagerImpl::transitionDeletingOrDeletedToTargetState)
//!   with target CLOSED: the request the container report handler submits when a datanode
//!   reports a non-empty replica of a DELETING or DELETED container. It puts the container
//!   as CLOSED, but only from DELETING or DELETED: on a container already CLOSED it throws
//!   `InvalidContainerStateException`, an `IOException` that is not an `SCMException`, so
//!   `applyTransaction` terminates the SCM. It is the one request of the plans whose second
//!   apply differs from its first.
//! - [`ScmRequest::StoreValidCertificate`] stands for
//!   [`SCMCertStore.storeValidCertificate`](crate::citation::java::SCMCertStore::storeValidCertificate)
//!   of a datanode's certificate (`@Replicate(invocationType = CLIENT)` in `CertificateStore`;
//!   `CertificateStoreInvoker.invokeLocal` calls it on every replica): under the store's own
//!   lock, `getValidCertsTable().put(serial, cert)`, a RocksDB write that bypasses the
//!   transaction buffer. It is durable at once, with no `TransactionInfo`, and counts nothing
//!   pending in the buffer ([`Applied::direct`]). A replay puts the same bytes again. An SCM's
//!   own certificate (`storeValidScmCertificate`) is one batch of two such puts, committed
//!   the same way; `removeAllExpiredCertificates` deletes by each replica's clock, which the
//!   model does not have.
//!
//! Abstracted away: every other field of the rows (block IDs, sizes, the container's
//! replicas and pipeline), the in-memory maps each manager keeps beside the DB other than
//! the container states (the apply reads those from its view, which is the DB as the
//! managers loaded it plus every write this replica applied), `removeTransactionsFromDB`
//! and `deleteConfiguration` (no plan submits them; both are idempotent on replay: deletes,
//! and the same summary bytes), and the `SCMException` outcomes (no modelled request
//! throws one; a non-fatal one would be a logical rejection that leaves the SCM running).

use super::{
    cert_key, container_key, txn_key, LifeCycleState, ScmRow, Summary, CONTAINERS_TABLE,
    DELETED_BLOCKS_TABLE, STATEFUL_SERVICE_CONFIG_TABLE, SUMMARY_KEY, VALID_CERTS_TABLE,
};
use crate::citation::{java, Citation};
use crate::kit::store::{TableName, Tables};
use std::fmt;

/// A request in the replicated log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScmRequest {
    /// `addTransactionsToDB(txs, summary)`: add deleted-block transactions `(txID, blocks)`
    /// and put the leader's summary.
    AddTransactionsToDb {
        /// The transactions, in the order they are put.
        txns: Vec<(u64, u64)>,
        /// The summary the leader computed (`None` before the storage-space-distribution
        /// feature is finalized).
        summary: Option<Summary>,
    },
    /// `saveConfiguration(serviceName, bytes)`.
    SaveConfiguration {
        /// The service (`ContainerBalancer` in the plans).
        service: &'static str,
        /// Its configuration.
        value: u64,
    },
    /// `transitionDeletingOrDeletedToTargetState(container, CLOSED)`.
    TransitionToClosed {
        /// The container.
        container: u64,
    },
    /// `storeValidCertificate(serial, cert, DATANODE)`.
    StoreValidCertificate {
        /// The certificate's serial.
        serial: u64,
    },
}

impl fmt::Display for ScmRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScmRequest::AddTransactionsToDb { txns, summary } => {
                let ids: Vec<u64> = txns.iter().map(|t| t.0).collect();
                match summary {
                    Some(s) => write!(f, "addTransactionsToDB txIDs {ids:?}, {s}"),
                    None => write!(f, "addTransactionsToDB txIDs {ids:?}"),
                }
            }
            ScmRequest::SaveConfiguration { service, value } => {
                write!(f, "saveConfiguration {service}={value}")
            }
            ScmRequest::TransitionToClosed { container } => {
                write!(f, "transition container #{container} to CLOSED")
            }
            ScmRequest::StoreValidCertificate { serial } => {
                write!(f, "storeValidCertificate serial {serial}")
            }
        }
    }
}

/// One buffer call: a put into the current batch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Put {
    /// Table.
    pub table: TableName,
    /// Key.
    pub key: String,
    /// Row.
    pub row: ScmRow,
}

/// What one apply hands to the buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Applied {
    /// The puts, in order.
    pub puts: Vec<Put>,
    /// Whether the implementation calls the buffer's `flush()` after its puts
    /// (`saveConfiguration`).
    pub flushes: bool,
    /// Whether the implementation writes its puts straight into RocksDB as one batch
    /// instead of through the buffer (`SCMCertStore`).
    pub direct: bool,
}

impl ScmRequest {
    /// The Java method this request's apply stands for.
    pub fn java(&self) -> &'static Citation {
        match self {
            ScmRequest::AddTransactionsToDb { .. } => {
                &java::DeletedBlockLogStateManagerImpl::addTransactionsToDB
            }
            ScmRequest::SaveConfiguration { .. } => {
                &java::StatefulServiceStateManagerImpl::saveConfiguration
            }
            ScmRequest::TransitionToClosed { .. } => {
                &java::ContainerStateManagerImpl::transitionDeletingOrDeletedToTargetState
            }
            ScmRequest::StoreValidCertificate { .. } => &java::SCMCertStore::storeValidCertificate,
        }
    }

    /// Apply the request to the in-memory `view`: the puts it hands to the buffer, in order,
    /// or `Err` with the message of the exception that terminates the SCM.
    pub fn apply(&self, view: &mut Tables<ScmRow>) -> Result<Applied, String> {
        let mut puts = Vec::new();
        let (mut flushes, mut direct) = (false, false);
        match self {
            ScmRequest::AddTransactionsToDb { txns, summary } => {
                for &(tx_id, blocks) in txns {
                    puts.push(Put {
                        table: DELETED_BLOCKS_TABLE,
                        key: txn_key(tx_id),
                        row: ScmRow::DeletedTxn { blocks },
                    });
                }
                if let Some(s) = summary {
                    puts.push(Put {
                        table: STATEFUL_SERVICE_CONFIG_TABLE,
                        key: SUMMARY_KEY.to_string(),
                        row: ScmRow::Summary(*s),
                    });
                }
            }
            ScmRequest::SaveConfiguration { service, value } => {
                puts.push(Put {
                    table: STATEFUL_SERVICE_CONFIG_TABLE,
                    key: service.to_string(),
                    row: ScmRow::Config(*value),
                });
                flushes = true;
            }
            ScmRequest::TransitionToClosed { container } => {
                let key = container_key(*container);
                match view.get(CONTAINERS_TABLE, &key) {
                    None => {}
                    Some(ScmRow::Container(LifeCycleState::Deleting)) => puts.push(Put {
                        table: CONTAINERS_TABLE,
                        key,
                        row: ScmRow::Container(LifeCycleState::Closed),
                    }),
                    Some(other) => {
                        return Err(format!(
                            "InvalidContainerStateException: Cannot transition container \
                             #{container} from {other} back to CLOSED"
                        ))
                    }
                }
            }
            ScmRequest::StoreValidCertificate { serial } => {
                puts.push(Put {
                    table: VALID_CERTS_TABLE,
                    key: cert_key(*serial),
                    row: ScmRow::Certificate,
                });
                direct = true;
            }
        }
        for p in &puts {
            view.put(p.table, &p.key, p.row);
        }
        Ok(Applied {
            puts,
            flushes,
            direct,
        })
    }
}
