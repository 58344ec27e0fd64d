//! The device manager end to end, through the real binary on a simulated GPU
//! (`WHISPER_DICTATION_SIMULATE_GPU`): failures with the real libtorch texts at load, encode and
//! in the probe, a process abort in the middle of an encode, silently wrong numbers, running
//! out of memory, the user's device overrides, a damaged history file, and a machine with no
//! GPU at all. Every test keeps its device state in its own temporary folder
//! (`WHISPER_DICTATION_STATE_DIR`) and asserts only on what a user or a script can observe:
//! the exit status, stdout (the transcript), stderr (the device messages, one per line, in
//! Polish or English), the JSON reports and the files in the state folder.
//!
//! Runs `tiny.en` on a 4-second clip with 2 threads: about 3 s per transcription.

mod common;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use tempfile::TempDir;

const BIN: &str = env!("CARGO_BIN_EXE_whisper-dictation");

/// What en_kal.wav says ("Please remind me to call the dentist tomorrow ...").
const SPOKEN: &str = "call the dentist";

/// Every variable the binary reads that could leak in from the developer's shell.
const APP_VARS: [&str; 6] = [
    "WHISPER_DICTATION_SIMULATE_GPU",
    "WHISPER_DICTATION_DEVICE",
    "WHISPER_DICTATION_GPU_BACKOFF_SECS",
    "WHISPER_DICTATION_UI_LANG",
    "WHISPER_DICTATION_LOG",
    "WHISPER_DICTATION_STATE_DIR",
];

const SIMULATE: &str = "WHISPER_DICTATION_SIMULATE_GPU";
const BACKOFF: &str = "WHISPER_DICTATION_GPU_BACKOFF_SECS";
const HISTORY_FILE: &str = "device-history.json";
const MARKER_FILE: &str = "device-inflight.json";

/// Retry a failed GPU at once (the first backoff delay is 0 s).
const NO_BACKOFF: (&str, &str) = (BACKOFF, "0");

// The user-facing texts, exactly as users read them.
const INCOMPATIBLE_M1_PL: &str = "Wykryto problem kompatybilności z GPU M1. Przełączam na CPU.";
const INCOMPATIBLE_M1_EN: &str =
    "A compatibility problem with the M1 GPU was detected. Switching to the CPU.";
const UNSUPPORTED_M1_EN: &str =
    "The M1 GPU does not support an operation the model needs. Switching to the CPU.";
const CRASHED_M1_EN: &str =
    "Last time the app closed unexpectedly while using the M1 GPU. Using the CPU this time.";
const RECOVERED_M1_EN: &str = "The M1 GPU works again. Switching back to the GPU.";
const WRONG_RESULTS_M1_EN: &str = "The M1 GPU returns wrong results. Switching to the CPU.";
const OOM_RETRYING_PL: &str = "Brak pamięci GPU. Zwalniam pamięć i próbuję ponownie.";
const OOM_PL: &str = "Brak pamięci GPU. Używam CPU (będzie wolniej).";
const CUDA_MISSING_EN: &str = "The selected device (CUDA) is not available. Using M1.";

// ---------------------------------------------------------------------------------------------
// Running the binary

/// One test's device state folder; every run of the binary in the test uses it.
struct State {
    dir: TempDir,
}

impl State {
    fn new() -> Self {
        State {
            dir: tempfile::tempdir().expect("a temporary folder"),
        }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn file(&self, name: &str) -> PathBuf {
        self.path().join(name)
    }

    fn file_names(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(self.path())
            .expect("the state folder is readable")
            .map(|e| e.expect("a folder entry").file_name())
            .map(|n| n.into_string().expect("a UTF-8 file name"))
            .collect();
        names.sort();
        names
    }

    /// The binary with a clean environment except `vars`, keeping its state here.
    fn command(&self, vars: &[(&str, &str)]) -> Command {
        let mut cmd = Command::new(BIN);
        for var in APP_VARS {
            cmd.env_remove(var);
        }
        cmd.env("WHISPER_DICTATION_STATE_DIR", self.path());
        for (name, value) in vars {
            cmd.env(name, value);
        }
        cmd
    }

    /// `transcribe en_kal.wav` with tiny.en, 2 threads, temperature 0 only, plus `args`.
    fn transcribe(&self, vars: &[(&str, &str)], args: &[&str]) -> Run {
        let clip = common::fixtures().join("clips/en_kal.wav");
        let out = self
            .command(vars)
            .arg("transcribe")
            .arg(clip)
            .args(["--model", "tiny.en", "--language", "en"])
            .args(["--threads", "2", "--no-fallback"])
            .args(args)
            .output()
            .expect("the binary runs");
        Run::new(out)
    }

    /// [`Self::transcribe`] with `--json --ui-lang LANG`, which must succeed with the right text.
    fn transcribe_json(&self, vars: &[(&str, &str)], lang: &str) -> (Run, Value) {
        let run = self.transcribe(vars, &["--json", "--ui-lang", lang]);
        run.assert_success();
        let json = run.json();
        let text = json["text"].as_str().expect("text").to_lowercase();
        assert!(text.contains(SPOKEN), "{text:?}\n{}", run.stderr);
        (run, json)
    }

    /// `devices --json --ui-lang en`.
    fn devices(&self, vars: &[(&str, &str)]) -> Value {
        let out = self
            .command(vars)
            .args(["devices", "--json", "--ui-lang", "en"])
            .output()
            .expect("the binary runs");
        let run = Run::new(out);
        run.assert_success();
        serde_json::from_str(&run.stdout)
            .unwrap_or_else(|e| panic!("devices --json: {e}\n{}", run.stdout))
    }

    fn history_bytes(&self) -> Vec<u8> {
        std::fs::read(self.file(HISTORY_FILE)).expect("the history file exists")
    }
}

struct Run {
    out: Output,
    stdout: String,
    stderr: String,
}

impl Run {
    fn new(out: Output) -> Self {
        let stdout = String::from_utf8(out.stdout.clone()).expect("stdout is UTF-8");
        let stderr = String::from_utf8(out.stderr.clone()).expect("stderr is UTF-8");
        Run {
            out,
            stdout,
            stderr,
        }
    }

    fn assert_success(&self) {
        assert!(
            self.out.status.success(),
            "exit {:?}\nstdout: {}\nstderr: {}",
            self.out.status,
            self.stdout,
            self.stderr
        );
    }

    /// The one JSON object a one-file `transcribe --json` prints.
    fn json(&self) -> Value {
        let lines: Vec<&str> = self.stdout.lines().collect();
        assert_eq!(lines.len(), 1, "one JSON line: {}", self.stdout);
        serde_json::from_str(lines[0]).unwrap_or_else(|e| panic!("{e}: {}", lines[0]))
    }

    /// How many stderr lines are exactly `text`.
    fn said(&self, text: &str) -> usize {
        self.stderr.lines().filter(|line| *line == text).count()
    }

    /// Asserts that `text` is on stderr exactly once, as a line of its own.
    fn assert_said_once(&self, text: &str) {
        assert_eq!(
            self.said(text),
            1,
            "expected the line {text:?} exactly once on stderr:\n{}",
            self.stderr
        );
    }

    /// A failed run: exit 1, nothing on stdout, one line on stderr; returns it.
    fn single_error_line(&self) -> &str {
        assert_eq!(self.out.status.code(), Some(1), "stderr: {}", self.stderr);
        assert_eq!(self.stdout, "", "stdout must stay empty on error");
        let lines: Vec<&str> = self.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "one stderr line: {:?}", self.stderr);
        lines[0]
    }
}

// ---------------------------------------------------------------------------------------------
// Reading `devices --json`

fn device<'a>(report: &'a Value, kind: &str) -> &'a Value {
    report["devices"]
        .as_array()
        .expect("devices is an array")
        .iter()
        .find(|d| d["kind"] == kind)
        .unwrap_or_else(|| panic!("no device {kind} in {report:#}"))
}

fn kinds(report: &Value) -> Vec<&str> {
    report["devices"]
        .as_array()
        .expect("devices is an array")
        .iter()
        .map(|d| d["kind"].as_str().expect("kind"))
        .collect()
}

/// `devices[kind].history[op]`.
fn operation<'a>(report: &'a Value, kind: &str, op: &str) -> &'a Value {
    device(report, kind)["history"]
        .as_array()
        .expect("history is an array")
        .iter()
        .find(|h| h["operation"] == op)
        .unwrap_or_else(|| panic!("no {kind} {op} history in {report:#}"))
}

fn recent<'a>(report: &'a Value, kind: &str, op: &str) -> &'a Vec<Value> {
    operation(report, kind, op)["recent"]
        .as_array()
        .expect("recent is an array")
}

/// The categories of the kept outcomes, `None` for successes.
fn outcomes(report: &Value, kind: &str, op: &str) -> Vec<Option<String>> {
    recent(report, kind, op)
        .iter()
        .map(|o| match o["ok"].as_bool().expect("ok") {
            true => None,
            false => Some(o["category"].as_str().expect("category").to_string()),
        })
        .collect()
}

/// Asserts that the model (load, encode, decode) is placed on `kind`.
fn assert_placed_on(report: &Value, kind: &str) {
    assert_eq!(report["placement"], kind, "{report:#}");
    let ops = report["operations"].as_array().expect("operations");
    assert_eq!(ops.len(), 3, "{report:#}");
    for pair in ops {
        assert_eq!(pair[1], kind, "{pair} in {report:#}");
    }
}

// ---------------------------------------------------------------------------------------------
// 1. A failure while loading

#[test]
fn a_gpu_that_cannot_load_the_model_hands_it_to_the_cpu_and_says_so_in_polish_and_english() {
    let spec = [(SIMULATE, "mps,name=M1,fail=load:sparse_backend")];

    let polish = State::new();
    let run = polish.transcribe(&spec, &["--ui-lang", "pl"]);
    run.assert_success();
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 1, "stdout is the transcript: {}", run.stdout);
    assert!(lines[0].to_lowercase().contains(SPOKEN), "{}", run.stdout);
    run.assert_said_once(INCOMPATIBLE_M1_PL);
    assert_eq!(run.said(INCOMPATIBLE_M1_EN), 0, "{}", run.stderr);

    let english = State::new();
    let (run, json) = english.transcribe_json(&spec, "en");
    assert_eq!(json["device"], "cpu", "{json}");
    run.assert_said_once(INCOMPATIBLE_M1_EN);
    assert_eq!(run.said(INCOMPATIBLE_M1_PL), 0, "{}", run.stderr);

    // The failure is remembered with its category, and the model stays on the CPU.
    let report = english.devices(&spec);
    assert_eq!(
        outcomes(&report, "mps", "load"),
        [Some("sparse_backend".to_string())]
    );
    assert_placed_on(&report, "cpu");
}

// ---------------------------------------------------------------------------------------------
// 2. Every encode failing

#[test]
fn a_gpu_whose_encoder_always_fails_still_gives_the_text_and_is_left_alone_afterwards() {
    let state = State::new();
    let spec = (SIMULATE, "mps,fail=encode:unsupported");
    for i in 1..=5 {
        let (run, json) = state.transcribe_json(&[spec, NO_BACKOFF], "en");
        assert_eq!(json["device"], "cpu", "run {i}: {json}");
        run.assert_said_once(UNSUPPORTED_M1_EN);
    }

    let report = state.devices(&[spec]);
    assert_eq!(operation(&report, "mps", "encode")["success_rate"], 0.0);
    assert_eq!(operation(&report, "mps", "encode")["healthy"], false);
    assert_eq!(
        outcomes(&report, "mps", "encode"),
        vec![Some("unsupported".to_string()); 5]
    );
    // Each run loaded the model on the GPU first, then moved all of it to the CPU.
    assert_eq!(outcomes(&report, "mps", "load"), vec![None; 5]);
    assert_eq!(outcomes(&report, "mps", "decode"), vec![]);
    assert_eq!(device(&report, "mps")["backoff_failures"], 5);

    // With the default backoff (60 s doubling per failure) the GPU is not due for a retry.
    assert_placed_on(&report, "cpu");
    assert!(
        device(&report, "mps")["retry_in_seconds"].as_u64() > Some(0),
        "{report:#}"
    );

    // A new process with the default backoff encodes on the CPU right away: no GPU attempt,
    // so nothing to explain and nothing new in the history.
    let before = state.history_bytes();
    let (run, json) = state.transcribe_json(&[spec], "en");
    assert_eq!(json["device"], "cpu", "{json}");
    assert_eq!(run.said(UNSUPPORTED_M1_EN), 0, "{}", run.stderr);
    assert_eq!(
        String::from_utf8(state.history_bytes()).unwrap(),
        String::from_utf8(before).unwrap(),
        "the history must not change without a GPU attempt"
    );
    assert_eq!(
        device(&state.devices(&[spec]), "mps")["backoff_failures"],
        5
    );
}

// ---------------------------------------------------------------------------------------------
// 3. A crash in the middle of an encode

#[test]
fn a_crash_mid_encode_is_found_at_the_next_start_which_uses_the_cpu() {
    let state = State::new();
    let crash = state.transcribe(&[(SIMULATE, "mps,abort=encode")], &["--ui-lang", "en"]);
    assert!(!crash.out.status.success(), "{:?}", crash.out.status);
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(crash.out.status.signal(), Some(6), "killed by SIGABRT");
    }
    assert!(
        !crash.stdout.to_lowercase().contains("dentist"),
        "{}",
        crash.stdout
    );
    let marker: Value =
        serde_json::from_slice(&std::fs::read(state.file(MARKER_FILE)).expect("a marker"))
            .expect("the marker is JSON");
    assert_eq!(marker["device"], "mps", "{marker}");
    assert_eq!(marker["op"], "encode", "{marker}");

    let spec = [(SIMULATE, "mps")];
    let (run, json) = state.transcribe_json(&spec, "en");
    run.assert_said_once(CRASHED_M1_EN);
    assert_eq!(json["device"], "cpu", "{json}");
    assert!(
        !state.file(MARKER_FILE).exists(),
        "the in-flight marker is gone: {:?}",
        state.file_names()
    );

    let report = state.devices(&spec);
    assert_eq!(
        outcomes(&report, "mps", "encode"),
        [Some("crashed".to_string())]
    );
    assert_placed_on(&report, "cpu");
    assert!(!state.file(MARKER_FILE).exists());
}

// ---------------------------------------------------------------------------------------------
// 4. Recovery

#[test]
fn a_gpu_that_works_again_after_the_backoff_gets_the_model_back() {
    let state = State::new();
    for _ in 0..2 {
        let (_, json) = state.transcribe_json(
            &[(SIMULATE, "mps,fail=encode:unsupported"), NO_BACKOFF],
            "en",
        );
        assert_eq!(json["device"], "cpu", "{json}");
    }
    assert_eq!(
        device(&state.devices(&[(SIMULATE, "mps")]), "mps")["backoff_failures"],
        2
    );

    let healthy = (SIMULATE, "mps");
    let (run, json) = state.transcribe_json(&[healthy, NO_BACKOFF], "en");
    assert_eq!(json["device"], "mps", "{json}");
    run.assert_said_once(RECOVERED_M1_EN);
    assert_eq!(json["notices"], serde_json::json!([RECOVERED_M1_EN]));

    // The backoff is cleared: the default one does not keep the GPU waiting any more.
    let report = state.devices(&[healthy]);
    assert_placed_on(&report, "mps");
    assert_eq!(device(&report, "mps")["backoff_failures"], 0);
    assert_eq!(device(&report, "mps")["retry_in_seconds"], Value::Null);
    assert_eq!(outcomes(&report, "mps", "encode").last(), Some(&None));

    // From now on the GPU is simply used: the recovery was announced once, not at every start.
    let (run, json) = state.transcribe_json(&[healthy], "en");
    assert_eq!(json["device"], "mps", "{json}");
    assert_eq!(
        run.said(RECOVERED_M1_EN),
        0,
        "'works again' repeated on a GPU that already works:\n{}",
        run.stderr
    );
    assert_eq!(json["notices"], serde_json::json!([]), "{json}");
    assert_eq!(
        device(&state.devices(&[healthy]), "mps")["backoff_failures"],
        0
    );
}

// ---------------------------------------------------------------------------------------------
// 5. Silently wrong numbers

#[test]
fn a_probe_that_catches_wrong_numbers_keeps_the_model_on_the_cpu() {
    let state = State::new();
    let spec = [(SIMULATE, "mps,corrupt=conv1d")];
    let (run, json) = state.transcribe_json(&spec, "en");
    assert_eq!(json["device"], "cpu", "{json}");
    assert!(run.said(WRONG_RESULTS_M1_EN) >= 1, "{}", run.stderr);

    let report = state.devices(&spec);
    let probe = &device(&report, "mps")["probe"];
    let failed = failed_checks(probe);
    assert_eq!(failed.len(), 1, "{probe:#}");
    assert_eq!(failed[0]["name"], "conv1d");
    assert_eq!(failed[0]["category"], "wrong_results");
    assert_placed_on(&report, "cpu");
    // The model never went near the GPU.
    for op in ["load", "encode", "decode"] {
        assert_eq!(outcomes(&report, "mps", op), vec![], "{op}");
    }

    // One transcription, one explanation.
    run.assert_said_once(WRONG_RESULTS_M1_EN);
}

/// A GPU whose kernel reads the wrong rows of the decoder's boolean attention mask (MPS shipped
/// such faults): the probe's `masked_attention` check, which runs the decoder's own call, is the
/// one check that fails, and the text comes from the CPU.
#[test]
fn a_gpu_that_computes_the_decoders_masked_attention_wrong_is_caught_by_the_probe() {
    let state = State::new();
    let spec = [(SIMULATE, "mps,wrong=attention")];
    let (run, json) = state.transcribe_json(&spec, "en");
    assert_eq!(json["device"], "cpu", "{json}");
    run.assert_said_once(WRONG_RESULTS_M1_EN);

    let report = state.devices(&spec);
    let probe = &device(&report, "mps")["probe"];
    let failed = failed_checks(probe);
    assert_eq!(failed.len(), 1, "{probe:#}");
    assert_eq!(failed[0]["name"], "masked_attention");
    assert_eq!(failed[0]["category"], "wrong_results");
    assert_placed_on(&report, "cpu");
    for op in ["load", "encode", "decode"] {
        assert_eq!(outcomes(&report, "mps", op), vec![], "{op}");
    }
}

/// The same GPU when its probe passed (a report cached as passed, as a GPU whose fault the
/// probe's shapes miss leaves): the model loads on it, the warm-up hears the built-in sample
/// wrong, and that is a device failure like any other — recorded, explained, the model on the
/// CPU — remembered by the next process even with no backoff at all.
#[test]
fn a_gpu_whose_warm_up_words_are_wrong_moves_the_model_to_the_cpu_for_good() {
    use tch::Kind;
    use whisper_dictation::device::manager::{DeviceManager, ManagerConfig};
    use whisper_dictation::device::probe::{run_probe, ProbeCache, ProbeKey, ProbeTarget};
    use whisper_dictation::device::simulated::SimulatedGpu;
    use whisper_dictation::device::DeviceKind;
    use whisper_dictation::transcriber::Transcriber;
    use whisper_dictation::whisper::TranscribeParams;

    let state = State::new();
    let wrong = SimulatedGpu::parse("mps,wrong=attention").unwrap();
    let passed = run_probe(&ProbeTarget::simulated(
        SimulatedGpu::parse("mps").unwrap(),
        Kind::Float,
    ));
    assert!(passed.passed(), "{passed:#?}");
    let mut cache = ProbeCache::load(state.path());
    let key = ProbeKey::for_target(&ProbeTarget::simulated(wrong.clone(), Kind::Float));
    cache.insert(key, passed);
    cache.save().unwrap();

    tch::set_num_threads(2);
    let mut config = ManagerConfig::new(state.path().to_path_buf());
    config.simulated = Some(wrong);
    let manager = DeviceManager::open(config);
    let mut transcriber = Transcriber::load(&common::model_dir("tiny.en"), manager).unwrap();
    assert_eq!(transcriber.device(), DeviceKind::Mps, "the probe passed");
    let words = transcriber.warm_up_on_sample().unwrap().expect("judged");
    println!("warm-up on the wrong GPU: {words:?}");
    assert!(words.is_wrong(), "{words:?}");
    assert_eq!(transcriber.device(), DeviceKind::Cpu);
    assert_eq!(
        transcriber.take_notices(),
        vec![WRONG_RESULTS_M1_EN.to_string()]
    );
    // The CPU hears what was said.
    let clip = common::fixtures().join("clips/en_kal.wav");
    let audio = whisper_dictation::audio::wav::read_wav_16k(&clip).unwrap();
    let params = TranscribeParams {
        language: Some("en".into()),
        ..TranscribeParams::default()
    };
    let text = transcriber.transcribe(&audio, &params).unwrap().text;
    assert!(text.to_lowercase().contains(SPOKEN), "{text:?}");
    assert_eq!(
        transcriber.device(),
        DeviceKind::Cpu,
        "no return to the GPU"
    );
    drop(transcriber);

    // What the next process sees, with no backoff at all: the CPU, said once, the GPU untouched.
    let spec = [(SIMULATE, "mps,wrong=attention"), NO_BACKOFF];
    let report = state.devices(&spec);
    assert_placed_on(&report, "cpu");
    assert_eq!(
        outcomes(&report, "mps", "decode"),
        vec![None, Some("wrong_results".to_string())],
        "the warm-up's decode ran, then its words were judged wrong"
    );
    let checks = device(&report, "mps")["probe"]["checks"]
        .as_array()
        .unwrap();
    let last = checks.last().unwrap();
    assert_eq!(
        (&last["name"], &last["passed"], &last["category"]),
        (
            &"warm_up_words".into(),
            &false.into(),
            &"wrong_results".into()
        ),
        "{checks:#?}"
    );
    let (run, json) = state.transcribe_json(&spec, "en");
    assert_eq!(json["device"], "cpu", "{json}");
    run.assert_said_once(WRONG_RESULTS_M1_EN);
    assert_eq!(outcomes(&state.devices(&spec), "mps", "load"), vec![None]);
}

// ---------------------------------------------------------------------------------------------
// 6. Out of memory

#[test]
fn out_of_memory_retries_the_gpu_with_less_memory_then_uses_the_cpu() {
    let state = State::new();
    let spec = [(SIMULATE, "cuda,fail=encode:out_of_memory")];
    let (run, json) = state.transcribe_json(&spec, "pl");
    // One notice for one failure: the retry failed too, so only where the model went is said.
    run.assert_said_once(OOM_PL);
    assert_eq!(
        run.said(OOM_RETRYING_PL),
        0,
        "the retry's notice is superseded by its outcome:\n{}",
        run.stderr
    );
    assert_eq!(json["device"], "cpu", "{json}");
    assert_eq!(json["notices"], serde_json::json!([OOM_PL]));

    let report = state.devices(&spec);
    assert_eq!(kinds(&report), ["cuda", "cpu"]);
    assert_eq!(
        outcomes(&report, "cuda", "encode"),
        vec![Some("out_of_memory".to_string()); 2],
        "the first attempt and the retry with less memory"
    );
}

// ---------------------------------------------------------------------------------------------
// 7. What the user asks for

#[test]
fn a_requested_device_this_machine_lacks_is_named_and_another_one_is_used() {
    let state = State::new();
    let run = state.transcribe(
        &[(SIMULATE, "mps")],
        &["--json", "--ui-lang", "en", "--device", "cuda"],
    );
    run.assert_success();
    assert_eq!(run.json()["device"], "mps");
    run.assert_said_once(CUDA_MISSING_EN);
}

#[test]
fn the_environment_can_keep_the_model_on_the_cpu_without_touching_the_gpu() {
    let state = State::new();
    let vars = [(SIMULATE, "mps"), ("WHISPER_DICTATION_DEVICE", "cpu")];
    let (run, json) = state.transcribe_json(&vars, "en");
    assert_eq!(json["device"], "cpu", "{json}");
    assert_eq!(json["notices"], serde_json::json!([]), "{json}");
    assert!(
        !run.stderr.contains("GPU"),
        "no device message: {}",
        run.stderr
    );
    assert!(
        !state.file(HISTORY_FILE).exists(),
        "no GPU attempt recorded: {:?}",
        state.file_names()
    );

    let report = state.devices(&vars);
    assert_placed_on(&report, "cpu");
    assert_eq!(report["reason"], "asked for");
    for op in ["load", "encode", "decode", "probe"] {
        assert_eq!(outcomes(&report, "mps", op), vec![], "{op}");
    }
}

#[test]
fn the_device_setting_is_followed_and_the_environment_and_flag_override_it() {
    let state = State::new();
    std::fs::write(
        state.file("settings.json"),
        r#"{"device": "cpu", "ui_lang": "pl"}"#,
    )
    .unwrap();
    let sim = [(SIMULATE, "mps")];
    let report = state.devices(&sim);
    assert_placed_on(&report, "cpu");
    assert_eq!(report["reason"], "asked for");
    let report = state.devices(&[(SIMULATE, "mps"), ("WHISPER_DICTATION_DEVICE", "mps")]);
    assert_placed_on(&report, "mps");
    let (_, json) = state.transcribe_json(&sim, "en");
    assert_eq!(json["device"], "cpu", "{json}");

    // A setting naming no known device is refused with the file's meaning in the message.
    std::fs::write(state.file("settings.json"), r#"{"device": "tpu"}"#).unwrap();
    let run = state.transcribe(&sim, &[]);
    let line = run.single_error_line();
    assert!(
        line.contains("device setting") && line.contains("'tpu'"),
        "{line}"
    );
}

#[test]
fn an_unknown_device_is_one_error_line_naming_it() {
    let state = State::new();
    let run = state.transcribe(&[(SIMULATE, "mps")], &["--device", "tpu"]);
    let line = run.single_error_line();
    assert!(
        line.contains("--device") && line.contains("'tpu'"),
        "{line}"
    );

    let run = state.transcribe(&[("WHISPER_DICTATION_DEVICE", "tpu")], &[]);
    let line = run.single_error_line();
    assert!(
        line.contains("WHISPER_DICTATION_DEVICE") && line.contains("'tpu'"),
        "{line}"
    );
    assert_eq!(state.file_names(), Vec::<String>::new(), "nothing written");
}

#[test]
fn a_bad_simulated_gpu_spec_is_one_error_line_naming_the_problem() {
    let state = State::new();
    for (spec, named) in [
        ("tpu", "mps or cuda"),
        ("mps,fail=load:melted", "melted"),
        ("mps,fail=load", "OP:CATEGORY"),
        ("mps,abort=explode", "explode"),
        ("cuda,colour=red", "colour"),
    ] {
        let run = state.transcribe(&[(SIMULATE, spec)], &[]);
        let line = run.single_error_line();
        assert!(
            line.contains(SIMULATE) && line.contains(named),
            "{spec}: {line}"
        );
        let run = Run::new(
            state
                .command(&[(SIMULATE, spec)])
                .arg("devices")
                .output()
                .expect("the binary runs"),
        );
        assert_eq!(
            run.single_error_line(),
            line,
            "{spec}: devices says the same"
        );
    }
    assert_eq!(state.file_names(), Vec::<String>::new(), "nothing written");
}

// ---------------------------------------------------------------------------------------------
// 8. A damaged history file

#[test]
fn a_corrupt_history_file_is_set_aside_and_a_fresh_one_written() {
    let state = State::new();
    let damaged = r#"{"schema_version": 1, "outcomes": {"mps/encode": [{"ok": tru"#;
    std::fs::write(state.file(HISTORY_FILE), damaged).unwrap();

    let spec = [(SIMULATE, "mps")];
    let (_, json) = state.transcribe_json(&spec, "en");
    assert_eq!(
        json["device"], "mps",
        "a fresh history trusts the GPU: {json}"
    );

    let names = state.file_names();
    let aside: Vec<&String> = names
        .iter()
        .filter(|n| n.starts_with("device-history.json.corrupt-"))
        .collect();
    assert_eq!(aside.len(), 1, "{names:?}");
    assert_eq!(
        std::fs::read_to_string(state.file(aside[0])).unwrap(),
        damaged,
        "the damaged file is kept as it was"
    );
    let fresh: Value = serde_json::from_slice(&state.history_bytes()).expect("valid JSON");
    assert_eq!(fresh["schema_version"], 1, "{fresh:#}");
    for op in ["load", "encode", "decode"] {
        let kept = fresh["outcomes"][format!("mps/{op}")].as_array();
        let kept = kept.unwrap_or_else(|| panic!("mps/{op} in {fresh:#}"));
        assert_eq!(kept.len(), 1, "{fresh:#}");
        assert_eq!(kept[0]["ok"], true, "{fresh:#}");
    }

    // The next start reads the fresh file without complaint.
    let (run, _) = state.transcribe_json(&spec, "en");
    assert!(!run.stderr.contains("corrupt"), "{}", run.stderr);
    assert_eq!(state.file_names(), names, "nothing else set aside");
}

// ---------------------------------------------------------------------------------------------
// 9. No GPU at all

#[test]
fn without_a_gpu_only_the_cpu_is_listed_and_used() {
    let state = State::new();
    let report = state.devices(&[]);
    assert_eq!(kinds(&report), ["cpu"], "{report:#}");
    let cpu = device(&report, "cpu");
    assert_eq!(cpu["simulated"], false);
    assert_eq!(cpu["probe"], Value::Null);
    assert_placed_on(&report, "cpu");
    assert_eq!(report["reason"], "no usable GPU");
    assert_eq!(report["notices"], serde_json::json!([]));

    let table = Run::new(state.command(&[]).arg("devices").output().unwrap());
    table.assert_success();
    let first: Vec<&str> = table.stdout.lines().take(4).collect();
    let cpu_class = report["cpu_class"].as_str().unwrap();
    assert!(cpu_class.contains("bf16"), "{cpu_class}");
    assert_eq!(
        first,
        [
            format!("libtorch {}", report["libtorch"].as_str().unwrap()).as_str(),
            format!(
                "CPU: {cpu_class}; the app computes there in {}",
                report["cpu_layout"].as_str().unwrap()
            )
            .as_str(),
            "cpu — CPU",
            "model placement: cpu (no usable GPU)"
        ]
    );
    assert!(report["libtorch"].as_str().unwrap().starts_with("2.13.0"));
    assert_eq!(table.stderr, "");
}

/// The checks of a device's probe report that did not pass.
fn failed_checks(probe: &Value) -> Vec<&Value> {
    probe["checks"]
        .as_array()
        .expect("probe checks")
        .iter()
        .filter(|c| c["passed"] == false)
        .collect()
}
