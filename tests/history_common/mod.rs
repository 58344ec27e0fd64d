//! Helpers shared by the history database tests (`tests/history_db*.rs`).
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use whisper_dictation::history::{Entry, History, NewEntry, Opened};

pub const DAY_MS: i64 = 24 * 60 * 60 * 1000;
/// 2026-01-01T00:00:00Z.
pub const T0: i64 = 1_767_225_600_000;

pub fn db_path(dir: &tempfile::TempDir) -> PathBuf {
    dir.path().join("state").join("history.sqlite3")
}

pub fn open_new(dir: &tempfile::TempDir) -> History {
    let (history, opened) = History::open(&db_path(dir)).unwrap();
    assert_eq!(opened, Opened::Created);
    history
}

pub fn entry(at_ms: i64, text: &str) -> NewEntry {
    NewEntry {
        at_ms,
        text: text.to_string(),
        raw_text: text.to_string(),
        recording: None,
        duration_ms: 2_000,
        language: Some("pl".into()),
        model: "base".into(),
        device: "cpu".into(),
        device_reason: None,
        key_up_to_pasted_ms: Some(180),
        app: None,
        mode: None,
    }
}

pub fn with_recording(mut e: NewEntry, name: &str) -> NewEntry {
    e.recording = Some(name.to_string());
    e
}

pub fn ids(entries: &[Entry]) -> Vec<i64> {
    entries.iter().map(|e| e.id).collect()
}

pub fn raw(path: &Path) -> rusqlite::Connection {
    rusqlite::Connection::open(path).unwrap()
}

pub fn quick_check(path: &Path) -> String {
    raw(path)
        .query_row("PRAGMA quick_check", [], |row| row.get(0))
        .unwrap()
}
