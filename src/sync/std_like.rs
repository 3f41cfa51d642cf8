//! The primitives for shuttle and loom, whose APIs both follow `std::sync`.

use super::engine;
use std::sync::PoisonError;

pub use engine::sync::atomic;
pub use engine::sync::{MutexGuard, RwLockReadGuard, RwLockWriteGuard};

/// A mutual-exclusion lock (Java's `synchronized` or `ReentrantLock`, without re-entry).
#[derive(Debug)]
pub struct Mutex<T> {
    inner: engine::sync::Mutex<T>,
    kind: &'static str,
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
        }
    }

    /// Block until the lock is held, and return its guard.
    pub fn lock(&self) -> MutexGuard<'_, T> {
        super::points::count(self.kind);
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A read-write lock (Java's `ReentrantReadWriteLock`, without re-entry).
#[derive(Debug)]
pub struct RwLock<T>(engine::sync::RwLock<T>);

impl<T> RwLock<T> {
    /// A new unlocked lock holding `value`.
    pub fn new(value: T) -> Self {
        Self(engine::sync::RwLock::new(value))
    }

    /// Block until a shared (read) lock is held.
    pub fn read(&self) -> RwLockReadGuard<'_, T> {
        super::points::count("rwlock read");
        self.0.read().unwrap_or_else(PoisonError::into_inner)
    }

    /// Block until the exclusive (write) lock is held.
    pub fn write(&self) -> RwLockWriteGuard<'_, T> {
        super::points::count("rwlock write");
        self.0.write().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A condition variable: Java's `wait`/`notifyAll` on a monitor.
#[derive(Debug)]
pub struct Condvar(engine::sync::Condvar);

impl Default for Condvar {
    fn default() -> Self {
        Self::new()
    }
}

impl Condvar {
    /// A new condition variable.
    pub fn new() -> Self {
        Self(engine::sync::Condvar::new())
    }

    /// Release the guard's lock, wait for a notification, and take the lock again.
    /// Wake-ups may be spurious: call it in a loop that re-checks the condition.
    pub fn wait<'a, T>(&self, guard: MutexGuard<'a, T>) -> MutexGuard<'a, T> {
        super::points::count("condvar wait");
        self.0.wait(guard).unwrap_or_else(PoisonError::into_inner)
    }

    /// Wake every waiter.
    pub fn notify_all(&self) {
        super::points::count("condvar notify");
        self.0.notify_all();
    }

    /// Wake one waiter.
    pub fn notify_one(&self) {
        super::points::count("condvar notify");
        self.0.notify_one();
    }
}

/// Unbounded multi-producer channels, built on [`Mutex`] and [`Condvar`]: loom's own
/// `mpsc` never reports a hang-up, so a receiver could not see its senders leave.
pub mod channel {
    use super::{Condvar, Mutex};
    use std::collections::VecDeque;
    use std::sync::Arc;

    #[derive(Debug)]
    struct Queue<T> {
        items: VecDeque<T>,
        senders: usize,
        receiver_alive: bool,
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
                    receiver_alive: true,
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

    impl<T> Drop for Receiver<T> {
        fn drop(&mut self) {
            self.0.queue.lock().receiver_alive = false;
        }
    }

    impl<T> Sender<T> {
        /// Send a value; `false` if the receiver is gone.
        pub fn send(&self, value: T) -> bool {
            let mut q = self.0.queue.lock();
            if !q.receiver_alive {
                return false;
            }
            q.items.push_back(value);
            self.0.ready.notify_all();
            true
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
    use super::engine;

    /// An owned permission to join a thread.
    #[derive(Debug)]
    pub struct JoinHandle<T>(engine::thread::JoinHandle<T>);

    /// Spawn a named thread.
    pub fn spawn<F, T>(name: &str, f: F) -> JoinHandle<T>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        crate::sync::points::count("spawn");
        let handle = engine::thread::Builder::new()
            .name(name.to_string())
            .spawn(f)
            .unwrap_or_else(|e| panic!("cannot spawn thread {name}: {e}"));
        JoinHandle(handle)
    }

    impl<T> JoinHandle<T> {
        /// Wait for the thread to finish; a panic in it is resumed here.
        pub fn join(self) -> T {
            crate::sync::points::count("join");
            self.0
                .join()
                .unwrap_or_else(|payload| std::panic::resume_unwind(payload))
        }
    }

    /// Let the engine run another thread.
    pub fn yield_now() {
        engine::thread::yield_now();
    }
}
