//! The history database's schema, versioned with `PRAGMA user_version`: an ordered list of
//! migration steps, step `n` taking a database at version `n - 1` to version `n`, each run in
//! one transaction together with the version it sets, so a crash mid-migration leaves the
//! database at the version before the step. Steps are only ever appended: a released step is
//! never edited (databases in the field ran it as it was).
//!
//! Version 1: `meta` (key/value flags), `entries` (one row per dictation) and `entries_fts`
//! (the search index: the [`fold`](super::fold())ed text of each entry, rowid = entry id,
//! contentless so the text is not stored twice). Version 2: `transcriptions` (an entry
//! re-transcribed with other models). Version 3: `entries.mode` (the per-app mode a dictation
//! used; `NULL` for the entries before it and for a dictation no rule applied to) and an index
//! of the apps by time (the apps recently dictated into, offered for a mode's rule).

use rusqlite::{Connection, Transaction, TransactionBehavior};

/// One migration step: its name (for errors) and its SQL.
pub(super) struct Step {
    pub name: &'static str,
    pub sql: &'static str,
}

/// The steps, in order: `STEPS[i]` takes version `i` to `i + 1`.
pub(super) const STEPS: &[Step] = &[
    Step {
        name: "creating the entries and the search index (version 1)",
        sql: "
            CREATE TABLE meta (
                key TEXT PRIMARY KEY NOT NULL,
                value TEXT NOT NULL
            );
            CREATE TABLE entries (
                id INTEGER PRIMARY KEY,
                at_ms INTEGER NOT NULL,
                text TEXT NOT NULL,
                raw_text TEXT NOT NULL,
                recording TEXT,
                duration_ms INTEGER NOT NULL,
                language TEXT,
                model TEXT NOT NULL,
                device TEXT NOT NULL,
                device_reason TEXT,
                key_up_to_pasted_ms INTEGER,
                app TEXT,
                starred INTEGER NOT NULL DEFAULT 0
            );
            CREATE INDEX entries_by_time ON entries (at_ms, id);
            CREATE INDEX entries_by_recording ON entries (recording) WHERE recording IS NOT NULL;
            CREATE VIRTUAL TABLE entries_fts USING fts5 (
                text,
                content = '',
                contentless_delete = 1,
                tokenize = 'unicode61 remove_diacritics 2'
            );
        ",
    },
    Step {
        name: "adding re-transcriptions (version 2)",
        sql: "
            CREATE TABLE transcriptions (
                id INTEGER PRIMARY KEY,
                entry_id INTEGER NOT NULL REFERENCES entries (id) ON DELETE CASCADE,
                model TEXT NOT NULL,
                text TEXT NOT NULL,
                at_ms INTEGER NOT NULL
            );
            CREATE INDEX transcriptions_by_entry ON transcriptions (entry_id, at_ms);
        ",
    },
    Step {
        name: "adding the mode each dictation used (version 3)",
        sql: "
            ALTER TABLE entries ADD COLUMN mode TEXT;
            CREATE INDEX entries_by_app ON entries (app, at_ms) WHERE app IS NOT NULL;
        ",
    },
];

/// The schema version this build writes and understands.
pub(super) const CURRENT: i64 = STEPS.len() as i64;

/// The tables a database at [`CURRENT`] has; one missing means the file is not (any more) a
/// history database this app can use.
pub(super) const TABLES: &[&str] = &["meta", "entries", "entries_fts", "transcriptions"];

/// The database's `user_version`.
pub(super) fn version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row("PRAGMA user_version", [], |row| row.get(0))
}

/// Runs the steps after the database's version up to `target`, one transaction each.
/// Returns the name of the step that failed with its error.
pub(super) fn migrate_to(
    conn: &mut Connection,
    target: i64,
) -> Result<(), (&'static str, rusqlite::Error)> {
    let start = version(conn).map_err(|e| ("reading the schema version", e))?;
    for (index, step) in STEPS.iter().enumerate() {
        let to = index as i64 + 1;
        if to <= start || to > target {
            continue;
        }
        let run = |tx: &Transaction| {
            tx.execute_batch(step.sql)?;
            tx.pragma_update(None, "user_version", to)
        };
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| (step.name, e))?;
        run(&tx).map_err(|e| (step.name, e))?;
        tx.commit().map_err(|e| (step.name, e))?;
    }
    Ok(())
}

/// The [`TABLES`] missing from the database.
pub(super) fn missing_tables(conn: &Connection) -> rusqlite::Result<Vec<&'static str>> {
    let mut missing = Vec::new();
    for table in TABLES {
        let found: bool = conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?1)",
            [table],
            |row| row.get(0),
        )?;
        if !found {
            missing.push(*table);
        }
    }
    Ok(missing)
}

/// Whether the database has no schema objects at all (a new file, or an empty database).
pub(super) fn is_empty(conn: &Connection) -> rusqlite::Result<bool> {
    conn.query_row(
        "SELECT NOT EXISTS (SELECT 1 FROM sqlite_schema)",
        [],
        |row| row.get(0),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::{History, NewEntry, Opened};

    /// A version 1 database made by the first step only, with two entries (one starred,
    /// one with a recording) in the table and the index, as version 1 wrote them.
    fn version_1_database(path: &std::path::Path) {
        let mut conn = Connection::open(path).unwrap();
        conn.pragma_update(None, "journal_mode", "WAL").unwrap();
        migrate_to(&mut conn, 1).unwrap();
        assert_eq!(version(&conn).unwrap(), 1);
        let tx = conn.transaction().unwrap();
        for (id, text, recording, starred) in [
            (
                1,
                "Żółw idzie do Łodzi",
                Some("rec-001700000000000-000001.wav"),
                1,
            ),
            (2, "Meeting notes for Monday", None, 0),
        ] {
            tx.execute(
                "INSERT INTO entries (id, at_ms, text, raw_text, recording, duration_ms, \
                 language, model, device, device_reason, key_up_to_pasted_ms, app, starred) \
                 VALUES (?1, ?2, ?3, ?3, ?4, 1500, 'pl', 'base', 'cpu', NULL, 120, NULL, ?5)",
                rusqlite::params![id, 1_700_000_000_000i64 + id, text, recording, starred],
            )
            .unwrap();
            tx.execute(
                "INSERT INTO entries_fts (rowid, text) VALUES (?1, ?2)",
                rusqlite::params![id, crate::history::fold(text)],
            )
            .unwrap();
        }
        tx.commit().unwrap();
    }

    #[test]
    fn a_version_1_database_is_migrated_keeping_its_entries() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("history.sqlite3");
        version_1_database(&path);

        let (mut history, opened) = History::open(&path).unwrap();
        assert_eq!(opened, Opened::Existing);
        assert_eq!(version(&history.conn).unwrap(), CURRENT);
        assert!(missing_tables(&history.conn).unwrap().is_empty());
        assert_eq!(history.count().unwrap(), 2);
        let first = history.get(1).unwrap().unwrap();
        assert_eq!(first.text, "Żółw idzie do Łodzi");
        assert!(first.starred);
        assert_eq!(
            first.recording.as_deref(),
            Some("rec-001700000000000-000001.wav")
        );
        assert_eq!(first.key_up_to_pasted_ms, Some(120));
        // The old index still finds the old entries, and the new table works for them.
        let found = history.search("zolw lodzi", 10).unwrap();
        assert_eq!(found.iter().map(|e| e.id).collect::<Vec<_>>(), vec![1]);
        history
            .add_transcription(1, "large-v3", "Żółw idzie do Łodzi.", 5)
            .unwrap();
        assert_eq!(history.transcriptions(1).unwrap().len(), 1);
        // New entries go after the old ones.
        let id = history.add(&NewEntry::default()).unwrap();
        assert_eq!(id, 3);
    }

    /// A version 2 database made by the first two steps, with two entries (one with an app)
    /// and a re-transcription, as version 2 wrote them.
    fn version_2_database(path: &std::path::Path) {
        let mut conn = Connection::open(path).unwrap();
        conn.pragma_update(None, "journal_mode", "WAL").unwrap();
        migrate_to(&mut conn, 2).unwrap();
        assert_eq!(version(&conn).unwrap(), 2);
        let tx = conn.transaction().unwrap();
        for (id, text, app) in [
            (1, "Zażółć gęślą jaźń", Some("xterm")),
            (2, "Meeting notes for Monday", None),
        ] {
            tx.execute(
                "INSERT INTO entries (id, at_ms, text, raw_text, recording, duration_ms, \
                 language, model, device, device_reason, key_up_to_pasted_ms, app, starred) \
                 VALUES (?1, ?2, ?3, ?3, NULL, 1500, 'pl', 'base', 'cpu', NULL, 120, ?4, 0)",
                rusqlite::params![id, 1_700_000_000_000i64 + id, text, app],
            )
            .unwrap();
            tx.execute(
                "INSERT INTO entries_fts (rowid, text) VALUES (?1, ?2)",
                rusqlite::params![id, crate::history::fold(text)],
            )
            .unwrap();
        }
        tx.execute(
            "INSERT INTO transcriptions (entry_id, model, text, at_ms) \
             VALUES (1, 'small', 'Zażółć gęślą jaźń.', 5)",
            [],
        )
        .unwrap();
        tx.commit().unwrap();
    }

    #[test]
    fn a_version_2_database_is_migrated_keeping_its_entries_and_gains_the_mode() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("history.sqlite3");
        version_2_database(&path);

        let (mut history, opened) = History::open(&path).unwrap();
        assert_eq!(opened, Opened::Existing);
        assert_eq!(version(&history.conn).unwrap(), CURRENT);
        assert_eq!(history.count().unwrap(), 2);
        let first = history.get(1).unwrap().unwrap();
        assert_eq!(first.text, "Zażółć gęślą jaźń");
        assert_eq!(first.app.as_deref(), Some("xterm"));
        // The entries from before modes were recorded have none.
        assert_eq!(first.mode, None);
        assert_eq!(history.get(2).unwrap().unwrap().mode, None);
        assert_eq!(history.transcriptions(1).unwrap().len(), 1);
        let found = history.search("zazolc", 10).unwrap();
        assert_eq!(found.iter().map(|e| e.id).collect::<Vec<_>>(), vec![1]);
        assert_eq!(history.recent_apps(10).unwrap(), vec!["xterm"]);
        // New entries keep their mode.
        let id = history
            .add(&NewEntry {
                app: Some("kitty".into()),
                mode: Some("Terminal".into()),
                ..NewEntry::default()
            })
            .unwrap();
        assert_eq!(id, 3);
        assert_eq!(
            history.get(id).unwrap().unwrap().mode.as_deref(),
            Some("Terminal")
        );
    }

    #[test]
    fn reopening_a_current_database_runs_no_step_and_keeps_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("history.sqlite3");
        let (mut history, opened) = History::open(&path).unwrap();
        assert_eq!(opened, Opened::Created);
        history
            .add(&NewEntry {
                text: "raz".into(),
                ..NewEntry::default()
            })
            .unwrap();
        drop(history);
        for _ in 0..2 {
            let (history, opened) = History::open(&path).unwrap();
            assert_eq!(opened, Opened::Existing);
            assert_eq!(version(&history.conn).unwrap(), CURRENT);
            assert_eq!(history.count().unwrap(), 1);
        }
    }

    #[test]
    fn a_failed_step_leaves_the_version_before_it() {
        let dir = tempfile::tempdir().unwrap();
        let mut conn = Connection::open(dir.path().join("h.sqlite3")).unwrap();
        migrate_to(&mut conn, 1).unwrap();
        // A table in the way of step 2: the step fails and its transaction is rolled back.
        conn.execute_batch("CREATE TABLE transcriptions (x)")
            .unwrap();
        let (name, _) = migrate_to(&mut conn, CURRENT).unwrap_err();
        assert_eq!(name, STEPS[1].name);
        assert_eq!(version(&conn).unwrap(), 1);
    }
}
