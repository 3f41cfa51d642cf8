//! HDDS-8036 under shuttle: the fix holds with a put arriving during the download's flush,
//! and, staged step by step, the parent's put into the batch a flush has committed, closed
//! and replaced is lost under a `TransactionInfo` that claims it.
// Reference: HDDS-8036, fix b831d8e6fb1 (PR #4319).

use crate::support::{pct, run};
use ozone_ha_check::engine::{run_once, Strategy};
use ozone_ha_check::explore::Verdict;
use ozone_ha_check::kit::tx_info::stored_index;
use ozone_ha_check::models::scm::tx_buffer::Revision;
use ozone_ha_check::models::scm::{txn_key, ScmRow, DELETED_BLOCKS_TABLE};
use ozone_ha_check::recorder::{Actor, Recorder};
use ozone_ha_check::scenarios::hdds_8036::leader;
use ozone_ha_check::sync::Arc;

const S: &str = "hdds-8036";

fn fixed_holds_over_many_seeds_with_a_put_and_a_flush_during_the_download_flush() {
    for seed in 0..5 {
        for plan in ["download", "save-configuration", "generated"] {
            let r = run(S, "fixed", plan, pct(seed, 2_000), None);
            assert_eq!(r.verdict, Verdict::Held, "seed {seed} {plan}");
            assert!(r.probes["AddDuringFlush"] > 0, "seed {seed} {plan}");
            assert!(r.probes["FlushDuringFlush"] > 0, "seed {seed} {plan}");
        }
    }
}

/// The stateful engine's search over source sets, alone, exhausts the fix on every plan
/// without meeting `AddDuringFlush`: the apply's probe and the flush's count are ordered by
/// no footprint. The search ordering witnesses that `explore` runs after it meets the window
/// within a few executions, so the fix holds, not vacuously.
fn fixed_holds_under_source_sets_once_witnesses_are_ordered() {
    for plan in ["download", "save-configuration", "generated"] {
        let r = run(
            S,
            "fixed",
            plan,
            Strategy::Stateful {
                executions: 100_000,
                part: None,
                deepening: None,
                sources: true,
            },
            None,
        );
        assert_eq!(r.verdict, Verdict::Held, "{plan}");
        assert!(r.exhausted, "{plan}");
        let second = r.witness_search.expect("the probe needs witnesses ordered");
        assert!((1..=100).contains(&second), "{plan}: {second}");
        assert!(r.probes["AddDuringFlush"] > 0, "{plan}");
    }
}

/// The parent's `addToBuffer` reads `currentBatchOperation` (batch 0); the download's whole
/// `flush` runs (stage TX 1, commit, close, new batch 1); the put goes into batch 0. The
/// apply's `updateLatestTrxInfo(2)` and the next flush commit batch 1 with TX 2: the DB
/// claims index 2 without its row, and nothing is staged that would bring it.
fn staged_the_parents_put_after_a_flush_closed_its_batch_is_lost() {
    let _ = (
        &ozone_ha_check::citation::java::hdds_8036_parent::SCMHADBTransactionBufferImpl::addToBuffer,
        &ozone_ha_check::citation::java::hdds_8036_parent::SCMHADBTransactionBufferImpl::flush,
    );
    run_once(|| {
        let rec = Arc::new(Recorder::new(None));
        let me = Actor::new("scm", &rec);
        let buffer = leader(Revision::Hdds8036Parent);
        let read = buffer.current_batch(&me);
        assert_eq!(read, 0);
        buffer.flush(&me, "download");
        assert_eq!(stored_index(&buffer.store().durable()), 1);
        buffer.put_with_batch(
            &me,
            read,
            DELETED_BLOCKS_TABLE,
            &txn_key(1),
            ScmRow::DeletedTxn { blocks: 1 },
        );
        assert!(
            buffer.staged().is_empty(),
            "the put is in no batch a flush will commit"
        );
        buffer.update_latest_trx_info(&me, 1, 2).unwrap();
        buffer.flush(&me, "takeSnapshot");
        let durable = buffer.store().durable();
        assert_eq!(stored_index(&durable), 2);
        assert_eq!(durable.get(DELETED_BLOCKS_TABLE, &txn_key(1)), None);
        let trace = rec.take().trace;
        assert!(trace
            .iter()
            .any(|e| e.action.contains("replaced by a flush: lost")));
    });
}

/// At the fix the put takes the read lock after the flush released the write lock: it reads
/// the new batch, and the next flush commits it under TX 2.
fn staged_the_fixs_put_after_a_flush_lands_in_the_new_batch() {
    let _ = (
        &ozone_ha_check::citation::java::hdds_8036::SCMHADBTransactionBufferImpl::addToBuffer,
        &ozone_ha_check::citation::java::hdds_8036::SCMHADBTransactionBufferImpl::flush,
    );
    run_once(|| {
        let rec = Arc::new(Recorder::new(None));
        let me = Actor::new("scm", &rec);
        let buffer = leader(Revision::Hdds8036);
        buffer.flush(&me, "download");
        buffer.add_to_buffer(
            &me,
            DELETED_BLOCKS_TABLE,
            &txn_key(1),
            ScmRow::DeletedTxn { blocks: 1 },
        );
        assert!(!buffer.staged().is_empty());
        buffer.update_latest_trx_info(&me, 1, 2).unwrap();
        buffer.flush(&me, "takeSnapshot");
        let durable = buffer.store().durable();
        assert_eq!(stored_index(&durable), 2);
        assert_eq!(
            durable.get(DELETED_BLOCKS_TABLE, &txn_key(1)),
            Some(&ScmRow::DeletedTxn { blocks: 1 })
        );
    });
}

/// This module's tests.
pub(crate) fn trials() -> Vec<libtest_mimic::Trial> {
    crate::trials![
        fixed_holds_over_many_seeds_with_a_put_and_a_flush_during_the_download_flush,
        fixed_holds_under_source_sets_once_witnesses_are_ordered,
        staged_the_parents_put_after_a_flush_closed_its_batch_is_lost,
        staged_the_fixs_put_after_a_flush_lands_in_the_new_batch
    ]
}
