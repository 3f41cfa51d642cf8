//! The SCMs of one Ratis group, their shared log, the leader, and what clients and operators
//! do to them.
//!
//! - [`Cluster::request`]: `SCMSecurityProtocolServer.getEncodedCertToString` on the leader:
//!   `getNextId(CertificateId)` (Ratis transaction 1, [`super::generator`]), then
//!   `DefaultCAServer.signAndStoreCertificate`: `SCMCertStore.checkValidCertID` refuses
//!   "Conflicting certificate ID{n}" when the signing SCM's `validCertsTable` already holds
//!   the serial, else `storeValidCertificate` (Ratis transaction 2). A request the plan marks
//!   as failing stops after transaction 1: the id stays allocated with no certificate.
//! - `storeValidCertificate` is `@Replicate(invocationType = CLIENT)`: it is submitted through
//!   a Ratis client of the whole group
//!   ([`HASecurityUtils.submitScmRequestToRatis`](crate::citation::java::HASecurityUtils::submitScmRequestToRatis)),
//!   which follows whichever SCM leads when it is sent. So a request in flight when the
//!   leadership moves ([`Cluster::allocate`], then [`Cluster::sign_and_store`]) is signed and
//!   checked on the SCM that allocated its serial and stored through the new leader: it
//!   succeeds. Only the DIRECT `allocateBatch` is tied to the submitting SCM.
//! - [`Cluster::transfer_leadership`]: the admin transfer: once the transferee's log holds the
//!   leader's last entry, its `notifyLeaderChanged` (`invalidateBatch`, which keeps its
//!   batch's `lastId`, and a flush unordered with its applies), then a new term (its
//!   configuration entry).
//! - [`Cluster::restart`] and [`Cluster::kill_and_restart`]: an SCM stops cleanly (a final
//!   flush) or is killed (none), then starts ([`Cluster::boot`]: `upgradeToSequenceId`, for the
//!   primary `persistPrimarySCMCerts` and the upgrade call, then Ratis replays the log after
//!   the durable TX).
//! - [`Cluster::rejoin`]: the leader takes a snapshot (a flush) and Ratis purges its log; an SCM
//!   that was down (or a new one) finds its next entry purged and installs the leader's
//!   checkpoint, which the leader flushes before taking (`InterSCMGrpcService.download`).
//! - [`Cluster::join`]: a new SCM's bootstrap (its own certificate issued through the leader)
//!   and first start.
//!
//! Certificate requests and the transfer's leader switch take the leadership lock (read and
//! write), so one certificate allocation is served by one leader: in Ratis a DIRECT
//! submission to a deposed leader fails with `NotLeaderException`, which the certificate
//! path leaves out. The block allocations of HDDS-8973 ([`Cluster::admit`],
//! [`Cluster::allocate_block`]) do not: the leadership is checked once at the RPC's entry, and
//! an `allocateBatch` submitted after the switch throws. The new leader's
//! `notifyLeaderChanged` flush runs before the switch and outside that lock, as the Java's
//! admin transfer orders it with nothing: it can land inside the new leader's apply of the
//! entry it was waiting for. A follower's log holds an entry (its match index moves) before
//! it applies it. The monitor of `getEncodedCertToString` is not modelled: each plan has one
//! client, so it never contends.
//!
//! Ghost bookkeeping ([`Book`]) records every handed-out serial and the row each SCM held at
//! each durable index, as sets of facts that only grow; the scenario's invariants are
//! checked through [`Checks`] when a fact conflicts with one added before.

use super::generator::{get_next_id, get_next_id_at, Revision, SubmitFailed};
use super::scm::{Reply, Scm, Upgrade};
use super::{has_tx, last_id, serial_key, Role, ScmRow, ScmTx, VALID_CERTS_TABLE};
use crate::citation::java;
use crate::kit::raft_log::RaftLog;
use crate::kit::replica::{CatchUp, SharedLog};
use crate::kit::store::Tables;
use crate::kit::tx_info::stored_index;
use crate::recorder::{Actor, Recorder};
use crate::sync::ghost::{Facts, Ghost};
use crate::sync::{Arc, RwLock};

/// A serial handed out by a leader's generator.
#[derive(Clone, Debug)]
pub struct Handout {
    /// The serial.
    pub serial: u64,
    /// Who got it now.
    pub to: String,
    /// Who got it before, if anyone (the cluster checks a hand-out when someone did).
    pub before: Option<String>,
}

/// A durable state of one SCM: its row at its durable index.
#[derive(Clone, Debug)]
pub struct RowAt {
    /// The SCM.
    pub scm: String,
    /// Its durable (`TransactionInfo`) index.
    pub index: u64,
    /// Its `CertificateId` row.
    pub row: Option<u64>,
    /// An SCM seen at this index before, with its row then (the cluster checks a durable
    /// state when one held another row).
    pub first: Option<(String, Option<u64>)>,
}

/// How a certificate request ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Signed and stored with this serial.
    Issued(u64),
    /// Signing or storing failed (a fault of the plan); the serial stays allocated.
    Failed(u64),
    /// Refused with this message.
    Refused(String),
}

/// A finished request.
#[derive(Clone, Debug)]
pub struct RequestEnd {
    /// The request's subject.
    pub subject: String,
    /// How it ended.
    pub outcome: Outcome,
}

/// A certificate request.
#[derive(Clone, Debug)]
pub struct CertRequest {
    /// The subject (a datanode, an OM, a client).
    pub subject: String,
    /// Whether signing or storing fails after the id was allocated.
    pub store_fails: bool,
    /// Whether the certificate is expired by the next expiry sweep.
    pub expired: bool,
    /// Who it is for.
    pub role: Role,
}

impl CertRequest {
    /// A valid request that succeeds if nothing refuses it.
    pub fn valid(subject: &str) -> Self {
        Self {
            subject: subject.into(),
            store_fails: false,
            expired: false,
            role: Role::Other,
        }
    }

    /// A bootstrapping SCM's request for its own certificate.
    pub fn scm(subject: &str) -> Self {
        Self {
            role: Role::Scm,
            ..Self::valid(subject)
        }
    }

    /// A request whose signing or store fails after the allocation.
    pub fn failing(subject: &str) -> Self {
        Self {
            store_fails: true,
            ..Self::valid(subject)
        }
    }

    /// A request whose certificate expires before the next sweep.
    pub fn expiring(subject: &str) -> Self {
        Self {
            expired: true,
            ..Self::valid(subject)
        }
    }
}

/// A request between its two transactions: its serial is allocated, signing is under way.
#[derive(Clone, Debug)]
pub struct InFlight {
    leader: usize,
    /// The allocated serial.
    pub serial: u64,
    req: CertRequest,
}

/// Where the invariants plug in: each is called at the moment its fact is recorded.
#[derive(Clone, Copy)]
pub struct Checks {
    /// A serial was handed out.
    pub handout: fn(&Handout, &Recorder),
    /// An SCM's durable state changed.
    pub row: fn(&RowAt, &Recorder),
    /// A request ended.
    pub request: fn(&RequestEnd, &Recorder),
}

impl Checks {
    /// Check nothing (reproductions that read the results themselves).
    pub const NONE: Checks = Checks {
        handout: |_, _| (),
        row: |_, _| (),
        request: |_, _| (),
    };
}

/// Ghost facts of one execution. Each is a set that only grows, so two SCMs (or two
/// leaders) that add theirs in either order reach one state; a fact that conflicts with one
/// added before is reported to the scenario's check, in whichever order they came.
#[derive(Debug)]
pub struct Book {
    /// Every serial handed out, with its holder: two with one serial conflict.
    pub handed_out: Facts<(u64, String)>,
    /// Every durable state of an SCM that claims an index: (index, row, SCM). Two at one
    /// index with different rows conflict.
    pub rows_at: Facts<(u64, Option<u64>, String)>,
}

fn same_serial(a: &(u64, String), b: &(u64, String)) -> bool {
    a.0 == b.0
}

fn rows_differ(a: &(u64, Option<u64>, String), b: &(u64, Option<u64>, String)) -> bool {
    a.0 == b.0 && a.1 != b.1
}

#[derive(Debug, Clone, Copy)]
struct Leadership {
    leader: usize,
    term: u64,
}

/// One SCM's starting point.
pub struct ScmSpec {
    /// Its name.
    pub name: &'static str,
    /// Its DB.
    pub tables: Tables<ScmRow>,
    /// Whether it runs at the start.
    pub up: bool,
}

/// The SCMs of one group.
pub struct Cluster {
    scms: Vec<Scm>,
    log: SharedLog<ScmTx>,
    leader: RwLock<Leadership>,
    upgrade: Upgrade,
    revision: Revision,
    batch_size: u64,
    /// The plan's fault: how many more block-allocation submissions a leader refuses. Model
    /// state, not bookkeeping, held in a [`Ghost`] cell because Ratis decides the refusal
    /// inside the submission's step: a lock of its own would add a scheduling point there
    /// (the stateful engine still records each access).
    refusals: Ghost<u32>,
    book: Arc<Book>,
    recorder: Arc<Recorder>,
    checks: Checks,
}

impl Cluster {
    /// A group of `scms` over `log` (term `term`, led by `leader`), whose primary starts up
    /// as `upgrade` says. Serials up to `handed_out` count as already handed out.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        recorder: &Arc<Recorder>,
        upgrade: Upgrade,
        checks: Checks,
        scms: Vec<ScmSpec>,
        log: RaftLog<ScmTx>,
        leader: usize,
        term: u64,
        handed_out: u64,
    ) -> Self {
        let book = Arc::new(Book {
            handed_out: Facts::new(
                (1..=handed_out).map(|serial| (serial, "cluster initialisation".to_string())),
            ),
            rows_at: Facts::new(scms.iter().filter(|s| has_tx(&s.tables)).map(|s| {
                (
                    stored_index(&s.tables),
                    last_id(&s.tables),
                    s.name.to_string(),
                )
            })),
        });
        let scms = scms
            .into_iter()
            .map(|s| {
                let observer = row_observer(s.name, recorder, &book, checks);
                Scm::new(s.name, s.tables, s.up, Some(observer))
            })
            .collect();
        Self {
            scms,
            log: SharedLog::with_log(log),
            leader: RwLock::new(Leadership { leader, term }),
            upgrade,
            revision: Revision::Pinned,
            batch_size: 1,
            refusals: Ghost::new(0),
            book,
            recorder: Arc::clone(recorder),
            checks,
        }
    }

    /// The same cluster whose block allocations ([`Cluster::allocate_block`]) run
    /// `getNextId` at `revision` with batch size `batch_size`. The certificate requests
    /// always run the pinned `getNextId` with batch size 1.
    pub fn at(mut self, revision: Revision, batch_size: u64) -> Self {
        self.revision = revision;
        self.batch_size = batch_size;
        self
    }

    /// The plan's fault: `n` more of the next block-allocation submissions on a leader are
    /// refused with nothing appended, as Ratis refuses a write when the leader's
    /// pending-request permits are taken (`ResourceUnavailableException`).
    pub fn refuse_next_submissions(&self, n: u32) {
        self.refusals.with(|r| *r += n);
    }

    /// SCM `i`.
    pub fn scm(&self, i: usize) -> &Scm {
        &self.scms[i]
    }

    /// The index of the SCM called `name`.
    pub fn index_of(&self, name: &str) -> usize {
        self.scms
            .iter()
            .position(|s| s.name() == name)
            .unwrap_or_else(|| panic!("no SCM called {name}"))
    }

    /// The shared log.
    pub fn log(&self) -> &SharedLog<ScmTx> {
        &self.log
    }

    /// The ghost book.
    pub fn book(&self) -> &Arc<Book> {
        &self.book
    }

    /// The current leader (one step: the leadership lock).
    pub fn leader(&self) -> usize {
        self.leader.read().leader
    }

    fn order(&self, first: usize) -> impl Iterator<Item = usize> {
        std::iter::once(first).chain((0..self.scms.len()).filter(move |i| *i != first))
    }

    /// Apply what SCM `i` has not applied; if its next entry is purged, install `leader`'s
    /// checkpoint first. Returns the reply of entry `want` if SCM `i` applied it.
    fn drive(&self, me: &Actor, i: usize, leader: usize, want: Option<u64>) -> Option<Reply> {
        let (result, reply) = self.scms[i].catch_up(me, &self.log, want);
        if result != CatchUp::NeedsCheckpoint {
            return reply;
        }
        self.install_checkpoint(me, i, leader);
        self.scms[i].catch_up(me, &self.log, want).1
    }

    fn install_checkpoint(&self, me: &Actor, i: usize, leader: usize) {
        self.scms[leader].flush(
            me,
            &java::InterSCMGrpcService::download,
            "serves a checkpoint",
        );
        let checkpoint = self.scms[leader]
            .store()
            .checkpoint(me, &java::SCMDBCheckpointProvider::writeDBCheckPointToSream);
        me.step_with(
            &java::SCMStateMachine::notifyInstallSnapshotFromLeader,
            || {
                format!(
                    "{} installs {}'s checkpoint at index {}",
                    self.scms[i].name(),
                    self.scms[leader].name(),
                    stored_index(&checkpoint)
                )
            },
        );
        self.scms[i].install(me, checkpoint);
    }

    /// Submit `tx` through `leader`: it is committed, every running SCM applies it, and the
    /// leader's reply is returned (`SCMRatisServerImpl.submitRequest`).
    pub fn submit(&self, me: &Actor, leader: usize, tx: ScmTx) -> Reply {
        let summary = tx.to_string();
        let index = self.log.append(tx);
        me.step_with(&java::SCMRatisServerImpl::submitRequest, || {
            format!(
                "{} commits index {index}: {summary}",
                self.scms[leader].name()
            )
        });
        let mut reply = None;
        for i in self.order(leader) {
            let r = self.drive(me, i, leader, (i == leader).then_some(index));
            if i == leader {
                reply = r;
            }
        }
        reply.unwrap_or_else(|| {
            panic!(
                "model error: leader {} did not apply index {index}",
                self.scms[leader].name()
            )
        })
    }

    /// One certificate request, served by the current leader.
    pub fn request(&self, me: &Actor, req: &CertRequest) -> Outcome {
        let guard = self.leader.read();
        let leader = guard.leader;
        let serial = self.allocate_on(me, leader, req);
        let outcome = self.sign_and_store_on(me, leader, leader, req, serial);
        drop(guard);
        self.end(req, outcome)
    }

    /// The first half of a request: the current leader allocates its serial. The request
    /// is then in flight, signing, until [`Cluster::sign_and_store`].
    pub fn allocate(&self, me: &Actor, req: &CertRequest) -> InFlight {
        let guard = self.leader.read();
        let leader = guard.leader;
        let serial = self.allocate_on(me, leader, req);
        InFlight {
            leader,
            serial,
            req: req.clone(),
        }
    }

    /// The second half of a request started by [`Cluster::allocate`]: the SCM that allocated
    /// the serial signs it and checks it against its own `validCertsTable` (no leadership
    /// check after the RPC entry), and the CLIENT-invoked store goes to whichever SCM leads
    /// now.
    pub fn sign_and_store(&self, me: &Actor, f: InFlight) -> Outcome {
        let guard = self.leader.read();
        let leader = guard.leader;
        let outcome = if self.scms[f.leader].is_up() {
            self.sign_and_store_on(me, f.leader, leader, &f.req, f.serial)
        } else {
            me.step_with(&java::DefaultCAServer::signAndStoreCertificate, || {
                format!(
                    "{} went down while signing: the request fails; serial {} stays allocated",
                    self.scms[f.leader].name(),
                    f.serial
                )
            });
            Outcome::Failed(f.serial)
        };
        drop(guard);
        self.end(&f.req, outcome)
    }

    fn allocate_on(&self, me: &Actor, leader: usize, req: &CertRequest) -> u64 {
        let serial = get_next_id(self.scm(leader), me, |tx| self.submit(me, leader, tx));
        self.hand_out(serial, &req.subject);
        serial
    }

    fn hand_out(&self, serial: u64, to: &str) {
        self.book
            .handed_out
            .add((serial, to.to_string()), same_serial, |_, before| {
                (self.checks.handout)(
                    &Handout {
                        serial,
                        to: to.to_string(),
                        before: Some(before.1.clone()),
                    },
                    &self.recorder,
                );
            });
    }

    /// The leadership check at an RPC's entry
    /// ([`ScmBlockLocationProtocolServerSideTranslatorPB.send`](java::hdds_8973_parent::ScmBlockLocationProtocolServerSideTranslatorPB::send)
    /// calls [`StorageContainerManager.checkLeader`](java::hdds_8973_parent::StorageContainerManager::checkLeader)):
    /// whether SCM `i` leads now. It is the only check on the block allocation's path: what
    /// follows runs even if the leadership moves meanwhile.
    pub fn admit(&self, me: &Actor, i: usize, who: &str) -> bool {
        let leads = self.leader.read().leader == i;
        me.step_with(
            &java::hdds_8973_parent::StorageContainerManager::checkLeader,
            || {
                format!(
                    "{} {} {who}'s request",
                    self.scms[i].name(),
                    if leads {
                        "leads: admits"
                    } else {
                        "is not the leader: refuses"
                    }
                )
            },
        );
        leads
    }

    /// `getNextId` on SCM `i` for an admitted request of `who`
    /// ([`BlockManagerImpl.newBlock`](java::hdds_8973_parent::BlockManagerImpl::newBlock)'s
    /// `getNextId(LOCAL_ID)`), at the cluster's revision and batch size. Its `allocateBatch`
    /// is committed through SCM `i` if it still leads (the leadership read lock makes the
    /// check and the commit one step against the switch), and throws [`SubmitFailed`]
    /// otherwise, with nothing appended; a leader also refuses it while the plan's
    /// [`Cluster::refuse_next_submissions`] lasts.
    pub fn allocate_block(&self, me: &Actor, i: usize, who: &str) -> Result<u64, SubmitFailed> {
        let id = get_next_id_at(self.scm(i), me, self.revision, self.batch_size, |tx| {
            let guard = self.leader.read();
            if guard.leader != i {
                let msg = format!("{} is not the leader", self.scms[i].name());
                me.step_with(
                    &java::hdds_8973_parent::SCMRatisServerImpl::submitRequest,
                    || format!("{tx}: NotLeaderException: {msg}"),
                );
                return Err(SubmitFailed(msg));
            }
            if self
                .refusals
                .with(|r| std::mem::replace(r, r.saturating_sub(1)) > 0)
            {
                let msg = format!("{} has no pending-request permit", self.scms[i].name());
                me.step_with(
                    &java::hdds_8973_parent::SCMRatisServerImpl::submitRequest,
                    || format!("{tx}: ResourceUnavailableException: {msg}"),
                );
                return Err(SubmitFailed(msg));
            }
            let reply = self.submit(me, i, tx);
            drop(guard);
            Ok(reply)
        })?;
        self.hand_out(id, who);
        Ok(id)
    }

    /// `signAndStoreCertificate` on `signer`, the store submitted through `leader`.
    fn sign_and_store_on(
        &self,
        me: &Actor,
        signer: usize,
        leader: usize,
        req: &CertRequest,
        serial: u64,
    ) -> Outcome {
        if req.store_fails {
            me.step_with(
                &java::DefaultCAServer::signAndStoreCertificate,
                || format!(
                    "signing or storing fails for {}: serial {serial} stays allocated with no certificate",
                    req.subject
                ),
            );
            return Outcome::Failed(serial);
        }
        let conflicting = self.scms[signer]
            .store()
            .get_skip_cache(
                me,
                &java::SCMCertStore::checkValidCertID,
                VALID_CERTS_TABLE,
                &serial_key(serial),
            )
            .is_some();
        if conflicting {
            let msg = format!("Conflicting certificate ID{serial}");
            me.step_with(&java::SCMCertStore::checkValidCertID, || {
                format!(
                    "{} refuses {}: {msg}",
                    self.scms[signer].name(),
                    req.subject
                )
            });
            return Outcome::Refused(msg);
        }
        me.step_with(&java::HASecurityUtils::submitScmRequestToRatis, || {
            format!(
                "{} signed {serial}; the store goes through the leader, {}",
                self.scms[signer].name(),
                self.scms[leader].name()
            )
        });
        // The store always succeeds on apply; only the plan's fault fails it.
        let _ = self.submit(
            me,
            leader,
            ScmTx::StoreCert {
                serial,
                subject: req.subject.clone(),
                expired: req.expired,
                role: req.role,
            },
        );
        Outcome::Issued(serial)
    }

    fn end(&self, req: &CertRequest, outcome: Outcome) -> Outcome {
        let end = RequestEnd {
            subject: req.subject.clone(),
            outcome: outcome.clone(),
        };
        (self.checks.request)(&end, &self.recorder);
        outcome
    }

    /// `removeAllExpiredCertificates` submitted by the leader (an admin's request): every SCM
    /// sweeps its own tables when it applies it.
    pub fn remove_expired(&self, me: &Actor) {
        let guard = self.leader.read();
        let leader = guard.leader;
        let _ = self.submit(me, leader, ScmTx::RemoveExpired);
    }

    /// The admin leadership transfer to SCM `to`
    /// ([`transferLeadership`](java::SCMClientProtocolServer::transferLeadership), which holds
    /// no SCM lock): Ratis starts the election only once `to`'s match index reaches the
    /// leader's last entry ([`sendStartLeaderElection`](java::TransferLeadership::sendStartLeaderElection)),
    /// and `to` may still be applying that entry when it becomes leader. Its
    /// `notifyLeaderChanged` (`invalidateBatch`, which keeps the batch's `lastId`, and the
    /// unguarded flush) runs on Ratis's election thread, unordered with its updater; then the
    /// new term (its configuration entry). Only the leader switch takes the leadership write
    /// lock.
    pub fn transfer_leadership(&self, me: &Actor, to: usize) {
        self.scms[to].wait_up_to_date(me, &self.log);
        me.step_with(&java::TransferLeadership::sendStartLeaderElection, || {
            format!("{} starts its election", self.scms[to].name())
        });
        let last = {
            let mut batch = self.scms[to].generator().lock();
            batch.invalidate();
            batch.last
        };
        me.step_with(self.revision.invalidate_batch(), || {
            format!("{}: the batch keeps lastId {last}", self.scms[to].name())
        });
        self.scms[to].flush(
            me,
            &java::SCMStateMachine::notifyLeaderChanged,
            "becomes leader",
        );
        let mut guard = self.leader.write();
        let from = guard.leader;
        guard.term += 1;
        let index = self.log.start_term(guard.term);
        guard.leader = to;
        me.step_with(&java::SCMClientProtocolServer::transferLeadership, || {
            format!(
                "{} -> {}: term {}, configuration entry at index {index}",
                self.scms[from].name(),
                self.scms[to].name(),
                guard.term
            )
        });
        for i in self.order(to) {
            self.drive(me, i, to, None);
        }
    }

    /// Stop SCM `i` cleanly (its final flush) and start it again ([`Cluster::boot`]).
    pub fn restart(&self, me: &Actor, i: usize) {
        self.scms[i].stop(me);
        self.boot(me, i);
    }

    /// Kill SCM `i` (no final flush: its staged batch is lost) and start it again.
    pub fn kill_and_restart(&self, me: &Actor, i: usize) {
        self.scms[i].kill(me);
        self.boot(me, i);
    }

    /// Start SCM `i`, which is down, in `StorageContainerManager`'s order: the non-forced
    /// `upgradeToSequenceId`; on the primary (SCM 0) `persistPrimarySCMCerts` and the
    /// variant's upgrade call; then Ratis, which replays the log after the durable TX
    /// (installing the leader's checkpoint if the log was purged). `through-ratis` then
    /// submits its raise through the leader.
    pub fn boot(&self, me: &Actor, i: usize) {
        let scm = &self.scms[i];
        scm.upgrade_to_sequence_id(me);
        let largest = if i == 0 {
            scm.persist_primary_scm_certs(me);
            scm.upgrade_certificate_id(me, self.upgrade)
        } else {
            None
        };
        scm.start(me);
        let guard = self.leader.read();
        let leader = guard.leader;
        self.drive(me, i, leader, None);
        if let (Upgrade::ThroughRatis, Some(to)) = (self.upgrade, largest) {
            let _ = self.submit(me, leader, ScmTx::RaiseCertificateId { to });
        }
    }

    /// A new SCM `i` (down, with an empty DB) bootstraps and starts for the first time: the
    /// leader issues its SCM certificate, then it starts ([`Cluster::boot`]) and replays the
    /// log.
    pub fn join(&self, me: &Actor, i: usize) {
        let name = self.scms[i].name().to_string();
        self.request(me, &CertRequest::scm(&name));
        self.boot(me, i);
    }

    /// Stop SCM `i` cleanly (it stays down until [`Cluster::boot`] or [`Cluster::rejoin`]).
    pub fn stop(&self, me: &Actor, i: usize) {
        self.scms[i].stop(me);
    }

    /// SCM `i` was down (or is new): the leader takes a snapshot and Ratis purges its log
    /// through it, then SCM `i` starts, finds its next entry purged and installs the
    /// leader's checkpoint (`ozone.scm.ha.ratis.log.purge.enabled`).
    pub fn rejoin(&self, me: &Actor, i: usize) {
        let guard = self.leader.read();
        let leader = guard.leader;
        self.scms[leader].take_snapshot(me);
        let applied = self.scms[leader].applied();
        self.log.purge_through(applied);
        me.step_with(&java::SCMStateMachine::takeSnapshot, || {
            format!(
                "{} snapshot at index {applied}; the log is purged through it",
                self.scms[leader].name()
            )
        });
        self.scms[i].start(me);
        self.drive(me, i, leader, None);
    }

    /// Every SCM's applied index and row as a flush would commit them now (the staged row
    /// counts), read after every thread stopped.
    pub fn rows(&self) -> Vec<(String, u64, Option<u64>)> {
        self.scms
            .iter()
            .map(|s| (s.name().to_string(), s.applied(), last_id(&s.buffered())))
            .collect()
    }
}

fn row_observer(
    name: &'static str,
    recorder: &Arc<Recorder>,
    book: &Arc<Book>,
    checks: Checks,
) -> crate::kit::store::Observer<ScmRow> {
    let (recorder, book) = (Arc::clone(recorder), Arc::clone(book));
    Box::new(move |_before, after| {
        if !has_tx(after) {
            // A new DB claims no index (`TransactionInfo` DEFAULT): nothing to compare.
            return;
        }
        let (index, row) = (stored_index(after), last_id(after));
        book.rows_at
            .add((index, row, name.to_string()), rows_differ, |_, first| {
                (checks.row)(
                    &RowAt {
                        scm: name.to_string(),
                        index,
                        row,
                        first: Some((first.2.clone(), first.1)),
                    },
                    &recorder,
                );
            });
    })
}
