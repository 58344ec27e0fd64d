//! The menu-bar app: one coordinator on the main thread (the `tao` event loop) owns the
//! dictation state machine and the tray; the recorder, the transcription worker, the output
//! (clipboard and keys) and notifications are threads that talk to it through events. The event
//! loop never waits on any of them.
//!
//! A dictation: hotkey down → recording (journaled to disk as it is recorded) → hotkey up →
//! audio (+ tail) → gated, transcribed → text judged (silence and hallucinations dropped; speech
//! that gave no text is said) → delivered (paste / type / copy) → the recording marked finished.
//! Each one logs its stage timings from key-up. A recording a crash left unfinished is
//! recovered at the next start ([`recovery`]).
//!
//! Who owns a recording, from key-down to its deletion (the folder's layout is in
//! [`crate::recordings`]): the coordinator names its journal at key-down and keeps the name
//! (`journals`) until the dictation ends; the recorder (`audio::capture`) writes it until
//! key-up, or until the microphone fails, and then hands it on whole — only a tap, the
//! person's cancel, deletes it there, and a microphone change waits for the recording's end;
//! the worker reads it and never deletes it (a panic there ends the dictation with a notice,
//! the recording kept); the coordinator then marks it finished ([`results`]): held for Retry
//! when it was never transcribed ([`retry`] says which one Retry takes). Only
//! [`RecordingStore`] deletes a finished recording, as one of the oldest beyond the number
//! kept. Quitting never waits for transcriptions: what is not finished stays a journal and the
//! next start recovers it.

mod app_modes;
mod choices;
mod delivery;
mod desktop_session;
mod desktop_shortcut;
mod events;
mod first_run;
pub mod hallucinations;
pub mod heard;
mod history_thread;
mod hotkey;
mod idle;
pub mod log_folder;
pub mod model_download;
mod model_menu;
pub mod notices;
pub mod notify;
pub mod output;
pub mod overlay;
pub mod privacy;
mod quiet;
mod recovery;
mod remote;
mod results;
pub mod retry;
mod shutdown;
pub mod state;
pub mod texts;
pub mod tray;
pub mod verdict;
mod wakeup;
pub mod window;
pub mod wording;
pub mod worker;

use crate::app_icons::IconState;
use crate::audio::capture::{Recorder, RecorderCommand, RecorderConfig, RecorderEvent, PRE_ROLL};
use crate::audio::level::loudest_frame;
use crate::audio::pause;
use crate::audio::shared_audio::SharedAudio;
use crate::device::backend::detect;
use crate::device::simulated::SimulatedGpu;
use crate::device::DeviceKind;
use crate::i18n::UiLang;
use crate::login_item::{LoginItem, Repoint};
use crate::permissions::PermissionWatch;
use crate::platform::HotkeyListener;
use crate::recordings::RecordingStore;
use crate::settings::Settings;
use crate::single_instance::{InstanceError, InstanceLock};
use choices::{overlay_position, settings_modified};
pub use events::AppEvent;
use events::{forward_hotkeys, forward_menu, sender};
use global_hotkey::hotkey::HotKey;
use global_hotkey::HotKeyState;
use history_thread::HistoryThread;
use notices::Notice;
use notify::Notifier;
use output::Output;
use overlay::Overlay;
use state::{Action, Activity, Config, Dictation, HotkeyMode, Input};
use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tao::event::{Event, StartCause};
use tao::event_loop::{ControlFlow, EventLoopBuilder, EventLoopProxy};
use tao::platform::run_return::EventLoopExtRunReturn;
use texts::{microphone_line, status_line, Status};
use tray::{MenuAction, MenuModel, Tray};
use wording::Wording;
use worker::{JobAudio, Worker, WorkerCommand};

/// Where the app keeps its files (the tests point them at a temporary folder).
#[derive(Debug, Clone)]
pub struct AppPaths {
    pub state_dir: PathBuf,
    pub log_dir: PathBuf,
    pub recordings_dir: PathBuf,
}

/// Runs the app until Quit. Returns an error only for what stops it from starting at all.
pub fn run(paths: AppPaths) -> anyhow::Result<()> {
    let (settings, settings_warning) = Settings::load(&paths.state_dir);
    crate::logging::set_log_text(settings.log_text);
    first_run::log_mps_fallback();
    // Before the first notification (macOS would otherwise ask which app to show it as).
    notify::init_sender(crate::bundle::Location::current().as_ref());
    let lang = crate::device::setup::ui_lang(None, &settings);
    let _instance = match InstanceLock::acquire(&paths.state_dir) {
        Ok(lock) => lock,
        Err(InstanceError::AlreadyRunning { pid, .. }) => {
            let (summary, body) = Notice::AlreadyRunning.text(lang);
            eprintln!("whisper-dictation: {body}");
            tracing::info!(?pid, "already running; exiting");
            notify::show(&notify::Note { summary, body });
            return Ok(());
        }
        Err(e) => return Err(e.into()),
    };

    let mut event_loop = EventLoopBuilder::<AppEvent>::with_user_event().build();
    crate::platform::configure_event_loop(&mut event_loop);
    let proxy = event_loop.create_proxy();
    // Only now that the instance lock is held: a socket file there is a crash's, replaced.
    let control = remote::serve_app(&paths.state_dir, sender(&proxy, AppEvent::Remote));
    let notifier = Notifier::spawn()?;
    let settings_problem_said = settings_warning
        .as_ref()
        .map(crate::settings::SettingsWarning::file_and_problem);
    if let Some(warning) = settings_warning {
        tracing::warn!("{warning}");
        notify_of(
            &notifier,
            lang,
            &Notice::SettingsDamaged {
                detail: warning.file_and_problem(),
                whole_file: warning.whole_file,
            },
        );
    }

    let session_facts = desktop_session::SessionFacts::read();
    let session = desktop_session::plan(&session_facts);
    session.log(&session_facts);
    // Wayland without X11 has no keys to grab: the desktop's binding (or the portal) starts
    // dictation there. Elsewhere the grab is the hotkey, and without it the app is no use.
    let hotkeys = if session.grabs_keys() {
        match HotkeyListener::new(forward_hotkeys(&proxy)) {
            Ok(listener) => Some(listener),
            Err(e) if session.kind != desktop_session::SessionKind::X11 => {
                tracing::warn!("no X11 hotkey on this Wayland session: {e}");
                None
            }
            Err(e) => {
                return Err(anyhow::anyhow!(
                    "global hotkeys are not available here: {e}"
                ))
            }
        }
    } else {
        None
    };
    let hotkey = hotkeys
        .as_ref()
        .and_then(|h| hotkey::register_hotkey(h, &settings.hotkey, &notifier, lang));
    // Where the desktop offers global shortcuts (KDE, GNOME 48+): bound on a thread of its own
    // (the desktop may ask the person first), its presses and releases as the grab's.
    let desktop_shortcut = (session.hotkey == desktop_session::HotkeyWay::Portal)
        .then(|| desktop_shortcut::bind_in_background(&settings.hotkey, forward_hotkeys(&proxy)));
    hotkey::warn_if_system_shortcut(&notifier, lang, &settings.hotkey);
    forward_menu(proxy.clone());
    let terminate = sender(&proxy, |()| AppEvent::Terminate);
    if let Err(e) = ctrlc::set_handler(move || terminate(())) {
        tracing::warn!("no clean quit on signals: {e}");
    }

    let recorder = Recorder::spawn(
        recorder_config(&settings),
        sender(&proxy, AppEvent::Recorder),
    )?;
    let recordings = RecordingStore::new(
        paths.recordings_dir.clone(),
        settings.keep_recordings.max(1),
    );
    // Before anything is recorded: this run's own journals are not unfinished (and a save a
    // crash interrupted is one of them).
    let unfinished = recordings.unfinished();
    let retry_at_start = recordings.retry_at_start();
    let held = retry_at_start
        .as_deref()
        .is_some_and(RecordingStore::is_held);
    let retry = retry::RetryChoice::at_start(retry_at_start, held);
    // The temporary files of state saves a crash interrupted (settings, device history).
    crate::atomic_file::remove_stale_temps(&paths.state_dir);
    if !unfinished.is_empty() {
        tracing::info!(
            count = unfinished.len(),
            "unfinished recordings from a previous run: recovering them once the model is ready"
        );
    }
    let worker = Worker::spawn(recordings.clone(), sender(&proxy, AppEvent::Worker))?;
    // Here on the main thread, before the output thread sends its first key (platform doc);
    // the paste key is looked up here too, and again at each input-source change.
    crate::platform::prime_keyboard_events();
    crate::inject::paste_key::follow_keyboard_layout();
    let hotkey_down = output::HotkeyDown::default();
    let output = Output::spawn(hotkey_down.clone(), sender(&proxy, AppEvent::Output))?;
    let history = HistoryThread::spawn(
        paths.state_dir.join(history_thread::FILE_NAME),
        paths.recordings_dir.clone(),
        history_thread::retention(&settings),
        settings.keep_history,
        sender(&proxy, AppEvent::History),
    )?;

    let mode = HotkeyMode::parse(&settings.hotkey_mode).unwrap_or(HotkeyMode::Hold);
    let max = Duration::from_secs(u64::from(settings.max_recording_secs.clamp(5, 3600)));
    let overlay = Overlay::new(settings.overlay, overlay_position(&settings), lang);
    // The surface the session plan names, so the overlay and the menu's line always agree.
    overlay.use_surface(match session.overlay {
        desktop_session::OverlayWay::Window => overlay::window::SurfaceKind::Window,
        desktop_session::OverlayWay::LayerShell => overlay::window::SurfaceKind::LayerShell,
        desktop_session::OverlayWay::Nothing => overlay::window::SurfaceKind::None,
    });
    let wake = sender(&proxy, |()| AppEvent::Wake);
    let wording = Arc::new(Wording::from_settings(&settings));
    let settings_changed = settings_modified(&paths.state_dir);
    let settings_unload_after = settings.unload_model_after_secs;
    let mut app = App {
        wording,
        settings_changed,
        settings_problem_said,
        overlay,
        wakeup: wakeup::Wakeup::spawn(move || wake(()))?,
        hotkeys,
        session,
        desktop_shortcut,
        hotkey,
        dictation: Dictation::new(Config::new(mode, max)),
        login_item: login_item(),
        permissions: PermissionWatch::new(
            paths.state_dir.clone(),
            crate::bundle::Location::current(),
        ),
        next_permission_check: None,
        settings,
        lang,
        paths,
        notifier,
        recorder,
        worker,
        output,
        history,
        hotkey_down,
        retry,
        recordings,
        journals: HashMap::new(),
        recovery: recovery::Recovery::new(unfinished),
        tray: None,
        stages: HashMap::new(),
        early_sent: None,
        pending_audio: HashMap::new(),
        recent: VecDeque::new(),
        model: None,
        last_error: None,
        announced_ready: false,
        user_activity: None,
        warned_silent_microphone: false,
        warned_accessibility: false,
        quit: false,
        shutdown: shutdown::Shutdown::default(),
        proxy: proxy.clone(),
        downloading: None,
        confirm: model_download::Confirm::default(),
        forget: privacy::ForgetConfirm::default(),
        failed_model: None,
        suggested_model: crate::models::suggest_default(&crate::models::Machine::detect()),
        history_window: window::HistoryWindow::default(),
        idle: idle::IdleUnload::new(settings_unload_after),
        microphone_starts: idle::MicrophoneStarts::default(),
        dictation_modes: HashMap::new(),
        app_at_key_down: app_modes::AppAtKeyDown::default(),
        quiet: quiet::Quiet::default(),
        control,
    };
    app.load_model();
    app.suggest_model_once();
    if window::automation::requested() {
        // A WebDriver started the app (a test): its session takes the window's webview.
        app.open_window(window::Page::History);
    }
    // macOS: microphone and Accessibility, said once each with what to do (first_run.rs).
    app.warned_accessibility = app.check_permissions();
    app.ask_for_microphone_if_never_asked();

    event_loop.run_return(|event, target, control_flow| {
        if shutdown::ends_the_loop(&event) {
            // Quit, a signal, or macOS's logout (after which nothing else runs): shutdown.rs.
            return app.shut_down();
        }
        match event {
            Event::NewEvents(StartCause::Init) => app.build_tray(),
            Event::NewEvents(StartCause::ResumeTimeReached { .. }) => {
                app.input(Input::Tick);
                app.permissions_due(Instant::now());
                app.unload_when_due(Instant::now());
            }
            Event::UserEvent(event) => app.handle(event),
            Event::RedrawRequested(window) => app.overlay.redraw(window),
            _ => {}
        }
        app.overlay.tick(Instant::now());
        app.overlay.sync(target);
        let deadline = [
            app.dictation.next_deadline(),
            app.next_permission_check,
            app.overlay.next_deadline(),
            app.forget.deadline(),
            app.idle.deadline(),
        ]
        .into_iter()
        .flatten()
        .min();
        app.wakeup.set(deadline.filter(|_| !app.quit));
        *control_flow = match (app.quit, deadline) {
            (true, _) => ControlFlow::Exit,
            (false, Some(deadline)) => ControlFlow::WaitUntil(deadline),
            (false, None) => ControlFlow::Wait,
        };
    });
    // Done at LoopDestroyed already, which tao delivers before `run_return` returns.
    app.shut_down();
    Ok(())
}

/// Per-dictation stage times, for the log line.
#[derive(Debug, Default, Clone)]
struct Stages {
    key_up: Option<Instant>,
    audio: Option<Instant>,
    text: Option<Instant>,
    engine: Duration,
    /// The text came from the audio up to key-up, transcribed while the tail was recorded.
    early: bool,
    /// What Whisper wrote, before the wording, for the history.
    heard: worker::Heard,
}

/// The audio last sent to be transcribed early (at a pause or key-up).
struct EarlySent {
    id: u64,
    /// Samples at 16 kHz.
    len: usize,
    peak: f32,
}

struct LoadedModel {
    name: String,
    device: DeviceKind,
    why: crate::device::policy::Reason,
}

struct App {
    /// What becomes of Whisper's text, from the settings.
    wording: Arc<Wording>,
    /// When settings.json was last changed as the app knows it (a later change was made by
    /// hand: "Vocabulary…" — its wording is read again before the next dictation).
    settings_changed: Option<std::time::SystemTime>,
    /// The settings.json problem last notified (`choices.rs`): said once, not at every menu
    /// choice or dictation; `None` once the file reads cleanly.
    settings_problem_said: Option<String>,
    /// The panel shown while dictating.
    overlay: Overlay,
    /// Wakes the loop at the deadline it waits for.
    wakeup: wakeup::Wakeup,
    /// The app's own hotkey listener; `None` on Wayland without X11.
    hotkeys: Option<HotkeyListener>,
    /// What works in this desktop session (found at start).
    session: desktop_session::SessionPlan,
    /// The desktop portal's shortcut (Wayland where offered); dropping it ends the binding.
    desktop_shortcut: Option<desktop_shortcut::DesktopShortcut>,
    /// The registered hotkey (`None` when registration failed).
    hotkey: Option<HotKey>,
    dictation: Dictation,
    settings: Settings,
    lang: UiLang,
    paths: AppPaths,
    notifier: Notifier,
    recorder: Recorder,
    worker: Worker,
    output: Output,
    history: HistoryThread,
    /// The hotkey's state as the output thread sees it (a paste waits for its key-up).
    hotkey_down: output::HotkeyDown,
    /// The recording "Retry last recording" takes.
    retry: retry::RetryChoice,
    recordings: RecordingStore,
    /// The journal of each dictation from key-down until its dictation ends.
    journals: HashMap<u64, PathBuf>,
    recovery: recovery::Recovery,
    tray: Option<Tray>,
    login_item: Option<LoginItem>,
    /// macOS permissions: the last check and when to look again (first_run.rs).
    permissions: PermissionWatch,
    next_permission_check: Option<Instant>,
    stages: HashMap<u64, Stages>,
    early_sent: Option<EarlySent>,
    pending_audio: HashMap<u64, SharedAudio>,
    recent: VecDeque<String>,
    model: Option<LoadedModel>,
    last_error: Option<String>,
    announced_ready: bool,
    /// Held while the person waits for the app (`Activity::is_awaited_work`), so macOS does
    /// not App-Nap the worker in the middle of a dictation.
    user_activity: Option<crate::platform::UserActivity>,
    /// Notices given once per run (repeating them on every dictation would only annoy).
    warned_silent_microphone: bool,
    warned_accessibility: bool,
    quit: bool,
    /// Lets the orderly end run once (shutdown.rs).
    shutdown: shutdown::Shutdown,
    /// For the threads started later (model downloads).
    proxy: EventLoopProxy<AppEvent>,
    /// The model download in progress (one at a time).
    downloading: Option<model_download::Running>,
    /// The download entry clicked once, waiting for the confirming click.
    confirm: model_download::Confirm,
    /// "Forget everything…" clicked once, waiting for the confirming click.
    forget: privacy::ForgetConfirm,
    /// An installed model that failed to load: the Model menu offers to download it again.
    failed_model: Option<String>,
    /// The catalogue model for this machine (`models::suggest_default`).
    suggested_model: &'static str,
    /// The History window (nothing of it exists while it is closed).
    history_window: window::HistoryWindow,
    /// The model's unload after a while without dictations (idle.rs).
    idle: idle::IdleUnload,
    /// How fast the microphones opened at key-down start (idle.rs).
    microphone_starts: idle::MicrophoneStarts,
    /// Each dictation's per-app mode, chosen at key-down (app_modes.rs).
    dictation_modes: HashMap<u64, app_modes::DictationMode>,
    /// Reads the app that has the focus at key-down.
    app_at_key_down: app_modes::AppAtKeyDown,
    /// Media paused while recording (quiet.rs).
    quiet: quiet::Quiet,
    /// `control.sock`, for `whisper-dictation start | stop | toggle | cancel` (remote.rs).
    control: Option<remote::ControlSocket>,
}

impl App {
    fn handle(&mut self, event: AppEvent) {
        match event {
            AppEvent::Hotkey(HotKeyState::Pressed) => {
                self.hotkey_down.set(true);
                self.input(Input::HotkeyPressed)
            }
            AppEvent::Hotkey(HotKeyState::Released) => {
                self.hotkey_down.set(false);
                self.input(Input::HotkeyReleased)
            }
            // Twenty times a second while recording: the overlay only, not the tray.
            AppEvent::Recorder(RecorderEvent::Level { id, rms }) => {
                return self.overlay.level(id, rms);
            }
            AppEvent::Menu(id) => match MenuAction::parse(&id) {
                Some(action) => self.menu(action),
                None => tracing::debug!(id, "menu item without an action"),
            },
            AppEvent::Recorder(event) => self.recorder_event(event),
            AppEvent::Worker(event) => self.worker_event(event),
            AppEvent::Output(event) => self.output_event(event),
            AppEvent::Download(event) => self.download_event(event),
            AppEvent::History(event) => self.history_event(event),
            AppEvent::Window(request) => self.window_request(request),
            AppEvent::Remote(request) => self.remote(request),
            AppEvent::Wake => {
                self.input(Input::Tick);
                self.permissions_due(Instant::now());
                self.unload_when_due(Instant::now());
            }
            AppEvent::Terminate => {
                tracing::info!("terminated by a signal");
                self.quit = true;
            }
        }
        self.refresh();
    }

    pub(in crate::app) fn input(&mut self, input: Input) {
        self.input_acted(input);
    }

    /// [`App::input`], returning the actions taken (a control command's reply names them).
    pub(in crate::app) fn input_acted(&mut self, input: Input) -> Vec<Action> {
        let now = Instant::now();
        let actions = self.dictation.handle(input, now);
        for action in &actions {
            self.act(action.clone(), now);
        }
        self.keep_quiet();
        self.refresh();
        actions
    }

    fn act(&mut self, action: Action, now: Instant) {
        match action {
            Action::StartRecording { id } => {
                tracing::info!(id, "recording started");
                let journal = match self.recordings.new_journal() {
                    Ok(path) => Some(path),
                    Err(e) => {
                        tracing::warn!("recording kept in memory only: {e}");
                        None
                    }
                };
                if let Some(path) = &journal {
                    self.journals.insert(id, path.clone());
                }
                self.recorder.send(RecorderCommand::Start { id, journal });
                // After the microphone's start: the load goes on while the person speaks.
                self.reload_if_unloaded("key-down");
                let config = self.dictation.config();
                self.overlay
                    .recording(id, now, config.max_length, config.warn_before);
                // Read here, once the microphone has been told: edits made since the last
                // dictation (the menu's "Vocabulary…") apply to this one.
                self.reload_edited_wording();
                self.choose_mode(id);
            }
            Action::StopRecording { id } => {
                tracing::info!(id, "recording stopped");
                self.stages.insert(
                    id,
                    Stages {
                        key_up: Some(now),
                        ..Stages::default()
                    },
                );
                self.recorder.send(RecorderCommand::Stop { id });
                self.overlay.transcribing(id, now);
            }
            Action::CancelRecording { id } => {
                tracing::info!(
                    id,
                    "recording cancelled (a tap shorter than 0.3 s, or `cancel`)"
                );
                // The recorder deletes its journal.
                self.journals.remove(&id);
                self.dictation_modes.remove(&id);
                self.recorder.send(RecorderCommand::Cancel { id });
                self.overlay.end(id);
            }
            Action::Transcribe { id } => {
                if let Some(samples) = self.pending_audio.remove(&id) {
                    self.transcribe(id, JobAudio::Recorded(samples));
                }
            }
            // A recording deleted meanwhile (with its history entry, or by hand) is nothing to
            // retry, not a failed transcription.
            Action::TranscribeSaved { id } => match self
                .retry
                .path()
                .map(PathBuf::from)
                .filter(|path| path.is_file())
            {
                Some(path) => {
                    tracing::info!(id, path = %path.display(), "retrying a saved recording");
                    self.stages.insert(
                        id,
                        Stages {
                            key_up: Some(now),
                            audio: Some(now),
                            ..Stages::default()
                        },
                    );
                    self.transcribe(id, JobAudio::Saved(path));
                }
                None => {
                    self.notify(&Notice::NothingToRetry);
                    self.dictation.handle(Input::Finished { id }, now);
                }
            },
            Action::WarnMaxLength { remaining } => {
                self.notify(&Notice::MaxLengthSoon { remaining });
            }
            Action::MaxLengthReached => self.notify(&Notice::MaxLengthReached),
        }
    }

    fn recorder_event(&mut self, event: RecorderEvent) {
        match event {
            RecorderEvent::Started {
                id,
                device,
                pre_roll,
            } => {
                tracing::info!(
                    id,
                    device,
                    pre_roll_ms = pre_roll.as_millis() as u64,
                    "microphone recording"
                );
                self.microphone_starts.recording_on(device);
            }
            RecorderEvent::Level { id, rms } => self.overlay.level(id, rms),
            RecorderEvent::FirstAudio {
                id,
                after_start,
                first_sample_after_start,
                opened,
            } => {
                let first_sample_ms = first_sample_after_start.map(|d| d.as_millis() as u64);
                tracing::info!(
                    id,
                    key_down_to_first_audio_ms = after_start.as_millis() as u64,
                    key_down_to_first_sample_ms = first_sample_ms,
                    opened_at_key_down = opened,
                    "first audio after key-down"
                );
                self.warn_if_microphone_slow(
                    opened,
                    first_sample_after_start.unwrap_or(after_start),
                );
            }
            RecorderEvent::Pause {
                id,
                samples,
                stride,
            } => {
                if self.dictation.is_recording(id) && self.dictation.model_ready() {
                    tracing::debug!(
                        id,
                        seconds = samples.len() as f32 / 16_000.0,
                        stride,
                        "the speaker paused or went on: transcribing the audio so far"
                    );
                    self.transcribe_early(id, samples, stride);
                }
            }
            RecorderEvent::SpeechAfterPause {
                id,
                pause_end,
                heard_at,
            } => {
                if self.dictation.is_recording(id) {
                    self.worker.send(WorkerCommand::SpeechAfterPause {
                        id,
                        pause_end,
                        heard_at,
                    });
                }
            }
            RecorderEvent::PauseHeld { id, samples } => {
                if self.dictation.is_recording(id) {
                    self.worker.send(WorkerCommand::PauseHeld { id, samples });
                }
            }
            RecorderEvent::Head { id, samples } => {
                let covered = self.early_sent.as_ref().is_some_and(|sent| {
                    sent.id == id
                        && pause::tail_is_quiet(
                            &samples,
                            sent.len,
                            pause::Hearing::of(&samples, sent.peak),
                            16_000,
                        )
                });
                if !covered
                    && self.dictation.awaits_text(id)
                    && pause::worth_starting(
                        &samples,
                        pause::Hearing::of(&samples, loudest_frame(&samples, 16_000)),
                        16_000,
                    )
                {
                    tracing::debug!(id, "transcribing the audio up to key-up");
                    self.transcribe_early(id, samples, false);
                }
            }
            RecorderEvent::Audio {
                id,
                samples,
                ended,
                journal,
            } => {
                if journal.is_none() {
                    // Not on disk after all (the journal could not be written): the worker
                    // saves the audio before transcribing it.
                    self.journals.remove(&id);
                }
                let stage = self.stages.entry(id).or_default();
                stage.audio = Some(Instant::now());
                tracing::debug!(
                    id,
                    seconds = samples.len() as f32 / 16_000.0,
                    ?ended,
                    "audio ready"
                );
                self.pending_audio.insert(id, samples);
                self.input(Input::AudioReady { id });
                self.pending_audio.remove(&id);
            }
            RecorderEvent::Failed {
                id,
                problem,
                detail,
                audio_follows,
            } => {
                tracing::warn!(?id, ?problem, detail, audio_follows, "microphone problem");
                if let Some(id) = id {
                    if audio_follows {
                        // Ended as at key-up: what was recorded is transcribed (its Audio
                        // follows).
                        if self.dictation.is_recording(id) {
                            let now = Instant::now();
                            self.stages.insert(
                                id,
                                Stages {
                                    key_up: Some(now),
                                    ..Stages::default()
                                },
                            );
                            self.overlay.transcribing(id, now);
                        }
                    } else {
                        // Nothing was recorded: the recorder wrote no journal.
                        self.journals.remove(&id);
                        self.overlay.end(id);
                    }
                    self.input(Input::RecorderFailed { id, audio_follows });
                }
                self.notify(&Notice::MicrophoneFailed {
                    problem,
                    kept: audio_follows,
                });
            }
        }
    }

    fn load_model(&mut self) {
        self.idle.loading();
        match worker::model_request(&self.settings, &self.paths.state_dir) {
            Ok(request) => self.worker.send(WorkerCommand::Load(request)),
            Err(message) => {
                tracing::error!(message, "no model");
                self.last_error = Some(message.clone());
                self.input(Input::ModelFailed);
                let models_dir = crate::paths::models_dir()
                    .map(|d| d.display().to_string())
                    .unwrap_or_default();
                if crate::paths::models_dir()
                    .map(|d| crate::paths::installed_models(&d).is_empty())
                    .unwrap_or(true)
                {
                    self.notify(&Notice::NoModelInstalled { models_dir });
                } else {
                    self.notify(&Notice::ModelFailed {
                        model: self.settings.model.clone(),
                        detail: message,
                        redownload: false,
                    });
                }
            }
        }
    }

    fn build_tray(&mut self) {
        let models = crate::paths::models_dir()
            .map(|d| crate::paths::installed_models(&d))
            .unwrap_or_default();
        let available: Vec<DeviceKind> = detect(SimulatedGpu::from_env().ok().flatten())
            .iter()
            .map(|b| b.kind)
            .collect();
        let session_line = self.session.line(self.lang);
        let model = MenuModel {
            lang: self.lang,
            settings: &self.settings,
            installed_models: &models,
            available_devices: &available,
            microphones: &crate::audio::capture::input_device_names(),
            launch_at_login: self.login_item.as_ref().is_some_and(LoginItem::is_enabled),
            permissions: self
                .permissions
                .applies()
                .then(|| crate::permissions::menu_label(self.permissions.problems(), self.lang)),
            session: session_line.as_deref(),
        };
        match Tray::build(&model) {
            Ok(tray) => {
                let pre_roll = self.settings.keep_microphone_open.then_some(PRE_ROLL);
                tray.set_microphone(&microphone_line(
                    self.lang,
                    &self.settings.input_device,
                    pre_roll,
                ));
                if !self.recent.is_empty() {
                    tray.set_recent(self.recent.make_contiguous());
                }
                self.tray = Some(tray);
                self.show_model_menu();
                tracing::info!("tray icon shown");
            }
            Err(e) => tracing::error!("no tray icon: {e}"),
        }
        self.refresh();
    }

    /// Icon, status line and retry item from the current state.
    fn refresh(&mut self) {
        self.follow_idleness(Instant::now());
        let activity = self.dictation.activity();
        match (activity.is_awaited_work(), self.user_activity.is_some()) {
            (true, false) => {
                self.user_activity = Some(crate::platform::UserActivity::begin(c"dictation"));
            }
            (false, true) => self.user_activity = None,
            _ => {}
        }
        self.forget_expired(Instant::now());
        let Some(tray) = &mut self.tray else {
            return;
        };
        let icon = match activity {
            Activity::Recording => IconState::Recording,
            Activity::Transcribing | Activity::Loading => IconState::Transcribing,
            Activity::Broken => IconState::Error,
            Activity::Idle if self.last_error.is_some() => IconState::Error,
            Activity::Idle => IconState::Idle,
        };
        tray.set_icon(icon);
        let status = match activity {
            Activity::Loading => Status::Loading {
                model: &self.settings.model,
            },
            Activity::Idle => Status::Ready,
            Activity::Recording => Status::Recording,
            Activity::Transcribing => Status::Transcribing {
                queued: self.dictation.queued(),
            },
            Activity::Broken => Status::Broken,
        };
        let device = self.model.as_ref().map(|m| {
            (
                m.device.name().to_uppercase(),
                texts::placement_reason(&m.why, self.lang),
            )
        });
        let name = self
            .model
            .as_ref()
            .map_or(self.settings.model.as_str(), |m| m.name.as_str());
        let line = status_line(
            self.lang,
            &status,
            name,
            device.as_ref().map(|(d, w)| (d.as_str(), w.as_str())),
        );
        tray.set_status(&line);
        tray.set_retry_enabled(self.retry.path().is_some());
    }

    fn notify(&self, notice: &Notice) {
        notify_of(&self.notifier, self.lang, notice);
    }
}

pub(in crate::app) fn notify_of(notifier: &Notifier, lang: UiLang, notice: &Notice) {
    let (summary, body) = notice.text(lang);
    notifier.send(summary, body);
}

pub(in crate::app) fn recorder_config(settings: &Settings) -> RecorderConfig {
    RecorderConfig {
        device: settings.input_device.clone(),
        keep_open: settings.keep_microphone_open,
        strides: worker::commits_without_pauses(),
    }
}

/// The launch-at-login file for this platform, pointing at this binary (the bundle's, from a
/// bundle); none from a translocated copy (the permission check tells the user to move it).
fn login_item() -> Option<LoginItem> {
    let home = directories::BaseDirs::new()?.home_dir().to_path_buf();
    let location = crate::bundle::Location::current()?;
    let xdg = std::env::var_os("XDG_CONFIG_HOME").map(PathBuf::from);
    let item = match LoginItem::for_location(
        crate::platform::login_item_kind(),
        &home,
        xdg.as_deref(),
        &location,
    ) {
        Ok(item) => item,
        Err(e) => {
            tracing::warn!("no launch at login: {e}");
            return None;
        }
    };
    // The app may have moved since the item was written: point it here again, but only from
    // one installed copy to another (a development build leaves the installed app's entry).
    match item.repoint() {
        Ok(Repoint::Repointed) => {
            tracing::info!(path = %item.path.display(), "launch-at-login entry re-pointed")
        }
        Ok(Repoint::Kept { points_at }) => tracing::info!(
            path = %item.path.display(),
            points_at = ?points_at,
            "launch-at-login entry starts another copy of the app; left as it is"
        ),
        Ok(Repoint::Missing | Repoint::Unchanged) => {}
        Err(e) => tracing::warn!("launch at login: {}: {e}", item.path.display()),
    }
    Some(item)
}
