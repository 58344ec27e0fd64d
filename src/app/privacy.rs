//! The menu's Privacy submenu: what the app keeps of what the person said, and forgetting it.
//!
//! - **Keep recordings** (on by default: "Retry last recording" needs them): when off, a
//!   recording is deleted as soon as its dictation's text was delivered (pasted, typed or
//!   copied; a recovered one's put on the clipboard). A recording that failed or gave no text
//!   is still kept for Retry. Stored in settings.json (`keep_delivered_recordings`) through its
//!   one writer, as every menu choice.
//! - **Forget everything…**: after a confirming second click within [`CONFIRM_WINDOW`] (the
//!   tray menu has no dialog; the item's label asks for it meanwhile, and a notification says
//!   what will go), deletes every recording (finished, held for Retry, journals of earlier runs
//!   waiting to be recovered) through [`crate::recordings::RecordingStore::forget`], empties
//!   Recent transcripts and the history ([`super::history_thread`]), the recovered texts and the last delivered text the output thread
//!   keeps for joining, and the language of the person's recent dictations (the worker's
//!   `recent-language`), and leaves Retry with nothing to take. Settings are kept. A dictation
//!   being recorded or transcribed at that moment is not touched: it ends as usual.

use super::output::OutputCommand;
use super::retry::RetryChoice;
use super::worker::WorkerCommand;
use super::App;
use crate::i18n::UiLang;
use crate::recordings::RecordingStore;
use crate::settings::file::SettingKey;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// How long "Forget everything…" waits for its confirming click.
pub const CONFIRM_WINDOW: Duration = Duration::from_secs(10);

/// The click-twice confirmation of "Forget everything…", as a pure state machine.
#[derive(Debug, Default)]
pub struct ForgetConfirm {
    armed_at: Option<Instant>,
}

impl ForgetConfirm {
    /// A click at `now`: `true` when it confirms an earlier click within the window (forget
    /// now), `false` when it only arms the item.
    pub fn click(&mut self, now: Instant) -> bool {
        let confirmed = self.armed(now);
        self.armed_at = (!confirmed).then_some(now);
        confirmed
    }

    /// Whether the item waits for its confirming click at `now`.
    pub fn armed(&self, now: Instant) -> bool {
        self.armed_at
            .is_some_and(|at| now.saturating_duration_since(at) < CONFIRM_WINDOW)
    }

    /// When the armed item goes back to its own label.
    pub fn deadline(&self) -> Option<Instant> {
        self.armed_at.map(|at| at + CONFIRM_WINDOW)
    }

    /// Disarms the item once its window has passed at `now`; `true` when it did (the label
    /// goes back).
    pub fn expire(&mut self, now: Instant) -> bool {
        let expired = self.armed_at.is_some() && !self.armed(now);
        if expired {
            self.armed_at = None;
        }
        expired
    }
}

/// The notifications of the Privacy submenu.
#[derive(Debug, Clone, PartialEq)]
pub enum PrivacyNotice {
    /// The first click on "Forget everything…".
    ForgetConfirm,
    /// Done: how many files were deleted, and how many could not be.
    Forgotten { deleted: usize, failed: usize },
    /// "Keep recordings" turned off (`false`) or on.
    KeepRecordings(bool),
}

impl PrivacyNotice {
    /// Summary and body in `lang`.
    pub fn text(&self, lang: UiLang) -> (String, String) {
        let pl = lang == UiLang::Pl;
        let seconds = CONFIRM_WINDOW.as_secs();
        match self {
            PrivacyNotice::ForgetConfirm if pl => (
                "Zapomnieć wszystko?".into(),
                format!(
                    "Kliknij „Zapomnij wszystko” jeszcze raz w ciągu {seconds} s (Prywatność), aby \
                     usunąć wszystkie nagrania i ostatnie transkrypcje. Ustawienia zostają."
                ),
            ),
            PrivacyNotice::ForgetConfirm => (
                "Forget everything?".into(),
                format!(
                    "Click \"Forget everything\" again within {seconds} s (Privacy) to delete all \
                     recordings and recent transcripts. Settings are kept."
                ),
            ),
            PrivacyNotice::Forgotten { deleted, failed } if pl => (
                "Zapomniane".into(),
                match failed {
                    0 => format!(
                        "Usunięto nagrania i ostatnie transkrypcje (usunięte pliki: {deleted}). \
                         Ustawienia zostały."
                    ),
                    _ => format!(
                        "Usunięto ostatnie transkrypcje i część nagrań (usunięte pliki: \
                         {deleted}, nieusunięte: {failed}; przyczyna jest w logu)."
                    ),
                },
            ),
            PrivacyNotice::Forgotten { deleted, failed } => (
                "Forgotten".into(),
                match failed {
                    0 => format!(
                        "Recordings ({deleted} files) and recent transcripts deleted. Settings \
                         are kept."
                    ),
                    _ => format!(
                        "{deleted} files and the recent transcripts deleted; {failed} files \
                         could not be deleted (the log says why)."
                    ),
                },
            ),
            PrivacyNotice::KeepRecordings(false) if pl => (
                "Nagrania nie będą przechowywane".into(),
                "Nagranie zostanie usunięte, gdy tylko jego tekst zostanie wklejony, wpisany lub \
                 skopiowany. Nagranie, z którego nie powstał tekst, zostaje, aby można je było \
                 ponowić."
                    .into(),
            ),
            PrivacyNotice::KeepRecordings(false) => (
                "Recordings not kept".into(),
                "A recording is deleted as soon as its text is delivered. One that failed or \
                 gave no text is still kept for Retry."
                    .into(),
            ),
            PrivacyNotice::KeepRecordings(true) if pl => (
                "Nagrania będą przechowywane".into(),
                "Ostatnie nagrania zostają na dysku, aby można je było ponowić.".into(),
            ),
            PrivacyNotice::KeepRecordings(true) => (
                "Recordings kept".into(),
                "The last recordings stay on disk so that they can be retried.".into(),
            ),
        }
    }
}

impl App {
    fn notify_privacy(&self, notice: &PrivacyNotice) {
        let (summary, body) = notice.text(self.lang);
        self.notifier.send(summary, body);
    }

    /// Privacy ▸ Keep recordings: toggled, saved, said.
    pub(super) fn keep_recordings_clicked(&mut self) {
        let keep = !self.settings.keep_delivered_recordings;
        self.settings.keep_delivered_recordings = keep;
        self.save_choice(SettingKey::KeepRecordings);
        tracing::info!(keep, "keep recordings changed");
        self.notify_privacy(&PrivacyNotice::KeepRecordings(keep));
    }

    /// A dictation's text was delivered and its recording is kept at `kept`: deleted unless
    /// the person keeps recordings. Retry then takes the newest recording still kept.
    pub(super) fn delivered_recording(&mut self, kept: PathBuf) {
        if self.settings.keep_delivered_recordings || RecordingStore::is_journal(&kept) {
            return;
        }
        match self.recordings.discard(&kept) {
            Ok(()) => {
                tracing::info!(
                    recording = %kept.display(),
                    "recording deleted: its text was delivered and recordings are not kept"
                );
                if self.retry.path() == Some(kept.as_path()) {
                    let newest = self.recordings.retry_at_start();
                    let held = newest.as_deref().is_some_and(RecordingStore::is_held);
                    self.retry = RetryChoice::at_start(newest, held);
                }
            }
            Err(e) => tracing::warn!("{e}"),
        }
    }

    /// Privacy ▸ Forget everything…: the first click arms it, the second (within
    /// [`CONFIRM_WINDOW`]) forgets.
    pub(super) fn forget_clicked(&mut self) {
        let confirmed = self.forget.click(Instant::now());
        if let Some(tray) = &self.tray {
            tray.set_forget_armed(!confirmed);
        }
        if confirmed {
            self.forget_everything();
        } else {
            tracing::info!("forget everything armed: waiting for the confirming click");
            self.notify_privacy(&PrivacyNotice::ForgetConfirm);
        }
    }

    /// Deletes the recordings not in use and drops every text the app keeps of the person's
    /// dictations (module doc).
    fn forget_everything(&mut self) {
        let mut in_use: Vec<PathBuf> = self.journals.values().cloned().collect();
        in_use.extend(self.recovery.forget());
        let forgotten = self.recordings.forget(&in_use);
        for failure in &forgotten.failed {
            tracing::warn!("{failure}");
        }
        self.recent.clear();
        self.forget_history();
        if let Some(tray) = &self.tray {
            tray.set_recent(&[]);
        }
        self.output.send(OutputCommand::Forget);
        self.worker.send(WorkerCommand::ForgetRecentLanguage);
        self.retry = RetryChoice::default();
        tracing::info!(
            deleted = forgotten.deleted,
            in_use = forgotten.in_use,
            failed = forgotten.failed.len(),
            "everything forgotten"
        );
        self.notify_privacy(&PrivacyNotice::Forgotten {
            deleted: forgotten.deleted,
            failed: forgotten.failed.len(),
        });
    }

    /// The armed "Forget everything…" goes back to its own label once its window has passed.
    pub(super) fn forget_expired(&mut self, now: Instant) {
        if self.forget.expire(now) {
            if let Some(tray) = &self.tray {
                tray.set_forget_armed(false);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forgetting_takes_a_second_click_within_the_window() {
        let t0 = Instant::now();
        let mut confirm = ForgetConfirm::default();
        assert!(!confirm.armed(t0) && confirm.deadline().is_none());
        assert!(!confirm.click(t0), "the first click only arms it");
        assert!(confirm.armed(t0 + Duration::from_secs(9)));
        assert_eq!(confirm.deadline(), Some(t0 + CONFIRM_WINDOW));
        assert!(
            confirm.click(t0 + Duration::from_secs(9)),
            "the second forgets"
        );
        assert!(!confirm.armed(t0 + Duration::from_secs(9)));
        // Too late: the label went back, and a click arms it again.
        let t1 = t0 + Duration::from_secs(20);
        assert!(!confirm.click(t1));
        assert!(!confirm.expire(t1 + Duration::from_secs(5)));
        assert!(confirm.expire(t1 + CONFIRM_WINDOW + Duration::from_millis(1)));
        assert!(!confirm.expire(t1 + CONFIRM_WINDOW + Duration::from_secs(1)));
        assert!(!confirm.click(t1 + Duration::from_secs(30)));
    }

    #[test]
    fn the_notices_say_what_goes_and_that_settings_stay_in_both_languages() {
        for lang in [UiLang::En, UiLang::Pl] {
            let (_, confirm) = PrivacyNotice::ForgetConfirm.text(lang);
            assert!(confirm.contains("10 s"), "{confirm}");
            let (_, done) = PrivacyNotice::Forgotten {
                deleted: 4,
                failed: 0,
            }
            .text(lang);
            assert!(done.contains('4'), "{done}");
            let (_, partly) = PrivacyNotice::Forgotten {
                deleted: 3,
                failed: 1,
            }
            .text(lang);
            assert!(partly.contains('3') && partly.contains('1'), "{partly}");
            let (off, body) = PrivacyNotice::KeepRecordings(false).text(lang);
            let (on, _) = PrivacyNotice::KeepRecordings(true).text(lang);
            assert_ne!(off, on);
            assert!(body.contains("Retry") || body.contains("ponowić"), "{body}");
        }
        let (_, confirm) = PrivacyNotice::ForgetConfirm.text(UiLang::Pl);
        assert!(confirm.contains("Ustawienia zostają"), "{confirm}");
    }
}
