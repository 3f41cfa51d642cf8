//! Generated workloads: the requests and faults of a scenario's vocabulary, drawn by the
//! engine ([`crate::sync::choose`]) so that a verdict covers every workload up to a bound,
//! not only the plans someone wrote.
//!
//! A [`Vocabulary`] lists the words a scenario's modelled Java path can meet: requests (a
//! key create, a secret set) and faults or environment events (a kill, a leader change), each
//! with the [`Universe`]s its arguments range over (keys, access ids). A [`Workload`] is a
//! sequence of words with their arguments; [`Vocabulary::draw`] makes one from the engine's
//! choices, at least one item, at most [`Bounds::requests`] requests and [`Bounds::faults`]
//! faults, stopping early by choice (so every shorter workload is drawn too).
//!
//! # Symmetry
//!
//! The values of a universe marked `symmetric` are interchangeable names (`k1` and `k2` are
//! two keys, nothing more): a workload and the one with two such names swapped reach states
//! that differ only by the swap. [`Vocabulary::draw`] draws only the canonical form, where
//! each name is first used in order (`k2` never before `k1`): an argument is one of the names
//! already used or the next unused one. A universe whose values differ in kind (an SCM's own
//! certificate against a datanode's) is not symmetric and every value is drawn.
//!
//! ```
//! use ozone_ha_check::workload::{Bounds, Kind, Universe, Vocabulary, Word};
//!
//! const KEYS: Universe = Universe { name: "keys", values: &["k1", "k2"], symmetric: true };
//! const WORDS: &[Word] = &[
//!     Word { name: "create", kind: Kind::Request, args: &[0], doc: "OMKeyCreateRequest" },
//!     Word { name: "rename", kind: Kind::Request, args: &[0, 0], doc: "OMKeyRenameRequest" },
//!     Word { name: "kill", kind: Kind::Fault, args: &[], doc: "kill -9, no final flush" },
//! ];
//! let v = Vocabulary {
//!     universes: &[KEYS],
//!     words: WORDS,
//!     bounds: Bounds { requests: 2, faults: 1 },
//!     allowed: ozone_ha_check::workload::any_item,
//! };
//!
//! let w = v.parse("create(k1) rename(k1,k2) kill").unwrap();
//! assert_eq!(v.show(&w), "create(k1) rename(k1,k2) kill");
//! assert!(v.parse("create(k3)").is_err());
//! // Two keys, symmetric: "create(k2)" alone is "create(k1)" renamed.
//! assert_eq!(v.show(&v.canonical(&v.parse("create(k2)").unwrap())), "create(k1)");
//! // Workloads of at most 2 requests and 1 fault, in canonical form.
//! assert_eq!(v.count(v.bounds), 82);
//! ```

use crate::citation::Label;
use crate::recorder::Actor;
use crate::sync::choose;
use serde::{Deserialize, Serialize};
use std::fmt;

/// The values one kind of argument ranges over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Universe {
    /// What the values are, plural (`"keys"`).
    pub name: &'static str,
    /// The values, as a workload spells them.
    pub values: &'static [&'static str],
    /// Whether the values are interchangeable names (see the module docs).
    pub symmetric: bool,
}

/// Whether a word is a client's request or something that happens to the cluster.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// A request a client submits.
    Request,
    /// A fault or environment event (a kill, a restart, a leader change, a store failure).
    Fault,
}

/// One request or event of a vocabulary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Word {
    /// Its name in a workload.
    pub name: &'static str,
    /// Request or fault.
    pub kind: Kind,
    /// The universe of each argument, by index into [`Vocabulary::universes`].
    pub args: &'static [usize],
    /// One line: the Java it stands for and what it does.
    pub doc: &'static str,
}

/// How large a generated workload may be.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bounds {
    /// Requests at most.
    pub requests: usize,
    /// Faults at most.
    pub faults: usize,
}

impl fmt::Display for Bounds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "at most {} request{} and {} fault{}",
            self.requests,
            if self.requests == 1 { "" } else { "s" },
            self.faults,
            if self.faults == 1 { "" } else { "s" }
        )
    }
}

/// A scenario's words, the universes they range over, and its default bounds.
#[derive(Clone, Copy, Debug)]
pub struct Vocabulary {
    /// The universes, referred to by index from [`Word::args`].
    pub universes: &'static [Universe],
    /// The words.
    pub words: &'static [Word],
    /// The bounds `check` uses when none are given.
    pub bounds: Bounds,
    /// Whether an item may follow a prefix: what a client can send next (a commit only for
    /// a key it has open, say). [`any_item`] admits everything.
    pub allowed: fn(&[Item], &Item) -> bool,
}

/// Every item may follow every prefix: a vocabulary without preconditions.
pub fn any_item(_prefix: &[Item], _item: &Item) -> bool {
    true
}

/// One word of a workload, with its arguments (indices into their universes).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Item {
    /// The word, by index into [`Vocabulary::words`].
    pub word: usize,
    /// Each argument's value, by index into its universe's values.
    pub args: Vec<usize>,
}

/// A sequence of requests and faults.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Workload {
    /// The items in order.
    pub items: Vec<Item>,
}

/// Why a text is not a workload of a vocabulary: a usage error, with one line to say so.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkloadError(pub String);

impl fmt::Display for WorkloadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for WorkloadError {}

impl Vocabulary {
    /// [`Vocabulary::draw`], with the workload recorded as `actor`'s step "the workload
    /// drawn", so that a counterexample's trace opens with the workload it ran.
    pub fn draw_shown(&self, bounds: Bounds, actor: &Actor) -> Workload {
        let workload = self.draw(bounds);
        actor.step(Label::model("the workload drawn"), self.show(&workload));
        workload
    }

    /// Draw a workload within `bounds` from the engine's choices: at each position, stop or
    /// take one of the items the bounds and [`Vocabulary::allowed`] leave, arguments in
    /// canonical form. Call it before spawning, so that under loom the choices do not depend
    /// on the interleaving. Every workload, one of a single request too, must then race
    /// something (PCT fails a run whose first execution made no scheduling choice).
    pub fn draw(&self, bounds: Bounds) -> Workload {
        let mut workload = Workload::default();
        loop {
            let next = self.candidates(&workload.items, bounds);
            // Option 0 stops (once there is an item: an empty workload runs nothing, and
            // PCT needs its first execution to schedule something), so a depth-first search
            // meets the shorter workloads first.
            let stop = usize::from(!workload.items.is_empty());
            if next.is_empty() {
                return workload;
            }
            let pick = choose(next.len() + stop);
            if pick < stop {
                return workload;
            }
            workload.items.push(next[pick - stop].clone());
        }
    }

    /// The choice values [`Vocabulary::draw`] consumes to make `workload` within `bounds`,
    /// one for each choice among more than one option (the index of the item among the
    /// candidates, after option 0, the stop, once there is an item), the final stop
    /// included; `None` when `workload` is not one `draw` makes (not canonical, not within
    /// `bounds`, or an item [`Vocabulary::allowed`] refuses). Replaying these values to the
    /// draw, in order, gives `workload` back: the minimizer tries a shorter workload this
    /// way.
    ///
    /// ```
    /// use ozone_ha_check::workload::{any_item, Bounds, Kind, Universe, Vocabulary, Word};
    ///
    /// const KEYS: Universe = Universe { name: "keys", values: &["k1", "k2"], symmetric: true };
    /// let v = Vocabulary {
    ///     universes: &[KEYS],
    ///     words: &[
    ///         Word { name: "create", kind: Kind::Request, args: &[0], doc: "" },
    ///         Word { name: "kill", kind: Kind::Fault, args: &[], doc: "" },
    ///     ],
    ///     bounds: Bounds { requests: 2, faults: 1 },
    ///     allowed: any_item,
    /// };
    /// let w = v.parse("create(k1) kill").unwrap();
    /// // create(k1) is option 0 of [create(k1), kill], the kill option 3 of [stop,
    /// // create(k1), create(k2), kill], then the stop (option 0).
    /// let values = v.encode(&w, v.bounds).unwrap();
    /// assert_eq!(values, vec![0, 3, 0]);
    /// assert_eq!(v.decode(&values, v.bounds), (w, 3));
    /// // Not canonical: k2 before k1.
    /// assert_eq!(v.encode(&v.parse("create(k2)").unwrap(), v.bounds), None);
    /// ```
    pub fn encode(&self, workload: &Workload, bounds: Bounds) -> Option<Vec<u64>> {
        let mut values = Vec::new();
        let mut prefix: Vec<Item> = Vec::new();
        for item in &workload.items {
            let next = self.candidates(&prefix, bounds);
            let stop = usize::from(!prefix.is_empty());
            let at = next.iter().position(|c| c == item)?;
            if next.len() + stop > 1 {
                values.push(u64::try_from(at + stop).ok()?);
            }
            prefix.push(item.clone());
        }
        // The stop, unless nothing could follow (then the draw asks nothing).
        if !prefix.is_empty() && !self.candidates(&prefix, bounds).is_empty() {
            values.push(0);
        }
        Some(values)
    }

    /// The workload [`Vocabulary::draw`] makes within `bounds` when its choices take
    /// `values` in order (each modulo its number of options, 0 once they run out, as a
    /// guided replay answers), and how many of them it consumes; the inverse of
    /// [`Vocabulary::encode`].
    pub fn decode(&self, values: &[u64], bounds: Bounds) -> (Workload, usize) {
        let mut workload = Workload::default();
        let mut used = 0;
        loop {
            let next = self.candidates(&workload.items, bounds);
            let stop = usize::from(!workload.items.is_empty());
            if next.is_empty() {
                break;
            }
            let n = next.len() + stop;
            let pick = if n == 1 {
                0
            } else {
                let v = values.get(used).copied().unwrap_or(0);
                used += 1;
                usize::try_from(v % n as u64).unwrap_or(0)
            };
            if pick < stop {
                break;
            }
            workload.items.push(next[pick - stop].clone());
        }
        (workload, used.min(values.len()))
    }

    /// The items that may follow `prefix` within `bounds`: every word still within its
    /// bound, with every canonical choice of arguments, that [`Vocabulary::allowed`] admits.
    pub fn candidates(&self, prefix: &[Item], bounds: Bounds) -> Vec<Item> {
        let count = |kind| {
            prefix
                .iter()
                .filter(|i| self.words[i.word].kind == kind)
                .count()
        };
        let (requests, faults) = (count(Kind::Request), count(Kind::Fault));
        let mut used = vec![0usize; self.universes.len()];
        for item in prefix {
            self.note_used(item, &mut used);
        }
        let mut out = Vec::new();
        for (word, spec) in self.words.iter().enumerate() {
            let room = match spec.kind {
                Kind::Request => requests < bounds.requests,
                Kind::Fault => faults < bounds.faults,
            };
            if !room {
                continue;
            }
            let mut args: Vec<(Vec<usize>, Vec<usize>)> = vec![(Vec::new(), used.clone())];
            for &u in spec.args {
                args = args
                    .into_iter()
                    .flat_map(|(a, used)| {
                        (0..self.choices_for(u, used[u])).map(move |value| {
                            let (mut a, mut used) = (a.clone(), used.clone());
                            if self.universes[u].symmetric && value == used[u] {
                                used[u] += 1;
                            }
                            a.push(value);
                            (a, used)
                        })
                    })
                    .collect();
            }
            out.extend(
                args.into_iter()
                    .map(|(args, _)| Item { word, args })
                    .filter(|item| (self.allowed)(prefix, item)),
            );
        }
        out
    }

    /// Count the names of symmetric universes `item` uses for the first time.
    fn note_used(&self, item: &Item, used: &mut [usize]) {
        for (&u, &value) in self.words[item.word].args.iter().zip(&item.args) {
            if self.universes[u].symmetric && value >= used[u] {
                used[u] = value + 1;
            }
        }
    }

    /// How many values an argument of universe `u` may take when `used` of its names are
    /// already used.
    fn choices_for(&self, u: usize, used: usize) -> usize {
        let all = self.universes[u].values.len();
        if self.universes[u].symmetric {
            (used + 1).min(all)
        } else {
            all
        }
    }

    /// The number of workloads [`Vocabulary::draw`] can make within `bounds` (none empty):
    /// the size of the space a verdict over them covers.
    pub fn count(&self, bounds: Bounds) -> u128 {
        self.count_after(&mut Vec::new(), bounds)
    }

    /// Workloads that extend `prefix` by at least one item.
    fn count_after(&self, prefix: &mut Vec<Item>, bounds: Bounds) -> u128 {
        let mut total = 0;
        for item in self.candidates(prefix, bounds) {
            prefix.push(item);
            total += 1 + self.count_after(prefix, bounds);
            prefix.pop();
        }
        total
    }

    /// Cut the workloads within `bounds` into `count` parts for the stateful engine
    /// ([`crate::engine::Part`]), part `index` (from 1) returned. The cut is by prefix of
    /// the draw's choices: K is the fewest choices that give at least four prefixes per part
    /// (or the whole tree, when it has fewer), a prefix being the values of a workload's first
    /// K choices, or all of them for a workload drawn in fewer. Each workload has exactly one
    /// such prefix; the prefixes go, the heaviest first (by their workloads), each to the part
    /// with the fewest workloads so far (the lowest index on a tie). So the parts are
    /// disjoint, their union is every workload [`Vocabulary::draw`] makes within `bounds`,
    /// and their sizes are close. Two runs cut alike: the cut depends on the vocabulary, the
    /// bounds and `count` alone.
    ///
    /// ```
    /// use ozone_ha_check::workload::{any_item, Bounds, Kind, Universe, Vocabulary, Word};
    ///
    /// const KEYS: Universe = Universe { name: "keys", values: &["k1", "k2"], symmetric: true };
    /// let v = Vocabulary {
    ///     universes: &[KEYS],
    ///     words: &[
    ///         Word { name: "create", kind: Kind::Request, args: &[0], doc: "" },
    ///         Word { name: "kill", kind: Kind::Fault, args: &[], doc: "" },
    ///     ],
    ///     bounds: Bounds { requests: 2, faults: 1 },
    ///     allowed: any_item,
    /// };
    /// let parts: Vec<_> = (1..=3).map(|i| v.split(v.bounds, i, 3)).collect();
    /// let total: u128 = parts.iter().map(|p| p.workloads).sum();
    /// assert_eq!(total, v.count(v.bounds));
    /// ```
    ///
    /// # Panics
    ///
    /// When `index` is not in `1..=count`.
    pub fn split(&self, bounds: Bounds, index: usize, count: usize) -> crate::engine::Part {
        assert!(
            (1..=count).contains(&index),
            "part {index} of {count}: parts count from 1"
        );
        let want = count.saturating_mul(4);
        let mut depth = 1;
        let mut prefixes = self.prefixes(bounds, depth);
        loop {
            let deeper = self.prefixes(bounds, depth + 1);
            if prefixes.len() >= want || deeper.len() == prefixes.len() {
                break;
            }
            prefixes = deeper;
            depth += 1;
        }
        let mut order: Vec<usize> = (0..prefixes.len()).collect();
        order.sort_by(|&a, &b| prefixes[b].1.cmp(&prefixes[a].1).then(a.cmp(&b)));
        let mut load = vec![0u128; count];
        let mut owner = vec![0usize; prefixes.len()];
        for k in order {
            let lightest = (0..count).min_by_key(|&p| (load[p], p)).unwrap_or(0);
            load[lightest] += prefixes[k].1;
            owner[k] = lightest;
        }
        crate::engine::Part {
            index,
            count,
            prefixes: prefixes
                .iter()
                .zip(&owner)
                .filter(|(_, &o)| o == index - 1)
                .map(|((values, _), _)| values.clone())
                .collect(),
            workloads: load[index - 1],
        }
    }

    /// The prefixes of at most `depth` choice values of the draw within `bounds`, in the
    /// draw's depth-first order, each with the number of workloads that begin with it.
    fn prefixes(&self, bounds: Bounds, depth: usize) -> Vec<(Vec<u64>, u128)> {
        let mut out = Vec::new();
        self.prefixes_after(&mut Vec::new(), &mut Vec::new(), bounds, depth, &mut out);
        out
    }

    fn prefixes_after(
        &self,
        items: &mut Vec<Item>,
        values: &mut Vec<u64>,
        bounds: Bounds,
        depth: usize,
        out: &mut Vec<(Vec<u64>, u128)>,
    ) {
        let next = self.candidates(items, bounds);
        let stop = usize::from(!items.is_empty());
        // Workloads that are `items` or extend it (`items` itself, once it is one).
        let here = |items: &mut Vec<Item>| u128::from(stop == 1) + self.count_after(items, bounds);
        if next.is_empty() {
            out.push((values.clone(), here(items)));
            return;
        }
        if next.len() + stop == 1 {
            // No decision: the one item follows.
            items.push(next[0].clone());
            self.prefixes_after(items, values, bounds, depth, out);
            items.pop();
            return;
        }
        if values.len() == depth {
            out.push((values.clone(), here(items)));
            return;
        }
        for option in 0..next.len() + stop {
            values.push(option as u64);
            if option < stop {
                out.push((values.clone(), 1));
            } else {
                items.push(next[option - stop].clone());
                self.prefixes_after(items, values, bounds, depth, out);
                items.pop();
            }
            values.pop();
        }
    }

    /// `workload` with the names of each symmetric universe renumbered by first use: the
    /// workload [`Vocabulary::draw`] stands for it with.
    pub fn canonical(&self, workload: &Workload) -> Workload {
        let mut renames: Vec<Vec<Option<usize>>> = self
            .universes
            .iter()
            .map(|u| vec![None; u.values.len()])
            .collect();
        let mut used = vec![0usize; self.universes.len()];
        let items = workload
            .items
            .iter()
            .map(|item| {
                let args = self.words[item.word]
                    .args
                    .iter()
                    .zip(&item.args)
                    .map(|(&u, &value)| {
                        if !self.universes[u].symmetric {
                            return value;
                        }
                        *renames[u][value].get_or_insert_with(|| {
                            used[u] += 1;
                            used[u] - 1
                        })
                    })
                    .collect();
                Item {
                    word: item.word,
                    args,
                }
            })
            .collect();
        Workload { items }
    }

    /// The workload as text: `create(k1) rename(k1,k2) kill`.
    pub fn show(&self, workload: &Workload) -> String {
        let items: Vec<String> = workload
            .items
            .iter()
            .map(|item| {
                let word = &self.words[item.word];
                if word.args.is_empty() {
                    return word.name.to_string();
                }
                let args: Vec<&str> = word
                    .args
                    .iter()
                    .zip(&item.args)
                    .map(|(&u, &v)| self.universes[u].values[v])
                    .collect();
                format!("{}({})", word.name, args.join(","))
            })
            .collect();
        items.join(" ")
    }

    /// Read a workload written as [`Vocabulary::show`] writes it. An unknown word, an
    /// argument outside its universe or a wrong number of arguments is an error that names
    /// the item and what would have been right.
    pub fn parse(&self, text: &str) -> Result<Workload, WorkloadError> {
        let mut items = Vec::new();
        for token in text.split_whitespace() {
            let (name, args) = match token.split_once('(') {
                Some((name, rest)) => {
                    let Some(inner) = rest.strip_suffix(')') else {
                        return Err(WorkloadError(format!(
                            "`{token}`: an argument list ends with `)`"
                        )));
                    };
                    (name, inner.split(',').collect::<Vec<_>>())
                }
                None => (token, Vec::new()),
            };
            let Some(word) = self.words.iter().position(|w| w.name == name) else {
                let known: Vec<&str> = self.words.iter().map(|w| w.name).collect();
                return Err(WorkloadError(format!(
                    "unknown request or fault `{name}` (known: {})",
                    known.join(", ")
                )));
            };
            let universes = self.words[word].args;
            if args.len() != universes.len() {
                return Err(WorkloadError(format!(
                    "`{token}`: `{name}` takes {} argument{}",
                    universes.len(),
                    if universes.len() == 1 { "" } else { "s" }
                )));
            }
            let args = universes
                .iter()
                .zip(&args)
                .map(|(&u, arg)| {
                    let universe = &self.universes[u];
                    universe
                        .values
                        .iter()
                        .position(|v| v == arg)
                        .ok_or_else(|| {
                            WorkloadError(format!(
                                "`{token}`: `{arg}` is not one of the {} ({})",
                                universe.name,
                                universe.values.join(", ")
                            ))
                        })
                })
                .collect::<Result<Vec<_>, _>>()?;
            items.push(Item { word, args });
        }
        Ok(Workload { items })
    }

    /// Whether `workload` is within `bounds`.
    pub fn within(&self, workload: &Workload, bounds: Bounds) -> bool {
        let count = |kind| {
            workload
                .items
                .iter()
                .filter(|i| self.words[i.word].kind == kind)
                .count()
        };
        count(Kind::Request) <= bounds.requests && count(Kind::Fault) <= bounds.faults
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{drive, Exploration, Flow, Schedule, Strategy};
    use std::sync::Mutex;

    const KEYS: Universe = Universe {
        name: "keys",
        values: &["k1", "k2"],
        symmetric: true,
    };
    const NODES: Universe = Universe {
        name: "nodes",
        values: &["scm", "dn"],
        symmetric: false,
    };
    /// A create only for a key not yet created: a precondition that shrinks the candidates.
    fn once(prefix: &[Item], item: &Item) -> bool {
        item.word != 0 || !prefix.contains(item)
    }
    const SMALL: Vocabulary = Vocabulary {
        universes: &[KEYS, NODES],
        words: &[
            Word {
                name: "create",
                kind: Kind::Request,
                args: &[0],
                doc: "",
            },
            Word {
                name: "rename",
                kind: Kind::Request,
                args: &[0, 0],
                doc: "",
            },
            Word {
                name: "kill",
                kind: Kind::Fault,
                args: &[1],
                doc: "",
            },
        ],
        bounds: Bounds {
            requests: 2,
            faults: 1,
        },
        allowed: once,
    };

    fn every_workload(v: &Vocabulary, prefix: &mut Vec<Item>, out: &mut Vec<Workload>) {
        for item in v.candidates(prefix, v.bounds) {
            prefix.push(item);
            out.push(Workload {
                items: prefix.clone(),
            });
            every_workload(v, prefix, out);
            prefix.pop();
        }
    }

    /// One execution that draws a workload from the engine's choices.
    #[derive(Default)]
    struct Drawing(Mutex<Option<Workload>>);

    impl Exploration for Drawing {
        fn begin(&self) {}
        fn body(&self) {
            *self.0.lock().unwrap() = Some(SMALL.draw(SMALL.bounds));
        }
        fn end(&self, _schedule: Option<Schedule>) -> Flow {
            Flow::Continue
        }
        fn settled(&self) -> bool {
            false
        }
    }

    #[test]
    fn encoded_workloads_draw_back_and_decode() {
        let mut all = Vec::new();
        every_workload(&SMALL, &mut Vec::new(), &mut all);
        assert_eq!(all.len() as u128, SMALL.count(SMALL.bounds));
        assert!(all.len() > 20);
        for w in &all {
            let values = SMALL
                .encode(w, SMALL.bounds)
                .expect("a drawn workload encodes");
            assert_eq!(
                SMALL.decode(&values, SMALL.bounds),
                (w.clone(), values.len())
            );
            // The engine's draw, answered with these values, makes the same workload.
            let drawing = std::sync::Arc::new(Drawing::default());
            let strategy = Strategy::Guided {
                switches: Vec::new(),
                values,
            };
            if strategy.available() {
                drive(&strategy, drawing.clone()).unwrap();
                let drawn = drawing.0.lock().unwrap().take();
                assert_eq!(drawn.as_ref(), Some(w), "{}", SMALL.show(w));
            }
        }
        // Not canonical, or refused by the precondition.
        let k2 = SMALL.parse("create(k2)").unwrap();
        assert_eq!(SMALL.encode(&k2, SMALL.bounds), None);
        let twice = SMALL.parse("create(k1) create(k1)").unwrap();
        assert_eq!(SMALL.encode(&twice, SMALL.bounds), None);
    }
}
