//! HDDS-7279 under shuttle: both fixes hold with the create swapped together with the key
//! write, and the parent's one batch checkpoints the DB without the key.
// Reference: HDDS-7279, fix 6fe2ab80115 (PR #3958); HDDS-7906, 4d09962a659.

use crate::support::{pct, run};
use ozone_ha_check::engine::run_once;
use ozone_ha_check::explore::Verdict;
use ozone_ha_check::kit::raft_log::Payload;
use ozone_ha_check::kit::store::Store;
use ozone_ha_check::kit::tx_info::stored_index;
use ozone_ha_check::models::om::snapshot::node::SnapshotOm;
use ozone_ha_check::models::om::snapshot::{Dirs, Snapshots};
use ozone_ha_check::models::om::OPEN_KEY_TABLE;
use ozone_ha_check::recorder::{Actor, Recorder};
use ozone_ha_check::scenarios::hdds_7279::{create_log, Variant};
use ozone_ha_check::sync::Arc;

const S: &str = "hdds-7279";

fn both_fixes_hold_over_many_seeds_with_the_create_swapped_with_the_key() {
    for seed in 0..5 {
        for variant in ["fixed", "split-at-create"] {
            for plan in ["one-om", "two-oms"] {
                let r = run(S, variant, plan, pct(seed, 2_000), None);
                assert_eq!(r.verdict, Verdict::Held, "seed {seed} {variant} {plan}");
                assert!(r.probes["CreateSwappedWithEarlier"] > 0, "{variant} {plan}");
            }
        }
    }
}

/// Both entries applied before the first swap. Returns whether the snapshot holds k1, and
/// its `TransactionInfo`.
fn create_swapped_with_the_key(variant: Variant) -> (bool, u64) {
    let out = std::sync::Arc::new(std::sync::Mutex::new((false, 0)));
    let seen = std::sync::Arc::clone(&out);
    run_once(move || {
        let rec = Arc::new(Recorder::new(None));
        let me = Actor::new("om", &rec);
        let dirs = Arc::new(Dirs::new([]));
        let store = Arc::new(Store::with_state(Default::default(), None));
        let snaps = Snapshots::new(Arc::clone(&dirs), [], &[], variant.java(), variant.cites());
        let om = SnapshotOm::new(store, snaps, false);
        let log = create_log();
        for entry in log.after(0) {
            if let Payload::Data(request) = &entry.payload {
                assert!(om.apply(&me, entry.index, entry.term, request));
            }
        }
        om.flush_thread(&me, log.last_index());
        let s1 = dirs.content("s1").expect("the snapshot was created");
        *seen.lock().unwrap() = (s1.get(OPEN_KEY_TABLE, "k1").is_some(), stored_index(&s1));
    });
    let result = *out.lock().unwrap();
    result
}

fn the_parents_single_batch_checkpoints_without_the_earlier_entry() {
    assert_eq!(create_swapped_with_the_key(Variant::Buggy), (false, 0));
    assert_eq!(create_swapped_with_the_key(Variant::Fixed), (true, 2));
    assert_eq!(
        create_swapped_with_the_key(Variant::SplitAtCreate),
        (true, 2)
    );
}

/// This module's tests.
pub(crate) fn trials() -> Vec<libtest_mimic::Trial> {
    crate::trials![
        both_fixes_hold_over_many_seeds_with_the_create_swapped_with_the_key,
        the_parents_single_batch_checkpoints_without_the_earlier_entry
    ]
}
