use super::*;
use crate::history::NewEntry;

const PAGE: &str = "app://localhost/index.html";

fn entry(at_ms: i64, text: &str, recording: Option<&str>) -> NewEntry {
    NewEntry {
        at_ms,
        text: text.into(),
        raw_text: text.into(),
        recording: recording.map(Into::into),
        duration_ms: 2_000,
        language: Some("pl".into()),
        model: "small".into(),
        device: "cpu".into(),
        key_up_to_pasted_ms: Some(420),
        ..NewEntry::default()
    }
}

/// The window's actions, recorded.
#[derive(Default)]
struct Recorded {
    copied: Vec<String>,
    played: Vec<PathBuf>,
    stopped: usize,
    retranscribing: Vec<(i64, PathBuf, String)>,
    exports: PathBuf,
}

impl Actions for Recorded {
    fn copy(&mut self, text: String) {
        self.copied.push(text);
    }
    fn play(&mut self, recording: &Path) -> Result<f32, String> {
        self.played.push(recording.to_path_buf());
        Ok(2.0)
    }
    fn stop_playing(&mut self) {
        self.stopped += 1;
    }
    fn models(&self) -> (Vec<String>, String) {
        (vec!["base".into(), "tiny.en".into()], "base".into())
    }
    fn retranscribe(&mut self, id: i64, recording: PathBuf, model: &str) -> Result<(), String> {
        if model != "tiny.en" {
            return Err(format!("model '{model}' is not installed"));
        }
        self.retranscribing.push((id, recording, model.into()));
        Ok(())
    }
    fn export_folder(&self) -> PathBuf {
        self.exports.clone()
    }
}

struct Rig {
    _dir: tempfile::TempDir,
    history: History,
    recordings: RecordingStore,
    actions: Recorded,
}

impl Rig {
    fn new() -> Rig {
        let dir = tempfile::tempdir().unwrap();
        let (history, _) = History::open(&dir.path().join("history.sqlite3")).unwrap();
        let recordings_dir = dir.path().join("recordings");
        std::fs::create_dir_all(&recordings_dir).unwrap();
        Rig {
            history,
            recordings: RecordingStore::new(recordings_dir, 10),
            actions: Recorded {
                exports: dir.path().join("Downloads"),
                ..Recorded::default()
            },
            _dir: dir,
        }
    }

    fn run(&mut self, message: &str) -> Option<Reply> {
        let command = parse(PAGE, message).unwrap();
        dispatch(
            &mut self.history,
            &self.recordings,
            &mut self.actions,
            command,
        )
    }

    fn texts(reply: Option<Reply>) -> Vec<String> {
        match reply {
            Some(Reply::Entries { entries, .. }) => entries.into_iter().map(|e| e.text).collect(),
            other => panic!("not a list: {other:?}"),
        }
    }
}

#[test]
fn every_command_parses_from_the_page_s_json() {
    let cases = [
        (r#"{"cmd":"hello"}"#, Command::Hello),
        (r#"{"cmd":"painted"}"#, Command::Painted),
        (
            r#"{"cmd":"search","query":"żółw"}"#,
            Command::Search {
                query: "żółw".into(),
            },
        ),
        (r#"{"cmd":"copy","id":3}"#, Command::Copy { id: 3 }),
        (
            r#"{"cmd":"star","id":3,"starred":true}"#,
            Command::Star {
                id: 3,
                starred: true,
            },
        ),
        (r#"{"cmd":"delete","id":7}"#, Command::Delete { id: 7 }),
        (r#"{"cmd":"play","id":7}"#, Command::Play { id: 7 }),
        (r#"{"cmd":"stop"}"#, Command::Stop),
        (r#"{"cmd":"models"}"#, Command::Models),
        (
            r#"{"cmd":"retranscribe","id":7,"model":"tiny.en"}"#,
            Command::Retranscribe {
                id: 7,
                model: "tiny.en".into(),
            },
        ),
        (
            r#"{"cmd":"transcriptions","id":7}"#,
            Command::Transcriptions { id: 7 },
        ),
        (
            r#"{"cmd":"export","format":"csv"}"#,
            Command::Export {
                format: ExportFormat::Csv,
            },
        ),
    ];
    for (json, command) in cases {
        assert_eq!(parse(PAGE, json).unwrap(), command, "{json}");
    }
}

#[test]
fn anything_else_is_refused() {
    for body in [
        "",
        "hello",
        "null",
        r#"{"cmd":"eval","code":"1"}"#,
        r#"{"cmd":"delete"}"#,
        r#"{"cmd":"delete","id":"7"}"#,
        r#"{"cmd":"copy","id":3,"path":"/etc/passwd"}"#,
        r#"{"cmd":"search"}"#,
        r#"["search","x"]"#,
    ] {
        assert!(
            matches!(parse(PAGE, body), Err(IpcError::NotACommand { .. })),
            "{body}"
        );
    }
    for url in [
        "https://example.com/",
        "file:///tmp/x.html",
        "about:blank",
        "",
    ] {
        assert!(
            matches!(
                parse(url, r#"{"cmd":"hello"}"#),
                Err(IpcError::ForeignPage { .. })
            ),
            "{url}"
        );
    }
}

#[test]
fn hello_lists_the_newest_and_search_folds_polish_diacritics() {
    let mut rig = Rig::new();
    rig.history
        .add(&entry(1_000, "Żółw idzie powoli", None))
        .unwrap();
    rig.history
        .add(&entry(2_000, "Spotkanie o piątej", None))
        .unwrap();
    rig.history
        .add(&entry(3_000, "Zażółć gęślą jaźń", None))
        .unwrap();
    assert_eq!(
        Rig::texts(rig.run(r#"{"cmd":"hello"}"#)),
        [
            "Zażółć gęślą jaźń",
            "Spotkanie o piątej",
            "Żółw idzie powoli"
        ]
    );
    assert_eq!(
        Rig::texts(rig.run(r#"{"cmd":"search","query":"zolw"}"#)),
        ["Żółw idzie powoli"]
    );
    assert_eq!(
        Rig::texts(rig.run(r#"{"cmd":"search","query":"PIATEJ"}"#)),
        ["Spotkanie o piątej"]
    );
    // The query comes back with the answer (the page drops answers to older queries).
    match rig.run(r#"{"cmd":"search","query":"gesla"}"#) {
        Some(Reply::Entries { query, entries, .. }) => {
            assert_eq!(query, "gesla");
            assert_eq!(entries.len(), 1);
            assert_eq!(entries[0].model, "small");
            assert_eq!(entries[0].key_up_to_pasted_ms, Some(420));
        }
        other => panic!("{other:?}"),
    }
    assert!(Rig::texts(rig.run(r#"{"cmd":"search","query":"nothing"}"#)).is_empty());
    assert_eq!(rig.run(r#"{"cmd":"painted"}"#), None);
}

#[test]
fn copy_puts_the_delivered_text_on_the_clipboard() {
    let mut rig = Rig::new();
    let id = rig.history.add(&entry(1_000, "Dzień dobry", None)).unwrap();
    assert_eq!(
        rig.run(&format!(r#"{{"cmd":"copy","id":{id}}}"#)),
        Some(Reply::Copied { id })
    );
    assert_eq!(rig.actions.copied, ["Dzień dobry"]);
    assert_eq!(
        rig.run(r#"{"cmd":"copy","id":999}"#),
        Some(Reply::Missing { id: 999 })
    );
    assert_eq!(rig.actions.copied.len(), 1);
}

#[test]
fn star_is_stored() {
    let mut rig = Rig::new();
    let id = rig.history.add(&entry(1_000, "Gwiazdka", None)).unwrap();
    let reply = rig.run(&format!(r#"{{"cmd":"star","id":{id},"starred":true}}"#));
    assert_eq!(reply, Some(Reply::Starred { id, starred: true }));
    assert!(rig.history.get(id).unwrap().unwrap().starred);
    rig.run(&format!(r#"{{"cmd":"star","id":{id},"starred":false}}"#));
    assert!(!rig.history.get(id).unwrap().unwrap().starred);
    assert_eq!(
        rig.run(r#"{"cmd":"star","id":42,"starred":true}"#),
        Some(Reply::Missing { id: 42 })
    );
}

#[test]
fn delete_removes_the_entry_and_its_recording_only() {
    let mut rig = Rig::new();
    let name = "rec-000001700000000-000001.wav";
    let other = "rec-000001700000001-000002.wav";
    for n in [name, other] {
        std::fs::write(rig.recordings.dir().join(n), b"RIFF").unwrap();
    }
    let id = rig
        .history
        .add(&entry(1_000, "Do usunięcia", Some(name)))
        .unwrap();
    let kept = rig
        .history
        .add(&entry(2_000, "Zostaje", Some(other)))
        .unwrap();
    assert_eq!(
        rig.run(&format!(r#"{{"cmd":"delete","id":{id}}}"#)),
        Some(Reply::Deleted { id })
    );
    assert!(rig.history.get(id).unwrap().is_none());
    assert!(!rig.recordings.dir().join(name).exists());
    assert!(rig.history.get(kept).unwrap().is_some());
    assert!(rig.recordings.dir().join(other).exists());
    assert_eq!(
        rig.run(&format!(r#"{{"cmd":"delete","id":{id}}}"#)),
        Some(Reply::Missing { id })
    );
}

#[test]
fn a_recording_name_outside_the_folder_is_never_deleted() {
    let mut rig = Rig::new();
    // A file beside the recordings folder, named like a recording, reached by "..".
    let outside = rig
        .recordings
        .dir()
        .parent()
        .unwrap()
        .join("rec-000001700000000-000001.wav");
    std::fs::write(&outside, b"RIFF").unwrap();
    let id = rig
        .history
        .add(&entry(
            1_000,
            "Zła nazwa",
            Some("../rec-000001700000000-000001.wav"),
        ))
        .unwrap();
    let settings = rig.recordings.dir().parent().unwrap().join("settings.json");
    std::fs::write(&settings, b"{}").unwrap();
    let id2 = rig
        .history
        .add(&entry(2_000, "Inna", Some(settings.to_str().unwrap())))
        .unwrap();
    for id in [id, id2] {
        assert_eq!(
            rig.run(&format!(r#"{{"cmd":"delete","id":{id}}}"#)),
            Some(Reply::Deleted { id })
        );
    }
    assert!(outside.exists());
    assert!(settings.exists());
}

#[test]
fn the_reply_script_is_one_call_with_json_that_survives_any_text() {
    let text = "quote \" backslash \\ </script> line\u{2028}para\u{2029} ${x} `tick` 'ap'";
    let mut rig = Rig::new();
    rig.history.add(&entry(1_000, text, None)).unwrap();
    let reply = rig.run(r#"{"cmd":"hello"}"#).unwrap();
    let script = reply_script(&reply);
    let json = script
        .strip_prefix("window.app.reply(")
        .and_then(|s| s.strip_suffix(')'))
        .unwrap();
    assert!(!json.contains('\u{2028}') && !json.contains('\u{2029}'));
    let value: serde_json::Value = serde_json::from_str(json).unwrap();
    assert_eq!(value["kind"], "entries");
    assert_eq!(value["entries"][0]["text"], text);
}

#[test]
fn a_database_error_is_a_failed_reply_naming_the_file() {
    let mut rig = Rig::new();
    let path = rig.history.path().to_path_buf();
    // Another connection holds the write lock: the window's write is Busy, not a hang.
    let other = rusqlite::Connection::open(&path).unwrap();
    other.execute_batch("BEGIN IMMEDIATE").unwrap();
    let id = 1;
    match rig.run(&format!(r#"{{"cmd":"star","id":{id},"starred":true}}"#)) {
        Some(Reply::Failed { detail }) => assert!(detail.contains("history.sqlite3"), "{detail}"),
        other => panic!("{other:?}"),
    }
}

/// An entry with a recording file in the rig's folder, and one whose recording is gone.
fn entries_with_and_without_audio(rig: &mut Rig) -> (i64, i64, PathBuf) {
    let name = "rec-1700000000000-1.wav";
    let path = rig.recordings.dir().join(name);
    std::fs::write(&path, b"RIFF").unwrap();
    let with = rig
        .history
        .add(&entry(1, "Zadzwoń do dentysty jutro rano", Some(name)))
        .unwrap();
    let without = rig
        .history
        .add(&entry(2, "Bez nagrania", Some("rec-1700000000000-2.wav")))
        .unwrap();
    (with, without, path)
}

#[test]
fn play_plays_the_entry_s_recording_and_says_when_there_is_none() {
    let mut rig = Rig::new();
    let (with, without, path) = entries_with_and_without_audio(&mut rig);
    let reply = rig.run(&format!(r#"{{"cmd":"play","id":{with}}}"#));
    assert_eq!(
        reply,
        Some(Reply::Playing {
            id: with,
            seconds: 2.0
        })
    );
    assert_eq!(rig.actions.played, [path]);
    let reply = rig.run(&format!(r#"{{"cmd":"play","id":{without}}}"#));
    assert_eq!(reply, Some(Reply::NoAudio { id: without }));
    assert_eq!(
        rig.run(r#"{"cmd":"play","id":999}"#),
        Some(Reply::Missing { id: 999 })
    );
    assert_eq!(rig.run(r#"{"cmd":"stop"}"#), Some(Reply::Stopped));
    assert_eq!((rig.actions.played.len(), rig.actions.stopped), (1, 1));
}

#[test]
fn retranscribe_starts_with_the_recording_and_its_result_is_kept_and_compared() {
    let mut rig = Rig::new();
    let (with, without, path) = entries_with_and_without_audio(&mut rig);
    let reply = rig.run(&format!(
        r#"{{"cmd":"retranscribe","id":{with},"model":"tiny.en"}}"#
    ));
    assert_eq!(
        reply,
        Some(Reply::Retranscribing {
            id: with,
            model: "tiny.en".into()
        })
    );
    assert_eq!(rig.actions.retranscribing, [(with, path, "tiny.en".into())]);
    // A model that is not installed: said, nothing started.
    let reply = rig.run(&format!(
        r#"{{"cmd":"retranscribe","id":{with},"model":"large"}}"#
    ));
    assert!(
        matches!(&reply, Some(Reply::Failed { detail }) if detail.contains("large")),
        "{reply:?}"
    );
    let reply = rig.run(&format!(
        r#"{{"cmd":"retranscribe","id":{without},"model":"tiny.en"}}"#
    ));
    assert_eq!(reply, Some(Reply::NoAudio { id: without }));

    // The result: kept with the entry, its words against the entry's.
    let reply = retranscribed(
        &mut rig.history,
        with,
        "tiny.en",
        "Zadzwoń do dentystki jutro rano.".into(),
    );
    let Reply::Retranscribed { diff, text, .. } = reply else {
        panic!("{reply:?}")
    };
    assert_eq!(text, "Zadzwoń do dentystki jutro rano.");
    let changed: Vec<(&str, super::super::diff::Change)> = diff
        .iter()
        .filter(|w| w.change != super::super::diff::Change::Same)
        .map(|w| (w.text.as_str(), w.change))
        .collect();
    assert_eq!(
        changed,
        [
            ("dentysty", super::super::diff::Change::Removed),
            ("dentystki", super::super::diff::Change::Added)
        ]
    );
    let reply = rig.run(&format!(r#"{{"cmd":"transcriptions","id":{with}}}"#));
    let Some(Reply::Transcriptions { transcriptions, .. }) = reply else {
        panic!("{reply:?}")
    };
    assert_eq!(transcriptions.len(), 1);
    assert_eq!(transcriptions[0].model, "tiny.en");
    // Listed again (the window reopened): the entry comes with its newest re-transcription,
    // compared as when it was made; the entry without one has none.
    retranscribed(
        &mut rig.history,
        with,
        "base",
        "Zadzwoń do dentysty jutro rano.".into(),
    );
    let Some(Reply::Entries { entries, again, .. }) = rig.run(r#"{"cmd":"search","query":""}"#)
    else {
        panic!("no entries")
    };
    assert!(entries.iter().any(|e| e.id == without));
    assert_eq!(again.len(), 1, "{again:?}");
    assert_eq!((again[0].id, again[0].model.as_str()), (with, "base"));
    assert!(again[0]
        .diff
        .iter()
        .all(|w| w.change == super::super::diff::Change::Same));
    assert_eq!(
        retranscribed(&mut rig.history, 999, "tiny.en", "x".into()),
        Reply::Missing { id: 999 }
    );
}

#[test]
fn export_writes_a_new_owner_only_file_each_time_in_the_export_folder() {
    let mut rig = Rig::new();
    entries_with_and_without_audio(&mut rig);
    let mut paths = Vec::new();
    for message in [
        r#"{"cmd":"export","format":"csv"}"#,
        r#"{"cmd":"export","format":"csv"}"#,
        r#"{"cmd":"export","format":"json"}"#,
    ] {
        match rig.run(message) {
            Some(Reply::Exported { path, entries }) => {
                assert_eq!(entries, 2);
                paths.push(PathBuf::from(path));
            }
            other => panic!("{other:?}"),
        }
    }
    assert!(
        paths.iter().all(|p| p.starts_with(&rig.actions.exports)),
        "{paths:?}"
    );
    assert_ne!(
        paths[0], paths[1],
        "an export never overwrites the one before"
    );
    let csv = std::fs::read_to_string(&paths[0]).unwrap();
    assert!(csv.contains("Zadzwoń do dentysty jutro rano"), "{csv}");
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&paths[2]).unwrap()).unwrap();
    assert_eq!(json.as_array().map(Vec::len), Some(2));
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&paths[0]).unwrap().permissions().mode();
    assert_eq!(mode & 0o077, 0, "{mode:o}");
}

#[test]
fn export_names_say_when_and_never_repeat() {
    let at = Some(LocalTime {
        year: 2026,
        month: 11,
        day: 6,
        hour: 9,
        minute: 5,
    });
    assert_eq!(
        export_name(at, 1, ExportFormat::Csv),
        "dictation-history-2026-11-06-0905.csv"
    );
    assert_eq!(
        export_name(at, 2, ExportFormat::Json),
        "dictation-history-2026-11-06-0905-2.json"
    );
    assert_eq!(
        export_name(None, 1, ExportFormat::Csv),
        "dictation-history.csv"
    );
}
