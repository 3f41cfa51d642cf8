//! Locating cited methods in a checkout, so a trace step's link carries the method's line
//! range ([`resolve_links`]); the link table itself is [`Links`], in the core.
//!
//! A citation gets its lines only when both hold:
//!
//! - the lines read are lines of the commit the link names: for `ozone` and `ratis`, the
//!   checkout's `HEAD` is the pinned commit; for a historical source, the checkout's git
//!   history holds its commit (`HEAD` may be anywhere, the lines are read from git);
//! - the method is `unchanged` or `moved` against the manifest's fingerprint; its lines are
//!   those at the commit the link names (read from git), which is what the link shows.

use crate::check::{check_trees, Status};
use crate::git;
use ozone_ha_check::citation::manifest::Manifest;
use ozone_ha_check::citation::{CiteError, Links};
use std::path::Path;

/// Locate `manifest`'s citations in the checkouts given (`--ozone`, `--ratis`) and keep
/// the lines that are safe to link to (see the module documentation). Returns the links
/// and one warning line for each checkout whose lines were not all used.
///
/// Errors: a directory that is not the source tree it is given as, or a cited file
/// that cannot be read ([`CiteError`]).
pub fn resolve_links(
    manifest: &Manifest,
    ozone: Option<&Path>,
    ratis: Option<&Path>,
) -> Result<(Links, Vec<String>), CiteError> {
    let mut located = Vec::new();
    let mut warnings = Vec::new();
    if ozone.is_none() && ratis.is_none() {
        return Ok((Links::files(), warnings));
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
                    located.push((c.id.clone(), lines));
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
    Ok((Links::with_lines(located), warnings))
}

/// A commit shortened as the report prints it (11 hex digits).
fn short(commit: &str) -> &str {
    &commit[..commit.len().min(11)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_checkout_no_lines_no_warning() {
        let m = ozone_ha_check::citation::load_manifest(None).unwrap();
        let (links, warnings) = resolve_links(&m, None, None).unwrap();
        assert_eq!(links, Links::files());
        assert!(warnings.is_empty());
    }

    #[test]
    fn a_directory_that_is_no_ozone_tree_is_an_error() {
        let m = ozone_ha_check::citation::load_manifest(None).unwrap();
        let dir = std::env::temp_dir();
        assert!(matches!(
            resolve_links(&m, Some(&dir), None),
            Err(CiteError::NotOzoneTree { .. })
        ));
        assert!(matches!(
            resolve_links(&m, None, Some(&dir)),
            Err(CiteError::NotRatisTree { .. })
        ));
    }
}
