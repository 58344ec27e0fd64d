//! Downloading a model from a hub: a real HTTP server on 127.0.0.1 (`fake_hub`) with the hub's
//! URL layout and headers serves the real tiny.en files (installed by `scripts/setup.sh
//! --test`). A full download installs a model that transcribes; an interrupted one resumes
//! without fetching a byte twice; a corrupted, cancelled, missing, stalled, out-of-space or
//! concurrent one never leaves a broken model in place and says clearly what happened.

mod common;
mod fake_hub;

use fake_hub::{FakeHub, COMMIT};
use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};
use whisper_dictation::audio::wav::read_wav_16k;
use whisper_dictation::models::download::partial_dir;
use whisper_dictation::models::{
    self, download, find, DownloadError, DownloadOptions, HubClient, HubError, Progress, Stage,
    Timeouts,
};
use whisper_dictation::whisper::{Engine, LoadOptions, TranscribeParams};

const REPO: &str = "Systran/faster-whisper-tiny.en";

fn tiny_en() -> &'static models::CatalogueEntry {
    let entry = find("tiny.en").unwrap();
    assert_eq!(
        entry.repo, REPO,
        "the fake hub serves the catalogue's repository"
    );
    entry
}

fn hub() -> FakeHub {
    FakeHub::start(REPO, &common::model_dir("tiny.en"))
}

fn options(hub: &FakeHub, models_dir: &Path) -> DownloadOptions {
    let client = HubClient::new(
        &hub.url,
        Timeouts {
            connect: Duration::from_secs(5),
            read: Duration::from_secs(10),
        },
    );
    let mut opts = DownloadOptions::new(models_dir.to_path_buf(), client);
    opts.retries = 0;
    opts.retry_pause = Duration::ZERO;
    opts
}

/// Runs a download, checking every progress report on the way: counts within their totals,
/// bytes never going backwards within a stage.
fn run(opts: &DownloadOptions) -> (Result<models::Installed, DownloadError>, Vec<Progress>) {
    let mut seen: Vec<Progress> = Vec::new();
    let result = download(tiny_en(), opts, &mut |p| {
        assert!(p.done <= p.total || p.total == 0, "{p:?}");
        assert!(p.percent() <= 100, "{p:?}");
        if let Some(last) = seen.last() {
            if last.stage == p.stage {
                assert!(p.done >= last.done, "went backwards: {last:?} -> {p:?}");
            }
        }
        seen.push(p.clone());
    });
    (result, seen)
}

fn listed(models_dir: &Path) -> Vec<String> {
    whisper_dictation::paths::installed_models(models_dir)
}

fn model_size(hub: &FakeHub) -> u64 {
    hub.file("model.bin").size
}

#[test]
fn a_full_download_installs_a_model_that_transcribes() {
    let hub = hub();
    let dir = tempfile::tempdir().unwrap();
    let opts = options(&hub, dir.path());
    let (result, progress) = run(&opts);
    let installed = result.expect("the download succeeds");

    let target = dir.path().join("tiny.en");
    assert_eq!(installed.dir, target);
    assert_eq!(listed(dir.path()), ["tiny.en"]);
    assert!(!partial_dir(dir.path(), "tiny.en").exists());
    // Every file of the repository, each fetched exactly once, from the resolved commit.
    for file in &hub.files {
        let local = std::fs::read(target.join(&file.name)).unwrap();
        let original = std::fs::read(&file.path).unwrap();
        assert!(local == original, "{} differs", file.name);
        assert_eq!(hub.served(&file.name), file.size, "{}", file.name);
    }
    let total: u64 = hub.files.iter().map(|f| f.size).sum();
    assert_eq!((installed.fetched, installed.reused), (total, 0));
    let requests = hub.with(|b| b.requests.clone());
    assert!(
        requests
            .iter()
            .any(|r| r.contains("/api/models/") && r.contains("/revision/main")),
        "{requests:?}"
    );
    let resolves: Vec<&String> = requests
        .iter()
        .filter(|r| r.contains("/resolve/"))
        .collect();
    assert!(!resolves.is_empty());
    assert!(resolves.iter().all(|r| r.contains(COMMIT)), "{resolves:?}");
    assert!(
        requests.iter().any(|r| r.contains("/cdn-lfs/")),
        "LFS redirect followed"
    );

    // The manifest records what was installed, and verification agrees.
    let manifest = &installed.manifest;
    assert_eq!(
        (manifest.repo.as_str(), manifest.commit.as_str()),
        (REPO, COMMIT)
    );
    assert_eq!(manifest.files.len(), hub.files.len());
    let model_bin = manifest
        .files
        .iter()
        .find(|f| f.name == "model.bin")
        .unwrap();
    assert_eq!(model_bin.sha256, hub.file("model.bin").sha256);
    let verification = models::verify(&target, &mut |_| {}).unwrap();
    assert!(verification.is_ok(), "{verification:?}");
    assert!(verification.manifest.is_some());

    // Stages in order, ending at 100 %.
    let stages: Vec<Stage> = progress.iter().map(|p| p.stage).collect();
    let first = |s: Stage| stages.iter().position(|x| *x == s).unwrap();
    assert!(first(Stage::Listing) < first(Stage::Downloading));
    assert!(first(Stage::Downloading) < first(Stage::Verifying));
    assert!(first(Stage::Verifying) < first(Stage::Loading));
    let last = progress.last().unwrap();
    assert_eq!((last.stage, last.percent()), (Stage::Installed, 100));
    let downloading: Vec<&Progress> = progress
        .iter()
        .filter(|p| p.stage == Stage::Downloading)
        .collect();
    assert!(downloading.len() > 10, "progress reported as it goes");
    assert_eq!(downloading.last().unwrap().done, total);

    // And it transcribes.
    let engine = Engine::load(&target, &LoadOptions::default()).unwrap();
    let audio = read_wav_16k(&common::fixtures().join("clips/en_kal.wav")).unwrap();
    let params = TranscribeParams {
        language: Some("en".into()),
        temperatures: vec![0.0],
        ..TranscribeParams::default()
    };
    let text = engine
        .transcribe(&audio, &params)
        .unwrap()
        .text
        .to_lowercase();
    for word in ["remind", "dentist", "tomorrow"] {
        assert!(text.contains(word), "{word:?} in {text:?}");
    }

    // A second download of an installed model is refused, not repeated.
    let (again, _) = run(&opts);
    assert!(
        matches!(again, Err(DownloadError::AlreadyInstalled { .. })),
        "{again:?}"
    );
}

#[test]
fn an_interrupted_download_resumes_without_fetching_a_byte_twice() {
    let hub = hub();
    let dir = tempfile::tempdir().unwrap();
    let cut = 20_000_000;
    hub.with(|b| b.drop_after = Some(("model.bin".into(), cut)));
    let opts = options(&hub, dir.path());

    let (first, _) = run(&opts);
    let err = first.expect_err("the connection was cut");
    assert!(err.is_resumable(), "{err}");
    assert!(
        matches!(err, DownloadError::Hub(HubError::Network { .. })),
        "{err:?}"
    );
    assert!(
        err.to_string().contains("model.bin"),
        "names the URL: {err}"
    );
    // Nothing installed; what arrived is kept for the next attempt.
    assert!(listed(dir.path()).is_empty());
    let partial = partial_dir(dir.path(), "tiny.en");
    assert_eq!(
        std::fs::metadata(partial.join("model.bin")).unwrap().len(),
        cut
    );
    let status = models::statuses(dir.path());
    let tiny = status.iter().find(|s| s.name == "tiny.en").unwrap();
    assert!(tiny.installed.is_none() && tiny.partial_bytes.unwrap() >= cut);

    let (second, progress) = run(&opts);
    let installed = second.expect("the second attempt completes");
    assert!(installed.reused >= cut, "{installed:?}");
    assert_eq!(
        hub.served("model.bin"),
        model_size(&hub),
        "no byte fetched twice"
    );
    let ranges = hub.with(|b| b.ranges.clone());
    assert!(
        ranges.contains(&("model.bin".into(), Some(format!("bytes={cut}-")))),
        "{ranges:?}"
    );
    // Progress of the resumed attempt starts where the first stopped.
    let first_download = progress
        .iter()
        .find(|p| p.stage == Stage::Downloading)
        .unwrap();
    assert!(first_download.done >= cut, "{first_download:?}");
    assert!(models::verify(&installed.dir, &mut |_| {}).unwrap().is_ok());
}

#[test]
fn a_dropped_connection_is_resumed_within_one_download() {
    let hub = hub();
    let dir = tempfile::tempdir().unwrap();
    hub.with(|b| b.drop_after = Some(("model.bin".into(), 30_000_000)));
    let mut opts = options(&hub, dir.path());
    opts.retries = 2;
    let (result, _) = run(&opts);
    result.expect("retried from where it stopped");
    assert_eq!(hub.served("model.bin"), model_size(&hub));
}

#[test]
fn a_server_that_ignores_ranges_gets_a_clean_restart() {
    let hub = hub();
    let dir = tempfile::tempdir().unwrap();
    hub.with(|b| {
        b.drop_after = Some(("model.bin".into(), 5_000_000));
        b.ignore_range = true;
    });
    let opts = options(&hub, dir.path());
    assert!(run(&opts).0.is_err());
    // Progress honestly drops back to where the discarded bytes started (never above 100 %).
    let mut lowest_after_restart = u64::MAX;
    let result = download(tiny_en(), &opts, &mut |p| {
        assert!(p.done <= p.total || p.total == 0, "{p:?}");
        if p.stage == Stage::Downloading && p.file == "model.bin" {
            lowest_after_restart = lowest_after_restart.min(p.done);
        }
    });
    let installed = result.expect("starts the file over");
    assert!(lowest_after_restart < 5_000_000, "{lowest_after_restart}");
    // The partial bytes could not be used, so the file came whole the second time.
    assert_eq!(hub.served("model.bin"), 5_000_000 + model_size(&hub));
    assert!(models::verify(&installed.dir, &mut |_| {}).unwrap().is_ok());
}

#[test]
fn a_corrupted_file_is_rejected_and_nothing_is_installed() {
    let hub = hub();
    let dir = tempfile::tempdir().unwrap();
    hub.with(|b| b.corrupt = Some(("model.bin".into(), 12_345_678)));
    let opts = options(&hub, dir.path());
    let (result, progress) = run(&opts);
    let err = result.expect_err("a wrong hash must be refused");
    let message = err.to_string();
    assert!(
        matches!(&err, DownloadError::HashMismatch { file, kind: "SHA-256", .. } if file == "model.bin"),
        "{err:?}"
    );
    assert!(message.contains("model.bin") && message.contains(&hub.file("model.bin").sha256));
    assert!(message.contains("/resolve/"), "names the URL: {message}");
    assert!(
        !dir.path().join("tiny.en").exists(),
        "nothing renamed into place"
    );
    assert!(listed(dir.path()).is_empty());
    // The bad file is gone, so the next attempt fetches it afresh; the good ones are kept.
    let partial = partial_dir(dir.path(), "tiny.en");
    assert!(!partial.join("model.bin").exists());
    assert!(partial.join("config.json").exists());
    assert!(progress.iter().all(|p| p.stage != Stage::Loading));

    hub.with(|b| b.corrupt = None);
    let (retry, _) = run(&opts);
    let installed = retry.expect("the next attempt fetches a good copy");
    assert!(models::verify(&installed.dir, &mut |_| {}).unwrap().is_ok());
}

#[test]
fn a_cancelled_download_leaves_nothing_behind() {
    let hub = hub();
    let dir = tempfile::tempdir().unwrap();
    let opts = options(&hub, dir.path());
    let cancel = opts.cancel.clone();
    let mut reports_after_cancel = 0;
    let result = download(tiny_en(), &opts, &mut |p| {
        if cancel.load(Ordering::Relaxed) {
            reports_after_cancel += 1;
        }
        if p.stage == Stage::Downloading && p.done > 10_000_000 {
            cancel.store(true, Ordering::Relaxed);
        }
    });
    assert!(
        matches!(result, Err(DownloadError::Cancelled { .. })),
        "{result:?}"
    );
    assert!(reports_after_cancel <= 1, "stopped at the next chunk");
    assert!(!partial_dir(dir.path(), "tiny.en").exists());
    assert!(!dir.path().join("tiny.en").exists());
    assert!(hub.served("model.bin") < model_size(&hub));
}

#[test]
fn a_missing_repository_is_a_clear_404() {
    let hub = FakeHub::start("Systran/another-model", &common::model_dir("tiny.en"));
    let dir = tempfile::tempdir().unwrap();
    let (result, _) = run(&options(&hub, dir.path()));
    let err = result.expect_err("404");
    assert!(
        matches!(err, DownloadError::Hub(HubError::NotFound { .. })),
        "{err:?}"
    );
    let message = err.to_string();
    assert!(
        message.contains(&format!("{}/api/models/{REPO}/revision/main", hub.url))
            && message.contains("404")
            && message.contains("no such repository"),
        "{message}"
    );
    assert!(listed(dir.path()).is_empty());
    assert!(!partial_dir(dir.path(), "tiny.en").exists());
}

#[test]
fn a_repository_without_the_weights_names_the_missing_file() {
    let source = tempfile::tempdir().unwrap();
    let real = common::model_dir("tiny.en");
    for name in ["config.json", "vocabulary.txt"] {
        std::fs::copy(real.join(name), source.path().join(name)).unwrap();
    }
    let hub = FakeHub::start(REPO, source.path());
    let dir = tempfile::tempdir().unwrap();
    let (result, _) = run(&options(&hub, dir.path()));
    let err = result.expect_err("model.bin is missing");
    let message = err.to_string();
    assert!(
        matches!(&err, DownloadError::MissingFile { file, .. } if file == "model.bin"),
        "{err:?}"
    );
    assert!(
        message.contains(REPO) && message.contains(COMMIT),
        "{message}"
    );
}

#[test]
fn a_stalled_server_times_out_and_keeps_what_arrived() {
    let hub = hub();
    let dir = tempfile::tempdir().unwrap();
    hub.with(|b| b.stall_after = Some(("model.bin".into(), 3_000_000, Duration::from_secs(5))));
    let mut opts = options(&hub, dir.path());
    opts.client = HubClient::new(
        &hub.url,
        Timeouts {
            connect: Duration::from_secs(5),
            read: Duration::from_millis(700),
        },
    );
    let started = Instant::now();
    let (result, _) = run(&opts);
    let elapsed = started.elapsed();
    let err = result.expect_err("the server stalled");
    assert!(
        matches!(&err, DownloadError::Hub(HubError::Timeout { url, .. }) if url.contains("model.bin")),
        "{err:?}"
    );
    assert!(err.to_string().contains("stopped sending"), "{err}");
    assert!(
        elapsed < Duration::from_secs(4),
        "gave up after {elapsed:?}"
    );
    assert!(err.is_resumable());
    let kept = std::fs::metadata(partial_dir(dir.path(), "tiny.en").join("model.bin"))
        .unwrap()
        .len();
    assert_eq!(kept, 3_000_000);
    assert!(listed(dir.path()).is_empty());
}

#[test]
fn a_full_disk_is_refused_before_any_byte_is_fetched() {
    let hub = hub();
    let dir = tempfile::tempdir().unwrap();
    let mut opts = options(&hub, dir.path());
    opts.available_space = |_| Ok(50_000_000);
    let (result, _) = run(&opts);
    let err = result.expect_err("no room");
    let DownloadError::NotEnoughSpace {
        needed, available, ..
    } = &err
    else {
        panic!("{err:?}");
    };
    let total: u64 = hub.files.iter().map(|f| f.size).sum();
    assert!(*needed > total && *available == 50_000_000, "{err:?}");
    assert!(err.to_string().contains("not enough disk space"), "{err}");
    let served: u64 = hub.files.iter().map(|f| hub.served(&f.name)).sum();
    assert_eq!(served, 0);
    assert!(listed(dir.path()).is_empty());
    assert!(!partial_dir(dir.path(), "tiny.en").exists());
}

#[test]
fn two_downloads_of_one_model_at_once_do_not_corrupt_it() {
    let hub = hub();
    let dir = tempfile::tempdir().unwrap();
    // The first holds the lock at least this long, so the two overlap.
    hub.with(|b| b.api_delay = Duration::from_millis(500));
    let opts = options(&hub, dir.path());
    let barrier = Arc::new(Barrier::new(2));
    let handles: Vec<_> = (0..2)
        .map(|_| {
            let (opts, barrier) = (opts.clone(), barrier.clone());
            std::thread::spawn(move || {
                barrier.wait();
                download(tiny_en(), &opts, &mut |_| {})
            })
        })
        .collect();
    let results: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    let ok = results.iter().filter(|r| r.is_ok()).count();
    let busy: Vec<String> = results
        .iter()
        .filter_map(|r| match r {
            Err(e @ DownloadError::Busy { .. }) => Some(e.to_string()),
            _ => None,
        })
        .collect();
    assert_eq!((ok, busy.len()), (1, 1), "{results:?}");
    assert!(busy[0].contains("already running"), "{}", busy[0]);
    assert_eq!(hub.served("model.bin"), model_size(&hub), "fetched once");
    let verification = models::verify(&dir.path().join("tiny.en"), &mut |_| {}).unwrap();
    assert!(verification.is_ok(), "{verification:?}");
}

#[test]
fn removing_a_model_removes_it_whole() {
    let hub = hub();
    let dir = tempfile::tempdir().unwrap();
    let opts = options(&hub, dir.path());
    run(&opts).0.unwrap();
    let removed = models::remove(dir.path(), "tiny.en").unwrap();
    assert_eq!(removed, dir.path().join("tiny.en"));
    assert!(!removed.exists() && listed(dir.path()).is_empty());
    assert!(models::remove(dir.path(), "tiny.en").is_err());
    assert!(models::remove(dir.path(), "../etc").is_err());
}

#[test]
fn a_model_that_does_not_load_is_never_installed() {
    // Files in the Hugging Face layout whose hashes match the hub's but whose weights are not a
    // Whisper model: every check passes except the load.
    let source = tempfile::tempdir().unwrap();
    let real = common::model_dir("tiny.en");
    std::fs::copy(
        real.join("tokenizer.json"),
        source.path().join("tokenizer.json"),
    )
    .unwrap();
    std::fs::write(source.path().join("config.json"), b"{\"d_model\": 384}").unwrap();
    std::fs::write(
        source.path().join("model.safetensors"),
        vec![7u8; 2_000_000],
    )
    .unwrap();
    std::fs::write(source.path().join("README.md"), b"# not fetched").unwrap();
    let entry = find("large-v3-turbo").unwrap();
    let hub = FakeHub::start(entry.repo, source.path());
    let dir = tempfile::tempdir().unwrap();
    let mut stages = Vec::new();
    let result = download(entry, &options(&hub, dir.path()), &mut |p| {
        stages.push(p.stage)
    });
    let err = result.expect_err("not loadable");
    assert!(
        matches!(&err, DownloadError::Load { name, .. } if name == "large-v3-turbo"),
        "{err:?}"
    );
    assert!(err.to_string().contains("does not load"), "{err}");
    assert!(stages.contains(&Stage::Verifying) && stages.contains(&Stage::Loading));
    // The layout's files were fetched (and nothing else), then everything removed.
    assert_eq!(hub.served("model.safetensors"), 2_000_000);
    assert_eq!(hub.served("README.md"), 0);
    assert!(listed(dir.path()).is_empty());
    assert!(!partial_dir(dir.path(), "large-v3-turbo").exists());
}
