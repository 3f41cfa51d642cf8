//! Every (variant, plan) of every registered scenario gets its expected verdict under PCT and
//! random exploration, and each expected invariant can be shown broken on its own.

use crate::support::{assert_matrix, pct};
use ozone_ha_check::scenario::all;
use ozone_ha_check::sync::drive::Strategy;

#[test]
fn every_case_gets_its_expected_verdict_under_pct() {
    for s in all() {
        assert_matrix(s.info().name, || pct(0, 20_000));
    }
}

#[test]
fn every_case_gets_its_expected_verdict_under_random() {
    for s in all() {
        assert_matrix(s.info().name, || Strategy::Random {
            seed: 7,
            executions: 20_000,
        });
    }
}
