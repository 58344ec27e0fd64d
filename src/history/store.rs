//! The entries themselves: adding, reading, searching, starring, deleting, re-transcriptions,
//! the apps recently dictated into, and "Forget everything". Every change to an entry and its search index is one transaction
//! (`BEGIN IMMEDIATE`, so a lock held by another process is found before anything is done).
//!
//! A recording's name is *released* (returned to the caller, who deletes the file through
//! `recordings`) only when no remaining entry refers to it.

use std::collections::HashSet;

use rusqlite::{params, OptionalExtension, Row, Transaction, TransactionBehavior};

use super::fold::{fold, match_expression};
use super::{on, Entry, History, HistoryError, NewEntry, Transcription};

/// The columns read into an [`Entry`], in [`entry_of`]'s order; `e` is the entries table.
pub(super) const ENTRY_COLUMNS: &str = "e.id, e.starred, e.at_ms, e.text, e.raw_text, \
     e.recording, e.duration_ms, e.language, e.model, e.device, e.device_reason, \
     e.key_up_to_pasted_ms, e.app, e.mode";

/// An [`Entry`] from a row of [`ENTRY_COLUMNS`]. A value of the wrong type (a hand-edited
/// database) is an error, never a panic.
pub(super) fn entry_of(row: &Row) -> rusqlite::Result<Entry> {
    Ok(Entry {
        id: row.get(0)?,
        starred: row.get::<_, i64>(1)? != 0,
        at_ms: row.get(2)?,
        text: row.get(3)?,
        raw_text: row.get(4)?,
        recording: row.get(5)?,
        duration_ms: row.get(6)?,
        language: row.get(7)?,
        model: row.get(8)?,
        device: row.get(9)?,
        device_reason: row.get(10)?,
        key_up_to_pasted_ms: row.get(11)?,
        app: row.get(12)?,
        mode: row.get(13)?,
    })
}

impl History {
    /// Adds a dictation and indexes its delivered text; returns its id. Ids grow: a later
    /// entry has a larger id.
    ///
    /// # Errors
    /// [`HistoryError::Busy`] when another process holds the lock; SQLite's otherwise.
    pub fn add(&mut self, entry: &NewEntry) -> Result<i64, HistoryError> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(on(&self.path, "starting to add an entry"))?;
        let id = insert(&tx, entry).map_err(on(&self.path, "adding an entry"))?;
        tx.commit()
            .map_err(on(&self.path, "committing a new entry"))?;
        Ok(id)
    }

    /// The entry `id`, if there is one.
    pub fn get(&self, id: i64) -> Result<Option<Entry>, HistoryError> {
        self.conn
            .query_row(
                &format!("SELECT {ENTRY_COLUMNS} FROM entries e WHERE e.id = ?1"),
                [id],
                entry_of,
            )
            .optional()
            .map_err(on(&self.path, "reading an entry"))
    }

    /// The newest `limit` entries, newest first.
    pub fn recent(&self, limit: usize) -> Result<Vec<Entry>, HistoryError> {
        let sql = format!(
            "SELECT {ENTRY_COLUMNS} FROM entries e ORDER BY e.at_ms DESC, e.id DESC LIMIT ?1"
        );
        self.entries(&sql, params![limit_of(limit)], "reading the recent entries")
    }

    /// The newest `limit` entries whose delivered text has every word of `query`, ignoring
    /// case and diacritics, the last word as a prefix ([`match_expression`]); newest first.
    /// A query with nothing searchable in it (empty, only spaces or punctuation) is
    /// [`Self::recent`].
    ///
    /// "Newest" here is the last added (the largest id): the index walks its ids downwards
    /// and stops at `limit`, so a word in most of 10,000 entries costs no more than a rare
    /// one (sorting the matches by `at_ms` instead cost 20–50 times more). Ids follow time
    /// as long as dictations are added as they end; the one exception, recordings imported
    /// after entries were added ([`Self::import_recordings_once`]), has no text to be found.
    pub fn search(&self, query: &str, limit: usize) -> Result<Vec<Entry>, HistoryError> {
        let Some(expression) = match_expression(query) else {
            return self.recent(limit);
        };
        let sql = format!(
            "SELECT {ENTRY_COLUMNS} FROM entries_fts f JOIN entries e ON e.id = f.rowid \
             WHERE entries_fts MATCH ?1 ORDER BY f.rowid DESC LIMIT ?2"
        );
        self.entries(&sql, params![expression, limit_of(limit)], "searching")
    }

    /// Stars or unstars entry `id`; `false` when there is no such entry.
    pub fn set_starred(&mut self, id: i64, starred: bool) -> Result<bool, HistoryError> {
        let changed = self
            .conn
            .execute(
                "UPDATE entries SET starred = ?2 WHERE id = ?1",
                params![id, starred],
            )
            .map_err(on(&self.path, "starring an entry"))?;
        Ok(changed > 0)
    }

    /// Deletes entry `id` (with its re-transcriptions and its search index row). Returns its
    /// recording's file name for the caller to delete, when it had one no other entry uses;
    /// `None` also when there was no such entry.
    pub fn delete(&mut self, id: i64) -> Result<Option<String>, HistoryError> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(on(&self.path, "starting to delete an entry"))?;
        let recording = delete_entries(&tx, "id = ?1", params![id])
            .map_err(on(&self.path, "deleting an entry"))?;
        let released = unreferenced(&tx, recording).map_err(on(&self.path, "deleting an entry"))?;
        tx.commit()
            .map_err(on(&self.path, "committing a deletion"))?;
        Ok(released.into_iter().next())
    }

    /// Records that entry `id`'s recording was transcribed again with `model`, giving `text`
    /// at `at_ms`; returns the transcription's id. The entry's own text is unchanged.
    ///
    /// # Errors
    /// [`HistoryError::NoSuchEntry`] when the entry is gone; SQLite's otherwise.
    pub fn add_transcription(
        &mut self,
        entry_id: i64,
        model: &str,
        text: &str,
        at_ms: i64,
    ) -> Result<i64, HistoryError> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(on(&self.path, "starting to add a transcription"))?;
        let exists: bool = tx
            .query_row(
                "SELECT EXISTS (SELECT 1 FROM entries WHERE id = ?1)",
                [entry_id],
                |row| row.get(0),
            )
            .map_err(on(&self.path, "adding a transcription"))?;
        if !exists {
            return Err(HistoryError::NoSuchEntry {
                path: self.path.clone(),
                id: entry_id,
            });
        }
        tx.execute(
            "INSERT INTO transcriptions (entry_id, model, text, at_ms) VALUES (?1, ?2, ?3, ?4)",
            params![entry_id, model, text, at_ms],
        )
        .map_err(on(&self.path, "adding a transcription"))?;
        let id = tx.last_insert_rowid();
        tx.commit()
            .map_err(on(&self.path, "committing a transcription"))?;
        Ok(id)
    }

    /// Entry `entry_id`'s re-transcriptions, oldest first (none for an unknown entry).
    pub fn transcriptions(&self, entry_id: i64) -> Result<Vec<Transcription>, HistoryError> {
        let read = || -> rusqlite::Result<Vec<Transcription>> {
            let mut statement = self.conn.prepare_cached(
                "SELECT model, text, at_ms FROM transcriptions WHERE entry_id = ?1 \
                 ORDER BY at_ms, id",
            )?;
            let rows = statement.query_map([entry_id], |row| {
                Ok(Transcription {
                    model: row.get(0)?,
                    text: row.get(1)?,
                    at_ms: row.get(2)?,
                })
            })?;
            rows.collect()
        };
        read().map_err(on(&self.path, "reading the transcriptions"))
    }

    /// The newest re-transcription of each of `entry_ids` that has one, as (entry id, it), in
    /// no particular order: what the History page shows under each entry it lists.
    pub fn latest_transcriptions(
        &self,
        entry_ids: &[i64],
    ) -> Result<Vec<(i64, Transcription)>, HistoryError> {
        if entry_ids.is_empty() {
            return Ok(Vec::new());
        }
        // Integers from the database itself, written into the statement (no text goes in).
        let ids: Vec<String> = entry_ids.iter().map(i64::to_string).collect();
        let sql = format!(
            "SELECT entry_id, model, text, at_ms FROM transcriptions WHERE entry_id IN ({}) \
             ORDER BY entry_id, at_ms, id",
            ids.join(",")
        );
        let read = || -> rusqlite::Result<Vec<(i64, Transcription)>> {
            let mut statement = self.conn.prepare(&sql)?;
            let rows = statement.query_map([], |row| {
                Ok((
                    row.get(0)?,
                    Transcription {
                        model: row.get(1)?,
                        text: row.get(2)?,
                        at_ms: row.get(3)?,
                    },
                ))
            })?;
            let mut latest: Vec<(i64, Transcription)> = Vec::new();
            for row in rows {
                let (id, transcription) = row?;
                match latest.last_mut() {
                    Some((last, newest)) if *last == id => *newest = transcription,
                    _ => latest.push((id, transcription)),
                }
            }
            Ok(latest)
        };
        read().map_err(on(&self.path, "reading the latest transcriptions"))
    }

    /// "Forget everything": deletes every entry (starred too), every re-transcription and the
    /// whole search index, then empties the WAL so no deleted text is
    /// left in the files. Returns every recording name the entries had, for the caller to
    /// delete. The database itself stays (and remembers that recordings were imported).
    pub fn clear(&mut self) -> Result<Vec<String>, HistoryError> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(on(&self.path, "starting to forget everything"))?;
        let forget = |tx: &Transaction| -> rusqlite::Result<Vec<String>> {
            let names = {
                let mut statement = tx.prepare(
                    "SELECT DISTINCT recording FROM entries WHERE recording IS NOT NULL \
                     ORDER BY recording",
                )?;
                let rows = statement.query_map([], |row| row.get::<_, String>(0))?;
                rows.collect::<rusqlite::Result<Vec<String>>>()?
            };
            tx.execute("DELETE FROM transcriptions", [])?;
            tx.execute("DELETE FROM entries", [])?;
            tx.execute(
                "INSERT INTO entries_fts (entries_fts) VALUES ('delete-all')",
                [],
            )?;
            Ok(names)
        };
        let names = forget(&tx).map_err(on(&self.path, "forgetting everything"))?;
        tx.commit()
            .map_err(on(&self.path, "committing forgetting everything"))?;
        // Best effort: a reader elsewhere may keep the WAL from being emptied now; it is
        // emptied at a later checkpoint, and its deleted pages were zeroed (secure_delete).
        if let Err(e) = self
            .conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
        {
            tracing::warn!("history: cannot empty the WAL after forgetting everything: {e}");
        }
        Ok(names)
    }

    /// The apps dictated into (an entry's `app`, those neither absent nor blank), each once,
    /// the most recently used first (by its newest entry's time), at most `limit`: what the
    /// Settings page offers as the apps of a mode's rule.
    pub fn recent_apps(&self, limit: usize) -> Result<Vec<String>, HistoryError> {
        let read = || -> rusqlite::Result<Vec<String>> {
            let mut statement = self.conn.prepare_cached(
                "SELECT app FROM entries WHERE app IS NOT NULL AND trim(app) <> '' \
                 GROUP BY app ORDER BY max(at_ms) DESC, max(id) DESC LIMIT ?1",
            )?;
            let rows = statement.query_map([limit_of(limit)], |row| row.get::<_, String>(0))?;
            rows.collect()
        };
        read().map_err(on(&self.path, "reading the recent apps"))
    }

    /// How many entries there are.
    pub fn count(&self) -> Result<usize, HistoryError> {
        let count: i64 = self
            .conn
            .query_row("SELECT COUNT(*) FROM entries", [], |row| row.get(0))
            .map_err(on(&self.path, "counting the entries"))?;
        Ok(usize::try_from(count).unwrap_or(0))
    }

    /// The recording file names the entries refer to.
    pub fn recording_names(&self) -> Result<HashSet<String>, HistoryError> {
        let read = || -> rusqlite::Result<HashSet<String>> {
            let mut statement = self
                .conn
                .prepare("SELECT recording FROM entries WHERE recording IS NOT NULL")?;
            let rows = statement.query_map([], |row| row.get::<_, String>(0))?;
            rows.collect()
        };
        read().map_err(on(&self.path, "reading the recording names"))
    }

    /// The entries a query of [`ENTRY_COLUMNS`] returns.
    fn entries(
        &self,
        sql: &str,
        params: impl rusqlite::Params,
        what: &'static str,
    ) -> Result<Vec<Entry>, HistoryError> {
        let read = || -> rusqlite::Result<Vec<Entry>> {
            let mut statement = self.conn.prepare_cached(sql)?;
            let rows = statement.query_map(params, entry_of)?;
            rows.collect()
        };
        read().map_err(on(&self.path, what))
    }
}

/// Inserts `entry` and its index row in `tx`; returns its id.
pub(super) fn insert(tx: &Transaction, entry: &NewEntry) -> rusqlite::Result<i64> {
    tx.prepare_cached(
        "INSERT INTO entries (at_ms, text, raw_text, recording, duration_ms, language, model, \
         device, device_reason, key_up_to_pasted_ms, app, mode) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
    )?
    .execute(params![
        entry.at_ms,
        entry.text,
        entry.raw_text,
        entry.recording,
        entry.duration_ms,
        entry.language,
        entry.model,
        entry.device,
        entry.device_reason,
        entry.key_up_to_pasted_ms,
        entry.app,
        entry.mode,
    ])?;
    let id = tx.last_insert_rowid();
    tx.prepare_cached("INSERT INTO entries_fts (rowid, text) VALUES (?1, ?2)")?
        .execute(params![id, fold(&entry.text)])?;
    Ok(id)
}

/// Deletes the entries matching `condition` (an SQL condition on `entries`) with their index
/// rows and re-transcriptions; returns the recording names they had.
pub(super) fn delete_entries(
    tx: &Transaction,
    condition: &str,
    params: impl rusqlite::Params + Clone,
) -> rusqlite::Result<Vec<String>> {
    let names = {
        let mut statement = tx.prepare(&format!(
            "SELECT recording FROM entries WHERE recording IS NOT NULL AND ({condition})"
        ))?;
        let rows = statement.query_map(params.clone(), |row| row.get::<_, String>(0))?;
        rows.collect::<rusqlite::Result<Vec<String>>>()?
    };
    tx.execute(
        &format!(
            "DELETE FROM entries_fts WHERE rowid IN (SELECT id FROM entries WHERE {condition})"
        ),
        params.clone(),
    )?;
    // The re-transcriptions go with them (ON DELETE CASCADE).
    tx.execute(&format!("DELETE FROM entries WHERE {condition}"), params)?;
    Ok(names)
}

/// `names` without those a remaining entry still refers to, each once, sorted.
pub(super) fn unreferenced(
    tx: &Transaction,
    names: impl IntoIterator<Item = String>,
) -> rusqlite::Result<Vec<String>> {
    let mut statement =
        tx.prepare_cached("SELECT EXISTS (SELECT 1 FROM entries WHERE recording = ?1)")?;
    let mut released = Vec::new();
    let unique: std::collections::BTreeSet<String> = names.into_iter().collect();
    for name in unique {
        let used: bool = statement.query_row([&name], |row| row.get(0))?;
        if !used {
            released.push(name);
        }
    }
    Ok(released)
}

/// A limit as SQLite takes it (a `usize` beyond `i64` is no limit).
fn limit_of(limit: usize) -> i64 {
    i64::try_from(limit).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open(dir: &tempfile::TempDir) -> History {
        History::open(&dir.path().join("history.sqlite3"))
            .unwrap()
            .0
    }

    fn into(at_ms: i64, app: Option<&str>, mode: Option<&str>) -> NewEntry {
        NewEntry {
            at_ms,
            text: format!("dictation at {at_ms}"),
            app: app.map(Into::into),
            mode: mode.map(Into::into),
            ..NewEntry::default()
        }
    }

    #[test]
    fn an_entry_keeps_its_mode_and_one_without_a_mode_has_none() {
        let dir = tempfile::tempdir().unwrap();
        let mut history = open(&dir);
        let terminal = history
            .add(&into(1, Some("xterm"), Some("Terminal")))
            .unwrap();
        let general = history.add(&into(2, Some("firefox"), None)).unwrap();
        let got = history.get(terminal).unwrap().unwrap();
        assert_eq!(got.mode.as_deref(), Some("Terminal"));
        assert_eq!(got.app.as_deref(), Some("xterm"));
        assert_eq!(history.get(general).unwrap().unwrap().mode, None);
        // Every way of reading entries reads the mode.
        let recent = history.recent(10).unwrap();
        assert_eq!(
            recent.iter().map(|e| e.mode.as_deref()).collect::<Vec<_>>(),
            vec![None, Some("Terminal")]
        );
        let found = history.search("dictation", 10).unwrap();
        assert_eq!(found[1].mode.as_deref(), Some("Terminal"));
    }

    #[test]
    fn recent_apps_are_distinct_newest_first_without_blanks_and_limited() {
        let dir = tempfile::tempdir().unwrap();
        let mut history = open(&dir);
        assert_eq!(history.recent_apps(10).unwrap(), Vec::<String>::new());
        for (at_ms, app) in [
            (10, Some("xterm")),
            (20, Some("firefox")),
            (30, None),
            (40, Some("")),
            (50, Some("  ")),
            (60, Some("kitty")),
            (70, Some("xterm")),
            // Added later but dictated earlier (an imported recording): its time counts.
            (5, Some("gedit")),
        ] {
            history.add(&into(at_ms, app, None)).unwrap();
        }
        assert_eq!(
            history.recent_apps(10).unwrap(),
            vec!["xterm", "kitty", "firefox", "gedit"]
        );
        assert_eq!(history.recent_apps(2).unwrap(), vec!["xterm", "kitty"]);
        assert_eq!(history.recent_apps(0).unwrap(), Vec::<String>::new());
        // Two entries of the same time: the one added last decides.
        history.add(&into(70, Some("gedit"), None)).unwrap();
        assert_eq!(history.recent_apps(1).unwrap(), vec!["gedit"]);
    }
}
