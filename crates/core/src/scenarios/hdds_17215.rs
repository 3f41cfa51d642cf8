//! HDDS-17215: OMs call a shared external S3 secret store while applying, so a late OM
//! diverges from the leader and a store failure terminates the OM.
//!
//! The model of the S3 paths follows the Java at the pinned commit 78d5650c313. Java: the
//! secret manager stack ([`crate::models::s3_secret`]: `S3SecretLockedManager` over
//! `S3SecretManagerImpl`, `S3InMemoryCache`, `VaultS3SecretStore` as
//! [`crate::kit::external_store`]), the five requests ([`crate::models::s3_secret::requests`]),
//! `OzoneManagerDoubleBuffer`, `OzoneManagerStateMachine.runCommand` / `processResponse`
//! ([`crate::models::s3_secret::node`]).
//!
//! # Plans
//!
//! Every log begins with the term's configuration entry at index 1, so that the data entries
//! have the seed's indices 2..; it carries no S3 state and the OMs skip it.
//!
//! | plan | log | threads | then `main` |
//! |---|---|---|---|
//! | `lagging-follower` | 2 `TenantAssign u1` (S2), 3 `TenantRevoke u1`, 4 `TenantAssign u1` (S4); store empty | `om1` (leader: applies and flushes each entry on one thread, and replicates it to om2), `om2-apply`, `om2-flush` | stops om2 in order, flushes what it did not swap, restarts every terminated OM, which replays after its stored index |
//! | `crash-replay` | 2 `RevokeSecret u1`, 3 `SetSecret u1` (set-by-another-caller), 4 `GetSecret u1` (S4); store holds u1 = S0 | `apply`, `flush` of one OM; after the last apply the OM crashes (responses not swapped are lost) | restarts the OM, which replays after its stored index |
//! | `apply-vs-flush` | 2 `GetSecret u1` (S2), 3 `RevokeSecret u1`, 4 `GetSecret u1` (S4); store empty | `apply`, `flush` of one OM | an orderly stop, then `main` flushes what is left |
//! | `store-failure` | 2 `TenantAssign u1` (S2), 3 `GetSecret u2` (S3); store empty; one store call fails | `om1` (as above), `om2-apply`, `om2-flush` | as `lagging-follower` |
//! | `leader-change` | store holds u1 = S0, clients told S0; A = `SetSecret u1` (X) and B = `RevokeSecret u1` arrive at the leader om1 | `h1`, `h2` (om1's RPC handlers: `preExecute`, then append to om1's log, not ordered with each other), `om2` (applies committed entries, then takes over) | `main` is om1's apply thread: it applies each appended entry as it comes; the first appended (index 2) commits (om1, om2 and om3 are the voters; om3 applies nothing during the plan): om2 and om1 apply and flush it, om1 tells its client; the second (index 3) never commits; once both handlers ended om1 crashes; om2 wins with om3's vote, appends and applies its term-2 configuration entry (ready) and, in the reconciling variants, reconciles; om1 and om3 catch up from om2's log |
//! | `partitioned-leader` | as `leader-change` | as `leader-change` | as `leader-change`, but om1 is partitioned, not crashed, right after it applied index 2: om2 takes over while om1's handlers still pre-execute |
//! | `pipelined` | as `leader-change` | as `leader-change` | both entries commit; om1 stays leader |
//! | `submit-fails` | store holds u1 = S0; A = `SetSecret u1` (X), B = `SetSecret u1` (Y) | as `leader-change` | h2's submission to Ratis fails after its `preExecute` (its client gets an error); om1 stays leader |
//! | `lost-store-reply` | as `submit-fails`; in the leader-side variants om1's fourth store call (the write of the second request it pre-executes) takes effect and then fails | as `leader-change` | that request is not replicated (its client gets an error); om1 stays leader |
//! | `generated` | a workload of [`VOCABULARY`], at most three requests and one fault by default; store empty; the leader gives each request it accepts the next index | `om1` (leader: `preExecute`, append, replicate, apply and flush), `om2-apply`, `om2-flush` | stops om2, flushes what it left, restarts every OM that is down; om3 catches up after a leader change (see "Generated workloads") |
//!
//! In `leader-side-periodic` the leader of the plan's end reconciles once more after every
//! thread ended: the periodic run that follows the last fault (the old leader has stepped
//! down by then). The leader-side OMs of the handler plans start with the row u1 = S0@0,
//! the replicated state that matches the store.
//!
//! In `store-failure` the failing call is the first one om2 makes (its apply-time read for
//! the assign). In the leader-side variants om2 makes no store calls at all, so the plan fails
//! the leader's store write for the same assign instead (om1's second call, in `preExecute`).
//!
//! In `leader-change` the Java `preExecute` of the set reads the store through the locked
//! manager on the RPC thread ([`OMSetSecretRequest.preExecute`](crate::citation::java::OMSetSecretRequest::preExecute),
//! filling om1's cache at index 0); the revoke's checks permissions only. The log index is
//! assigned when the request is submitted to Ratis, after `preExecute`
//! ([`OMExecutionFlow.submitExecutionToRatis`](crate::citation::java::OMExecutionFlow::submitExecutionToRatis)),
//! so two handlers may pre-execute in one order and append in the other. A leader is ready
//! once the configuration entry of its term is applied, with every earlier committed entry
//! ([`LeaderStateImpl.isReady`](crate::citation::java::LeaderStateImpl::isReady)); the OM's Ranger
//! reconciliation likewise runs only on a ready leader
//! ([`OMRangerBGSyncService.shouldRun`](crate::citation::java::OMRangerBGSyncService::shouldRun)).
//!
//! At most three threads and `main` per plan (loom's limit is four). Left out for that: a
//! third OM as a thread (om3 of the handler plans votes and catches up only), a separate
//! flush thread for `om1`, a crash inside a flush between the store calls and the batch
//! commit (the path the seed gives for a single OM without HDDS-17214's patch), and a
//! reconciliation concurrent with `preExecute`s on the same leader (the handlers are om1's,
//! the reconciling leader is om2, or runs after they ended).
//!
//! In the four fixed-log plans a leader-side leader decides each entry on its apply thread
//! right before applying it, so its `preExecute` never runs ahead of its applied state
//! there; the handler plans run it ahead.
//!
//! # Variants
//!
//! - `buggy`: the Java today (apply-time store calls of `S3GetSecretRequest` and of every
//!   cache miss, flush-time `storeSecret` / `revokeSecret` of the others; without the patch
//!   of HDDS-17214).
//! - `index-per-secret`: the store keeps the log index with each secret, and a tombstone with
//!   the index of a delete, and refuses a write or a delete from a lower index. Its reads return the value as Vault does (index 0), so the
//!   OM code is the Java's.
//! - `leader-side`: the leader calls the store once in `preExecute` and puts its decision in
//!   the entry; applying updates the caches and the OM's DB (a replicated `s3SecretTable` row
//!   per access id) and the leader tells the client when it applies the committed entry; a
//!   store failure is a clean error and the entry is not replicated. The id's lock is held for
//!   the `preExecute` only, so RPC handlers pre-execute ahead of the apply.
//! - `leader-side-reconciled`: `leader-side` with the lock scope a leader-side design needs:
//!   held from `preExecute` until the leader applies the entry (or the request fails before it
//!   is replicated), as the tenant requests hold the authorizer lock
//!   ([`AuthorizerLockImpl.tryWriteLockInOMRequest`](crate::citation::java::AuthorizerLockImpl::tryWriteLockInOMRequest)
//!   in `preExecute`, [`unlockWriteInOMRequest`](crate::citation::java::AuthorizerLockImpl::unlockWriteInOMRequest)
//!   in `validateAndUpdateCache`); and a new leader, once ready, makes the store equal its
//!   replicated rows (put the secret, delete a revoked one) under that lock, once.
//! - `leader-side-periodic`: `leader-side-reconciled`, and the ready leader reconciles
//!   periodically, as `OMRangerBGSyncService` does for Ranger (a `BackgroundService` run at
//!   a fixed interval on the ready leader, under the authorizer lock:
//!   [`OMRangerBGSyncService.triggerRangerSyncOnce`](crate::citation::java::OMRangerBGSyncService::triggerRangerSyncOnce)).
//!
//! # What the model shows
//!
//! `buggy` breaks all three invariants on `lagging-follower`, `ReplicasAgree` and
//! `NoOmTermination` on `store-failure` (om2 fails before it writes anything), and
//! `StoreHoldsIssuedSecret` on `crash-replay` and `apply-vs-flush`, as before.
//!
//! - `lagging-follower`: om2 applies index 2 after om1 flushed it (the store holds S2), rejects
//!   the assign with `TENANT_USER_ACCESS_ID_ALREADY_EXISTS`, and the NPE of index 3 terminates
//!   it once the flush of 2 has evicted the assign's tenant-table cache entry; the restart
//!   replays index 3 and terminates again (the seed). The Java adds that entry before the
//!   store check and does not roll it back
//!   ([`OMTenantAssignUserAccessIdRequest.validateAndUpdateCache`](crate::citation::java::OMTenantAssignUserAccessIdRequest::validateAndUpdateCache)),
//!   and the eviction runs on the table cache's executor
//!   ([`PartialTableCache.cleanup`](crate::citation::java::PartialTableCache::cleanup)): a revoke
//!   applied before the eviction finds the leaked entry and is accepted instead of throwing
//!   (probe `LeakedTenantEntryRead`); or, when the principal table's executor evicted the
//!   leaked principal entry first, it finds the access id and throws on
//!   `requireNonNull(principalInfo)` instead, and om2 terminates (probe
//!   `PrincipalEvictedFirst`): the Java's two evictions run on two executors. No verdict
//!   changes: the NPE terminates om2 as the access-id one does, in interleavings where the
//!   revoke was accepted before. `StoreHoldsIssuedSecret` also breaks (watched alone): om2
//!   accepted the assign before om1 flushed anything, and its flush-time `storeSecret` of
//!   index 2 lands after om1 stored S4; om2's flush of the revoke then deletes it.
//! - `crash-replay`: the revoke's `hasS3Secret` reads S0 from the store and caches it at index
//!   0 ([`S3SecretManagerImpl.getSecret`](crate::citation::java::S3SecretManagerImpl::getSecret)),
//!   then tombstones it; the tombstone keeps index 0 and no flush evicts it, so the set is
//!   always rejected; the getsecret creates and stores S4. After the crash the replayed set
//!   reads S4 from the store, is accepted, and its flush overwrites the issued secret (the
//!   seed's path).
//! - `apply-vs-flush`: revoke(3) tombstones the cached S2@2; getsecret(4) hits the tombstone,
//!   stores S4 at once and answers S4; the flush of 3 calls `revokeSecret` and deletes S4
//!   (probes `TombstoneThenStoreWrite`, `FlushRevokesNewerSecret`). The suite used to report a
//!   second path in which getsecret(4) answered S2; the Java has none: when the flush of 2 has
//!   evicted the tombstone (it carries index 2), getsecret(4) reads S2 from the store and is
//!   refused with `S3_SECRET_ALREADY_EXISTS`
//!   ([`S3GetSecretRequest.validateAndUpdateCache`](crate::citation::java::S3GetSecretRequest::validateAndUpdateCache):
//!   an existing secret of an id assigned to no tenant), and nothing is told.
//! - `store-failure`: om2's read inside `doUnderLock` throws, INTERNAL_ERROR; when its error
//!   response is flushed before the termination, the restart resumes after index 2 and om2 has
//!   skipped the assign om1 applied (symptom 2); otherwise the restart replays index 2 against
//!   the store om1 has written since and rejects it.
//!
//! **`index-per-secret` now holds on `crash-replay` and `apply-vs-flush`** (it violated
//! `StoreHoldsIssuedSecret` on both). Its two remaining paths came from semantics the Java
//! does not have. On `crash-replay` the old model accepted the set while the revoke was
//! neither cached nor flushed; in the Java the revoke's own `hasS3Secret` caches S0 and
//! tombstones it at index 0, so the set is always rejected, and the replayed set is refused by
//! the index (S4@4 over 3): staged tests `a_store_hit_is_cached_at_index_0_and_survives_the_flush`
//! and `index_per_secret_refuses_the_replayed_overwrite`. On `apply-vs-flush` the old path had
//! getsecret(4) answer S2; in the Java it is refused (above), and the late revoke at 3 cannot
//! delete S4@4: staged test `getsecret_on_an_existing_non_tenant_id_is_refused`. It still
//! breaks all three invariants on `lagging-follower` (the seed's prediction: it covers the
//! overwrite, not the diverging decisions) and `ReplicasAgree` and `NoOmTermination` on
//! `store-failure`.
//!
//! **`leader-change`, `partitioned-leader`, `pipelined`: `buggy` and `index-per-secret`
//! break `StoreHoldsIssuedSecret`** (`leader-change` used to hold: the plan had om1 apply
//! nothing until both handlers ended, so the set's `preExecute` had always cached S0 in om1
//! before om1 applied anything). A committed revoke at index 2: the follower om2 applies and
//! flushes it first (its `revokeSecret` deletes S0), then the leader om1 applies it, finds
//! nothing in the store (its cache has no entry for u1) and answers `S3_SECRET_NOT_FOUND`: the
//! revoke took effect and its client was told it failed, while the holder of S0 was told
//! nothing (committed fixture `hdds-17215__buggy__leader-change__StoreHoldsIssuedSecret__pct.json`).
//! Apply order between a leader and its followers is not fixed in Ratis: each applies
//! committed entries on its own `StateMachineUpdater`. They hold on `submit-fails` and
//! `lost-store-reply`: the Java `preExecute` only reads, and a request that is not replicated
//! leaves no trace.
//!
//! **`leader-side` breaks `StoreHoldsIssuedSecret` on all five handler plans.** `pipelined`
//! (new): h1 pre-executes A (store X), h2 pre-executes B (deletes X), h2 appends at 2, h1 at 3;
//! om1 applies the revoke, then the set, and tells the client X while the store holds
//! nothing, with no leader change and no failure: the store's order is the `preExecute`s',
//! the replicated order the appends'. `leader-change` as before: h1 pre-executes A (X), h2
//! pre-executes B (delete), A commits at 2, B at 3 never does (probe `UncommittedStoreWrite`;
//! staged test `leader_side_loses_the_committed_secret_to_an_uncommitted_pre_execute`).
//! `submit-fails` and `lost-store-reply`: the store write of a request that is never
//! replicated stays.
//!
//! **`leader-side-reconciled` (now with the lock to the apply) holds on `leader-change` and
//! `pipelined`** (probe `PreExecuteWaitedForApply`: h2's `preExecute` waited until h1's entry
//! was applied) and **breaks `StoreHoldsIssuedSecret` on `partitioned-leader`,
//! `submit-fails` and `lost-store-reply`**: one reconciliation is not enough. On
//! `partitioned-leader` om1 applies A (X at 2), is partitioned, om2 takes over and restores
//! X, then om1's h2, which took om1's lock once A was applied, pre-executes B and deletes X;
//! B never commits, nothing reconciles again. An OM-local lock cannot exclude another OM.
//! On `submit-fails` h1's set X commits (its client is told X), then h2's set writes Y and
//! its submission fails; on `lost-store-reply` the second pre-executed set's write lands and
//! its reply is lost; with no leader change there is no reconciliation.
//!
//! **`leader-side-periodic` holds on all nine plans.** What a fix needs: a reconciliation that
//! runs again after the last stray write, i.e. periodically on the ready leader, and after an
//! old leader can no longer write (it stepped down, Ratis's leader step-down after losing its
//! majority); or fencing (a store that refuses writes from a deposed leader's term), which is
//! not modelled. Caveats: the store is wrong from a stray write until the next run (a window
//! the invariant, checked at the end, does not see); a reconciliation concurrent with a
//! `preExecute` on the same leader must take the lock (the model's does), but no plan
//! exercises that; and a lock held until the apply is never released on a leader whose entry
//! never applies (the Java's authorizer lock has the same gap: `unlockWriteInOMRequest` is
//! called only from `validateAndUpdateCache`, so an entry truncated after a leader change
//! leaves it held on the old leader).
//!
//! The leader-side variants hold every invariant on the four fixed-log plans, with
//! `LateApply` fired: an OM applied or flushed an entry after the store had served a call
//! for a later one.
//!
//! `index-per-secret`'s store used to delete an id's row and keep nothing, so a write from a
//! lower index after a delete from a higher one was accepted: a revoked secret was back until
//! the late OM applied that delete too (probe `RevokedSecretRestored`, still reached by
//! `buggy` on `lagging-follower`: om1 flushes the tenant revoke at 3, then om2's flush-time
//! `storeSecret` of the assign at 2 lands). The store now keeps a tombstone with the delete's
//! index, which refuses a lower write (staged test
//! `index_per_secret_keeps_a_tombstone_that_refuses_a_lower_write`). No verdict changed:
//! every OM replays the later delete, so the final state healed; the window was the harm (a
//! revoked secret authenticating again).
//!
//! `ReplicasAgree`, `StoreHoldsIssuedSecret` and `NoOmTermination` are checked once every OM
//! has stopped, restarted and replayed.
//!
//! # Generated workloads (`generated`)
//!
//! [`VOCABULARY`]: the requests `get`, `set`, `revoke`, `assign` and `tenant-revoke`
//! (`S3GetSecretRequest`, `OMSetSecretRequest`, `S3RevokeSecretRequest`,
//! `OMTenantAssignUserAccessIdRequest`, `OMTenantRevokeUserAccessIdRequest`, each with the
//! apply and flush semantics of the table in [`crate::models::s3_secret::requests`]) over
//! two interchangeable access ids `u1`, `u2`; and the faults `fail(om)` (the OM's next store
//! call throws, nothing changes), `lost-reply(om)` (its next store write lands, then
//! throws; a read has nothing to keep), `crash` (the follower om2 crashes: responses not
//! swapped are lost; it restarts and replays at the end) and `leader-change` (om1 crashes
//! with the next request pre-executed and never committed; om2, once it applied everything
//! om1 committed and its term's configuration entry, leads, reconciles in the reconciling
//! variants, and serves the rest). At most one of `crash` and `leader-change`. Default bounds:
//! three requests and one fault, 13,521 workloads. No tenant universe: an access id names its
//! tenant since HDDS-6366 ([`VOCABULARY`]'s docs).
//!
//! The leader runs each request's Java `preExecute` first
//! ([`OMSetSecretRequest.preExecute`](java::OMSetSecretRequest::preExecute) refuses an id with
//! no secret, [`OMTenantRevokeUserAccessIdRequest.preExecute`](java::OMTenantRevokeUserAccessIdRequest::preExecute)
//! an unassigned one), or the leader-side decision; a refused request is not replicated and
//! gets no index. Without that, a `tenant-revoke` of an unassigned id would reach every
//! OM's apply and terminate it on the NPE: a termination the Java's `preExecute` prevents.
//! A terminated om1 hands over to om2 as a leader change does. The entries om1 committed
//! but never answered (it terminated applying them) are answered from om2's Ratis retry
//! cache, which a follower fills with its own apply's reply
//! ([`RaftServerImpl.replyPendingRequest`](java::RaftServerImpl::replyPendingRequest)): the
//! clients are told om2's outcome, in log order.
//!
//! Faults of the list that are not words: the seed's crash inside a flush between the store
//! calls and the batch commit (no thread boundary there to crash at; `crash` loses the
//! unswapped responses instead); the partitioned old leader that keeps pre-executing
//! (`partitioned-leader`: it needs a second RPC handler on om1 besides its apply, a fourth
//! thread); two RPC handlers appending in the other order (`pipelined`, `submit-fails`): one
//! leader thread pre-executes and applies each request in turn, so a `preExecute` never runs
//! ahead of the leader's own apply here; the handler plans keep those. The authorizer lock
//! the Java tenant requests hold from `preExecute` to the apply orders nothing on that one
//! thread.
//!
//! Verdicts (random 20,000 and PCT 2,000 executions; worst and median executions to the
//! first violation over seeds 0..20):
//!
//! | variant | verdict | random | PCT | stateful |
//! |---|---|---|---|---|
//! | `buggy` | all three | 7 (2) | 5 (2) | `NoOmTermination` at 505 |
//! | `index-per-secret` | all three | 7 (2) | 5 (2) | `NoOmTermination` at 505 |
//! | `leader-side` | `StoreHoldsIssuedSecret` | 435 (76) | 301 (58) | at 2,717 |
//! | `leader-side-reconciled` | `StoreHoldsIssuedSecret` | 897 (135) | 454 (102) | at 2,717 |
//! | `leader-side-periodic` | holds | | | 6,309,937 executions in 400 s, not exhausted |
//!
//! Every invariant a written plan breaks for a variant, the generated space breaks too (test
//! `the_generated_space_finds_what_the_written_plans_find`); `leader-side` and
//! `leader-side-reconciled` break neither `ReplicasAgree` nor `NoOmTermination` over 50,000
//! random executions. `leader-side-periodic` holds with `LateApply` and
//! `UncommittedStoreWrite` fired (a lost reply's write, or a leader change's in-flight
//! `preExecute`, repaired by the periodic run). The smallest counterexamples: `get(u1)
//! get(u1) lost-reply(om1) set(u1)` for the leader-side pair (as `lost-store-reply`);
//! `get(u1) get(u1) set(u1) fail(om2)` for `NoOmTermination` (om2's flush-time `storeSecret`
//! throws); `get(u1) get(u1) assign(u2)` for `ReplicasAgree` (the follower finds the
//! leader's stored secret and rejects the assign, as `lagging-follower`).
//!
//! **Finding: two plain S3 requests break `StoreHoldsIssuedSecret` in the Java**, with no
//! tenant request, fault or leader change (`buggy`, `--requests 2 --faults 0`): `revoke(u1)
//! get(u1)`. The leader answers the revoke at 2 `S3_SECRET_NOT_FOUND`, then creates S3 at 3
//! and stores it at once; the lagging follower applies the revoke at 2 after that, finds S3
//! in the store ([`S3RevokeSecretRequest.validateAndUpdateCache`](java::S3RevokeSecretRequest::validateAndUpdateCache):
//! `hasS3Secret`, then an OK response), and its flush calls `revokeSecret`
//! ([`S3RevokeSecretResponse.addToDBBatch`](java::S3RevokeSecretResponse::addToDBBatch)):
//! the secret the client was just given is deleted. The written plans show the late-OM
//! decision only with tenant requests (`lagging-follower`) or on one OM (`crash-replay`,
//! `apply-vs-flush`). `index-per-secret` refuses that delete (3 over 2) but breaks the same
//! invariant on `get(u1) revoke(u1)`: the follower runs ahead, caches S2 at index 0, and
//! deletes it at 3 before the leader applies the revoke, which then answers
//! `S3_SECRET_NOT_FOUND` (the handler plans' path, here on a fixed log).
//!
//! # Abstractions
//!
//! | merged or left out | why no verdict depends on it |
//! |---|---|
//! | Ranger calls, the tenant-state table, the volume lock, `multiTenantManager.getCacheOp()` | Ranger is mocked in the seed's test too; one apply thread orders the requests the volume lock orders |
//! | the principal table keyed by access id, its DB row present exactly when the access id's is | one principal per id in the plans; the assign's response writes both rows and the revoke's deletes both, in one batch |
//! | of the two tables' evictions (each `PartialTableCache` has its own single-thread cleanup executor, so they are unordered) only principal-first is modelled | an apply between the two then finds the access id without its principal (the NPE of `requireNonNull(principalInfo)`, probe `PrincipalEvictedFirst`); in the other order the revoke throws on the access id first, which the state after both evictions already gives |
//! | one S3_SECRET_LOCK per OM for all ids; `clearS3Cache`'s lock on the resource id "cache" | every plan locks one id (u1) at a time per OM, plus u2 in `store-failure` where om2 terminates on its first call; merging only removes interleavings between different ids. No request takes "cache" |
//! | permission checks, secret generation (a constant in the entry), Vault authentication and re-authentication, response content | they touch neither the store nor the caches |
//! | `getSecretString` (S3 request authentication) also caches a store hit at index 0 | **could change verdicts** on multi-OM plans with S3 traffic: a never-evicted index-0 entry makes an OM decide from its own stale cache instead of the store; no plan has S3 traffic |
//! | the Java `preExecute` of `buggy` and `index-per-secret` runs only in the handler plans and `generated` | on the four fixed logs its one effect, `OMSetSecretRequest`'s cache fill at index 0 on the leader, is what the revoke's own `hasS3Secret` does before the set is applied (`crash-replay`), and the other plans have no set |
//! | an orderly stop followed by `main` flushing the unswapped responses (`apply-vs-flush`, `store-failure`, `lagging-follower`) | equals the Java interleaving in which the daemon flushes them before `stop` (same calls, same order); the Java `stop` itself would leave them to a replay |
//! | `S3InMemoryCache.clearCache`'s index-to-key map keeps the last key per index in key order (a `HashMap`'s order in the Java) | no two ids share a flushed index in the plans (index 0 is never flushed) |
//! | the table cache's asynchronous eviction is a later step of the flush thread; om1's (apply and flush on one thread) comes before its next apply | the flush thread is separate from the apply thread on every OM whose late decisions the plans test (om2, the single OM), so both orders against the next apply are explored; om1's leaked entry could only matter when om1 lags, where `buggy` and `index-per-secret` already break every invariant and the leader-side variants leak nothing |
//! | the leader's apply tells the client; followers never do | Raft: only the leader answers |
//! | Vault's own replication and consistency | one address, one path: a single linearizable map (seed) |
//! | the restart replay applies and flushes entry by entry | a replayed entry meets the same store and the same empty caches; concurrency within a replay is not what the seed reports |
//! | the handler plans run om1's `preExecute`s against an empty tenant table | their requests are sets and revokes of an id assigned to no tenant: no apply changes the tenant table |
//! | a leader-side `preExecute` store call has no log index yet; the high-water mark counts it for the index its entry later gets | the probe asks whether the store served a later entry, and a store call for entry 3 made before entry 2 is applied is one |

use crate::choices;
use crate::citation::{java, Label};
use crate::kit::external_store::Fault;
use crate::kit::raft_log::{Payload, RaftLog};
use crate::kit::store::Tables;
use crate::kit::tx_info::TxRow;
use crate::models::s3_secret::node::{
    fresh_db, restart_and_replay, seeded_db, Om, Shared, ERROR_FLUSHED, FLUSH_REVOKES_NEWER_SECRET,
    LATE_APPLY, LEAKED_TENANT_ENTRY, PRINCIPAL_EVICTED_FIRST, REVOKED_SECRET_RESTORED,
    STALE_WRITE_REFUSED, TOMBSTONE_THEN_STORE_WRITE, UNCOMMITTED_STORE_WRITE, WAITED_FOR_APPLY,
};
use crate::models::s3_secret::requests::S3Request;
use crate::models::s3_secret::{initial_tables, AccessId, Design, Row, Secret, StoredSecret};
use crate::properties::{check_all, Invariant, Property};
use crate::recorder::{Actor, Recorder};
use crate::scenario::{Budget, ByConstruction, Case, Expected, Scenario};
use crate::sync::ghost::Ghost;
use crate::sync::{channel, thread, Arc, Mutex};
use crate::workload::{Bounds, Item, Kind, Universe, Vocabulary, Word, Workload};
use std::collections::BTreeMap;

/// The scenario.
#[derive(Debug, Clone, Copy)]
pub struct Hdds17215;

/// The secret the seed's set writes.
pub const SET_BY_ANOTHER_CALLER: Secret = Secret("set-by-another-caller-0123456789");

choices! {
    /// Where the OMs call the shared store.
    pub enum Variant {
        /// the Java today: every OM calls the shared store while applying and at flush time
        Buggy = "buggy",
        /// the store keeps the log index with each secret and refuses older writes and deletes
        IndexPerSecret = "index-per-secret",
        /// the leader calls the store once in preExecute; applying updates caches and the DB only
        LeaderSide = "leader-side",
        /// leader-side, the lock held from preExecute to the apply, and a new leader, once ready, makes the store equal the replicated rows once
        LeaderSideReconciled = "leader-side-reconciled",
        /// leader-side-reconciled, and the ready leader reconciles periodically
        LeaderSidePeriodic = "leader-side-periodic",
    }
}

choices! {
    /// The log, the OMs and the fault.
    pub enum Plan {
        /// assign, tenant revoke, assign again; a follower applies behind the leader
        LaggingFollower = "lagging-follower",
        /// revoke, set, getsecret on one OM that crashes before flushing and replays
        CrashReplay = "crash-replay",
        /// getsecret, revoke, getsecret on one OM whose flush trails its apply
        ApplyVsFlush = "apply-vs-flush",
        /// assign and getsecret on two OMs; one store call fails
        StoreFailure = "store-failure",
        /// set and revoke pass the leader's preExecute concurrently; one entry never commits; the leader crashes and a new leader takes over
        LeaderChange = "leader-change",
        /// as leader-change, but the old leader is partitioned, not crashed: it still pre-executes while the new leader takes over
        PartitionedLeader = "partitioned-leader",
        /// set and revoke pre-executed on two RPC handlers ahead of the apply; both commit
        Pipelined = "pipelined",
        /// two sets; the second pre-executed request's submission to Ratis fails, the leader stays
        SubmitFails = "submit-fails",
        /// two sets; the second pre-executed request's store write takes effect but returns an error
        LostStoreReply = "lost-store-reply",
        /// every workload of the vocabulary (the five requests over two access ids, a store failure, a lost reply, a crash, a leader change) on a leader and a lagging follower
        Generated = "generated",
    }
}

impl Variant {
    /// The design the variant stands for.
    pub fn design(self) -> Design {
        match self {
            Variant::Buggy => Design::PerOm,
            Variant::IndexPerSecret => Design::IndexPerSecret,
            Variant::LeaderSide => Design::LeaderSide,
            Variant::LeaderSideReconciled => Design::LeaderSideReconciled,
            Variant::LeaderSidePeriodic => Design::LeaderSidePeriodic,
        }
    }
}

/// The state at the end of a plan.
pub struct Final {
    /// Every OM's DB.
    pub replicas: Vec<(&'static str, Tables<Row>)>,
    /// The external store.
    pub store: BTreeMap<String, StoredSecret>,
    /// What the clients were last told per id.
    pub issued: BTreeMap<AccessId, Option<Secret>>,
    /// Every termination.
    pub terminations: Vec<String>,
}

/// All OMs end with the same tables.
pub const REPLICAS_AGREE: Invariant<Final> = Invariant::eventually(
    "ReplicasAgree",
    "all OMs end with the same tables (TransactionInfo aside)",
    "The OMs' tenant tables diverge: a late OM (a lagging follower, a replay after a crash or a store failure) decides a tenant request against later state of the shared S3 secret store and rejects or skips what its peers applied, so the answers a client gets depend on which OM leads.",
    |f| {
        let Some((first, tables)) = f.replicas.first() else {
            return Ok(());
        };
        for (name, other) in &f.replicas[1..] {
            if let Some(d) = other.first_difference_except(tables, Row::TABLE) {
                return Err(format!("{name} vs {first}: {d}"));
            }
        }
        Ok(())
    },
);

/// The store holds what the clients were told.
pub const STORE_HOLDS_ISSUED_SECRET: Invariant<Final> = Invariant::eventually(
    "StoreHoldsIssuedSecret",
    "the store holds the secret the leader returned (nothing after a revoke)",
    "The external S3 secret store no longer holds what clients were told: a secret just issued is deleted or overwritten by a late OM's flush (or a leader's stray preExecute) and stops authenticating, or a revoke that took effect is answered S3_SECRET_NOT_FOUND.",
    |f| {
        for (id, told) in &f.issued {
            let held = f.store.get(*id).and_then(|s| s.live());
            if held != *told {
                let show = |s: Option<Secret>| s.map_or("nothing".to_string(), |s| s.to_string());
                return Err(format!(
                    "clients were told {id} = {}, the store holds {}",
                    show(*told),
                    show(held)
                ));
            }
        }
        Ok(())
    },
);

/// No OM terminates.
pub const NO_OM_TERMINATION: Invariant<Final> = Invariant::eventually(
    "NoOmTermination",
    "no OM terminates",
    "An OM terminates: a late OM that rejected a tenant assign throws on the revoke (NullPointerException), and every restart replays it and terminates again (a crash loop); a failed S3 secret store call terminates the OM too.",
    |f| {
        match f.terminations.first() {
            None => Ok(()),
            Some(t) => Err(format!(
                "{} termination(s), first {t}",
                f.terminations.len()
            )),
        }
    },
);

const FINAL: &[Invariant<Final>] = &[REPLICAS_AGREE, STORE_HOLDS_ISSUED_SECRET, NO_OM_TERMINATION];

fn data(log: &mut RaftLog<S3Request>, requests: &[S3Request]) {
    log.start_term(1);
    for r in requests {
        log.append(*r);
    }
}

/// `leader-change`'s two requests on u1: A, the set, and B, the revoke.
pub fn leader_change_requests() -> [S3Request; 2] {
    [
        S3Request::SetSecret {
            id: "u1",
            secret: Secret("X"),
        },
        S3Request::RevokeSecret { id: "u1" },
    ]
}

/// The two requests the RPC handlers h1 and h2 of a handler plan pre-execute.
pub fn handler_requests(plan: Plan) -> [S3Request; 2] {
    match plan {
        Plan::SubmitFails | Plan::LostStoreReply => [
            S3Request::SetSecret {
                id: "u1",
                secret: Secret("X"),
            },
            S3Request::SetSecret {
                id: "u1",
                secret: Secret("Y"),
            },
        ],
        _ => leader_change_requests(),
    }
}

impl Plan {
    /// The plan's log (for `leader-change`, only the first term's configuration entry: the
    /// leader appends the rest as the plan runs).
    pub fn log(self) -> RaftLog<S3Request> {
        let mut log = RaftLog::new();
        let u1 = "u1";
        match self {
            Plan::LaggingFollower => data(
                &mut log,
                &[
                    S3Request::TenantAssign {
                        id: u1,
                        tenant: "t1",
                        secret: Secret("S2"),
                    },
                    S3Request::TenantRevoke { id: u1 },
                    S3Request::TenantAssign {
                        id: u1,
                        tenant: "t1",
                        secret: Secret("S4"),
                    },
                ],
            ),
            Plan::CrashReplay => data(
                &mut log,
                &[
                    S3Request::RevokeSecret { id: u1 },
                    S3Request::SetSecret {
                        id: u1,
                        secret: SET_BY_ANOTHER_CALLER,
                    },
                    S3Request::GetSecret {
                        id: u1,
                        secret: Secret("S4"),
                    },
                ],
            ),
            Plan::ApplyVsFlush => data(
                &mut log,
                &[
                    S3Request::GetSecret {
                        id: u1,
                        secret: Secret("S2"),
                    },
                    S3Request::RevokeSecret { id: u1 },
                    S3Request::GetSecret {
                        id: u1,
                        secret: Secret("S4"),
                    },
                ],
            ),
            Plan::StoreFailure => data(
                &mut log,
                &[
                    S3Request::TenantAssign {
                        id: u1,
                        tenant: "t1",
                        secret: Secret("S2"),
                    },
                    S3Request::GetSecret {
                        id: "u2",
                        secret: Secret("S3"),
                    },
                ],
            ),
            Plan::LeaderChange
            | Plan::PartitionedLeader
            | Plan::Pipelined
            | Plan::SubmitFails
            | Plan::LostStoreReply
            | Plan::Generated => data(&mut log, &[]),
        }
        log
    }

    /// Whether the plan's requests pass through RPC handler threads ahead of the apply.
    pub fn handlers(self) -> bool {
        matches!(
            self,
            Plan::LeaderChange
                | Plan::PartitionedLeader
                | Plan::Pipelined
                | Plan::SubmitFails
                | Plan::LostStoreReply
        )
    }

    /// The rows the store starts with.
    pub fn store_rows(self) -> Vec<(AccessId, StoredSecret)> {
        match self {
            Plan::LaggingFollower | Plan::ApplyVsFlush | Plan::StoreFailure | Plan::Generated => {
                Vec::new()
            }
            _ => vec![(
                "u1",
                StoredSecret {
                    secret: Secret("S0"),
                    index: 0,
                    revoked: false,
                },
            )],
        }
    }

    /// The OMs' shared state at the start: the store's rows, the fault, what clients hold.
    pub fn shared(self, design: Design) -> Shared {
        let s0 = || {
            (
                [(
                    "u1",
                    StoredSecret {
                        secret: Secret("S0"),
                        index: 0,
                        revoked: false,
                    },
                )],
                [("u1", Some(Secret("S0")))],
            )
        };
        match self {
            Plan::LostStoreReply if design.leader_side() => {
                let (rows, issued) = s0();
                // om1's fourth call: the store write of the second request it pre-executes
                // (each set reads, then writes, under the id's lock).
                let fault = Fault {
                    caller: "om1",
                    nth: 4,
                    lost_reply: true,
                };
                Shared::new(design, &rows, Some(fault), &issued)
            }
            Plan::CrashReplay
            | Plan::LeaderChange
            | Plan::PartitionedLeader
            | Plan::Pipelined
            | Plan::SubmitFails
            | Plan::LostStoreReply => {
                let (rows, issued) = s0();
                Shared::new(design, &rows, None, &issued)
            }
            Plan::StoreFailure => {
                let fault = if design.leader_side() {
                    Fault {
                        caller: "om1",
                        nth: 2,
                        lost_reply: false,
                    }
                } else {
                    Fault {
                        caller: "om2",
                        nth: 1,
                        lost_reply: false,
                    }
                };
                Shared::new(design, &[], Some(fault), &[])
            }
            Plan::LaggingFollower | Plan::ApplyVsFlush | Plan::Generated => {
                Shared::new(design, &[], None, &[])
            }
        }
    }
}

/// The words of a generated workload (`generated`). Requests act on one of two
/// interchangeable access ids; each is the Java request as the fixed-log plans run it, with
/// the Java `preExecute` first on the leader. Faults name the OM they hit where it matters.
///
/// No tenant universe: since HDDS-6366 the access id is the tenant's default access id
/// `tenant$user` ([`OMTenantAssignUserAccessIdRequest.preExecute`](java::OMTenantAssignUserAccessIdRequest::preExecute)
/// refuses any other), so an access id names its tenant, and the modelled paths read only
/// whether an id is assigned. The one tenant `t1` exists before the workload (tenant
/// creation is not modelled).
pub const VOCABULARY: Vocabulary = Vocabulary {
    universes: &[
        Universe {
            name: "access ids",
            values: &["u1", "u2"],
            symmetric: true,
        },
        Universe {
            name: "OMs",
            values: &["om1", "om2"],
            symmetric: false,
        },
    ],
    words: &[
        Word {
            name: "get",
            kind: Kind::Request,
            args: &[0],
            doc: "S3GetSecretRequest (createIfNotExist): create and store a secret, or return a tenant id's",
        },
        Word {
            name: "set",
            kind: Kind::Request,
            args: &[0],
            doc: "OMSetSecretRequest: replace an existing secret (store at flush)",
        },
        Word {
            name: "revoke",
            kind: Kind::Request,
            args: &[0],
            doc: "S3RevokeSecretRequest: revoke an existing secret (store at flush)",
        },
        Word {
            name: "assign",
            kind: Kind::Request,
            args: &[0],
            doc: "OMTenantAssignUserAccessIdRequest: assign the id in tenant t1 with a new secret",
        },
        Word {
            name: "tenant-revoke",
            kind: Kind::Request,
            args: &[0],
            doc: "OMTenantRevokeUserAccessIdRequest: revoke an assigned id and its secret",
        },
        Word {
            name: "fail",
            kind: Kind::Fault,
            args: &[1],
            doc: "the OM's next store call fails (an IOException; nothing changes)",
        },
        Word {
            name: "lost-reply",
            kind: Kind::Fault,
            args: &[1],
            doc: "the OM's next store write takes effect, then fails (its reply is lost)",
        },
        Word {
            name: "crash",
            kind: Kind::Fault,
            args: &[],
            doc: "the follower om2 crashes (responses not swapped are lost); it restarts and replays at the end",
        },
        Word {
            name: "leader-change",
            kind: Kind::Fault,
            args: &[],
            doc: "the leader om1 crashes with the next request pre-executed, never committed; om2 takes over",
        },
    ],
    bounds: Bounds {
        requests: 3,
        faults: 1,
    },
    allowed: one_crash,
};

/// At most one of `crash` and `leader-change`: om2 is the only OM that can take over, and a
/// crashed om2 stays down until the end.
fn one_crash(prefix: &[Item], item: &Item) -> bool {
    let down = |i: &Item| matches!(VOCABULARY.words[i.word].name, "crash" | "leader-change");
    !down(item) || !prefix.iter().any(down)
}

/// A request of a generated workload, before the leader gives it an index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ask {
    /// `get`.
    Get,
    /// `set`.
    Set,
    /// `revoke`.
    Revoke,
    /// `assign`.
    Assign,
    /// `tenant-revoke`.
    TenantRevoke,
}

/// Secret names by log index: the secret the leader's `preExecute` draws for the entry
/// (entries past the last name share it).
const SECRETS: [&str; 24] = [
    "S0", "S1", "S2", "S3", "S4", "S5", "S6", "S7", "S8", "S9", "S10", "S11", "S12", "S13", "S14",
    "S15", "S16", "S17", "S18", "S19", "S20", "S21", "S22", "S23",
];

impl Ask {
    /// The request at log index `index` (its secret, if any, is `S<index>`).
    pub fn at(self, id: AccessId, index: u64) -> S3Request {
        let secret = Secret(SECRETS[usize::try_from(index).unwrap_or(usize::MAX).min(23)]);
        match self {
            Ask::Get => S3Request::GetSecret { id, secret },
            Ask::Set => S3Request::SetSecret { id, secret },
            Ask::Revoke => S3Request::RevokeSecret { id },
            Ask::Assign => S3Request::TenantAssign {
                id,
                tenant: "t1",
                secret,
            },
            Ask::TenantRevoke => S3Request::TenantRevoke { id },
        }
    }
}

/// One item of a generated workload, as the leader's thread meets it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Drawn {
    /// A client's request on an access id.
    Request(Ask, AccessId),
    /// The named OM's next store call fails; `true`: after taking effect.
    Fail(&'static str, bool),
    /// The follower crashes.
    Crash,
    /// The leader crashes with the next request in flight; the follower takes over.
    LeaderChange,
}

/// A workload's items.
pub fn drawn(workload: &Workload) -> Vec<Drawn> {
    let [ids, oms] = [VOCABULARY.universes[0], VOCABULARY.universes[1]];
    workload
        .items
        .iter()
        .map(|item| {
            let arg = |u: Universe| u.values[item.args[0]];
            match VOCABULARY.words[item.word].name {
                "get" => Drawn::Request(Ask::Get, arg(ids)),
                "set" => Drawn::Request(Ask::Set, arg(ids)),
                "revoke" => Drawn::Request(Ask::Revoke, arg(ids)),
                "assign" => Drawn::Request(Ask::Assign, arg(ids)),
                "tenant-revoke" => Drawn::Request(Ask::TenantRevoke, arg(ids)),
                "fail" => Drawn::Fail(arg(oms), false),
                "lost-reply" => Drawn::Fail(arg(oms), true),
                "crash" => Drawn::Crash,
                _ => Drawn::LeaderChange,
            }
        })
        .collect()
}

impl Scenario for Hdds17215 {
    type Variant = Variant;
    type Plan = Plan;
    const NAME: &'static str = "hdds-17215";
    const JIRA: &'static str = "HDDS-17215";
    const TITLE: &'static str = "OMs apply against one shared external S3 secret store";
    // Seeds 0..20 (`bench --budgets`): a random walk needs up to 3,701 executions to break a
    // case on `leader-change` (2,350 on `lagging-follower`, 3,188 on `pipelined`); PCT at
    // most 1,000 (`generated`). `partitioned-leader` has its own budget.
    const EXECUTIONS: Budget = Budget {
        random: 20_000,
        pct: Budget::CHECK.pct,
        ..Budget::CHECK
    };
    // `partitioned-leader`: a random walk needs up to 11,673 executions (`buggy` and
    // `index-per-secret`, `StoreHoldsIssuedSecret`, seeds 0..20).
    fn plan_executions(plan: Plan) -> Budget {
        match plan {
            Plan::PartitionedLeader => Budget {
                random: 25_000,
                ..Self::EXECUTIONS
            },
            _ => Self::EXECUTIONS,
        }
    }
    const VOCABULARY: Option<Vocabulary> = Some(VOCABULARY);
    const PROPERTIES: &'static [Property] = &[
        REPLICAS_AGREE.property(),
        STORE_HOLDS_ISSUED_SECRET.property(),
        NO_OM_TERMINATION.property(),
        LATE_APPLY.required(),
        TOMBSTONE_THEN_STORE_WRITE.property(),
        FLUSH_REVOKES_NEWER_SECRET.property(),
        STALE_WRITE_REFUSED.property(),
        ERROR_FLUSHED.property(),
        LEAKED_TENANT_ENTRY.property(),
        PRINCIPAL_EVICTED_FIRST.property(),
        REVOKED_SECRET_RESTORED.property(),
        UNCOMMITTED_STORE_WRITE.property(),
        WAITED_FOR_APPLY.property(),
    ];
    const BY_CONSTRUCTION: &'static [ByConstruction] = &[ByConstruction {
        probe: LATE_APPLY,
        why: "the leader applies and flushes before the follower: the follower is late by construction",
    }];

    fn expected(variant: Variant, plan: Plan) -> Expected {
        const ALL: &[Property] = &[
            REPLICAS_AGREE.property(),
            STORE_HOLDS_ISSUED_SECRET.property(),
            NO_OM_TERMINATION.property(),
        ];
        const DIVERGE_AND_TERMINATE: &[Property] =
            &[REPLICAS_AGREE.property(), NO_OM_TERMINATION.property()];
        const SECRET_LOST: &[Property] = &[STORE_HOLDS_ISSUED_SECRET.property()];
        use Plan::{
            ApplyVsFlush, CrashReplay, Generated, LaggingFollower, LeaderChange, LostStoreReply,
            PartitionedLeader, Pipelined, StoreFailure, SubmitFails,
        };
        use Variant::{
            Buggy, IndexPerSecret, LeaderSide, LeaderSidePeriodic, LeaderSideReconciled,
        };
        match (variant, plan) {
            // Over the generated workloads (module docs, "Generated workloads").
            (Buggy | IndexPerSecret, Generated) => Expected::Violates(ALL),
            (LeaderSide | LeaderSideReconciled, Generated) => Expected::Violates(SECRET_LOST),
            (LeaderSidePeriodic, Generated) => Expected::Holds,
            (
                LeaderSide | LeaderSideReconciled | LeaderSidePeriodic,
                LaggingFollower | CrashReplay | ApplyVsFlush | StoreFailure,
            ) => Expected::Holds,
            // A follower applies and flushes the committed revoke before the leader applies
            // it; the leader then reads the store the follower changed and answers
            // S3_SECRET_NOT_FOUND: the revoke took effect, its client was told it failed.
            (Buggy | IndexPerSecret, LeaderChange | PartitionedLeader | Pipelined) => {
                Expected::Violates(SECRET_LOST)
            }
            // preExecute only reads: a request that is not replicated leaves no trace.
            (Buggy | IndexPerSecret, SubmitFails | LostStoreReply) => Expected::Holds,
            // Pre-executed in one order, appended in the other; or the store write of a
            // request that never commits.
            (LeaderSide, _) => Expected::Violates(SECRET_LOST),
            // The lock to the apply orders the store calls as the log; the ready new leader
            // repairs what the crashed leader's last preExecute did.
            (LeaderSideReconciled, LeaderChange | Pipelined) => Expected::Holds,
            // The store is changed after the one reconciliation, or with no leader change.
            (LeaderSideReconciled, PartitionedLeader | SubmitFails | LostStoreReply) => {
                Expected::Violates(SECRET_LOST)
            }
            (LeaderSidePeriodic, _) => Expected::Holds,
            (Buggy | IndexPerSecret, LaggingFollower) => Expected::Violates(ALL),
            // om2 fails before it writes anything: the store is om1's alone.
            (Buggy | IndexPerSecret, StoreFailure) => Expected::Violates(DIVERGE_AND_TERMINATE),
            (Buggy, CrashReplay | ApplyVsFlush) => Expected::Violates(SECRET_LOST),
            // The store refuses the replayed set and the late revoke; the Java's getsecret
            // refuses an existing secret instead of answering it (module docs).
            (IndexPerSecret, CrashReplay | ApplyVsFlush) => Expected::Holds,
        }
    }

    fn prepare(&self, variant: Variant, plan: Plan, _size: usize) -> Box<dyn Case> {
        Box::new(Prepared {
            design: variant.design(),
            plan,
            log: Arc::new(plan.log()),
            bounds: VOCABULARY.bounds,
        })
    }

    fn prepare_generated(
        &self,
        variant: Variant,
        bounds: Bounds,
        _size: usize,
    ) -> Option<Box<dyn Case>> {
        Some(Box::new(Prepared {
            design: variant.design(),
            plan: Plan::Generated,
            log: Arc::new(Plan::Generated.log()),
            bounds,
        }))
    }
}

struct Prepared {
    design: Design,
    plan: Plan,
    log: Arc<RaftLog<S3Request>>,
    /// `generated`: the bounds of the workload each execution draws.
    bounds: Bounds,
}

type Entry = (u64, S3Request);

fn entries(log: &RaftLog<S3Request>) -> Vec<Entry> {
    log.after(0)
        .filter_map(|e| match &e.payload {
            Payload::Data(r) => Some((e.index, *r)),
            Payload::Configuration => None,
        })
        .collect()
}

/// The leader: `preExecute` (`leader-side` only: the Java's preExecute reads nothing the
/// static plans depend on), replicate to `follower`, apply and flush.
fn leader_thread(
    om: &Om,
    shared: &Shared,
    me: &Actor,
    log: &[Entry],
    follower: &channel::Sender<Entry>,
) {
    let mut view = initial_tables();
    let mut alive = true;
    for (index, request) in log {
        if shared.design().leader_side() {
            decide(om, shared, me, &view, *index, request);
        }
        follower.send((*index, *request));
        if alive {
            alive = om.apply_and_flush(me, &mut view, *index, request);
        }
    }
}

/// `leader-side` on a fixed log: the leader decides entry `index` in `preExecute`.
fn decide(
    om: &Om,
    shared: &Shared,
    me: &Actor,
    view: &Tables<Row>,
    index: u64,
    request: &S3Request,
) {
    let pre = om.pre_execute(me, view, request);
    if let Some(decision) = pre.decision {
        shared.record_decision(index, decision);
    }
    if pre.called_store {
        shared.store().note_index(index);
    }
}

/// A message to `leader-change`'s follower.
#[derive(Clone, Copy, Debug)]
enum ToFollower {
    /// A committed entry.
    Entry(u64, S3Request),
    /// The leader is gone; the follower's election won: it appends and applies its term's
    /// configuration entry at this index.
    LeaderChange(u64),
}

impl Prepared {
    /// `lagging-follower` and `store-failure`: om1 leads (apply and flush on one thread), om2
    /// follows with an apply and a flush thread.
    fn two_oms(&self, recorder: &Arc<Recorder>, shared: &Arc<Shared>) -> Vec<Arc<Om>> {
        let log = Arc::new(entries(&self.log));
        let main = Actor::new("main", recorder);
        let om1 = Arc::new(Om::new("om1", true, Arc::clone(shared), fresh_db()));
        let om2 = Arc::new(Om::new("om2", false, Arc::clone(shared), fresh_db()));
        let (to_om2, from_om1) = channel::unbounded::<Entry>();
        let leader = {
            let (om, shared, log, me) = (
                Arc::clone(&om1),
                Arc::clone(shared),
                Arc::clone(&log),
                Actor::new("om1", recorder),
            );
            thread::spawn("om1", move || {
                leader_thread(&om, &shared, &me, &log, &to_om2);
            })
        };
        let flush = {
            let (om, me) = (Arc::clone(&om2), Actor::new("om2-flush", recorder));
            thread::spawn("om2-flush", move || om.flush_thread(&me))
        };
        let follower = {
            let (om, me) = (Arc::clone(&om2), Actor::new("om2-apply", recorder));
            thread::spawn("om2-apply", move || {
                let mut view = initial_tables();
                let mut alive = true;
                while let Some((index, request)) = from_om1.recv() {
                    if alive {
                        alive = om.apply_and_queue(&me, &mut view, index, &request);
                    }
                }
                if alive {
                    om.stop(&me, "orderly stop");
                }
            })
        };
        leader.join();
        follower.join();
        flush.join();
        if !om2.terminated() {
            let rest = om2.take_unflushed();
            if let Err(why) = om2.flush(&main, rest) {
                om2.terminate(&main, &why);
            }
        }
        vec![om1, om2]
    }

    /// `crash-replay` and `apply-vs-flush`: one OM with an apply and a flush thread.
    fn one_om(&self, recorder: &Arc<Recorder>, shared: &Arc<Shared>) -> Vec<Arc<Om>> {
        let log = Arc::new(entries(&self.log));
        let main = Actor::new("main", recorder);
        let om = Arc::new(Om::new("om1", true, Arc::clone(shared), fresh_db()));
        let crash = self.plan == Plan::CrashReplay;
        let flush = {
            let (om, me) = (Arc::clone(&om), Actor::new("flush", recorder));
            thread::spawn("flush", move || om.flush_thread(&me))
        };
        let apply = {
            let (om, shared, log, me) = (
                Arc::clone(&om),
                Arc::clone(shared),
                Arc::clone(&log),
                Actor::new("apply", recorder),
            );
            thread::spawn("apply", move || {
                let mut view = initial_tables();
                for (index, request) in log.iter() {
                    if shared.design().leader_side() {
                        decide(&om, &shared, &me, &view, *index, request);
                    }
                    if !om.apply_and_queue(&me, &mut view, *index, request) {
                        return;
                    }
                }
                if crash {
                    om.crash(&me, "crash");
                } else {
                    om.stop(&me, "orderly stop");
                }
            })
        };
        apply.join();
        flush.join();
        if !crash && !om.terminated() {
            let rest = om.take_unflushed();
            if let Err(why) = om.flush(&main, rest) {
                om.terminate(&main, &why);
            }
        }
        if crash {
            let db = Arc::clone(om.db());
            let me = Actor::new("restart", recorder);
            vec![Arc::new(restart_and_replay(
                "om1", shared, &db, &self.log, &me,
            ))]
        } else {
            vec![om]
        }
    }

    /// The handler plans: the RPC handlers h1 and h2 of the leader om1 pre-execute and
    /// submit A and B; `main` is om1's apply thread (apply and flush), which applies each
    /// committed entry as it is appended and sends it to the follower om2; om3 is the third
    /// voter, which applies nothing during the plan and catches up from the committed log at
    /// its end. `leader-change` and `partitioned-leader`: only the first appended entry
    /// commits (om1, om2, om3); om1 then crashes once its handlers finished
    /// (`leader-change`), or is partitioned at once, its handlers still running
    /// (`partitioned-leader`); om2 wins the election with om3's vote and appends its term's
    /// configuration entry. `pipelined`: both entries commit. `submit-fails`: h2's
    /// submission fails after its `preExecute` (a Ratis error, om1 stays leader).
    /// `lost-store-reply`: the second pre-executed request's store write takes effect and
    /// fails.
    fn handler_plan(&self, recorder: &Arc<Recorder>, shared: &Arc<Shared>) -> Vec<Arc<Om>> {
        let design = self.design;
        let plan = self.plan;
        let main = Actor::new("om1", recorder);
        let rows = if design.leader_side() {
            plan.store_rows()
        } else {
            Vec::new()
        };
        let db = || seeded_db(&rows);
        let om1 = Arc::new(Om::new("om1", true, Arc::clone(shared), db()));
        let om2 = Arc::new(Om::new("om2", false, Arc::clone(shared), db()));
        let appended: Arc<Mutex<u64>> = Arc::new(Mutex::new(0));
        let (to_apply, from_handlers) = channel::unbounded::<(u64, S3Request, bool)>();
        let handler = |name: &'static str, request: S3Request| {
            let (om, shared, appended, to_apply, me) = (
                Arc::clone(&om1),
                Arc::clone(shared),
                Arc::clone(&appended),
                to_apply.clone(),
                Actor::new(name, recorder),
            );
            thread::spawn(name, move || {
                om.lock_to_apply(&me);
                // om1's tenant table is not read by the plan's requests.
                let pre = om.pre_execute(&me, &initial_tables(), &request);
                if pre.refused.is_some() {
                    if pre.wrote_store {
                        me.probe(&UNCOMMITTED_STORE_WRITE);
                    }
                    if pre.called_store {
                        shared.store().note_index(2 + *appended.lock());
                    }
                    om.unlock_after_apply(&me, "refused");
                    return;
                }
                if plan == Plan::SubmitFails && me.name() == "h2" {
                    me.step_with(&java::OMExecutionFlow::submitExecutionToRatis, || {
                        format!(
                            "{request}: the submission to Ratis fails; its client gets an error"
                        )
                    });
                    if pre.wrote_store {
                        me.probe(&UNCOMMITTED_STORE_WRITE);
                    }
                    if pre.called_store {
                        // Counted for the index the leader's log would have given it.
                        shared.store().note_index(2 + *appended.lock());
                    }
                    om.unlock_after_apply(&me, "submission failed");
                    return;
                }
                let mut count = appended.lock();
                *count += 1;
                let index = 1 + *count;
                me.step_with(Label::model("append to the leader's log"), || {
                    format!("{request} appended at index {index}")
                });
                if let Some(decision) = pre.decision {
                    shared.record_decision(index, decision);
                }
                if pre.called_store {
                    shared.store().note_index(index);
                }
                to_apply.send((index, request, pre.wrote_store));
            })
        };
        let [a, b] = handler_requests(plan);
        let h1 = handler("h1", a);
        let h2 = handler("h2", b);
        drop(to_apply);
        let (to_om2, from_om1) = channel::unbounded::<ToFollower>();
        let follower = {
            let (om, me) = (Arc::clone(&om2), Actor::new("om2", recorder));
            thread::spawn("om2", move || {
                let mut view = initial_tables();
                let mut alive = true;
                while let Some(message) = from_om1.recv() {
                    match message {
                        ToFollower::Entry(index, request) if alive => {
                            alive = om.apply_and_flush(&me, &mut view, index, &request);
                        }
                        ToFollower::Entry(..) => {}
                        ToFollower::LeaderChange(conf) => {
                            me.step_with(
                                &java::OzoneManagerStateMachine::notifyTermIndexUpdated,
                                || {
                                    format!(
                                        "om2 leads term 2 (om3's vote): its configuration entry \
                                     {conf} is applied, every earlier entry too: ready"
                                    )
                                },
                            );
                            if design.reconciles() && alive {
                                om.reconcile(&me);
                            }
                        }
                    }
                }
            })
        };
        let takeover = matches!(plan, Plan::LeaderChange | Plan::PartitionedLeader);
        let mut committed = Vec::new();
        let mut view = initial_tables();
        while let Some((index, request, wrote)) = from_handlers.recv() {
            if !takeover || committed.is_empty() {
                to_om2.send(ToFollower::Entry(index, request));
                om1.apply_and_flush(&main, &mut view, index, &request);
                om1.unlock_after_apply(&main, "applied");
                committed.push(request);
                if plan == Plan::PartitionedLeader {
                    main.step(
                        Label::model("partition"),
                        "om1 is partitioned from om2 and om3; its handlers go on".to_string(),
                    );
                    to_om2.send(ToFollower::LeaderChange(3));
                }
            } else {
                main.step_with(Label::model("entry never commits"), || {
                    format!("index {index} {request}: never committed; its client gets an error")
                });
                if wrote {
                    main.probe(&UNCOMMITTED_STORE_WRITE);
                }
            }
        }
        h1.join();
        h2.join();
        let conf = 2 + committed.len() as u64;
        match plan {
            Plan::LeaderChange => {
                om1.crash(&main, "om1 crashes");
                to_om2.send(ToFollower::LeaderChange(conf));
            }
            Plan::PartitionedLeader if committed.is_empty() => {
                to_om2.send(ToFollower::LeaderChange(conf));
            }
            _ => {}
        }
        drop(to_om2);
        follower.join();
        let leader = if takeover { &om2 } else { &om1 };
        if design == Design::LeaderSidePeriodic && !leader.terminated() {
            // The periodic run after the last fault: the old leader has stepped down, no
            // request is in flight.
            let me = Actor::new("periodic", recorder);
            leader.reconcile(&me);
        }
        // The log every OM ends with: om1 (after a crash, or once the partition heals) and
        // om3 catch up from it.
        let mut log = RaftLog::new();
        log.start_term(1);
        for request in &committed {
            log.append(*request);
        }
        if takeover {
            log.start_term(2);
        }
        let me = Actor::new("restart", recorder);
        let om1 = if takeover {
            Arc::new(restart_and_replay("om1", shared, om1.db(), &log, &me))
        } else {
            om1
        };
        let om3 = Arc::new(restart_and_replay("om3", shared, &db(), &log, &me));
        vec![om1, om2, om3]
    }
}

/// A message from the leader's thread to the follower of a generated workload.
#[derive(Clone, Copy, Debug)]
enum ToOm2 {
    /// A committed entry.
    Entry(u64, S3Request),
    /// Arm a fault on om2's next store call (`true`: a lost reply).
    Arm(bool),
    /// om2 crashes.
    Crash,
    /// om1 is gone; om2 wins the election (om3's vote) and appends its term's configuration
    /// entry at this index.
    LeaderChange(u64),
    /// A request for om2 as the leader: it pre-executes, appends and applies it.
    Serve(Ask, AccessId),
}

/// A leader's handling of a client request in a generated workload: `preExecute` (the
/// Java's, or the leader-side decision), then, unless refused, the append (the index is
/// assigned after `preExecute`, [`OMExecutionFlow.submitExecutionToRatis`](java::OMExecutionFlow::submitExecutionToRatis))
/// with the decision. Returns the appended entry.
fn lead(
    om: &Om,
    shared: &Shared,
    me: &Actor,
    log: &Ghost<RaftLog<S3Request>>,
    view: &Tables<Row>,
    ask: Ask,
    id: AccessId,
) -> Option<(u64, S3Request)> {
    let index = log.with(|l| l.last_index()) + 1;
    let request = ask.at(id, index);
    let pre = om.pre_execute(me, view, &request);
    if pre.called_store {
        shared.store().note_index(index);
    }
    if pre.refused.is_some() {
        if pre.wrote_store {
            me.probe(&UNCOMMITTED_STORE_WRITE);
        }
        return None;
    }
    log.with(|l| l.append(request));
    if let Some(decision) = pre.decision {
        shared.record_decision(index, decision);
    }
    Some((index, request))
}

impl Prepared {
    /// `generated`: draw a workload, then run it on a leader om1 (one thread: `preExecute`,
    /// append, replicate to om2, apply and flush) and a follower om2 (an apply and a flush
    /// thread), as `lagging-follower` runs its log; the faults arm a store failure, crash om2,
    /// or crash om1 with a request pre-executed and hand the rest of the workload to om2 as
    /// the new leader (a terminated om1 hands over the same way). At the end `main` stops om2
    /// and flushes what it left, the leader of the end reconciles once more in
    /// `leader-side-periodic`, and every OM that is down restarts and replays the final log;
    /// after a leader change om3, the third voter, catches up from it too.
    fn generated(&self, recorder: &Arc<Recorder>, shared: &Arc<Shared>) -> Vec<Arc<Om>> {
        // Drawn before anything is spawned, and shown first in the trace.
        let workload = VOCABULARY.draw_shown(self.bounds, &Actor::new("client", recorder));
        let items = drawn(&workload);
        let design = self.design;
        let log = Arc::new(Ghost::new(self.log.as_ref().clone()));
        let om1 = Arc::new(Om::new("om1", true, Arc::clone(shared), fresh_db()));
        let om2 = Arc::new(Om::new("om2", false, Arc::clone(shared), fresh_db()));
        let (to_om2, from_om1) = channel::unbounded::<ToOm2>();
        let leader = {
            let (om, shared, log, me) = (
                Arc::clone(&om1),
                Arc::clone(shared),
                Arc::clone(&log),
                Actor::new("om1", recorder),
            );
            thread::spawn("om1", move || {
                let mut view = initial_tables();
                let mut leads = true;
                let mut items = items.into_iter().peekable();
                // The first entry om1 could not answer, and om2's configuration entry.
                let mut unanswered = None;
                let hand_over = |me: &Actor, log: &Ghost<RaftLog<S3Request>>| {
                    let conf = log.with(|l| l.start_term(2));
                    to_om2.send(ToOm2::LeaderChange(conf));
                    me.step_with(Label::model("leader change"), || {
                        format!("om1 is gone: om2 takes over at index {conf}")
                    });
                    conf
                };
                while let Some(item) = items.next() {
                    match item {
                        Drawn::Request(ask, id) if leads => {
                            let Some((index, request)) =
                                lead(&om, &shared, &me, &log, &view, ask, id)
                            else {
                                continue;
                            };
                            to_om2.send(ToOm2::Entry(index, request));
                            if !om.apply_and_flush(&me, &mut view, index, &request) {
                                leads = false;
                                unanswered = Some((index, hand_over(&me, &log)));
                            }
                        }
                        Drawn::Request(ask, id) => to_om2.send(ToOm2::Serve(ask, id)),
                        Drawn::Fail("om1", lost) => shared.store().arm("om1", lost),
                        Drawn::Fail(_, lost) => to_om2.send(ToOm2::Arm(lost)),
                        Drawn::Crash => to_om2.send(ToOm2::Crash),
                        Drawn::LeaderChange if leads => {
                            if let Some(Drawn::Request(ask, id)) = items.peek().copied() {
                                items.next();
                                let index = log.with(|l| l.last_index()) + 1;
                                let request = ask.at(id, index);
                                let pre = om.pre_execute(&me, &view, &request);
                                if pre.called_store {
                                    shared.store().note_index(index);
                                }
                                me.step_with(
                                    Label::model("entry never commits"),
                                    || format!("{request}: om1 crashes before it commits; its client gets an error"),
                                );
                                if pre.wrote_store {
                                    me.probe(&UNCOMMITTED_STORE_WRITE);
                                }
                            }
                            om.crash(&me, "om1 crashes");
                            leads = false;
                            hand_over(&me, &log);
                        }
                        Drawn::LeaderChange => {}
                    }
                }
                (leads, unanswered)
            })
        };
        let flush = {
            let (om, me) = (Arc::clone(&om2), Actor::new("om2-flush", recorder));
            thread::spawn("om2-flush", move || om.flush_thread(&me))
        };
        let follower = {
            let (om, shared, log, me) = (
                Arc::clone(&om2),
                Arc::clone(shared),
                Arc::clone(&log),
                Actor::new("om2-apply", recorder),
            );
            thread::spawn("om2-apply", move || {
                let mut view = initial_tables();
                let mut alive = true;
                while let Some(message) = from_om1.recv() {
                    match message {
                        ToOm2::Entry(index, request) if alive => {
                            alive = om.apply_and_queue(&me, &mut view, index, &request);
                        }
                        ToOm2::Arm(lost) => shared.store().arm("om2", lost),
                        ToOm2::Crash if alive => {
                            om.crash(&me, "om2 crashes");
                            alive = false;
                        }
                        ToOm2::LeaderChange(conf) if alive => {
                            me.step_with(
                                &java::OzoneManagerStateMachine::notifyTermIndexUpdated,
                                || {
                                    format!(
                                        "om2 leads term 2 (om3's vote): its configuration entry \
                                     {conf} is applied, every earlier entry too: ready"
                                    )
                                },
                            );
                            om.become_leader();
                            if design.reconciles() {
                                om.reconcile_applied(&me, &view);
                            }
                        }
                        ToOm2::Serve(ask, id) if alive => {
                            if let Some((index, request)) =
                                lead(&om, &shared, &me, &log, &view, ask, id)
                            {
                                alive = om.apply_and_queue(&me, &mut view, index, &request);
                            }
                        }
                        ToOm2::Serve(ask, id) => me.step_with(Label::model("no leader"), || {
                            format!("{:?} {id}: no OM leads; its client gets an error", ask)
                        }),
                        _ => {}
                    }
                }
                if alive {
                    om.stop(&me, "orderly stop");
                }
            })
        };
        let (om1_leads, unanswered) = leader.join();
        follower.join();
        flush.join();
        let main = Actor::new("main", recorder);
        if !om2.down() {
            let rest = om2.take_unflushed();
            if let Err(why) = om2.flush(&main, rest) {
                om2.terminate(&main, &why);
            }
        }
        let last = if om1_leads { &om1 } else { &om2 };
        if design == Design::LeaderSidePeriodic && !last.down() {
            // The periodic run after the last fault: no request is in flight.
            let me = Actor::new("periodic", recorder);
            last.reconcile(&me);
        }
        recorder.quiesce();
        // Every OM that is down restarts once and replays the final log after its stored
        // index; after a leader change om3 catches up from it.
        let log = log.get();
        if let Some((from, conf)) = unanswered {
            // om1 terminated applying committed entries it never answered: their clients
            // retry on om2, whose Ratis retry cache holds the reply of its own apply
            // (a follower fills it too: `RaftServerImpl.replyPendingRequest`). What they are
            // told is om2's outcome, in log order.
            let _ = &java::RaftServerImpl::replyPendingRequest;
            let mut told = shared.answers(recorder);
            told.extend(
                (from..conf)
                    .filter_map(|index| shared.outcome("om2", index, recorder).map(|t| (index, t))),
            );
            told.sort_by_key(|(index, _)| *index);
            shared.retell(&told.into_iter().map(|(_, t)| t).collect::<Vec<_>>());
        }
        let me = Actor::new("restart", recorder);
        let mut oms: Vec<Arc<Om>> = [om1, om2]
            .into_iter()
            .map(|om| {
                if om.down() {
                    let db = Arc::clone(om.db());
                    Arc::new(restart_and_replay(om.name(), shared, &db, &log, &me))
                } else {
                    om
                }
            })
            .collect();
        if !om1_leads {
            oms.push(Arc::new(restart_and_replay(
                "om3",
                shared,
                &fresh_db(),
                &log,
                &me,
            )));
        }
        oms
    }
}

impl Case for Prepared {
    fn run(&self, recorder: &Arc<Recorder>) {
        let shared = Arc::new(self.plan.shared(self.design));
        let oms = match self.plan {
            Plan::LaggingFollower | Plan::StoreFailure => self.two_oms(recorder, &shared),
            Plan::CrashReplay | Plan::ApplyVsFlush => self.one_om(recorder, &shared),
            Plan::Generated => self.generated(recorder, &shared),
            _ => self.handler_plan(recorder, &shared),
        };
        let oms = if self.plan == Plan::Generated {
            oms
        } else {
            recorder.quiesce();
            // Every terminated OM restarts once and replays after its stored index.
            let me = Actor::new("restart", recorder);
            oms.into_iter()
                .map(|om| {
                    if om.terminated() {
                        let db = Arc::clone(om.db());
                        Arc::new(restart_and_replay(om.name(), &shared, &db, &self.log, &me))
                    } else {
                        om
                    }
                })
                .collect()
        };
        let state = Final {
            replicas: oms
                .iter()
                .map(|om| (om.name(), om.db().durable()))
                .collect(),
            store: shared.store().rows(),
            issued: shared.issued(),
            terminations: shared.terminations(recorder),
        };
        let main = Actor::new("main", recorder);
        main.step_with(Label::model("final state"), || {
            format!(
                "store {:?}; clients told {:?}",
                state
                    .store
                    .iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>(),
                state.issued
            )
        });
        check_all(FINAL, &state, recorder);
    }
}
