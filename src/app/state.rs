//! The dictation state machine: hotkey, recorder and worker events in, actions out. Pure (time is
//! passed in), so every sequence a user can produce is replayed by the tests below.
//!
//! A dictation goes Recording → (audio ready) → Transcribing → (text) → Pasting. Recording and
//! transcription overlap: the hotkey pressed while an earlier dictation is still being transcribed
//! starts a new recording at once, and its audio is queued behind the earlier one; nothing is
//! dropped. The only recordings thrown away are taps shorter than [`Config::min_hold`] (the
//! person's cancel). A microphone that fails in the middle ends the recording as key-up would:
//! what it recorded is transcribed.

use std::time::{Duration, Instant};

/// How the hotkey drives recording.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HotkeyMode {
    /// Push-to-talk: record while the key is held.
    Hold,
    /// Press to start, press again to stop.
    Toggle,
}

impl HotkeyMode {
    pub fn parse(text: &str) -> Option<Self> {
        match text.trim().to_ascii_lowercase().as_str() {
            "hold" => Some(HotkeyMode::Hold),
            "toggle" => Some(HotkeyMode::Toggle),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            HotkeyMode::Hold => "hold",
            HotkeyMode::Toggle => "toggle",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    pub mode: HotkeyMode,
    /// Shorter presses are accidental taps: nothing is recorded.
    pub min_hold: Duration,
    /// A recording stops by itself after this long.
    pub max_length: Duration,
    /// The notice that the recording is about to stop comes this long before it does.
    pub warn_before: Duration,
}

impl Config {
    pub fn new(mode: HotkeyMode, max_length: Duration) -> Self {
        let mut config = Config {
            mode,
            min_hold: Duration::from_millis(300),
            max_length,
            warn_before: Duration::ZERO,
        };
        config.set_max_length(max_length);
        config
    }

    /// The longest recording, and the notice before it ends (10 s, or half of a short one).
    pub fn set_max_length(&mut self, max_length: Duration) {
        self.max_length = max_length;
        self.warn_before = Duration::from_secs(10).min(max_length / 2);
    }
}

/// What the tray icon shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Activity {
    /// The model is being loaded and warmed.
    Loading,
    Idle,
    Recording,
    /// At least one recording is waiting for text or being pasted.
    Transcribing,
    /// The model could not be loaded: dictation cannot work until that is fixed.
    Broken,
}

impl Activity {
    /// Whether the app is doing work the person is waiting for (loading the model, recording,
    /// transcribing, pasting): macOS is told so while it lasts (`platform::UserActivity`), or
    /// App Nap may slow a windowless app's threads down.
    pub fn is_awaited_work(self) -> bool {
        match self {
            Activity::Loading | Activity::Recording | Activity::Transcribing => true,
            Activity::Idle | Activity::Broken => false,
        }
    }
}

/// Everything that can happen to a dictation.
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    HotkeyPressed,
    HotkeyReleased,
    /// Time passes (for the maximum length).
    Tick,
    /// The recorder handed over the audio of recording `id`.
    AudioReady {
        id: u64,
    },
    /// The microphone failed (the recorder already said why). With `audio_follows`, what
    /// recording `id` had recorded comes as [`Input::AudioReady`] (the recording ended as if
    /// the key had gone up); without, there is nothing of it (it could not start).
    RecorderFailed {
        id: u64,
        audio_follows: bool,
    },
    ModelLoading,
    ModelReady,
    ModelFailed,
    /// The model left memory after a while without dictations; the next dictation loads it
    /// again (the app sends the load at its key-down).
    ModelUnloaded,
    /// Recording `id` has been transcribed and delivered, or given up on.
    Finished {
        id: u64,
    },
    /// The user changed the hotkey mode in the menu.
    ModeChanged(HotkeyMode),
    /// The user changed the longest recording (from the next check of the running one on).
    MaxLengthChanged(Duration),
    /// "Retry last recording": transcribe the saved recording again.
    Retry,
    /// `whisper-dictation start` (the control socket, `app::remote`): a recording starts as at
    /// a key-down in hold mode, whatever the mode; nothing while one is under way.
    Start,
    /// `whisper-dictation stop`: the recording ends as at a key-up in hold mode (a tap shorter
    /// than [`Config::min_hold`] is cancelled); nothing while none is under way.
    Stop,
    /// `whisper-dictation cancel`: the recording ends and its audio is thrown away.
    Cancel,
}

/// What the coordinator must do.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    StartRecording {
        id: u64,
    },
    /// Stop after the tail that catches the last word, and hand over the audio.
    StopRecording {
        id: u64,
    },
    /// A tap: stop and throw the audio away.
    CancelRecording {
        id: u64,
    },
    /// Send the audio of `id` to the worker (it queues behind earlier ones).
    Transcribe {
        id: u64,
    },
    /// Send the last saved recording to the worker again, as dictation `id`.
    TranscribeSaved {
        id: u64,
    },
    /// Tell the user the recording stops in `remaining`.
    WarnMaxLength {
        remaining: Duration,
    },
    /// The recording reached the maximum length and was stopped.
    MaxLengthReached,
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Recording {
    id: u64,
    started: Instant,
    warned: bool,
}

#[derive(Debug)]
pub struct Dictation {
    config: Config,
    recording: Option<Recording>,
    /// Recordings stopped but not finished (audio awaited, transcribing or pasting), oldest first.
    in_flight: Vec<u64>,
    model: ModelState,
    next_id: u64,
    /// Set when key-up has been handled for the current press (toggle mode ignores releases).
    key_down: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ModelState {
    Loading,
    Ready,
    Failed,
    /// Left memory while idle: as ready to the person (nothing to wait for until a key-down).
    Unloaded,
}

impl Dictation {
    pub fn new(config: Config) -> Self {
        Dictation {
            config,
            recording: None,
            in_flight: Vec::new(),
            model: ModelState::Loading,
            next_id: 1,
            key_down: false,
        }
    }

    pub fn config(&self) -> Config {
        self.config
    }

    pub fn activity(&self) -> Activity {
        if self.recording.is_some() {
            Activity::Recording
        } else if !self.in_flight.is_empty() {
            Activity::Transcribing
        } else {
            match self.model {
                ModelState::Loading => Activity::Loading,
                ModelState::Ready | ModelState::Unloaded => Activity::Idle,
                ModelState::Failed => Activity::Broken,
            }
        }
    }

    /// Whether recording `id` has stopped and is waiting for its text, with the model ready to
    /// give it.
    pub fn awaits_text(&self, id: u64) -> bool {
        self.in_flight.contains(&id) && self.model == ModelState::Ready
    }

    /// Whether recording `id` is the one in progress.
    pub fn is_recording(&self, id: u64) -> bool {
        self.recording.is_some_and(|r| r.id == id)
    }

    /// Whether the model is loaded and warmed.
    pub fn model_ready(&self) -> bool {
        self.model == ModelState::Ready
    }

    /// Whether the model left memory while idle (a dictation loads it again).
    pub fn model_unloaded(&self) -> bool {
        self.model == ModelState::Unloaded
    }

    /// Recordings handed to the worker or awaited from the recorder.
    pub fn queued(&self) -> usize {
        self.in_flight.len()
    }

    /// When the coordinator must send [`Input::Tick`] next (the max-length notice or stop).
    pub fn next_deadline(&self) -> Option<Instant> {
        let rec = self.recording?;
        let stop_at = rec.started + self.config.max_length;
        Some(if rec.warned {
            stop_at
        } else {
            stop_at - self.config.warn_before
        })
    }

    pub fn handle(&mut self, input: Input, now: Instant) -> Vec<Action> {
        match input {
            Input::HotkeyPressed => self.pressed(now),
            Input::HotkeyReleased => self.released(now),
            Input::Tick => self.tick(now),
            Input::AudioReady { id } => {
                if self.in_flight.contains(&id) {
                    vec![Action::Transcribe { id }]
                } else {
                    Vec::new()
                }
            }
            Input::RecorderFailed { id, audio_follows } => {
                if self.recording.is_some_and(|r| r.id == id) {
                    self.recording = None;
                    if audio_follows {
                        self.in_flight.push(id);
                    }
                } else if !audio_follows {
                    self.in_flight.retain(|&x| x != id);
                }
                Vec::new()
            }
            Input::Finished { id } => {
                self.in_flight.retain(|&x| x != id);
                Vec::new()
            }
            Input::ModelLoading => {
                self.model = ModelState::Loading;
                Vec::new()
            }
            Input::ModelReady => {
                self.model = ModelState::Ready;
                Vec::new()
            }
            Input::ModelFailed => {
                self.model = ModelState::Failed;
                Vec::new()
            }
            Input::ModelUnloaded => {
                self.model = ModelState::Unloaded;
                Vec::new()
            }
            Input::ModeChanged(mode) => {
                self.config.mode = mode;
                Vec::new()
            }
            Input::MaxLengthChanged(max_length) => {
                self.config.set_max_length(max_length);
                Vec::new()
            }
            Input::Retry => {
                let id = self.take_id();
                self.in_flight.push(id);
                vec![Action::TranscribeSaved { id }]
            }
            Input::Start => match self.recording {
                Some(_) => Vec::new(),
                None => self.begin(now),
            },
            Input::Stop => match self.recording {
                Some(rec) => self.stop(rec, now),
                None => Vec::new(),
            },
            Input::Cancel => match self.recording.take() {
                Some(rec) => vec![Action::CancelRecording { id: rec.id }],
                None => Vec::new(),
            },
        }
    }

    fn pressed(&mut self, now: Instant) -> Vec<Action> {
        let repeat = self.key_down;
        self.key_down = true;
        match (self.config.mode, self.recording) {
            // Key repeat (or a second Pressed without a Released): keep recording.
            (HotkeyMode::Hold, Some(_)) => Vec::new(),
            (HotkeyMode::Toggle, Some(_)) if repeat => Vec::new(),
            (HotkeyMode::Toggle, Some(rec)) => self.stop(rec, now),
            (_, None) => self.begin(now),
        }
    }

    /// Starts a new recording.
    fn begin(&mut self, now: Instant) -> Vec<Action> {
        let id = self.take_id();
        self.recording = Some(Recording {
            id,
            started: now,
            warned: false,
        });
        vec![Action::StartRecording { id }]
    }

    fn take_id(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    fn released(&mut self, now: Instant) -> Vec<Action> {
        self.key_down = false;
        match (self.config.mode, self.recording) {
            (HotkeyMode::Hold, Some(rec)) => self.stop(rec, now),
            _ => Vec::new(),
        }
    }

    /// Ends the current recording: a tap is cancelled, anything longer is queued.
    fn stop(&mut self, rec: Recording, now: Instant) -> Vec<Action> {
        self.recording = None;
        if now.saturating_duration_since(rec.started) < self.config.min_hold {
            return vec![Action::CancelRecording { id: rec.id }];
        }
        self.in_flight.push(rec.id);
        vec![Action::StopRecording { id: rec.id }]
    }

    fn tick(&mut self, now: Instant) -> Vec<Action> {
        let Some(rec) = self.recording else {
            return Vec::new();
        };
        let elapsed = now.saturating_duration_since(rec.started);
        if elapsed >= self.config.max_length {
            let mut actions = self.stop(rec, now);
            actions.push(Action::MaxLengthReached);
            return actions;
        }
        let remaining = self.config.max_length - elapsed;
        if !rec.warned && remaining <= self.config.warn_before {
            self.recording = Some(Recording {
                warned: true,
                ..rec
            });
            return vec![Action::WarnMaxLength { remaining }];
        }
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn app_nap_is_held_off_only_while_the_person_waits() {
        let mut dictation = Dictation::new(Config::new(HotkeyMode::Hold, Duration::from_secs(60)));
        assert!(dictation.activity().is_awaited_work(), "loading the model");
        let t0 = Instant::now();
        dictation.handle(Input::ModelReady, t0);
        assert!(!dictation.activity().is_awaited_work(), "idle");
        dictation.handle(Input::HotkeyPressed, t0);
        assert_eq!(dictation.activity(), Activity::Recording);
        assert!(dictation.activity().is_awaited_work());
        assert!(Activity::Transcribing.is_awaited_work());
        assert!(!Activity::Broken.is_awaited_work());
    }

    /// Replays `(milliseconds since start, input)` and returns every action with its time.
    fn replay(config: Config, steps: &[(u64, Input)]) -> (Dictation, Vec<(u64, Action)>) {
        let t0 = Instant::now();
        let mut d = Dictation::new(config);
        let mut out = Vec::new();
        for (ms, input) in steps {
            for action in d.handle(input.clone(), t0 + Duration::from_millis(*ms)) {
                out.push((*ms, action));
            }
        }
        (d, out)
    }

    fn hold() -> Config {
        Config::new(HotkeyMode::Hold, Duration::from_secs(120))
    }

    fn toggle() -> Config {
        Config::new(HotkeyMode::Toggle, Duration::from_secs(120))
    }

    use Input::*;

    #[test]
    fn hold_to_talk_records_while_held_and_queues_on_release() {
        let (d, actions) = replay(
            hold(),
            &[
                (0, ModelReady),
                (100, HotkeyPressed),
                (2100, HotkeyReleased),
                (2400, AudioReady { id: 1 }),
            ],
        );
        assert_eq!(
            actions,
            vec![
                (100, Action::StartRecording { id: 1 }),
                (2100, Action::StopRecording { id: 1 }),
                (2400, Action::Transcribe { id: 1 }),
            ]
        );
        assert_eq!(d.activity(), Activity::Transcribing);
    }

    #[test]
    fn a_quick_tap_is_ignored() {
        let (d, actions) = replay(
            hold(),
            &[(0, ModelReady), (100, HotkeyPressed), (350, HotkeyReleased)],
        );
        assert_eq!(
            actions,
            vec![
                (100, Action::StartRecording { id: 1 }),
                (350, Action::CancelRecording { id: 1 }),
            ]
        );
        assert_eq!(d.activity(), Activity::Idle);
        assert_eq!(d.queued(), 0);
    }

    #[test]
    fn exactly_the_minimum_hold_counts_as_a_recording() {
        let (_, actions) = replay(hold(), &[(0, HotkeyPressed), (300, HotkeyReleased)]);
        assert_eq!(actions[1], (300, Action::StopRecording { id: 1 }));
    }

    #[test]
    fn release_during_model_load_is_queued_not_lost() {
        let (d, actions) = replay(
            hold(),
            &[
                (0, ModelLoading),
                (10, HotkeyPressed),
                (1500, HotkeyReleased),
                (1800, AudioReady { id: 1 }),
            ],
        );
        assert!(actions.contains(&(1800, Action::Transcribe { id: 1 })));
        assert_eq!(d.activity(), Activity::Transcribing);
        let mut d = d;
        d.handle(ModelReady, Instant::now());
        d.handle(Finished { id: 1 }, Instant::now());
        assert_eq!(d.activity(), Activity::Idle);
    }

    #[test]
    fn hotkey_while_transcribing_starts_a_new_recording_and_queues_it() {
        let (d, actions) = replay(
            hold(),
            &[
                (0, ModelReady),
                (0, HotkeyPressed),
                (1000, HotkeyReleased),
                (1300, AudioReady { id: 1 }),
                (1500, HotkeyPressed),
                (3000, HotkeyReleased),
                (3300, AudioReady { id: 2 }),
                (3500, Finished { id: 1 }),
            ],
        );
        let transcribed: Vec<u64> = actions
            .iter()
            .filter_map(|(_, a)| match a {
                Action::Transcribe { id } => Some(*id),
                _ => None,
            })
            .collect();
        assert_eq!(transcribed, vec![1, 2]);
        assert_eq!(d.queued(), 1, "recording 2 is still in flight");
        assert_eq!(d.activity(), Activity::Transcribing);
    }

    #[test]
    fn key_repeat_while_holding_does_not_restart() {
        let (_, actions) = replay(
            hold(),
            &[
                (0, HotkeyPressed),
                (500, HotkeyPressed),
                (600, HotkeyPressed),
                (1000, HotkeyReleased),
            ],
        );
        assert_eq!(
            actions,
            vec![
                (0, Action::StartRecording { id: 1 }),
                (1000, Action::StopRecording { id: 1 }),
            ]
        );
    }

    #[test]
    fn a_release_reported_before_the_modifiers_go_up_stops_once() {
        // X11 reports Released when the first key of the chord goes up (e.g. Space while Ctrl+Alt
        // are still held); the modifiers going up later send nothing more.
        let (_, actions) = replay(
            hold(),
            &[
                (0, HotkeyPressed),
                (900, HotkeyReleased),
                (950, HotkeyReleased),
            ],
        );
        assert_eq!(
            actions,
            vec![
                (0, Action::StartRecording { id: 1 }),
                (900, Action::StopRecording { id: 1 }),
            ]
        );
    }

    #[test]
    fn toggle_mode_starts_and_stops_on_presses_and_ignores_releases() {
        let (_, actions) = replay(
            toggle(),
            &[
                (0, HotkeyPressed),
                (100, HotkeyReleased),
                (3000, HotkeyPressed),
                (3100, HotkeyReleased),
            ],
        );
        assert_eq!(
            actions,
            vec![
                (0, Action::StartRecording { id: 1 }),
                (3000, Action::StopRecording { id: 1 }),
            ]
        );
    }

    #[test]
    fn toggle_mode_double_press_is_a_tap() {
        let (_, actions) = replay(
            toggle(),
            &[
                (0, HotkeyPressed),
                (50, HotkeyReleased),
                (150, HotkeyPressed),
                (200, HotkeyReleased),
            ],
        );
        assert_eq!(actions[1], (150, Action::CancelRecording { id: 1 }));
    }

    #[test]
    fn toggle_mode_ignores_key_repeat_of_the_starting_press() {
        let (_, actions) = replay(
            toggle(),
            &[
                (0, HotkeyPressed),
                (500, HotkeyPressed),
                (600, HotkeyReleased),
            ],
        );
        assert_eq!(actions, vec![(0, Action::StartRecording { id: 1 })]);
    }

    #[test]
    fn max_length_warns_then_stops_and_queues() {
        let config = Config::new(HotkeyMode::Toggle, Duration::from_secs(60));
        let t0 = Instant::now();
        let mut d = Dictation::new(config);
        let at = |s: u64| t0 + Duration::from_secs(s);
        assert_eq!(
            d.handle(HotkeyPressed, at(0)),
            vec![Action::StartRecording { id: 1 }]
        );
        assert_eq!(d.next_deadline(), Some(at(50)));
        assert!(d.handle(Tick, at(30)).is_empty());
        assert_eq!(
            d.handle(Tick, at(50)),
            vec![Action::WarnMaxLength {
                remaining: Duration::from_secs(10)
            }]
        );
        assert_eq!(d.next_deadline(), Some(at(60)));
        assert!(d.handle(Tick, at(55)).is_empty(), "warned only once");
        assert_eq!(
            d.handle(Tick, at(60)),
            vec![Action::StopRecording { id: 1 }, Action::MaxLengthReached]
        );
        assert_eq!(d.next_deadline(), None);
        // The key that the user presses afterwards starts a new recording, not a stop.
        d.handle(HotkeyReleased, at(61));
        assert_eq!(
            d.handle(HotkeyPressed, at(62)),
            vec![Action::StartRecording { id: 2 }]
        );
    }

    #[test]
    fn max_length_in_hold_mode_then_release_does_nothing_more() {
        let config = Config::new(HotkeyMode::Hold, Duration::from_secs(20));
        let t0 = Instant::now();
        let mut d = Dictation::new(config);
        d.handle(HotkeyPressed, t0);
        d.handle(Tick, t0 + Duration::from_secs(10));
        let stopped = d.handle(Tick, t0 + Duration::from_secs(20));
        assert_eq!(stopped[0], Action::StopRecording { id: 1 });
        assert!(d
            .handle(HotkeyReleased, t0 + Duration::from_secs(21))
            .is_empty());
    }

    #[test]
    fn a_recorder_that_could_not_start_clears_the_recording() {
        let failed = RecorderFailed {
            id: 1,
            audio_follows: false,
        };
        let (d, _) = replay(
            hold(),
            &[(0, ModelReady), (0, HotkeyPressed), (500, failed.clone())],
        );
        assert_eq!(d.activity(), Activity::Idle);
        let (d, _) = replay(
            hold(),
            &[
                (0, ModelReady),
                (0, HotkeyPressed),
                (800, HotkeyReleased),
                (900, failed),
            ],
        );
        assert_eq!(d.queued(), 0);
    }

    #[test]
    fn a_microphone_failing_mid_recording_transcribes_what_it_recorded() {
        let failed = RecorderFailed {
            id: 1,
            audio_follows: true,
        };
        // The key still held: the recording ends there and its audio is awaited.
        let (d, actions) = replay(
            hold(),
            &[
                (0, ModelReady),
                (0, HotkeyPressed),
                (1500, failed.clone()),
                (1510, AudioReady { id: 1 }),
                (2000, HotkeyReleased),
            ],
        );
        assert_eq!(
            actions,
            vec![
                (0, Action::StartRecording { id: 1 }),
                (1510, Action::Transcribe { id: 1 }),
            ]
        );
        assert_eq!(d.activity(), Activity::Transcribing);
        // In the tail, after key-up: still transcribed.
        let (d, actions) = replay(
            hold(),
            &[
                (0, ModelReady),
                (0, HotkeyPressed),
                (1500, HotkeyReleased),
                (1700, failed),
                (1710, AudioReady { id: 1 }),
                (3000, Finished { id: 1 }),
            ],
        );
        assert!(actions.contains(&(1710, Action::Transcribe { id: 1 })));
        assert_eq!(d.activity(), Activity::Idle);
    }

    #[test]
    fn activity_follows_the_model() {
        let (d, _) = replay(hold(), &[]);
        assert_eq!(d.activity(), Activity::Loading);
        let (d, _) = replay(hold(), &[(0, ModelFailed)]);
        assert_eq!(d.activity(), Activity::Broken);
        let (d, _) = replay(hold(), &[(0, ModelFailed), (1, HotkeyPressed)]);
        assert_eq!(d.activity(), Activity::Recording);
    }

    #[test]
    fn audio_for_an_unknown_recording_is_ignored() {
        let (_, actions) = replay(hold(), &[(0, AudioReady { id: 7 })]);
        assert!(actions.is_empty());
    }

    #[test]
    fn the_mode_can_change_between_dictations() {
        let (_, actions) = replay(
            hold(),
            &[
                (0, ModeChanged(HotkeyMode::Toggle)),
                (10, HotkeyPressed),
                (20, HotkeyReleased),
                (2000, HotkeyPressed),
            ],
        );
        assert_eq!(actions[1], (2000, Action::StopRecording { id: 1 }));
    }

    #[test]
    fn a_retry_is_queued_like_a_recording_and_may_overlap_one() {
        let (d, actions) = replay(
            hold(),
            &[
                (0, ModelReady),
                (0, Retry),
                (10, HotkeyPressed),
                (1000, HotkeyReleased),
            ],
        );
        assert_eq!(
            actions,
            vec![
                (0, Action::TranscribeSaved { id: 1 }),
                (10, Action::StartRecording { id: 2 }),
                (1000, Action::StopRecording { id: 2 }),
            ]
        );
        assert_eq!(d.queued(), 2);
    }

    #[test]
    fn start_and_stop_from_outside_hold_in_either_mode() {
        for config in [hold(), toggle()] {
            let (d, actions) = replay(
                config,
                &[
                    (0, ModelReady),
                    (100, Start),
                    // A second start (a key's auto-repeat through a compositor binding).
                    (150, Start),
                    (2100, Stop),
                    (2200, Stop),
                    (2400, AudioReady { id: 1 }),
                ],
            );
            assert_eq!(
                actions,
                vec![
                    (100, Action::StartRecording { id: 1 }),
                    (2100, Action::StopRecording { id: 1 }),
                    (2400, Action::Transcribe { id: 1 }),
                ],
                "{:?}",
                config.mode
            );
            assert_eq!(d.activity(), Activity::Transcribing);
        }
    }

    #[test]
    fn a_stop_from_outside_within_the_minimum_hold_is_a_tap() {
        let (d, actions) = replay(hold(), &[(0, ModelReady), (100, Start), (300, Stop)]);
        assert_eq!(
            actions,
            vec![
                (100, Action::StartRecording { id: 1 }),
                (300, Action::CancelRecording { id: 1 }),
            ]
        );
        assert_eq!(d.queued(), 0);
    }

    #[test]
    fn cancel_from_outside_drops_the_recording_and_nothing_else() {
        let (d, actions) = replay(
            toggle(),
            &[
                (0, ModelReady),
                (0, Cancel),
                (100, HotkeyPressed),
                (200, HotkeyReleased),
                (5000, Cancel),
                // The key's next press starts afresh rather than stopping a cancelled one.
                (6000, HotkeyPressed),
            ],
        );
        assert_eq!(
            actions,
            vec![
                (100, Action::StartRecording { id: 1 }),
                (5000, Action::CancelRecording { id: 1 }),
                (6000, Action::StartRecording { id: 2 }),
            ]
        );
        assert_eq!(d.queued(), 0);
    }

    #[test]
    fn the_hotkey_and_the_commands_drive_the_same_recording() {
        let (_, actions) = replay(
            hold(),
            &[
                (0, ModelReady),
                (100, HotkeyPressed),
                (200, Start),
                (1000, Stop),
                // The key let go after the command stopped it: nothing more.
                (1500, HotkeyReleased),
            ],
        );
        assert_eq!(
            actions,
            vec![
                (100, Action::StartRecording { id: 1 }),
                (1000, Action::StopRecording { id: 1 }),
            ]
        );
    }

    #[test]
    fn modes_parse_from_settings_text() {
        assert_eq!(HotkeyMode::parse(" Toggle "), Some(HotkeyMode::Toggle));
        assert_eq!(HotkeyMode::parse("hold"), Some(HotkeyMode::Hold));
        assert_eq!(HotkeyMode::parse("push"), None);
    }
}
