//! HDDS-16452 under shuttle.
// Reference: HDDS-16452, seeds/004_f602220297222a8a.txt.

use crate::support::{pct, run};
use ozone_ha_check::engine::run_once;
use ozone_ha_check::explore::Verdict;
use ozone_ha_check::kit::store::{Store, Tables};
use ozone_ha_check::kit::tx_info::stored_index;
use ozone_ha_check::models::scm::inter_scm::download;
use ozone_ha_check::models::scm::state_machine::reference_states;
use ozone_ha_check::models::scm::state_machine::{install_and_catch_up, take_snapshot};
use ozone_ha_check::models::scm::tx_buffer::{FlushPath, TransactionBuffer};
use ozone_ha_check::models::scm::{
    initial_tables, ScmRow, DELETED_BLOCKS_TABLE, SUMMARY_KEY, SUMMARY_TABLE,
};
use ozone_ha_check::recorder::{Actor, Recorder};
use ozone_ha_check::scenario::Scenario;
use ozone_ha_check::scenarios::hdds_16452::{sized_log, Hdds16452};
use ozone_ha_check::sync::Arc;

const S: &str = "hdds-16452";

#[test]
fn guarded_cases_hold_over_many_seeds_with_their_window_reached() {
    for seed in 0..5 {
        for (variant, plan) in [
            ("fixed", "base"),
            ("fixed", "with-leader-change"),
            ("download-guarded", "base"),
        ] {
            let r = run(S, variant, plan, pct(seed, 2_000), None);
            assert_eq!(r.verdict, Verdict::Held, "seed {seed} {variant} {plan}");
            assert!(
                r.probes["FlushDuringApply"] > 0,
                "seed {seed} {variant} {plan}"
            );
        }
    }
}

#[test]
fn the_registered_scenario_is_this_one() {
    assert_eq!(Hdds16452::NAME, S);
}

fn pending(t: &Tables<ScmRow>) -> u64 {
    match t.get(SUMMARY_TABLE, SUMMARY_KEY) {
        Some(ScmRow::Summary { pending_deletes }) => *pending_deletes,
        _ => panic!("no summary row"),
    }
}

/// Begin an apply, stage txID 1 of its two, and download the checkpoint over `path`.
fn download_mid_transaction(path: FlushPath) -> (Arc<Recorder>, Tables<ScmRow>) {
    let rec = Arc::new(Recorder::new(None));
    let (apply, grpc) = (Actor::new("apply", &rec), Actor::new("download", &rec));
    let store = Arc::new(Store::with_state(initial_tables(), None));
    let buffer = TransactionBuffer::new(Arc::clone(&store), 0, 0);
    buffer.begin_applying(&apply);
    buffer.add_to_buffer(
        &apply,
        DELETED_BLOCKS_TABLE,
        "tx1",
        ScmRow::DeletedTxn { blocks: 2 },
    );
    let checkpoint = download(&buffer, &grpc, path);
    (rec, checkpoint)
}

/// The seed's steps 1-2 at their shortest: begin, stage txID 1, the download's flush
/// commits it under TX 0, and the checkpoint ships half a transaction.
#[test]
fn four_steps_unguarded_download_ships_half_a_transaction() {
    run_once(|| {
        let (_rec, checkpoint) = download_mid_transaction(FlushPath::Unguarded);
        assert_eq!(stored_index(&checkpoint), 0);
        assert!(checkpoint.get(DELETED_BLOCKS_TABLE, "tx1").is_some());
        assert!(checkpoint.get(DELETED_BLOCKS_TABLE, "tx2").is_none());
        assert_eq!(pending(&checkpoint), 0);
    });
}

#[test]
fn four_steps_guarded_download_defers_and_ships_the_last_flush() {
    run_once(|| {
        let (rec, checkpoint) = download_mid_transaction(FlushPath::Guarded);
        assert_eq!(checkpoint, initial_tables());
        let out = rec.take();
        assert_eq!(out.probes["FlushDuringApply"], 1);
    });
}

/// The whole apply lands before the flush, the index after it: the follower re-applies
/// index 1 and counts the blocks twice.
#[test]
fn follower_that_installs_data_1_under_tx_0_counts_twice() {
    run_once(|| {
        let rec = Arc::new(Recorder::new(None));
        let (apply, grpc) = (Actor::new("apply", &rec), Actor::new("download", &rec));
        let log = sized_log(1);
        let reference = reference_states(&log);
        let store = Arc::new(Store::with_state(initial_tables(), None));
        let buffer = TransactionBuffer::new(Arc::clone(&store), 0, 0);
        buffer.begin_applying(&apply);
        buffer.add_to_buffer(
            &apply,
            DELETED_BLOCKS_TABLE,
            "tx1",
            ScmRow::DeletedTxn { blocks: 2 },
        );
        buffer.add_to_buffer(
            &apply,
            DELETED_BLOCKS_TABLE,
            "tx2",
            ScmRow::DeletedTxn { blocks: 3 },
        );
        buffer.add_to_buffer(
            &apply,
            SUMMARY_TABLE,
            SUMMARY_KEY,
            ScmRow::Summary { pending_deletes: 5 },
        );
        let checkpoint = download(&buffer, &grpc, FlushPath::Unguarded);
        buffer.update_latest_trx_info(&apply, 0, 1);
        buffer.end_applying(&apply);
        take_snapshot(&buffer, &apply);
        assert_eq!(store.durable(), reference[1]);
        let follower = Store::with_state(initial_tables(), None);
        install_and_catch_up(&follower, checkpoint, &log, &Actor::new("follower", &rec));
        assert_eq!(stored_index(&follower.durable()), 1);
        assert_eq!(pending(&reference[1]), 5);
        assert_eq!(pending(&follower.durable()), 10);
    });
}
