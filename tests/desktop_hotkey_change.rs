//! The hotkey changed from the tray menu while the real app runs on a real (virtual) X11
//! desktop: Hotkey ▸ Ctrl+Shift+Space lets Ctrl+Alt+Space go (held, it no longer records) and
//! grabs the new one, which dictates; settings.json keeps the choice. The app's own hotkey
//! listener (`platform::HotkeyListener`) unregisters and registers on its X connection while
//! its thread waits on it.
//!
//! Needs the desktop tools (`scripts/setup.sh --test`) and the `base` model. Logs and
//! screenshots are left in `target/desktop-hotkey-change/`.

// Linux only: an X11 desktop (Xvfb, xdotool, PulseAudio); on macOS this file is empty.
#![cfg(target_os = "linux")]

mod app_rig;
mod rig;

use app_rig::{
    clip, fresh_desktop, open_menu, playing_time, start_app, wait_ready, write_settings,
    TRANSCRIBE_TIMEOUT,
};
use std::fs;
use std::thread;
use std::time::Duration;

const NEW_HOTKEY: &str = "ctrl+shift+space";
const CLIP: &str = "en_kal.wav";

#[test]
fn the_hotkey_chosen_in_the_menu_is_the_one_that_dictates() {
    let (desktop, out, state) = fresh_desktop("desktop-hotkey-change");
    write_settings(&state, "copy", "en");
    let mut app = start_app(&desktop, &state, &[]);
    let live = app
        .wait_for_log("hotkey live", Duration::from_secs(60))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(live.contains("ctrl+alt+space"), "{live}");
    wait_ready(&mut app);

    // Hotkey ▸ Ctrl+Shift+Space: the submenu by its mnemonic, then its items by arrow keys
    // (Hold to talk, Press to start…, the separator, Ctrl+Alt+Space, Ctrl+Shift+Space).
    open_menu(&desktop, &out);
    desktop.key("h").unwrap_or_else(|e| panic!("{e}"));
    thread::sleep(Duration::from_millis(300));
    for _ in 0..3 {
        desktop.key("Down").unwrap_or_else(|e| panic!("{e}"));
        thread::sleep(Duration::from_millis(100));
    }
    desktop
        .screenshot(&out.join("hotkey-menu.png"))
        .unwrap_or_else(|e| panic!("{e}"));
    desktop.key("Return").unwrap_or_else(|e| panic!("{e}"));
    let changed = app
        .wait_for_log("hotkey changed", Duration::from_secs(10))
        .unwrap_or_else(|e| panic!("Hotkey ▸ Ctrl+Shift+Space: {e}"));
    println!("{changed}");
    assert!(changed.contains(NEW_HOTKEY), "{changed}");
    let settings = fs::read_to_string(state.join("settings.json")).unwrap();
    assert!(settings.contains(NEW_HOTKEY), "{settings}");

    // The old combination is let go: held, it starts nothing.
    let recordings = app.log().matches("recording started").count();
    desktop
        .key_down("ctrl+alt+space")
        .unwrap_or_else(|e| panic!("{e}"));
    thread::sleep(Duration::from_millis(1500));
    desktop
        .key_up("ctrl+alt+space")
        .unwrap_or_else(|e| panic!("{e}"));
    thread::sleep(Duration::from_millis(500));
    assert_eq!(
        app.log().matches("recording started").count(),
        recordings,
        "Ctrl+Alt+Space still started a recording after the change"
    );

    // The new one dictates.
    let wav = clip(CLIP);
    let mut playback = desktop.play(&wav).unwrap_or_else(|e| panic!("{e}"));
    desktop
        .key_down(NEW_HOTKEY)
        .unwrap_or_else(|e| panic!("{e}"));
    let started = app.wait_for_log("recording started", Duration::from_secs(5));
    if started.is_ok() {
        let _ = playback.wait(playing_time(&wav) + Duration::from_secs(30));
    }
    desktop.key_up(NEW_HOTKEY).unwrap_or_else(|e| panic!("{e}"));
    started.unwrap_or_else(|e| panic!("{NEW_HOTKEY} did not start a recording: {e}"));
    let done = app
        .wait_for_log("dictation done", TRANSCRIBE_TIMEOUT)
        .unwrap_or_else(|e| panic!("{e}"));
    thread::sleep(Duration::from_millis(300));
    let copied = desktop.clipboard().unwrap_or_else(|e| panic!("{e}"));
    println!("dictated {CLIP} with {NEW_HOTKEY}: {copied:?} ({done})");
    // The clip says "Please remind me to call the dentist tomorrow morning at nine."
    assert!(
        copied.contains("remind me to call the dentist"),
        "{copied:?}"
    );
}
