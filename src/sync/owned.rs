//! The facade's own scheduling state, kept for the stateful engine (`--engine stateful`).
//!
//! Under that engine the facade's locks, condition variables and joins do not block inside
//! shuttle: each operation first yields to the engine ([`point`]), then takes effect at once
//! and is recorded here ([`record`]); a task whose operation cannot proceed is marked blocked
//! on the object ([`block`]) and is not offered to the engine until the object changes. So at
//! every scheduling decision each task stands just before its next operation, and the state of
//! the whole execution is a function of one thing: the order in which the tasks operated on
//! each object. [`signature`] is a 128-bit hash of those per-object orders, kept up to date as
//! operations are recorded; the engine remembers the signatures it has explored and does not
//! explore a state twice.
//!
//! Why a signature names a state:
//!
//! - Models are deterministic (no wall clock, no hash-map order, no randomness): a task's
//!   local state after its k-th operation is a function of the values its operations returned,
//!   and those are a function of each object's history up to them.
//! - Every piece of state two tasks share goes through a recorded operation: locks (acquiring
//!   is recorded; releasing happens in the holder's own code, before it next yields),
//!   condition variables (registering as a waiter and a notification that wakes one), joins,
//!   spawns, and the models' [`Ghost`](super::ghost::Ghost) cells (recorded, never yielded on,
//!   so that an end-of-run check that reads a ghost sees every write order). The recorder's
//!   own cell (the trace, probe counts) is not: the order of its writes decides no verdict.
//! - A task may also stop at a point inside shuttle that is not an operation (inside the
//!   engine's lock, which only the facade lock's holder ever takes, or at its own exit). Two
//!   states that differ only there reach the same operations in the same orders, so the engine
//!   looks a state up only at the first decision after an operation.
//! - Objects and tasks are named by who created them and in which order (not by address or by
//!   shuttle's task numbers), so that equivalent executions name them alike.
//!
//! Everything here is engine-invisible bookkeeping in a thread-local cell: under shuttle every
//! task runs on the OS thread that drives the exploration. When the engine is not running, the
//! registry is inactive and every function is a no-op.

use std::cell::RefCell;
use std::collections::BTreeMap;

/// An object of the facade (a lock, a condition variable, a ghost cell, a task's exit).
pub type ObjectId = u64;

/// What an operation did, folded into its object's history.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Op {
    /// A mutex acquired.
    Lock = 1,
    /// A read lock acquired.
    Read,
    /// A write lock acquired.
    Write,
    /// A waiter registered on a condition variable (and released its mutex).
    Wait,
    /// A notification that woke at least one waiter.
    Notify,
    /// A thread spawned (on the spawner's own object).
    Spawn,
    /// A thread finished (on its exit object).
    Exit,
    /// A thread joined (on the exit object of the thread joined).
    Join,
    /// A ghost cell read or written.
    Ghost,
}

#[derive(Default)]
struct Registry {
    /// Shuttle's task id -> a stable name: the main task is 1, a child is named by its parent
    /// and the order in which the parent spawned it, so that equivalent executions name their
    /// tasks alike whatever order the engine ran the spawns in.
    names: BTreeMap<usize, u64>,
    /// Per stable task name: objects created and threads spawned so far.
    created: BTreeMap<u64, u64>,
    spawned: BTreeMap<u64, u64>,
    /// Per object: the hash of the sequence of (task, operation) on it.
    chains: BTreeMap<ObjectId, u128>,
    signature: u128,
    operations: u64,
    /// Tasks (by shuttle id) whose next operation waits for a change of this object.
    blocked: BTreeMap<usize, ObjectId>,
    /// Threads that have finished, by stable name.
    finished: Vec<u64>,
}

thread_local! {
    static REGISTRY: RefCell<Option<Registry>> = const { RefCell::new(None) };
}

fn with<R>(f: impl FnOnce(&mut Registry) -> R) -> Option<R> {
    REGISTRY.with(|r| r.borrow_mut().as_mut().map(f))
}

/// `f` with the registry and the running task, inside an execution of the stateful engine.
fn within<R>(f: impl FnOnce(&mut Registry, usize) -> R) -> Option<R> {
    let task = task_id()?;
    with(|r| f(r, task))
}

/// Start a fresh execution's registry (the engine calls it before every execution).
pub fn reset() {
    REGISTRY.with(|r| *r.borrow_mut() = Some(Registry::default()));
}

/// Switch the registry off (the engine is done).
pub fn deactivate() {
    REGISTRY.with(|r| *r.borrow_mut() = None);
}

/// Whether the stateful engine is running in this thread.
pub fn active() -> bool {
    REGISTRY.with(|r| r.borrow().is_some())
}

fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn mix2(a: u64, b: u64) -> u64 {
    mix(mix(a) ^ b.rotate_left(17) ^ 0x5851_f42d_4c95_7f2d)
}

fn wide(a: u64, b: u64) -> u128 {
    (u128::from(mix2(a, b)) << 64) | u128::from(mix2(b ^ 0xd1b5_4a32_d192_ed03, a))
}

/// The running task, `None` outside an execution (an exploration's bookkeeping between two
/// executions reads ghost cells too).
#[cfg(not(loom))]
fn task_id() -> Option<usize> {
    shuttle::current::try_get_current_task().map(usize::from)
}

#[cfg(loom)]
fn task_id() -> Option<usize> {
    None
}

impl Registry {
    fn name_of(&mut self, task: usize) -> u64 {
        *self.names.entry(task).or_insert(1)
    }
}

/// The current task's id in the engine (0 outside an execution).
pub fn current_task() -> usize {
    task_id().unwrap_or(0)
}

/// A fresh object id, named by its creator and the order it created it in.
pub fn new_object() -> ObjectId {
    with(|r| {
        let creator = task_id().map_or(0, |t| r.name_of(t));
        let n = r.created.entry(creator).or_default();
        *n += 1;
        mix2(creator, *n)
    })
    .unwrap_or(0)
}

/// Yield to the engine before an operation.
pub fn point() {
    if active() && !std::thread::panicking() {
        super::thread::yield_now();
    }
}

/// Record that the current task did `op` on `object`.
pub fn record(object: ObjectId, op: Op) {
    within(|r, task| {
        let task = r.name_of(task);
        let old = r.chains.get(&object).copied();
        let new = wide(
            old.map_or(object, |h| (h as u64) ^ ((h >> 64) as u64) ^ object),
            mix2(task, op as u64),
        );
        if let Some(old) = old {
            r.signature = r
                .signature
                .wrapping_sub(wide(object, old as u64 ^ (old >> 64) as u64));
        }
        r.signature = r
            .signature
            .wrapping_add(wide(object, new as u64 ^ (new >> 64) as u64));
        r.chains.insert(object, new);
        r.operations += 1;
    });
}

/// The current task's next operation waits until `object` changes.
pub fn block(object: ObjectId) {
    within(|r, task| r.blocked.insert(task, object));
}

/// `object` changed: every task blocked on it may try again.
pub fn unblock(object: ObjectId) {
    with(|r| r.blocked.retain(|_, o| *o != object));
}

/// Whether the engine may run this task (by shuttle id): false while it is blocked.
pub fn enabled(task: usize) -> bool {
    with(|r| !r.blocked.contains_key(&task)).unwrap_or(true)
}

/// The signature of the state (the per-object orders so far) and how many operations it holds.
pub fn signature() -> (u128, u64) {
    with(|r| (r.signature, r.operations)).unwrap_or((0, 0))
}

/// The exit object of the thread named `name`.
fn exit_object(name: u64) -> ObjectId {
    mix2(name, 0xe417)
}

/// A spawn by the current task: records it and returns the child's stable name.
pub fn spawning() -> Option<u64> {
    let name = within(|r, task| {
        let parent = r.name_of(task);
        let n = r.spawned.entry(parent).or_default();
        *n += 1;
        (parent, mix2(parent, *n ^ 0x5b3a))
    })?;
    record(mix2(name.0, 0x5a), Op::Spawn);
    Some(name.1)
}

/// The first thing a spawned task does: take its stable name.
pub fn started(name: u64) {
    within(|r, task| r.names.insert(task, name));
}

/// The current task, named `name`, has finished its work.
pub fn finished(name: u64) {
    point();
    record(exit_object(name), Op::Exit);
    with(|r| r.finished.push(name));
    unblock(exit_object(name));
}

/// Wait (without blocking inside shuttle) until the thread named `name` has finished.
pub fn await_exit(name: u64) {
    loop {
        point();
        if with(|r| r.finished.contains(&name)).unwrap_or(true) {
            record(exit_object(name), Op::Join);
            return;
        }
        block(exit_object(name));
    }
}
