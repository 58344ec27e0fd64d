//! What becomes of a dictation once the worker has spoken: text is delivered (pasted, typed or
//! copied, joined to the previous dictation) and remembered in Recent transcripts; speech that
//! gave no text is said; a failure (or a panic in the worker) is said with the recording kept;
//! and at the end, whatever the outcome, the recording is marked finished (the one "Retry"
//! takes; held from pruning when it was never transcribed), or deleted once its text was
//! delivered when the person keeps no recordings ([`super::privacy`]). A delivered dictation
//! goes to the history ([`super::history_thread`]). Recovered recordings of
//! a previous run are handed to [`super::recovery`].

use super::notices::Notice;
use super::notify;
use super::output::{OutputCommand, OutputEvent};
use super::state::Input;
use super::texts;
use super::tray;
use super::verdict;
use super::worker::{self, Outcome, WorkerEvent};
use super::{App, LoadedModel};
use crate::i18n::UiLang;
use crate::inject::OutputMode;
use std::path::PathBuf;
use std::time::Instant;

impl App {
    pub(super) fn worker_event(&mut self, event: WorkerEvent) {
        match event {
            WorkerEvent::Loading { model } => {
                tracing::info!(model, "loading the model");
                self.input(Input::ModelLoading);
            }
            WorkerEvent::Ready {
                model,
                device,
                why,
                load,
                warm_up,
            } => {
                tracing::info!(
                    model,
                    device = device.name(),
                    why = texts::placement_reason(&why, UiLang::En),
                    load_ms = load.as_millis() as u64,
                    warm_up_ms = warm_up.as_millis() as u64,
                    "model ready"
                );
                self.model = Some(LoadedModel {
                    name: model,
                    device,
                    why,
                });
                self.last_error = None;
                self.input(Input::ModelReady);
                if self.failed_model.take().is_some() {
                    self.show_model_menu();
                }
                if !self.announced_ready {
                    self.announced_ready = true;
                    tracing::info!(
                        hotkey = %self.settings.hotkey,
                        hotkey_registered = self.hotkey.is_some(),
                        mode = %self.settings.hotkey_mode,
                        output = %self.settings.output,
                        "app ready"
                    );
                    self.recover_unfinished();
                }
            }
            WorkerEvent::Unloaded {
                model,
                device,
                took,
            } => {
                tracing::info!(
                    model,
                    device = device.name(),
                    took_ms = took.as_millis() as u64,
                    "model unloaded"
                );
                self.idle.unloaded();
                self.input(Input::ModelUnloaded);
            }
            WorkerEvent::LoadFailed { model, message } => {
                tracing::error!(model, message, "model not loaded");
                self.model = None;
                self.last_error = Some(message.clone());
                self.input(Input::ModelFailed);
                let redownload = crate::models::find(&model).is_some();
                self.failed_model = redownload.then(|| model.clone());
                self.notify(&Notice::ModelFailed {
                    model,
                    detail: message,
                    redownload,
                });
                self.show_model_menu();
            }
            WorkerEvent::Notices(notices) => {
                for notice in notices {
                    tracing::warn!(notice, "device");
                    self.notifier.send(notify::APP_NAME, notice);
                }
            }
            WorkerEvent::Progress {
                id,
                seconds,
                engine,
                stopped,
                committed,
                tentative,
            } => {
                tracing::debug!(
                    id,
                    seconds,
                    engine_ms = engine.as_millis() as u64,
                    stopped,
                    "audio so far transcribed"
                );
                // A pass that gave no text at all, or was stopped, leaves the words shown.
                if !stopped && (!committed.trim().is_empty() || !tentative.trim().is_empty()) {
                    self.overlay.stream_text(id, &committed, &tentative);
                }
            }
            WorkerEvent::Done {
                id,
                outcome,
                recording,
                at,
                engine,
                level,
                early,
                heard,
            } => {
                if let Some(unfinished) = self.recovery.finished(id) {
                    self.recovered(unfinished, outcome, level, heard);
                    return;
                }
                if let Some(path) = &recording {
                    // Where the worker kept it (a retried or memory-only recording): marked
                    // finished when the dictation ends.
                    self.journals.entry(id).or_insert_with(|| path.clone());
                }
                let stage = self.stages.entry(id).or_default();
                stage.text = Some(at);
                stage.engine = engine;
                stage.early = early;
                stage.heard = heard;
                match outcome {
                    Outcome::Text(text) => self.deliver(id, text),
                    Outcome::Empty(empty) => {
                        let digital_zero = level.is_some_and(|l| l.peak_frame_rms == 0.0);
                        if digital_zero && !self.warned_silent_microphone {
                            self.warned_silent_microphone = true;
                            self.notify(&Notice::MicrophoneSilent {
                                mac: crate::platform::IS_MACOS,
                            });
                        }
                        tracing::info!(
                            id,
                            reason = empty.reason(),
                            active_speech_s = level.map_or(0.0, |l| l.active_seconds),
                            text = ?crate::logging::dictated(empty.text()),
                            "dictation empty"
                        );
                        match level.filter(|l| verdict::spoke(&empty, l)) {
                            Some(level) => {
                                self.overlay.nothing_recognised(id, Instant::now());
                                self.notify(&Notice::NothingRecognised {
                                    speech: level.active_seconds,
                                    larger_model: self.larger_model_for_polish(),
                                });
                            }
                            None => self.overlay.end(id),
                        }
                        self.finish(id);
                    }
                    Outcome::Failed(message) => {
                        tracing::error!(id, message, recording = ?recording, "transcription failed");
                        self.last_error = Some(message.clone());
                        self.notify(&Notice::TranscriptionFailed { detail: message });
                        self.overlay.end(id);
                        self.finish_untranscribed(id);
                    }
                    Outcome::Crashed(message) => {
                        tracing::error!(
                            id,
                            message,
                            recording = ?recording,
                            "transcription panicked; the recording is kept for Retry"
                        );
                        self.last_error = Some(message);
                        self.notify(&Notice::TranscriptionCrashed);
                        self.overlay.end(id);
                        self.finish_untranscribed(id);
                    }
                }
            }
        }
    }

    pub(super) fn deliver(&mut self, id: u64, text: String) {
        let (mode, keys, join_previous) = self.mode_of(id).delivery();
        self.overlay.final_text(id, &text);
        self.remember_recent(text.clone());
        // Joined to the text before it by the output thread, at delivery (`delivery`).
        self.output.send(OutputCommand::Deliver {
            id,
            text,
            mode,
            keys,
            join_previous,
        });
    }

    pub(super) fn output_event(&mut self, event: OutputEvent) {
        match event {
            OutputEvent::Delivered {
                id,
                text,
                delivered,
                app,
            } => {
                let used = self.mode_of(id);
                let (wanted, _, _) = used.delivery();
                let mode_name = used.applied.name.unwrap_or_default();
                if let Some(why) = delivered.not_pasted {
                    tracing::warn!(
                        id,
                        reason = why.reason(),
                        "not pasted: the text is on the clipboard"
                    );
                    // No way to send keys on this Wayland desktop lasts the whole run: said
                    // once (the overlay still shows each text as copied).
                    let standing = why == crate::inject::NotPasted::NoKeystrokesOnWayland;
                    if !(standing && self.warned_accessibility) {
                        self.notify(&Notice::not_pasted(why, crate::platform::IS_MACOS));
                    }
                    self.warned_accessibility |= standing;
                } else if wanted != delivered.mode && !self.warned_accessibility {
                    self.warned_accessibility = true;
                    // The permission check says it best (stale grant or missing) when it knows.
                    if !self.check_permissions() {
                        self.notify(&Notice::AccessibilityMissing);
                    }
                }
                let stage = self.stages.remove(&id).unwrap_or_default();
                let ms = |at: Option<Instant>| match (stage.key_up, at) {
                    (Some(k), Some(a)) => a.saturating_duration_since(k).as_millis() as u64,
                    _ => 0,
                };
                tracing::info!(
                    id,
                    key_up_to_audio_ms = ms(stage.audio),
                    key_up_to_text_ms = ms(stage.text),
                    key_up_to_pasted_ms = ms(Some(delivered.at)),
                    engine_ms = stage.engine.as_millis() as u64,
                    early = stage.early,
                    modifiers_wait_ms = delivered.waited_for_modifiers.as_millis() as u64,
                    waited_for_hotkey = delivered.waited_for_hotkey,
                    joined = delivered.sent != text,
                    clipboard_restored = delivered.restored_clipboard,
                    output = delivered.mode.name(),
                    not_pasted = delivered.not_pasted.map_or("", |w| w.reason()),
                    pressed_after = delivered.pressed_after.map_or("", |k| k.name()),
                    mode = mode_name.as_str(),
                    text = ?crate::logging::dictated(&text),
                    "dictation done"
                );
                self.overlay
                    .delivered(id, delivered.mode == OutputMode::Copy, Instant::now());
                self.last_error = None;
                let pasted_ms = stage.key_up.map(|_| ms(Some(delivered.at)) as i64);
                let kept = self.finish_delivered(id);
                // The mode chosen at key-down (read above: `end_dictation` has dropped it).
                let mode = Some(mode_name).filter(|name| !name.is_empty());
                self.remember_in_history(&text, (stage.heard, app, mode), pasted_ms, kept);
            }
            OutputEvent::Failed { id, message } => {
                tracing::error!(?id, message, "output failed");
                self.notify(&Notice::PasteFailed { detail: message });
                if let Some(id) = id {
                    self.overlay.end(id);
                    self.stages.remove(&id);
                    self.finish(id);
                }
            }
        }
    }

    /// Puts `text` first in Recent transcripts.
    pub(super) fn remember_recent(&mut self, text: String) {
        self.recent.push_front(text);
        self.recent.truncate(tray::RECENT);
        if let Some(tray) = &self.tray {
            tray.set_recent(self.recent.make_contiguous());
        }
    }

    /// A larger model to name when Polish speech gave no text: with the language set to Polish
    /// or detected (Polish among the candidates), and a model below `small`.
    pub(super) fn larger_model_for_polish(&self) -> Option<String> {
        let (language, among) = worker::parse_language(&self.settings.language);
        let polish = match language {
            Some(code) => code == "pl",
            None => among.is_empty() || among.iter().any(|l| l == "pl"),
        };
        let model = self
            .model
            .as_ref()
            .map_or(self.settings.model.as_str(), |m| m.name.as_str());
        polish
            .then(|| crate::models::larger_for_polish(model, self.suggested_model))
            .flatten()
            .map(str::to_string)
    }

    /// The dictation `id` has ended with a text, or with nothing recognised: its recording is
    /// marked finished and becomes the one "Retry" takes.
    pub(super) fn finish(&mut self, id: u64) {
        self.end_dictation(id, true);
    }

    /// The dictation `id` has delivered its text: finished as by [`Self::finish`], and its
    /// recording then deleted unless the person keeps recordings (`privacy`).
    /// Returns where its recording is kept, `None` when it is not.
    fn finish_delivered(&mut self, id: u64) -> Option<PathBuf> {
        let kept = self.end_dictation(id, true)?;
        self.delivered_recording(kept.clone());
        kept.exists().then_some(kept)
    }

    /// The dictation `id` has ended without a transcription (failed, crashed): its recording
    /// is kept for Retry and held, not pruned, until a Retry transcribes it.
    pub(super) fn finish_untranscribed(&mut self, id: u64) {
        self.end_dictation(id, false);
    }

    /// Ends dictation `id`; returns where its recording is kept, if it has one.
    fn end_dictation(&mut self, id: u64, transcribed: bool) -> Option<PathBuf> {
        let kept = self.journals.remove(&id).map(|journal| {
            let kept = self.recordings.finish(&journal, transcribed);
            self.retry.choose(kept.clone());
            kept
        });
        self.stages.remove(&id);
        self.dictation_modes.remove(&id);
        self.dictation
            .handle(Input::Finished { id }, Instant::now());
        kept
    }
}
