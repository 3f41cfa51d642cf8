//! `OzoneManagerDoubleBuffer`: responses queued by the apply thread, flushed in batches by
//! the `OMDoubleBufferFlushThread`.
//!
//! Java: one object monitor guards [`add`](java::OzoneManagerDoubleBuffer::add) (append, then
//! notify), [`canFlush`](java::OzoneManagerDoubleBuffer::canFlush) (wait while the current
//! buffer is empty) and [`swapCurrentAndReadyBuffer`](java::OzoneManagerDoubleBuffer::swapCurrentAndReadyBuffer).
//! The loop of [`flushTransactions`](java::OzoneManagerDoubleBuffer::flushTransactions) is
//! `while (isRunning.get() && canFlush()) flushCurrentBuffer()`: `isRunning` is an
//! `AtomicBoolean` read outside the monitor, `canFlush` returns as soon as the current buffer
//! is non-empty without looking at `isRunning`, and the swap is a second, separate monitor
//! section inside [`flushCurrentBuffer`](java::OzoneManagerDoubleBuffer::flushCurrentBuffer).
//! [`stop`](java::OzoneManagerDoubleBuffer::stop)
//! ([`stopDaemon`](java::OzoneManagerDoubleBuffer::stopDaemon)) sets `isRunning` to false,
//! interrupts the daemon and joins it. `isRunning` is a [`Volatile`] of its own here, as the
//! Java's `AtomicBoolean` is no part of the monitor: the daemon's read of it is ordered only
//! against the writes of it, not against every `add`. So a daemon that had already read `isRunning` as true
//! still swaps and flushes one more batch after `stop()`; a daemon waiting on an empty buffer is
//! interrupted and exits; a daemon back at the top of its loop exits and leaves what was queued
//! since to a replay. [`DoubleBuffer::next_batch`] takes those three steps: the `isRunning`
//! read, `canFlush`, the swap.
//!
//! The join in `stopDaemon` is left out: nothing the caller does after `stop()` in these models
//! depends on the daemon having exited, and the scenarios join every thread before checking.
//! When a daemon waiting in `canFlush` is both notified (an `add`) and interrupted (`stop`), the
//! JLS lets `wait` either return or throw; here it returns and the batch is flushed. The other
//! outcome leaves that batch to a replay, a state the model reaches when the daemon is busy
//! with the previous batch at the stop.
//!
//! Abstracted away: sub-batches per request type, the permit semaphore (it throttles the
//! apply thread at 10000 pending transactions, far beyond these plans), the 1 s timed wait
//! (a plain wait here: `add` and `stop` notify), the pause flag, metrics.
//!
//! Its steps cite the methods through a [`BufferCites`]: the pinned commit's by default
//! ([`BufferCites::HEAD`]), and, for a model of an older commit, the methods at that commit. From
//! 6fe2ab80115 (HDDS-7279's fix) on the loop, `canFlush`, the swap and `stopDaemon` are the ones
//! above (later commits add the pause flag and the flush notifier, abstracted here). Before it
//! the swap is `setReadyBuffer`, called from inside the `flushTransactions` loop
//! (`while (isRunning.get()) { if (canFlush()) { swap; flush } }`, an interrupt of `canFlush`
//! caught in the loop), `stop` clears `isRunning` and interrupts by itself, and `canFlush` waits
//! without a timeout: the same three steps, with the same outcomes after a stop.
//!
//! The buffer is generic over the response it queues: the key requests of HDDS-16092 and the
//! S3 secret requests of HDDS-17215 share it.

use super::OmRow;
use crate::citation::{java, Citation, Label};
use crate::kit::store::WriteBatch;
use crate::recorder::Actor;
use crate::sync::ghost::Ghost;
use crate::sync::{Condvar, Mutex, Volatile};

/// A response the double buffer can queue: it knows its log index.
pub trait Indexed {
    /// The log index of the request it answers.
    fn index(&self) -> u64;
}

/// One applied key request's response, waiting to be flushed.
#[derive(Clone, Debug)]
pub struct Response {
    /// Its log index.
    pub index: u64,
    /// Its term.
    pub term: u64,
    /// The rows it writes.
    pub rows: WriteBatch<OmRow>,
}

impl Indexed for Response {
    fn index(&self) -> u64 {
        self.index
    }
}

/// Whether the flush thread still runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Life {
    /// Queuing and flushing.
    Running,
    /// `stop()` was called: `isRunning` is false; a daemon past its `isRunning` read may still
    /// flush one batch.
    Stopped,
    /// The OM terminated (`ExitUtils.terminate`): nothing more is queued or flushed.
    Terminated,
    /// The process crashed: nothing more is queued or flushed.
    Crashed,
}

impl Life {
    /// Whether the process is gone (terminated or crashed), not merely stopped.
    pub fn gone(self) -> bool {
        matches!(self, Life::Terminated | Life::Crashed)
    }
}

#[derive(Debug)]
struct Buffers<R> {
    current: Vec<R>,
    life: Life,
    /// The highest index added.
    added: u64,
    /// The highest index a flush reported committed ([`DoubleBuffer::flushed`]).
    flushed: u64,
}

/// The `OzoneManagerDoubleBuffer` methods the buffer's steps cite, at one commit: a model of
/// an older commit cites the methods as they were there.
#[derive(Clone, Copy, Debug)]
pub struct BufferCites {
    /// `add`: queue a response and notify.
    pub add: &'static Citation,
    /// `stop` (`stopDaemon` from 6fe2ab80115 on): `isRunning = false`, the interrupt.
    pub stop: &'static Citation,
    /// The `flushTransactions` loop: where the daemon exits.
    pub flush_transactions: &'static Citation,
    /// The swap of the current and ready buffers (`swapCurrentAndReadyBuffer`, `setReadyBuffer`
    /// before 6fe2ab80115).
    pub swap: &'static Citation,
}

impl BufferCites {
    /// The methods at the pinned commit.
    pub const HEAD: BufferCites = BufferCites {
        add: &java::OzoneManagerDoubleBuffer::add,
        stop: &java::OzoneManagerDoubleBuffer::stop,
        flush_transactions: &java::OzoneManagerDoubleBuffer::flushTransactions,
        swap: &java::OzoneManagerDoubleBuffer::swapCurrentAndReadyBuffer,
    };
}

/// The double buffer's monitor and its current buffer.
#[derive(Debug)]
pub struct DoubleBuffer<R> {
    monitor: Mutex<Buffers<R>>,
    /// Signalled when a response is queued, the buffer stops or the process ends, and when a
    /// flush is reported (`FlushNotifier`; every waiter re-checks its own condition).
    not_empty: Condvar,
    /// `isRunning`: false once stopped, terminated or crashed. Written after the monitor's
    /// [`Life`] for a process that is gone, before it for `stop` (the Java's `compareAndSet`
    /// precedes the interrupt).
    is_running: Volatile<bool>,
    /// Ghost: a copy of the monitor's [`Life`], so that the daemon that reads `isRunning` as
    /// false can tell a stop (it logs its exit) from a process that is gone (no more steps).
    life: Ghost<Life>,
    /// The methods its steps cite.
    cites: &'static BufferCites,
}

impl<R: Indexed> Default for DoubleBuffer<R> {
    fn default() -> Self {
        Self::new()
    }
}

impl<R: Indexed> DoubleBuffer<R> {
    /// A running, empty double buffer citing the pinned commit's methods.
    pub fn new() -> Self {
        Self::with_cites(&BufferCites::HEAD)
    }

    /// A running, empty double buffer whose steps cite `cites`.
    pub fn with_cites(cites: &'static BufferCites) -> Self {
        Self {
            monitor: Mutex::labelled(
                "double buffer",
                Buffers {
                    current: Vec::new(),
                    life: Life::Running,
                    added: 0,
                    flushed: 0,
                },
            ),
            not_empty: Condvar::new(),
            is_running: Volatile::new(true),
            life: Ghost::new(Life::Running),
            cites,
        }
    }

    /// `add`: queue a response and wake the flush thread (also after `stop`, as the Java
    /// does); `false` once the process is gone.
    pub fn add(&self, actor: &Actor, response: R) -> bool {
        let mut b = self.monitor.lock();
        if b.life.gone() {
            return false;
        }
        actor.step_with(self.cites.add, || {
            format!("queue response of index {}", response.index())
        });
        b.added = b.added.max(response.index());
        b.current.push(response);
        self.not_empty.notify_all();
        true
    }

    /// The flush thread committed every response up to `index` (the end of
    /// `flushCurrentBuffer`, where `FlushNotifier.notifyFlush` counts down).
    pub fn flushed(&self, index: u64) {
        let mut b = self.monitor.lock();
        b.flushed = b.flushed.max(index);
        self.not_empty.notify_all();
    }

    /// `awaitFlush` (`FlushNotifier.await`): wait until every response added before the call
    /// is committed; `false` when the process is gone first. The Java's latch of two counts
    /// (one per completed `flushCurrentBuffer`, two per idle `canFlush`) gives exactly that:
    /// the second count comes from a swap made after the call.
    pub fn await_flush(&self, actor: &Actor, java: &'static Citation) -> bool {
        let mut b = self.monitor.lock();
        let target = b.added;
        actor.step_with(java, || {
            format!(
                "wait until index {target} is flushed (flushed: {})",
                b.flushed
            )
        });
        while b.flushed < target {
            if b.life.gone() {
                return false;
            }
            b = self.not_empty.wait(b);
        }
        true
    }

    /// `stop` (`stopDaemon`): `isRunning = false` and the daemon's interrupt. A daemon past its
    /// `isRunning` read still swaps and flushes; one waiting on an empty buffer exits.
    pub fn stop(&self, actor: &Actor, why: &str) {
        self.is_running.set(false);
        let mut b = self.monitor.lock();
        if b.life == Life::Running {
            b.life = Life::Stopped;
            self.life.set(b.life);
        }
        actor.step_with(self.cites.stop, || {
            format!(
                "{why}: isRunning = false ({} responses not swapped)",
                b.current.len()
            )
        });
        self.not_empty.notify_all();
    }

    /// The process crashed: nothing is queued or flushed any more, the current buffer is lost.
    pub fn crash(&self, actor: &Actor, why: &str) {
        let mut b = self.monitor.lock();
        if !b.life.gone() {
            b.life = Life::Crashed;
            self.life.set(b.life);
        }
        actor.step_with(Label::model("crash"), || {
            format!("{why} ({} responses not swapped are lost)", b.current.len())
        });
        self.not_empty.notify_all();
        drop(b);
        self.is_running.set(false);
    }

    /// The OM terminated: nothing is queued or flushed any more.
    pub fn terminate(&self) {
        let mut b = self.monitor.lock();
        b.life = Life::Terminated;
        self.life.set(b.life);
        self.not_empty.notify_all();
        drop(b);
        self.is_running.set(false);
    }

    /// Whether the flush thread runs, was stopped, or the process is gone.
    pub fn life(&self) -> Life {
        self.monitor.lock().life
    }

    /// After an orderly stop: the responses never swapped, for a final flush.
    pub fn take_unflushed(&self) -> Vec<R> {
        std::mem::take(&mut self.monitor.lock().current)
    }

    /// One turn of the `flushTransactions` loop up to the swap: [`DoubleBuffer::is_running`],
    /// [`DoubleBuffer::can_flush`], then [`DoubleBuffer::swap`]. `None` when the daemon exits.
    pub fn next_batch(&self, actor: &Actor) -> Option<Vec<R>> {
        let java = self.cites.flush_transactions;
        // A process that is gone takes no more steps; a stopped one says why its loop ends.
        let exits = |life: Life, why: &str| {
            if !life.gone() {
                actor.step_with(java, || format!("{why}: the flush thread exits"));
            }
        };
        if !self.is_running() {
            exits(self.life.get(), "isRunning is false");
            return None;
        }
        if let Err(life) = self.can_flush_or_why() {
            exits(life, "canFlush interrupted on an empty buffer");
            return None;
        }
        self.swap(actor)
    }

    /// `isRunning.get()`: an `AtomicBoolean` read, outside the monitor.
    pub fn is_running(&self) -> bool {
        self.is_running.get()
    }

    /// `canFlush`: wait while the current buffer is empty; `false` when `stop` interrupts the
    /// wait on an empty buffer (or the process is gone). A non-empty buffer returns `true`
    /// without looking at `isRunning`.
    pub fn can_flush(&self) -> bool {
        self.can_flush_or_why().is_ok()
    }

    fn can_flush_or_why(&self) -> Result<(), Life> {
        let mut b = self.monitor.lock();
        while b.current.is_empty() {
            if b.life != Life::Running {
                return Err(b.life);
            }
            b = self.not_empty.wait(b);
        }
        if b.life.gone() {
            return Err(b.life);
        }
        Ok(())
    }

    /// `swapCurrentAndReadyBuffer`, a monitor section of its own: take every queued response.
    /// `None` once the process is gone.
    pub fn swap(&self, actor: &Actor) -> Option<Vec<R>> {
        let mut b = self.monitor.lock();
        if b.life.gone() {
            return None;
        }
        let ready = std::mem::take(&mut b.current);
        let indices: Vec<u64> = ready.iter().map(Indexed::index).collect();
        actor.step_with(self.cites.swap, || {
            format!("ready buffer: indices {indices:?}")
        });
        Some(ready)
    }
}
