//! Where a trace step's Java method links to: the cited file at the pinned commit on
//! GitHub, with the method's line range (`#L<first>-L<last>`) when a checkout located it.
//! A historical source's citation (which `ozone-ha-check cite` checks at that source's
//! commit) links to its file at that source's own commit, never at the pin.
//!
//! Without a checkout ([`Links::files()`]) every link points to the file. With one
//! (`ozone_ha_check_cite::resolve_links`), each cited method is located by parsing the
//! checkout (the search `cite` runs), and a citation gets its lines only when both hold:
//!
//! - the lines read are lines of the commit the link names: for `ozone` and `ratis`, the
//!   checkout's `HEAD` is the pinned commit; for a historical source, the checkout's git
//!   history holds its commit (`HEAD` may be anywhere, the lines are read from git);
//! - the method is `unchanged` or `moved` against the manifest's fingerprint; its lines are
//!   those at the commit the link names (read from git), which is what the link shows.
//!
//! Otherwise the link stays the file's, and `resolve_links` returns one warning line per
//! source and checkout saying why. Nothing here is global: the table is passed to whatever
//! renders a link.
//!
//! ```
//! use ozone_ha_check::citation::Links;
//! let id = "OzoneManagerDoubleBuffer.flushTransactions";
//! let file = Links::files().url(id).unwrap();
//! assert!(file.starts_with("https://github.com/apache/ozone/blob/78d5650c313"));
//! assert!(file.ends_with("OzoneManagerDoubleBuffer.java"));
//! let lines = Links::with_lines([(id.to_string(), (10, 20))]);
//! assert_eq!(lines.url(id).unwrap(), format!("{file}#L10-L20"));
//! assert_eq!(lines.url("peer OM"), None, "a model step links nowhere");
//! ```

use super::Citation;
use std::collections::BTreeMap;

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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::citation::java;

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
}
