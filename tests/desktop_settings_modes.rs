//! The Settings page's "Modes per app" of the real app's window, driven by WebKitWebDriver on
//! a real (virtual) X11 desktop (issue 55), as `desktop_window_webdriver` drives the rest of
//! the window. The person's settings.json has a mode of their own ("Mail", written by hand in
//! their own layout) and a key of their own; the history has dictations into Slack and XTerm.
//! The test
//!
//! - sees the hand-written mode as a card with its language, the built-in terminal modes listed
//!   below, and the apps the history has seen offered for a mode;
//! - adds the mode "Chat" for the app "chat-terminal" from its name and app (Enter), then picks
//!   "Ctrl+Shift+V" and "Then press: Enter" in its card, and finds settings.json with the rule,
//!   the hand-written mode unchanged and the hand-written key byte for byte;
//! - types the name of a mode that exists into the new mode's field and sees the problem said
//!   in the page, naming the mode; the screenshot `docs/settings-modes.png` shows the section;
//! - dictates into a terminal whose `WM_CLASS` is "chat-terminal": the line arrives whole with
//!   one Return (the mode made on the page applied), the log names the mode, and the History
//!   page shows the mode's tag on the entry.
//!
//! Needs the desktop tools, xfce4-terminal and WebKitWebDriver (`scripts/setup.sh --test`),
//! WebKitGTK 4.1 and the `base` model; build the app first (`cargo build --release`) and run
//! under `flock /tmp/desktop.lock`. Logs and screenshots in `target/desktop-settings-modes/`.

// Linux only: an X11 desktop (Xvfb, xdotool, PulseAudio); on macOS this file is empty.
#![cfg(target_os = "linux")]

mod app_rig;
mod rig;
mod webdriver;

use app_rig::{
    activate_window, clip, clip_text, find_window, fresh_desktop, hold_hotkey_while_playing, BIN,
    HOTKEY, READY_TIMEOUT, TRANSCRIBE_TIMEOUT,
};
use rig::terminal::{Kind, Terminal};
use rig::{log_field, word_recall, AppProcess};
use std::fs;
use std::path::Path;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use webdriver::{wait_for, Element, Session};
use whisper_dictation::history::{History, NewEntry};

const PAGE_TIMEOUT: Duration = Duration::from_secs(10);
const CLIP: &str = "en_rms.wav";
const CHAT_APP: (&str, &str) = ("chat-terminal", "ChatTerminal");

/// settings.json as a person left it: a mode and a key of their own, in their own spacing.
const HAND_WRITTEN_MODE: &str =
    r#"{"name": "Mail",   "apps": ["thunderbird"], "language": "pl", "remove_fillers": true}"#;

fn hand_written_settings() -> String {
    format!(
        "{{\n  \"hotkey\": \"{HOTKEY}\",\n  \"hotkey_mode\": \"hold\",\n  \"output\": \"paste\",\n  \
         \"language\": \"en\",\n  \"model\": \"base\",\n  \"my_note\":   [\"kept\", \"by hand\"],\n  \
         \"modes\": [\n    {HAND_WRITTEN_MODE}\n  ]\n}}\n"
    )
}

fn fill_history(state: &Path) {
    let (mut history, _) = History::open(&state.join("history.sqlite3")).unwrap();
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    for (ago_min, app) in [(30, "XTerm"), (20, "Slack")] {
        history
            .add(&NewEntry {
                at_ms: now - ago_min * 60_000,
                text: format!("Something said into {app}."),
                raw_text: String::new(),
                recording: None,
                duration_ms: 2_000,
                language: Some("en".into()),
                model: "base".into(),
                device: "cpu".into(),
                device_reason: None,
                key_up_to_pasted_ms: Some(160),
                app: Some(app.into()),
                mode: None,
            })
            .unwrap();
    }
}

fn settings_json(state: &Path) -> (String, serde_json::Value) {
    let text = fs::read_to_string(state.join("settings.json")).unwrap();
    let value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    (text, value)
}

fn find(page: &Session, css: &str) -> Element {
    wait_for(css, PAGE_TIMEOUT, || Ok(page.find(css).ok())).unwrap_or_else(|e| panic!("{e}"))
}

fn click(page: &Session, css: &str) {
    page.click(&find(page, css))
        .unwrap_or_else(|e| panic!("{css}: {e}"));
}

fn wait_log(app: &mut AppProcess, needle: &str, timeout: Duration) -> String {
    app.wait_for_log(needle, timeout)
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Waits until settings.json's `"modes"` satisfies `done`; returns the file's text and value.
fn wait_for_modes(
    state: &Path,
    what: &str,
    done: impl Fn(&serde_json::Value) -> bool,
) -> (String, serde_json::Value) {
    wait_for(what, PAGE_TIMEOUT, || {
        let (text, value) = settings_json(state);
        Ok(done(&value["modes"]).then_some((text, value)))
    })
    .unwrap_or_else(|e| panic!("{e}: {}", settings_json(state).0))
}

#[test]
fn modes_are_made_on_the_settings_page_and_used_by_the_next_dictation() {
    let (desktop, out, state) = fresh_desktop("desktop-settings-modes");
    fs::create_dir_all(&state).unwrap();
    fill_history(&state);
    let hand = hand_written_settings();
    fs::write(state.join("settings.json"), &hand).unwrap();
    let state_dir = state.to_str().expect("a UTF-8 path");
    let (mut driver, port) = webdriver::start_driver(
        &desktop,
        &[
            ("WHISPER_DICTATION_STATE_DIR", state_dir),
            ("WHISPER_DICTATION_LOG", "info"),
            ("WHISPER_DICTATION_LOG_TEXT", "1"),
            ("WHISPER_DICTATION_UI_LANG", "en"),
            ("WHISPER_DICTATION_WEBVIEW_AUTOMATION", "1"),
        ],
    );
    let page = Session::start(port, Path::new(BIN), READY_TIMEOUT)
        .unwrap_or_else(|e| panic!("{e}\n{}", driver.log()));
    wait_log(&mut driver, "app ready", READY_TIMEOUT);
    // While the model loads: the terminal the mode is for.
    let chat = Terminal::open(&desktop, Kind::Xfce4Terminal, "modes-chat")
        .unwrap_or_else(|e| panic!("{e}"));
    chat.set_wm_class(CHAT_APP.0, CHAT_APP.1)
        .unwrap_or_else(|e| panic!("{e}"));

    // The section: the hand-written mode, the built-in ones, the apps the history has seen.
    click(&page, "#nav-settings");
    let mail_language = find(
        &page,
        ".mode-card[aria-label='Mail'] select[data-field='language']",
    );
    assert_eq!(
        page.property(&mail_language, "value")
            .unwrap_or_else(|e| panic!("{e}")),
        "pl",
        "the hand-written mode's language"
    );
    let builtins: Vec<String> = page
        .find_all(".mode-builtin strong")
        .unwrap_or_else(|e| panic!("{e}"))
        .iter()
        .map(|e| page.text(e).unwrap_or_default())
        .collect();
    assert_eq!(
        builtins,
        ["Terminal (xterm)", "Terminal"],
        "the built-in modes"
    );
    for app in ["Slack", "XTerm"] {
        find(&page, &format!("#mode-apps option[value='{app}']"));
    }

    // A new mode from its name and app, then two choices on its card.
    let started = Instant::now();
    let new_inputs = page
        .find_all(".mode-new input")
        .unwrap_or_else(|e| panic!("{e}"));
    page.type_text(&new_inputs[0], "Chat")
        .unwrap_or_else(|e| panic!("{e}"));
    page.type_text(&new_inputs[1], &format!("{}\u{E007}", CHAT_APP.0))
        .unwrap_or_else(|e| panic!("{e}"));
    wait_for_modes(&state, "the new mode in settings.json", |modes| {
        modes[1]["name"] == "Chat"
    });
    let card = ".mode-card[aria-label='Chat']";
    click(
        &page,
        &format!("{card} select[data-field='paste_keys'] option[value='ctrl+shift+v']"),
    );
    wait_for_modes(&state, "the paste keys in settings.json", |modes| {
        modes[1]["paste_keys"] == "ctrl+shift+v"
    });
    click(
        &page,
        &format!("{card} select[data-field='press_after'] option[value='enter']"),
    );
    let (text, value) = wait_for_modes(&state, "Enter after the text in settings.json", |m| {
        m[1]["press_after"] == "enter"
    });
    println!(
        "the mode made on the page and saved in {} ms: {}",
        started.elapsed().as_millis(),
        value["modes"][1]
    );
    assert_eq!(
        value["modes"][1],
        serde_json::json!({"name": "Chat", "apps": [CHAT_APP.0],
                           "paste_keys": "ctrl+shift+v", "press_after": "enter"})
    );
    assert_eq!(
        value["modes"][0],
        serde_json::from_str::<serde_json::Value>(HAND_WRITTEN_MODE).unwrap(),
        "the hand-written mode is kept: {text}"
    );
    assert!(
        text.contains("\"my_note\":   [\"kept\", \"by hand\"]"),
        "the hand-written key keeps its layout: {text}"
    );
    wait_log(&mut driver, "per-app modes changed", PAGE_TIMEOUT);

    // A name that is taken: the problem said in the page as it is typed, naming the mode.
    page.type_text(&new_inputs[0], "mail")
        .unwrap_or_else(|e| panic!("{e}"));
    let said = wait_for("the problem under the new mode", PAGE_TIMEOUT, || {
        let problem = page.find(".mode-new .problem")?;
        let text = page.text(&problem)?;
        Ok((!text.is_empty()).then_some(text))
    })
    .unwrap_or_else(|e| panic!("{e}"));
    println!("typed a taken name: {said:?}");
    assert!(
        said.starts_with("Mode \"mail\": another mode is called \"mail\""),
        "{said}"
    );
    let (_, modes_now) = settings_json(&state);
    assert_eq!(modes_now["modes"].as_array().map(Vec::len), Some(2));
    page.clear(&new_inputs[0]).unwrap_or_else(|e| panic!("{e}"));
    // The section on screen (a click scrolls the card into view), for the docs.
    click(&page, &format!("{card} .mode-name"));
    std::thread::sleep(Duration::from_millis(400));
    let (id, area) = find_window(&desktop, "Settings");
    activate_window(&desktop, &id);
    let shot = out.join("settings-modes.png");
    desktop
        .screenshot_region(&shot, area)
        .unwrap_or_else(|e| panic!("{e}"));
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/settings-modes.png");
    fs::copy(&shot, &docs).unwrap_or_else(|e| panic!("{}: {e}", docs.display()));

    // The next dictation into the chat terminal uses the mode: one line, the whole text.
    let before = chat.lines().unwrap_or_else(|e| panic!("{e}"));
    chat.focus().unwrap_or_else(|e| panic!("{e}"));
    hold_hotkey_while_playing(&desktop, &mut driver, &clip(CLIP), Duration::ZERO);
    let done = wait_log(&mut driver, "dictation done", TRANSCRIBE_TIMEOUT);
    let lines = chat
        .wait_for_lines(before.len() + 1, Duration::from_secs(5))
        .unwrap_or_else(|e| panic!("no line with a Return: {e}; the app: {done}"));
    let got = lines[before.len()..].to_vec();
    println!(
        "dictated into {}: {got:?} (mode={:?} pressed_after={:?} key_up_to_pasted_ms={:?})",
        CHAT_APP.0,
        log_field(&done, "mode"),
        log_field(&done, "pressed_after"),
        log_field(&done, "key_up_to_pasted_ms")
    );
    assert_eq!(log_field(&done, "mode").as_deref(), Some("Chat"), "{done}");
    assert_eq!(
        got,
        [log_field(&done, "text").unwrap_or_default()],
        "one line, the text"
    );
    assert!(
        word_recall(&clip_text(CLIP), &got[0]) >= 0.8,
        "said {:?}, got {got:?}",
        clip_text(CLIP)
    );

    // The History page names the mode on the entry.
    click(&page, "#nav-history");
    let search = find(&page, "#search");
    page.type_text(&search, "milk")
        .unwrap_or_else(|e| panic!("{e}"));
    let tag = wait_for("the mode's tag on the dictated entry", PAGE_TIMEOUT, || {
        for row in page.find_all("#list article.entry")? {
            if page.text(&page.find_in(&row, ".text")?)?.contains("milk") {
                return Ok(page
                    .find_in(&row, ".badge.mode")
                    .ok()
                    .map(|tag| page.text(&tag).unwrap_or_default()));
            }
        }
        Ok(None)
    })
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(tag, "Chat");
    let _ = page.end();
    drop(driver);
}
