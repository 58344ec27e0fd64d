//! Where the app's log lines go: stderr (coloured only on a terminal) and, when a log folder is
//! given, daily-rotated files `whisper-dictation.<date>.log` (the last 7 kept) written by a
//! background thread so logging never blocks the hotkey or the audio path. The level filter
//! comes from `$WHISPER_DICTATION_LOG` (`tracing-subscriber` `EnvFilter` syntax, e.g.
//! `debug` or `whisper_dictation=trace`), else the caller's default. A log folder that cannot
//! be used degrades to stderr only with a warning; logging never stops the app from starting.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use tracing::Subscriber;
use tracing_appender::non_blocking::{NonBlocking, WorkerGuard};
use tracing_appender::rolling::{RollingFileAppender, Rotation};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::EnvFilter;

/// The environment variable holding the log filter.
pub const LOG_ENV: &str = "WHISPER_DICTATION_LOG";

/// Log files are `<prefix>.<yyyy-mm-dd>.<suffix>`.
pub const LOG_FILE_PREFIX: &str = "whisper-dictation";
pub const LOG_FILE_SUFFIX: &str = "log";

/// How many daily files are kept; older ones are deleted on rotation.
pub const MAX_LOG_FILES: usize = 7;

#[derive(Debug, thiserror::Error)]
pub enum LoggingError {
    #[error("cannot install the logger: {0}")]
    AlreadyInstalled(#[from] tracing_subscriber::util::TryInitError),
}

/// Keep this alive for as long as the app logs: dropping it flushes the file writer and stops
/// its thread (lines logged after that go to stderr only).
#[must_use = "dropping the guard stops writing the log file"]
#[derive(Debug, Default)]
pub struct LogGuard {
    /// The folder the log files are written to; `None` when logging to stderr only.
    pub log_dir: Option<PathBuf>,
    /// A problem worth showing the user (log folder unusable, bad `$WHISPER_DICTATION_LOG`);
    /// the logger works regardless.
    pub warning: Option<String>,
    _worker: Option<WorkerGuard>,
}

/// Installs the process-wide logger. Call once, early in `main`.
///
/// # Errors
/// [`LoggingError::AlreadyInstalled`] when a global logger was already set.
pub fn init(log_dir: Option<&Path>, default_filter: &str) -> Result<LogGuard, LoggingError> {
    let (filter, filter_warning) = filter_from(std::env::var(LOG_ENV).ok(), default_filter);
    let (subscriber, mut guard) = subscriber(filter, std::io::stderr().is_terminal(), log_dir);
    subscriber.try_init()?;
    guard.warning = join_warnings(filter_warning, guard.warning.take());
    Ok(guard)
}

/// The filter from the environment variable's value, else `default_filter`. An unparsable
/// value falls back to the default with a warning rather than silencing the log.
fn filter_from(env_value: Option<String>, default_filter: &str) -> (EnvFilter, Option<String>) {
    match env_value.filter(|v| !v.trim().is_empty()) {
        None => (EnvFilter::new(default_filter), None),
        Some(value) => match EnvFilter::try_new(&value) {
            Ok(filter) => (filter, None),
            Err(e) => (
                EnvFilter::new(default_filter),
                Some(format!(
                    "${LOG_ENV}={value:?} is not a valid log filter ({e}); using {default_filter:?}"
                )),
            ),
        },
    }
}

/// The subscriber [`init`] installs, built without installing it (tests use it with
/// `tracing::subscriber::with_default`).
fn subscriber(
    filter: EnvFilter,
    stderr_ansi: bool,
    log_dir: Option<&Path>,
) -> (impl Subscriber + Send + Sync + 'static, LogGuard) {
    let mut guard = LogGuard::default();
    let file_writer = match log_dir.map(|dir| (dir, file_writer(dir))) {
        None => None,
        Some((dir, Ok((writer, worker)))) => {
            guard.log_dir = Some(dir.to_path_buf());
            guard._worker = Some(worker);
            Some(writer)
        }
        Some((_, Err(problem))) => {
            guard.warning = Some(problem);
            None
        }
    };
    let stderr_layer = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(stderr_ansi);
    let file_layer = file_writer.map(|writer| {
        tracing_subscriber::fmt::layer()
            .with_writer(writer)
            .with_ansi(false)
    });
    let subscriber = tracing_subscriber::registry()
        .with(filter)
        .with(stderr_layer)
        .with(file_layer);
    (subscriber, guard)
}

/// A non-blocking writer into the rotating files in `dir`, or why there can't be one.
fn file_writer(dir: &Path) -> Result<(NonBlocking, WorkerGuard), String> {
    let unusable = |e: &dyn std::fmt::Display| {
        format!(
            "cannot log to {}: {e}; logging to stderr only",
            dir.display()
        )
    };
    std::fs::create_dir_all(dir).map_err(|e| unusable(&e))?;
    let appender = RollingFileAppender::builder()
        .rotation(Rotation::DAILY)
        .filename_prefix(LOG_FILE_PREFIX)
        .filename_suffix(LOG_FILE_SUFFIX)
        .max_log_files(MAX_LOG_FILES)
        .build(dir)
        .map_err(|e| unusable(&e))?;
    Ok(tracing_appender::non_blocking(appender))
}

fn join_warnings(a: Option<String>, b: Option<String>) -> Option<String> {
    match (a, b) {
        (Some(a), Some(b)) => Some(format!("{a}; {b}")),
        (a, b) => a.or(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log_files(dir: &Path) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        files.sort();
        files
    }

    #[test]
    fn lines_reach_a_dated_file_in_the_log_folder() {
        let dir = tempfile::tempdir().unwrap();
        let logs = dir.path().join("state").join("logs");
        let (subscriber, guard) = subscriber(EnvFilter::new("info"), false, Some(&logs));
        assert_eq!(guard.log_dir.as_deref(), Some(logs.as_path()));
        assert!(guard.warning.is_none(), "{:?}", guard.warning);
        tracing::subscriber::with_default(subscriber, || {
            tracing::info!(take = 3, "transcribed the recording");
            tracing::debug!("filtered out at info");
        });
        drop(guard); // flushes the background writer

        let files = log_files(&logs);
        assert_eq!(files.len(), 1, "{files:?}");
        let name = files[0].file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            name.starts_with("whisper-dictation.") && name.ends_with(".log"),
            "{name}"
        );
        let text = std::fs::read_to_string(&files[0]).unwrap();
        assert!(text.contains("transcribed the recording"), "{text}");
        assert!(text.contains("take=3"), "{text}");
        assert!(!text.contains("filtered out"), "{text}");
        assert!(
            !text.contains('\u{1b}'),
            "no colour codes in files: {text:?}"
        );
    }

    #[test]
    fn an_unusable_log_folder_degrades_to_stderr_with_a_warning() {
        let dir = tempfile::tempdir().unwrap();
        let blocker = dir.path().join("a-file");
        std::fs::write(&blocker, b"x").unwrap();
        let logs = blocker.join("logs");
        let (subscriber, guard) = subscriber(EnvFilter::new("info"), false, Some(&logs));
        assert!(guard.log_dir.is_none());
        let warning = guard.warning.clone().unwrap();
        assert!(warning.contains("a-file"), "{warning}");
        assert!(warning.contains("stderr only"), "{warning}");
        // Still a working logger.
        tracing::subscriber::with_default(subscriber, || tracing::info!("still logs"));
    }

    #[test]
    fn no_log_folder_means_stderr_only_without_warning() {
        let (_subscriber, guard) = subscriber(EnvFilter::new("info"), false, None);
        assert!(guard.log_dir.is_none() && guard.warning.is_none());
    }

    #[test]
    fn the_environment_filter_wins_and_a_bad_one_falls_back() {
        let (filter, warning) = filter_from(Some("debug".into()), "info");
        assert_eq!(filter.to_string(), "debug");
        assert!(warning.is_none());

        let (filter, warning) = filter_from(None, "warn,whisper_dictation=info");
        assert!(warning.is_none());
        let shown = filter.to_string();
        assert!(shown.contains("whisper_dictation=info"), "{shown}");

        let (filter, warning) = filter_from(Some("   ".into()), "info");
        assert_eq!(filter.to_string(), "info");
        assert!(warning.is_none());

        let (filter, warning) = filter_from(Some("whisper_dictation=loud".into()), "info");
        assert_eq!(filter.to_string(), "info");
        let warning = warning.unwrap();
        assert!(
            warning.contains(LOG_ENV) && warning.contains("loud"),
            "{warning}"
        );
    }

    #[test]
    fn warnings_join() {
        assert_eq!(join_warnings(None, None), None);
        assert_eq!(join_warnings(Some("a".into()), None), Some("a".into()));
        assert_eq!(join_warnings(None, Some("b".into())), Some("b".into()));
        assert_eq!(
            join_warnings(Some("a".into()), Some("b".into())),
            Some("a; b".into())
        );
    }
}
