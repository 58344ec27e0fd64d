//! Retention: how long the history keeps text and audio, set separately. An entry older than
//! the text limit is deleted (its recording released); an entry older than the audio limit
//! keeps its text and loses its recording (released). Starred entries are never touched.
//! The app runs it at start and then now and then; the caller deletes the released files.

use rusqlite::{params, TransactionBehavior};

use super::store::{delete_entries, unreferenced};
use super::{on, History, HistoryError};

/// A day in milliseconds.
const DAY_MS: i64 = 24 * 60 * 60 * 1000;

/// How long entries and their recordings are kept; `None` keeps them forever.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Retention {
    /// Entries (text and all) older than this many days are deleted.
    pub text_days: Option<u32>,
    /// Entries older than this many days lose their recording; their text stays.
    pub audio_days: Option<u32>,
}

/// What [`History::apply_retention`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pruned {
    /// Entries deleted for their age.
    pub entries_deleted: usize,
    /// Recording file names no entry refers to any more, for the caller to delete (sorted).
    pub recordings_released: Vec<String>,
}

/// The time before which an entry is older than `days`, at `now_ms`.
fn cutoff(now_ms: i64, days: u32) -> i64 {
    now_ms.saturating_sub(i64::from(days).saturating_mul(DAY_MS))
}

impl History {
    /// Applies `retention` at `now_ms` (unix milliseconds), in one transaction. An entry is
    /// older than N days when it started more than N × 24 h before `now_ms`.
    pub fn apply_retention(
        &mut self,
        retention: &Retention,
        now_ms: i64,
    ) -> Result<Pruned, HistoryError> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(on(&self.path, "starting to apply retention"))?;
        let apply = || -> rusqlite::Result<Pruned> {
            let mut names = Vec::new();
            let mut entries_deleted = 0;
            if let Some(days) = retention.text_days {
                let before = cutoff(now_ms, days);
                entries_deleted = tx.query_row(
                    "SELECT COUNT(*) FROM entries WHERE starred = 0 AND at_ms < ?1",
                    [before],
                    |row| row.get::<_, i64>(0),
                )? as usize;
                names.extend(delete_entries(
                    &tx,
                    "starred = 0 AND at_ms < ?1",
                    params![before],
                )?);
            }
            if let Some(days) = retention.audio_days {
                let before = cutoff(now_ms, days);
                let condition = "starred = 0 AND at_ms < ?1 AND recording IS NOT NULL";
                let mut statement =
                    tx.prepare(&format!("SELECT recording FROM entries WHERE {condition}"))?;
                let rows = statement.query_map([before], |row| row.get::<_, String>(0))?;
                names.extend(rows.collect::<rusqlite::Result<Vec<String>>>()?);
                tx.execute(
                    &format!("UPDATE entries SET recording = NULL WHERE {condition}"),
                    [before],
                )?;
            }
            Ok(Pruned {
                entries_deleted,
                recordings_released: unreferenced(&tx, names)?,
            })
        };
        let pruned = apply().map_err(on(&self.path, "applying retention"))?;
        tx.commit()
            .map_err(on(&self.path, "committing retention"))?;
        Ok(pruned)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cutoffs_are_whole_days_before_now_and_never_overflow() {
        assert_eq!(cutoff(10 * DAY_MS, 3), 7 * DAY_MS);
        assert_eq!(cutoff(10 * DAY_MS, 0), 10 * DAY_MS);
        assert_eq!(cutoff(i64::MIN + 5, u32::MAX), i64::MIN);
    }
}
