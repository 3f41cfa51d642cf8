//! The primitives for shuttle and loom, whose APIs both follow `std::sync`.
//!
//! Under the stateful engine ([`crate::engine::stateful`]) the same primitives run in a mode of their
//! own: each operation yields to the engine first, then takes effect at once and is recorded;
//! an operation that cannot proceed marks its task blocked instead of blocking inside shuttle.
//! The engine's lock underneath is then only ever taken by the task that holds the facade's,
//! so it never blocks.

use super::engine;
use super::Part;
use crate::engine::stateful::facade::{self as stateful, Access, ObjectId, Op};
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::PoisonError;

/// Whether this operation runs in the stateful engine's mode (never while unwinding: a task
/// torn down at the end of an abandoned execution takes its locks as shuttle does).
fn stateful_mode() -> bool {
    stateful::active() && !std::thread::panicking()
}

/// The facade's view of one lock in the stateful engine's mode.
#[derive(Debug)]
struct StatefulLock {
    id: ObjectId,
    held: AtomicBool,
    readers: AtomicUsize,
}

impl StatefulLock {
    fn new() -> Self {
        Self {
            id: stateful::new_object(),
            held: AtomicBool::new(false),
            readers: AtomicUsize::new(0),
        }
    }

    /// Yield, then take the lock (`shared`: as a reader) as soon as it is free.
    fn acquire(&self, shared: bool) {
        stateful::wants(self.id, shared);
        loop {
            stateful::point();
            let free = !self.held.load(SeqCst) && (shared || self.readers.load(SeqCst) == 0);
            if free {
                if shared {
                    self.readers.fetch_add(1, SeqCst);
                    stateful::record(self.id, Op::Read);
                } else {
                    self.held.store(true, SeqCst);
                    stateful::record(self.id, Op::Lock);
                }
                self.changed();
                return;
            }
            stateful::block(self.id);
        }
    }

    /// Tell the engine what the lock's state is now ([`stateful::lock_state`]).
    fn changed(&self) {
        stateful::lock_state(self.id, self.held.load(SeqCst), self.readers.load(SeqCst));
    }

    fn release(&self, shared: bool) {
        if shared {
            self.readers.fetch_sub(1, SeqCst);
            self.changed();
            // A blocked writer tries again either way: letting go commutes with another
            // reader's taking it.
            stateful::unblock_as(self.id, Access::Read);
        } else {
            self.held.store(false, SeqCst);
            self.changed();
            stateful::unblock(self.id);
        }
    }
}

/// Take the engine's lock underneath a facade lock: in the stateful engine's mode, just after
/// the facade's was taken, shuttle's scheduling point inside it is not a decision
/// ([`stateful::passing_engine_lock`]). Returns the guard and, in that mode, the mark of the
/// hold's start ([`stateful::hold_mark`]).
fn engine_lock<G>(stateful: bool, take: impl FnOnce() -> G) -> (G, Option<u64>) {
    if !stateful {
        return (take(), None);
    }
    stateful::passing_engine_lock(true);
    let guard = take();
    stateful::passing_engine_lock(false);
    (guard, Some(stateful::hold_mark()))
}

/// Let go of the engine's lock underneath a facade lock (before the facade's, so that no task
/// finds the facade's free and the engine's held). In the stateful engine's mode, after a
/// short hold ([`stateful::short_hold`]: its holder recorded and touched nothing and passed
/// no decision since it took the lock), shuttle's scheduling point inside the release is not
/// a decision: the hold ran only the holder's own code on the data the lock guards, so a task
/// run at that point, the facade's lock still taken, finds it held and waits, or does
/// something the hold did not touch and could as well have run just before it (the hold is
/// one step, as a [`Native`] value's is).
fn engine_unlock<G>(mark: Option<u64>, guard: &mut Option<G>) {
    if mark.is_some_and(|mark| !std::thread::panicking() && stateful::short_hold(mark)) {
        stateful::passing_engine_lock(true);
        drop(guard.take());
        stateful::passing_engine_lock(false);
    } else {
        drop(guard.take());
    }
}

/// Where a [`Mutex`] keeps its data. A mutex made in the stateful engine's mode keeps it in
/// a lock of its own (`Own`) rather than in the engine's: there the facade's lock alone
/// orders the holders ([`StatefulLock`]), and the engine's underneath would only add two
/// scheduling points that are no decisions, one at taking it and one at letting it go after
/// a short hold ([`engine_lock`], [`engine_unlock`]), each a pass through shuttle's
/// scheduler. The one decision it makes, inside the release of a hold that is not short, is
/// made by a yield of the same place ([`own_unlock`]).
#[derive(Debug)]
enum Slot<T> {
    Engine(engine::sync::Mutex<T>),
    Own(std::sync::Mutex<T>),
}

/// A held [`Slot`].
#[derive(Debug)]
enum SlotGuard<'a, T> {
    Engine(engine::sync::MutexGuard<'a, T>),
    Own(std::sync::MutexGuard<'a, T>),
}

impl<T> Deref for SlotGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        match self {
            SlotGuard::Engine(g) => g,
            SlotGuard::Own(g) => g,
        }
    }
}

impl<T> DerefMut for SlotGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        match self {
            SlotGuard::Engine(g) => g,
            SlotGuard::Own(g) => g,
        }
    }
}

impl<T> Slot<T> {
    fn new(value: T) -> Self {
        if stateful::active() {
            Slot::Own(std::sync::Mutex::new(value))
        } else {
            Slot::Engine(engine::sync::Mutex::new(value))
        }
    }

    /// Take the slot's lock, the facade's already taken in the stateful engine's mode
    /// (`stateful`); returns the guard and, in that mode, the mark of the hold's start.
    fn lock(&self, stateful: bool) -> (SlotGuard<'_, T>, Option<u64>) {
        match self {
            Slot::Engine(inner) => {
                let (guard, hold) = engine_lock(stateful, || {
                    inner.lock().unwrap_or_else(PoisonError::into_inner)
                });
                (SlotGuard::Engine(guard), hold)
            }
            Slot::Own(inner) => {
                // Out of that mode only while an abandoned execution is torn down, when no
                // holder runs on: a lock still held then is a holder torn down later.
                let guard = match inner.try_lock() {
                    Ok(guard) => guard,
                    Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
                    Err(std::sync::TryLockError::WouldBlock) => {
                        panic!("a mutex is taken while a task torn down holds it")
                    }
                };
                (SlotGuard::Own(guard), stateful.then(stateful::hold_mark))
            }
        }
    }
}

/// Let go of a held [`Slot`]: as [`engine_unlock`] for the engine's lock; for an own lock,
/// after a hold that is not short, first the yield that shuttle makes inside the engine
/// lock's release, a decision while the facade's lock is still taken.
fn slot_unlock<T>(mark: Option<u64>, guard: &mut Option<SlotGuard<'_, T>>) {
    if let Some(SlotGuard::Own(_)) = guard {
        own_unlock(mark);
        drop(guard.take());
    } else {
        engine_unlock(mark, guard);
    }
}

/// The decision inside the release of an own lock's hold that began at `mark`, unless the
/// hold is short or the task is torn down.
fn own_unlock(mark: Option<u64>) {
    if mark.is_some_and(|mark| !std::thread::panicking() && !stateful::short_hold(mark)) {
        engine::thread::yield_now();
    }
}

/// A mutual-exclusion lock (Java's `synchronized` or `ReentrantLock`, without re-entry).
#[derive(Debug)]
pub struct Mutex<T> {
    slot: Slot<T>,
    kind: &'static str,
    stateful: StatefulLock,
}

/// The guard of a held [`Mutex`]: the lock is released when it is dropped.
#[derive(Debug)]
pub struct MutexGuard<'a, T> {
    guard: Option<SlotGuard<'a, T>>,
    mutex: &'a Mutex<T>,
    /// In the stateful engine's mode, the mark of the hold's start ([`engine_lock`]).
    hold: Option<u64>,
}

impl<T> Deref for MutexGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.guard.as_deref().expect("a live guard")
    }
}

impl<T> DerefMut for MutexGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        self.guard.as_deref_mut().expect("a live guard")
    }
}

impl<T> Drop for MutexGuard<'_, T> {
    fn drop(&mut self) {
        slot_unlock(self.hold, &mut self.guard);
        if self.hold.is_some() {
            self.mutex.stateful.release(false);
        }
    }
}

impl<T> Mutex<T> {
    /// A new unlocked mutex holding `value`.
    pub fn new(value: T) -> Self {
        Self::labelled("lock", value)
    }

    /// A new unlocked mutex whose acquisitions are counted under `kind`
    /// ([`super::points`]).
    pub fn labelled(kind: &'static str, value: T) -> Self {
        Self {
            slot: Slot::new(value),
            kind,
            stateful: StatefulLock::new(),
        }
    }

    /// Block until the lock is held, and return its guard.
    pub fn lock(&self) -> MutexGuard<'_, T> {
        self.lock_as(super::points::count)
    }

    /// [`Mutex::lock`], its point counted by `count` ([`super::points`]).
    fn lock_as(&self, count: fn(&'static str)) -> MutexGuard<'_, T> {
        count(self.kind);
        let stateful = stateful_mode();
        if stateful {
            self.stateful.acquire(false);
        }
        let (guard, hold) = self.slot.lock(stateful);
        MutexGuard {
            guard: Some(guard),
            mutex: self,
            hold,
        }
    }
}

/// A value whose every hold is one short step that takes no other facade object (the
/// stateful engine checks it): a volatile, a channel's queue, a store's tables. Under shuttle and loom it is held as a [`Mutex`] is
/// (the same scheduling points). In the stateful engine's mode it is kept outside shuttle's
/// locks: an operation yields, then takes effect at once and is recorded with its kind
/// ([`Access`]), and the task runs on. So operations that commute (two reads, a send and a
/// receive) are not ordered by a lock the Java does not have.
///
/// Shuttle also stops inside the lock's release, the lock still taken; a task run there
/// cannot touch the value, and nothing of the holder's that another task sees ran after its
/// operation, so it may as well have run just before the operation (it was enabled there:
/// the operation changed nothing else). So that stop is no decision here, unless the hold
/// touched a ghost cell (a store's observer reads the model's to check an invariant): then,
/// as for a [`Mutex`], another task may change that cell between the hold and the holder's
/// code after it, and the value stays held through a decision there.
#[derive(Debug)]
pub(crate) struct Native<T> {
    lock: Mutex<()>,
    value: std::sync::Mutex<T>,
}

impl<T> Native<T> {
    /// A new value whose holds are counted under `kind` ([`super::points`]).
    pub(crate) fn labelled(kind: &'static str, value: T) -> Self {
        Self {
            lock: Mutex::labelled(kind, ()),
            value: std::sync::Mutex::new(value),
        }
    }

    fn value(&self) -> std::sync::MutexGuard<'_, T> {
        self.value.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Under shuttle and loom: hold the lock while `f` runs on the value.
    fn held<R>(&self, f: impl FnOnce(&mut T) -> R) -> R {
        let _hold = self.lock.lock();
        f(&mut self.value())
    }

    /// The stateful engine's mode: one operation. `op` names the operation the value allows
    /// now (`None`: none, wait until it changes); `apply` does it.
    /// `also`: more operations recorded with it (on the value's parts). `seen`: for a read
    /// named by what it saw ([`Native::read_seen`]), that name, taken from the value when the
    /// read takes effect.
    fn step<R>(
        &self,
        op: impl Fn(&T) -> Option<Op>,
        also: &[(ObjectId, Op)],
        seen: Option<&dyn Fn(&T) -> u64>,
        apply: impl FnOnce(&mut T) -> R,
    ) -> R {
        super::points::count(self.lock.kind);
        let id = self.lock.stateful.id;
        // The operation the value allows now: none while another task holds it.
        let allowed = || {
            let held = self.lock.stateful.held.load(SeqCst);
            (!held).then(|| op(&self.value())).flatten()
        };
        let op = loop {
            // Waiting before running: not offered while the operation cannot proceed, so
            // that no transition only finds that out (a write of the value the search would
            // order against every other step on it).
            if allowed().is_none() {
                stateful::wait_for(id);
            }
            stateful::point();
            if let Some(op) = allowed() {
                break op;
            }
            stateful::block(id);
        };
        let mark = stateful::hold_mark();
        stateful::in_hold(true);
        // One lock of the value serves both the read's name and the step.
        let (seen, result) = {
            let mut value = self.value();
            (seen.map(|name| name(&value)), apply(&mut value))
        };
        stateful::in_hold(false);
        let touched = !stateful::short_hold(mark);
        match seen {
            Some(seen) => stateful::record_read(id, seen),
            None => stateful::record(id, op),
        }
        for (object, op) in also {
            stateful::record(*object, *op);
        }
        if touched {
            // The hold touched a ghost cell (a store's observer reads the model's): as under
            // shuttle, the value stays held through the stop inside the release, where
            // another task may change that cell before the holder's code after the hold.
            self.lock.stateful.held.store(true, SeqCst);
            stateful::point();
            self.lock.stateful.held.store(false, SeqCst);
            stateful::unblock(id);
        } else {
            stateful::unblock_as(id, op.access());
        }
        result
    }

    /// Read the value in one hold: two reads commute.
    pub(crate) fn read<R>(&self, f: impl FnOnce(&T) -> R) -> R {
        self.read_named(None, f)
    }

    /// Read the value in one hold, the stateful engine naming the read by `seen` of the
    /// value rather than by its place among the writes. What `f` returns must follow from
    /// `seen` and the writes so far (see [`crate::sync::Concurrent::read_seen`]).
    pub(crate) fn read_seen<R>(&self, seen: &dyn Fn(&T) -> u64, f: impl FnOnce(&T) -> R) -> R {
        self.read_named(Some(seen), f)
    }

    /// A read in one hold, named by `seen` if given, else placed among the writes.
    fn read_named<R>(&self, seen: Option<&dyn Fn(&T) -> u64>, f: impl FnOnce(&T) -> R) -> R {
        if stateful_mode() {
            return self.step(|_| Some(Op::Load), &[], seen, |v| f(v));
        }
        self.held(|v| f(v))
    }

    /// Change the value in one hold.
    pub(crate) fn write<R>(&self, f: impl FnOnce(&mut T) -> R) -> R {
        if stateful_mode() {
            return self.step(|_| Some(Op::Store), &[], None, f);
        }
        self.held(f)
    }

    /// Read or change some parts of the value (a store's rows) in one hold. Under the
    /// stateful engine each part is an object of its own, named by its key ([`Part`]), so
    /// operations on different parts commute; the whole records that parts were read or
    /// written ([`Access::ReadParts`], [`Access::WriteParts`]), which a read or write of the
    /// whole does not commute with. With `whole_read` the operation reads every part besides
    /// (a store's observer looks at all its rows).
    pub(crate) fn parts<R>(
        &self,
        parts: &[Part<'_>],
        whole_read: bool,
        f: impl FnOnce(&mut T) -> R,
    ) -> R {
        if !stateful_mode() {
            return self.held(f);
        }
        let id = self.lock.stateful.id;
        let op = if parts.iter().any(|p| p.write) {
            Op::StoreParts
        } else {
            Op::LoadParts
        };
        let whole = whole_read.then_some((id, Op::Load));
        let each = parts.iter().map(|p| {
            let op = if p.write { Op::Store } else { Op::Load };
            (stateful::part(id, p.space, p.key), op)
        });
        let also: Vec<(ObjectId, Op)> = whole.into_iter().chain(each).collect();
        self.step(|_| Some(op), &also, None, f)
    }
}

/// A read-write lock (Java's `ReentrantReadWriteLock`, without re-entry).
#[derive(Debug)]
pub struct RwLock<T> {
    inner: engine::sync::RwLock<T>,
    stateful: StatefulLock,
}

/// The guard of a shared (read) hold of an [`RwLock`].
#[derive(Debug)]
pub struct RwLockReadGuard<'a, T> {
    guard: Option<engine::sync::RwLockReadGuard<'a, T>>,
    lock: &'a RwLock<T>,
    /// In the stateful engine's mode, the mark of the hold's start ([`engine_lock`]).
    hold: Option<u64>,
}

/// The guard of the exclusive (write) hold of an [`RwLock`].
#[derive(Debug)]
pub struct RwLockWriteGuard<'a, T> {
    guard: Option<engine::sync::RwLockWriteGuard<'a, T>>,
    lock: &'a RwLock<T>,
    /// In the stateful engine's mode, the mark of the hold's start ([`engine_lock`]).
    hold: Option<u64>,
}

impl<T> Deref for RwLockReadGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.guard.as_deref().expect("a live guard")
    }
}

impl<T> Deref for RwLockWriteGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.guard.as_deref().expect("a live guard")
    }
}

impl<T> DerefMut for RwLockWriteGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        self.guard.as_deref_mut().expect("a live guard")
    }
}

impl<T> Drop for RwLockReadGuard<'_, T> {
    fn drop(&mut self) {
        engine_unlock(self.hold, &mut self.guard);
        if self.hold.is_some() {
            self.lock.stateful.release(true);
        }
    }
}

impl<T> Drop for RwLockWriteGuard<'_, T> {
    fn drop(&mut self) {
        engine_unlock(self.hold, &mut self.guard);
        if self.hold.is_some() {
            self.lock.stateful.release(false);
        }
    }
}

impl<T> RwLock<T> {
    /// A new unlocked lock holding `value`.
    pub fn new(value: T) -> Self {
        Self {
            inner: engine::sync::RwLock::new(value),
            stateful: StatefulLock::new(),
        }
    }

    /// Block until a shared (read) lock is held.
    pub fn read(&self) -> RwLockReadGuard<'_, T> {
        super::points::count("rwlock read");
        let stateful = stateful_mode();
        if stateful {
            self.stateful.acquire(true);
        }
        let (guard, hold) = engine_lock(stateful, || {
            self.inner.read().unwrap_or_else(PoisonError::into_inner)
        });
        RwLockReadGuard {
            guard: Some(guard),
            lock: self,
            hold,
        }
    }

    /// Block until the exclusive (write) lock is held.
    pub fn write(&self) -> RwLockWriteGuard<'_, T> {
        super::points::count("rwlock write");
        let stateful = stateful_mode();
        if stateful {
            self.stateful.acquire(false);
        }
        let (guard, hold) = engine_lock(stateful, || {
            self.inner.write().unwrap_or_else(PoisonError::into_inner)
        });
        RwLockWriteGuard {
            guard: Some(guard),
            lock: self,
            hold,
        }
    }
}

/// A condition variable: Java's `wait`/`notifyAll` on a monitor.
///
/// A notification with no thread waiting changes nothing, so it is not made a scheduling
/// point: the engine would otherwise branch on it and, under loom, count it as an access that
/// conflicts with every wait on the same variable. The count of waiters is exact because a
/// waiter registers while it holds the monitor, and a notifier either holds the monitor or
/// changed the waited-for state under it before notifying, so a thread that could miss the
/// change is already counted. The count is engine-invisible bookkeeping: under shuttle and
/// loom every task runs on the one OS thread that drives the exploration.
#[derive(Debug)]
pub struct Condvar {
    inner: engine::sync::Condvar,
    waiters: AtomicUsize,
    id: ObjectId,
    /// The stateful engine's mode: the registered waiters (by shuttle id) and what may wake
    /// them.
    registered: std::sync::Mutex<Registered>,
}

/// What may wake a registered waiter in the stateful engine's mode, as shuttle's condition
/// variable keeps it: a `notify_one` makes every waiter registered at that moment eligible
/// (its epoch joins their lists); the first of them to run consumes the epoch, and a waiter
/// whose list empties blocks again. A `notify_all` wakes every registered waiter.
#[derive(Debug, PartialEq, Eq)]
enum Wake {
    Waiting,
    Signal(std::collections::VecDeque<u64>),
    Broadcast,
}

#[derive(Debug, Default)]
struct Registered {
    waiters: Vec<(usize, Wake)>,
    next_epoch: u64,
}

impl Default for Condvar {
    fn default() -> Self {
        Self::new()
    }
}

impl Condvar {
    /// A new condition variable.
    pub fn new() -> Self {
        Self {
            inner: engine::sync::Condvar::new(),
            waiters: AtomicUsize::new(0),
            id: stateful::new_object(),
            registered: std::sync::Mutex::new(Registered::default()),
        }
    }

    fn registered(&self) -> std::sync::MutexGuard<'_, Registered> {
        self.registered
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Release the guard's lock, wait for a notification, and take the lock again.
    /// Wake-ups may be spurious: call it in a loop that re-checks the condition.
    pub fn wait<'a, T>(&self, guard: MutexGuard<'a, T>) -> MutexGuard<'a, T> {
        self.wait_as(guard, super::points::count)
    }

    /// [`Condvar::wait`], its point counted by `count` ([`super::points`]).
    fn wait_as<'a, T>(
        &self,
        mut guard: MutexGuard<'a, T>,
        count: fn(&'static str),
    ) -> MutexGuard<'a, T> {
        count("condvar wait");
        if guard.hold.is_some() && stateful_mode() {
            // Register and release in one step (the caller holds the monitor), then wait to
            // be woken, then take the monitor again as any other acquirer.
            let mutex = guard.mutex;
            let me = stateful::current_task();
            self.waiters.fetch_add(1, SeqCst);
            self.registered().waiters.push((me, Wake::Waiting));
            stateful::record(self.id, Op::Wait);
            drop(guard);
            // Just registered, it is not woken yet: it waits from here, rather than being run
            // once more only to find that out (the registration touched the variable as a
            // write, and so does every notification that wakes it).
            stateful::block(self.id);
            loop {
                stateful::point();
                if self.try_wake(me) {
                    break;
                }
                stateful::block(self.id);
            }
            self.waiters.fetch_sub(1, SeqCst);
            return mutex.lock_as(super::points::count_inner);
        }
        self.waiters.fetch_add(1, SeqCst);
        let Some(SlotGuard::Engine(inner)) = guard.guard.take() else {
            panic!("a wait outside the stateful engine's mode on a mutex made in it");
        };
        guard.guard = Some(SlotGuard::Engine(
            self.inner
                .wait(inner)
                .unwrap_or_else(PoisonError::into_inner),
        ));
        self.waiters.fetch_sub(1, SeqCst);
        guard
    }

    /// The stateful engine's mode: whether the waiter `me` may wake now; if a `notify_one`
    /// wakes it, it consumes that notification, and a waiter left with none blocks again.
    fn try_wake(&self, me: usize) -> bool {
        stateful::touch(self.id);
        let mut r = self.registered();
        let at = r
            .waiters
            .iter()
            .position(|(t, _)| *t == me)
            .expect("a registered waiter");
        let epoch = match &mut r.waiters[at].1 {
            Wake::Waiting => return false,
            Wake::Broadcast => None,
            Wake::Signal(epochs) => epochs.pop_front(),
        };
        r.waiters.remove(at);
        let Some(epoch) = epoch else {
            return true;
        };
        for (task, wake) in &mut r.waiters {
            if let Wake::Signal(epochs) = wake {
                epochs.retain(|e| *e != epoch);
                if epochs.is_empty() {
                    *wake = Wake::Waiting;
                    stateful::block_task(*task, self.id);
                }
            }
        }
        drop(r);
        stateful::record(self.id, Op::Woken);
        true
    }

    /// Wake every waiter.
    pub fn notify_all(&self) {
        self.notify(false, super::points::count);
    }

    /// Wake one waiter (which one is the engine's choice).
    pub fn notify_one(&self) {
        self.notify(true, super::points::count);
    }

    /// Wake one waiter or all, the point counted by `count` ([`super::points`]).
    fn notify(&self, one: bool, count: fn(&'static str)) {
        // Finding no waiter reads the variable, and changes nothing: the stateful engine's
        // footprint has it as a read, which commutes with another notification that found
        // none, not with a waiter's registration.
        stateful::look(self.id);
        if self.waiters.load(SeqCst) == 0 {
            return;
        }
        count("condvar notify");
        if stateful_mode() {
            stateful::point();
            let mut r = self.registered();
            if r.waiters.iter().all(|(_, wake)| *wake == Wake::Broadcast) {
                // No waiter, or every one already woken by a `notify_all`: nothing changes,
                // so it is a look, as one that finds no waiter above.
                stateful::look(self.id);
                return;
            }
            stateful::touch(self.id);
            let epoch = r.next_epoch;
            for (_, wake) in &mut r.waiters {
                match wake {
                    Wake::Broadcast => {}
                    _ if !one => *wake = Wake::Broadcast,
                    Wake::Waiting => *wake = Wake::Signal([epoch].into()),
                    Wake::Signal(epochs) => epochs.push_back(epoch),
                }
            }
            r.next_epoch += 1;
            drop(r);
            stateful::record(self.id, if one { Op::NotifyOne } else { Op::Notify });
            stateful::unblock(self.id);
            return;
        }
        if one {
            self.inner.notify_one();
        } else {
            self.inner.notify_all();
        }
    }
}

/// Unbounded multi-producer channels, built on [`Mutex`] and [`Condvar`]: loom's own
/// `mpsc` never reports a hang-up, so a receiver could not see its senders leave.
///
/// A send to a receiver that is gone is dropped silently: no model acts on it, and telling
/// the sender would make the receiver's drop a scheduling point of its own. In the stateful
/// engine's mode the queue is kept outside shuttle's locks, and a send and a receive that
/// takes a value commute (the channel is not empty then).
pub mod channel {
    use super::{stateful_mode, Condvar, Native, Op};
    use crate::sync::points::count_inner;
    use std::collections::VecDeque;
    use std::sync::Arc;

    #[derive(Debug)]
    struct Queue<T> {
        items: VecDeque<T>,
        senders: usize,
    }

    #[derive(Debug)]
    struct Shared<T> {
        queue: Native<Queue<T>>,
        /// Under shuttle and loom: signalled on a send and on the last sender's drop.
        ready: Condvar,
    }

    /// The sending half.
    #[derive(Debug)]
    pub struct Sender<T>(Arc<Shared<T>>);
    /// The receiving half.
    #[derive(Debug)]
    pub struct Receiver<T>(Arc<Shared<T>>);

    /// A new unbounded channel.
    pub fn unbounded<T>() -> (Sender<T>, Receiver<T>) {
        let shared = Arc::new(Shared {
            queue: Native::labelled(
                "channel",
                Queue {
                    items: VecDeque::new(),
                    senders: 1,
                },
            ),
            ready: Condvar::new(),
        });
        (Sender(Arc::clone(&shared)), Receiver(shared))
    }

    impl<T> Clone for Sender<T> {
        fn clone(&self) -> Self {
            if stateful_mode() {
                self.0
                    .queue
                    .step(|_| Some(Op::Senders), &[], None, |q| q.senders += 1);
            } else {
                self.0.queue.held(|q| q.senders += 1);
            }
            Self(Arc::clone(&self.0))
        }
    }

    impl<T> Drop for Sender<T> {
        fn drop(&mut self) {
            let shared = &self.0;
            if stateful_mode() {
                shared
                    .queue
                    .step(|_| Some(Op::Senders), &[], None, |q| q.senders -= 1);
                return;
            }
            let _hold = shared.queue.lock.lock();
            let mut q = shared.queue.value();
            q.senders -= 1;
            if q.senders == 0 {
                shared.ready.notify(false, count_inner);
            }
        }
    }

    impl<T> Sender<T> {
        /// Send a value.
        pub fn send(&self, value: T) {
            let shared = &self.0;
            if stateful_mode() {
                shared
                    .queue
                    .step(|_| Some(Op::Send), &[], None, |q| q.items.push_back(value));
                return;
            }
            let _hold = shared.queue.lock.lock();
            shared.queue.value().items.push_back(value);
            shared.ready.notify(false, count_inner);
        }
    }

    impl<T> Receiver<T> {
        /// Block for the next value; `None` once every sender is gone and the channel is empty.
        pub fn recv(&self) -> Option<T> {
            let shared = &self.0;
            if stateful_mode() {
                let op = |q: &Queue<T>| match (q.items.is_empty(), q.senders) {
                    (false, _) => Some(Op::Receive),
                    (true, 0) => Some(Op::Senders),
                    (true, _) => None,
                };
                return shared.queue.step(op, &[], None, |q| q.items.pop_front());
            }
            let mut hold = shared.queue.lock.lock();
            loop {
                let mut q = shared.queue.value();
                if let Some(v) = q.items.pop_front() {
                    return Some(v);
                }
                if q.senders == 0 {
                    return None;
                }
                drop(q);
                hold = shared.ready.wait_as(hold, count_inner);
            }
        }
    }
}

/// Threads whose interleaving the engine controls.
pub mod thread {
    use super::{engine, stateful};

    /// An stateful permission to join a thread.
    #[derive(Debug)]
    pub struct JoinHandle<T> {
        handle: engine::thread::JoinHandle<T>,
        /// The thread's stable name under the stateful engine.
        name: Option<u32>,
    }

    /// Spawn a named thread.
    pub fn spawn<F, T>(name: &str, f: F) -> JoinHandle<T>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        crate::sync::points::count("spawn");
        let stable = if super::stateful_mode() {
            stateful::left_mover();
            stateful::spawning()
        } else {
            None
        };
        let handle = engine::thread::Builder::new()
            .name(name.to_string())
            .spawn(move || match stable {
                Some(stable) => {
                    stateful::started(stable);
                    let out = f();
                    stateful::finished(stable);
                    out
                }
                None => f(),
            })
            .unwrap_or_else(|e| panic!("cannot spawn thread {name}: {e}"));
        #[cfg(not(loom))]
        if let Some(stable) = stable {
            stateful::spawned(stable, usize::from(handle.thread().id()));
        }
        JoinHandle {
            handle,
            name: stable,
        }
    }

    impl<T> JoinHandle<T> {
        /// Wait for the thread to finish; a panic in it is resumed here.
        pub fn join(self) -> T {
            crate::sync::points::count("join");
            if let Some(name) = self.name.filter(|_| super::stateful_mode()) {
                stateful::await_exit(name);
            }
            self.handle
                .join()
                .unwrap_or_else(|payload| std::panic::resume_unwind(payload))
        }
    }

    /// Let the engine run another thread.
    pub fn yield_now() {
        engine::thread::yield_now();
    }
}

/// A choice among `n` (at least 2) options, made by shuttle's engine: a random value the
/// schedule records, or under the stateful engine a decision it explores.
#[cfg(not(loom))]
pub(super) fn choose_among(n: usize) -> usize {
    use shuttle::rand::RngCore;
    stateful::choosing(n);
    let value = (shuttle::rand::thread_rng().next_u64() % n as u64) as usize;
    stateful::chose(value);
    value
}

/// A choice among `n` (at least 2) options, read from the loom driver's tape.
#[cfg(loom)]
pub(super) fn choose_among(n: usize) -> usize {
    crate::engine::loom_choice(n)
}
