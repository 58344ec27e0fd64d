//! What the wording settings cost and change, through the app's own worker (`app::worker`,
//! the app's settings and CPU layout, `base`): every project clip with a known text is
//! transcribed
//! 1. as before the wording existed (the verdict only),
//! 2. with the default settings (spoken commands and filler removal on, no vocabulary),
//! 3. with a vocabulary of 200 names and terms (given to Whisper with the prompt, and matched
//!    in its text) and 20 replacements,
//!
//! and the word error rate of each against the clip's text, the engine's time, and the time of
//! the wording's own steps are printed. The timing of the 200-word wording alone is taken over
//! 1,000 runs on each clip's text.
//!
//!     cargo run --release --example wording_cost -- [MODEL (base)]

#[path = "support/app_worker.rs"]
mod app_worker;

use app_worker::WAIT;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};
use whisper_dictation::app::wording::Wording;
use whisper_dictation::app::worker::{
    params_from, Job, JobAudio, Outcome, Worker, WorkerCommand, WorkerEvent,
};
use whisper_dictation::audio::shared_audio::SharedAudio;
use whisper_dictation::audio::wav::read_wav_16k;
use whisper_dictation::settings::Settings;
use whisper_dictation::wer::wer_percent;

fn main() -> anyhow::Result<()> {
    whisper_dictation::platform::prefer_sleeping_compute_threads();
    let model = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "base".to_string());
    let app_worker::Ready {
        worker,
        events: rx,
        settings: base,
        state: _state,
    } = app_worker::start(&model)?;
    let before = Settings {
        spoken_commands: false,
        remove_fillers: false,
        ..base.clone()
    };
    let vocabulary = Settings {
        vocabulary: vocabulary_200(),
        replacements: replacements_20(),
        ..base.clone()
    };
    let runs = [
        ("before (verdict only)", &before),
        ("default settings", &base),
        ("200-word vocabulary", &vocabulary),
    ];
    let mut id = 0;
    let mut totals = vec![(0.0, Duration::ZERO); runs.len()];
    let clips = clips()?;
    println!(
        "{:<22} {}",
        "clip",
        runs.map(|(name, _)| format!("{name:>32}")).join("")
    );
    for (name, reference, audio) in &clips {
        let mut line = format!("{name:<22}");
        for (i, (_, settings)) in runs.iter().enumerate() {
            id += 1;
            // The first run of a clip warms the shapes; each setting is timed on its second.
            let mut result = None;
            for _ in 0..2 {
                result = Some(transcribe(&worker, &rx, id, audio, settings)?);
                id += 1;
            }
            let (text, engine) = result.expect("ran");
            let wer = wer_percent(reference, &text);
            totals[i].0 += wer;
            totals[i].1 += engine;
            line.push_str(&format!("{:>22.1} % {:>6.3} s", wer, engine.as_secs_f64()));
        }
        println!("{line}");
    }
    let n = clips.len() as f64;
    for (i, (name, _)) in runs.iter().enumerate() {
        println!(
            "{name}: mean WER {:.2} %, mean engine {:.3} s",
            totals[i].0 / n,
            totals[i].1.as_secs_f64() / n
        );
    }
    let wording = Wording::from_settings(&vocabulary);
    let mut slowest = Duration::ZERO;
    for (name, reference, _) in &clips {
        let language = if name.starts_with("pl_") { "pl" } else { "en" };
        let started = Instant::now();
        for _ in 0..1000 {
            std::hint::black_box(wording.rewrite(std::hint::black_box(reference), language));
        }
        slowest = slowest.max(started.elapsed() / 1000);
    }
    println!(
        "the 200-word wording's own steps: at most {:.3} ms per dictation's text",
        slowest.as_secs_f64() * 1000.0
    );
    Ok(())
}

fn transcribe(
    worker: &Worker,
    rx: &mpsc::Receiver<WorkerEvent>,
    id: u64,
    audio: &[f32],
    settings: &Settings,
) -> anyhow::Result<(String, Duration)> {
    worker.send(WorkerCommand::Transcribe(Job {
        id,
        audio: JobAudio::Recorded(SharedAudio::copy_of(audio)),
        params: params_from(settings),
        wording: Arc::new(Wording::from_settings(settings)),
        journal: None,
    }));
    loop {
        if let WorkerEvent::Done {
            id: done,
            outcome,
            engine,
            ..
        } = rx.recv_timeout(WAIT)?
        {
            if done == id {
                let text = match outcome {
                    Outcome::Text(text) => text,
                    _ => String::new(),
                };
                return Ok((text, engine));
            }
        }
    }
}

/// The project's clips with a known text, as (name, text, 16 kHz audio).
fn clips() -> anyhow::Result<Vec<(String, String, Vec<f32>)>> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/clips");
    let texts: BTreeMap<String, serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(dir.join("texts.json"))?)?;
    let mut out = Vec::new();
    for (name, text) in texts {
        let (Some(text), true) = (text.as_str(), name.ends_with(".wav")) else {
            continue;
        };
        if text.is_empty() || name.contains("long") {
            continue;
        }
        out.push((
            name.clone(),
            text.to_string(),
            read_wav_16k(&dir.join(&name))?,
        ));
    }
    Ok(out)
}

/// 200 names and terms a person might teach the app: people, places, products, jargon.
fn vocabulary_200() -> Vec<String> {
    let first = [
        "Zofia",
        "Anna",
        "Katarzyna",
        "Małgorzata",
        "Agnieszka",
        "Piotr",
        "Krzysztof",
        "Tomasz",
        "Paweł",
        "Michał",
    ];
    let last = [
        "Kowalczyk",
        "Wiśniewska",
        "Wójcik",
        "Kamiński",
        "Lewandowska",
        "Zieliński",
        "Szymańska",
        "Woźniak",
        "Dąbrowski",
        "Kozłowska",
    ];
    let mut words: Vec<String> = first
        .iter()
        .flat_map(|f| last.iter().map(move |l| format!("{f} {l}")))
        .collect();
    words.extend(
        [
            "Wrocław",
            "Łódź",
            "Gdańsk",
            "Kraków",
            "Poznań",
            "Szczecin",
            "Bydgoszcz",
            "Lublin",
            "Białystok",
            "Katowice",
            "Gdynia",
            "Częstochowa",
            "Radom",
            "Toruń",
            "Kielce",
            "Rzeszów",
            "Olsztyn",
            "Opole",
            "Zielona Góra",
            "Gorzów Wielkopolski",
            "Kubernetes",
            "kubectl",
            "PostgreSQL",
            "Grafana",
            "Prometheus",
            "Terraform",
            "Ansible",
            "GitLab",
            "Jenkins",
            "Elasticsearch",
            "Kibana",
            "Logstash",
            "RabbitMQ",
            "Kafka",
            "Redis",
            "MongoDB",
            "GraphQL",
            "TypeScript",
            "JavaScript",
            "WebAssembly",
            "Rust",
            "Tokio",
            "Serde",
            "libtorch",
            "Whisper",
            "CTranslate2",
            "safetensors",
            "PyTorch",
            "TensorFlow",
            "NumPy",
            "pandas",
            "Jupyter",
            "GymPulse",
            "Café Nero",
            "Starbucks",
            "Allegro",
            "InPost",
            "Biedronka",
            "Żabka",
            "Orlen",
            "PKO BP",
            "mBank",
            "Pekao",
            "ING",
            "Santander",
            "Revolut",
            "BLIK",
            "ZUS",
            "KRUS",
            "NFZ",
            "PESEL",
            "NIP",
            "REGON",
            "KRS",
            "RODO",
            "GDPR",
            "SLA",
            "KPI",
            "OKR",
            "Scrum",
            "Kanban",
            "Jira",
            "Confluence",
            "Slack",
            "Teams",
            "Zoom",
            "Figma",
            "Miro",
            "Notion",
            "Obsidian",
            "Neovim",
            "VS Code",
            "IntelliJ",
            "Xcode",
            "Homebrew",
            "Debian",
            "Ubuntu",
            "Fedora",
            "Warszawa",
            "Sopot",
        ]
        .iter()
        .map(|w| w.to_string()),
    );
    words.truncate(200);
    assert_eq!(words.len(), 200);
    words
}

fn replacements_20() -> BTreeMap<String, String> {
    (0..20)
        .map(|i| (format!("project number {i}"), format!("PRJ-{i:03}")))
        .chain([("cube control".to_string(), "kubectl".to_string())])
        .take(20)
        .collect()
}
