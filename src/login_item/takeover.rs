//! Who may take a launch-at-login entry over at start: what kind of copy of the app an
//! executable is (an `.app` bundle, a translocated copy, a cargo build, a loose binary), read
//! from its path alone, the executable an existing entry starts, read back from the text
//! `login_item` writes, and the rule between the two ([`may_repoint`]). Portable: the Linux
//! tests cover the macOS rule too.

use super::{LoginItemKind, DESKTOP_EXEC_PREFIX};
use crate::bundle::Location;
use std::path::{Path, PathBuf};

/// What kind of copy of the app an executable is, read from its path alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AppCopy {
    /// `X.app/Contents/MacOS/<exe>`, not translocated: an installed Mac app.
    Bundle,
    /// Run by macOS from a temporary App Translocation mount (see `bundle`).
    Translocated,
    /// Inside a cargo `target/` folder (`target/<profile>/…`, `target/<triple>/<profile>/…`):
    /// a development build.
    CargoBuild,
    /// Any other binary (`/usr/local/bin`, `~/.local/bin`, `/opt/…`).
    Loose,
}

impl AppCopy {
    pub fn of(exe: &Path) -> AppCopy {
        let location = Location::of(exe);
        if location.translocated {
            AppCopy::Translocated
        } else if location.bundle.is_some() {
            AppCopy::Bundle
        } else if in_cargo_target(exe) {
            AppCopy::CargoBuild
        } else {
            AppCopy::Loose
        }
    }

    /// Whether this is an installed copy for `kind`: the one kind of copy a launch-at-login
    /// entry may follow at start.
    fn installed_for(self, kind: LoginItemKind) -> bool {
        match kind {
            LoginItemKind::LaunchAgent => self == AppCopy::Bundle,
            LoginItemKind::XdgAutostart => matches!(self, AppCopy::Bundle | AppCopy::Loose),
        }
    }
}

/// A folder named `target` with a cargo profile folder (`debug`, `release`) below it, directly
/// or under a target triple, on the way to the executable.
fn in_cargo_target(exe: &Path) -> bool {
    let dirs: Vec<&std::ffi::OsStr> = exe.parent().map(|p| p.iter().collect()).unwrap_or_default();
    dirs.iter().enumerate().any(|(i, dir)| {
        *dir == "target"
            && dirs[i + 1..]
                .iter()
                .take(2)
                .any(|d| *d == "debug" || *d == "release")
    })
}

/// Whether the app running from `running` may rewrite, at start, an existing entry of `kind`
/// that starts `current` (`None`: the file is not one this app can read). The same
/// executable may always refresh its own entry. Otherwise both must be installed copies
/// (`AppCopy::installed_for`: a bundle on macOS; on Linux anything outside a cargo `target/`),
/// except that an entry pointing into a translocated copy (temporary, gone after the next
/// launch) may be taken by any installed copy. A translocated or development copy never
/// rewrites another's entry.
pub fn may_repoint(kind: LoginItemKind, running: &Path, current: Option<&Path>) -> bool {
    let Some(current) = current else {
        return false;
    };
    if current == running {
        return true;
    }
    let running = AppCopy::of(running);
    let current = AppCopy::of(current);
    running.installed_for(kind) && (current.installed_for(kind) || current == AppCopy::Translocated)
}

/// The executable an entry of `kind` starts, read back from its text as this module writes it
/// (`None` when it is not in that form).
pub fn entry_target(kind: LoginItemKind, text: &str) -> Option<PathBuf> {
    match kind {
        LoginItemKind::LaunchAgent => plist_program(text),
        LoginItemKind::XdgAutostart => desktop_exec_program(text),
    }
}

/// The first `ProgramArguments` string of a LaunchAgent plist in XML form.
fn plist_program(text: &str) -> Option<PathBuf> {
    let (_, after) = text.split_once("<key>ProgramArguments</key>")?;
    let after = after.trim_start().strip_prefix("<array>")?.trim_start();
    let (value, _) = after.strip_prefix("<string>")?.split_once("</string>")?;
    Some(PathBuf::from(xml_unescape(value)))
}

/// The program of an autostart entry's `Exec=` line: one quoted argument as
/// `desktop_exec_quote` writes it, after [`DESKTOP_EXEC_PREFIX`] (or without it, as older
/// versions wrote it).
fn desktop_exec_program(text: &str) -> Option<PathBuf> {
    let exec = text.lines().find_map(|l| l.strip_prefix("Exec="))?;
    let exec = exec.strip_prefix(DESKTOP_EXEC_PREFIX).unwrap_or(exec);
    desktop_exec_unquote(exec).map(PathBuf::from)
}

/// Undoes `desktop_exec_quote`: the string value's `\\` → `\`, `%%` → `%`, then the quoted
/// argument's backslash escapes. `None` for anything else (several arguments, bare words).
pub(super) fn desktop_exec_unquote(value: &str) -> Option<String> {
    let mut unescaped = String::with_capacity(value.len());
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        unescaped.push(if c == '\\' { chars.next()? } else { c });
    }
    let unescaped = unescaped.replace("%%", "%");
    let inner = unescaped.strip_prefix('"')?.strip_suffix('"')?;
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.push(chars.next()?),
            '"' | '`' | '$' => return None,
            c => out.push(c),
        }
    }
    Some(out)
}

/// Undoes `xml_escape`.
pub(super) fn xml_unescape(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

#[cfg(test)]
mod tests {
    use super::super::{launch_agent_plist, xdg_autostart_entry};
    use super::*;

    #[test]
    fn the_kind_of_copy_is_read_from_the_path() {
        for (path, copy) in [
            (
                "/Applications/Whisper Dictation.app/Contents/MacOS/whisper-dictation",
                AppCopy::Bundle,
            ),
            (
                "/private/var/folders/xy/T/AppTranslocation/0C1D/d/Whisper Dictation.app/Contents/MacOS/whisper-dictation",
                AppCopy::Translocated,
            ),
            ("/Users/ala/src/wd/target/release/whisper-dictation", AppCopy::CargoBuild),
            ("/Users/ala/src/wd/target/debug/whisper-dictation", AppCopy::CargoBuild),
            (
                "/home/ala/wd/target/aarch64-apple-darwin/release/whisper-dictation",
                AppCopy::CargoBuild,
            ),
            ("/home/ala/wd/target/debug/deps/whisper_dictation-1a2b", AppCopy::CargoBuild),
            // A bundle built inside target/ is still a bundle (scripts/bundle-macos.sh's output).
            (
                "/Users/ala/wd/target/release/bundle/Whisper Dictation.app/Contents/MacOS/whisper-dictation",
                AppCopy::Bundle,
            ),
            ("/usr/local/bin/whisper-dictation", AppCopy::Loose),
            ("/home/ala/.local/bin/whisper-dictation", AppCopy::Loose),
            // Named like cargo's folders, but not its layout.
            ("/srv/target/whisper-dictation", AppCopy::Loose),
            ("/opt/release/whisper-dictation", AppCopy::Loose),
        ] {
            assert_eq!(AppCopy::of(Path::new(path)), copy, "{path}");
        }
    }

    /// The LaunchAgent read back by a real plist parser, as launchd reads it: the keys' types
    /// and values, KeepAlive included.
    #[test]
    fn the_target_is_read_back_from_what_this_module_writes() {
        for exe in [
            "/Applications/Tom & Jerry <dev>/Whisper Dictation.app/Contents/MacOS/whisper-dictation",
            "/opt/My Apps/100% \"real\" $HOME `x` back\\slash/whisper-dictation",
        ] {
            let exe = Path::new(exe);
            assert_eq!(
                entry_target(LoginItemKind::LaunchAgent, &launch_agent_plist(exe)).as_deref(),
                Some(exe)
            );
            assert_eq!(
                entry_target(LoginItemKind::XdgAutostart, &xdg_autostart_entry(exe)).as_deref(),
                Some(exe)
            );
        }
        assert_eq!(entry_target(LoginItemKind::LaunchAgent, "<plist/>"), None);
        assert_eq!(
            entry_target(
                LoginItemKind::XdgAutostart,
                "[Desktop Entry]\nExec=whisper-dictation\n"
            ),
            None
        );
    }
}
