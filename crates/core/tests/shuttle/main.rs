//! The shuttle suite: every case's verdict under PCT and random exploration (one test per
//! case and engine, named `<scenario>::<variant>::<plan>::<engine>`, so that
//! `cargo test --test shuttle -- hdds-16092::fixed::` runs one variant), each violating case
//! under the stateful engine, replayed regression counterexamples, the probes, and
//! deterministic reproductions of the seeds' staged values.
//!
//! The tests are listed, not discovered: each module hands its own to [`main`] with
//! [`trials!`], and a test function left out of its list is dead code, which the lints
//! refuse. A name filter that matches no test fails the run, so a misspelt filter cannot pass
//! by running nothing.

#[cfg(not(any(loom, ohc_threads)))]
use libtest_mimic::{Arguments, Trial};
use std::process::ExitCode;

#[cfg(not(any(loom, ohc_threads)))]
mod choices;
#[cfg(not(any(loom, ohc_threads)))]
mod fixtures;
#[cfg(not(any(loom, ohc_threads)))]
mod hdds_10408;
#[cfg(not(any(loom, ohc_threads)))]
mod hdds_10590;
#[cfg(not(any(loom, ohc_threads)))]
mod hdds_11152;
#[cfg(not(any(loom, ohc_threads)))]
mod hdds_11453;
#[cfg(not(any(loom, ohc_threads)))]
mod hdds_16092;
#[cfg(not(any(loom, ohc_threads)))]
mod hdds_16452;
#[cfg(not(any(loom, ohc_threads)))]
mod hdds_16900;
#[cfg(not(any(loom, ohc_threads)))]
mod hdds_17215;
#[cfg(not(any(loom, ohc_threads)))]
mod hdds_7279;
#[cfg(not(any(loom, ohc_threads)))]
mod hdds_8036;
#[cfg(not(any(loom, ohc_threads)))]
mod hdds_8681;
#[cfg(not(any(loom, ohc_threads)))]
mod hdds_8685;
#[cfg(not(any(loom, ohc_threads)))]
mod hdds_8832;
#[cfg(not(any(loom, ohc_threads)))]
mod hdds_8973;
#[cfg(not(any(loom, ohc_threads)))]
mod hdds_template;
#[cfg(not(any(loom, ohc_threads)))]
mod probes;
#[cfg(not(any(loom, ohc_threads)))]
mod shards;
#[cfg(not(any(loom, ohc_threads)))]
mod stateful;
#[cfg(not(any(loom, ohc_threads)))]
mod support;
#[cfg(not(any(loom, ohc_threads)))]
mod verdicts;

/// The trials of a module: each function, named `<module>::<function>`. A test fails when it
/// panics.
#[macro_export]
macro_rules! trials {
    ($($test:ident),* $(,)?) => {
        vec![$(
            libtest_mimic::Trial::test(
                format!(
                    "{}::{}",
                    module_path!().rsplit("::").next().unwrap_or_default(),
                    stringify!($test)
                ),
                || {
                    $test();
                    Ok(())
                },
            )
        ),*]
    };
}

#[cfg(any(loom, ohc_threads))]
fn main() -> ExitCode {
    eprintln!("the shuttle tests need the default build: cargo test --release --test shuttle");
    ExitCode::SUCCESS
}

#[cfg(not(any(loom, ohc_threads)))]
fn main() -> ExitCode {
    let args = Arguments::from_args();
    let trials: Vec<Trial> = [
        verdicts::trials(),
        fixtures::trials(),
        probes::trials(),
        stateful::trials(),
        choices::trials(),
        shards::trials(),
        hdds_16092::trials(),
        hdds_16452::trials(),
        hdds_16900::trials(),
        hdds_17215::trials(),
        hdds_7279::trials(),
        hdds_8036::trials(),
        hdds_8681::trials(),
        hdds_8685::trials(),
        hdds_8832::trials(),
        hdds_8973::trials(),
        hdds_10408::trials(),
        hdds_10590::trials(),
        hdds_11152::trials(),
        hdds_11453::trials(),
        hdds_template::trials(),
    ]
    .into_iter()
    .flatten()
    .collect();
    if let Some(filter) = &args.filter {
        let matches = |name: &str| {
            if args.exact {
                name == filter
            } else {
                name.contains(filter.as_str())
            }
        };
        if !trials.iter().any(|t| matches(t.name())) {
            eprintln!("error: the filter `{filter}` matches no shuttle test; see `cargo test --test shuttle -- --list`");
            return ExitCode::from(101);
        }
    }
    libtest_mimic::run(&args, trials).exit_code()
}
