//! Where this executable sits, read from its path alone (portable, so Linux tests cover it):
//! inside a macOS `.app` bundle (`X.app/Contents/MacOS/<exe>`, as `scripts/bundle-macos.sh`
//! lays it out) or loose, and whether macOS runs it from a translocated copy.
//!
//! App Translocation: an app downloaded from the internet and opened where it was unpacked
//! (still quarantined, e.g. in Downloads) is run from a random read-only mount under
//! `/private/var/folders/…/AppTranslocation/<uuid>/d/`. That path changes between launches, so
//! neither a launch-at-login entry nor a privacy grant made for it lasts; the fix is to move the
//! app (to /Applications) with Finder, which clears the translocation.

use std::path::{Path, PathBuf};

/// The bundle identifier in `Info.plist` (`CFBundleIdentifier`); the LaunchAgent names it so
/// that macOS shows the app, not a bare executable, in its Login Items list.
pub const BUNDLE_ID: &str = "app.whisper-dictation";

/// The path component macOS uses for translocated apps.
const TRANSLOCATION_MARK: &str = "AppTranslocation";

/// This executable's place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// The executable itself (as given; the caller canonicalises if it wants to).
    pub exe: PathBuf,
    /// The `.app` folder when the executable is its `Contents/MacOS/<name>`.
    pub bundle: Option<PathBuf>,
    /// Run from an App Translocation mount (see the module doc).
    pub translocated: bool,
}

impl Location {
    /// Reads `exe`'s path: `…/Name.app/Contents/MacOS/exe` is a bundle.
    pub fn of(exe: &Path) -> Location {
        let bundle = exe
            .parent()
            .filter(|dir| dir.file_name().is_some_and(|n| n == "MacOS"))
            .and_then(Path::parent)
            .filter(|dir| dir.file_name().is_some_and(|n| n == "Contents"))
            .and_then(Path::parent)
            .filter(|dir| {
                dir.extension()
                    .is_some_and(|ext| ext.eq_ignore_ascii_case("app"))
            })
            .map(Path::to_path_buf);
        let translocated = exe
            .components()
            .any(|c| c.as_os_str() == TRANSLOCATION_MARK);
        Location {
            exe: exe.to_path_buf(),
            bundle,
            translocated,
        }
    }

    /// The running process's location (`None` when the OS does not say where it is).
    pub fn current() -> Option<Location> {
        let exe = std::env::current_exe().ok()?;
        // Resolve links (a symlinked binary, /tmp → /private/tmp) so paths compare reliably.
        let exe = std::fs::canonicalize(&exe).unwrap_or(exe);
        Some(Location::of(&exe))
    }

    /// What the user sees and moves: the `.app` when there is one, else the executable.
    pub fn shown_path(&self) -> &Path {
        self.bundle.as_deref().unwrap_or(&self.exe)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bundle_is_recognised_from_the_executable_path() {
        let inside = Location::of(Path::new(
            "/Applications/Whisper Dictation.app/Contents/MacOS/whisper-dictation",
        ));
        assert_eq!(
            inside.bundle.as_deref(),
            Some(Path::new("/Applications/Whisper Dictation.app"))
        );
        assert!(!inside.translocated);
        assert_eq!(
            inside.shown_path(),
            Path::new("/Applications/Whisper Dictation.app")
        );

        for loose in [
            "/usr/local/bin/whisper-dictation",
            "/home/ala/whisper-dictation/target/release/whisper-dictation",
            // The right folder names but no .app, or a .app without Contents/MacOS.
            "/opt/Contents/MacOS/whisper-dictation",
            "/Applications/X.app/MacOS/whisper-dictation",
            "whisper-dictation",
        ] {
            let location = Location::of(Path::new(loose));
            assert_eq!(location.bundle, None, "{loose}");
            assert_eq!(location.shown_path(), Path::new(loose));
        }
        let upper = Location::of(Path::new("/Users/ala/Apps/Dictation.APP/Contents/MacOS/x"));
        assert!(upper.bundle.is_some());
    }

    #[test]
    fn translocated_copies_are_recognised() {
        let translocated = Location::of(Path::new(
            "/private/var/folders/xy/abc123/T/AppTranslocation/1A2B-3C4D/d/Whisper Dictation.app/Contents/MacOS/whisper-dictation",
        ));
        assert!(translocated.translocated);
        assert!(translocated.bundle.is_some());
        // A folder merely named like it, as part of a longer name, is not translocation.
        let lookalike = Location::of(Path::new(
            "/Users/ala/NoAppTranslocationHere/Whisper Dictation.app/Contents/MacOS/whisper-dictation",
        ));
        assert!(!lookalike.translocated);
    }
}
