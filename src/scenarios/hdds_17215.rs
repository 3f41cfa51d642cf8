//! HDDS-17215: OMs call a shared external S3 secret store while applying, so a late OM
//! diverges from the leader and a store failure terminates the OM.
//!
//! Seed: `seeds/001_faf9eec80e528ec4.txt`; grounding §4. Java: `S3SecretManagerImpl`,
//! `S3SecretLockedManager`, `InMemoryS3SecretCache`, `VaultS3SecretStore`
//! ([`crate::models::s3_secret`], [`crate::kit::external_store`]), the five requests
//! ([`crate::models::s3_secret::requests`]), `OzoneManagerDoubleBuffer`,
//! `OzoneManagerStateMachine.runCommand` / `processResponse`
//! ([`crate::models::s3_secret::node`]).
//!
//! # Plans
//!
//! Every log begins with the term's configuration entry at index 1, so that the data entries
//! have the seed's indices 2..; it carries no S3 state and the OMs skip it.
//!
//! | plan | log | threads | then `main` |
//! |---|---|---|---|
//! | `lagging-follower` | 2 `TenantAssign u1` (S2), 3 `TenantRevoke u1`, 4 `TenantAssign u1` (S4); store empty | `om1` (leader: applies and flushes each entry, and replicates it to om2), `om2` (applies and flushes what it received) | restarts every terminated OM, which replays after its stored index |
//! | `crash-replay` | 2 `RevokeSecret u1`, 3 `SetSecret u1` (set-by-another-caller), 4 `GetSecret u1` (S4); store holds u1 = S0 | `apply`, `flush` of one OM; after the last apply the OM crashes (responses not swapped are lost) | restarts the OM, which replays after its stored index |
//! | `apply-vs-flush` | 2 `GetSecret u1` (S2), 3 `RevokeSecret u1`, 4 `GetSecret u1` (S4); store empty | `apply`, `flush` of one OM | an orderly stop flushes what is left |
//! | `store-failure` | 2 `TenantAssign u1` (S2), 3 `GetSecret u2` (S3); store empty; one store call fails | `om1` (as above), `om2-apply`, `om2-flush` | stops om2 in order, restarts every terminated OM |
//!
//! In `store-failure` the failing call is the first one om2 makes (its apply-time read for
//! the assign). In `leader-side` om2 makes no store calls at all, so the plan fails the
//! leader's store write for the same assign instead (om1's second call, in `preExecute`).
//!
//! At most three threads and `main` per plan (loom's limit is four). Left out for that: a
//! third OM, a separate flush thread for the OMs of `lagging-follower` and for `om1` (their
//! flush keeps up with their apply), a crash inside a flush between the store calls and the
//! batch commit (the path the seed gives for a single OM without HDDS-17214's patch), leader
//! changes, and so entries that never commit (the reconciliation of `leader-side` never has
//! work in these plans).
//!
//! # Variants
//!
//! - `buggy`: the Java today (apply-time store calls of `S3GetSecretRequest` and of every
//!   cache miss, flush-time `storeSecret` / `revokeSecret` of the others; without the patch
//!   of HDDS-17214).
//! - `index-per-secret`: the store keeps the log index with each secret and refuses a write
//!   or a delete from a lower index.
//! - `leader-side`: the leader calls the store once in `preExecute` and puts its decision in
//!   the entry; applying only updates caches and the OM's DB; a store failure is a clean
//!   error and the entry is not replicated.
//!
//! # What the model shows
//!
//! `buggy` breaks all three invariants as the seed says (`StoreHoldsIssuedSecret` not on
//! `store-failure`: om2 fails before it writes anything, so only om1 writes the store). On
//! `lagging-follower` om2 applies index 2 after om1 flushed it (the store holds S2), rejects the assign with
//! TENANT_USER_ACCESS_ID_ALREADY_EXISTS, flushes that, and the NPE of index 3 terminates it;
//! the restart replays index 3 and terminates again. On `crash-replay` the OM flushes the
//! revoke, rejects the set, the getsecret stores S4 at apply time and is answered; the crash
//! loses 3 and 4, and the replay of 3 finds S4 in the store, accepts the set and overwrites
//! the issued secret. On `store-failure` om2's failed read becomes INTERNAL_ERROR; when its
//! error response is flushed before the termination, the restart resumes after index 2 and
//! om2 has skipped the assign om1 applied (symptom 2, which the seed only argued); when it
//! is not flushed first, the restart replays index 2 against the store that om1 has written
//! since, and rejects the assign as a lagging follower does: either way the replicas differ.
//!
//! The reorder the grounding note inferred is confirmed on `apply-vs-flush`: revoke(3) finds
//! u1 cached (S2, not yet evicted) and writes a tombstone; getsecret(4) hits the tombstone,
//! stores S4 at once and answers S4; the flush of 3 then calls `revokeSecret` and deletes S4
//! (probes `TombstoneThenStoreWrite` and `FlushRevokesNewerSecret`). The model also finds a
//! second path the note did not list: when the flush of 2 has evicted u1 before revoke(3)
//! is applied, the revoke finds u1 only in the store and writes no tombstone, getsecret(4)
//! misses the cache, reads S2 from the store (the revoke is not flushed yet) and answers S2,
//! and the flush of 3 deletes S2.
//!
//! `index-per-secret` disagrees with the expectation that it holds `StoreHoldsIssuedSecret`
//! on the overwrite plans: it refuses the seed's overwrite (the replayed set at index 3
//! cannot replace S4 at index 4) and the tombstone path of the reorder, but two other paths
//! remain, because neither is an overwrite. On `apply-vs-flush` the second path above
//! deletes S2 at index 2 by a revoke at index 3, which the index allows. On `crash-replay`
//! the OM accepts the set while the revoke is neither cached nor flushed (the store still
//! holds S0), answers the getsecret from the cache with the set's value, then the crash
//! loses the set's flush-time `storeSecret` (nothing was flushed); the replayed revoke
//! deletes S0, the replayed set is rejected, and the replayed getsecret stores S4, a secret
//! no client was given. Both are a late decision, not a late write; the verdicts are pinned
//! in `expected`. It still
//! violates `ReplicasAgree` on `lagging-follower`, as the seed predicts, and
//! `StoreHoldsIssuedSecret` there too when the leader is the OM that lags (Raft lets a
//! follower apply first): om2 applies 2, 3, 4 and stores S4 at index 4; om1 then rejects
//! index 4 (the store holds S4) and answers the client with an error, while S4 stays.
//!
//! `ReplicasAgree`, `StoreHoldsIssuedSecret` and `NoOmTermination` are checked once every OM
//! has stopped, restarted and replayed.
//!
//! `leader-side` holds every invariant on every plan, with `LateApply` fired: an OM applied
//! or flushed an entry after the store had served a call for a later one.

use crate::choices;
use crate::cite::Label;
use crate::kit::external_store::Fault;
use crate::kit::raft_log::{Payload, RaftLog};
use crate::kit::store::Tables;
use crate::kit::tx_info::TxRow;
use crate::models::s3_secret::node::{
    fresh_db, restart_and_replay, Om, Shared, ERROR_FLUSHED, FLUSH_REVOKES_NEWER_SECRET,
    LATE_APPLY, STALE_WRITE_REFUSED, TOMBSTONE_THEN_STORE_WRITE,
};
use crate::models::s3_secret::requests::S3Request;
use crate::models::s3_secret::{initial_tables, AccessId, Design, Row, Secret, StoredSecret};
use crate::properties::{check_all, Invariant, Property};
use crate::recorder::{Actor, Recorder};
use crate::scenario::{Case, Expected, Scenario};
use crate::sync::{channel, thread, Arc};
use std::collections::BTreeMap;

/// The scenario.
#[derive(Debug, Clone, Copy)]
pub struct Hdds17215;

/// The secret the seed's set writes.
pub const SET_BY_ANOTHER_CALLER: Secret = Secret("set-by-another-caller-0123456789");

choices! {
    /// Where the OMs call the shared store.
    pub enum Variant {
        /// the Java today: every OM calls the shared store while applying and at flush time
        Buggy = "buggy",
        /// the store keeps the log index with each secret and refuses older writes and deletes
        IndexPerSecret = "index-per-secret",
        /// the leader calls the store once in preExecute; applying updates caches and the DB only
        LeaderSide = "leader-side",
    }
}

choices! {
    /// The log, the OMs and the fault.
    pub enum Plan {
        /// assign, tenant revoke, assign again; a follower applies behind the leader
        LaggingFollower = "lagging-follower",
        /// revoke, set, getsecret on one OM that crashes before flushing and replays
        CrashReplay = "crash-replay",
        /// getsecret, revoke, getsecret on one OM whose flush trails its apply
        ApplyVsFlush = "apply-vs-flush",
        /// assign and getsecret on two OMs; one store call fails
        StoreFailure = "store-failure",
    }
}

impl Variant {
    /// The design the variant stands for.
    pub fn design(self) -> Design {
        match self {
            Variant::Buggy => Design::PerOm,
            Variant::IndexPerSecret => Design::IndexPerSecret,
            Variant::LeaderSide => Design::LeaderSide,
        }
    }
}

/// The state at the end of a plan.
pub struct Final {
    /// Every OM's DB.
    pub replicas: Vec<(&'static str, Tables<Row>)>,
    /// The external store.
    pub store: BTreeMap<String, StoredSecret>,
    /// What the clients were last told per id.
    pub issued: BTreeMap<AccessId, Option<Secret>>,
    /// Every termination.
    pub terminations: Vec<String>,
}

/// All OMs end with the same tables.
pub const REPLICAS_AGREE: Invariant<Final> = Invariant::eventually(
    "ReplicasAgree",
    "all OMs end with the same tables (TransactionInfo aside)",
    |f| {
        let Some((first, tables)) = f.replicas.first() else {
            return Ok(());
        };
        for (name, other) in &f.replicas[1..] {
            if let Some(d) = other
                .without(Row::TABLE)
                .diff(&tables.without(Row::TABLE))
                .first()
            {
                return Err(format!("{name} vs {first}: {d}"));
            }
        }
        Ok(())
    },
);

/// The store holds what the clients were told.
pub const STORE_HOLDS_ISSUED_SECRET: Invariant<Final> = Invariant::eventually(
    "StoreHoldsIssuedSecret",
    "the store holds the secret the leader returned (nothing after a revoke)",
    |f| {
        for (id, told) in &f.issued {
            let held = f.store.get(*id).map(|s| s.secret);
            if held != *told {
                let show = |s: Option<Secret>| s.map_or("nothing".to_string(), |s| s.to_string());
                return Err(format!(
                    "clients were told {id} = {}, the store holds {}",
                    show(*told),
                    show(held)
                ));
            }
        }
        Ok(())
    },
);

/// No OM terminates.
pub const NO_OM_TERMINATION: Invariant<Final> =
    Invariant::eventually("NoOmTermination", "no OM terminates", |f| {
        match f.terminations.first() {
            None => Ok(()),
            Some(t) => Err(format!(
                "{} termination(s), first {t}",
                f.terminations.len()
            )),
        }
    });

const FINAL: &[Invariant<Final>] = &[REPLICAS_AGREE, STORE_HOLDS_ISSUED_SECRET, NO_OM_TERMINATION];

fn data(log: &mut RaftLog<S3Request>, requests: &[S3Request]) {
    log.start_term(1);
    for r in requests {
        log.append(*r);
    }
}

impl Plan {
    /// The plan's log.
    pub fn log(self) -> RaftLog<S3Request> {
        let mut log = RaftLog::new();
        let u1 = "u1";
        match self {
            Plan::LaggingFollower => data(
                &mut log,
                &[
                    S3Request::TenantAssign {
                        id: u1,
                        tenant: "t1",
                        secret: Secret("S2"),
                    },
                    S3Request::TenantRevoke { id: u1 },
                    S3Request::TenantAssign {
                        id: u1,
                        tenant: "t1",
                        secret: Secret("S4"),
                    },
                ],
            ),
            Plan::CrashReplay => data(
                &mut log,
                &[
                    S3Request::RevokeSecret { id: u1 },
                    S3Request::SetSecret {
                        id: u1,
                        secret: SET_BY_ANOTHER_CALLER,
                    },
                    S3Request::GetSecret {
                        id: u1,
                        secret: Secret("S4"),
                    },
                ],
            ),
            Plan::ApplyVsFlush => data(
                &mut log,
                &[
                    S3Request::GetSecret {
                        id: u1,
                        secret: Secret("S2"),
                    },
                    S3Request::RevokeSecret { id: u1 },
                    S3Request::GetSecret {
                        id: u1,
                        secret: Secret("S4"),
                    },
                ],
            ),
            Plan::StoreFailure => data(
                &mut log,
                &[
                    S3Request::TenantAssign {
                        id: u1,
                        tenant: "t1",
                        secret: Secret("S2"),
                    },
                    S3Request::GetSecret {
                        id: "u2",
                        secret: Secret("S3"),
                    },
                ],
            ),
        }
        log
    }

    /// The OMs' shared state at the start: the store's rows, the fault, what clients hold.
    pub fn shared(self, design: Design) -> Shared {
        match self {
            Plan::CrashReplay => Shared::new(
                design,
                &[(
                    "u1",
                    StoredSecret {
                        secret: Secret("S0"),
                        index: 0,
                    },
                )],
                None,
                &[("u1", Some(Secret("S0")))],
            ),
            Plan::StoreFailure => {
                let fault = if design == Design::LeaderSide {
                    Fault {
                        caller: "om1",
                        nth: 2,
                    }
                } else {
                    Fault {
                        caller: "om2",
                        nth: 1,
                    }
                };
                Shared::new(design, &[], Some(fault), &[])
            }
            _ => Shared::new(design, &[], None, &[]),
        }
    }
}

impl Scenario for Hdds17215 {
    type Variant = Variant;
    type Plan = Plan;
    const NAME: &'static str = "hdds-17215";
    const JIRA: &'static str = "HDDS-17215";
    const TITLE: &'static str = "OMs apply against one shared external S3 secret store";
    const PROPERTIES: &'static [Property] = &[
        REPLICAS_AGREE.property(),
        STORE_HOLDS_ISSUED_SECRET.property(),
        NO_OM_TERMINATION.property(),
        LATE_APPLY.required(),
        TOMBSTONE_THEN_STORE_WRITE.property(),
        FLUSH_REVOKES_NEWER_SECRET.property(),
        STALE_WRITE_REFUSED.property(),
        ERROR_FLUSHED.property(),
    ];

    fn expected(variant: Variant, plan: Plan) -> Expected {
        const ALL: &[Property] = &[
            REPLICAS_AGREE.property(),
            STORE_HOLDS_ISSUED_SECRET.property(),
            NO_OM_TERMINATION.property(),
        ];
        const DIVERGE_AND_TERMINATE: &[Property] =
            &[REPLICAS_AGREE.property(), NO_OM_TERMINATION.property()];
        const SECRET_LOST: &[Property] = &[STORE_HOLDS_ISSUED_SECRET.property()];
        use Plan::{ApplyVsFlush, CrashReplay, LaggingFollower, StoreFailure};
        use Variant::{Buggy, IndexPerSecret, LeaderSide};
        match (variant, plan) {
            (LeaderSide, LaggingFollower | CrashReplay | ApplyVsFlush | StoreFailure) => {
                Expected::Holds
            }
            (Buggy | IndexPerSecret, LaggingFollower) => Expected::Violates(ALL),
            // om2 fails before it writes anything: the store is om1's alone.
            (Buggy | IndexPerSecret, StoreFailure) => Expected::Violates(DIVERGE_AND_TERMINATE),
            // index-per-secret too: see "What the model shows".
            (Buggy | IndexPerSecret, CrashReplay | ApplyVsFlush) => Expected::Violates(SECRET_LOST),
        }
    }

    fn prepare(&self, variant: Variant, plan: Plan, _size: usize) -> Box<dyn Case> {
        Box::new(Prepared {
            design: variant.design(),
            plan,
            log: Arc::new(plan.log()),
        })
    }
}

struct Prepared {
    design: Design,
    plan: Plan,
    log: Arc<RaftLog<S3Request>>,
}

type Entry = (u64, S3Request);

fn entries(log: &RaftLog<S3Request>) -> Vec<Entry> {
    log.after(0)
        .filter_map(|e| match &e.payload {
            Payload::Data(r) => Some((e.index, *r)),
            Payload::Configuration => None,
        })
        .collect()
}

/// The leader: `preExecute` (`leader-side` only), replicate to `follower`, apply and flush.
fn leader_thread(
    om: &Om,
    me: &Actor,
    design: Design,
    log: &[Entry],
    follower: &channel::Sender<Entry>,
) {
    let mut view = initial_tables();
    let mut alive = true;
    for (index, request) in log {
        if design == Design::LeaderSide {
            om.pre_execute(me, *index, request);
        }
        follower.send((*index, *request));
        if alive {
            alive = om.apply_and_flush(me, &mut view, *index, request);
        }
    }
}

impl Case for Prepared {
    fn run(&self, recorder: &Arc<Recorder>) {
        let shared = Arc::new(self.plan.shared(self.design));
        let log = Arc::new(entries(&self.log));
        let design = self.design;
        let mut oms: Vec<Arc<Om>> = Vec::new();
        let main = Actor::new("main", recorder);
        match self.plan {
            Plan::LaggingFollower | Plan::StoreFailure => {
                let om1 = Arc::new(Om::new("om1", true, Arc::clone(&shared), fresh_db()));
                let om2 = Arc::new(Om::new("om2", false, Arc::clone(&shared), fresh_db()));
                let (to_om2, from_om1) = channel::unbounded::<Entry>();
                let leader = {
                    let (om, log, me) = (
                        Arc::clone(&om1),
                        Arc::clone(&log),
                        Actor::new("om1", recorder),
                    );
                    thread::spawn("om1", move || {
                        leader_thread(&om, &me, design, &log, &to_om2)
                    })
                };
                let split = self.plan == Plan::StoreFailure;
                let flush = split.then(|| {
                    let (om, me) = (Arc::clone(&om2), Actor::new("om2-flush", recorder));
                    thread::spawn("om2-flush", move || om.flush_thread(&me))
                });
                let follower = {
                    let (om, me) = (
                        Arc::clone(&om2),
                        Actor::new(if split { "om2-apply" } else { "om2" }, recorder),
                    );
                    thread::spawn("om2", move || {
                        let mut view = initial_tables();
                        let mut alive = true;
                        while let Some((index, request)) = from_om1.recv() {
                            if alive {
                                alive = if split {
                                    om.apply_and_queue(&me, &mut view, index, &request)
                                } else {
                                    om.apply_and_flush(&me, &mut view, index, &request)
                                };
                            }
                        }
                        if split && alive {
                            om.stop(&me, "orderly stop");
                        }
                    })
                };
                leader.join();
                follower.join();
                if let Some(f) = flush {
                    f.join();
                }
                if split && !om2.terminated() {
                    let rest = om2.take_unflushed();
                    if let Err(why) = om2.flush(&main, rest) {
                        om2.terminate(&main, &why);
                    }
                }
                oms.push(om1);
                oms.push(om2);
            }
            Plan::CrashReplay | Plan::ApplyVsFlush => {
                let om = Arc::new(Om::new("om1", true, Arc::clone(&shared), fresh_db()));
                let crash = self.plan == Plan::CrashReplay;
                let flush = {
                    let (om, me) = (Arc::clone(&om), Actor::new("flush", recorder));
                    thread::spawn("flush", move || om.flush_thread(&me))
                };
                let apply = {
                    let (om, log, me) = (
                        Arc::clone(&om),
                        Arc::clone(&log),
                        Actor::new("apply", recorder),
                    );
                    thread::spawn("apply", move || {
                        let mut view = initial_tables();
                        for (index, request) in log.iter() {
                            if design == Design::LeaderSide {
                                om.pre_execute(&me, *index, request);
                            }
                            if !om.apply_and_queue(&me, &mut view, *index, request) {
                                return;
                            }
                        }
                        om.stop(&me, if crash { "crash" } else { "orderly stop" });
                    })
                };
                apply.join();
                flush.join();
                if !crash && !om.terminated() {
                    let rest = om.take_unflushed();
                    if let Err(why) = om.flush(&main, rest) {
                        om.terminate(&main, &why);
                    }
                }
                if crash {
                    let db = Arc::clone(om.db());
                    let me = Actor::new("restart", recorder);
                    oms.push(Arc::new(restart_and_replay(
                        "om1", &shared, &db, &self.log, &me,
                    )));
                } else {
                    oms.push(om);
                }
            }
        }
        recorder.quiesce();
        // Every terminated OM restarts once and replays after its stored index.
        let me = Actor::new("restart", recorder);
        for om in &mut oms {
            if om.terminated() {
                let db = Arc::clone(om.db());
                *om = Arc::new(restart_and_replay(om.name(), &shared, &db, &self.log, &me));
            }
        }
        let state = Final {
            replicas: oms
                .iter()
                .map(|om| (om.name(), om.db().durable()))
                .collect(),
            store: shared.store().rows(),
            issued: shared.issued(),
            terminations: shared.terminations(),
        };
        main.step(
            Label::model("final state"),
            format!(
                "store {:?}; clients told {:?}",
                state
                    .store
                    .iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>(),
                state.issued
            ),
        );
        check_all(FINAL, &state, recorder);
    }
}
