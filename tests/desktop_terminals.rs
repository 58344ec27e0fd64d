//! Dictating into terminals and a chat-like line, with the real app on the virtual desktop
//! (issue 55's per-app modes). Each terminal runs a line reader (`rig::terminal`): what reaches
//! its line is read back from a file, one line per Return. One app start, in paste mode, with
//! one rule of the person's in settings.json, "Chat" (`press_after: "enter"`) for the app
//! "chat-terminal"; four dictations:
//!
//! (0) into a zenity text box, which no rule names (`mode=""`): the baseline, pasted with
//!     Ctrl+V;
//! (a) into xterm with the built-in rules only (its rule: Shift+Insert, the text on PRIMARY
//!     too): the text sits whole in the terminal's line and no Return came with it; the test
//!     presses Return and the reader gets exactly the text the app logged;
//! (b) the same into xfce4-terminal (its built-in rule: Ctrl+Shift+V);
//! (c) into an xfce4-terminal whose `WM_CLASS` the test sets to "chat-terminal", "ChatTerminal"
//!     (as a chat app's would be: the Chat rule applies, no built-in one does), the rule giving
//!     Ctrl+Shift+V and Enter after the text: without the test pressing anything the reader
//!     gets exactly one line, the text, and nothing more 1.5 s later (a second Return would be
//!     an empty line).
//!
//! Each dictation's `mode=` in the log names the rule used ("Terminal (xterm)", "Terminal":
//! the built-in rules' names). Before the app is ready, each terminal is checked on its own:
//! a line typed with xdotool and a Return come back from its reader (the target works whatever
//! the app does). Prints key-up → pasted (`key_up_to_pasted_ms`) per dictation: without a rule,
//! with a built-in one, with the person's rule and its Enter.
//!
//! Needs the desktop tools and the two terminals (`scripts/setup.sh --test`: xterm and
//! xfce4-terminal are among its desktop packages) and the `base` model; build the app first
//! (`cargo build --release`: the test runs the binary of its own profile) and run as
//! `flock /tmp/desktop.lock cargo test --release --test desktop_terminals -- --nocapture`.
//! Logs (the app's: `whisper-dictation-0.log`; each terminal's lines) in
//! `target/desktop-terminals/rig/logs/`, screenshots in `target/desktop-terminals/`. About
//! 30 s.

// Linux only: an X11 desktop (Xvfb, xdotool, PulseAudio); on macOS this file is empty.
#![cfg(target_os = "linux")]

mod app_rig;
mod rig;

use app_rig::{
    clip, clip_text, fresh_desktop, hold_hotkey_while_playing, start_app, wait_ready, HOTKEY,
    TRANSCRIBE_TIMEOUT,
};
use rig::terminal::{Kind, Terminal};
use rig::{log_field, AppProcess, Desktop, TextBox};
use std::fs;
use std::path::Path;
use std::thread;
use std::time::Duration;

/// The person's rule: Enter after the text, for the app "chat-terminal".
const CHAT_RULE: &str = "Chat";
const CHAT_APP: (&str, &str) = ("chat-terminal", "ChatTerminal");
const RECALL: f64 = 0.8;
/// How long after the text the chat line is watched for a second Return.
const SECOND_RETURN_WATCH: Duration = Duration::from_millis(1500);

fn write_settings(state: &Path) {
    fs::create_dir_all(state).unwrap();
    let settings = serde_json::json!({
        "hotkey": HOTKEY,
        "hotkey_mode": "hold",
        "output": "paste",
        "language": "en",
        "model": "base",
        "modes": [{
            "name": CHAT_RULE,
            "apps": [CHAT_APP.0],
            "paste_keys": "ctrl+shift+v",
            "press_after": "enter",
        }],
    });
    fs::write(
        state.join("settings.json"),
        serde_json::to_string_pretty(&settings).unwrap(),
    )
    .unwrap();
}

/// The name of the built-in rule that names `app`, as the app logs it in `mode=` (the names
/// of `settings::modes::builtin_rules`).
fn builtin_rule_for(app: &str) -> String {
    match app {
        "xterm" => "Terminal (xterm)",
        "xfce4-terminal" => "Terminal",
        other => panic!("no built-in rule known here for {other:?}"),
    }
    .to_string()
}

/// What the app logged about one dictation (`dictation done`).
#[derive(Debug)]
struct Done {
    line: String,
    text: String,
    mode: Option<String>,
    output: String,
    key_up_to_pasted_ms: String,
}

/// One held dictation of the clip `name` into the focused window, waited for to its end.
fn dictate(desktop: &Desktop, app: &mut AppProcess, name: &str) -> Done {
    hold_hotkey_while_playing(desktop, app, &clip(name), Duration::ZERO);
    let line = app
        .wait_for_log("dictation done", TRANSCRIBE_TIMEOUT)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let field = |key: &str| log_field(&line, key);
    Done {
        text: field("text").unwrap_or_else(|| panic!("no text= in {line:?}")),
        mode: field("mode"),
        output: field("output").unwrap_or_default(),
        key_up_to_pasted_ms: field("key_up_to_pasted_ms").unwrap_or_else(|| "?".into()),
        line,
    }
}

/// Checks the mode the app logged and that the words are the clip's; prints the dictation.
fn check(what: &str, clip_name: &str, done: &Done, mode: &str, got: &str) {
    let recall = rig::word_recall(&clip_text(clip_name), got);
    println!(
        "{what}: mode={:?} output={} key_up_to_pasted_ms={} recall {recall:.2}; received {got:?}",
        done.mode.as_deref().unwrap_or("(none logged)"),
        done.output,
        done.key_up_to_pasted_ms,
    );
    assert_eq!(
        done.mode.as_deref(),
        Some(mode),
        "{what}: the log names the rule used: {}",
        done.line
    );
    assert_eq!(done.output, "paste", "{what}: {}", done.line);
    assert!(
        recall >= RECALL,
        "{what}: recall {recall:.2} < {RECALL}: said {:?}, received {got:?}",
        clip_text(clip_name)
    );
}

/// Checks on its own that a line typed into `terminal` and a Return reach its reader.
fn self_check(terminal: &Terminal) {
    let line = format!("rig check {}", terminal.kind().program());
    terminal.type_text(&line).unwrap_or_else(|e| panic!("{e}"));
    terminal.press_return().unwrap_or_else(|e| panic!("{e}"));
    let lines = terminal
        .wait_for_lines(1, Duration::from_secs(5))
        .unwrap_or_else(|e| panic!("the terminal alone, before any dictation: {e}"));
    assert_eq!(lines, vec![line], "the terminal alone, typed with xdotool");
}

/// Dictates `clip_name` into `terminal` (a built-in rule's: no Return with the text), then
/// presses Return and returns the one line that came.
fn dictate_into_terminal(
    desktop: &Desktop,
    app: &mut AppProcess,
    terminal: &Terminal,
    clip_name: &str,
    shot: &Path,
) -> (Done, String) {
    let before = terminal.lines().unwrap_or_else(|e| panic!("{e}"));
    terminal.focus().unwrap_or_else(|e| panic!("{e}"));
    let done = dictate(desktop, app, clip_name);
    // The paste is sent when the app logs it; the terminal asks for the selection then.
    thread::sleep(Duration::from_millis(800));
    desktop.screenshot(shot).unwrap_or_else(|e| panic!("{e}"));
    let unasked = terminal.lines().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        unasked,
        before,
        "{}: a line reached the reader before the test pressed Return (the built-in rule \
         presses nothing after the text): {}",
        terminal.kind().program(),
        done.line
    );
    terminal.press_return().unwrap_or_else(|e| panic!("{e}"));
    // No line at all after the test's Return: the terminal swallowed it (after a Ctrl+V, a
    // tty's "literal next", the Return goes into the line as ^M), or never got the text.
    let lines = terminal
        .wait_for_lines(before.len() + 1, Duration::from_secs(5))
        .unwrap_or_else(|e| {
            panic!(
                "{}: {e}; the app: {}; the terminal as the paste left it: {}",
                terminal.kind().program(),
                done.line,
                shot.display()
            )
        });
    assert_eq!(lines.len(), before.len() + 1, "{lines:?}");
    let got = lines.last().cloned().unwrap_or_default();
    (done, got)
}

#[test]
fn terminals_get_the_whole_text_and_the_enter_rule_one_return() {
    let (desktop, out, state) = fresh_desktop("desktop-terminals");
    write_settings(&state);
    let mut app = start_app(&desktop, &state, &[("WHISPER_DICTATION_UI_LANG", "en")]);

    // While the model loads: the targets, each checked with a typed line.
    let xterm =
        Terminal::open(&desktop, Kind::Xterm, "terminals-xterm").unwrap_or_else(|e| panic!("{e}"));
    let xfce = Terminal::open(&desktop, Kind::Xfce4Terminal, "terminals-xfce")
        .unwrap_or_else(|e| panic!("{e}"));
    let chat = Terminal::open(&desktop, Kind::Xfce4Terminal, "terminals-chat")
        .unwrap_or_else(|e| panic!("{e}"));
    chat.set_wm_class(CHAT_APP.0, CHAT_APP.1)
        .unwrap_or_else(|e| panic!("{e}"));
    for terminal in [&xterm, &xfce, &chat] {
        self_check(terminal);
        println!(
            "{} (WM_CLASS {}): a typed line and Return came back from its reader",
            terminal.kind().program(),
            terminal.wm_class().unwrap_or_default()
        );
    }
    let text_box = TextBox::open(&desktop, "terminals-no-rule").unwrap_or_else(|e| panic!("{e}"));
    let ready = wait_ready(&mut app);
    println!("app ready after {:.1} s", ready.as_secs_f64());

    // (0) No rule: a zenity text box, pasted with Ctrl+V.
    text_box.focus().unwrap_or_else(|e| panic!("{e}"));
    let plain = dictate(&desktop, &mut app, "en_kal.wav");
    thread::sleep(Duration::from_millis(500));
    let in_box = text_box.submit().unwrap_or_else(|e| panic!("{e}"));
    check("(0) text box, no rule", "en_kal.wav", &plain, "", &in_box);
    assert_eq!(in_box, plain.text, "the box holds the text the app logged");

    // (a) xterm, its built-in rule.
    let (in_xterm, xterm_line) = dictate_into_terminal(
        &desktop,
        &mut app,
        &xterm,
        "en_slt.wav",
        &out.join("xterm-pasted.png"),
    );
    check(
        "(a) xterm, built-in rule",
        "en_slt.wav",
        &in_xterm,
        &builtin_rule_for("xterm"),
        &xterm_line,
    );
    assert_eq!(xterm_line, in_xterm.text, "xterm got the whole text");

    // (b) xfce4-terminal, its built-in rule.
    let (in_xfce, xfce_line) = dictate_into_terminal(
        &desktop,
        &mut app,
        &xfce,
        "en_awb.wav",
        &out.join("xfce4-terminal-pasted.png"),
    );
    check(
        "(b) xfce4-terminal, built-in rule",
        "en_awb.wav",
        &in_xfce,
        &builtin_rule_for("xfce4-terminal"),
        &xfce_line,
    );
    assert_eq!(xfce_line, in_xfce.text, "xfce4-terminal got the whole text");

    // (c) The person's Enter rule: the text and one Return, nothing pressed by the test.
    let before = chat.lines().unwrap_or_else(|e| panic!("{e}"));
    chat.focus().unwrap_or_else(|e| panic!("{e}"));
    let in_chat = dictate(&desktop, &mut app, "en_rms.wav");
    let arrived = chat.wait_for_lines(before.len() + 1, Duration::from_secs(5));
    thread::sleep(SECOND_RETURN_WATCH);
    desktop
        .screenshot(&out.join("chat-after-enter.png"))
        .unwrap_or_else(|e| panic!("{e}"));
    let lines = chat.lines().unwrap_or_else(|e| panic!("{e}"));
    if let Err(e) = arrived {
        // What sat in the line without a Return, for the report.
        let _ = chat.press_return();
        let flushed = chat
            .wait_for_lines(before.len() + 1, Duration::from_secs(3))
            .unwrap_or_default();
        panic!(
            "(c) no line came without the test pressing Return ({e}); after the test's own \
             Return the reader had {flushed:?}; the app: {}",
            in_chat.line
        );
    }
    let new = &lines[before.len()..];
    let got = new.first().cloned().unwrap_or_default();
    check(
        "(c) chat terminal, the person's Enter rule",
        "en_rms.wav",
        &in_chat,
        CHAT_RULE,
        &got,
    );
    assert_eq!(
        new,
        std::slice::from_ref(&in_chat.text),
        "exactly one line, the whole text, and no second Return within {SECOND_RETURN_WATCH:?}"
    );

    println!(
        "key-up → pasted: no rule {} ms; built-in xterm (Shift+Insert, PRIMARY) {} ms; \
         built-in xfce4-terminal (Ctrl+Shift+V) {} ms; the person's rule with Enter after {} ms",
        plain.key_up_to_pasted_ms,
        in_xterm.key_up_to_pasted_ms,
        in_xfce.key_up_to_pasted_ms,
        in_chat.key_up_to_pasted_ms
    );

    app.stop()
        .unwrap_or_else(|e| panic!("stopping the app: {e}"));
    drop(app);
    drop((xterm, xfce, chat));
    let mut desktop = desktop;
    desktop.stop().unwrap_or_else(|e| panic!("{e}"));
}
