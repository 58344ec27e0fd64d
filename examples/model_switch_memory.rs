//! How much memory the app holds after switching models a few times: the app's own
//! transcription worker (`app::worker`) loads each model in turn — the old one dropped first,
//! the new one loaded, warmed up on the built-in sample, the allocator trimmed, exactly as a
//! Model ▸ choice in the menu does — and the process's memory is printed after each switch.
//!
//!     cargo run --release --example model_switch_memory -- [--device cpu|mps|cuda|auto]
//!         [--cpu-precision f32|bf16] base tiny.en base tiny.en base
//!
//! Memory is read with `ps -o rss=` (Linux and macOS alike). On a Mac the GPU's buffers are
//! not resident pages of the process but IOKit memory; they count in the "physical footprint"
//! Activity Monitor shows as Memory, so where `/usr/bin/footprint` exists its total is printed
//! too (docs/M1_SETUP.md, "Memory after switching models"). State (device history, probe cache)
//! goes to a temporary folder, so the user's own is untouched.

#[path = "support/resident.rs"]
mod resident;

use std::path::PathBuf;
use std::process::Command;
use std::sync::mpsc;
use std::time::{Duration, Instant};
use whisper_dictation::app::worker::{model_request, Worker, WorkerCommand, WorkerEvent};
use whisper_dictation::recordings::RecordingStore;
use whisper_dictation::settings::Settings;

fn main() -> anyhow::Result<()> {
    let mut device = "cpu".to_string();
    // Empty: the app's own choice (bfloat16 on CPUs that compute it natively).
    let mut cpu_precision = String::new();
    let mut models = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--device" => {
                device = args
                    .next()
                    .ok_or_else(|| anyhow::anyhow!("--device needs a value"))?
            }
            "--cpu-precision" => {
                cpu_precision = args
                    .next()
                    .ok_or_else(|| anyhow::anyhow!("--cpu-precision needs a value"))?
            }
            _ => models.push(arg),
        }
    }
    if models.is_empty() {
        models = [
            "base", "tiny.en", "base", "tiny.en", "base", "tiny.en", "base",
        ]
        .map(String::from)
        .to_vec();
    }
    let state = tempfile::tempdir()?;
    std::env::set_var(whisper_dictation::paths::STATE_DIR_ENV, state.path());

    let (tx, rx) = mpsc::channel();
    let recordings = RecordingStore::new(state.path().join("recordings"), 1);
    let worker = Worker::spawn(recordings, move |event| {
        let _ = tx.send(event);
    })?;

    println!(
        "pid {} device {device} cpu precision {}",
        std::process::id(),
        if cpu_precision.is_empty() {
            "(the app's choice)"
        } else {
            &cpu_precision
        }
    );
    println!(
        "{:<10} {:>8} {:>10} {:>10}  footprint",
        "model", "on", "load+warm", "rss"
    );
    println!(
        "{:<10} {:>8} {:>10} {:>10}  {}",
        "(start)",
        "-",
        "-",
        resident::rss(),
        footprint()
    );
    for model in &models {
        let settings = Settings {
            model: model.clone(),
            device: device.clone(),
            cpu_precision: cpu_precision.clone(),
            ..Settings::default()
        };
        let request = model_request(&settings, state.path()).map_err(anyhow::Error::msg)?;
        let started = Instant::now();
        worker.send(WorkerCommand::Load(request));
        let on = loop {
            match rx.recv_timeout(Duration::from_secs(600))? {
                WorkerEvent::Ready { device, .. } => break device.name().to_string(),
                WorkerEvent::LoadFailed { message, .. } => anyhow::bail!("{model}: {message}"),
                _ => {}
            }
        };
        println!(
            "{:<10} {:>8} {:>9.1}s {:>10}  {}",
            model,
            on,
            started.elapsed().as_secs_f32(),
            resident::rss(),
            footprint()
        );
    }
    drop(worker);
    Ok(())
}

fn own_pid() -> PathBuf {
    PathBuf::from(std::process::id().to_string())
}

/// macOS's physical footprint (GPU buffers included), from `footprint`'s summary line; empty
/// where the tool does not exist.
fn footprint() -> String {
    let tool = std::path::Path::new("/usr/bin/footprint");
    if !tool.exists() {
        return String::new();
    }
    Command::new(tool)
        .arg(own_pid())
        .output()
        .ok()
        .and_then(|out| {
            String::from_utf8_lossy(&out.stdout)
                .lines()
                .find(|l| l.contains("Footprint:"))
                .map(|l| l.trim().to_string())
        })
        .unwrap_or_default()
}
