//! Where the app's log lines go: stderr (coloured only on a terminal) and, when a log folder is
//! given, daily-rotated files `whisper-dictation.<date>.log` (the last 7 kept) written by a
//! background thread so logging never blocks the hotkey or the audio path. The level filter
//! comes from `$WHISPER_DICTATION_LOG` (`tracing-subscriber` `EnvFilter` syntax, e.g.
//! `debug` or `whisper_dictation=trace`), else the caller's default. A log folder that cannot
//! be used degrades to stderr only with a warning; logging never stops the app from starting.
//!
//! What a log holds: what happened and how long it took (stage timings, lengths, language,
//! device, dictation ids, errors), never what the person dictated. Text that was dictated or
//! recognised goes into a line only through [`dictated`], which writes `<N-chars>` unless text
//! logging is on: `$WHISPER_DICTATION_LOG_TEXT=1` or `"log_text": true` in settings.json, for
//! a bug report ([`set_log_text`]). The log folder and its files are owner-only
//! (`private_files`), the files of later days too.

use std::fmt;
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::SystemTime;

use tracing::Subscriber;
use tracing_appender::non_blocking::{NonBlocking, WorkerGuard};
use tracing_appender::rolling::{RollingFileAppender, Rotation};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::EnvFilter;

/// The environment variable holding the log filter.
pub const LOG_ENV: &str = "WHISPER_DICTATION_LOG";

/// The environment variable that turns text logging on (`1`, `true`, `yes`, `on`) for this run,
/// whatever the settings say.
pub const LOG_TEXT_ENV: &str = "WHISPER_DICTATION_LOG_TEXT";

/// Whether dictated and recognised text is written into log lines (off unless asked for).
static LOG_TEXT: AtomicBool = AtomicBool::new(false);

/// Whether text logging is wanted: the setting, or the environment variable's value (see
/// [`LOG_TEXT_ENV`]) saying yes.
pub fn log_text_wanted(setting: bool, env_value: Option<&str>) -> bool {
    setting
        || env_value.is_some_and(|v| {
            matches!(
                v.trim().to_ascii_lowercase().as_str(),
                "1" | "true" | "yes" | "on"
            )
        })
}

/// Turns text logging on or off for the lines logged from now on: the setting `log_text`,
/// or-ed with [`LOG_TEXT_ENV`]. Returns whether it is on.
pub fn set_log_text(setting: bool) -> bool {
    let on = log_text_wanted(setting, std::env::var(LOG_TEXT_ENV).ok().as_deref());
    let was = LOG_TEXT.swap(on, Ordering::Relaxed);
    if on && !was {
        tracing::warn!(
            "dictated text is written to the log (log_text or ${LOG_TEXT_ENV}); \
             turn it off once the bug report is sent"
        );
    }
    on
}

/// Whether log lines carry dictated text now ([`set_log_text`]).
pub fn log_text() -> bool {
    LOG_TEXT.load(Ordering::Relaxed)
}

/// Dictated or recognised text as a log line may show it: the text itself when text logging is
/// on ([`set_log_text`]), else only its length, `<12-chars>` (no space, so that a field parser
/// takes it whole). Log it as a field with `?` (`text = ?dictated(&text)`: quoted and escaped
/// like a `&str` field) or in a message with `{}`.
pub fn dictated(text: &str) -> Dictated<'_> {
    Dictated {
        text,
        shown: log_text(),
    }
}

/// See [`dictated`].
#[derive(Clone, Copy)]
pub struct Dictated<'a> {
    text: &'a str,
    shown: bool,
}

impl Dictated<'_> {
    fn hidden(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<{}-chars>", self.text.chars().count())
    }
}

impl fmt::Debug for Dictated<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.shown {
            fmt::Debug::fmt(self.text, f)
        } else {
            self.hidden(f)
        }
    }
}

impl fmt::Display for Dictated<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.shown {
            f.write_str(self.text)
        } else {
            self.hidden(f)
        }
    }
}

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
/// its thread (lines logged after that go to stderr only), as [`finish`] does.
#[must_use = "dropping the guard stops writing the log file"]
#[derive(Debug, Default)]
pub struct LogGuard {
    /// The folder the log files are written to; `None` when logging to stderr only.
    pub log_dir: Option<PathBuf>,
    /// A problem worth showing the user (log folder unusable, bad `$WHISPER_DICTATION_LOG`);
    /// the logger works regardless.
    pub warning: Option<String>,
    /// The file writer of a subscriber built but not installed (tests); the installed one's is
    /// in [`INSTALLED_WRITER`].
    _worker: Option<WorkerGuard>,
    /// This guard's logger is the process-wide one ([`init`]): dropping it [`finish`]es.
    installed: bool,
}

impl Drop for LogGuard {
    fn drop(&mut self) {
        if self.installed {
            finish();
        }
    }
}

/// The process-wide logger's file writer ([`init`]), until [`finish`] writes it out.
static INSTALLED_WRITER: std::sync::Mutex<Option<WorkerGuard>> = std::sync::Mutex::new(None);

/// Installs the process-wide logger. Call once, early in `main`.
///
/// # Errors
/// [`LoggingError::AlreadyInstalled`] when a global logger was already set.
pub fn init(log_dir: Option<&Path>, default_filter: &str) -> Result<LogGuard, LoggingError> {
    let (filter, filter_warning) = filter_from(std::env::var(LOG_ENV).ok(), default_filter);
    let (subscriber, mut guard) = subscriber(filter, std::io::stderr().is_terminal(), log_dir);
    subscriber.try_init()?;
    guard.warning = join_warnings(filter_warning, guard.warning.take());
    keep_writer(&mut guard);
    Ok(guard)
}

/// Moves `guard`'s file writer to where [`finish`] finds it.
fn keep_writer(guard: &mut LogGuard) {
    if let Ok(mut installed) = INSTALLED_WRITER.lock() {
        *installed = guard._worker.take();
        guard.installed = true;
    }
}

/// Writes every line logged so far to the log file (waiting up to a second for its writer
/// thread) and stops the file writer: lines logged later go to stderr only. For an end that
/// never returns to `main`, where [`LogGuard`] is not dropped: macOS's logout, when AppKit
/// calls `exit()` right after the app's `applicationWillTerminate:` (`app::shutdown`). Does
/// nothing the second time, or without a log file.
pub fn finish() {
    let writer = INSTALLED_WRITER
        .lock()
        .map(|mut installed| installed.take())
        .unwrap_or_else(|poisoned| poisoned.into_inner().take());
    // WorkerGuard's drop sends the writer thread its shutdown and waits for the flush.
    drop(writer);
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
    crate::private_files::create_dir_all(dir).map_err(|e| unusable(&e))?;
    let appender = RollingFileAppender::builder()
        .rotation(Rotation::DAILY)
        .filename_prefix(LOG_FILE_PREFIX)
        .filename_suffix(LOG_FILE_SUFFIX)
        .max_log_files(MAX_LOG_FILES)
        .build(dir)
        .map_err(|e| unusable(&e))?;
    // The file the appender just opened for today.
    let _ = crate::private_files::narrow_tree(dir);
    Ok(tracing_appender::non_blocking(OwnerOnly::new(
        appender,
        dir.to_path_buf(),
    )))
}

/// The rolling files, kept owner-only: `tracing-appender` creates each day's file with the
/// default mode, so the folder's files are narrowed after the first write of each (UTC) day,
/// the appender's rotation day. Runs on the writer's background thread.
struct OwnerOnly<W> {
    inner: W,
    dir: PathBuf,
    /// The UTC day of the last narrowing (days since 1970); 0 before the first write.
    day: u64,
}

impl<W> OwnerOnly<W> {
    fn new(inner: W, dir: PathBuf) -> OwnerOnly<W> {
        OwnerOnly { inner, dir, day: 0 }
    }
}

fn utc_day(now: SystemTime) -> u64 {
    now.duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() / 86_400)
}

impl<W: Write> Write for OwnerOnly<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let written = self.inner.write(buf)?;
        let today = utc_day(SystemTime::now());
        if today != self.day {
            self.day = today;
            // Not logged from here (this is the log's writer): the next start says it.
            let _ = crate::private_files::narrow_tree(&self.dir);
        }
        Ok(written)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
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
    fn dictated_text_shows_only_its_length_unless_text_logging_is_on() {
        let text = "hasło to żółw 42";
        let hidden = Dictated { text, shown: false };
        assert_eq!(format!("{hidden:?}"), "<16-chars>");
        assert_eq!(format!("{hidden}"), "<16-chars>");
        let shown = Dictated { text, shown: true };
        assert_eq!(format!("{shown:?}"), format!("{text:?}"));
        assert_eq!(format!("{shown}"), text);

        // As a field of a log line.
        let dir = tempfile::tempdir().unwrap();
        let (subscriber, guard) = subscriber(EnvFilter::new("info"), false, Some(dir.path()));
        tracing::subscriber::with_default(subscriber, || {
            tracing::info!(id = 7, text = ?hidden, "dictation done");
            tracing::info!(id = 8, text = ?shown, "dictation done");
        });
        drop(guard);
        let log = std::fs::read_to_string(&log_files(dir.path())[0]).unwrap();
        assert!(log.contains("id=7 text=<16-chars>"), "{log}");
        assert!(log.contains(r#"id=8 text="hasło to żółw 42""#), "{log}");
    }

    #[test]
    fn text_logging_is_asked_for_by_the_setting_or_the_environment() {
        assert!(!log_text_wanted(false, None));
        for off in ["", "0", "false", "no", "off", "maybe"] {
            assert!(!log_text_wanted(false, Some(off)), "{off:?}");
        }
        for on in ["1", "true", "YES", " on "] {
            assert!(log_text_wanted(false, Some(on)), "{on:?}");
        }
        assert!(log_text_wanted(true, None));
        assert!(
            log_text_wanted(true, Some("0")),
            "the setting alone is enough"
        );
    }

    #[cfg(unix)]
    #[test]
    fn log_files_are_owner_only_even_in_an_old_wide_folder() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let logs = dir.path().join("logs");
        let (subscriber, guard) = subscriber(EnvFilter::new("info"), false, Some(&logs));
        tracing::subscriber::with_default(subscriber, || tracing::info!("one line"));
        drop(guard);
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&logs), 0o700);
        let files = log_files(&logs);
        assert_eq!(files.len(), 1);
        assert_eq!(mode(&files[0]), 0o600);

        // A file the appender created with the default mode (a new day's) is narrowed at
        // the first write of the day.
        let day_file = logs.join("whisper-dictation.2000-01-01.log");
        std::fs::write(&day_file, b"").unwrap();
        std::fs::set_permissions(&day_file, std::fs::Permissions::from_mode(0o644)).unwrap();
        let mut writer = OwnerOnly::new(Vec::new(), logs.clone());
        writer.write_all(b"line\n").unwrap();
        assert_eq!(mode(&day_file), 0o600);
        assert_eq!(writer.inner, b"line\n");
    }

    #[test]
    fn finish_writes_the_installed_logger_lines_out_once() {
        // macOS's logout ends the process without dropping main's LogGuard: finish() alone must
        // get the lines into the file.
        let dir = tempfile::tempdir().unwrap();
        let logs = dir.path().join("logs");
        let (subscriber, mut guard) = subscriber(EnvFilter::new("info"), false, Some(&logs));
        keep_writer(&mut guard);
        assert!(guard._worker.is_none() && guard.installed);
        tracing::subscriber::with_default(subscriber, || {
            tracing::info!("ended by the system");
            finish();
            tracing::info!("after the end");
        });
        let files = log_files(&logs);
        assert_eq!(files.len(), 1, "{files:?}");
        let text = std::fs::read_to_string(&files[0]).unwrap();
        assert!(text.contains("ended by the system"), "{text:?}");
        assert!(!text.contains("after the end"), "{text:?}");
        // The second time (the guard's drop after a Quit) there is nothing left to do.
        finish();
        drop(guard);
        assert!(INSTALLED_WRITER.lock().unwrap().is_none());
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
