//! The `whisper-dictation` binary end to end: `transcribe FILE...` on the real installed models,
//! its text and JSON output, and its errors (one line on stderr naming what is wrong, a
//! non-zero exit, nothing on stdout).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn clip(name: &str) -> PathBuf {
    common::fixtures().join("clips").join(name)
}

/// Runs `whisper-dictation transcribe ARGS... --threads 2`.
fn transcribe<I, S>(args: I) -> Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    Command::new(env!("CARGO_BIN_EXE_whisper-dictation"))
        .arg("transcribe")
        .args(args)
        .args(["--threads", "2"])
        .env_remove("WHISPER_DICTATION_LOG")
        .output()
        .expect("the binary runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("stdout is UTF-8")
}

fn stderr(out: &Output) -> String {
    String::from_utf8(out.stderr.clone()).expect("stderr is UTF-8")
}

fn assert_success(out: &Output) {
    assert!(
        out.status.success(),
        "exit {:?}\nstdout: {}\nstderr: {}",
        out.status,
        stdout(out),
        stderr(out)
    );
}

/// A failed run: non-zero exit, nothing on stdout, exactly one line on stderr; returns it.
fn single_error_line(out: &Output) -> String {
    let (out_text, err_text) = (stdout(out), stderr(out));
    assert!(
        !out.status.success(),
        "expected failure, got {:?}\nstdout: {out_text}\nstderr: {err_text}",
        out.status
    );
    assert_eq!(out.status.code(), Some(1), "stderr: {err_text}");
    assert_eq!(out_text, "", "stdout must stay empty on error");
    let lines: Vec<&str> = err_text.lines().collect();
    assert_eq!(lines.len(), 1, "stderr must be one line: {err_text:?}");
    assert!(err_text.ends_with('\n'), "{err_text:?}");
    lines[0].to_string()
}

fn tiny_en_file(name: &str) -> PathBuf {
    common::model_dir("tiny.en").join(name)
}

fn as_str(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 path")
}

/// `--encoder fast` and `--as-app` (the app's fast encoding on this CPU) say what whole windows
/// say on a clear clip.
#[test]
fn fast_encoding_prints_the_whole_windows_sentence() {
    let kal = clip("en_kal.wav");
    let run = |extra: &[&str]| {
        let mut args = vec![as_str(&kal), "--language", "en", "--model", "tiny.en"];
        args.extend_from_slice(extra);
        let out = transcribe(args);
        assert_success(&out);
        stdout(&out)
    };
    let whole = run(&["--encoder", "exact"]);
    assert!(whole.to_lowercase().contains("dentist"), "{whole:?}");
    assert_eq!(run(&["--encoder", "fast"]), whole);
    assert_eq!(run(&["--as-app"]), whole);
}

#[test]
fn prints_the_spoken_sentence() {
    let out = transcribe([
        as_str(&clip("en_kal.wav")),
        "--language",
        "en",
        "--model",
        "tiny.en",
    ]);
    assert_success(&out);
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1, "{text:?}");
    let line = lines[0].to_lowercase();
    assert!(
        line.starts_with("please remind me to call the dentist tomorrow"),
        "{text:?}"
    );
    assert_eq!(lines[0], lines[0].trim(), "the text is printed trimmed");
}

#[test]
fn json_output_has_text_language_segments_and_timings() {
    let out = transcribe([as_str(&clip("en_slt.wav")), "--model", "tiny.en", "--json"]);
    assert_success(&out);
    let text = stdout(&out);
    assert_eq!(text.lines().count(), 1, "one JSON object per file: {text}");
    let json: serde_json::Value = serde_json::from_str(text.trim()).expect("valid JSON");

    let said = json["text"]
        .as_str()
        .expect("text is a string")
        .to_lowercase();
    assert!(
        said.contains("quarterly") && said.contains("charts"),
        "{said}"
    );
    assert_eq!(json["language"], "en");
    assert!(json["file"].as_str().unwrap().ends_with("en_slt.wav"));
    let duration = json["duration"].as_f64().expect("duration");
    assert!((duration - 5.12).abs() < 0.01, "{duration}");

    let segments = json["segments"].as_array().expect("segments is an array");
    assert!(!segments.is_empty());
    let mut joined = String::new();
    for s in segments {
        let start = s["start"].as_f64().expect("start");
        let end = s["end"].as_f64().expect("end");
        assert!(0.0 <= start && start < end && end <= duration + 0.5, "{s}");
        let tokens = s["tokens"].as_array().expect("tokens");
        assert!(
            !tokens.is_empty() && tokens.iter().all(|t| t.is_u64()),
            "{s}"
        );
        joined.push_str(s["text"].as_str().expect("segment text"));
    }
    assert_eq!(joined.trim(), json["text"].as_str().unwrap());

    let timings = &json["timings"];
    for key in ["load", "mel", "encoder", "decoder"] {
        let v = timings[key]
            .as_f64()
            .unwrap_or_else(|| panic!("timings.{key} is a number: {timings}"));
        assert!(v >= 0.0, "timings.{key} = {v}");
    }
    assert!(timings["load"].as_f64().unwrap() > 0.0, "{timings}");
    assert!(timings["windows"].as_u64().unwrap() >= 1, "{timings}");
    assert!(
        timings["attempts"].as_u64().unwrap() >= timings["windows"].as_u64().unwrap(),
        "{timings}"
    );
}

#[test]
fn two_files_print_two_lines_in_order() {
    let out = transcribe([
        as_str(&clip("en_kal.wav")),
        as_str(&clip("en_slt.wav")),
        "--language",
        "en",
        "--model",
        "tiny.en",
    ]);
    assert_success(&out);
    let text = stdout(&out);
    let lines: Vec<String> = text.lines().map(str::to_lowercase).collect();
    assert_eq!(lines.len(), 2, "{text:?}");
    assert!(lines[0].contains("dentist"), "{text:?}");
    assert!(lines[1].contains("quarterly"), "{text:?}");
}

#[test]
fn missing_file_fails_before_the_model_loads() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-recording.wav");
    // A good file first: nothing is transcribed when any input is missing.
    let out = transcribe([
        as_str(&clip("en_kal.wav")),
        as_str(&missing),
        "--model",
        "tiny.en",
    ]);
    let line = single_error_line(&out);
    assert!(line.contains(as_str(&missing)), "{line}");
    assert!(!line.to_lowercase().contains("model"), "{line}");

    // The files are checked before the model is even looked up.
    let out = transcribe([as_str(&missing), "--model", "no-such-model"]);
    let line = single_error_line(&out);
    assert!(line.contains("no-such-recording.wav"), "{line}");
    assert!(!line.contains("no-such-model"), "{line}");
}

#[test]
fn non_wav_file_is_one_error_line_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let garbage = dir.path().join("garbage.wav");
    let bytes: Vec<u8> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    std::fs::write(&garbage, bytes).unwrap();
    let out = transcribe([as_str(&garbage), "--model", "tiny.en"]);
    let line = single_error_line(&out);
    assert!(line.contains(as_str(&garbage)), "{line}");
    assert!(line.contains("WAV"), "{line}");
}

#[test]
fn unknown_model_is_named_with_the_installed_ones() {
    let out = transcribe([as_str(&clip("en_kal.wav")), "--model", "large-v9"]);
    let line = single_error_line(&out);
    assert!(line.contains("large-v9"), "{line}");
    assert!(line.contains("installed"), "{line}");
    for installed in ["base", "tiny.en"] {
        assert!(line.contains(installed), "{installed} not listed: {line}");
    }
}

#[test]
fn truncated_model_bin_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["config.json", "tokenizer.json"] {
        std::fs::copy(tiny_en_file(name), dir.path().join(name)).unwrap();
    }
    let full = std::fs::read(tiny_en_file("model.bin")).unwrap();
    std::fs::write(dir.path().join("model.bin"), &full[..1 << 20]).unwrap();

    let out = transcribe([as_str(&clip("en_kal.wav")), "--model", as_str(dir.path())]);
    let line = single_error_line(&out);
    assert!(line.contains("model.bin"), "{line}");
    assert!(line.contains("truncated"), "{line}");
}

#[test]
fn tokenizer_of_another_model_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(tiny_en_file("model.bin"), dir.path().join("model.bin")).unwrap();
    std::fs::copy(tiny_en_file("config.json"), dir.path().join("config.json")).unwrap();
    std::fs::copy(
        common::model_dir("base").join("tokenizer.json"),
        dir.path().join("tokenizer.json"),
    )
    .unwrap();

    let out = transcribe([as_str(&clip("en_kal.wav")), "--model", as_str(dir.path())]);
    let line = single_error_line(&out);
    assert!(line.contains("tokenizer.json"), "{line}");
    assert!(line.contains("does not belong"), "{line}");
}

#[test]
fn unknown_language_is_named() {
    let out = transcribe([
        as_str(&clip("en_kal.wav")),
        "--model",
        "tiny.en",
        "--language",
        "xx",
    ]);
    let line = single_error_line(&out);
    assert!(line.contains("'xx'"), "{line}");
    assert!(line.contains("language"), "{line}");
}

/// `bench` needs nothing from the source tree (its sample is built in): run it from an empty
/// folder, as an installed app would, and check it times both workloads cold and warm.
#[test]
fn bench_runs_from_anywhere_on_the_built_in_short_and_long_workloads() {
    let elsewhere = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_whisper-dictation"))
        .current_dir(elsewhere.path())
        .args(["bench", "--model", "tiny.en", "--repeat", "1", "--json"])
        .output()
        .unwrap();
    assert_success(&out);
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let rows = report["rows"].as_array().unwrap();
    let reference = rows
        .iter()
        .find(|r| r["device"] == "cpu" && r["precision"] == "f32" && r["beam"] == 1)
        .expect("the CPU f32 greedy reference row");
    let timings = reference["timings"].as_array().unwrap();
    let names: Vec<&str> = timings
        .iter()
        .map(|t| t["workload"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["short", "long"]);
    for t in timings {
        assert!(t["cold_seconds"].as_f64().unwrap() > 0.0, "{t}");
        assert!(t["warm_seconds"].as_f64().unwrap() > 0.0, "{t}");
        let text = t["text"].as_str().unwrap().to_lowercase();
        assert!(text.contains("charts"), "{text}");
    }
    assert!(timings[1]["audio_seconds"].as_f64().unwrap() > 30.0);
    assert_eq!(reference["same_text_as_reference"], true);
    assert!(report["recommended"].is_object());
}

/// `--as-app --replacements FILE` words the text as the app would with that setting; a file
/// that is not a JSON object of strings is refused, naming it, before anything is transcribed.
#[test]
fn as_app_applies_the_replacements_file_and_names_a_bad_one() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("replacements.json");
    std::fs::write(&good, r#"{"the dentist": "Dr. Nowak"}"#).unwrap();
    let kal = clip("en_kal.wav");
    let out = transcribe([
        as_str(&kal),
        "--language",
        "en",
        "--model",
        "tiny.en",
        "--as-app",
        "--replacements",
        as_str(&good),
    ]);
    assert_success(&out);
    let text = stdout(&out);
    assert!(
        text.contains("call Dr. Nowak") && !text.contains("dentist"),
        "{text:?}"
    );

    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, r#"{"the dentist": 7}"#).unwrap();
    let out = transcribe([
        as_str(&kal),
        "--model",
        "tiny.en",
        "--as-app",
        "--replacements",
        as_str(&bad),
    ]);
    assert!(!out.status.success());
    let line = single_error_line(&out);
    assert!(
        line.contains("bad.json") && line.contains("not a JSON object"),
        "{line}"
    );
}
