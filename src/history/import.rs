//! The recordings made before the history existed: imported once per database as entries
//! without text (model ""), so that they can be found, played, transcribed and deleted from
//! the history like any other. A flag in the `meta` table says the import was done; a
//! database set aside and started anew imports again (its recordings would be lost to view
//! otherwise). Only finished recordings are imported (`rec-<millis>-<counter>.wav`, the names
//! `recordings` owns): journals are still being recorded or recovered.

use std::path::Path;

use rusqlite::{params, OptionalExtension, TransactionBehavior};

use super::store::insert;
use super::{on, History, HistoryError, NewEntry};

/// The `meta` key set once the recordings folder was imported.
const IMPORTED: &str = "recordings_imported";

/// A recording's length from its WAV header, in milliseconds; 0 when the header cannot be
/// read (the entry is still made: the file is there to be played or deleted).
fn duration_ms(path: &Path) -> i64 {
    match hound::WavReader::open(path) {
        Ok(reader) => {
            let rate = i64::from(reader.spec().sample_rate.max(1));
            i64::from(reader.duration()) * 1000 / rate
        }
        Err(e) => {
            tracing::warn!("history import: cannot read {}: {e}", path.display());
            0
        }
    }
}

impl History {
    /// Once per database: adds an entry for each finished recording in `dir` that no entry
    /// refers to (empty text, model "", `at_ms` from its name, its length from its header),
    /// oldest first, in one transaction; returns how many were added. Later calls add nothing
    /// and return 0. A missing folder counts as imported (there was nothing to import).
    ///
    /// # Errors
    /// [`HistoryError::ReadRecordings`] naming the folder (the import is tried again next
    /// time); SQLite's errors.
    pub fn import_recordings_once(&mut self, dir: &Path) -> Result<usize, HistoryError> {
        let done: Option<String> = self
            .conn
            .query_row("SELECT value FROM meta WHERE key = ?1", [IMPORTED], |row| {
                row.get(0)
            })
            .optional()
            .map_err(on(&self.path, "reading the import flag"))?;
        if done.is_some() {
            return Ok(0);
        }
        let known = self.recording_names()?;
        let mut found: Vec<(u64, String)> = Vec::new();
        match std::fs::read_dir(dir) {
            Ok(listing) => {
                for item in listing {
                    let item = item.map_err(|source| HistoryError::ReadRecordings {
                        path: dir.to_path_buf(),
                        source,
                    })?;
                    let Ok(name) = item.file_name().into_string() else {
                        continue;
                    };
                    let Some(millis) = crate::recordings::finished_recording_millis(&name) else {
                        continue;
                    };
                    if item.file_type().is_ok_and(|t| t.is_file()) && !known.contains(&name) {
                        found.push((millis, name));
                    }
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(source) => {
                return Err(HistoryError::ReadRecordings {
                    path: dir.to_path_buf(),
                    source,
                })
            }
        }
        found.sort();
        let entries: Vec<NewEntry> = found
            .into_iter()
            .filter_map(|(millis, name)| {
                Some(NewEntry {
                    at_ms: i64::try_from(millis).ok()?,
                    duration_ms: duration_ms(&dir.join(&name)),
                    recording: Some(name),
                    ..NewEntry::default()
                })
            })
            .collect();

        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(on(&self.path, "starting to import the recordings"))?;
        for entry in &entries {
            insert(&tx, entry).map_err(on(&self.path, "importing a recording"))?;
        }
        tx.execute(
            "INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)",
            params![IMPORTED, entries.len().to_string()],
        )
        .map_err(on(&self.path, "setting the import flag"))?;
        tx.commit()
            .map_err(on(&self.path, "committing the import"))?;
        Ok(entries.len())
    }
}
