//! Rewriting the manifest from a clean checkout: every fingerprint and the pinned commit.

use super::check::{checkout, ordered, recognise, Files};
use super::manifest::is_historical;
use super::{git, CiteError, Source};
use std::fmt;
use std::path::Path;

/// What [`record`] changed in the manifest.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Recorded {
    /// `(source, old commit, new commit)` for each source recorded; a historical source's
    /// commit never moves (old and new are its commit).
    pub commits: Vec<(String, String, String)>,
    /// The ids whose fingerprint changed.
    pub fingerprints: Vec<String>,
    /// `(source, why)` for each historical source not recorded: no checkout of its
    /// repository given, or its commit is not in the checkout's history.
    pub skipped: Vec<(String, String)>,
    /// Citations of sources not recorded (no checkout given, or a historical source's
    /// commit not in it), left as they were.
    pub kept: usize,
}

impl fmt::Display for Recorded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (source, old, new) in &self.commits {
            if is_historical(source) {
                writeln!(f, "{source}: read at its own commit {new}")?;
            } else if old == new {
                writeln!(f, "{source}: still pinned at {new}")?;
            } else {
                writeln!(f, "{source}: pinned at {new} (was {old})")?;
            }
        }
        for (source, why) in &self.skipped {
            writeln!(f, "{source}: not recorded ({why})")?;
        }
        if self.fingerprints.is_empty() {
            writeln!(f, "no fingerprint changed")?;
        }
        for id in &self.fingerprints {
            writeln!(f, "new fingerprint: {id}")?;
        }
        if self.kept > 0 {
            writeln!(
                f,
                "{} citation(s) of sources not recorded kept as they were",
                self.kept
            )?;
        }
        Ok(())
    }
}

/// Record the manifest at `manifest_path` anew from `ozone_dir` (and `ratis_dir`, when
/// given): each source's commit becomes its checkout's `HEAD` and every fingerprint is
/// computed again; the manifest is written sorted, so the same content always gives the
/// same file. Refuses a checkout with uncommitted changes (`git status --porcelain`), and
/// writes nothing when a citation does not name exactly one method.
///
/// A historical source keeps its commit: its citations' fingerprints are computed from
/// the checkout's git history at that commit (so a citation added with a placeholder
/// fingerprint gets its own), and are kept as they are when the checkout of its
/// repository was not given or its history lacks the commit.
pub fn record(
    manifest_path: &Path,
    ozone_dir: &Path,
    ratis_dir: Option<&Path>,
) -> Result<Recorded, CiteError> {
    let mut manifest = super::load_manifest(Some(manifest_path))?;
    let mut dirs = vec![(Source::Ozone, ozone_dir)];
    if let Some(d) = ratis_dir {
        dirs.push((Source::Ratis, d));
    }
    let mut recorded = Recorded::default();
    let mut trees = Vec::new();
    for (source, dir) in &dirs {
        recognise(*source, dir)?;
        let git_err = |(command, reason): (String, String)| CiteError::Git {
            dir: dir.to_path_buf(),
            command,
            reason,
        };
        let status = git::run(dir, &["status", "--porcelain"]).map_err(git_err)?;
        if !status.trim().is_empty() {
            return Err(CiteError::Dirty {
                dir: dir.to_path_buf(),
                changes: status.lines().take(10).map(str::to_string).collect(),
            });
        }
        let head = git::run(dir, &["rev-parse", "HEAD"]).map_err(git_err)?;
        let head = head.trim().to_string();
        let pin = manifest
            .sources
            .entry(source.name().to_string())
            .or_insert_with(|| super::manifest::Pin {
                repository: source.repository().to_string(),
                commit: head.clone(),
                about: None,
            });
        recorded
            .commits
            .push((source.name().to_string(), pin.commit.clone(), head.clone()));
        pin.commit = head;
        trees.push((source.name().to_string(), Files::new(dir)));
    }
    for (name, pin) in ordered(&manifest) {
        if !is_historical(name) {
            continue;
        }
        let (repository, dir) = checkout(name, pin, Some(ozone_dir), ratis_dir);
        let Some(dir) = dir else {
            let why = format!("no --{repository} checkout given");
            recorded.skipped.push((name.clone(), why));
            continue;
        };
        match git::has_commit(dir, &pin.commit) {
            Ok(()) => {
                recorded
                    .commits
                    .push((name.clone(), pin.commit.clone(), pin.commit.clone()));
                trees.push((name.clone(), Files::at(dir, &pin.commit)));
            }
            Err(why) => recorded.skipped.push((
                name.clone(),
                format!(
                    "the --{repository} checkout lacks its commit: {}",
                    why.lines().next().unwrap_or("").trim()
                ),
            )),
        }
    }
    let mut unresolved = Vec::new();
    for (source, files) in &mut trees {
        let at = if is_historical(source) {
            format!(" at {}", &manifest.sources[source.as_str()].commit)
        } else {
            String::new()
        };
        for e in manifest
            .citations
            .iter_mut()
            .filter(|e| e.source == *source)
        {
            match files.locate(e)? {
                Ok(m) => {
                    if m.fingerprint != e.fingerprint {
                        recorded.fingerprints.push(e.id.clone());
                        e.fingerprint = m.fingerprint.clone();
                    }
                }
                Err(why) => unresolved.push(format!("{}: {why} ({}{at})", e.id, e.file)),
            }
        }
    }
    if !unresolved.is_empty() {
        return Err(CiteError::Unresolved {
            citations: unresolved,
        });
    }
    recorded.kept = manifest
        .citations
        .iter()
        .filter(|e| !trees.iter().any(|(s, _)| *s == e.source))
        .count();
    recorded.fingerprints.sort();
    let text = manifest
        .to_toml()
        .map_err(|reason| CiteError::ManifestUnreadable {
            path: manifest_path.to_path_buf(),
            reason,
        })?;
    std::fs::write(manifest_path, text).map_err(|source| CiteError::Io {
        path: manifest_path.to_path_buf(),
        source,
    })?;
    Ok(recorded)
}
