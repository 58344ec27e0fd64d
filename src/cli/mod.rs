//! Command-line interface: the subcommands and their arguments. No subcommand runs the app;
//! `start`, `stop`, `toggle` and `cancel` drive the app already running (`trigger`).

mod bench;
mod device_args;
mod devices;
mod models;
mod transcribe;
mod trigger;

use clap::{Parser, Subcommand};
use whisper_dictation::app::{self, AppPaths};
use whisper_dictation::paths;
use whisper_dictation::remote;

#[derive(Debug, Parser)]
#[command(
    name = "whisper-dictation",
    version,
    about = "Push-to-talk dictation with Whisper, offline. Without a command it starts the \
             menu-bar app: hold the hotkey (default Ctrl+Alt+Space), speak, let go."
)]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the menu-bar (tray) app; the same as no command.
    App,
    /// Transcribe WAV files and print what was said.
    Transcribe(transcribe::TranscribeArgs),
    /// Show compute devices, probe results, the failure history and where each operation runs.
    Devices(devices::DevicesArgs),
    /// Time every device, precision and decoding mode on one clip and recommend the fastest
    /// that gives the reference text.
    Bench(bench::BenchArgs),
    /// Models: list the catalogue and what is installed, download, remove, verify.
    Models(models::ModelsArgs),
    /// Start recording in the running app, as holding the hotkey does (bind it to a key's
    /// press, and `stop` to its release). Exit 3 when no app is running.
    Start,
    /// Stop the running app's recording and transcribe it, as letting go of the hotkey does.
    Stop,
    /// Start recording, or stop the recording under way: one key for both.
    Toggle,
    /// Stop the running app's recording and throw it away.
    Cancel,
}

impl Cli {
    /// Whether this invocation runs the menu-bar app.
    pub fn is_app(&self) -> bool {
        matches!(self.command, None | Some(Command::App))
    }
}

pub fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        None | Some(Command::App) => app::run(AppPaths {
            state_dir: paths::state_dir()?,
            log_dir: paths::log_dir()?,
            recordings_dir: paths::recordings_dir()?,
        }),
        Some(Command::Transcribe(args)) => transcribe::run(args),
        Some(Command::Devices(args)) => devices::run(args),
        Some(Command::Bench(args)) => bench::run(args),
        Some(Command::Models(args)) => models::run(args),
        Some(Command::Start) => trigger::run(remote::Command::Start),
        Some(Command::Stop) => trigger::run(remote::Command::Stop),
        Some(Command::Toggle) => trigger::run(remote::Command::Toggle),
        Some(Command::Cancel) => trigger::run(remote::Command::Cancel),
    }
}
