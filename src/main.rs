//! The `whisper-dictation` binary: logging, argument parsing, and dispatch to the commands in
//! `cli/`. Errors end here as one line on stderr and a non-zero exit.

mod cli;

use clap::Parser;

fn main() {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("WHISPER_DICTATION_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    let args = cli::Cli::parse();
    if let Err(err) = cli::run(args) {
        eprintln!("whisper-dictation: {err:#}");
        std::process::exit(1);
    }
}
