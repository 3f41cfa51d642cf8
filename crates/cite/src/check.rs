//! Checking every citation of a manifest against source checkouts.
//!
//! Each cited method is looked up by file, class, method and (for an overload) parameter
//! types, and its fingerprint compared with the manifest's:
//!
//! | status | meaning |
//! |---|---|
//! | `unchanged` | same fingerprint (and the same lines, where the pinned lines are known) |
//! | `moved` | same fingerprint, other lines than at the pinned commit |
//! | `changed` | the method is there, its fingerprint differs |
//! | `missing` | the file, the class or the method is gone (or an overload now makes the name ambiguous) |
//! | `not checked` | its source's checkout was not given, or (historical source) lacks its commit |
//!
//! The citations of `ozone` and `ratis` are looked up in the checkout's work tree. The
//! manifest stores no line numbers. The lines at the pinned commit are read from the
//! checkout's own git history (`git show <commit>:<file>`) when the checkout is a git
//! repository that holds the pinned commit; otherwise a matching fingerprint is reported
//! `unchanged`, and [`SourceChecked::baseline`] says why the lines were not compared.
//!
//! A historical source (a `[sources.NAME]` of the Ozone or Ratis repository at another
//! commit, see [`super::manifest`]) is there to model a bug as the Java was just before
//! its fix, and at the fix, while the pin moves on. Its citations are looked up in the
//! checkout of its repository (`--ozone` or `--ratis`) but at its own commit, read from
//! git, never from the work tree: the work tree and `HEAD` do not matter, only that the
//! checkout's history holds the commit. They are `unchanged`, `changed` or `missing` at
//! that commit (never `moved`: their lines are the commit's own, in both
//! [`Checked::lines`] and [`Checked::pinned_lines`]), and `not checked` when the checkout
//! was not given or its history lacks the commit (a shallow clone): that is no error.

use super::java::{self, JavaFile, MethodDecl};
use super::manifest::{is_historical, Entry, Manifest, Pin};
use super::{git, CiteError, Source};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// What became of one citation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum Status {
    /// Same fingerprint, same lines (or the pinned lines are unknown).
    #[serde(rename = "unchanged")]
    Unchanged,
    /// Same fingerprint, other lines than at the pinned commit.
    #[serde(rename = "moved")]
    Moved,
    /// The method is there with another fingerprint.
    #[serde(rename = "changed")]
    Changed,
    /// The file, class or method is gone, or the name no longer picks one overload.
    #[serde(rename = "missing")]
    Missing,
    /// Its source's checkout was not given, or lacks a historical source's commit.
    #[serde(rename = "not checked")]
    NotChecked,
}

impl Status {
    /// The word the report prints.
    pub fn word(self) -> &'static str {
        match self {
            Status::Unchanged => "unchanged",
            Status::Moved => "moved",
            Status::Changed => "changed",
            Status::Missing => "missing",
            Status::NotChecked => "not checked",
        }
    }

    /// Whether the citation needs attention (changed or missing).
    pub fn is_problem(self) -> bool {
        matches!(self, Status::Changed | Status::Missing)
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

/// One citation, checked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Checked {
    /// The citation's id.
    pub id: String,
    /// Its source: `ozone`, `ratis` or a historical source's name.
    pub source: String,
    /// Its file.
    pub file: String,
    /// Its class.
    pub class: String,
    /// Its method.
    pub method: String,
    /// Its parameter types, for an overload.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub params: Option<Vec<String>>,
    /// What became of it.
    pub status: Status,
    /// Its lines in the checkout's work tree, when the method was found there; for a
    /// historical source, its lines at that source's commit.
    pub lines: Option<(usize, usize)>,
    /// Its lines at its source's pinned commit, when the checkout's git history has them.
    pub pinned_lines: Option<(usize, usize)>,
    /// Why it is missing or not checked.
    pub detail: Option<String>,
}

/// How one source was checked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SourceChecked {
    /// `ozone`, `ratis`, or a historical source's name.
    pub source: String,
    /// The repository's own source name, `ozone` or `ratis` (the source's name, but for a
    /// historical source).
    pub repository: String,
    /// For a historical source, what its commit is (the manifest's `about`).
    pub about: Option<String>,
    /// The pinned commit.
    pub pinned: String,
    /// The checkout, if one was given.
    pub dir: Option<PathBuf>,
    /// Whether the checkout's git history has the pinned commit (`Ok`), or why not. For
    /// `ozone` and `ratis`, whether the lines at the pinned commit could be compared; for
    /// a historical source, whether its citations could be checked at all.
    pub baseline: Result<(), String>,
}

impl SourceChecked {
    /// Whether this is a historical source, checked at its own commit.
    pub fn is_historical(&self) -> bool {
        is_historical(&self.source)
    }
}

/// Every citation of a manifest, checked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CiteReport {
    /// Each source: its pin and checkout.
    pub sources: Vec<SourceChecked>,
    /// Each citation, in the manifest's order.
    pub citations: Vec<Checked>,
}

impl CiteReport {
    /// How many citations have `status`.
    pub fn count(&self, status: Status) -> usize {
        self.citations.iter().filter(|c| c.status == status).count()
    }

    /// Whether nothing changed and nothing is missing.
    pub fn clean(&self) -> bool {
        !self.citations.iter().any(|c| c.status.is_problem())
    }
}

/// Whether `dir` is an Ozone source tree: a root `pom.xml` of `ozone-main` and the
/// `hadoop-ozone` and `hadoop-hdds` directories.
pub fn is_ozone_tree(dir: &Path) -> bool {
    has_pom(dir, "ozone-main")
        && dir.join("hadoop-ozone").is_dir()
        && dir.join("hadoop-hdds").is_dir()
}

/// Whether `dir` is a Ratis source tree: a root `pom.xml` of `ratis` and `ratis-server`.
pub fn is_ratis_tree(dir: &Path) -> bool {
    has_pom(dir, "ratis") && dir.join("ratis-server").is_dir()
}

fn has_pom(dir: &Path, artifact: &str) -> bool {
    std::fs::read_to_string(dir.join("pom.xml"))
        .is_ok_and(|t| t.contains(&format!("<artifactId>{artifact}</artifactId>")))
}

/// Check `dir` is the tree `source` needs.
pub(super) fn recognise(source: Source, dir: &Path) -> Result<(), CiteError> {
    let path = dir.to_path_buf();
    match source {
        Source::Ozone if !is_ozone_tree(dir) => Err(CiteError::NotOzoneTree { path }),
        Source::Ratis if !is_ratis_tree(dir) => Err(CiteError::NotRatisTree { path }),
        _ => Ok(()),
    }
}

/// How one citation's lookup in a parsed file ended.
pub(super) enum Found<'a> {
    /// The one method it names.
    One(&'a MethodDecl),
    /// Why there is not exactly one.
    Not(String),
}

/// Find the method `entry` names in `file`.
pub(super) fn find<'a>(entry: &Entry, file: &'a JavaFile) -> Found<'a> {
    if !file.has_class(&entry.class) {
        return Found::Not(format!("no class {}", entry.class));
    }
    let overloads = file.overloads(&entry.class, &entry.method);
    if overloads.is_empty() {
        return Found::Not(format!("no method {} in {}", entry.method, entry.class));
    }
    match &entry.params {
        Some(p) => match overloads.iter().find(|m| &m.params == p) {
            Some(m) => Found::One(m),
            None => Found::Not(format!(
                "no overload ({}); there are: {}",
                p.join(","),
                signatures(&overloads)
            )),
        },
        None if overloads.len() == 1 => Found::One(overloads[0]),
        None => Found::Not(format!(
            "{} overloads, the citation names none: {}",
            overloads.len(),
            signatures(&overloads)
        )),
    }
}

fn signatures(overloads: &[&MethodDecl]) -> String {
    overloads
        .iter()
        .map(|m| format!("({})", m.params.join(",")))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Parsed files, each read once: from the work tree, or from git at a commit.
pub(super) struct Files<'d> {
    dir: &'d Path,
    commit: Option<String>,
    parsed: BTreeMap<String, Option<JavaFile>>,
}

impl<'d> Files<'d> {
    /// The files of `dir`'s work tree.
    pub(super) fn new(dir: &'d Path) -> Self {
        Self {
            dir,
            commit: None,
            parsed: BTreeMap::new(),
        }
    }

    /// The files of `dir`'s git history at `commit` (which it should hold: see
    /// `git::has_commit`).
    pub(super) fn at(dir: &'d Path, commit: &str) -> Self {
        Self {
            dir,
            commit: Some(commit.to_string()),
            parsed: BTreeMap::new(),
        }
    }

    /// The file, parsed; `None` when there is no such file (at the commit).
    pub(super) fn get(&mut self, file: &str) -> Result<Option<&JavaFile>, CiteError> {
        if !self.parsed.contains_key(file) {
            let path = self.dir.join(file);
            let text = match &self.commit {
                Some(commit) => git::show(self.dir, commit, file),
                None => match std::fs::read_to_string(&path) {
                    Ok(text) => Some(text),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
                    Err(e) => return Err(CiteError::Io { path, source: e }),
                },
            };
            let parsed = match text {
                None => None,
                Some(text) => Some(java::parse(&text).map_err(|reason| CiteError::Io {
                    path: match &self.commit {
                        Some(c) => PathBuf::from(format!("{c}:{file}")),
                        None => path,
                    },
                    source: std::io::Error::other(reason),
                })?),
            };
            self.parsed.insert(file.to_string(), parsed);
        }
        Ok(self.parsed.get(file).and_then(Option::as_ref))
    }

    /// The one method `entry` names, or why there is not exactly one (no file, class or
    /// method, or no single overload).
    pub(super) fn locate(
        &mut self,
        entry: &Entry,
    ) -> Result<Result<&MethodDecl, String>, CiteError> {
        Ok(match self.get(&entry.file)? {
            None => Err("file not found".to_string()),
            Some(file) => match find(entry, file) {
                Found::One(m) => Ok(m),
                Found::Not(why) => Err(why),
            },
        })
    }
}

/// Where one source's citations are looked up.
enum Tree<'d> {
    /// `ozone` or `ratis`: the work tree, and the pinned commit (for its lines) when the
    /// checkout's git history has it.
    Work {
        files: Files<'d>,
        baseline: Option<Files<'d>>,
    },
    /// A historical source: its commit, in the checkout's git history.
    Commit(Files<'d>),
    /// Not checked, and why.
    Unavailable(String),
}

/// The sources of `manifest` in the order a report lists them: `ozone`, `ratis`, then the
/// historical ones by name.
pub(super) fn ordered(manifest: &Manifest) -> Vec<(&String, &Pin)> {
    let mut sources: Vec<(&String, &Pin)> = manifest.sources.iter().collect();
    sources.sort_by_key(|(name, _)| (is_historical(name), name.as_str()));
    sources
}

/// The repository of the source `name` (its own source name, `ozone` or `ratis`), and the
/// checkout given for it.
pub(super) fn checkout<'d>(
    name: &str,
    pin: &Pin,
    ozone_dir: Option<&'d Path>,
    ratis_dir: Option<&'d Path>,
) -> (&'static str, Option<&'d Path>) {
    let repository = pin
        .repository_name()
        .or_else(|| Source::from_name(name).map(Source::name))
        .unwrap_or("ozone");
    match repository {
        "ratis" => ("ratis", ratis_dir),
        other => (other, ozone_dir),
    }
}

/// Check every citation of `manifest`: Ozone ones in `ozone_dir`, Ratis ones in `ratis_dir`
/// when given (else `not checked`); a historical source's in the same checkout of its
/// repository, at its own commit (`not checked` when the checkout's history lacks it).
///
/// Errors: a directory that is not the expected source tree, or a cited file that exists
/// but cannot be read (or parsed). A missing file, class or method is a status, not an
/// error, and so is a historical commit the checkout lacks.
pub fn check(
    manifest: &Manifest,
    ozone_dir: &Path,
    ratis_dir: Option<&Path>,
) -> Result<CiteReport, CiteError> {
    check_trees(manifest, Some(ozone_dir), ratis_dir)
}

/// Locate every citation of `manifest` in the checkouts given, as [`check()`] does, with
/// either checkout optional: the citations of a source without one are `not checked`.
/// The method finding behind `cite` and behind the line ranges of trace links
/// ([`crate::resolve_links`]).
///
/// Errors: as [`check()`].
pub fn check_trees(
    manifest: &Manifest,
    ozone_dir: Option<&Path>,
    ratis_dir: Option<&Path>,
) -> Result<CiteReport, CiteError> {
    if let Some(dir) = ozone_dir {
        recognise(Source::Ozone, dir)?;
    }
    if let Some(dir) = ratis_dir {
        recognise(Source::Ratis, dir)?;
    }
    let mut sources = Vec::new();
    let mut trees: BTreeMap<String, Tree<'_>> = BTreeMap::new();
    for (name, pin) in ordered(manifest) {
        let (repository, dir) = checkout(name, pin, ozone_dir, ratis_dir);
        let baseline = match dir {
            None => Err("no checkout given".to_string()),
            Some(d) => git::has_commit(d, &pin.commit),
        };
        let tree = match (dir, &baseline) {
            (None, _) => Tree::Unavailable(format!("no --{repository} checkout given")),
            (Some(d), Ok(())) if is_historical(name) => Tree::Commit(Files::at(d, &pin.commit)),
            (Some(_), Err(why)) if is_historical(name) => Tree::Unavailable(format!(
                "the --{repository} checkout lacks the commit {}: {}",
                short(&pin.commit),
                why.lines().next().unwrap_or("").trim()
            )),
            (Some(d), _) => Tree::Work {
                files: Files::new(d),
                baseline: baseline.is_ok().then(|| Files::at(d, &pin.commit)),
            },
        };
        trees.insert(name.clone(), tree);
        sources.push(SourceChecked {
            source: name.clone(),
            repository: repository.to_string(),
            about: pin.about.clone(),
            pinned: pin.commit.clone(),
            dir: dir.map(Path::to_path_buf),
            baseline,
        });
    }
    let mut citations = Vec::new();
    for e in &manifest.citations {
        let mut c = Checked {
            id: e.id.clone(),
            source: e.source.clone(),
            file: e.file.clone(),
            class: e.class.clone(),
            method: e.method.clone(),
            params: e.params.clone(),
            status: Status::NotChecked,
            lines: None,
            pinned_lines: None,
            detail: None,
        };
        match trees.get_mut(&e.source) {
            None => c.detail = Some(format!("no [sources.{}]", e.source)),
            Some(Tree::Unavailable(why)) => c.detail = Some(why.clone()),
            Some(Tree::Work { files, baseline }) => match files.locate(e)? {
                Err(why) => {
                    c.status = Status::Missing;
                    c.detail = Some(why);
                }
                Ok(m) => {
                    c.lines = Some(m.lines);
                    // The lines at the pinned commit are for comparing only: a file that
                    // cannot be read there leaves them unknown.
                    c.pinned_lines = baseline
                        .as_mut()
                        .and_then(|b| b.locate(e).ok()?.ok().map(|old| old.lines));
                    c.status = if m.fingerprint != e.fingerprint {
                        Status::Changed
                    } else if c.pinned_lines.is_some_and(|old| old != m.lines) {
                        Status::Moved
                    } else {
                        Status::Unchanged
                    };
                }
            },
            Some(Tree::Commit(files)) => match files.locate(e)? {
                Err(why) => {
                    c.status = Status::Missing;
                    c.detail = Some(format!(
                        "{why} at {}",
                        short(&manifest.sources[&e.source].commit)
                    ));
                }
                Ok(m) => {
                    c.lines = Some(m.lines);
                    c.pinned_lines = Some(m.lines);
                    c.status = if m.fingerprint == e.fingerprint {
                        Status::Unchanged
                    } else {
                        Status::Changed
                    };
                }
            },
        }
        citations.push(c);
    }
    Ok(CiteReport { sources, citations })
}

/// A commit shortened as the report prints it (12 hex digits).
fn short(commit: &str) -> &str {
    commit.get(..12).unwrap_or(commit)
}
