//! The history database (`whisper_dictation::history`) through its public API, on real files:
//! entries, search with Polish text, stars, deletion, re-transcriptions, retention, the
//! one-time import of recordings, CSV and JSON export. What must never cost a person their
//! words (damaged files, locks, a killed process) is in `history_db_damage.rs`; the
//! migrations from older schema versions are tested in `src/history/schema.rs`.

mod history_common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use history_common::*;
use whisper_dictation::history::{
    fold, Entry, History, HistoryError, NewEntry, Opened, Pruned, Retention,
};

#[test]
fn a_new_database_is_owner_only_in_wal_mode_and_reopens_as_existing() {
    let dir = tempfile::tempdir().unwrap();
    let path = db_path(&dir);
    let mut history = open_new(&dir);
    history.add(&entry(T0, "pierwszy")).unwrap();
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&path), 0o600);
    assert_eq!(
        mode(&PathBuf::from(format!("{}-wal", path.display()))),
        0o600
    );
    assert_eq!(mode(path.parent().unwrap()), 0o700);
    let journal: String = raw(&path)
        .query_row("PRAGMA journal_mode", [], |row| row.get(0))
        .unwrap();
    assert_eq!(journal, "wal");
    drop(history);
    let (history, opened) = History::open(&path).unwrap();
    assert_eq!(opened, Opened::Existing);
    assert_eq!(history.count().unwrap(), 1);
}

#[test]
fn entries_round_trip_and_come_newest_first() {
    let dir = tempfile::tempdir().unwrap();
    let mut history = open_new(&dir);
    let full = NewEntry {
        at_ms: T0 + 5,
        text: "Zażółć gęślą jaźń.".into(),
        raw_text: "zażółć gęślą jaźń".into(),
        recording: Some("rec-001767225600005-000003.wav".into()),
        duration_ms: 3_250,
        language: Some("pl".into()),
        model: "large-v3-turbo".into(),
        device: "mps".into(),
        device_reason: Some("fastest measured".into()),
        key_up_to_pasted_ms: Some(412),
        app: Some("TextEdit".into()),
        mode: Some("Notes".into()),
    };
    let a = history.add(&entry(T0, "first")).unwrap();
    let b = history.add(&full).unwrap();
    let c = history.add(&entry(T0 + 10, "third")).unwrap();
    assert!(a < b && b < c);
    assert_eq!(history.count().unwrap(), 3);
    let got = history.get(b).unwrap().unwrap();
    assert_eq!(
        got,
        Entry {
            id: b,
            starred: false,
            at_ms: full.at_ms,
            text: full.text.clone(),
            raw_text: full.raw_text.clone(),
            recording: full.recording.clone(),
            duration_ms: full.duration_ms,
            language: full.language.clone(),
            model: full.model.clone(),
            device: full.device.clone(),
            device_reason: full.device_reason.clone(),
            key_up_to_pasted_ms: full.key_up_to_pasted_ms,
            app: full.app.clone(),
            mode: full.mode.clone(),
        }
    );
    assert_eq!(history.get(c + 100).unwrap(), None);
    assert_eq!(ids(&history.recent(10).unwrap()), vec![c, b, a]);
    assert_eq!(ids(&history.recent(2).unwrap()), vec![c, b]);
    assert_eq!(ids(&history.recent(0).unwrap()), Vec::<i64>::new());
}

/// A small history of Polish and English dictations; returns the ids by name.
fn polish_history(history: &mut History) -> std::collections::HashMap<&'static str, i64> {
    let texts = [
        ("turtle", "Żółw idzie powoli przez ogród."),
        ("lodz", "Jutro jadę do Łodzi, a potem do Łódź Kaliska."),
        ("lodz_city", "Łódź"),
        ("pangram", "ZAŻÓŁĆ GĘŚLĄ JAŹŃ"),
        ("english", "Send the e-mail about the meeting on Monday."),
        (
            "colon",
            "Note: call mom (today) at 5 * 2 = 10 o'clock, \"urgent\".",
        ),
        ("other", "Zwykłe zdanie bez niczego szczególnego."),
    ];
    let mut by_name = std::collections::HashMap::new();
    for (i, (name, text)) in texts.iter().enumerate() {
        by_name.insert(*name, history.add(&entry(T0 + i as i64, text)).unwrap());
    }
    by_name
}

#[test]
fn search_folds_case_and_polish_diacritics_including_l_with_stroke() {
    let dir = tempfile::tempdir().unwrap();
    let mut history = open_new(&dir);
    let id = polish_history(&mut history);
    let found = |q: &str| ids(&history.search(q, 50).unwrap());

    assert_eq!(found("zolw"), vec![id["turtle"]]);
    assert_eq!(found("ŻÓŁW"), vec![id["turtle"]]);
    assert_eq!(found("Żółw"), vec![id["turtle"]]);
    // ł does not decompose in Unicode: folded in Rust, both in the index and in the query.
    assert_eq!(found("lodz "), vec![id["lodz_city"], id["lodz"]]);
    assert_eq!(found("Łódź "), vec![id["lodz_city"], id["lodz"]]);
    assert_eq!(found("lodzi"), vec![id["lodz"]]);
    assert_eq!(found("zazolc gesla jazn"), vec![id["pangram"]]);
    assert_eq!(found("zażółć gęślą jaźń"), vec![id["pangram"]]);
    assert_eq!(found("GESLA"), vec![id["pangram"]]);
    // Every word is required.
    assert_eq!(found("zolw lodz"), Vec::<i64>::new());
    assert_eq!(found("jade lodzi"), vec![id["lodz"]]);
    assert_eq!(found("MEETING monday"), vec![id["english"]]);
    // The folding itself, as the index stores it.
    assert_eq!(fold("ZAŻÓŁĆ GĘŚLĄ JAŹŃ"), "zazolc gesla jazn");
}

#[test]
fn the_last_typed_word_is_a_prefix_until_a_space_follows_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut history = open_new(&dir);
    let id = polish_history(&mut history);
    let found = |q: &str| ids(&history.search(q, 50).unwrap());

    assert_eq!(found("zol"), vec![id["turtle"]]);
    assert_eq!(found("żó"), vec![id["turtle"]]);
    assert_eq!(found("zol "), Vec::<i64>::new());
    assert_eq!(found("gesla ja"), vec![id["pangram"]]);
    // Only the last word is a prefix.
    assert_eq!(found("ges jazn"), Vec::<i64>::new());
    assert_eq!(found("meet"), vec![id["english"]]);
}

#[test]
fn fts_syntax_in_a_query_is_searched_as_text_and_never_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let mut history = open_new(&dir);
    let id = polish_history(&mut history);
    for query in [
        "\"",
        "\"zolw",
        "zolw\"",
        "*",
        "zolw*",
        "-zolw",
        "text:zolw",
        "(zolw",
        "zolw)",
        "NOT",
        "zolw OR",
        "OR zolw",
        "NEAR(zolw lodz)",
        "^zolw",
        "zolw AND",
        "'",
        "\\",
        "{text}: zolw",
        "+",
        "zolw -",
        "a\0b",
        "::",
        "\"\"\"",
        "rowid:1",
        "entries_fts",
    ] {
        if let Err(e) = history.search(query, 50) {
            panic!("{query:?}: {e}");
        }
    }
    let found = |q: &str| ids(&history.search(q, 50).unwrap());
    assert_eq!(found("zolw*"), vec![id["turtle"]]);
    assert_eq!(found("\"zolw\""), vec![id["turtle"]]);
    assert_eq!(found("-zolw"), vec![id["turtle"]]);
    assert_eq!(found("(today)"), vec![id["colon"]]);
    assert_eq!(found("note: call"), vec![id["colon"]]);
    assert_eq!(found("\"urgent\"."), vec![id["colon"]]);
    assert_eq!(found("e-mail"), vec![id["english"]]);
    // FTS5 operators typed as words are words ("not" is in no entry).
    assert_eq!(found("zolw NOT lodz"), Vec::<i64>::new());
    assert_eq!(found("zolw OR lodz"), Vec::<i64>::new());
}

#[test]
fn an_empty_query_or_one_with_nothing_searchable_is_the_recent_entries() {
    let dir = tempfile::tempdir().unwrap();
    let mut history = open_new(&dir);
    polish_history(&mut history);
    let recent = ids(&history.recent(3).unwrap());
    assert_eq!(recent.len(), 3);
    for query in ["", "   ", "\" * - ( ) :"] {
        assert_eq!(ids(&history.search(query, 3).unwrap()), recent, "{query:?}");
    }
}

#[test]
fn stars_transcriptions_and_deletion() {
    let dir = tempfile::tempdir().unwrap();
    let mut history = open_new(&dir);
    let rec = "rec-001767225600000-000001.wav";
    let a = history
        .add(&with_recording(entry(T0, "Żółw na spacerze"), rec))
        .unwrap();
    let b = history.add(&entry(T0 + 1, "bez nagrania")).unwrap();

    assert!(history.set_starred(a, true).unwrap());
    assert!(history.get(a).unwrap().unwrap().starred);
    assert!(history.set_starred(a, false).unwrap());
    assert!(!history.get(a).unwrap().unwrap().starred);
    assert!(!history.set_starred(b + 100, true).unwrap());

    history
        .add_transcription(a, "tiny", "Żółw na spacerze", T0 + 100)
        .unwrap();
    history
        .add_transcription(a, "large-v3", "Żółw na spacerze.", T0 + 200)
        .unwrap();
    let t = history.transcriptions(a).unwrap();
    assert_eq!(
        t.iter().map(|t| t.model.as_str()).collect::<Vec<_>>(),
        ["tiny", "large-v3"]
    );
    assert_eq!(t[1].text, "Żółw na spacerze.");
    assert_eq!(t[1].at_ms, T0 + 200);
    // The entry's own text is unchanged.
    assert_eq!(history.get(a).unwrap().unwrap().text, "Żółw na spacerze");
    match history.add_transcription(b + 100, "tiny", "x", 0) {
        Err(HistoryError::NoSuchEntry { id, .. }) => assert_eq!(id, b + 100),
        other => panic!("{other:?}"),
    }

    assert_eq!(history.delete(a).unwrap().as_deref(), Some(rec));
    assert_eq!(history.get(a).unwrap(), None);
    assert!(history.transcriptions(a).unwrap().is_empty());
    assert!(history.search("zolw", 10).unwrap().is_empty());
    assert_eq!(history.delete(a).unwrap(), None);
    assert_eq!(history.delete(b).unwrap(), None);
    assert_eq!(history.count().unwrap(), 0);
}

#[test]
fn a_recording_two_entries_share_is_released_with_the_last_of_them() {
    let dir = tempfile::tempdir().unwrap();
    let mut history = open_new(&dir);
    let rec = "rec-001767225600000-000001.wav";
    let a = history.add(&with_recording(entry(T0, "a"), rec)).unwrap();
    let b = history
        .add(&with_recording(entry(T0 + 1, "b"), rec))
        .unwrap();
    assert_eq!(history.delete(a).unwrap(), None);
    assert_eq!(history.delete(b).unwrap().as_deref(), Some(rec));
}

#[test]
fn retention_deletes_old_text_and_releases_old_audio_but_never_touches_starred_entries() {
    let dir = tempfile::tempdir().unwrap();
    let mut history = open_new(&dir);
    let now = T0 + 100 * DAY_MS;
    let rec = |n: u32| format!("rec-00176722560000{n}-00000{n}.wav");
    let add = |h: &mut History, days_ago: i64, n: u32| {
        h.add(&with_recording(
            entry(now - days_ago * DAY_MS, &format!("wpis {n}")),
            &rec(n),
        ))
        .unwrap()
    };
    let very_old = add(&mut history, 40, 1);
    let very_old_starred = add(&mut history, 50, 2);
    let old = add(&mut history, 10, 3);
    let old_starred = add(&mut history, 12, 4);
    let new = add(&mut history, 1, 5);
    history.set_starred(very_old_starred, true).unwrap();
    history.set_starred(old_starred, true).unwrap();
    history
        .add_transcription(very_old, "tiny", "wpis 1", now)
        .unwrap();

    // Forever: nothing happens.
    let kept = history.apply_retention(&Retention::default(), now).unwrap();
    assert_eq!(kept, Pruned::default());
    assert_eq!(history.count().unwrap(), 5);

    let pruned = history
        .apply_retention(
            &Retention {
                text_days: Some(30),
                audio_days: Some(7),
            },
            now,
        )
        .unwrap();
    assert_eq!(pruned.entries_deleted, 1);
    assert_eq!(pruned.recordings_released, vec![rec(1), rec(3)]);
    assert_eq!(history.get(very_old).unwrap(), None);
    assert!(history.transcriptions(very_old).unwrap().is_empty());
    assert!(history.search("wpis 1", 10).unwrap().is_empty());
    // Older than the audio limit: text kept, recording gone.
    let old_entry = history.get(old).unwrap().unwrap();
    assert_eq!(old_entry.text, "wpis 3");
    assert_eq!(old_entry.recording, None);
    assert_eq!(ids(&history.search("wpis 3", 10).unwrap()), vec![old]);
    // Starred: untouched, recordings too.
    for (id, n) in [(very_old_starred, 2), (old_starred, 4)] {
        assert_eq!(history.get(id).unwrap().unwrap().recording, Some(rec(n)));
    }
    assert_eq!(history.get(new).unwrap().unwrap().recording, Some(rec(5)));
    assert_eq!(history.recording_names().unwrap().len(), 3);

    // Applied again: nothing more to do.
    let again = history
        .apply_retention(
            &Retention {
                text_days: Some(30),
                audio_days: Some(7),
            },
            now,
        )
        .unwrap();
    assert_eq!(again, Pruned::default());

    // Text limit only, shorter than the entries' age: text and audio go together, once.
    let pruned = history
        .apply_retention(
            &Retention {
                text_days: Some(0),
                audio_days: None,
            },
            now,
        )
        .unwrap();
    assert_eq!(pruned.entries_deleted, 2);
    assert_eq!(pruned.recordings_released, vec![rec(5)]);
    assert_eq!(
        ids(&history.recent(10).unwrap()),
        vec![old_starred, very_old_starred]
    );
}

#[test]
fn forgetting_everything_returns_every_recording_and_leaves_no_text_in_the_files() {
    let dir = tempfile::tempdir().unwrap();
    let path = db_path(&dir);
    let mut history = open_new(&dir);
    let secret = "Przepiórkowski-Tajemnica";
    for n in 0..50 {
        let text = format!("{secret} numer {n} w zdaniu o żółwiu");
        let e = entry(T0 + n, &text);
        let e = if n % 10 == 0 {
            with_recording(e, &format!("rec-0017672256000{n:02}-000001.wav"))
        } else {
            e
        };
        let id = history.add(&e).unwrap();
        if n % 7 == 0 {
            history.set_starred(id, true).unwrap();
            history
                .add_transcription(id, "tiny", &format!("{secret} again"), T0)
                .unwrap();
        }
    }
    let names = history.clear().unwrap();
    assert_eq!(names.len(), 5);
    assert!(names.iter().all(|n| n.ends_with(".wav")));
    assert_eq!(history.count().unwrap(), 0);
    assert!(history.search("zolwiu", 10).unwrap().is_empty());
    assert!(history.recording_names().unwrap().is_empty());
    // Neither the database nor its WAL holds the text any more (secure_delete, the index
    // emptied, the WAL truncated).
    let needle = fold(secret);
    for file in [
        path.clone(),
        PathBuf::from(format!("{}-wal", path.display())),
    ] {
        let bytes = std::fs::read(&file).unwrap_or_default();
        for word in [secret, needle.as_str(), "przepiorkowski"] {
            assert!(
                !bytes.windows(word.len()).any(|w| w == word.as_bytes()),
                "{} still holds {word:?}",
                file.display()
            );
        }
    }
    // The history goes on.
    let id = history.add(&entry(T0, "po wszystkim")).unwrap();
    assert_eq!(ids(&history.search("wszystkim", 10).unwrap()), vec![id]);
}

/// A 16 kHz mono WAV of `ms` milliseconds of silence.
fn write_wav(path: &Path, ms: u32) {
    let spec = hound::WavSpec {
        channels: 1,
        sample_rate: 16_000,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    let mut w = hound::WavWriter::create(path, spec).unwrap();
    for _ in 0..(16 * ms) {
        w.write_sample(0i16).unwrap();
    }
    w.finalize().unwrap();
}

#[test]
fn recordings_are_imported_once_as_entries_without_text() {
    let dir = tempfile::tempdir().unwrap();
    let recordings = dir.path().join("recordings");
    std::fs::create_dir_all(&recordings).unwrap();
    let older = "rec-001767225600000-000001.wav";
    let newer = "rec-001767225700000-000002.wav";
    let known = "rec-001767225650000-000003.wav";
    write_wav(&recordings.join(older), 1_500);
    write_wav(&recordings.join(newer), 250);
    write_wav(&recordings.join(known), 100);
    // Not finished recordings, or not recordings: left out.
    write_wav(
        &recordings.join("rec-001767225800000-000004.journal.wav"),
        100,
    );
    std::fs::write(recordings.join("rec-001767225800000-000004.attempts"), "1").unwrap();
    std::fs::write(recordings.join("rec-001767225600000-000001.held"), "").unwrap();
    std::fs::write(recordings.join("notes.wav"), "not a recording").unwrap();
    // Finished, but its header is cut: imported with no length.
    let cut = "rec-001767225750000-000005.wav";
    std::fs::write(recordings.join(cut), b"RIFF").unwrap();

    let mut history = open_new(&dir);
    let known_id = history
        .add(&with_recording(entry(T0, "już jest"), known))
        .unwrap();
    assert_eq!(history.import_recordings_once(&recordings).unwrap(), 3);
    let all = history.recent(10).unwrap();
    assert_eq!(all.len(), 4);
    let by_name = |name: &str| {
        all.iter()
            .find(|e| e.recording.as_deref() == Some(name))
            .unwrap()
            .clone()
    };
    let imported = by_name(older);
    assert_eq!(imported.at_ms, 1_767_225_600_000);
    assert_eq!(imported.duration_ms, 1_500);
    assert_eq!(imported.text, "");
    assert_eq!(imported.model, "");
    assert_eq!(by_name(newer).duration_ms, 250);
    assert_eq!(by_name(cut).duration_ms, 0);
    assert_eq!(by_name(known).id, known_id);
    // Imported oldest first.
    assert!(by_name(older).id < by_name(newer).id && by_name(newer).id < by_name(cut).id);

    // Once: a recording that appears later is not imported (the app adds its own entries).
    write_wav(&recordings.join("rec-001767225900000-000006.wav"), 100);
    assert_eq!(history.import_recordings_once(&recordings).unwrap(), 0);
    drop(history);
    let (mut history, _) = History::open(&db_path(&dir)).unwrap();
    assert_eq!(history.import_recordings_once(&recordings).unwrap(), 0);
    assert_eq!(history.count().unwrap(), 4);
}

#[test]
fn a_missing_recordings_folder_is_an_import_of_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut history = open_new(&dir);
    let missing = dir.path().join("recordings");
    assert_eq!(history.import_recordings_once(&missing).unwrap(), 0);
    std::fs::create_dir_all(&missing).unwrap();
    write_wav(&missing.join("rec-001767225600000-000001.wav"), 100);
    assert_eq!(history.import_recordings_once(&missing).unwrap(), 0);
}

/// Parses RFC 4180 CSV (quoted fields with doubled quotes, CRLF records).
fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let mut records = Vec::new();
    let mut record = Vec::new();
    let mut field = String::new();
    let mut chars = text.chars().peekable();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => field.push(c),
            (false, '"') if field.is_empty() => quoted = true,
            (false, ',') => record.push(std::mem::take(&mut field)),
            (false, '\r') if chars.peek() == Some(&'\n') => {
                chars.next();
                record.push(std::mem::take(&mut field));
                records.push(std::mem::take(&mut record));
            }
            (false, c) => field.push(c),
        }
    }
    assert!(!quoted, "unterminated quote");
    assert!(field.is_empty() && record.is_empty(), "no CRLF at the end");
    records
}

fn export_history() -> (tempfile::TempDir, History, Vec<Entry>) {
    let dir = tempfile::tempdir().unwrap();
    let mut history = open_new(&dir);
    let texts = [
        "Zażółć gęślą jaźń, powiedział.",
        "He said \"hello\", then left.",
        "Dwie\nlinie",
        "CR\r\nLF i przecinek, i \"cudzysłów\"",
        "",
        "=SUM(A1:A2)",
    ];
    for (i, text) in texts.iter().enumerate() {
        let mut e = entry(T0 + i as i64 * 1000, text);
        e.raw_text = format!("raw {text}");
        if i == 0 {
            e.recording = Some("rec-001767225600000-000001.wav".into());
            e.app = Some("Notatki, moje".into());
            e.mode = Some("Notatki \"moje\", po polsku".into());
            e.device_reason = Some("GPU \"mps\" faster".into());
        }
        if i == 2 {
            e.language = None;
            e.key_up_to_pasted_ms = None;
        }
        let id = history.add(&e).unwrap();
        if i == 1 {
            history.set_starred(id, true).unwrap();
        }
    }
    let mut oldest_first = history.recent(100).unwrap();
    oldest_first.reverse();
    (dir, history, oldest_first)
}

#[test]
fn csv_export_quotes_what_it_must_and_parses_back_to_the_entries() {
    let (_dir, history, entries) = export_history();
    let mut bytes = Vec::new();
    history.export_csv(&mut bytes).unwrap();
    let text = String::from_utf8(bytes).unwrap();
    let text = text
        .strip_prefix('\u{feff}')
        .expect("a UTF-8 byte order mark");
    assert!(text.starts_with(
        "id,time,at_ms,text,raw_text,recording,duration_ms,language,model,device,\
         device_reason,key_up_to_pasted_ms,app,starred,mode\r\n"
    ));
    assert!(text.contains(",\"He said \"\"hello\"\", then left.\","));
    assert!(text.contains(",=SUM(A1:A2),"));
    let records = parse_csv(text);
    assert_eq!(records.len(), entries.len() + 1);
    let opt = |v: &Option<String>| v.clone().unwrap_or_default();
    for (record, e) in records[1..].iter().zip(&entries) {
        assert_eq!(
            record,
            &vec![
                e.id.to_string(),
                whisper_dictation::history::iso_utc(e.at_ms),
                e.at_ms.to_string(),
                e.text.clone(),
                e.raw_text.clone(),
                opt(&e.recording),
                e.duration_ms.to_string(),
                opt(&e.language),
                e.model.clone(),
                e.device.clone(),
                opt(&e.device_reason),
                e.key_up_to_pasted_ms
                    .map(|v| v.to_string())
                    .unwrap_or_default(),
                opt(&e.app),
                if e.starred { "1" } else { "0" }.to_string(),
                opt(&e.mode),
            ]
        );
    }
    assert_eq!(records[1][1], "2026-01-01T00:00:00.000Z");
    assert_eq!(records[3][3], "Dwie\nlinie");
    assert_eq!(records[2][13], "1");
}

#[test]
fn json_export_is_an_array_of_the_entries_oldest_first() {
    let (_dir, history, entries) = export_history();
    let mut bytes = Vec::new();
    history.export_json(&mut bytes).unwrap();
    let parsed: Vec<Entry> = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(parsed, entries);
    let text = String::from_utf8(bytes).unwrap();
    assert!(
        text.contains("Zażółć gęślą jaźń"),
        "UTF-8 as it is, not escaped"
    );
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(value[1]["starred"], serde_json::json!(true));
    assert_eq!(value[2]["language"], serde_json::Value::Null);

    // An empty history exports an empty array and a CSV of the header alone.
    let dir = tempfile::tempdir().unwrap();
    let empty = open_new(&dir);
    let mut bytes = Vec::new();
    empty.export_json(&mut bytes).unwrap();
    assert_eq!(
        serde_json::from_slice::<Vec<Entry>>(&bytes).unwrap(),
        Vec::new()
    );
    let mut bytes = Vec::new();
    empty.export_csv(&mut bytes).unwrap();
    assert_eq!(
        parse_csv(
            String::from_utf8(bytes)
                .unwrap()
                .trim_start_matches('\u{feff}')
        )
        .len(),
        1
    );
}
