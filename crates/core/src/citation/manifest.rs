//! The manifest `citations.toml`: the commits the models were written from, and every Java
//! method they cite (ids, names and fingerprints; never Java text, never line numbers).
//!
//! ```toml
//! [sources.ozone]
//! repository = "https://github.com/apache/ozone"
//! commit = "78d5650c313f2fa0731bdf08b76d4604090dabca"
//!
//! [[citation]]
//! id = "OzoneManagerDoubleBuffer.flushTransactions"
//! file = "hadoop-ozone/ozone-manager/src/main/java/org/apache/hadoop/ozone/om/ratis/OzoneManagerDoubleBuffer.java"
//! class = "OzoneManagerDoubleBuffer"
//! method = "flushTransactions"
//! fingerprint = "…64 hex digits…"
//! ```
//!
//! A citation's `source` is `ozone` unless it says `source = "ratis"`, or names a historical
//! source: a `[sources.NAME]` of the same repositories pinned at an older commit, with an
//! `about` line saying which (the parent of a bug's fix, or the fix). A historical source's
//! citations are read at its own commit, and their ids end in `@NAME`, so the same method
//! cited at two commits has two ids (`OMKeyPurgeResponse.addToDBBatch@hdds-11152-parent`). `class` names nested
//! classes as `Outer.Inner`; a constructor's `method` is its class's simple name; `params`
//! (parameter types as written) is given only where the method is overloaded, and then the
//! id carries them: `Class.method(T1,T2)`. The id is always `class.method` plus that.
//!
//! This file is also compiled into the build script, which turns the manifest into the
//! constants of `citation::java`: it uses nothing but `serde`, `toml` and `std`.
//!
//! ```
//! use ozone_ha_check::citation::manifest::Manifest;
//! let m = Manifest::parse(ozone_ha_check::citation::MANIFEST).unwrap();
//! assert_eq!(m.sources["ozone"].commit.len(), 40);
//! assert_eq!(Manifest::parse(&m.to_toml().unwrap()).unwrap().citations.len(), m.citations.len());
//! ```

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// The sources a citation can name, with their repositories.
pub const KNOWN_SOURCES: &[(&str, &str)] = &[
    ("ozone", "https://github.com/apache/ozone"),
    ("ratis", "https://github.com/apache/ratis"),
];

/// The whole manifest.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// The pinned commit of each source, by source name (`ozone`, `ratis`).
    pub sources: BTreeMap<String, Pin>,
    /// Every citation.
    #[serde(rename = "citation", default)]
    pub citations: Vec<Entry>,
}

/// Where a source's citations were read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pin {
    /// The repository's address.
    pub repository: String,
    /// The full commit id the fingerprints were recorded at.
    pub commit: String,
    /// For a historical source: which commit this is (required there, absent elsewhere).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub about: Option<String>,
}

impl Pin {
    /// The repository's own source name (`ozone` or `ratis`), whatever this pin is called.
    pub fn repository_name(&self) -> Option<&'static str> {
        KNOWN_SOURCES
            .iter()
            .find(|(_, r)| *r == self.repository)
            .map(|(n, _)| *n)
    }
}

/// Whether `name` is a historical source's name rather than `ozone` or `ratis`.
pub fn is_historical(name: &str) -> bool {
    !KNOWN_SOURCES.iter().any(|(n, _)| *n == name)
}

/// One cited method.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// `class.method`, with `(T1,T2)` appended for an overload; the label traces print.
    pub id: String,
    /// The source (`ozone` unless given).
    #[serde(default = "ozone", skip_serializing_if = "is_ozone")]
    pub source: String,
    /// The Java file, relative to the repository's root.
    pub file: String,
    /// The declaring class, nested ones as `Outer.Inner`.
    pub class: String,
    /// The method's name; a constructor's is its class's simple name.
    pub method: String,
    /// The parameter types as written, for an overloaded method only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<Vec<String>>,
    /// Hex SHA-256 of the declaration's tokens at the pinned commit.
    pub fingerprint: String,
}

fn pin_repository(name: &str) -> &'static str {
    KNOWN_SOURCES
        .iter()
        .find(|(n, _)| *n == name)
        .map_or("", |(_, r)| r)
}

fn ozone() -> String {
    "ozone".to_string()
}

fn is_ozone(source: &str) -> bool {
    source == "ozone"
}

/// The comment the manifest is written with.
const HEADER: &str = "\
# Every Java method the models cite, checked against a source checkout by
# `ozone-ha-check cite --ozone DIR [--ratis DIR]` and rewritten by `--record`.
# Ids, names and fingerprints only: no Java text, no line numbers.
# The id is `class.method`, with `(T1,T2)` appended where the method is overloaded.
# The fingerprint is the SHA-256 of the declaration's tokens, comments left out.

";

impl Entry {
    /// The id this entry's names call for: `class.method`, plus `(T1,T2)` when `params`
    /// is given, plus `@source` for a historical source.
    pub fn expected_id(&self) -> String {
        let id = expected_id(&self.class, &self.method, self.params.as_deref());
        if is_historical(&self.source) {
            format!("{id}@{}", self.source)
        } else {
            id
        }
    }
}

/// `class.method`, plus `(T1,T2)` when `params` is given.
pub fn expected_id(class: &str, method: &str, params: Option<&[String]>) -> String {
    match params {
        None => format!("{class}.{method}"),
        Some(p) => format!("{class}.{method}({})", p.join(",")),
    }
}

fn is_hex(s: &str, len: usize) -> bool {
    s.len() == len
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_alphanumeric() || c == '_' || c == '$')
}

impl Manifest {
    /// Parse and validate a manifest: known sources with full commit ids, ids that match
    /// their names, no id twice, relative `.java` paths, 64-digit fingerprints.
    pub fn parse(text: &str) -> Result<Manifest, String> {
        let m: Manifest = toml::from_str(text).map_err(|e| e.to_string())?;
        m.validate()?;
        Ok(m)
    }

    /// Check what [`Manifest::parse`] promises.
    pub fn validate(&self) -> Result<(), String> {
        if !self.sources.contains_key("ozone") {
            return Err("no [sources.ozone]".into());
        }
        for (name, pin) in &self.sources {
            if is_historical(name) {
                let well_formed = name
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
                    && name.starts_with(|c: char| c.is_ascii_lowercase());
                if !well_formed {
                    return Err(format!(
                        "source `{name}`: a historical source's name is lower-case letters, digits and `-`, starting with a letter"
                    ));
                }
                if pin.repository_name().is_none() {
                    return Err(format!(
                        "source `{name}`: repository `{}` is neither {}",
                        pin.repository,
                        KNOWN_SOURCES
                            .iter()
                            .map(|(_, r)| *r)
                            .collect::<Vec<_>>()
                            .join(" nor ")
                    ));
                }
                if pin.about.as_deref().is_none_or(|a| a.trim().is_empty()) {
                    return Err(format!(
                        "source `{name}`: a historical source says what its commit is (`about`)"
                    ));
                }
            } else {
                let repo = pin_repository(name);
                if pin.repository != repo {
                    return Err(format!(
                        "source `{name}`: repository `{}`, expected `{repo}`",
                        pin.repository
                    ));
                }
            }
            if !is_hex(&pin.commit, 40) {
                return Err(format!(
                    "source `{name}`: commit `{}` is not a full 40-digit commit id",
                    pin.commit
                ));
            }
        }
        let mut seen = BTreeSet::new();
        for e in &self.citations {
            let at = |what: String| format!("citation `{}`: {what}", e.id);
            if !self.sources.contains_key(&e.source) {
                return Err(at(format!(
                    "source `{}` has no [sources.{}]",
                    e.source, e.source
                )));
            }
            if e.id != e.expected_id() {
                return Err(at(format!("the id should be `{}`", e.expected_id())));
            }
            if !seen.insert(e.id.as_str()) {
                return Err(at("cited twice".into()));
            }
            if !e.class.split('.').all(is_ident) || !is_ident(&e.method) {
                return Err(at("class and method must be Java identifiers".into()));
            }
            if e.file.starts_with('/')
                || e.file.split('/').any(|p| p == ".." || p.is_empty())
                || !e.file.ends_with(".java")
            {
                return Err(at(format!(
                    "`{}` is not a relative path to a .java file",
                    e.file
                )));
            }
            if !is_hex(&e.fingerprint, 64) {
                return Err(at("the fingerprint is not 64 lower-case hex digits".into()));
            }
        }
        Ok(())
    }

    /// The manifest as TOML, citations sorted by source then id: the same manifest always
    /// gives the same text.
    pub fn to_toml(&self) -> Result<String, String> {
        let mut sorted = self.clone();
        sorted
            .citations
            .sort_by(|a, b| (&a.source, &a.id).cmp(&(&b.source, &b.id)));
        let body = toml::to_string(&sorted).map_err(|e| e.to_string())?;
        Ok(format!("{HEADER}{body}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OZONE: &str = "[sources.ozone]\nrepository = \"https://github.com/apache/ozone\"\ncommit = \"1111111111111111111111111111111111111111\"\n";

    /// A manifest with the `ozone` pin, a historical source `name` (its `[sources]` body
    /// given) and one citation of it with `id`.
    fn with_historical(name: &str, body: &str, id: &str) -> Result<Manifest, String> {
        Manifest::parse(&format!(
            "{OZONE}\n[sources.\"{name}\"]\n{body}\n[[citation]]\nid = \"{id}\"\nsource = \"{name}\"\nfile = \"a/B.java\"\nclass = \"B\"\nmethod = \"run\"\nfingerprint = \"{}\"\n",
            "0".repeat(64)
        ))
    }

    const BODY: &str = "repository = \"https://github.com/apache/ozone\"\ncommit = \"2222222222222222222222222222222222222222\"\nabout = \"HDDS-1's fix's parent\"\n";

    #[test]
    fn a_historical_source_is_accepted() {
        let m = with_historical("hdds-1-parent", BODY, "B.run@hdds-1-parent").unwrap();
        let pin = &m.sources["hdds-1-parent"];
        assert_eq!(pin.repository_name(), Some("ozone"));
        assert_eq!(pin.about.as_deref(), Some("HDDS-1's fix's parent"));
        assert!(is_historical("hdds-1-parent") && !is_historical("ratis"));
        // `about` is written back, and only for the historical source.
        let text = m.to_toml().unwrap();
        assert_eq!(text.matches("about = ").count(), 1, "{text}");
        assert_eq!(Manifest::parse(&text).unwrap(), m);
        let ratis = BODY.replace("apache/ozone", "apache/ratis");
        let m = with_historical("r2", &ratis, "B.run@r2").unwrap();
        assert_eq!(m.sources["r2"].repository_name(), Some("ratis"));
    }

    #[test]
    fn a_historical_source_name_is_lower_case_letters_digits_and_dashes() {
        for bad in ["Hdds-1", "hdds_1", "1-parent", "-parent", "a.b", "a b", ""] {
            let id = format!("B.run@{bad}");
            let err = with_historical(bad, BODY, &id).unwrap_err();
            assert!(err.contains("lower-case letters"), "{bad}: {err}");
        }
    }

    #[test]
    fn a_historical_source_names_ozone_or_ratis() {
        let body = BODY.replace("apache/ozone", "apache/hadoop");
        let err = with_historical("old", &body, "B.run@old").unwrap_err();
        assert!(
            err.contains("source `old`: repository `https://github.com/apache/hadoop` is neither"),
            "{err}"
        );
        // `ozone` and `ratis` keep their own repositories.
        let swapped = OZONE.replace("apache/ozone", "apache/ratis");
        let err = Manifest::parse(&swapped).unwrap_err();
        assert!(
            err.contains("expected `https://github.com/apache/ozone`"),
            "{err}"
        );
    }

    #[test]
    fn a_historical_source_says_what_its_commit_is() {
        let without = BODY.replace("about = \"HDDS-1's fix's parent\"\n", "");
        let err = with_historical("old", &without, "B.run@old").unwrap_err();
        assert!(err.contains("(`about`)"), "{err}");
        let blank = BODY.replace("HDDS-1's fix's parent", "  ");
        let err = with_historical("old", &blank, "B.run@old").unwrap_err();
        assert!(err.contains("(`about`)"), "{err}");
        let short = BODY.replace("2222222222222222222222222222222222222222", "2222222");
        let err = with_historical("old", &short, "B.run@old").unwrap_err();
        assert!(err.contains("not a full 40-digit commit id"), "{err}");
    }

    #[test]
    fn a_historical_citation_id_ends_in_at_source() {
        let err = with_historical("old", BODY, "B.run").unwrap_err();
        assert!(err.contains("the id should be `B.run@old`"), "{err}");
        let err = with_historical("old", BODY, "B.run@other").unwrap_err();
        assert!(err.contains("the id should be `B.run@old`"), "{err}");
        // And an `ozone` citation's id carries no `@`.
        let err = Manifest::parse(&format!(
            "{OZONE}\n[[citation]]\nid = \"B.run@ozone\"\nfile = \"a/B.java\"\nclass = \"B\"\nmethod = \"run\"\nfingerprint = \"{}\"\n",
            "0".repeat(64)
        ))
        .unwrap_err();
        assert!(err.contains("the id should be `B.run`"), "{err}");
        // A citation of a source the manifest does not pin.
        let err = Manifest::parse(&format!(
            "{OZONE}\n[[citation]]\nid = \"B.run@old\"\nsource = \"old\"\nfile = \"a/B.java\"\nclass = \"B\"\nmethod = \"run\"\nfingerprint = \"{}\"\n",
            "0".repeat(64)
        ))
        .unwrap_err();
        assert!(err.contains("has no [sources.old]"), "{err}");
    }
}
