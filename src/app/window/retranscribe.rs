//! Re-transcribing a history entry's recording with another installed model, for the History
//! window: one at a time, on a thread of its own that loads the model, transcribes the
//! recording with the person's settings (language, prompt, vocabulary) and the app's wording,
//! hands the result back and frees the model. It runs on the CPU, beside the dictation model:
//! the device the dictations use stays theirs (a second model on an M1's GPU could take the
//! memory a dictation needs), and the CPU is the device that never gives wrong words.

use crate::app::verdict::gate;
use crate::app::wording::Wording;
use crate::app::worker::{params_from, APP_MIN_OPTIMIZATION};
use crate::audio::level::{GateConfig, Level};
use crate::audio::wav::read_wav_16k;
use crate::device::manager::DeviceManager;
use crate::device::setup::{manager_config, Overrides};
use crate::device::tuning::default_beam_size;
use crate::settings::Settings;
use crate::transcriber::Transcriber;
use std::path::PathBuf;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// One re-transcription to make.
pub struct Job {
    /// The history entry.
    pub id: i64,
    pub recording: PathBuf,
    /// The model's name, and its folder.
    pub model: String,
    pub model_dir: PathBuf,
    pub settings: Settings,
    pub state_dir: PathBuf,
    pub wording: Arc<Wording>,
}

/// What came of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Retranscription {
    pub id: i64,
    pub model: String,
    /// The text as a dictation would deliver it (empty when the model heard none), or why
    /// there is none.
    pub result: Result<String, String>,
    /// Loading and transcribing.
    pub took: Duration,
}

/// The thread of the re-transcription in progress, if any.
#[derive(Default)]
pub struct Retranscriber {
    running: Option<JoinHandle<()>>,
}

impl Retranscriber {
    /// Starts `job`; `done` gets its result on the thread. Refused while another runs.
    pub fn start(
        &mut self,
        job: Job,
        done: impl FnOnce(Retranscription) + Send + 'static,
    ) -> Result<(), String> {
        if self.running.as_ref().is_some_and(|t| !t.is_finished()) {
            return Err("another re-transcription is still running".into());
        }
        if let Some(finished) = self.running.take() {
            let _ = finished.join();
        }
        let thread = std::thread::Builder::new()
            .name("retranscribe".into())
            .spawn(move || done(run(job)))
            .map_err(|e| format!("cannot start the re-transcription: {e}"))?;
        self.running = Some(thread);
        Ok(())
    }
}

/// Loads the model on the CPU and transcribes the recording, as a dictation would be.
pub fn run(job: Job) -> Retranscription {
    let started = Instant::now();
    let result = transcribe(&job);
    tracing::info!(
        id = job.id,
        model = job.model,
        ok = result.is_ok(),
        took_ms = started.elapsed().as_millis() as u64,
        "history entry re-transcribed"
    );
    Retranscription {
        id: job.id,
        model: job.model,
        result,
        took: started.elapsed(),
    }
}

fn transcribe(job: &Job) -> Result<String, String> {
    let samples = read_wav_16k(&job.recording).map_err(|e| e.to_string())?;
    let overrides = Overrides {
        device: Some("cpu".into()),
        optimize: Some(job.settings.optimize.max(APP_MIN_OPTIMIZATION)),
        ..Overrides::default()
    };
    let config = manager_config(job.state_dir.clone(), &job.settings, &overrides, None)
        .map_err(|e| e.to_string())?;
    let mut transcriber = Transcriber::load(&job.model_dir, DeviceManager::open(config))
        .map_err(|e| format!("{}: {e}", job.model_dir.display()))?;
    let seconds = samples.len() as f32 / 16_000.0;
    let mut params = params_from(&job.settings).for_dictation(seconds);
    if params.beam_size.is_none() {
        params.beam_size = default_beam_size(transcriber.device());
    }
    let transcript = transcriber
        .transcribe(&samples, &params)
        .map_err(|e| e.to_string())?;
    let gate_config = GateConfig::default();
    let level = Level::measure(&samples, 16_000, &gate_config);
    Ok(gate(&level, &gate_config)
        .and_then(|()| job.wording.words(&transcript, &level))
        .unwrap_or_default())
}
