//! The dictation history: every dictation with its delivered and raw text, the name of its
//! recording in the recordings folder, its timings, model and device, the app it went into and
//! the per-app mode it used, in one SQLite database in the state folder (`history.sqlite3`).
//! This module owns that file and nothing else: the recordings stay owned by `recordings`,
//! which deletes them when the history *releases* their names (a deleted entry, retention,
//! "Forget everything"): the history never deletes a file.
//!
//! An entry's life: added when its dictation ends ([`History::add`]) → starred or not
//! ([`History::set_starred`]) → re-transcribed any number of times ([`History::add_transcription`],
//! the entry's own text unchanged) → its recording released by audio retention (the text kept)
//! → deleted by the person ([`History::delete`], [`History::clear`]) or by text retention
//! ([`History::apply_retention`]); a starred entry is never touched by retention.
//!
//! The database never stands between the person and their words: it opens in WAL mode with a
//! short busy timeout (a locked database is [`HistoryError::Busy`] within ~250 ms, never a
//! long wait), a damaged one is set aside and a new one started ([`Opened::SetAside`]), and
//! every write is one transaction, so a process killed mid-write loses no committed entry.
//!
//! Parts: [`fold`] (case and diacritic folding, the search's query syntax), `schema` (the
//! versioned migrations), `open` (opening, checking and setting aside), `store` (entries and
//! their re-transcriptions, search, the apps recently dictated into), `retention`, `import` (the recordings made before the
//! history existed), `export` (CSV and JSON).

use std::path::{Path, PathBuf};

mod export;
pub mod fold;
mod import;
mod open;
mod retention;
mod schema;
mod store;

pub use export::{csv_line, iso_utc, CSV_COLUMNS};
pub use fold::fold;
pub use open::Opened;
pub use retention::{Pruned, Retention};

/// The database's file name in the state folder.
pub const FILE_NAME: &str = "history.sqlite3";

/// How long a statement waits for another connection's lock before it is [`HistoryError::Busy`].
pub const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_millis(250);

/// Why a history operation failed. Every variant names the database (or the folder or file)
/// and, for SQLite's own errors, what was being done.
#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    #[error("cannot create the folder of the history database {}: {source}", .path.display())]
    CreateDir {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot create the history database {}: {source}", .path.display())]
    Create {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// Another connection (another process) holds the database's lock longer than
    /// [`BUSY_TIMEOUT`]: nothing was changed; try again later.
    #[error("the history database {} is locked by another process ({what})", .path.display())]
    Busy { path: PathBuf, what: &'static str },
    /// A damaged database could not be renamed aside (it is left where it was).
    #[error("cannot set the damaged history database {} aside as {}: {source}", .path.display(), .to.display())]
    SetAside {
        path: PathBuf,
        to: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A new database, created after the damaged one was set aside, is damaged too (a disk or
    /// file system failing): the app runs without history.
    #[error("the new history database {} is unusable too: {why}", .path.display())]
    StillDamaged { path: PathBuf, why: String },
    /// [`History::open_as_is`] found the database damaged and left it alone.
    #[error("the history database {} is damaged: {why}", .path.display())]
    Damaged { path: PathBuf, why: String },
    #[error("history database {}: {what}: {source}", .path.display())]
    Sqlite {
        path: PathBuf,
        what: &'static str,
        #[source]
        source: rusqlite::Error,
    },
    /// An operation on one entry named an entry that does not exist (deleted meanwhile).
    #[error("history database {}: there is no entry {id}", .path.display())]
    NoSuchEntry { path: PathBuf, id: i64 },
    #[error("cannot read the recordings folder {}: {source}", .path.display())]
    ReadRecordings {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot write the history export: {source}")]
    Export {
        #[source]
        source: std::io::Error,
    },
}

impl HistoryError {
    /// Whether this is [`HistoryError::Busy`]: the database is locked by another process.
    pub fn is_busy(&self) -> bool {
        matches!(self, HistoryError::Busy { .. })
    }
}

/// A dictation to be added: what the app knows when it has delivered (or failed to deliver)
/// its text.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct NewEntry {
    /// When the dictation started (key-down), unix milliseconds.
    pub at_ms: i64,
    /// The text delivered (after replacements and spoken commands).
    pub text: String,
    /// The text as the model wrote it.
    pub raw_text: String,
    /// The recording's file name inside the recordings folder (`rec-….wav`), if it is kept.
    pub recording: Option<String>,
    /// The recording's length.
    pub duration_ms: i64,
    /// The language spoken (detected or set), e.g. "pl".
    pub language: Option<String>,
    /// The model that transcribed it ("" for a recording imported without a transcription).
    pub model: String,
    /// Where it ran, e.g. "cpu" or "mps".
    pub device: String,
    /// Why that device was chosen, when the app knows.
    pub device_reason: Option<String>,
    /// Key-up to the text pasted.
    pub key_up_to_pasted_ms: Option<i64>,
    /// The app the text went to, where the platform tells it.
    pub app: Option<String>,
    /// The name of the per-app mode the dictation used: a rule of the person's or a built-in
    /// one (e.g. "Terminal"); `None` when no rule applied (the general settings).
    #[serde(default)]
    pub mode: Option<String>,
}

/// An entry of the history, as stored.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Entry {
    pub id: i64,
    /// Starred entries are never removed by retention.
    pub starred: bool,
    pub at_ms: i64,
    pub text: String,
    pub raw_text: String,
    pub recording: Option<String>,
    pub duration_ms: i64,
    pub language: Option<String>,
    pub model: String,
    pub device: String,
    pub device_reason: Option<String>,
    pub key_up_to_pasted_ms: Option<i64>,
    pub app: Option<String>,
    /// See [`NewEntry::mode`]; `None` also for the entries made before modes were recorded.
    #[serde(default)]
    pub mode: Option<String>,
}

/// A re-transcription of an entry's recording with another model.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Transcription {
    pub model: String,
    pub text: String,
    /// When it was made, unix milliseconds.
    pub at_ms: i64,
}

/// The open history database. One per process (the app's coordinator owns it); every method
/// is one statement or one transaction.
#[derive(Debug)]
pub struct History {
    conn: rusqlite::Connection,
    path: PathBuf,
}

impl History {
    /// Opens the database at `path`, creating it (and its folder, owner-only) when missing,
    /// migrating it to the current schema, or setting it aside when it is damaged or newer
    /// than this app knows and starting a new one; see [`Opened`].
    ///
    /// # Errors
    /// [`HistoryError::Busy`] when another process holds its lock; the folder's, the file's or
    /// SQLite's errors otherwise, naming the file.
    pub fn open(path: &Path) -> Result<(History, Opened), HistoryError> {
        open::open(path)
    }

    /// Opens the database at `path` like [`History::open`], but a damaged one is an error
    /// ([`HistoryError::Damaged`]) and is left where it is: for a second connection (the
    /// History window) beside the owner that sets it aside and tells the person.
    ///
    /// # Errors
    /// As [`History::open`], and [`HistoryError::Damaged`].
    pub fn open_as_is(path: &Path) -> Result<History, HistoryError> {
        open::open_as_is(path)
    }

    /// The database's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Maps a SQLite error of `what` on the database at `path` to [`HistoryError`]: a lock held
/// too long is [`HistoryError::Busy`], anything else [`HistoryError::Sqlite`]. For `map_err`.
fn on<'a>(path: &'a Path, what: &'static str) -> impl FnOnce(rusqlite::Error) -> HistoryError + 'a {
    move |source| sql_error(path, what, source)
}

/// See [`on`].
fn sql_error(path: &Path, what: &'static str, source: rusqlite::Error) -> HistoryError {
    use rusqlite::ErrorCode::{DatabaseBusy, DatabaseLocked};
    match source.sqlite_error_code() {
        Some(DatabaseBusy | DatabaseLocked) => HistoryError::Busy {
            path: path.to_path_buf(),
            what,
        },
        _ => HistoryError::Sqlite {
            path: path.to_path_buf(),
            what,
            source,
        },
    }
}
