//! Joining the reports of a run split with `check --shard I/N`.
//!
//! Most items of a split run are in one shard each, and their reports need no joining. The
//! stateful engine on a generated plan is in every shard, each exploring its own part of the
//! workloads ([`crate::workload::Vocabulary::split`]); [`join`] makes the parts' reports of
//! one case one report, whose scope says what the parts together cover:
//!
//! - a violation in any part is the case's violation (the first violating part's
//!   counterexample is kept);
//! - otherwise the case held when the probes it requires fired in some part, and is vacuous
//!   when not;
//! - the search is exhausted only when every one of the N parts is present and exhausted;
//! - the parts missing are named in the scope.
//!
//! Executions, states (and what reached them), what the reductions saved, violations, time
//! and probe hits are summed over the parts (the time is what the parts took together, not
//! the longest of them).

use crate::explore::{Parts, Report, Verdict};
use std::collections::BTreeMap;

/// `reports` with the reports of the parts of one case joined into one, in the place of its
/// first part; every other report as it is.
pub fn join(reports: Vec<Report>) -> Vec<Report> {
    type Key = (
        String,
        String,
        String,
        String,
        Option<usize>,
        Option<String>,
        Option<String>,
    );
    let key = |r: &Report| -> Key {
        (
            r.scenario.clone(),
            r.variant.clone(),
            r.plan.clone(),
            r.engine.to_string(),
            r.size,
            r.bounds.map(|b| format!("{b:?}")),
            r.watched.clone(),
        )
    };
    let mut groups: BTreeMap<Key, Vec<Report>> = BTreeMap::new();
    let mut order: Vec<Result<Key, Report>> = Vec::new();
    for r in reports {
        if r.parts.is_none() {
            order.push(Err(r));
            continue;
        }
        let k = key(&r);
        if !groups.contains_key(&k) {
            order.push(Ok(k.clone()));
        }
        groups.entry(k).or_default().push(r);
    }
    order
        .into_iter()
        .map(|slot| match slot {
            Err(r) => r,
            Ok(k) => join_case(groups.remove(&k).unwrap_or_default()),
        })
        .collect()
}

/// One report of the parts' reports of one case (at least one).
fn join_case(mut parts: Vec<Report>) -> Report {
    parts.sort_by_key(|r| r.parts.as_ref().map(|p| p.present.clone()));
    let count = parts
        .iter()
        .filter_map(|r| r.parts.as_ref().map(|p| p.count))
        .max()
        .unwrap_or(1);
    let mut present: Vec<usize> = parts
        .iter()
        .flat_map(|r| r.parts.iter().flat_map(|p| p.present.clone()))
        .collect();
    present.sort_unstable();
    present.dedup();
    // A part given twice counts once; its workloads too.
    let mut workloads: BTreeMap<usize, u64> = BTreeMap::new();
    for r in &parts {
        if let Some(p) = &r.parts {
            if let [i] = p.present[..] {
                workloads.insert(i, p.workloads);
            }
        }
    }
    let base = parts
        .iter()
        .position(|r| r.verdict == Verdict::Violated)
        .unwrap_or(0);
    let mut out = parts[base].clone();
    out.executions = parts.iter().map(|r| r.executions).sum();
    out.violations = parts.iter().map(|r| r.violations).sum();
    out.elapsed_ms = parts.iter().map(|r| r.elapsed_ms).sum();
    out.states = parts.iter().filter_map(|r| r.states).reduce(|a, b| a + b);
    out.final_states = parts
        .iter()
        .filter_map(|r| r.final_states)
        .reduce(|a, b| a + b);
    out.reduction = parts
        .iter()
        .filter_map(|r| r.reduction)
        .reduce(|a, b| a + b);
    out.walks = parts.iter().filter_map(|r| r.walks).reduce(|a, b| a + b);
    out.witness_search = parts
        .iter()
        .filter_map(|r| r.witness_search)
        .reduce(|a, b| a + b);
    out.state_origins = summed(parts.iter().map(|r| &r.state_origins));
    out.out_of_time = parts.iter().any(|r| r.out_of_time);
    out.probes = summed(parts.iter().map(|r| &r.probes));
    out.probe_executions = summed(parts.iter().map(|r| &r.probe_executions));
    let parts_info = Parts {
        count,
        present: present.clone(),
        workloads: workloads.values().sum(),
    };
    let missing = parts_info.missing();
    out.exhausted = missing.is_empty() && parts.iter().all(|r| r.exhausted);
    if out.verdict != Verdict::Violated {
        let required = crate::scenarios::find(&out.scenario)
            .map(|s| s.required_probes())
            .unwrap_or_default();
        let reached = required
            .iter()
            .all(|p| out.probes.get(*p).copied().unwrap_or(0) > 0);
        out.verdict = if parts.iter().any(|r| r.verdict == Verdict::Held) || reached {
            Verdict::Held
        } else {
            Verdict::Vacuous
        };
    }
    out.scope = Some(statement(&parts, &parts_info, &missing));
    out.settings = match out.settings.split_once(", part ") {
        Some((before, _)) => format!("{before}, in {count} parts"),
        None => out.settings,
    };
    out.parts = Some(parts_info);
    out
}

/// The joined scope: what the parts cover together, and how far.
fn statement(parts: &[Report], info: &Parts, missing: &[usize]) -> String {
    // A part's scope reads "part I/N (W workloads) of <the whole space>".
    let whole = parts
        .iter()
        .filter_map(|r| r.scope.as_deref())
        .map(|s| s.split_once(") of ").map_or(s, |(_, whole)| whole))
        .next()
        .unwrap_or("the generated workloads");
    let list = |parts: &[usize]| {
        parts
            .iter()
            .map(usize::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let n = info.count;
    let mut how = Vec::new();
    if !missing.is_empty() {
        how.push(format!(
            "part{} {} of {n} missing ({} workloads covered)",
            if missing.len() == 1 { "" } else { "s" },
            list(missing),
            info.workloads
        ));
    }
    // A violating part stops at its violation: saying it was not exhausted adds nothing.
    let unfinished: Vec<usize> = parts
        .iter()
        .filter(|r| !r.exhausted && r.verdict != Verdict::Violated)
        .filter_map(|r| r.parts.as_ref().and_then(|p| p.present.first().copied()))
        .collect();
    let violated: Vec<usize> = parts
        .iter()
        .filter(|r| r.verdict == Verdict::Violated)
        .filter_map(|r| r.parts.as_ref().and_then(|p| p.present.first().copied()))
        .collect();
    if !violated.is_empty() {
        how.push(format!("violated in part {}", list(&violated)));
    }
    if unfinished.is_empty() && missing.is_empty() && violated.is_empty() {
        how.push("every part exhausted".into());
    } else if !unfinished.is_empty() {
        how.push(format!("not exhausted in part {}", list(&unfinished)));
    }
    format!("{whole}, in {n} parts: {}", how.join("; "))
}

/// Hits by name, summed.
fn summed<'a>(maps: impl Iterator<Item = &'a BTreeMap<String, u64>>) -> BTreeMap<String, u64> {
    let mut sum = BTreeMap::new();
    for map in maps {
        for (name, n) in map {
            *sum.entry(name.clone()).or_insert(0) += n;
        }
    }
    sum
}
