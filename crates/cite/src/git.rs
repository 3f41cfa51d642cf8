//! The few git commands citations need, run as `git -C DIR ...`.

use std::path::Path;
use std::process::Command;

/// Run git in `dir`; `Err` holds the command line and why it failed.
pub(super) fn run(dir: &Path, args: &[&str]) -> Result<String, (String, String)> {
    let shown = format!("git -C {} {}", dir.display(), args.join(" "));
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "core.quotepath=off"])
        .args(args)
        .output()
        .map_err(|e| (shown.clone(), e.to_string()))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        let err = String::from_utf8_lossy(&out.stderr).trim().to_string();
        Err((shown, err))
    }
}

/// Whether `dir` is in a git repository that holds `commit`; `Err` says why not: the
/// commit is not in its history (a shallow clone, another fork), or git's own error (not
/// a git repository at all).
pub(super) fn has_commit(dir: &Path, commit: &str) -> Result<(), String> {
    run(dir, &["cat-file", "-e", &format!("{commit}^{{commit}}")])
        .map(drop)
        .map_err(|(_, e)| {
            if e.is_empty() || run(dir, &["rev-parse", "--git-dir"]).is_ok() {
                format!("the commit {commit} is not in its git history")
            } else {
                e
            }
        })
}

/// `file` (relative to `dir`) at `commit`, if it exists there.
pub(super) fn show(dir: &Path, commit: &str, file: &str) -> Option<String> {
    run(dir, &["show", &format!("{commit}:./{file}")]).ok()
}

/// The commit `dir`'s checkout has checked out (`git rev-parse HEAD`), or why there is none.
pub(super) fn head(dir: &Path) -> Result<String, String> {
    run(dir, &["rev-parse", "--verify", "HEAD^{commit}"])
        .map(|out| out.trim().to_string())
        .map_err(|(_, e)| {
            if e.is_empty() {
                "no HEAD commit".to_string()
            } else {
                e
            }
        })
}
