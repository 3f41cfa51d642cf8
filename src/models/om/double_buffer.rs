//! `OzoneManagerDoubleBuffer`: responses queued by the apply thread, flushed in batches by
//! the `OMDoubleBufferFlushThread`.
//!
//! Java (`om/ratis/OzoneManagerDoubleBuffer.java`): one object monitor guards `add` (:557,
//! append then notify), `canFlush` (:569, wait while the current buffer is empty) and the
//! buffer swap (:597). `flushTransactions` (:295) stages every response's rows and
//! `TRANSACTION_INFO_KEY = last index` (:373-376), commits the batch (:379-381), cleans the
//! table cache (:392), releases the `unFlushedTransactions` permits (:394) and only then
//! advances the applied index (:396). `stop()` ends the loop: a swapped buffer is not flushed.
//!
//! Abstracted away: sub-batches per request type, the permit semaphore (it throttles the
//! apply thread at 10000 pending transactions, far beyond these plans), the 1 s timed wait
//! (a plain wait here: `stop` notifies), metrics, and `cleanupCache`'s effect (it evicts the
//! flushed epochs' cache entries, none of which the plans read back).
//!
//! The buffer is generic over the response it queues: the key requests of HDDS-16092 and the
//! S3 secret requests of HDDS-17215 share it.

use super::OmRow;
use crate::cite::java;
use crate::kit::store::WriteBatch;
use crate::recorder::Actor;
use crate::sync::{Condvar, Mutex};

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
    /// `stop()` was called (an orderly stop, or the model of a crash).
    Stopped,
    /// The OM terminated (`ExitUtils.terminate`).
    Terminated,
}

#[derive(Debug)]
struct Buffers<R> {
    current: Vec<R>,
    life: Life,
}

/// The double buffer's monitor and its current buffer.
#[derive(Debug)]
pub struct DoubleBuffer<R> {
    monitor: Mutex<Buffers<R>>,
    not_empty: Condvar,
}

impl<R: Indexed> Default for DoubleBuffer<R> {
    fn default() -> Self {
        Self::new()
    }
}

impl<R: Indexed> DoubleBuffer<R> {
    /// A running, empty double buffer.
    pub fn new() -> Self {
        Self {
            monitor: Mutex::new(Buffers {
                current: Vec::new(),
                life: Life::Running,
            }),
            not_empty: Condvar::new(),
        }
    }

    /// `add`: queue a response and wake the flush thread; `false` once stopped or terminated.
    pub fn add(&self, actor: &Actor, response: R) -> bool {
        let mut b = self.monitor.lock();
        if b.life != Life::Running {
            return false;
        }
        actor.step_with(&java::OzoneManagerDoubleBuffer::add, || {
            format!("queue response of index {}", response.index())
        });
        b.current.push(response);
        self.not_empty.notify_all();
        true
    }

    /// `stop`: the flush thread ends; what it has not swapped is never flushed by it.
    pub fn stop(&self, actor: &Actor, why: &str) {
        let mut b = self.monitor.lock();
        if b.life == Life::Running {
            b.life = Life::Stopped;
        }
        actor.step_with(&java::OzoneManagerDoubleBuffer::stop, || {
            format!("{why} ({} responses not swapped)", b.current.len())
        });
        self.not_empty.notify_all();
    }

    /// The OM terminated: nothing is queued or flushed any more.
    pub fn terminate(&self) {
        let mut b = self.monitor.lock();
        b.life = Life::Terminated;
        self.not_empty.notify_all();
    }

    /// Whether the flush thread runs, stopped, or the OM terminated.
    pub fn life(&self) -> Life {
        self.monitor.lock().life
    }

    /// After an orderly stop: the responses never swapped, for a final flush.
    pub fn take_unflushed(&self) -> Vec<R> {
        std::mem::take(&mut self.monitor.lock().current)
    }

    /// `canFlush` and the swap: wait for responses, take them all; `None` once stopped.
    pub fn next_batch(&self, actor: &Actor) -> Option<Vec<R>> {
        let mut b = self.monitor.lock();
        while b.current.is_empty() && b.life == Life::Running {
            b = self.not_empty.wait(b);
        }
        if b.life != Life::Running {
            return None;
        }
        let ready = std::mem::take(&mut b.current);
        let indices: Vec<u64> = ready.iter().map(Indexed::index).collect();
        actor.step_with(
            &java::OzoneManagerDoubleBuffer::swapCurrentAndReadyBuffer,
            || format!("ready buffer: indices {indices:?}"),
        );
        Some(ready)
    }
}
