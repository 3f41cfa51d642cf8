//! The SCM's certificate serials: `SequenceIdGenerator`, certificate issue and storage, the
//! transaction buffer of each SCM, and the SCMs' startup.
//!
//! Java (`scm/...`): `ha/SequenceIdGenerator.java` (the generator, its `StateManagerImpl`,
//! [`upgradeToSequenceId`](crate::citation::java::SequenceIdGenerator::upgradeToSequenceId) and
//! [`upgradeToCertificateSequenceId`](crate::citation::java::SequenceIdGenerator::upgradeToCertificateSequenceId)),
//! `ha/SCMHADBTransactionBufferImpl.java` (the batch an `allocateBatch` is staged in),
//! `server/StorageContainerManager.java`
//! ([`persistPrimarySCMCerts`](crate::citation::java::StorageContainerManager::persistPrimarySCMCerts),
//! the startup order), `server/SCMSecurityProtocolServer.java`
//! ([`getEncodedCertToString`](crate::citation::java::SCMSecurityProtocolServer::getEncodedCertToString)),
//! `hadoop-hdds/framework/.../DefaultCAServer.java`
//! ([`signAndStoreCertificate`](crate::citation::java::DefaultCAServer::signAndStoreCertificate)),
//! `server/SCMCertStore.java` (`checkValidCertID`, `storeValidCertificate`,
//! `storeValidScmCertificate`, `removeAllExpiredCertificates`) and `ha/HASecurityUtils.java`
//! (the CLIENT submission of a store). Jira: HDDS-16900.
//!
//! - [`scm`]: one SCM: its store, its transaction buffer, its state machine (the apply of each
//!   replicated transaction, the `StateManagerImpl` map), its stop, kill and startup.
//! - [`generator`]: the leader-side `SequenceIdGenerator.getNextId`.
//! - [`cluster`]: the SCMs, the shared log, the leader, a certificate request, a leadership
//!   transfer, a checkpoint install, and the ghost book the invariants read.
//!
//! What goes through the buffer and what does not: `allocateBatch` (and the `through-ratis`
//! variant's raise) stage the `CertificateId` row, which is durable only at the next flush,
//! with the `TransactionInfo` of that moment. `storeValidCertificate` and
//! `removeAllExpiredCertificates` write RocksDB directly when they are applied, with no
//! `TransactionInfo`. A clean stop flushes (the stop snapshot); a kill loses the staged batch,
//! so after a kill a stored serial can be durable above the durable row.
//!
//! Abstracted away: Kerberos, the certificate contents (a subject name), the clock (a
//! certificate is issued already marked to expire by the time of the next
//! `removeAllExpiredCertificates`; every SCM sees the same mark, see the scenario's
//! Abstractions table), every sequence other than `CertificateId`, and
//! `persistSCMCertificates` (a bootstrapped SCM stores the CA certificates 1 and 2 locally
//! after Ratis starts: serials at or below every row).

pub mod cluster;
pub mod generator;
pub mod scm;

use crate::kit::store::{TableName, Tables};
use crate::kit::tx_info::{put_tx_info, TxRow, TX_KEY};
use std::fmt;

/// `SCMDBDefinition.SEQUENCE_ID`.
pub const SEQUENCE_ID_TABLE: TableName = "sequenceIdTable";
/// `SequenceIdGenerator.CERTIFICATE_ID` (`SequenceIdType.CertificateId`).
pub const CERTIFICATE_ID: &str = "CertificateId";
/// `SCMDBDefinition.VALID_CERTS`: certificates issued to datanodes, OMs and clients.
pub const VALID_CERTS_TABLE: TableName = "validCertsTable";
/// `SCMDBDefinition.VALID_SCM_CERTS`: the SCMs' own certificates.
pub const VALID_SCM_CERTS_TABLE: TableName = "validSCMCertsTable";
/// `upgradeToCertificateSequenceId` never writes less than this (the root CA certificate
/// and the primary's SCM certificate of a cluster initialised with the current code).
pub const MIN_CERTIFICATE_ID: u64 = 2;
/// The serial of the primary SCM's own (sub-CA) certificate on a cluster initialised with the
/// current code, which `persistPrimarySCMCerts` stores first.
pub const PRIMARY_SCM_CERT_SERIAL: u64 = 2;
/// The serial of the root CA certificate, which `persistPrimarySCMCerts` stores second.
pub const ROOT_CA_CERT_SERIAL: u64 = 1;

/// Who a certificate is issued to (`NodeType`): an SCM's goes into both tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// An SCM: `storeValidScmCertificate`, both `validSCMCertsTable` and `validCertsTable`.
    Scm,
    /// A datanode, an OM or a client: `validCertsTable` only.
    Other,
}

/// A row of an SCM's DB.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScmRow {
    /// The `CertificateId` row of `sequenceIdTable`: the last allocated serial.
    LastId(u64),
    /// A valid certificate, by serial.
    Cert {
        /// The subject it was issued to.
        subject: String,
        /// Whether its lifetime has passed by the next expiry sweep.
        expired: bool,
    },
    /// `TransactionInfo`: the index the DB's content covers.
    TxInfo(u64),
}

impl fmt::Display for ScmRow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScmRow::LastId(id) => write!(f, "{id}"),
            ScmRow::Cert { subject, expired } => {
                write!(
                    f,
                    "cert({subject}{})",
                    if *expired { ", expired" } else { "" }
                )
            }
            ScmRow::TxInfo(index) => write!(f, "TX {index}"),
        }
    }
}

/// A replicated SCM transaction (`SCMRatisRequest`), as the state machine applies it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScmTx {
    /// `StateManagerImpl.allocateBatch(CertificateId, prev, next)`: compare-and-set.
    AllocateBatch {
        /// The last id the leader's generator expects.
        prev: u64,
        /// The new last id.
        next: u64,
    },
    /// `SCMCertStore.storeValidCertificate`.
    StoreCert {
        /// The serial.
        serial: u64,
        /// The subject.
        subject: String,
        /// Whether it is expired by the next sweep.
        expired: bool,
        /// Who it is issued to.
        role: Role,
    },
    /// `SCMCertStore.removeAllExpiredCertificates`: no arguments; each SCM deletes what it
    /// finds expired in both of its tables when it applies the entry.
    RemoveExpired,
    /// The `through-ratis` variant's replicated raise: the row becomes max(row, to).
    RaiseCertificateId {
        /// The largest serial the starting primary found.
        to: u64,
    },
}

impl fmt::Display for ScmTx {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScmTx::AllocateBatch { prev, next } => write!(f, "allocateBatch({prev} -> {next})"),
            ScmTx::StoreCert {
                serial, subject, ..
            } => write!(f, "storeValidCertificate({serial}, {subject})"),
            ScmTx::RemoveExpired => write!(f, "removeAllExpiredCertificates()"),
            ScmTx::RaiseCertificateId { to } => write!(f, "raiseCertificateId({to})"),
        }
    }
}

/// The `CertificateId` row, if present.
pub fn last_id(tables: &Tables<ScmRow>) -> Option<u64> {
    match tables.get(SEQUENCE_ID_TABLE, CERTIFICATE_ID) {
        Some(ScmRow::LastId(id)) => Some(*id),
        _ => None,
    }
}

impl TxRow for ScmRow {
    /// `SCMDBDefinition.TRANSACTIONINFO`.
    const TABLE: TableName = "transactionInfoTable";

    fn tx_info(_term: u64, index: u64) -> Self {
        ScmRow::TxInfo(index)
    }

    fn tx_index(&self) -> Option<u64> {
        match self {
            ScmRow::TxInfo(index) => Some(*index),
            _ => None,
        }
    }
}

/// The serials of `validCertsTable` and `validSCMCertsTable`.
pub fn stored_serials(tables: &Tables<ScmRow>) -> Vec<u64> {
    tables
        .iter()
        .filter(|(t, _, _)| *t == VALID_CERTS_TABLE || *t == VALID_SCM_CERTS_TABLE)
        .filter_map(|(_, k, _)| k.parse().ok())
        .collect()
}

/// `upgradeToCertificateSequenceId`'s largest: max(2, every stored serial).
pub fn largest_serial(tables: &Tables<ScmRow>) -> u64 {
    stored_serials(tables)
        .into_iter()
        .fold(MIN_CERTIFICATE_ID, u64::max)
}

/// The key of a serial in the certificate tables.
pub fn serial_key(serial: u64) -> String {
    serial.to_string()
}

/// Whether the DB holds a `TransactionInfo` row (a new DB has none: `TransactionInfo`
/// DEFAULT, which claims no index).
pub fn has_tx(tables: &Tables<ScmRow>) -> bool {
    tables.get(ScmRow::TABLE, TX_KEY).is_some()
}

/// The tables every SCM of an initialised cluster holds: the root CA certificate (serial 1)
/// and the primary's SCM certificate (serial 2) in both certificate tables, and
/// `CertificateId` = 2, at index 0.
pub fn initial_tables() -> Tables<ScmRow> {
    let mut t = Tables::default();
    for (serial, subject) in [
        (ROOT_CA_CERT_SERIAL, "root-ca"),
        (PRIMARY_SCM_CERT_SERIAL, "scm1"),
    ] {
        for table in [VALID_SCM_CERTS_TABLE, VALID_CERTS_TABLE] {
            t.put(
                table,
                &serial_key(serial),
                ScmRow::Cert {
                    subject: subject.into(),
                    expired: false,
                },
            );
        }
    }
    t.put(
        SEQUENCE_ID_TABLE,
        CERTIFICATE_ID,
        ScmRow::LastId(MIN_CERTIFICATE_ID),
    );
    put_tx_info(&mut t, 0, 0);
    t
}
