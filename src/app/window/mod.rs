//! The History window: a window with the system webview (wry: WebKitGTK on Linux, WKWebView
//! on macOS) showing the dictation history, opened from the menu's "History…", and the
//! settings, opened on its Settings page from "Settings…" ([`Page`]; the page's form is
//! [`form`], its commands [`settings_page`], the app's side of a change `settings_side.rs`).
//!
//! The window and its webview live in their own process (`whisper-dictation-window`,
//! [`host`]), so that nothing of WebKit stays in the app once the window is closed (measured:
//! +33 to +78 MB left in the app when it was in-process). This module owns the app's side:
//! the window's connection to the history database (`history.sqlite3` in the state folder;
//! WAL lets it sit beside the app's history thread, which is not involved) and the answers to
//! the page. Their life: closed (nothing exists: no process, no webview, no connection, no
//! timer, no thread) → requested by the menu ([`HistoryWindow::request`]: the process starts;
//! a second "History…" only brings it to the front) → open, the page's messages arriving
//! through the event loop ([`HistoryWindow::host_event`]) → closed when the person closes it:
//! the process ends, and the connection goes with it.
//!
//! The page is bundled in the app and handed to the window process, which serves it through
//! `app://` ([`protocol`]); the page may only send the commands of [`ipc`], answered by one
//! script call each. Words: [`texts`].

mod actions;
mod app_side;
pub mod automation;
pub mod diff;
pub mod form;
pub mod host;
pub mod host_link;
pub mod ipc;
pub mod models_page;
mod models_side;
pub mod models_texts;
pub mod modes_texts;
pub mod protocol;
pub mod retranscribe;
mod settings_page;
mod settings_side;
pub mod settings_texts;
pub mod texts;

use crate::history::History;

/// How many of the apps the history has seen the Settings page offers for a mode.
const APPS_OFFERED: usize = 50;
use crate::i18n::UiLang;
use crate::recordings::RecordingStore;
use host::{FromHost, HostEvent, WindowProcess};
use host_link::{FromWindow, ToWindow};
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Instant;

pub use actions::RetranscriptionContext;
pub use app_side::WindowRequest;
pub use settings_page::Page;
use settings_page::SettingsSession;

/// The window's size when it opens, and the smallest it may be made (logical pixels).
const SIZE: (f64, f64) = (760.0, 600.0);
const MIN_SIZE: (f64, f64) = (420.0, 320.0);

/// What the window needs from the app when it opens.
pub struct WindowContext {
    /// The history database (`<state>/history.sqlite3`).
    pub database: PathBuf,
    /// The recordings' owner, which deletes an entry's recording.
    pub recordings: RecordingStore,
    pub lang: UiLang,
    /// Where WebKitGTK keeps the webview's own files (an HSTS list, salts, an empty cache; no
    /// text of the history): `<state>/webview`, instead of WebKit's default under the home
    /// folder. Unused on macOS, where the webview is incognito.
    pub webview_data: PathBuf,
    /// Puts a text on the clipboard (the app's output thread).
    pub copy: Box<dyn FnMut(String)>,
    /// What re-transcription needs from the app.
    pub retranscription: actions::RetranscriptionContext,
    /// Where exports are written (the Downloads folder).
    pub export_folder: PathBuf,
    /// The page the window opens on (or, when it is open, goes to).
    pub page: Page,
    /// When the person asked for the window (what its first paint is measured from).
    pub clicked: Instant,
    /// The Settings page's values now, and what lists its choices (called once the window's
    /// process is starting).
    pub form_values: form::FormValues,
    pub form_choices: Box<dyn FnOnce() -> form::FormChoices>,
    /// Hands a valid change of a setting to the app.
    pub apply: Box<dyn FnMut(form::Change)>,
    /// Hands the Models page's requests to the app.
    pub models: Box<dyn FnMut(models_page::ModelRequest)>,
    /// Hands what the window process says to the app's event loop.
    pub host_events: Box<dyn Fn(HostEvent) + Send>,
}

/// The History window; see the module doc for its life.
#[derive(Default)]
pub struct HistoryWindow {
    open: Option<Open>,
    /// The last window process's number.
    processes: u64,
}

/// An open window: its process and the app's side of its page.
struct Open {
    process: WindowProcess,
    session: Session,
    /// The last warning of its process (what failed, if it ends before its page shows).
    last_warning: Option<String>,
}

impl HistoryWindow {
    /// The menu's "History…": the window opens, or comes to the front on `context.page`.
    ///
    /// # Errors
    /// Why the window's process could not be started (said to the person).
    pub fn request(&mut self, context: WindowContext) -> Result<(), String> {
        let clicked = context.clicked;
        if let Some(open) = &self.open {
            open.process.send(ToWindow::Show {
                title: context.page.title(context.lang).to_string(),
            });
            let show = ipc::Reply::Show { page: context.page };
            settings_page::log_reply(&show);
            open.session.send_to_page(&show);
            return Ok(());
        }
        let Some(program) = host::executable() else {
            tracing::warn!("history window: cannot tell where the app's program is");
            return Err("cannot tell where the app's program is".into());
        };
        self.processes += 1;
        match open(&program, self.processes, context) {
            Ok(open) => {
                tracing::info!(
                    after_click_ms = clicked.elapsed().as_millis() as u64,
                    "history window created"
                );
                self.open = Some(open);
                Ok(())
            }
            Err(e) => {
                tracing::warn!("history window: {e}");
                Err(e.to_string())
            }
        }
    }

    /// Whether the window is open.
    pub fn is_open(&self) -> bool {
        self.open.is_some()
    }

    /// What the window process said: a message of the page, a warning, or its end (the
    /// person closed the window). Returns what to tell the person when the process failed
    /// before its window showed.
    pub fn host_event(&mut self, event: HostEvent) -> Option<String> {
        let Some(open) = self.open.as_mut().filter(|o| o.process.id == event.process) else {
            return None; // A window closed before: nothing of it is left to answer.
        };
        match event.what {
            FromHost::Window(FromWindow::Message { url, body }) => {
                open.session.message(&url, &body);
            }
            FromHost::Window(FromWindow::Warning { text }) => {
                tracing::warn!("{text}");
                open.last_warning = Some(text);
            }
            FromHost::Ended { status, success } => {
                let open = self.open.take()?;
                tracing::info!(%status, "history window closed");
                if !success && !open.session.painted {
                    return Some(
                        open.last_warning
                            .unwrap_or_else(|| format!("its process ended ({status})")),
                    );
                }
            }
        }
        None
    }

    /// The app's settings changed (a menu choice, or a change the page asked for): the open
    /// Settings page shows them; for a change the page asked for, `applied` is the answer.
    pub fn settings_changed(&mut self, values: form::FormValues, applied: Option<ipc::Reply>) {
        let Some(open) = &mut self.open else {
            return;
        };
        let session = &mut open.session;
        session.settings.values = values.clone();
        let choices = Box::new(session.settings.choices.clone());
        let reply = applied.unwrap_or(ipc::Reply::Settings { values, choices });
        settings_page::log_reply(&reply);
        session.send_to_page(&reply);
    }

    /// An answer of the app to the Models page (a list, a download's progress, an action
    /// done), shown when the window is open.
    pub fn models_reply(&mut self, reply: ipc::Reply) {
        if let Some(open) = &self.open {
            models_page::log_reply(&reply);
            open.session.send_to_page(&reply);
        }
    }

    /// A re-transcription the window asked for is done: kept with its entry and shown, when
    /// the window is still open (else only logged, by [`retranscribe::run`]).
    pub fn retranscribed(&mut self, done: retranscribe::Retranscription) {
        if let Some(open) = &mut self.open {
            open.session.retranscribed(done);
        }
    }
}

/// What answers the page while the window is open: the database connection and the
/// recordings' owner. Dropped when the window process ends.
struct Session {
    history: Result<History, String>,
    recordings: RecordingStore,
    actions: actions::WindowActions,
    clicked: Instant,
    painted: bool,
    /// The pipe to the window process.
    to_window: mpsc::Sender<ToWindow>,
    /// The page the window opened on (its first paint is the one logged).
    page: Page,
    lang: UiLang,
    settings: SettingsSession,
    models: models_page::ModelsSession,
}

impl Session {
    /// Handles one message from the page and sends the reply, if any.
    fn message(&mut self, url: &str, body: &str) {
        let command = match ipc::parse(url, body) {
            Ok(command) => command,
            Err(e) => return tracing::warn!("{e}"),
        };
        match &command {
            ipc::Command::Page { page } => {
                tracing::info!(page = page.name(), "window: page chosen");
                let _ = self.to_window.send(ToWindow::Title {
                    title: page.title(self.lang).to_string(),
                });
                return;
            }
            ipc::Command::Shown { page } => {
                if !self.painted && *page == self.page && *page != Page::History {
                    self.painted = true;
                    tracing::info!(
                        after_click_ms = self.clicked.elapsed().as_millis() as u64,
                        page = page.name(),
                        "settings page painted"
                    );
                }
                return;
            }
            command if models_page::ModelsSession::owns(command) => {
                return self.models.handle(command);
            }
            command if SettingsSession::owns(command) => {
                let reply = self.settings.handle(command);
                if let Some(reply) = &reply {
                    settings_page::log_reply(reply);
                    self.send_to_page(reply);
                }
                return;
            }
            _ => {}
        }
        if command == ipc::Command::Painted && !self.painted && self.page == Page::History {
            self.painted = true;
            tracing::info!(
                after_click_ms = self.clicked.elapsed().as_millis() as u64,
                "history window painted"
            );
        }
        let reply = match &mut self.history {
            Ok(history) => ipc::dispatch(history, &self.recordings, &mut self.actions, command),
            Err(detail) => (command != ipc::Command::Painted).then(|| ipc::Reply::Failed {
                detail: detail.clone(),
            }),
        };
        if let Some(reply) = reply {
            self.send(reply);
        }
    }

    /// Keeps a finished re-transcription with its entry and shows it against the entry's text.
    fn retranscribed(&mut self, done: retranscribe::Retranscription) {
        let reply = match (&mut self.history, done.result) {
            (Ok(history), Ok(text)) => ipc::retranscribed(history, done.id, &done.model, text),
            (Err(detail), Ok(_)) => ipc::Reply::Failed {
                detail: detail.clone(),
            },
            (_, Err(detail)) => ipc::Reply::Failed { detail },
        };
        self.send(reply);
    }

    fn send(&self, reply: ipc::Reply) {
        log_reply(&reply);
        self.send_to_page(&reply);
    }

    /// Hands `reply` to the page (the window process runs it as a script).
    fn send_to_page(&self, reply: &ipc::Reply) {
        let _ = self.to_window.send(ToWindow::Script {
            js: ipc::reply_script(reply),
        });
    }
}

/// One line per answer, without the person's words (the search query and the texts stay out
/// of the log).
fn log_reply(reply: &ipc::Reply) {
    match reply {
        ipc::Reply::Entries { entries, again, .. } => {
            tracing::info!(
                results = entries.len(),
                again = again.len(),
                "history window: list shown"
            );
        }
        ipc::Reply::Copied { id } => tracing::info!(id, "history window: text copied"),
        ipc::Reply::Starred { id, starred } => {
            tracing::info!(id, starred, "history window: star set");
        }
        ipc::Reply::Deleted { id } => tracing::info!(id, "history window: entry deleted"),
        ipc::Reply::Missing { id } => tracing::info!(id, "history window: no such entry"),
        ipc::Reply::Failed { detail } => tracing::warn!("history window: {detail}"),
        ipc::Reply::Playing { id, seconds } => {
            tracing::info!(id, seconds, "history window: recording playing");
        }
        ipc::Reply::Stopped => tracing::info!("history window: playing stopped"),
        ipc::Reply::NoAudio { id } => tracing::info!(id, "history window: no recording"),
        ipc::Reply::Models { names, .. } => {
            tracing::info!(models = names.len(), "history window: models listed");
        }
        ipc::Reply::Retranscribing { id, model } => {
            tracing::info!(id, model, "history window: re-transcribing");
        }
        ipc::Reply::Retranscribed {
            id, model, diff, ..
        } => {
            let changed = diff
                .iter()
                .filter(|w| w.change != diff::Change::Same)
                .count();
            tracing::info!(id, model, changed, "history window: re-transcription shown");
        }
        ipc::Reply::Transcriptions { id, transcriptions } => {
            tracing::info!(
                id,
                count = transcriptions.len(),
                "history window: re-transcriptions listed"
            );
        }
        ipc::Reply::Exported { entries, path } => {
            tracing::info!(entries, path, "history window: history exported");
        }
        other => settings_page::log_reply(other),
    }
}

/// What the window process is told to open: the window on `page` in `lang`, and every file of
/// the page.
pub fn open_message(
    page: Page,
    lang: UiLang,
    webview_data: &std::path::Path,
) -> host_link::OpenWindow {
    host_link::OpenWindow {
        version: host_link::VERSION,
        title: page.title(lang).to_string(),
        lang: match lang {
            UiLang::Pl => host_link::Lang::Pl,
            UiLang::En => host_link::Lang::En,
        },
        url: format!("{}#{}", protocol::start_url(lang), page.name()),
        size: SIZE,
        min_size: MIN_SIZE,
        data_dir: Some(webview_data.to_string_lossy().into_owned()),
        incognito: host::WEBVIEW_INCOGNITO,
        automation: automation::requested(),
        scheme: protocol::SCHEME.to_string(),
        origin: protocol::ORIGIN.to_string(),
        csp: protocol::CSP.to_string(),
        assets: protocol::bundle(),
    }
}

/// Starts the window process on `context.page` and the session that answers it.
fn open(
    program: &std::path::Path,
    id: u64,
    context: WindowContext,
) -> Result<Open, host::StartError> {
    let opening = open_message(context.page, context.lang, &context.webview_data);
    if opening.automation {
        tracing::warn!("the window's webview may be driven by a WebDriver (a test run)");
    }
    let process = WindowProcess::start(program, id, opening, context.host_events)?;
    // Never sets a damaged file aside: the app's history thread does that, and says so.
    let history = History::open_as_is(&context.database).map_err(|e| e.to_string());
    if let Err(e) = &history {
        tracing::warn!("history window: {e}");
    }
    let mut choices = (context.form_choices)();
    // The apps a mode may name: those the history has seen, after the one in front.
    if let Ok(history) = &history {
        choices.offer_apps(history.recent_apps(APPS_OFFERED).unwrap_or_default());
    }
    let session = Session {
        history,
        recordings: context.recordings,
        actions: actions::WindowActions::new(
            context.copy,
            context.retranscription,
            context.export_folder,
        ),
        clicked: context.clicked,
        painted: false,
        to_window: process.sender(),
        page: context.page,
        lang: context.lang,
        settings: SettingsSession {
            values: context.form_values,
            choices,
            lang: context.lang,
            apply: context.apply,
        },
        models: models_page::ModelsSession {
            request: context.models,
        },
    };
    Ok(Open {
        process,
        session,
        last_warning: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::Settings;
    use std::sync::Arc;
    use std::time::Duration;

    /// The app's side of a window whose process is `script` (sh), its events on the receiver.
    fn open_script(
        script: &str,
        dir: &std::path::Path,
    ) -> (HistoryWindow, mpsc::Receiver<HostEvent>) {
        let program = dir.join("window");
        std::fs::write(&program, format!("#!/bin/sh\n{script}\n")).unwrap();
        crate::platform::set_mode(&program, 0o755).unwrap();
        let settings = Settings::default();
        let (events, said) = mpsc::channel();
        let context = || {
            let events = events.clone();
            WindowContext {
                database: dir.join("history.sqlite3"),
                recordings: RecordingStore::new(dir.join("recordings"), 10),
                lang: UiLang::En,
                webview_data: dir.join("webview"),
                copy: Box::new(|_| {}),
                retranscription: RetranscriptionContext {
                    models_dir: None,
                    current_model: "base".into(),
                    settings: settings.clone(),
                    wording: Arc::new(crate::app::wording::Wording::from_settings(&settings)),
                    state_dir: dir.to_path_buf(),
                    reply_to_app: Box::new(|| Box::new(|_| {})),
                },
                export_folder: dir.to_path_buf(),
                page: Page::History,
                clicked: Instant::now(),
                form_values: form::FormValues::of(&settings),
                form_choices: Box::new(form::FormChoices::default),
                apply: Box::new(|_| {}),
                models: Box::new(|_| {}),
                host_events: Box::new(move |event| {
                    let _ = events.send(event);
                }),
            }
        };
        let mut window = HistoryWindow::default();
        // A fork elsewhere in the test process may briefly hold the new file open (ETXTBSY).
        for _ in 0..100 {
            match open(&program, 1, context()) {
                Ok(open) => {
                    window.open = Some(open);
                    return (window, said);
                }
                Err(host::StartError::Start { source, .. })
                    if source.raw_os_error() == Some(26) =>
                {
                    std::thread::sleep(Duration::from_millis(10));
                }
                Err(e) => panic!("{e}"),
            }
        }
        panic!("the script stayed busy")
    }

    /// Feeds the window's events to it until its process ended; what it said to tell the person.
    fn until_ended(window: &mut HistoryWindow, said: &mpsc::Receiver<HostEvent>) -> Option<String> {
        loop {
            let event = said.recv_timeout(Duration::from_secs(10)).unwrap();
            let ended = matches!(event.what, FromHost::Ended { .. });
            let told = window.host_event(event);
            if ended {
                assert!(!window.is_open());
                return told;
            }
        }
    }

    #[test]
    fn a_window_process_that_fails_before_its_page_shows_is_said_with_its_reason() {
        let dir = tempfile::tempdir().unwrap();
        let (mut window, said) = open_script(
            r#"read first
echo '{"from_window":"warning","text":"window process: cannot create the window: no display"}'
exit 1"#,
            dir.path(),
        );
        assert_eq!(
            until_ended(&mut window, &said).as_deref(),
            Some("window process: cannot create the window: no display")
        );
    }

    #[test]
    fn a_window_closed_by_the_person_is_no_failure() {
        let dir = tempfile::tempdir().unwrap();
        // The page painted, then the window closed (its process ends with 0).
        let (mut window, said) = open_script(
            r#"read first
echo '{"from_window":"message","url":"app://localhost/en/index.html","body":"{\"cmd\":\"painted\"}"}'
exit 0"#,
            dir.path(),
        );
        assert_eq!(until_ended(&mut window, &said), None);
    }
}
