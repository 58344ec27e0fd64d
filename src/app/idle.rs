//! What the app gives back while it waits: after [`Settings::unload_model_after_secs`] without
//! a dictation the model leaves memory (the worker drops it and hands the allocator's freed
//! buffers back to the system), and the next key-down loads it again while the person speaks:
//! the recording does not wait for it, and its passes queue behind the load in the worker.
//!
//! The wait is one deadline of the event loop, not a timer that ticks: the app sleeps until it
//! comes (or until anything else happens). Any dictation, a retry or a recovered recording
//! loads the model back first; a model or device change loads it as before.
//!
//! The microphone is opened at key-down and closed after the dictation (unless the person
//! keeps it open): nothing records, and the system's microphone indicator is off, while the app
//! waits. A microphone that takes long to deliver its first sample after the key-down (a
//! Bluetooth headset switching profile) would cut the first word: said once per microphone and
//! run, with the setting that helps ([`MicrophoneStarts`]).
//!
//! [`Settings::unload_model_after_secs`]: crate::settings::Settings::unload_model_after_secs

use super::notices::Notice;
use super::worker::WorkerCommand;
use super::App;
use std::collections::HashSet;
use std::time::{Duration, Instant};

/// A microphone opened at key-down whose first sample comes later than this is slow to start:
/// the words said in that time are not recorded. The test desktop's starts in ~40 ms (the
/// hotkey's own delivery not counted); Bluetooth headsets take 0.3–1 s and more.
pub(super) const SLOW_START: Duration = Duration::from_millis(300);

/// The microphone recording now, and those already said to be slow to start.
#[derive(Debug, Default)]
pub(super) struct MicrophoneStarts {
    device: String,
    warned: HashSet<String>,
}

impl MicrophoneStarts {
    /// The recording that just started is on `device`.
    pub(super) fn recording_on(&mut self, device: String) {
        self.device = device;
    }

    /// Whether a start that took `took` from key-down to its first sample (`opened`: the
    /// microphone was opened for it) is to be said: slow, and the first time for this device.
    pub(super) fn slow_start_to_say(&mut self, opened: bool, took: Duration) -> Option<String> {
        (opened && took > SLOW_START && self.warned.insert(self.device.clone()))
            .then(|| self.device.clone())
    }
}

/// Where the model stands with the idle unload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Held {
    /// In memory (or being loaded): unloaded at the deadline once the app is idle.
    Loaded,
    /// Asked to leave memory; the worker has not said it did yet.
    Unloading,
    /// Out of memory until a dictation needs it.
    Unloaded,
}

/// The idle unload's decisions, apart from the app (tested on their own).
#[derive(Debug, Clone)]
pub(super) struct IdleUnload {
    /// `None`: never unload.
    after: Option<Duration>,
    /// When the model leaves memory if nothing happens first.
    at: Option<Instant>,
    held: Held,
}

impl IdleUnload {
    /// Unloads after `after_secs` of idleness; 0 never.
    pub(super) fn new(after_secs: u64) -> IdleUnload {
        IdleUnload {
            after: (after_secs > 0).then(|| Duration::from_secs(after_secs)),
            at: None,
            held: Held::Loaded,
        }
    }

    /// The setting changed: from now on, with the wait counted again from now.
    pub(super) fn set_after(&mut self, after_secs: u64) {
        self.after = (after_secs > 0).then(|| Duration::from_secs(after_secs));
        self.at = None;
    }

    /// Told after every event: `idle` is whether the app waits with its model ready (no
    /// recording, nothing being transcribed). The deadline is set when idleness begins and
    /// cleared when it ends, so it counts from the end of the last dictation.
    pub(super) fn observe(&mut self, idle: bool, now: Instant) {
        if !idle || self.held != Held::Loaded {
            self.at = None;
        } else if self.at.is_none() {
            self.at = self.after.map(|after| now + after);
        }
    }

    /// When the event loop must wake for the unload.
    pub(super) fn deadline(&self) -> Option<Instant> {
        self.at
    }

    /// Whether the model is to leave memory now (said once per unload).
    pub(super) fn due(&mut self, now: Instant) -> bool {
        match self.at {
            Some(at) if now >= at && self.held == Held::Loaded => {
                self.at = None;
                self.held = Held::Unloading;
                true
            }
            _ => false,
        }
    }

    /// The worker said the model left memory.
    pub(super) fn unloaded(&mut self) {
        if self.held == Held::Unloading {
            self.held = Held::Unloaded;
        }
    }

    /// A dictation (or anything else that needs the model) begins: whether the model must be
    /// loaded again first. From then on it counts as loaded.
    pub(super) fn needs_reload(&mut self) -> bool {
        let reload = self.held != Held::Loaded;
        self.held = Held::Loaded;
        self.at = None;
        reload
    }

    /// A model is being loaded for another reason (a model or device change).
    pub(super) fn loading(&mut self) {
        self.held = Held::Loaded;
        self.at = None;
    }
}

impl App {
    /// The first sample of a recording came `took` after its key-down: a microphone opened then
    /// (`opened`) that is slow to start is said once, with what helps.
    pub(super) fn warn_if_microphone_slow(&mut self, opened: bool, took: Duration) {
        if let Some(device) = self.microphone_starts.slow_start_to_say(opened, took) {
            tracing::warn!(
                device,
                ms = took.as_millis() as u64,
                "the microphone is slow to start: the first word may be cut"
            );
            self.notify(&Notice::MicrophoneSlowToStart {
                device,
                millis: took.as_millis() as u64,
            });
        }
    }

    /// After every event: the unload's deadline follows the app's idleness.
    pub(super) fn follow_idleness(&mut self, now: Instant) {
        let idle = self.dictation.activity() == super::state::Activity::Idle
            && self.dictation.model_ready();
        self.idle.observe(idle, now);
    }

    /// At a deadline of the event loop: the model leaves memory if its time has come.
    pub(super) fn unload_when_due(&mut self, now: Instant) {
        if self.idle.due(now) {
            tracing::info!(
                idle_secs = self.settings.unload_model_after_secs,
                "unloading the model: no dictation for a while"
            );
            self.worker.send(WorkerCommand::Unload);
        }
    }

    /// Before anything that needs the model (a key-down, a retry): loads it again if it left
    /// memory. The worker serves commands in order, so what follows waits for the load.
    pub(super) fn reload_if_unloaded(&mut self, why: &'static str) {
        if self.idle.needs_reload() {
            tracing::info!("model reloading at {why}");
            self.load_model();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const AFTER: u64 = 600;

    fn secs(s: u64) -> Duration {
        Duration::from_secs(s)
    }

    #[test]
    fn the_model_leaves_after_the_wait_counted_from_the_last_dictation() {
        let t0 = Instant::now();
        let mut idle = IdleUnload::new(AFTER);
        idle.observe(false, t0);
        assert_eq!(idle.deadline(), None, "busy: no deadline");
        idle.observe(true, t0 + secs(5));
        assert_eq!(idle.deadline(), Some(t0 + secs(5 + AFTER)));
        // Later events while idle (a menu opened) do not move it.
        idle.observe(true, t0 + secs(100));
        assert_eq!(idle.deadline(), Some(t0 + secs(5 + AFTER)));
        assert!(!idle.due(t0 + secs(AFTER)));
        // A dictation in between starts the wait again after it.
        idle.observe(false, t0 + secs(200));
        idle.observe(true, t0 + secs(230));
        assert_eq!(idle.deadline(), Some(t0 + secs(230 + AFTER)));
        assert!(idle.due(t0 + secs(230 + AFTER)));
        assert!(!idle.due(t0 + secs(230 + AFTER + 1)), "said once");
        assert_eq!(idle.deadline(), None, "no wake-up while unloaded");
    }

    #[test]
    fn a_key_down_reloads_once_whether_the_unload_was_done_or_only_asked() {
        let t0 = Instant::now();
        for worker_answered in [false, true] {
            let mut idle = IdleUnload::new(AFTER);
            idle.observe(true, t0);
            assert!(idle.due(t0 + secs(AFTER)));
            if worker_answered {
                idle.unloaded();
            }
            // Still idle (the app had not heard back, or is idle unloaded): no new deadline.
            idle.observe(true, t0 + secs(AFTER + 1));
            assert_eq!(idle.deadline(), None);
            assert!(idle.needs_reload());
            assert!(!idle.needs_reload(), "loaded again: one load");
            // The answer to the unload coming after the key-down changes nothing.
            idle.unloaded();
            assert!(!idle.needs_reload());
        }
    }

    #[test]
    fn never_means_never_and_a_new_setting_counts_from_now() {
        let t0 = Instant::now();
        let mut idle = IdleUnload::new(0);
        idle.observe(true, t0);
        assert_eq!(idle.deadline(), None);
        assert!(!idle.due(t0 + secs(1_000_000)));
        idle.set_after(60);
        idle.observe(true, t0 + secs(10));
        assert_eq!(idle.deadline(), Some(t0 + secs(70)));
        idle.set_after(0);
        idle.observe(true, t0 + secs(20));
        assert_eq!(idle.deadline(), None);
    }

    #[test]
    fn a_slow_microphone_is_said_once_and_a_kept_open_one_never() {
        let mut starts = MicrophoneStarts::default();
        starts.recording_on("Headset".into());
        let slow = SLOW_START + Duration::from_millis(1);
        assert_eq!(starts.slow_start_to_say(true, SLOW_START), None, "in time");
        assert_eq!(
            starts.slow_start_to_say(false, slow),
            None,
            "pre-roll covers it"
        );
        assert_eq!(starts.slow_start_to_say(true, slow), Some("Headset".into()));
        assert_eq!(starts.slow_start_to_say(true, slow), None, "said once");
        starts.recording_on("USB".into());
        assert_eq!(starts.slow_start_to_say(true, slow), Some("USB".into()));
    }

    #[test]
    fn a_model_change_while_unloaded_counts_as_loaded() {
        let t0 = Instant::now();
        let mut idle = IdleUnload::new(AFTER);
        idle.observe(true, t0);
        assert!(idle.due(t0 + secs(AFTER)));
        idle.unloaded();
        idle.loading();
        assert!(!idle.needs_reload());
        idle.observe(true, t0 + secs(AFTER + 5));
        assert_eq!(idle.deadline(), Some(t0 + secs(2 * AFTER + 5)));
    }
}
