//! Where a command's report goes: the directory `--out` claimed (written in its staging
//! copy and moved into place), or a new one under `reports/` that no other run shares.

use std::path::{Path, PathBuf};

use super::CliError;
use crate::report::directory;

/// Writes a report with `write` into the claimed `--out` directory (its staging copy), or
/// into a new directory `reports/<default>`, and returns where the report now is. A claim
/// is moved into place even after a write error, so what was written is where it was to
/// be, and the error then names those places.
pub(super) fn write_report_directory(
    claim: Option<directory::Claim>,
    default: &str,
    write: impl FnOnce(&Path) -> Result<(), CliError>,
) -> Result<PathBuf, CliError> {
    let (directory, shown) = match &claim {
        Some(claim) => (claim.staging().to_path_buf(), claim.target().to_path_buf()),
        None => {
            let directory = claim_directory(Path::new("reports"), default)?;
            (directory.clone(), directory)
        }
    };
    let written = write(&directory);
    if let Some(claim) = claim {
        claim.commit().map_err(|e| {
            CliError(format!(
                "cannot move the report to {}: {e}",
                shown.display()
            ))
        })?;
    }
    written.map_err(|CliError(message)| {
        CliError(message.replace(
            &directory.display().to_string(),
            &shown.display().to_string(),
        ))
    })?;
    Ok(shown)
}

/// Creates `parent/name` (or `name-2`, `name-3`, ...: the first that does not exist yet)
/// and returns it. `create_dir` fails when the directory exists, so two checks started
/// in the same second never share one.
pub(super) fn claim_directory(parent: &Path, name: &str) -> Result<PathBuf, CliError> {
    std::fs::create_dir_all(parent)
        .map_err(|e| CliError(format!("cannot create {}: {e}", parent.display())))?;
    for attempt in 1..=1000 {
        let candidate = if attempt == 1 {
            parent.join(name)
        } else {
            parent.join(format!("{name}-{attempt}"))
        };
        match std::fs::create_dir(&candidate) {
            Ok(()) => return Ok(candidate),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(CliError(format!(
                    "cannot create {}: {e}",
                    candidate.display()
                )))
            }
        }
    }
    Err(CliError(format!(
        "cannot create {}: 1000 directories of that name exist",
        parent.join(name).display()
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claimed_directories_are_never_shared() {
        let parent = std::env::temp_dir().join(format!("utf8conf-claim-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&parent);
        let first = claim_directory(&parent, "check-x-20260101T000000Z").unwrap();
        let second = claim_directory(&parent, "check-x-20260101T000000Z").unwrap();
        assert_ne!(first, second);
        assert!(second.ends_with("check-x-20260101T000000Z-2"));
        let _ = std::fs::remove_dir_all(&parent);
    }
}
