//! The sync facade: the primitives models use, for whichever backend this build has.
//!
//! Model code imports its locks, volatiles, channels and threads from here and never from
//! `std::sync`, `shuttle`, `loom` or `parking_lot` directly. One API shape serves all three
//! backends (parking_lot's: `lock()` hands back the guard, there is no poisoning):
//!
//! | build | backend | what it is for |
//! |---|---|---|
//! | default | [shuttle](https://docs.rs/shuttle) | random, PCT and DFS schedule exploration, the stateful search (`engine::stateful`), replay |
//! | `RUSTFLAGS="--cfg loom"` | [loom](https://docs.rs/loom) | exhaustive exploration with DPOR under a preemption bound |
//! | `RUSTFLAGS="--cfg ohc_threads"` | OS threads, parking_lot, crossbeam | stress runs as production runs them |
//!
//! Backends are picked by `cfg`, not by Cargo features, so that `--all-features` can never
//! switch two of them on at once.
//!
//! Java's `volatile` fields and `Atomic*` classes are sequentially consistent. loom models
//! `SeqCst` as `AcqRel`, so a counterexample that relied on a weaker read would be a false
//! alarm; [`Volatile`] is therefore built on a mutex, which every backend orders totally
//! (the stateful engine orders its writes against every access, and lets two reads commute).
//! A structure Java makes thread-safe without a lock its callers hold (a `ConcurrentHashMap`,
//! a Guava cache, Ratis's log behind its own read-write lock) is a [`Concurrent`]: each call
//! one atomic step, two reads commuting under the stateful engine. A model's [`Mutex`] is
//! for a lock the Java takes itself, held across the code it guards.
//!
//! Bookkeeping that the engines must not see (the trace, probe counters, ghost state used
//! only by reachability probes) goes through [`ghost`], which is never a scheduling point
//! under shuttle or loom.
//!
//! ```
//! use ozone_ha_check::sync::{thread, Arc, Mutex};
//!
//! # ozone_ha_check::engine::run_once(|| {
//! let counter = Arc::new(Mutex::new(0u64));
//! let c = Arc::clone(&counter);
//! let t = thread::spawn("incrementer", move || *c.lock() += 1);
//! t.join();
//! assert_eq!(*counter.lock(), 1);
//! # });
//! ```

#[cfg(all(loom, ohc_threads))]
compile_error!("`--cfg loom` and `--cfg ohc_threads` select two backends; pass only one of them");

#[cfg(not(any(loom, ohc_threads)))]
use shuttle as engine;

#[cfg(loom)]
use loom as engine;

#[cfg(not(ohc_threads))]
mod std_like;
#[cfg(not(ohc_threads))]
pub use std_like::*;

#[cfg(ohc_threads)]
mod os_threads;
#[cfg(ohc_threads)]
pub use os_threads::*;

use std::hash::{Hash, Hasher};

pub mod ghost;
pub mod points;

/// One of `n` options (`0..n`), chosen by the engine: which request a generated workload
/// issues next, which fault it injects. Every engine explores a choice as it explores
/// schedules. Random and PCT draw it from their seed and record it in the schedule (`rV`),
/// so `replay` makes the same choice. The stateful engine explores every value, each a
/// decision, and the value is part of the state. loom runs the model once per sequence of
/// values, so under loom the number of options at each choice must not depend on the
/// interleaving (draw a workload before spawning). Real threads draw from a stream seeded by
/// the execution's number. A choice among one option is no decision.
///
/// ```
/// use ozone_ha_check::sync::choose;
///
/// # ozone_ha_check::engine::run_once(|| {
/// let request = ["create", "commit", "rename"][choose(3)];
/// assert!(["create", "commit", "rename"].contains(&request));
/// assert_eq!(choose(1), 0);
/// # });
/// ```
///
/// # Panics
///
/// When `n` is 0: there is nothing to choose.
pub fn choose(n: usize) -> usize {
    assert!(n > 0, "a choice needs at least one option");
    if n == 1 {
        return 0;
    }
    #[cfg(not(ohc_threads))]
    return std_like::choose_among(n);
    #[cfg(ohc_threads)]
    return os_threads::choose_among(n);
}

/// `std::sync::Arc` on every backend: loom's own `Arc` cannot hold unsized trait objects, and
/// reference counting is not where these models race.
pub use std::sync::Arc;

/// The backend compiled into this build.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// shuttle: randomized, PCT and DFS exploration (the default build).
    Shuttle,
    /// loom: exhaustive exploration with DPOR (`--cfg loom`).
    Loom,
    /// Real OS threads with parking_lot and crossbeam (`--cfg ohc_threads`).
    Threads,
}

/// The backend of this build.
#[cfg(not(any(loom, ohc_threads)))]
pub const BACKEND: Backend = Backend::Shuttle;
/// The backend of this build.
#[cfg(loom)]
pub const BACKEND: Backend = Backend::Loom;
/// The backend of this build.
#[cfg(ohc_threads)]
pub const BACKEND: Backend = Backend::Threads;

/// A part of a value kept in one hold (a store's row, or its table cache's entry): a key in
/// a space of keys, and whether an operation writes it or only reads it. The stateful engine
/// lets operations on different parts commute.
#[derive(Clone, Copy, Debug)]
#[cfg_attr(ohc_threads, allow(dead_code))]
pub(crate) struct Part<'a> {
    /// The space the key is in: a tag (committed rows, cache entries) and a table.
    pub(crate) space: (u8, &'static str),
    /// The key.
    pub(crate) key: &'a str,
    /// Whether the operation writes it.
    pub(crate) write: bool,
}

/// A field that Java declares `volatile` (or holds in an `Atomic*`): every access is one
/// sequentially consistent step on every backend.
///
/// The stateful engine names a read by the value it returned (the value's [`Hash`]), not by
/// its place among the writes: a read before or after a write that left the value as it was
/// reaches one state.
#[derive(Debug)]
pub struct Volatile<T: Copy + Hash> {
    /// In the stateful engine's mode two reads commute.
    cell: Native<T>,
}

impl<T: Copy + Hash> Volatile<T> {
    /// A new cell holding `value`.
    pub fn new(value: T) -> Self {
        Self {
            cell: Native::labelled("volatile", value),
        }
    }

    /// Read the value.
    pub fn get(&self) -> T {
        self.cell.read_seen(&fingerprint::<T>, |v| *v)
    }

    /// Write the value.
    pub fn set(&self, value: T) {
        self.update(|_| value);
    }

    /// Atomically replace the value with `f(old)` and return the old value.
    pub fn update(&self, f: impl FnOnce(T) -> T) -> T {
        self.cell.write(|v| std::mem::replace(v, f(*v)))
    }
}

/// A value's fingerprint: what [`Concurrent::read_seen`] may name a read by.
///
/// ```
/// use ozone_ha_check::sync::fingerprint;
///
/// assert_eq!(fingerprint(&(3u64, 1u64)), fingerprint(&(3u64, 1u64)));
/// assert_ne!(fingerprint(&(3u64, 1u64)), fingerprint(&(1u64, 3u64)));
/// ```
pub fn fingerprint<T: Hash>(value: &T) -> u64 {
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    value.hash(&mut hasher);
    hasher.finish()
}

/// A value Java keeps in a thread-safe structure that its callers do not lock (a
/// `ConcurrentHashMap`, a Guava `Cache`, a `PartialTableCache`): each call on it is one
/// atomic step on every backend, and nothing holds it between calls.
///
/// Under shuttle and loom a call is one hold of a facade [`Mutex`], so its schedules are
/// those of a model that locked a mutex around the call. Under the stateful engine two calls
/// that only [`read`](Self::read) commute, as they do in Java (a `Mutex` would order them,
/// and the engine would count two states where there is one). The closures run inside the
/// step: they may not wait or yield (lock, send, read a volatile), which the stateful engine
/// stops as a model failure; a ghost cell read there keeps the value held through the next
/// decision, as a lock would be.
///
/// ```
/// use ozone_ha_check::sync::Concurrent;
/// use std::collections::BTreeMap;
///
/// # ozone_ha_check::engine::run_once(|| {
/// let cache = Concurrent::new("cache", BTreeMap::new());
/// cache.write_key("k1", |m| m.insert("k1", 1));
/// cache.write_key("k2", |m| m.insert("k2", 2));
/// assert_eq!(cache.read_key("k1", |m| m.get("k1").copied()), Some(1));
/// assert_eq!(cache.read(|m| m.len()), 2);
/// # });
/// ```
#[derive(Debug)]
pub struct Concurrent<T> {
    cell: Native<T>,
}

impl<T> Concurrent<T> {
    /// A new structure holding `value`, its calls counted under `kind`
    /// ([`points`]).
    pub fn new(kind: &'static str, value: T) -> Self {
        Self {
            cell: Native::labelled(kind, value),
        }
    }

    /// A call that only reads (`get`, `containsKey`, an iteration).
    pub fn read<R>(&self, f: impl FnOnce(&T) -> R) -> R {
        self.cell.read(f)
    }

    /// A call that only reads, which the stateful engine names by `seen` of the value rather
    /// than by its place among the calls that write: two executions in which it saw the same
    /// name (and the writes were the same, in the same order) reach one state.
    ///
    /// So what `f` returns must be a function of what `seen` returns, given the writes so far:
    /// `seen` may hash what `f` returns, or name which of the values the writes went through
    /// the read met (a log that only grows is named by its length). A `seen` that names too
    /// little merges states that differ, and the search then misses what follows one of them.
    pub fn read_seen<R>(&self, seen: impl Fn(&T) -> u64, f: impl FnOnce(&T) -> R) -> R {
        self.cell.read_seen(&seen, f)
    }

    /// A call that may change it (`put`, `computeIfPresent`, `remove`).
    pub fn write<R>(&self, f: impl FnOnce(&mut T) -> R) -> R {
        self.cell.write(f)
    }

    /// A call that reads only the entry of `key` (`get(key)`): under the stateful engine it
    /// commutes with every call on another key and with every other read. `f` may look at
    /// nothing else: the engine takes the caller's word for it.
    pub fn read_key<R>(&self, key: &str, f: impl FnOnce(&T) -> R) -> R {
        self.cell.parts(&[entry(key, false)], false, |v| f(v))
    }

    /// A call that reads or changes only the entry of `key` (`put(key, v)`,
    /// `computeIfPresent(key, ..)`, `remove(key)`): under the stateful engine it commutes
    /// with every call on another key. `f` may touch nothing else.
    pub fn write_key<R>(&self, key: &str, f: impl FnOnce(&mut T) -> R) -> R {
        self.cell.parts(&[entry(key, true)], false, f)
    }
}

/// The entry of `key` in a [`Concurrent`], as a part of its value.
fn entry(key: &str, write: bool) -> Part<'_> {
    Part {
        space: (2, "entry"),
        key,
        write,
    }
}
