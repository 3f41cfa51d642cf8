//! An external key-value store that several nodes share, without batch support, with fault
//! injection.
//!
//! It stands for a remote secret store such as `VaultS3SecretStore`: one address, one secret
//! path, so every OM of an HA ring talks to the same map. Each call is one round trip and one
//! atomic step (one lock), and is durable at once: nothing of it is staged in the caller's
//! RocksDB batch, and nothing of it is undone by the caller's crash.
//!
//! A [`Fault`] makes exactly one call fail, chosen by the caller's name and how many calls
//! that caller has made, the way a plan picks which call hits a network error. A failed call
//! returns [`StoreError`] (the Java `IOException`); it changes nothing, unless the fault is a
//! lost reply: then the call takes effect at the store and only its reply is lost (a timeout
//! after the write landed).
//!
//! A ghost high-water mark remembers the highest log index on whose behalf any call was
//! made, so that probes can ask "had the store already served a later entry?" without adding
//! a scheduling point.
//!
//! ```
//! use ozone_ha_check::citation::Label;
//! use ozone_ha_check::kit::external_store::{ExternalStore, Fault};
//! use ozone_ha_check::recorder::{Actor, Recorder};
//! use ozone_ha_check::sync::Arc;
//!
//! # ozone_ha_check::engine::run_once(|| {
//! let rec = Arc::new(Recorder::new(None));
//! let me = Actor::new("om2", &rec);
//! let store: ExternalStore<u64> = ExternalStore::new(Default::default(), Some(Fault { caller: "om2", nth: 2, lost_reply: false }));
//! let vault = Label::model("the vault");
//! store.put(&me, vault, "om2", 1, "u1", 7).unwrap();
//! assert!(store.get(&me, vault, "om2", 2, "u1").is_err());
//! assert_eq!(store.get(&me, vault, "om2", 3, "u1").unwrap(), Some(7));
//! rec.quiesce();
//! assert_eq!(store.high_water().settled(&rec), 3);
//! # });
//! ```

use crate::citation::Label;
use crate::recorder::Actor;
use crate::sync::ghost::{Ghost, Witness};
use crate::sync::Mutex;
use std::collections::BTreeMap;
use std::fmt;

/// What a call was made for: a log index, or 0 for a call made before its entry had one (a
/// leader's `preExecute`; log indices start at 1).
fn on(index: u64) -> String {
    if index == 0 {
        "no log index yet".to_string()
    } else {
        format!("index {index}")
    }
}

/// Which call fails: the `nth` call (from 1) made by `caller`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fault {
    /// The caller's name.
    pub caller: &'static str,
    /// Its call number, from 1.
    pub nth: u64,
    /// The call takes effect, and then fails (its reply is lost).
    pub lost_reply: bool,
}

/// A failed call (the Java `IOException`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreError(pub String);

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

struct State<V> {
    rows: BTreeMap<String, V>,
    calls: BTreeMap<&'static str, u64>,
    fault: Option<Fault>,
}

/// The shared store.
pub struct ExternalStore<V> {
    state: Mutex<State<V>>,
    /// For probes only (see [`ExternalStore::high_water`]).
    high_water: Witness<u64>,
    failures: Ghost<u64>,
    /// Faults armed while running ([`ExternalStore::arm`]): the caller's next call fails.
    armed: Ghost<Vec<(&'static str, bool)>>,
}

impl<V: Clone + fmt::Display> ExternalStore<V> {
    /// A store holding `rows`, failing the call `fault` names.
    pub fn new(rows: BTreeMap<String, V>, fault: Option<Fault>) -> Self {
        Self {
            state: Mutex::labelled(
                "external store",
                State {
                    rows,
                    calls: BTreeMap::new(),
                    fault,
                },
            ),
            high_water: Witness::new(0),
            failures: Ghost::new(0),
            armed: Ghost::new(Vec::new()),
        }
    }

    /// One call: count it, fail it if it is the faulty one, else run `op` on the rows.
    fn call<R>(
        &self,
        actor: &Actor,
        java: impl Into<Label>,
        caller: &'static str,
        index: u64,
        write: bool,
        op: impl FnOnce(&mut BTreeMap<String, V>) -> (R, String),
    ) -> Result<R, StoreError> {
        let java: Label = java.into();
        let mut s = self.state.lock();
        self.high_water.update(|h| *h = (*h).max(index));
        let n = {
            let n = s.calls.entry(caller).or_default();
            *n += 1;
            *n
        };
        // An armed lost reply waits for a write: a read has no effect to keep.
        let armed = self.armed.with(|a| {
            let at = a
                .iter()
                .position(|(c, lost)| *c == caller && (write || !lost))?;
            Some(a.remove(at).1)
        });
        let fault = s
            .fault
            .filter(|f| f.caller == caller && f.nth == n)
            .or(armed.map(|lost_reply| Fault {
                caller,
                nth: n,
                lost_reply,
            }));
        if let Some(fault) = fault {
            self.failures.with(|f| *f += 1);
            let e = StoreError(format!("injected failure of {caller}'s call {n}"));
            if fault.lost_reply {
                let (_, action) = op(&mut s.rows);
                actor.step_with(java, || {
                    format!("store ({}): {action}; the reply is lost: {e}", on(index))
                });
            } else {
                actor.step_with(java, || format!("store call for {} FAILS: {e}", on(index)));
            }
            return Err(e);
        }
        let (r, action) = op(&mut s.rows);
        actor.step_with(java, || format!("store ({}): {action}", on(index)));
        Ok(r)
    }

    /// Read `key`.
    pub fn get(
        &self,
        actor: &Actor,
        java: impl Into<Label>,
        caller: &'static str,
        index: u64,
        key: &str,
    ) -> Result<Option<V>, StoreError> {
        let java: Label = java.into();
        self.call(actor, java, caller, index, false, |rows| {
            let v = rows.get(key).cloned();
            let shown = v.as_ref().map_or("absent".to_string(), ToString::to_string);
            (v, format!("get {key} = {shown}"))
        })
    }

    /// Write `key` unconditionally.
    pub fn put(
        &self,
        actor: &Actor,
        java: impl Into<Label>,
        caller: &'static str,
        index: u64,
        key: &str,
        value: V,
    ) -> Result<(), StoreError> {
        let java: Label = java.into();
        self.put_unless(actor, java, caller, index, key, value, |_| false)
            .map(|_| ())
    }

    /// Write `key` unless `refuse(existing)`; returns whether it wrote.
    #[allow(clippy::too_many_arguments)]
    pub fn put_unless(
        &self,
        actor: &Actor,
        java: impl Into<Label>,
        caller: &'static str,
        index: u64,
        key: &str,
        value: V,
        refuse: impl FnOnce(&V) -> bool,
    ) -> Result<bool, StoreError> {
        let java: Label = java.into();
        self.call(actor, java, caller, index, true, |rows| {
            if let Some(old) = rows.get(key).filter(|old| refuse(old)) {
                let action = format!("put {key}={value} REFUSED (holds {old})");
                return (false, action);
            }
            let action = format!("put {key}={value}");
            rows.insert(key.to_string(), value);
            (true, action)
        })
    }

    /// Delete `key` unless `refuse(existing)`; returns the value it deleted, if any.
    pub fn delete_unless(
        &self,
        actor: &Actor,
        java: impl Into<Label>,
        caller: &'static str,
        index: u64,
        key: &str,
        refuse: impl FnOnce(&V) -> bool,
    ) -> Result<Option<V>, StoreError> {
        let java: Label = java.into();
        self.call(actor, java, caller, index, true, |rows| {
            if let Some(old) = rows.get(key).filter(|old| refuse(old)) {
                let action = format!("delete {key} REFUSED (holds {old})");
                return (None, action);
            }
            let old = rows.remove(key);
            let shown = old
                .as_ref()
                .map_or("absent".to_string(), ToString::to_string);
            (old, format!("delete {key} (was {shown})"))
        })
    }

    /// Make `caller`'s next call fail, or with `lost_reply` its next write (a put or a
    /// delete) take effect and then fail, as a fault a generated workload draws at a point
    /// of its run (ghost: not a scheduling point).
    pub fn arm(&self, caller: &'static str, lost_reply: bool) {
        self.armed.with(|a| a.push((caller, lost_reply)));
    }

    /// A call made before its entry had an index (a leader's `preExecute`) turned out to be for
    /// entry `index`: count it in the high-water mark (a witness: not a scheduling point).
    pub fn note_index(&self, index: u64) {
        self.high_water.update(|h| *h = (*h).max(index));
    }

    /// The highest log index any call was made for: a witness, for probes (not a scheduling
    /// point, not part of the state).
    pub fn high_water(&self) -> &Witness<u64> {
        &self.high_water
    }

    /// How many injected failures fired (ghost).
    pub fn failures(&self) -> u64 {
        self.failures.get()
    }

    /// The rows, read as a final observation after every thread has stopped.
    pub fn rows(&self) -> BTreeMap<String, V> {
        self.state.lock().rows.clone()
    }
}
