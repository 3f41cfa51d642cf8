//! The section of `bench/RESULTS.md` for the holding cases proven only given longer than the
//! exhaustion table's box: each exhausted by the stateful engine's unbounded search over
//! source sets, as the nightly `long-proofs` job runs it again. `ci/exhaustion.py` measures
//! them into `bench/exhaustion-long.json`; [`render`] writes the section, between [`BEGIN`]
//! and [`END`].

use super::exhaustion::{head, thousands, time_box, with_states, Case};
use std::fmt::Write as _;

/// Start of the section.
pub const BEGIN: &str = "<!-- long proofs: begin (ci/exhaustion.py, exhaustion-long.json) -->";
/// End of the section.
pub const END: &str = "<!-- long proofs: end -->";

/// The section, markers included, from the cases measured.
pub fn render(cases: &[Case]) -> String {
    let mut out = format!(
        "{BEGIN}\n\n## Holding cases proven given longer\n\n\
         Made by `ci/exhaustion.py --no-loom --unbounded-only --source-sets`{}: the stateful \
         engine's unbounded search over source sets, alone, on the holding cases the table \
         above leaves unexhausted. The nightly job \
         `long-proofs` runs each again, boxed at 90 minutes, and fails when one breaks or is \
         no longer exhausted. Each cell gives the executions and time, the states the \
         executions passed and the distinct final states they ended in, with the executions \
         per final state: 1.00 is one execution per class of complete executions, the least \
         a reduction that keeps those classes apart can run.\n\n",
        match time_box(cases) {
            0 => String::new(),
            stopped => format!(" (a box stopped a case at {stopped} s)"),
        }
    );
    head(
        &mut out,
        &["scenario", "variant", "plan", "stateful engine"].map(String::from),
    );
    let mut executions = 0;
    let mut ms = 0;
    for case in cases {
        let run = case.at("stateful");
        executions += run.map_or(0, |r| r.executions);
        ms += run.map_or(0, |r| r.ms);
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            case.scenario,
            case.variant,
            case.plan,
            with_states(run)
        );
    }
    let _ = writeln!(
        out,
        "\n{} cases, {} executions in {:.0} s in all.\n\n{END}",
        cases.len(),
        thousands(executions),
        ms as f64 / 1000.0
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::exhaustion::Run;

    fn case(variant: &str, exhausted: bool) -> Case {
        Case {
            scenario: "hdds-16900".into(),
            variant: variant.into(),
            plan: "first-start".into(),
            expected: "holds".into(),
            runs: vec![Run {
                bound: "stateful".into(),
                verdict: "held".into(),
                executions: 1_387_978,
                exhausted,
                ms: 1_358_000,
                first_violation: None,
                points: 334.0,
                states: Some(108_488_962),
                final_states: Some(1_387_978),
                reduction: None,
                walks: None,
                alone: true,
                sources: true,
                requests: None,
                faults: None,
            }],
            proven: None,
        }
    }

    #[test]
    fn each_case_is_a_row_with_its_final_states_and_the_total_follows() {
        let md = render(&[case("buggy", true), case("through-ratis", false)]);
        assert!(
            md.starts_with(BEGIN) && md.trim_end().ends_with(END),
            "{md}"
        );
        assert!(md.contains("(a box stopped a case at 1358 s)"), "{md}");
        assert!(!render(&[case("buggy", true)]).contains("a box stopped"));
        assert!(
            md.contains(
                "| hdds-16900 | buggy | first-start | 1,387,978 in 1358.0 s (108,488,962 \
                 states, 0.01 per state, 1,387,978 final, 1.00 per final state) |"
            ),
            "{md}"
        );
        assert!(
            md.contains("| through-ratis | first-start | > 1,387,978 (not done in 1358 s) |"),
            "{md}"
        );
        assert!(
            md.contains("2 cases, 2,775,956 executions in 2716 s in all."),
            "{md}"
        );
    }
}
