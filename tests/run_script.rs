//! What scripts/run.sh, the README's first command, asks cargo to build and what it then starts:
//! both binaries (the app and `whisper-dictation-window`, which the menu's History… and
//! Settings… start from beside the app; `cargo run` alone builds only the app), in each of its
//! branches (a Mac, a Linux desktop, a Linux machine without a display, and with arguments for
//! the app). run.sh runs in a throwaway copy of the layout with stand-ins on PATH for `cargo`
//! and `uname`, and for scripts/setup.sh, each recording how it was called; the stand-in
//! binaries under target/release record theirs.
#![cfg(unix)]

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A script at `path` that appends its name and arguments (tab-separated) to `log`.
fn recorder(path: &Path, log: &Path, extra: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let name = path.file_name().unwrap().to_string_lossy();
    let text = format!(
        "#!/bin/sh\n{{ printf '%s' '{name}'; for a in \"$@\"; do printf '\\t%s' \"$a\"; done; echo; }} >> '{}'\n{extra}",
        log.display()
    );
    let tmp = path.with_extension("partial");
    fs::write(&tmp, text).unwrap();
    fs::set_permissions(&tmp, fs::Permissions::from_mode(0o755)).unwrap();
    fs::rename(&tmp, path).unwrap();
}

/// Runs a copy of run.sh with `args` as if on `os` (what `uname -s` says) with or without a
/// display; returns every recorded call, one Vec of words per call.
fn run(os: &str, display: bool, args: &[&str]) -> Vec<Vec<String>> {
    let dir = tempfile::tempdir().unwrap();
    let clone = dir.path().join("clone");
    let log = dir.path().join("calls.log");
    fs::create_dir_all(clone.join("scripts")).unwrap();
    fs::copy(root().join("scripts/run.sh"), clone.join("scripts/run.sh")).unwrap();
    recorder(&clone.join("scripts/setup.sh"), &log, "");
    recorder(&clone.join("target/release/whisper-dictation"), &log, "");
    recorder(
        &clone.join("target/release/examples/desktop_demo"),
        &log,
        "",
    );
    let bin = dir.path().join("bin");
    recorder(&bin.join("cargo"), &log, "");
    recorder(&bin.join("uname"), &log, &format!("echo {os}\n"));
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut command = Command::new("bash");
    command
        .arg(clone.join("scripts/run.sh"))
        .args(args)
        .env("PATH", path)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("CARGO_TARGET_DIR");
    if display {
        command.env("DISPLAY", ":0");
    }
    let out = command.output().expect("bash runs");
    assert!(
        out.status.success(),
        "run.sh failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    fs::read_to_string(&log)
        .unwrap()
        .lines()
        .filter(|line| !line.starts_with("uname"))
        .map(|line| line.split('\t').map(str::to_owned).collect())
        .collect()
}

/// Whether a recorded cargo call builds both binaries in release mode, where the app looks for
/// the window program (beside itself in target/release).
fn builds_both_binaries(call: &[String]) -> bool {
    let has = |w: &str| call.iter().any(|a| a == w);
    let names_window = call
        .windows(2)
        .any(|w| w[0] == "--bin" && w[1] == "whisper-dictation-window");
    call[0] == "cargo" && has("build") && has("--release") && (has("--bins") || names_window)
}

fn words(call: &[&str]) -> Vec<String> {
    call.iter().map(|s| s.to_string()).collect()
}

#[test]
fn on_a_mac_run_builds_the_window_program_then_starts_the_app() {
    let calls = run("Darwin", false, &[]);
    assert_eq!(calls[0], words(&["setup.sh"]), "{calls:?}");
    assert!(builds_both_binaries(&calls[1]), "{calls:?}");
    assert_eq!(calls[2], words(&["whisper-dictation"]), "{calls:?}");
    assert_eq!(calls.len(), 3, "{calls:?}");
}

#[test]
fn on_a_linux_desktop_too() {
    let calls = run("Linux", true, &[]);
    assert_eq!(calls[0], words(&["setup.sh"]), "{calls:?}");
    assert!(builds_both_binaries(&calls[1]), "{calls:?}");
    assert_eq!(calls[2], words(&["whisper-dictation"]), "{calls:?}");
}

#[test]
fn arguments_go_to_the_app_unchanged() {
    let args = ["transcribe", "my clip.wav", "--language", "pl"];
    let calls = run("Darwin", false, &args);
    assert!(builds_both_binaries(&calls[1]), "{calls:?}");
    let mut expected = words(&["whisper-dictation"]);
    expected.extend(words(&args));
    assert_eq!(calls[2], expected, "{calls:?}");
}

#[test]
fn without_a_display_the_demonstration_runs_with_both_binaries_built() {
    let calls = run("Linux", false, &[]);
    assert_eq!(calls[0], words(&["setup.sh", "--desktop"]), "{calls:?}");
    assert!(builds_both_binaries(&calls[1]), "{calls:?}");
    assert!(calls[1].iter().any(|a| a == "--examples"), "{calls:?}");
    assert_eq!(calls[2], words(&["desktop_demo"]), "{calls:?}");
}
