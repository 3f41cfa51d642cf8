//! Where a trace step's Java method links to: the cited file at the pinned commit on
//! GitHub, with the method's line range (`#L<first>-L<last>`) when a checkout located it.
//! A historical source's citation (see [`check`](mod@super::check)) links to its file at that
//! source's own commit, never at the pin.
//!
//! Without a checkout ([`Links::files()`]) every link points to the file. With one
//! ([`Links::resolve`]), each cited method is located by parsing the checkout
//! ([`super::check::check_trees`], the search `cite` runs), and a citation gets its lines
//! only when both hold:
//!
//! - the lines read are lines of the commit the link names: for `ozone` and `ratis`, the
//!   checkout's `HEAD` is the pinned commit; for a historical source, the checkout's git
//!   history holds its commit (`HEAD` may be anywhere, the lines are read from git);
//! - the method is `unchanged` or `moved` against the manifest's fingerprint; its lines are
//!   those at the commit the link names (read from git), which is what the link shows.
//!
//! Otherwise the link stays the file's, and [`Links::resolve`] returns one warning line per
//! source and checkout saying why. Nothing here is global: the table is passed to whatever
//! renders a link.
//!
//! ```
//! use ozone_ha_check::cite::Links;
//! let id = "OzoneManagerDoubleBuffer.flushTransactions";
//! let file = Links::files().url(id).unwrap();
//! assert!(file.starts_with("https://github.com/apache/ozone/blob/78d5650c313"));
//! assert!(file.ends_with("OzoneManagerDoubleBuffer.java"));
//! let lines = Links::with_lines([(id.to_string(), (10, 20))]);
//! assert_eq!(lines.url(id).unwrap(), format!("{file}#L10-L20"));
//! assert_eq!(lines.url("peer OM"), None, "a model step links nowhere");
//! ```

use super::check::{check_trees, Status};
use super::manifest::Manifest;
use super::{git, Citation, CiteError};
use std::collections::BTreeMap;
use std::path::Path;

/// The line range of each located citation, by id; a citation without one links to its
/// file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Links {
    lines: BTreeMap<String, (usize, usize)>,
}

/// The links of a run without checkouts: every one to its file.
static FILES: Links = Links::files();

impl Links {
    /// Links to files only, no line ranges.
    pub const fn files() -> Links {
        Links {
            lines: BTreeMap::new(),
        }
    }

    /// [`Links::files()`], borrowed for as long as needed.
    pub fn files_ref() -> &'static Links {
        &FILES
    }

    /// Links with these line ranges (first, last), by citation id.
    pub fn with_lines(lines: impl IntoIterator<Item = (String, (usize, usize))>) -> Links {
        Links {
            lines: lines.into_iter().collect(),
        }
    }

    /// The line range of the citation `id`, if located.
    pub fn lines(&self, id: &str) -> Option<(usize, usize)> {
        self.lines.get(id).copied()
    }

    /// How many citations have a line range.
    pub fn located(&self) -> usize {
        self.lines.len()
    }

    /// The link of a citation: its file at the commit its source pins (a historical
    /// source's own), with its lines if located.
    pub fn citation_url(&self, c: &Citation) -> String {
        c.pinned_url(self.lines(c.id))
    }

    /// The link of a trace step's label (`Event::java`): `None` for a model step, whose
    /// label is no citation of this build.
    pub fn url(&self, java: &str) -> Option<String> {
        super::find(java).map(|c| self.citation_url(c))
    }

    /// Locate `manifest`'s citations in the checkouts given (`--ozone`, `--ratis`) and keep
    /// the lines that are safe to link to (see the module documentation). Returns the links
    /// and one warning line for each checkout whose lines were not all used.
    ///
    /// Errors: a directory that is not the source tree it is given as, or a cited file
    /// that cannot be read ([`CiteError`]).
    pub fn resolve(
        manifest: &Manifest,
        ozone: Option<&Path>,
        ratis: Option<&Path>,
    ) -> Result<(Links, Vec<String>), CiteError> {
        let mut links = Links::files();
        let mut warnings = Vec::new();
        if ozone.is_none() && ratis.is_none() {
            return Ok((links, warnings));
        }
        let report = check_trees(manifest, ozone, ratis)?;
        for source in &report.sources {
            let Some(dir) = &source.dir else { continue };
            let shown = dir.display();
            let name = &source.source;
            let pinned = short(&source.pinned);
            if source.is_historical() {
                if let Err(why) = &source.baseline {
                    // A directory with no git at all was already named once, by the warning
                    // of the source pinned in it; one line per checkout, not per commit.
                    if git::head(dir).is_err() {
                        continue;
                    }
                    warnings.push(format!(
                        "warning: `{shown}` does not hold the commit {pinned} of {name} ({}): links to its Java methods point to their files, without line ranges",
                        why.lines().next().unwrap_or("").trim()
                    ));
                    continue;
                }
            } else {
                match git::head(dir) {
                    Ok(head) if head == source.pinned => {}
                    Ok(head) => {
                        warnings.push(format!(
                            "warning: `{shown}` is at {}, not the pinned {name} commit {pinned}: links to its Java methods point to their files, without line ranges",
                            short(&head)
                        ));
                        continue;
                    }
                    Err(why) => {
                        warnings.push(format!(
                            "warning: `{shown}` is not a git checkout of the pinned {name} commit {pinned} ({}): links to its Java methods point to their files, without line ranges",
                            why.lines().next().unwrap_or("").trim()
                        ));
                        continue;
                    }
                }
            }
            let mut unlocated = Vec::new();
            for c in report.citations.iter().filter(|c| &c.source == name) {
                match (c.status, c.pinned_lines) {
                    (Status::Unchanged | Status::Moved, Some(lines)) => {
                        links.lines.insert(c.id.clone(), lines);
                    }
                    (status, _) => unlocated.push(format!("{} {}", c.id, status.word())),
                }
            }
            if !unlocated.is_empty() {
                let n = unlocated.len();
                let more = if n > 3 {
                    format!(", and {} more", n - 3)
                } else {
                    String::new()
                };
                unlocated.truncate(3);
                let at = if source.is_historical() {
                    format!(" at {pinned}")
                } else {
                    String::new()
                };
                warnings.push(format!(
                    "warning: {n} cited {name} method(s) are not as the manifest records them in `{shown}`{at} ({}{more}): their links point to their files, without line ranges",
                    unlocated.join(", ")
                ));
            }
        }
        Ok((links, warnings))
    }
}

/// A commit shortened as the report prints it (11 hex digits).
fn short(commit: &str) -> &str {
    &commit[..commit.len().min(11)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cite::java;

    #[test]
    fn lines_are_an_anchor_on_the_pinned_file() {
        let c = &java::OzoneManagerDoubleBuffer::flushTransactions;
        let links = Links::with_lines([(c.id.to_string(), (118, 140))]);
        let url = links.citation_url(c);
        assert_eq!(
            url,
            format!(
                "https://github.com/apache/ozone/blob/{}/{}#L118-L140",
                c.pinned_commit(),
                c.file
            )
        );
        assert_eq!(links.url(c.id).as_deref(), Some(url.as_str()));
        // Another citation of the same table has no lines: its file.
        let other = java::ALL.iter().find(|o| o.id != c.id).unwrap();
        assert_eq!(links.citation_url(other), other.pinned_url(None));
        assert!(Links::files_ref().url(c.id).unwrap().ends_with(".java"));
        assert_eq!(Links::files_ref().url("peer OM"), None);
    }

    #[test]
    fn no_checkout_no_lines_no_warning() {
        let m = crate::cite::load_manifest(None).unwrap();
        let (links, warnings) = Links::resolve(&m, None, None).unwrap();
        assert_eq!(links, Links::files());
        assert!(warnings.is_empty());
    }

    #[test]
    fn a_directory_that_is_no_ozone_tree_is_an_error() {
        let m = crate::cite::load_manifest(None).unwrap();
        let dir = std::env::temp_dir();
        assert!(matches!(
            Links::resolve(&m, Some(&dir), None),
            Err(CiteError::NotOzoneTree { .. })
        ));
        assert!(matches!(
            Links::resolve(&m, None, Some(&dir)),
            Err(CiteError::NotRatisTree { .. })
        ));
    }
}
