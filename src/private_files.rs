//! Owner-only files: what the app keeps about a person (the state folder and everything in it:
//! settings, recordings and their journals and marks, device history and crash markers; the
//! log folder; partial model downloads) can be read by that person's account only. On Unix,
//! folders are created 0700 and files 0600 ([`create_dir_all`], [`open_options`],
//! [`write`]); folders and files created earlier with wider modes (0755 / 0644 before this
//! rule) are narrowed at start ([`narrow_tree`]: group and other bits cleared, the owner's
//! kept). Elsewhere there are no mode bits and all of this is plain creation.
//!
//! Every place that creates a file or folder under the state, log or models folder goes
//! through here; the bits themselves are read and set by `platform` (`file_modes`).

use std::fs::{DirBuilder, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The mode of a folder the app creates: the owner reads, writes and enters it; nobody else.
pub const DIR_MODE: u32 = 0o700;
/// The mode of a file the app creates: the owner reads and writes it; nobody else.
pub const FILE_MODE: u32 = 0o600;

/// Creates `dir` and its missing parents, owner-only. A folder that exists keeps its mode
/// (narrowed at start by [`narrow_tree`]).
///
/// # Errors
/// The OS's, as `std::fs::create_dir_all`.
pub fn create_dir_all(dir: &Path) -> io::Result<()> {
    let mut builder = DirBuilder::new();
    builder.recursive(true);
    crate::platform::dir_builder_mode(&mut builder, DIR_MODE);
    builder.create(dir)
}

/// `OpenOptions` whose newly created file is owner-only (add `.write(true).create(true)` or
/// `.create_new(true)` as needed). An existing file keeps its mode.
pub fn open_options() -> OpenOptions {
    let mut options = OpenOptions::new();
    crate::platform::open_options_mode(&mut options, FILE_MODE);
    options
}

/// Creates (or truncates) `path` for writing, owner-only when created; like `File::create`.
///
/// # Errors
/// The OS's, as `File::create`.
pub fn create_file(path: &Path) -> io::Result<File> {
    open_options()
        .write(true)
        .create(true)
        .truncate(true)
        .open(path)
}

/// Writes `bytes` to `path` (created owner-only, or truncated), like `std::fs::write`; for the
/// small marks and counters whose loss costs nothing. State that must survive a crash uses
/// `atomic_file`, which creates its files here too.
///
/// # Errors
/// The OS's, as `std::fs::write`.
pub fn write(path: &Path, bytes: &[u8]) -> io::Result<()> {
    create_file(path)?.write_all(bytes)
}

/// The mode `mode` is narrowed to when others can use the entry (any group or other bit set):
/// those bits cleared and the owner's kept (a read-only file stays read-only); `None` when it
/// is owner-only already.
pub fn narrowed(mode: u32) -> Option<u32> {
    (mode & 0o077 != 0).then_some(mode & 0o700)
}

/// What [`narrow_tree`] did.
#[derive(Debug, Default)]
pub struct Narrowing {
    /// The entries whose mode was wider than owner-only and is not any more.
    pub narrowed: Vec<PathBuf>,
    /// Entries that stay wider, and why (another owner, a read-only file system).
    pub failed: Vec<(PathBuf, io::Error)>,
}

impl Narrowing {
    /// Whether nothing was found wider than owner-only.
    pub fn is_empty(&self) -> bool {
        self.narrowed.is_empty() && self.failed.is_empty()
    }
}

/// Narrows `root` and everything under it (folders, files) to owner-only where it is wider
/// ([`narrowed`]). Links are neither followed nor changed (a models folder linked from a shared
/// disk stays as it is). A `root` that does not exist is nothing to do. Where the OS has no
/// mode bits this finds nothing.
pub fn narrow_tree(root: &Path) -> Narrowing {
    let mut done = Narrowing::default();
    narrow_into(root, &mut done);
    done
}

fn narrow_into(path: &Path, done: &mut Narrowing) {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return;
    };
    if meta.file_type().is_symlink() {
        return;
    }
    if let Some(mode) = crate::platform::mode_of(path) {
        if let Some(owner_only) = narrowed(mode) {
            match crate::platform::set_mode(path, owner_only) {
                Ok(()) => done.narrowed.push(path.to_path_buf()),
                Err(e) => done.failed.push((path.to_path_buf(), e)),
            }
        }
    }
    if meta.is_dir() {
        if let Ok(entries) = std::fs::read_dir(path) {
            for entry in entries.flatten() {
                narrow_into(&entry.path(), done);
            }
        }
    }
}

/// Narrows each of `roots` ([`narrow_tree`]): the app's start does it before it writes
/// anything (even before the logger makes its first file) and then [`Narrowing::log`]s it.
pub fn narrow_at_start(roots: &[&Path]) -> Narrowing {
    let mut all = Narrowing::default();
    for root in roots {
        let done = narrow_tree(root);
        all.narrowed.extend(done.narrowed);
        all.failed.extend(done.failed);
    }
    all
}

impl Narrowing {
    /// Says in the log what was narrowed (how many entries, the first few) and what could not
    /// be; nothing when all was owner-only already, so an old folder is spoken of once.
    pub fn log(&self) {
        if !self.narrowed.is_empty() {
            let first: Vec<String> = self
                .narrowed
                .iter()
                .take(3)
                .map(|p| p.display().to_string())
                .collect();
            tracing::warn!(
                count = self.narrowed.len(),
                first = first.join(", "),
                "the app's files were readable by other accounts: now owner-only"
            );
        }
        for (path, e) in &self.failed {
            tracing::warn!("{} stays readable by other accounts: {e}", path.display());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_wider_than_owner_only_lose_group_and_other_bits() {
        assert_eq!(narrowed(0o755), Some(0o700));
        assert_eq!(narrowed(0o644), Some(0o600));
        assert_eq!(narrowed(0o444), Some(0o400));
        assert_eq!(narrowed(0o640), Some(0o600));
        assert_eq!(narrowed(0o701), Some(0o700));
        assert_eq!(narrowed(0o700), None);
        assert_eq!(narrowed(0o600), None);
        assert_eq!(narrowed(0o400), None);
    }

    #[test]
    fn a_missing_root_is_nothing_to_do() {
        let dir = tempfile::tempdir().unwrap();
        assert!(narrow_tree(&dir.path().join("missing")).is_empty());
    }
}

/// Unix: the modes themselves.
#[cfg(all(test, unix))]
mod unix_tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn mode(path: &Path) -> u32 {
        std::fs::symlink_metadata(path)
            .unwrap()
            .permissions()
            .mode()
            & 0o777
    }

    fn set(path: &Path, mode: u32) {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    #[test]
    fn folders_and_files_are_created_owner_only_whatever_the_umask_allows() {
        let dir = tempfile::tempdir().unwrap();
        let deep = dir.path().join("state").join("recordings");
        create_dir_all(&deep).unwrap();
        assert_eq!(mode(&dir.path().join("state")), DIR_MODE);
        assert_eq!(mode(&deep), DIR_MODE);
        let file = deep.join("mark");
        write(&file, b"1").unwrap();
        assert_eq!(mode(&file), FILE_MODE);
        let created = deep.join("created");
        create_file(&created).unwrap().write_all(b"x").unwrap();
        assert_eq!(mode(&created), FILE_MODE);
        let opened = deep.join("opened");
        open_options()
            .write(true)
            .create_new(true)
            .open(&opened)
            .unwrap();
        assert_eq!(mode(&opened), FILE_MODE);
    }

    #[test]
    fn an_old_wide_state_folder_is_narrowed_once_and_links_are_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        let recordings = state.join("recordings");
        std::fs::create_dir_all(&recordings).unwrap();
        std::fs::write(state.join("settings.json"), b"{}").unwrap();
        std::fs::write(recordings.join("rec-1.wav"), b"RIFF").unwrap();
        std::fs::write(recordings.join("read-only"), b"x").unwrap();
        set(&state, 0o755);
        set(&recordings, 0o755);
        set(&state.join("settings.json"), 0o644);
        set(&recordings.join("rec-1.wav"), 0o644);
        set(&recordings.join("read-only"), 0o444);
        // A folder elsewhere, linked in: neither it nor the link is changed.
        let shared = dir.path().join("shared-models");
        std::fs::create_dir(&shared).unwrap();
        set(&shared, 0o755);
        std::os::unix::fs::symlink(&shared, state.join("models")).unwrap();

        let done = narrow_tree(&state);
        assert!(done.failed.is_empty(), "{:?}", done.failed);
        assert_eq!(done.narrowed.len(), 5, "{:?}", done.narrowed);
        assert_eq!(mode(&state), 0o700);
        assert_eq!(mode(&recordings), 0o700);
        assert_eq!(mode(&state.join("settings.json")), 0o600);
        assert_eq!(mode(&recordings.join("rec-1.wav")), 0o600);
        assert_eq!(mode(&recordings.join("read-only")), 0o400);
        assert_eq!(mode(&shared), 0o755);

        // Once: the next start finds nothing to say.
        assert!(narrow_at_start(&[&state]).is_empty());
    }
}
