//! The file permission bits of Unix (macOS and Linux alike): read, set, and asked for when a
//! folder or file is created. Elsewhere there are no such bits: reads give `None`, the rest
//! does nothing. Which modes the app wants, and when a mode is too wide, is decided in the
//! portable `private_files`.

use std::fs::{DirBuilder, OpenOptions};
use std::io;
use std::path::Path;

/// The permission bits (`rwxrwxrwx`, 0o777) of `path` itself (a link is not followed); `None`
/// where the OS has none or `path` cannot be read.
pub fn mode_of(path: &Path) -> Option<u32> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::symlink_metadata(path)
            .ok()
            .map(|meta| meta.permissions().mode() & 0o777)
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

/// Sets the permission bits of `path` to `mode` (nothing where the OS has none).
///
/// # Errors
/// The OS's refusal (not the owner, read-only file system, gone).
pub fn set_mode(path: &Path, mode: u32) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
    }
    #[cfg(not(unix))]
    {
        let _ = (path, mode);
        Ok(())
    }
}

/// Folders `builder` creates get `mode` (before the umask, which only takes bits away).
pub fn dir_builder_mode(builder: &mut DirBuilder, mode: u32) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(mode);
    }
    #[cfg(not(unix))]
    {
        let _ = (builder, mode);
    }
}

/// A file `options` creates gets `mode` (before the umask); an existing file keeps its own.
pub fn open_options_mode(options: &mut OpenOptions, mode: u32) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(mode);
    }
    #[cfg(not(unix))]
    {
        let _ = (options, mode);
    }
}
