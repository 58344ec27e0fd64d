//! The examples' start of the app's own transcription worker: state in a temporary folder, the
//! CPU class printed, `model` loaded on the CPU with the app's settings, waited for until ready.

use std::sync::mpsc;
use std::time::Duration;
use whisper_dictation::app::worker::{model_request, Worker, WorkerCommand, WorkerEvent};
use whisper_dictation::device::cpu_class::CpuClass;
use whisper_dictation::recordings::RecordingStore;
use whisper_dictation::settings::Settings;

/// How long an example waits for any one answer of the worker.
pub const WAIT: Duration = Duration::from_secs(600);

/// A worker with `model` loaded, ready.
pub struct Ready {
    pub worker: Worker,
    pub events: mpsc::Receiver<WorkerEvent>,
    /// The settings it was loaded with (the app's defaults on the CPU).
    pub settings: Settings,
    /// Its state folder; removed when dropped.
    pub state: tempfile::TempDir,
}

/// Starts the worker and loads `model` (printing the CPU class first).
pub fn start(model: &str) -> anyhow::Result<Ready> {
    let state = tempfile::tempdir()?;
    std::env::set_var(whisper_dictation::paths::STATE_DIR_ENV, state.path());
    let (tx, events) = mpsc::channel();
    let recordings = RecordingStore::new(state.path().join("recordings"), 3);
    let worker = Worker::spawn(recordings, move |event| {
        let _ = tx.send(event);
    })?;
    println!("CPU: {}", CpuClass::detect());
    let settings = Settings {
        model: model.to_string(),
        device: "cpu".into(),
        ..Settings::default()
    };
    worker.send(WorkerCommand::Load(
        model_request(&settings, state.path()).map_err(anyhow::Error::msg)?,
    ));
    loop {
        match events.recv_timeout(WAIT)? {
            WorkerEvent::Ready { .. } => break,
            WorkerEvent::LoadFailed { message, .. } => anyhow::bail!("{model}: {message}"),
            _ => {}
        }
    }
    Ok(Ready {
        worker,
        events,
        settings,
        state,
    })
}
