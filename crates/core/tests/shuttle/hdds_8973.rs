//! HDDS-8973 under shuttle: the fix holds over seeds with the window reached, and, staged step
//! by step, the parent's failed `allocateBatch` leaves the batch raised so the old leader and
//! the new one hand out the same id, while the fix's leaves it used up; only the SCM that
//! becomes leader invalidates its batch.
// Reference: HDDS-8973, fix 76267a36661 (PR #5018).

use crate::support::{pct, run};
use ozone_ha_check::engine::run_once;
use ozone_ha_check::explore::Verdict;
use ozone_ha_check::models::scm_cert::cluster::Checks;
use ozone_ha_check::models::scm_cert::generator::{Revision, SubmitFailed};
use ozone_ha_check::recorder::{Actor, Recorder};
use ozone_ha_check::scenarios::hdds_8973::cluster;
use ozone_ha_check::sync::Arc;

const S: &str = "hdds-8973";

fn fixed_holds_over_many_seeds_with_a_call_after_a_failed_allocation() {
    for seed in 0..5 {
        for plan in ["transfer", "busy", "generated"] {
            let r = run(S, "fixed", plan, pct(seed, 2_000), None);
            assert_eq!(r.verdict, Verdict::Held, "seed {seed} {plan}");
            assert!(
                r.probes["NextIdAfterFailedAllocation"] > 0,
                "seed {seed} {plan}"
            );
            assert_eq!(
                r.probes["FailedAllocationRaisedLastId"], 0,
                "seed {seed} {plan}"
            );
        }
    }
}

fn batch(c: &ozone_ha_check::models::scm_cert::cluster::Cluster, i: usize) -> (u64, u64) {
    let b = c.scm(i).generator().lock();
    (b.next, b.last)
}

/// The leadership moves to `scm2` after `scm1` admitted a request; `scm1`'s `getNextId`
/// finds its batch `[5, 4]` used up and submits `allocateBatch(4, 6)`, which throws. At the
/// parent the batch is left `[5, 6]`: `scm1`'s next call hands out 5 with no Ratis call, and
/// `scm2`, which allocates `(4, 6)` after its failed `(0, 2)`, hands out 5 too.
fn staged_the_parents_failed_allocation_leaves_a_range_the_new_leader_hands_out_again() {
    let _ = (
        &ozone_ha_check::citation::java::hdds_8973_parent::SequenceIdGenerator::getNextId,
        &ozone_ha_check::citation::java::hdds_8973_parent::SCMRatisServerImpl::submitRequest,
    );
    run_once(|| {
        let rec = Arc::new(Recorder::new(None));
        let me = Actor::new("test", &rec);
        let c = cluster(&rec, Revision::Hdds8973Parent, Checks::NONE);
        assert_eq!(batch(&c, 0), (5, 4));
        assert!(c.admit(&me, 0, "rpc1"));
        c.transfer_leadership(&me, 1);
        assert!(matches!(
            c.allocate_block(&me, 0, "rpc1"),
            Err(SubmitFailed(_))
        ));
        assert_eq!(batch(&c, 0), (5, 6), "lastId raised before the call");
        assert_eq!(c.allocate_block(&me, 0, "rpc2"), Ok(5));
        assert_eq!(c.allocate_block(&me, 1, "client"), Ok(5));
        rec.quiesce();
        let fives: Vec<String> = (c.book().handed_out.settled(&rec).into_iter())
            .filter(|(serial, _)| *serial == 5)
            .map(|(_, to)| to)
            .collect();
        assert_eq!(fives, ["client", "rpc2"]);
    });
}

/// At the fix the same failed submission leaves `[5, 4]`: `scm1`'s next call submits
/// again and throws again, and the new leader's 5 is the only one.
fn staged_the_fixs_failed_allocation_leaves_the_batch_used_up() {
    let _ = &ozone_ha_check::citation::java::hdds_8973::SequenceIdGenerator::getNextId;
    run_once(|| {
        let rec = Arc::new(Recorder::new(None));
        let me = Actor::new("test", &rec);
        let c = cluster(&rec, Revision::Hdds8973, Checks::NONE);
        c.transfer_leadership(&me, 1);
        assert!(c.allocate_block(&me, 0, "rpc1").is_err());
        assert_eq!(batch(&c, 0), (5, 4));
        assert!(c.allocate_block(&me, 0, "rpc2").is_err());
        assert_eq!(c.allocate_block(&me, 1, "client"), Ok(5));
    });
}

/// `notifyLeaderChanged` invalidates the batch of the SCM that becomes leader only; the old
/// leader's stays as it was (`nextId` 6 of `[5, 6]` here), and the RPC's entry check is what
/// refuses a request arriving after the switch.
fn staged_only_the_new_leader_invalidates_its_batch_and_the_entry_check_refuses_on_the_old() {
    let _ = (
        &ozone_ha_check::citation::java::hdds_8973_parent::SCMStateMachine::notifyLeaderChanged,
        &ozone_ha_check::citation::java::hdds_8973_parent::SequenceIdGenerator::invalidateBatch,
        &ozone_ha_check::citation::java::hdds_8973_parent::StorageContainerManager::checkLeader,
    );
    run_once(|| {
        let rec = Arc::new(Recorder::new(None));
        let me = Actor::new("test", &rec);
        let c = cluster(&rec, Revision::Hdds8973Parent, Checks::NONE);
        c.transfer_leadership(&me, 1);
        c.transfer_leadership(&me, 0);
        // scm1 led, then scm2, then scm1 again: both invalidated once when they became leader.
        assert_eq!(batch(&c, 0), (5, 4));
        assert_eq!(c.allocate_block(&me, 0, "rpc"), Ok(5));
        assert_eq!(batch(&c, 0), (6, 6));
        c.transfer_leadership(&me, 1);
        assert_eq!(batch(&c, 0), (6, 6), "the old leader's batch is kept");
        assert!(!c.admit(&me, 0, "late"));
        assert!(c.admit(&me, 1, "late"));
    });
}

/// The `busy` plan's refused submission on a leader that stays leader: at the parent the
/// same SCM hands out the raised range, then reallocates it after its compare-and-set fails
/// against its own map, and hands out 5 again.
fn staged_the_parents_refused_submission_on_a_leader_hands_out_an_id_twice() {
    run_once(|| {
        let rec = Arc::new(Recorder::new(None));
        let me = Actor::new("test", &rec);
        let c = cluster(&rec, Revision::Hdds8973Parent, Checks::NONE);
        c.refuse_next_submissions(1);
        assert!(c.allocate_block(&me, 0, "a").is_err());
        assert_eq!(c.allocate_block(&me, 0, "b"), Ok(5));
        assert_eq!(c.allocate_block(&me, 0, "c"), Ok(6));
        assert_eq!(c.allocate_block(&me, 0, "d"), Ok(5));
    });
}

/// A new leader whose generator never allocated (a fresh `Batch`: `lastId` 0,
/// SequenceIdGenerator.java:76-80 at the parent) submits `allocateBatch(0, 2)` first; at the
/// parent a refusal of it leaves `[1, 2]`, and the next call hands out 1, far below the
/// replicated row (the generated plan's stateful counterexample). At the fix it leaves
/// `[1, 0]` and the next call submits again.
fn staged_a_new_leaders_refused_first_submission_hands_out_ids_below_the_row() {
    let _ = (
        &ozone_ha_check::citation::java::hdds_8973_parent::SequenceIdGenerator::getNextId,
        &ozone_ha_check::citation::java::hdds_8973::SequenceIdGenerator::getNextId,
    );
    // The parent hands out 1 from the raised batch; the fix submits again, its
    // compare-and-set fails (the map holds 4), it reloads 4 and hands out 5.
    for (revision, second) in [(Revision::Hdds8973Parent, 1), (Revision::Hdds8973, 5)] {
        run_once(move || {
            let rec = Arc::new(Recorder::new(None));
            let me = Actor::new("test", &rec);
            let c = cluster(&rec, revision, Checks::NONE);
            c.transfer_leadership(&me, 1);
            assert_eq!(batch(&c, 1), (1, 0), "a fresh batch, invalidated");
            c.refuse_next_submissions(1);
            assert!(c.allocate_block(&me, 1, "a").is_err());
            assert_eq!(c.allocate_block(&me, 1, "b"), Ok(second));
        });
    }
}

/// The generated plan's space and how a workload meets the run: allocations before the
/// first fault in the setup, the faults in one block on `admin`, the rest shared by the two
/// handlers.
fn the_generated_workloads_take_the_written_plans_shape() {
    use ozone_ha_check::scenarios::hdds_8973::{Drawn, Shape, VOCABULARY};
    assert_eq!(VOCABULARY.count(VOCABULARY.bounds), 63);
    let shape = |text: &str| Shape::of(&VOCABULARY.parse(text).unwrap());
    assert_eq!(
        shape("allocate transfer refuse allocate allocate"),
        Shape {
            setup: 1,
            faults: vec![Drawn::Transfer, Drawn::Refuse],
            racing: 2
        }
    );
    assert_eq!(
        shape("allocate allocate"),
        Shape {
            setup: 0,
            faults: vec![],
            racing: 2
        }
    );
    // A request between two faults is not drawn.
    let split = VOCABULARY.parse("transfer allocate refuse").unwrap();
    assert_eq!(VOCABULARY.encode(&split, VOCABULARY.bounds), None);
}

/// This module's tests.
pub(crate) fn trials() -> Vec<libtest_mimic::Trial> {
    crate::trials![
        fixed_holds_over_many_seeds_with_a_call_after_a_failed_allocation,
        staged_the_parents_failed_allocation_leaves_a_range_the_new_leader_hands_out_again,
        staged_the_fixs_failed_allocation_leaves_the_batch_used_up,
        staged_only_the_new_leader_invalidates_its_batch_and_the_entry_check_refuses_on_the_old,
        staged_the_parents_refused_submission_on_a_leader_hands_out_an_id_twice,
        staged_a_new_leaders_refused_first_submission_hands_out_ids_below_the_row,
        the_generated_workloads_take_the_written_plans_shape
    ]
}
