//! The X11 hotkey listener (`platform::HotkeyListener`) on a real X server: a held hotkey is
//! one press and one release, Caps Lock on changes nothing, its thread does not wake while it
//! waits (global-hotkey's polled 20 times a second), a combination another client grabbed is
//! refused as taken and can be had once that client lets it go, and dropping a listener ends
//! its thread.
//!
//! Its own bare Xvfb on a display number of its own (keys sent with xdotool's XTest), not the
//! shared test desktop; a few seconds. Needs `Xvfb` and `xdotool` (`scripts/setup.sh --test`).

// Linux only: X11; on macOS this file is empty.
#![cfg(target_os = "linux")]

mod bare_xvfb;

use bare_xvfb::start_xvfb;
use global_hotkey::hotkey::{Code, HotKey};
use global_hotkey::HotKeyState;
use std::path::Path;
use std::process::Command;
use std::str::FromStr;
use std::sync::mpsc::{self, Receiver};
use std::sync::Mutex;
use std::thread;
use std::time::{Duration, Instant};
use whisper_dictation::platform::{HotkeyError, HotkeyListener};

fn xdotool(args: &[&str]) {
    let status = Command::new("xdotool")
        .args(args)
        .status()
        .unwrap_or_else(|e| panic!("xdotool: {e} (scripts/setup.sh --test installs it)"));
    assert!(status.success(), "xdotool {args:?}: {status}");
}

/// A listener whose edges arrive on the returned receiver.
fn listener() -> (HotkeyListener, Receiver<HotKeyState>) {
    let (tx, rx) = mpsc::channel();
    let tx = Mutex::new(tx);
    let listener = HotkeyListener::new(move |state| {
        let _ = tx.lock().unwrap().send(state);
    })
    .expect("a listener on the test's X display");
    (listener, rx)
}

/// Holds `keys` for `hold`; returns the edges that arrived, each with how long after xdotool
/// returned.
fn hold(keys: &str, hold: Duration, rx: &Receiver<HotKeyState>) -> Vec<(HotKeyState, Duration)> {
    let mut edges = Vec::new();
    xdotool(&["keydown", keys]);
    let down = Instant::now();
    if let Ok(state) = rx.recv_timeout(hold) {
        edges.push((state, down.elapsed()));
    }
    thread::sleep(hold.saturating_sub(down.elapsed()));
    while let Ok(state) = rx.try_recv() {
        edges.push((state, down.elapsed()));
    }
    xdotool(&["keyup", keys]);
    let up = Instant::now();
    while let Ok(state) = rx.recv_timeout(Duration::from_millis(500)) {
        edges.push((state, up.elapsed()));
    }
    edges
}

fn states(edges: &[(HotKeyState, Duration)]) -> Vec<HotKeyState> {
    edges.iter().map(|(state, _)| *state).collect()
}

/// This process's threads named "hotkeys" (`/proc/self/task/*/comm`).
fn hotkey_threads() -> Vec<String> {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(|task| {
            let task = task.ok()?.path();
            let comm = std::fs::read_to_string(task.join("comm")).ok()?;
            (comm.trim() == "hotkeys").then(|| task.to_string_lossy().into_owned())
        })
        .collect()
}

/// A thread's context switches so far (voluntary and involuntary): its wake-ups.
fn switches(task: &str) -> u64 {
    let status = std::fs::read_to_string(Path::new(task).join("status")).unwrap();
    status
        .lines()
        .filter(|l| l.contains("ctxt_switches"))
        .filter_map(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        .sum()
}

#[test]
fn a_held_hotkey_is_one_press_and_one_release_and_the_wait_costs_no_wake_ups() {
    let xvfb = start_xvfb(700..800);
    std::env::set_var("DISPLAY", &xvfb.display);
    let hotkey = HotKey::from_str("ctrl+alt+space").unwrap();
    let (first, first_rx) = listener();
    first.register(hotkey).unwrap();

    // Held past the keyboard's auto-repeat delay (660 ms in Xvfb): one press, one release.
    let edges = hold("ctrl+alt+space", Duration::from_millis(1200), &first_rx);
    println!("held: {edges:?}");
    assert_eq!(
        states(&edges),
        [HotKeyState::Pressed, HotKeyState::Released]
    );
    // The same with Caps Lock on (the grab covers each lock state).
    xdotool(&["key", "Caps_Lock"]);
    let edges = hold("ctrl+alt+space", Duration::from_millis(200), &first_rx);
    xdotool(&["key", "Caps_Lock"]);
    assert_eq!(
        states(&edges),
        [HotKeyState::Pressed, HotKeyState::Released],
        "with Caps Lock on"
    );
    // Another combination of the same key is not the hotkey.
    let edges = hold(
        "ctrl+alt+shift+space",
        Duration::from_millis(200),
        &first_rx,
    );
    assert!(edges.is_empty(), "ctrl+alt+shift+space: {edges:?}");

    // Waiting costs nothing: the listener's thread sleeps until an event.
    let threads = hotkey_threads();
    assert_eq!(threads.len(), 1, "one \"hotkeys\" thread: {threads:?}");
    let before = switches(&threads[0]);
    thread::sleep(Duration::from_secs(2));
    let woke = switches(&threads[0]) - before;
    println!("the hotkeys thread woke {woke} times in 2 s of waiting");
    assert!(woke <= 1, "the hotkeys thread woke {woke} times in 2 s");

    // Another client's grab: the second listener is told the combination is taken.
    let (second, second_rx) = listener();
    let taken = second.register(hotkey).unwrap_err();
    assert!(matches!(taken, HotkeyError::Taken(_)), "{taken:?}");
    assert!(
        taken
            .to_string()
            .contains("another application already uses"),
        "{taken}"
    );
    // A key no listener can grab, and registering twice.
    let unsupported = second.register(HotKey::new(None, Code::Fn)).unwrap_err();
    assert!(
        matches!(unsupported, HotkeyError::UnsupportedKey(_)),
        "{unsupported:?}"
    );
    let twice = first.register(hotkey).unwrap_err();
    assert!(
        matches!(twice, HotkeyError::AlreadyRegistered(_)),
        "{twice:?}"
    );

    // Let go by the first, it is the second's; the first hears nothing more.
    first.unregister(hotkey).unwrap();
    second.register(hotkey).unwrap();
    let edges = hold("ctrl+alt+space", Duration::from_millis(200), &second_rx);
    assert_eq!(
        states(&edges),
        [HotKeyState::Pressed, HotKeyState::Released]
    );
    assert!(first_rx.try_recv().is_err());
    // A second hotkey on the same listener, then both.
    let f8 = HotKey::from_str("shift+f8").unwrap();
    second.register(f8).unwrap();
    let edges = hold("shift+F8", Duration::from_millis(200), &second_rx);
    assert_eq!(
        states(&edges),
        [HotKeyState::Pressed, HotKeyState::Released]
    );

    // Dropped, a listener ends its thread (and the X server frees its grabs).
    assert_eq!(hotkey_threads().len(), 2);
    let (dropped_tx, dropped_rx) = mpsc::channel();
    thread::spawn(move || {
        drop(second);
        let _ = dropped_tx.send(());
    });
    dropped_rx
        .recv_timeout(Duration::from_secs(5))
        .expect("the listener's drop returned");
    assert_eq!(hotkey_threads().len(), 1);
    first.register(hotkey).unwrap();
    let edges = hold("ctrl+alt+space", Duration::from_millis(200), &first_rx);
    assert_eq!(
        states(&edges),
        [HotKeyState::Pressed, HotKeyState::Released]
    );
}
