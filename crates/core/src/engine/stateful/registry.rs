//! The facade's own scheduling state, kept for the stateful engine: which objects exist,
//! who created them, the per-object chains of operations (the state's signature), and which
//! tasks are blocked on what. The facade writes it through [`super::facade`]; the search reads
//! it. Under shuttle every task runs on the OS thread that drives the exploration, so it lives
//! in a thread-local cell; when the engine is not running it is inactive and every function
//! is a no-op.

use std::cell::RefCell;
use std::collections::BTreeMap;

/// An object of the facade (a lock, a condition variable, a ghost cell, a task's exit), named
/// by its creator and creation order. [`UNNAMED`] is an object made outside an execution.
pub(crate) type ObjectId = u32;

/// The name of an object created while no execution of the stateful engine was running.
pub(crate) const UNNAMED: ObjectId = 0;

/// What an operation did, folded into its object's history.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Op {
    /// A mutex or a write lock acquired.
    Lock = 1,
    /// A read lock acquired.
    Read,
    /// A waiter registered on a condition variable (and released its mutex).
    Wait,
    /// A `notify_all` with at least one waiter.
    Notify,
    /// A `notify_one` with at least one waiter.
    NotifyOne,
    /// A waiter consumed a `notify_one` (which waiter did is the engine's choice).
    Woken,
    /// A thread spawned (on the spawner's own object).
    Spawn,
    /// A thread finished (on its exit object). Joining it is no operation: see "Exit
    /// steps" in the module docs.
    Exit,
    /// A ghost cell read or written.
    Ghost,
    /// A value sent on a channel.
    Send,
    /// A value received from a channel.
    Receive,
    /// A channel's senders counted (a sender cloned or dropped), or a receive that found
    /// every sender gone.
    Senders,
    /// A value kept outside shuttle's locks read (a volatile, a store's tables).
    Load,
    /// A value kept outside shuttle's locks written.
    Store,
    /// Parts of such a value read, each recorded as a [`Op::Load`] of its own ([`part`]).
    LoadParts,
    /// Parts of such a value written, each recorded as a [`Op::Store`] of its own.
    StoreParts,
    /// A choice made by [`crate::sync::choose`] (on the choosing task's own object; the value
    /// chosen is folded into its identity).
    #[cfg_attr(any(loom, ohc_threads), allow(dead_code))]
    Chose,
    /// A fact added to a [`Facts`](crate::sync::ghost::Facts) cell (the fact's fingerprint
    /// folded into its identity).
    Add,
}

impl Op {
    /// Every kind with its name in reports, in the order of their values.
    #[cfg_attr(any(loom, ohc_threads), allow(dead_code))]
    const NAMED: [(Op, &'static str); 18] = [
        (Op::Lock, "lock"),
        (Op::Read, "read lock"),
        (Op::Wait, "wait"),
        (Op::Notify, "notify all"),
        (Op::NotifyOne, "notify one"),
        (Op::Woken, "woken"),
        (Op::Spawn, "spawn"),
        (Op::Exit, "exit"),
        (Op::Ghost, "ghost"),
        (Op::Send, "send"),
        (Op::Receive, "receive"),
        (Op::Senders, "senders"),
        (Op::Load, "load"),
        (Op::Store, "store"),
        (Op::LoadParts, "load parts"),
        (Op::StoreParts, "store parts"),
        (Op::Chose, "choice"),
        (Op::Add, "fact added"),
    ];

    /// Its bit in a set of kinds ([`OpKinds`]).
    fn bit(self) -> u32 {
        1 << (self as u8)
    }
}

/// A set of operation kinds, one bit per [`Op`]: what a transition recorded
/// ([`last_recorded`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct OpKinds(u32);

#[cfg_attr(any(loom, ohc_threads), allow(dead_code))]
impl OpKinds {
    /// The set's name in reports: its kinds joined by ` + `, in [`Op`]'s order, or
    /// `nothing recorded`.
    pub(crate) fn name(self) -> String {
        let names: Vec<&str> = Op::NAMED
            .iter()
            .filter(|(op, _)| self.0 & op.bit() != 0)
            .map(|(_, name)| *name)
            .collect();
        if names.is_empty() {
            "nothing recorded".to_string()
        } else {
            names.join(" + ")
        }
    }
}

impl Op {
    /// How the operation meets others on its object.
    pub(crate) fn access(self) -> Access {
        match self {
            Op::Read | Op::Load => Access::Read,
            Op::Send => Access::Send,
            Op::Receive => Access::Receive,
            Op::LoadParts => Access::ReadParts,
            Op::StoreParts => Access::WriteParts,
            Op::Add => Access::Add,
            _ => Access::Write,
        }
    }
}

/// How an operation, or a transition's look at an object, meets the others on that object.
/// Two of different tasks commute unless their kinds conflict: reads commute with reads (a
/// read lock taken or let go, a volatile read, a read of a store's tables), a send with a
/// receive (a receive that takes a value finds the channel non-empty, so a send behind it
/// changes neither what it takes nor, taken first or second, what is left), an addition to a
/// set of facts with another (the set after both is their union, whichever came first: see
/// [`Facts`](crate::sync::ghost::Facts) for why what each addition checks may differ);
/// everything else conflicts.
///
/// A value made of parts (a store's rows) is one object, and each part is one more
/// ([`part`]): an operation on some parts is recorded on each of them, and on the whole as
/// [`Access::ReadParts`] or [`Access::WriteParts`]. Those commute with each other (which
/// parts they share, the parts' own objects tell), and a read of parts with a read of the
/// whole (a scan, a checkpoint); a write of parts conflicts with a read of the whole, and a
/// write of the whole (a reopen, an install) with everything. These are the intention modes
/// of a multiple-granularity lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Access {
    /// Changes the object, or reads what a change would alter.
    Write,
    /// Reads it.
    Read,
    /// Appends a value to a channel.
    Send,
    /// Takes the value at a non-empty channel's head.
    Receive,
    /// Reads some of its parts, recorded on each.
    ReadParts,
    /// Changes some of its parts, recorded on each.
    WriteParts,
    /// Adds a fact to a set of facts.
    Add,
}

impl Access {
    /// The kinds there are, as indexes into [`History::by_kind`].
    const KINDS: usize = 7;

    /// Every kind, by index.
    const ALL: [Access; Access::KINDS] = [
        Access::Write,
        Access::Read,
        Access::Send,
        Access::Receive,
        Access::ReadParts,
        Access::WriteParts,
        Access::Add,
    ];

    /// Whether the two, by different tasks, do not commute.
    pub(crate) fn conflicts(self, other: Access) -> bool {
        use Access::{Add, Read, ReadParts, Receive, Send, WriteParts};
        !matches!(
            (self, other),
            (Read | ReadParts, Read | ReadParts)
                | (Add, Add)
                | (ReadParts | WriteParts, ReadParts | WriteParts)
                | (Send, Receive)
                | (Receive, Send)
        )
    }
}

/// An object's history, kept so that a new operation's place in it can be named without
/// the order of the operations it commutes with: the sum (modulo 2^128) of the identities of
/// the operations done on it so far, by kind.
#[derive(Clone, Copy, Debug, Default)]
struct History {
    by_kind: [u128; Access::KINDS],
}

impl History {
    /// The operations so far that `access` does not commute with, as one sum.
    fn before(&self, access: Access) -> u128 {
        Access::ALL
            .iter()
            .filter(|k| k.conflicts(access))
            .fold(0u128, |sum, k| sum.wrapping_add(self.by_kind[*k as usize]))
    }
}

/// What one transition of a task (its run from one scheduling decision to the next) touched:
/// the objects whose facade state it read or changed (a lock taken, found held or released;
/// a condition variable's waiters; a ghost cell; the spawner's object; the task's own choice
/// object), and the exit object of a thread that the transition exits or joins, until the
/// task's next operation (see [`lifecycle`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Footprint {
    /// Sorted, without repeats.
    objects: Vec<(ObjectId, Access)>,
    /// For the search over source sets: the tasks (by shuttle id) the transition spawned,
    /// and those it unblocked, which could not run before it.
    pub(crate) children: Vec<usize>,
    pub(crate) woke: Vec<usize>,
    /// The facade's locks it took, and those it let go; a join takes, and an exit lets
    /// go, the thread's exit object.
    pub(crate) acquired: Vec<ObjectId>,
    pub(crate) released: Vec<ObjectId>,
}

impl Footprint {
    /// Whether two transitions of different tasks commute: no object is in both with kinds
    /// that conflict.
    #[cfg(not(any(loom, ohc_threads)))]
    pub(crate) fn independent(&self, other: &Footprint) -> bool {
        !self.objects.iter().any(|(object, access)| {
            let from = other.objects.partition_point(|(o, _)| o < object);
            other.objects[from..]
                .iter()
                .take_while(|(o, _)| o == object)
                .any(|(_, a)| a.conflicts(*access))
        })
    }

    /// A footprint of these accesses alone, for tests.
    #[cfg(all(test, not(any(loom, ohc_threads))))]
    pub(crate) fn of(mut objects: Vec<(ObjectId, Access)>) -> Self {
        objects.sort_unstable();
        objects.dedup();
        Self {
            objects,
            ..Self::default()
        }
    }

    /// The objects touched and how, sorted by object.
    #[cfg(not(any(loom, ohc_threads)))]
    pub(crate) fn accesses(&self) -> &[(ObjectId, Access)] {
        &self.objects
    }
}

/// Names that hold for a whole search: the same (creator, order) gets the same name in every
/// execution.
#[derive(Default)]
struct Names {
    /// (parent task, spawn order) -> task name; the main task is 1.
    tasks: BTreeMap<(u32, u32), u32>,
    /// (creating task, creation order) -> object name.
    objects: BTreeMap<(u32, u32), ObjectId>,
    /// (whole, space) -> key -> the part's object name ([`part`]).
    parts: BTreeMap<(ObjectId, Space), BTreeMap<String, ObjectId>>,
    /// Object names given so far, parts included.
    given: ObjectId,
}

/// A space of keys within a value made of parts (a store's committed rows of one table, or
/// its table cache's entries for that table).
pub(crate) type Space = (u8, &'static str);

impl Names {
    fn task(&mut self, parent: u32, order: u32) -> u32 {
        let next = 2 + u32::try_from(self.tasks.len()).expect("fewer than 2^32 names");
        *self.tasks.entry((parent, order)).or_insert(next)
    }

    fn fresh(given: &mut ObjectId) -> ObjectId {
        *given = given.checked_add(1).expect("fewer than 2^32 objects");
        *given
    }

    fn object(&mut self, creator: u32, order: u32) -> ObjectId {
        let given = &mut self.given;
        *self
            .objects
            .entry((creator, order))
            .or_insert_with(|| Self::fresh(given))
    }

    fn part(&mut self, whole: ObjectId, space: Space, key: &str) -> ObjectId {
        let keys = self.parts.entry((whole, space)).or_default();
        if let Some(id) = keys.get(key) {
            return *id;
        }
        let id = Self::fresh(&mut self.given);
        keys.insert(key.to_string(), id);
        id
    }
}

/// One execution's bookkeeping.
#[derive(Default)]
struct Execution {
    /// Shuttle's task id -> the task's stable name (absent: the main task, 1).
    names: BTreeMap<usize, u32>,
    /// Per stable task name: objects created and threads spawned so far.
    created: BTreeMap<u32, u32>,
    spawned: BTreeMap<u32, u32>,
    /// Per object: its history, by kind of operation.
    histories: BTreeMap<ObjectId, History>,
    /// Per task (by stable name): the operations it has done, which numbers its next.
    done: BTreeMap<u32, u32>,
    signature: u128,
    operations: u64,
    /// Tasks (by shuttle id) whose next operation waits for a change of this object.
    blocked: BTreeMap<usize, ObjectId>,
    /// Tasks (by shuttle id) standing before taking a lock, with the lock and whether as a
    /// reader ([`wants`]): such a task is not offered while the lock is taken against it.
    #[cfg_attr(any(loom, ohc_threads), allow(dead_code))]
    wants: BTreeMap<usize, (ObjectId, bool)>,
    /// The facade's locks that are taken: whether by a writer, and how many readers.
    #[cfg_attr(any(loom, ohc_threads), allow(dead_code))]
    locks: BTreeMap<ObjectId, (bool, usize)>,
    /// Threads that have finished, by stable name.
    finished: Vec<u32>,
    /// Threads (by stable name) whose join has begun: the joiner (by shuttle id), and
    /// whether the join has found the thread exited ([`exit_steps`]).
    joins: BTreeMap<u32, (usize, bool)>,
    /// The number of options of the choice the running task is about to make, between
    /// [`choosing`] and the engine's answer.
    #[cfg_attr(any(loom, ohc_threads), allow(dead_code))]
    choosing: Option<usize>,
    /// The task (by shuttle id) whose transition is running, and what it has touched.
    #[cfg_attr(any(loom, ohc_threads), allow(dead_code))]
    running: Option<usize>,
    footprint: Footprint,
    /// Tasks (by shuttle id) between an exit or a join and their next operation, with the
    /// exit object of the thread concerned, which their transitions touch ([`lifecycle`]).
    lifecycle: BTreeMap<usize, ObjectId>,
    /// Per task (by stable name): the scheduling decisions it has passed since its last
    /// recorded operation, which tells apart the points a task stops at between two
    /// operations.
    positions: BTreeMap<u32, u32>,
    /// The engine cut this execution's path ([`finish`]): nothing more is looked up.
    finishing: bool,
    /// A task is inside a hold of a value kept outside shuttle's locks ([`in_hold`]).
    in_hold: bool,
    /// The task (by shuttle id) about to take or let go of the engine's lock underneath a
    /// facade lock at a scheduling point that is not a decision ([`passing_engine_lock`]).
    #[cfg_attr(any(loom, ohc_threads), allow(dead_code))]
    passing: Option<usize>,
    /// Operations recorded, objects touched and decisions taken so far: a hold during which
    /// it stays the same is short ([`hold_mark`]).
    events: u64,
    /// The kinds of the operations the running transition recorded, and the last finished
    /// transition's ([`last_recorded`]).
    recorded: OpKinds,
    #[cfg_attr(any(loom, ohc_threads), allow(dead_code))]
    last_recorded: OpKinds,
}

#[derive(Default)]
struct Registry {
    names: Names,
    execution: Execution,
    /// Whether the running transition's footprint is kept ([`track`]).
    tracking: bool,
    /// Whether a witness's accesses enter the footprints ([`order_witnesses`]).
    witnessing: bool,
}

impl Registry {
    fn touch(&mut self, object: ObjectId, access: Access) {
        self.execution.events += 1;
        if self.tracking {
            self.execution.footprint.objects.push((object, access));
        }
    }
}

/// Keep the footprint of the transition about to run, or not (the search needs only those of
/// options it has not run before, and only in its unbounded pass).
#[cfg(not(any(loom, ohc_threads)))]
pub(crate) fn track(on: bool) {
    with(|r| r.tracking = on);
}

/// Whether this execution orders witness cells: a probe's read and every write of one are
/// in the footprints ([`witness`]). Set for every execution of a search that asked for it.
#[cfg(not(any(loom, ohc_threads)))]
pub(crate) fn order_witnesses(on: bool) {
    with(|r| r.witnessing = on);
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

/// Start a search: names are kept from here until [`deactivate`].
#[cfg(not(any(loom, ohc_threads)))]
pub(crate) fn activate() {
    REGISTRY.with(|r| *r.borrow_mut() = Some(Registry::default()));
}

/// Start a fresh execution of the search (the engine calls it before every execution).
#[cfg(not(any(loom, ohc_threads)))]
pub(crate) fn reset() {
    with(|r| r.execution = Execution::default());
}

/// Switch the registry off (the search is done).
#[cfg(not(any(loom, ohc_threads)))]
pub(crate) fn deactivate() {
    REGISTRY.with(|r| *r.borrow_mut() = None);
}

/// Whether the stateful engine is running in this thread.
pub(crate) fn active() -> bool {
    REGISTRY.with(|r| r.borrow().is_some())
}

/// An operation's identity: the `nth` operation of `task`, `op` on `object` with an operand.
fn identity(object: ObjectId, task: u32, nth: u32, op: Op, value: u64) -> u128 {
    let mut bytes = [0u8; 21];
    bytes[..4].copy_from_slice(&object.to_le_bytes());
    bytes[4..8].copy_from_slice(&task.to_le_bytes());
    bytes[8..12].copy_from_slice(&nth.to_le_bytes());
    bytes[12] = op as u8;
    bytes[13..].copy_from_slice(&value.to_le_bytes());
    xxhash_rust::xxh3::xxh3_128(&bytes)
}

/// An operation in its place: its identity and the sum of the identities of the operations
/// on its object that came before it and that it does not commute with.
fn placed(identity: u128, before: u128) -> u128 {
    let mut bytes = [0u8; 32];
    bytes[..16].copy_from_slice(&identity.to_le_bytes());
    bytes[16..].copy_from_slice(&before.to_le_bytes());
    xxhash_rust::xxh3::xxh3_128(&bytes)
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

impl Execution {
    fn name_of(&self, task: usize) -> u32 {
        self.names.get(&task).copied().unwrap_or(1)
    }

    /// Whether `task` runs alone: no thread has been spawned yet and it is not blocked, so a
    /// decision there would have one option ("Alone" in the module docs).
    fn alone(&self, task: usize) -> bool {
        self.spawned.is_empty() && !self.blocked.contains_key(&task)
    }

    /// Count an operation of the task with shuttle id `task`: its stable name and the
    /// operation's identity, or `None` when the execution is being cut (nothing more is
    /// recorded then).
    fn operation(
        &mut self,
        object: ObjectId,
        op: Op,
        task: usize,
        value: u64,
    ) -> Option<(u32, u128)> {
        assert!(
            object != UNNAMED,
            "an object made outside the execution is used in it: the stateful engine cannot \
             tell its states apart (make every lock and ghost inside the case's run)"
        );
        self.events += 1;
        self.recorded.0 |= op.bit();
        if self.finishing {
            return None;
        }
        let task = self.name_of(task);
        let nth = self.done.entry(task).or_default();
        *nth += 1;
        Some((task, identity(object, task, *nth, op, value)))
    }

    /// An operation was added to the signature: count it, put it in the running transition's
    /// footprint if that is kept, and start the task's count of decisions afresh.
    fn took_effect(&mut self, tracking: bool, object: ObjectId, access: Access, task: u32) {
        self.operations += 1;
        if tracking {
            self.footprint.objects.push((object, access));
        }
        self.positions.insert(task, 0);
    }
}

/// The current task's id in the engine (0 outside an execution).
pub(crate) fn current_task() -> usize {
    task_id().unwrap_or(0)
}

/// The stable name of the task with this shuttle id (the same task in every execution that
/// reaches it), for the engine's bookkeeping.
#[cfg(not(any(loom, ohc_threads)))]
pub(crate) fn task_name(task: usize) -> u32 {
    with(|r| r.execution.name_of(task)).unwrap_or(0)
}

/// A fresh object id, named by its creator and the order it created it in; [`UNNAMED`]
/// outside an execution.
pub(crate) fn new_object() -> ObjectId {
    within(|r, task| {
        let creator = r.execution.name_of(task);
        let n = r.execution.created.entry(creator).or_default();
        *n += 1;
        let order = *n;
        r.names.object(creator, order)
    })
    .unwrap_or(UNNAMED)
}

/// The object of the part of `whole` named by `key` in `space` (a store's row): the same
/// name in every execution. [`UNNAMED`] for a part of an unnamed object, or outside an
/// execution.
pub(crate) fn part(whole: ObjectId, space: Space, key: &str) -> ObjectId {
    if whole == UNNAMED {
        return UNNAMED;
    }
    within(|r, _| r.names.part(whole, space, key)).unwrap_or(UNNAMED)
}

/// Yield to the engine before an operation; in a finishing execution ([`finish`]), and
/// before the execution's first spawn (the main task is alone), only a blocked task yields,
/// as the engine would let any other go on anyway.
pub(crate) fn point() {
    if active() && !std::thread::panicking() && settle() != Some(true) {
        crate::sync::thread::yield_now();
    }
}

/// What a yield before an operation does in the registry, without the yield: the task's
/// transition ends its touches of an exit object it exited or joined. Whether the task would
/// run on at a yield anyway: it is not blocked, and the execution is finishing or has spawned
/// no thread yet (a decision there has one option: see "Alone" in the module docs).
fn settle() -> Option<bool> {
    within(|r, task| {
        assert!(
            !r.execution.in_hold,
            "a facade operation inside the hold of a volatile, a channel or a store: the \
             stateful engine takes that hold as one step, so nothing in it may wait or yield"
        );
        if let Some(exit) = r.execution.lifecycle.remove(&task) {
            r.touch(exit, Access::Write);
        }
        let e = &r.execution;
        e.alone(task) || (e.finishing && !e.blocked.contains_key(&task))
    })
}

/// Before an operation that moves left past any transition of another task (a spawn, a
/// join's first attempt): no decision, only the registry's part of [`point`]. See "Spawns
/// and joins" in the module docs.
pub(crate) fn left_mover() {
    if active() && !std::thread::panicking() {
        settle();
    }
}

/// The current task enters (`true`) or leaves the one step of a hold of a value kept
/// outside shuttle's locks, in which no facade operation may wait or yield.
pub(crate) fn in_hold(on: bool) {
    with(|r| r.execution.in_hold = on);
}

/// The engine cut this execution's path: it runs to its end without preemptions, and
/// nothing more is looked up, so the tasks need not yield at their operations (each yield
/// costs a pass through shuttle's scheduler) and their operations need not be recorded.
/// Which tasks are blocked is still kept, as it decides who can run.
#[cfg(not(any(loom, ohc_threads)))]
pub(crate) fn finish() {
    with(|r| {
        r.execution.finishing = true;
        r.tracking = false;
    });
}

/// Whether the engine cut this execution's path ([`finish`]).
#[cfg(not(any(loom, ohc_threads)))]
pub(crate) fn finishing() -> bool {
    with(|r| r.execution.finishing).unwrap_or(false)
}

/// `true`: the current task is about to take or let go of the engine's lock underneath a
/// facade lock, at a scheduling point of shuttle's that is not a decision ([`passing`]);
/// `false`: it has. Shuttle stops a task once inside the engine's lock, just after the
/// facade's was taken and its operation recorded, before any more of its code runs: a task
/// run there instead of just before the operation could see no difference but the lock
/// held. It stops the task once more inside the release of a short hold ([`short_hold`]),
/// the facade's lock still taken: a task run there instead of just after the release could
/// see no difference but the lock held either. Cleared once passed, so that a stop shuttle
/// did not make there is never mistaken for a later one.
pub(crate) fn passing_engine_lock(on: bool) {
    within(|r, task| r.execution.passing = on.then_some(task));
}

/// Taken at the start of a hold (just after a facade lock's engine lock is held, or before
/// a value kept outside shuttle's locks is applied): what [`short_hold`] compares with at its
/// end.
pub(crate) fn hold_mark() -> u64 {
    with(|r| r.execution.events).unwrap_or(0)
}

/// Whether the hold that began at `mark` is *short*: since it began, nothing was recorded or
/// touched and no decision was taken. Its holder then ran only its own code on the data the
/// lock guards, which no other task touches without the lock.
pub(crate) fn short_hold(mark: u64) -> bool {
    with(|r| r.execution.events == mark).unwrap_or(false)
}

/// Whether shuttle stopped the task with this shuttle id at a point that is not a decision:
/// at the engine's lock ([`passing_engine_lock`]), anywhere while it is alone and not
/// blocked (before the execution's first spawn, [`point`]), or on its way out after its
/// exit ([`finished`]; "Exits" in the module docs). The engine runs it on.
/// Asked once per stop.
#[cfg(not(any(loom, ohc_threads)))]
pub(crate) fn passing(task: usize) -> bool {
    with(|r| {
        let e = &mut r.execution;
        let at_lock = e.passing.take() == Some(task);
        at_lock || e.alone(task) || e.finished.contains(&e.name_of(task))
    })
    .unwrap_or(false)
}

/// Record that the current task did `op` on `object`.
pub(crate) fn record(object: ObjectId, op: Op) {
    record_value(object, op, 0);
}

/// Record that the current task read `object` and got what `seen` names (a fingerprint of
/// the part of the value the read returned, see "Reads named by what they saw" in the module
/// docs). The read enters the state by what it saw, not by its place among the object's
/// writes, and it is left out of the object's history: writes are placed among the writes
/// (and the reads recorded by [`record`]) alone.
pub(crate) fn record_read(object: ObjectId, seen: u64) {
    within(|r, task| {
        let e = &mut r.execution;
        if let Some((task, me)) = e.operation(object, Op::Load, task, seen) {
            e.signature = e.signature.wrapping_add(me);
            e.took_effect(r.tracking, object, Access::Read, task);
        }
    });
}

/// Record that the current task added the fact that `fact` names (its fingerprint) to the set
/// of facts `object`: the addition commutes with every other addition ([`Access::Add`]), so
/// its place does not depend on theirs.
pub(crate) fn record_added(object: ObjectId, fact: u64) {
    record_value(object, Op::Add, fact);
}

/// Record that the current task did `op` on `object`, with an operand that tells two such
/// operations apart (the value of a choice, a fact added).
fn record_value(object: ObjectId, op: Op, value: u64) {
    within(|r, task| {
        let e = &mut r.execution;
        if let Some((task, me)) = e.operation(object, op, task, value) {
            let access = op.access();
            let history = e.histories.entry(object).or_default();
            e.signature = e.signature.wrapping_add(placed(me, history.before(access)));
            history.by_kind[access as usize] = history.by_kind[access as usize].wrapping_add(me);
            e.took_effect(r.tracking, object, access, task);
        }
    });
}

/// The running transition touched `object` without recording an operation on it (it found
/// a lock held, released one, or found a condition variable's waiters).
pub(crate) fn touch(object: ObjectId) {
    with(|r| r.touch(object, Access::Write));
}

/// The running transition looked at `object` and changed nothing (a notification that found
/// no waiter to wake): it commutes with another such look, as neither changes what the other sees.
pub(crate) fn look(object: ObjectId) {
    with(|r| r.touch(object, Access::Read));
}

/// The running transition read (a probe, [`Access::Read`]) or wrote a witness cell, which is
/// in no state. Where the search orders witnesses ([`order_witnesses`]: the search over
/// source sets run to meet a probe, "Source sets" in the module docs), the access enters
/// the footprint, so that the probe's read is reordered against the writes that open and
/// close its window. It is no event: it decides no stop, so an execution takes the same
/// decisions whether witnesses are ordered or not, and its schedule replays either way.
pub(crate) fn witness(object: ObjectId, access: Access) {
    with(|r| {
        if r.witnessing && r.tracking {
            r.execution.footprint.objects.push((object, access));
        }
    });
}

/// The current task exits, or joins, the thread whose exit object is `exit`: its
/// transitions touch `exit` until its next operation. A join may block inside shuttle until
/// the exiting thread's last transition (after its exit is recorded, shuttle switches once
/// more before the task ends), so both touch the exit object and are dependent.
fn lifecycle(exit: ObjectId) {
    within(|r, task| {
        r.touch(exit, Access::Write);
        r.execution.lifecycle.insert(task, exit);
    });
}

/// The engine runs the task with this shuttle id until the next decision; its transition
/// touches a thread's exit object while it is in shuttle's bookkeeping of that thread.
#[cfg(not(any(loom, ohc_threads)))]
pub(crate) fn begin_transition(task: usize) {
    with(|r| {
        r.execution.footprint = Footprint::default();
        r.execution.recorded = OpKinds::default();
        if let Some(exit) = r.execution.lifecycle.get(&task).copied() {
            r.touch(exit, Access::Write);
        }
        r.execution.running = Some(task);
    });
}

/// The running transition is over (its task reached a decision): what it touched, `None`
/// before the first transition. The task has passed one more decision.
#[cfg(not(any(loom, ohc_threads)))]
pub(crate) fn end_transition() -> Option<Footprint> {
    with(|r| {
        let e = &mut r.execution;
        let task = e.running.take()?;
        e.last_recorded = std::mem::take(&mut e.recorded);
        e.events += 1;
        let name = e.name_of(task);
        *e.positions.entry(name).or_default() += 1;
        let mut footprint = std::mem::take(&mut e.footprint);
        footprint.objects.sort_unstable();
        footprint.objects.dedup();
        Some(footprint)
    })
    .flatten()
}

/// The kinds of the operations the last finished transition recorded ([`end_transition`]).
#[cfg(not(any(loom, ohc_threads)))]
pub(crate) fn last_recorded() -> OpKinds {
    with(|r| r.execution.last_recorded).unwrap_or_default()
}

/// The stable name of the task with this shuttle id and where it stands: the decisions it
/// has passed since its last recorded operation. Two states with one signature may differ
/// in where a task stands between two operations; a task asleep in both stands at the same
/// point only if this is the same.
#[cfg(not(any(loom, ohc_threads)))]
pub(crate) fn standing(task: usize) -> (u32, u32) {
    with(|r| {
        let name = r.execution.name_of(task);
        (name, r.execution.positions.get(&name).copied().unwrap_or(0))
    })
    .unwrap_or((0, 0))
}

/// The current task's next operation waits until `object` changes.
pub(crate) fn block(object: ObjectId) {
    within(|r, task| {
        r.touch(object, Access::Write);
        r.execution.blocked.insert(task, object)
    });
}

/// The current task stands before an operation on `object` that cannot proceed now (a
/// receive from an empty channel whose senders are not all gone, a join of a thread that has
/// not exited): the engine does not offer it until `object` changes. Finding that out touches nothing: see "Waiting before
/// running" in the module docs.
pub(crate) fn wait_for(object: ObjectId) {
    within(|r, task| r.execution.blocked.insert(task, object));
}

/// The task with this shuttle id waits again until `object` changes (a `notify_one` it was
/// eligible for was consumed by another waiter).
pub(crate) fn block_task(task: usize, object: ObjectId) {
    with(|r| {
        r.touch(object, Access::Write);
        r.execution.blocked.insert(task, object)
    });
}

/// `object` changed: every task blocked on it may try again.
pub(crate) fn unblock(object: ObjectId) {
    unblock_as(object, Access::Write);
}

/// [`unblock`], by an access of this kind (a read lock let go wakes a writer, but commutes
/// with another reader's taking it: either way the writer tries again and finds it held).
pub(crate) fn unblock_as(object: ObjectId, access: Access) {
    with(|r| {
        r.touch(object, access);
        let woke = &mut r.execution.footprint.woke;
        let tracking = r.tracking;
        r.execution.blocked.retain(|&task, o| {
            let stays = *o != object;
            if !stays && tracking {
                woke.push(task);
            }
            stays
        });
    });
}

/// Whether the engine may run this task (by shuttle id): false while it is blocked, or
/// stands before taking a lock that is taken against it ([`wants`]).
#[cfg(not(any(loom, ohc_threads)))]
pub(crate) fn enabled(task: usize) -> bool {
    with(|r| {
        let e = &r.execution;
        let free = |&(lock, shared): &(ObjectId, bool)| {
            let (held, readers) = e.locks.get(&lock).copied().unwrap_or_default();
            !held && (shared || readers == 0)
        };
        !e.blocked.contains_key(&task) && e.wants.get(&task).is_none_or(free)
    })
    .unwrap_or(true)
}

/// Every task whose next operation is known while it has not run it: those standing before
/// a lock (with the lock and `Read` for a reader, and `true`: a taking), and those blocked
/// on an object (a waiter, a receive on an empty channel). By shuttle id, in order.
#[cfg(not(any(loom, ohc_threads)))]
pub(crate) fn pending() -> Vec<(usize, ObjectId, Access, bool)> {
    with(|r| {
        let e = &r.execution;
        let mut out: Vec<(usize, ObjectId, Access, bool)> = e
            .wants
            .iter()
            .map(|(&t, &(lock, shared))| {
                (
                    t,
                    lock,
                    if shared { Access::Read } else { Access::Write },
                    true,
                )
            })
            .collect();
        for (&t, &o) in &e.blocked {
            if !e.wants.contains_key(&t) {
                out.push((t, o, Access::Write, false));
            }
        }
        out.sort_unstable_by_key(|x| x.0);
        out
    })
    .unwrap_or_default()
}

/// The current task stands before taking `lock` (`shared`: as a reader), until it takes it
/// ([`lock_state`]).
/// While the lock is taken against it, the engine does not offer it: running it would only
/// find the lock taken and block, a transition that changes nothing but which the search
/// would have to order against every other on the lock. The lock changes only through
/// transitions that take or let it go, which touch it, as the task's own taking does: so
/// a transition that makes the task runnable or not conflicts with the task's.
pub(crate) fn wants(lock: ObjectId, shared: bool) {
    within(|r, task| r.execution.wants.insert(task, (lock, shared)));
}

/// The current task took `lock`, which it stood before ([`wants`]), or let it go: the lock
/// is now taken by a writer (`held`) or by `readers` readers.
pub(crate) fn lock_state(lock: ObjectId, held: bool, readers: usize) {
    within(|r, task| {
        if r.tracking {
            if r.execution.wants.contains_key(&task) {
                r.execution.footprint.acquired.push(lock);
            } else {
                r.execution.footprint.released.push(lock);
            }
        }
        r.execution.wants.remove(&task);
        r.execution.locks.insert(lock, (held, readers));
    });
}

/// The signature of the state (the per-object orders so far) and how many operations it holds.
#[cfg(not(any(loom, ohc_threads)))]
pub(crate) fn signature() -> (u128, u64) {
    with(|r| (r.execution.signature, r.execution.operations)).unwrap_or((0, 0))
}

/// The current task is about to make a choice among `n` options: the engine's next request
/// for a random value is that decision.
#[cfg(not(any(loom, ohc_threads)))]
pub(crate) fn choosing(n: usize) {
    within(|r, _| r.execution.choosing = Some(n));
}

/// The number of options of the choice being made, if the engine's request for a random
/// value is one (taken: each choice is one decision).
#[cfg(not(any(loom, ohc_threads)))]
pub(crate) fn take_choice() -> Option<usize> {
    with(|r| r.execution.choosing.take()).flatten()
}

/// Record the choice the current task made: its local state now depends on the value, so
/// the value is part of the state.
#[cfg(not(any(loom, ohc_threads)))]
pub(crate) fn chose(value: usize) {
    let Some(object) = within(|r, task| {
        let name = r.execution.name_of(task);
        r.names.object(name, u32::MAX - 1)
    }) else {
        return;
    };
    record_value(object, Op::Chose, value as u64);
}

/// The tasks among `options` (by shuttle id) whose next transition only ends a thread's
/// life or joins it: a thread that has exited and has one more step inside shuttle, and a
/// joiner woken by the exit it waited for. Such a transition touches exit objects that no
/// other task will touch once its join has begun ([`exit_private`]), so with those tasks
/// explored first the others need not be: see "Exit steps" in the module docs.
#[cfg(not(any(loom, ohc_threads)))]
pub(crate) fn exit_steps(options: &[usize]) -> Vec<usize> {
    with(|r| {
        let e = &r.execution;
        // Both kinds need a thread that has exited: until one has, no scan at each decision.
        if e.finished.is_empty() {
            return Vec::new();
        }
        options
            .iter()
            .copied()
            .filter(|&task| {
                e.finished.contains(&e.name_of(task))
                    || e.joins.iter().any(|(joined, &(joiner, returned))| {
                        joiner == task && !returned && e.finished.contains(joined)
                    })
            })
            .collect()
    })
    .unwrap_or_default()
}

/// Whether a transition with this footprint touched nothing another task may touch later:
/// only exit objects of threads whose join has begun (the thread's own last steps and its
/// one joiner touch them, and the joiner has taken the handle) and spawners' objects (each
/// touched by its own task's spawns alone).
#[cfg(not(any(loom, ohc_threads)))]
pub(crate) fn exit_private(footprint: &Footprint) -> bool {
    with(|r| {
        let e = &r.execution;
        let exits = e.joins.keys().map(|&joined| (joined, 0));
        let tasks = e.names.values().copied().chain([1]);
        let private: Vec<ObjectId> = exits
            .chain(tasks.map(|task| (task, u32::MAX)))
            .filter_map(|name| r.names.objects.get(&name).copied())
            .collect();
        footprint
            .objects
            .iter()
            .all(|(object, _)| private.contains(object))
    })
    .unwrap_or(false)
}

/// The exit object of the thread named `name`: the object its own spawn created for it.
fn exit_object(r: &mut Registry, name: u32) -> ObjectId {
    r.names.object(name, 0)
}

/// The spawner's object, on which its spawns are recorded.
fn spawner_object(r: &mut Registry, name: u32) -> ObjectId {
    r.names.object(name, u32::MAX)
}

/// A spawn by the current task: records it and returns the child's stable name.
pub(crate) fn spawning() -> Option<u32> {
    let (object, child) = within(|r, task| {
        let parent = r.execution.name_of(task);
        let n = r.execution.spawned.entry(parent).or_default();
        *n += 1;
        let order = *n;
        (spawner_object(r, parent), r.names.task(parent, order))
    })?;
    record(object, Op::Spawn);
    Some(child)
}

/// Shuttle made the thread named `name` as the task with this id. Shuttle switches once
/// inside a spawn, before it makes the task, so two spawns' tasks are numbered in the order
/// their spawners come back from that switch; the child is named here, in the spawner's
/// transition that made it (before the child can run), so that a child that has not run yet
/// (and may be asleep) is told apart from the others. Making the task changes nothing
/// another task sees but shuttle's numbering, which the engine never puts in a state: that
/// transition, and the child's start, touch no more than their own operations.
#[cfg(not(any(loom, ohc_threads)))]
pub(crate) fn spawned(name: u32, task: usize) {
    with(|r| {
        if r.tracking {
            r.execution.footprint.children.push(task);
        }
        r.execution.names.insert(task, name)
    });
}

/// The first thing a spawned task does: check the name it was given when it was made.
pub(crate) fn started(name: u32) {
    within(|r, task| {
        assert_eq!(
            r.execution.names.get(&task),
            Some(&name),
            "the stateful engine names each spawned task when shuttle makes it, before it \
             runs: task {task} was not"
        );
    });
}

/// The current task, named `name`, has finished its work. Its exit is recorded without a
/// decision before it: see "Exits" in the module docs.
pub(crate) fn finished(name: u32) {
    let Some(exit) = with(|r| exit_object(r, name)) else {
        return;
    };
    lifecycle(exit);
    record(exit, Op::Exit);
    with(|r| {
        r.execution.finished.push(name);
        if r.tracking {
            r.execution.footprint.released.push(exit);
        }
    });
    unblock(exit);
}

/// Wait (without blocking inside shuttle) until the thread named `name` has finished.
pub(crate) fn await_exit(name: u32) {
    let Some(exit) = with(|r| exit_object(r, name)) else {
        return;
    };
    within(|r, task| r.execution.joins.insert(name, (task, false)));
    let exited = || with(|r| r.execution.finished.contains(&name)).unwrap_or(true);
    loop {
        if !exited() {
            wait_for(exit);
        }
        point();
        touch(exit);
        if exited() {
            lifecycle(exit);
            within(|r, task| {
                r.execution.joins.insert(name, (task, true));
                if r.tracking {
                    r.execution.footprint.acquired.push(exit);
                }
            });
            return;
        }
        block(exit);
    }
}
