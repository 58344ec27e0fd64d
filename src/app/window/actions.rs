//! What the History window does outside its database, for [`super::ipc::dispatch`]: the app's
//! clipboard, playing a recording ([`crate::audio::playback`]), re-transcribing one
//! ([`super::retranscribe`]), the installed models, and the export folder. All of it lives in
//! the window's session: closing the window stops a recording playing.

use super::ipc::Actions;
use super::retranscribe::{Job, Retranscriber, Retranscription};
use crate::app::wording::Wording;
use crate::audio::playback::{self, Playback};
use crate::settings::Settings;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What re-transcription needs from the app, taken when the window opens.
pub struct RetranscriptionContext {
    /// The installed models' folder; `None` when it cannot be named.
    pub models_dir: Option<PathBuf>,
    /// The model dictations use.
    pub current_model: String,
    /// The person's settings (language, prompt, vocabulary) and wording.
    pub settings: Settings,
    pub wording: Arc<Wording>,
    pub state_dir: PathBuf,
    /// Makes the callback that hands a finished re-transcription back to the app (through
    /// the event loop, to [`super::HistoryWindow::retranscribed`]).
    pub reply_to_app: Box<dyn Fn() -> Box<dyn FnOnce(Retranscription) + Send>>,
}

/// The window's [`Actions`].
pub struct WindowActions {
    copy: Box<dyn FnMut(String)>,
    playing: Option<Playback>,
    retranscription: RetranscriptionContext,
    retranscriber: Retranscriber,
    export_folder: PathBuf,
}

impl WindowActions {
    pub fn new(
        copy: Box<dyn FnMut(String)>,
        retranscription: RetranscriptionContext,
        export_folder: PathBuf,
    ) -> WindowActions {
        WindowActions {
            copy,
            playing: None,
            retranscription,
            retranscriber: Retranscriber::default(),
            export_folder,
        }
    }
}

impl Actions for WindowActions {
    fn copy(&mut self, text: String) {
        (self.copy)(text)
    }

    fn play(&mut self, recording: &Path) -> Result<f32, String> {
        self.playing = None; // stops the one playing first
        let playback = playback::play(recording).map_err(|e| e.to_string())?;
        let seconds = playback.seconds;
        tracing::info!(seconds, device = playback.device, "playing a recording");
        self.playing = Some(playback);
        Ok(seconds)
    }

    fn stop_playing(&mut self) {
        self.playing = None;
    }

    fn models(&self) -> (Vec<String>, String) {
        let names = self
            .retranscription
            .models_dir
            .as_deref()
            .map(crate::paths::installed_models)
            .unwrap_or_default();
        (names, self.retranscription.current_model.clone())
    }

    fn retranscribe(&mut self, id: i64, recording: PathBuf, model: &str) -> Result<(), String> {
        let context = &self.retranscription;
        let models_dir = context
            .models_dir
            .as_deref()
            .ok_or_else(|| "the models folder cannot be named".to_string())?;
        if !crate::paths::installed_models(models_dir)
            .iter()
            .any(|m| m == model)
        {
            return Err(format!(
                "model '{model}' is not installed in {}",
                models_dir.display()
            ));
        }
        let model_dir =
            crate::paths::resolve_model_in(model, models_dir).map_err(|e| e.to_string())?;
        let job = Job {
            id,
            recording,
            model: model.to_string(),
            model_dir,
            settings: context.settings.clone(),
            state_dir: context.state_dir.clone(),
            wording: Arc::clone(&context.wording),
        };
        self.retranscriber.start(job, (context.reply_to_app)())
    }

    fn export_folder(&self) -> PathBuf {
        self.export_folder.clone()
    }
}
