//! The app's side of the macOS permissions (`crate::permissions` decides): a check at start,
//! again every few seconds while something is missing or the microphone prompt is unanswered,
//! when the output mode changes and when the user picks "Permissions…" in the menu (which also
//! opens the System Settings pane of the first problem). New problems and solved ones become
//! notifications, so a grant given in System Settings works without a restart. Off macOS the
//! probes answer "no such permission" and none of this shows.
//!
//! "Permissions…" is also the one place that asks with macOS's own Accessibility prompt
//! ([`asks_with_system_prompt`], `platform::ask_for_accessibility`): it lists the app in System
//! Settings, switched off, so the person turns it on instead of finding it with +. Never at
//! launch or on the timer: only when the person chose the item.
//!
//! Also here: a note in the log when `PYTORCH_ENABLE_MPS_FALLBACK` is set. libtorch reads it
//! while it loads, before `main` (docs/M1_SETUP.md), so the app cannot set it and does not
//! want to: it would turn the MPS failures the device manager handles into silent CPU copies.

use super::App;
use crate::audio::capture::RecorderCommand;
use crate::inject::OutputMode;
use crate::permissions::{self, Permission, Problem, RECHECK_EVERY};
use std::time::Instant;

/// The environment variable libtorch's MPS backend reads when it registers its fallback.
pub const MPS_FALLBACK_ENV: &str = "PYTORCH_ENABLE_MPS_FALLBACK";

/// Whether "Permissions…", having found `problems`, also asks with macOS's Accessibility
/// prompt: when the problem it shows (the first) is Accessibility, missing or stale (the app is
/// not trusted either way), and the app does not run from a translocated copy (a grant to that
/// copy would not last; the notice says to move the app first). Called only from the menu item:
/// a prompt at launch would interrupt whatever the person is doing.
pub(super) fn asks_with_system_prompt(problems: &[Problem]) -> bool {
    let shown_is_accessibility = problems
        .first()
        .is_some_and(|p| p.permission() == Permission::Accessibility);
    shown_is_accessibility && !problems.contains(&Problem::Translocated)
}

/// Logs the MPS fallback switch when the user set it, since it changes what MPS failures look
/// like in the log (an operation MPS lacks runs on the CPU instead of failing).
pub(super) fn log_mps_fallback() {
    if let Some(value) = std::env::var_os(MPS_FALLBACK_ENV) {
        tracing::warn!(
            value = %value.to_string_lossy(),
            "{MPS_FALLBACK_ENV} is set: operations MPS lacks run on the CPU one by one instead of failing"
        );
    }
}

impl App {
    /// Checks now: notifies what is newly missing and what now works, updates the menu item and
    /// schedules the next check. Returns whether an Accessibility problem is known.
    pub(super) fn check_permissions(&mut self) -> bool {
        let sends_keys = OutputMode::parse(&self.settings.output) != Some(OutputMode::Copy);
        let changes = self.permissions.update(&permissions::observe(
            sends_keys,
            self.session.hotkey_needs_binding(),
        ));
        for problem in &changes.new {
            tracing::warn!(?problem, "permission missing");
            let (summary, body) = problem.text(self.lang);
            self.notifier.send(summary, body);
        }
        for permission in &changes.solved {
            tracing::info!(?permission, "permission now granted");
            if let Some((summary, body)) = permissions::solved_text(*permission, self.lang) {
                self.notifier.send(summary, body);
            }
            match permission {
                Permission::Microphone => self.reopen_microphone(),
                // A later loss must be told again (also by the paste fallback).
                Permission::Accessibility => self.warned_accessibility = false,
                Permission::Location | Permission::Session => {}
            }
        }
        if let Some(tray) = &self.tray {
            tray.set_permissions(permissions::menu_label(
                self.permissions.problems(),
                self.lang,
            ));
        }
        self.next_permission_check = self
            .permissions
            .wants_recheck()
            .then(|| Instant::now() + RECHECK_EVERY);
        self.permissions
            .problems()
            .iter()
            .any(|p| p.permission() == Permission::Accessibility)
    }

    /// On the event loop's timer: checks when one is due.
    pub(super) fn permissions_due(&mut self, now: Instant) {
        if self.next_permission_check.is_some_and(|due| due <= now) {
            self.check_permissions();
        }
    }

    /// "Permissions…": checks now, then shows the first problem and opens its pane, or says
    /// that all is well.
    pub(super) fn permissions_clicked(&mut self) {
        let known: Vec<Permission> = self
            .permissions
            .problems()
            .iter()
            .map(|p| p.permission())
            .collect();
        self.check_permissions();
        match self.permissions.problems().first().cloned() {
            Some(problem) => {
                // A problem found just now was notified by the check already.
                if known.contains(&problem.permission()) {
                    let (summary, body) = problem.text(self.lang);
                    self.notifier.send(summary, body);
                }
                if asks_with_system_prompt(self.permissions.problems()) {
                    let trusted = crate::platform::ask_for_accessibility();
                    tracing::info!(?trusted, "asked with macOS's Accessibility prompt");
                }
                if let Some(pane) = problem.pane() {
                    if let Err(e) = crate::platform::open_url(pane) {
                        tracing::warn!("cannot open {pane}: {e}");
                    }
                }
            }
            None => {
                let (summary, body) = permissions::all_granted_text(self.lang);
                self.notifier.send(summary, body);
            }
        }
    }

    /// macOS asks for the microphone the first time the app opens it. Opened only at key-down,
    /// that would be the first dictation, whose words go while the question is up: when the
    /// microphone was never asked for, it is opened once at start and closed again, so macOS
    /// asks then.
    pub(super) fn ask_for_microphone_if_never_asked(&self) {
        let never_asked = crate::platform::microphone_authorization()
            .and_then(permissions::MicrophoneAccess::from_av_status)
            == Some(permissions::MicrophoneAccess::NotAsked);
        let config = super::recorder_config(&self.settings);
        if never_asked && !config.keep_open {
            tracing::info!("microphone never asked for: opened once so that macOS asks now");
            let mut opened = config.clone();
            opened.keep_open = true;
            self.recorder.send(RecorderCommand::Configure(opened));
            self.recorder.send(RecorderCommand::Configure(config));
        }
    }

    /// A stream opened while the microphone was refused delivers silence: open it again.
    fn reopen_microphone(&self) {
        let config = super::recorder_config(&self.settings);
        if config.keep_open {
            let mut closed = config.clone();
            closed.keep_open = false;
            self.recorder.send(RecorderCommand::Configure(closed));
            self.recorder.send(RecorderCommand::Configure(config));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::{Path, PathBuf};

    #[test]
    fn the_system_prompt_is_asked_only_for_a_missing_or_stale_accessibility() {
        let stale = Problem::AccessibilityStale {
            granted_path: PathBuf::from("/Applications/Whisper Dictation.app"),
            moved: false,
        };
        assert!(asks_with_system_prompt(&[Problem::AccessibilityMissing]));
        assert!(asks_with_system_prompt(&[stale]));
        // Trusted (nothing missing), or not a Mac: nothing to ask.
        assert!(!asks_with_system_prompt(&[]));
        assert!(!asks_with_system_prompt(&[Problem::Wayland]));
        // The item shows the microphone first: no Accessibility dialog over its pane.
        assert!(!asks_with_system_prompt(&[
            Problem::MicrophoneDenied,
            Problem::AccessibilityMissing
        ]));
        // A translocated copy is told to move first; a grant to it would not last.
        assert!(!asks_with_system_prompt(&[
            Problem::Translocated,
            Problem::AccessibilityMissing
        ]));
    }

    /// Every `.rs` file under `dir`.
    fn sources(dir: &Path, found: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                sources(&path, found);
            } else if path.extension().is_some_and(|e| e == "rs") {
                found.push(path);
            }
        }
    }

    #[test]
    fn the_system_prompt_is_asked_only_from_the_permissions_item() {
        // Never at launch by itself: the only caller is `permissions_clicked`, here.
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        sources(&src, &mut files);
        let callers: Vec<String> = files
            .iter()
            .filter(|path| !path.starts_with(src.join("platform")))
            .filter(|path| {
                std::fs::read_to_string(path)
                    .unwrap()
                    .contains("ask_for_accessibility()")
            })
            .map(|path| path.strip_prefix(&src).unwrap().display().to_string())
            .collect();
        assert_eq!(callers, ["app/first_run.rs"]);
        let this = std::fs::read_to_string(src.join("app/first_run.rs")).unwrap();
        let clicked = this
            .split_once("fn permissions_clicked")
            .expect("the menu item's handler")
            .1;
        let body = clicked.split_once("\n    }\n").expect("its end").0;
        assert!(body.contains("ask_for_accessibility()"));
    }
}
