//! The window process (`whisper-dictation-window`, `src/window_host`) on its own: it links no
//! libtorch (so it starts fast and is all the window costs), the app links no WebKit (so a
//! closed window costs the app nothing), and it answers a first line it cannot use with a
//! warning on the pipe and an exit instead of opening anything. Opening the real window is
//! the desktop tests' part (`desktop_history_window.rs` and the others).

// Linux only: ELF linking (readelf); the macOS bundle's executables are checked by the bundle
// script (otool).
#![cfg(target_os = "linux")]

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

const WINDOW: &str = env!("CARGO_BIN_EXE_whisper-dictation-window");
const APP: &str = env!("CARGO_BIN_EXE_whisper-dictation");

/// The shared libraries `binary` records as needed.
fn needed(binary: &str) -> Vec<String> {
    let out = Command::new("readelf")
        .arg("-d")
        .arg(Path::new(binary))
        .output()
        .expect("readelf (binutils) runs");
    assert!(out.status.success(), "readelf -d {binary}");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.contains("(NEEDED)"))
        .filter_map(|l| Some(l.split('[').nth(1)?.trim_end_matches(']').to_string()))
        .collect()
}

#[test]
fn the_window_process_links_webkit_and_no_libtorch_and_the_app_the_reverse() {
    let window = needed(WINDOW);
    assert!(
        window.iter().any(|n| n.starts_with("libwebkit2gtk")),
        "{window:?}"
    );
    for lib in &window {
        assert!(
            !lib.starts_with("libtorch") && !lib.starts_with("libc10"),
            "the window process needs {lib}: {window:?}"
        );
    }
    let app = needed(APP);
    assert!(app.iter().any(|n| n == "libtorch_cpu.so"), "{app:?}");
    for lib in &app {
        assert!(
            !lib.starts_with("libwebkit2gtk") && !lib.starts_with("libjavascriptcore"),
            "the app needs {lib}: {app:?}"
        );
    }
}

/// Runs the window process with `first_line` on its stdin; its exit code and stdout.
fn run_window(first_line: &str) -> (Option<i32>, String) {
    let mut child = Command::new(WINDOW)
        .env_remove("DISPLAY")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the window process starts");
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(first_line.as_bytes()).unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn a_first_line_it_cannot_use_is_answered_with_a_warning_and_an_exit() {
    for line in ["\n", "not json\n", "{\"to_window\":\"close\"}\n"] {
        let (code, out) = run_window(line);
        assert_eq!(code, Some(2), "{line:?}: {out}");
        let said: serde_json::Value = serde_json::from_str(out.trim()).expect(&out);
        assert_eq!(said["from_window"], "warning", "{out}");
        assert!(
            said["text"]
                .as_str()
                .unwrap()
                .contains("not the window to open"),
            "{out}"
        );
    }
    // A window process from another build: it says which versions differ.
    let open = serde_json::json!({
        "to_window": "open", "version": 999, "title": "History", "url": "app://localhost/",
        "size": [760.0, 600.0], "min_size": [420.0, 320.0], "data_dir": null,
        "incognito": false, "automation": false, "scheme": "app",
        "origin": "app://localhost/", "csp": "default-src 'none'", "assets": []
    });
    let (code, out) = run_window(&format!("{open}\n"));
    assert_eq!(code, Some(2), "{out}");
    assert!(out.contains("another build"), "{out}");
}
