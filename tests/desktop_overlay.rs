//! The overlay on a real (virtual) X11 desktop, the app binary driving it. While the hotkey is
//! held the overlay window is mapped, belongs to the app (its `_NET_WM_PID`), is override-redirect
//! and not the focused window: the text box keeps the focus and the paste lands there. After a
//! pause in the speech the words on screen are, pixel for pixel, the worker's text for the audio
//! so far ("head transcribed" in the log), committed (full colour) once the pause has held,
//! drawn by the app's own renderer: no invented text. After
//! delivery the window is gone (no window at all while idle). The menu moves it to the top
//! centre, where speech that gives no text shows "Nic nie rozpoznano", again compared pixel for
//! pixel; the menu turns it off (saved), and then no window appears while dictating.
//!
//! Figures printed: key-down → overlay seen, CPU use while idle and while holding the key.
//! `WHISPER_DICTATION_OVERLAY_DICTATIONS=N` (0 by default) also runs N dictations in an app with
//! the overlay off and N in one with it on, and prints key-up → pasted medians, their ratio, and
//! the resident memory of each. `UPDATE_SCREENSHOT=1` copies the screenshot taken after the pause
//! to `docs/overlay.png`.

// Linux only: an X11 desktop (Xvfb, xdotool, PulseAudio) and /proc; on macOS this file is empty.
#![cfg(target_os = "linux")]

mod app_rig;
mod rig;

use app_rig::{
    clip, clip_text, concatenate, fresh_desktop, pick_in_tray_menu, resident_mb, reversed,
    start_app, wait_ready, write_settings, HOTKEY, TRANSCRIBE_TIMEOUT,
};
use rig::{AppProcess, Desktop, Image, TextBox};
use std::fs;
use std::path::{Path, PathBuf};
use std::thread;
use std::time::{Duration, Instant};
use whisper_dictation::app::overlay::render::{text_area, Renderer};
use whisper_dictation::app::overlay::view::{Phase, View};
use whisper_dictation::app::overlay::window::TITLE;
use whisper_dictation::i18n::UiLang;

const MEASURE_ENV: &str = "WHISPER_DICTATION_OVERLAY_DICTATIONS";

/// The overlay window as X11 shows it.
#[derive(Debug)]
struct Shown {
    id: String,
    x: u32,
    y: u32,
    width: u32,
    height: u32,
    viewable: bool,
    override_redirect: bool,
}

/// The app's overlay window if one is mapped.
fn overlay_window(desktop: &Desktop) -> Option<Shown> {
    let mut search = desktop.command("xdotool");
    search.args(["search", "--onlyvisible", "--name", &format!("^{TITLE}$")]);
    let out = rig::output_within(search, "xdotool search", Duration::from_secs(5)).ok()?;
    let id = String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()?
        .trim()
        .to_string();
    let mut info = desktop.command("xwininfo");
    info.args(["-id", &id]);
    let info = rig::run_ok(info, "xwininfo", Duration::from_secs(5)).ok()?;
    let field = |name: &str| -> Option<String> {
        info.lines()
            .find_map(|l| l.trim().strip_prefix(name))
            .map(|v| v.trim().to_string())
    };
    let number = |name: &str| field(name).and_then(|v| v.parse().ok());
    Some(Shown {
        x: number("Absolute upper-left X:")?,
        y: number("Absolute upper-left Y:")?,
        width: number("Width:")?,
        height: number("Height:")?,
        viewable: field("Map State:").as_deref() == Some("IsViewable"),
        override_redirect: field("Override Redirect State:").as_deref() == Some("yes"),
        id,
    })
}

/// Polls for the overlay window for up to `timeout`.
fn wait_for_overlay(desktop: &Desktop, timeout: Duration) -> Option<Shown> {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(shown) = overlay_window(desktop).filter(|s| s.viewable) {
            return Some(shown);
        }
        if Instant::now() >= deadline {
            return None;
        }
        thread::sleep(Duration::from_millis(10));
    }
}

/// Waits until no overlay window is mapped; how long that took.
fn wait_gone(desktop: &Desktop, timeout: Duration) -> Duration {
    let started = Instant::now();
    while overlay_window(desktop).is_some() {
        assert!(
            started.elapsed() < timeout,
            "the overlay was still mapped {timeout:?} after the dictation ended"
        );
        thread::sleep(Duration::from_millis(50));
    }
    started.elapsed()
}

/// The process that owns X window `id` (`_NET_WM_PID`).
fn window_pid(desktop: &Desktop, id: &str) -> Option<u32> {
    let mut cmd = desktop.command("xprop");
    cmd.args(["-id", id, "_NET_WM_PID"]);
    let out = rig::run_ok(cmd, "xprop _NET_WM_PID", Duration::from_secs(5)).ok()?;
    out.rsplit('=').next()?.trim().parse().ok()
}

fn focused_window(desktop: &Desktop) -> String {
    let mut cmd = desktop.command("xdotool");
    cmd.arg("getwindowfocus");
    rig::run_ok(cmd, "xdotool getwindowfocus", Duration::from_secs(5))
        .unwrap_or_else(|e| panic!("{e}"))
        .trim()
        .to_string()
}

/// A screenshot of the overlay window.
fn shoot(desktop: &Desktop, shown: &Shown, path: &Path) -> Image {
    desktop
        .screenshot_region(path, (shown.x, shown.y, shown.width, shown.height))
        .unwrap_or_else(|e| panic!("{e}"));
    Image::read(path).unwrap_or_else(|e| panic!("{e}"))
}

/// How many pixels of `area` (left, top, right, bottom) differ between the screenshot and the
/// renderer's frame by more than a rounding error.
fn differing(shot: &Image, frame: &tiny_skia::Pixmap, area: (u32, u32, u32, u32)) -> usize {
    assert_eq!(
        (shot.width, shot.height),
        (frame.width(), frame.height()),
        "the window's size is the panel's"
    );
    let mut count = 0;
    for y in area.1..area.3 {
        for x in area.0..area.2 {
            let a = shot.pixel(x, y);
            let b = frame.pixel(x, y).expect("inside");
            let b = [b.red(), b.green(), b.blue()];
            if a.iter().zip(&b).any(|(a, b)| a.abs_diff(*b) > 8) {
                count += 1;
            }
        }
    }
    count
}

fn view(lang: UiLang, phase: Phase, text: &str) -> View {
    View {
        lang,
        phase,
        elapsed: Duration::ZERO,
        max_length: Duration::from_secs(120),
        warn_before: Duration::from_secs(10),
        level: 0.0,
        // The worker's early text is shown as the tentative tail (dimmed).
        committed: String::new(),
        tentative: text.to_string(),
        mode: String::new(),
    }
}

/// The words area of the panel, in pixels.
fn words_area() -> (u32, u32, u32, u32) {
    let r = text_area(1.0);
    (
        r.left() as u32,
        r.top() as u32,
        r.right() as u32,
        r.bottom() as u32,
    )
}

/// CPU seconds the process has used (user + system, all threads).
fn cpu_seconds(pid: u32) -> f64 {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the command name (which may hold spaces) start at field 3.
    let after = stat.rsplit(')').next().unwrap_or("");
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    // utime and stime are fields 14 and 15: indexes 11 and 12 here. Linux counts 100 per second.
    (ticks(11) + ticks(12)) / 100.0
}

/// The app's CPU use over `span`, in percent of one core, while `during` runs.
fn cpu_percent(pid: u32, span: Duration, during: impl FnOnce()) -> f64 {
    let before = cpu_seconds(pid);
    let started = Instant::now();
    during();
    let left = span.saturating_sub(started.elapsed());
    thread::sleep(left);
    let used = cpu_seconds(pid) - before;
    100.0 * used / started.elapsed().as_secs_f64()
}

/// Holds the hotkey for `hold` in silence (nothing played: the microphone hears the null sink).
fn hold_silent(desktop: &Desktop, app: &mut AppProcess, hold: Duration) {
    desktop.key_down(HOTKEY).unwrap_or_else(|e| panic!("{e}"));
    let _ = app.wait_for_log("recording started", Duration::from_secs(5));
    thread::sleep(hold);
    desktop.key_up(HOTKEY).unwrap_or_else(|e| panic!("{e}"));
    app.wait_for_log("dictation empty", TRANSCRIBE_TIMEOUT)
        .unwrap_or_else(|e| panic!("{e}"));
}

/// Settings as [`write_settings`] writes them, with the overlay on or off.
fn write_overlay_settings(state: &Path, language: &str, overlay: bool) {
    write_settings(state, "paste", language);
    let path = state.join("settings.json");
    let mut settings: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    settings["overlay"] = serde_json::Value::Bool(overlay);
    fs::write(&path, serde_json::to_string_pretty(&settings).unwrap()).unwrap();
}

fn start(desktop: &Desktop, state: &Path, ui: &str) -> AppProcess {
    let mut app = start_app(desktop, state, &[("WHISPER_DICTATION_UI_LANG", ui)]);
    let ready = wait_ready(&mut app);
    println!("app ready after {:.1} s", ready.as_secs_f64());
    app
}

/// Lets go of the hotkey once `playback` has played; returns the "dictation done" line.
fn let_go(desktop: &Desktop, app: &mut AppProcess, mut playback: rig::Playback) -> String {
    let played = playback.wait(Duration::from_secs(30));
    desktop.key_up(HOTKEY).unwrap_or_else(|e| panic!("{e}"));
    played.unwrap_or_else(|e| panic!("{e}"));
    app.wait_for_log("dictation done", TRANSCRIBE_TIMEOUT)
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Plays `wav` with the hotkey held, lets go when it has played, and returns the key-up →
/// pasted time of the dictation.
fn dictate(desktop: &Desktop, app: &mut AppProcess, wav: &Path) -> u64 {
    let playback = desktop.play(wav).unwrap_or_else(|e| panic!("{e}"));
    desktop.key_down(HOTKEY).unwrap_or_else(|e| panic!("{e}"));
    let done = let_go(desktop, app, playback);
    rig::log_field(&done, "key_up_to_pasted_ms")
        .and_then(|ms| ms.parse().ok())
        .unwrap_or_else(|| panic!("no key_up_to_pasted_ms in {done}"))
}

#[test]
fn the_overlay_shows_what_the_app_hears_and_never_takes_the_focus() {
    let (desktop, out, state) = fresh_desktop("desktop-overlay");
    let renderer = &mut Renderer::new().unwrap();

    // (a) Idle: no overlay window at all.
    write_overlay_settings(&state, "en", true);
    let text_box = TextBox::open(&desktop, "overlay-paste").unwrap_or_else(|e| panic!("{e}"));
    text_box.focus().unwrap_or_else(|e| panic!("{e}"));
    let mut app = start(&desktop, &state, "en");
    assert!(
        overlay_window(&desktop).is_none(),
        "no overlay window while idle"
    );

    // (b) A dictation with a pause: the window appears, the app's, never focused.
    let with_pause = out.join("kal_pause_slt.wav");
    concatenate(
        &[
            Ok(&clip("en_kal.wav")),
            Err(Duration::from_millis(1500)),
            Ok(&clip("en_slt.wav")),
        ],
        &with_pause,
    );
    let playback = desktop.play(&with_pause).unwrap_or_else(|e| panic!("{e}"));
    let key_down = Instant::now();
    desktop.key_down(HOTKEY).unwrap_or_else(|e| panic!("{e}"));
    let shown = wait_for_overlay(&desktop, Duration::from_secs(3));
    let seen_after = key_down.elapsed();
    let Some(shown) = shown else {
        let _ = desktop.key_up(HOTKEY);
        panic!("no overlay window within 3 s of key-down:\n{}", app.log());
    };
    println!(
        "overlay seen {} ms after key-down (polled from outside, xdotool included): {shown:?}",
        seen_after.as_millis()
    );
    assert!(shown.override_redirect, "override-redirect: {shown:?}");
    assert_eq!(
        window_pid(&desktop, &shown.id),
        Some(app.pid()),
        "the overlay window belongs to the app"
    );
    let focused = focused_window(&desktop);
    assert_ne!(focused, shown.id, "the overlay must not take the focus");
    // After the pause: the words on screen are the worker's text for the audio so far, shown
    // dimmed after its pass and in full colour once the pause has held (committed).
    app.wait_for_log("head transcribed", TRANSCRIBE_TIMEOUT)
        .unwrap_or_else(|e| panic!("{e}"));
    // The worker's pass logs no text (privacy): the overlay's line, with text logging on in
    // the tests, says what it shows.
    let (head, head_text) = loop {
        let line = app
            .wait_for_log("overlay shows early text", Duration::from_secs(3))
            .unwrap_or_else(|e| panic!("the first sentence committed as its pause held: {e}"));
        let added = rig::log_field(&line, "added").unwrap_or_default();
        if !added.is_empty() {
            break (line, added);
        }
    };
    assert!(
        head_text.to_lowercase().contains("dentist"),
        "the head is the first sentence: {head}"
    );
    let shown_at = Instant::now();
    let shot_path = out.join("overlay-early-text.png");
    let expected = renderer
        .render(
            &View {
                committed: head_text.clone(),
                ..view(UiLang::En, Phase::Recording, "")
            },
            1.0,
        )
        .unwrap();
    let blank = renderer
        .render(&view(UiLang::En, Phase::Recording, ""), 1.0)
        .unwrap();
    // The frame reaches the screen at the window's next redraw.
    let (off, off_blank, shot_at) = loop {
        let shot_at = shown_at.elapsed();
        let shot = shoot(&desktop, &shown, &shot_path);
        let off = differing(&shot, &expected, words_area());
        let off_blank = differing(&shot, &blank, words_area());
        if off <= 20 || shown_at.elapsed() > Duration::from_secs(2) {
            break (off, off_blank, shot_at);
        }
    };
    let screen = out.join("overlay-screen.png");
    desktop
        .screenshot(&screen)
        .unwrap_or_else(|e| panic!("{e}"));
    println!(
        "early text on screen in a screenshot begun {} ms after the worker's: {off} pixels \
         differ from the committed text drawn by the renderer (vs no text: {off_blank}); screenshot {}",
        shot_at.as_millis(),
        shot_path.display()
    );
    assert!(
        off <= 20 && off_blank > 500,
        "the overlay's words must be the worker's committed text {head_text:?}: {off} pixels \
         differ ({off_blank} from an empty panel); see {}",
        shot_path.display()
    );
    if std::env::var_os("UPDATE_SCREENSHOT").is_some_and(|v| v == "1") {
        save_docs_screenshot(&desktop, &shown, &out);
    }
    let focused_later = focused_window(&desktop);
    assert_eq!(focused_later, focused, "the focus stayed where it was");

    // Key-up: the paste lands in the text box, and the window goes.
    let done = let_go(&desktop, &mut app, playback);
    let gone = wait_gone(&desktop, Duration::from_secs(5));
    println!(
        "overlay gone {} ms after the text was delivered",
        gone.as_millis()
    );
    let pasted = text_box.submit().unwrap_or_else(|e| panic!("{e}"));
    let words = format!("{} {}", clip_text("en_kal.wav"), clip_text("en_slt.wav"));
    assert!(
        rig::word_recall(&words, &pasted) >= 0.8,
        "the paste landed in the text box: {pasted:?} (done: {done})"
    );

    // CPU while idle (the window gone), and while holding the key (silence: nothing to
    // transcribe while held).
    let idle_cpu = cpu_percent(app.pid(), Duration::from_secs(5), || {});
    let recording_cpu = cpu_percent(app.pid(), Duration::ZERO, || {
        hold_silent(&desktop, &mut app, Duration::from_secs(3));
    });
    println!(
        "app CPU, overlay on: idle {idle_cpu:.1} % of a core, holding the key {recording_cpu:.1} %"
    );
    wait_gone(&desktop, Duration::from_secs(5));
    app.stop().unwrap_or_else(|e| panic!("{e}"));
    drop(app);

    // (c) Overlay ▸ Top centre (Polish menu: d, g), then Polish speech that gives no text:
    // "Nic nie rozpoznano", at the top.
    write_overlay_settings(&state, "pl", true);
    let mut app = start(&desktop, &state, "pl");
    let changed = choose_in_overlay_menu(&desktop, &mut app, &out, "g");
    assert_eq!(rig::log_field(&changed, "position").as_deref(), Some("top"));
    let backwards = out.join("en_kal_reversed.wav");
    reversed(&clip("en_kal.wav"), &backwards);
    let mut playback = desktop.play(&backwards).unwrap_or_else(|e| panic!("{e}"));
    desktop.key_down(HOTKEY).unwrap_or_else(|e| panic!("{e}"));
    let played = playback.wait(Duration::from_secs(30));
    desktop.key_up(HOTKEY).unwrap_or_else(|e| panic!("{e}"));
    played.unwrap_or_else(|e| panic!("{e}"));
    app.wait_for_log("phase=\"nothing_recognised\"", TRANSCRIBE_TIMEOUT)
        .unwrap_or_else(|e| panic!("{e}"));
    thread::sleep(Duration::from_millis(150));
    let shown = overlay_window(&desktop).expect("the overlay says nothing was recognised");
    assert_eq!(
        (shown.x, shown.y),
        (292, 64),
        "top centre of the 1024x768 screen"
    );
    let shot_path = out.join("overlay-nothing-recognised.png");
    let shot = shoot(&desktop, &shown, &shot_path);
    let expected = renderer
        .render(&view(UiLang::Pl, Phase::NothingRecognised, ""), 1.0)
        .unwrap();
    let whole = (0, 0, shot.width, shot.height);
    let off = differing(&shot, &expected, whole);
    assert!(
        off <= 20,
        "the overlay must show 'Nic nie rozpoznano': {off} pixels differ; see {}",
        shot_path.display()
    );
    println!("nothing recognised, on screen as drawn: {off} pixels differ");
    wait_gone(&desktop, Duration::from_secs(6));

    // (d) Overlay ▸ Show while dictating, by keyboard (Polish menu: d, p): off, saved, and no
    // window while dictating; the paste still lands.
    let changed = choose_in_overlay_menu(&desktop, &mut app, &out, "p");
    assert_eq!(rig::log_field(&changed, "shown").as_deref(), Some("false"));
    let saved: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(state.join("settings.json")).unwrap()).unwrap();
    assert_eq!(saved["overlay"], false, "saved: {saved}");
    let text_box = TextBox::open(&desktop, "overlay-off").unwrap_or_else(|e| panic!("{e}"));
    text_box.focus().unwrap_or_else(|e| panic!("{e}"));
    let mut playback = desktop
        .play(&clip("pl_espeak.wav"))
        .unwrap_or_else(|e| panic!("{e}"));
    desktop.key_down(HOTKEY).unwrap_or_else(|e| panic!("{e}"));
    let appeared = wait_for_overlay(&desktop, Duration::from_millis(1500));
    let played = playback.wait(Duration::from_secs(30));
    desktop.key_up(HOTKEY).unwrap_or_else(|e| panic!("{e}"));
    played.unwrap_or_else(|e| panic!("{e}"));
    assert!(appeared.is_none(), "turned off, yet shown: {appeared:?}");
    let done = app
        .wait_for_log("dictation done", TRANSCRIBE_TIMEOUT)
        .unwrap_or_else(|e| panic!("{e}"));
    thread::sleep(Duration::from_millis(500));
    let pasted = text_box.submit().unwrap_or_else(|e| panic!("{e}"));
    let delivered = rig::log_field(&done, "text").unwrap_or_default();
    assert!(
        !delivered.is_empty() && pasted == delivered,
        "the paste landed with the overlay off: {pasted:?} (delivered: {done})"
    );
    app.stop().unwrap_or_else(|e| panic!("{e}"));
    drop(app);

    measure(&desktop, &state);
}

/// Opens the tray menu and picks the overlay submenu's item with mnemonic `key` (the UI is
/// Polish: "Nakła&dka"); returns the app's "overlay settings" line.
fn choose_in_overlay_menu(
    desktop: &Desktop,
    app: &mut AppProcess,
    out: &Path,
    key: &str,
) -> String {
    pick_in_tray_menu(desktop, app, out, ("d", key), "overlay settings")
}

/// The crop of the screen around the overlay, as README shows it.
fn save_docs_screenshot(desktop: &Desktop, shown: &Shown, out: &Path) {
    let margin = 40;
    let region = (
        shown.x.saturating_sub(margin),
        shown.y.saturating_sub(margin),
        shown.width + 2 * margin,
        shown.height + 2 * margin,
    );
    let crop = out.join("overlay-docs.png");
    desktop
        .screenshot_region(&crop, region)
        .unwrap_or_else(|e| panic!("{e}"));
    let docs = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs");
    fs::create_dir_all(&docs).unwrap();
    fs::copy(&crop, docs.join("overlay.png")).unwrap();
    println!("copied to {}", docs.join("overlay.png").display());
}

/// [`MEASURE_ENV`] dictations with the overlay off, then on, each in a fresh app: key-up →
/// pasted medians, CPU while holding the key, resident memory.
fn measure(desktop: &Desktop, state: &Path) {
    let count: usize = std::env::var(MEASURE_ENV)
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    if count == 0 {
        return;
    }
    let clips = ["en_kal.wav", "en_slt.wav", "en_awb.wav"];
    let mut medians = Vec::new();
    for overlay in [false, true] {
        write_overlay_settings(state, "en", overlay);
        let mut app = start(desktop, state, "en");
        // After "ready" the app still primes the fast encoding for a moment.
        thread::sleep(Duration::from_secs(5));
        let idle = cpu_percent(app.pid(), Duration::from_secs(10), || {});
        let holding = cpu_percent(app.pid(), Duration::ZERO, || {
            hold_silent(desktop, &mut app, Duration::from_secs(5));
        });
        let mut times: Vec<u64> = (0..count)
            .map(|i| {
                let text_box = TextBox::open(desktop, &format!("measure-{overlay}-{i}"))
                    .unwrap_or_else(|e| panic!("{e}"));
                text_box.focus().unwrap_or_else(|e| panic!("{e}"));
                let ms = dictate(desktop, &mut app, &clip(clips[i % clips.len()]));
                thread::sleep(Duration::from_millis(1500));
                drop(text_box);
                ms
            })
            .collect();
        times.sort_unstable();
        let median = times[times.len() / 2];
        thread::sleep(Duration::from_secs(2));
        println!(
            "overlay {}: key-up → pasted median {median} ms over {count} ({times:?}); CPU idle \
             {idle:.2} %, holding the key {holding:.1} %; resident {} MB after",
            if overlay { "on" } else { "off" },
            resident_mb(app.pid())
        );
        medians.push(median);
        app.stop().unwrap_or_else(|e| panic!("{e}"));
    }
    println!(
        "key-up → pasted, overlay on / off: {:.2}",
        medians[1] as f64 / medians[0] as f64
    );
}
