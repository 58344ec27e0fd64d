//! How long the History window takes to open, from the moment it is asked for to its first
//! paint, with the app's own pieces and nothing else: the window process
//! (`whisper-dictation-window`) started through `app::window::host` with the app's open
//! message, the page's first list answered by the app's IPC handler (`ipc::dispatch`) from a
//! temporary history of 50 dictations, and "painted" (the page's first animation frame with
//! the entries) read off the pipe. Each run is a fresh process, as each open is. Prints every
//! run and the median and slowest; asserts nothing about time.
//!
//! Needs an X display (a bare Xvfb is enough) and the window's executable beside this one's
//! target folder (`cargo build --release --bins`):
//!
//!     xvfb-run -a cargo run --release --example window_open_time -- [--runs N (10)]

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use whisper_dictation::app::window::host::{FromHost, HostEvent, WindowProcess, EXECUTABLE};
use whisper_dictation::app::window::host_link::{FromWindow, ToWindow};
use whisper_dictation::app::window::{ipc, open_message, Page};
use whisper_dictation::history::{History, NewEntry};
use whisper_dictation::i18n::UiLang;
use whisper_dictation::recordings::RecordingStore;

/// What the page may ask of the app besides its list: nothing here.
struct NoActions;

impl ipc::Actions for NoActions {
    fn copy(&mut self, _text: String) {}
    fn play(&mut self, _recording: &Path) -> Result<f32, String> {
        Err("no playing in the benchmark".into())
    }
    fn stop_playing(&mut self) {}
    fn models(&self) -> (Vec<String>, String) {
        (Vec::new(), String::new())
    }
    fn retranscribe(&mut self, _id: i64, _recording: PathBuf, _model: &str) -> Result<(), String> {
        Err("no re-transcription in the benchmark".into())
    }
    fn export_folder(&self) -> PathBuf {
        std::env::temp_dir()
    }
}

fn main() {
    let runs = std::env::args()
        .skip_while(|a| a != "--runs")
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(10);
    if std::env::var_os("DISPLAY").is_none() {
        eprintln!(
            "no X display: run it as xvfb-run -a cargo run --release --example window_open_time"
        );
        std::process::exit(2);
    }
    // target/release/examples/<this> → target/release/whisper-dictation-window
    let program = std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.parent()?.join(EXECUTABLE)))
        .filter(|p| p.is_file())
        .unwrap_or_else(|| {
            eprintln!("no {EXECUTABLE} beside the examples: cargo build --release --bins");
            std::process::exit(2);
        });
    let dir = tempfile::tempdir().expect("a temporary folder");
    let (mut history, _) = History::open(&dir.path().join("history.sqlite3")).expect("history");
    for n in 0..50_i64 {
        history
            .add(&NewEntry {
                at_ms: 1_764_000_000_000 + n * 60_000,
                text: format!("Dyktowanie numer {n}: spotkanie przeniesiono na czwartek."),
                raw_text: format!("Dyktowanie numer {n}: spotkanie przeniesiono na czwartek."),
                recording: None,
                duration_ms: 4_000,
                language: Some("pl".into()),
                model: "base".into(),
                device: "cpu".into(),
                device_reason: None,
                key_up_to_pasted_ms: Some(160),
                app: None,
                mode: None,
            })
            .expect("an entry");
    }
    let recordings = RecordingStore::new(dir.path().join("recordings"), 10);
    let webview_data = dir.path().join("webview");

    println!("window process: {}", program.display());
    let mut times = Vec::new();
    for run in 1..=runs {
        let (events, said) = mpsc::channel::<HostEvent>();
        let asked = Instant::now();
        let process = WindowProcess::start(
            &program,
            run,
            open_message(Page::History, UiLang::En, &webview_data),
            Box::new(move |event| {
                let _ = events.send(event);
            }),
        )
        .expect("the window process starts");
        let mut painted = None;
        while let Ok(event) = said.recv_timeout(Duration::from_secs(20)) {
            match event.what {
                FromHost::Window(FromWindow::Message { url, body }) => {
                    let Ok(command) = ipc::parse(&url, &body) else {
                        continue;
                    };
                    if command == ipc::Command::Painted {
                        painted = Some(asked.elapsed());
                        process.send(ToWindow::Close);
                    } else if let Some(reply) =
                        ipc::dispatch(&mut history, &recordings, &mut NoActions, command)
                    {
                        process.send(ToWindow::Script {
                            js: ipc::reply_script(&reply),
                        });
                    }
                }
                FromHost::Window(FromWindow::Warning { text }) => eprintln!("{text}"),
                FromHost::Ended { .. } => break,
            }
        }
        let painted = painted.expect("the page painted within 20 s");
        println!(
            "run {run:2}: asked → first paint {:4} ms",
            painted.as_millis()
        );
        times.push(painted);
        drop(process);
    }
    times.sort();
    println!(
        "over {runs} opens: median {} ms, fastest {} ms, slowest {} ms",
        times[times.len() / 2].as_millis(),
        times[0].as_millis(),
        times[times.len() - 1].as_millis()
    );
}
