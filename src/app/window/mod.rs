//! The History window: one tao window with the system webview (wry: WebKitGTK on Linux,
//! WKWebView on macOS) showing the dictation history, opened from the menu's "History…", and
//! the settings, opened on its Settings page from "Settings…" ([`Page`]; the page's form is
//! [`form`], its commands [`settings_page`], the app's side of a change `settings_side.rs`).
//!
//! This module owns the window, its webview and the window's own connection to the history
//! database (`history.sqlite3` in the state folder; WAL lets it sit beside the app's history
//! thread, which is not involved). Their life: closed (nothing exists: no webview, no web
//! process, no connection, no timer, no thread) → requested by the menu
//! ([`HistoryWindow::request`]) → open, at the next turn of the event loop
//! ([`HistoryWindow::sync`]; a second "History…" only brings it to the front) → closed when the
//! person closes it ([`HistoryWindow::window_event`]): the webview is dropped, then the window;
//! the connection and the IPC handler go with the webview.
//!
//! The page is bundled in the binary and served through `app://` ([`protocol`]); the page
//! may only send the commands of [`ipc`], answered by one script call each. Words: [`texts`].

mod actions;
mod app_side;
pub mod automation;
pub mod diff;
pub mod form;
pub mod ipc;
pub mod models_page;
mod models_side;
pub mod models_texts;
pub mod protocol;
pub mod retranscribe;
mod settings_page;
mod settings_side;
pub mod settings_texts;
pub mod texts;

use crate::history::History;
use crate::i18n::UiLang;
use crate::recordings::RecordingStore;
use std::cell::RefCell;
use std::path::PathBuf;
use std::rc::{Rc, Weak};
use std::time::Instant;
use tao::dpi::LogicalSize;
use tao::event::WindowEvent;
use tao::event_loop::EventLoopWindowTarget;
use tao::window::{Window, WindowBuilder, WindowId};
use wry::{NewWindowResponse, WebContext, WebView, WebViewBuilder};

pub use actions::RetranscriptionContext;
pub use app_side::WindowRequest;
pub use settings_page::Page;
use settings_page::SettingsSession;

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
    /// The Settings page's values and choices now.
    pub form: (form::FormValues, form::FormChoices),
    /// Hands a valid change of a setting to the app.
    pub apply: Box<dyn FnMut(form::Change)>,
    /// Hands the Models page's requests to the app.
    pub models: Box<dyn FnMut(models_page::ModelRequest)>,
}

/// Why the window could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum WindowError {
    #[error("cannot create the history window: {0}")]
    Window(String),
    #[error("cannot create the history window's web view: {0}")]
    WebView(#[from] wry::Error),
}

/// The History window; see the module doc for its life.
#[derive(Default)]
pub struct HistoryWindow {
    /// A menu click waiting for the event loop's next turn, with when it came.
    requested: Option<(Instant, WindowContext)>,
    open: Option<Open>,
    /// The webview's context, made at the first open and kept for the app's run: on Linux the
    /// WebKit context owns the `app://` handler and the one network process WebKit keeps (see
    /// `platform::WEBVIEW_INCOGNITO`); a GObject, no thread or timer of the app's.
    web_context: Option<WebContext>,
}

/// An open window. Fields drop in order: the webview before its window.
struct Open {
    webview: Rc<WebView>,
    window: Rc<Window>,
    /// The IPC handler's session (the handler holds it too, and goes with the webview).
    session: Rc<RefCell<Session>>,
}

impl HistoryWindow {
    /// The menu's "History…": the window opens (or comes to the front) at the next
    /// [`Self::sync`].
    pub fn request(&mut self, context: WindowContext) {
        self.requested = Some((Instant::now(), context));
    }

    /// Whether the window is open.
    pub fn is_open(&self) -> bool {
        self.open.is_some()
    }

    /// Opens a requested window. Called at every turn of the event loop (a window can only
    /// be created with its target).
    pub fn sync<T: 'static>(&mut self, target: &EventLoopWindowTarget<T>) {
        let Some((clicked, context)) = self.requested.take() else {
            return;
        };
        if let Some(open) = &self.open {
            open.window.set_visible(true);
            open.window.set_focus();
            open.window.set_title(context.page.title(context.lang));
            let show = ipc::Reply::Show { page: context.page };
            settings_page::log_reply(&show);
            open.send(&show);
            return;
        }
        let data = context.webview_data.clone();
        let web_context = self.web_context.get_or_insert_with(|| {
            let mut web_context = WebContext::new(Some(data));
            if automation::requested() {
                tracing::warn!("the window's webview may be driven by a WebDriver (a test run)");
                web_context.set_allows_automation(true);
            }
            web_context
        });
        match open(target, web_context, clicked, context) {
            Ok(open) => {
                tracing::info!(
                    after_click_ms = clicked.elapsed().as_millis() as u64,
                    "history window created"
                );
                self.open = Some(open);
            }
            Err(e) => tracing::warn!("{e}"),
        }
    }

    /// A window event; closing this window drops it and everything it holds.
    pub fn window_event(&mut self, id: WindowId, event: &WindowEvent) {
        let ours = self.open.as_ref().is_some_and(|o| o.window.id() == id);
        if ours && matches!(event, WindowEvent::CloseRequested | WindowEvent::Destroyed) {
            self.close();
        }
    }

    /// The app's settings changed (a menu choice, or a change the page asked for): the open
    /// Settings page shows them; for a change the page asked for, `applied` is the answer.
    pub fn settings_changed(&mut self, values: form::FormValues, applied: Option<ipc::Reply>) {
        let Some(open) = &self.open else {
            return;
        };
        let choices = match open.session.try_borrow_mut() {
            Ok(mut session) => {
                session.settings.values = values.clone();
                session.settings.choices.clone()
            }
            Err(_) => return tracing::warn!("settings page: not updated (busy)"),
        };
        let reply = applied.unwrap_or(ipc::Reply::Settings { values, choices });
        settings_page::log_reply(&reply);
        open.send(&reply);
    }

    /// An answer of the app to the Models page (a list, a download's progress, an action
    /// done), shown when the window is open.
    pub fn models_reply(&mut self, reply: ipc::Reply) {
        if let Some(open) = &self.open {
            models_page::log_reply(&reply);
            open.send(&reply);
        }
    }

    /// Closes the window (nothing of it stays alive: a recording playing stops).
    pub fn close(&mut self) {
        if let Some(open) = self.open.take() {
            let Open {
                webview,
                window,
                session,
            } = open;
            drop(webview);
            drop(window);
            drop(session);
            tracing::info!("history window closed");
        }
    }

    /// A re-transcription the window asked for is done: kept with its entry and shown, when
    /// the window is still open (else only logged, by [`retranscribe::run`]).
    pub fn retranscribed(&mut self, done: retranscribe::Retranscription) {
        if let Some(open) = &self.open {
            open.session.borrow_mut().retranscribed(done);
        }
    }
}

impl Open {
    /// Hands `reply` to the page.
    fn send(&self, reply: &ipc::Reply) {
        if let Err(e) = self.webview.evaluate_script(&ipc::reply_script(reply)) {
            tracing::warn!("history window: cannot answer the page: {e}");
        }
    }
}

/// What the IPC handler holds while the window is open: the database connection and the
/// recordings' owner. Dropped with the webview.
struct Session {
    history: Result<History, String>,
    recordings: RecordingStore,
    actions: actions::WindowActions,
    clicked: Instant,
    painted: bool,
    webview: Weak<WebView>,
    /// The page the window opened on (its first paint is the one logged).
    page: Page,
    lang: UiLang,
    window: Weak<Window>,
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
                if let Some(window) = self.window.upgrade() {
                    window.set_title(page.title(self.lang));
                }
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
                }
                if let (Some(reply), Some(webview)) = (reply, self.webview.upgrade()) {
                    if let Err(e) = webview.evaluate_script(&ipc::reply_script(&reply)) {
                        tracing::warn!("settings page: cannot answer the page: {e}");
                    }
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
        if let Some(webview) = self.webview.upgrade() {
            if let Err(e) = webview.evaluate_script(&ipc::reply_script(&reply)) {
                tracing::warn!("history window: cannot answer the page: {e}");
            }
        }
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

fn open<T: 'static>(
    target: &EventLoopWindowTarget<T>,
    web_context: &mut WebContext,
    clicked: Instant,
    context: WindowContext,
) -> Result<Open, WindowError> {
    let window = WindowBuilder::new()
        .with_title(context.page.title(context.lang))
        .with_inner_size(LogicalSize::new(760.0, 600.0))
        .with_min_inner_size(LogicalSize::new(420.0, 320.0))
        .build(target)
        .map(Rc::new)
        .map_err(|e| WindowError::Window(e.to_string()))?;
    // Never sets a damaged file aside: the app's history thread does that, and says so.
    let history = History::open_as_is(&context.database).map_err(|e| e.to_string());
    if let Err(e) = &history {
        tracing::warn!("history window: {e}");
    }
    let session = Rc::new(RefCell::new(Session {
        history,
        recordings: context.recordings,
        actions: actions::WindowActions::new(
            context.copy,
            context.retranscription,
            context.export_folder,
        ),
        clicked,
        painted: false,
        webview: Weak::new(),
        page: context.page,
        lang: context.lang,
        window: Rc::downgrade(&window),
        settings: SettingsSession {
            values: context.form.0,
            choices: context.form.1,
            lang: context.lang,
            apply: context.apply,
        },
        models: models_page::ModelsSession {
            request: context.models,
        },
    }));
    let from_page = Rc::clone(&session);
    // Registered once per context where the context holds it (Linux), per webview elsewhere.
    let protocol_registered = web_context.is_custom_protocol_registered(protocol::SCHEME);
    let mut builder = WebViewBuilder::new_with_web_context(web_context)
        .with_incognito(crate::platform::WEBVIEW_INCOGNITO)
        .with_devtools(false);
    if !protocol_registered {
        // The page's language is in its path (`/pl/index.html`): the handler outlives one open.
        builder = builder.with_custom_protocol(protocol::SCHEME.into(), |_id, request| {
            protocol::response(protocol::asset(request.uri().path()))
        });
    }
    let builder = builder
        .with_ipc_handler(move |request| {
            let url = request.uri().to_string();
            match from_page.try_borrow_mut() {
                Ok(mut session) => session.message(&url, request.body()),
                // Only if a reply re-entered the handler; the page asks again on its next input.
                Err(_) => tracing::warn!("history window: a message arrived while one was handled"),
            }
        })
        .with_navigation_handler(|url| {
            let allowed = protocol::may_navigate(&url);
            if !allowed {
                tracing::warn!(url = %url.chars().take(200).collect::<String>(), "history window: navigation refused");
            }
            allowed
        })
        .with_new_window_req_handler(|url, _features| {
            tracing::warn!(url = %url.chars().take(200).collect::<String>(), "history window: new window refused");
            NewWindowResponse::Deny
        })
        .with_download_started_handler(|_url, _path| false)
        .with_drag_drop_handler(|_| true)
        .with_url(format!(
            "{}#{}",
            protocol::start_url(context.lang),
            context.page.name()
        ));
    let webview = Rc::new(crate::platform::build_webview(builder, &window)?);
    session.borrow_mut().webview = Rc::downgrade(&webview);
    Ok(Open {
        webview,
        window,
        session,
    })
}
