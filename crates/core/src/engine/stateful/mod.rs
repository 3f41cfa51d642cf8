//! The stateful engine (`--engine stateful`): depth-first search over the facade's own
//! states, each explored once.
//!
//! Under that engine the facade's locks, condition variables and joins do not block inside
//! shuttle: each operation first yields to the engine ([`facade::point`]), then takes effect at once
//! and is recorded here ([`facade::record`]); a task whose operation cannot proceed is marked blocked
//! on the object ([`facade::block`]) and is not offered to the engine until the object changes. So at
//! every scheduling decision each task stands just before its next operation, and the state of
//! the whole execution is a function of one thing: the order in which the tasks operated on
//! each object. `registry::signature` names that state; the engine remembers the signatures it has
//! explored and does not explore a state twice.
//!
//! # What the engine assumes of a model, and how a breach is caught
//!
//! A signature names a state only if the model keeps these rules. Each is listed with what
//! catches a model that breaks it.
//!
//! 1. **Determinism.** A task's local state after its k-th operation is a function of the
//!    values its operations returned (no wall clock, no hash-map iteration order, no OS
//!    randomness). *Caught:* the engine re-executes every path from the root, and at each
//!    replayed decision it checks that the same tasks are offered and the signature is the
//!    one it saw the first time; a difference is a model failure ("the model is not
//!    deterministic").
//! 2. **Every piece of state two tasks share goes through the facade**: locks (acquiring is
//!    recorded; releasing happens in the holder's own code, before it next yields),
//!    read/write locks, condition variables (registering as a waiter, a notification, a
//!    waiter consuming a `notify_one`), spawns, joins, and the models' ghost cells.
//!    [`Volatile`](crate::sync::Volatile) and channels are built on these. *Caught:* models, the kit
//!    and the scenarios may not name `std::sync` (but `Arc`), atomics, `static mut`,
//!    `thread_local!` or `unsafe`; a test reads their sources and fails on any of them
//!    (`crates/core/tests/shuttle/stateful.rs`).
//! 3. **Ghost cells are recorded; the recorder's cell is not.** A model's
//!    [`Ghost`](crate::sync::ghost::Ghost) may feed anything (an invariant, an end-of-run check,
//!    a branch): its accesses are recorded objects, never yield points, so two executions
//!    that wrote it in different orders are different states. The recorder's own cell
//!    ([`Ghost::bookkeeping`](crate::sync::ghost::Ghost::bookkeeping): the trace, probe counts,
//!    the violations found) is not recorded, so it must feed no model decision. *Caught:* the
//!    recorder gives models no way to read it back (its reading methods are for the explorer
//!    after an execution, or return only whether this execution already broke an invariant,
//!    after which the execution is abandoned, not continued).
//! 4. **Objects are created inside an execution.** A lock or ghost made before the engine
//!    starts would carry state from one execution to the next. *Caught:* such an object has
//!    no name, and recording an operation on it is a model failure.
//! 5. **Executions are finite.** A task that spins (re-reads a volatile until it changes)
//!    records a new operation on every turn, so its states never repeat and the search never
//!    ends. *Caught:* not by the engine; the execution limit and `--time-budget` stop it, and
//!    the report says the search did not exhaust. Models wait on condition variables instead.
//!
//! Given these, the engine makes every choice shuttle's own schedulers make: which runnable
//! task goes next (which includes who takes a free lock first, a reader or a writer, as
//! shuttle's unfair locks let any waiter win), and which waiter a `notify_one` wakes: as in
//! shuttle, a `notify_one` makes every waiter that was registered at that moment runnable,
//! and whichever of them the engine runs first consumes it (the others block again). Spawns
//! and joins are decisions too, and so is every value of a model's choice
//! ([`crate::sync::choose`]: which request a generated workload issues next); the value chosen
//! is recorded as the chooser's operation, so two workloads that lead to the same state are
//! explored on from it once. No operation wakes spuriously, under shuttle or here.
//!
//! # Names and signatures
//!
//! Tasks and objects are named by who created them and in which order (not by address or by
//! shuttle's task numbers), so that equivalent executions name them alike; the names are
//! interned once per search, so two names never collide. Each object's history is a chain of
//! 128-bit hashes (xxh3-128 of the previous link, the object, the task and the operation);
//! the signature is the sum modulo 2^128 of every object's latest link. Two distinct states
//! share a signature only if the hash collides: for a search of N states, with the hash taken
//! as a random function, the chance of any collision is at most about N² / 2^128 (chains and
//! signatures together): below 10^-26 for the largest searches measured (a few million
//! states).
//!
//! A task may also stop at a point inside shuttle that is not an operation (inside the
//! engine's lock, which only the facade lock's holder ever takes, or at its own exit). Two
//! states that differ only there reach the same operations in the same orders, so the engine
//! looks a state up only at the first decision after an operation.
//!
//! Everything here is engine-invisible bookkeeping in a thread-local cell: under shuttle every
//! task runs on the OS thread that drives the exploration. When the engine is not running, the
//! registry is inactive and every function is a no-op.
//!
//! # Where it lives
//!
//! [`registry`] keeps the state; [`facade`] is the one narrow interface the sync facade
//! calls (every hook `pub(crate)`, none part of the public API); the search itself is a
//! shuttle scheduler (`search.rs`), driven by the shuttle driver like the others.

pub(crate) mod facade;
pub(crate) mod registry;
#[cfg(not(any(loom, ohc_threads)))]
mod search;
#[cfg(not(any(loom, ohc_threads)))]
pub(crate) use search::{SearchEnd, Stateful};
