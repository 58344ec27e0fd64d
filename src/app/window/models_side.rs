//! The app's side of the Models page: what the page asks ([`ModelRequest`]) done the way the
//! tray's Model menu does it — a download through the same coordinator
//! (`App::start_download`: one at a time, its progress in the menu too, the model switched to
//! once installed), Cancel through the running download, Use through the menu's Model choice
//! (written to settings.json, the model reloaded) — plus Verify (on a thread of its own: it
//! reads every byte and loads the model) and Remove (never the model in use or a model
//! downloading). Every answer goes to the open window; the list follows every change.

use super::ipc::Reply;
use super::ipc::{DownloadShown, ModelAction};
use super::models_page::{self, ModelRequest};
use super::models_texts::Refusal;
use super::WindowRequest;
use crate::app::model_download::{stage_name, DownloadEvent};
use crate::app::tray::MenuAction;
use crate::app::{App, AppEvent};
use std::sync::atomic::{AtomicBool, Ordering};

/// A verification is running (one at a time: each loads a whole model into memory).
static VERIFYING: AtomicBool = AtomicBool::new(false);

impl App {
    /// Does what the Models page asked, answers it, and shows the list as it is now.
    pub(in crate::app) fn models_request(&mut self, request: ModelRequest) {
        let downloading = self.downloading.as_ref().map(|r| r.model.clone());
        match request {
            ModelRequest::List => {}
            ModelRequest::Download(name) => {
                let started = models_page::check_download(&name, downloading.as_deref())
                    .map_err(|r| r.text(self.lang))
                    .and_then(|entry| self.start_download(entry, false));
                if let Err(detail) = started {
                    self.models_done(&name, ModelAction::Download, Err(detail));
                }
            }
            ModelRequest::Cancel => {
                // The download's end answers the page (cancelled).
                if let Some(running) = &self.downloading {
                    running.cancel();
                }
            }
            ModelRequest::Verify(name) => self.verify_model(name),
            ModelRequest::Remove(name) => {
                let removed = match crate::paths::models_dir() {
                    Ok(dir) => models_page::remove_installed(
                        &dir,
                        &name,
                        &self.settings.model,
                        downloading.as_deref(),
                    ),
                    Err(e) => Err(Refusal::Other {
                        detail: e.to_string(),
                    }),
                };
                let answer = match removed {
                    Ok(dir) => {
                        tracing::info!(model = name, dir = %dir.display(), "model removed");
                        self.show_model_menu();
                        Ok(dir.display().to_string())
                    }
                    Err(refusal) => Err(refusal.text(self.lang)),
                };
                self.models_done(&name, ModelAction::Remove, answer);
            }
            ModelRequest::Use(name) => {
                let installed = crate::paths::models_dir()
                    .map(|d| crate::paths::installed_models(&d))
                    .unwrap_or_default();
                match models_page::check_installed(&name, &installed) {
                    Ok(()) => {
                        if name != self.settings.model {
                            self.menu(MenuAction::Model(name.clone()));
                        }
                        self.models_done(&name, ModelAction::Use, Ok(name.clone()));
                    }
                    Err(refusal) => {
                        let detail = refusal.text(self.lang);
                        self.models_done(&name, ModelAction::Use, Err(detail));
                    }
                }
            }
        }
        self.window_shows_models();
    }

    /// Verifies `name` on a thread; the answer comes back through the event loop.
    fn verify_model(&mut self, name: String) {
        let dir = match crate::paths::models_dir() {
            Ok(dir) => dir,
            Err(e) => return self.models_done(&name, ModelAction::Verify, Err(e.to_string())),
        };
        if VERIFYING.swap(true, Ordering::SeqCst) {
            let busy = Refusal::Checking {
                model: name.clone(),
            }
            .text(self.lang);
            return self.models_done(&name, ModelAction::Verify, Err(busy));
        }
        let lang = self.lang;
        let proxy = self.proxy.clone();
        let model = name.clone();
        let spawned = std::thread::Builder::new()
            .name(format!("verify {name}"))
            .spawn(move || {
                let found = models_page::verify_installed(&dir, &model, lang);
                VERIFYING.store(false, Ordering::SeqCst);
                let _ = proxy.send_event(AppEvent::Window(WindowRequest::ModelVerified {
                    model,
                    found,
                }));
            });
        match spawned {
            Ok(_) => {
                tracing::info!(model = name, "models page: verifying");
                self.window_model_progress(&name, "verifying", 0);
            }
            Err(e) => {
                VERIFYING.store(false, Ordering::SeqCst);
                self.models_done(&name, ModelAction::Verify, Err(e.to_string()));
            }
        }
    }

    /// A verification is done: the page says what it found.
    pub(in crate::app) fn model_verified(&mut self, model: String, found: Result<String, String>) {
        tracing::info!(model, ok = found.is_ok(), "model verified");
        self.models_done(&model, ModelAction::Verify, found);
    }

    /// The running download's progress and end, for the open page (after the app has handled
    /// them: a finished model is installed and in use).
    pub(in crate::app) fn window_download_event(&mut self, event: DownloadEvent) {
        if !self.history_window.is_open() {
            return;
        }
        match event {
            DownloadEvent::Progress {
                model,
                stage,
                percent,
            } => self.window_model_progress(&model, stage_name(stage), percent),
            DownloadEvent::Finished { model, result } => {
                match result {
                    Ok(dir) => {
                        let dir = dir.display().to_string();
                        self.models_done(&model, ModelAction::Download, Ok(dir));
                    }
                    Err(failure) if failure.cancelled => {
                        self.models_done(&model, ModelAction::Cancel, Ok(String::new()));
                    }
                    Err(failure) => {
                        self.models_done(&model, ModelAction::Download, Err(failure.message));
                    }
                }
                self.window_shows_models();
            }
        }
    }

    fn window_model_progress(&mut self, model: &str, stage: &'static str, percent: u8) {
        self.history_window.models_reply(Reply::ModelProgress {
            model: model.to_string(),
            stage,
            percent,
        });
    }

    fn models_done(&mut self, model: &str, action: ModelAction, answer: Result<String, String>) {
        let (ok, detail) = match answer {
            Ok(detail) => (true, detail),
            Err(detail) => (false, detail),
        };
        self.history_window.models_reply(Reply::ModelDone {
            model: model.to_string(),
            action,
            ok,
            detail,
        });
    }

    /// The open Models page lists the models as they are now.
    pub(in crate::app) fn window_shows_models(&mut self) {
        if !self.history_window.is_open() {
            return;
        }
        let dir = crate::paths::models_dir().ok();
        let downloading = self.downloading.as_ref().map(|r| DownloadShown {
            model: r.model.clone(),
            stage: stage_name(r.stage),
            percent: r.percent,
        });
        let list = models_page::list_reply(
            dir.as_deref(),
            &self.settings.model,
            self.suggested_model,
            downloading,
            self.lang,
        );
        self.history_window.models_reply(list);
    }
}
