//! The window of the real app driven by a real browser engine's WebDriver (issue 28):
//! WebKitWebDriver (Debian's `webkit2gtk-driver`) starts the app as its browser, as
//! tauri-driver does for Tauri apps; the app, started with the test's
//! `WHISPER_DICTATION_WEBVIEW_AUTOMATION=1` and the driver's inspector server, allows automation
//! of its window's WebKit context and opens History at start (`src/app/window/automation.rs`).
//! Every step below is a WebDriver command on the page the person sees (find by CSS, click,
//! type), answered by the app's real IPC handlers, database, recorder and models:
//!
//! - finds a Polish entry by a search typed without diacritics ("zolw" finds "Żółw…");
//! - dictates a clip (copy only) and finds it in the page by a word of it, typed in upper case;
//! - plays its recording (the app logs the recording playing) and stops it with the same
//!   button, which says "Stop" meanwhile;
//! - transcribes it again with `tiny.en` picked in the page's model list, and sees the
//!   comparison under the entry;
//! - on the Settings page, changes Output from "Copy only" to "Paste", adds the vocabulary word
//!   "Morning" and the replacement "dentist" → "Dr. Nowak", then dictates the clip into a text
//!   box: the text is pasted there (the Output change applied) with "Dr. Nowak" and "Morning"
//!   in it (the words used).
//!
//! Needs the desktop tools and WebKitWebDriver (`scripts/setup.sh --test`), WebKitGTK 4.1 and
//! the `base` and `tiny.en` models; run under `flock /tmp/desktop.lock`. Logs in
//! `target/desktop-window-webdriver/`.

// Linux only: an X11 desktop (Xvfb, xdotool, xclip, openbox); on macOS this file is empty.
#![cfg(target_os = "linux")]

mod app_rig;
mod rig;
mod webdriver;

use app_rig::{
    clip, clip_text, dictate_copied, fresh_desktop, hold_hotkey_while_playing, write_settings, BIN,
    READY_TIMEOUT, TRANSCRIBE_TIMEOUT,
};
use rig::{word_recall, AppProcess, TextBox};
use std::path::Path;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use webdriver::{wait_for, Element, Session};
use whisper_dictation::history::{History, NewEntry};

const CLIP: &str = "en_kal.wav";
const TURTLE: &str = "Żółw idzie powoli przez ogród, a kot patrzy z okna.";
const PAGE_TIMEOUT: Duration = Duration::from_secs(10);

fn fill_history(state: &Path) {
    std::fs::create_dir_all(state).unwrap();
    let (mut history, _) = History::open(&state.join("history.sqlite3")).unwrap();
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    for (ago_min, text, language) in [
        (300, TURTLE, "pl"),
        (
            200,
            "Spotkanie przesunięte na czwartek, godzina piętnasta.",
            "pl",
        ),
        (
            100,
            "Send the quarterly report to Anna before Friday.",
            "en",
        ),
    ] {
        history
            .add(&NewEntry {
                at_ms: now - ago_min * 60_000,
                text: text.into(),
                raw_text: text.into(),
                recording: None,
                duration_ms: 3_400,
                language: Some(language.into()),
                model: "base".into(),
                device: "cpu".into(),
                device_reason: None,
                key_up_to_pasted_ms: Some(300),
                app: None,
                mode: None,
            })
            .unwrap();
    }
}

/// The entries the page lists now: each row and its text.
fn rows(page: &Session) -> Result<Vec<(Element, String)>, String> {
    page.find_all("#list article.entry")?
        .into_iter()
        .map(|row| {
            let text = page.text(&page.find_in(&row, ".text")?)?;
            Ok((row, text))
        })
        .collect()
}

/// Replaces the search box's text with `query` (typed) and waits until the list holds a row
/// whose text contains `expected`; returns that row and every row's text.
fn search(page: &Session, query: &str, expected: &str) -> (Element, Vec<String>) {
    let search = page.find("#search").unwrap_or_else(|e| panic!("{e}"));
    page.clear(&search).unwrap_or_else(|e| panic!("{e}"));
    page.type_text(&search, query)
        .unwrap_or_else(|e| panic!("{e}"));
    wait_for(
        &format!("a row with {expected:?} for {query:?}"),
        PAGE_TIMEOUT,
        || {
            let rows = rows(page)?;
            let texts: Vec<String> = rows.iter().map(|(_, t)| t.clone()).collect();
            Ok(rows
                .into_iter()
                .find(|(_, text)| text.contains(expected))
                .map(|(row, _)| (row, texts)))
        },
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

/// Clicks `button` inside `row`.
fn click_in(page: &Session, row: &Element, button: &str) {
    let button = page.find_in(row, button).unwrap_or_else(|e| panic!("{e}"));
    page.click(&button)
        .unwrap_or_else(|e| panic!("{button:?}: {e}"));
}

fn wait_log(app: &mut AppProcess, needle: &str, timeout: Duration) -> String {
    app.wait_for_log(needle, timeout)
        .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn the_window_does_its_work_when_a_webdriver_drives_it() {
    let (desktop, _out, state) = fresh_desktop("desktop-window-webdriver");
    fill_history(&state);
    write_settings(&state, "copy", "en");
    let state_dir = state.to_str().expect("a UTF-8 path");
    let (mut driver, port) = webdriver::start_driver(
        &desktop,
        &[
            ("WHISPER_DICTATION_STATE_DIR", state_dir),
            ("WHISPER_DICTATION_LOG", "info"),
            ("WHISPER_DICTATION_LOG_TEXT", "1"),
            ("WHISPER_DICTATION_WEBVIEW_AUTOMATION", "1"),
        ],
    );
    let started = Instant::now();
    let page = Session::start(port, Path::new(BIN), READY_TIMEOUT)
        .unwrap_or_else(|e| panic!("{e}\n{}", driver.log()));
    println!(
        "WebDriver session on the app's window after {} ms",
        started.elapsed().as_millis()
    );
    wait_log(&mut driver, "app ready", READY_TIMEOUT);

    // A diacritic-free search finds the Polish entry.
    let (_, listed) = search(&page, "zolw", TURTLE);
    assert_eq!(
        listed,
        vec![TURTLE.to_string()],
        "only the turtle matches \"zolw\""
    );
    println!("search \"zolw\" lists {listed:?}");

    // A dictation, found by a word of it typed in upper case.
    let dictated = dictate_copied(&desktop, &mut driver, CLIP);
    let expected = clip_text(CLIP);
    assert!(
        word_recall(&expected, &dictated) >= 0.8,
        "dictated {dictated:?}, said {expected:?}"
    );
    let (row, _) = search(&page, "DENTIST", "dentist");
    println!("dictated and found by \"DENTIST\": {dictated:?}");

    // Play its recording.
    click_in(&page, &row, ".play");
    let playing = wait_log(
        &mut driver,
        "history window: recording playing",
        PAGE_TIMEOUT,
    );
    println!("play: {}", playing.trim());
    // Its button says Stop now, and stops it: the recording plays into the sink the desktop's
    // microphone hears, so the next dictation must not hear it.
    let (row, _) = search_row(&page, "dentist").unwrap_or_else(|e| panic!("{e}"));
    let stop = page
        .find_in(&row, ".play")
        .unwrap_or_else(|e| panic!("{e}"));
    let label = page.text(&stop).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(label, "Stop", "the play button while playing");
    page.click(&stop).unwrap_or_else(|e| panic!("{e}"));
    wait_log(&mut driver, "history window: playing stopped", PAGE_TIMEOUT);

    // Transcribe it again with tiny.en, picked in the page's list.
    let option = page
        .find("#model option[value='tiny.en']")
        .unwrap_or_else(|e| panic!("tiny.en in the model list: {e}"));
    page.click(&option).unwrap_or_else(|e| panic!("{e}"));
    let model = page.find("#model").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        page.property(&model, "value")
            .unwrap_or_else(|e| panic!("{e}")),
        "tiny.en"
    );
    click_in(&page, &row, ".retranscribe");
    let again = wait_for(
        "the re-transcription under the entry",
        TRANSCRIBE_TIMEOUT,
        || {
            let (row, _) = search_row(&page, "dentist")?;
            let box_ = page.find_in(&row, ".again")?;
            let text = page.text(&box_)?;
            Ok((text.contains("tiny.en") && word_recall(&expected, &text) >= 0.6).then_some(text))
        },
    )
    .unwrap_or_else(|e| panic!("{e}\n{}", driver.log()));
    println!("re-transcribed: {again:?}");

    // Settings: Output → Paste, a vocabulary word and a replacement.
    page.click(&page.find("#nav-settings").unwrap_or_else(|e| panic!("{e}")))
        .unwrap_or_else(|e| panic!("{e}"));
    let paste = page
        .find("#field-output option[value='paste']")
        .unwrap_or_else(|e| panic!("{e}"));
    page.click(&paste).unwrap_or_else(|e| panic!("{e}"));
    wait_log(&mut driver, "menu action=Output(Paste)", PAGE_TIMEOUT);
    let word = page
        .find("#field-vocabulary")
        .unwrap_or_else(|e| panic!("{e}"));
    page.type_text(&word, "Morning\u{E007}")
        .unwrap_or_else(|e| panic!("{e}"));
    let said = page
        .find("#field-replacements")
        .unwrap_or_else(|e| panic!("{e}"));
    page.type_text(&said, "dentist")
        .unwrap_or_else(|e| panic!("{e}"));
    let written = page
        .find("[data-key='replacements'] .adder input:nth-of-type(2)")
        .unwrap_or_else(|e| panic!("{e}"));
    page.type_text(&written, "Dr. Nowak\u{E007}")
        .unwrap_or_else(|e| panic!("{e}"));
    wait_for("the words in settings.json", PAGE_TIMEOUT, || {
        let text =
            std::fs::read_to_string(state.join("settings.json")).map_err(|e| e.to_string())?;
        Ok((text.contains("Morning") && text.contains("Dr. Nowak")).then_some(()))
    })
    .unwrap_or_else(|e| panic!("{e}"));

    // The next dictation is pasted, with the words.
    let text_box = TextBox::open(&desktop, "webdriver-paste").unwrap_or_else(|e| panic!("{e}"));
    text_box.focus().unwrap_or_else(|e| panic!("{e}"));
    hold_hotkey_while_playing(&desktop, &mut driver, &clip(CLIP), Duration::ZERO);
    wait_log(&mut driver, "dictation done", TRANSCRIBE_TIMEOUT);
    let pasted = text_box.submit().unwrap_or_else(|e| panic!("{e}"));
    println!("pasted after the settings changed: {pasted:?}");
    assert!(
        pasted.contains("Dr. Nowak") && pasted.contains("Morning"),
        "the page's words were not used: {pasted:?}"
    );
    let _ = page.end();
    drop(driver);
}

/// The listed row whose text contains `needle`, searched as the page lists it now.
fn search_row(page: &Session, needle: &str) -> Result<(Element, String), String> {
    rows(page)?
        .into_iter()
        .find(|(_, text)| text.contains(needle))
        .ok_or_else(|| format!("no row with {needle:?}"))
}
