//! HDDS-8973: an SCM whose replicated `allocateBatch` throws keeps the batch it raised
//! before the call, hands out ids no replica allocated, and the new leader (or the same SCM
//! once the range is allocated again) hands out the same ids.
//!
//! Buggy: the Java at 76267a36661^ (7e8460913b4); fixed: at the fix 76267a36661 (PR #5018),
//! which assigns the batch's `lastId` only once `allocateBatch` returned true. Model: the
//! shared generator of [`crate::models::scm_cert`] at
//! [`Revision::Hdds8973Parent`] and [`Revision::Hdds8973`] (the pinned revision, which
//! HDDS-16900 runs, keeps the fix's order). Historical citations: `@hdds-8973-parent`,
//! `@hdds-8973` in `citations.toml`.
//!
//! # The race
//!
//! At the parent,
//! [`getNextId`](crate::citation::java::hdds_8973_parent::SequenceIdGenerator::getNextId)
//! (SequenceIdGenerator.java:112-148), under the generator's lock, hands out `nextId++` while
//! `nextId <= lastId` (:118-119) with no Ratis call. When the batch is used up it sets
//! `nextId = prevLastId + 1` (:125), **raises `batch.lastId` by the batch size** (:128-129),
//! and only then submits `allocateBatch(prevLastId, lastId)` (:131-132), a `@Replicate`
//! DIRECT call: [`SCMHAInvocationHandler.invokeRatisImpl`](crate::citation::java::hdds_8973_parent::SCMHAInvocationHandler::invokeRatisImpl)
//! throws the reply's exception (SCMHAInvocationHandler.java:143-147) when
//! [`SCMRatisServerImpl.submitRequest`](crate::citation::java::hdds_8973_parent::SCMRatisServerImpl::submitRequest)
//! (SCMRatisServerImpl.java:215-234) gets a failed reply. The exception leaves `getNextId`
//! through its `finally` (:145-147): the lock is released with the batch `[prev + 1, prev +
//! size]`, which no replica allocated. Step by step (batch size 2, the `transfer` plan):
//!
//! 1. `scm1` leads; its batch `[3, 4]` is used up (`nextId` 5, `lastId` 4; every row 4).
//! 2. Two block allocations (`rpc1`, `rpc2`) pass the leadership check at the RPC's entry on
//!    `scm1`: [`ScmBlockLocationProtocolServerSideTranslatorPB.send`](crate::citation::java::hdds_8973_parent::ScmBlockLocationProtocolServerSideTranslatorPB::send)
//!    (ScmBlockLocationProtocolServerSideTranslatorPB.java:105-118, the check at :108) calls
//!    [`StorageContainerManager.checkLeader`](crate::citation::java::hdds_8973_parent::StorageContainerManager::checkLeader)
//!    (StorageContainerManager.java:1873-1883) once; nothing on the path below it
//!    ([`SCMBlockProtocolServer.allocateBlock`](crate::citation::java::hdds_8973_parent::SCMBlockProtocolServer::allocateBlock),
//!    `BlockManagerImpl.allocateBlock`,
//!    [`newBlock`](crate::citation::java::hdds_8973_parent::BlockManagerImpl::newBlock)'s
//!    `getNextId(LOCAL_ID)`, BlockManagerImpl.java:184-205) checks it again.
//! 3. The admin transfers the leadership to `scm2`.
//! 4. `rpc1`'s `getNextId` raises `lastId` to 6 and submits `allocateBatch(4, 6)` on
//!    `scm1`, which is no longer the leader: `NotLeaderException`, nothing appended. The batch
//!    is left `[5, 6]`.
//! 5. `rpc2`'s `getNextId` finds `nextId 5 <= lastId 6` and hands out 5, with no Ratis call.
//! 6. `scm2`'s `notifyLeaderChanged` invalidated its batch; its first allocation submits
//!    `allocateBatch(0, 2)`, which fails (its map holds 4), reloads 4 and commits
//!    `allocateBatch(4, 6)`: it hands out 5. Block id 5 is handed out twice (`UniqueIds`).
//!
//! The fix (SequenceIdGenerator.java:134-139 at 76267a36661) computes `nextLastId` and
//! assigns it only after `allocateBatch` returned true: the exception leaves `[5, 4]`, so
//! `rpc2`'s call submits again and throws again.
//!
//! Nothing resets the old leader's batch: [`notifyLeaderChanged`](crate::citation::java::hdds_8973_parent::SCMStateMachine::notifyLeaderChanged)
//! (SCMStateMachine.java:276-304) returns at :285-288 on an SCM that is not the new leader,
//! and calls [`invalidateBatch`](crate::citation::java::hdds_8973_parent::SequenceIdGenerator::invalidateBatch)
//! (:294; SequenceIdGenerator.java:154-162: `nextId = lastId + 1`, `lastId` kept) only on the
//! one that becomes leader; [`notifyNotLeader`](crate::citation::java::hdds_8973_parent::SCMStateMachine::notifyNotLeader)
//! (:206-214) only updates the `SCMContext`. So the stale range on the old leader lasts until
//! it leads again (then `invalidateBatch` makes its next call submit `allocateBatch` from the
//! raised `lastId`, whose compare-and-set fails against the map and reloads: harmless). What
//! serves it meanwhile is every request admitted before the leadership moved: each RPC
//! handler checks once at the entry, and a block allocation RPC asks for `num` blocks in one
//! loop (SCMBlockProtocolServer.java:192-198), which an exception ends.
//!
//! # Where the commit story differs from the code
//!
//! The title speaks of a leadership transfer, and the fix's test makes `allocateBatch` throw
//! `SCM_NOT_LEADER`. The Java's window is any exception of the submission with nothing
//! appended, and a leader that stays leader reaches it too: Ratis refuses a write when the
//! leader's pending-request permits are taken (`ResourceUnavailableException`,
//! `RaftServerImpl.appendTransaction`, RaftServerImpl.java:882-884 and :897-899 at the pinned
//! Ratis 37932bf6011). Then no new leader is needed (plan `busy`): the same SCM hands out the
//! stale `[5, 6]`, its next allocation submits `allocateBatch(6, 8)`, whose compare-and-set
//! fails against its own map (4), reloads 4, commits `allocateBatch(4, 6)`, and hands out 5
//! a second time. That plan breaks in every execution: no interleaving is needed, only the
//! refused submission.
//!
//! # Plans
//!
//! | plan | setup (actor `setup`) | actors |
//! |---|---|---|
//! | `transfer` | `scm1` leads and hands out 3 and 4 (its batch `[3, 4]`) | `rpc1`, `rpc2`: one block allocation each on `scm1` (the entry check, then `getNextId`); `admin`: transfers the leadership to `scm2`, then a block allocation on `scm2` |
//! | `busy` | as `transfer`; then `scm1` refuses its next submission | `rpc1`, `rpc2`: two block allocations each on `scm1` |
//! | `generated` | as `transfer`; then the workload's allocations before its first fault, sent to `scm1` (at most three requests and two faults of [`VOCABULARY`] by default, 63 workloads) | `admin`: the faults in order; `rpc1`, `rpc2`: the allocations after the faults (all of them without a fault), dealt in turn; `client`: one more allocation, always (see "Generated workloads") |
//!
//! # Generated workloads (`generated`)
//!
//! [`VOCABULARY`] has no universes: an allocation goes to the SCM its client reads as the
//! leader (the failover proxy's guess, read one step before the RPC's entry check), and a
//! transfer to the other of `scm1` and `scm2`.
//!
//! | word | Java | what it does |
//! |---|---|---|
//! | `allocate` | [`ScmBlockLocationProtocolServerSideTranslatorPB.send`](crate::citation::java::hdds_8973_parent::ScmBlockLocationProtocolServerSideTranslatorPB::send), [`BlockManagerImpl.newBlock`](crate::citation::java::hdds_8973_parent::BlockManagerImpl::newBlock) | the entry's `checkLeader` (refused if the leadership moved since the client read it), then `getNextId(LOCAL_ID)`, an `allocateBatch` through Ratis when the batch is used up |
//! | `transfer` (fault) | [`SCMClientProtocolServer.transferLeadership`](crate::citation::java::SCMClientProtocolServer::transferLeadership) | from the leader to the other of `scm1` and `scm2`; the transferee's `notifyLeaderChanged` invalidates its batch, the old leader's `allocateBatch` throws `NotLeaderException` from then on |
//! | `refuse` (fault) | [`SCMRatisServerImpl.submitRequest`](crate::citation::java::hdds_8973_parent::SCMRatisServerImpl::submitRequest) | the leader's Ratis refuses its next write with nothing appended (`ResourceUnavailableException`, RaftServerImpl.java:882-884 and :897-899 at the pinned Ratis): that `allocateBatch` throws |
//!
//! The shape is the written plans': the setup (`scm1` leads and has handed out 3 and 4),
//! then the allocations drawn before the first fault, sequentially on `scm1`. The faults come
//! in one block and run in order on `admin`, racing the allocations drawn after them, which
//! the handlers `rpc1` and `rpc2` share in turn (the first, third, ... to `rpc1`). A `client`
//! actor always sends one more allocation, racing the rest: every workload then races two
//! actors at least (PCT needs a scheduling choice in its first execution), and a duplicate
//! needs one drawn request fewer.
//!
//! Verdicts (the default budget, random and PCT 2,000 executions at depth 3; `UniqueIds`
//! watched alone over seeds 0..20, worst and median executions to it; the stateful engine
//! at 551c89d, with a 300 s budget):
//!
//! | variant | random | PCT | stateful |
//! |---|---|---|---|
//! | `buggy` | breaks `UniqueIds`: worst 116, median 53 | worst 61, median 12.5 | at execution 64 |
//! | `fixed` | holds (20 seeds of 10,000 executions, `NextIdAfterFailedAllocation` in 19% to 21% of them) | holds (20 seeds of 10,000, the window in 15% to 17%) | holds in 3,244,364 executions (300 s, 3,075,535 states, not exhausted; `NextIdAfterFailedAllocation` in 332,194 of them) |
//!
//! Random and PCT minimize to `refuse allocate allocate allocate`, the `busy` plan with the
//! client's allocation as the fourth. What the space adds to the written plans: the new
//! leader's own first submission. An SCM whose generator never allocated in this JVM (a fresh
//! `Batch`, `lastId` 0: SequenceIdGenerator.java:76-80 at the parent) submits
//! `allocateBatch(0, 2)` first when it becomes leader; at the parent a refusal of it leaves
//! the batch `[1, 2]` (:124-132), and the next call hands out 1 (:118-119), below every
//! replicated row (the stateful engine's counterexample: `allocate allocate transfer refuse
//! allocate`, `scm2` leads, its `allocateBatch(0 -> 2)` is refused, the client gets 1, which
//! the initial row 2 counts as handed out). For `localId` the row starts at next year's
//! epoch milliseconds shifted by 16 bits (`upgradeToSequenceId`, :346-353), so its ids from 1
//! up repeat only when a second new leader does the same; `containerId` and `delTxnId`
//! (`ContainerManagerImpl.java:238`, `DeletedBlockLogImpl.java:386` at the parent) start at
//! the largest existing id (:358-380), so their ids from 1 up are the cluster's earliest
//! containers and deleted-block transactions. The fix's order leaves `[1, 0]` and
//! the next call submits again (staged test
//! `staged_a_new_leaders_refused_first_submission_hands_out_ids_below_the_row`).
//!
//! Left out of the vocabulary: a restart or kill of an SCM (a restarted SCM's generator is a
//! new `Batch` at `lastId` 0, so a restart drops a raised range rather than making one, and
//! the model's primary start runs HDDS-16900's forced write on the same row, a different
//! bug); a transfer to `scm3` (symmetric to `scm2` but for the names); a timeout of
//! `submitRequest` (see the table below); `getNextId` for several sequences (one
//! sequence's lock and batch are what race).
//!
//! # Properties
//!
//! `UniqueIds`, checked when a generator hands out an id: no id is handed out twice across
//! the cluster (ids 1 and 2 count as handed out: the initial row is 2). Probes:
//! `NextIdAfterFailedAllocation` (required): a `getNextId` ran on an SCM whose previous
//! `allocateBatch` submission threw, before any `invalidateBatch` (the window; reached by
//! both variants); `FailedAllocationRaisedLastId`: the failed submission left `lastId` above
//! the allocated row (the parent only).
//!
//! # Abstractions
//!
//! | abstraction | why no verdict depends on it |
//! |---|---|
//! | the model's one sequence (its row is the `CertificateId` row of [`crate::models::scm_cert`]) stands for `localId`, with batch size 2 (`ozone.scm.sequence.id.batch.size`, default 1000) | the window is `[prev + 1, prev + size]` for any size; `rootCertificateId`'s size 1 leaves one id |
//! | a refused submission appends nothing | Ratis's `NotLeaderException` for an entry already appended (a leader that steps down with it pending) may still commit under the new leader; then the range is allocated and its ids are not handed out again (the new leader starts above it), so the duplicate needs the refusal before the append, which both `NotLeaderException` on a follower and `ResourceUnavailableException` are |
//! | the leadership check at the entry is one step reading the model's leader | `isLeaderReady` turns false when the old leader steps down, before any submission of it is refused |
//! | one block per RPC; the container choice, pipelines and safe mode left out | only `getNextId` touches the sequence; an RPC's loop over `num` blocks ends at the first exception |
//! | `rpc1`, `rpc2` stand for RPC handler threads; the new leader's request is served by the admin's actor after the transfer | a request refused at the entry would fail over to the new leader, which only adds handouts from the new leader's own allocations |
//! | the SCMs' certificate tables, `upgradeToSequenceId`, the transaction buffer's flushes | no plan restarts an SCM; the rows move only through `allocateBatch` |
//! | a timeout of `submitRequest` (`requestTimeout`) is not a plan | the entry is appended and may commit later: if it commits, its range is allocated; if it does not, the leader changed, which `transfer` covers |

use crate::choices;
use crate::citation::Label;
use crate::models::scm::tx_buffer;
use crate::models::scm_cert::cluster::{Checks, Cluster, Handout};
use crate::models::scm_cert::generator::{
    Revision, FAILED_ALLOCATION_RAISED_LAST_ID, NEXT_ID_AFTER_FAILED_ALLOCATION,
};
use crate::models::scm_cert::scm::Upgrade;
use crate::properties::{Invariant, Probe, Property};
use crate::recorder::{Actor, Recorder};
use crate::scenario::{Budget, ByConstruction, Case, Expected, Scenario};
use crate::scenarios::hdds_16900::three_scms;
use crate::sync::{thread, Arc};
use crate::workload::{Bounds, Item, Kind, Vocabulary, Word, Workload};

/// The scenario.
#[derive(Debug, Clone, Copy)]
pub struct Hdds8973;

/// The batch size of the modelled sequence.
pub const BATCH_SIZE: u64 = 2;

choices! {
    /// Where `getNextId` assigns the batch's `lastId`.
    pub enum Variant {
        /// 76267a36661^: lastId raised before the replicated allocateBatch
        Buggy = "buggy",
        /// 76267a36661: lastId assigned once allocateBatch returned true
        Fixed = "fixed",
    }
}

choices! {
    /// What makes the submission throw.
    pub enum Plan {
        /// two block allocations admitted on scm1 race the transfer of the leadership to scm2 and a block allocation there
        Transfer = "transfer",
        /// scm1 stays leader and refuses one submission (no pending-request permit); two actors allocate two blocks each
        Busy = "busy",
        /// every workload of the vocabulary within the bounds: block allocations sent to the leader, leadership transfers between scm1 and scm2, a refused submission; one more allocation by a client, racing
        Generated = "generated",
    }
}

impl Variant {
    /// The generator's Java revision.
    pub fn revision(self) -> Revision {
        match self {
            Variant::Buggy => Revision::Hdds8973Parent,
            Variant::Fixed => Revision::Hdds8973,
        }
    }
}

/// No id is handed out twice.
pub const UNIQUE_IDS: Invariant<Handout> = Invariant::always(
    "UniqueIds",
    "no sequence id is handed out twice across the SCMs",
    "Two blocks get the same local id (two containers' blocks collide, or one container's block is overwritten), or two deleted-block transactions or containers the same id.",
    |h| match &h.before {
        None => Ok(()),
        Some(before) => Err(format!(
            "id {} handed out to {} was already handed out to {before}",
            h.serial, h.to
        )),
    },
);

/// The invariants, plugged into the cluster.
pub const CHECKS: Checks = Checks {
    handout: |h, r| {
        UNIQUE_IDS.check_into(h, r);
    },
    ..Checks::NONE
};

/// `scm1`, `scm2`, `scm3` at row 2, `scm1` leading, the generator at `revision` with batch
/// size [`BATCH_SIZE`]; `scm1` hands out 3 and 4 (its first call's `allocateBatch(0, 2)` fails
/// and reloads 2, then `allocateBatch(2, 4)`), which uses its batch up.
pub fn cluster(recorder: &Arc<Recorder>, revision: Revision, checks: Checks) -> Cluster {
    let cluster = three_scms(recorder, Upgrade::Forced, checks, &[]).at(revision, BATCH_SIZE);
    let me = Actor::new("setup", recorder);
    for _ in 0..2 {
        cluster
            .allocate_block(&me, 0, "setup")
            .unwrap_or_else(|e| panic!("model error: the setup's leader refuses: {e:?}"));
    }
    cluster
}

/// A block allocation RPC of `who` on SCM `i`: the entry check, then `getNextId`; the id,
/// or `None` if it was refused or threw.
pub fn block_rpc(cluster: &Cluster, me: &Actor, i: usize, who: &str) -> Option<u64> {
    if !cluster.admit(me, i, who) {
        return None;
    }
    cluster.allocate_block(me, i, who).ok()
}

impl Scenario for Hdds8973 {
    type Variant = Variant;
    type Plan = Plan;
    const NAME: &'static str = "hdds-8973";
    const JIRA: &'static str = "HDDS-8973";
    const TITLE: &'static str =
        "a failed allocateBatch leaves the SCM's batch raised; ids handed out twice";
    const PROPERTIES: &'static [Property] = &[
        UNIQUE_IDS.property(),
        NEXT_ID_AFTER_FAILED_ALLOCATION.required(),
        FAILED_ALLOCATION_RAISED_LAST_ID.property(),
    ];
    const MODEL_PROBES: &'static [&'static [Probe]] = &[tx_buffer::PROBES];
    const VOCABULARY: Option<Vocabulary> = Some(VOCABULARY);
    const BY_CONSTRUCTION: &'static [ByConstruction] = &[ByConstruction {
        probe: NEXT_ID_AFTER_FAILED_ALLOCATION,
        why:
            "busy: the plan refuses a submission and three more allocations follow on the same SCM",
    }];

    /// A uniformly random walk reaches `transfer`'s duplicate late (worst of 20 seeds: 4,638
    /// executions), so its random runs get 20,000.
    fn plan_executions(plan: Plan) -> Budget {
        match plan {
            Plan::Transfer => Budget {
                random: 20_000,
                ..Self::EXECUTIONS
            },
            // `generated`: UniqueIds over seeds 0..20 needs at most 116 random and 61 PCT
            // executions.
            Plan::Busy | Plan::Generated => Self::EXECUTIONS,
        }
    }

    fn expected(variant: Variant, plan: Plan) -> Expected {
        const DUPLICATE: &[Property] = &[UNIQUE_IDS.property()];
        match (variant, plan) {
            (Variant::Buggy, Plan::Transfer | Plan::Busy) => Expected::Violates(DUPLICATE),
            (Variant::Fixed, Plan::Transfer | Plan::Busy) => Expected::Holds,
            // Every workload of the vocabulary (module docs, "Generated workloads").
            (Variant::Buggy, Plan::Generated) => Expected::Violates(DUPLICATE),
            (Variant::Fixed, Plan::Generated) => Expected::Holds,
        }
    }

    fn prepare(&self, variant: Variant, plan: Plan, _size: usize) -> Box<dyn Case> {
        if plan == Plan::Generated {
            return Box::new(GeneratedCase {
                revision: variant.revision(),
                bounds: VOCABULARY.bounds,
            });
        }
        Box::new(Prepared {
            revision: variant.revision(),
            plan,
        })
    }

    fn prepare_generated(
        &self,
        variant: Variant,
        bounds: Bounds,
        _size: usize,
    ) -> Option<Box<dyn Case>> {
        Some(Box::new(GeneratedCase {
            revision: variant.revision(),
            bounds,
        }))
    }
}

struct Prepared {
    revision: Revision,
    plan: Plan,
}

impl Case for Prepared {
    fn run(&self, recorder: &Arc<Recorder>) {
        let cluster = Arc::new(cluster(recorder, self.revision, CHECKS));
        let plan = self.plan;
        if plan == Plan::Busy {
            cluster.refuse_next_submissions(1);
        }
        let rpcs = if plan == Plan::Busy { 2 } else { 1 };
        let handler = |name: &'static str| {
            let cluster = Arc::clone(&cluster);
            let me = Actor::new(name, recorder);
            thread::spawn(name, move || {
                for _ in 0..rpcs {
                    block_rpc(&cluster, &me, 0, name);
                }
            })
        };
        let rpc1 = handler("rpc1");
        let rpc2 = handler("rpc2");
        let admin = (plan == Plan::Transfer).then(|| {
            let cluster = Arc::clone(&cluster);
            let me = Actor::new("admin", recorder);
            thread::spawn("admin", move || {
                cluster.transfer_leadership(&me, 1);
                block_rpc(&cluster, &me, 1, "client-of-scm2");
            })
        });
        rpc1.join();
        rpc2.join();
        if let Some(admin) = admin {
            admin.join();
        }
        recorder.quiesce();
    }
}

/// The words of a generated workload (`generated`): the block allocations the modelled
/// `getNextId` path serves and what makes their `allocateBatch` throw. No universes: a
/// request goes to the SCM its client believes leads, a transfer to the other of `scm1` and
/// `scm2`.
pub const VOCABULARY: Vocabulary = Vocabulary {
    universes: &[],
    words: &[
        Word {
            name: "allocate",
            kind: Kind::Request,
            args: &[],
            doc: "a block allocation RPC to the SCM the client believes leads: ScmBlockLocationProtocolServerSideTranslatorPB.send checks StorageContainerManager.checkLeader once at the entry (refused there if the leadership moved), then BlockManagerImpl.newBlock's SequenceIdGenerator.getNextId(LOCAL_ID), an allocateBatch through Ratis when the batch is used up",
        },
        Word {
            name: "transfer",
            kind: Kind::Fault,
            args: &[],
            doc: "the admin's leadership transfer (SCMClientProtocolServer.transferLeadership) from the leader to the other of scm1 and scm2: the transferee's SCMStateMachine.notifyLeaderChanged invalidates its batch, the old leader's allocateBatch throws NotLeaderException from then on",
        },
        Word {
            name: "refuse",
            kind: Kind::Fault,
            args: &[],
            doc: "the leader's Ratis refuses its next write with nothing appended (RaftServerImpl.appendTransaction's ResourceUnavailableException when the pending-request permits are taken): that allocateBatch throws",
        },
    ],
    bounds: Bounds {
        requests: 3,
        faults: 2,
    },
    allowed: faults_in_one_block,
};

/// One item of a generated workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Drawn {
    /// `allocate`.
    Allocate,
    /// `transfer`.
    Transfer,
    /// `refuse`.
    Refuse,
}

impl Drawn {
    fn of(item: &Item) -> Drawn {
        match VOCABULARY.words[item.word].name {
            "allocate" => Drawn::Allocate,
            "transfer" => Drawn::Transfer,
            _ => Drawn::Refuse,
        }
    }
}

/// The faults run in order on one actor, racing the requests after them: they come in one
/// block (a request between two faults would be one more racing request, which the block's
/// position already draws).
fn faults_in_one_block(prefix: &[Item], item: &Item) -> bool {
    if Drawn::of(item) == Drawn::Allocate {
        return true;
    }
    let faulted = prefix.iter().any(|i| Drawn::of(i) != Drawn::Allocate);
    !faulted
        || prefix
            .last()
            .is_some_and(|i| Drawn::of(i) != Drawn::Allocate)
}

/// A workload as the run meets it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Shape {
    /// Allocations before the first fault, served by `scm1` in the sequential setup.
    pub setup: usize,
    /// The faults, in order, run by the `admin` actor.
    pub faults: Vec<Drawn>,
    /// The allocations after the faults (all of them without a fault), dealt in turn to
    /// the handlers `rpc1` and `rpc2`, racing the faults.
    pub racing: usize,
}

impl Shape {
    /// The shape of `workload`.
    pub fn of(workload: &Workload) -> Shape {
        let mut shape = Shape::default();
        let faulted = workload
            .items
            .iter()
            .any(|i| Drawn::of(i) != Drawn::Allocate);
        for item in &workload.items {
            match Drawn::of(item) {
                Drawn::Allocate if faulted && shape.faults.is_empty() => shape.setup += 1,
                Drawn::Allocate => shape.racing += 1,
                fault => shape.faults.push(fault),
            }
        }
        shape
    }
}

/// A block allocation of `who` sent to the SCM it reads as the leader (the client's
/// failover proxy), then [`block_rpc`] there.
fn to_leader(cluster: &Cluster, me: &Actor, who: &str) -> Option<u64> {
    let leader = cluster.leader();
    block_rpc(cluster, me, leader, who)
}

/// The `generated` case of one variant.
struct GeneratedCase {
    revision: Revision,
    bounds: Bounds,
}

impl Case for GeneratedCase {
    fn run(&self, recorder: &Arc<Recorder>) {
        // Drawn before anything is spawned, and shown first in the trace.
        let setup_actor = Actor::new("setup", recorder);
        let workload = VOCABULARY.draw_shown(self.bounds, &setup_actor);
        let shape = Shape::of(&workload);
        // As in the written plans: scm1 leads and has handed out 3 and 4.
        let cluster = Arc::new(cluster(recorder, self.revision, CHECKS));
        for _ in 0..shape.setup {
            to_leader(&cluster, &setup_actor, "setup");
        }
        let admin = (!shape.faults.is_empty()).then(|| {
            let cluster = Arc::clone(&cluster);
            let me = Actor::new("admin", recorder);
            let faults = shape.faults.clone();
            thread::spawn("admin", move || {
                for fault in faults {
                    if fault == Drawn::Transfer {
                        // Between scm1 and scm2; only this actor moves the leadership.
                        let to = 1 - cluster.leader().min(1);
                        cluster.transfer_leadership(&me, to);
                    } else {
                        cluster.refuse_next_submissions(1);
                        me.step(
                            Label::model("the leader's Ratis is out of pending-request permits"),
                            "its next submission is refused",
                        );
                    }
                }
            })
        });
        let handlers: Vec<_> = ["rpc1", "rpc2"]
            .into_iter()
            .enumerate()
            .filter(|(k, _)| *k < shape.racing)
            .map(|(k, name)| {
                let cluster = Arc::clone(&cluster);
                let me = Actor::new(name, recorder);
                // Requests dealt in turn: rpc1 the first, third, ...
                let n = (shape.racing + 1 - k) / 2;
                thread::spawn(name, move || {
                    for _ in 0..n {
                        to_leader(&cluster, &me, name);
                    }
                })
            })
            .collect();
        // One more allocation, always, racing the rest: every workload then races two
        // actors at least (PCT needs a scheduling choice in its first execution).
        let client = {
            let cluster = Arc::clone(&cluster);
            let me = Actor::new("client", recorder);
            thread::spawn("client", move || {
                to_leader(&cluster, &me, "client");
            })
        };
        for h in handlers {
            h.join();
        }
        if let Some(a) = admin {
            a.join();
        }
        client.join();
        recorder.quiesce();
    }
}
