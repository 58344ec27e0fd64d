//! `whisper-dictation start | stop | toggle | cancel` against the real app on the virtual X11
//! desktop, as a compositor's press and release bindings would run them: the app set to
//! *press to start, press to stop* (`"hotkey_mode": "toggle"`), yet `start` … `stop` is a
//! hold — the clip played in between is transcribed and copied; a second `start` is a no-op;
//! `toggle` starts and `cancel` drops a recording (no dictation follows). The socket
//! (`control.sock`, owner-only) goes when the app quits (SIGTERM) and the commands then exit
//! 3; one a SIGKILL leaves behind answers nothing (exit 3) and the next start replaces it.
//! Prints start → recording started (the command's own process start included).
//!
//! Needs the desktop tools (`scripts/setup.sh --test`) and the `base` model; run as
//! `flock /tmp/desktop.lock cargo test --release --test desktop_trigger -- --nocapture`.
//! Logs in `target/desktop-trigger/`. About 30 s.

// Linux only: an X11 desktop (Xvfb, xdotool, PulseAudio); on macOS this file is empty.
#![cfg(target_os = "linux")]

mod app_rig;
mod rig;

use app_rig::{clip, fresh_desktop, playing_time, start_app, wait_ready, BIN, TRANSCRIBE_TIMEOUT};
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output};
use std::thread;
use std::time::{Duration, Instant};

const CLIP: &str = "en_kal.wav";

/// Runs `whisper-dictation <command>` against the app whose state folder is `state`.
fn trigger(state: &Path, command: &str) -> Output {
    Command::new(BIN)
        .arg(command)
        .env("WHISPER_DICTATION_STATE_DIR", state)
        .env_remove("WHISPER_DICTATION_LOG")
        .output()
        .expect("the binary runs")
}

/// [`trigger`], which must succeed; returns its reply.
fn reply(state: &Path, command: &str) -> String {
    let out = trigger(state, command);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout).trim().to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    );
    assert!(
        out.status.success(),
        "{command}: {:?} {stdout} {stderr}",
        out.status
    );
    stdout
}

#[test]
fn the_commands_drive_the_running_app_as_a_held_key() {
    let (desktop, _out, state) = fresh_desktop("desktop-trigger");
    fs::create_dir_all(&state).unwrap();
    let settings = serde_json::json!({
        "hotkey": app_rig::HOTKEY,
        "hotkey_mode": "toggle",
        "output": "copy",
        "language": "en",
        "model": "base",
    });
    fs::write(state.join("settings.json"), settings.to_string()).unwrap();
    let socket = state.join("control.sock");

    let mut app = start_app(&desktop, &state, &[]);
    wait_ready(&mut app);
    assert!(app.logged("control socket listening"), "{}", app.log());
    let mode = fs::metadata(&socket).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "control.sock mode {mode:o}");

    // Press binding, the clip, release binding.
    let wav = clip(CLIP);
    let asked = Instant::now();
    assert_eq!(reply(&state, "start"), "recording");
    app.wait_for_log("recording started", Duration::from_secs(5))
        .unwrap_or_else(|e| panic!("{e}"));
    println!("start → recording started: {:?}", asked.elapsed());
    let mut playback = desktop.play(&wav).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(reply(&state, "start"), "already recording");
    let played = playback.wait(playing_time(&wav) + Duration::from_secs(30));
    assert_eq!(reply(&state, "stop"), "stopped");
    played.unwrap_or_else(|e| panic!("{e}"));
    app.wait_for_log("dictation done", TRANSCRIBE_TIMEOUT)
        .unwrap_or_else(|e| panic!("{e}"));
    thread::sleep(Duration::from_millis(300));
    let copied = desktop.clipboard().unwrap_or_else(|e| panic!("{e}"));
    println!("dictated {CLIP} by start/stop: {copied:?}");
    // The clip says "Please remind me to call the dentist tomorrow morning at nine."
    assert!(
        copied.contains("remind me to call the dentist"),
        "{copied:?}"
    );
    assert_eq!(reply(&state, "stop"), "not recording");

    // Toggle starts; cancel drops it: no second dictation.
    assert_eq!(reply(&state, "toggle"), "recording");
    thread::sleep(Duration::from_millis(800));
    assert_eq!(reply(&state, "cancel"), "cancelled");
    app.wait_for_log("recording cancelled", Duration::from_secs(5))
        .unwrap_or_else(|e| panic!("{e}"));
    thread::sleep(Duration::from_secs(2));
    assert_eq!(
        app.log().matches("dictation done").count(),
        1,
        "{}",
        app.log()
    );
    assert_eq!(reply(&state, "cancel"), "not recording");

    // Quit: the socket goes, and the commands say no app runs.
    app.stop().unwrap_or_else(|e| panic!("{e}"));
    assert!(!socket.exists(), "control.sock left after quitting");
    let out = trigger(&state, "start");
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains(&socket.display().to_string()));

    // A SIGKILL leaves the file; it answers nothing, and the next start replaces it.
    let mut app = start_app(&desktop, &state, &[]);
    app.wait_for_log("control socket listening", Duration::from_secs(60))
        .unwrap_or_else(|e| panic!("{e}"));
    app.kill().unwrap_or_else(|e| panic!("{e}"));
    assert!(socket.exists());
    assert_eq!(trigger(&state, "toggle").status.code(), Some(3));
    let mut app = start_app(&desktop, &state, &[]);
    app.wait_for_log("control socket listening", Duration::from_secs(60))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        app.logged("removed a stale control socket"),
        "{}",
        app.log()
    );
    assert_eq!(reply(&state, "cancel"), "not recording");
}
