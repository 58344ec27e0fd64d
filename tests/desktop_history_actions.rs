//! What the History window does with a dictation of the real app, on a real (virtual) X11
//! desktop (issue 28). The app dictates a clip (copy only), and the window, driven with the
//! keyboard through its real WebKitGTK page and the app's real IPC handlers:
//!
//! - finds the dictation by a word typed in upper case (the search folds case and diacritics);
//! - plays its recording: the app's sound goes to the desktop's PulseAudio sink (a stream of
//!   the app's is seen there while it plays, and the sink's monitor hears it);
//! - transcribes it again with `tiny.en` (the app dictates with `base`): the result is kept
//!   with the entry in the database, with the clip's words, and shown against the entry's
//!   text (screenshot `retranscribed.png`); closed and opened again, the window lists the
//!   entry with that re-transcription under it, compared as before (screenshot
//!   `reopened.png`, with the comparison's marked words as on the first);
//! - exports the history as CSV into the Downloads folder (`XDG_DOWNLOAD_DIR`), a file that
//!   holds the dictated text and only its owner can read.
//!
//! Needs the desktop tools (`scripts/setup.sh --test`), WebKitGTK 4.1, and the `base` and
//! `tiny.en` models; run under `flock /tmp/desktop.lock`. Logs and screenshots in
//! `target/desktop-history-actions/`.

// Linux only: an X11 desktop (Xvfb, xdotool, xclip, openbox); on macOS this file is empty.
#![cfg(target_os = "linux")]

mod app_rig;
mod rig;

use app_rig::{
    activate_window, clip_text, count_colour, dictate_copied, find_window, fresh_desktop,
    open_menu, start_app, wait_ready, write_settings,
};
use rig::{log_field, AppProcess, Desktop, Image};
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::thread;
use std::time::{Duration, Instant};
use whisper_dictation::history::History;

const CLIP: &str = "en_kal.wav";
/// The English menu's mnemonic of "Hi&story…".
const HISTORY_KEY: &str = "s";
/// The comparison's added words: `ins` of style.css (green at 22 % over the white card).
const INSERTED: [u8; 3] = [209, 234, 214];
/// The comparison's removed words (style.css `--danger`).
const DANGER: &str = "#c62828";

fn key(desktop: &Desktop, keys: &str) {
    desktop.key(keys).unwrap_or_else(|e| panic!("{keys}: {e}"));
    thread::sleep(Duration::from_millis(150));
}

fn wait_log(app: &mut AppProcess, needle: &str, timeout: Duration) -> String {
    app.wait_for_log(needle, timeout).unwrap_or_else(|e| {
        panic!("{e}\n{}", rig::tail(app.log_path(), 30));
    })
}

/// The Downloads folder the app is told of, through the desktop's `user-dirs.dirs`.
fn downloads_folder(desktop: &Desktop, out: &Path) -> PathBuf {
    let config = desktop
        .env()
        .into_iter()
        .find(|(name, _)| name == "XDG_CONFIG_HOME")
        .map(|(_, value)| PathBuf::from(value))
        .expect("the desktop sets XDG_CONFIG_HOME");
    let downloads = out.join("Downloads");
    fs::create_dir_all(&config).unwrap();
    fs::write(
        config.join("user-dirs.dirs"),
        format!("XDG_DOWNLOAD_DIR=\"{}\"\n", downloads.display()),
    )
    .unwrap();
    downloads
}

/// The streams playing into the desktop's PulseAudio sinks (`pactl list sink-inputs short`).
fn sink_inputs(desktop: &Desktop) -> usize {
    let mut list = desktop.command("pactl");
    list.args(["list", "sink-inputs", "short"]);
    rig::run_ok(list, "pactl list sink-inputs", Duration::from_secs(10))
        .unwrap_or_else(|e| panic!("{e}"))
        .lines()
        .filter(|l| !l.trim().is_empty())
        .count()
}

/// The loudness (RMS of 16-bit samples, 0–1) the sink's monitor hears for `seconds`.
fn monitor_rms(desktop: &Desktop, seconds: f32) -> f32 {
    let mut record = desktop.command("parec");
    record.args([
        "-d",
        "fakesink.monitor",
        "--format=s16le",
        "--rate=16000",
        "--channels=1",
        "--latency-msec=20",
    ]);
    record.stdout(std::process::Stdio::piped());
    let mut child = record.spawn().expect("parec");
    thread::sleep(Duration::from_secs_f32(seconds));
    let _ = child.kill();
    let output = child.wait_with_output().expect("parec output");
    let samples: Vec<f32> = output
        .stdout
        .chunks_exact(2)
        .map(|b| f32::from(i16::from_le_bytes([b[0], b[1]])) / 32768.0)
        .collect();
    if samples.is_empty() {
        return 0.0;
    }
    (samples.iter().map(|s| s * s).sum::<f32>() / samples.len() as f32).sqrt()
}

#[test]
fn history_window_plays_retranscribes_and_exports_a_dictation() {
    let (desktop, out, state) = fresh_desktop("desktop-history-actions");
    write_settings(&state, "copy", "en");
    let downloads = downloads_folder(&desktop, &out);
    let mut app = start_app(&desktop, &state, &[]);
    wait_ready(&mut app);

    let copied = dictate_copied(&desktop, &mut app, CLIP);
    println!("dictated: {copied:?}");
    let expected = clip_text(CLIP);
    assert!(rig::word_recall(&expected, &copied) >= 0.6, "{copied:?}");
    wait_log(&mut app, "history entry added", Duration::from_secs(10));

    // History… from the tray, then a search in capitals for a word of the dictation.
    open_menu(&desktop, &out);
    key(&desktop, HISTORY_KEY);
    wait_log(&mut app, "history window painted", Duration::from_secs(20));
    let (id, area) = find_window(&desktop, "History");
    activate_window(&desktop, &id);
    let word = rig::words(&copied)
        .into_iter()
        .max_by_key(|w| w.chars().count())
        .expect("a word")
        .to_uppercase();
    let mut typing = desktop.command("xdotool");
    typing.args(["type", "--delay", "60", &word]);
    rig::run_ok(typing, "xdotool type", Duration::from_secs(20)).unwrap_or_else(|e| panic!("{e}"));
    let deadline = Instant::now() + Duration::from_secs(5);
    let results = |app: &AppProcess| {
        app.log()
            .lines()
            .rev()
            .find(|l| l.contains("history window: list shown"))
            .and_then(|l| log_field(l, "results"))
    };
    while results(&app).as_deref() != Some("1") && Instant::now() < deadline {
        thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(results(&app).as_deref(), Some("1"), "searching {word}");

    // Search → star → copy → play.
    let quiet = monitor_rms(&desktop, 0.5);
    for _ in 0..3 {
        key(&desktop, "Tab");
    }
    let streams_before = sink_inputs(&desktop);
    key(&desktop, "Return");
    let playing = wait_log(
        &mut app,
        "history window: recording playing",
        Duration::from_secs(10),
    );
    let seconds: f32 = log_field(&playing, "seconds")
        .and_then(|s| s.parse().ok())
        .expect(&playing);
    let streams_playing = sink_inputs(&desktop);
    let heard = monitor_rms(&desktop, (seconds - 0.8).clamp(0.5, 2.0));
    println!(
        "playing {seconds:.1} s: sink inputs {streams_before} → {streams_playing}; the sink's \
         monitor heard RMS {heard:.4} (before: {quiet:.4})"
    );
    assert!(
        streams_playing > streams_before,
        "no stream of the app's in the sink"
    );
    assert!(
        heard > 0.01 && heard > quiet * 4.0,
        "nothing heard: {heard} against {quiet}"
    );
    assert!(
        app.log().contains("playing a recording"),
        "{}",
        rig::tail(app.log_path(), 20)
    );

    // → "Transcribe again" with the footer's model (tiny.en, the one dictations don't use).
    key(&desktop, "Tab");
    key(&desktop, "Return");
    wait_log(
        &mut app,
        "history window: re-transcribing",
        Duration::from_secs(10),
    );
    let shown = wait_log(
        &mut app,
        "history window: re-transcription shown",
        Duration::from_secs(120),
    );
    println!("{shown}");
    assert_eq!(
        log_field(&shown, "model").as_deref(),
        Some("tiny.en"),
        "{shown}"
    );
    thread::sleep(Duration::from_millis(500));
    desktop
        .screenshot_region(&out.join("retranscribed.png"), area)
        .unwrap_or_else(|e| panic!("{e}"));

    // → Delete → the footer's model list → Export CSV.
    for _ in 0..3 {
        key(&desktop, "Tab");
    }
    key(&desktop, "Return");
    let exported = wait_log(
        &mut app,
        "history window: history exported",
        Duration::from_secs(10),
    );
    let path = PathBuf::from(log_field(&exported, "path").expect(&exported));
    assert!(
        path.starts_with(&downloads),
        "{path:?} not in {downloads:?}"
    );
    let csv = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(csv.contains(copied.trim()), "{csv}");
    let mode = fs::metadata(&path).unwrap().permissions().mode();
    assert_eq!(mode & 0o077, 0, "{mode:o}");

    // Closed (Alt+F4) and opened again: the re-transcription is listed with its entry.
    desktop.key("alt+F4").unwrap_or_else(|e| panic!("{e}"));
    wait_log(&mut app, "history window closed", Duration::from_secs(10));
    open_menu(&desktop, &out);
    key(&desktop, HISTORY_KEY);
    let listed = wait_log(
        &mut app,
        "history window: list shown",
        Duration::from_secs(20),
    );
    assert_eq!(
        log_field(&listed, "again").as_deref(),
        Some("1"),
        "{listed}"
    );
    wait_log(&mut app, "history window painted", Duration::from_secs(20));
    let (_, area) = find_window(&desktop, "History");
    thread::sleep(Duration::from_millis(500));
    desktop
        .screenshot_region(&out.join("reopened.png"), area)
        .unwrap_or_else(|e| panic!("{e}"));
    // The words the comparison marks (added on green, removed in red) are on screen again.
    let marked = |name: &str| {
        let image = Image::read(&out.join(name)).unwrap_or_else(|e| panic!("{e}"));
        count_colour(&image, INSERTED, 12) + count_colour(&image, rig::rgb(DANGER), 40)
    };
    let (first, reopened) = (marked("retranscribed.png"), marked("reopened.png"));
    println!("marked words' pixels: {first} when re-transcribed, {reopened} after reopening");
    if first > 50 {
        assert!(
            reopened * 2 > first,
            "the re-transcription is not shown after reopening: {reopened} against {first}"
        );
    }
    app.stop().unwrap_or_else(|e| panic!("{e}"));

    let (history, _) = History::open(&state.join("history.sqlite3")).unwrap();
    let entry = history.recent(1).unwrap().remove(0);
    let again = history.transcriptions(entry.id).unwrap();
    println!("entry: {:?}\nagain: {again:?}", entry.text);
    assert_eq!(again.len(), 1, "{again:?}");
    assert_eq!(again[0].model, "tiny.en");
    assert!(
        rig::word_recall(&expected, &again[0].text) >= 0.6,
        "{:?}",
        again[0].text
    );
}
