//! Command-line interface: the subcommands and their arguments.

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
}

pub fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Transcribe(args) => transcribe::run(args),
    }
}
