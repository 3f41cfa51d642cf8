//! The stateful engine (`--engine stateful`): depth-first search over the facade's own
//! states, each explored once.
//!
//! Under that engine the facade's locks, condition variables and joins do not block inside
//! shuttle: each operation first yields to the engine ([`facade::point`]), then takes effect at once
//! and is recorded here ([`facade::record`]) (a ghost cell's access and a thread's exit do not
//! yield first: below); a task whose operation cannot proceed is marked blocked
//! on the object ([`facade::block`]) and is not offered to the engine until the object changes. So at
//! every scheduling decision each task stands just before its next operation, and the state of
//! the whole execution is a function of one thing: the order in which the tasks operated on
//! each object (and, for a read named by what it saw, that name: below).
//! `registry::signature` names that state; the engine remembers the signatures it has
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
//! 3. **Ghost cells are recorded; the recorder's cell and witnesses are not.** A model's
//!    [`Ghost`](crate::sync::ghost::Ghost) may feed anything (an invariant, an end-of-run check,
//!    a branch): its accesses are recorded objects, never yield points, so two executions
//!    that wrote it in different orders are different states. The recorder's own cell
//!    ([`Ghost::bookkeeping`](crate::sync::ghost::Ghost::bookkeeping): the trace, probe counts,
//!    the violations found) is not recorded, so it must feed no model decision. *Caught:* the
//!    recorder gives models no way to read it back (its reading methods are for the explorer
//!    after an execution, or return only whether this execution already broke an invariant,
//!    after which the execution is abandoned, not continued). A model's
//!    [`Witness`](crate::sync::ghost::Witness) is not recorded either: it holds what only a
//!    probe reads while threads run, or a check after the run quiesced whose result does not
//!    depend on the order in which different tasks wrote it. Merging two executions that
//!    differ only in a witness can hide a probe's hit, never a violation; where a required
//!    probe went unmet, `explore` runs the search over source sets again with witnesses
//!    ordered ("Source sets" below), which meets every probe an interleaving can fire.
//!    *Caught:* a witness has no read that returns its value but
//!    [`Witness::settled`](crate::sync::ghost::Witness::settled), which is a model failure
//!    before the recorder is quiesced; the order-independence of that last read is the
//!    model's to argue at the cell (each one says why).
//!    A model's [`Facts`](crate::sync::ghost::Facts) (a set that only grows, for an
//!    invariant that forbids two facts that conflict) is recorded, but its additions commute
//!    with each other ([`registry::Access::Add`]): two executions that added the same facts
//!    in different orders are one state. What an addition checks does depend on the order,
//!    so the interface keeps it to a verdict: the conflict relation is a plain function made
//!    symmetric by the cell, so a conflicting pair is reported by whichever fact comes
//!    second, in every order, and the report may only tell the recorder. *Caught:* an
//!    addition returns nothing; a report that records a facade operation is a model
//!    failure; the set is read back only by
//!    [`Facts::settled`](crate::sync::ghost::Facts::settled), after the run quiesced.
//! 4. **Objects are created inside an execution.** A lock or ghost made before the engine
//!    starts would carry state from one execution to the next. *Caught:* such an object has
//!    no name, and recording an operation on it is a model failure.
//! 5. **Executions are finite.** A task that spins (re-reads a volatile until it changes)
//!    records a new operation on every turn, so its states never repeat and the search never
//!    ends. *Caught:* not by the engine; the execution limit and `--time-budget` stop it, and
//!    the report says the search did not exhaust. Models wait on condition variables instead.
//!
//! Given these, the engine makes every choice shuttle's own schedulers make (but one that
//! cannot change an outcome, below): which runnable task goes next (which includes who takes a
//! free lock first, a reader or a writer, as shuttle's unfair locks let any waiter win), and
//! which waiter a `notify_one` wakes: as in shuttle, a `notify_one` makes every waiter that was
//! registered at that moment runnable, and whichever of them the engine runs first consumes it
//! (the others block again). A join that finds its thread running waits at a decision, and
//! every value of a model's choice ([`crate::sync::choose`]: which request a generated
//! workload issues next) is one: the value chosen is recorded as the chooser's operation, so
//! two workloads that lead to the same state are explored on from it once. No operation wakes spuriously, under shuttle or
//! here.
//!
//! # Sleep sets
//!
//! The unbounded search, the one without a preemption bound that proves a case, also skips
//! transitions that only reorder commuting ones (Godefroid's sleep sets with state caching).
//! A *transition* is a task's run from one decision to the next; the registry observes what
//! it touched ([`registry::Footprint`]): every object whose facade state it read or changed
//! (an operation recorded on it, a lock found held or released, a condition variable whose
//! waiters it read or woke, the spawner's object when it spawned a thread, the task's own
//! choice object when it made a choice), and, when it exited or joined a thread, that
//! thread's exit object until the task's next operation (a join may block inside shuttle
//! until the exiting thread's last transition, after its exit is recorded: both touch the
//! exit object), each with the kind of the access ([`registry::Access`]). Two transitions of
//! different tasks from one state are *independent* when no object is in both footprints
//! with kinds that conflict; anything else is dependent. Kinds conflict unless both are
//! reads (a read lock taken or let go, a volatile read, a notification that found no waiter
//! to wake, which changes nothing) or one is a channel's send and the
//! other a receive that takes a value: that receive finds the channel non-empty, so a send
//! behind it changes neither what it takes nor what is left (a receive that finds the
//! channel empty and blocks is a write, and so is every other touch). A store's rows and
//! table-cache entries are objects of their own, named by the store, the table and the key
//! ([`registry::part`]): an operation on some rows reads or writes each of them, and the store
//! as a whole with an intention kind ([`registry::Access::ReadParts`] or
//! [`registry::Access::WriteParts`]), so operations on different keys commute, a read of rows
//! commutes with a scan or a checkpoint (a read of the whole), a write of rows does not, and a
//! reopen or an install (a write of the whole) conflicts with everything on the store. A
//! store with an observer (which reads every row at each write) records each write as a read
//! of the whole too. Independent transitions
//! commute: run in either order they reach the same state (each object's operations stand in
//! the same order wherever their kinds conflict, so the signature is the same) and neither
//! enables or disables the other (a task is
//! blocked or woken only through an object it touched; a spawned task is created by its
//! spawner's transition, and its start touches nothing until its first operation). Two
//! spawns that commute give their children each other's shuttle ids: the engine names a
//! task by its stable name (its spawner and spawn order) in states and stored sleep sets,
//! from the spawner's transition that makes it, before it first runs. A
//! transition that made a choice is a different transition for each value, with its own
//! footprint: it never sleeps, but tasks asleep before it stay asleep through it when they
//! are independent of the value's transition, as every value is explored wherever a
//! sleeping task was run first. Data a lock guards is not
//! in the footprint, and need not be: two tasks touch it only while holding the lock, so two
//! transitions enabled together that both touch it both take or release the lock (a reader's
//! hold shares only reads), and the lock is in both footprints. The footprint is observed
//! when a transition runs, and it is the transition's footprint from that state in every
//! execution, by determinism (rule 1) and rule 2, which puts every shared read through an
//! object the footprint names. So the registry observes it only where the search has not:
//! for an option run from its decision for the first time, and for the transition that
//! reaches an execution's first new decision, whose sleep set it makes (with a choice inside,
//! that transition differs with the value); a replayed transition's is the one kept.
//!
//! Once a decision's option has been explored, it is *asleep* in the states its later
//! siblings lead to, and a sleeping task stays asleep through transitions independent of its
//! own (each execution that would run it there is equivalent, object by object, to one
//! already explored where it ran first); a sleeping task is not run. Executions are cut
//! short, never made different: all asleep, or a cut, runs the execution to its end as any
//! cut does. Every visited state keeps the sleep set it was explored with, as
//! (task, where the task stands) pairs, where a task stands being the decisions it has
//! passed since its last recorded operation ([`registry::standing`]): two states with one
//! signature may differ in points between operations, and a sleeping task names the same
//! transition in both only if it stands at the same point. A state met again is cut only if
//! every pair it was explored with is in the new sleep set (nothing asleep now was awake
//! then); otherwise it is explored again with the new sleep set, and its stored set becomes
//! the intersection. With this rule, sleep sets with state caching reach every state the
//! search without them reaches (Godefroid, *Partial-Order Methods for the Verification of
//! Concurrent Systems*, LNCS 1032, ch. 5 and 6); they take fewer paths to them. On the
//! benchmark cases measured, the unbounded search visits the same number of states with and without
//! them. A violation found inside a transition is found in every execution that runs that
//! transition from an equivalent state, as what it reads is in its footprint. The recorder's
//! cell is in no footprint: by rule 3 it feeds no decision until an invariant breaks, and by
//! then the verdict is made.
//!
//! The bounded passes do not use sleep sets: with a bound, the execution that covers a
//! sleeping one may need more preemptions than the bound allows.
//!
//! # Deepening
//!
//! Beside the unbounded search runs a *deepening* in two lanes, each a sequence of
//! depth-first passes from the root with visited states of its own. The first lane bounds
//! preemptions (a decision that switches away from a task that could go on) by 0, 1, 2, 3,
//! ...; every value of a choice is free there. A violation that needs k early preemptions is
//! found by its pass k after that pass's executions, however deep the unbounded search's
//! depth-first order would have buried it (hdds-16900's transient `SequenceRowsAgree` needs
//! 3: the unbounded search alone found none in a million executions, pass 3 finds it in
//! about 65,000). But each of its passes takes every workload a generated plan can draw, so
//! a violation that needs a workload far from the first values waits for the pass to reach
//! it. The second lane bounds preemptions and *deviations* (a value of a choice other than
//! its first) together, by 0, 1, 2, ...: delay bounding (Emmi, Qadeer and Rakamaric, POPL
//! 2011), with the workload's choices as a second scheduler whose default is the first
//! value. It starts after the first execution that made a choice with more than one value
//! (without one, it would repeat the first lane). Measured over the 142 violating cases, one
//! run each at its default budget, against the first lane alone: the executions to the first
//! violations fell from 2,575,341 in all to 1,059,457; hdds-16092's `generated` from 223,168
//! to 68, hdds-16900 `through-ratis` on `generated` from 693,245 to 247,450; no case took
//! twice as many (33 took more, at most 1.9993 times), and the written plans, which make no
//! choice, are explored as before. On a holding generated space the second lane costs
//! executions, never states: over 12 spaces exhausted either way, the same states and 5% to
//! 47% more executions (hdds-8832 `hdds-8665` at two requests and one fault 78,975 to
//! 116,478).
//!
//! A violation that needs a workload far from the first values *and* a few preemptions
//! waits for a late pass of either lane: hdds-16092 `buggy` on `generated` broke
//! `ReplicasAgree` (the silent drift: a key created, a block allocated, then a checkpoint
//! installed or a kill, with three preemptions) only after 507,481 executions, where
//! shuttle's random scheduler breaks it within 467 for each of five seeds. One that needs a
//! few ordering constraints deep in a long execution waits longer: hdds-16900 `buggy`'s
//! `NoRefusedRequest` on `generated` broke at 1,375,774 executions (229 s), where PCT at
//! depth 5 breaks it within 1,600 for each of 20 seeds. So two *random walks* run beside
//! the searches, as the randomized engines would: each of their executions takes a random
//! option at every decision, task or value, drawn from a fixed seed (the same walks on
//! every run); they look no state up, keep none and prove nothing, and a violation they
//! find is a real execution, as a random scheduler's is. The *uniform walk* takes a
//! uniformly random option; the *PCT walk* runs the enabled task of highest priority, its
//! priorities drawn when a task is first met and lowered at `depth - 1` random change
//! points, as shuttle's PCT scheduler does, at the plan's PCT depth. Each takes one
//! execution in four for as many executions as the plan gives its randomized engine (the
//! random and PCT budgets), then leaves its turns to the searches. A violation the random
//! scheduler or PCT meets within its budget, the engine meets within about four times the
//! executions its walk needs (one seed's draw), and a case that holds costs at most the two
//! budgets' executions more.
//!
//! Measured over the 142 violating cases, each expected invariant watched alone at the
//! default budget (294 runs), the executions to the first violations in all: 1,885,790 with
//! the two lanes alone (293 runs, `NoRefusedRequest` above left out), 516,359 with one
//! uniform walk taking one of every five of the deepening's executions, 314,587 with the
//! two walks (174 runs took fewer than with one walk, 34 more, at most 1.67 times as many,
//! as the searches have half the executions while the walks run); `ReplicasAgree` above
//! 507,481 -> 1,830 -> 1,462, `NoRefusedRequest` 1,375,774 -> 1,472. Against PCT's median
//! over 20 seeds (the 291 runs that PCT breaks for every seed), the runs that took more
//! than ten times as many executions fell from 31 to 7, more than three times from 102 to
//! 58; the farthest are hdds-17215 `index-per-secret`'s `StoreHoldsIssuedSecret` on
//! `generated` (4,646 executions against a median of 209, 0.3 s) and hdds-16900's
//! `SequenceRowsAgree` on `store-fails` and `expired` (28,800 against 1,490, about 4 s: the
//! PCT walk's 7,200 lie within PCT's spread, whose worst seed took 9,416), the others under
//! 0.1 s; the two runs that PCT breaks for no seed (hdds-16900's `rejoin`) the engine
//! breaks at 49,976. Over the 99 holding cases and spaces exhausted within 60 s, the proofs
//! took 15,127,706 executions -> 15,881,231 (5% more; a case at most twice as many, the
//! small ones whose proofs take fewer executions than the walks' budgets), the same states,
//! every one still exhausted. A counterexample a walk finds is a random schedule, with more
//! switches between actors than the lanes', which the minimizer shortens once it has
//! carried it to shuttle ([`crate::minimize`]).
//!
//! The first lane's passes 0, 1 and 2 run without the unbounded search, as they cost
//! little, taking turns execution by execution with the second lane's passes; from the
//! first lane's pass 3 on, the unbounded search and the deepening share the searches'
//! executions, each search keeping its own stack and visited states between its turns: the
//! deepening takes one for each of the unbounded search's while the least bound of its two
//! passes is 3, one for each 2^(k - 3) of them while it is k, and its lanes take those
//! turns in turn, as few violations need many preemptions and a holding case is proven by
//! the unbounded search alone. Whatever stops the engine (its execution limit, the time
//! budget), the unbounded search has had at least half of the searches' executions that
//! followed the first lane's pass 2. A lane's passes end at bound 254 (a pass's bound and
//! costs are kept in a byte of the state's record).
//!
//! *Caching within a pass.* A bounded pass keys a state by its signature and by the task
//! that may go on without a preemption (the one that ran last, if it still can), as the cost
//! of an option depends on both (what a choice's values cost is the state's: the values are
//! the same wherever the state is reached); it stores the least cost the state was reached
//! with. A state reached at cost p under bound k may spend k - p more; reached again at
//! p' >= p, every path the second visit may take was open to the first, which explored it or
//! cut it at a state that, by the same rule, was explored with at least as much left to
//! spend (states are never met again on one path: each operation adds its place to the
//! signature). So a visit at as high a cost or higher is cut, and one at a lower cost is
//! explored again and lowers the stored cost. Visited states are not carried from pass k to
//! pass k + 1: a state explored with k - p left is needed there with k + 1 - p. The two
//! lanes keep their records of a state apart, as their passes run side by side.
//!
//! *Complete states, shared.* A state is *complete* once a search has finished it with
//! every path from it taken or cut at a complete state: a bounded pass, when no option
//! below it was refused for the bound and no path below it was cut at a state of the pass
//! that is not complete; the unbounded search, when it explored the state with no task
//! asleep (with one asleep, some paths from it were left to the equivalent ones explored
//! before, whose states may differ). Every continuation from a complete state was then
//! explored from it, or one equivalent to it was (sleep sets below it), after some prefix
//! to the same state; run after another prefix to that state it makes the same transitions
//! (rule 1), so it meets the same violations inside them and the same final state.
//! Completeness holds whatever the bound and the lane, so every search cuts a path at a
//! complete state (pass k + 1 at what pass k finished, one lane at what the other finished,
//! the unbounded search at what a pass finished, and the passes at what the unbounded search
//! finished). Measured on the holding cases, it
//! saves the deepening and the unbounded search alike (hdds-10408 fixed/leader 145,381
//! executions to 114,416, with the shares above) and visits the same states.
//!
//! *What each can claim.* A bounded pass's paths are a subset of the unbounded search's; a
//! violation it finds is a real execution. If a pass ended without its bound refusing any
//! option (no path was cut for the bound; cuts by the visited states lead to states
//! explored with no bound refused either, or complete ones), it explored every path the
//! unbounded search would or cut it where all were explored, and it exhausts the case: every
//! search stops. Otherwise the case is exhausted only when the unbounded search ends;
//! interleaving changes nothing of it, as each of its executions replays its own stack from
//! the root and its visited states are its own. An execution limit or a time budget that
//! stops them is a stop, never a proof. A violation within bound k >= 3 of a lane is found
//! within 2 (1 + 2^(k - 3)) times the executions the lane's pass k needs to reach it (and
//! its passes before k); a case the unbounded search exhausts costs it at most twice the
//! executions it took alone past the first lane's pass 2, less when a bounded pass exhausts
//! first or the passes grow. Both count the searches' executions: the walks take as many
//! again while they run, up to their budgets. The states a report counts are those any of
//! the searches met.
//!
//! *The unbounded search alone* (`check --engine stateful --unbounded-only`,
//! [`Strategy::Stateful`](crate::engine::Strategy::Stateful) without `deepening`) runs no
//! pass and no walk: the same search, the same states and final states, so the same proof
//! when it is exhausted, in fewer executions (hdds-16900 `through-ratis` on `restart`:
//! 103,158 against 202,923, 16.5 s against 32.0 s). It is for proving a fix; it finds a
//! violation only where its depth-first order meets one.
//!
//! # Names and signatures
//!
//! Tasks and objects are named by who created them and in which order (not by address or by
//! shuttle's task numbers), so that equivalent executions name them alike; the names are
//! interned once per search, so two names never collide. An operation's *identity* is a
//! 128-bit hash (xxh3-128) of its object, its task, its number among the task's operations,
//! the operation and its operand; its *place* is the hash of its identity and of the sum
//! modulo 2^128 of the identities of the operations on its object before it whose kinds
//! conflict with its own; the signature is the sum modulo 2^128 of every operation's place.
//! Two executions with the same operations, in the same order wherever two on one object
//! conflict, are equivalent (Mazurkiewicz traces) and reach the same state: each task's
//! operations returned the same values (rule 1). They have the same signature, whatever the
//! order of the operations that commute (two reads of a volatile between the same writes,
//! a send and a receive). Two executions that order a conflicting pair differently give the
//! later of the two a different set of operations before it, so a different place. Two
//! distinct states share a signature only if the hash collides: for a search of N states,
//! with the hash taken as a random function, the chance of any collision is at most about
//! N² / 2^128 (places and signatures together): below 10^-26 for the largest searches
//! measured (a few tens of millions of states).
//!
//! Volatiles, channels, the store's tables and Java's thread-safe structures
//! ([`Concurrent`](crate::sync::Concurrent)) have no lock in the Java, but are built on the
//! facade's mutex under shuttle and loom, which orders every two accesses. In this engine's
//! mode they keep their value outside shuttle's locks (`Native` in the facade): an access
//! yields, waits only for what its operation needs (a receive for a value or for its senders
//! to leave), and takes effect at once with its kind; the task runs on. Shuttle also stops
//! inside the lock's release, the lock still taken, but that stop is no decision here: a
//! task run there cannot touch the value, and nothing of the holder's has run since its
//! operation (a hold runs no model code), so the task may as well have run just before the
//! operation, where it was enabled too (the operation changed nothing else). The holder's
//! code after its operation then runs with it, as it runs with the release under shuttle.
//! One hold does touch something else: a store's observer reads the model's ghost cells to
//! check an invariant at each write. Another task may change such a cell at that stop,
//! between the check and the holder's code after it, so after such a hold the value stays
//! held, as a lock would be, through a decision there; the facade sees it, as the ghost
//! access is recorded inside the hold. A facade operation that would wait or yield inside a
//! hold is a model failure.
//! Measured on hdds-16092 fixed: on `restart`, not exhausted in 60 s (833,274 states met),
//! now exhausted in 232,233 executions and 218,353 states; on `generated` at one request,
//! 271,339 states fall to 48,907.
//!
//! A task may also stop at a point inside shuttle that is not an operation (inside the
//! engine's lock, which only the facade lock's holder ever takes, or at its own exit). Two
//! states that differ only there reach the same operations in the same orders, so the engine
//! looks a state up only at the first decision after an operation.
//!
//! Two such stops are not decisions ([`registry::passing_engine_lock`]); the engine runs the
//! task on. The first is inside the engine's lock just after a task took the facade's.
//! Nothing of the task has run since its operation, and the decision just before that
//! operation is one. A transition of another task that does not touch the lock commutes with
//! the operation, so running it at that stop reaches the state that running it just before
//! the operation reaches; one that would take the lock is not offered while it is held
//! (below, "Waiting before running"), and one that finds it held blocks, which changes
//! nothing until the holder lets the lock go and wakes it. Measured: about a quarter fewer
//! executions (hdds-7279 fixed/two-oms 145,068 to 106,063).
//!
//! The second is inside the release of the engine's lock after a *short* hold: one in which
//! the holder recorded no operation, touched no object and passed no decision since it took
//! the lock ([`registry::short_hold`]), so it ran only its own code on the data the lock
//! guards. The hold is then one step, as a `Native` value's is (Lipton's reduction: taking
//! a lock moves right, letting it go moves left). A transition of another task run at that
//! stop, the facade's lock still taken, either touches the lock, finds it held and blocks,
//! or does not touch it and commutes with the hold (it cannot touch the data the lock
//! guards), so it could as well have run just before the hold, where it was enabled too
//! (taking a lock wakes nobody). After any other hold (one that made an operation, notified,
//! touched a ghost cell or passed a decision) the stop stays a decision: another task may
//! act there on what the hold touched before the holder's code after the release runs
//! (`a_section_that_touched_a_cell_is_not_one_step` in the tests). Measured over the 73
//! holding cases the engine exhausts in 60 s: 3,921,701 executions to 3,415,568 and
//! 4,652,163 states to 4,423,990 (the stop was a looked-up state of its own), every case
//! still exhausted (hdds-10408 fixed/leader-and-follower 895,856 executions to 674,848);
//! over the 142 violating cases, every one breaks the same invariant, in 752,920 executions
//! in all against 799,518 before, none more.
//!
//! A mutex made in this mode keeps its data in a lock of its own rather than in shuttle's
//! (`Slot` in the facade): the facade's lock orders its holders, so shuttle's lock there
//! only made the two stops above, each a pass through shuttle's scheduler. The decision
//! inside the release of a hold that is not short is made by a yield in the same place,
//! the facade's lock still taken. The decisions are the same, so are the executions and
//! states; the time is 10 to 15% less (hdds-16900 `through-ratis` on `restart`, the
//! unbounded search alone: 16.7 s to 14.7 s, 103,158 executions both). A read/write lock
//! still takes shuttle's.
//!
//! *Waiting before running.* A task that could only find its operation unable to proceed
//! is not run to find it out. A task about to take a lock (a mutex, a read/write lock as
//! a reader or a writer) says so before it yields ([`registry::wants`]), and the facade
//! tells the registry the lock's state each time it changes ([`registry::lock_state`]): while
//! the lock is taken against the task, the engine does not offer it. A waiter on a
//! condition variable is blocked on it in the transition that registers it, as a waiter
//! just registered has no notification yet. Run there, the task would only find the lock
//! taken, or no notification, and block: a transition that records nothing and changes no
//! state, but touches the lock or the variable as a write, so the search ordered it
//! against every other transition there, and ran it once more each time. Nothing else
//! changes: the lock's state changes only in a transition that takes or lets it go, the
//! variable's waiters only in one that notifies, and each touches its object, as the
//! waiting task's own next transition does, so a transition that makes the task runnable
//! or not conflicts with the task's (two independent transitions still neither enable
//! nor disable each other, as sleep sets need); and the states are the same, as the
//! attempt changed none. Measured over the 75 holding written plans and 40 smaller
//! generated spaces exhausted within 60 s before: every one exhausted again with the same
//! states and final states, in 5,701,923 executions against 7,614,211 (6,032,411 with the
//! locks alone), none taking more (the searches' executions on hdds-16092 fixed/second-term
//! 925,798 to 584,195, on hdds-10408 fixed/leader-and-follower 379,878 to 247,517), and seven
//! more holding cases exhausted within 60 s. Over the 142 violating cases, each expected
//! invariant watched alone (294 runs), every one still breaks, in 315,805 executions in all
//! against 284,333: 83 runs took fewer, 48 more, as the random walks draw along other
//! decisions (hdds-16900's `SequenceRowsAgree` on `store-fails` and `expired` the most,
//! 28,800 to 43,956).
//!
//! A receive from an empty channel whose senders are not all gone, and a join of a thread
//! that has not exited, wait so too: the task finds it out just before it yields, touching
//! nothing ([`registry::wait_for`]), and is not offered until a step on the channel, or the
//! exit, wakes it. Run there, it would only find the channel empty or the thread running
//! and block, a write of the channel or of the exit object. The argument is the lock's: the
//! channel changes only by a step on it and the exit object only by the exit, each of which
//! wakes the task, and the look before the yield changes nothing (run after a step that
//! made the receive possible, the task's transition is the same and ends enabled). A
//! notification that finds no waiter to wake, or only waiters a `notify_all` already woke,
//! changes nothing either: it is a read of the variable ([`registry::look`]), which commutes
//! with another such notification, not with a waiter's registration. The search over
//! states meets the same states and final states in fewer executions; the search over
//! source sets, which explored one execution for each order of such an attempt against the
//! step that made it pointless, runs close to one execution per final state (README, "Every
//! schedule, without a preemption bound", has the figures).
//!
//! *Exits.* A thread's exit is an operation (on the thread's exit object) with no decision
//! before it: it is recorded in the thread's last transition, with the rest of its code
//! after its last operation. Only a join touches the exit object, and a join waits for the
//! exit. So the exit moves left past any transition of another task that could run between
//! the thread's last transition and it: one that does not touch the exit object commutes
//! with it, and one that does is a join that finds the thread running and blocks, which
//! changes nothing until the exit wakes it. A decision before the exit would only add, for
//! every state the other tasks reach meanwhile, a twin in which the thread has not exited
//! yet (on hdds-16092 fixed/second-term and hdds-17215 leader-side/lagging-follower, a
//! transition that only exited made 15% of the new states). Measured over the 73 holding
//! cases the engine exhausts in 60 s: 3,415,568 executions to 2,420,808 and 4,423,990
//! states to 2,963,863, every case still exhausted, none taking more (hdds-10408
//! fixed/leader-and-follower 674,848 executions to 470,388; hdds-16092 fixed/restart
//! 218,046 to 166,402); over the 142 violating cases, every one breaks the same invariant,
//! in 676,294 executions in all against 752,920, none more.
//!
//! The thread's last step inside shuttle (shuttle switches once more after the thread's
//! code has returned, before the task ends) is no decision either: the engine runs an
//! exited thread on to its end ([`registry::passing`]). That step touches only the exit
//! object, and the one join, which shuttle holds until the thread has ended, cannot
//! complete before it; so it moves left to the exit, and the exit and the thread's end are
//! one transition. As a decision of its own it gave each transition of another task that
//! could run there two orders that reach one state: the search over states met that state
//! twice, the search over source sets ran an execution for each (on hdds-16900
//! `through-ratis`/`first-start`, exactly two executions per final state).
//!
//! *Spawns and joins.* A spawn has no decision before it either
//! ([`registry::left_mover`]): it is recorded in the task's transition that leads to it. A
//! spawn touches only its spawner's own object and makes a task that has not run, so it
//! commutes with every transition of another task (measured over the 73 holding cases, when
//! a join's first attempt had no decision before it either: 2,420,808 executions to
//! 2,101,379 with both, 2,114,867 with the joins alone). A join has
//! a decision before it, and waits before running (above): while the thread runs, the
//! joiner is not offered. Its first attempt used to run in the transition that led to it,
//! which then ended past the join when the thread had exited and at a blocked join when it
//! had not: two transitions from one state, told apart by the exit, which the search over
//! source sets had to order against it. Now the transition that leads to the join touches
//! nothing of the thread, and the join runs after the exit, touching the exit object, and
//! is ordered after the exit as a lock's taking is after its release (`dpor.rs`): the two
//! are never both enabled.
//!
//! *Exit steps.* A join is no operation: it records nothing and touches the joined thread's
//! exit object. It waits for the exit, which is recorded, and what it returns (the thread's
//! result) follows from the thread's operations (rule 1), so the states before and after a
//! join that found the exit differ only in where the joiner stands, as two states that
//! differ at a stop inside shuttle do (above), and are one state. Recorded, a join made a
//! second state of each: on hdds-16092 fixed/restart, a transition that joined first reached
//! 11% of the states.
//!
//! After an exit, a joiner's transition touches nothing but exit objects: the join that
//! finds the thread exited, which ends at shuttle's own stop inside the join (the exited
//! thread's last step inside shuttle did too, before it became part of the exit: above).
//! Once a thread's join has begun, its exit object is touched by nothing but the thread's
//! last steps and its one joiner (who took the handle). The unbounded search takes these *exit steps*
//! ([`registry::exit_steps`]) first at a decision, and once each has been run there and
//! found to touch only exit objects of threads whose join has begun and spawners' own
//! objects ([`registry::exit_private`]; one asleep there was found so where it ran), it
//! takes none of the decision's other options: the exit steps are a persistent set
//! (Godefroid, ch. 4). A transition of another task, from there or after other such
//! transitions, touches none of their objects and commutes with each of them, and an exit
//! step stays enabled until it runs (nothing blocks an exited thread's last step or a woken
//! joiner), so every execution that runs other tasks first is equivalent to one that runs
//! the exit steps first. With sleep sets this is Godefroid's combination (ch. 6); executions
//! are finite, so no step is put off forever. A state explored so, with no task asleep, is
//! complete: every execution through it is covered by one explored. The bounded passes take
//! every option, as taking an exit step first may cost a preemption. Under shuttle 0.9,
//! whose join stops once inside even when the thread has finished, every exit step touches
//! one exit object, and the check refuses only an exited thread's last step before any
//! task has begun to join it (a join's first attempt may still come, and touches that
//! object); it is there so that the set rests on what is observed, not on shuttle's
//! internals. Measured over the 73 holding cases, both
//! together: 2,101,379 executions to 1,816,452 and 2,931,848 states to 2,309,042, every case
//! still exhausted, none taking more (hdds-10408 fixed/leader-and-follower 433,116 executions
//! to 379,878 and 436,131 states to 327,231: 397,202 and 386,269 with the exit steps alone,
//! 398,463 and 327,231 with joins unrecorded alone; hdds-16092 fixed/restart 138,529 to
//! 127,594); over the 142 violating cases, every one breaks the same invariant, in 601,037
//! executions in all against 668,075, none more.
//!
//! *Alone.* Until an execution's first spawn the main task is the only task (every thread is
//! spawned through the facade, rule 2): a decision there has one option, and every state
//! there is reached by one path from the root, or from the last choice
//! ([`crate::sync::choose`], which stays a decision). A task is alone when no thread has
//! been spawned yet and it is not blocked (`alone` in the registry). So the main task
//! passes its operations' yield points without stopping ([`registry::point`]) and the
//! engine runs it on at shuttle's other stops ([`registry::passing`]), as at the engine's
//! lock: its run from the root, or from a choice, to the first decision after its first
//! spawn is one transition. A blocked task still stops, so a main task that waits alone is a
//! deadlock, as before. The states of that run are no longer looked up, and reports count
//! fewer states: two workloads whose setups lead to one state meet at the next decision
//! rather than inside the setup. A
//! scenario's setup runs there: on HDDS-16900, whose setup issues certificates and moves
//! the leadership before the actors race, the first 40,000 executions of `through-ratis` on
//! `restart` took 5.0 s against 5.6 s. Measured over the 73 holding cases: the same
//! 1,816,452 executions, and 2,308,780 states against 2,309,042 (only hdds-16452's and
//! hdds-8973's setups took decisions); over the 142 violating cases, every one breaks the
//! same invariant, in the same 601,037 executions.
//!
//! Once a path is cut, the execution runs to its end without preemptions, and the tasks pass
//! their operations' yield points without stopping (a blocked task still stops), as the engine
//! would only let each go on there ([`registry::finish`]).
//!
//! Everything here is engine-invisible bookkeeping in a thread-local cell: under shuttle every
//! task runs on the OS thread that drives the exploration. When the engine is not running, the
//! registry is inactive and every function is a no-op.
//!
//! # Reads named by what they saw
//!
//! A read of a [`Volatile`](crate::sync::Volatile), and a read of the replicated log
//! ([`SharedLog`](crate::kit::replica::SharedLog)'s `last_index` and `entries_after`), is
//! placed otherwise: its identity has, for operand, a name of what it returned, and it has no
//! place among its object's writes ([`Concurrent::read_seen`](crate::sync::Concurrent::read_seen)).
//! A volatile's read is named by the value's hash; the log's by its last index and how far it
//! was purged, as every write appends an entry or purges the front and an entry never
//! changes once appended, so those two name which of the logs the writes went through the
//! read met. Such reads are left out of their object's history, and the writes are placed
//! among the writes (and the reads placed as above) alone. A name is a 64-bit hash (xxh3):
//! two things one read could return share a name with a chance of about 2^-64 per pair,
//! beside the signature's own bound above. The signature still names one
//! state: the writes in their order give the object's value, a read's name gives what it
//! returned (with the writes), and a task's own state follows from what its operations
//! returned (rule 1). So a read before a write and the same read after it reach one state
//! when the write left what the read returns as it was (a flag set again to what it held,
//! an entry appended past where a reader stops), where the order alone told two. A name that
//! said too little would merge states that differ: each name is argued where it is made, and
//! two tests in `crates/core/tests/shuttle/stateful.rs` fail when a volatile's or the log's
//! reads are named alike whatever they returned (`a_read_is_named_by_what_it_saw`,
//! `a_log_read_is_named_by_the_log_it_met`). The random programs compared with shuttle's
//! enumeration do not: an execution cut at a state met before still runs to its end, so a
//! merge shows in their final states only where the two merged states' futures differ
//! past what one schedule covers. Footprints do not change: such a read still conflicts
//! with a write, both orders are run, and the second meets the state the first reached.
//! Measured over the 77 holding written plans exhausted within 60 s: the states fell on
//! hdds-16452's nine (`fixed` on `with-leader-change` 1,417 to 1,185, on
//! `save-configuration` 465 to 421) and on no other. The rest of the states are told apart
//! by the order of lock sections and of store rows, which are still placed by order.
//!
//! # Final states
//!
//! The searches also count the distinct states their executions end in, every task
//! finished: the final states, each a class of complete executions that order every two
//! conflicting operations alike. An execution cut at a state met before runs to its end
//! without recording, so only executions that were not cut are counted, and that loses none:
//! nothing after an execution's last decision can be cut, and that decision lies on a path
//! the search did not cut, with the option leading to the final state run from it (or,
//! asleep there, an equivalent one run on another such path). So an exhausted search counts
//! every final state once (the walks' executions are not counted; the shards of a generated
//! space own disjoint workloads, so their counts add up). A search that keeps every final
//! state runs at least one execution for each; an optimal dynamic partial-order reduction
//! (Abdulla, Aronis, Jonsson and Sagonas, POPL 2014) aims at exactly one. The searches'
//! executions per final state are what any such reduction could still save here. Measured: hdds-16900 `through-ratis` on `restart`, 232,846 executions
//! for 8,834 final states (26.4 each) among 865,360 states; hdds-16092 `fixed` on
//! `second-term`, 925,798 for 108,752 (8.5) among 1,223,139; since a task that could only
//! find it must wait is not run ("Waiting before running"), 170,923 (19.3) and 584,195
//! (5.4) for the same final states. The search visits every state,
//! each prefix of those classes too; it is the prefixes, not the outcomes, that are many.
//!
//! # Source sets
//!
//! With `--source-sets` ([`Strategy::Stateful`](crate::engine::Strategy::Stateful)'s
//! `sources`) the unbounded search keeps no states: it explores *source sets* with sleep
//! sets, a dynamic partial-order reduction (Abdulla, Aronis, Jonsson and Sagonas, POPL 2014,
//! Algorithm 1), which aims at one execution per final state where the search over states
//! runs one for each state it has not met. The deepening and the walks run beside it as
//! before. Either search's `exhausted` covers every interleaving.
//!
//! - Each execution's transitions are ordered by vector clocks built from their footprints
//!   (`dpor.rs`): by task, by conflict on an object, and from a spawn or a wake-up to the
//!   task it let run. Two transitions of different tasks *race* when they conflict and
//!   nothing between them orders them. For each race, a task that could start the reordered
//!   sequence (an *initial*) is added to the earlier decision's source set, unless one is
//!   there already or asleep; where no initial is an option there (it is blocked, or not yet
//!   spawned), every option is (Flanagan and Godefroid, POPL 2005).
//! - Blocking hides races. A lock taken after another task let it go happens after that
//!   release, yet never races with it (the two are never both enabled); the race is with
//!   the other task's *taking*, which the release orders away. That holds on every object
//!   the two transitions touch: a release whose transition goes on to write what the
//!   taker's transition reads is no race either (counted as one, it hid the race with the
//!   taking; found with witnesses ordered, `dpor.rs` tests it). Likewise a waiter that
//!   consumed a `notify_one` shows no race with the waiter left behind. So at every new
//!   state the search also looks at each task whose next operation is known and not run:
//!   a task standing before a lock taken against it, or blocked (a waiter, a receive on an
//!   empty channel). The latest transition of another task that conflicts with that
//!   operation, other than a release of the lock or the transition that woke the task,
//!   races with it unless it happens before the task (Flanagan and Godefroid's check of
//!   every task's next transition at every state). Without that check the search missed
//!   outcomes of the random programs (a waiter against a single `notify_one`) and of the
//!   tests' handoff and two-waiter models.
//! - It cuts no path at a state met before (the races past the cut would be hidden from the
//!   decisions above it), nor at a state the deepening completed, and takes no exit steps
//!   first: the states are only counted.
//! - An execution replays its path up to the first decision it changes, so it keeps the
//!   transitions the execution before traced there, with their clocks, and traces only
//!   those after (`Trace::truncate`): the same races, found in 6 to 27% less time on the
//!   cases measured (README, "Every schedule, without a preemption bound").
//!
//! Checked as the other searches are: the models compared with shuttle's enumeration and
//! the random programs run it too (alone, without the deepening that would cover for
//! what it missed), each to the same outcomes and the same final states (`SEARCHES` in
//! `crates/core/tests/shuttle/stateful.rs`; while it was built, 1,200 more programs on three
//! other seeds, and 300 on each of two more with its final rules). On the scenarios it
//! reaches the same final states as the search over states wherever both end, with about
//! 1.7 executions per final state over the holding cases both exhaust (the search over
//! states: 6.4), and is the faster on most large cases: README ("Every schedule, without a
//! preemption bound") has the figures. The search over states stays the default.
//!
//! Probes and witnesses. A witness cell is in no state, and in no footprint either unless
//! the search orders witnesses ([`registry::order_witnesses`]): then a probe's read of one is
//! a read, and every write a write, of the cell in the footprints (not an event: no stop
//! depends on it, so an execution takes the same decisions either way and its schedule
//! replays in both). Without that, a probe's read is never reordered against the writes that
//! open and close its window, and either search may leave a window unmet that an
//! interleaving reaches: hdds-8036 `fixed` under source sets, and a two-task model in the
//! shuttle tests (`a_probe_of_a_window_is_met_once_witnesses_are_ordered`) under both.
//! Ordering them always would cost much (hdds-16900 `through-ratis`/`restart`: 14,906
//! executions -> 47,917; hdds-8681 `batched-cleanup`'s generated space: 31,274 -> 89,023),
//! so `explore` orders them in a second search, over source sets alone, only
//! when the first exhausted a case with a required probe unmet, and stops it once every
//! such probe fired (hdds-8036 `fixed`: 10 executions). It has every conflict the first had,
//! so a violation there would be the engine's failure, reported as one; run to its end with
//! a probe still unmet, it shows that no interleaving reaches the window.
//!
//! # Where it lives
//!
//! [`registry`] keeps the state; [`facade`] is the one narrow interface the sync facade
//! calls (every hook `pub(crate)`, none part of the public API); the search itself is a
//! shuttle scheduler (`search.rs`), with the table of the states it met (`states.rs`), driven by the shuttle driver like the others.

#[cfg(not(any(loom, ohc_threads)))]
mod dpor;
pub(crate) mod facade;
pub(crate) mod registry;
#[cfg(not(any(loom, ohc_threads)))]
mod search;
#[cfg(not(any(loom, ohc_threads)))]
mod states;
#[cfg(not(any(loom, ohc_threads)))]
pub(crate) use search::{SearchEnd, Stateful};
