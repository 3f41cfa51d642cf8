//! What the stateful search keeps of each state it met, by signature: the table that
//! decides its memory.
//!
//! A state costs one entry of 32 bytes (its 16-byte signature and a [`Met`]) and a control
//! byte, in a hash table split into [`SHARDS`] shards. A hash table doubles when it fills, and while it
//! doubles the old and the new table live side by side; one table would then hold three
//! times its entries' room at once, a shard only its own. The signature is already a hash,
//! so its first word is the table's hash ([`SignatureHasher`]): no hashing per lookup and no
//! per-process random key.
//!
//! Beside it the searches count the distinct *final* states their executions ended in
//! ([`States::ended`]), 16 bytes and a control byte each: a reduction that keeps every final
//! state runs at least one execution per final state, so the searches' executions per final
//! state bound what any partial-order reduction could still save of them.

use std::collections::hash_map::{Entry, HashMap};
use std::collections::BTreeMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};

/// The shards of the table of states.
const SHARDS: usize = 32;

/// A state's signature as a map key: two words rather than a `u128`, whose 16-byte alignment
/// would pad every entry of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Key([u64; 2]);

impl Key {
    pub(super) fn new(signature: u128) -> Self {
        Self([signature as u64, (signature >> 64) as u64])
    }

    /// The shard this key is kept in: the top bits of its second word (the table hashes the
    /// first).
    fn shard(self) -> usize {
        (self.0[1] >> (64 - SHARDS.trailing_zeros())) as usize
    }
}

impl Hash for Key {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.0[0]);
    }
}

/// A hasher for [`Key`]s, which are hashes already: the hash is the key's first word.
#[derive(Default)]
pub(super) struct SignatureHasher(u64);

impl Hasher for SignatureHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write_u64(&mut self, word: u64) {
        self.0 = word;
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only keys are hashed (with `write_u64`); any other input is folded in, FNV-1a.
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

type Shard<V> = HashMap<Key, V, BuildHasherDefault<SignatureHasher>>;

/// What the searches keep of a state beside its signature, in 16 bytes:
/// - whether it is complete (every search cuts a path there);
/// - whether the unbounded search visited it and with which sleep set, sorted (stable task
///   name, where it stands) pairs, by its index among the distinct sets ([`States::sets`]);
/// - per lane of the deepening ([`LANES`]), the lane's pass that last reached it, the task
///   that ran next then and the least cost it was reached with (a state reached in one pass
///   with another task next is kept beside, in [`PassVisits`]).
#[derive(Clone, Copy, Default)]
pub(super) struct Met {
    pub(super) complete: bool,
    visited: bool,
    set: u32,
    lanes: [Reached; LANES],
}

/// The lanes of the deepening, each with its own record in a [`Met`]: the two run side by
/// side, and one lane's visits must not overwrite the other's.
pub(super) const LANES: usize = 2;

/// The highest bound a pass may have: a pass's bound and costs are kept in a byte.
pub(super) const MAX_BOUND: usize = u8::MAX as usize - 1;

/// A lane's last pass at a state, in four bytes.
#[derive(Clone, Copy, Default)]
struct Reached {
    /// The pass's bound plus one; 0 for none.
    pass: u8,
    cost: u8,
    next: u16,
}

/// The table of every state met, with the distinct sleep sets the unbounded search explored
/// them with. Those are few (the tasks asleep and where they stand: 18 sets for 1,864,787
/// states on hdds-17215 `leader-side`/`lagging-follower`), so a state names its set by
/// index rather than holding it.
#[derive(Default)]
pub(super) struct States {
    shards: Vec<Shard<Met>>,
    len: usize,
    /// The distinct sleep sets the unbounded search explored its states with; a [`Met`]
    /// names one by index.
    sets: Vec<Box<[(u32, u32)]>>,
    /// Each set's index in `sets`.
    ids: BTreeMap<Box<[(u32, u32)]>, u32>,
    /// The distinct final states of the searches' executions.
    finals: Shard<()>,
}

impl States {
    /// How many states were met.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// A search's execution ended in the state `key` (every task finished or blocked for
    /// good).
    pub(super) fn ended(&mut self, key: Key) {
        self.finals.insert(key, ());
    }

    /// How many distinct final states the searches' executions ended in.
    pub(super) fn finals(&self) -> usize {
        self.finals.len()
    }

    /// What is kept of the state with this signature (nothing yet when it is new).
    pub(super) fn at(&mut self, key: Key) -> &mut Met {
        Self::slot(&mut self.shards, &mut self.len, key)
    }

    fn slot<'a>(shards: &'a mut Vec<Shard<Met>>, len: &mut usize, key: Key) -> &'a mut Met {
        if shards.is_empty() {
            *shards = (0..SHARDS).map(|_| Shard::default()).collect();
        }
        match shards[key.shard()].entry(key) {
            Entry::Occupied(e) => e.into_mut(),
            Entry::Vacant(e) => {
                *len += 1;
                e.insert(Met::default())
            }
        }
    }

    /// The unbounded search at the state `key` with the sleep set `sleep` (sorted): true
    /// when a visit with no task awake that is asleep now explored everything this one
    /// would. Otherwise the state is explored (again), and the stored set becomes the
    /// intersection (a set only shrinks).
    pub(super) fn visit(&mut self, key: Key, sleep: &[(u32, u32)]) -> bool {
        let Self {
            shards,
            len,
            sets,
            ids,
            ..
        } = self;
        let met = Self::slot(shards, len, key);
        let kept: Option<Vec<(u32, u32)>> = if met.visited {
            let before = &sets[met.set as usize];
            if before.iter().all(|t| sleep.contains(t)) {
                return true;
            }
            Some(
                before
                    .iter()
                    .copied()
                    .filter(|t| sleep.contains(t))
                    .collect(),
            )
        } else {
            None
        };
        let set = kept.as_deref().unwrap_or(sleep);
        met.visited = true;
        met.set = match ids.get(set) {
            Some(&id) => id,
            None => {
                let id = u32::try_from(sets.len()).expect("fewer than 2^32 sleep sets");
                sets.push(set.into());
                ids.insert(set.into(), id);
                id
            }
        };
        false
    }
}

/// A bounded pass's visits of states with another task next than the one their [`Met`]
/// keeps for its lane (rare: most states are reached in a pass with one task next).
#[derive(Default)]
pub(super) struct PassVisits(Shard<Vec<(u16, u8)>>);

impl PassVisits {
    /// The pass of deepening lane `lane` bounded by `bound` (at most [`MAX_BOUND`]) reaches
    /// the state `key` at `cost` and with `next` to run (0 when any task may run at no cost):
    /// true when it reached it before with the same task next and at most that cost, so that
    /// everything this visit would explore was explored. Otherwise the least cost is kept.
    pub(super) fn reach(
        &mut self,
        met: &mut Met,
        lane: usize,
        bound: usize,
        key: Key,
        next: u32,
        cost: usize,
    ) -> bool {
        let pass = u8::try_from(bound + 1).expect("a bound of at most MAX_BOUND");
        let cost = u8::try_from(cost).expect("a cost within the bound");
        let next = u16::try_from(next).expect("fewer than 2^16 task names");
        let kept = &mut met.lanes[lane];
        if kept.pass != pass {
            *kept = Reached { pass, cost, next };
            return false;
        }
        if kept.next == next {
            let covered = kept.cost <= cost;
            kept.cost = kept.cost.min(cost);
            return covered;
        }
        let others = self.0.entry(key).or_default();
        match others.iter_mut().find(|(task, _)| *task == next) {
            Some((_, least)) => {
                let covered = *least <= cost;
                *least = (*least).min(cost);
                covered
            }
            None => {
                others.push((next, cost));
                false
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_met_is_sixteen_bytes_and_keys_spread_over_every_shard() {
        assert_eq!(std::mem::size_of::<Met>(), 16);
        assert_eq!(std::mem::size_of::<(Key, Met)>(), 32);
        let shards: std::collections::BTreeSet<usize> = (0..SHARDS as u128)
            .map(|i| Key::new(i << (128 - SHARDS.trailing_zeros())).shard())
            .collect();
        assert_eq!(shards.len(), SHARDS);
    }

    #[test]
    fn a_pass_covers_a_state_reached_again_with_as_few_preemptions_and_the_same_task_next() {
        let (mut states, mut pass) = (States::default(), PassVisits::default());
        let k = Key::new(7);
        assert!(!pass.reach(states.at(k), 0, 1, k, 3, 1));
        assert!(pass.reach(states.at(k), 0, 1, k, 3, 1));
        assert!(
            !pass.reach(states.at(k), 0, 1, k, 3, 0),
            "fewer preemptions"
        );
        assert!(pass.reach(states.at(k), 0, 1, k, 3, 1));
        assert!(
            !pass.reach(states.at(k), 0, 1, k, 4, 1),
            "another task next"
        );
        assert!(pass.reach(states.at(k), 0, 1, k, 4, 1));
        assert!(!pass.reach(states.at(k), 0, 1, k, 4, 0));
        assert!(pass.reach(states.at(k), 0, 1, k, 3, 0));
        let mut next_pass = PassVisits::default();
        assert!(!next_pass.reach(states.at(k), 0, 2, k, 3, 2), "a new pass");
        // The other lane keeps its own record: its visits leave this lane's standing.
        let mut other = PassVisits::default();
        assert!(
            !other.reach(states.at(k), 1, 2, k, 3, 2),
            "the other lane's first"
        );
        assert!(other.reach(states.at(k), 1, 2, k, 3, 2));
        assert!(
            next_pass.reach(states.at(k), 0, 2, k, 3, 2),
            "this lane's record stands"
        );
        assert_eq!(states.len(), 1);
    }

    #[test]
    fn a_visit_is_covered_only_by_a_stored_sleep_set_it_contains() {
        let mut states = States::default();
        let k = Key::new(1 << 100);
        assert!(!states.visit(k, &[(1, 0), (2, 0)]));
        assert!(states.visit(k, &[(1, 0), (2, 0), (3, 1)]));
        assert!(!states.visit(k, &[(2, 0)]), "task 1 is awake now");
        assert!(
            states.visit(k, &[(2, 0)]),
            "the stored set became the intersection"
        );
        assert!(!states.visit(k, &[]));
        assert!(states.visit(k, &[(4, 4)]));
        assert!(!states.at(k).complete);
        assert_eq!(states.len(), 1);
    }

    #[test]
    fn a_final_state_is_counted_once_and_apart_from_the_states_met() {
        let mut states = States::default();
        states.ended(Key::new(5));
        states.ended(Key::new(5 << 70));
        states.ended(Key::new(5));
        assert_eq!(states.finals(), 2);
        assert_eq!(states.len(), 0, "a final state is no decision's state");
    }

    #[test]
    fn states_explored_with_one_sleep_set_share_it() {
        let mut states = States::default();
        for i in 0..100u128 {
            assert!(!states.visit(Key::new(i << 64 | i), &[(1, 0), (2, 3)]));
        }
        assert!(!states.visit(Key::new(7 << 64 | 7), &[(2, 3)]));
        assert!(!states.visit(Key::new(1 << 100), &[]));
        assert_eq!(states.len(), 101);
        let kept: Vec<&[(u32, u32)]> = states.sets.iter().map(|s| &s[..]).collect();
        assert_eq!(kept, [&[(1, 0), (2, 3)][..], &[(2, 3)], &[]]);
        // Each state still names its own: the one visited again is covered by its
        // intersection, not by the set the others keep.
        assert!(states.visit(Key::new(7 << 64 | 7), &[(2, 3)]));
        assert!(!states.visit(Key::new(7 << 64 | 7), &[(1, 0)]));
        assert!(states.visit(Key::new(8 << 64 | 8), &[(1, 0), (2, 3)]));
    }
}
