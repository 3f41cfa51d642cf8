//! Which cited Ozone methods a change touches: `cite --ozone DIR --since REV`.
//!
//! A pull request's check: every `ozone` citation of the manifest is looked up at two
//! commits of the checkout's git history, `REV` (the pull request's base) and `HEAD` (its
//! head, as a CI job checks it out), and its fingerprint ([`crate::java`]) compared
//! between them. The manifest's own fingerprints do not matter here: a method that
//! already differs from the pinned commit at `REV` but is the same at `HEAD` was not
//! touched by the change.
//!
//! Both sides are read from git (`git cat-file blob REV:path`), never from the work tree,
//! so uncommitted edits are not seen (plain `cite` reads the work tree) and a bare git
//! directory works as well as a checkout. A shallow clone works when it holds both
//! commits (`git fetch --depth=1 origin REV`). Paths are relative to the repository's
//! root, which must be Ozone's: `HEAD` has the root `pom.xml` of `ozone-main` and the
//! `hadoop-ozone` and `hadoop-hdds` directories.
//!
//! A cited method is [`Change::Changed`] when its fingerprint differs, [`Change::Removed`]
//! when it is at `REV` but not found at `HEAD` (deleted, renamed, or a new overload makes
//! an unqualified citation ambiguous), [`Change::Added`] in the reverse case. A method
//! whose fingerprint is the same at both is not touched, whether or not it moved (moving,
//! reindenting and editing comments keep the fingerprint). Ratis citations and those of
//! historical sources (fixed commits) are outside a change to Ozone and not looked at.

use crate::check::{find, Found};
use crate::java::{self, JavaFile};
use ozone_ha_check::citation::manifest::{Entry, Manifest};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Why `--since` could not compare the two commits: bad input, never a finding.
#[derive(Debug)]
pub enum SinceError {
    /// `DIR` is not a git repository at all (or git does not run).
    NotGit {
        /// The directory given.
        dir: PathBuf,
        /// git's error, first line.
        reason: String,
    },
    /// The revision is not in `DIR`'s history (a shallow clone that has not fetched it,
    /// a typo, a branch of another remote).
    UnknownRevision {
        /// The directory given.
        dir: PathBuf,
        /// The revision as given.
        rev: String,
    },
    /// `HEAD` of `DIR` is not an Ozone source tree.
    NotOzoneTree {
        /// The directory given.
        dir: PathBuf,
    },
    /// A cited file exists at a commit but cannot be read or parsed.
    Unreadable {
        /// `COMMIT:path`.
        what: String,
        /// Why.
        reason: String,
    },
}

impl fmt::Display for SinceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SinceError::NotGit { dir, reason } => {
                write!(f, "`{}` is not a git repository ({reason})", dir.display())
            }
            SinceError::UnknownRevision { dir, rev } => write!(
                f,
                "the revision `{rev}` is not in the git history of `{}` (fetch it first, e.g. `git fetch --depth=1 origin {rev}`)",
                dir.display()
            ),
            SinceError::NotOzoneTree { dir } => write!(
                f,
                "`{}` is not an Ozone source tree at HEAD (expected a pom.xml of ozone-main and the hadoop-ozone and hadoop-hdds directories at the repository's root)",
                dir.display()
            ),
            SinceError::Unreadable { what, reason } => {
                write!(f, "cannot read `{what}`: {reason}")
            }
        }
    }
}

impl std::error::Error for SinceError {}

/// What a change did to one cited method.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Change {
    /// Found at both commits, with other tokens at `HEAD`.
    Changed,
    /// Found at `REV`, not at `HEAD`.
    Removed,
    /// Not found at `REV`, found at `HEAD`.
    Added,
}

impl Change {
    /// The word the reports print.
    pub fn word(self) -> &'static str {
        match self {
            Change::Changed => "changed",
            Change::Removed => "removed",
            Change::Added => "added",
        }
    }
}

/// One cited method the change touches.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Touched {
    /// The citation's id (the label traces print).
    pub id: String,
    /// Its file, relative to the repository's root.
    pub file: String,
    /// What the change did.
    pub change: Change,
    /// Its lines at the base commit, when found there.
    pub base_lines: Option<(usize, usize)>,
    /// Its lines at the head commit, when found there.
    pub head_lines: Option<(usize, usize)>,
    /// Why it was not found at one side.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// The cited methods a change touches, and what was compared.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SinceReport {
    /// The checkout given.
    pub dir: PathBuf,
    /// The revision as given.
    pub rev: String,
    /// The base commit it names (full id).
    pub base: String,
    /// The checkout's `HEAD` (full id).
    pub head: String,
    /// The repository the links point into (the manifest's `ozone` source).
    pub repository: String,
    /// The touched citations, in the manifest's order.
    pub touched: Vec<Touched>,
    /// Citations with the same fingerprint at both commits, at the same lines.
    pub unchanged: usize,
    /// Citations with the same fingerprint at both commits, at other lines.
    pub moved: usize,
    /// Citations found at neither commit.
    pub absent: usize,
}

impl SinceReport {
    /// Whether the change touches a cited method.
    pub fn touches(&self) -> bool {
        !self.touched.is_empty()
    }

    /// The file at `commit` on GitHub, with its lines as an anchor when known.
    pub fn url(&self, commit: &str, file: &str, lines: Option<(usize, usize)>) -> String {
        let base = format!("{}/blob/{commit}/{file}", self.repository);
        match lines {
            Some((a, b)) => format!("{base}#L{a}-L{b}"),
            None => base,
        }
    }
}

/// Run git in `dir`: its output, or git's error (first line).
fn git(dir: &Path, args: &[&str]) -> Result<String, String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .map_err(|e| format!("git does not run: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        let err = String::from_utf8_lossy(&out.stderr);
        Err(err.lines().next().unwrap_or("").trim().to_string())
    }
}

/// The full id of the commit `rev` names in `dir`, if it names one there.
fn commit_of(dir: &Path, rev: &str) -> Option<String> {
    // `--end-of-options` keeps a revision starting with `-` from being read as an option.
    git(
        dir,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            "--end-of-options",
            &format!("{rev}^{{commit}}"),
        ],
    )
    .ok()
    .map(|s| s.trim().to_string())
    .filter(|s| !s.is_empty())
}

/// The object type of `commit:path` (`blob`, `tree`), if there is one.
fn kind(dir: &Path, commit: &str, path: &str) -> Option<String> {
    git(dir, &["cat-file", "-t", &format!("{commit}:{path}")])
        .ok()
        .map(|s| s.trim().to_string())
}

/// A method found at one commit: its lines and fingerprint; or why it is not found.
type Located = Result<((usize, usize), String), String>;

/// The Java files of one commit, each parsed once.
struct AtCommit<'d> {
    dir: &'d Path,
    commit: String,
    parsed: BTreeMap<String, Option<JavaFile>>,
}

impl AtCommit<'_> {
    /// Where `entry` is at this commit: its lines and fingerprint, or why it is not found.
    fn locate(&mut self, entry: &Entry) -> Result<Located, SinceError> {
        if !self.parsed.contains_key(&entry.file) {
            let spec = format!("{}:{}", self.commit, entry.file);
            let parsed = match kind(self.dir, &self.commit, &entry.file).as_deref() {
                Some("blob") => {
                    let text = git(self.dir, &["cat-file", "blob", &spec]).map_err(|reason| {
                        SinceError::Unreadable {
                            what: spec.clone(),
                            reason,
                        }
                    })?;
                    Some(java::parse(&text).map_err(|reason| SinceError::Unreadable {
                        what: spec.clone(),
                        reason,
                    })?)
                }
                _ => None,
            };
            self.parsed.insert(entry.file.clone(), parsed);
        }
        Ok(match &self.parsed[&entry.file] {
            None => Err(format!("no file {}", entry.file)),
            Some(file) => match find(entry, file) {
                Found::One(m) => Ok((m.lines, m.fingerprint.clone())),
                Found::Not(why) => Err(why),
            },
        })
    }
}

/// Compare every `ozone` citation of `manifest` between the commit `rev` names and `HEAD`
/// in the git repository `dir` (see the module documentation).
pub fn since(manifest: &Manifest, dir: &Path, rev: &str) -> Result<SinceReport, SinceError> {
    git(dir, &["rev-parse", "--git-dir"]).map_err(|reason| SinceError::NotGit {
        dir: dir.to_path_buf(),
        reason,
    })?;
    let head = commit_of(dir, "HEAD").ok_or_else(|| SinceError::UnknownRevision {
        dir: dir.to_path_buf(),
        rev: "HEAD".to_string(),
    })?;
    let is_ozone = git(dir, &["cat-file", "blob", &format!("{head}:pom.xml")])
        .is_ok_and(|pom| pom.contains("<artifactId>ozone-main</artifactId>"))
        && ["hadoop-ozone", "hadoop-hdds"]
            .iter()
            .all(|d| kind(dir, &head, d).as_deref() == Some("tree"));
    if !is_ozone {
        return Err(SinceError::NotOzoneTree {
            dir: dir.to_path_buf(),
        });
    }
    let base = commit_of(dir, rev).ok_or_else(|| SinceError::UnknownRevision {
        dir: dir.to_path_buf(),
        rev: rev.to_string(),
    })?;
    let mut report = SinceReport {
        dir: dir.to_path_buf(),
        rev: rev.to_string(),
        base: base.clone(),
        head: head.clone(),
        repository: manifest.sources.get("ozone").map_or_else(
            || "https://github.com/apache/ozone".to_string(),
            |p| p.repository.clone(),
        ),
        touched: Vec::new(),
        unchanged: 0,
        moved: 0,
        absent: 0,
    };
    let at = |commit: &str| AtCommit {
        dir,
        commit: commit.to_string(),
        parsed: BTreeMap::new(),
    };
    let (mut old, mut new) = (at(&base), at(&head));
    for e in manifest.citations.iter().filter(|e| e.source == "ozone") {
        let touched = |change, base_lines, head_lines, detail| Touched {
            id: e.id.clone(),
            file: e.file.clone(),
            change,
            base_lines,
            head_lines,
            detail,
        };
        match (old.locate(e)?, new.locate(e)?) {
            (Ok((a, fa)), Ok((b, fb))) if fa == fb => {
                if a == b {
                    report.unchanged += 1;
                } else {
                    report.moved += 1;
                }
            }
            (Ok((a, _)), Ok((b, _))) => {
                report
                    .touched
                    .push(touched(Change::Changed, Some(a), Some(b), None));
            }
            (Ok((a, _)), Err(why)) => report.touched.push(touched(
                Change::Removed,
                Some(a),
                None,
                Some(format!("at HEAD: {why}")),
            )),
            (Err(why), Ok((b, _))) => report.touched.push(touched(
                Change::Added,
                None,
                Some(b),
                Some(format!("at the base: {why}")),
            )),
            (Err(_), Err(_)) => report.absent += 1,
        }
    }
    Ok(report)
}
