//! The `whisper-dictation` binary: with no command it runs the menu-bar app; the commands in
//! `cli/` transcribe files and inspect devices. Errors end here as one line on stderr and a
//! non-zero exit.

mod cli;

use clap::Parser;

fn main() {
    whisper_dictation::platform::prefer_sleeping_compute_threads();
    whisper_dictation::platform::bound_allocator_arenas();
    whisper_dictation::platform::skip_opengl();
    // Before any computation: oneDNN keeps the kernels of a few passes, not of every length
    // a dictation had.
    whisper_dictation::device::kernel_cache::bound();
    let args = cli::Cli::parse();
    let app_mode = args.is_app();
    // The app logs to a rotating file as well (and at info: stage timings); commands only warn.
    let log_dir = if app_mode {
        whisper_dictation::paths::log_dir().ok()
    } else {
        None
    };
    // Before the app writes anything (the logger's first file included): the files and
    // folders of older versions, created readable by all, become owner-only.
    let narrowed = app_mode.then(|| {
        let state_dir = whisper_dictation::paths::state_dir().ok();
        let roots: Vec<&std::path::Path> = state_dir
            .iter()
            .chain(&log_dir)
            .map(|p| p.as_path())
            .collect();
        whisper_dictation::private_files::narrow_at_start(&roots)
    });
    let default_filter = if app_mode { "info" } else { "warn" };
    let _log = match whisper_dictation::logging::init(log_dir.as_deref(), default_filter) {
        Ok(guard) => {
            if let Some(warning) = &guard.warning {
                tracing::warn!("{warning}");
            }
            if let Some(narrowed) = &narrowed {
                narrowed.log();
            }
            Some(guard)
        }
        Err(e) => {
            eprintln!("whisper-dictation: logging: {e}");
            None
        }
    };
    // Apple silicon: the performance cores only (`--threads` overrides it later).
    whisper_dictation::device::threads::apply_default();
    if let Err(err) = cli::run(args) {
        eprintln!("whisper-dictation: {err:#}");
        std::process::exit(1);
    }
}
