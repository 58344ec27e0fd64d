//! The per-app mode of each dictation (`settings::modes`): chosen at key-down from the app
//! that has the focus then (read on the main thread, right after the microphone was told to
//! start), and kept with the dictation until it ends, so a text goes out as that app's rule
//! says even when the person has moved on meanwhile. Its settings (language, prompt,
//! vocabulary, commands, fillers) make the transcription's parameters and wording; its
//! delivery (output, paste keys, key after, joining) goes to the output thread. A dictation
//! without an entry (a retry, a recovered recording) uses the general settings. The jobs sent
//! to the worker (early, stride and whole) carry the dictation's parameters and wording.

use super::wording::Wording;
use super::worker::{self, Job, JobAudio, WorkerCommand};
use super::App;
use crate::audio::level::loudest_frame;
use crate::audio::shared_audio::SharedAudio;
use crate::inject::{Keystrokes, OutputMode};
use crate::platform::{FocusProbe, IS_MACOS};
use crate::settings::modes::AppliedMode;
use std::sync::Arc;

/// A dictation's mode and the wording made from it.
#[derive(Debug, Clone)]
pub struct DictationMode {
    pub applied: AppliedMode,
    pub wording: Arc<Wording>,
}

impl DictationMode {
    /// The output mode, the keystrokes and whether the text may join the one before.
    pub fn delivery(&self) -> (OutputMode, Keystrokes, bool) {
        let delivery = &self.applied.delivery;
        (
            OutputMode::parse(&delivery.output).unwrap_or(OutputMode::Paste),
            Keystrokes {
                paste: delivery.paste_keys,
                after: delivery.press_after,
            },
            delivery.join_previous,
        )
    }
}

/// Reads the focused app's names on the main thread (its own X connection).
#[derive(Default)]
pub struct AppAtKeyDown(Option<Option<FocusProbe>>);

impl AppAtKeyDown {
    fn names(&mut self) -> Option<crate::settings::modes::AppNames> {
        self.0
            .get_or_insert_with(FocusProbe::new)
            .as_ref()?
            .focused_app_names()
            .map(crate::settings::modes::AppNames)
    }
}

impl App {
    /// Chooses dictation `id`'s mode from the app that has the focus now.
    pub(super) fn choose_mode(&mut self, id: u64) {
        let started = std::time::Instant::now();
        let app = self.app_at_key_down.names();
        let applied = AppliedMode::for_app(&self.settings, app.as_ref(), IS_MACOS);
        let wording = if applied.name.is_some() {
            Arc::new(Wording::from_settings(&applied.settings))
        } else {
            self.wording.clone()
        };
        tracing::info!(
            id,
            mode = applied.name.as_deref().unwrap_or(""),
            builtin = applied.builtin,
            app_known = app.is_some(),
            took_us = started.elapsed().as_micros() as u64,
            "dictation mode"
        );
        if let Some(name) = &applied.name {
            self.overlay.mode_name(id, name);
        }
        self.dictation_modes
            .insert(id, DictationMode { applied, wording });
    }

    /// The names of the app in front now (for the Settings page's modes: the app the person
    /// was in when they opened the window from the menu); this app's own names left out.
    pub(super) fn app_in_front(&mut self) -> Vec<String> {
        let own = |name: &str| {
            let name = name.to_ascii_lowercase();
            name.contains("whisper-dictation") || name.contains("whisper_dictation")
        };
        match self.app_at_key_down.names() {
            Some(names) if !names.0.iter().any(|n| own(n)) => names.0,
            _ => Vec::new(),
        }
    }

    /// Dictation `id`'s mode; the general settings' when it has none.
    pub(super) fn mode_of(&self, id: u64) -> DictationMode {
        self.dictation_modes
            .get(&id)
            .cloned()
            .unwrap_or_else(|| DictationMode {
                applied: AppliedMode::general(&self.settings, IS_MACOS),
                wording: self.wording.clone(),
            })
    }

    /// Sends the audio so far of recording `id` to be transcribed ahead of its end (`stride`:
    /// sent for a stretch of speech without a pause).
    pub(super) fn transcribe_early(&mut self, id: u64, samples: SharedAudio, stride: bool) {
        if !stride {
            // A stride's snapshot may be skipped by the worker: only a pause's covers key-up.
            self.early_sent = Some(super::EarlySent {
                id,
                len: samples.len(),
                peak: loudest_frame(&samples, 16_000),
            });
        }
        let mode = self.mode_of(id);
        let params = worker::params_from(&mode.applied.settings);
        let job = Job {
            id,
            audio: JobAudio::Recorded(samples),
            params,
            wording: mode.wording,
            journal: self.journals.get(&id).cloned(),
        };
        self.worker.send(if stride {
            WorkerCommand::TranscribeStride(job)
        } else {
            WorkerCommand::TranscribeEarly(job)
        });
    }

    /// Sends dictation `id`'s whole audio (recorded, or a saved recording) to be transcribed.
    pub(super) fn transcribe(&mut self, id: u64, audio: JobAudio) {
        self.reload_if_unloaded("a transcription");
        let mode = self.mode_of(id);
        let params = worker::params_from(&mode.applied.settings);
        let journal = match audio {
            JobAudio::Recorded(_) => self.journals.get(&id).cloned(),
            JobAudio::Saved(_) => None,
        };
        self.worker.send(WorkerCommand::Transcribe(Job {
            id,
            audio,
            params,
            wording: mode.wording,
            journal,
        }));
    }
}
