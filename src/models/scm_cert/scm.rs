//! One SCM: its DB, its state machine and its startup.
//!
//! The state machine is `SCMStateMachine.applyTransaction` dispatching to
//! `SequenceIdGenerator.StateManagerImpl.allocateBatch` and `SCMCertStore`. Its mutex orders
//! the applies of one SCM (Ratis applies one entry at a time) and guards the
//! `StateManagerImpl` map `sequenceIdToLastIdMap`, which is loaded lazily from the LOCAL
//! `sequenceIdTable` and dropped on a restart or a checkpoint install (`reinitialize`).
//! `allocateBatch` is a compare-and-set of that map entry: on a match it stages the new row,
//! otherwise it logs "Failed to allocate a batch for CertificateId, expected lastId is
//! {prev}, actual lastId is {actual}." and changes nothing. An absent row reads as 0.
//!
//! Startup ([`Scm::stop`], [`Scm::persist_primary_scm_certs`], [`Scm::upgrade_certificate_id`],
//! [`Scm::start`]) follows `StorageContainerManager`: the in-memory state is rebuilt empty,
//! `persistPrimarySCMCerts` (:988-1011) puts the primary's own certificate into
//! `validSCMCertsTable` locally, then calls `upgradeToCertificateSequenceId(store, true)`
//! (:1010; the method is `SequenceIdGenerator` :389-426), which reads the row and every
//! stored serial and puts largest = max(2, serials) with an unbatched local put (:416); only
//! then does `scmHAManager.start()` (:1575) start Ratis, which replays the log after the
//! stored index. Every apply here commits its rows with the index, so the stored index is the
//! applied index (see the module docs of [`super`]).

use super::{
    largest_serial, last_id, serial_key, ScmRow, ScmTx, CERTIFICATE_ID, PRIMARY_SCM_CERT_SERIAL,
    SEQUENCE_ID_TABLE, VALID_CERTS_TABLE, VALID_SCM_CERTS_TABLE,
};
use crate::cite::{java, Label};
use crate::kit::raft_log::{LogEntry, Payload};
use crate::kit::replica::{Applier, CatchUp, SharedLog};
use crate::kit::store::{Observer, Store, Tables, WriteBatch};
use crate::kit::tx_info::{stage_tx_info, stored_index};
use crate::recorder::Actor;
use crate::sync::ghost::Ghost;
use crate::sync::{Arc, Mutex};
use std::collections::BTreeMap;

/// How the primary's startup treats the `CertificateId` row: the variants of HDDS-16900.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Upgrade {
    /// The Java today: `upgradeToCertificateSequenceId(store, true)` puts the largest stored
    /// serial, whatever the row holds.
    Forced,
    /// The seed's patch: put only when there is no row or the largest serial is above it.
    RaiseOnly,
    /// `persistPrimarySCMCerts` no longer calls it.
    NoForcedCall,
    /// The largest serial is raised through the replicated log once Ratis runs: every SCM
    /// applies row = max(row, largest).
    ThroughRatis,
}

/// The reply of an applied transaction: `Err` carries the logged failure.
pub type Reply = Result<(), String>;

/// What the state-machine lock guards.
#[derive(Debug)]
struct Machine {
    /// Whether the SCM is running (a stopped SCM applies nothing).
    up: bool,
    /// The applied index.
    applier: Applier,
    /// `StateManagerImpl.sequenceIdToLastIdMap[CertificateId]`, loaded lazily.
    last_id: Option<u64>,
    /// Replies of applied entries, by index, until the submitter takes them.
    replies: BTreeMap<u64, Reply>,
}

/// `SequenceIdGenerator`'s batch for `CertificateId` (batch size 1): the last id the leader
/// handed out, `None` until loaded from the state manager.
#[derive(Debug, Default)]
pub struct Batch {
    /// The batch's last id.
    pub last: Option<u64>,
}

/// Ghost facts about one SCM that probes read.
#[derive(Debug, Default)]
pub struct ScmGhost {
    /// Set while `persistPrimarySCMCerts` writes, so the store observer can tell.
    pub persisting: bool,
}

/// One SCM.
pub struct Scm {
    name: String,
    store: Store<ScmRow>,
    machine: Mutex<Machine>,
    generator: Mutex<Batch>,
    ghost: Arc<Ghost<ScmGhost>>,
}

const INVALID_SEQUENCE_ID: u64 = 0;

impl Scm {
    /// An SCM holding `tables`, running or stopped; `observer` sees every durable write and
    /// `ghost` is what it may read besides.
    pub fn new(
        name: &str,
        tables: Tables<ScmRow>,
        up: bool,
        observer: Option<Observer<ScmRow>>,
        ghost: Arc<Ghost<ScmGhost>>,
    ) -> Self {
        let applied = stored_index(&tables);
        Self {
            name: name.to_string(),
            store: Store::with_state(tables, observer),
            machine: Mutex::new(Machine {
                up,
                applier: Applier::new(applied),
                last_id: None,
                replies: BTreeMap::new(),
            }),
            generator: Mutex::new(Batch::default()),
            ghost,
        }
    }

    /// The SCM's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its DB.
    pub fn store(&self) -> &Store<ScmRow> {
        &self.store
    }

    /// The generator's batch, under `SequenceIdGenerator.lock`.
    pub fn generator(&self) -> &Mutex<Batch> {
        &self.generator
    }

    fn load_last_id(&self, me: &Actor, m: &mut Machine) -> u64 {
        if let Some(id) = m.last_id {
            return id;
        }
        let id = match self.store.get_skip_cache(
            me,
            &java::SequenceIdGenerator::StateManagerImpl::initialize,
            SEQUENCE_ID_TABLE,
            CERTIFICATE_ID,
        ) {
            Some(ScmRow::LastId(id)) => id,
            _ => INVALID_SEQUENCE_ID,
        };
        m.last_id = Some(id);
        id
    }

    /// `StateManagerImpl.getLastId(CertificateId)`: the map entry, loaded from the local DB
    /// when absent.
    pub fn get_last_id(&self, me: &Actor) -> u64 {
        let mut m = self.machine.lock();
        self.load_last_id(me, &mut m)
    }

    fn apply(&self, me: &Actor, m: &mut Machine, entry: &LogEntry<ScmTx>) {
        let mut batch = WriteBatch::new();
        let (java, reply, summary): (Label, _, _) = match &entry.payload {
            Payload::Configuration => (
                Label::Java(&java::SCMStateMachine::notifyTermIndexUpdated),
                Ok(()),
                "configuration entry".to_string(),
            ),
            Payload::Data(ScmTx::AllocateBatch { prev, next }) => {
                let actual = self.load_last_id(me, m);
                if actual == *prev {
                    batch.put(SEQUENCE_ID_TABLE, CERTIFICATE_ID, ScmRow::LastId(*next));
                    m.last_id = Some(*next);
                    (
                        Label::Java(&java::SequenceIdGenerator::StateManagerImpl::allocateBatch),
                        Ok(()),
                        format!("allocateBatch({prev} -> {next}) ok"),
                    )
                } else {
                    let msg = format!(
                        "Failed to allocate a batch for CertificateId, expected lastId is {prev}, actual lastId is {actual}."
                    );
                    (
                        Label::Java(&java::SequenceIdGenerator::StateManagerImpl::allocateBatch),
                        Err(msg.clone()),
                        msg,
                    )
                }
            }
            Payload::Data(ScmTx::StoreCert {
                serial,
                subject,
                expired,
            }) => {
                batch.put(
                    VALID_CERTS_TABLE,
                    &serial_key(*serial),
                    ScmRow::Cert {
                        subject: subject.clone(),
                        expired: *expired,
                    },
                );
                (
                    Label::Java(&java::SCMCertStore::storeValidCertificate),
                    Ok(()),
                    format!("store certificate {serial} ({subject})"),
                )
            }
            Payload::Data(ScmTx::RemoveExpired { serials }) => {
                for s in serials {
                    batch.delete(VALID_CERTS_TABLE, &serial_key(*s));
                }
                (
                    Label::Java(&java::SCMCertStore::removeAllExpiredCertificates),
                    Ok(()),
                    format!("remove expired certificates {serials:?}"),
                )
            }
            Payload::Data(ScmTx::RaiseCertificateId { to }) => {
                let actual = self.load_last_id(me, m);
                let raised = actual.max(*to);
                batch.put(SEQUENCE_ID_TABLE, CERTIFICATE_ID, ScmRow::LastId(raised));
                m.last_id = Some(raised);
                (
                    Label::model("replicated raise of the through-ratis variant"),
                    Ok(()),
                    format!("raise CertificateId {actual} -> {raised}"),
                )
            }
        };
        me.step(
            java,
            format!("{} applies index {}: {summary}", self.name, entry.index),
        );
        stage_tx_info(&mut batch, entry.term, entry.index);
        self.store
            .commit(me, &java::SCMHADBTransactionBuffer::flush, batch);
        m.replies.insert(entry.index, reply);
    }

    /// Apply every committed entry the SCM has not applied yet (nothing if it is stopped),
    /// and take the reply of entry `want` if it has one.
    pub fn catch_up(
        &self,
        me: &Actor,
        log: &SharedLog<ScmTx>,
        want: Option<u64>,
    ) -> (CatchUp, Option<Reply>) {
        let mut m = self.machine.lock();
        if !m.up {
            return (CatchUp::Applied(m.applier.applied()), None);
        }
        let mut applier = m.applier;
        let result = applier.catch_up(log, |e| self.apply(me, &mut m, e));
        m.applier = applier;
        let reply = want.and_then(|w| m.replies.remove(&w));
        (result, reply)
    }

    /// `SCMStateMachine.reinitialize` after `notifyInstallSnapshotFromLeader`: replace the DB
    /// with `checkpoint` and drop the in-memory map.
    pub fn install(&self, me: &Actor, checkpoint: Tables<ScmRow>) {
        let mut m = self.machine.lock();
        let index = stored_index(&checkpoint);
        self.store
            .install(me, &java::SCMStateMachine::reinitialize, checkpoint);
        m.applier.installed(index);
        m.last_id = None;
    }

    /// Stop: nothing in memory survives. The DB keeps what was committed.
    pub fn stop(&self, me: &Actor) {
        {
            let mut m = self.machine.lock();
            m.up = false;
            m.last_id = None;
            m.replies.clear();
        }
        self.generator.lock().last = None;
        self.store
            .reopen(me, Label::model("SCM restart: reopen the DB"));
    }

    /// `persistPrimarySCMCerts` (:988-1009): the primary's own certificate, put locally.
    pub fn persist_primary_scm_certs(&self, me: &Actor) {
        self.ghost.with(|g| g.persisting = true);
        self.store.put(
            me,
            &java::StorageContainerManager::persistPrimarySCMCerts,
            VALID_SCM_CERTS_TABLE,
            &serial_key(PRIMARY_SCM_CERT_SERIAL),
            ScmRow::Cert {
                subject: self.name.clone(),
                expired: false,
            },
        );
        self.ghost.with(|g| g.persisting = false);
    }

    /// `upgradeToCertificateSequenceId(store, force = true)` (:1010, :389-426) as `upgrade`
    /// does it; returns the largest stored serial it found (`None` when not called).
    pub fn upgrade_certificate_id(&self, me: &Actor, upgrade: Upgrade) -> Option<u64> {
        if upgrade == Upgrade::NoForcedCall {
            return None;
        }
        let tables = self.store.scan(
            me,
            &java::SequenceIdGenerator::upgradeToCertificateSequenceId,
        );
        let largest = largest_serial(&tables);
        let row = last_id(&tables);
        let write = match upgrade {
            Upgrade::Forced => true,
            Upgrade::RaiseOnly => row.is_none_or(|r| largest > r),
            Upgrade::NoForcedCall | Upgrade::ThroughRatis => false,
        };
        if write {
            self.store.put(
                me,
                &java::SequenceIdGenerator::upgradeToCertificateSequenceId,
                SEQUENCE_ID_TABLE,
                CERTIFICATE_ID,
                ScmRow::LastId(largest),
            );
        } else {
            me.step(
                &java::SequenceIdGenerator::upgradeToCertificateSequenceId,
                format!(
                    "largest stored serial {largest}, row {}: no local write",
                    row.map_or("absent".into(), |r| r.to_string())
                ),
            );
        }
        Some(largest)
    }

    /// `scmHAManager.start()` (:1575): the SCM runs again and applies from its stored index.
    pub fn start(&self, me: &Actor) {
        let mut m = self.machine.lock();
        m.up = true;
        me.step(
            &java::SCMHAManagerImpl::start,
            format!(
                "{} starts Ratis; replays after index {}",
                self.name,
                m.applier.applied()
            ),
        );
    }

    /// The applied index.
    pub fn applied(&self) -> u64 {
        self.machine.lock().applier.applied()
    }

    /// Whether the SCM is running.
    pub fn is_up(&self) -> bool {
        self.machine.lock().up
    }

    /// The committed state, as a final observation.
    pub fn durable(&self) -> Tables<ScmRow> {
        self.store.durable()
    }
}
