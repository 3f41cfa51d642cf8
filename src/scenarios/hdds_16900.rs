//! HDDS-16900: a primary SCM restart lowers the replicated `CertificateId` row, so
//! certificate serials are handed out twice.
//!
//! Seed: `seeds/000_0a279f86879c9feb.txt`; grounding §3. Java: `SequenceIdGenerator`
//! (`getNextId`, `StateManagerImpl.allocateBatch`, `upgradeToCertificateSequenceId`
//! :389-426, the put at :416), `StorageContainerManager.persistPrimarySCMCerts` (:988-1011,
//! the forced call at :1010, before `scmHAManager.start()` at :1575),
//! `SCMSecurityProtocolServer.getEncodedCertToString`, `DefaultCAServer.signAndStoreCertificate`,
//! `SCMCertStore.checkValidCertID` / `storeValidCertificate` /
//! `removeAllExpiredCertificates`; see [`crate::models::scm_cert`] for what each model
//! function stands for and what is abstracted away.
//!
//! # Cluster and setup
//!
//! Three SCMs, `scm1` the primary, all initialised with the primary's SCM certificate
//! (serial 2) and `CertificateId` = 2. A sequential setup (actor `setup`) runs before the
//! actors race: `scm1` leads and issues serial 3 (and, per plan, 4), then leadership moves
//! to `scm2`, as in the seed, where another SCM leads while the primary restarts.
//!
//! # Actors and plans
//!
//! | plan | fault chosen by the plan (in the setup) | actors |
//! |---|---|---|
//! | `restart` | none; `scm2` has a request in flight (4 allocated, signing) | `client`: signs and stores it, then one more valid request; `primary`: `scm1` restarts, then takes the leadership back |
//! | `store-fails` | the request for 4 fails after its id was allocated | as `restart` |
//! | `expired` | certificate 4 (the largest) was issued expired and the sweep removed it | as `restart` |
//! | `rejoin` | the request for 4 fails; `scm3` is down | `primary`: as `restart`; `scm3`: the leader snapshots and purges its log, `scm3` installs the leader's checkpoint, takes the leadership and serves a request |
//!
//! Every plan spawns two actors beside the main thread, inside loom's limit of four. Left
//! out by that bound: a second client racing the first (`getEncodedCertToString` is
//! `synchronized`, so two clients only serialise), a second restart racing the first, a
//! separate actor per Ratis follower (followers apply synchronously inside the submitter's
//! step), and a transfer that races the requests served by the same leader (the
//! leadership lock orders them, see [`crate::models::scm_cert::cluster`]).
//!
//! In `restart` there is no fault at all: the window is the primary's stop landing between
//! a request's two transactions, after its allocation was applied on `scm1` and before its
//! store was. The plan starts with that request in flight, so the race is whether the stop
//! comes before the store reaches `scm1` (a plan that also raced the allocation would need
//! the stop to wait about ten steps of the client, which random schedules almost never
//! do). The forced write then sees no certificate with that serial (its store transaction
//! is only replayed after the write) and lowers the row; once `scm1` leads, it hands the
//! serial out again and its own `checkValidCertID` refuses it. If the in-flight request's
//! leader lost the leadership before its store, the store fails (`NotLeaderException`):
//! a failed request, not a refused one.
//!
//! In every plan `buggy` can also escape: a primary that restarts only after a later
//! certificate was stored finds largest = row and lowers nothing (real threads miss the
//! window in about 4% of runs).
//!
//! # Invariants
//!
//! - `UniqueSerials`, checked when a leader's generator hands out a serial: no serial is
//!   handed out twice (serials 1 and 2 count as handed out at initialisation).
//! - `SequenceRowsAgree`, checked at every durable write of every SCM: its row equals the
//!   row of the first SCM seen at the same applied index. A local write that changes the
//!   row without moving the index breaks it at once.
//! - `NoRefusedRequest`, checked when a request ends: no valid request is refused with
//!   "Conflicting certificate ID<n>" (a plan's injected failure is not a refusal).
//! - `RowCoversStoredSerials`, checked once every actor has stopped: on every running SCM
//!   the `CertificateId` row is at least every serial in its `validCertsTable` (a row below
//!   a stored serial hands that serial out again).
//!
//! # Variants ([`Upgrade`](crate::models::scm_cert::scm::Upgrade))
//!
//! - `buggy`: the forced local write, as today.
//! - `raise-only`: the seed's patch (write only if no row or the largest serial is above it).
//! - `no-forced-call`: `persistPrimarySCMCerts` does not call the upgrade.
//! - `through-ratis`: the starting primary submits `row = max(row, largest)` through Ratis
//!   once its replay is done; every SCM applies it.
//!
//! # What the model says about `raise-only` and `no-forced-call`
//!
//! Both hold every invariant on every plan, with the race window reached
//! (`RowAboveLargestAtStartup` fires). A local raise could only put the primary ahead of its
//! peers if some stored serial were above the replicated row. On these plans none is: every
//! serial in `validCertsTable` was allocated by a replicated `allocateBatch` that the same
//! SCM applied earlier in log order, and the primary's own certificate (serial 2) is at or
//! below the row every SCM was initialised with. So the patch's comparison never passes
//! and it writes nothing, exactly as `no-forced-call`. The grounding's concern (the primary
//! ahead of its peers after a local raise) needs a stored serial above the row: a cluster
//! whose row is still absent at the primary's first start (the first seeding stays local in
//! both variants and is not modelled here), or serials issued before the sequence existed
//! (the upgrade path HDDS-9138 added the call for). Neither is in these plans. The staged
//! test `staged_raise_only_puts_the_primary_ahead_when_a_local_serial_is_above_the_row`
//! (`shuttle-tests/hdds_16900.rs`) shows what follows when one is: the primary holds an SCM
//! certificate with serial 5 over a replicated row of 2, its restart raises its own row to
//! 5 while the peers keep 2, and the next allocation (2 -> 3) fails on the primary only
//! ("expected lastId is 2, actual lastId is 5"): rows 5, 3, 3 at one applied index,
//! `SequenceRowsAgree` broken the other way round. A plan for the first start of a fresh
//! cluster (row absent, seeded locally) is the next step to settle whether that state is
//! reachable.

use crate::choices;
use crate::kit::raft_log::RaftLog;
use crate::models::scm_cert::cluster::{
    CertRequest, Checks, Cluster, Handout, InFlight, Outcome, RequestEnd, RowAt, ScmSpec,
    ROW_ABOVE_LARGEST_AT_STARTUP,
};
use crate::models::scm_cert::scm::Upgrade;
use crate::models::scm_cert::{initial_tables, largest_serial, last_id};
use crate::properties::{Invariant, Property};
use crate::recorder::{Actor, Recorder};
use crate::scenario::{Case, Expected, Scenario};
use crate::sync::{thread, Arc};

/// The scenario.
#[derive(Debug, Clone, Copy)]
pub struct Hdds16900;

choices! {
    /// What the primary's startup does to the `CertificateId` row.
    pub enum Variant {
        /// the Java today: upgradeToCertificateSequenceId(store, true) puts max(2, stored serials) locally
        Buggy = "buggy",
        /// the seed's patch: the local put only when there is no row or the largest serial is above it
        RaiseOnly = "raise-only",
        /// persistPrimarySCMCerts no longer calls upgradeToCertificateSequenceId
        NoForcedCall = "no-forced-call",
        /// the raise goes through the replicated log: every SCM applies row = max(row, largest)
        ThroughRatis = "through-ratis",
    }
}

choices! {
    /// Which fault the setup injects and which actors race.
    pub enum Plan {
        /// two valid requests on scm2 race the primary's restart and its return to leadership
        Restart = "restart",
        /// as restart, after a request whose signing or store failed once its id was allocated
        StoreFails = "store-fails",
        /// as restart, after the largest certificate expired and was removed
        Expired = "expired",
        /// scm3 was down; the primary restarts and leads while scm3 installs the leader's checkpoint after a log purge, leads and serves a request
        Rejoin = "rejoin",
    }
}

impl Variant {
    fn upgrade(self) -> Upgrade {
        match self {
            Variant::Buggy => Upgrade::Forced,
            Variant::RaiseOnly => Upgrade::RaiseOnly,
            Variant::NoForcedCall => Upgrade::NoForcedCall,
            Variant::ThroughRatis => Upgrade::ThroughRatis,
        }
    }
}

fn show(row: Option<u64>) -> String {
    row.map_or_else(|| "absent".into(), |r| r.to_string())
}

/// No serial is handed out twice.
pub const UNIQUE_SERIALS: Invariant<Handout> = Invariant::always(
    "UniqueSerials",
    "no serial is handed out twice",
    |h| match &h.before {
        None => Ok(()),
        Some(before) => Err(format!(
            "serial {} handed out to {} was already handed out to {before}",
            h.serial, h.to
        )),
    },
);

/// SCMs at one applied index hold one row.
pub const SEQUENCE_ROWS_AGREE: Invariant<RowAt> = Invariant::always(
    "SequenceRowsAgree",
    "SCMs at the same applied index hold the same CertificateId row",
    |r| match &r.first {
        Some((scm, row)) if *row != r.row => Err(format!(
            "at applied index {} {} holds CertificateId {} but {scm} held {}",
            r.index,
            r.scm,
            show(r.row),
            show(*row)
        )),
        _ => Ok(()),
    },
);

/// No valid request is refused.
pub const NO_REFUSED_REQUEST: Invariant<RequestEnd> = Invariant::always(
    "NoRefusedRequest",
    "a valid certificate request is never refused (\"Conflicting certificate ID<n>\")",
    |e| match &e.outcome {
        Outcome::Refused(msg) => Err(format!("valid request {} refused: {msg}", e.subject)),
        _ => Ok(()),
    },
);

/// The SCMs' rows once every actor has stopped: `(scm, row, largest stored serial)`.
pub struct RowsAtRest(pub Vec<(String, Option<u64>, u64)>);

/// Every running SCM's row covers its stored serials.
pub const ROW_COVERS_STORED_SERIALS: Invariant<RowsAtRest> = Invariant::eventually(
    "RowCoversStoredSerials",
    "once every actor has stopped, each running SCM's CertificateId row is at least every serial it stores",
    |r| {
        for (scm, row, largest) in &r.0 {
            if row.unwrap_or(0) < *largest {
                return Err(format!(
                    "{scm} holds CertificateId {} below its stored serial {largest}",
                    show(*row)
                ));
            }
        }
        Ok(())
    },
);

/// The invariants, plugged into the cluster.
pub const CHECKS: Checks = Checks {
    handout: |h, r| {
        UNIQUE_SERIALS.check_into(h, r);
    },
    row: |s, r| {
        SEQUENCE_ROWS_AGREE.check_into(s, r);
    },
    request: |e, r| {
        NO_REFUSED_REQUEST.check_into(e, r);
    },
};

/// `scm1`, `scm2`, `scm3` at index 0 with the initial tables, `scm1` leading term 1 (its
/// configuration entry at index 1); the SCMs named in `down` are stopped.
pub fn three_scms(
    recorder: &Arc<Recorder>,
    upgrade: Upgrade,
    checks: Checks,
    down: &[&str],
) -> Cluster {
    let mut log = RaftLog::new();
    log.start_term(1);
    let scms = ["scm1", "scm2", "scm3"]
        .into_iter()
        .map(|name| ScmSpec {
            name,
            tables: initial_tables(),
            up: !down.contains(&name),
        })
        .collect();
    Cluster::new(recorder, upgrade, checks, scms, log, 0, 1, 2)
}

/// The plan's sequential setup: `scm1` issues 3, then per plan a request for 4 fails, or 4
/// is issued expired and the expiry sweep removes it; then leadership moves to `scm2`.
pub fn setup(cluster: &Cluster, me: &Actor, plan: Plan) {
    cluster.request(me, &CertRequest::valid("dn1"));
    match plan {
        Plan::Restart => {}
        Plan::StoreFails | Plan::Rejoin => {
            cluster.request(me, &CertRequest::failing("dn2"));
        }
        Plan::Expired => {
            cluster.request(me, &CertRequest::expiring("dn2"));
            cluster.remove_expired(me);
        }
    }
    cluster.transfer_leadership(me, 1);
}

/// The request `scm2` has in flight when the `restart` plan's actors start: its serial is
/// allocated, signing is under way.
pub fn in_flight(cluster: &Cluster, me: &Actor) -> InFlight {
    cluster.allocate(me, &CertRequest::valid("dn3"))
}

impl Scenario for Hdds16900 {
    type Variant = Variant;
    type Plan = Plan;
    const NAME: &'static str = "hdds-16900";
    const JIRA: &'static str = "HDDS-16900";
    const TITLE: &'static str =
        "primary SCM restart lowers the replicated CertificateId row; serials handed out twice";
    const PROPERTIES: &'static [Property] = &[
        UNIQUE_SERIALS.property(),
        SEQUENCE_ROWS_AGREE.property(),
        NO_REFUSED_REQUEST.property(),
        ROW_COVERS_STORED_SERIALS.property(),
        ROW_ABOVE_LARGEST_AT_STARTUP.required(),
    ];

    fn expected(variant: Variant, plan: Plan) -> Expected {
        const ALL: &[Property] = &[
            UNIQUE_SERIALS.property(),
            SEQUENCE_ROWS_AGREE.property(),
            NO_REFUSED_REQUEST.property(),
        ];
        const TWO: &[Property] = &[UNIQUE_SERIALS.property(), SEQUENCE_ROWS_AGREE.property()];
        use Plan::{Expired, Rejoin, Restart, StoreFails};
        use Variant::{Buggy, NoForcedCall, RaiseOnly, ThroughRatis};
        match (variant, plan) {
            (Buggy, Restart) => Expected::Violates(ALL),
            (Buggy, StoreFails | Expired | Rejoin) => Expected::Violates(TWO),
            // No stored serial is ever above the row on these plans: see the module docs.
            (RaiseOnly | NoForcedCall | ThroughRatis, Restart | StoreFails | Expired | Rejoin) => {
                Expected::Holds
            }
        }
    }

    fn prepare(&self, variant: Variant, plan: Plan, _size: usize) -> Box<dyn Case> {
        Box::new(Prepared {
            upgrade: variant.upgrade(),
            plan,
        })
    }
}

struct Prepared {
    upgrade: Upgrade,
    plan: Plan,
}

impl Case for Prepared {
    fn run(&self, recorder: &Arc<Recorder>) {
        let down: &[&str] = if self.plan == Plan::Rejoin {
            &["scm3"]
        } else {
            &[]
        };
        let cluster = Arc::new(three_scms(recorder, self.upgrade, CHECKS, down));
        let setup_actor = Actor::new("setup", recorder);
        setup(&cluster, &setup_actor, self.plan);
        let pending = (self.plan == Plan::Restart).then(|| in_flight(&cluster, &setup_actor));

        let primary = {
            let (cluster, me) = (Arc::clone(&cluster), Actor::new("primary", recorder));
            thread::spawn("primary", move || {
                cluster.restart(&me, 0);
                cluster.transfer_leadership(&me, 0);
            })
        };
        let plan = self.plan;
        let other = {
            let cluster = Arc::clone(&cluster);
            let name = if plan == Plan::Rejoin {
                "scm3"
            } else {
                "client"
            };
            let me = Actor::new(name, recorder);
            thread::spawn(name, move || match plan {
                Plan::Restart => {
                    if let Some(pending) = pending {
                        cluster.sign_and_store(&me, pending);
                    }
                    cluster.request(&me, &CertRequest::valid("dn4"));
                }
                Plan::StoreFails | Plan::Expired => {
                    cluster.request(&me, &CertRequest::valid("dn3"));
                    cluster.request(&me, &CertRequest::valid("dn4"));
                }
                Plan::Rejoin => {
                    cluster.rejoin(&me, 2);
                    cluster.transfer_leadership(&me, 2);
                    cluster.request(&me, &CertRequest::valid("dn3"));
                }
            })
        };
        primary.join();
        other.join();
        recorder.quiesce();
        let rows = (0..3)
            .map(|i| cluster.scm(i))
            .filter(|scm| scm.is_up())
            .map(|scm| {
                let t = scm.durable();
                (scm.name().to_string(), last_id(&t), largest_serial(&t))
            })
            .collect();
        ROW_COVERS_STORED_SERIALS.check_into(&RowsAtRest(rows), recorder);
    }
}
