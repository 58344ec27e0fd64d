//! The app's side of the History window: what the menu's "History…" hands the window, and the
//! requests the window sends back to the app through the event loop ([`WindowRequest`]).

use super::retranscribe::Retranscription;
use super::{RetranscriptionContext, WindowContext};
use crate::app::notices::Notice;
use crate::app::output::OutputCommand;
use crate::app::{App, AppEvent};

/// What the window asks of the app (through the event loop's proxy).
#[derive(Debug, Clone, PartialEq)]
pub enum WindowRequest {
    /// Put an entry's text on the clipboard, as the menu's recent transcripts do.
    Copy(String),
    /// A re-transcription the window started is done.
    Retranscribed(Retranscription),
    /// Apply a valid change of a setting from the Settings page (`settings_side.rs`).
    Apply(super::form::Change),
    /// Do what the Models page asks (`models_side.rs`).
    Models(super::models_page::ModelRequest),
    /// A model's verification the Models page started is done: what it found, `Ok` when the
    /// model is as downloaded and loads.
    ModelVerified {
        model: String,
        found: Result<String, String>,
    },
    /// What the window process said (`host.rs`).
    Host(super::host::HostEvent),
}

impl App {
    /// The menu's "History…": the window opens.
    pub(in crate::app) fn open_history_window(&mut self) {
        self.open_window(super::Page::History);
    }

    /// The window, opened (or brought to the front) on `page`.
    pub(in crate::app) fn open_window(&mut self, page: super::Page) {
        let clicked = std::time::Instant::now();
        let lang = self.lang;
        let form_values = super::form::FormValues::of(&self.settings);
        let in_front = self.app_in_front();
        let granted = self
            .desktop_shortcut
            .as_ref()
            .and_then(|shortcut| shortcut.granted_trigger());
        let hotkey_note = self.session.hotkey_note(granted.as_deref(), lang);
        let apply_proxy = self.proxy.clone();
        let models_proxy = self.proxy.clone();
        let proxy = self.proxy.clone();
        let back = self.proxy.clone();
        let host_proxy = self.proxy.clone();
        let retranscription = RetranscriptionContext {
            models_dir: crate::paths::models_dir().ok(),
            current_model: self
                .model
                .as_ref()
                .map_or_else(|| self.settings.model.clone(), |m| m.name.clone()),
            settings: self.settings.clone(),
            wording: self.wording.clone(),
            state_dir: self.paths.state_dir.clone(),
            reply_to_app: Box::new(move || {
                let proxy = back.clone();
                Box::new(move |done| {
                    let _ = proxy.send_event(AppEvent::Window(WindowRequest::Retranscribed(done)));
                })
            }),
        };
        let opened = self.history_window.request(WindowContext {
            database: self.paths.state_dir.join(crate::history::FILE_NAME),
            recordings: self.recordings.clone(),
            lang: self.lang,
            webview_data: self.paths.state_dir.join("webview"),
            copy: Box::new(move |text| {
                let _ = proxy.send_event(AppEvent::Window(WindowRequest::Copy(text)));
            }),
            retranscription,
            export_folder: export_folder(),
            page,
            clicked,
            form_values,
            form_choices: Box::new(move || {
                let started = std::time::Instant::now();
                let mut choices = super::settings_side::form_choices(lang);
                choices.in_front = in_front.clone();
                choices.hotkey_note = hotkey_note.clone();
                choices.offer_apps(in_front);
                tracing::info!(
                    ms = started.elapsed().as_millis() as u64,
                    "settings page: choices listed"
                );
                choices
            }),
            apply: Box::new(move |change| {
                let _ = apply_proxy.send_event(AppEvent::Window(WindowRequest::Apply(change)));
            }),
            models: Box::new(move |request| {
                let _ = models_proxy.send_event(AppEvent::Window(WindowRequest::Models(request)));
            }),
            host_events: Box::new(move |event| {
                let _ = host_proxy.send_event(AppEvent::Window(WindowRequest::Host(event)));
            }),
        });
        if let Err(detail) = opened {
            self.notify(&Notice::WindowUnavailable { detail });
        }
    }

    pub(in crate::app) fn window_request(&mut self, request: WindowRequest) {
        match request {
            WindowRequest::Copy(text) => self.output.send(OutputCommand::Copy(text)),
            WindowRequest::Retranscribed(done) => self.history_window.retranscribed(done),
            WindowRequest::Apply(change) => self.apply_setting(change),
            WindowRequest::Models(request) => self.models_request(request),
            WindowRequest::ModelVerified { model, found } => self.model_verified(model, found),
            WindowRequest::Host(event) => {
                if let Some(detail) = self.history_window.host_event(event) {
                    self.notify(&Notice::WindowUnavailable { detail });
                }
            }
        }
    }
}

/// Where the window's exports go: the person's Downloads folder, else their home folder.
fn export_folder() -> std::path::PathBuf {
    let dirs = directories::UserDirs::new();
    dirs.as_ref()
        .and_then(|d| d.download_dir().map(|p| p.to_path_buf()))
        .or_else(|| dirs.as_ref().map(|d| d.home_dir().to_path_buf()))
        .unwrap_or_else(std::env::temp_dir)
}
