//! Writing a small state file so that readers see the old contents or the new, never a part:
//! a temporary file in the same folder (so the rename is atomic), fsync, rename over the
//! target, then fsync the folder. Used by every JSON state file the app keeps.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

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

fn write_synced(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = fs::File::create(path)?;
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
}
