//! Every (variant, plan) of every registered scenario gets its expected verdict under PCT and
//! random exploration, and each expected invariant can be shown broken on its own.

use crate::support::pct;
use ozone_ha_check::engine::Strategy;
use ozone_ha_check::scenarios::all;
use ozone_ha_check::verify::verify_matrix;

#[test]
fn every_case_gets_its_expected_verdict_under_pct() {
    for s in all() {
        verify_matrix(*s, &|| pct(0, 20_000)).unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn every_case_gets_its_expected_verdict_under_random() {
    for s in all() {
        verify_matrix(*s, &|| Strategy::Random {
            seed: 7,
            executions: 20_000,
        })
        .unwrap_or_else(|e| panic!("{e}"));
    }
}
