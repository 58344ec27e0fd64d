//! `whisper-dictation models …` end to end, against a hub-shaped server on 127.0.0.1
//! (`fake_hub`) and a models folder of the test's own (`WHISPER_DICTATION_MODELS_DIR`): the
//! list on a fresh machine, a download with its progress lines, verify, a damaged model found,
//! remove, and the errors.

mod common;
mod fake_hub;

use fake_hub::FakeHub;
use std::path::Path;
use std::process::{Command, Output};

fn models(models_dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_whisper-dictation"))
        .arg("models")
        .args(args)
        .env("WHISPER_DICTATION_MODELS_DIR", models_dir)
        .env_remove("HF_ENDPOINT")
        .env_remove("WHISPER_DICTATION_LOG")
        .output()
        .expect("the binary runs")
}

fn text(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn list_on_a_fresh_machine_names_the_catalogue_and_marks_what_is_installed() {
    let dir = tempfile::tempdir().unwrap();
    let out = models(dir.path(), &["list"]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}{stderr}");
    for name in [
        "tiny",
        "base",
        "small",
        "medium",
        "large-v3",
        "large-v3-turbo",
    ] {
        assert!(
            stdout
                .lines()
                .any(|l| l.get(2..).unwrap_or("").starts_with(&format!("{name} "))),
            "{name} in {stdout}"
        );
    }
    assert!(
        !stdout.contains("installed "),
        "nothing installed: {stdout}"
    );
    assert!(stdout.contains("suggested for this machine"), "{stdout}");

    // A set-up-installed model (no manifest) and a folder of the user's own show as installed.
    let real = common::model_dir("tiny.en");
    std::os::unix::fs::symlink(&real, dir.path().join("tiny.en")).unwrap();
    std::os::unix::fs::symlink(&real, dir.path().join("my-own")).unwrap();
    std::fs::create_dir(dir.path().join("small.partial.download")).unwrap();
    std::fs::write(
        dir.path().join("small.partial.download/model.bin"),
        [0u8; 2000],
    )
    .unwrap();
    let (stdout, _) = text(&models(dir.path(), &["list"]));
    let line = |name: &str| {
        stdout
            .lines()
            .find(|l| l.get(2..).unwrap_or("").starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("{name} in {stdout}"))
            .to_string()
    };
    assert!(line("tiny.en").contains("installed"), "{stdout}");
    assert!(
        line("my-own").contains("installed") && line("my-own").contains("not in the catalogue")
    );
    assert!(line("small").contains("partial 2 kB"), "{stdout}");
    assert!(!line("tiny").contains("installed"), "{stdout}");

    let (stdout, _) = text(&models(dir.path(), &["verify", "tiny.en"]));
    assert!(
        stdout.contains("no manifest") && stdout.contains("loads: yes"),
        "{stdout}"
    );
}

#[test]
fn download_verify_damage_and_remove_through_the_cli() {
    let hub = FakeHub::start(
        "Systran/faster-whisper-tiny.en",
        &common::model_dir("tiny.en"),
    );
    let dir = tempfile::tempdir().unwrap();
    let out = models(dir.path(), &["download", "tiny.en", "--endpoint", &hub.url]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}{stderr}");
    // Not a terminal: plain progress lines, none past 100 %.
    assert!(stderr.contains("downloading: 50%"), "{stderr}");
    assert!(stderr.contains("verifying"), "{stderr}");
    for line in stderr.lines().filter(|l| l.contains('%')) {
        let pct: u32 = line
            .split(": ")
            .nth(1)
            .unwrap()
            .split('%')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!(pct <= 100, "{line}");
    }
    assert!(stdout.contains("installed tiny.en"), "{stdout}");

    let out = models(dir.path(), &["verify", "tiny.en"]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}{stderr}");
    assert!(stdout.contains("sizes and SHA-256 as installed") && stdout.ends_with("ok\n"));

    // One changed byte is found, and the way out is named.
    let model_bin = dir.path().join("tiny.en/model.bin");
    let mut bytes = std::fs::read(&model_bin).unwrap();
    bytes[1_000_000] ^= 1;
    std::fs::write(&model_bin, bytes).unwrap();
    let out = models(dir.path(), &["verify", "tiny.en"]);
    let (stdout, stderr) = text(&out);
    assert!(!out.status.success());
    assert!(stdout.contains("model.bin: SHA-256"), "{stdout}");
    assert!(
        stderr.contains("models download tiny.en --replace"),
        "{stderr}"
    );

    let out = models(
        dir.path(),
        &["download", "tiny.en", "--endpoint", &hub.url, "--replace"],
    );
    assert!(out.status.success(), "{:?}", text(&out));
    assert!(models(dir.path(), &["verify", "tiny.en"]).status.success());

    let out = models(dir.path(), &["remove", "tiny.en"]);
    assert!(out.status.success());
    assert!(!dir.path().join("tiny.en").exists());
}

#[test]
fn errors_are_one_line_naming_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let (_, stderr) = text(&models(dir.path(), &["download", "huge"]));
    assert!(
        stderr.contains("'huge' is not in the catalogue"),
        "{stderr}"
    );
    let (_, stderr) = text(&models(dir.path(), &["remove", "base"]));
    assert!(stderr.contains("'base' is not installed"), "{stderr}");
    // Nothing listens there: a network error naming the URL.
    let out = models(
        dir.path(),
        &["download", "tiny", "--endpoint", "http://127.0.0.1:9"],
    );
    let (_, stderr) = text(&out);
    assert!(!out.status.success());
    assert!(
        stderr.contains("http://127.0.0.1:9/api/models/Systran/faster-whisper-tiny/revision/main"),
        "{stderr}"
    );
}
