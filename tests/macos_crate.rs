//! The whole crate — library, both binaries, every test, example and bench — type-checks and
//! lints cleanly (`cargo clippy -D warnings`) for aarch64-apple-darwin, so a macOS branch
//! anywhere that does not compile fails the suite on Linux too. `scripts/check-macos-crate.sh`
//! does it (tch without libtorch, the dependencies' C code through zig's compiler, its own
//! target folder); this test runs it and then reads the compiler artifacts it recorded to make
//! sure every target of the crate was really compiled for the Mac. Linking, the Objective-C
//! parts and running need a Mac (docs/M1_SETUP.md). On a Mac the suite builds all of it natively.
#![cfg(target_os = "linux")]

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;

const TARGET: &str = "aarch64-apple-darwin";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A target's kind as cargo writes it (`["lib"]`, `["bin"]`, …), every library kind as "lib".
fn kind_of(kinds: &serde_json::Value) -> String {
    let kind = kinds[0].as_str().unwrap_or("");
    if kind.ends_with("lib") { "lib" } else { kind }.to_string()
}

/// The crate's own targets as (kind, name), from `cargo metadata` (lib, bin, test, example,
/// bench; the build script is not compiled for the Mac).
fn crate_targets() -> BTreeSet<(String, String)> {
    let out = Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--no-deps",
            "--offline",
            "--format-version",
            "1",
        ])
        .current_dir(root())
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "cargo metadata failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).expect("metadata is JSON");
    let package = meta["packages"]
        .as_array()
        .and_then(|p| p.iter().find(|p| p["name"] == "whisper-dictation"))
        .expect("whisper-dictation in cargo metadata");
    package["targets"]
        .as_array()
        .expect("targets")
        .iter()
        .map(|t| {
            (
                kind_of(&t["kind"]),
                t["name"].as_str().unwrap_or("").to_string(),
            )
        })
        .filter(|(kind, _)| kind != "custom-build")
        .collect()
}

/// The crate's targets that cargo's messages from the last check (`messages.json`, one JSON
/// object a line) say were compiled for `TARGET`.
fn checked_targets(messages: &str) -> BTreeSet<(String, String)> {
    messages
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|m| m["reason"] == "compiler-artifact")
        .filter(|m| m["manifest_path"].as_str() == root().join("Cargo.toml").to_str())
        .filter(|m| {
            m["filenames"].as_array().is_some_and(|files| {
                !files.is_empty()
                    && files.iter().all(|f| {
                        f.as_str()
                            .is_some_and(|f| f.contains(&format!("/{TARGET}/")))
                    })
            })
        })
        .map(|m| {
            (
                kind_of(&m["target"]["kind"]),
                m["target"]["name"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

#[test]
fn the_whole_crate_type_checks_and_lints_for_macos() {
    let script = root().join("scripts/check-macos-crate.sh");
    let out = Command::new("bash")
        .arg(&script)
        .current_dir(root())
        .output()
        .expect("bash runs scripts/check-macos-crate.sh");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let missing_tools = said.contains("is missing");
    assert!(
        out.status.success(),
        "scripts/check-macos-crate.sh failed{}:\n{said}",
        if missing_tools {
            " (its tools are missing: run scripts/setup.sh --test)"
        } else {
            ""
        }
    );

    let messages = std::fs::read_to_string(root().join("target/macos-check/messages.json"))
        .expect("the check records cargo's messages in target/macos-check/messages.json");
    let checked = checked_targets(&messages);
    let expected = crate_targets();
    let unchecked: Vec<_> = expected.difference(&checked).collect();
    assert!(
        unchecked.is_empty(),
        "targets not compiled for {TARGET} by the check: {unchecked:?} (checked: {checked:?})"
    );
    for kind in ["lib", "bin", "test", "example", "bench"] {
        assert!(
            checked.iter().any(|(k, _)| k == kind),
            "no {kind} target compiled for {TARGET}: {checked:?}"
        );
    }
}

/// The script's macOS branch, run with a stand-in `uname` that says Darwin: on a Mac the crate
/// builds natively, so the check refuses (exit 2) and names the native command, touching nothing.
#[test]
fn on_a_mac_the_check_refuses_and_names_the_native_command() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("a temporary folder");
    let uname = dir.path().join("uname");
    std::fs::write(&uname, "#!/bin/sh\necho Darwin\n").expect("the stand-in uname is written");
    std::fs::set_permissions(&uname, std::fs::Permissions::from_mode(0o755))
        .expect("the stand-in uname is executable");
    let path = format!(
        "{}:{}",
        dir.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("bash")
        .arg(root().join("scripts/check-macos-crate.sh"))
        .env("PATH", path)
        .current_dir(root())
        .output()
        .expect("bash runs scripts/check-macos-crate.sh");
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "exit status; it said: {said}");
    assert!(
        said.contains("this is a Mac") && said.contains("cargo clippy --all-targets"),
        "it names the native command: {said}"
    );
}
