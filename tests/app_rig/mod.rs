//! The app as the desktop tests run it: its binary, settings, start and readiness, the test
//! clips and their texts, and what can be read of it from outside (resident size, clipboard).
//! Apart from `rig` (the desktop itself), which examples share too: this needs the test-only
//! `CARGO_BIN_EXE_*`.

// Linux only, as the desktop tests that use it (/proc/<pid>/status).
#![cfg(target_os = "linux")]
// Each desktop test uses a part.
#![allow(dead_code)]

use crate::rig::{AppProcess, Desktop};
use std::fs;
use std::path::{Path, PathBuf};
use std::thread;
use std::time::{Duration, Instant};

pub const BIN: &str = env!("CARGO_BIN_EXE_whisper-dictation");
/// The hotkey the tests hold to dictate.
pub const HOTKEY: &str = "ctrl+alt+space";
/// Model load and warm-up of `base` on a 2-core machine, with room to spare.
pub const READY_TIMEOUT: Duration = Duration::from_secs(180);
pub const TRANSCRIBE_TIMEOUT: Duration = Duration::from_secs(90);

pub fn clip(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/clips")
        .join(name)
}

/// The exact text of a clip (tests/fixtures/clips/texts.json).
pub fn clip_text(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/clips/texts.json");
    let json: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(path).expect("texts.json")).expect("JSON");
    json[name].as_str().expect("a clip text").to_string()
}

/// Copies the WAV `from` to `to` without the digital silence at its end.
pub fn write_without_trailing_silence(from: &Path, to: &Path) {
    let mut reader = hound::WavReader::open(from).unwrap_or_else(|e| panic!("{e}"));
    let spec = reader.spec();
    let mut samples: Vec<i16> = reader.samples::<i16>().map(|s| s.unwrap()).collect();
    while samples.last() == Some(&0) {
        samples.pop();
    }
    let mut writer = hound::WavWriter::create(to, spec).unwrap_or_else(|e| panic!("{e}"));
    for s in samples {
        writer.write_sample(s).unwrap();
    }
    writer.finalize().unwrap();
}

/// `target/` of this build: the binary is `target/<profile>/whisper-dictation`.
pub fn target_dir() -> PathBuf {
    Path::new(BIN)
        .parent()
        .and_then(Path::parent)
        .expect("the binary lies in target/<profile>/")
        .to_path_buf()
}

/// Settings for a test start: the test hotkey held to dictate, `output` mode, the `language`
/// spoken, model `base`.
pub fn write_settings(state: &Path, output: &str, language: &str) {
    fs::create_dir_all(state).unwrap();
    let settings = serde_json::json!({
        "hotkey": HOTKEY,
        "hotkey_mode": "hold",
        "output": output,
        "language": language,
        "model": "base",
    });
    fs::write(
        state.join("settings.json"),
        serde_json::to_string_pretty(&settings).unwrap(),
    )
    .unwrap();
}

/// Starts the app with its state in `state` and `env` added; its log carries the dictated
/// texts (`WHISPER_DICTATION_LOG_TEXT=1`: the tests read them there), unlike a person's
/// ([`start_app_private`]).
pub fn start_app(desktop: &Desktop, state: &Path, env: &[(&str, &str)]) -> AppProcess {
    let mut vars = vec![("WHISPER_DICTATION_LOG_TEXT", "1")];
    vars.extend_from_slice(env);
    start_app_private(desktop, state, &vars)
}

/// [`start_app`] with the log as a person's is by default: no dictated text in it (unless
/// `env` asks for it). The log's filter is `info`, or `$WHISPER_DICTATION_TEST_APP_LOG` when
/// set (e.g. `info,whisper_dictation::app::worker=debug` for each pass's encode and decode
/// times).
pub fn start_app_private(desktop: &Desktop, state: &Path, env: &[(&str, &str)]) -> AppProcess {
    let log = std::env::var("WHISPER_DICTATION_TEST_APP_LOG").unwrap_or_else(|_| "info".into());
    let mut vars = vec![
        (
            "WHISPER_DICTATION_STATE_DIR",
            state.to_str().expect("a UTF-8 path"),
        ),
        ("WHISPER_DICTATION_LOG", log.as_str()),
    ];
    vars.extend_from_slice(env);
    let no_args: [&str; 0] = [];
    desktop
        .spawn_app(Path::new(BIN), vars, no_args)
        .unwrap_or_else(|e| panic!("starting the app: {e}"))
}

pub fn wait_ready(app: &mut AppProcess) -> Duration {
    let started = Instant::now();
    app.wait_for_log("app ready", READY_TIMEOUT)
        .unwrap_or_else(|e| panic!("{e}"));
    started.elapsed()
}

/// The resident memory of process `pid` in MB (0 when it cannot be read).
pub fn resident_mb(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<u64>().ok())
        })
        .map_or(0, |kb| kb / 1024)
}

/// Waits until the clipboard holds `expected` (the app restores it ~300 ms after a paste).
pub fn wait_for_clipboard(desktop: &Desktop, expected: &str, timeout: Duration) -> String {
    let deadline = Instant::now() + timeout;
    loop {
        let now = desktop.clipboard().unwrap_or_else(|e| panic!("{e}"));
        if now == expected || Instant::now() >= deadline {
            return now;
        }
        thread::sleep(Duration::from_millis(100));
    }
}

/// A fresh desktop for the test named `name`: its folder `target/<name>/` emptied, with the
/// app's state folder in it. Returns the desktop, the folder and the state folder.
pub fn fresh_desktop(name: &str) -> (Desktop, PathBuf, PathBuf) {
    let out = target_dir().join(name);
    let _ = fs::remove_dir_all(&out);
    fs::create_dir_all(&out).unwrap();
    let state = out.join("state");
    let desktop = Desktop::start(&out.join("rig")).unwrap_or_else(|e| panic!("{e}"));
    println!(
        "desktop {} up; screenshots and logs in {}",
        desktop.display(),
        out.display()
    );
    (desktop, out, state)
}

/// The app's "model ready" line, checked to say the model is on the CPU.
pub fn ready_on_cpu(app: &AppProcess) -> String {
    let log = app.log();
    let ready = log
        .lines()
        .find(|l| l.contains("model ready"))
        .unwrap_or_else(|| panic!("no 'model ready' line in:\n{log}"))
        .to_string();
    assert!(
        ready.contains("device=\"cpu\"") || ready.contains("device=cpu"),
        "{ready}"
    );
    ready
}

/// 16-bit mono WAV of `parts` (clips and silences, all at the clips' rate) one after another.
pub fn concatenate(parts: &[Result<&Path, Duration>], to: &Path) {
    let mut spec = None;
    let mut samples: Vec<i16> = Vec::new();
    for part in parts {
        match part {
            Ok(path) => {
                let mut reader = hound::WavReader::open(path).unwrap_or_else(|e| panic!("{e}"));
                spec.get_or_insert(reader.spec());
                samples.extend(reader.samples::<i16>().map(Result::unwrap));
            }
            Err(silence) => {
                let rate = spec.map_or(16_000, |s: hound::WavSpec| s.sample_rate);
                samples.extend(std::iter::repeat_n(
                    0,
                    (silence.as_secs_f64() * f64::from(rate)) as usize,
                ));
            }
        }
    }
    let mut writer =
        hound::WavWriter::create(to, spec.expect("a clip first")).unwrap_or_else(|e| panic!("{e}"));
    for s in samples {
        writer.write_sample(s).unwrap();
    }
    writer.finalize().unwrap();
}

/// `clip` played backwards: sound with the rhythm and spectrum of speech and no words.
pub fn reversed(clip: &Path, to: &Path) {
    let mut reader = hound::WavReader::open(clip).unwrap_or_else(|e| panic!("{e}"));
    let spec = reader.spec();
    let mut samples: Vec<i16> = reader.samples::<i16>().map(Result::unwrap).collect();
    samples.reverse();
    let mut writer = hound::WavWriter::create(to, spec).unwrap_or_else(|e| panic!("{e}"));
    for s in samples {
        writer.write_sample(s).unwrap();
    }
    writer.finalize().unwrap();
}

/// How long `clip` (a WAV file) plays; zero when it cannot be read.
pub fn playing_time(clip: &Path) -> Duration {
    hound::WavReader::open(clip).map_or(Duration::ZERO, |reader| {
        let spec = reader.spec();
        Duration::from_secs_f64(f64::from(reader.duration()) / f64::from(spec.sample_rate))
    })
}

/// Holds [`HOTKEY`] while `clip` plays into the microphone: pressed just after playback starts,
/// released `linger` after the last sample (as a person lets go after the word). The key is let
/// go before any failure is reported, so a failed test never leaves it held.
pub fn hold_hotkey_while_playing(
    desktop: &Desktop,
    app: &mut AppProcess,
    clip: &Path,
    linger: Duration,
) {
    let mut playback = desktop.play(clip).unwrap_or_else(|e| panic!("{e}"));
    desktop.key_down(HOTKEY).unwrap_or_else(|e| panic!("{e}"));
    if let Err(e) = app.wait_for_log("recording started", Duration::from_secs(5)) {
        let _ = desktop.key_up(HOTKEY);
        panic!("{e}");
    }
    let played = playback.wait(playing_time(clip) + Duration::from_secs(30));
    thread::sleep(linger);
    desktop.key_up(HOTKEY).unwrap_or_else(|e| panic!("{e}"));
    played.unwrap_or_else(|e| panic!("{e}"));
}

/// Opens the tray menu and picks, by mnemonic keys, the submenu `submenu_key` and its item
/// `item_key`; returns the app's log line `logged` that confirms the choice. `out` holds the
/// screenshots taken to find the icon and the menu.
pub fn pick_in_tray_menu(
    desktop: &Desktop,
    app: &mut AppProcess,
    out: &Path,
    (submenu_key, item_key): (&str, &str),
    logged: &str,
) -> String {
    open_menu(desktop, out);
    desktop.key(submenu_key).unwrap_or_else(|e| panic!("{e}"));
    thread::sleep(Duration::from_millis(300));
    desktop.key(item_key).unwrap_or_else(|e| panic!("{e}"));
    app.wait_for_log(logged, Duration::from_secs(10))
        .unwrap_or_else(|e| panic!("menu {submenu_key} ▸ the item of key {item_key}: {e}"))
}

/// Opens the tray menu and picks Recent transcripts ▸ its first entry by keyboard; returns
/// whether the app copied a recent transcript (its menu log line came). The menu is closed
/// either way.
pub fn copy_first_recent(desktop: &Desktop, app: &mut AppProcess, out: &Path) -> bool {
    let before = app.log().matches("CopyRecent").count();
    open_menu(desktop, out);
    desktop.key("t").unwrap_or_else(|e| panic!("{e}"));
    thread::sleep(Duration::from_millis(300));
    desktop
        .screenshot(&out.join("recent.png"))
        .unwrap_or_else(|e| panic!("{e}"));
    desktop.key("Return").unwrap_or_else(|e| panic!("{e}"));
    thread::sleep(Duration::from_millis(1500));
    // A disabled entry leaves the menu open: close it (harmless when it is closed).
    for _ in 0..2 {
        desktop.key("Escape").unwrap_or_else(|e| panic!("{e}"));
        thread::sleep(Duration::from_millis(200));
    }
    app.log().matches("CopyRecent").count() > before
}

/// Waits for the tray icon (idle) and opens its menu; screenshots of both go to `out`.
pub fn open_menu(desktop: &Desktop, out: &Path) {
    let icon = desktop
        .wait_for_tray_icon(
            &out.join("idle.png"),
            crate::rig::rgb("#1E88E5"),
            40,
            60,
            Duration::from_secs(10),
        )
        .unwrap_or_else(|e| panic!("{e}"));
    desktop
        .open_tray_menu(
            (icon.x, icon.y),
            &out.join("menu.png"),
            Duration::from_secs(10),
        )
        .unwrap_or_else(|e| panic!("{e}"));
}

/// One held dictation of `clip_name` in copy-only mode, waited for until its text is on the
/// clipboard; returns that text.
pub fn dictate_copied(desktop: &Desktop, app: &mut AppProcess, clip_name: &str) -> String {
    hold_hotkey_while_playing(desktop, app, &clip(clip_name), Duration::ZERO);
    app.wait_for_log("dictation done", TRANSCRIBE_TIMEOUT)
        .unwrap_or_else(|e| panic!("{e}"));
    thread::sleep(Duration::from_millis(300));
    desktop.clipboard().unwrap_or_else(|e| panic!("{e}"))
}

/// The visible window titled exactly `title`: its X id and client rectangle (x, y, width,
/// height) on screen (`xwininfo`'s absolute position: `xdotool getwindowgeometry` is off by
/// openbox's frame).
pub fn find_window(desktop: &Desktop, title: &str) -> (String, (u32, u32, u32, u32)) {
    let mut search = desktop.command("xdotool");
    search.args([
        "search",
        "--sync",
        "--onlyvisible",
        "--name",
        &format!("^{title}$"),
    ]);
    let ids = crate::rig::run_ok(search, "xdotool search", Duration::from_secs(10))
        .unwrap_or_else(|e| panic!("{e}"));
    let id = ids.lines().next().expect("a window id").trim().to_string();
    let mut info = desktop.command("xwininfo");
    info.args(["-id", &id]);
    let text = crate::rig::run_ok(info, "xwininfo", Duration::from_secs(10))
        .unwrap_or_else(|e| panic!("{e}"));
    let field = |name: &str| -> u32 {
        text.lines()
            .find_map(|l| l.trim().strip_prefix(name))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or_else(|| panic!("{name} in {text}"))
    };
    let area = (
        field("Absolute upper-left X:"),
        field("Absolute upper-left Y:"),
        field("Width:"),
        field("Height:"),
    );
    (id, area)
}

/// Focuses the window of X id `id` (openbox raises it).
pub fn activate_window(desktop: &Desktop, id: &str) {
    let mut activate = desktop.command("xdotool");
    activate.args(["windowactivate", "--sync", id]);
    crate::rig::run_ok(activate, "xdotool windowactivate", Duration::from_secs(10))
        .unwrap_or_else(|e| panic!("{e}"));
}

/// Pixels of `image` whose colour is within `tolerance` (per channel) of `colour`.
pub fn count_colour(image: &crate::rig::Image, colour: [u8; 3], tolerance: u8) -> u64 {
    let mut count = 0;
    for y in 0..image.height {
        for x in 0..image.width {
            let pixel = image.pixel(x, y);
            if pixel
                .iter()
                .zip(colour)
                .all(|(&p, c)| p.abs_diff(c) <= tolerance)
            {
                count += 1;
            }
        }
    }
    count
}

/// Takes screenshots of `area` into `shot` until it shows a page of the app's window (mostly
/// its light background, with dark text), not an empty window; returns how long that took.
pub fn wait_for_page_on_screen(
    desktop: &Desktop,
    area: (u32, u32, u32, u32),
    shot: &Path,
) -> Duration {
    let started = Instant::now();
    let total = u64::from(area.2) * u64::from(area.3);
    loop {
        desktop
            .screenshot_region(shot, area)
            .unwrap_or_else(|e| panic!("{e}"));
        let image = crate::rig::Image::read(shot).unwrap_or_else(|e| panic!("{e}"));
        let (mut light, mut dark) = (0u64, 0u64);
        for y in 0..image.height {
            for x in 0..image.width {
                let sum: u32 = image.pixel(x, y).iter().map(|&c| u32::from(c)).sum();
                if sum > 700 {
                    light += 1;
                } else if sum < 200 {
                    dark += 1;
                }
            }
        }
        if light * 2 > total && dark > 500 {
            return started.elapsed();
        }
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "the window never showed the page: {light} light, {dark} dark of {total} pixels in {}",
            shot.display()
        );
        thread::sleep(Duration::from_millis(150));
    }
}
