//! `whisper-dictation models list | download NAME | remove NAME | verify NAME`: the catalogue
//! with what is installed and the suggestion for this machine; a download with a progress bar
//! (plain lines when stderr is not a terminal); removal; and a check of an installed folder
//! against its manifest plus a load with the engine.

use anyhow::{bail, Context};
use clap::{Args, Subcommand};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};
use whisper_dictation::models::catalogue::human_bytes;
use whisper_dictation::models::download::percent;
use whisper_dictation::models::hub::{endpoint, DEFAULT_ENDPOINT, ENDPOINT_ENV};
use whisper_dictation::models::{
    self, find, suggest_default, DownloadOptions, HubClient, Machine, Progress, Stage, Timeouts,
};
use whisper_dictation::paths;

#[derive(Debug, Args)]
pub struct ModelsArgs {
    #[command(subcommand)]
    command: ModelsCommand,
}

#[derive(Debug, Subcommand)]
enum ModelsCommand {
    /// The catalogue, what is installed, and the model suggested for this machine.
    List,
    /// Download a catalogue model from the hub, verify it and install it.
    Download(DownloadArgs),
    /// Remove an installed model (and any partial download of it).
    Remove {
        /// The installed model's name.
        name: String,
    },
    /// Check an installed model (or a model folder) against its manifest and load it.
    Verify {
        /// An installed model's name, or a model folder.
        model: String,
    },
}

#[derive(Debug, Args)]
struct DownloadArgs {
    /// A name from `models list`.
    name: String,
    /// The hub to download from (default: $HF_ENDPOINT, else the public hub).
    #[arg(long)]
    endpoint: Option<String>,
    /// Download again over an installed copy (a model that no longer loads).
    #[arg(long)]
    replace: bool,
    /// Seconds without a byte before the server counts as stalled.
    #[arg(long, default_value_t = 30)]
    timeout: u64,
}

pub fn run(args: ModelsArgs) -> anyhow::Result<()> {
    let models_dir = paths::models_dir()?;
    match args.command {
        ModelsCommand::List => list(&models_dir),
        ModelsCommand::Download(args) => download(&models_dir, args),
        ModelsCommand::Remove { name } => {
            let dir = models::remove(&models_dir, &name)?;
            println!("removed {name} ({})", dir.display());
            Ok(())
        }
        ModelsCommand::Verify { model } => verify(&model),
    }
}

fn list(models_dir: &Path) -> anyhow::Result<()> {
    let machine = Machine::detect();
    let suggested = suggest_default(&machine);
    println!("Models in {}", models_dir.display());
    println!(
        "  {:<16} {:<10} {:>8} {:>8}  {:<13}  ADVICE",
        "NAME", "STATUS", "SIZE", "MEMORY", "LANGUAGES"
    );
    for status in models::statuses(models_dir) {
        let state = match (&status.installed, status.partial_bytes) {
            (Some(_), _) => "installed".to_string(),
            (None, Some(bytes)) => format!("partial {}", human_bytes(bytes)),
            (None, None) => "-".to_string(),
        };
        let mark = if status.name == suggested { "*" } else { " " };
        match status.entry {
            Some(entry) => println!(
                "{mark} {:<16} {:<10} {:>8} {:>8}  {:<13}  {}",
                entry.name,
                state,
                human_bytes(entry.download_bytes),
                human_bytes(entry.memory_bytes()),
                entry.languages(),
                entry.advice(false)
            ),
            None => println!(
                "{mark} {:<16} {:<10} {:>8} {:>8}  {:<13}  not in the catalogue (installed by the set-up or by hand)",
                status.name, state, "", "", ""
            ),
        }
    }
    let memory = if machine.memory_bytes > 0 {
        human_bytes(machine.memory_bytes)
    } else {
        "unknown memory".to_string()
    };
    println!();
    println!(
        "* suggested for this machine ({} {}, {memory}{}): {suggested}",
        machine.os,
        machine.arch,
        if machine.cuda { ", CUDA" } else { "" }
    );
    println!(
        "Download: whisper-dictation models download NAME   (from {})",
        endpoint(None)
    );
    Ok(())
}

fn download(models_dir: &Path, args: DownloadArgs) -> anyhow::Result<()> {
    let Some(entry) = find(&args.name) else {
        let names: Vec<&str> = models::CATALOGUE.iter().map(|e| e.name).collect();
        bail!(
            "'{}' is not in the catalogue (one of: {})",
            args.name,
            names.join(", ")
        );
    };
    if args.timeout == 0 {
        bail!("--timeout must be at least 1 second");
    }
    let hub = endpoint(args.endpoint.as_deref());
    if hub != DEFAULT_ENDPOINT {
        eprintln!("hub: {hub} (--endpoint or {ENDPOINT_ENV})");
    }
    let client = HubClient::new(
        &hub,
        Timeouts {
            read: Duration::from_secs(args.timeout),
            ..Timeouts::default()
        },
    );
    let mut opts = DownloadOptions::new(models_dir.to_path_buf(), client);
    opts.replace = args.replace;
    let cancel = opts.cancel.clone();
    // Ctrl+C stops between chunks; the partial folder is then removed.
    let _ = ctrlc::set_handler(move || cancel.store(true, Ordering::Relaxed));
    eprintln!(
        "{}: {} from {} ({})",
        entry.name,
        human_bytes(entry.download_bytes),
        entry.repo,
        entry.revision
    );
    let mut bar = Bar::new(std::io::stderr().is_terminal());
    let installed = models::download(entry, &opts, &mut |p| bar.update(p));
    bar.finish();
    let installed = installed.with_context(|| format!("downloading {}", entry.name))?;
    println!(
        "installed {} in {} ({} fetched{}; commit {})",
        entry.name,
        installed.dir.display(),
        human_bytes(installed.fetched),
        if installed.reused > 0 {
            format!(
                ", {} kept from an earlier attempt",
                human_bytes(installed.reused)
            )
        } else {
            String::new()
        },
        installed.manifest.commit
    );
    Ok(())
}

fn verify(model: &str) -> anyhow::Result<()> {
    let dir: PathBuf = paths::resolve_model(model)?;
    let started = Instant::now();
    let report = models::verify(&dir, &mut |_| {})?;
    match &report.manifest {
        Some(m) => println!(
            "{}: {} files from {} at {} ({})",
            dir.display(),
            m.files.len(),
            m.repo,
            m.commit,
            if report.mismatches.is_empty() {
                "sizes and SHA-256 as installed"
            } else {
                "DIFFERENT from the manifest"
            }
        ),
        None => println!(
            "{}: no manifest (installed by the set-up or by hand): checked by loading only",
            dir.display()
        ),
    }
    for mismatch in &report.mismatches {
        println!("  {mismatch}");
    }
    match &report.load {
        Ok(()) => println!("  loads: yes ({:.1} s)", started.elapsed().as_secs_f32()),
        Err(e) => println!("  loads: NO: {e}"),
    }
    if !report.is_ok() {
        let name = dir.file_name().map(|n| n.to_string_lossy().into_owned());
        let hint = match name.as_deref().and_then(find) {
            Some(entry) => format!(
                "; download it again: whisper-dictation models download {} --replace",
                entry.name
            ),
            None => String::new(),
        };
        bail!("{} is damaged{hint}", dir.display());
    }
    println!("ok");
    Ok(())
}

/// A progress bar on a terminal, one line per 10 % (and per stage) otherwise.
struct Bar {
    tty: bool,
    started: Instant,
    /// Bytes already done when the stage began (kept from an earlier attempt), left out of the
    /// rate.
    start_done: u64,
    last_stage: Option<Stage>,
    last_percent: u8,
    drawn: bool,
}

impl Bar {
    fn new(tty: bool) -> Bar {
        Bar {
            tty,
            started: Instant::now(),
            start_done: 0,
            last_stage: None,
            last_percent: 0,
            drawn: false,
        }
    }

    fn update(&mut self, p: &Progress) {
        let pct = percent(p.done, p.total);
        let stage_changed = self.last_stage != Some(p.stage);
        let label = match p.stage {
            Stage::Listing => "listing files",
            Stage::Downloading => "downloading",
            Stage::Verifying => "verifying",
            Stage::Loading => "loading once to check",
            Stage::Installed => "installed",
        };
        if stage_changed {
            self.started = Instant::now();
            self.start_done = p.done;
        }
        if self.tty {
            if pct == self.last_percent && !stage_changed && self.drawn {
                return;
            }
            let mut line = String::new();
            if p.total > 0 && p.stage != Stage::Installed {
                let filled = usize::from(pct) * 30 / 100;
                let fresh = p.done.saturating_sub(self.start_done);
                let rate = fresh as f64 / self.started.elapsed().as_secs_f64().max(0.1);
                line = format!(
                    "[{}{}] {pct:>3}% {}/{}  {}/s ",
                    "#".repeat(filled),
                    "-".repeat(30 - filled),
                    human_bytes(p.done),
                    human_bytes(p.total),
                    human_bytes(rate as u64)
                );
            }
            eprint!("\r\x1b[2K{label:<22} {line}");
            let _ = std::io::stderr().flush();
            self.drawn = true;
        } else if stage_changed || pct / 10 != self.last_percent / 10 {
            if p.total > 0 {
                eprintln!(
                    "{label}: {pct}% ({} of {})",
                    human_bytes(p.done),
                    human_bytes(p.total)
                );
            } else {
                eprintln!("{label}");
            }
        }
        self.last_stage = Some(p.stage);
        self.last_percent = pct;
    }

    fn finish(&mut self) {
        if self.tty && self.drawn {
            eprintln!();
        }
    }
}
