//! The stateful engine against shuttle's plain depth-first enumeration on small models: it
//! must reach exactly the final states the enumeration reaches (it skips states, never
//! outcomes), run out of states, and report a deadlock as a model failure.

use crate::support::{collect, collect_ordering, Collected};
use ozone_ha_check::engine::{Budget, DriveError, Driven, Reduction, Strategy, Yields};
use ozone_ha_check::kit::replica::SharedLog;
use ozone_ha_check::properties::Probe;
use ozone_ha_check::recorder::{Actor, Recorder};
use ozone_ha_check::sync::ghost::{Facts, Ghost, Witness};
use ozone_ha_check::sync::{channel, choose, thread, Arc, Condvar, Mutex, RwLock, Volatile};
use std::collections::BTreeSet;

fn outcomes<F: Fn() -> String + Send + Sync + 'static>(
    strategy: Strategy,
    model: F,
) -> (Result<bool, DriveError>, BTreeSet<String>, usize) {
    let c = collect(&strategy, model);
    let states = c.states();
    let executions = c.driven.as_ref().map_or(0, |d| d.executions);
    (c.driven.map(|d| d.exhausted), states, executions)
}

/// Both engines exhaust `model`, and the stateful one reaches the same final states, with
/// its preemption-bounded passes and without them (the unbounded search alone, whose
/// reductions the passes would otherwise cover for).
fn same_outcomes<F: Fn() -> String + Send + Sync + Clone + 'static>(model: F) -> BTreeSet<String> {
    let (dfs, all, dfs_runs) = outcomes(
        Strategy::Dfs {
            executions: 2_000_000,
        },
        model.clone(),
    );
    assert!(dfs.unwrap(), "the enumeration must finish");
    let mut finals = BTreeSet::new();
    for (deepening, sources) in SEARCHES {
        let c = search_with(&model, deepening, sources);
        let driven = c.driven.as_ref().expect("the stateful search runs");
        assert!(driven.exhausted, "the stateful search must finish");
        assert!(driven.executions > 0 && dfs_runs > 0);
        assert_eq!(
            c.states(),
            all,
            "deepening: {deepening}, source sets: {sources}"
        );
        // What a model returns follows from its final state: at least as many final states
        // as outcomes, and as many with the passes as without, each search exhausted.
        let f = driven
            .final_states
            .expect("a stateful search counts final states");
        assert!(f >= all.len(), "{f} final states, {} outcomes", all.len());
        finals.insert(f);
        replays_reach_their_states(&model, &c, deepening);
    }
    assert_eq!(
        finals.len(),
        1,
        "final states with and without the passes, and over source sets: {finals:?}"
    );
    all
}

/// The searches compared with shuttle's enumeration, as (deepening, source sets): every
/// state once with the bounded passes and without them, and the unbounded search over
/// source sets alone (the passes would cover for what it missed).
const SEARCHES: [(bool, bool); 3] = [(true, false), (false, false), (false, true)];

/// The stateful search of `model`, to its end (`deepening`: with the bounded passes).
fn search<F: Fn() -> String + Send + Sync + Clone + 'static>(
    model: &F,
    deepening: bool,
) -> Collected {
    search_with(model, deepening, false)
}

/// [`search`], its unbounded search over source sets if `sources`.
fn search_with<F: Fn() -> String + Send + Sync + Clone + 'static>(
    model: &F,
    deepening: bool,
    sources: bool,
) -> Collected {
    collect(
        &Strategy::Stateful {
            executions: 2_000_000,
            part: None,
            deepening: deepening.then_some(Budget::CHECK),
            sources,
        },
        model.clone(),
    )
}

/// Each final state the stateful search `c` reached, replayed from the schedule of the first
/// execution that reached it (and of the first one cut short that did), is reached again:
/// the replay yields where the search's tasks yielded and stops yielding at the cut. The
/// number of cut schedules replayed.
fn replays_reach_their_states<F: Fn() -> String + Send + Sync + Clone + 'static>(
    model: &F,
    c: &Collected,
    deepening: bool,
) -> usize {
    let first = c.seen.iter().map(|(state, s)| {
        let schedule = s.clone().expect("every execution is recorded");
        assert!(matches!(schedule.yields, Yields::Stateful { .. }));
        (state, schedule)
    });
    let cut = c.cut.iter().map(|(state, s)| (state, s.clone()));
    for (state, schedule) in first.chain(cut) {
        let again = collect(&Strategy::Replay { schedule }, model.clone());
        assert!(again.driven.is_ok(), "{:?}", again.driven.err());
        assert_eq!(
            again.states(),
            BTreeSet::from([state.clone()]),
            "deepening: {deepening}"
        );
    }
    c.cut.len()
}

/// A schedule of the stateful engine replays in its mode, cut or not: the replay that traces
/// a violation it found without the trace.
fn a_stateful_schedule_replays_to_its_final_state() {
    let cut: usize = [true, false]
        .into_iter()
        .map(|deepening| {
            let sections = || lock_sections(true);
            replays_reach_their_states(&two_handoffs, &search(&two_handoffs, deepening), deepening)
                + replays_reach_their_states(&sections, &search(&sections, deepening), deepening)
        })
        .sum();
    assert!(cut > 0, "no replayed execution was cut short");
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

/// The model failure the stateful search of `model` ends with (a panic when it ends
/// otherwise).
fn model_failure<F: Fn() -> String + Send + Sync + 'static>(model: F) -> String {
    let (driven, _, _) = outcomes(
        Strategy::Stateful {
            executions: 10_000,
            part: None,
            deepening: Some(Budget::CHECK),
            sources: false,
        },
        model,
    );
    match driven {
        Err(DriveError::ModelFailure(m)) => m,
        other => panic!("expected a model failure, got {other:?}"),
    }
}

fn a_deadlock_is_a_model_failure() {
    let m = model_failure(|| {
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
    assert!(m.contains("deadlock"), "{m}");
}

fn on_a_scenario_it_breaks_the_buggy_variant_and_exhausts_the_fix() {
    use ozone_ha_check::explore::{explore, Request, Verdict};
    let scenario = ozone_ha_check::scenarios::find("hdds-16452").unwrap();
    let strategy = Strategy::Stateful {
        executions: 1_000_000,
        part: None,
        deepening: Some(Budget::CHECK),
        sources: false,
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

/// Two waiters registered one after the other, then two `notify_one`s, the second only once
/// the first has been taken: which waiter the first one wakes is the engine's choice (not the
/// order of registration), so both orders must be reached.
fn two_waiters_two_notify_one() -> String {
    // (registered, woken in order), "a waiter registered or woke", "go".
    let shared = Arc::new((
        Mutex::new((0u8, Vec::<u8>::new())),
        Condvar::new(),
        Condvar::new(),
    ));
    let until = |n: usize, count: fn(&(u8, Vec<u8>)) -> usize| {
        let mut g = shared.0.lock();
        while count(&g) < n {
            g = shared.1.wait(g);
        }
    };
    let mut waiters = Vec::new();
    for i in 1..=2u8 {
        let s = Arc::clone(&shared);
        waiters.push(thread::spawn(&format!("w{i}"), move || {
            let mut g = s.0.lock();
            g.0 += 1;
            s.1.notify_all();
            g = s.2.wait(g);
            g.1.push(i);
            s.1.notify_all();
        }));
        until(usize::from(i), |g| usize::from(g.0));
    }
    shared.2.notify_one();
    until(1, |g| g.1.len());
    shared.2.notify_one();
    for w in waiters {
        w.join();
    }
    let order = shared.0.lock().1.clone();
    format!("{order:?}")
}

fn notify_one_wakes_either_waiter_under_both_engines() {
    let seen = same_outcomes(two_waiters_two_notify_one);
    assert_eq!(
        seen,
        BTreeSet::from(["[1, 2]".to_string(), "[2, 1]".to_string()])
    );
}

fn sends_receives_and_reads_commute_only_where_they_do() {
    use programs::Op::{Get, Ghost, Recv, Send, Set};
    // Sends commute with receives but not with each other (two sends are received in their
    // order, and what is left stays in it); reads commute with reads, not with writes; a
    // task's code after its operation (the ghost appends) runs with that operation's release,
    // as under shuttle.
    let sent = programs::agree(&[
        vec![Recv(0), Ghost(0)],
        vec![Send(0, 1), Ghost(0), Send(0, 1)],
        vec![Send(0, 2), Ghost(0)],
    ]);
    for first in ["c0=Some(1)", "c0=Some(2)"] {
        assert!(
            sent.iter()
                .any(|s| s.starts_with(&format!("[[\"{first}\"]"))),
            "either send is received first: {sent:?}"
        );
    }
    let read = programs::agree(&[
        vec![Set(0, 1), Ghost(0)],
        vec![Get(0), Ghost(0)],
        vec![Get(0), Ghost(0)],
    ]);
    assert!(read.len() > 4, "{read:?}");
    // Without the appends, nothing but the operations' own order tells the executions apart.
    let left = programs::agree(&[vec![], vec![Send(0, 1)], vec![Send(0, 2)]]);
    assert_eq!(left.len(), 2, "either send stays first: {left:?}");
    // Receiving 2 after reading the first of two writes that follow the send of 1 needs the
    // sends in one order, then a preemption between the writes.
    let between = programs::agree(&[
        vec![Get(1), Recv(0)],
        vec![Send(0, 1), Set(1, 1), Set(1, 2)],
        vec![Send(0, 2)],
    ]);
    assert!(
        between
            .iter()
            .any(|s| s.starts_with(r#"[["v1=1", "c0=Some(2)"]"#)),
        "{between:?}"
    );
    let seen = programs::agree(&[vec![Set(0, 1)], vec![Get(0)], vec![Get(0)]]);
    assert_eq!(
        seen.len(),
        4,
        "each read before or after the write: {seen:?}"
    );
}

/// Asserts that some final state in `outcomes` shows each of `logged` (a read's log entry).
fn each_is_reached(outcomes: &BTreeSet<String>, logged: &[&str], what: &str) {
    for entry in logged {
        assert!(
            outcomes.iter().any(|s| s.contains(entry)),
            "{what} sees {entry}: {outcomes:?}"
        );
    }
}

fn store_rows_commute_only_where_they_do() {
    use programs::Op::{Cache, Fetch, Ghost, Reopen, Row, Rows, Scan};
    // Writes of different rows commute, and reads of rows with each other; a scan reads
    // every row, a reopen empties the whole cache.
    let rows = programs::agree(&[
        vec![Row(0, 1), Fetch(1)],
        vec![Row(1, 2), Fetch(0)],
        vec![Scan],
    ]);
    let scans = [
        "\"scan={}\"",
        "\"scan={t/k0=1}\"",
        "\"scan={t/k1=2}\"",
        "\"scan={t/k0=1, t/k1=2}\"",
    ];
    each_is_reached(&rows, &scans, "a scan before, between or after the writes");
    let scanned = programs::agree(&[vec![Row(0, 1)], vec![Scan, Ghost(0)], vec![Ghost(0)]]);
    assert_eq!(scanned.len(), 4, "{scanned:?}");
    let one = programs::agree(&[vec![Rows(1), Fetch(0)], vec![Row(0, 2), Fetch(1)]]);
    assert!(one.len() >= 3, "{one:?}");
    let cached = programs::agree(&[vec![Cache(0, 1), Fetch(0)], vec![Reopen], vec![Row(0, 2)]]);
    let reads = ["s0=Some(1)", "s0=Some(2)", "s0=None"];
    each_is_reached(&cached, &reads, "the read through the cache");
}

fn concurrent_keys_commute_only_where_they_do() {
    use programs::Op::{MapClear, MapGet, MapPut, MapRead};
    // Calls on different keys commute, and reads with each other; a whole read sees every
    // key, a whole write conflicts with every call.
    let keys = programs::agree(&[
        vec![MapPut(0, 1), MapGet(1)],
        vec![MapPut(1, 2), MapGet(0)],
        vec![MapRead],
    ]);
    let maps = ["map=[]", "map=[k0:1]", "map=[k1:2]", "map=[k0:1 k1:2]"];
    each_is_reached(
        &keys,
        &maps,
        "a whole read before, between or after the writes",
    );
    let cleared = programs::agree(&[vec![MapPut(0, 1), MapGet(0)], vec![MapClear]]);
    let reads = ["m0=Some(1)", "m0=None"];
    each_is_reached(
        &cleared,
        &reads,
        "the read after a put, the clear before or after it,",
    );
}

/// The stateful search's drive of `model`, which it exhausts (`deepening`: with the bounded
/// passes).
fn exhaust<F: Fn() -> String + Send + Sync + Clone + 'static>(model: F, deepening: bool) -> Driven {
    let driven = search(&model, deepening)
        .driven
        .expect("the stateful search runs");
    assert!(driven.exhausted);
    driven
}

/// The stateful search's executions and the states its unbounded search visited on `model`,
/// which it exhausts.
fn effort<F: Fn() -> String + Send + Sync + Clone + 'static>(model: F) -> (usize, usize) {
    let driven = exhaust(model, true);
    (
        driven.executions - driven.walks.expect("a stateful search counts its walks"),
        driven.states.expect("a stateful search counts states"),
    )
}

/// The random walks take one execution in four each until they have run their budgets, and
/// no more: beside the searches' 110 executions on the shared sections, a budget of 3 and
/// 2 runs 5 walks, and 2,000 each (more than the searches need) runs one walk for each of
/// the searches' executions, less the last.
fn the_walks_run_their_budgets_and_no_more() {
    let walks = |random: usize, pct: usize| {
        let c = collect(
            &Strategy::Stateful {
                executions: 2_000_000,
                part: None,
                deepening: Some(Budget {
                    random,
                    pct,
                    ..Budget::CHECK
                }),
                sources: false,
            },
            || lock_sections(true),
        );
        let driven = c.driven.expect("the stateful search runs");
        assert!(driven.exhausted);
        let walks = driven.walks.expect("a stateful search counts its walks");
        (driven.executions - walks, walks)
    };
    assert_eq!(walks(3, 2), (110, 5));
    assert_eq!(walks(0, 0), (110, 0));
    assert_eq!(walks(2_000, 2_000), (110, 109));
}

/// Two tasks, three lock sections each, on one mutex each (`shared`: on the same one).
fn lock_sections(shared: bool) -> String {
    let locks = Arc::new([Mutex::new(0u8), Mutex::new(0u8)]);
    let handles: Vec<_> = (0..2)
        .map(|i| {
            let locks = Arc::clone(&locks);
            let mine = if shared { 0 } else { i };
            thread::spawn(&format!("t{i}"), move || {
                for _ in 0..3 {
                    *locks[mine].lock() += 1;
                }
            })
        })
        .collect();
    for h in handles {
        h.join();
    }
    format!("{} {}", *locks[0].lock(), *locks[1].lock())
}

fn lock_sections_on_disjoint_and_shared_mutexes() {
    let seen = same_outcomes(|| lock_sections(false));
    assert_eq!(seen, BTreeSet::from(["3 3".to_string()]));
    let seen = same_outcomes(|| lock_sections(true));
    assert_eq!(seen, BTreeSet::from(["6 0".to_string()]));
    // Sections on their own mutexes commute, and the unbounded search skips reorderings of
    // them, but it must still visit every state: as many as the search without sleep sets
    // and exit steps visited (20 and 111, at 58 and 139 executions; with them 46 and 110,
    // the searches' executions: the random walks' visit no state).
    // Each section is short (it touches nothing but its data), so it is one step, a thread's
    // exit is recorded in its last transition, a spawn and a join's first attempt in the
    // transition that leads to them, and a join is no operation: before any of these, 39
    // and 280 states at 315 and 650 executions.
    let (disjoint_runs, disjoint) = effort(|| lock_sections(false));
    let (shared_runs, shared) = effort(|| lock_sections(true));
    assert_eq!((disjoint, shared), (20, 111));
    assert_eq!((disjoint_runs, shared_runs), (46, 110));
}

/// Two tasks each take one mutex and, holding it, write a volatile of their own (an
/// operation inside the section, so the other task is at a decision while it is held),
/// then a shared counter under it.
fn long_sections() -> String {
    let m = Arc::new(Mutex::new(0u8));
    let marks = Arc::new([Volatile::new(0u8), Volatile::new(0u8)]);
    let handles: Vec<_> = (0..2)
        .map(|i| {
            let (m, marks) = (Arc::clone(&m), Arc::clone(&marks));
            thread::spawn(&format!("t{i}"), move || {
                let mut g = m.lock();
                marks[i].set(*g + 1);
                *g += 1;
            })
        })
        .collect();
    for h in handles {
        h.join();
    }
    let marks: Vec<u8> = marks.iter().map(Volatile::get).collect();
    format!("{marks:?}")
}

/// A task whose operation cannot proceed is not run only to find that out: one about to
/// take a lock taken against it is not offered, a waiter just registered on a condition
/// variable waits from its registration, and a join waits for the thread's exit (as a
/// receive waits for a value). The outcomes and states are the same (shuttle's enumeration
/// agrees), with fewer executions: run to find the lock taken, or no notification yet, the
/// searches took 42 and 194 executions for the same 19 and 48 states; with joins run to
/// find the thread running, and a thread's last step inside shuttle a decision of its own,
/// 36 and 133.
fn a_task_is_not_run_only_to_find_it_must_wait() {
    let seen = same_outcomes(long_sections);
    assert_eq!(
        seen,
        BTreeSet::from(["[1, 2]".to_string(), "[2, 1]".to_string()])
    );
    same_outcomes(two_handoffs);
    assert_eq!(
        (effort(long_sections), effort(two_handoffs)),
        ((36, 19), (128, 48))
    );
}

/// The final states counted are the complete executions' equivalence classes: one where the
/// two tasks' sections are on their own mutexes (every order is equivalent), and on one mutex
/// every interleaving of the two tasks' three acquisitions, 6 choose 3 = 20, with the bounded
/// passes and without them (the walks' executions are not counted). Executions per final
/// state is what a partial-order reduction could at most still save.
fn final_states_are_the_orders_of_conflicting_operations() {
    for deepening in [true, false] {
        let finals = |shared: bool| {
            exhaust(move || lock_sections(shared), deepening)
                .final_states
                .expect("a stateful search counts final states")
        };
        assert_eq!(
            (finals(false), finals(true)),
            (1, 20),
            "deepening: {deepening}"
        );
    }
}

/// A setup by the main task alone (three lock sections, a ghost cell written, a channel's
/// value sent and received), then [`lock_sections`].
fn setup_then_lock_sections(shared: bool) -> String {
    let setup = {
        let m = Mutex::new(0u8);
        let cell = Ghost::new(0u8);
        let (tx, rx) = channel::unbounded::<u8>();
        for _ in 0..3 {
            *m.lock() += 1;
        }
        cell.set(*m.lock());
        tx.send(cell.get());
        rx.recv()
    };
    format!("{setup:?} {}", lock_sections(shared))
}

fn the_main_task_alone_takes_no_decision() {
    for shared in [false, true] {
        let seen = same_outcomes(move || setup_then_lock_sections(shared));
        let plain = same_outcomes(move || lock_sections(shared));
        assert_eq!(
            seen,
            plain.iter().map(|o| format!("Some(3) {o}")).collect(),
            "shared: {shared}"
        );
        // Before its first spawn the main task passes its yield points and shuttle's other
        // stops (here the release of a section that wrote a ghost cell): the setup adds
        // neither a state nor an execution to the search (before, each of its operations
        // made a decision with one option, and a state).
        assert_eq!(
            effort(move || setup_then_lock_sections(shared)),
            effort(move || lock_sections(shared)),
            "shared: {shared}"
        );
    }
}

fn a_main_task_that_waits_alone_is_a_deadlock() {
    // It does not yield on its way to the wait, but a blocked task still yields, and the
    // engine finds no task to run.
    let (driven, _, _) = outcomes(
        Strategy::Stateful {
            executions: 10,
            part: None,
            deepening: Some(Budget::CHECK),
            sources: false,
        },
        || {
            let (m, c) = (Mutex::new(false), Condvar::new());
            let mut ready = m.lock();
            while !*ready {
                ready = c.wait(ready);
            }
            String::new()
        },
    );
    match driven {
        Err(DriveError::ModelFailure(m)) => assert!(m.contains("deadlock"), "{m}"),
        other => panic!("expected a deadlock, got {other:?}"),
    }
}

/// The kind of cell [`cell_between_sections`] writes.
#[derive(Clone, Copy)]
enum Cell {
    Ghost,
    Witness,
    Facts,
}

fn no_conflict(_: &u8, _: &u8) -> bool {
    false
}

/// Two tasks, each a lock section, a yield, a write to a cell (a ghost's count, a witness's,
/// or the task's own fact added to a set of facts), and a second lock section on the same
/// mutex. The yield lets the cell's writes come in either order whatever the order of the
/// first sections.
fn cell_between_sections(cell: Cell) -> String {
    let m = Arc::new(Mutex::new(0u8));
    let ghost = Arc::new(Ghost::new(0u8));
    let seen = Arc::new(Witness::new(0u8));
    let known = Arc::new(Facts::new([]));
    let body =
        move |me: u8, m: &Mutex<u8>, ghost: &Ghost<u8>, seen: &Witness<u8>, known: &Facts<u8>| {
            *m.lock() += 1;
            thread::yield_now();
            match cell {
                Cell::Ghost => ghost.with(|n| *n += 1),
                Cell::Witness => seen.update(|n| *n += 1),
                Cell::Facts => known.add(me, no_conflict, |_, _| ()),
            }
            *m.lock() += 1;
        };
    let t = {
        let (m, ghost, seen, known) = (
            Arc::clone(&m),
            Arc::clone(&ghost),
            Arc::clone(&seen),
            Arc::clone(&known),
        );
        thread::spawn("t", move || body(1, &m, &ghost, &seen, &known))
    };
    body(2, &m, &ghost, &seen, &known);
    t.join();
    let v = *m.lock();
    v.to_string()
}

/// The states the stateful search visits on [`cell_between_sections`] with each kind of
/// cell, after checking that it reaches the enumeration's one final state.
fn states_with(cell: Cell) -> usize {
    let seen = same_outcomes(move || cell_between_sections(cell));
    assert_eq!(seen, BTreeSet::from(["4".to_string()]));
    effort(move || cell_between_sections(cell)).1
}

fn a_witness_is_not_part_of_the_state() {
    // The ghost's two write orders are two states (the cell is a recorded object); the
    // witness's are one, so the search visits fewer states with it (and reaches the same
    // final states): 54 and 26 (the same without sleep sets and exit steps).
    assert_eq!(
        (states_with(Cell::Ghost), states_with(Cell::Witness)),
        (54, 26)
    );
}

/// The window [`probed_window`]'s probe watches.
const WINDOW: Probe = Probe::new("Window", "the probe ran while the other task was inside");

/// A task opens a window (a witness's count up), passes a decision (a lock of its own),
/// and closes it; the main task only probes the window, touching nothing the task touches. The outcome
/// is whether the probe fired. Only the witness orders the probe against the window: a search
/// that left it out of the footprints would take one order of the two tasks and could miss
/// the window.
fn probed_window() -> String {
    let recorder = Arc::new(Recorder::new(None));
    let open = Arc::new(Witness::new(0u8));
    let t = {
        let (recorder, open) = (Arc::clone(&recorder), Arc::clone(&open));
        thread::spawn("t", move || {
            let _me = Actor::new("t", &recorder);
            open.update(|n| *n += 1);
            let inside = Mutex::new(());
            drop(inside.lock());
            open.update(|n| *n -= 1);
        })
    };
    // A decision after the spawn, which does not yield: `t` may run before the probe.
    let before = Mutex::new(());
    drop(before.lock());
    open.probe_if(&Actor::new("main", &recorder), &WINDOW, |n| *n > 0);
    t.join();
    recorder.quiesce();
    let fired = recorder.take().probes.get("Window").copied().unwrap_or(0);
    format!("fired {fired}")
}

/// The search over source sets ordering witnesses meets the window's probe, and reaches the
/// outcome where it is not met. The unbounded searches that leave witnesses out, alone,
/// reach that outcome and nothing else: the probe's read commutes with the task's
/// transitions there, so the search over source sets takes one order of the two tasks, and
/// the search over states has the two orders reach one state, the witness being in none
/// (`explore` runs the search ordering witnesses after either when a required probe went
/// unmet). The deepening's
/// bounded passes happen to meet it here.
fn a_probe_of_a_window_is_met_once_witnesses_are_ordered() {
    let both = BTreeSet::from(["fired 0".to_string(), "fired 1".to_string()]);
    let c = collect_ordering(
        &Strategy::Stateful {
            executions: 1_000,
            part: None,
            deepening: None,
            sources: true,
        },
        probed_window,
        true,
    );
    assert!(c.driven.as_ref().is_ok_and(|d| d.exhausted));
    assert_eq!(c.states(), both);
    for sources in [false, true] {
        let c = search_with(&probed_window, false, sources);
        assert!(c.driven.as_ref().is_ok_and(|d| d.exhausted));
        assert_eq!(
            c.states(),
            BTreeSet::from(["fired 0".to_string()]),
            "source sets: {sources}"
        );
    }
}

/// Facts added in either order are one state (the additions commute), where a ghost's two
/// orders are two: 54 states with the ghost, 40 with the facts (an addition is still an
/// operation of its task; a witness, not recorded at all, makes 26).
fn facts_added_in_either_order_are_one_state() {
    assert_eq!(
        (states_with(Cell::Ghost), states_with(Cell::Facts)),
        (54, 40)
    );
}

/// A report of conflicting facts may only tell the recorder: one that writes a ghost cell
/// (a recorded operation, which would make the state depend on the order of the additions)
/// is a model failure.
fn a_report_that_records_an_operation_is_a_model_failure() {
    let m = model_failure(|| {
        let known = Arc::new(Facts::new([1u8]));
        let ghost = Arc::new(Ghost::new(0u8));
        known.add(1, |a, b| a == b, |_, _| ghost.set(1));
        ghost.get().to_string()
    });
    assert!(m.contains("may only tell the recorder"), "{m}");
}

/// A lock section that writes a ghost cell (`touch`) or only the data it guards, then a read
/// of the cell after the section; another task writes the cell without the lock.
fn cell_after_section(touch: bool) -> String {
    let m = Arc::new(Mutex::new(0u8));
    let ghost = Arc::new(Ghost::new(0u8));
    let t = {
        let ghost = Arc::clone(&ghost);
        thread::spawn("t", move || ghost.with(|v| *v = 2))
    };
    {
        let mut held = m.lock();
        *held += 1;
        if touch {
            ghost.with(|v| *v = 1);
        }
    }
    let seen = ghost.with(|v| *v);
    t.join();
    seen.to_string()
}

fn a_section_that_touched_a_cell_is_not_one_step() {
    // The other task's write can land between the section's write and the read after it
    // only at the stop inside the section's release: that stop stays a decision.
    let seen = same_outcomes(|| cell_after_section(true));
    assert_eq!(seen, BTreeSet::from(["1".to_string(), "2".to_string()]));
    // A section that touched nothing but its own data is one step, and the same outcomes
    // are reached.
    let seen = same_outcomes(|| cell_after_section(false));
    assert_eq!(seen, BTreeSet::from(["0".to_string(), "2".to_string()]));
}

/// Two threads and a joiner. `t0` writes cell `h` and exits; `t1` reads `h` and `g` in one
/// step (a ghost access does not yield); the main task writes 1 to `g` and joins `t0` in the
/// transition that spawned `t1` (a join's first attempt has no decision before it, and `t1`
/// is made after the spawn's stop inside shuttle), then writes 2 to `g` in its next
/// transition (`touch`) or takes a lock instead. With `touch`, `t1` sees `h` written and `g`
/// at 1 only if it runs after `t0`'s exit and before the main task's write.
fn cell_after_join(touch: bool) -> String {
    let (h, g) = (Arc::new(Ghost::new(0u8)), Arc::new(Ghost::new(0u8)));
    let t0 = {
        let h = Arc::clone(&h);
        thread::spawn("t0", move || h.with(|v| *v = 1))
    };
    let t1 = {
        let (h, g) = (Arc::clone(&h), Arc::clone(&g));
        thread::spawn("t1", move || {
            format!("{}{}", h.with(|v| *v), g.with(|v| *v))
        })
    };
    g.with(|v| *v = 1);
    t0.join();
    if touch {
        g.with(|v| *v = 2);
    } else {
        let m = Mutex::new(());
        drop(m.lock());
    }
    t1.join()
}

fn a_woken_join_is_explored_alone_and_nothing_is_lost() {
    // Once `t0` has exited, the main task's woken join is explored alone: it touches only
    // `t0`'s exit, as its transition ends at shuttle's own stop inside the join. Its write
    // of `g` comes in its next transition, and `t1`'s read before that write ("11") is still
    // reached, at the decision between the two.
    let seen = same_outcomes(|| cell_after_join(true));
    assert_eq!(seen, BTreeSet::from(["01", "11", "12"].map(String::from)));
    // It touches nothing shared: explored alone there, the others after it.
    let seen = same_outcomes(|| cell_after_join(false));
    assert_eq!(seen, BTreeSet::from(["01", "11"].map(String::from)));
    assert!(reduction(|| cell_after_join(false)).persistent > 0);
}

/// A thread makes three lock sections on one mutex while the main task waits for it: no
/// decision has a second option.
fn sections_in_one_thread() -> String {
    let n = Arc::new(Mutex::new(0u8));
    let t = {
        let n = Arc::clone(&n);
        thread::spawn("t", move || {
            for _ in 0..3 {
                *n.lock() += 1;
            }
        })
    };
    t.join();
    let v = *n.lock();
    v.to_string()
}

fn a_bounded_pass_that_exhausts_reports_its_states() {
    let seen = same_outcomes(sections_in_one_thread);
    assert_eq!(seen, BTreeSet::from(["3".to_string()]));
    // Pass 0 refuses nothing, so it ends the search after its one execution, and the report
    // counts the distinct states it visited (its keys name the task that goes on as well).
    let c = collect(
        &Strategy::Stateful {
            executions: 1_000,
            part: None,
            deepening: Some(Budget::CHECK),
            sources: false,
        },
        sections_in_one_thread,
    );
    let driven = c.driven.expect("the stateful search runs");
    assert!(driven.exhausted);
    assert_eq!(driven.executions, 1);
    // The root; once the main task waits at the join; after the thread's first and second
    // sections, and its third with its exit; after the main task's last section.
    assert_eq!(driven.states, Some(6));
}

/// What the reductions saved on `model`, exhausted by the unbounded search alone.
fn reduction<F: Fn() -> String + Send + Sync + Clone + 'static>(model: F) -> Reduction {
    exhaust(model, false)
        .reduction
        .expect("a stateful search counts its reductions")
}

fn the_reductions_are_counted_where_they_cut() {
    // No decision has a second option, so nothing is cut or put to sleep.
    assert_eq!(reduction(sections_in_one_thread), Reduction::default());
    // Sections on their own mutexes commute: their reorderings are left asleep, and the
    // orders that remain meet states met before (complete, or still being explored).
    let disjoint = reduction(|| lock_sections(false));
    assert!(
        disjoint.asleep > 0 && disjoint.revisits + disjoint.complete > 0,
        "{disjoint:?}"
    );
    // The other engines count none.
    let other = collect(&Strategy::Dfs { executions: 1_000 }, sections_in_one_thread);
    assert_eq!(other.driven.expect("DFS runs").reduction, None);
}

fn the_states_are_counted_by_what_reached_them() {
    for (shared, deepening) in [(false, false), (true, false), (true, true)] {
        let driven = exhaust(move || lock_sections(shared), deepening);
        let states = driven.states.expect("a stateful search counts states");
        let origins = driven
            .state_origins
            .expect("a stateful search counts where its states come from");
        // Every state met is counted once: the first, then each by the transition that first
        // reached it.
        assert_eq!(origins.values().sum::<u64>(), states as u64, "{origins:?}");
        assert_eq!(origins.get("start"), Some(&1), "{origins:?}");
        // Two tasks took the lock three times each and exited, the main task spawned and
        // joined them: each transition that reached a state recorded a lock section, a last
        // lock section with its thread's exit (an exit has no decision before it), or a
        // spawn (a join is no operation).
        let kinds: BTreeSet<&str> = origins.keys().map(String::as_str).collect();
        let expected = BTreeSet::from(["start", "spawn", "lock", "lock + exit"]);
        assert_eq!(kinds, expected, "{origins:?}");
        assert!(origins.get("lock").is_some_and(|n| *n > 1), "{origins:?}");
    }
    // The other engines count none.
    let other = collect(&Strategy::Dfs { executions: 1_000 }, sections_in_one_thread);
    assert_eq!(other.driven.expect("DFS runs").state_origins, None);
}

/// Two monitors, each with its own waiter, and the main task notifying one then the other:
/// the two waiters' steps commute, and each tells whether it had to wait.
fn two_handoffs() -> String {
    let monitors = Arc::new([
        (Mutex::new(false), Condvar::new()),
        (Mutex::new(false), Condvar::new()),
    ]);
    let waiters: Vec<_> = (0..2)
        .map(|i| {
            let m = Arc::clone(&monitors);
            thread::spawn(&format!("w{i}"), move || {
                let mut g = m[i].0.lock();
                let waited = !*g;
                while !*g {
                    g = m[i].1.wait(g);
                }
                waited
            })
        })
        .collect();
    for (ready, cv) in monitors.iter() {
        *ready.lock() = true;
        cv.notify_one();
    }
    let waited: Vec<bool> = waiters.into_iter().map(thread::JoinHandle::join).collect();
    format!("{waited:?}")
}

fn condition_variables_on_disjoint_monitors() {
    let seen = same_outcomes(two_handoffs);
    assert_eq!(seen.len(), 4, "each waiter waits or not: {seen:?}");
}

/// Independent operations first, dependent ones after: B writes its own volatile, reads A's
/// flag, writes its own again, then both append to one ghost. B having read the flag unset
/// while A appended first needs B's read before A's write and A's append before B's: one
/// order of the operations on each object, reached past independent ones.
fn independent_then_dependent() -> String {
    let flag = Arc::new(Volatile::new(0u8));
    let own = Arc::new(Volatile::new(0u8));
    let order = Arc::new(Ghost::new(Vec::<String>::new()));
    let a = {
        let (flag, order) = (Arc::clone(&flag), Arc::clone(&order));
        thread::spawn("a", move || {
            flag.set(1);
            order.with(|o| o.push("a".into()));
        })
    };
    let b = {
        let (flag, own, order) = (Arc::clone(&flag), Arc::clone(&own), Arc::clone(&order));
        thread::spawn("b", move || {
            own.set(1);
            let seen = flag.get();
            own.set(2);
            order.with(|o| o.push(format!("b saw {seen}")));
        })
    };
    a.join();
    b.join();
    format!("{:?}", order.get())
}

fn a_violation_behind_independent_operations_is_reached() {
    let seen = same_outcomes(independent_then_dependent);
    assert!(
        seen.contains(r#"["a", "b saw 0"]"#),
        "the one ordering is reached: {seen:?}"
    );
    assert_eq!(seen.len(), 3, "{seen:?}");
}

/// A writer sets a volatile three times, a reader reads it twice (`same`: each write leaves
/// the value as it was).
fn rewritten_volatile(same: bool) -> String {
    let flag = Arc::new(Volatile::new(1u8));
    let w = {
        let flag = Arc::clone(&flag);
        thread::spawn("w", move || {
            for i in 0..3u8 {
                flag.set(if same { 1 } else { i + 2 });
            }
        })
    };
    let seen = (flag.get(), flag.get());
    w.join();
    format!("{} {}", seen.0, seen.1)
}

/// A volatile's read is named by the value it returned: where the writes leave the value as
/// it was, a read before or after one reaches one state, so the search meets fewer states
/// than where each write changes it (named by their order alone, both would count the
/// same), and the final states are still those of shuttle's enumeration.
fn a_read_is_named_by_what_it_saw() {
    assert_eq!(
        same_outcomes(|| rewritten_volatile(true)),
        BTreeSet::from(["1 1".to_string()])
    );
    let seen = same_outcomes(|| rewritten_volatile(false));
    assert_eq!(seen.len(), 10, "{seen:?}");
    let states = |same| {
        exhaust(move || rewritten_volatile(same), false)
            .states
            .expect("a stateful search counts states")
    };
    let (same, changed) = (states(true), states(false));
    assert!(same < changed, "{same} states against {changed}");
}

/// A writer appends two entries to the replicated log, purges the first, then reads what
/// the reader posted; the reader reads the last index and the entries after 0 (none once 1
/// is purged), then posts how many it got.
fn log_reader() -> String {
    let log = Arc::new(SharedLog::<u8>::new());
    let posted = Arc::new(Volatile::new(8u8));
    let w = {
        let (log, posted) = (Arc::clone(&log), Arc::clone(&posted));
        thread::spawn("w", move || {
            log.append(1);
            log.append(2);
            log.purge_through(1);
            posted.get()
        })
    };
    let last = log.last_index();
    let after = log.entries_after(0).map(|e| e.len());
    posted.set(after.map_or(9, |n| n as u8));
    let read = w.join();
    format!("{last} {after:?} {read}")
}

/// The log's reads are named by the log they met (its last index and purge point): every
/// final state of shuttle's enumeration is reached. Were two reads that met different logs
/// named alike, the states after them would merge, and the search would follow only one of
/// them past the reader's post (a cut execution runs on along one schedule).
fn a_log_read_is_named_by_the_log_it_met() {
    let seen = same_outcomes(log_reader);
    assert_eq!(seen.len(), 18, "{seen:?}");
    assert!(
        seen.contains("0 Some(1) 1") && seen.contains("1 Some(1) 8"),
        "{seen:?}"
    );
}

/// A choice whose transition depends on the value: A chooses, and on the second value
/// appends to a ghost cell in the same transition (a ghost access is no yield point); B
/// appends to it. A's transition on the first value touches nothing of B's, so a search that
/// put A to sleep with that footprint would never run B's append before A's on the second.
fn a_choice_that_touches_on_one_value() -> String {
    let order = Arc::new(Ghost::new(Vec::<String>::new()));
    let a = {
        let order = Arc::clone(&order);
        thread::spawn("a", move || {
            if choose(2) == 1 {
                order.with(|o| o.push("a".into()));
            }
        })
    };
    let b = {
        let order = Arc::clone(&order);
        thread::spawn("b", move || order.with(|o| o.push("b".into())))
    };
    a.join();
    b.join();
    format!("{:?}", order.get())
}

fn a_choosing_transition_never_sleeps_on_another_values_footprint() {
    // The unbounded search alone: the bounded passes reach every outcome of so small a model.
    let (stateful, seen, _) = outcomes(
        Strategy::Stateful {
            executions: 10_000,
            part: None,
            deepening: None,
            sources: false,
        },
        a_choice_that_touches_on_one_value,
    );
    assert!(stateful.unwrap(), "the stateful search must finish");
    let expected: BTreeSet<String> = [r#"["b"]"#, r#"["a", "b"]"#, r#"["b", "a"]"#]
        .map(String::from)
        .into();
    assert_eq!(seen, expected);
}

/// Small random programs over the facade, run under both engines: the stateful engine must
/// reach exactly the final states (or the deadlock) that shuttle's depth-first enumeration
/// reaches.
mod programs {
    use crate::support::collect_ordering;
    use ozone_ha_check::citation::Label;
    use ozone_ha_check::engine::{Budget, DriveError, Strategy as Engine};
    use ozone_ha_check::kit::store::{Store, WriteBatch};
    use ozone_ha_check::properties::Probe;
    use ozone_ha_check::recorder::{Actor, Recorder};
    use ozone_ha_check::sync::ghost::{Ghost, Witness};
    use ozone_ha_check::sync::{
        channel, choose, thread, Arc, Concurrent, Condvar, Mutex, RwLock, Volatile,
    };
    use proptest::prelude::*;
    use proptest::test_runner::{Config, RngSeed, TestCaseError, TestRunner};
    use std::collections::{BTreeMap, BTreeSet};

    /// How many of each kind of object a program has.
    const OBJECTS: u8 = 2;

    /// One operation of a task. Every read is logged, so the final state tells what each
    /// task saw.
    #[derive(Clone, Debug)]
    pub enum Op {
        /// Read a mutex's value, then write it plus one, in one hold.
        Lock(u8),
        /// Read a mutex's value in one hold and write it plus one in the next (a lost update).
        ReadThenWrite(u8),
        /// Read a read-write lock's value under a read lock.
        Read(u8),
        /// Add one under the write lock.
        Write(u8),
        /// Read a volatile.
        Get(u8),
        /// Write a volatile.
        Set(u8, u8),
        /// Send a value on a channel.
        Send(u8, u8),
        /// Receive one value (blocks while the channel is empty).
        Recv(u8),
        /// Add a token under a condition variable's monitor and notify one waiter (or all).
        Notify { cv: u8, all: bool },
        /// Wait under the monitor until a token is there, and take it.
        Await(u8),
        /// Append to a ghost cell.
        Ghost(u8),
        /// Append to a witness cell: no outcome depends on it.
        Witness(u8),
        /// Probe whether a witness cell holds anything.
        Probe(u8),
        /// Under a mutex, commit a row of the store and append to a witness cell.
        GuardedWitness(u8, u8),
        /// Add one under a mutex and append to a ghost cell in that hold, then append again
        /// after the release. A ghost access is no yield point: both appends are in the
        /// holder's transitions, one on each side of the release's stop, so another task's
        /// append can fall between them only if that stop is a decision.
        Guarded(u8, u8),
        /// Commit a batch that writes one row of the store.
        Row(u8, u8),
        /// Commit a batch that writes both rows.
        Rows(u8),
        /// Read a row through the table cache.
        Fetch(u8),
        /// Put a row's value into the table cache.
        Cache(u8, u8),
        /// Read every committed row.
        Scan,
        /// Reopen the store (the table cache is emptied).
        Reopen,
        /// Read one key of a `Concurrent` map.
        MapGet(u8),
        /// Write one key of the map.
        MapPut(u8, u8),
        /// Read the whole map.
        MapRead,
        /// Empty the whole map.
        MapClear,
        /// Spawn a grandchild that runs these operations, and join it at once.
        SpawnJoin(Vec<Op>),
        /// Choose one of two values (a generated workload's next request), logged, and on the
        /// second append to ghost cell 0 (a ghost access is no yield point, so it is in the
        /// choosing transition: its footprint depends on the value). The number is the choice's slot in the program (numbered once it is drawn),
        /// where the enumeration, which does not explore values, takes a fixed one.
        Choose(usize),
    }

    fn leaf() -> impl Strategy<Value = Op> {
        let k = 0..OBJECTS;
        prop_oneof![
            k.clone().prop_map(Op::Lock),
            k.clone().prop_map(Op::ReadThenWrite),
            k.clone().prop_map(Op::Read),
            k.clone().prop_map(Op::Write),
            k.clone().prop_map(Op::Get),
            (k.clone(), 1..3u8).prop_map(|(v, x)| Op::Set(v, x)),
            (k.clone(), 1..3u8).prop_map(|(c, x)| Op::Send(c, x)),
            k.clone().prop_map(Op::Recv),
            (k.clone(), any::<bool>()).prop_map(|(cv, all)| Op::Notify { cv, all }),
            k.clone().prop_map(Op::Await),
            k.clone().prop_map(Op::Ghost),
            k.clone().prop_map(Op::Witness),
            k.clone().prop_map(Op::Probe),
            (k.clone(), k.clone()).prop_map(|(i, w)| Op::GuardedWitness(i, w)),
            (k.clone(), k.clone()).prop_map(|(i, g)| Op::Guarded(i, g)),
            (k.clone(), 1..3u8).prop_map(|(r, x)| Op::Row(r, x)),
            (1..3u8).prop_map(Op::Rows),
            k.clone().prop_map(Op::Fetch),
            (k.clone(), 1..3u8).prop_map(|(r, x)| Op::Cache(r, x)),
            Just(Op::Scan),
            Just(Op::Reopen),
            k.clone().prop_map(Op::MapGet),
            (k, 1..3u8).prop_map(|(r, x)| Op::MapPut(r, x)),
            Just(Op::MapRead),
            Just(Op::MapClear),
        ]
    }

    /// Choices, as a fifth of the operations at the top level of a task.
    fn top() -> impl Strategy<Value = Op> {
        prop_oneof![4 => op(), 1 => Just(Op::Choose(0))]
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            9 => leaf(),
            1 => prop::collection::vec(leaf(), 1..3).prop_map(Op::SpawnJoin),
        ]
    }

    /// The main task's operations and one or two spawned tasks' (spawned first, joined last).
    /// Every receive gets a send, and every wait a notification, in the next task, so that a
    /// program deadlocks only through the order of its operations.
    pub fn program(ops: usize) -> impl Strategy<Value = Vec<Vec<Op>>> {
        prop::collection::vec(prop::collection::vec(top(), 0..=ops), 2..4)
            .prop_map(|mut tasks| {
                let n = tasks.len();
                for t in 0..n {
                    let mut needs = Vec::new();
                    blocking(&tasks[t], &mut needs);
                    tasks[(t + 1) % n].extend(needs);
                }
                let mut slot = 0;
                for op in tasks.iter_mut().flatten() {
                    if let Op::Choose(s) = op {
                        *s = slot;
                        slot += 1;
                    }
                }
                tasks
            })
            // At most three choices: the enumeration runs once per assignment of values.
            .prop_filter("at most three choices", |tasks| choices(tasks) <= 3)
    }

    /// The number of choices in a program.
    fn choices(tasks: &[Vec<Op>]) -> usize {
        tasks
            .iter()
            .flatten()
            .filter(|op| matches!(op, Op::Choose(_)))
            .count()
    }

    /// The operations that let each blocking operation of `ops` go on.
    fn blocking(ops: &[Op], needs: &mut Vec<Op>) {
        for op in ops {
            match op {
                Op::Recv(c) => needs.push(Op::Send(*c, 1)),
                Op::Await(cv) => needs.push(Op::Notify {
                    cv: *cv,
                    all: false,
                }),
                Op::SpawnJoin(sub) => blocking(sub, needs),
                _ => {}
            }
        }
    }

    /// What [`Op::Probe`] fires.
    const WRITTEN: Probe = Probe::new("Written", "a witness cell was written before the probe");

    /// The store's table and its rows.
    const TABLE: &str = "t";
    const ROWS: [&str; 2] = ["k0", "k1"];
    const AT: Label = Label::model("a program's store operation");

    fn actor(world: &World) -> Actor {
        Actor::new("task", &world.recorder)
    }

    /// A monitor's tokens, and the tasks that took one, in order.
    type Tokens = (u8, Vec<usize>);

    struct World {
        locks: Vec<Mutex<u8>>,
        rw: Vec<RwLock<u8>>,
        volatiles: Vec<Volatile<u8>>,
        channels: Vec<(channel::Sender<u8>, channel::Receiver<u8>)>,
        monitors: Vec<(Mutex<Tokens>, Condvar)>,
        ghosts: Vec<Ghost<Vec<usize>>>,
        witnesses: Vec<Witness<Vec<usize>>>,
        store: Store<u8>,
        map: Concurrent<BTreeMap<&'static str, u8>>,
        recorder: Arc<Recorder>,
        /// The value of each choice, for the enumeration; `None`: the engine chooses.
        fixed: Option<Vec<usize>>,
    }

    fn run(world: &Arc<World>, me: usize, ops: &[Op], log: &mut Vec<String>) {
        for op in ops {
            let k = |i: &u8| usize::from(*i);
            match op {
                Op::Lock(i) => {
                    let mut g = world.locks[k(i)].lock();
                    log.push(format!("l{i}={}", *g));
                    *g += 1;
                }
                Op::ReadThenWrite(i) => {
                    let v = *world.locks[k(i)].lock();
                    *world.locks[k(i)].lock() = v + 1;
                    log.push(format!("r{i}={v}"));
                }
                Op::Read(i) => log.push(format!("rw{i}={}", *world.rw[k(i)].read())),
                Op::Write(i) => *world.rw[k(i)].write() += 1,
                Op::Get(i) => log.push(format!("v{i}={}", world.volatiles[k(i)].get())),
                Op::Set(i, x) => world.volatiles[k(i)].set(*x),
                Op::Send(i, x) => world.channels[k(i)].0.send(*x),
                Op::Recv(i) => log.push(format!("c{i}={:?}", world.channels[k(i)].1.recv())),
                Op::Notify { cv, all } => {
                    let (m, c) = &world.monitors[k(cv)];
                    m.lock().0 += 1;
                    if *all {
                        c.notify_all();
                    } else {
                        c.notify_one();
                    }
                }
                Op::Await(i) => {
                    let (m, c) = &world.monitors[k(i)];
                    let mut g = m.lock();
                    while g.0 == 0 {
                        g = c.wait(g);
                    }
                    g.0 -= 1;
                    g.1.push(me);
                }
                Op::Ghost(i) => world.ghosts[k(i)].with(|g| g.push(me)),
                Op::Witness(i) => world.witnesses[k(i)].update(|w| w.push(me)),
                Op::GuardedWitness(i, w) => {
                    let _held = world.locks[k(i)].lock();
                    let mut batch = WriteBatch::new();
                    batch.put(TABLE, ROWS[k(w)], 1);
                    world.store.commit(&actor(world), AT, batch);
                    world.witnesses[k(w)].update(|v| v.push(me));
                }
                Op::Probe(i) => {
                    world.witnesses[k(i)].probe_if(&actor(world), &WRITTEN, |w| !w.is_empty())
                }
                Op::Row(r, x) => {
                    let mut batch = WriteBatch::new();
                    batch.put(TABLE, ROWS[k(r)], *x);
                    world.store.commit(&actor(world), AT, batch);
                }
                Op::Rows(x) => {
                    let mut batch = WriteBatch::new();
                    for row in ROWS {
                        batch.put(TABLE, row, *x);
                    }
                    world.store.commit(&actor(world), AT, batch);
                }
                Op::Fetch(r) => {
                    let v = world.store.get(&actor(world), AT, TABLE, ROWS[k(r)]);
                    log.push(format!("s{r}={v:?}"));
                }
                Op::Cache(r, x) => world
                    .store
                    .cache_put(&actor(world), AT, TABLE, ROWS[k(r)], *x),
                Op::Scan => log.push(format!("scan={}", world.store.scan(&actor(world), AT))),
                Op::Reopen => world.store.reopen(&actor(world), AT),
                Op::MapGet(r) => {
                    let key = ROWS[k(r)];
                    let v = world.map.read_key(key, |m| m.get(key).copied());
                    log.push(format!("m{r}={v:?}"));
                }
                Op::MapPut(r, x) => {
                    let key = ROWS[k(r)];
                    world.map.write_key(key, |m| m.insert(key, *x));
                }
                Op::MapRead => {
                    let seen = world.map.read(|m| {
                        let entries: Vec<String> =
                            m.iter().map(|(k, v)| format!("{k}:{v}")).collect();
                        entries.join(" ")
                    });
                    log.push(format!("map=[{seen}]"));
                }
                Op::MapClear => world.map.write(BTreeMap::clear),
                Op::Guarded(i, g) => {
                    {
                        let mut held = world.locks[k(i)].lock();
                        *held += 1;
                        world.ghosts[k(g)].with(|v| v.push(me));
                    }
                    world.ghosts[k(g)].with(|v| v.push(me + 100));
                }
                Op::SpawnJoin(sub) => {
                    let (w, sub) = (Arc::clone(world), sub.clone());
                    let child = thread::spawn("grandchild", move || {
                        let mut log = Vec::new();
                        run(&w, me * 10, &sub, &mut log);
                        log
                    });
                    log.extend(child.join());
                }
                Op::Choose(slot) => {
                    let value = match &world.fixed {
                        Some(values) => values[*slot],
                        None => choose(2),
                    };
                    log.push(format!("x{slot}={value}"));
                    if value == 1 {
                        world.ghosts[0].with(|g| g.push(me));
                    }
                }
            }
        }
    }

    /// One execution of `tasks`: the final state as text.
    fn execute(tasks: &[Vec<Op>], fixed: Option<Vec<usize>>) -> String {
        let n = usize::from(OBJECTS);
        let world = Arc::new(World {
            locks: (0..n).map(|_| Mutex::new(0)).collect(),
            rw: (0..n).map(|_| RwLock::new(0)).collect(),
            volatiles: (0..n).map(|_| Volatile::new(0)).collect(),
            channels: (0..n).map(|_| channel::unbounded()).collect(),
            monitors: (0..n)
                .map(|_| (Mutex::new((0, Vec::new())), Condvar::new()))
                .collect(),
            ghosts: (0..n).map(|_| Ghost::new(Vec::new())).collect(),
            witnesses: (0..n).map(|_| Witness::new(Vec::new())).collect(),
            store: Store::new(),
            map: Concurrent::new("map", BTreeMap::new()),
            recorder: Arc::new(Recorder::with_tracing(None, false)),
            fixed,
        });
        let children: Vec<_> = tasks[1..]
            .iter()
            .enumerate()
            .map(|(i, ops)| {
                let (w, ops) = (Arc::clone(&world), ops.clone());
                thread::spawn(&format!("t{}", i + 1), move || {
                    let mut log = Vec::new();
                    run(&w, i + 1, &ops, &mut log);
                    log
                })
            })
            .collect();
        let mut logs = vec![Vec::new()];
        run(&world, 0, &tasks[0], &mut logs[0]);
        logs.extend(children.into_iter().map(|c| c.join()));
        // What is left in each channel, in order, up to a last value no task sends.
        let left = |(tx, rx): &(channel::Sender<u8>, channel::Receiver<u8>)| {
            tx.send(0);
            std::iter::from_fn(|| rx.recv().filter(|v| *v != 0)).collect::<Vec<u8>>()
        };
        let finals: Vec<String> = (0..n)
            .map(|i| {
                format!(
                    "{} {} {} {:?} {:?} {:?}",
                    *world.locks[i].lock(),
                    *world.rw[i].read(),
                    world.volatiles[i].get(),
                    *world.monitors[i].0.lock(),
                    world.ghosts[i].get(),
                    left(&world.channels[i])
                )
            })
            .collect();
        let store = world.store.scan(&actor(&world), AT);
        let cache: Vec<_> = ROWS
            .iter()
            .map(|r| world.store.cache_entry(&actor(&world), AT, TABLE, r))
            .collect();
        let map = world.map.read(|m| m.clone());
        format!("{logs:?} {finals:?} {store} {cache:?} {map:?}")
    }

    /// The final states of `tasks` under `strategy`, or "deadlock"; `None` when the engine
    /// did not finish within its limit. With `fixed`, every choice takes its value from it.
    fn reached(
        strategy: Engine,
        tasks: &[Vec<Op>],
        fixed: Option<Vec<usize>>,
    ) -> Option<Result<BTreeSet<String>, String>> {
        finals_reached(strategy, tasks, fixed, false).map(|r| r.map(|(seen, _)| seen))
    }

    /// A program's outcomes and the final states the engine counted (the stateful one's), or
    /// its deadlock.
    type Finals = Result<(BTreeSet<String>, Option<usize>), String>;

    /// As [`reached`], with the final states the stateful engine counted; its search over
    /// source sets orders witness cells if `witnesses`.
    fn finals_reached(
        strategy: Engine,
        tasks: &[Vec<Op>],
        fixed: Option<Vec<usize>>,
        witnesses: bool,
    ) -> Option<Finals> {
        let tasks = tasks.to_vec();
        let c = collect_ordering(&strategy, move || execute(&tasks, fixed.clone()), witnesses);
        let seen = c.states();
        match c.driven {
            Ok(d) if d.exhausted => Some(Ok((seen, d.final_states))),
            Ok(_) => None,
            Err(DriveError::ModelFailure(m)) if m.contains("deadlock") => {
                Some(Err("deadlock".into()))
            }
            Err(e) => panic!("{e}"),
        }
    }

    /// The final states of a program without choices, the same under shuttle's enumeration
    /// and the stateful engine (with its bounded passes and without them); a deadlock is a
    /// failure.
    pub fn agree(tasks: &[Vec<Op>]) -> BTreeSet<String> {
        let executions = 2_000_000;
        let dfs = reached(Engine::Dfs { executions }, tasks, Some(Vec::new()))
            .expect("the enumeration finishes")
            .expect("no deadlock");
        for deepening in [true, false] {
            let engine = Engine::Stateful {
                executions,
                part: None,
                deepening: deepening.then_some(Budget::CHECK),
                sources: false,
            };
            let stateful = reached(engine, tasks, None)
                .expect("the stateful search finishes")
                .expect("no deadlock");
            assert_eq!(stateful, dfs, "deepening: {deepening}");
        }
        dfs
    }

    /// Executions the enumeration may spend on one program; a larger one is drawn again.
    const LIMIT: usize = 20_000;

    /// What a comparison covered.
    #[derive(Debug, Default)]
    pub struct Covered {
        /// Programs compared.
        pub compared: u32,
        /// Of them, programs that deadlock on some schedule.
        pub deadlocked: u32,
        /// Programs drawn again because the enumeration could not finish them.
        pub too_large: u32,
        /// The most operations of one task in a compared program.
        pub longest_task: usize,
        /// The most tasks in a compared program (grandchildren included).
        pub most_tasks: usize,
        /// Of the programs compared, those that make a choice.
        pub choosing: u32,
    }

    fn size(ops: &[Op]) -> (usize, usize) {
        ops.iter().fold((ops.len(), 0), |(n, t), op| match op {
            Op::SpawnJoin(sub) => (n + sub.len(), t + 1),
            _ => (n, t),
        })
    }

    /// Compares the engines on `cases` programs of up to `ops` drawn operations per task,
    /// drawn from a fixed seed.
    pub fn compare(cases: u32, seed: u64, ops: usize) -> Covered {
        let config = Config {
            cases,
            failure_persistence: None,
            rng_seed: RngSeed::Fixed(seed),
            max_global_rejects: cases * 20,
            ..Config::default()
        };
        let covered = std::cell::RefCell::new(Covered::default());
        // Deadlocks are outcomes here: keep their panics (raised and caught by the engines)
        // off the terminal.
        let previous = std::sync::Arc::new(std::panic::take_hook());
        let forward = std::sync::Arc::clone(&previous);
        std::panic::set_hook(Box::new(move |info| {
            if !info.to_string().contains("deadlock") {
                forward(info);
            }
        }));
        let run = TestRunner::new(config).run(&program(ops), |tasks| {
            // The enumeration does not explore choices: it runs once for each assignment of
            // values, and a deadlock under any of them is the program's outcome.
            let c = choices(&tasks);
            let mut dfs = Ok(BTreeSet::new());
            for assignment in 0..1usize << c {
                let values = (0..c).map(|i| (assignment >> i) & 1).collect();
                let Some(one) = reached(Engine::Dfs { executions: LIMIT }, &tasks, Some(values))
                else {
                    covered.borrow_mut().too_large += 1;
                    return Err(TestCaseError::reject("too large to enumerate"));
                };
                dfs = match (dfs, one) {
                    (Ok(mut all), Ok(seen)) => {
                        all.extend(seen);
                        Ok(all)
                    }
                    (Err(e), _) | (_, Err(e)) => Err(e),
                };
            }
            // With the bounded passes, and without them: the unbounded search alone, whose
            // reductions (sleep sets, or source sets) the passes would otherwise cover for on
            // small programs; and the search over source sets once more, ordering witnesses
            // (more conflicts, the same outcomes). Without a deadlock, all four count the same
            // final states, at least one per outcome.
            let mut finals = BTreeSet::new();
            let searches = super::SEARCHES.map(|(d, s)| (d, s, false));
            for (deepening, sources, witnesses) in searches.into_iter().chain([(false, true, true)])
            {
                let stateful = finals_reached(
                    Engine::Stateful {
                        executions: LIMIT,
                        part: None,
                        deepening: deepening.then_some(Budget::CHECK),
                        sources,
                    },
                    &tasks,
                    None,
                    witnesses,
                )
                .expect("the stateful search finishes where the enumeration does");
                if let Ok((seen, f)) = &stateful {
                    let f = f.expect("a stateful search counts final states");
                    prop_assert!(
                        f >= seen.len(),
                        "{} final states, {} outcomes",
                        f,
                        seen.len()
                    );
                    finals.insert(f);
                }
                let stateful = stateful.map(|(seen, _)| seen);
                prop_assert_eq!(
                    &stateful,
                    &dfs,
                    "deepening: {}, source sets: {}, witnesses ordered: {}",
                    deepening,
                    sources,
                    witnesses
                );
            }
            prop_assert!(finals.len() <= 1, "final states: {:?}", finals);
            let mut c = covered.borrow_mut();
            c.compared += 1;
            c.deadlocked += u32::from(dfs.is_err());
            c.choosing += u32::from(choices(&tasks) > 0);
            let sizes: Vec<(usize, usize)> = tasks.iter().map(|t| size(t)).collect();
            let longest = sizes.iter().map(|s| s.0).max().unwrap_or(0);
            c.longest_task = c.longest_task.max(longest);
            c.most_tasks = c
                .most_tasks
                .max(tasks.len() + sizes.iter().map(|s| s.1).sum::<usize>());
            Ok(())
        });
        let _ = std::panic::take_hook();
        if let Ok(previous) = std::sync::Arc::try_unwrap(previous) {
            std::panic::set_hook(previous);
        }
        run.unwrap_or_else(|e| panic!("{e}"));
        covered.into_inner()
    }
}

fn random_programs_reach_the_same_final_states_under_both_engines() {
    // Up to eight drawn operations per task (each receive or wait adds its counterpart to
    // the next task), on two of each kind of object.
    let c = programs::compare(64, 23, 8);
    println!("{c:?}");
    assert!(c.compared >= 64, "{c:?}");
    assert!(c.deadlocked > 0 && c.deadlocked < c.compared, "{c:?}");
    assert!(c.choosing > 0 && c.choosing < c.compared, "{c:?}");
}

/// The stateful engine's second assumption (`engine::stateful`): every piece of state two tasks
/// share goes through the facade. Models, the kit and the scenarios name no other shared
/// state, and do not read the recorder's own cell back.
fn models_share_state_only_through_the_facade() {
    const FORBIDDEN: &[&str] = &[
        "std::sync::",
        "Atomic",
        "static mut",
        "thread_local!",
        "unsafe",
        "Cell<",
        ".violated()",
        ".quiesced()",
    ];
    // The optional RocksDB mirror observes the store model and feeds it nothing; its factory
    // is installed before any exploration starts.
    const MIRROR: &[(&str, &str)] = &[
        ("src/kit/rocks.rs", "std::sync::"),
        ("src/kit/rocks.rs", "Atomic"),
        ("src/kit/store.rs", "std::sync::"),
    ];
    fn sources(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                sources(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["src/models", "src/kit", "src/scenarios"] {
        sources(&root.join(dir), &mut files);
    }
    files.sort();
    assert!(files.len() > 20, "{files:?}");
    let mut found = Vec::new();
    for file in &files {
        let name = file
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .to_string();
        for (n, line) in std::fs::read_to_string(file).unwrap().lines().enumerate() {
            let code = line.split("//").next().unwrap_or_default();
            for word in FORBIDDEN {
                let allowed = *word == "std::sync::" && code.contains("std::sync::Arc")
                    || MIRROR.contains(&(name.as_str(), word));
                if code.contains(word) && !allowed {
                    found.push(format!("{name}:{}: {}", n + 1, line.trim()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "state outside the facade:\n{}",
        found.join("\n")
    );
}

/// This module's tests.
pub(crate) fn trials() -> Vec<libtest_mimic::Trial> {
    crate::trials![
        a_lost_update_is_reached_and_the_search_ends,
        a_bounded_pass_that_exhausts_reports_its_states,
        the_reductions_are_counted_where_they_cut,
        the_states_are_counted_by_what_reached_them,
        every_final_state_is_reached_with_each_kind_of_object,
        a_deadlock_is_a_model_failure,
        on_a_scenario_it_breaks_the_buggy_variant_and_exhausts_the_fix,
        notify_one_wakes_either_waiter_under_both_engines,
        sends_receives_and_reads_commute_only_where_they_do,
        store_rows_commute_only_where_they_do,
        concurrent_keys_commute_only_where_they_do,
        lock_sections_on_disjoint_and_shared_mutexes,
        a_task_is_not_run_only_to_find_it_must_wait,
        final_states_are_the_orders_of_conflicting_operations,
        the_walks_run_their_budgets_and_no_more,
        the_main_task_alone_takes_no_decision,
        a_main_task_that_waits_alone_is_a_deadlock,
        a_witness_is_not_part_of_the_state,
        a_probe_of_a_window_is_met_once_witnesses_are_ordered,
        facts_added_in_either_order_are_one_state,
        a_report_that_records_an_operation_is_a_model_failure,
        a_section_that_touched_a_cell_is_not_one_step,
        a_woken_join_is_explored_alone_and_nothing_is_lost,
        condition_variables_on_disjoint_monitors,
        a_violation_behind_independent_operations_is_reached,
        a_read_is_named_by_what_it_saw,
        a_log_read_is_named_by_the_log_it_met,
        a_stateful_schedule_replays_to_its_final_state,
        a_choosing_transition_never_sleeps_on_another_values_footprint,
        random_programs_reach_the_same_final_states_under_both_engines,
        models_share_state_only_through_the_facade,
    ]
}
