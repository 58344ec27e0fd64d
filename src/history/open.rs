//! Opening the history database: creating it owner-only, checking it, migrating it, and
//! setting a damaged one aside.
//!
//! A file is *damaged* when SQLite says it is not a database or is corrupt, when
//! `PRAGMA quick_check` finds anything wrong, when its schema version is newer than this build
//! knows (a newer app wrote it: its data cannot be read safely), when it has tables but no
//! version (not a history database), or when a table of the current schema is missing. A
//! damaged file is renamed `<name>.damaged-<unix secs>` with its `-wal`, `-shm` and `-journal`
//! files beside it (so the set-aside file still opens with its last writes) and a new database
//! is started. Any other failure (a lock held by another process, a disk error) is an error,
//! and the file is left alone: a database is never set aside for a transient reason.
//!
//! The connection: WAL journal (readers never wait for the writer; a killed process loses no
//! committed transaction), `synchronous = NORMAL` (in WAL mode: no fsync per commit, and still
//! no corruption; a power cut may lose the last commits), `foreign_keys` on (a re-transcription
//! goes with its entry), `secure_delete` on (a deleted dictation's text is overwritten in the
//! file, not left in a free page), and [`BUSY_TIMEOUT`](super::BUSY_TIMEOUT).

use std::io;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use rusqlite::{Connection, ErrorCode};

use super::{schema, sql_error, History, HistoryError, BUSY_TIMEOUT};

/// What [`History::open`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Opened {
    /// There was no database (or an empty one): a new history starts.
    Created,
    /// The database was there and is usable (migrated if it was older).
    Existing,
    /// The database was damaged (see the module doc): it was renamed to `damaged` (its
    /// `-wal`/`-shm` beside it) and a new history starts. The app should say so.
    SetAside { damaged: PathBuf },
}

/// The files SQLite keeps beside a database, by the suffix added to its name.
const SIDE_FILES: &[&str] = &["-wal", "-shm", "-journal"];

/// What one attempt to open found.
enum Attempt {
    Usable(History, Opened),
    /// Damaged, and why (for the log).
    Damaged(String),
}

pub(super) fn open(path: &Path) -> Result<(History, Opened), HistoryError> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        crate::private_files::create_dir_all(parent).map_err(|source| HistoryError::CreateDir {
            path: parent.to_path_buf(),
            source,
        })?;
    }
    let why = match attempt(path)? {
        Attempt::Usable(history, opened) => return Ok((history, opened)),
        Attempt::Damaged(why) => why,
    };
    let damaged = set_aside(path)?;
    tracing::warn!(
        "the history database {} is damaged ({why}): set aside as {}, a new one started",
        path.display(),
        damaged.display()
    );
    match attempt(path)? {
        Attempt::Usable(history, _) => Ok((history, Opened::SetAside { damaged })),
        Attempt::Damaged(why) => Err(HistoryError::StillDamaged {
            path: path.to_path_buf(),
            why,
        }),
    }
}

/// One attempt, never setting the file aside ([`History::open_as_is`]).
pub(super) fn open_as_is(path: &Path) -> Result<History, HistoryError> {
    match attempt(path)? {
        Attempt::Usable(history, _) => Ok(history),
        Attempt::Damaged(why) => Err(HistoryError::Damaged {
            path: path.to_path_buf(),
            why,
        }),
    }
}

/// Opens, checks and migrates the database at `path` (creating the file owner-only first
/// when there is none).
fn attempt(path: &Path) -> Result<Attempt, HistoryError> {
    create_owner_only(path)?;
    let mut conn = Connection::open(path).map_err(|e| sql_error(path, "opening", e))?;
    conn.busy_timeout(BUSY_TIMEOUT)
        .map_err(|e| sql_error(path, "setting the busy timeout", e))?;

    let damaged = |e: rusqlite::Error, what: &'static str| -> Result<Attempt, HistoryError> {
        if is_damage(&e) {
            Ok(Attempt::Damaged(format!("{what}: {e}")))
        } else {
            Err(sql_error(path, what, e))
        }
    };
    match check(&conn) {
        Ok(Some(why)) => return Ok(Attempt::Damaged(why)),
        Ok(None) => {}
        Err(e) => return damaged(e, "checking"),
    }
    let created = match schema::version(&conn).and_then(|v| Ok(v == 0 && schema::is_empty(&conn)?))
    {
        Ok(created) => created,
        Err(e) => return damaged(e, "reading the schema"),
    };
    if let Err(e) = configure(&conn) {
        return damaged(e, "configuring the connection");
    }
    if let Err((what, e)) = schema::migrate_to(&mut conn, schema::CURRENT) {
        return damaged(e, what);
    }
    match schema::missing_tables(&conn) {
        Ok(missing) if !missing.is_empty() => {
            return Ok(Attempt::Damaged(format!(
                "tables missing: {}",
                missing.join(", ")
            )))
        }
        Ok(_) => {}
        Err(e) => return damaged(e, "reading the schema"),
    }
    let opened = if created {
        Opened::Created
    } else {
        Opened::Existing
    };
    Ok(Attempt::Usable(
        History {
            conn,
            path: path.to_path_buf(),
        },
        opened,
    ))
}

/// Creates `path` empty and owner-only when it does not exist (SQLite would create it with
/// the umask's mode; its `-wal` and `-shm` files take the database file's mode).
fn create_owner_only(path: &Path) -> Result<(), HistoryError> {
    match crate::private_files::open_options()
        .write(true)
        .create_new(true)
        .open(path)
    {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(()),
        Err(source) => Err(HistoryError::Create {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// Why the open database is damaged, if it is: `quick_check`'s findings, a schema version
/// newer than [`schema::CURRENT`], or tables without a version. SQLite's errors are returned
/// as they are (a file that is not a database fails the first statement).
fn check(conn: &Connection) -> rusqlite::Result<Option<String>> {
    let mut statement = conn.prepare("PRAGMA quick_check")?;
    let findings: Vec<String> = statement
        .query_map([], |row| row.get::<_, String>(0))?
        .collect::<Result<_, _>>()?;
    if findings != ["ok"] {
        let first: Vec<&str> = findings.iter().take(3).map(String::as_str).collect();
        return Ok(Some(format!("quick_check: {}", first.join("; "))));
    }
    let version = schema::version(conn)?;
    if version > schema::CURRENT {
        return Ok(Some(format!(
            "its schema version {version} is newer than this app's {}",
            schema::CURRENT
        )));
    }
    if version < 0 || (version == 0 && !schema::is_empty(conn)?) {
        return Ok(Some(format!(
            "not a history database (schema version {version} with tables)"
        )));
    }
    Ok(None)
}

/// The connection's settings (see the module doc).
fn configure(conn: &Connection) -> rusqlite::Result<()> {
    let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))?;
    if !mode.eq_ignore_ascii_case("wal") {
        tracing::warn!("the history database stays in journal mode {mode}: WAL is not available");
    }
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.pragma_update(None, "foreign_keys", true)?;
    conn.pragma_update(None, "secure_delete", true)?;
    Ok(())
}

/// Whether `e` says the file is not a database or is corrupt (as opposed to locked, or a
/// disk error).
fn is_damage(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt)
    )
}

/// Renames the database at `path` and its side files to `<name>.damaged-<unix secs>[-n]`
/// (`-n` when that name is taken), returning the new name of the database. A side file that
/// cannot be moved is deleted (a `-wal` left behind would be read as the new database's).
fn set_aside(path: &Path) -> Result<PathBuf, HistoryError> {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let name = path
        .file_name()
        .map_or_else(|| "history".into(), |n| n.to_string_lossy().into_owned());
    let mut target = path.with_file_name(format!("{name}.damaged-{secs}"));
    let mut n = 1;
    while target.exists() || side_file(&target, "-wal").exists() {
        n += 1;
        target = path.with_file_name(format!("{name}.damaged-{secs}-{n}"));
    }
    std::fs::rename(path, &target).map_err(|source| HistoryError::SetAside {
        path: path.to_path_buf(),
        to: target.clone(),
        source,
    })?;
    for suffix in SIDE_FILES {
        let side = side_file(path, suffix);
        if !side.exists() {
            continue;
        }
        let to = side_file(&target, suffix);
        if let Err(e) = std::fs::rename(&side, &to) {
            tracing::warn!("cannot move {} aside: {e}", side.display());
            std::fs::remove_file(&side).map_err(|source| HistoryError::SetAside {
                path: side.clone(),
                to,
                source,
            })?;
        }
    }
    Ok(target)
}

/// `path` with `suffix` added to its file name (`history.sqlite3` → `history.sqlite3-wal`).
fn side_file(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_os_string();
    name.push(suffix);
    PathBuf::from(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn side_files_are_named_after_the_database() {
        assert_eq!(
            side_file(Path::new("/s/history.sqlite3"), "-wal"),
            PathBuf::from("/s/history.sqlite3-wal")
        );
    }

    #[test]
    fn setting_aside_twice_in_a_second_keeps_both() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("history.sqlite3");
        std::fs::write(&path, b"one").unwrap();
        std::fs::write(side_file(&path, "-wal"), b"wal one").unwrap();
        let first = set_aside(&path).unwrap();
        std::fs::write(&path, b"two").unwrap();
        let second = set_aside(&path).unwrap();
        assert_ne!(first, second);
        assert_eq!(std::fs::read(&first).unwrap(), b"one");
        assert_eq!(
            std::fs::read(side_file(&first, "-wal")).unwrap(),
            b"wal one"
        );
        assert_eq!(std::fs::read(&second).unwrap(), b"two");
        assert!(!path.exists());
        assert!(!side_file(&path, "-wal").exists());
    }
}
