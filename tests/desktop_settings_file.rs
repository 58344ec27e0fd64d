//! settings.json edited by hand while the real app runs on a real (virtual) X11 desktop, then a
//! menu choice (issue 25, "Settings edited by hand, then lost"):
//!
//! - a vocabulary entry ("Quarterly Report", a document's title) and an unknown key saved into the file by hand, in the
//!   person's own layout; then Language ▸ English from the tray menu: the file is the hand-edited
//!   one with only the language's value changed (every other byte kept), and the next dictation
//!   of a clip that says "the quarterly report" pastes "the Quarterly Report" (a dictation before
//!   the edit pasted it in lower case);
//! - the file damaged by a text editor's smart quotes; then two menu choices: the file is kept
//!   byte for byte, the log names the file and the line and column of the error, and one notice
//!   (not two) says the choice applies in memory only.
//!
//! Needs the desktop tools (`scripts/setup.sh --test`) and the `base` model. Logs and
//! screenshots are left in `target/desktop-settings-file/`.

// Linux only: an X11 desktop (Xvfb, xdotool, PulseAudio); on macOS this file is empty.
#![cfg(target_os = "linux")]

mod app_rig;
mod rig;

use app_rig::{
    clip, fresh_desktop, hold_hotkey_while_playing, pick_in_tray_menu, start_app, wait_ready,
    write_settings, TRANSCRIBE_TIMEOUT,
};
use rig::{AppProcess, Desktop, TextBox};
use std::fs;
use std::path::Path;
use std::thread;
use std::time::Duration;

/// The English notice's summary when a menu choice finds settings.json damaged.
const KEPT_NOTICE: &str = "Settings file not changed";

/// The clip says "The quarterly report is almost finished, but the charts still need more work."
const CLIP: &str = "en_slt.wav";

/// settings.json as a person saves it in an editor: four-space indents, their own key order, a
/// vocabulary and a key this app does not know.
const HAND_EDITED: &str = r#"{
    "model": "base",
    "hotkey": "ctrl+alt+space",
    "hotkey_mode": "hold",
    "output": "paste",
    "language": "auto:pl,en",
    "vocabulary": ["Quarterly Report"],
    "my_note": "written by hand, kept by the app"
}
"#;

/// Plays [`CLIP`] with the hotkey held into a fresh text box; returns what was pasted.
fn dictate_into_box(desktop: &Desktop, app: &mut AppProcess, name: &str) -> String {
    let text_box = TextBox::open(desktop, name).unwrap_or_else(|e| panic!("{e}"));
    text_box.focus().unwrap_or_else(|e| panic!("{e}"));
    hold_hotkey_while_playing(desktop, app, &clip(CLIP), Duration::ZERO);
    let done = app
        .wait_for_log("dictation done", TRANSCRIBE_TIMEOUT)
        .unwrap_or_else(|e| panic!("{e}"));
    thread::sleep(Duration::from_millis(500));
    let pasted = text_box.submit().unwrap_or_else(|e| panic!("{e}"));
    println!("dictated {CLIP}: pasted {pasted:?} ({done})");
    pasted
}

/// Language ▸ the item of mnemonic `key` (English menu: a = auto-detect, e = Polish or
/// English, p = Polish, n = English), by keyboard; waits until the app has handled it and
/// returns the log line that says what became of the file.
fn choose_language(
    desktop: &Desktop,
    app: &mut AppProcess,
    out: &Path,
    key: &str,
    logged: &str,
) -> String {
    pick_in_tray_menu(desktop, app, out, ("l", key), logged)
}

/// settings.json once it no longer reads `before` (the menu choice was handled just before).
fn file_once_written(path: &Path, before: &str) -> String {
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    loop {
        let now = fs::read_to_string(path).unwrap();
        if now != before || std::time::Instant::now() >= deadline {
            return now;
        }
        thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn hand_edited_settings_survive_menu_choices() {
    let (desktop, out, state) = fresh_desktop("desktop-settings-file");
    write_settings(&state, "paste", "auto:pl,en");
    let path = state.join("settings.json");
    let mut app = start_app(&desktop, &state, &[("WHISPER_DICTATION_UI_LANG", "en")]);
    wait_ready(&mut app);

    // Without a vocabulary the clip's name is written as Whisper writes it.
    let before = dictate_into_box(&desktop, &mut app, "settings-before");
    assert!(
        before.to_lowercase().contains("quarterly report") && !before.contains("Quarterly Report"),
        "without a vocabulary: {before:?}"
    );

    // (a) Saved by hand while the app runs, then a menu choice.
    fs::write(&path, HAND_EDITED).unwrap();
    choose_language(
        &desktop,
        &mut app,
        &out,
        "n",
        "menu action=Language(\"en\")",
    );
    let on_disk = file_once_written(&path, HAND_EDITED);
    assert_eq!(
        on_disk,
        HAND_EDITED.replace("\"auto:pl,en\"", "\"en\""),
        "only the language's value may change"
    );
    let saved = app
        .wait_for_log("setting saved", Duration::from_secs(5))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        rig::log_field(&saved, "key").as_deref(),
        Some("language"),
        "{saved}"
    );
    let reloaded = app
        .wait_for_log("wording settings reloaded", Duration::from_secs(5))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        rig::log_field(&reloaded, "vocabulary").as_deref(),
        Some("1")
    );
    let after = dictate_into_box(&desktop, &mut app, "settings-after");
    assert!(
        after.contains("Quarterly Report"),
        "the vocabulary saved by hand before the menu choice must apply: {after:?}"
    );
    assert!(fs::read_to_string(&path)
        .unwrap()
        .contains(r#"["Quarterly Report"]"#));

    // (b) Smart quotes from a text editor: the file is no JSON. Two menu choices later it is
    // byte for byte the same, and one notice said so.
    let damaged = on_disk.replace(
        r#"["Quarterly Report"]"#,
        "[\u{201C}Quarterly Report\u{201D}]",
    );
    fs::write(&path, &damaged).unwrap();
    let kept = choose_language(&desktop, &mut app, &out, "a", "applies in memory only");
    println!("damaged file, menu choice: {kept}");
    assert!(
        kept.contains(&path.display().to_string()) && kept.contains("line 7, column 20"),
        "the log must name the file and where the error is: {kept}"
    );
    assert_eq!(fs::read(&path).unwrap(), damaged.as_bytes());
    desktop
        .wait_for_notification(KEPT_NOTICE, Duration::from_secs(10))
        .unwrap_or_else(|e| panic!("{e}"));
    let again = choose_language(&desktop, &mut app, &out, "e", "applies in memory only");
    println!("damaged file, second menu choice: {again}");
    assert_eq!(fs::read(&path).unwrap(), damaged.as_bytes());
    thread::sleep(Duration::from_secs(1));
    let notices = desktop.notifications().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        notices.matches(KEPT_NOTICE).count(),
        1,
        "one damaged file, one notice:\n{notices}"
    );
    let status = app.stop().unwrap_or_else(|e| panic!("{e}"));
    assert!(status.success(), "the app quit with {status}");
    assert_eq!(
        fs::read(&path).unwrap(),
        damaged.as_bytes(),
        "kept at quit too"
    );
}
