//! The dictation history under the real app on a real (virtual) X11 desktop (issue 28):
//!
//! - a recording an earlier version left in the recordings folder is imported once at start;
//! - a dictation (copy only) is kept in `history.sqlite3` with its text, model, device,
//!   key-up → pasted and its recording's name (the file is there), and a search without the
//!   diacritics or the case finds it;
//! - after a restart, Recent transcripts ▸ its first entry copies that text: the menu reads the
//!   history, so it outlives the app; Privacy ▸ Keep history off is saved and the next
//!   dictation is delivered but not kept (key-up → pasted printed with the history and
//!   without);
//! - a damaged database (not a database at all) is set aside at start, kept for inspection, a
//!   new one is started (holding the recordings on disk again), the person is told, and
//!   dictation works and is kept as before.
//!
//! Needs the desktop tools (`scripts/setup.sh --test`) and the `base` model; run under
//! `flock /tmp/desktop.lock`. Logs and screenshots in `target/desktop-history/`.

// Linux only: an X11 desktop (Xvfb, xdotool, xclip, PulseAudio); on macOS this file is empty.
#![cfg(target_os = "linux")]

mod app_rig;
mod rig;

use app_rig::{
    clip, clip_text, copy_first_recent, dictate_copied, fresh_desktop, pick_in_tray_menu,
    start_app, wait_ready, write_settings,
};
use rig::{AppProcess, Desktop};
use std::fs;
use std::path::Path;
use std::thread;
use std::time::{Duration, Instant};
use whisper_dictation::history::History;

/// "Please remind me to call the dentist tomorrow morning at nine."
const CLIP: &str = "en_kal.wav";
/// A recording an earlier version kept (before there was a history).
const OLD_RECORDING: &str = "rec-001700000000000-000000.wav";
const SENTINEL: &str = "the person's own clipboard";
/// Privacy (the English menu's mnemonics): Privac&y ▸ Keep &history.
const PRIVACY: &str = "y";

/// One held dictation of [`CLIP`] (copy only), waited for until its text is on the clipboard.
fn dictate(desktop: &Desktop, app: &mut AppProcess) -> String {
    dictate_copied(desktop, app, CLIP)
}

fn stop(mut app: AppProcess) {
    app.stop()
        .unwrap_or_else(|e| panic!("stopping the app: {e}"));
}

/// The app's last "dictation done" line (empty when there is none).
fn last_done(app: &AppProcess) -> String {
    app.log()
        .lines()
        .rev()
        .find(|l| l.contains("dictation done"))
        .unwrap_or_default()
        .to_string()
}

/// The app's "history open" line: written at start, before or after "app ready".
fn history_opened(app: &AppProcess) -> String {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(line) = app.log().lines().rev().find(|l| l.contains("history open")) {
            return line.to_string();
        }
        assert!(Instant::now() < deadline, "no \"history open\" line");
        thread::sleep(Duration::from_millis(100));
    }
}

fn settings(state: &Path) -> serde_json::Value {
    serde_json::from_slice(&fs::read(state.join("settings.json")).unwrap()).unwrap()
}

fn open_history(state: &Path) -> History {
    History::open(&state.join("history.sqlite3"))
        .unwrap_or_else(|e| panic!("{e}"))
        .0
}

#[test]
fn dictations_are_kept_searched_and_outlive_a_restart_and_a_damaged_database() {
    let (desktop, out, state) = fresh_desktop("desktop-history");
    write_settings(&state, "copy", "en");
    let recordings_dir = state.join("recordings");
    fs::create_dir_all(&recordings_dir).unwrap();
    fs::copy(clip("en_slt.wav"), recordings_dir.join(OLD_RECORDING)).unwrap();

    // First start: the old recording is imported, a dictation is kept.
    let mut app = start_app(&desktop, &state, &[("WHISPER_DICTATION_UI_LANG", "en")]);
    wait_ready(&mut app);
    let opened = history_opened(&app);
    assert_eq!(
        rig::log_field(&opened, "imported").as_deref(),
        Some("1"),
        "{opened}"
    );
    let copied = dictate(&desktop, &mut app);
    println!("dictated: {copied:?}");
    let first_done = last_done(&app);
    assert!(
        rig::word_recall(&clip_text(CLIP), &copied) >= 0.6,
        "{copied:?}"
    );
    app.wait_for_log("history entry added", Duration::from_secs(10))
        .unwrap_or_else(|e| panic!("{e}"));
    stop(app);

    let history = open_history(&state);
    let entries = history.recent(10).unwrap_or_else(|e| panic!("{e}"));
    println!("history: {entries:#?}");
    assert_eq!(entries.len(), 2, "the dictation and the imported recording");
    let entry = &entries[0];
    assert_eq!(entry.text, copied);
    assert_eq!(entry.model, "base");
    assert_eq!(entry.device, "cpu");
    // What Whisper wrote before the wording, and the language it was heard in (the app's
    // default language setting detects among Polish and English).
    assert!(
        rig::word_recall(&clip_text(CLIP), &entry.raw_text) >= 0.6,
        "{entry:?}"
    );
    assert_eq!(entry.language.as_deref(), Some("en"), "{entry:?}");
    assert!(
        entry.key_up_to_pasted_ms.is_some_and(|ms| ms > 0),
        "{entry:?}"
    );
    assert!(entry.duration_ms > 1000, "{entry:?}");
    let name = entry.recording.as_deref().expect("its recording is named");
    assert!(recordings_dir.join(name).is_file(), "{name}");
    let imported = &entries[1];
    assert_eq!(imported.recording.as_deref(), Some(OLD_RECORDING));
    assert_eq!(imported.at_ms, 1_700_000_000_000);
    // Found without its case, or by the start of a word as it is typed.
    for query in ["DENTIST", "dent", "remind morning"] {
        let found = history.search(query, 10).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            found.first().map(|e| e.id),
            Some(entry.id),
            "{query:?}: {found:?}"
        );
    }
    drop(history);

    // Second start: Recent transcripts comes from the history; nothing imported again.
    let mut app = start_app(&desktop, &state, &[("WHISPER_DICTATION_UI_LANG", "en")]);
    wait_ready(&mut app);
    let opened = history_opened(&app);
    assert_eq!(
        rig::log_field(&opened, "imported").as_deref(),
        Some("0"),
        "{opened}"
    );
    desktop
        .set_clipboard(SENTINEL)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(copy_first_recent(&desktop, &mut app, &out.join("restart")));
    thread::sleep(Duration::from_millis(300));
    assert_eq!(
        desktop.clipboard().unwrap_or_else(|e| panic!("{e}")),
        copied,
        "Recent transcripts after a restart"
    );
    // Privacy ▸ Keep history off: saved, and the next dictation is delivered but not kept.
    let with_history = rig::log_field(&first_done, "key_up_to_pasted_ms");
    pick_in_tray_menu(
        &desktop,
        &mut app,
        &out.join("restart"),
        (PRIVACY, "h"),
        "keep history changed",
    );
    assert_eq!(settings(&state)["keep_history"], false);
    let unkept = dictate(&desktop, &mut app);
    let done = last_done(&app);
    println!(
        "key-up → pasted (ms): with history {with_history:?}, without {:?}",
        rig::log_field(&done, "key_up_to_pasted_ms")
    );
    assert!(
        rig::word_recall(&clip_text(CLIP), &unkept) >= 0.6,
        "{unkept:?}"
    );
    // On again for the rest (a menu choice, saved).
    pick_in_tray_menu(
        &desktop,
        &mut app,
        &out.join("restart"),
        (PRIVACY, "h"),
        "keep history changed",
    );
    assert_eq!(settings(&state)["keep_history"], true);
    stop(app);
    assert_eq!(
        open_history(&state)
            .count()
            .unwrap_or_else(|e| panic!("{e}")),
        2,
        "the dictation made with Keep history off is not in the history"
    );

    // A damaged database: set aside (kept), a new one, said, and dictation is kept as before.
    let db = state.join("history.sqlite3");
    for side in ["-wal", "-shm"] {
        let _ = fs::remove_file(state.join(format!("history.sqlite3{side}")));
    }
    fs::write(
        &db,
        b"this is not a database, it was damaged by a disk error".repeat(100),
    )
    .unwrap();
    let mut app = start_app(&desktop, &state, &[("WHISPER_DICTATION_UI_LANG", "en")]);
    wait_ready(&mut app);
    let opened = history_opened(&app);
    println!("{opened}");
    assert!(opened.contains("damaged"), "{opened}");
    // A new database holds the recordings on disk again (the old one and the two dictations').
    assert_eq!(
        rig::log_field(&opened, "imported").as_deref(),
        Some("3"),
        "{opened}"
    );
    let copied = dictate(&desktop, &mut app);
    assert!(
        rig::word_recall(&clip_text(CLIP), &copied) >= 0.6,
        "{copied:?}"
    );
    app.wait_for_log("history entry added", Duration::from_secs(10))
        .unwrap_or_else(|e| panic!("{e}"));
    desktop
        .wait_for_notification("The history was damaged", Duration::from_secs(10))
        .unwrap_or_else(|e| panic!("{e}"));
    stop(app);
    let set_aside: Vec<_> = fs::read_dir(&state)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("history.sqlite3.damaged"))
        .collect();
    assert_eq!(set_aside.len(), 1, "{set_aside:?}");
    let history = open_history(&state);
    let entries = history.recent(10).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(entries.len(), 4, "{entries:#?}");
    assert_eq!(entries[0].text, copied);

    let mut desktop = desktop;
    desktop.stop().unwrap_or_else(|e| panic!("{e}"));
}
