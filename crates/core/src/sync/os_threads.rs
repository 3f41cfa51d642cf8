//! The primitives for real OS threads: parking_lot locks and crossbeam channels.

pub use parking_lot::{MutexGuard, RwLockReadGuard, RwLockWriteGuard};
pub use std::sync::atomic;

/// A mutual-exclusion lock (Java's `synchronized` or `ReentrantLock`, without re-entry).
#[derive(Debug)]
pub struct Mutex<T>(parking_lot::Mutex<T>);

impl<T> Mutex<T> {
    /// A new unlocked mutex holding `value`.
    pub fn new(value: T) -> Self {
        Self(parking_lot::Mutex::new(value))
    }

    /// A new unlocked mutex; `kind` names it for the exploration engines' counts, which
    /// real threads do not keep.
    pub fn labelled(_kind: &'static str, value: T) -> Self {
        Self::new(value)
    }

    /// Block until the lock is held, and return its guard.
    pub fn lock(&self) -> MutexGuard<'_, T> {
        self.0.lock()
    }
}

/// A value whose every hold is one short step: a volatile, a store's tables. Real threads
/// take it as a [`Mutex`].
#[derive(Debug)]
pub(crate) struct Native<T>(Mutex<T>);

impl<T> Native<T> {
    /// A new value; `kind` names it for the exploration engines' counts.
    pub(crate) fn labelled(kind: &'static str, value: T) -> Self {
        Self(Mutex::labelled(kind, value))
    }

    /// Read the value in one hold.
    pub(crate) fn read<R>(&self, f: impl FnOnce(&T) -> R) -> R {
        f(&self.0.lock())
    }

    /// Read the value in one hold (the name matters to the stateful engine only).
    pub(crate) fn read_seen<R>(&self, _seen: &dyn Fn(&T) -> u64, f: impl FnOnce(&T) -> R) -> R {
        self.read(f)
    }

    /// Change the value in one hold.
    pub(crate) fn write<R>(&self, f: impl FnOnce(&mut T) -> R) -> R {
        f(&mut self.0.lock())
    }

    /// Read or change some parts of the value in one hold (the parts matter to the stateful
    /// engine only).
    pub(crate) fn parts<R>(
        &self,
        _parts: &[super::Part<'_>],
        _whole_read: bool,
        f: impl FnOnce(&mut T) -> R,
    ) -> R {
        f(&mut self.0.lock())
    }
}

/// A read-write lock (Java's `ReentrantReadWriteLock`, without re-entry).
#[derive(Debug)]
pub struct RwLock<T>(parking_lot::RwLock<T>);

impl<T> RwLock<T> {
    /// A new unlocked lock holding `value`.
    pub fn new(value: T) -> Self {
        Self(parking_lot::RwLock::new(value))
    }

    /// Block until a shared (read) lock is held.
    pub fn read(&self) -> RwLockReadGuard<'_, T> {
        self.0.read()
    }

    /// Block until the exclusive (write) lock is held.
    pub fn write(&self) -> RwLockWriteGuard<'_, T> {
        self.0.write()
    }
}

/// A condition variable: Java's `wait`/`notifyAll` on a monitor.
#[derive(Debug, Default)]
pub struct Condvar(parking_lot::Condvar);

impl Condvar {
    /// A new condition variable.
    pub fn new() -> Self {
        Self(parking_lot::Condvar::new())
    }

    /// Release the guard's lock, wait for a notification, and take the lock again.
    /// Wake-ups may be spurious: call it in a loop that re-checks the condition.
    pub fn wait<'a, T>(&self, mut guard: MutexGuard<'a, T>) -> MutexGuard<'a, T> {
        self.0.wait(&mut guard);
        guard
    }

    /// Wake every waiter.
    pub fn notify_all(&self) {
        self.0.notify_all();
    }

    /// Wake one waiter.
    pub fn notify_one(&self) {
        self.0.notify_one();
    }
}

/// Unbounded multi-producer channels.
pub mod channel {
    /// The sending half.
    #[derive(Debug)]
    pub struct Sender<T>(crossbeam::channel::Sender<T>);
    /// The receiving half.
    #[derive(Debug)]
    pub struct Receiver<T>(crossbeam::channel::Receiver<T>);

    /// A new unbounded channel.
    pub fn unbounded<T>() -> (Sender<T>, Receiver<T>) {
        let (s, r) = crossbeam::channel::unbounded();
        (Sender(s), Receiver(r))
    }

    impl<T> Clone for Sender<T> {
        fn clone(&self) -> Self {
            Self(self.0.clone())
        }
    }

    impl<T> Sender<T> {
        /// Send a value (dropped if the receiver is gone).
        pub fn send(&self, value: T) {
            // A receiver that is gone drops the value, as the other backends do.
            let _ = self.0.send(value);
        }
    }

    impl<T> Receiver<T> {
        /// Block for the next value; `None` once every sender is gone and the channel is empty.
        pub fn recv(&self) -> Option<T> {
            self.0.recv().ok()
        }
    }
}

/// Real OS threads.
pub mod thread {
    /// An owned permission to join a thread.
    #[derive(Debug)]
    pub struct JoinHandle<T>(std::thread::JoinHandle<T>);

    /// Spawn a named thread.
    pub fn spawn<F, T>(name: &str, f: F) -> JoinHandle<T>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        // The spawned thread draws its choices from its spawner's run.
        let stream = crate::engine::threads_stream();
        let handle = std::thread::Builder::new()
            .name(name.to_string())
            .spawn(move || {
                crate::engine::threads_adopt(stream);
                f()
            })
            .unwrap_or_else(|e| panic!("cannot spawn thread {name}: {e}"));
        JoinHandle(handle)
    }

    impl<T> JoinHandle<T> {
        /// Wait for the thread to finish; a panic in it is resumed here.
        pub fn join(self) -> T {
            self.0
                .join()
                .unwrap_or_else(|payload| std::panic::resume_unwind(payload))
        }
    }

    /// Let the OS run another thread.
    pub fn yield_now() {
        std::thread::yield_now();
    }
}

/// A choice among `n` (at least 2) options, from the threads driver's seeded stream.
pub(super) fn choose_among(n: usize) -> usize {
    crate::engine::threads_choice(n)
}
