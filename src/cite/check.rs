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
//! | `not checked` | its source's checkout was not given |
//!
//! The manifest stores no line numbers. The lines at the pinned commit are read from the
//! checkout's own git history (`git show <commit>:<file>`) when the checkout is a git
//! repository that holds the pinned commit; otherwise a matching fingerprint is reported
//! `unchanged`, and [`SourceChecked::baseline`] says why the lines were not compared.

use super::java::{self, JavaFile, MethodDecl};
use super::manifest::{Entry, Manifest};
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
    /// Its source's checkout was not given.
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
    /// Its source.
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
    /// Its lines in the checkout, when the method was found.
    pub lines: Option<(usize, usize)>,
    /// Its lines at the pinned commit, when the checkout's git history has them.
    pub pinned_lines: Option<(usize, usize)>,
    /// Why it is missing or not checked.
    pub detail: Option<String>,
}

/// How one source was checked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SourceChecked {
    /// `ozone` or `ratis`.
    pub source: String,
    /// The pinned commit.
    pub pinned: String,
    /// The checkout, if one was given.
    pub dir: Option<PathBuf>,
    /// Whether the lines at the pinned commit could be read (`Ok`), or why not.
    pub baseline: Result<(), String>,
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

/// Parsed files, each read once.
pub(super) struct Files<'d> {
    dir: &'d Path,
    parsed: BTreeMap<String, Option<JavaFile>>,
}

impl<'d> Files<'d> {
    pub(super) fn new(dir: &'d Path) -> Self {
        Self {
            dir,
            parsed: BTreeMap::new(),
        }
    }

    /// The file, parsed; `None` when there is no such file.
    pub(super) fn get(&mut self, file: &str) -> Result<Option<&JavaFile>, CiteError> {
        if !self.parsed.contains_key(file) {
            let path = self.dir.join(file);
            let parsed = match std::fs::read_to_string(&path) {
                Ok(text) => Some(java::parse(&text).map_err(|reason| CiteError::Io {
                    path,
                    source: std::io::Error::other(reason),
                })?),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
                Err(e) => return Err(CiteError::Io { path, source: e }),
            };
            self.parsed.insert(file.to_string(), parsed);
        }
        Ok(self.parsed.get(file).and_then(Option::as_ref))
    }
}

/// The lines each cited method had at the pinned commit, read from git.
struct Baseline<'d> {
    dir: &'d Path,
    commit: String,
    parsed: BTreeMap<String, Option<JavaFile>>,
}

impl Baseline<'_> {
    fn lines(&mut self, entry: &Entry) -> Option<(usize, usize)> {
        let (dir, commit) = (self.dir, &self.commit);
        let file = self
            .parsed
            .entry(entry.file.clone())
            .or_insert_with(|| {
                git::show(dir, commit, &entry.file).and_then(|text| java::parse(&text).ok())
            })
            .as_ref()?;
        match find(entry, file) {
            Found::One(m) => Some(m.lines),
            Found::Not(_) => None,
        }
    }
}

/// Check every citation of `manifest`: Ozone ones in `ozone_dir`, Ratis ones in `ratis_dir`
/// when given (else `not checked`).
///
/// Errors: a directory that is not the expected source tree, or a cited file that exists
/// but cannot be read. A missing file, class or method is a status, not an error.
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
/// ([`super::Links::resolve`]).
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
    let mut trees: BTreeMap<String, (Files<'_>, Option<Baseline<'_>>)> = BTreeMap::new();
    for (name, pin) in &manifest.sources {
        let dir = match name.as_str() {
            "ozone" => ozone_dir,
            "ratis" => ratis_dir,
            _ => None,
        };
        let baseline = match dir {
            None => Err("no checkout given".to_string()),
            Some(d) => git::has_commit(d, &pin.commit),
        };
        sources.push(SourceChecked {
            source: name.clone(),
            pinned: pin.commit.clone(),
            dir: dir.map(Path::to_path_buf),
            baseline: baseline.clone(),
        });
        if let Some(d) = dir {
            let base = baseline.ok().map(|()| Baseline {
                dir: d,
                commit: pin.commit.clone(),
                parsed: BTreeMap::new(),
            });
            trees.insert(name.clone(), (Files::new(d), base));
        }
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
        let Some((files, baseline)) = trees.get_mut(&e.source) else {
            c.detail = Some(format!("no --{} checkout given", e.source));
            citations.push(c);
            continue;
        };
        let Some(file) = files.get(&e.file)? else {
            c.status = Status::Missing;
            c.detail = Some("file not found".into());
            citations.push(c);
            continue;
        };
        match find(e, file) {
            Found::Not(why) => {
                c.status = Status::Missing;
                c.detail = Some(why);
            }
            Found::One(m) => {
                c.lines = Some(m.lines);
                c.pinned_lines = baseline.as_mut().and_then(|b| b.lines(e));
                c.status = if m.fingerprint != e.fingerprint {
                    Status::Changed
                } else if c.pinned_lines.is_some_and(|old| old != m.lines) {
                    Status::Moved
                } else {
                    Status::Unchanged
                };
            }
        }
        citations.push(c);
    }
    Ok(CiteReport { sources, citations })
}
