//! One app per user: an exclusive, non-blocking lock on `instance.lock` in the state folder.
//! The lock belongs to the open file, so it is released when [`InstanceLock`] is dropped and by
//! the OS when the process dies — a crash never leaves a lock that blocks the next launch. The
//! file holds the owner's pid, only so that the "already running" message can name it.

use std::fs::{self, File, TryLockError};
use std::io::{self, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// The lock file's name inside the folder given to [`InstanceLock::acquire`].
pub const LOCK_FILE: &str = "instance.lock";

/// Why this process cannot be the app's one instance.
#[derive(Debug, thiserror::Error)]
pub enum InstanceError {
    #[error(
        "whisper-dictation is already running{} (lock held on {})",
        .pid.map(|p| format!(" as process {p}")).unwrap_or_default(),
        .lock_file.display()
    )]
    AlreadyRunning {
        /// The running instance's pid, when its lock file could be read.
        pid: Option<u32>,
        lock_file: PathBuf,
    },
    #[error("cannot use the instance lock {}: {source}", .path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

/// Held for as long as this process is the running instance.
#[derive(Debug)]
pub struct InstanceLock {
    file: File,
    path: PathBuf,
}

impl InstanceLock {
    /// Creates `dir` if needed and locks `dir/instance.lock`, then records this process's pid
    /// in it.
    ///
    /// # Errors
    /// [`InstanceError::AlreadyRunning`] when another instance holds the lock (with its pid if
    /// readable); [`InstanceError::Io`] naming the file for anything else.
    pub fn acquire(dir: &Path) -> Result<InstanceLock, InstanceError> {
        let path = dir.join(LOCK_FILE);
        let io_error = |source| InstanceError::Io {
            path: path.clone(),
            source,
        };
        crate::private_files::create_dir_all(dir).map_err(|source| InstanceError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        // Not truncated on open: the pid in it belongs to whoever holds the lock.
        let mut file = crate::private_files::open_options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io_error)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                return Err(InstanceError::AlreadyRunning {
                    pid: read_pid(&path),
                    lock_file: path,
                })
            }
            Err(TryLockError::Error(e)) => return Err(io_error(e)),
        }
        let pid = std::process::id();
        file.set_len(0)
            .and_then(|()| file.seek(SeekFrom::Start(0)))
            .and_then(|_| writeln!(file, "{pid}"))
            .and_then(|()| file.sync_data())
            .map_err(io_error)?;
        Ok(InstanceLock { file, path })
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for InstanceLock {
    fn drop(&mut self) {
        // Closing the file releases the lock too; unlocking first makes it explicit. The file
        // stays: removing it would race a new instance that has just opened it.
        let _ = self.file.unlock();
    }
}

/// The pid recorded in a lock file, if it can be read and parsed.
fn read_pid(path: &Path) -> Option<u32> {
    fs::read_to_string(path).ok()?.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_instance_is_refused_and_told_the_first_pid() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        let first = InstanceLock::acquire(&state).unwrap();
        assert_eq!(first.path(), state.join(LOCK_FILE));
        assert_eq!(read_pid(first.path()), Some(std::process::id()));

        let err = InstanceLock::acquire(&state).unwrap_err();
        match &err {
            InstanceError::AlreadyRunning { pid, lock_file } => {
                assert_eq!(*pid, Some(std::process::id()));
                assert_eq!(lock_file, &state.join(LOCK_FILE));
            }
            other => panic!("{other:?}"),
        }
        let message = err.to_string();
        assert!(message.contains("already running"), "{message}");
        assert!(
            message.contains(&std::process::id().to_string()),
            "{message}"
        );
        // The refused attempt did not wipe the owner's pid.
        assert_eq!(read_pid(first.path()), Some(std::process::id()));

        drop(first);
        let again = InstanceLock::acquire(&state).unwrap();
        assert_eq!(read_pid(again.path()), Some(std::process::id()));
    }

    #[test]
    fn a_stale_file_from_a_dead_process_does_not_block() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(LOCK_FILE);
        fs::write(&path, "4000000000 and some leftover text\n").unwrap();
        let lock = InstanceLock::acquire(dir.path()).unwrap();
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            format!("{}\n", std::process::id())
        );
        drop(lock);
    }

    #[test]
    fn an_unusable_folder_is_an_io_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("not-a-folder");
        fs::write(&file, b"x").unwrap();
        let err = InstanceLock::acquire(&file).unwrap_err();
        assert!(matches!(err, InstanceError::Io { .. }), "{err:?}");
        assert!(err.to_string().contains("not-a-folder"), "{err}");
    }
}
