//! Probes that fire too easily would turn a vacuous run into a "held": for every holding
//! case, each required probe fires in some explored executions and stays silent in others,
//! and the serial schedule (no preemption at all) of every case shows which probes need a
//! race to fire. The exceptions are declared by each scenario (`Scenario::BY_CONSTRUCTION`),
//! and every declared one must be a required probe of its scenario.

use ozone_ha_check::engine::Strategy;
use ozone_ha_check::explore::{explore, Report, Request};
use ozone_ha_check::scenario::Expected;
use ozone_ha_check::scenarios::{all, AnyScenario, CaseName};

/// Whether `probe` is one of `s`'s required probes whose window a plan sets up by
/// construction: declared beside the scenario, with why
/// ([`Scenario::BY_CONSTRUCTION`](ozone_ha_check::scenario::Scenario::BY_CONSTRUCTION)). Such
/// a probe may fire on the serial schedule and in every execution of its plans.
fn by_construction(s: &dyn AnyScenario, probe: &str) -> bool {
    s.fires_by_construction(probe)
}

fn run(s: &dyn AnyScenario, c: CaseName, strategy: Strategy) -> Report {
    explore(
        s,
        &Request::new(c.variant, c.plan, strategy).stop_at_first(false),
    )
    .unwrap_or_else(|e| panic!("{} {}/{}: {e}", s.name(), c.variant, c.plan))
}

fn required_probes_fire_in_some_executions_and_not_in_others() {
    let mut failures = Vec::new();
    for s in all() {
        for c in s.cases() {
            if s.expected(c.variant, c.plan) != Ok(Expected::Holds) {
                continue;
            }
            let r = run(
                *s,
                c,
                Strategy::Pct {
                    seed: 0,
                    depth: 3,
                    executions: 2_000,
                },
            );
            for probe in s.required_probes() {
                let fired = r.probe_executions[probe];
                let every = fired as usize >= r.executions && !by_construction(*s, probe);
                if fired == 0 || every {
                    failures.push(format!(
                        "{} {}/{}: {probe} fired in {fired} of {} executions",
                        s.name(),
                        c.variant,
                        c.plan,
                        r.executions
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn every_probe_is_silent_on_some_schedule() {
    let mut failures = Vec::new();
    for s in all() {
        let mut silent = std::collections::BTreeSet::new();
        for c in s.cases() {
            // The serial schedule, then a sample of random ones.
            let serial = run(
                *s,
                c,
                Strategy::Guided {
                    switches: vec![],
                    values: vec![],
                },
            );
            let random = run(
                *s,
                c,
                Strategy::Random {
                    seed: 3,
                    executions: 200,
                },
            );
            for p in s.probes() {
                if serial.probe_executions[p.name] == 0
                    || (random.probe_executions[p.name] as usize) < random.executions
                {
                    silent.insert(p.name);
                }
            }
        }
        for p in s.probes() {
            if !silent.contains(p.name) && !by_construction(*s, p.name) {
                failures.push(format!("{}: {} fires in every execution", s.name(), p.name));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn window_probes_need_a_race_on_the_serial_schedule() {
    // A required probe that the serial schedule (no preemption at all) of a holding case
    // fires must be one whose window the plan sets up by construction.
    let mut fired = Vec::new();
    for s in all() {
        for c in s.cases() {
            if s.expected(c.variant, c.plan) != Ok(Expected::Holds) {
                continue;
            }
            let serial = run(
                *s,
                c,
                Strategy::Guided {
                    switches: vec![],
                    values: vec![],
                },
            );
            for probe in s.required_probes() {
                if serial.probe_executions[probe] > 0 && !by_construction(*s, probe) {
                    fired.push(format!("{} {}/{} {probe}", s.name(), c.variant, c.plan));
                }
            }
        }
    }
    assert!(
        fired.is_empty(),
        "required probes fired on the serial schedule: {fired:?}"
    );
}

fn declared_by_construction_probes_are_required_ones() {
    let mut failures = Vec::new();
    for s in all() {
        for b in s.by_construction() {
            if !s.required_probes().contains(&b.probe.name) {
                failures.push(format!(
                    "{}: {} is not a required probe",
                    s.name(),
                    b.probe.name
                ));
            }
            if b.why.is_empty() {
                failures.push(format!("{}: {} says not why", s.name(), b.probe.name));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// This module's tests.
pub(crate) fn trials() -> Vec<libtest_mimic::Trial> {
    crate::trials![
        required_probes_fire_in_some_executions_and_not_in_others,
        every_probe_is_silent_on_some_schedule,
        window_probes_need_a_race_on_the_serial_schedule,
        declared_by_construction_probes_are_required_ones
    ]
}
