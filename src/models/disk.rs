//! The two file-system facts a download needs beyond reading and writing: how much space is
//! free where the model goes (checked before the first byte is fetched), and a lock so that
//! two downloads of the same model (two menu clicks, the menu and the CLI) never write into
//! the same temporary folder at once.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

/// Bytes available to this user on the file system holding `path` (`statvfs`: blocks
/// available to unprivileged users × fragment size).
#[cfg(unix)]
pub fn available_space(path: &Path) -> io::Result<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c_path = std::ffi::CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "path with a NUL byte"))?;
    // SAFETY: statvfs fills the zeroed struct and reads a valid NUL-terminated path.
    let mut stats: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(c_path.as_ptr(), &mut stats) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // The field widths differ between Linux (u64) and macOS (u32 block counts).
    #[allow(clippy::unnecessary_cast)]
    Ok((stats.f_bavail as u64).saturating_mul(stats.f_frsize as u64))
}

/// Elsewhere the check is skipped (reported as unlimited).
#[cfg(not(unix))]
pub fn available_space(_path: &Path) -> io::Result<u64> {
    Ok(u64::MAX)
}

/// An exclusive lock on a file, held while this value lives. The OS drops it when the process
/// ends, so a crashed download never leaves a stale lock behind.
#[derive(Debug)]
pub struct FileLock {
    _file: File,
    pub path: PathBuf,
}

impl FileLock {
    /// Takes the lock at `path` without waiting: `Ok(None)` when another download holds it.
    pub fn try_acquire(path: &Path) -> io::Result<Option<FileLock>> {
        let file = crate::private_files::open_options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)?;
        if !try_lock(&file)? {
            return Ok(None);
        }
        Ok(Some(FileLock {
            _file: file,
            path: path.to_path_buf(),
        }))
    }
}

#[cfg(unix)]
fn try_lock(file: &File) -> io::Result<bool> {
    use std::os::unix::io::AsRawFd;
    // SAFETY: flock on a descriptor this function's caller owns for the lock's lifetime.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
        return Ok(true);
    }
    let error = io::Error::last_os_error();
    if error.kind() == io::ErrorKind::WouldBlock {
        Ok(false)
    } else {
        Err(error)
    }
}

#[cfg(not(unix))]
fn try_lock(_file: &File) -> io::Result<bool> {
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn space_is_reported_for_a_real_folder() {
        let dir = tempfile::tempdir().unwrap();
        assert!(available_space(dir.path()).unwrap() > 0);
        assert!(available_space(&dir.path().join("absent")).is_err());
    }

    #[test]
    fn a_lock_is_exclusive_until_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".m.lock");
        let first = FileLock::try_acquire(&path).unwrap().expect("free");
        assert!(FileLock::try_acquire(&path).unwrap().is_none());
        drop(first);
        assert!(FileLock::try_acquire(&path).unwrap().is_some());
    }
}
