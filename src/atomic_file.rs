//! Writing a small state file so that readers see the old contents or the new, never a part:
//! a temporary file in the same folder (so the rename is atomic), fsync, rename over the
//! target, then fsync the folder. Used by every JSON state file the app keeps. A process that
//! dies between the write and the rename leaves its temporary file: [`remove_stale_temps`]
//! clears those at the next start. Files are created owner-only (`private_files`).

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

/// Replaces `path` with `bytes` atomically; the folder must exist. On failure the temporary
/// file is removed and `path` is untouched.
pub fn write(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let temp = temp_path_for(path);
    let written = write_synced(&temp, bytes).and_then(|()| fs::rename(&temp, path));
    if written.is_err() {
        let _ = fs::remove_file(&temp);
    }
    written?;
    sync_dir(path.parent().unwrap_or(Path::new(".")));
    Ok(())
}

/// `.<name>.tmp-<pid>-<n>` next to `path`: same folder, hidden, and unique per process and
/// per write (two threads saving at once don't share a temporary file).
fn temp_path_for(path: &Path) -> PathBuf {
    static WRITES: AtomicU64 = AtomicU64::new(0);
    let n = WRITES.fetch_add(1, Ordering::Relaxed);
    let name = path
        .file_name()
        .map_or_else(|| "file".into(), |name| name.to_string_lossy().into_owned());
    path.with_file_name(format!(".{name}.tmp-{}-{n}", std::process::id()))
}

/// A temporary file older than this belongs to a write that will never finish (a write takes
/// milliseconds; a younger one may be another process's, e.g. a command run meanwhile).
pub const STALE_AFTER: Duration = Duration::from_secs(60);

/// Removes from `dir` the temporary files of [`write`]s that a crash interrupted (older than
/// [`STALE_AFTER`]); returns how many. Nothing else is touched.
pub fn remove_stale_temps(dir: &Path) -> usize {
    let Ok(entries) = fs::read_dir(dir) else {
        return 0;
    };
    let now = SystemTime::now();
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            continue;
        };
        if !is_temp_name(name) {
            continue;
        }
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|modified| now.duration_since(modified).ok())
            .is_some_and(|age| age >= STALE_AFTER);
        if old && entry.file_type().is_ok_and(|t| t.is_file()) {
            match fs::remove_file(entry.path()) {
                Ok(()) => {
                    removed += 1;
                    tracing::info!(file = name, "leftover of an interrupted save removed");
                }
                Err(e) => tracing::warn!("{}: {e}", entry.path().display()),
            }
        }
    }
    removed
}

/// Whether `name` is one of [`temp_path_for`]'s: `.<name>.tmp-<pid>-<n>`.
fn is_temp_name(name: &str) -> bool {
    let Some((_, suffix)) = name.strip_prefix('.').and_then(|n| n.rsplit_once(".tmp-")) else {
        return false;
    };
    let Some((pid, n)) = suffix.split_once('-') else {
        return false;
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    digits(pid) && digits(n)
}

fn write_synced(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = crate::private_files::create_file(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

/// Makes the rename itself durable. Best effort: not every OS lets a folder be opened.
fn sync_dir(dir: &Path) {
    if let Ok(handle) = fs::File::open(dir) {
        let _ = handle.sync_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_the_file_and_leaves_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.json");
        write(&path, b"old").unwrap();
        write(&path, b"new").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"new");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_failed_write_keeps_the_old_file_and_cleans_up() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.json");
        write(&path, b"old").unwrap();
        // Renaming onto a non-empty directory fails on every OS.
        let blocked = dir.path().join("blocked");
        fs::create_dir_all(blocked.join("inside")).unwrap();
        assert!(write(&blocked, b"x").is_err());
        assert_eq!(fs::read(&path).unwrap(), b"old");
        let names: Vec<String> = fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        assert!(names.iter().all(|n| !n.contains(".tmp-")), "{names:?}");
    }

    #[test]
    fn stale_temporaries_of_interrupted_writes_are_removed_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let stale = dir.path().join(".settings.json.tmp-4242-0");
        let fresh = dir.path().join(".history.json.tmp-4243-7");
        let others = ["settings.json", ".settings.json.tmp-x-1", "notes.tmp-1-2"];
        for name in [&stale, &fresh] {
            fs::write(name, b"{").unwrap();
        }
        for name in others {
            fs::write(dir.path().join(name), b"keep").unwrap();
        }
        let long_ago = SystemTime::now() - 2 * STALE_AFTER;
        fs::File::options()
            .write(true)
            .open(&stale)
            .unwrap()
            .set_modified(long_ago)
            .unwrap();
        for name in others {
            fs::File::options()
                .write(true)
                .open(dir.path().join(name))
                .unwrap()
                .set_modified(long_ago)
                .unwrap();
        }
        assert_eq!(remove_stale_temps(dir.path()), 1);
        assert!(!stale.exists());
        assert!(fresh.exists(), "a write that may still be going on");
        for name in others {
            assert!(dir.path().join(name).exists(), "{name}");
        }
        assert!(is_temp_name(
            temp_path_for(&dir.path().join("a.json"))
                .file_name()
                .unwrap()
                .to_str()
                .unwrap()
        ));
        assert_eq!(remove_stale_temps(&dir.path().join("missing")), 0);
    }
}
