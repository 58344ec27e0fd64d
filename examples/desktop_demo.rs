//! The app at work on a machine without a display (what `scripts/run.sh` runs there): starts a
//! virtual desktop (Xvfb, a window manager, a tray, notifications, a fake microphone), starts
//! the real app binary in it, opens a text box, plays `assets/sample.wav` into the microphone
//! while holding Ctrl+Alt+Space, and prints what was pasted and how long each stage took; then
//! opens the tray menu and saves a screenshot of it to `target/demo/menu.png`. Everything it
//! started is stopped again. Exit status 0 on success, 1 with a message otherwise.
//!
//! Usage: `desktop_demo [PATH-TO-whisper-dictation]` (default: the binary next to this one's
//! folder, `target/release/whisper-dictation`).

#[path = "../tests/rig/mod.rs"]
mod rig;

use rig::{Desktop, TextBox};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::thread;
use std::time::{Duration, Instant};

const HOTKEY: &str = "ctrl+alt+space";
/// The tray icon's colours by state (a filled disc).
const ICON_COLOURS: [(&str, &str); 4] = [
    ("idle", "#1E88E5"),
    ("recording", "#E53935"),
    ("transcribing", "#FB8C00"),
    ("error", "#757575"),
];
const SAMPLE_TEXT: &str =
    "The quarterly report is almost finished, but the charts still need more work.";

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("desktop demo failed: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let exe = std::env::current_exe().map_err(|e| format!("where am I: {e}"))?;
    // target/release/examples/desktop_demo → target/release
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .ok_or("this program must lie in target/<profile>/examples/")?;
    let app_bin = match std::env::args_os().nth(1) {
        Some(path) => PathBuf::from(path),
        None => profile_dir.join("whisper-dictation"),
    };
    if !app_bin.is_file() {
        return Err(format!(
            "no app binary at {} (build it with `cargo build --release`)",
            app_bin.display()
        ));
    }
    let out = profile_dir.parent().ok_or("no target folder")?.join("demo");
    let _ = fs::remove_dir_all(&out);
    fs::create_dir_all(&out).map_err(|e| format!("creating {}: {e}", out.display()))?;
    let sample = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets/sample.wav");

    println!("There is no display on this machine, so this is a headless demonstration:");
    println!(
        "starting a virtual desktop (Xvfb, openbox, a tray, notifications, a fake microphone)…"
    );
    let desktop = Desktop::start(&out.join("rig")).map_err(|e| e.to_string())?;

    let state = out.join("state");
    fs::create_dir_all(&state).map_err(|e| e.to_string())?;
    let settings = r#"{"hotkey": "ctrl+alt+space", "hotkey_mode": "hold", "output": "paste", "language": "en"}"#;
    fs::write(state.join("settings.json"), settings).map_err(|e| e.to_string())?;
    println!(
        "starting {} in it; loading and warming up the model…",
        app_bin.display()
    );
    let started = Instant::now();
    let mut app = desktop
        .spawn_app(
            &app_bin,
            [
                ("WHISPER_DICTATION_STATE_DIR", state.to_str().ok_or("path")?),
                ("WHISPER_DICTATION_UI_LANG", "en"),
                ("WHISPER_DICTATION_LOG", "info"),
            ],
            [] as [&str; 0],
        )
        .map_err(|e| e.to_string())?;
    app.wait_for_log("app ready", Duration::from_secs(180))
        .map_err(|e| e.to_string())?;
    println!(
        "the app is ready ({:.1} s)",
        started.elapsed().as_secs_f64()
    );
    let icon = find_tray_icon(&desktop, &out.join("idle.png"))?;

    let text_box = TextBox::open(&desktop, "Dictation demo").map_err(|e| e.to_string())?;
    text_box.focus().map_err(|e| e.to_string())?;
    println!(
        "a text box has the focus; holding Ctrl+Alt+Space while playing {} into the microphone \
         (it says: \"{SAMPLE_TEXT}\")…",
        sample.display()
    );
    let mut playback = desktop.play(&sample).map_err(|e| e.to_string())?;
    desktop.key_down(HOTKEY).map_err(|e| e.to_string())?;
    let recording = app.wait_for_log("recording started", Duration::from_secs(5));
    let played = recording.and_then(|_| playback.wait(Duration::from_secs(30)));
    desktop.key_up(HOTKEY).map_err(|e| e.to_string())?;
    played.map_err(|e| e.to_string())?;
    println!("released the keys; transcribing…");
    let done = app
        .wait_for_log("dictation done", Duration::from_secs(90))
        .map_err(|e| e.to_string())?;
    thread::sleep(Duration::from_millis(500));
    let pasted = text_box.submit().map_err(|e| e.to_string())?;
    if pasted.trim().is_empty() {
        return Err(format!(
            "nothing was pasted into the text box; the app logged: {done}"
        ));
    }
    println!("pasted into the text box: \"{pasted}\"");
    let field = |key: &str| rig::log_field(&done, key).unwrap_or_else(|| "?".into());
    println!(
        "from letting go of the keys: audio ready after {} ms, text after {} ms, pasted after {} ms",
        field("key_up_to_audio_ms"),
        field("key_up_to_text_ms"),
        field("key_up_to_pasted_ms")
    );

    let menu = desktop
        .open_tray_menu(
            (icon.x, icon.y),
            &out.join("menu-full.png"),
            Duration::from_secs(10),
        )
        .map_err(|e| e.to_string())?;
    let shot = out.join("menu.png");
    desktop
        .screenshot_menu(&menu, (icon.x, icon.y), &shot)
        .map_err(|e| e.to_string())?;
    desktop.key("Escape").map_err(|e| e.to_string())?;
    println!("the tray menu: {}", shot.display());

    app.stop().map_err(|e| format!("stopping the app: {e}"))?;
    drop(app);
    let mut desktop = desktop;
    desktop.stop().map_err(|e| e.to_string())?;
    println!("stopped the app and the virtual desktop");
    Ok(())
}

/// The app's tray icon, in whatever state colour it shows (the demo needs its place to open the
/// menu); a warning if the idle app does not show the idle colour.
fn find_tray_icon(desktop: &Desktop, shot: &Path) -> Result<rig::Blob, String> {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        desktop.screenshot(shot).map_err(|e| e.to_string())?;
        for (state, colour) in ICON_COLOURS {
            let found = rig::find_blob(shot, rig::rgb(colour), 40, rig::tray_area())
                .map_err(|e| e.to_string())?;
            if let Some(blob) = found.filter(|b| b.pixels >= 60) {
                if state != "idle" {
                    println!(
                        "warning: the idle app's tray icon shows the {state} colour {colour} \
                         (see {})",
                        shot.display()
                    );
                }
                return Ok(blob);
            }
        }
        if Instant::now() >= deadline {
            return Err(format!(
                "no tray icon in the tray within 15 s (see {})",
                shot.display()
            ));
        }
        thread::sleep(Duration::from_millis(300));
    }
}
