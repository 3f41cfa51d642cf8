//! One SCM: its DB, its transaction buffer, its state machine, its stop, kill and startup.
//!
//! The state machine is `SCMStateMachine.applyTransaction` dispatching to
//! `SequenceIdGenerator.StateManagerImpl.allocateBatch` and `SCMCertStore`, through the shared
//! apply window [`apply_writes`] of
//! [`crate::models::scm::state_machine`]: `beginApplyingTransaction`, the implementation's
//! writes (a staged `CertificateId` row, or a direct certificate batch), `updateLatestTrxInfo`
//! (term 0), `endApplyingTransaction`. The transaction buffer is the shared model of
//! `SCMHADBTransactionBufferImpl` ([`crate::models::scm::tx_buffer`], with its read-write
//! lock). A mutex orders the applies of one SCM (Ratis applies one entry at a time) and guards
//! what the updater thread owns: the `StateManagerImpl` map `sequenceIdToLastIdMap` (loaded
//! from the LOCAL `sequenceIdTable`'s committed row, dropped on a restart or a checkpoint
//! install), and the applied index.
//!
//! The flushes of `notifyLeaderChanged` and the checkpoint download ([`Scm::flush`]) do not
//! take that mutex, as in the Java:
//! [`notifyLeaderChanged`](crate::citation::java::SCMStateMachine::notifyLeaderChanged)
//! (SCMStateMachine.java:285-335) calls the unguarded `transactionBuffer.flush()` on Ratis's
//! election thread, [`applyTransaction`](crate::citation::java::SCMStateMachine::applyTransaction)
//! (:154-195) holds no state-machine lock, and
//! [`SCMClientProtocolServer.transferLeadership`](crate::citation::java::SCMClientProtocolServer::transferLeadership)
//! (SCMClientProtocolServer.java:983-1018) holds no SCM lock; the only lock is the buffer's.
//! So the flush can land between an `allocateBatch`'s staging and its
//! `updateLatestTrxInfo`, and commit the row of index i under `TransactionInfo` i-1 (the
//! staged test `staged_a_leader_change_flush_inside_an_allocation_commits_its_row_under_the_previous_tx`
//! shows it on this buffer). The rest of the transfer follows the Java and Ratis: it holds
//! no lock until the leader switch, and it waits until the transferee's match index reaches
//! the leader's last entry ([`Scm::wait_up_to_date`], Ratis's
//! `TransferLeadership.isFollowerUpToDate`), while the transferee's log holds an entry before
//! its state machine applies it ([`Scm::catch_up`]). What that does to HDDS-16900's verdicts
//! is in the scenario's module docs.
//!
//! - [`allocateBatch`](crate::citation::java::SequenceIdGenerator::StateManagerImpl::allocateBatch)
//!   is a compare-and-set of the map entry (an absent row reads as 0): on a match it stages
//!   the new row in the buffer ([`addToBuffer`](crate::citation::java::SCMHADBTransactionBufferImpl::addToBuffer))
//!   and moves the map, otherwise it logs "Failed to allocate a batch for CertificateId,
//!   expected lastId is {prev}, actual lastId is {actual}." and changes nothing.
//! - [`storeValidCertificate`](crate::citation::java::SCMCertStore::storeValidCertificate) puts the
//!   certificate straight into RocksDB (an SCM's through
//!   [`storeValidScmCertificate`](crate::citation::java::SCMCertStore::storeValidScmCertificate),
//!   a direct batch over both tables).
//! - [`removeAllExpiredCertificates`](crate::citation::java::SCMCertStore::removeAllExpiredCertificates)
//!   takes no arguments: each SCM, when it applies the entry, deletes from both of its tables
//!   what it finds expired, in a direct batch.
//! - A configuration entry ([`notifyTermIndexUpdated`](crate::citation::java::SCMStateMachine::notifyTermIndexUpdated))
//!   only moves `latestTrxInfo`.
//! - [`Scm::flush`]: the buffer's [`flush`](crate::citation::java::SCMHADBTransactionBufferImpl::flush), the
//!   staged batch with `TransactionInfo = latestTrxInfo`, committed at once. The cluster calls
//!   it where the Java does: the stop snapshot, a new leader's `notifyLeaderChanged`, the
//!   leader's snapshot before a purge and its checkpoint download.
//!
//! Startup ([`Scm::stop`] or [`Scm::kill`], then [`Scm::upgrade_to_sequence_id`],
//! [`Scm::persist_primary_scm_certs`], [`Scm::upgrade_certificate_id`], [`Scm::start`])
//! follows `StorageContainerManager`: the buffer's `init` reads the durable TX; every SCM, at
//! every start, runs `upgradeToSequenceId`, whose `upgradeToCertificateSequenceId(store,
//! false)` puts max(2, stored serials) only when the row is absent; the primary then runs
//! `persistPrimarySCMCerts`: certificates 2 and 1 into both tables when `validCertsTable`
//! lacks them, then `upgradeToCertificateSequenceId(store, true)`; only then does
//! `scmHAManager.start()` start Ratis, which replays the log after the durable TX.

pub use super::generator::Batch;
use super::{
    has_tx, largest_serial, last_id, serial_key, Role, ScmRow, ScmTx, CERTIFICATE_ID,
    PRIMARY_SCM_CERT_SERIAL, ROOT_CA_CERT_SERIAL, SEQUENCE_ID_TABLE, VALID_CERTS_TABLE,
    VALID_SCM_CERTS_TABLE,
};
use crate::citation::{java, Citation, Label};
use crate::kit::raft_log::{LogEntry, Payload};
use crate::kit::replica::{Applier, CatchUp, SharedLog};
use crate::kit::store::{Observer, Store, Tables, WriteBatch};
use crate::kit::tx_info::stored_index;
use crate::models::scm::state_machine::{
    apply_writes, notify_term_index_updated, take_snapshot, ApplyOutcome, SaveFlush, Write,
};
use crate::models::scm::tx_buffer::{FlushPath, TransactionBuffer};
use crate::properties::Probe;
use crate::recorder::Actor;
use crate::sync::{Arc, Condvar, Mutex};
use std::collections::BTreeMap;

/// The startup window of the plan was reached.
pub const STARTUP_WINDOW_REACHED: Probe = Probe::new(
    "StartupWindowReached",
    "an SCM's startup found its CertificateId row absent (the non-forced upgrade seeds it), or the primary's forced call found the row different from its largest stored serial",
);

/// At the primary's forced call, the row was above every stored serial: the forced put
/// lowers it.
pub const ROW_ABOVE_LARGEST_AT_STARTUP: Probe = Probe::new(
    "RowAboveLargestAtStartup",
    "at the primary's forced upgrade call, its CertificateId row was above every stored serial",
);

/// At the primary's forced call, a stored serial was above the row: the forced put (and the
/// seed's patch) raises it locally. Reachable through a kill.
pub const LARGEST_ABOVE_ROW_AT_STARTUP: Probe = Probe::new(
    "LargestAboveRowAtStartup",
    "at the primary's forced upgrade call, a stored serial was above its durable CertificateId row",
);

/// At an SCM's startup the row was absent and the non-forced upgrade seeded it.
pub const ROW_ABSENT_AT_STARTUP: Probe = Probe::new(
    "RowAbsentAtStartup",
    "at an SCM's startup its CertificateId row was absent, and upgradeToSequenceId seeded it",
);

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

/// One SCM.
pub struct Scm {
    name: String,
    /// `SCMHADBTransactionBufferImpl` over the SCM's DB (the shared model), always used under
    /// `machine`: one lock covers an apply and a flush here.
    buffer: TransactionBuffer<ScmRow>,
    machine: Mutex<Machine>,
    generator: Mutex<Batch>,
    /// The last index the SCM's Raft log holds, as the leader's `FollowerInfo.getMatchIndex`
    /// sees it: it moves when the entries are appended, before they are applied.
    matched: Mutex<u64>,
    /// Signalled when `matched` moves (what a leader transferring to this SCM waits for).
    appended: Condvar,
}

const INVALID_SEQUENCE_ID: u64 = 0;

impl Scm {
    /// An SCM holding `tables`, running or stopped; `observer` sees every durable write.
    pub fn new(
        name: &str,
        tables: Tables<ScmRow>,
        up: bool,
        observer: Option<Observer<ScmRow>>,
    ) -> Self {
        let applied = stored_index(&tables);
        let store = Arc::new(Store::with_state(tables, observer));
        Self {
            name: name.to_string(),
            buffer: TransactionBuffer::new(store, 0, applied),
            machine: Mutex::new(Machine {
                up,
                applier: Applier::new(applied),
                last_id: None,
                replies: BTreeMap::new(),
            }),
            generator: Mutex::new(Batch::default()),
            matched: Mutex::labelled("match index", applied),
            appended: Condvar::new(),
        }
    }

    /// The SCM's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its DB.
    pub fn store(&self) -> &Store<ScmRow> {
        self.buffer.store()
    }

    /// The generator's batch, under `SequenceIdGenerator.lock`.
    pub fn generator(&self) -> &Mutex<Batch> {
        &self.generator
    }

    fn load_last_id(&self, me: &Actor, m: &mut Machine) -> u64 {
        if let Some(id) = m.last_id {
            return id;
        }
        let id = match self.store().get_skip_cache(
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

    /// `storeValidCertificate`'s direct batch (an SCM's through `storeValidScmCertificate`,
    /// over both tables).
    fn certificate_write(serial: u64, row: ScmRow, role: Role) -> Write<ScmRow> {
        let mut batch = WriteBatch::new();
        batch.put(VALID_CERTS_TABLE, &serial_key(serial), row.clone());
        let java: &'static Citation = match role {
            Role::Scm => {
                batch.put(VALID_SCM_CERTS_TABLE, &serial_key(serial), row);
                &java::SCMCertStore::storeValidScmCertificate
            }
            Role::Other => &java::SCMCertStore::storeValidCertificate,
        };
        Write::Direct { java, batch }
    }

    fn store_certificate(&self, me: &Actor, serial: u64, row: ScmRow, role: Role) {
        if let Write::Direct { java, batch } = Self::certificate_write(serial, row, role) {
            self.store().commit(me, java, batch);
        }
    }

    /// `process` of one replicated transaction: the Java method, the reply, a summary for the
    /// trace, and the writes in the order the implementation makes them.
    fn process(
        &self,
        me: &Actor,
        m: &mut Machine,
        tx: &ScmTx,
    ) -> (Label, Reply, String, Vec<Write<ScmRow>>) {
        let stage = |row| Write::Buffered {
            table: SEQUENCE_ID_TABLE,
            key: CERTIFICATE_ID.to_string(),
            row,
        };
        match tx {
            ScmTx::AllocateBatch { prev, next } => {
                let java = Label::Java(&java::SequenceIdGenerator::StateManagerImpl::allocateBatch);
                let actual = self.load_last_id(me, m);
                if actual == *prev {
                    m.last_id = Some(*next);
                    let summary = format!("allocateBatch({prev} -> {next}) ok; stage row {next}");
                    (java, Ok(()), summary, vec![stage(ScmRow::LastId(*next))])
                } else {
                    let msg = format!(
                        "Failed to allocate a batch for CertificateId, expected lastId is {prev}, actual lastId is {actual}."
                    );
                    (java, Err(msg.clone()), msg, Vec::new())
                }
            }
            ScmTx::StoreCert {
                serial,
                subject,
                expired,
                role,
            } => {
                let row = ScmRow::Cert {
                    subject: subject.clone(),
                    expired: *expired,
                };
                (
                    Label::Java(&java::SCMCertStore::storeValidCertificate),
                    Ok(()),
                    format!("store certificate {serial} ({subject}) directly"),
                    vec![Self::certificate_write(*serial, row, *role)],
                )
            }
            ScmTx::RemoveExpired => {
                const JAVA: &Citation = &java::SCMCertStore::removeAllExpiredCertificates;
                let tables = self.store().scan(me, JAVA);
                let mut batch = WriteBatch::new();
                let mut removed = Vec::new();
                for (table, key, row) in tables.iter() {
                    let sweep = table == VALID_CERTS_TABLE || table == VALID_SCM_CERTS_TABLE;
                    if sweep && matches!(row, ScmRow::Cert { expired: true, .. }) {
                        batch.delete(table, key);
                        removed.push(format!("{table}/{key}"));
                    }
                }
                let writes = if batch.is_empty() {
                    Vec::new()
                } else {
                    vec![Write::Direct { java: JAVA, batch }]
                };
                (
                    Label::Java(JAVA),
                    Ok(()),
                    format!("remove expired certificates directly: {removed:?}"),
                    writes,
                )
            }
            ScmTx::RaiseCertificateId { to } => {
                let actual = self.load_last_id(me, m);
                let raised = actual.max(*to);
                m.last_id = Some(raised);
                (
                    Label::model("replicated raise of the through-ratis variant"),
                    Ok(()),
                    format!("raise CertificateId {actual} -> {raised}; stage it"),
                    vec![stage(ScmRow::LastId(raised))],
                )
            }
        }
    }

    /// Apply one entry on the updater (`m` is the held updater lock): `applyTransaction`
    /// ([`apply_writes`]) or `notifyTermIndexUpdated`, with term 0. A flush from another
    /// thread can land between the staging and `updateLatestTrxInfo`.
    fn apply(&self, me: &Actor, m: &mut Machine, entry: &LogEntry<ScmTx>) {
        let mut reply = Ok(());
        let outcome = match &entry.payload {
            Payload::Configuration => notify_term_index_updated(&self.buffer, me, 0, entry.index),
            Payload::Data(tx) => {
                apply_writes(&self.buffer, me, (0, entry.index), SaveFlush::Java, || {
                    let (java, r, summary, writes) = self.process(me, m, tx);
                    me.step_with(java, || {
                        format!("{} applies index {}: {summary}", self.name, entry.index)
                    });
                    reply = r;
                    Ok(writes)
                })
            }
        };
        if let ApplyOutcome::Terminated(e) = outcome {
            panic!(
                "model error: {} applies index {}: {e}",
                self.name, entry.index
            );
        }
        m.replies.insert(entry.index, reply);
    }

    /// Append, then apply, every committed entry the SCM has not applied yet (nothing if it
    /// is stopped), and take the reply of entry `want` if it has one. The append (its match
    /// index) is visible to a transfer before the applies.
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
        let result = applier.catch_up_appending(
            log,
            |last| self.append_through(me, last),
            |e| self.apply(me, &mut m, e),
        );
        m.applier = applier;
        let reply = want.and_then(|w| m.replies.remove(&w));
        (result, reply)
    }

    /// The SCM's Raft log now holds every entry through `index` (appendEntries acknowledged:
    /// the leader's match index for it moves), before its state machine applies them.
    fn append_through(&self, me: &Actor, index: u64) {
        let mut matched = self.matched.lock();
        if *matched < index {
            *matched = index;
            me.step_with(
                Label::model("appendEntries: the follower's log holds the entries"),
                || format!("{}'s log holds index {index}", self.name),
            );
            self.appended.notify_all();
        }
    }

    /// `TransferLeadership.sendStartLeaderElection`'s precondition: wait until this SCM's
    /// match index reaches the leader's last entry ([`isFollowerUpToDate`](crate::citation::java::TransferLeadership::isFollowerUpToDate));
    /// its state machine may still be applying that entry.
    pub fn wait_up_to_date(&self, me: &Actor, log: &SharedLog<ScmTx>) {
        let mut matched = self.matched.lock();
        loop {
            let last = log.last_index();
            if *matched >= last {
                me.step_with(&java::TransferLeadership::isFollowerUpToDate, || {
                    format!(
                        "{}'s match index {} = the leader's last entry {last}",
                        self.name, *matched
                    )
                });
                return;
            }
            matched = self.appended.wait(matched);
        }
    }

    /// The buffer's unguarded `flush()` from `java` (a new leader's `notifyLeaderChanged`, the
    /// checkpoint download): the staged batch with `TransactionInfo = latestTrxInfo`. As in the
    /// Java, where these run on Ratis's election thread and a gRPC thread, only the buffer's
    /// write lock orders it, not the updater: it may land inside an apply.
    pub fn flush(&self, me: &Actor, java: &'static Citation, why: &str) {
        me.step_with(java, || format!("{} {why}: flush", self.name));
        self.buffer
            .flush_from(me, FlushPath::Unguarded, &format!("{} {why}", self.name));
    }

    /// `takeSnapshot` on the updater (`_m` is the held updater lock), between two applies:
    /// catch `latestTrxInfo` up to the applied index when behind, then `flush()`.
    fn take_snapshot_locked(&self, me: &Actor, m: &mut Machine, why: &str) {
        me.step_with(&java::SCMStateMachine::takeSnapshot, || {
            format!("{} {why}: takeSnapshot", self.name)
        });
        take_snapshot(&self.buffer, me, (0, m.applier.applied()));
    }

    /// `takeSnapshot` on the updater, between two applies (before Ratis purges its log).
    pub fn take_snapshot(&self, me: &Actor) {
        let mut m = self.machine.lock();
        self.take_snapshot_locked(me, &mut m, "snapshot");
    }

    /// `SCMStateMachine.reinitialize` after `notifyInstallSnapshotFromLeader`: replace the DB
    /// with `checkpoint`, reset the buffer (`init`: the staged batch is dropped,
    /// `latestTrxInfo` = the checkpoint's TX) and drop the in-memory map (`reinitialize` of
    /// the state manager). The generator's batch is invalidated, which keeps its `lastId`:
    /// the model leaves it untouched, since only the certificate path (batch size 1, so
    /// `nextId` is always `lastId + 1` between calls) runs after an install.
    pub fn install(&self, me: &Actor, checkpoint: Tables<ScmRow>) {
        let mut m = self.machine.lock();
        let index = stored_index(&checkpoint);
        self.store()
            .install(me, &java::SCMStateMachine::reinitialize, checkpoint);
        m.applier.installed(index);
        self.buffer.init(0, index);
        self.append_through(me, index);
        m.last_id = None;
    }

    fn go_down(&self, me: &Actor, m: &mut Machine, how: &str) {
        m.up = false;
        m.last_id = None;
        m.replies.clear();
        self.store()
            .reopen(me, Label::model("SCM restart: reopen the DB"));
        let durable = self.store().durable();
        let index = stored_index(&durable);
        m.applier = Applier::new(index);
        self.buffer.init(0, index);
        me.step_with(&java::SCMHADBTransactionBufferImpl::init, || {
            format!(
                "{} {how}; init: latestTrxInfo = durable TX {index}, row {}",
                self.name,
                last_id(&durable).map_or("absent".into(), |r| r.to_string())
            )
        });
        *self.generator.lock() = Batch::default();
    }

    /// A clean stop: Ratis's stop snapshot (`takeSnapshot`, whose `flush()` commits the
    /// staged batch with the applied index), then nothing in memory survives.
    pub fn stop(&self, me: &Actor) {
        let mut m = self.machine.lock();
        self.take_snapshot_locked(me, &mut m, "stops");
        self.go_down(me, &mut m, "stopped");
    }

    /// A kill: no stop snapshot, so the staged batch is lost. What was committed survives:
    /// the last flush, and every direct certificate write.
    pub fn kill(&self, me: &Actor) {
        let mut m = self.machine.lock();
        let staged = self.buffer.staged();
        me.step_with(Label::model("kill: no final flush"), || {
            format!("{} killed: staged batch {staged} lost", self.name)
        });
        self.go_down(me, &mut m, "killed");
    }

    /// `upgradeToSequenceId`, at every start of every SCM: its
    /// `upgradeToCertificateSequenceId(store, false)` puts max(2, stored serials) only when
    /// the row is absent.
    pub fn upgrade_to_sequence_id(&self, me: &Actor) {
        const JAVA: &Citation = &java::SequenceIdGenerator::upgradeToSequenceId;
        let tables = self.store().scan(me, JAVA);
        match last_id(&tables) {
            Some(row) => me.step_with(JAVA, || {
                format!("{}: row {row} present: no write", self.name)
            }),
            None => {
                me.probe(&ROW_ABSENT_AT_STARTUP);
                me.probe(&STARTUP_WINDOW_REACHED);
                self.store().put(
                    me,
                    JAVA,
                    SEQUENCE_ID_TABLE,
                    CERTIFICATE_ID,
                    ScmRow::LastId(largest_serial(&tables)),
                );
            }
        }
    }

    /// `persistPrimarySCMCerts`: the sub-CA certificate (2), then the root CA certificate
    /// (1), each stored into both tables when `validCertsTable` lacks it.
    pub fn persist_primary_scm_certs(&self, me: &Actor) {
        for (serial, subject) in [
            (PRIMARY_SCM_CERT_SERIAL, self.name.clone()),
            (ROOT_CA_CERT_SERIAL, "root-ca".to_string()),
        ] {
            let present = self
                .store()
                .get_skip_cache(
                    me,
                    &java::StorageContainerManager::persistPrimarySCMCerts,
                    VALID_CERTS_TABLE,
                    &serial_key(serial),
                )
                .is_some();
            if !present {
                let row = ScmRow::Cert {
                    subject,
                    expired: false,
                };
                self.store_certificate(me, serial, row, Role::Scm);
            }
        }
    }

    /// Where `persistPrimarySCMCerts` calls `upgradeToCertificateSequenceId(store, true)`: the
    /// variant's treatment of the row. Returns the largest stored serial it found (`None`
    /// when the variant makes no call).
    pub fn upgrade_certificate_id(&self, me: &Actor, upgrade: Upgrade) -> Option<u64> {
        const JAVA: &Citation = &java::SequenceIdGenerator::upgradeToCertificateSequenceId;
        let tables = match upgrade {
            Upgrade::NoForcedCall => self.store().scan(
                me,
                Label::model("no forced call: the row and the stored serials, unread by the SCM"),
            ),
            _ => self.store().scan(me, JAVA),
        };
        let largest = largest_serial(&tables);
        let row = last_id(&tables);
        match row {
            Some(r) if r > largest => {
                me.probe(&ROW_ABOVE_LARGEST_AT_STARTUP);
                me.probe(&STARTUP_WINDOW_REACHED);
            }
            Some(r) if r < largest => {
                me.probe(&LARGEST_ABOVE_ROW_AT_STARTUP);
                me.probe(&STARTUP_WINDOW_REACHED);
            }
            Some(_) => {}
            None => {
                me.probe(&ROW_ABSENT_AT_STARTUP);
                me.probe(&STARTUP_WINDOW_REACHED);
            }
        }
        let write = match upgrade {
            Upgrade::Forced => true,
            Upgrade::RaiseOnly => row.is_none_or(|r| largest > r),
            Upgrade::NoForcedCall | Upgrade::ThroughRatis => false,
        };
        if write {
            self.store().put(
                me,
                JAVA,
                SEQUENCE_ID_TABLE,
                CERTIFICATE_ID,
                ScmRow::LastId(largest),
            );
        } else {
            me.step_with(JAVA, || {
                format!(
                    "largest stored serial {largest}, row {}: no local write",
                    row.map_or("absent".into(), |r| r.to_string())
                )
            });
        }
        (upgrade != Upgrade::NoForcedCall).then_some(largest)
    }

    /// `scmHAManager.start()`: the SCM runs again and applies from its durable index.
    pub fn start(&self, me: &Actor) {
        let mut m = self.machine.lock();
        m.up = true;
        me.step_with(&java::SCMHAManagerImpl::start, || {
            format!(
                "{} starts Ratis; replays after index {}",
                self.name,
                m.applier.applied()
            )
        });
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
        self.store().durable()
    }

    /// The state a flush would commit now (the committed state with the staged batch and
    /// `latestTrxInfo` on top), as a final observation.
    pub fn buffered(&self) -> Tables<ScmRow> {
        let _m = self.machine.lock();
        let mut t = self.store().durable();
        t.apply(&self.buffer.staged());
        let (_, latest) = self.buffer.latest_trx_info();
        if has_tx(&t) || latest > 0 {
            crate::kit::tx_info::put_tx_info(&mut t, 0, latest);
        }
        t
    }
}
