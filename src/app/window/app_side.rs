//! The app's side of the History window: what the menu's "History…" hands the window, and the
//! requests the window sends back to the app through the event loop ([`WindowRequest`]).

use super::WindowContext;
use crate::app::output::OutputCommand;
use crate::app::{App, AppEvent};

/// What the window asks of the app (through the event loop's proxy).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WindowRequest {
    /// Put an entry's text on the clipboard, as the menu's recent transcripts do.
    Copy(String),
    /// Apply a valid change of a setting from the Settings page (`settings_side.rs`).
    Apply(super::form::Change),
}

impl App {
    /// The menu's "History…": the window opens at the loop's next turn.
    pub(in crate::app) fn open_history_window(&mut self) {
        self.open_window(super::Page::History);
    }

    /// The window, opened (or brought to the front) on `page` at the loop's next turn.
    pub(in crate::app) fn open_window(&mut self, page: super::Page) {
        let started = std::time::Instant::now();
        let form = (
            super::form::FormValues::of(&self.settings),
            self.form_choices(),
        );
        tracing::info!(
            ms = started.elapsed().as_millis() as u64,
            "settings page: choices listed"
        );
        let apply_proxy = self.proxy.clone();
        let proxy = self.proxy.clone();
        self.history_window.request(WindowContext {
            database: self.paths.state_dir.join(crate::history::FILE_NAME),
            recordings: self.recordings.clone(),
            lang: self.lang,
            webview_data: self.paths.state_dir.join("webview"),
            copy: Box::new(move |text| {
                let _ = proxy.send_event(AppEvent::Window(WindowRequest::Copy(text)));
            }),
            page,
            form,
            apply: Box::new(move |change| {
                let _ = apply_proxy.send_event(AppEvent::Window(WindowRequest::Apply(change)));
            }),
        });
    }

    pub(in crate::app) fn window_request(&mut self, request: WindowRequest) {
        match request {
            WindowRequest::Copy(text) => self.output.send(OutputCommand::Copy(text)),
            WindowRequest::Apply(change) => self.apply_setting(change),
        }
    }
}
