//! How much memory the app holds over many dictations: the app's own transcription worker
//! (`app::worker`, with the app's settings: the model's CPU layout for this CPU, the fast
//! encoding, language detection among Polish and English) loads `base`, then transcribes
//! dictations as the app sends them — the head while the key is held, then the whole
//! recording — of distinct lengths (the project's English and Polish clips, cut or repeated to
//! 1.5–27 s, so every shape the encoder can take is met), and prints the resident size at
//! ready and after every tenth dictation, with the engine's time.
//!
//!     cargo run --release --example dictation_memory -- [DICTATIONS (50)] [MODEL (base)]
//!
//! Memory is read with `ps -o rss=`, as the desktop test reads the app's. The CPU class (native
//! bf16 or not, and what capped it) is printed first: `WHISPER_DICTATION_CPU_BF16=0`,
//! `ONEDNN_MAX_CPU_ISA=AVX2` or `ATEN_CPU_CAPABILITY=avx2` make a bf16 machine behave as one
//! without. State (device history, recordings) goes to a temporary folder.

#[path = "support/resident.rs"]
mod resident;

use std::path::PathBuf;
use std::sync::{mpsc, Arc};
use std::time::Duration;
use whisper_dictation::app::wording::Wording;
use whisper_dictation::app::worker::{
    model_request, params_from, Job, JobAudio, Outcome, Worker, WorkerCommand, WorkerEvent,
};
use whisper_dictation::audio::wav::read_wav_16k;
use whisper_dictation::device::cpu_class::CpuClass;
use whisper_dictation::recordings::RecordingStore;
use whisper_dictation::settings::Settings;

const SAMPLE_RATE: usize = 16_000;
const WAIT: Duration = Duration::from_secs(600);

fn main() -> anyhow::Result<()> {
    // As the app runs: idle OpenMP threads sleep.
    whisper_dictation::platform::prefer_sleeping_compute_threads();
    let mut args = std::env::args().skip(1);
    let dictations: usize = args.next().map_or(Ok(50), |n| n.parse())?;
    let model = args.next().unwrap_or_else(|| "base".to_string());
    let state = tempfile::tempdir()?;
    std::env::set_var(whisper_dictation::paths::STATE_DIR_ENV, state.path());
    let clips = clips()?;

    let (tx, rx) = mpsc::channel();
    let recordings = RecordingStore::new(state.path().join("recordings"), 3);
    let worker = Worker::spawn(recordings, move |event| {
        let _ = tx.send(event);
    })?;
    println!("CPU: {}", CpuClass::detect());
    println!(
        "pid {} model {model}: start {}",
        std::process::id(),
        resident::rss()
    );

    let settings = Settings {
        model: model.clone(),
        device: "cpu".into(),
        ..Settings::default()
    };
    let request = model_request(&settings, state.path()).map_err(anyhow::Error::msg)?;
    worker.send(WorkerCommand::Load(request));
    loop {
        match rx.recv_timeout(WAIT)? {
            WorkerEvent::Ready { device, .. } => {
                println!("ready on {}: {}", device.name(), resident::rss());
                break;
            }
            WorkerEvent::LoadFailed { message, .. } => anyhow::bail!("{model}: {message}"),
            _ => {}
        }
    }
    // The worker primes the fast encoding right after "ready"; a first dictation waits for it.
    let params = params_from(&settings);
    let wording = Arc::new(Wording::from_settings(&settings));
    let mut engine = Vec::new();
    let mut texts = 0;
    for id in 0..dictations as u64 {
        let audio = dictation(&clips, id as usize);
        let head = audio[..audio.len() * 3 / 5].to_vec();
        worker.send(WorkerCommand::TranscribeEarly(Job {
            id,
            audio: JobAudio::Recorded(head.into()),
            params: params.clone(),
            wording: wording.clone(),
            journal: None,
        }));
        worker.send(WorkerCommand::Transcribe(Job {
            id,
            audio: JobAudio::Recorded(audio.into()),
            params: params.clone(),
            wording: wording.clone(),
            journal: None,
        }));
        loop {
            if let WorkerEvent::Done {
                id: done,
                outcome,
                engine: time,
                ..
            } = rx.recv_timeout(WAIT)?
            {
                if done == id {
                    texts += usize::from(matches!(outcome, Outcome::Text(_)));
                    engine.push(time);
                    break;
                }
            }
        }
        if (id + 1) % 10 == 0 || id + 1 == dictations as u64 {
            // The worker hands freed memory back when it goes idle, right after a dictation.
            std::thread::sleep(Duration::from_millis(300));
            let mut sorted = engine.clone();
            sorted.sort();
            println!(
                "after {:>3} dictations ({texts} with text): {} | engine median {:.3} s",
                id + 1,
                resident::rss(),
                sorted[sorted.len() / 2].as_secs_f64()
            );
        }
    }
    drop(worker);
    Ok(())
}

/// The project's speech clips (English and Polish), 16 kHz mono.
fn clips() -> anyhow::Result<Vec<Vec<f32>>> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/clips");
    [
        "en_kal",
        "en_slt",
        "en_awb",
        "en_rms",
        "en_espeak",
        "pl_espeak",
        "en_fest_slt_hts",
    ]
    .iter()
    .map(|name| Ok(read_wav_16k(&dir.join(format!("{name}.wav")))?))
    .collect()
}

/// Dictation `n`: clips one after another from clip `n` on, cut to a length that differs from
/// the ones before (1.5 s to 27 s in steps of ~0.5 s, cycling), as people's dictations do.
fn dictation(clips: &[Vec<f32>], n: usize) -> Vec<f32> {
    let seconds = 1.5 + (n * 37 % 52) as f32 * 0.5;
    let samples = (seconds * SAMPLE_RATE as f32) as usize;
    (0..clips.len())
        .flat_map(|i| clips[(n + i) % clips.len()].iter().copied())
        .take(samples)
        .collect()
}
