//! The History window's IPC: the only messages its page may send
//! (`window.ipc.postMessage(JSON)`), parsed into [`Command`], and what the app answers
//! ([`Reply`]), sent back as one call of the page's `window.app.reply(…)`. [`dispatch`] is a
//! pure function over the history database, the recordings folder and the window's [`Actions`]
//! (clipboard, playback, re-transcription, where exports go), so every command is tested
//! without a window. Any message that is not exactly one of the
//! commands is refused ([`IpcError`]) and logged by the caller; the page gets nothing back.

use super::diff::DiffWord;
use crate::history::{Entry, History, HistoryError, Transcription};
use crate::platform::LocalTime;
use crate::recordings::RecordingStore;
use std::path::{Path, PathBuf};

/// How many entries one list shows (the newest of the search's matches).
pub const LIST_LIMIT: usize = 200;

/// A message from the page. `{"cmd":"search","query":"zolw"}` and so on; unknown fields or
/// commands are refused.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
#[serde(tag = "cmd", rename_all = "snake_case", deny_unknown_fields)]
pub enum Command {
    /// The page has loaded: send it its labels and the newest entries.
    Hello,
    /// The page's first frame with the entries is on screen (for the open-time log line).
    Painted,
    /// The entries whose text has every word of `query` (case and diacritics folded); an
    /// empty query lists the newest.
    Search {
        query: String,
    },
    /// Put the entry's delivered text on the clipboard.
    Copy {
        id: i64,
    },
    Star {
        id: i64,
        starred: bool,
    },
    /// Delete the entry and its recording (when no other entry uses it).
    Delete {
        id: i64,
    },
    /// Play the entry's recording (stopping any other).
    Play {
        id: i64,
    },
    /// Stop playing.
    Stop,
    /// The installed models, for re-transcription.
    Models,
    /// Transcribe the entry's recording again with the installed `model`; the answer comes
    /// when it is done ([`Reply::Retranscribed`]).
    Retranscribe {
        id: i64,
        model: String,
    },
    /// The entry's re-transcriptions, newest last.
    Transcriptions {
        id: i64,
    },
    /// Write every entry to a file in the export folder.
    Export {
        format: ExportFormat,
    },
    // The Settings page's ([`super::settings_page`]).
    /// The form's values and choices.
    Settings {},
    /// Check `value` for the setting `key` as the person types (nothing is applied).
    Check {
        key: String,
        value: serde_json::Value,
    },
    /// Check `value` for `key` and, when valid, apply it (saved and used at once).
    Set {
        key: String,
        value: serde_json::Value,
    },
    /// The person went to `page` (the window's title follows).
    Page {
        page: super::Page,
    },
    /// The first frame of `page` with its content is on screen (the open-time log line of a
    /// window opened on that page).
    Shown {
        page: super::Page,
    },
    // The Models page's ([`super::models_page`]), answered by the app.
    /// The catalogue and the installed models.
    ModelList {},
    /// Download the catalogue model `model` (the button is the confirmation).
    Download {
        model: String,
    },
    /// Cancel the running download.
    CancelDownload {},
    /// Check the installed `model` (manifest, then a load).
    Verify {
        model: String,
    },
    /// Delete the installed `model` (never the one in use).
    RemoveModel {
        model: String,
    },
    /// Dictate with the installed `model`.
    UseModel {
        model: String,
    },
}

/// The formats of [`Command::Export`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExportFormat {
    Csv,
    Json,
}

impl ExportFormat {
    fn extension(self) -> &'static str {
        match self {
            ExportFormat::Csv => "csv",
            ExportFormat::Json => "json",
        }
    }
}

/// Why a message was refused.
#[derive(Debug, thiserror::Error)]
pub enum IpcError {
    #[error(
        "the history window sent a message that is not one of its commands ({len} bytes): {source}"
    )]
    NotACommand {
        len: usize,
        #[source]
        source: serde_json::Error,
    },
    #[error("the history window sent a message from a page that is not its own: {url}")]
    ForeignPage { url: String },
}

/// Parses one message from the page at `url`; only the window's own page (`app://`) may send.
pub fn parse(url: &str, body: &str) -> Result<Command, IpcError> {
    if !super::protocol::is_own_url(url) {
        return Err(IpcError::ForeignPage {
            url: url.chars().take(200).collect(),
        });
    }
    let not_a_command = |source| IpcError::NotACommand {
        len: body.len(),
        source,
    };
    // An object only: serde would also take `["search", "x"]` for an internally tagged enum.
    let value: serde_json::Value = serde_json::from_str(body).map_err(not_a_command)?;
    if !value.is_object() {
        return Err(not_a_command(serde::de::Error::custom("not a JSON object")));
    }
    serde_json::from_value(value).map_err(not_a_command)
}

/// The newest re-transcription of a listed entry: its model, and its words against the
/// entry's text.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Again {
    pub id: i64,
    pub model: String,
    pub diff: Vec<DiffWord>,
}

/// What the app answers.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Reply {
    /// The entries matching `query` (echoed, so the page drops answers to older queries).
    /// The entries found, newest first, and the newest re-transcription of those that have
    /// one (shown under the entry as when it was made).
    Entries {
        query: String,
        entries: Vec<Entry>,
        again: Vec<Again>,
    },
    Copied {
        id: i64,
    },
    Starred {
        id: i64,
        starred: bool,
    },
    Deleted {
        id: i64,
    },
    /// The entry is gone (deleted meanwhile, e.g. by "Forget everything").
    Missing {
        id: i64,
    },
    /// The entry's recording is playing, for `seconds`.
    Playing {
        id: i64,
        seconds: f32,
    },
    Stopped,
    /// The entry has no recording any more (never kept, pruned or deleted).
    NoAudio {
        id: i64,
    },
    /// The installed models; `current` is the one dictations use.
    Models {
        names: Vec<String>,
        current: String,
    },
    /// A re-transcription has started.
    Retranscribing {
        id: i64,
        model: String,
    },
    /// A re-transcription is done: its text, and its words against the entry's text.
    Retranscribed {
        id: i64,
        model: String,
        text: String,
        diff: Vec<DiffWord>,
    },
    Transcriptions {
        id: i64,
        transcriptions: Vec<Transcription>,
    },
    /// The history was written to `path`.
    Exported {
        path: String,
        entries: u64,
    },
    /// The database could not do it; `detail` names the file and SQLite's reason.
    Failed {
        detail: String,
    },
    // The Settings page's ([`super::settings_page`]).
    /// The form's values (as the app has them now) and what its lists offer.
    Settings {
        values: super::form::FormValues,
        /// Boxed: the largest variant by far (the modes' lists), sent once per page load.
        choices: Box<super::form::FormChoices>,
    },
    /// A value checked: `problem` says, in the UI language, why it is not taken (`None`: valid).
    Checked {
        key: String,
        problem: Option<String>,
    },
    /// A change of `key` applied by the app; `values` are the settings now. `saved`: written in
    /// settings.json (else it applies in memory only, and the notification said why);
    /// `problem`: the app could not apply it after all (a hotkey the system refused).
    Applied {
        key: String,
        values: super::form::FormValues,
        saved: bool,
        problem: Option<String>,
    },
    /// Show `page` (the menu asked for the window while it was open).
    Show {
        page: super::Page,
    },
    // The Models page's ([`super::models_page`]).
    /// The models, the folder they are in, and the download running (if any).
    ModelList {
        models: Vec<ModelRow>,
        folder: String,
        downloading: Option<DownloadShown>,
    },
    /// The running download's stage and percent.
    ModelProgress {
        model: String,
        stage: &'static str,
        percent: u8,
    },
    /// One of the page's actions on `model` is done (`ok`) or not; `detail` says what
    /// happened, in the UI language.
    ModelDone {
        model: String,
        action: ModelAction,
        ok: bool,
        detail: String,
    },
}

/// One model as the Models page lists it ([`super::models_page::rows`]).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ModelRow {
    pub name: String,
    pub installed: bool,
    /// A catalogue model (downloadable); `false` for a folder of the person's own.
    pub downloadable: bool,
    /// The download's size, for people ("78 MB").
    pub size: Option<String>,
    /// The memory it needs while it runs on the CPU.
    pub memory: Option<String>,
    pub languages: Option<&'static str>,
    /// What it is good for (Polish in particular), in the UI language.
    pub advice: Option<&'static str>,
    /// What an interrupted download left (the next Download continues it).
    pub partial: Option<String>,
    /// The model dictations use.
    pub current: bool,
    /// The machine's suggestion ([`crate::models::suggest_default`]).
    pub suggested: bool,
}

/// A download in progress as the page shows it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct DownloadShown {
    pub model: String,
    /// `downloading`, `verifying` or `loading` (the menu's stage names).
    pub stage: &'static str,
    pub percent: u8,
}

/// Which of the page's actions a [`Reply::ModelDone`] answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelAction {
    Download,
    /// A download ended by Cancel.
    Cancel,
    Verify,
    Remove,
    Use,
}

impl ModelAction {
    pub fn name(self) -> &'static str {
        match self {
            ModelAction::Download => "download",
            ModelAction::Cancel => "cancel",
            ModelAction::Verify => "verify",
            ModelAction::Remove => "remove",
            ModelAction::Use => "use",
        }
    }
}

/// What the window does beyond the database: the app's clipboard, the sound output, the
/// re-transcription thread, the models folder and the export folder (the real ones in the
/// window, a recorder of calls in tests).
pub trait Actions {
    /// Puts `text` on the clipboard.
    fn copy(&mut self, text: String);
    /// Plays `recording`, stopping any other; its length in seconds.
    fn play(&mut self, recording: &Path) -> Result<f32, String>;
    fn stop_playing(&mut self);
    /// The installed models' names, and the one dictations use.
    fn models(&self) -> (Vec<String>, String);
    /// Starts transcribing `recording` (entry `id`) with the installed `model`; the result
    /// reaches the window later.
    fn retranscribe(&mut self, id: i64, recording: PathBuf, model: &str) -> Result<(), String>;
    /// Where exports are written.
    fn export_folder(&self) -> PathBuf;
}

/// Runs one command. `Hello` and `Painted` are the window's own business ([`super`]): here
/// they list the newest entries and do nothing, respectively.
pub fn dispatch(
    history: &mut History,
    recordings: &RecordingStore,
    actions: &mut dyn Actions,
    command: Command,
) -> Option<Reply> {
    let reply = match command {
        Command::Painted => return None,
        // Answered by the Settings page's session before the history is asked.
        Command::Settings {}
        | Command::Check { .. }
        | Command::Set { .. }
        | Command::Page { .. }
        | Command::Shown { .. } => return None,
        // Answered by the app through the Models page's session.
        Command::ModelList {}
        | Command::Download { .. }
        | Command::CancelDownload {}
        | Command::Verify { .. }
        | Command::RemoveModel { .. }
        | Command::UseModel { .. } => return None,
        Command::Hello => list(history, ""),
        Command::Search { query } => list(history, &query),
        Command::Copy { id } => match history.get(id) {
            Ok(Some(entry)) => {
                actions.copy(entry.text);
                Ok(Reply::Copied { id })
            }
            Ok(None) => Ok(Reply::Missing { id }),
            Err(e) => Err(e),
        },
        Command::Star { id, starred } => history.set_starred(id, starred).map(|found| {
            if found {
                Reply::Starred { id, starred }
            } else {
                Reply::Missing { id }
            }
        }),
        Command::Delete { id } => delete(history, recordings, id),
        Command::Play { id } => play(history, recordings, actions, id),
        Command::Stop => {
            actions.stop_playing();
            Ok(Reply::Stopped)
        }
        Command::Models => {
            let (names, current) = actions.models();
            Ok(Reply::Models { names, current })
        }
        Command::Retranscribe { id, model } => {
            retranscribe(history, recordings, actions, id, model)
        }
        Command::Transcriptions { id } => history
            .transcriptions(id)
            .map(|transcriptions| Reply::Transcriptions { id, transcriptions }),
        Command::Export { format } => return Some(export(history, actions, format)),
    };
    Some(reply.unwrap_or_else(|e| Reply::Failed {
        detail: e.to_string(),
    }))
}

/// Where the entry's recording is, when it still has one.
fn recording_of(
    history: &History,
    recordings: &RecordingStore,
    id: i64,
) -> Result<Result<PathBuf, Reply>, HistoryError> {
    let Some(entry) = history.get(id)? else {
        return Ok(Err(Reply::Missing { id }));
    };
    let path = entry
        .recording
        .filter(|name| crate::app::history_thread::is_recording_name(name))
        .map(|name| recordings.dir().join(name))
        .filter(|path| path.is_file());
    Ok(path.ok_or(Reply::NoAudio { id }))
}

fn play(
    history: &History,
    recordings: &RecordingStore,
    actions: &mut dyn Actions,
    id: i64,
) -> Result<Reply, HistoryError> {
    Ok(match recording_of(history, recordings, id)? {
        Ok(path) => match actions.play(&path) {
            Ok(seconds) => Reply::Playing { id, seconds },
            Err(detail) => Reply::Failed { detail },
        },
        Err(reply) => reply,
    })
}

fn retranscribe(
    history: &History,
    recordings: &RecordingStore,
    actions: &mut dyn Actions,
    id: i64,
    model: String,
) -> Result<Reply, HistoryError> {
    Ok(match recording_of(history, recordings, id)? {
        Ok(path) => match actions.retranscribe(id, path, &model) {
            Ok(()) => Reply::Retranscribing { id, model },
            Err(detail) => Reply::Failed { detail },
        },
        Err(reply) => reply,
    })
}

/// A finished re-transcription of entry `id` with `model`: kept with the entry, and its words
/// against the entry's delivered text.
pub fn retranscribed(history: &mut History, id: i64, model: &str, text: String) -> Reply {
    let kept = history.get(id).and_then(|entry| match entry {
        Some(entry) => {
            let at_ms = crate::app::history_thread::now_ms();
            history.add_transcription(id, model, &text, at_ms)?;
            Ok(Some(entry))
        }
        None => Ok(None),
    });
    match kept {
        Ok(Some(entry)) => Reply::Retranscribed {
            id,
            model: model.to_string(),
            diff: super::diff::words(&entry.text, &text),
            text,
        },
        Ok(None) => Reply::Missing { id },
        Err(e) => Reply::Failed {
            detail: e.to_string(),
        },
    }
}

/// The file name of an export made at `at` (local time), the `n`th of that minute:
/// `dictation-history-2026-11-26-0315.csv`, then `…-0315-2.csv`.
pub fn export_name(at: Option<LocalTime>, n: u32, format: ExportFormat) -> String {
    let when = at.map_or_else(String::new, |t| {
        format!(
            "-{:04}-{:02}-{:02}-{:02}{:02}",
            t.year, t.month, t.day, t.hour, t.minute
        )
    });
    let nth = if n > 1 {
        format!("-{n}")
    } else {
        String::new()
    };
    format!("dictation-history{when}{nth}.{}", format.extension())
}

/// Writes every entry to a new file in the export folder, never over an earlier one (a
/// temporary name, then renamed; readable by the person only: it holds what they dictated).
fn export(history: &History, actions: &mut dyn Actions, format: ExportFormat) -> Reply {
    let folder = actions.export_folder();
    let at = crate::platform::local_time(std::time::SystemTime::now());
    let Some(path) = (1..1000)
        .map(|n| folder.join(export_name(at, n, format)))
        .find(|path| !path.exists())
    else {
        return Reply::Failed {
            detail: format!("{}: no free export name", folder.display()),
        };
    };
    let mut bytes = Vec::new();
    let written = match format {
        ExportFormat::Csv => history.export_csv(&mut bytes),
        ExportFormat::Json => history.export_json(&mut bytes),
    };
    if let Err(e) = written {
        return Reply::Failed {
            detail: e.to_string(),
        };
    }
    let entries = history.count().unwrap_or(0) as u64;
    let saved = crate::private_files::create_dir_all(&folder)
        .and_then(|()| crate::atomic_file::write(&path, &bytes));
    match saved {
        Ok(()) => Reply::Exported {
            path: path.display().to_string(),
            entries,
        },
        Err(e) => Reply::Failed {
            detail: format!("{}: {e}", path.display()),
        },
    }
}

fn list(history: &History, query: &str) -> Result<Reply, HistoryError> {
    let entries = history.search(query, LIST_LIMIT)?;
    let ids: Vec<i64> = entries.iter().map(|e| e.id).collect();
    let again = history
        .latest_transcriptions(&ids)?
        .into_iter()
        .filter_map(|(id, transcription)| {
            let entry = entries.iter().find(|e| e.id == id)?;
            Some(Again {
                id,
                model: transcription.model,
                diff: super::diff::words(&entry.text, &transcription.text),
            })
        })
        .collect();
    Ok(Reply::Entries {
        query: query.to_string(),
        entries,
        again,
    })
}

fn delete(
    history: &mut History,
    recordings: &RecordingStore,
    id: i64,
) -> Result<Reply, HistoryError> {
    if history.get(id)?.is_none() {
        return Ok(Reply::Missing { id });
    }
    if let Some(name) = history.delete(id)? {
        discard_recording(recordings, &name);
    }
    Ok(Reply::Deleted { id })
}

/// Deletes the recording the history released, through the recordings' owner: only a finished
/// recording directly inside its folder (a name with a path in it, or a journal, is refused
/// and logged). The entry is deleted either way: its text is what the person asked to remove.
fn discard_recording(recordings: &RecordingStore, name: &str) {
    let path = recordings.dir().join(Path::new(name));
    match recordings.discard(&path) {
        Ok(()) => tracing::info!(name, "history window: recording deleted with its entry"),
        Err(e) => tracing::warn!("history window: recording not deleted: {e}"),
    }
}

/// The script that hands `reply` to the page: `window.app.reply(<JSON>)`. JSON is a JavaScript
/// expression; U+2028 and U+2029, which a dictation can contain, are escaped as well so the
/// script parses on engines older than ES2019.
pub fn reply_script(reply: &Reply) -> String {
    let json = serde_json::to_string(reply).unwrap_or_else(|_| "null".into());
    let json = json
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029");
    format!("window.app.reply({json})")
}

#[cfg(test)]
mod tests;
