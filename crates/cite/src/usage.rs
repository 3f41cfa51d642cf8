//! Which cases use which citation: the labels their explored traces print.

use ozone_ha_check::engine::{self, Exploration, Flow, Schedule, Strategy};
use ozone_ha_check::explore::ExploreError;
use ozone_ha_check::recorder::Recorder;
use ozone_ha_check::scenario::Case;
use ozone_ha_check::scenarios;
use ozone_ha_check::sync::ghost::Ghost;
use ozone_ha_check::sync::Arc;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// One (scenario, variant, plan).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct CaseRef {
    /// The scenario's name.
    pub scenario: String,
    /// The variant.
    pub variant: String,
    /// The plan.
    pub plan: String,
}

/// Trace label (a citation id, or a model step's text) -> the cases whose traces print it.
pub type Usage = BTreeMap<String, Vec<CaseRef>>;

/// Runs a case with the trace kept and collects the labels of every execution.
struct Labels {
    case: Box<dyn Case>,
    recorder: Arc<Recorder>,
    seen: Ghost<BTreeSet<String>>,
}

impl Exploration for Labels {
    fn begin(&self) {
        self.recorder.reset();
    }

    fn body(&self) {
        self.case.run(&self.recorder);
    }

    fn end(&self, _schedule: Option<Schedule>) -> Flow {
        let trace = self.recorder.take().trace;
        self.seen
            .with(|s| s.extend(trace.into_iter().map(|e| e.java)));
        Flow::Continue
    }

    fn settled(&self) -> bool {
        false
    }
}

/// Explore every case of every registered scenario with the random scheduler (`executions`
/// executions from `seed`, the trace kept) and collect the label of every step of every
/// execution. A label is used by a case when some explored execution printed it; a path no
/// execution took is not seen. Needs the default (shuttle) build; elsewhere the random
/// engine is missing and the error says how to build it.
///
/// ```
/// # use ozone_ha_check::engine::Strategy;
/// # if (Strategy::Random { seed: 0, executions: 1 }).available() {
/// let usage = ozone_ha_check_cite::usage_from_traces(5, 0).unwrap();
/// assert!(usage["OzoneManagerDoubleBuffer.flushTransactions"]
///     .iter()
///     .any(|c| c.scenario == "hdds-16092"));
/// # }
/// ```
pub fn usage_from_traces(executions: usize, seed: u64) -> Result<Usage, ExploreError> {
    let mut usage = Usage::new();
    for s in scenarios::all() {
        for c in s.cases() {
            let run = Arc::new(Labels {
                case: s.prepare(c.variant, c.plan, None, None)?,
                recorder: Arc::new(Recorder::new(None)),
                seen: Ghost::default(),
            });
            let strategy = Strategy::Random { seed, executions };
            engine::drive(&strategy, Arc::clone(&run) as Arc<dyn Exploration>)
                .map_err(ExploreError::Drive)?;
            for label in run.seen.with(std::mem::take) {
                usage.entry(label).or_default().push(CaseRef {
                    scenario: s.name().to_string(),
                    variant: c.variant.to_string(),
                    plan: c.plan.to_string(),
                });
            }
        }
    }
    Ok(usage)
}
