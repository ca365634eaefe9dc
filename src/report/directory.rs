//! An explicit report directory (`--out DIR`), claimed at the start of a command and
//! filled at its end, so that a report is never silently overwritten and two commands
//! never both write one directory.
//!
//! - **Claimed once.** [`claim`] refuses a directory that already holds anything (a
//!   report, or whatever else the user keeps there), unless `force` is set, and takes a
//!   lock file beside it (`.DIR.lock`, created with `O_EXCL`, holding the claimant's
//!   pid): a second command with the same `DIR` is refused while the first runs. A lock
//!   whose process is gone (a killed command) is stale and taken over.
//! - **Written aside, then renamed.** The report is written into a fresh staging
//!   directory beside `DIR` ([`Claim::staging`]); [`Claim::commit`] renames it to `DIR`.
//!   An existing `DIR` (with `force`) is replaced atomically on Linux, by exchanging the
//!   two names (`renameat2(RENAME_EXCHANGE)`) and deleting the old contents afterwards:
//!   a reader sees the old report or the new one, never a mixture. Elsewhere the old
//!   directory is first renamed away, so `DIR` is briefly absent.

use std::io;
use std::path::{Path, PathBuf};

/// A claimed report directory.
#[derive(Debug)]
pub struct Claim {
    target: PathBuf,
    staging: PathBuf,
    lock: PathBuf,
    committed: bool,
}

/// Claims `target` for one report. Fails when it already holds something and `force` is
/// not set, or when another running command claimed it.
pub fn claim(target: &Path, force: bool) -> io::Result<Claim> {
    let name = target
        .file_name()
        .filter(|name| *name != "..")
        .ok_or_else(|| io::Error::other(format!("{} names no directory", target.display())))?
        .to_string_lossy()
        .into_owned();
    let parent = match target.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if !force && holds_something(target)? {
        return Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!(
                "{} already exists and is not empty; choose another --out, or add --force to replace it",
                target.display()
            ),
        ));
    }
    std::fs::create_dir_all(&parent)?;
    let lock = parent.join(format!(".{name}.lock"));
    take_lock(&lock, target)?;
    let staging = parent.join(format!(".{name}.writing-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&staging);
    let claim = Claim {
        target: target.to_path_buf(),
        staging,
        lock,
        committed: false,
    };
    std::fs::create_dir(&claim.staging)?;
    Ok(claim)
}

impl Claim {
    /// The directory to write the report into.
    pub fn staging(&self) -> &Path {
        &self.staging
    }

    /// The directory the report will be in once committed.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Moves the written report to its place, replacing what was there.
    pub fn commit(mut self) -> io::Result<()> {
        let result = self.replace();
        self.committed = result.is_ok();
        result
    }

    fn replace(&self) -> io::Result<()> {
        let exists = std::fs::symlink_metadata(&self.target).is_ok();
        if !exists || std::fs::remove_dir(&self.target).is_ok() {
            return std::fs::rename(&self.staging, &self.target);
        }
        if exchange(&self.staging, &self.target).is_ok() {
            // The staging name now holds the old report (or the old symlink).
            return remove_any(&self.staging);
        }
        let old = self.staging.with_extension("old");
        std::fs::rename(&self.target, &old)?;
        std::fs::rename(&self.staging, &self.target)?;
        remove_any(&old)
    }
}

impl Drop for Claim {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_dir_all(&self.staging);
        }
        let _ = std::fs::remove_file(&self.lock);
    }
}

/// True when `path` exists and is not an empty directory.
fn holds_something(path: &Path) -> io::Result<bool> {
    match std::fs::read_dir(path) {
        Ok(mut entries) => Ok(entries.next().is_some()),
        Err(error) if error.kind() == io::ErrorKind::NotFound => {
            // A dangling symlink or nothing: only the former holds something.
            Ok(std::fs::symlink_metadata(path).is_ok())
        }
        // A file, or a directory that cannot be read: not a place for a report.
        Err(_) => Ok(true),
    }
}

/// Creates the lock file, or takes over a stale one.
fn take_lock(lock: &Path, target: &Path) -> io::Result<()> {
    use std::io::Write;
    for _ in 0..2 {
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(lock)
        {
            Ok(mut file) => return write!(file, "{}", std::process::id()),
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {
                let holder: Option<i32> = std::fs::read_to_string(lock)
                    .ok()
                    .and_then(|text| text.trim().parse().ok());
                if let Some(pid) = holder.filter(|&pid| alive(pid)) {
                    return Err(io::Error::new(
                        io::ErrorKind::AlreadyExists,
                        format!(
                            "{} is being written by another utf8conf (pid {pid}); choose another --out",
                            target.display()
                        ),
                    ));
                }
                // Stale: its command is gone.
                let _ = std::fs::remove_file(lock);
            }
            Err(error) => return Err(error),
        }
    }
    Err(io::Error::other(format!(
        "cannot lock {} (lock file {})",
        target.display(),
        lock.display()
    )))
}

/// True when a process `pid` exists (kill with signal 0 checks without sending).
fn alive(pid: i32) -> bool {
    #[cfg(unix)]
    {
        if pid <= 0 {
            return false;
        }
        // SAFETY: kill(2) with signal 0 sends nothing; it takes plain integers.
        let result = unsafe { libc::kill(pid, 0) };
        result == 0 || io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
    }
    #[cfg(not(unix))]
    {
        let _ = pid;
        true
    }
}

/// Swaps two paths atomically (Linux `renameat2` with `RENAME_EXCHANGE`).
fn exchange(a: &Path, b: &Path) -> io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        use std::ffi::CString;
        use std::os::unix::ffi::OsStrExt;
        let a = CString::new(a.as_os_str().as_bytes()).map_err(io::Error::other)?;
        let b = CString::new(b.as_os_str().as_bytes()).map_err(io::Error::other)?;
        // SAFETY: both paths are NUL-terminated strings we own for the call; AT_FDCWD
        // resolves them like open(2) would.
        let result = unsafe {
            libc::renameat2(
                libc::AT_FDCWD,
                a.as_ptr(),
                libc::AT_FDCWD,
                b.as_ptr(),
                libc::RENAME_EXCHANGE,
            )
        };
        if result == 0 {
            Ok(())
        } else {
            Err(io::Error::last_os_error())
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (a, b);
        Err(io::Error::from(io::ErrorKind::Unsupported))
    }
}

/// Removes a directory tree, or a file or symlink.
fn remove_any(path: &Path) -> io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(path),
        Ok(_) => std::fs::remove_file(path),
        Err(_) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("utf8conf-claim-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_directory_holding_a_report_is_refused_without_force_and_replaced_with_it() {
        let dir = scratch("force");
        let target = dir.join("out");
        std::fs::create_dir(&target).unwrap();
        std::fs::write(target.join("conformance.json"), "old").unwrap();
        let refused = claim(&target, false).unwrap_err();
        assert!(refused.to_string().contains("--force"), "{refused}");
        let claimed = claim(&target, true).unwrap();
        std::fs::write(claimed.staging().join("conformance.json"), "new").unwrap();
        claimed.commit().unwrap();
        assert_eq!(
            std::fs::read_to_string(target.join("conformance.json")).unwrap(),
            "new"
        );
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
        assert_eq!(left.len(), 1, "no staging or lock left: {left:?}");
    }

    #[test]
    fn two_claims_of_one_directory_cannot_both_succeed() {
        let dir = scratch("twice");
        let target = dir.join("out");
        let first = claim(&target, false).unwrap();
        let second = claim(&target, true).unwrap_err();
        assert!(second.to_string().contains("another utf8conf"), "{second}");
        drop(first);
        let third = claim(&target, false).unwrap();
        std::fs::write(third.staging().join("a"), "x").unwrap();
        third.commit().unwrap();
        assert!(target.join("a").exists());
    }

    #[test]
    fn an_empty_existing_directory_is_used() {
        let dir = scratch("empty");
        let target = dir.join("out");
        std::fs::create_dir(&target).unwrap();
        let claimed = claim(&target, false).unwrap();
        std::fs::write(claimed.staging().join("a"), "x").unwrap();
        claimed.commit().unwrap();
        assert!(target.join("a").exists());
    }
}
