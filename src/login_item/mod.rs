//! Launch at login: the file each OS reads to start the app when the user logs in — a
//! LaunchAgent plist on macOS, a freedesktop autostart `.desktop` entry elsewhere. This module
//! owns generating those files (portable functions, tested on every OS) and installing,
//! removing and repointing them; which kind applies is asked of `platform::login_item_kind`.
//!
//! From a macOS bundle the LaunchAgent runs the bundle's own binary
//! (`…/Whisper Dictation.app/Contents/MacOS/whisper-dictation`) and names the bundle in
//! `AssociatedBundleIdentifiers`, so System Settings → General → Login Items lists it as
//! Whisper Dictation. At start the app re-points an existing file at itself only from one
//! installed copy to another ([`may_repoint`]): on macOS from one `.app` bundle to another, on
//! Linux from one binary outside a cargo `target/` folder to another. A development build
//! (`cargo run`, a bare `target/release` binary) never takes over the entry of an installed app,
//! and an entry the person pointed at a development build (by turning the option on from it)
//! stays there until they turn it off and on again from another copy. From a translocated copy
//! (see `bundle`) no entry is written, because that path is temporary.
//!
//! The LaunchAgent restarts the app after a crash but not after Quit (`KeepAlive` →
//! `SuccessfulExit` false: launchd starts the job again when it ended with a non-zero status or
//! a signal, such as MPS's abort; Quit, logout's SIGTERM and "already running" all exit 0), at
//! most once per [`THROTTLE_INTERVAL_SECS`]. The relaunched app starts on the CPU: the device
//! history turns the in-flight marker the crash left into a failure of the GPU.

mod takeover;

use crate::bundle::{Location, BUNDLE_ID};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
pub use takeover::{entry_target, may_repoint, AppCopy};

/// The LaunchAgent's label, also its file name (`<label>.plist`).
pub const LAUNCH_AGENT_LABEL: &str = "com.whisper-dictation.app";

/// The autostart entry's file name under `autostart/`.
pub const XDG_AUTOSTART_FILE: &str = "whisper-dictation.desktop";

/// launchd's `ThrottleInterval`: the least time between two starts of the job, so that an app
/// that crashes at every start is tried twice a minute rather than every 10 s (launchd's
/// default), while a one-off MPS abort is back in the menu bar within half a minute.
pub const THROTTLE_INTERVAL_SECS: u32 = 30;

pub use crate::platform::LoginItemKind;

/// Why launch at login cannot be offered for this copy of the app.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoginItemError {
    /// macOS runs a quarantined download from a temporary mount; an entry pointing there would
    /// break at the next login.
    #[error("the app runs from a temporary translocated copy ({0}); move it to /Applications with Finder and open it from there")]
    Translocated(PathBuf),
}

/// One launch-at-login file: where it goes and what it should contain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoginItem {
    pub kind: LoginItemKind,
    pub path: PathBuf,
    /// The executable the file starts.
    pub exe: PathBuf,
    pub contents: String,
}

/// What [`LoginItem::repoint`] did with the file found at start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Repoint {
    /// No file: launch at login is off, and stays off.
    Missing,
    /// The file already says exactly what this copy would write.
    Unchanged,
    /// The file started another installed copy (or this one, in older words); now this one.
    Repointed,
    /// The file starts another copy that this one may not take it from ([`may_repoint`]):
    /// `points_at` is that copy's executable, `None` when the file could not be read as ours.
    Kept { points_at: Option<PathBuf> },
}

/// A macOS LaunchAgent that starts `exe` at login, in the user's GUI session, and starts it
/// again after a crash but not after Quit (see the module doc). When `exe` is a bundle's
/// binary, the bundle is named too (`AssociatedBundleIdentifiers`, read by macOS 13 and later).
/// launchd starts the binary itself, not through the bundle, so the bundle's `LSEnvironment`
/// does not apply: `OMP_WAIT_POLICY` is set here as well (sleeping OpenMP threads without the
/// re-execution that would set it, see `platform::prefer_sleeping_compute_threads`).
pub fn launch_agent_plist(exe: &Path) -> String {
    let associated = if Location::of(exe).bundle.is_some() {
        format!(
            "\t<key>AssociatedBundleIdentifiers</key>\n\t<string>{}</string>\n",
            xml_escape(BUNDLE_ID)
        )
    } else {
        String::new()
    };
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>Label</key>
	<string>{label}</string>
	<key>ProgramArguments</key>
	<array>
		<string>{exe}</string>
	</array>
	<key>RunAtLoad</key>
	<true/>
	<key>KeepAlive</key>
	<dict>
		<key>SuccessfulExit</key>
		<false/>
	</dict>
	<key>ThrottleInterval</key>
	<integer>{throttle}</integer>
	<key>ProcessType</key>
	<string>Interactive</string>
	<key>LimitLoadToSessionType</key>
	<string>Aqua</string>
	<key>EnvironmentVariables</key>
	<dict>
		<key>OMP_WAIT_POLICY</key>
		<string>PASSIVE</string>
	</dict>
{associated}</dict>
</plist>
"#,
        label = xml_escape(LAUNCH_AGENT_LABEL),
        exe = xml_escape(&exe.to_string_lossy()),
        throttle = THROTTLE_INTERVAL_SECS,
    )
}

/// What a Linux desktop or autostart entry runs before the binary: the app starts with its
/// OpenMP threads sleeping, without the re-execution that would set the variable
/// (`platform::prefer_sleeping_compute_threads`; `scripts/install-desktop-entry.sh` writes the
/// same).
pub const DESKTOP_EXEC_PREFIX: &str = "env OMP_WAIT_POLICY=PASSIVE ";

/// A freedesktop autostart entry that starts `exe` at login.
pub fn xdg_autostart_entry(exe: &Path) -> String {
    format!(
        "[Desktop Entry]\n\
         Type=Application\n\
         Name=Whisper Dictation\n\
         Comment=Push-to-talk dictation with Whisper running locally\n\
         Exec={DESKTOP_EXEC_PREFIX}{}\n\
         Icon=whisper-dictation\n\
         Terminal=false\n\
         X-GNOME-Autostart-enabled=true\n\
         Categories=Utility;\n",
        desktop_exec_quote(&exe.to_string_lossy())
    )
}

/// Escapes the five XML special characters for element content and attributes.
fn xml_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// One `Exec=` argument quoted per the Desktop Entry spec ("The Exec key"): inside double
/// quotes, `"`, `` ` ``, `$` and `\` are backslash-escaped; `%` is doubled because it starts a
/// field code everywhere on the line. Then the value itself is a string value, whose own
/// escape rule turns every `\` into `\\` — so an escaped quote is written `\\"`.
fn desktop_exec_quote(arg: &str) -> String {
    let mut quoted = String::with_capacity(arg.len() + 2);
    quoted.push('"');
    for c in arg.chars() {
        match c {
            '"' | '`' | '$' | '\\' => {
                quoted.push('\\');
                quoted.push(c);
            }
            '%' => quoted.push_str("%%"),
            c => quoted.push(c),
        }
    }
    quoted.push('"');
    // The string-value level of escaping (spec: "Possible value types").
    quoted.replace('\\', "\\\\")
}

impl LoginItem {
    /// The login item for the app at `location`, or why there can be none (translocated).
    pub fn for_location(
        kind: LoginItemKind,
        home: &Path,
        xdg_config_home: Option<&Path>,
        location: &Location,
    ) -> Result<LoginItem, LoginItemError> {
        if location.translocated {
            return Err(LoginItemError::Translocated(
                location.shown_path().to_path_buf(),
            ));
        }
        Ok(LoginItem::for_platform(
            kind,
            home,
            xdg_config_home,
            &location.exe,
        ))
    }

    /// The login item for `kind`: `home/Library/LaunchAgents/<label>.plist`, or
    /// `(xdg_config_home or home/.config)/autostart/whisper-dictation.desktop`.
    pub fn for_platform(
        kind: LoginItemKind,
        home: &Path,
        xdg_config_home: Option<&Path>,
        exe: &Path,
    ) -> LoginItem {
        match kind {
            LoginItemKind::LaunchAgent => LoginItem {
                kind,
                path: home
                    .join("Library/LaunchAgents")
                    .join(format!("{LAUNCH_AGENT_LABEL}.plist")),
                exe: exe.to_path_buf(),
                contents: launch_agent_plist(exe),
            },
            LoginItemKind::XdgAutostart => {
                // The spec says a relative $XDG_CONFIG_HOME is invalid and must be ignored.
                let config = match xdg_config_home {
                    Some(dir) if dir.is_absolute() => dir.to_path_buf(),
                    _ => home.join(".config"),
                };
                LoginItem {
                    kind,
                    path: config.join("autostart").join(XDG_AUTOSTART_FILE),
                    exe: exe.to_path_buf(),
                    contents: xdg_autostart_entry(exe),
                }
            }
        }
    }

    /// Installs the file (creating its folder), replacing whatever was there atomically.
    pub fn enable(&self) -> io::Result<()> {
        if let Some(dir) = self.path.parent() {
            fs::create_dir_all(dir)?;
        }
        crate::atomic_file::write(&self.path, self.contents.as_bytes())
    }

    /// Removes the file; already absent is fine.
    pub fn disable(&self) -> io::Result<()> {
        match fs::remove_file(&self.path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            other => other,
        }
    }

    /// Whether launch at login is on: the file exists (whatever it points at).
    pub fn is_enabled(&self) -> bool {
        self.path.is_file()
    }

    /// At start: when the file exists but says something else (another executable, or this
    /// one in an older version's words), rewrites it if [`may_repoint`] lets this copy take it.
    /// A missing file stays missing (the person turned the option off).
    pub fn repoint(&self) -> io::Result<Repoint> {
        let current = match fs::read(&self.path) {
            Ok(current) => current,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Repoint::Missing),
            Err(e) => return Err(e),
        };
        if current == self.contents.as_bytes() {
            return Ok(Repoint::Unchanged);
        }
        let points_at = std::str::from_utf8(&current)
            .ok()
            .and_then(|text| entry_target(self.kind, text));
        if may_repoint(self.kind, &self.exe, points_at.as_deref()) {
            self.enable().map(|()| Repoint::Repointed)
        } else {
            Ok(Repoint::Kept { points_at })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A minimal well-formedness check: every tag is balanced, and text between tags contains
    /// no raw `<` or unescaped `&` (every `&` starts a known entity).
    fn assert_well_formed_xml(xml: &str) {
        let body = xml
            .split_once("?>")
            .map(|(_, rest)| rest)
            .expect("XML declaration");
        let body = body
            .split_once('>')
            .filter(|(doctype, _)| doctype.trim_start().starts_with("<!DOCTYPE"))
            .map(|(_, rest)| rest)
            .expect("DOCTYPE");
        let mut stack: Vec<String> = Vec::new();
        let mut rest = body;
        while let Some(open) = rest.find('<') {
            check_text(&rest[..open]);
            let close = rest[open..].find('>').expect("unterminated tag") + open;
            let tag = &rest[open + 1..close];
            assert!(!tag.contains('<'), "'<' inside a tag: {tag}");
            if let Some(name) = tag.strip_prefix('/') {
                assert_eq!(stack.pop().as_deref(), Some(name), "mismatched </{name}>");
            } else if !tag.ends_with('/') {
                let name = tag.split_whitespace().next().unwrap().to_string();
                stack.push(name);
            }
            rest = &rest[close + 1..];
        }
        check_text(rest);
        assert!(stack.is_empty(), "unclosed: {stack:?}");
    }

    fn check_text(text: &str) {
        assert!(!text.contains('>'), "raw '>' in text: {text}");
        for (i, _) in text.match_indices('&') {
            let entity = &text[i..];
            assert!(
                ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"]
                    .iter()
                    .any(|e| entity.starts_with(e)),
                "bare '&' in text: {text}"
            );
        }
    }

    #[test]
    fn plist_is_well_formed_and_escapes_the_path() {
        let exe = Path::new("/Applications/Tom & Jerry <dev>/Whisper Dictation.app/Contents/MacOS/whisper-dictation");
        let plist = launch_agent_plist(exe);
        assert_well_formed_xml(&plist);
        for key in [
            "Label",
            "ProgramArguments",
            "RunAtLoad",
            "KeepAlive",
            "ProcessType",
            "LimitLoadToSessionType",
        ] {
            assert!(plist.contains(&format!("<key>{key}</key>")), "{key}");
        }
        assert!(plist.contains("<string>com.whisper-dictation.app</string>"));
        assert!(plist.contains("<key>RunAtLoad</key>\n\t<true/>"));
        // Restarted after a crash (non-zero exit, a signal), not after Quit (exit 0), at most
        // twice a minute.
        assert!(plist.contains(
            "<key>KeepAlive</key>\n\t<dict>\n\t\t<key>SuccessfulExit</key>\n\t\t<false/>\n\t</dict>\n\t<key>ThrottleInterval</key>\n\t<integer>30</integer>\n"
        ));
        assert!(plist.contains("<string>Interactive</string>"));
        assert!(plist.contains("<string>Aqua</string>"));
        assert!(plist.contains(
            "<key>EnvironmentVariables</key>\n\t<dict>\n\t\t<key>OMP_WAIT_POLICY</key>\n\t\t<string>PASSIVE</string>"
        ));

        // The program argument round-trips to the exact path.
        let args = plist
            .split_once("<array>")
            .and_then(|(_, rest)| rest.split_once("</array>"))
            .unwrap()
            .0;
        let arg = args
            .trim()
            .strip_prefix("<string>")
            .and_then(|a| a.strip_suffix("</string>"))
            .unwrap();
        assert_eq!(takeover::xml_unescape(arg), exe.to_string_lossy());
        assert!(arg.contains("Tom &amp; Jerry &lt;dev&gt;"), "{arg}");
    }

    #[test]
    fn desktop_entry_quotes_the_exec_path() {
        let exe = Path::new("/opt/My Apps/100% \"real\" $HOME `x` back\\slash/whisper-dictation");
        let entry = xdg_autostart_entry(exe);
        let lines: Vec<&str> = entry.lines().collect();
        assert_eq!(lines[0], "[Desktop Entry]");
        for line in [
            "Type=Application",
            "Name=Whisper Dictation",
            "Icon=whisper-dictation",
            "Terminal=false",
            "X-GNOME-Autostart-enabled=true",
            "Categories=Utility;",
        ] {
            assert!(lines.contains(&line), "{line}");
        }
        assert!(lines.iter().any(|l| l.starts_with("Comment=")));
        let exec = lines
            .iter()
            .find_map(|l| l.strip_prefix("Exec="))
            .and_then(|e| e.strip_prefix(DESKTOP_EXEC_PREFIX))
            .unwrap();
        assert_eq!(
            exec,
            r#""/opt/My Apps/100%% \\"real\\" \\$HOME \\`x\\` back\\\\slash/whisper-dictation""#
        );
        assert_eq!(
            takeover::desktop_exec_unquote(exec).unwrap(),
            exe.to_string_lossy()
        );

        let plain = xdg_autostart_entry(Path::new("/usr/bin/whisper-dictation"));
        assert!(
            plain.contains("\nExec=env OMP_WAIT_POLICY=PASSIVE \"/usr/bin/whisper-dictation\"\n")
        );
    }

    #[test]
    fn from_a_bundle_the_agent_runs_the_bundles_binary_and_names_the_bundle() {
        let exe = Path::new("/Applications/Whisper Dictation.app/Contents/MacOS/whisper-dictation");
        let plist = launch_agent_plist(exe);
        assert_well_formed_xml(&plist);
        assert!(plist.contains(
            "<key>AssociatedBundleIdentifiers</key>\n\t<string>app.whisper-dictation</string>\n</dict>"
        ));
        assert!(plist.contains(
            "<array>\n\t\t<string>/Applications/Whisper Dictation.app/Contents/MacOS/whisper-dictation</string>\n\t</array>"
        ));
        // A loose binary (cargo's target folder) names no bundle.
        let loose =
            launch_agent_plist(Path::new("/Users/ala/src/target/release/whisper-dictation"));
        assert_well_formed_xml(&loose);
        assert!(!loose.contains("AssociatedBundleIdentifiers"));

        // Moved from ~/Downloads to /Applications: the entry follows on the next start.
        let home = tempfile::tempdir().unwrap();
        let before = Location::of(Path::new(
            "/Users/ala/Downloads/Whisper Dictation.app/Contents/MacOS/whisper-dictation",
        ));
        let after = Location::of(exe);
        let kind = LoginItemKind::LaunchAgent;
        let old = LoginItem::for_location(kind, home.path(), None, &before).unwrap();
        old.enable().unwrap();
        let new = LoginItem::for_location(kind, home.path(), None, &after).unwrap();
        assert_eq!(new.repoint().unwrap(), Repoint::Repointed);
        let written = fs::read_to_string(&new.path).unwrap();
        assert!(written.contains(
            "<string>/Applications/Whisper Dictation.app/Contents/MacOS/whisper-dictation</string>"
        ));
        assert!(!written.contains("Downloads"));
    }

    #[test]
    fn a_translocated_copy_gets_no_login_item() {
        let location = Location::of(Path::new(
            "/private/var/folders/xy/T/AppTranslocation/0C1D/d/Whisper Dictation.app/Contents/MacOS/whisper-dictation",
        ));
        let home = Path::new("/Users/ala");
        let err =
            LoginItem::for_location(LoginItemKind::LaunchAgent, home, None, &location).unwrap_err();
        assert_eq!(
            err,
            LoginItemError::Translocated(PathBuf::from(
                "/private/var/folders/xy/T/AppTranslocation/0C1D/d/Whisper Dictation.app"
            ))
        );
        assert!(err.to_string().contains("/Applications"));
    }

    #[test]
    fn paths_per_kind() {
        let home = Path::new("/home/ala");
        let exe = Path::new("/usr/bin/whisper-dictation");
        let agent = LoginItem::for_platform(LoginItemKind::LaunchAgent, home, None, exe);
        assert_eq!(
            agent.path,
            Path::new("/home/ala/Library/LaunchAgents/com.whisper-dictation.app.plist")
        );
        assert_eq!(agent.contents, launch_agent_plist(exe));

        let xdg = LoginItem::for_platform(LoginItemKind::XdgAutostart, home, None, exe);
        assert_eq!(
            xdg.path,
            Path::new("/home/ala/.config/autostart/whisper-dictation.desktop")
        );
        assert_eq!(xdg.contents, xdg_autostart_entry(exe));
        let custom = LoginItem::for_platform(
            LoginItemKind::XdgAutostart,
            home,
            Some(Path::new("/cfg")),
            exe,
        );
        assert_eq!(
            custom.path,
            Path::new("/cfg/autostart/whisper-dictation.desktop")
        );
        let relative = LoginItem::for_platform(
            LoginItemKind::XdgAutostart,
            home,
            Some(Path::new("cfg")),
            exe,
        );
        assert_eq!(relative.path, xdg.path);
    }

    #[test]
    fn enable_repoint_disable() {
        let home = tempfile::tempdir().unwrap();
        for (kind, old_exe, new_exe) in [
            (
                LoginItemKind::LaunchAgent,
                "/Users/ala/Downloads/Whisper Dictation.app/Contents/MacOS/whisper-dictation",
                "/Applications/Whisper Dictation.app/Contents/MacOS/whisper-dictation",
            ),
            (
                LoginItemKind::XdgAutostart,
                "/opt/old/whisper-dictation",
                "/usr/local/bin/whisper-dictation",
            ),
        ] {
            let old = LoginItem::for_platform(kind, home.path(), None, Path::new(old_exe));
            let new = LoginItem::for_platform(kind, home.path(), None, Path::new(new_exe));

            assert!(!old.is_enabled());
            assert_eq!(new.repoint().unwrap(), Repoint::Missing, "stays missing");
            assert!(!new.is_enabled());
            new.disable().unwrap();

            old.enable().unwrap();
            assert!(old.is_enabled() && new.is_enabled());
            assert_eq!(fs::read_to_string(&old.path).unwrap(), old.contents);
            assert_eq!(old.repoint().unwrap(), Repoint::Unchanged);

            assert_eq!(new.repoint().unwrap(), Repoint::Repointed, "the app moved");
            assert_eq!(fs::read_to_string(&new.path).unwrap(), new.contents);
            assert_eq!(new.repoint().unwrap(), Repoint::Unchanged);

            new.disable().unwrap();
            assert!(!new.is_enabled());
            new.disable().unwrap();
            let leftovers: Vec<_> = fs::read_dir(new.path.parent().unwrap()).unwrap().collect();
            assert!(leftovers.is_empty(), "{leftovers:?}");
        }
    }

    #[test]
    fn the_launch_agent_parses_as_a_plist() {
        let exe = Path::new(
            "/Applications/Tom & Jerry/Whisper Dictation.app/Contents/MacOS/whisper-dictation",
        );
        let value = plist::Value::from_reader_xml(launch_agent_plist(exe).as_bytes()).unwrap();
        let agent = value.as_dictionary().unwrap();
        assert_eq!(
            agent.get("Label").and_then(plist::Value::as_string),
            Some(LAUNCH_AGENT_LABEL)
        );
        let args = agent
            .get("ProgramArguments")
            .and_then(plist::Value::as_array)
            .unwrap();
        assert_eq!(args.len(), 1);
        assert_eq!(args[0].as_string(), exe.to_str());
        assert_eq!(
            agent.get("RunAtLoad").and_then(plist::Value::as_boolean),
            Some(true)
        );
        let keep_alive = agent
            .get("KeepAlive")
            .and_then(plist::Value::as_dictionary)
            .unwrap();
        assert_eq!(keep_alive.len(), 1, "{keep_alive:?}");
        assert_eq!(
            keep_alive
                .get("SuccessfulExit")
                .and_then(plist::Value::as_boolean),
            Some(false),
            "restarted only after an unsuccessful exit"
        );
        assert_eq!(
            agent
                .get("ThrottleInterval")
                .and_then(plist::Value::as_unsigned_integer),
            Some(u64::from(THROTTLE_INTERVAL_SECS))
        );
        assert_eq!(
            agent
                .get("AssociatedBundleIdentifiers")
                .and_then(plist::Value::as_string),
            Some(BUNDLE_ID)
        );
    }

    /// Issue 24: a `cargo run` build took the LaunchAgent over from the installed app at every
    /// start. Now it moves only from one bundle to another.
    #[test]
    fn the_launch_agent_moves_only_from_one_bundle_to_another() {
        let agent = LoginItemKind::LaunchAgent;
        let installed =
            Path::new("/Applications/Whisper Dictation.app/Contents/MacOS/whisper-dictation");
        let downloaded = Path::new(
            "/Users/ala/Downloads/Whisper Dictation.app/Contents/MacOS/whisper-dictation",
        );
        let translocated = Path::new(
            "/private/var/folders/xy/T/AppTranslocation/0C1D/d/Whisper Dictation.app/Contents/MacOS/whisper-dictation",
        );
        let dev = Path::new("/Users/ala/src/wd/target/debug/whisper-dictation");
        let loose = Path::new("/usr/local/bin/whisper-dictation");

        assert!(may_repoint(agent, installed, Some(downloaded)));
        assert!(may_repoint(agent, downloaded, Some(installed)));
        assert!(
            may_repoint(agent, installed, Some(translocated)),
            "a temporary path is replaced"
        );
        assert!(
            may_repoint(agent, installed, Some(installed)),
            "its own entry is refreshed"
        );
        assert!(
            may_repoint(agent, dev, Some(dev)),
            "its own entry is refreshed"
        );
        for running in [dev, loose, translocated] {
            assert!(
                !may_repoint(agent, running, Some(installed)),
                "{}",
                running.display()
            );
        }
        // An entry the person pointed at a development build is theirs until they toggle it.
        assert!(!may_repoint(agent, installed, Some(dev)));
        assert!(!may_repoint(agent, installed, Some(loose)));
        assert!(
            !may_repoint(agent, installed, None),
            "a file that is not ours"
        );

        // The same through the files: the development build finds the installed app's agent,
        // leaves it as it is and says where it points.
        let home = tempfile::tempdir().unwrap();
        let app = LoginItem::for_platform(agent, home.path(), None, installed);
        app.enable().unwrap();
        let from_dev = LoginItem::for_platform(agent, home.path(), None, dev);
        assert_eq!(
            from_dev.repoint().unwrap(),
            Repoint::Kept {
                points_at: Some(installed.to_path_buf())
            }
        );
        assert_eq!(fs::read_to_string(&app.path).unwrap(), app.contents);
        // The installed app's older agent (KeepAlive false) is brought up to date.
        fs::write(
            &app.path,
            app.contents.replace(
                "<key>KeepAlive</key>\n\t<dict>\n\t\t<key>SuccessfulExit</key>\n\t\t<false/>\n\t</dict>",
                "<key>KeepAlive</key>\n\t<false/>",
            ),
        )
        .unwrap();
        assert_ne!(fs::read_to_string(&app.path).unwrap(), app.contents);
        assert_eq!(app.repoint().unwrap(), Repoint::Repointed);
        assert_eq!(fs::read_to_string(&app.path).unwrap(), app.contents);
        // A file that is not a plist this app wrote is left alone.
        fs::write(&app.path, "bplist00garbage").unwrap();
        assert_eq!(
            from_dev.repoint().unwrap(),
            Repoint::Kept { points_at: None }
        );
        assert_eq!(app.repoint().unwrap(), Repoint::Kept { points_at: None });
    }

    /// The same rule on Linux: an autostart entry follows an installed binary, never a build in
    /// a cargo `target/` folder.
    #[test]
    fn the_autostart_entry_moves_only_between_installed_binaries() {
        let xdg = LoginItemKind::XdgAutostart;
        let installed = Path::new("/usr/local/bin/whisper-dictation");
        let other = Path::new("/home/ala/.local/bin/whisper-dictation");
        let dev = Path::new("/home/ala/wd/target/release/whisper-dictation");
        assert!(may_repoint(xdg, installed, Some(other)));
        assert!(may_repoint(xdg, other, Some(installed)));
        assert!(!may_repoint(xdg, dev, Some(installed)));
        assert!(!may_repoint(xdg, installed, Some(dev)));
        assert!(may_repoint(xdg, dev, Some(dev)));

        let home = tempfile::tempdir().unwrap();
        let entry = LoginItem::for_platform(xdg, home.path(), None, installed);
        entry.enable().unwrap();
        let from_dev = LoginItem::for_platform(xdg, home.path(), None, dev);
        assert_eq!(
            from_dev.repoint().unwrap(),
            Repoint::Kept {
                points_at: Some(installed.to_path_buf())
            }
        );
        // An entry from before the OMP_WAIT_POLICY prefix is read too.
        fs::write(&entry.path, entry.contents.replace(DESKTOP_EXEC_PREFIX, "")).unwrap();
        assert_eq!(
            from_dev.repoint().unwrap(),
            Repoint::Kept {
                points_at: Some(installed.to_path_buf())
            }
        );
        let moved = LoginItem::for_platform(xdg, home.path(), None, other);
        assert_eq!(moved.repoint().unwrap(), Repoint::Repointed);
        assert_eq!(fs::read_to_string(&entry.path).unwrap(), moved.contents);
    }
}
