//! The menu's download path without a display: `app::model_download::start` runs a download on
//! its own thread against a hub-shaped server on 127.0.0.1 (found through `HF_ENDPOINT`, as the
//! app finds a mirror) into `WHISPER_DICTATION_MODELS_DIR`, and reports progress as a few
//! events (one per percent or stage, never above 100) and then the installed folder; Cancel
//! stops it and leaves nothing. One test per binary: it sets process-wide variables.

mod common;
mod fake_hub;

use fake_hub::FakeHub;
use std::sync::mpsc;
use std::time::Duration;
use whisper_dictation::app::model_download::{start, DownloadEvent};
use whisper_dictation::models::{self, find, Stage};

#[test]
fn the_menu_download_reports_progress_then_the_model_and_can_be_cancelled() {
    let hub = FakeHub::start(
        "Systran/faster-whisper-tiny.en",
        &common::model_dir("tiny.en"),
    );
    let models_dir = tempfile::tempdir().unwrap();
    std::env::set_var("HF_ENDPOINT", &hub.url);
    std::env::set_var("WHISPER_DICTATION_MODELS_DIR", models_dir.path());
    let entry = find("tiny.en").unwrap();

    // Cancelled as soon as bytes flow: nothing is left behind.
    let (tx, rx) = mpsc::channel();
    let running = start(entry, false, move |e| {
        let _ = tx.send(e);
    })
    .unwrap();
    let finished = loop {
        match rx.recv_timeout(Duration::from_secs(60)).expect("an event") {
            DownloadEvent::Progress {
                stage: Stage::Downloading,
                ..
            } => running.cancel(),
            DownloadEvent::Finished { result, .. } => break result,
            DownloadEvent::Progress { .. } => {}
        }
    };
    let failure = finished.expect_err("cancelled");
    assert!(failure.cancelled && !failure.resumable, "{failure:?}");
    assert!(
        std::fs::read_dir(models_dir.path())
            .unwrap()
            .flatten()
            .all(|e| e.path().is_file()),
        "only the lock file remains"
    );

    // A full run: percents rise to 100 and stay within it, then the installed folder.
    let (tx, rx) = mpsc::channel();
    let _running = start(entry, false, move |e| {
        let _ = tx.send(e);
    })
    .unwrap();
    let mut events = Vec::new();
    let dir = loop {
        match rx.recv_timeout(Duration::from_secs(60)).expect("an event") {
            DownloadEvent::Finished { model, result } => {
                assert_eq!(model, "tiny.en");
                break result.expect("installed");
            }
            progress => events.push(progress),
        }
    };
    assert_eq!(dir, models_dir.path().join("tiny.en"));
    let downloading: Vec<u8> = events
        .iter()
        .filter_map(|e| match e {
            DownloadEvent::Progress {
                stage: Stage::Downloading,
                percent,
                ..
            } => Some(*percent),
            _ => None,
        })
        .collect();
    assert!(
        downloading.windows(2).all(|w| w[0] < w[1]),
        "{downloading:?}"
    );
    assert_eq!(downloading.last(), Some(&100));
    assert!(
        events.len() < 400,
        "a few events, not one per chunk: {}",
        events.len()
    );
    assert!(models::verify(&dir, &mut |_| {}).unwrap().is_ok());
}
