//! Dictation on a Wayland session, end to end through the real app on a headless sway (no X
//! server at all): sway's own key bindings run `whisper-dictation-trigger start` on F9's press
//! and `… stop` on its release (hold-to-talk, as the README tells sway users to bind it); the
//! clip played meanwhile is transcribed and pasted into a GTK text box running on the Wayland
//! backend, through the data-control clipboard and the virtual-keyboard protocol, and the
//! person's clipboard comes back. Then the app again with output "type" and Polish: the
//! Polish clip's letters (ą, ę, ż…) are typed into the box. The overlay shows as a layer
//! surface during the recording (a screenshot's bottom centre changes). The app's one-line
//! account of the session names what it found.
//!
//! Prints key-up → pasted beside the X11 figure of `desktop_terminals` (no rule: ~0.16 s).
//!
//! Needs the Wayland desktop tools (`scripts/setup.sh --test`) and the `base` model; run as
//! `flock /tmp/desktop.lock cargo test --release --test desktop_wayland -- --nocapture`.
//! Logs and screenshots in `target/desktop-wayland/`. About a minute.

// Linux only: a Wayland compositor; on macOS this file is empty.
#![cfg(target_os = "linux")]

mod app_rig;
mod rig;

use app_rig::{
    clip, clip_text, playing_time, start_app, target_dir, wait_ready, TRANSCRIBE_TIMEOUT,
};
use rig::wayland::{unpreloaded, WaylandTextBox};
use rig::{log_field, AppProcess, Desktop};
use std::fs;
use std::path::Path;
use std::thread;
use std::time::{Duration, Instant};

const TRIGGER: &str = env!("CARGO_BIN_EXE_whisper-dictation-trigger");
/// The key sway binds to the trigger commands in this test.
const KEY: &str = "F9";

fn write_settings(state: &Path, output: &str, language: &str) {
    fs::create_dir_all(state).unwrap();
    let settings = serde_json::json!({
        "hotkey_mode": "hold",
        "output": output,
        "language": language,
        "model": "base",
        "overlay": true,
    });
    fs::write(
        state.join("settings.json"),
        serde_json::to_string_pretty(&settings).unwrap(),
    )
    .unwrap();
}

/// sway's bindings: F9 down starts, F9 up stops (the README's hold-to-talk binding).
fn bindings(state: &Path) -> String {
    let command = |what: &str| {
        unpreloaded(&format!(
            "env WHISPER_DICTATION_STATE_DIR={} {TRIGGER} {what}",
            state.display()
        ))
    };
    format!(
        "bindsym {KEY} exec {}\nbindsym --release {KEY} exec {}\n",
        command("start"),
        command("stop")
    )
}

/// Holds F9 (through sway's bindings) while `clip_name` plays, and 0.3 s after; returns the
/// `dictation done` line. The key goes up on its own (the holding process), whatever fails.
fn dictate(desktop: &Desktop, app: &mut AppProcess, clip_name: &str, out: &Path) -> String {
    let wav = clip(clip_name);
    let mut playback = desktop.play(&wav).unwrap_or_else(|e| panic!("{e}"));
    let held = desktop
        .wl_hold_key(KEY, playing_time(&wav) + Duration::from_millis(300))
        .unwrap_or_else(|e| panic!("{e}"));
    app.wait_for_log("recording started", Duration::from_secs(5))
        .unwrap_or_else(|e| panic!("sway's press binding did not start a recording: {e}"));
    // The overlay is up while recording: its layer surface at the bottom centre.
    thread::sleep(Duration::from_millis(600));
    let shot = out.join(format!("recording-{clip_name}.png"));
    desktop
        .wl_screenshot(&shot)
        .unwrap_or_else(|e| panic!("{e}"));
    held.released().unwrap_or_else(|e| panic!("{e}"));
    playback
        .wait(playing_time(&wav) + Duration::from_secs(30))
        .unwrap_or_else(|e| panic!("{e}"));
    app.wait_for_log("dictation done", TRANSCRIBE_TIMEOUT)
        .unwrap_or_else(|e| panic!("{clip_name}: {e}"))
}

/// Whether the bottom centre of the screenshot (where the overlay sits) shows anything but
/// the background sway paints (#2e3440).
fn overlay_on_screen(shot: &Path) -> bool {
    let image = rig::Image::read(shot).unwrap_or_else(|e| panic!("{e}"));
    let background = rig::rgb("#2e3440");
    let (cx, bottom) = (image.width / 2, image.height - 64);
    (bottom.saturating_sub(60)..bottom)
        .step_by(4)
        .flat_map(|y| (cx - 150..cx + 150).step_by(6).map(move |x| (x, y)))
        .filter(|&(x, y)| image.pixel(x, y) != background)
        .count()
        > 50
}

fn start(desktop: &Desktop, state: &Path) -> AppProcess {
    let mut app = start_app(desktop, state, &[]);
    wait_ready(&mut app);
    app
}

#[test]
fn sway_bindings_dictate_into_a_wayland_app_pasted_and_typed() {
    let out = target_dir().join("desktop-wayland");
    let _ = fs::remove_dir_all(&out);
    fs::create_dir_all(&out).unwrap();
    let state = out.join("state");
    write_settings(&state, "paste", "en");
    let desktop = Desktop::start_wayland(&out.join("rig"), &bindings(&state))
        .unwrap_or_else(|e| panic!("{e}"));
    println!(
        "sway up on {}; logs in {}",
        desktop.wayland_socket().unwrap_or("?"),
        out.display()
    );

    // 1. Paste (English): the clipboard is the data-control one, the keys the virtual keyboard.
    let mut app = start(&desktop, &state);
    let session = app.log();
    let session = session
        .lines()
        .find(|l| l.contains("desktop session"))
        .unwrap_or_else(|| panic!("the app logged no desktop session line:\n{session}"))
        .to_string();
    println!("{session}");
    for (key, value) in [
        ("session", "wayland"),
        ("hotkey", "desktop-binding"),
        ("keys", "virtual-keyboard"),
        ("overlay", "layer-shell"),
    ] {
        assert_eq!(
            log_field(&session, key).as_deref(),
            Some(value),
            "{session}"
        );
    }
    let before = "kept on the clipboard: zażółć";
    desktop
        .wl_set_clipboard(before)
        .unwrap_or_else(|e| panic!("{e}"));
    let text_box = WaylandTextBox::open(&desktop, "wayland-box").unwrap_or_else(|e| panic!("{e}"));
    let done = dictate(&desktop, &mut app, "en_kal.wav", &out);
    let said = log_field(&done, "text").unwrap_or_else(|| panic!("no text= in {done}"));
    let pasted_ms = log_field(&done, "key_up_to_pasted_ms").unwrap_or_else(|| "?".into());
    assert_eq!(
        log_field(&done, "output").as_deref(),
        Some("paste"),
        "{done}"
    );
    let got = text_box.wait_for_text(Duration::from_secs(5), |t| t.trim() == said.trim());
    assert_eq!(
        got.trim(),
        said.trim(),
        "the box holds what was said: {done}"
    );
    let recall = rig::word_recall(&clip_text("en_kal.wav"), &got);
    assert!(recall >= 0.8, "recall {recall:.2}: {got:?}");
    let restored_by = Instant::now() + Duration::from_secs(3);
    let mut clipboard = String::new();
    while Instant::now() < restored_by {
        clipboard = desktop.wl_clipboard().unwrap_or_default();
        if clipboard == before {
            break;
        }
        thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(
        clipboard, before,
        "the person's clipboard comes back after the paste"
    );
    assert!(
        overlay_on_screen(&out.join("recording-en_kal.wav.png")),
        "the overlay's layer surface shows at the bottom centre while recording"
    );
    drop(text_box);
    app.stop().unwrap_or_else(|e| panic!("{e}"));

    // 2. Type (Polish): every letter through the virtual keyboard's own keymap.
    write_settings(&state, "type", "pl");
    let mut app = start(&desktop, &state);
    let text_box =
        WaylandTextBox::open(&desktop, "wayland-box-pl").unwrap_or_else(|e| panic!("{e}"));
    let done = dictate(&desktop, &mut app, "pl_espeak.wav", &out);
    let said = log_field(&done, "text").unwrap_or_else(|| panic!("no text= in {done}"));
    let typed_ms = log_field(&done, "key_up_to_pasted_ms").unwrap_or_else(|| "?".into());
    assert_eq!(
        log_field(&done, "output").as_deref(),
        Some("type"),
        "{done}"
    );
    let got = text_box.wait_for_text(Duration::from_secs(10), |t| t.trim() == said.trim());
    assert_eq!(got.trim(), said.trim(), "typed letter for letter: {done}");
    assert!(
        got.chars().any(|c| "ąćęłńóśźżĄĆĘŁŃÓŚŹŻ".contains(c)),
        "the Polish text has Polish letters: {got:?}"
    );
    app.stop().unwrap_or_else(|e| panic!("{e}"));

    println!(
        "key-up → pasted on Wayland (sway, virtual keyboard): {pasted_ms} ms; typed (Polish, \
         {} chars): {typed_ms} ms; X11 (desktop_terminals, no rule): ~160 ms",
        said.chars().count()
    );
}
