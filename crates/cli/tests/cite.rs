//! Citations checked against a small Java tree the tests write themselves: each status,
//! `record`, and the exit codes of `ozone-ha-check cite`.
#![cfg(not(any(loom, ohc_threads)))]

use ozone_ha_check::citation::java;
use ozone_ha_check_cite::check::Checked;
use ozone_ha_check_cite::manifest::Manifest;
use ozone_ha_check_cite::{self as cite, looks_like_java, CiteError, Label, Links, Status};
use std::path::{Path, PathBuf};
use std::process::Command;

const BUF: &str = "hadoop-hdds/server-scm/src/main/java/p/Buf.java";
const OTHER: &str = "hadoop-ozone/ozone-manager/src/main/java/p/Other.java";

const BUF_JAVA: &str = r#"package p;

/** A buffer. */
public class Buf {
  private long n;

  // Flushes.
  public synchronized void flush() {
    n = 0; // reset
  }

  void add(long x, String why) {
    n += x;
  }

  void add(long x) {
    n += x;
  }

  static class Inner {
    void run() {
      System.out.println("a b");
    }
  }
}
"#;

const OTHER_JAVA: &str = r#"package p;

class Other {
  Other() {
  }

  void gone() {
  }
}
"#;

/// `Buf.java` at the parent of the pinned commit (the parent of a fix): `flush` not yet
/// synchronized and at other lines (9-12), no `add(long,String)`, no `Inner`.
const BUF_PARENT: &str = r#"package p;

/** A buffer, before the fix. */
public class Buf {
  private long n;
  private long flushed;

  // Flushes, unsynchronized.
  public void flush() {
    flushed = n;
    n = 0;
  }

  void add(long x) {
    n += x;
  }
}
"#;

/// The historical source [`Tree::with_parent`] pins at the pinned commit's parent.
const PARENT: &str = "fix-parent";
const PARENT_ABOUT: &str = "the fix's parent";
const OZONE_REPO: &str = "https://github.com/apache/ozone";
const ZEROS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// A `[sources.NAME]` section.
fn source(name: &str, repository: &str, commit: &str, about: &str) -> String {
    format!("\n[sources.{name}]\nrepository = \"{repository}\"\ncommit = \"{commit}\"\nabout = \"{about}\"\n")
}

/// A `[[citation]]` of the historical source `source`, its id as the manifest wants it.
fn citation(
    source: &str,
    file: &str,
    class: &str,
    method: &str,
    params: Option<&[&str]>,
    fingerprint: &str,
) -> String {
    let (id, params) = match params {
        None => (format!("{class}.{method}@{source}"), String::new()),
        Some(p) => (
            format!("{class}.{method}({})@{source}", p.join(",")),
            format!("params = {p:?}\n"),
        ),
    };
    format!("\n[[citation]]\nid = \"{id}\"\nsource = \"{source}\"\nfile = \"{file}\"\nclass = \"{class}\"\nmethod = \"{method}\"\n{params}fingerprint = \"{fingerprint}\"\n")
}

/// The one method `class.method` (the overload `params`, when given) of the Java `text`.
fn method(text: &str, class: &str, name: &str, params: Option<&[&str]>) -> cite::java::MethodDecl {
    let file = cite::java::parse(text).unwrap();
    let overloads = file.overloads(class, name);
    let found: Vec<_> = overloads
        .into_iter()
        .filter(|m| params.is_none_or(|p| m.params == p))
        .collect();
    assert_eq!(found.len(), 1, "{class}.{name}");
    found[0].clone()
}

/// The fingerprint of that method.
fn fp(text: &str, class: &str, name: &str, params: Option<&[&str]>) -> String {
    method(text, class, name, params).fingerprint
}

/// The manifest before `record`: names only, fingerprints and commit to be recorded.
const MANIFEST: &str = r#"
[sources.ozone]
repository = "https://github.com/apache/ozone"
commit = "0000000000000000000000000000000000000000"

[[citation]]
id = "Buf.flush"
file = "hadoop-hdds/server-scm/src/main/java/p/Buf.java"
class = "Buf"
method = "flush"
fingerprint = "0000000000000000000000000000000000000000000000000000000000000000"

[[citation]]
id = "Buf.add(long,String)"
file = "hadoop-hdds/server-scm/src/main/java/p/Buf.java"
class = "Buf"
method = "add"
params = ["long", "String"]
fingerprint = "0000000000000000000000000000000000000000000000000000000000000000"

[[citation]]
id = "Buf.add(long)"
file = "hadoop-hdds/server-scm/src/main/java/p/Buf.java"
class = "Buf"
method = "add"
params = ["long"]
fingerprint = "0000000000000000000000000000000000000000000000000000000000000000"

[[citation]]
id = "Buf.Inner.run"
file = "hadoop-hdds/server-scm/src/main/java/p/Buf.java"
class = "Buf.Inner"
method = "run"
fingerprint = "0000000000000000000000000000000000000000000000000000000000000000"

[[citation]]
id = "Other.Other"
file = "hadoop-ozone/ozone-manager/src/main/java/p/Other.java"
class = "Other"
method = "Other"
fingerprint = "0000000000000000000000000000000000000000000000000000000000000000"

[[citation]]
id = "Other.gone"
file = "hadoop-ozone/ozone-manager/src/main/java/p/Other.java"
class = "Other"
method = "gone"
fingerprint = "0000000000000000000000000000000000000000000000000000000000000000"
"#;

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args([
            "-c",
            "user.name=cite tests",
            "-c",
            "user.email=cite@example.invalid",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// An Ozone-shaped tree with the two Java files, committed once (the pinned commit), and
/// the manifest recorded from it.
struct Tree {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
    manifest_path: PathBuf,
    commit: String,
    /// The pinned commit's parent ([`Tree::with_parent`]), empty without one.
    parent: String,
}

impl Tree {
    fn new() -> Tree {
        Tree::create(None)
    }

    /// As [`Tree::new`], with a parent commit where `Buf.java` is [`BUF_PARENT`], and the
    /// historical source [`PARENT`] pinned at it citing `Buf.flush` and `Buf.add(long)`
    /// there (fingerprints computed here, not by `record`).
    fn with_parent() -> Tree {
        let t = Tree::create(Some(BUF_PARENT));
        t.append(&source(PARENT, OZONE_REPO, &t.parent, PARENT_ABOUT));
        t.append(&citation(
            PARENT,
            BUF,
            "Buf",
            "flush",
            None,
            &fp(BUF_PARENT, "Buf", "flush", None),
        ));
        t.append(&citation(
            PARENT,
            BUF,
            "Buf",
            "add",
            Some(&["long"]),
            &fp(BUF_PARENT, "Buf", "add", Some(&["long"])),
        ));
        t
    }

    /// The tree, with a first commit where `Buf.java` is `parent` when given.
    fn create(parent: Option<&str>) -> Tree {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("ozone");
        for d in ["hadoop-ozone", "hadoop-hdds"] {
            std::fs::create_dir_all(dir.join(d)).unwrap();
        }
        std::fs::write(
            dir.join("pom.xml"),
            "<project>\n  <groupId>org.apache.ozone</groupId>\n  <artifactId>ozone-main</artifactId>\n</project>\n",
        )
        .unwrap();
        let tree = Tree {
            manifest_path: tmp.path().join("citations.toml"),
            _tmp: tmp,
            dir,
            commit: String::new(),
            parent: String::new(),
        };
        tree.write(OTHER, OTHER_JAVA);
        git(&tree.dir, &["init", "-q"]);
        let parent = match parent {
            None => String::new(),
            Some(text) => {
                tree.write(BUF, text);
                git(&tree.dir, &["add", "-A"]);
                git(&tree.dir, &["commit", "-q", "-m", "parent"]);
                git(&tree.dir, &["rev-parse", "HEAD"])
            }
        };
        tree.write(BUF, BUF_JAVA);
        git(&tree.dir, &["add", "-A"]);
        git(&tree.dir, &["commit", "-q", "-m", "pinned"]);
        let commit = git(&tree.dir, &["rev-parse", "HEAD"]);
        std::fs::write(&tree.manifest_path, MANIFEST).unwrap();
        cite::record(&tree.manifest_path, &tree.dir, None).unwrap();
        Tree {
            commit,
            parent,
            ..tree
        }
    }

    /// Append `text` to the manifest.
    fn append(&self, text: &str) {
        let mut manifest = std::fs::read_to_string(&self.manifest_path).unwrap();
        manifest.push_str(text);
        std::fs::write(&self.manifest_path, manifest).unwrap();
    }

    /// Give the citation `id` the fingerprint `fingerprint` in the manifest.
    fn set_fingerprint(&self, id: &str, fingerprint: &str) {
        let mut m = self.manifest();
        m.citations
            .iter_mut()
            .find(|e| e.id == id)
            .unwrap()
            .fingerprint = fingerprint.to_string();
        std::fs::write(&self.manifest_path, m.to_toml().unwrap()).unwrap();
    }

    fn write(&self, file: &str, text: &str) {
        let path = self.dir.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// Replace `from` by `to` in `file` (in the work tree, not committed).
    fn edit(&self, file: &str, from: &str, to: &str) {
        let text = std::fs::read_to_string(self.dir.join(file)).unwrap();
        assert!(text.contains(from), "{from:?} not in {file}");
        self.write(file, &text.replacen(from, to, 1));
    }

    fn manifest(&self) -> Manifest {
        cite::load_manifest(Some(&self.manifest_path)).unwrap()
    }

    fn check(&self) -> Vec<Checked> {
        self.check_in(&self.dir)
    }

    fn check_in(&self, dir: &Path) -> Vec<Checked> {
        cite::check(&self.manifest(), dir, None).unwrap().citations
    }
}

fn status(report: &[Checked], id: &str) -> Status {
    find(report, id).status
}

fn find<'a>(report: &'a [Checked], id: &str) -> &'a Checked {
    report.iter().find(|c| c.id == id).unwrap()
}

#[test]
fn record_pins_the_commit_and_every_fingerprint() {
    let t = Tree::new();
    let m = t.manifest();
    assert_eq!(m.sources["ozone"].commit, t.commit);
    let expected = cite::java::parse(BUF_JAVA).unwrap();
    let flush = m.citations.iter().find(|e| e.id == "Buf.flush").unwrap();
    assert_eq!(
        flush.fingerprint,
        expected.overloads("Buf", "flush")[0].fingerprint
    );
    // Sorted by id, and the same text when recorded again.
    let ids: Vec<&str> = m.citations.iter().map(|e| e.id.as_str()).collect();
    let mut sorted = ids.clone();
    sorted.sort_unstable();
    assert_eq!(ids, sorted);
    let before = std::fs::read_to_string(&t.manifest_path).unwrap();
    let again = cite::record(&t.manifest_path, &t.dir, None).unwrap();
    assert!(again.fingerprints.is_empty());
    assert_eq!(std::fs::read_to_string(&t.manifest_path).unwrap(), before);
    assert!(!before.contains("n += x"), "no Java text in the manifest");
}

#[test]
fn an_untouched_tree_is_unchanged_with_its_lines() {
    let t = Tree::new();
    let r = t.check();
    assert!(r.iter().all(|c| c.status == Status::Unchanged), "{r:#?}");
    let flush = find(&r, "Buf.flush");
    assert_eq!(flush.lines, Some((8, 10)));
    assert_eq!(flush.pinned_lines, Some((8, 10)));
    assert_eq!(find(&r, "Buf.Inner.run").lines, Some((21, 23)));
}

#[test]
fn lines_added_above_make_it_moved() {
    let t = Tree::new();
    t.edit(
        BUF,
        "  private long n;\n",
        "  private long n;\n  private long m;\n\n",
    );
    let r = t.check();
    let flush = find(&r, "Buf.flush");
    assert_eq!(flush.status, Status::Moved);
    assert_eq!(flush.lines, Some((10, 12)));
    assert_eq!(flush.pinned_lines, Some((8, 10)));
    assert_eq!(status(&r, "Other.gone"), Status::Unchanged);
}

#[test]
fn without_the_git_history_a_moved_method_counts_as_unchanged() {
    let t = Tree::new();
    t.edit(
        BUF,
        "  private long n;\n",
        "  private long n;\n  private long m;\n\n",
    );
    std::fs::remove_dir_all(t.dir.join(".git")).unwrap();
    let report = cite::check(&t.manifest(), &t.dir, None).unwrap();
    assert!(report.sources[0].baseline.is_err());
    let flush = find(&report.citations, "Buf.flush");
    assert_eq!(
        (flush.status, flush.lines, flush.pinned_lines),
        (Status::Unchanged, Some((10, 12)), None)
    );
}

#[test]
fn reformatting_and_comment_edits_keep_it_unchanged() {
    let t = Tree::new();
    t.edit(
        BUF,
        "    n = 0; // reset\n",
        "      n   =   0 ;   /* set to zero */\n",
    );
    t.edit(
        BUF,
        "  // Flushes.\n",
        "  // Flushes everything, now with a longer comment.\n",
    );
    t.edit(
        BUF,
        "  void add(long x) {\n    n += x;",
        "  void add( long   x ) {\n\tn+=x;",
    );
    let r = t.check();
    assert!(r.iter().all(|c| c.status == Status::Unchanged), "{r:#?}");
}

#[test]
fn an_edited_statement_is_changed() {
    let t = Tree::new();
    t.edit(BUF, "n = 0;", "n = 1;");
    let r = t.check();
    assert_eq!(status(&r, "Buf.flush"), Status::Changed);
    assert_eq!(find(&r, "Buf.flush").lines, Some((8, 10)));
    assert_eq!(status(&r, "Buf.add(long)"), Status::Unchanged);
}

#[test]
fn dropping_synchronized_is_a_change() {
    let t = Tree::new();
    t.edit(
        BUF,
        "public synchronized void flush()",
        "public void flush()",
    );
    assert_eq!(status(&t.check(), "Buf.flush"), Status::Changed);
}

#[test]
fn only_the_edited_overload_changes() {
    let t = Tree::new();
    t.edit(
        BUF,
        "  void add(long x) {\n    n += x;",
        "  void add(long x) {\n    n -= x;",
    );
    let r = t.check();
    assert_eq!(status(&r, "Buf.add(long)"), Status::Changed);
    assert_eq!(status(&r, "Buf.add(long,String)"), Status::Unchanged);
}

#[test]
fn a_deleted_method_class_or_file_is_missing() {
    let t = Tree::new();
    t.edit(OTHER, "  void gone() {\n  }\n", "");
    let r = t.check();
    assert_eq!(status(&r, "Other.gone"), Status::Missing);
    assert_eq!(status(&r, "Other.Other"), Status::Unchanged);

    t.edit(BUF, "  static class Inner {", "  static class Renamed {");
    let c = t.check();
    assert_eq!(status(&c, "Buf.Inner.run"), Status::Missing);
    assert!(find(&c, "Buf.Inner.run")
        .detail
        .as_deref()
        .unwrap()
        .contains("no class"));

    std::fs::remove_file(t.dir.join(OTHER)).unwrap();
    let f = t.check();
    assert_eq!(status(&f, "Other.Other"), Status::Missing);
    assert!(find(&f, "Other.Other")
        .detail
        .as_deref()
        .unwrap()
        .contains("file not found"));
}

#[test]
fn a_new_overload_makes_an_unqualified_citation_missing() {
    let t = Tree::new();
    t.edit(
        BUF,
        "  // Flushes.\n",
        "  void flush(int x) {\n  }\n\n  // Flushes.\n",
    );
    let r = t.check();
    assert_eq!(status(&r, "Buf.flush"), Status::Missing);
    assert!(find(&r, "Buf.flush")
        .detail
        .as_deref()
        .unwrap()
        .contains("overloads"));
}

#[test]
fn a_source_without_a_checkout_is_not_checked() {
    let t = Tree::new();
    let mut text = std::fs::read_to_string(&t.manifest_path).unwrap();
    text.push_str(
        "\n[sources.ratis]\nrepository = \"https://github.com/apache/ratis\"\ncommit = \"1111111111111111111111111111111111111111\"\n\n[[citation]]\nid = \"StateMachineUpdater.run\"\nsource = \"ratis\"\nfile = \"ratis-server/src/main/java/StateMachineUpdater.java\"\nclass = \"StateMachineUpdater\"\nmethod = \"run\"\nfingerprint = \"0000000000000000000000000000000000000000000000000000000000000000\"\n",
    );
    std::fs::write(&t.manifest_path, text).unwrap();
    let r = t.check();
    assert_eq!(status(&r, "StateMachineUpdater.run"), Status::NotChecked);
    assert_eq!(status(&r, "Buf.flush"), Status::Unchanged);
}

#[test]
fn errors_are_typed() {
    let t = Tree::new();
    let m = t.manifest();
    let not_ozone = t.dir.join("hadoop-ozone");
    assert!(matches!(
        cite::check(&m, &not_ozone, None),
        Err(CiteError::NotOzoneTree { .. })
    ));
    assert!(matches!(
        cite::check(&m, &t.dir, Some(&t.dir)),
        Err(CiteError::NotRatisTree { .. })
    ));
    assert!(matches!(
        cite::load_manifest(Some(&t.dir.join("nope.toml"))),
        Err(CiteError::ManifestUnreadable { .. })
    ));
    // record refuses uncommitted changes and writes nothing for a missing method.
    t.edit(BUF, "n = 0;", "n = 1;");
    let before = std::fs::read_to_string(&t.manifest_path).unwrap();
    let dirty = cite::record(&t.manifest_path, &t.dir, None).unwrap_err();
    assert!(matches!(dirty, CiteError::Dirty { .. }), "{dirty}");
    t.edit(OTHER, "  void gone() {\n  }\n", "");
    git(&t.dir, &["commit", "-q", "-am", "drop gone"]);
    let unresolved = cite::record(&t.manifest_path, &t.dir, None).unwrap_err();
    assert!(
        matches!(&unresolved, CiteError::Unresolved { citations } if citations.len() == 1),
        "{unresolved}"
    );
    assert_eq!(std::fs::read_to_string(&t.manifest_path).unwrap(), before);
}

#[test]
fn record_takes_a_new_commit() {
    let t = Tree::new();
    t.edit(BUF, "n = 0;", "n = 1;");
    git(&t.dir, &["commit", "-q", "-am", "edit flush"]);
    let recorded = cite::record(&t.manifest_path, &t.dir, None).unwrap();
    assert_eq!(recorded.fingerprints, vec!["Buf.flush".to_string()]);
    let head = git(&t.dir, &["rev-parse", "HEAD"]);
    assert_eq!(
        recorded.commits,
        vec![("ozone".into(), t.commit.clone(), head.clone())]
    );
    assert_eq!(t.manifest().sources["ozone"].commit, head);
    assert!(t.check().iter().all(|c| c.status == Status::Unchanged));
}

/// The links `check --ozone` would use for this tree's manifest, and the warnings.
fn links(t: &Tree) -> (Links, Vec<String>) {
    cite::resolve_links(&t.manifest(), Some(&t.dir), None).unwrap()
}

#[test]
fn a_checkout_at_the_pinned_commit_gives_every_method_its_lines() {
    let t = Tree::new();
    let (l, warnings) = links(&t);
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(l.located(), 6);
    assert_eq!(l.lines("Buf.flush"), Some((8, 10)));
    assert_eq!(l.lines("Buf.Inner.run"), Some((21, 23)));
    // Moved in the work tree (HEAD still the pinned commit): the lines at that commit,
    // which the link shows, not the work tree's.
    t.edit(
        BUF,
        "  private long n;\n",
        "  private long n;\n  private long m;\n\n",
    );
    let (l, warnings) = links(&t);
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(l.lines("Buf.flush"), Some((8, 10)));
}

#[test]
fn a_changed_or_missing_method_links_to_its_file_with_one_warning() {
    let t = Tree::new();
    t.edit(BUF, "n = 0;", "n = 1;");
    t.edit(OTHER, "  void gone() {\n  }\n", "");
    let (l, warnings) = links(&t);
    assert_eq!(l.lines("Buf.flush"), None);
    assert_eq!(l.lines("Other.gone"), None);
    assert_eq!(l.lines("Buf.add(long)"), Some((16, 18)));
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("Buf.flush changed") && warnings[0].contains("Other.gone missing"),
        "{warnings:?}"
    );
}

#[test]
fn a_checkout_at_another_commit_gives_no_lines() {
    let t = Tree::new();
    t.edit(BUF, "  private long n;\n", "  private long n;\n\n");
    git(&t.dir, &["commit", "-q", "-am", "a blank line"]);
    let (l, warnings) = links(&t);
    assert_eq!(l.located(), 0);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains(&format!("not the pinned ozone commit {}", &t.commit[..11])),
        "{warnings:?}"
    );
    // Nor without any git history.
    std::fs::remove_dir_all(t.dir.join(".git")).unwrap();
    let (l, warnings) = links(&t);
    assert_eq!(l.located(), 0);
    assert!(
        warnings[0].contains("is not a git checkout"),
        "{warnings:?}"
    );
    // A directory of the wrong shape is an error, as for `cite`.
    assert!(matches!(
        cite::resolve_links(&t.manifest(), None, Some(&t.dir)),
        Err(CiteError::NotRatisTree { .. })
    ));
}

fn cli(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ozone-ha-check"))
        .arg("cite")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_command_exits_0_1_or_2() {
    let t = Tree::new();
    let (dir, manifest) = (t.dir.to_str().unwrap(), t.manifest_path.to_str().unwrap());
    let (code, out, _) = cli(&["--ozone", dir, "--manifest", manifest]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("6 unchanged"), "{out}");

    t.edit(BUF, "  private long n;\n", "  private long n;\n\n");
    let (code, out, _) = cli(&["--ozone", dir, "--manifest", manifest]);
    assert_eq!(code, 0, "moved is fine: {out}");
    assert!(
        out.lines().any(|l| l.starts_with("moved")
            && l.contains("Buf.flush")
            && l.contains(":9-11 (was 8-10)")),
        "{out}"
    );

    t.edit(BUF, "n = 0;", "n = 2;");
    let (code, out, _) = cli(&[
        "--ozone",
        dir,
        "--manifest",
        manifest,
        "--usage-executions",
        "1",
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("changed or missing, and the cases that use them"),
        "{out}"
    );
    assert!(
        out.contains("Buf.flush (changed)\n    no explored trace prints it"),
        "{out}"
    );

    let (code, out, _) = cli(&[
        "--ozone",
        dir,
        "--manifest",
        manifest,
        "--json",
        "--usage-executions",
        "1",
    ]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let flush = v["citations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "Buf.flush")
        .unwrap();
    assert_eq!(flush["status"], "changed");
    assert_eq!(flush["used_by"], serde_json::json!([]));
    assert_eq!(v["summary"]["changed"], 1);

    let (code, _, err) = cli(&[
        "--ozone",
        &format!("{dir}/hadoop-hdds"),
        "--manifest",
        manifest,
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("is not an Ozone source tree"), "{err}");

    let bad = t.dir.join("bad.toml");
    std::fs::write(&bad, "this is not = [ toml").unwrap();
    let (code, _, err) = cli(&["--ozone", dir, "--manifest", bad.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot read the manifest"), "{err}");
    let (code, _, err) = cli(&["--ozone", dir, "--manifest", &format!("{dir}/absent.toml")]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn the_command_records() {
    let t = Tree::new();
    t.edit(BUF, "n = 0;", "n = 1;");
    let (dir, manifest) = (t.dir.to_str().unwrap(), t.manifest_path.to_str().unwrap());
    let (code, _, err) = cli(&["--ozone", dir, "--manifest", manifest, "--record"]);
    assert_eq!(code, 2);
    assert!(err.contains("uncommitted changes"), "{err}");
    git(&t.dir, &["commit", "-q", "-am", "edit"]);
    let (code, out, _) = cli(&["--ozone", dir, "--manifest", manifest, "--record"]);
    assert_eq!(code, 0);
    assert!(out.contains("new fingerprint: Buf.flush"), "{out}");
    let (code, _, _) = cli(&["--ozone", dir, "--manifest", manifest]);
    assert_eq!(code, 0);
}

/// Every label the models' traces print is a citation of the manifest, or a model step's
/// label that does not look like a Java method, or one of the labels still to be renamed.
#[test]
fn every_trace_label_is_cited() {
    // Labels that name a method under another name than the manifest's id, carry a
    // qualifier, or name a method that is not in Ozone at the pinned commit.
    const TO_RENAME: &[&str] = &[
        "ExitUtils.terminate",
        "OzoneManagerDoubleBuffer.persistIfNewer",
        "S3SecretManager.revokeSecret (addToDBBatch)",
        "S3SecretManager.storeSecret (addToDBBatch)",
        "SCMCertStore.removeAllExpiredCertificates (read)",
        "SCMDBCheckpointProvider.writeDBCheckpointToStream",
        "SCMHAManagerImpl.transferLeadership",
        "SCMStateMachine.notifyInstallSnapshotFromLeader (leader checkpoint)",
        "SCMStateMachine.reinitialize (installed checkpoint)",
        "SequenceIdGenerator.upgradeToCertificateSequenceId (read)",
        "SequenceIdGenerator.upgradeToCertificateSequenceId (replicated)",
        "StateManagerImpl.allocateBatch",
    ];
    let usage = cite::usage_from_traces(20, 0).unwrap();
    let ids: Vec<&str> = java::ALL.iter().map(|c| c.id).collect();
    for label in usage.keys() {
        let ok = ids.contains(&label.as_str())
            || TO_RENAME.contains(&label.as_str())
            || !looks_like_java(label);
        assert!(ok, "trace label `{label}` is not in citations.toml");
    }
    assert!(usage["SCMHADBTransactionBufferImpl.flushUnderWriteLock"]
        .iter()
        .any(|c| c.scenario == "hdds-16452"));
}

#[test]
fn labels() {
    const FLUSH: Label = Label::Java(&java::OzoneManagerDoubleBuffer::flushTransactions);
    const PEER: Label = Label::model("peer OM");
    assert_eq!(FLUSH.text(), "OzoneManagerDoubleBuffer.flushTransactions");
    assert_eq!(PEER.citation(), None);
    let terminate = &java::ExitUtils::terminate__int_String_Throwable_Logger;
    assert_eq!(
        terminate.params,
        Some(&["int", "String", "Throwable", "Logger"][..])
    );
    assert!(terminate
        .pinned_url(None)
        .starts_with("https://github.com/apache/ratis/blob/37932bf60111bd1a26d047d9bd33c46faa5f7022/ratis-common/"));
    let nested = &java::SequenceIdGenerator::StateManagerImpl::allocateBatch;
    assert_eq!(
        nested.label(),
        "SequenceIdGenerator.StateManagerImpl.allocateBatch"
    );
    assert!(std::panic::catch_unwind(|| Label::model("RDBStore.flushDB")).is_err());
}

// Historical sources: a commit other than the pin, read from git, never from the work tree.

#[test]
fn a_historical_source_is_read_at_its_commit() {
    let t = Tree::with_parent();
    assert_ne!(
        fp(BUF_PARENT, "Buf", "flush", None),
        fp(BUF_JAVA, "Buf", "flush", None),
        "the fix changed flush"
    );
    let report = cite::check(&t.manifest(), &t.dir, None).unwrap();
    let r = &report.citations;
    let flush = find(r, "Buf.flush@fix-parent");
    assert_eq!(
        (
            flush.status,
            flush.lines,
            flush.pinned_lines,
            flush.detail.as_deref()
        ),
        (Status::Unchanged, Some((9, 12)), Some((9, 12)), None)
    );
    let add = find(r, "Buf.add(long)@fix-parent");
    assert_eq!((add.status, add.lines), (Status::Unchanged, Some((14, 16))));
    // The pinned commit's citations as before.
    assert_eq!(find(r, "Buf.flush").lines, Some((8, 10)));
    assert_eq!(report.count(Status::Unchanged), 8, "{r:#?}");
    // The sources: the pin first, then the historical one with its repository and `about`.
    let names: Vec<&str> = report.sources.iter().map(|s| s.source.as_str()).collect();
    assert_eq!(names, ["ozone", PARENT]);
    let s = &report.sources[1];
    assert!(s.is_historical());
    assert_eq!(
        (s.repository.as_str(), s.about.as_deref(), s.pinned.as_str()),
        ("ozone", Some(PARENT_ABOUT), t.parent.as_str())
    );
    assert_eq!(s.baseline, Ok(()));
}

#[test]
fn the_work_tree_does_not_affect_a_historical_citation() {
    let t = Tree::with_parent();
    t.edit(BUF, "  private long n;\n", "  private long n;\n\n\n");
    t.edit(BUF, "n = 0;", "n = 1;");
    t.edit(BUF, "  void add(long x) {\n    n += x;\n  }\n", "");
    let historical = |r: &[Checked]| {
        ["Buf.flush@fix-parent", "Buf.add(long)@fix-parent"].map(|id| {
            let c = find(r, id);
            (c.status, c.lines)
        })
    };
    let expected = [
        (Status::Unchanged, Some((9, 12))),
        (Status::Unchanged, Some((14, 16))),
    ];
    let r = t.check();
    assert_eq!(status(&r, "Buf.flush"), Status::Changed);
    assert_eq!(status(&r, "Buf.add(long)"), Status::Missing);
    assert_eq!(historical(&r), expected);
    // Committed (HEAD moves on), then the file gone from the work tree: the same.
    git(&t.dir, &["commit", "-q", "-am", "after the fix"]);
    assert_eq!(historical(&t.check()), expected);
    std::fs::remove_file(t.dir.join(BUF)).unwrap();
    let r = t.check();
    assert_eq!(status(&r, "Buf.flush"), Status::Missing);
    assert_eq!(historical(&r), expected);
}

#[test]
fn a_historical_citation_whose_fingerprint_differs_is_changed() {
    let t = Tree::with_parent();
    // Cited with the fixed method's fingerprint: not the method at the parent.
    t.set_fingerprint("Buf.flush@fix-parent", &fp(BUF_JAVA, "Buf", "flush", None));
    let r = t.check();
    let flush = find(&r, "Buf.flush@fix-parent");
    assert_eq!(
        (flush.status, flush.lines, flush.pinned_lines),
        (Status::Changed, Some((9, 12)), Some((9, 12)))
    );
    assert_eq!(status(&r, "Buf.flush"), Status::Unchanged);
    assert_eq!(status(&r, "Buf.add(long)@fix-parent"), Status::Unchanged);
}

#[test]
fn a_method_absent_at_the_historical_commit_is_missing() {
    let t = Tree::with_parent();
    let later = "hadoop-ozone/ozone-manager/src/main/java/p/Later.java";
    // In the work tree and at HEAD, not at the parent.
    t.write(
        later,
        "package p;\n\nclass Later {\n  void later() {\n  }\n}\n",
    );
    git(&t.dir, &["add", "-A"]);
    git(&t.dir, &["commit", "-q", "-m", "later"]);
    t.append(&citation(PARENT, BUF, "Buf.Inner", "run", None, ZEROS));
    t.append(&citation(
        PARENT,
        BUF,
        "Buf",
        "add",
        Some(&["long", "String"]),
        ZEROS,
    ));
    t.append(&citation(PARENT, BUF, "Buf", "close", None, ZEROS));
    t.append(&citation(PARENT, later, "Later", "later", None, ZEROS));
    let r = t.check();
    let at = &t.parent[..12];
    for (id, why) in [
        ("Buf.Inner.run@fix-parent", "no class Buf.Inner"),
        (
            "Buf.add(long,String)@fix-parent",
            "no overload (long,String)",
        ),
        ("Buf.close@fix-parent", "no method close in Buf"),
        ("Later.later@fix-parent", "file not found"),
    ] {
        let c = find(&r, id);
        assert_eq!(c.status, Status::Missing, "{id}");
        let detail = c.detail.as_deref().unwrap();
        assert!(
            detail.contains(why) && detail.ends_with(&format!(" at {at}")),
            "{id}: {detail}"
        );
        assert_eq!(c.lines, None);
    }
    assert_eq!(status(&r, "Buf.flush@fix-parent"), Status::Unchanged);
}

#[test]
fn a_historical_commit_the_checkout_lacks_is_not_checked() {
    let t = Tree::with_parent();
    let absent = "1234567890abcdef1234567890abcdef12345678";
    t.append(&source(
        "gone",
        OZONE_REPO,
        absent,
        "a commit of another fork",
    ));
    t.append(&citation("gone", BUF, "Buf", "flush", None, ZEROS));
    t.append(&source(
        "ratis-old",
        "https://github.com/apache/ratis",
        absent,
        "a Ratis commit",
    ));
    t.append(&citation(
        "ratis-old",
        "ratis-server/src/main/java/S.java",
        "S",
        "run",
        None,
        ZEROS,
    ));
    let r = t.check();
    let gone = find(&r, "Buf.flush@gone");
    assert_eq!(gone.status, Status::NotChecked);
    let detail = gone.detail.as_deref().unwrap();
    assert!(
        detail.contains("the --ozone checkout lacks the commit 1234567890ab")
            && detail.contains("not in its git history"),
        "{detail}"
    );
    let ratis = find(&r, "S.run@ratis-old");
    assert_eq!(
        (ratis.status, ratis.detail.as_deref()),
        (Status::NotChecked, Some("no --ratis checkout given"))
    );
    assert_eq!(status(&r, "Buf.flush@fix-parent"), Status::Unchanged);
    // Nothing changed: exit 0, the sources and the not checked ones said.
    let (dir, manifest) = (t.dir.to_str().unwrap(), t.manifest_path.to_str().unwrap());
    let (code, out, err) = cli(&["--ozone", dir, "--manifest", manifest]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("8 unchanged, 0 moved, 0 changed, 0 missing, 2 not checked"),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "gone: ozone 1234567890ab (a commit of another fork) in {dir}: not checked (the commit {absent} is not in its git history)"
        )),
        "{out}"
    );
    assert!(
        out.contains("ratis-old: ratis 1234567890ab (a Ratis commit): not checked (no --ratis checkout given)"),
        "{out}"
    );

    // A shallow clone of the pinned commit lacks the parent: not checked, not an error.
    let shallow = t.dir.parent().unwrap().join("shallow");
    git(
        &t.dir,
        &[
            "clone",
            "-q",
            "--depth",
            "1",
            &format!("file://{dir}"),
            shallow.to_str().unwrap(),
        ],
    );
    let r = t.check_in(&shallow);
    assert_eq!(status(&r, "Buf.flush@fix-parent"), Status::NotChecked);
    assert_eq!(find(&r, "Buf.flush").pinned_lines, Some((8, 10)));
    assert_eq!(
        r.iter().filter(|c| c.status == Status::Unchanged).count(),
        6
    );
    let (code, out, err) = cli(&["--ozone", shallow.to_str().unwrap(), "--manifest", manifest]);
    assert_eq!(code, 0, "{out}{err}");
    // Nor without any git history.
    std::fs::remove_dir_all(shallow.join(".git")).unwrap();
    let r = t.check_in(&shallow);
    assert_eq!(status(&r, "Buf.flush@fix-parent"), Status::NotChecked);
    assert_eq!(status(&r, "Buf.flush"), Status::Unchanged);
}

#[test]
fn the_command_shows_historical_sources() {
    let t = Tree::with_parent();
    let (dir, manifest) = (t.dir.to_str().unwrap(), t.manifest_path.to_str().unwrap());
    let (code, out, _) = cli(&["--ozone", dir, "--manifest", manifest, "--json"]);
    assert_eq!(code, 0, "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let s = &v["sources"][1];
    assert_eq!(s["source"], PARENT);
    assert_eq!(s["repository"], "ozone");
    assert_eq!(s["historical"], true);
    assert_eq!(s["about"], PARENT_ABOUT);
    assert_eq!(s["pinned"], t.parent.as_str());
    assert_eq!(v["sources"][0]["historical"], false);
    assert_eq!(v["sources"][0]["about"], serde_json::Value::Null);
    let flush = v["citations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "Buf.flush@fix-parent")
        .unwrap();
    assert_eq!(flush["source"], PARENT);
    assert_eq!(flush["status"], "unchanged");
    assert_eq!(flush["lines"], serde_json::json!([9, 12]));

    t.set_fingerprint("Buf.flush@fix-parent", ZEROS);
    let (code, out, _) = cli(&[
        "--ozone",
        dir,
        "--manifest",
        manifest,
        "--usage-executions",
        "1",
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(&format!(
            "fix-parent: ozone {} (the fix's parent) in {dir}: read from git at that commit",
            &t.parent[..12]
        )),
        "{out}"
    );
    assert!(
        out.lines().any(|l| l.starts_with("changed")
            && l.contains("Buf.flush@fix-parent")
            && l.ends_with(&format!("{BUF}:9-12"))),
        "{out}"
    );
    assert!(out.contains("Buf.flush@fix-parent (changed)"), "{out}");
}

#[test]
fn record_fills_a_historical_fingerprint_without_moving_its_commit() {
    let t = Tree::with_parent();
    t.edit(BUF, "n = 0;", "n = 1;");
    git(&t.dir, &["commit", "-q", "-am", "after the fix"]);
    let head = git(&t.dir, &["rev-parse", "HEAD"]);
    // A new historical citation with a placeholder, and one whose fingerprint is wrong.
    t.append(&citation(PARENT, OTHER, "Other", "gone", None, ZEROS));
    t.set_fingerprint("Buf.flush@fix-parent", ZEROS);
    // A historical source the checkout lacks: kept as it is.
    let absent = "1234567890abcdef1234567890abcdef12345678";
    t.append(&source(
        "gone",
        OZONE_REPO,
        absent,
        "a commit of another fork",
    ));
    t.append(&citation("gone", BUF, "Buf", "flush", None, ZEROS));

    // Uncommitted changes are still refused.
    t.edit(BUF, "n = 1;", "n = 2;");
    let dirty = cite::record(&t.manifest_path, &t.dir, None).unwrap_err();
    assert!(matches!(dirty, CiteError::Dirty { .. }), "{dirty}");
    t.edit(BUF, "n = 2;", "n = 1;");

    let recorded = cite::record(&t.manifest_path, &t.dir, None).unwrap();
    assert_eq!(
        recorded.fingerprints,
        ["Buf.flush", "Buf.flush@fix-parent", "Other.gone@fix-parent"]
    );
    assert_eq!(
        recorded.commits,
        vec![
            ("ozone".into(), t.commit.clone(), head.clone()),
            (PARENT.into(), t.parent.clone(), t.parent.clone()),
        ]
    );
    assert_eq!(recorded.kept, 1);
    assert_eq!(recorded.skipped.len(), 1);
    assert_eq!(recorded.skipped[0].0, "gone");
    let shown = recorded.to_string();
    assert!(
        shown.contains(&format!("fix-parent: read at its own commit {}", t.parent))
            && shown.contains("gone: not recorded (the --ozone checkout lacks its commit")
            && shown.contains("1 citation(s) of sources not recorded kept as they were"),
        "{shown}"
    );

    let m = t.manifest();
    assert_eq!(m.sources["ozone"].commit, head);
    assert_eq!(m.sources[PARENT].commit, t.parent);
    assert_eq!(m.sources[PARENT].about.as_deref(), Some(PARENT_ABOUT));
    assert_eq!(m.sources["gone"].commit, absent);
    let fingerprint = |id: &str| {
        m.citations
            .iter()
            .find(|e| e.id == id)
            .unwrap()
            .fingerprint
            .clone()
    };
    assert_eq!(
        fingerprint("Buf.flush@fix-parent"),
        fp(BUF_PARENT, "Buf", "flush", None)
    );
    assert_eq!(
        fingerprint("Other.gone@fix-parent"),
        fp(OTHER_JAVA, "Other", "gone", None)
    );
    assert_eq!(fingerprint("Buf.flush@gone"), ZEROS);
    let r = t.check();
    assert_eq!(status(&r, "Buf.flush@gone"), Status::NotChecked);
    assert!(
        r.iter()
            .all(|c| c.id == "Buf.flush@gone" || c.status == Status::Unchanged),
        "{r:#?}"
    );

    // A historical citation that names no method at its commit: nothing written.
    t.append(&citation(PARENT, BUF, "Buf.Inner", "run", None, ZEROS));
    let before = std::fs::read_to_string(&t.manifest_path).unwrap();
    let unresolved = cite::record(&t.manifest_path, &t.dir, None).unwrap_err();
    assert!(
        matches!(&unresolved, CiteError::Unresolved { citations }
            if citations.len() == 1 && citations[0].starts_with("Buf.Inner.run@fix-parent: no class")),
        "{unresolved}"
    );
    assert_eq!(std::fs::read_to_string(&t.manifest_path).unwrap(), before);
}

#[test]
fn a_historical_citation_has_its_lines_wherever_head_is() {
    let t = Tree::with_parent();
    let (l, warnings) = links(&t);
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(l.lines("Buf.flush"), Some((8, 10)));
    assert_eq!(l.lines("Buf.flush@fix-parent"), Some((9, 12)));
    assert_eq!(l.lines("Buf.add(long)@fix-parent"), Some((14, 16)));

    // HEAD elsewhere: the pin's citations lose their lines, the historical ones keep theirs.
    t.edit(BUF, "  private long n;\n", "  private long n;\n\n");
    git(&t.dir, &["commit", "-q", "-am", "a blank line"]);
    let (l, warnings) = links(&t);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("not the pinned ozone commit"),
        "{warnings:?}"
    );
    assert_eq!(l.lines("Buf.flush"), None);
    assert_eq!(l.lines("Buf.flush@fix-parent"), Some((9, 12)));
    assert_eq!(l.located(), 2);
    // HEAD at the historical commit itself: the same.
    git(&t.dir, &["checkout", "-q", &t.parent]);
    assert_eq!(links(&t).0.lines("Buf.flush@fix-parent"), Some((9, 12)));

    // Not as the manifest records it at its commit: no lines, one warning naming the commit.
    t.set_fingerprint("Buf.flush@fix-parent", ZEROS);
    let (l, warnings) = links(&t);
    assert_eq!(l.lines("Buf.flush@fix-parent"), None);
    assert_eq!(l.lines("Buf.add(long)@fix-parent"), Some((14, 16)));
    assert!(
        warnings.iter().any(|w| w.contains(&format!(
            "1 cited fix-parent method(s) are not as the manifest records them in `{}` at {} (Buf.flush@fix-parent changed)",
            t.dir.display(),
            &t.parent[..11]
        ))),
        "{warnings:?}"
    );

    // A historical commit the checkout lacks: no lines, a warning.
    let absent = "1234567890abcdef1234567890abcdef12345678";
    t.append(&source(
        "gone",
        OZONE_REPO,
        absent,
        "a commit of another fork",
    ));
    t.append(&citation(
        "gone",
        BUF,
        "Buf",
        "flush",
        None,
        fp(BUF_JAVA, "Buf", "flush", None).as_str(),
    ));
    let (l, warnings) = links(&t);
    assert_eq!(l.lines("Buf.flush@gone"), None);
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("does not hold the commit 1234567890a of gone")),
        "{warnings:?}"
    );
}

// `cite --since REV`: the cited methods a change touches, between two commits.

const DB: &str = "hadoop-ozone/ozone-manager/src/main/java/p/OzoneManagerDoubleBuffer.java";

/// The base of the change: `flushTransactions` (cited, and printed by hdds-16092's
/// traces), `helper` (not cited) and `stop` (cited).
const DB_BASE: &str = r#"package p;

public class OzoneManagerDoubleBuffer {
  private long flushed;

  void flushTransactions() {
    flushed++;
  }

  void helper() {
    flushed--;
  }

  void stop() {
    flushed = 0;
  }
}
"#;

/// The manifest citing `flushTransactions` and `stop` (fingerprints zero; `--since`
/// compares the two commits, not the manifest).
const SINCE_MANIFEST: &str = r#"
[sources.ozone]
repository = "https://github.com/apache/ozone"
commit = "0000000000000000000000000000000000000000"

[[citation]]
id = "OzoneManagerDoubleBuffer.flushTransactions"
file = "hadoop-ozone/ozone-manager/src/main/java/p/OzoneManagerDoubleBuffer.java"
class = "OzoneManagerDoubleBuffer"
method = "flushTransactions"
fingerprint = "0000000000000000000000000000000000000000000000000000000000000000"

[[citation]]
id = "OzoneManagerDoubleBuffer.stop"
file = "hadoop-ozone/ozone-manager/src/main/java/p/OzoneManagerDoubleBuffer.java"
class = "OzoneManagerDoubleBuffer"
method = "stop"
fingerprint = "0000000000000000000000000000000000000000000000000000000000000000"
"#;

/// A tree whose first commit (`base`) is [`DB_BASE`] and whose second (`HEAD`) edits
/// `flushTransactions` and `helper` and moves `stop` down, unchanged.
struct Change {
    tree: Tree,
    base: String,
    manifest: PathBuf,
}

impl Change {
    fn new() -> Change {
        let tree = Tree::new();
        tree.write(DB, DB_BASE);
        git(&tree.dir, &["add", "-A"]);
        git(&tree.dir, &["commit", "-q", "-m", "base"]);
        let base = git(&tree.dir, &["rev-parse", "HEAD"]);
        tree.edit(DB, "flushed++;", "flushed += 2;");
        tree.edit(DB, "flushed--;", "flushed -= 2;");
        tree.edit(
            DB,
            "  void stop() {",
            "  // Stops the buffer: moved down by this comment.\n\n  void stop() {",
        );
        git(&tree.dir, &["commit", "-q", "-am", "head"]);
        let manifest = tree.dir.parent().unwrap().join("since.toml");
        std::fs::write(&manifest, SINCE_MANIFEST).unwrap();
        Change {
            tree,
            base,
            manifest,
        }
    }

    /// `cite --since` in `dir` with `extra` arguments.
    fn cli_in(&self, dir: &Path, rev: &str, extra: &[&str]) -> (i32, String, String) {
        let mut args = vec![
            "--ozone",
            dir.to_str().unwrap(),
            "--manifest",
            self.manifest.to_str().unwrap(),
            "--since",
            rev,
            "--usage-executions",
            "1",
        ];
        args.extend_from_slice(extra);
        cli(&args)
    }

    fn manifest(&self) -> Manifest {
        cite::load_manifest(Some(&self.manifest)).unwrap()
    }
}

#[test]
fn since_reports_only_the_touched_cited_method() {
    let c = Change::new();
    let report = cite::since(&c.manifest(), &c.tree.dir, &c.base).unwrap();
    assert_eq!(report.base, c.base);
    assert_eq!(report.head, git(&c.tree.dir, &["rev-parse", "HEAD"]));
    // `helper` changed too but is not cited; `stop` moved unchanged.
    let ids: Vec<(&str, cite::Change)> = report
        .touched
        .iter()
        .map(|t| (t.id.as_str(), t.change))
        .collect();
    assert_eq!(
        ids,
        [(
            "OzoneManagerDoubleBuffer.flushTransactions",
            cite::Change::Changed
        )]
    );
    assert_eq!((report.unchanged, report.moved, report.absent), (0, 1, 0));
    let t = &report.touched[0];
    assert_eq!((t.base_lines, t.head_lines), (Some((6, 8)), Some((6, 8))));

    let (code, out, err) = c.cli_in(&c.tree.dir, &c.base, &[]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("changed  OzoneManagerDoubleBuffer.flushTransactions"),
        "{out}"
    );
    assert!(!out.contains("stop") && !out.contains("helper"), "{out}");
    // The cases that use it (the real scenarios' traces print this id), and links at both
    // commits.
    assert!(out.contains("    used by hdds-16092 "), "{out}");
    let head = git(&c.tree.dir, &["rev-parse", "HEAD"]);
    for commit in [&c.base, &head] {
        let url = format!("https://github.com/apache/ozone/blob/{commit}/{DB}#L6-L8");
        assert!(out.contains(&url), "{url} not in {out}");
    }
    assert!(out.contains("1 touched, 0 unchanged, 1 moved"), "{out}");

    // From HEAD to itself nothing is touched.
    let (code, out, _) = c.cli_in(&c.tree.dir, "HEAD", &[]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("0 touched, 2 unchanged, 0 moved"), "{out}");
}

#[test]
fn since_reads_git_not_the_work_tree() {
    let c = Change::new();
    // An uncommitted edit of `stop` is not part of HEAD.
    c.tree.edit(DB, "flushed = 0;", "flushed = 1;");
    let report = cite::since(&c.manifest(), &c.tree.dir, &c.base).unwrap();
    assert_eq!(report.touched.len(), 1);
    assert_eq!(report.moved, 1);

    // A bare clone and a shallow clone that fetched the base give the same report.
    let tmp = tempfile::tempdir().unwrap();
    let url = format!("file://{}", c.tree.dir.display());
    let bare = tmp.path().join("ozone.git");
    git(
        tmp.path(),
        &["clone", "-q", "--bare", &url, bare.to_str().unwrap()],
    );
    let shallow = tmp.path().join("shallow");
    git(
        tmp.path(),
        &["clone", "-q", "--depth=1", &url, shallow.to_str().unwrap()],
    );
    let (code, _, err) = c.cli_in(&shallow, &c.base, &[]);
    assert_eq!(code, 2, "the base is not fetched yet");
    assert!(
        err.contains(&format!("the revision `{}` is not in", c.base)),
        "{err}"
    );
    git(&shallow, &["fetch", "-q", "--depth=1", "origin", &c.base]);
    for dir in [&bare, &shallow] {
        let other = cite::since(&c.manifest(), dir, &c.base).unwrap();
        assert_eq!(other.touched, report.touched, "{}", dir.display());
        assert_eq!(other.moved, 1);
        let (code, out, err) = c.cli_in(dir, &c.base, &[]);
        assert_eq!(code, 1, "{out}{err}");
    }
}

#[test]
fn since_exits_2_on_bad_input() {
    let c = Change::new();
    let (code, out, err) = c.cli_in(&c.tree.dir, "no-such-rev", &[]);
    assert_eq!(code, 2, "{out}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("error: the revision `no-such-rev` is not in the git history"),
        "{err}"
    );
    // Not a git repository; a git repository that is not Ozone.
    let tmp = tempfile::tempdir().unwrap();
    let (code, _, err) = c.cli_in(tmp.path(), &c.base, &[]);
    assert_eq!(code, 2);
    assert!(err.contains("is not a git repository"), "{err}");
    git(tmp.path(), &["init", "-q"]);
    std::fs::write(tmp.path().join("README"), "x\n").unwrap();
    git(tmp.path(), &["add", "-A"]);
    git(tmp.path(), &["commit", "-q", "-m", "x"]);
    let (code, _, err) = c.cli_in(tmp.path(), "HEAD", &[]);
    assert_eq!(code, 2);
    assert!(err.contains("is not an Ozone source tree at HEAD"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn since_as_markdown_and_json() {
    let c = Change::new();
    let (code, out, err) = c.cli_in(&c.tree.dir, &c.base, &["--format", "markdown"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.starts_with("### ozone-ha-check: 1 cited Ozone method(s) touched\n"),
        "{out}"
    );
    let rows: Vec<&str> = out.lines().filter(|l| l.starts_with('|')).collect();
    assert_eq!(rows.len(), 3, "header, rule, one method: {out}");
    assert_eq!(
        rows[0],
        "| Method | Change | Scenarios to re-read | Base | Head |"
    );
    let row = rows[2];
    // Every scenario whose traces cite the method, hdds-16092 among them.
    assert!(
        row.starts_with("| `OzoneManagerDoubleBuffer.flushTransactions` | changed | `hdds-"),
        "{row}"
    );
    assert!(
        row.contains("`hdds-16092` (`crates/core/src/scenarios/hdds_16092.rs`; variants "),
        "{row}"
    );
    // A model of an older commit cites the double buffer there, not at the pin: a change of
    // the pin's method names none of them.
    for historical in [
        "hdds-7279",
        "hdds-8681",
        "hdds-8685",
        "hdds-8832",
        "hdds-10408",
        "hdds-10590",
        "hdds-11152",
        "hdds-11453",
    ] {
        assert!(
            !row.contains(&format!("`{historical}`")),
            "{historical}: {row}"
        );
    }
    assert!(
        row.contains(&format!(
            "[6-8](https://github.com/apache/ozone/blob/{}/{DB}#L6-L8)",
            c.base
        )),
        "{row}"
    );
    // The model file named is there.
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/src/scenarios/hdds_16092.rs");
    assert!(model.is_file());

    let (code, out, _) = c.cli_in(&c.tree.dir, "HEAD", &["--format", "markdown"]);
    assert_eq!(code, 0);
    assert!(
        out.starts_with("### ozone-ha-check: no cited Ozone method touched"),
        "{out}"
    );

    let (code, out, _) = c.cli_in(&c.tree.dir, &c.base, &["--format", "json"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["touches"], true);
    assert_eq!(v["moved"], 1);
    let t = &v["touched"][0];
    assert_eq!(t["id"], "OzoneManagerDoubleBuffer.flushTransactions");
    assert_eq!(t["change"], "changed");
    assert!(t["used_by"]
        .as_array()
        .unwrap()
        .iter()
        .any(|k| k["scenario"] == "hdds-16092"));
    assert!(t["head_url"].as_str().unwrap().ends_with("#L6-L8"));

    // Markdown needs --since.
    let (code, _, err) = cli(&[
        "--ozone",
        c.tree.dir.to_str().unwrap(),
        "--format",
        "markdown",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("--format markdown is for --since"), "{err}");
}

/// `ci/cite-pr.sh` (what the composite action runs) on `dir` from `base`, in `mode`, with
/// its summary appended to `summary`: the exit code and stdout.
fn cite_pr(c: &Change, base: &str, mode: &str, summary: &Path) -> (i32, String) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ci/cite-pr.sh");
    let out = Command::new("bash")
        .arg(script)
        .args([c.tree.dir.to_str().unwrap(), base, mode])
        .args(["--manifest", c.manifest.to_str().unwrap()])
        .args(["--usage-executions", "1"])
        .env("OZONE_HA_CHECK", env!("CARGO_BIN_EXE_ozone-ha-check"))
        .env("GITHUB_STEP_SUMMARY", summary)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}

#[test]
fn the_pull_request_script_fails_or_warns_and_writes_the_summary() {
    let c = Change::new();
    let tmp = tempfile::tempdir().unwrap();
    let summary = tmp.path().join("summary.md");
    let read = || std::fs::read_to_string(&summary).unwrap_or_default();

    let (code, out) = cite_pr(&c, &c.base, "fail", &summary);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("::error title=ozone-ha-check::"), "{out}");
    let table = read();
    assert!(
        table.contains("| `OzoneManagerDoubleBuffer.flushTransactions` | changed | `hdds-")
            && table.contains("`hdds-16092` (`crates/core/src/scenarios/hdds_16092.rs`"),
        "{table}"
    );
    assert!(!table.contains("stop"), "{table}");

    let (code, out) = cite_pr(&c, &c.base, "warn", &summary);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("::warning title=ozone-ha-check::"), "{out}");
    assert_eq!(read().matches("| Method |").count(), 2, "appended");

    let (code, out) = cite_pr(&c, "HEAD", "fail", &summary);
    assert_eq!(code, 0, "{out}");
    assert!(read().contains("no cited Ozone method touched"));

    let (code, out) = cite_pr(&c, "no-such-rev", "warn", &summary);
    assert_eq!(code, 2, "bad input fails even in warn mode: {out}");
    assert!(
        out.contains("the revision `no-such-rev` is not in"),
        "{out}"
    );
    let (code, out) = cite_pr(&c, &c.base, "maybe", &summary);
    assert_eq!(code, 2, "{out}");
}
