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

use super::OmRow;
use crate::kit::store::WriteBatch;
use crate::recorder::Actor;
use crate::sync::{Condvar, Mutex};

/// One applied request's response, waiting to be flushed.
#[derive(Clone, Debug)]
pub struct Response {
    /// Its log index.
    pub index: u64,
    /// Its term.
    pub term: u64,
    /// The rows it writes.
    pub rows: WriteBatch<OmRow>,
}

#[derive(Debug)]
struct Buffers {
    current: Vec<Response>,
    running: bool,
}

/// The double buffer's monitor and its current buffer.
#[derive(Debug)]
pub struct DoubleBuffer {
    monitor: Mutex<Buffers>,
    not_empty: Condvar,
}

impl Default for DoubleBuffer {
    fn default() -> Self {
        Self::new()
    }
}

impl DoubleBuffer {
    /// A running, empty double buffer.
    pub fn new() -> Self {
        Self {
            monitor: Mutex::new(Buffers {
                current: Vec::new(),
                running: true,
            }),
            not_empty: Condvar::new(),
        }
    }

    /// `add`: queue a response and wake the flush thread.
    pub fn add(&self, actor: &Actor, response: Response) {
        let mut b = self.monitor.lock();
        actor.step_with("OzoneManagerDoubleBuffer.add", || {
            format!("queue response of index {}", response.index)
        });
        b.current.push(response);
        self.not_empty.notify_all();
    }

    /// `stop`: the flush thread ends; what it has not swapped is never flushed.
    pub fn stop(&self, actor: &Actor) {
        let mut b = self.monitor.lock();
        b.running = false;
        actor.step_with("OzoneManagerDoubleBuffer.stop", || {
            format!(
                "stop flush thread ({} responses unflushed)",
                b.current.len()
            )
        });
        self.not_empty.notify_all();
    }

    /// `canFlush` and the swap: wait for responses, take them all; `None` once stopped.
    pub fn next_batch(&self, actor: &Actor) -> Option<Vec<Response>> {
        let mut b = self.monitor.lock();
        while b.current.is_empty() && b.running {
            b = self.not_empty.wait(b);
        }
        if !b.running {
            return None;
        }
        let ready = std::mem::take(&mut b.current);
        let indices: Vec<u64> = ready.iter().map(|r| r.index).collect();
        actor.step_with("OzoneManagerDoubleBuffer.swapCurrentAndReadyBuffer", || {
            format!("ready buffer: indices {indices:?}")
        });
        Some(ready)
    }
}
