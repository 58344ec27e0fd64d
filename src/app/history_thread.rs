//! The dictation history's own thread ([`crate::history`] is the database): the app hands it
//! each delivered dictation and never waits for it, so a slow, locked or damaged database never
//! stands between the person and their words.
//!
//! - At start it opens `history.sqlite3` in the state folder (a damaged one is set aside by
//!   the database layer and a new one started: said once), imports the recordings kept before
//!   there was a history (once per database), applies the retention the person chose, and
//!   sends the newest texts for Recent transcripts, so they outlive a restart.
//! - A database that cannot be opened (locked by another process, an unwritable folder) is
//!   tried again at the next entry; entries meanwhile are missing from the history only (their
//!   text was delivered, their recordings are kept as before). The person is told once.
//! - Retention releases recordings (entries past `history_audio_days` or `history_text_days`,
//!   starred ones never): the app deletes them ([`App::history_event`]).
//! - Privacy ▸ Keep history off: nothing new is written (and nothing imported); "Forget
//!   everything…" empties it.

use super::App;
use crate::command_thread::CommandThread;
pub use crate::history::FILE_NAME;
use crate::history::{History, NewEntry, Opened, Retention};
use crate::i18n::UiLang;
use crate::recordings::RecordingStore;
use crate::settings::file::SettingKey;
use crate::settings::Settings;
use std::path::{Path, PathBuf};
use std::sync::mpsc::Receiver;

/// How many entries are read to find the newest texts for Recent transcripts (imported
/// recordings have no text yet).
const RECENT_SCAN: usize = 50;

pub enum HistoryCommand {
    /// A delivered dictation; `recording` is where its audio is kept (its duration is read
    /// from the file's header here, off the app's thread).
    Add {
        entry: Box<NewEntry>,
        recording: Option<PathBuf>,
    },
    /// "Forget everything…": every entry goes.
    Clear,
    /// The person changed the retention (a hand edit of settings.json).
    Retention(Retention),
}

#[derive(Debug, Clone, PartialEq)]
pub enum HistoryEvent {
    /// The database is open: its newest texts (newest first), how many recordings of earlier
    /// versions were imported, and where a damaged database was set aside.
    Opened {
        recent: Vec<String>,
        imported: usize,
        set_aside: Option<PathBuf>,
    },
    /// The database cannot be opened or written (said once per run).
    Unavailable { detail: String },
    /// Recordings (file names in the recordings folder) the retention no longer keeps.
    Released(Vec<String>),
}

/// The thread; dropping it finishes the entries queued, then closes the database.
pub struct HistoryThread(CommandThread<HistoryCommand>);

impl HistoryThread {
    /// Starts the thread on the database at `path`. With `open_now` (history kept), it opens
    /// the database at once, imports the recordings in `recordings_dir` once, and prunes by
    /// `retention`; without, only a command opens it.
    pub fn spawn(
        path: PathBuf,
        recordings_dir: PathBuf,
        retention: Retention,
        open_now: bool,
        emit: impl Fn(HistoryEvent) + Send + 'static,
    ) -> std::io::Result<HistoryThread> {
        CommandThread::spawn("history", move |rx| {
            let mut keeper = Keeper {
                path,
                recordings_dir,
                retention,
                db: None,
                said_unavailable: false,
                emit: Box::new(emit),
            };
            if open_now {
                keeper.open();
            }
            keeper.serve(rx);
        })
        .map(HistoryThread)
    }

    pub fn send(&self, command: HistoryCommand) {
        self.0.send(command);
    }
}

struct Keeper {
    path: PathBuf,
    recordings_dir: PathBuf,
    retention: Retention,
    db: Option<History>,
    said_unavailable: bool,
    emit: Box<dyn Fn(HistoryEvent) + Send>,
}

impl Keeper {
    fn serve(&mut self, commands: Receiver<HistoryCommand>) {
        for command in commands {
            match command {
                HistoryCommand::Add { entry, recording } => self.add(*entry, recording.as_deref()),
                HistoryCommand::Clear => self.clear(),
                HistoryCommand::Retention(retention) => {
                    self.retention = retention;
                    self.prune();
                }
            }
        }
    }

    /// The open database, opened now if it is not (said once when it cannot be).
    fn open(&mut self) -> Option<&mut History> {
        if self.db.is_none() {
            match History::open(&self.path) {
                Ok((mut db, opened)) => {
                    let set_aside = match opened {
                        Opened::SetAside { damaged } => Some(damaged),
                        Opened::Created | Opened::Existing => None,
                    };
                    let imported = db
                        .import_recordings_once(&self.recordings_dir)
                        .unwrap_or_else(|e| {
                            tracing::warn!("history: recordings not imported: {e}");
                            0
                        });
                    let recent = newest_texts(&db);
                    tracing::info!(
                        entries = db.count().unwrap_or(0),
                        imported,
                        set_aside = ?set_aside,
                        "history open"
                    );
                    self.db = Some(db);
                    (self.emit)(HistoryEvent::Opened {
                        recent,
                        imported,
                        set_aside,
                    });
                    self.prune();
                }
                Err(e) => {
                    tracing::warn!("history: {e}");
                    if !self.said_unavailable {
                        self.said_unavailable = true;
                        (self.emit)(HistoryEvent::Unavailable {
                            detail: e.to_string(),
                        });
                    }
                }
            }
        }
        self.db.as_mut()
    }

    fn add(&mut self, mut entry: NewEntry, recording: Option<&Path>) {
        if let Some(path) = recording {
            entry.duration_ms = wav_duration_ms(path).unwrap_or(entry.duration_ms);
        }
        let Some(db) = self.open() else {
            return;
        };
        match db.add(&entry) {
            Ok(id) => tracing::info!(id, "history entry added"),
            Err(e) => {
                tracing::warn!("history: entry not added: {e}");
                // Closed: the next entry opens it again (a damaged file is then set aside).
                self.db = None;
                return;
            }
        }
        self.prune();
    }

    fn clear(&mut self) {
        let Some(db) = self.open() else {
            return;
        };
        match db.clear() {
            Ok(names) => tracing::info!(recordings = names.len(), "history emptied"),
            Err(e) => tracing::warn!("history: not emptied: {e}"),
        }
    }

    /// Applies the retention; the recordings it releases go to the app to delete.
    fn prune(&mut self) {
        let retention = self.retention;
        let Some(db) = self.db.as_mut() else {
            return;
        };
        if retention.text_days.is_none() && retention.audio_days.is_none() {
            return;
        }
        match db.apply_retention(&retention, now_ms()) {
            Ok(pruned) => {
                if pruned.entries_deleted > 0 || !pruned.recordings_released.is_empty() {
                    tracing::info!(
                        entries = pruned.entries_deleted,
                        recordings = pruned.recordings_released.len(),
                        "history pruned by its retention"
                    );
                }
                if !pruned.recordings_released.is_empty() {
                    (self.emit)(HistoryEvent::Released(pruned.recordings_released));
                }
            }
            Err(e) => tracing::warn!("history: retention not applied: {e}"),
        }
    }
}

/// The newest texts in the history, newest first, at most [`super::tray::RECENT`].
fn newest_texts(db: &History) -> Vec<String> {
    match db.recent(RECENT_SCAN) {
        Ok(entries) => entries
            .into_iter()
            .map(|e| e.text)
            .filter(|t| !t.trim().is_empty())
            .take(super::tray::RECENT)
            .collect(),
        Err(e) => {
            tracing::warn!("history: newest entries not read: {e}");
            Vec::new()
        }
    }
}

fn wav_duration_ms(path: &Path) -> Option<i64> {
    let reader = hound::WavReader::open(path).ok()?;
    let rate = i64::from(reader.spec().sample_rate.max(1));
    Some(i64::from(reader.duration()) * 1000 / rate)
}

/// Now, in unix milliseconds (the history's clock).
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// The retention the settings ask for (0 days: for ever).
pub fn retention(settings: &Settings) -> Retention {
    let days = |d: u32| (d > 0).then_some(d);
    Retention {
        text_days: days(settings.history_text_days),
        audio_days: days(settings.history_audio_days),
    }
}

/// Whether `name` (from the database) names a finished recording in the recordings folder:
/// nothing else is ever deleted on the database's word (no path, no journal).
pub fn is_recording_name(name: &str) -> bool {
    let path = Path::new(name);
    path.file_name().and_then(|n| n.to_str()) == Some(name)
        && name.starts_with("rec-")
        && name.ends_with(".wav")
        && !RecordingStore::is_journal(path)
}

/// What the person is told about the history database.
#[derive(Debug, Clone, PartialEq)]
pub enum HistoryNotice {
    /// A damaged database was moved to `set_aside` and a new one started.
    SetAside { set_aside: PathBuf },
    /// It cannot be opened or written: dictation goes on, without history.
    Unavailable { detail: String },
}

impl HistoryNotice {
    /// Summary and body in `lang`.
    pub fn text(&self, lang: UiLang) -> (String, String) {
        let pl = lang == UiLang::Pl;
        match self {
            HistoryNotice::SetAside { set_aside } if pl => (
                "Historia była uszkodzona".into(),
                format!(
                    "Uszkodzoną bazę historii odłożono jako {} i założono nową. Dyktowanie \
                     działa jak zwykle.",
                    set_aside.display()
                ),
            ),
            HistoryNotice::SetAside { set_aside } => (
                "The history was damaged".into(),
                format!(
                    "The damaged history database was set aside as {} and a new one started. \
                     Dictation works as usual.",
                    set_aside.display()
                ),
            ),
            HistoryNotice::Unavailable { detail } if pl => (
                "Historia jest niedostępna".into(),
                format!(
                    "{detail}. Dyktowanie działa jak zwykle, ale nowe dyktowania nie trafiają \
                     do historii, dopóki baza nie będzie dostępna."
                ),
            ),
            HistoryNotice::Unavailable { detail } => (
                "The history is unavailable".into(),
                format!(
                    "{detail}. Dictation works as usual, but new dictations are not kept in \
                     the history until the database can be opened."
                ),
            ),
        }
    }
}

impl App {
    fn notify_history(&self, notice: &HistoryNotice) {
        let (summary, body) = notice.text(self.lang);
        self.notifier.send(summary, body);
    }

    pub(super) fn history_event(&mut self, event: HistoryEvent) {
        match event {
            HistoryEvent::Opened {
                recent, set_aside, ..
            } => {
                // Dictations delivered since start are newer: they stay first.
                for text in recent {
                    if !self.recent.contains(&text) {
                        self.recent.push_back(text);
                    }
                }
                self.recent.truncate(super::tray::RECENT);
                if let Some(tray) = &self.tray {
                    tray.set_recent(self.recent.make_contiguous());
                }
                if let Some(set_aside) = set_aside {
                    self.notify_history(&HistoryNotice::SetAside { set_aside });
                }
            }
            HistoryEvent::Unavailable { detail } => {
                self.notify_history(&HistoryNotice::Unavailable { detail });
            }
            HistoryEvent::Released(names) => self.delete_released(&names),
        }
    }

    /// Deletes the recordings the history's retention released, except those in use.
    fn delete_released(&mut self, names: &[String]) {
        let dir = self.recordings.dir().to_path_buf();
        let mut deleted = 0;
        for name in names.iter().filter(|n| is_recording_name(n)) {
            let path = dir.join(name);
            let in_use = self.journals.values().any(|j| j == &path)
                || self.retry.path() == Some(path.as_path());
            if in_use || !path.exists() {
                continue;
            }
            match self.recordings.discard(&path) {
                Ok(()) => deleted += 1,
                Err(e) => tracing::warn!("{e}"),
            }
        }
        tracing::info!(
            released = names.len(),
            deleted,
            "recordings past the history's retention deleted"
        );
    }

    /// A delivered dictation, for the history (when it is kept): what Whisper wrote before
    /// the wording, the app the text went into and the name of the per-app mode it used
    /// (`None`: no rule applied), and `kept`, where its recording is now (`None` when it was
    /// not kept).
    pub(super) fn remember_in_history(
        &self,
        text: &str,
        (heard, app, mode): (super::worker::Heard, Option<String>, Option<String>),
        key_up_to_pasted_ms: Option<i64>,
        kept: Option<PathBuf>,
    ) {
        if !self.settings.keep_history {
            return;
        }
        let (model, device, device_reason) = match &self.model {
            Some(m) => (
                m.name.clone(),
                m.device.name().to_string(),
                Some(super::texts::placement_reason(
                    &m.why,
                    crate::i18n::UiLang::En,
                )),
            ),
            None => (String::new(), String::new(), None),
        };
        let recording_name = kept
            .as_deref()
            .and_then(Path::file_name)
            .and_then(|n| n.to_str())
            .map(str::to_string);
        let entry = NewEntry {
            at_ms: now_ms(),
            text: text.to_string(),
            raw_text: heard.raw,
            recording: recording_name,
            duration_ms: 0,
            language: heard.language,
            model,
            device,
            device_reason,
            key_up_to_pasted_ms,
            app,
            mode,
        };
        self.history.send(HistoryCommand::Add {
            entry: Box::new(entry),
            recording: kept,
        });
    }

    /// Privacy ▸ Keep history: toggled, saved.
    pub(super) fn keep_history_clicked(&mut self) {
        self.settings.keep_history = !self.settings.keep_history;
        self.save_choice(SettingKey::KeepHistory);
        tracing::info!(keep = self.settings.keep_history, "keep history changed");
    }

    /// "Forget everything…": the history too.
    pub(super) fn forget_history(&self) {
        self.history.send(HistoryCommand::Clear);
    }

    /// A hand edit of settings.json: the retention it sets applies now.
    pub(super) fn history_retention_edited(&mut self, edited: &Settings) {
        let changed = (edited.history_text_days, edited.history_audio_days)
            != (
                self.settings.history_text_days,
                self.settings.history_audio_days,
            );
        self.settings.history_text_days = edited.history_text_days;
        self.settings.history_audio_days = edited.history_audio_days;
        if changed {
            self.history
                .send(HistoryCommand::Retention(retention(&self.settings)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_finished_recording_names_are_deleted_on_the_databases_word() {
        assert!(is_recording_name("rec-001764100000000-1.wav"));
        for bad in [
            "../settings.json",
            "/etc/passwd",
            "sub/rec-001764100000000-1.wav",
            "rec-001764100000000-1.journal.wav",
            "settings.json",
            "rec-1.wav/..",
            "",
        ] {
            assert!(!is_recording_name(bad), "{bad}");
        }
    }

    #[test]
    fn the_notices_name_the_file_and_say_dictation_goes_on_in_both_languages() {
        let set_aside = HistoryNotice::SetAside {
            set_aside: PathBuf::from("/state/history.sqlite3.damaged-1764100000"),
        };
        let unavailable = HistoryNotice::Unavailable {
            detail: "/state/history.sqlite3: database is locked".into(),
        };
        for (lang, works) in [
            (UiLang::En, "Dictation works"),
            (UiLang::Pl, "Dyktowanie działa"),
        ] {
            let (_, body) = set_aside.text(lang);
            assert!(
                body.contains("damaged-1764100000") && body.contains(works),
                "{body}"
            );
            let (_, body) = unavailable.text(lang);
            assert!(
                body.contains("database is locked") && body.contains(works),
                "{body}"
            );
        }
    }

    #[test]
    fn zero_days_keeps_for_ever() {
        let mut settings = Settings::default();
        assert_eq!(
            retention(&settings),
            Retention {
                text_days: None,
                audio_days: None
            }
        );
        settings.history_text_days = 365;
        settings.history_audio_days = 7;
        assert_eq!(
            retention(&settings),
            Retention {
                text_days: Some(365),
                audio_days: Some(7)
            }
        );
    }

    #[test]
    fn an_entry_is_kept_and_the_newest_texts_are_sent_at_the_next_start() {
        let dir = std::env::temp_dir().join(format!("history-thread-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("recordings")).unwrap();
        let path = dir.join(FILE_NAME);
        let events = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let spawn = |events: &std::sync::Arc<std::sync::Mutex<Vec<HistoryEvent>>>| {
            let sink = std::sync::Arc::clone(events);
            HistoryThread::spawn(
                path.clone(),
                dir.join("recordings"),
                Retention {
                    text_days: None,
                    audio_days: None,
                },
                true,
                move |e| sink.lock().unwrap().push(e),
            )
            .unwrap()
        };
        let thread = spawn(&events);
        for text in ["Pierwsze zdanie.", "Zażółć gęślą jaźń."] {
            thread.send(HistoryCommand::Add {
                entry: Box::new(NewEntry {
                    at_ms: now_ms(),
                    text: text.into(),
                    raw_text: String::new(),
                    recording: None,
                    duration_ms: 1500,
                    language: Some("pl".into()),
                    model: "base".into(),
                    device: "cpu".into(),
                    device_reason: None,
                    key_up_to_pasted_ms: Some(160),
                    app: None,
                    mode: None,
                }),
                recording: None,
            });
        }
        drop(thread);
        events.lock().unwrap().clear();
        drop(spawn(&events));
        let seen = events.lock().unwrap().clone();
        assert_eq!(
            seen,
            vec![HistoryEvent::Opened {
                recent: vec!["Zażółć gęślą jaźń.".into(), "Pierwsze zdanie.".into()],
                imported: 0,
                set_aside: None,
            }]
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
