//! Downloading a model from the menu: the two-click confirmation (the tray menu has no dialog;
//! a first click arms an entry and says what a second click will fetch, a second click within
//! [`CONFIRM_WINDOW`] starts it), the background thread that runs `models::download` and
//! turns its progress into a few events (one per percent or stage), and cancelling.
//! The coordinator owns the running download and switches to the model when it is installed.

use crate::models::{self, DownloadError, DownloadOptions, HubClient, Stage, Timeouts};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long an armed entry waits for its confirming click.
pub const CONFIRM_WINDOW: Duration = Duration::from_secs(30);

/// What the download thread tells the coordinator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DownloadEvent {
    Progress {
        model: String,
        stage: Stage,
        percent: u8,
    },
    Finished {
        model: String,
        result: Result<PathBuf, Failure>,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub message: String,
    pub cancelled: bool,
    /// The partial folder is kept; choosing the model again continues.
    pub resumable: bool,
}

/// The click-twice confirmation, as a pure state machine.
#[derive(Debug, Default)]
pub struct Confirm {
    armed: Option<(String, Instant)>,
}

impl Confirm {
    /// A click on `model` at `now`: `true` when it confirms an earlier click (start), `false`
    /// when it only arms this entry.
    pub fn click(&mut self, model: &str, now: Instant) -> bool {
        let confirmed = matches!(&self.armed,
            Some((armed, at)) if armed == model && now.duration_since(*at) <= CONFIRM_WINDOW);
        self.armed = if confirmed {
            None
        } else {
            Some((model.to_string(), now))
        };
        confirmed
    }

    /// The entry waiting for its second click, if still within the window.
    pub fn armed(&self, now: Instant) -> Option<&str> {
        self.armed
            .as_ref()
            .filter(|(_, at)| now.duration_since(*at) <= CONFIRM_WINDOW)
            .map(|(m, _)| m.as_str())
    }

    pub fn clear(&mut self) {
        self.armed = None;
    }
}

/// A download in progress, as the menu shows it.
#[derive(Debug)]
pub struct Running {
    pub model: String,
    pub stage: Stage,
    pub percent: u8,
    cancel: Arc<AtomicBool>,
}

impl Running {
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }
}

/// Starts downloading `entry` (over an installed copy when `replace`) on its own thread.
pub fn start(
    entry: &'static models::CatalogueEntry,
    replace: bool,
    send: impl Fn(DownloadEvent) + Send + 'static,
) -> Result<Running, String> {
    let models_dir = crate::paths::models_dir().map_err(|e| e.to_string())?;
    let client = HubClient::new(&models::hub::endpoint(None), Timeouts::default());
    let mut opts = DownloadOptions::new(models_dir, client);
    opts.replace = replace;
    let cancel = opts.cancel.clone();
    let model = entry.name.to_string();
    std::thread::Builder::new()
        .name(format!("download {model}"))
        .spawn({
            let model = model.clone();
            move || {
                let mut last = (Stage::Listing, u8::MAX);
                let result = models::download(entry, &opts, &mut |p| {
                    let now = (p.stage, p.percent());
                    if now != last {
                        last = now;
                        send(DownloadEvent::Progress {
                            model: model.clone(),
                            stage: p.stage,
                            percent: p.percent(),
                        });
                    }
                });
                let result = result.map(|installed| installed.dir).map_err(|e| {
                    tracing::warn!(model, "download failed: {e}");
                    Failure {
                        message: e.to_string(),
                        cancelled: matches!(e, DownloadError::Cancelled { .. }),
                        resumable: e.is_resumable(),
                    }
                });
                send(DownloadEvent::Finished { model, result });
            }
        })
        .map_err(|e| format!("cannot start the download thread: {e}"))?;
    Ok(Running {
        model,
        stage: Stage::Listing,
        percent: 0,
        cancel,
    })
}

/// The stage's name for the menu texts.
pub fn stage_name(stage: Stage) -> &'static str {
    match stage {
        Stage::Verifying => "verifying",
        Stage::Loading | Stage::Installed => "loading",
        Stage::Listing | Stage::Downloading => "downloading",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_download_starts_on_the_second_click_of_the_same_entry_only() {
        let t0 = Instant::now();
        let mut confirm = Confirm::default();
        assert!(!confirm.click("small", t0));
        assert_eq!(confirm.armed(t0), Some("small"));
        // Another entry re-arms instead of starting either.
        assert!(!confirm.click("medium", t0 + Duration::from_secs(1)));
        assert!(!confirm.click("small", t0 + Duration::from_secs(2)));
        assert!(confirm.click("small", t0 + Duration::from_secs(3)));
        assert_eq!(confirm.armed(t0 + Duration::from_secs(3)), None);
        // Too late: the second click arms again.
        assert!(!confirm.click("small", t0 + Duration::from_secs(10)));
        let late = t0 + Duration::from_secs(10) + CONFIRM_WINDOW + Duration::from_secs(1);
        assert_eq!(confirm.armed(late), None);
        assert!(!confirm.click("small", late));
        assert!(confirm.click("small", late + Duration::from_secs(1)));
    }
}
