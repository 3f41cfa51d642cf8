//! The primitives for shuttle and loom, whose APIs both follow `std::sync`.
//!
//! Under the stateful engine ([`super::owned`]) the same primitives run in a mode of their
//! own: each operation yields to the engine first, then takes effect at once and is recorded;
//! an operation that cannot proceed marks its task blocked instead of blocking inside shuttle.
//! The engine's lock underneath is then only ever taken by the task that holds the facade's,
//! so it never blocks.

use super::engine;
use super::owned::{self, ObjectId, Op};
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::PoisonError;

/// Whether this operation runs in the stateful engine's mode (never while unwinding: a task
/// torn down at the end of an abandoned execution takes its locks as shuttle does).
fn owned_mode() -> bool {
    owned::active() && !std::thread::panicking()
}

/// The facade's view of one lock in the stateful engine's mode.
#[derive(Debug)]
struct Owned {
    id: ObjectId,
    held: AtomicBool,
    readers: AtomicUsize,
}

impl Owned {
    fn new() -> Self {
        Self {
            id: owned::new_object(),
            held: AtomicBool::new(false),
            readers: AtomicUsize::new(0),
        }
    }

    /// Yield, then take the lock (`shared`: as a reader) as soon as it is free.
    fn acquire(&self, shared: bool) {
        loop {
            owned::point();
            let free = !self.held.load(SeqCst) && (shared || self.readers.load(SeqCst) == 0);
            if free {
                if shared {
                    self.readers.fetch_add(1, SeqCst);
                    owned::record(self.id, Op::Read);
                } else {
                    self.held.store(true, SeqCst);
                    owned::record(self.id, Op::Lock);
                }
                return;
            }
            owned::block(self.id);
        }
    }

    fn release(&self, shared: bool) {
        if shared {
            self.readers.fetch_sub(1, SeqCst);
        } else {
            self.held.store(false, SeqCst);
        }
        owned::unblock(self.id);
    }
}

/// A mutual-exclusion lock (Java's `synchronized` or `ReentrantLock`, without re-entry).
#[derive(Debug)]
pub struct Mutex<T> {
    inner: engine::sync::Mutex<T>,
    kind: &'static str,
    owned: Owned,
}

/// The guard of a held [`Mutex`]: the lock is released when it is dropped.
#[derive(Debug)]
pub struct MutexGuard<'a, T> {
    guard: Option<engine::sync::MutexGuard<'a, T>>,
    mutex: &'a Mutex<T>,
    owned: bool,
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
        // The engine's lock first, so that no task finds the facade's free and the engine's
        // held.
        drop(self.guard.take());
        if self.owned {
            self.mutex.owned.release(false);
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
            inner: engine::sync::Mutex::new(value),
            kind,
            owned: Owned::new(),
        }
    }

    /// Block until the lock is held, and return its guard.
    pub fn lock(&self) -> MutexGuard<'_, T> {
        super::points::count(self.kind);
        let owned = owned_mode();
        if owned {
            self.owned.acquire(false);
        }
        MutexGuard {
            guard: Some(self.inner.lock().unwrap_or_else(PoisonError::into_inner)),
            mutex: self,
            owned,
        }
    }
}

/// A read-write lock (Java's `ReentrantReadWriteLock`, without re-entry).
#[derive(Debug)]
pub struct RwLock<T> {
    inner: engine::sync::RwLock<T>,
    owned: Owned,
}

/// The guard of a shared (read) hold of an [`RwLock`].
#[derive(Debug)]
pub struct RwLockReadGuard<'a, T> {
    guard: Option<engine::sync::RwLockReadGuard<'a, T>>,
    lock: &'a RwLock<T>,
    owned: bool,
}

/// The guard of the exclusive (write) hold of an [`RwLock`].
#[derive(Debug)]
pub struct RwLockWriteGuard<'a, T> {
    guard: Option<engine::sync::RwLockWriteGuard<'a, T>>,
    lock: &'a RwLock<T>,
    owned: bool,
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
        drop(self.guard.take());
        if self.owned {
            self.lock.owned.release(true);
        }
    }
}

impl<T> Drop for RwLockWriteGuard<'_, T> {
    fn drop(&mut self) {
        drop(self.guard.take());
        if self.owned {
            self.lock.owned.release(false);
        }
    }
}

impl<T> RwLock<T> {
    /// A new unlocked lock holding `value`.
    pub fn new(value: T) -> Self {
        Self {
            inner: engine::sync::RwLock::new(value),
            owned: Owned::new(),
        }
    }

    /// Block until a shared (read) lock is held.
    pub fn read(&self) -> RwLockReadGuard<'_, T> {
        super::points::count("rwlock read");
        let owned = owned_mode();
        if owned {
            self.owned.acquire(true);
        }
        RwLockReadGuard {
            guard: Some(self.inner.read().unwrap_or_else(PoisonError::into_inner)),
            lock: self,
            owned,
        }
    }

    /// Block until the exclusive (write) lock is held.
    pub fn write(&self) -> RwLockWriteGuard<'_, T> {
        super::points::count("rwlock write");
        let owned = owned_mode();
        if owned {
            self.owned.acquire(false);
        }
        RwLockWriteGuard {
            guard: Some(self.inner.write().unwrap_or_else(PoisonError::into_inner)),
            lock: self,
            owned,
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
    /// The stateful engine's mode: tasks (by shuttle id) registered and not yet notified.
    registered: std::sync::Mutex<Vec<usize>>,
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
            id: owned::new_object(),
            registered: std::sync::Mutex::new(Vec::new()),
        }
    }

    fn registered(&self) -> std::sync::MutexGuard<'_, Vec<usize>> {
        self.registered
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Release the guard's lock, wait for a notification, and take the lock again.
    /// Wake-ups may be spurious: call it in a loop that re-checks the condition.
    pub fn wait<'a, T>(&self, mut guard: MutexGuard<'a, T>) -> MutexGuard<'a, T> {
        super::points::count("condvar wait");
        if guard.owned && owned_mode() {
            // Register and release in one step (the caller holds the monitor), then wait to
            // be notified, then take the monitor again as any other acquirer.
            let mutex = guard.mutex;
            let me = owned::current_task();
            self.waiters.fetch_add(1, SeqCst);
            self.registered().push(me);
            owned::record(self.id, Op::Wait);
            drop(guard);
            loop {
                owned::point();
                if !self.registered().contains(&me) {
                    break;
                }
                owned::block(self.id);
            }
            self.waiters.fetch_sub(1, SeqCst);
            return mutex.lock();
        }
        self.waiters.fetch_add(1, SeqCst);
        let inner = guard.guard.take().expect("a live guard");
        guard.guard = Some(
            self.inner
                .wait(inner)
                .unwrap_or_else(PoisonError::into_inner),
        );
        self.waiters.fetch_sub(1, SeqCst);
        guard
    }

    /// Wake every waiter.
    pub fn notify_all(&self) {
        self.notify(usize::MAX);
    }

    /// Wake one waiter.
    pub fn notify_one(&self) {
        self.notify(1);
    }

    fn notify(&self, how_many: usize) {
        if self.waiters.load(SeqCst) == 0 {
            return;
        }
        super::points::count("condvar notify");
        if owned_mode() {
            owned::point();
            let mut registered = self.registered();
            if registered.is_empty() {
                return;
            }
            let n = how_many.min(registered.len());
            registered.drain(..n);
            drop(registered);
            owned::record(self.id, Op::Notify);
            owned::unblock(self.id);
            return;
        }
        if how_many == 1 {
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
/// the sender would make the receiver's drop a scheduling point of its own.
pub mod channel {
    use super::{Condvar, Mutex};
    use std::collections::VecDeque;
    use std::sync::Arc;

    #[derive(Debug)]
    struct Queue<T> {
        items: VecDeque<T>,
        senders: usize,
    }

    #[derive(Debug)]
    struct Shared<T> {
        queue: Mutex<Queue<T>>,
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
            queue: Mutex::labelled(
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
            self.0.queue.lock().senders += 1;
            Self(Arc::clone(&self.0))
        }
    }

    impl<T> Drop for Sender<T> {
        fn drop(&mut self) {
            let mut q = self.0.queue.lock();
            q.senders -= 1;
            if q.senders == 0 {
                self.0.ready.notify_all();
            }
        }
    }

    impl<T> Sender<T> {
        /// Send a value.
        pub fn send(&self, value: T) {
            let mut q = self.0.queue.lock();
            q.items.push_back(value);
            self.0.ready.notify_all();
        }
    }

    impl<T> Receiver<T> {
        /// Block for the next value; `None` once every sender is gone and the channel is empty.
        pub fn recv(&self) -> Option<T> {
            let mut q = self.0.queue.lock();
            loop {
                if let Some(v) = q.items.pop_front() {
                    return Some(v);
                }
                if q.senders == 0 {
                    return None;
                }
                q = self.0.ready.wait(q);
            }
        }
    }
}

/// Threads whose interleaving the engine controls.
pub mod thread {
    use super::{engine, owned};

    /// An owned permission to join a thread.
    #[derive(Debug)]
    pub struct JoinHandle<T> {
        handle: engine::thread::JoinHandle<T>,
        /// The thread's stable name under the stateful engine.
        name: Option<u64>,
    }

    /// Spawn a named thread.
    pub fn spawn<F, T>(name: &str, f: F) -> JoinHandle<T>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        crate::sync::points::count("spawn");
        let stable = if super::owned_mode() {
            owned::point();
            owned::spawning()
        } else {
            None
        };
        let handle = engine::thread::Builder::new()
            .name(name.to_string())
            .spawn(move || match stable {
                Some(stable) => {
                    owned::started(stable);
                    let out = f();
                    owned::finished(stable);
                    out
                }
                None => f(),
            })
            .unwrap_or_else(|e| panic!("cannot spawn thread {name}: {e}"));
        JoinHandle {
            handle,
            name: stable,
        }
    }

    impl<T> JoinHandle<T> {
        /// Wait for the thread to finish; a panic in it is resumed here.
        pub fn join(self) -> T {
            crate::sync::points::count("join");
            if let Some(name) = self.name.filter(|_| super::owned_mode()) {
                owned::await_exit(name);
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
