//! Every (variant, plan) of every registered scenario gets its expected verdict under PCT and
//! random exploration, and each expected invariant can be shown broken on its own.

use crate::support::pct;
use ozone_ha_check::engine::Strategy;
use ozone_ha_check::scenarios::all;
use ozone_ha_check::verify::verify_matrix;

/// Executions per case: 20,000, or `OHC_MATRIX_EXECUTIONS` (ci/mutants.sh runs the suite
/// once per mutant at `check`'s default budget of 2,000); at least a scenario's own budget.
fn executions() -> usize {
    std::env::var("OHC_MATRIX_EXECUTIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000)
}

#[test]
fn every_case_gets_its_expected_verdict_under_pct() {
    for s in all() {
        let n = executions().max(s.executions().unwrap_or(0));
        verify_matrix(*s, &|| pct(0, n)).unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn every_case_gets_its_expected_verdict_under_random() {
    for s in all() {
        let n = executions().max(s.executions().unwrap_or(0));
        verify_matrix(*s, &|| Strategy::Random {
            seed: 7,
            executions: n,
        })
        .unwrap_or_else(|e| panic!("{e}"));
    }
}
