//! The stateful engine against shuttle's plain depth-first enumeration on small models: it
//! must reach exactly the final states the enumeration reaches (it skips states, never
//! outcomes), run out of states, and report a deadlock as a model failure.

use ozone_ha_check::engine::{drive, DriveError, Exploration, Flow, Schedule, Strategy};
use ozone_ha_check::sync::ghost::Ghost;
use ozone_ha_check::sync::{channel, thread, Arc, Condvar, Mutex, RwLock, Volatile};
use std::collections::BTreeSet;

/// Runs `model` in every execution and collects the final states it returns.
struct Outcomes<F> {
    model: F,
    seen: std::sync::Mutex<BTreeSet<String>>,
}

impl<F: Fn() -> String + Send + Sync + 'static> Exploration for Outcomes<F> {
    fn begin(&self) {}
    fn body(&self) {
        let outcome = (self.model)();
        self.seen.lock().unwrap().insert(outcome);
    }
    fn end(&self, _: Option<Schedule>) -> Flow {
        Flow::Continue
    }
    fn settled(&self) -> bool {
        false
    }
}

fn outcomes<F: Fn() -> String + Send + Sync + 'static>(
    strategy: Strategy,
    model: F,
) -> (Result<bool, DriveError>, BTreeSet<String>, usize) {
    let x = Arc::new(Outcomes {
        model,
        seen: std::sync::Mutex::new(BTreeSet::new()),
    });
    let driven = drive(&strategy, Arc::clone(&x) as Arc<dyn Exploration>);
    let executions = driven.as_ref().map_or(0, |d| d.executions);
    let seen = x.seen.lock().unwrap().clone();
    (driven.map(|d| d.exhausted), seen, executions)
}

/// Both engines exhaust `model`, and the stateful one reaches the same final states.
fn same_outcomes<F: Fn() -> String + Send + Sync + Clone + 'static>(model: F) -> BTreeSet<String> {
    let (dfs, all, dfs_runs) = outcomes(
        Strategy::Dfs {
            executions: 2_000_000,
        },
        model.clone(),
    );
    assert!(dfs.unwrap(), "the enumeration must finish");
    let (stateful, seen, runs) = outcomes(
        Strategy::Stateful {
            executions: 2_000_000,
        },
        model,
    );
    assert!(stateful.unwrap(), "the stateful search must finish");
    assert_eq!(seen, all);
    assert!(runs > 0 && dfs_runs > 0);
    seen
}

/// Two read-then-write increments under separate lock sections: the lost update is reached.
fn lost_update() -> String {
    let n = Arc::new(Mutex::new(0u32));
    let handles: Vec<_> = (0..2)
        .map(|i| {
            let n = Arc::clone(&n);
            thread::spawn(&format!("t{i}"), move || {
                let v = *n.lock();
                *n.lock() = v + 1;
            })
        })
        .collect();
    for h in handles {
        h.join();
    }
    let v = *n.lock();
    v.to_string()
}

#[test]
fn a_lost_update_is_reached_and_the_search_ends() {
    let seen = same_outcomes(lost_update);
    assert_eq!(seen, BTreeSet::from(["1".to_string(), "2".to_string()]));
}

/// A reader and a writer of a read-write lock and a volatile.
fn rwlock_and_volatile() -> String {
    let table = Arc::new(RwLock::new(0u8));
    let flag = Arc::new(Volatile::new(0u8));
    let w = {
        let (table, flag) = (Arc::clone(&table), Arc::clone(&flag));
        thread::spawn("w", move || {
            *table.write() += 1;
            flag.set(1);
        })
    };
    let seen = (*table.read(), flag.get());
    w.join();
    format!("{seen:?}")
}

/// A condition-variable handoff followed by a channel message.
fn handoff() -> String {
    let ready = Arc::new((Mutex::new(0u8), Condvar::new()));
    let (tx, rx) = channel::unbounded::<u8>();
    let p = {
        let ready = Arc::clone(&ready);
        thread::spawn("p", move || {
            *ready.0.lock() = 1;
            ready.1.notify_all();
            tx.send(7);
        })
    };
    let mut r = ready.0.lock();
    let before = *r;
    while *r == 0 {
        r = ready.1.wait(r);
    }
    drop(r);
    let got = rx.recv();
    p.join();
    format!("{before} {got:?}")
}

/// Two threads append to a ghost in either order; a mutex orders nothing between them.
fn ghost_order() -> String {
    let ghost = Arc::new(Ghost::new(Vec::<u8>::new()));
    let m = Arc::new(Mutex::new(0u8));
    let t = {
        let (ghost, m) = (Arc::clone(&ghost), Arc::clone(&m));
        thread::spawn("t", move || {
            *m.lock() += 1;
            ghost.with(|g| g.push(1));
        })
    };
    *m.lock() += 1;
    ghost.with(|g| g.push(2));
    t.join();
    format!("{:?}", ghost.get())
}

#[test]
fn every_final_state_is_reached_with_each_kind_of_object() {
    let seen = same_outcomes(rwlock_and_volatile);
    assert!(seen.len() >= 3, "{seen:?}");
    let seen = same_outcomes(handoff);
    assert_eq!(
        seen,
        BTreeSet::from(["0 Some(7)".to_string(), "1 Some(7)".to_string()])
    );
    let seen = same_outcomes(ghost_order);
    assert_eq!(
        seen,
        BTreeSet::from(["[1, 2]".to_string(), "[2, 1]".to_string()])
    );
}

#[test]
fn a_deadlock_is_a_model_failure() {
    let (driven, _, _) = outcomes(Strategy::Stateful { executions: 10_000 }, || {
        let (x, y) = (Arc::new(Mutex::new(())), Arc::new(Mutex::new(())));
        let t = {
            let (x, y) = (Arc::clone(&x), Arc::clone(&y));
            thread::spawn("t", move || {
                let _a = y.lock();
                let _b = x.lock();
            })
        };
        {
            let _a = x.lock();
            let _b = y.lock();
        }
        t.join();
        String::new()
    });
    match driven {
        Err(DriveError::ModelFailure(m)) => assert!(m.contains("deadlock"), "{m}"),
        other => panic!("expected a deadlock, got {other:?}"),
    }
}

#[test]
fn on_a_scenario_it_breaks_the_buggy_variant_and_exhausts_the_fix() {
    use ozone_ha_check::explore::{explore, Request, Verdict};
    let scenario = ozone_ha_check::scenarios::find("hdds-16452").unwrap();
    let strategy = Strategy::Stateful {
        executions: 1_000_000,
    };
    let buggy = explore(scenario, &Request::new("buggy", "base", strategy.clone())).unwrap();
    assert_eq!(buggy.verdict, Verdict::Violated);
    assert!(!buggy.trace.is_empty());
    assert_eq!(
        buggy.schedule, None,
        "no replay follows the engine's own yields"
    );
    let fixed = explore(scenario, &Request::new("fixed", "base", strategy)).unwrap();
    assert_eq!(fixed.verdict, Verdict::Held, "the race window is reached");
    assert!(fixed.exhausted);
}
