//! The Model menu's life in the app: a model download started by two clicks (one download at a
//! time), its progress in the menu, switching to the model once it is installed, the menu
//! rebuilt from what is installed, and the first run's suggestion of a model for this machine.

use super::model_download::{self, stage_name, DownloadEvent};
use super::notices::Notice;
use super::texts;
use super::tray::ModelMenuView;
use super::{sender, App, AppEvent};
use std::time::Instant;

impl App {
    /// A click on a model to download: the first arms it (and says what a second click will
    /// fetch), the second starts it; "download again" starts at once (its label names the
    /// size). One download at a time.
    pub(super) fn download_clicked(&mut self, name: &str, replace: bool) {
        if let Some(running) = &self.downloading {
            self.notify(&Notice::DownloadBusy {
                model: running.model.clone(),
            });
            return;
        }
        let Some(entry) = crate::models::find(name) else {
            return;
        };
        let size = crate::models::catalogue::human_bytes(entry.download_bytes);
        if !replace && !self.confirm.click(name, Instant::now()) {
            self.notify(&Notice::DownloadConfirm {
                model: name.to_string(),
                size,
            });
            self.show_model_menu();
            return;
        }
        self.confirm.clear();
        let _ = self.start_download(entry, replace);
    }

    /// Starts downloading `entry` (confirmed: by the menu's second click, or the Models page's
    /// button); a failure to start is notified and returned.
    pub(super) fn start_download(
        &mut self,
        entry: &'static crate::models::CatalogueEntry,
        replace: bool,
    ) -> Result<(), String> {
        let name = entry.name;
        tracing::info!(model = name, replace, "model download started");
        let started =
            match model_download::start(entry, replace, sender(&self.proxy, AppEvent::Download)) {
                Ok(running) => {
                    self.downloading = Some(running);
                    Ok(())
                }
                Err(message) => {
                    self.notify(&Notice::DownloadFailed {
                        model: name.to_string(),
                        detail: message.clone(),
                        resumable: false,
                    });
                    Err(message)
                }
            };
        self.show_model_menu();
        started
    }

    pub(super) fn download_event(&mut self, event: DownloadEvent) {
        let for_window = event.clone();
        match event {
            DownloadEvent::Progress {
                model,
                stage,
                percent,
            } => {
                let Some(running) = self.downloading.as_mut().filter(|r| r.model == model) else {
                    return;
                };
                running.stage = stage;
                running.percent = percent;
                let text =
                    texts::model_menu::progress(self.lang, &model, stage_name(stage), percent);
                if let Some(tray) = &self.tray {
                    tray.set_download_progress(&text);
                }
            }
            DownloadEvent::Finished { model, result } => {
                self.downloading = None;
                match result {
                    Ok(dir) => {
                        tracing::info!(model, dir = %dir.display(), "model downloaded");
                        self.notify(&Notice::DownloadDone {
                            model: model.clone(),
                        });
                        self.failed_model = None;
                        // Switch to it: the worker loads and warms it as for a menu choice.
                        self.settings.model = model;
                        self.save_choice(crate::settings::file::SettingKey::Model);
                        self.load_model();
                    }
                    Err(failure) if failure.cancelled => {
                        tracing::info!(model, "model download cancelled");
                    }
                    Err(failure) => self.notify(&Notice::DownloadFailed {
                        model,
                        detail: failure.message,
                        resumable: failure.resumable,
                    }),
                }
                self.show_model_menu();
            }
        }
        // After the switch to a downloaded model, so the page lists it in use.
        self.window_download_event(for_window);
    }

    /// Rebuilds the Model menu from what is installed and the download state.
    pub(super) fn show_model_menu(&mut self) {
        let installed = crate::paths::models_dir()
            .map(|d| crate::paths::installed_models(&d))
            .unwrap_or_default();
        let Some(tray) = &mut self.tray else {
            return;
        };
        let view = ModelMenuView {
            installed: &installed,
            current: &self.settings.model,
            suggested: self.suggested_model,
            running: self
                .downloading
                .as_ref()
                .map(|r| (r.model.as_str(), stage_name(r.stage), r.percent)),
            armed: self.confirm.armed(Instant::now()),
            failed: self.failed_model.as_deref(),
        };
        tray.set_model_menu(&view);
        tray.show_settings(&self.settings);
    }

    /// On the first run only: names the model suggested for this machine when it is not
    /// installed (nothing is downloaded unasked). A marker in the state folder remembers it.
    pub(super) fn suggest_model_once(&self) {
        let marker = self.paths.state_dir.join("model-suggested");
        if marker.exists() {
            return;
        }
        let installed = crate::paths::models_dir()
            .map(|d| crate::paths::installed_models(&d))
            .unwrap_or_default();
        let suggested = self.suggested_model;
        if !installed.iter().any(|m| m == suggested) {
            if let Some(entry) = crate::models::find(suggested) {
                self.notify(&Notice::ModelSuggested {
                    model: suggested.to_string(),
                    size: crate::models::catalogue::human_bytes(entry.download_bytes),
                });
            }
        }
        if let Err(e) = crate::private_files::write(&marker, suggested.as_bytes()) {
            tracing::warn!("{}: {e}", marker.display());
        }
    }
}
