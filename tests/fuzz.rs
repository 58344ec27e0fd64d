//! Hostile files never take the app down: every parser of data from disk or the network is fed
//! mutated valid files (see `fuzzer/mod.rs`) for a few seconds each and must answer with a
//! value or an error naming the file — no panic, no hang, no allocation the file cannot
//! justify. Longer runs: see "Fuzzing" in README.md.

mod fuzzer;

use std::fs;
use std::path::{Path, PathBuf};

use fuzzer::{names, seeds, Format, Target, Verdict};
use whisper_dictation::audio::resample::resample;
use whisper_dictation::audio::wav::{read_wav, read_wav_bytes};
use whisper_dictation::device::history::{HistoryStore, Outcome, Warning};
use whisper_dictation::device::{DeviceKind, Operation};
use whisper_dictation::models::hub::parse_listing;
use whisper_dictation::models::manifest::{ManifestFile, MANIFEST_FILE};
use whisper_dictation::models::Manifest;
use whisper_dictation::recordings::RecordingStore;
use whisper_dictation::settings::Settings;
use whisper_dictation::whisper::loader::load_weights;
use whisper_dictation::whisper::tokenizer::Tokenizer;
use whisper_dictation::whisper::LoadOptions;

#[global_allocator]
static ALLOCATOR: fuzzer::Guard = fuzzer::Guard;

/// A folder that lives for the whole test binary (the checks are `'static` closures).
fn folder() -> PathBuf {
    tempfile::tempdir().expect("a temp dir").keep()
}

/// The run's report must show real work: the seeds were accepted and mutants were tried.
fn assert_ran(report: &fuzzer::Report, seeds: usize) {
    if std::env::var_os("WHISPER_DICTATION_FUZZ_CASE").is_some() {
        return;
    }
    assert!(
        report.cases > seeds as u64,
        "only {} cases ran: the budget is too small to fuzz anything",
        report.cases
    );
    assert!(report.accepted >= seeds as u64, "{report:?}");
}

// ---------------------------------------------------------------------------------------------
// Audio.

#[test]
fn wav() {
    let mut seeds = seeds::wavs();
    seeds.push(seeds::clip_head("en_kal_stereo44k.wav"));
    seeds.push(seeds::clip_head("pl_espeak.wav"));
    let n = seeds.len();
    let origin = Path::new("/fuzz/recording.wav");
    let file = folder().join("recording.wav");
    let report = fuzzer::run(Target::new("wav", Format::Binary, seeds), move |bytes| {
        // Alternate between the in-memory and the file reader (the app reads files).
        let (result, named) = if bytes.len() % 2 == 0 {
            (read_wav_bytes(bytes, origin), origin)
        } else {
            fs::write(&file, bytes).map_err(|e| e.to_string())?;
            (read_wav(&file), file.as_path())
        };
        match result {
            Ok(audio) => {
                if audio.samples.is_empty() || audio.sample_rate == 0 {
                    return Err(format!(
                        "accepted {} samples at {} Hz",
                        audio.samples.len(),
                        audio.sample_rate
                    ));
                }
                if let Some(x) = audio.samples.iter().find(|x| !(-1.0..=1.0).contains(*x)) {
                    return Err(format!("sample {x} outside [-1, 1]"));
                }
                // What the app does next: Whisper's 16 kHz.
                let out = resample(&audio.samples, audio.sample_rate, 16_000);
                if out.iter().any(|x| !x.is_finite()) {
                    return Err("resampling made a non-finite sample".into());
                }
                Ok(Verdict::Accepted)
            }
            Err(e) => names(&e.to_string(), &named.display().to_string()),
        }
    });
    assert_ran(&report, n);
}

/// Unfinished recordings a dead run left: the journal (a WAV whose header may lag its data)
/// is sealed and read back at the next start, and its attempt count read beside it.
#[test]
fn unfinished_recording_journal() {
    use whisper_dictation::audio::wav_journal::JournalWriter;
    let seed_dir = folder();
    let seeds: Vec<Vec<u8>> = [16_000u32, 48_000]
        .iter()
        .map(|&rate| {
            let path = seed_dir.join(format!("seed-{rate}.wav"));
            let mut journal = JournalWriter::create(&path, rate).unwrap();
            let samples: Vec<f32> = (0..2_000).map(|i| (i as f32 * 0.05).sin() * 0.4).collect();
            journal.append(&samples).unwrap();
            drop(journal);
            // As a crash leaves it: more samples than the header says.
            let mut bytes = fs::read(&path).unwrap();
            bytes.extend(std::iter::repeat_n(0x11, 301));
            bytes
        })
        .collect();
    let n = seeds.len();
    let dir = folder().join("recordings");
    let report = fuzzer::run(
        Target::new("unfinished_recording_journal", Format::Binary, seeds),
        move |bytes| {
            let _ = fs::remove_dir_all(&dir);
            fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
            let journal = dir.join("rec-001700000000000-000001.journal.wav");
            fs::write(&journal, bytes).map_err(|e| e.to_string())?;
            // The attempt count is the file's tail, as text.
            let tail = &bytes[bytes.len().saturating_sub(3)..];
            fs::write(dir.join("rec-001700000000000-000001.attempts"), tail)
                .map_err(|e| e.to_string())?;
            let store = RecordingStore::new(dir.clone(), 3);
            let found = store.unfinished();
            let Some(unfinished) = found.first() else {
                return Ok(Verdict::Refused);
            };
            if !unfinished.duration.as_secs_f64().is_finite() {
                return Err(format!("{unfinished:?}"));
            }
            match RecordingStore::load(&unfinished.path) {
                Ok(samples) if samples.iter().all(|x| x.is_finite()) => {
                    // Finishing it keeps it for Retry.
                    let kept = store.finish(&unfinished.path, true);
                    if store.latest() != Some(kept) {
                        return Err("a finished recording is not the latest".into());
                    }
                    Ok(Verdict::Accepted)
                }
                Ok(_) => Err("a non-finite sample".into()),
                Err(e) => names(&e.to_string(), &journal.display().to_string()),
            }
        },
    );
    assert_ran(&report, n);
}

// ---------------------------------------------------------------------------------------------
// Model folders.

/// Loads the model folder `dir` and checks an error names a file in it.
fn load_model(dir: &Path) -> Result<Verdict, String> {
    match load_weights(dir, &LoadOptions::default()) {
        Ok(_) => Ok(Verdict::Accepted),
        Err(e) => names(&e.to_string(), &dir.display().to_string()),
    }
}

/// A folder holding `files`, where each case replaces `fuzzed` and loads the model.
fn model_target(
    name: &'static str,
    format: Format,
    files: Vec<(String, Vec<u8>)>,
    fuzzed: &str,
    extra_seeds: Vec<Vec<u8>>,
) {
    let dir = folder();
    let mut seeds = Vec::new();
    for (file, bytes) in &files {
        if file == fuzzed {
            seeds.push(bytes.clone());
        } else {
            fs::write(dir.join(file), bytes).unwrap();
        }
    }
    seeds.extend(extra_seeds);
    let n = seeds.len();
    let path = dir.join(fuzzed);
    let report = fuzzer::run(Target::new(name, format, seeds), move |bytes| {
        fs::write(&path, bytes).map_err(|e| e.to_string())?;
        load_model(path.parent().unwrap())
    });
    assert_ran(&report, n);
}

fn ct2_files() -> Vec<(String, Vec<u8>)> {
    vec![
        ("model.bin".into(), seeds::ct2_model_bin()),
        ("config.json".into(), seeds::ct2_config_json()),
    ]
}

#[test]
fn ct2_model_bin() {
    model_target(
        "ct2_model_bin",
        Format::Binary,
        ct2_files(),
        "model.bin",
        vec![],
    );
}

#[test]
fn ct2_config_json() {
    let real = ["tiny.en", "base"]
        .iter()
        .filter_map(|m| seeds::installed(m, "config.json"))
        .collect();
    model_target(
        "ct2_config_json",
        Format::Json,
        ct2_files(),
        "config.json",
        real,
    );
}

fn hf_files() -> Vec<(String, Vec<u8>)> {
    let shard = seeds::hf_shards(1).remove(0).1;
    vec![
        ("model.safetensors".into(), shard),
        ("config.json".into(), seeds::hf_config_json()),
        (
            "generation_config.json".into(),
            seeds::hf_generation_config_json(),
        ),
    ]
}

#[test]
fn hf_safetensors() {
    model_target(
        "hf_safetensors",
        Format::Binary,
        hf_files(),
        "model.safetensors",
        vec![],
    );
}

#[test]
fn hf_config_json() {
    let mut files = hf_files();
    // Without generation_config.json, config.json's generation fields are read too.
    files.retain(|(name, _)| name != "generation_config.json");
    model_target("hf_config_json", Format::Json, files, "config.json", vec![]);
}

#[test]
fn hf_generation_config_json() {
    model_target(
        "hf_generation_config_json",
        Format::Json,
        hf_files(),
        "generation_config.json",
        vec![],
    );
}

#[test]
fn hf_sharded_index_json() {
    let shards = seeds::hf_shards(3);
    let mut files: Vec<(String, Vec<u8>)> = shards
        .iter()
        .enumerate()
        .map(|(i, (_, bytes))| (seeds::shard_name(i, shards.len()), bytes.clone()))
        .collect();
    files.push((
        "model.safetensors.index.json".into(),
        seeds::hf_index_json(&shards),
    ));
    files.push(("config.json".into(), seeds::hf_config_json()));
    model_target(
        "hf_sharded_index_json",
        Format::Json,
        files,
        "model.safetensors.index.json",
        vec![],
    );
}

// ---------------------------------------------------------------------------------------------
// Tokenizer.

#[test]
fn tokenizer_json() {
    let mut seeds = vec![seeds::small_tokenizer_json()];
    seeds.extend(
        ["tiny.en", "base"]
            .iter()
            .filter_map(|m| seeds::installed(m, "tokenizer.json")),
    );
    let n = seeds.len();
    let origin = Path::new("/fuzz/tokenizer.json");
    let report = fuzzer::run(
        Target::new("tokenizer_json", Format::Json, seeds),
        move |bytes| {
            let Ok(text) = std::str::from_utf8(bytes) else {
                // `from_file` refuses it when reading.
                return Ok(Verdict::Refused);
            };
            match Tokenizer::from_json_str(text, origin) {
                Ok(tokenizer) => {
                    // What the app does with one: encode a prompt, decode model output (which
                    // can be any id below the vocabulary size, and beyond it when misbehaving).
                    let ids = tokenizer.encode(" Hello wörld, 123! Zażółć gęślą jaźń.");
                    let _ = tokenizer.decode(&ids);
                    let size = tokenizer.vocab_size() as u32;
                    let _ = tokenizer.decode(&[0, 1, size.saturating_sub(1), size, u32::MAX]);
                    let s = tokenizer.specials();
                    let _ = (
                        s.language("en"),
                        s.language_code(s.sot),
                        tokenizer.is_multilingual(),
                    );
                    Ok(Verdict::Accepted)
                }
                Err(e) => names(&e.to_string(), &origin.display().to_string()),
            }
        },
    );
    assert_ran(&report, n);
}

// ---------------------------------------------------------------------------------------------
// The app's own files.

#[test]
fn settings_json() {
    let dir = folder();
    let mut seeds = Vec::new();
    whisper_dictation::settings::file::create_if_missing(&dir, &Settings::default()).unwrap();
    seeds.push(fs::read(dir.join("settings.json")).unwrap());
    let mut custom: serde_json::Value =
        serde_json::from_slice(&seeds[0]).expect("settings are JSON");
    // Every field set to something other than its default where the type allows.
    if let Some(fields) = custom.as_object_mut() {
        for value in fields.values_mut() {
            match value {
                serde_json::Value::Bool(b) => *b = !*b,
                serde_json::Value::String(s) if s.is_empty() => *s = "base".into(),
                _ => {}
            }
        }
    }
    seeds.push(serde_json::to_vec_pretty(&custom).unwrap());
    let n = seeds.len();
    let path = dir.join("settings.json");
    let report = fuzzer::run(
        Target::new("settings_json", Format::Json, seeds),
        move |bytes| {
            fs::write(&path, bytes).map_err(|e| e.to_string())?;
            match Settings::load(path.parent().unwrap()) {
                (_, None) => Ok(Verdict::Accepted),
                (_, Some(warning)) => names(&warning.to_string(), &path.display().to_string()),
            }
        },
    );
    assert_ran(&report, n);
}

/// settings.json's one writer ([`whisper_dictation::settings::file`]): whatever the file holds,
/// a menu choice either leaves it byte for byte (a file it refuses, with an error naming it) or
/// changes only its own key, every other key's value as it was.
#[test]
fn settings_json_menu_choice() {
    use whisper_dictation::settings::file::{create_if_missing, set_key, SettingKey};
    let dir = folder();
    create_if_missing(&dir, &Settings::default()).unwrap();
    let path = dir.join("settings.json");
    let whole = fs::read(&path).unwrap();
    let hand = b"{\n    \"vocabulary\": [\"Agnieszka\", \"Wroc\\u0142aw\"],\n    \"note\": {\"a\": [1, \"}\"]},\n    \"language\":\"en\"\n}".to_vec();
    let seeds = vec![whole, hand];
    let n = seeds.len();
    let chosen = Settings {
        language: "fuzzed".into(),
        ..Settings::default()
    };
    let report = fuzzer::run(
        Target::new("settings_json_menu_choice", Format::Json, seeds),
        move |bytes| {
            fs::write(&path, bytes).map_err(|e| e.to_string())?;
            let before: Option<serde_json::Value> = serde_json::from_slice(bytes).ok();
            match set_key(&dir, &chosen, SettingKey::Language) {
                Err(e) if e.is_kept() => {
                    if fs::read(&path).map_err(|e| e.to_string())? != bytes {
                        return Err(format!("a refused file was changed ({e})"));
                    }
                    names(&e.to_string(), &path.display().to_string())
                }
                Err(e) => Err(e.to_string()),
                Ok(_) => {
                    let after: serde_json::Value =
                        serde_json::from_slice(&fs::read(&path).map_err(|e| e.to_string())?)
                            .map_err(|e| format!("written, and no longer JSON: {e}"))?;
                    let mut expected = before.ok_or("a file that is no JSON was written")?;
                    expected["language"] = "fuzzed".into();
                    if after == expected {
                        Ok(Verdict::Accepted)
                    } else {
                        Err(format!("more than the language changed: {after}"))
                    }
                }
            }
        },
    );
    assert_ran(&report, n);
}

/// A history folder as the app leaves it, and its two files' bytes.
fn history_seed() -> (Vec<u8>, Vec<u8>) {
    let dir = folder();
    let (mut store, warnings) = HistoryStore::open(&dir);
    assert!(warnings.is_empty(), "{warnings:?}");
    let h = store.history_mut();
    h.record(
        DeviceKind::Cuda,
        Operation::Load,
        Outcome::success(1_700_000_000),
    );
    for at in 0..3 {
        h.record(
            DeviceKind::Cuda,
            Operation::Encode,
            Outcome::failure(1_700_000_100 + at, "out_of_memory", "CUDA out of memory"),
        );
    }
    h.record(
        DeviceKind::Cpu,
        Operation::Decode,
        Outcome::success(1_700_000_200),
    );
    h.record(
        DeviceKind::Mps,
        Operation::Probe,
        Outcome::failure(5, "crashed", ""),
    );
    store.save().unwrap();
    store.begin(DeviceKind::Cuda, Operation::Decode).unwrap();
    let history = fs::read(store.history_path()).unwrap();
    let marker = fs::read(store.marker_path()).unwrap();
    (history, marker)
}

/// Opens a history folder holding `history` and `marker` if any (a fresh folder per case: opening
/// moves a bad file aside and rewrites a good one). Every warning must name its file.
fn open_history(history: &[u8], marker: Option<&[u8]>) -> Result<Verdict, String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    fs::write(dir.path().join("device-history.json"), history).map_err(|e| e.to_string())?;
    if let Some(marker) = marker {
        fs::write(dir.path().join("device-inflight.json"), marker).map_err(|e| e.to_string())?;
    }
    let (store, warnings) = HistoryStore::open(dir.path());
    let _ = store.history().backoff(DeviceKind::Cuda);
    let _ = store.history().may_retry(DeviceKind::Cuda, u64::MAX);
    let _ = store
        .history()
        .success_rate(DeviceKind::Cuda, Operation::Encode);
    let dir_name = dir.path().display().to_string();
    for warning in &warnings {
        names(&warning.to_string(), &dir_name)?;
    }
    // A readable marker is reported as the crash it stands for: the file was understood.
    let understood = |w: &Warning| matches!(w, Warning::Crashed { .. });
    Ok(if warnings.iter().all(understood) {
        Verdict::Accepted
    } else {
        Verdict::Refused
    })
}

#[test]
fn device_history_json() {
    let (history, _) = history_seed();
    let report = fuzzer::run(
        Target::new("device_history_json", Format::Json, vec![history]),
        move |bytes| open_history(bytes, None),
    );
    assert_ran(&report, 1);
}

#[test]
fn device_inflight_marker_json() {
    let (history, marker) = history_seed();
    let report = fuzzer::run(
        Target::new("device_inflight_marker_json", Format::Json, vec![marker]),
        move |bytes| open_history(&history, Some(bytes)),
    );
    assert_ran(&report, 1);
}

#[test]
fn download_manifest_json() {
    let dir = folder();
    Manifest {
        name: "base".into(),
        repo: "Systran/faster-whisper-base".into(),
        revision: "main".into(),
        commit: "0123456789abcdef0123456789abcdef01234567".into(),
        endpoint: "https://huggingface.co".into(),
        installed_at: 1_700_000_000,
        files: [
            "config.json",
            "model.bin",
            "tokenizer.json",
            "vocabulary.txt",
        ]
        .iter()
        .enumerate()
        .map(|(i, name)| ManifestFile {
            name: name.to_string(),
            size: 1000 * i as u64 + 7,
            sha256: format!("{:064x}", i + 1),
        })
        .collect(),
    }
    .write(&dir)
    .unwrap();
    let path = dir.join(MANIFEST_FILE);
    let seeds = vec![fs::read(&path).unwrap()];
    let report = fuzzer::run(
        Target::new("download_manifest_json", Format::Json, seeds),
        move |bytes| {
            fs::write(&path, bytes).map_err(|e| e.to_string())?;
            match Manifest::read(path.parent().unwrap()) {
                Ok(Some(manifest)) => {
                    let _ = manifest.total_bytes();
                    Ok(Verdict::Accepted)
                }
                Ok(None) => Err("a manifest that exists read as absent".into()),
                Err(e) => names(&e.to_string(), &path.display().to_string()),
            }
        },
    );
    assert_ran(&report, 1);
}

#[test]
fn hub_listing_json() {
    let url = "https://hub.test/api/models/Systran/faster-whisper-base/revision/main?blobs=true";
    let listing = serde_json::json!({
        "_id": "abc",
        "id": "Systran/faster-whisper-base",
        "sha": "0123456789abcdef0123456789abcdef01234567",
        "siblings": [
            {"rfilename": ".gitattributes", "size": 1519,
             "blobId": "a6344aac8c09253b3b630fb776ae94478aa0275b"},
            {"rfilename": "config.json", "size": 2249,
             "blobId": "3fe1d6d0da44ec1b5d2bdb2a84d1c8e1e4b4f1c2"},
            {"rfilename": "model.bin", "size": 145217532,
             "blobId": "0cb7b1a0c2bb9a3e6d6ee3ad1b8f83b2fd5d3b58",
             "lfs": {"sha256": "8e15c1b0a1c4c8e7a2d6b6a5e1b5d0c3f3c9c2e8b6a3f1d2c0e9b8a7f6e5d4c3",
                     "size": 145217532, "pointerSize": 135}},
            {"rfilename": "tokenizer.json", "size": 2203239,
             "blobId": "4c3b1b5e9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b"},
        ],
        "private": false,
    });
    let seeds = vec![serde_json::to_vec_pretty(&listing).unwrap()];
    let report = fuzzer::run(
        Target::new("hub_listing_json", Format::Json, seeds),
        move |bytes| {
            let Ok(text) = std::str::from_utf8(bytes) else {
                // ureq's `into_string` refuses it before parsing.
                return Ok(Verdict::Refused);
            };
            match parse_listing(text, url, "Systran/faster-whisper-base") {
                Ok(listing) if listing.commit.is_empty() => Err("an empty commit accepted".into()),
                Ok(_) => Ok(Verdict::Accepted),
                Err(e) => names(&e.to_string(), url),
            }
        },
    );
    assert_ran(&report, 1);
}

// ---------------------------------------------------------------------------------------------
// The fuzzer itself.

/// A panicking parser fails the run, with the case, the reason and where its input was saved.
#[test]
#[should_panic(expected = "panicked: a parser bug")]
fn the_fuzzer_reports_a_panic_with_its_input() {
    fuzzer::run(
        Target::new("self_test_panic", Format::Binary, vec![b"seed".to_vec()]),
        |bytes| {
            if bytes != b"seed" {
                panic!("a parser bug");
            }
            Ok(Verdict::Accepted)
        },
    );
}

/// Cases are the same for the same seed, target and number: a run can be replayed.
#[test]
fn cases_are_reproducible() {
    let seeds = vec![seeds::ct2_config_json(), b"\x00\x01\x02\x03".to_vec()];
    for format in [Format::Binary, Format::Json] {
        let make = |case: u64| fuzzer::make_case(&mut fuzzer::Rng::new(case), format, &seeds);
        let first: Vec<_> = (0..50).map(make).collect();
        let again: Vec<_> = (0..50).map(make).collect();
        assert_eq!(first, again);
        assert!(first.iter().any(|case| !seeds.contains(case)));
    }
}
