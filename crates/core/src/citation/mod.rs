//! Citations of Java methods, as data: the low-level module every model, trace and report
//! names a Java method through.
//!
//! The manifest `citations.toml` ([`manifest`]) pins the Ozone commit (and the Ratis one)
//! the models were written from and lists every Java method they cite, by file, class,
//! method and fingerprint. The build turns it into one constant per citation,
//! `citation::java::Class::method` (a [`Citation`]), so a model that names a method the
//! manifest lacks does not compile; trace steps carry a [`Label`]. [`Links`] is where a
//! trace step's method links to (the pinned file, with the method's lines when a checkout at
//! the pinned commit located it).
//!
//! Checking the citations against a checkout (parsing Java), recording fingerprints and
//! locating line ranges are the citation tool's work, in the crate `ozone-ha-check-cite`,
//! which sits above the scenarios; nothing here parses Java.
//!
//! A model of a bug stands for the Java as it was just before its fix, and at the fix,
//! which the pin has usually left behind. Those citations belong to a historical source: a
//! `[sources.NAME]` of the Ozone or Ratis repository pinned at its own commit, with an
//! `about` line saying which (`HDDS-11152's fix's parent`). Their ids end in `@NAME`, their
//! constants live in `citation::java::NAME` (dashes as underscores), and [`Citation::pin`]
//! names the source, so [`Citation::pinned_url`] links to that commit.
//!
//! ```
//! use ozone_ha_check::citation::{java, Label};
//! let c = &java::OzoneManagerDoubleBuffer::flushTransactions;
//! assert_eq!(c.label(), "OzoneManagerDoubleBuffer.flushTransactions");
//! assert!(c.url("abc", Some((10, 20))).ends_with("OzoneManagerDoubleBuffer.java#L10-L20"));
//! assert_eq!(Label::Java(c).text(), c.id);
//! assert_eq!(Label::model("peer OM").text(), "peer OM");
//! ```

pub mod java;
pub mod links;
pub mod manifest;

pub use links::Links;

use std::fmt;
use std::path::PathBuf;

/// The manifest this build was made from (`citations.toml` at the repository root).
pub const MANIFEST: &str = include_str!("../../../../citations.toml");

/// Where a cited method lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Source {
    /// apache/ozone.
    Ozone,
    /// apache/ratis.
    Ratis,
}

impl Source {
    /// The name the manifest uses: `ozone` or `ratis`.
    pub const fn name(self) -> &'static str {
        match self {
            Source::Ozone => "ozone",
            Source::Ratis => "ratis",
        }
    }

    /// The source called `name` in the manifest.
    pub fn from_name(name: &str) -> Option<Source> {
        [Source::Ozone, Source::Ratis]
            .into_iter()
            .find(|s| s.name() == name)
    }

    /// The repository's address.
    pub fn repository(self) -> &'static str {
        manifest::KNOWN_SOURCES
            .iter()
            .find(|(n, _)| *n == self.name())
            .map_or("", |(_, r)| r)
    }

    /// The commit this build's manifest pins for the source (empty if it pins none).
    pub fn pinned_commit(self) -> &'static str {
        java::PINNED
            .iter()
            .find(|(n, _)| *n == self.name())
            .map_or("", |(_, c)| c)
    }
}

/// One cited Java method, as the build generated it from the manifest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Citation {
    /// `Class.method`, with `(T1,T2)` for an overload: the label traces print.
    pub id: &'static str,
    /// The repository.
    pub source: Source,
    /// The manifest's source it was read at: `ozone`, `ratis`, or a historical source.
    pub pin: &'static str,
    /// The Java file, relative to the repository's root.
    pub file: &'static str,
    /// The declaring class, nested ones as `Outer.Inner`.
    pub class: &'static str,
    /// The method; a constructor's is its class's simple name.
    pub method: &'static str,
    /// The parameter types as written, for an overloaded method only.
    pub params: Option<&'static [&'static str]>,
}

impl Citation {
    /// The label a trace step prints: the id.
    pub const fn label(&self) -> &'static str {
        self.id
    }

    /// The file at `commit` on GitHub, with `lines` (first, last) as an anchor when given.
    pub fn url(&self, commit: &str, lines: Option<(usize, usize)>) -> String {
        let base = format!("{}/blob/{commit}/{}", self.source.repository(), self.file);
        match lines {
            Some((a, b)) => format!("{base}#L{a}-L{b}"),
            None => base,
        }
    }

    /// The commit the manifest pins for this citation's source.
    pub fn pinned_commit(&self) -> &'static str {
        java::PINNED
            .iter()
            .find(|(n, _)| *n == self.pin)
            .map_or("", |(_, c)| c)
    }

    /// The file at the commit this build's manifest pins.
    pub fn pinned_url(&self, lines: Option<(usize, usize)>) -> String {
        self.url(self.pinned_commit(), lines)
    }
}

impl fmt::Display for Citation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id)
    }
}

/// What a trace step stands for: a cited Java method, or a step of the model that stands
/// for no one Java method (a peer replica, an abstraction, a final observation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Label {
    /// A cited method.
    Java(&'static Citation),
    /// A model step; its text never looks like `Class.method` (see [`Label::model`]).
    Model(&'static str),
}

impl Label {
    /// A model step's label. Panics (at compile time in a `const`) when `text` looks like
    /// a Java method, `Class.method` or `Class::method`: those must be citations.
    ///
    /// ```
    /// use ozone_ha_check::citation::Label;
    /// const PEER: Label = Label::model("peer OM");
    /// assert_eq!(PEER.text(), "peer OM");
    /// ```
    ///
    /// ```compile_fail,E0080
    /// use ozone_ha_check::citation::Label;
    /// const BAD: Label = Label::model("RDBStore.flushDB");
    /// ```
    pub const fn model(text: &'static str) -> Label {
        assert!(
            !looks_like_java(text),
            "a model label must not look like Class.method: cite the method instead"
        );
        Label::Model(text)
    }

    /// The text a trace prints.
    pub const fn text(&self) -> &'static str {
        match self {
            Label::Java(c) => c.id,
            Label::Model(t) => t,
        }
    }

    /// The citation, for a Java step.
    pub const fn citation(&self) -> Option<&'static Citation> {
        match self {
            Label::Java(c) => Some(c),
            Label::Model(_) => None,
        }
    }
}

impl From<&'static Citation> for Label {
    fn from(c: &'static Citation) -> Self {
        Label::Java(c)
    }
}

impl fmt::Display for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.text())
    }
}

/// Whether `text` contains something shaped like a Java method reference: an identifier
/// starting with an upper-case letter, then `.` or `::`, then an identifier.
///
/// ```
/// use ozone_ha_check::citation::looks_like_java;
/// assert!(looks_like_java("RDBStore.flushDB"));
/// assert!(looks_like_java("after Table::put"));
/// assert!(!looks_like_java("peer OM"));
/// assert!(!looks_like_java("final state. done"));
/// ```
pub const fn looks_like_java(text: &str) -> bool {
    const fn ident(b: u8) -> bool {
        b.is_ascii_alphanumeric() || b == b'_' || b == b'$'
    }
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        // The start of a word.
        if b[i].is_ascii_uppercase() && (i == 0 || !ident(b[i - 1])) {
            let mut j = i;
            while j < b.len() && ident(b[j]) {
                j += 1;
            }
            let sep = if j + 1 < b.len() && b[j] == b':' && b[j + 1] == b':' {
                2
            } else if j < b.len() && b[j] == b'.' {
                1
            } else {
                0
            };
            if sep > 0 && j + sep < b.len() && ident(b[j + sep]) {
                return true;
            }
            i = j;
        } else {
            i += 1;
        }
    }
    false
}

/// Why citations could not be checked or recorded.
#[derive(Debug)]
pub enum CiteError {
    /// The directory is not an Ozone source tree (a root `pom.xml` of `ozone-main` and the
    /// `hadoop-ozone` and `hadoop-hdds` directories).
    NotOzoneTree {
        /// The directory given.
        path: PathBuf,
    },
    /// The directory is not a Ratis source tree (a root `pom.xml` of `ratis` and the
    /// `ratis-server` directory).
    NotRatisTree {
        /// The directory given.
        path: PathBuf,
    },
    /// The manifest cannot be read or is not valid.
    ManifestUnreadable {
        /// The manifest's path (`(built in)` for the embedded one).
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A git command failed where one is needed (`--record`).
    Git {
        /// The directory it ran in.
        dir: PathBuf,
        /// The command.
        command: String,
        /// Its error.
        reason: String,
    },
    /// A file could not be read or written.
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// `--record` refuses a checkout with uncommitted changes: the fingerprints would not
    /// belong to the commit it pins.
    Dirty {
        /// The checkout.
        dir: PathBuf,
        /// The first lines of `git status --porcelain`.
        changes: Vec<String>,
    },
    /// `--record` found no single method for these citations; nothing was written.
    Unresolved {
        /// `id: why` for each.
        citations: Vec<String>,
    },
}

impl fmt::Display for CiteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CiteError::NotOzoneTree { path } => write!(
                f,
                "`{}` is not an Ozone source tree (expected a pom.xml of ozone-main and the hadoop-ozone and hadoop-hdds directories)",
                path.display()
            ),
            CiteError::NotRatisTree { path } => write!(
                f,
                "`{}` is not a Ratis source tree (expected a pom.xml of ratis and the ratis-server directory)",
                path.display()
            ),
            CiteError::ManifestUnreadable { path, reason } => {
                write!(f, "cannot read the manifest `{}`: {reason}", path.display())
            }
            CiteError::Git {
                dir,
                command,
                reason,
            } => write!(f, "`{command}` failed in `{}`: {reason}", dir.display()),
            CiteError::Io { path, source } => write!(f, "`{}`: {source}", path.display()),
            CiteError::Dirty { dir, changes } => write!(
                f,
                "`{}` has uncommitted changes; commit or stash them before recording:\n  {}",
                dir.display(),
                changes.join("\n  ")
            ),
            CiteError::Unresolved { citations } => write!(
                f,
                "no single method found for {} citation(s); fix them in the manifest first:\n  {}",
                citations.len(),
                citations.join("\n  ")
            ),
        }
    }
}

impl std::error::Error for CiteError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CiteError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// The citation whose id (the label a trace step prints) is `id`; `None` for a model
/// step's label or an id this build does not know.
///
/// ```
/// use ozone_ha_check::citation::{find, java};
/// let c = find("OzoneManagerDoubleBuffer.flushTransactions").unwrap();
/// assert_eq!(c, &java::OzoneManagerDoubleBuffer::flushTransactions);
/// assert!(find("peer OM").is_none());
/// ```
pub fn find(id: &str) -> Option<&'static Citation> {
    java::ALL.iter().copied().find(|c| c.id == id)
}

/// Read the manifest at `path`, or the one built in when `path` is `None`.
pub fn load_manifest(path: Option<&std::path::Path>) -> Result<manifest::Manifest, CiteError> {
    let (text, shown) = match path {
        None => (MANIFEST.to_string(), PathBuf::from("(built in)")),
        Some(p) => (
            std::fs::read_to_string(p).map_err(|e| CiteError::ManifestUnreadable {
                path: p.to_path_buf(),
                reason: e.to_string(),
            })?,
            p.to_path_buf(),
        ),
    };
    manifest::Manifest::parse(&text).map_err(|reason| CiteError::ManifestUnreadable {
        path: shown,
        reason,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_generated_constant_is_in_the_manifest() {
        let m = manifest::Manifest::parse(MANIFEST).unwrap();
        assert_eq!(java::ALL.len(), m.citations.len());
        for c in java::ALL {
            let e = m.citations.iter().find(|e| e.id == c.id).unwrap();
            assert_eq!(e.source, c.pin);
            assert_eq!(
                (e.file.as_str(), e.class.as_str(), e.method.as_str()),
                (c.file, c.class, c.method)
            );
            assert_eq!(
                e.params
                    .as_deref()
                    .map(|p| p.iter().map(String::as_str).collect::<Vec<_>>()),
                c.params.map(<[&str]>::to_vec)
            );
        }
    }

    #[test]
    fn no_citation_id_reads_as_a_model_label() {
        for c in java::ALL {
            assert!(looks_like_java(c.id), "{}", c.id);
        }
    }
}
