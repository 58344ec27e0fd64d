//! The History window of the real app on a real (virtual) X11 desktop (issue 28): with a
//! history database filled before the start, the tray menu's "History…" (picked by keyboard)
//! opens a window whose WebKitGTK page lists the entries; the test
//!
//! - measures the menu click → first paint (the page's first `requestAnimationFrame` with the
//!   entries, told over the IPC) from the app's log, and then how long until a screenshot shows
//!   it, and prints both;
//! - takes the screenshot `docs/history.png` of the window once its pixels are the page's (its
//!   light background, dark text), not an empty window;
//! - types a diacritic-free search ("zolw") and sees the list narrowed to the one entry
//!   "Żółw…" (the app logs the number of results, never the query);
//! - copies that entry with the keyboard (Tab to its Copy button) and finds its text on the
//!   clipboard (the app's output thread put it there);
//! - closes the window (Alt+F4 through openbox) and sees its process gone with every WebKit
//!   process under it; opens and closes it again, the same; and sees the app's resident size
//!   after each close where it was before the first open (the window lives in its own
//!   process), printed.
//!
//! Needs the desktop tools (`scripts/setup.sh --test`), WebKitGTK 4.1 and the `base` model;
//! run under `flock /tmp/desktop.lock`. Logs and screenshots in
//! `target/desktop-history-window/`.

// Linux only: an X11 desktop (Xvfb, xdotool, xclip, openbox); on macOS this file is empty.
#![cfg(target_os = "linux")]

mod app_rig;
mod rig;

use app_rig::{
    activate_window, find_window, fresh_desktop, open_menu, resident_mb, start_app,
    wait_for_clipboard, wait_for_page_on_screen, wait_ready, write_settings,
};
use rig::{log_field, AppProcess, Desktop};
use std::fs;
use std::path::Path;
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use whisper_dictation::history::{History, NewEntry};

/// The English menu's mnemonic of "Hi&story…".
const HISTORY_KEY: &str = "s";
const TITLE: &str = "History";
/// How much the app's resident size may differ after the window was open and closed: the
/// allocator's noise (in-process, WebKit left +33 to +78 MB).
const CLOSED_SLACK_MB: u64 = 12;
const TURTLE: &str = "Żółw idzie powoli przez ogród, a kot patrzy z okna.";

fn fill_history(state: &Path) {
    fs::create_dir_all(state).unwrap();
    let (mut history, _) = History::open(&state.join("history.sqlite3")).unwrap();
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    let minute = 60_000;
    let entries = [
        (300, TURTLE, "pl", "small", "cpu", 612),
        (
            240,
            "Please remind me to call the dentist tomorrow morning at nine.",
            "en",
            "base",
            "cpu",
            388,
        ),
        (
            180,
            "Spotkanie przesunięte na czwartek, godzina piętnasta trzydzieści.",
            "pl",
            "medium",
            "cuda",
            941,
        ),
        (
            60,
            "Send the quarterly report to Anna before Friday.",
            "en",
            "small.en",
            "mps",
            274,
        ),
        (
            5,
            "Zażółć gęślą jaźń — to zdanie ma wszystkie polskie litery.",
            "pl",
            "small",
            "cpu",
            530,
        ),
    ];
    for (ago, text, language, model, device, pasted) in entries {
        history
            .add(&NewEntry {
                at_ms: now - ago * minute,
                text: text.into(),
                raw_text: text.into(),
                recording: None,
                duration_ms: 3_400,
                language: Some(language.into()),
                model: model.into(),
                device: device.into(),
                device_reason: None,
                key_up_to_pasted_ms: Some(pasted),
                app: None,
                mode: None,
            })
            .unwrap();
    }
}

/// Opens History… from the tray menu by its mnemonic; returns the app's click → first paint.
fn open_history(desktop: &Desktop, app: &mut AppProcess, out: &Path) -> u64 {
    open_menu(desktop, out);
    desktop.key(HISTORY_KEY).unwrap_or_else(|e| panic!("{e}"));
    let painted = app
        .wait_for_log("history window painted", Duration::from_secs(20))
        .unwrap_or_else(|e| panic!("{e}"));
    log_field(&painted, "after_click_ms")
        .and_then(|v| v.parse().ok())
        .expect(&painted)
}

/// The number of results of the last list the window showed (from the app's log).
fn last_results(app: &AppProcess) -> Option<String> {
    let log = app.log();
    let last = log
        .lines()
        .rev()
        .find(|l| l.contains("history window: list shown"))?;
    log_field(last, "results")
}

/// Closes the window with Alt+F4 (openbox asks it to close) and waits until the window's
/// process and its web view's processes are gone; returns the processes of the app's left.
fn close_history(desktop: &Desktop, app: &mut AppProcess) -> Vec<String> {
    desktop.key("alt+F4").unwrap_or_else(|e| panic!("{e}"));
    app.wait_for_log("history window closed", Duration::from_secs(10))
        .unwrap_or_else(|e| panic!("{e}"));
    let mut left = descendants(app.pid());
    for _ in 0..50 {
        if left.is_empty() {
            break;
        }
        thread::sleep(Duration::from_millis(100));
        left = descendants(app.pid());
    }
    left
}

/// The names of the app's child processes and theirs (the window process, and WebKit's web
/// and network processes under it).
fn descendants(pid: u32) -> Vec<String> {
    let mut parents = Vec::new();
    for entry in fs::read_dir("/proc").unwrap().flatten() {
        let Ok(stat) = fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // pid (comm) state ppid …
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else {
            continue;
        };
        let own = stat[..open].trim().parse::<u32>().ok();
        let comm = stat[open + 1..close].to_string();
        let ppid = stat[close + 1..]
            .split_whitespace()
            .nth(1)
            .and_then(|p| p.parse::<u32>().ok());
        if let (Some(own), Some(ppid)) = (own, ppid) {
            parents.push((own, ppid, comm));
        }
    }
    let mut family = vec![pid];
    let mut found = Vec::new();
    while let Some(parent) = family.pop() {
        for (own, _, comm) in parents.iter().filter(|(_, ppid, _)| *ppid == parent) {
            family.push(*own);
            found.push(comm.clone());
        }
    }
    found
}

#[test]
fn history_window_lists_searches_copies_and_closes() {
    let (desktop, out, state) = fresh_desktop("desktop-history-window");
    write_settings(&state, "copy", "en");
    fill_history(&state);
    let mut app = start_app(&desktop, &state, &[]);
    wait_ready(&mut app);
    // The app's size once it has settled: the encoder's padding is primed after "ready".
    app.wait_for_log("encoder padding primed", Duration::from_secs(30))
        .unwrap_or_else(|e| panic!("{e}"));
    thread::sleep(Duration::from_millis(500));
    let rss_before = resident_mb(app.pid());
    assert!(
        descendants(app.pid()).is_empty(),
        "a process of the window before it was opened: {:?}",
        descendants(app.pid())
    );

    let open_ms = open_history(&desktop, &mut app, &out);
    let (id, area) = find_window(&desktop, TITLE);
    let shot = out.join("history.png");
    let on_screen = wait_for_page_on_screen(&desktop, area, &shot);
    println!(
        "history window: menu click → first paint {open_ms} ms (the page's first animation frame); \
         on screen within {} ms after that (screenshots every 150 ms)",
        on_screen.as_millis()
    );
    assert_eq!(last_results(&app).as_deref(), Some("5"));
    let open_processes = descendants(app.pid());
    println!("processes of the open window: {open_processes:?}");
    assert!(
        open_processes
            .iter()
            .any(|name| name.starts_with("WebKitWebProc")),
        "no web content process while the window is open: {open_processes:?}"
    );
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/history.png");
    fs::copy(&shot, &docs).unwrap_or_else(|e| panic!("{}: {e}", docs.display()));

    // A search without diacritics finds the Polish entry.
    activate_window(&desktop, &id);
    let mut typing = desktop.command("xdotool");
    typing.args(["type", "--delay", "80", "zolw"]);
    rig::run_ok(typing, "xdotool type", Duration::from_secs(10)).unwrap_or_else(|e| panic!("{e}"));
    let deadline = Instant::now() + Duration::from_secs(5);
    while last_results(&app).as_deref() != Some("1") && Instant::now() < deadline {
        thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(
        last_results(&app).as_deref(),
        Some("1"),
        "the search 'zolw' did not narrow the list to one entry:\n{}",
        rig::tail(app.log_path(), 20)
    );
    thread::sleep(Duration::from_millis(300));
    desktop
        .screenshot_region(&out.join("search.png"), area)
        .unwrap_or_else(|e| panic!("{e}"));
    // Search box → the entry's star → its Copy button.
    desktop.key("Tab").unwrap_or_else(|e| panic!("{e}"));
    desktop.key("Tab").unwrap_or_else(|e| panic!("{e}"));
    desktop.key("Return").unwrap_or_else(|e| panic!("{e}"));
    app.wait_for_log("history window: text copied", Duration::from_secs(10))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        wait_for_clipboard(&desktop, TURTLE, Duration::from_secs(5)),
        TURTLE
    );

    // Closed: the window's process and everything under it are gone.
    let left = close_history(&desktop, &mut app);
    thread::sleep(Duration::from_secs(1));
    let rss_closed = resident_mb(app.pid());
    assert!(left.is_empty(), "processes outlived the window: {left:?}");

    // Opened and closed again: nothing piles up.
    let reopen_ms = open_history(&desktop, &mut app, &out);
    println!("history window, second open: menu click → first paint {reopen_ms} ms");
    assert_eq!(
        last_results(&app).as_deref(),
        Some("5"),
        "a new page starts with no query"
    );
    let left_again = close_history(&desktop, &mut app);
    thread::sleep(Duration::from_secs(1));
    let rss_closed_again = resident_mb(app.pid());
    println!(
        "resident size: {rss_before} MB before opening, {rss_closed} MB after closing, \
         {rss_closed_again} MB after opening and closing again"
    );
    assert!(left_again.is_empty(), "{left_again:?}");
    // Closed, the window costs the app nothing: what it used lived in its own process. (The
    // app answered the page in between: its database connection and answers are freed.)
    for after in [rss_closed, rss_closed_again] {
        assert!(
            after <= rss_before + CLOSED_SLACK_MB,
            "the app grew from {rss_before} MB to {after} MB with the window closed"
        );
    }
    // WebKit's own files went to the state folder, not under the home folder.
    assert!(
        state.join("webview").is_dir(),
        "no webview folder in the state folder"
    );
    app.stop().unwrap_or_else(|e| panic!("{e}"));
}
