//! Files written atomically: a reader sees the old file or the new one, never half of
//! one, even if the run is killed mid-write. Every report file goes through here, and so
//! does the one fault a test injects to stand for a full disk.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::Serialize;

/// Distinguishes temporary files of concurrent writers within one process.
static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// **Test-only** fault injection: with `UTF8CONF_TEST_FAIL_WRITES_AFTER=N` set, the first
/// `N` calls of [`write_atomically`] in the process succeed and every later one fails
/// half-way through its temporary file with "No space left on device" (a disk that
/// fills up mid-run). The integration tests use it because a small file system cannot be
/// mounted inside `cargo test`; nothing else should set it.
pub const FAIL_WRITES_AFTER_VARIABLE: &str = "UTF8CONF_TEST_FAIL_WRITES_AFTER";

/// Calls of [`write_atomically`] so far (for [`FAIL_WRITES_AFTER_VARIABLE`]).
static WRITES_STARTED: AtomicU64 = AtomicU64::new(0);

/// True when this write should fail as on a full disk ([`FAIL_WRITES_AFTER_VARIABLE`]).
fn simulated_full_disk() -> bool {
    static LIMIT: std::sync::OnceLock<Option<u64>> = std::sync::OnceLock::new();
    let limit = LIMIT.get_or_init(|| {
        std::env::var(FAIL_WRITES_AFTER_VARIABLE)
            .ok()
            .and_then(|value| value.trim().parse().ok())
    });
    limit.is_some_and(|limit| WRITES_STARTED.fetch_add(1, Ordering::SeqCst) >= limit)
}

/// Writes `contents` to `path` atomically: into a temporary file in the same directory
/// (so the rename cannot cross file systems), flushed to disk with `fsync`, then renamed
/// over `path` (atomic on POSIX; `rename(2)`: "If newpath already exists, it will be
/// atomically replaced"), and finally the directory is synced so the rename itself is
/// durable.
pub fn write_atomically(path: &Path, contents: &[u8]) -> io::Result<()> {
    let directory = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let file_name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no file name"))?;
    let temporary = directory.join(format!(
        ".{}.tmp-{}-{}",
        file_name.to_string_lossy(),
        std::process::id(),
        TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let result = (|| {
        let mut file = File::create(&temporary)?;
        if simulated_full_disk() {
            file.write_all(&contents[..contents.len() / 2])?;
            return Err(io::Error::new(
                io::ErrorKind::StorageFull,
                "No space left on device (simulated for a test)",
            ));
        }
        file.write_all(contents)?;
        file.sync_all()?;
        drop(file);
        fs::rename(&temporary, path)
    })();
    if let Err(error) = result {
        let _ = fs::remove_file(&temporary);
        // Name the file: "Permission denied" alone does not say where.
        return Err(io::Error::new(
            error.kind(),
            format!("cannot write {}: {error}", path.display()),
        ));
    }
    // Directory fsync is not supported everywhere (e.g. on Windows); the rename is done.
    if let Ok(dir) = File::open(directory) {
        let _ = dir.sync_all();
    }
    Ok(())
}

/// Serialises `value` as pretty JSON (with a final newline) and writes it atomically.
pub fn write_json_atomically(path: &Path, value: &impl Serialize) -> io::Result<()> {
    let mut text = serde_json::to_string_pretty(value).map_err(io::Error::other)?;
    text.push('\n');
    write_atomically(path, text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_and_leaves_no_temporary() {
        let dir = std::env::temp_dir().join(format!("utf8conf-atomic-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("file.json");
        write_atomically(&path, b"first").unwrap();
        write_atomically(&path, b"second").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"second");
        let names: Vec<String> = fs::read_dir(&dir)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, vec!["file.json".to_string()]);
        fs::remove_dir_all(&dir).unwrap();
    }
}
