//! Command-line interface: the subcommands and their arguments.

mod bench;
mod device_args;
mod devices;
mod transcribe;

use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "whisper-dictation",
    version,
    about = "Push-to-talk dictation with Whisper, offline"
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Transcribe WAV files and print what was said.
    Transcribe(transcribe::TranscribeArgs),
    /// Show compute devices, probe results, the failure history and where each operation runs.
    Devices(devices::DevicesArgs),
    /// Time every device, precision and decoding mode on one clip and recommend the fastest
    /// that gives the reference text.
    Bench(bench::BenchArgs),
}

pub fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Transcribe(args) => transcribe::run(args),
        Command::Devices(args) => devices::run(args),
        Command::Bench(args) => bench::run(args),
    }
}
