//! The overlay: a small panel near the bottom (or top) of the screen while a dictation runs,
//! showing the microphone level, the elapsed time, the state (recording → transcribing → done or
//! nothing recognised) and the words: while the worker streams, the words committed so far (they
//! never change on screen, they only grow) and the tentative tail after them, dimmed; the final
//! text at the end. A long text scrolls by whole lines, its newest words visible ([`layout`]). It never takes the focus or a click, so the paste still
//! lands in the app the person was typing in.
//!
//! The coordinator tells the [`Overlay`] what happens to the dictation; the overlay keeps what to
//! show ([`view`]), and at each turn of the event loop [`Overlay::sync`] opens, redraws or closes
//! its window (a layer surface on Wayland, none on GNOME: [`window`]). Between dictations there
//! is no window and no timer: the idle app costs nothing.

pub mod layout;
pub mod render;
pub mod view;
pub mod window;

use crate::i18n::UiLang;
use render::Renderer;
use std::time::{Duration, Instant};
use tao::event_loop::EventLoopWindowTarget;
use tao::window::WindowId;
use view::{meter_level, Phase, View};
use window::OverlaySurface;

/// How long the final text stays on screen after it was delivered.
pub const DONE_SHOWN: Duration = Duration::from_millis(1000);
/// How long "nothing recognised" stays (the notification says the rest).
pub const NOTHING_SHOWN: Duration = Duration::from_millis(2500);

/// Where on the screen (the `overlay_position` setting).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Position {
    Bottom,
    Top,
}

impl Position {
    pub fn parse(text: &str) -> Option<Position> {
        match text.trim() {
            "bottom" => Some(Position::Bottom),
            "top" => Some(Position::Top),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Position::Bottom => "bottom",
            Position::Top => "top",
        }
    }
}

/// The dictation on screen.
#[derive(Debug, Clone)]
struct Shown {
    id: u64,
    started: Instant,
    /// Key-up: the time stops here.
    stopped: Option<Instant>,
    phase: Phase,
    level: f32,
    /// The committed words shown, joined by single spaces: they only grow (see
    /// [`grown_committed`]).
    committed: String,
    /// The tentative tail of the latest report.
    tentative: String,
    /// The final text is shown: streamed reports no longer change the words.
    final_shown: bool,
    max_length: Duration,
    warn_before: Duration,
    hide_at: Option<Instant>,
    /// The elapsed second last drawn.
    second: u64,
    /// Whether its first frame has reached the screen (logged once).
    presented: bool,
    /// The per-app mode the dictation uses; empty: none.
    mode: String,
}

pub struct Overlay {
    enabled: bool,
    position: Position,
    lang: UiLang,
    shown: Option<Shown>,
    /// The window or layer surface while a dictation is shown.
    window: Option<OverlaySurface>,
    renderer: Option<Renderer>,
    /// A new frame is wanted.
    dirty: bool,
    /// The window or the drawing failed: not tried again this run (said in the log once).
    broken: bool,
}

impl Overlay {
    pub fn new(enabled: bool, position: Position, lang: UiLang) -> Overlay {
        Overlay {
            enabled,
            position,
            lang,
            shown: None,
            window: None,
            renderer: None,
            dirty: false,
            broken: false,
        }
    }

    /// Shows the overlay on `kind` of surface for the rest of the run (the session plan's
    /// choice, made at start); without this call the overlay asks the desktop itself at its
    /// first dictation ([`window::surface_kind`]).
    pub fn use_surface(&self, kind: window::SurfaceKind) {
        window::set_surface_kind(kind);
    }

    /// The menu's choices; turning it off hides a dictation already shown.
    pub fn configure(&mut self, enabled: bool, position: Position) {
        if position != self.position {
            // Reopened at the new place.
            self.window = None;
        }
        self.enabled = enabled;
        self.position = position;
        if !enabled {
            self.shown = None;
        }
        self.dirty = true;
    }

    /// The key went down: recording `id` has started.
    pub fn recording(&mut self, id: u64, now: Instant, max_length: Duration, warn: Duration) {
        if !self.enabled {
            return;
        }
        tracing::debug!(id, "overlay: recording");
        self.shown = Some(Shown {
            id,
            started: now,
            stopped: None,
            phase: Phase::Recording,
            level: 0.0,
            committed: String::new(),
            tentative: String::new(),
            final_shown: false,
            max_length,
            warn_before: warn,
            hide_at: None,
            second: 0,
            presented: false,
            mode: String::new(),
        });
        self.dirty = true;
    }

    /// Recording `id` uses the per-app mode `name`: said next to the state.
    pub fn mode_name(&mut self, id: u64, name: &str) {
        if let Some(shown) = self.current(id) {
            shown.mode = name
                .chars()
                .take(crate::settings::modes::MAX_NAME_CHARS)
                .collect();
            self.dirty = true;
        }
    }

    /// The microphone's level over the last 50 ms of recording `id` (RMS of the samples).
    pub fn level(&mut self, id: u64, rms: f32) {
        let Some(shown) = self.current(id) else {
            return;
        };
        let new = meter_level(rms);
        // Rises at once, falls smoothly (a meter that flickers to zero between syllables reads
        // as a broken microphone).
        let level = if new >= shown.level {
            new
        } else {
            shown.level * 0.6 + new * 0.4
        };
        if (level - shown.level).abs() >= 0.01 {
            shown.level = level;
            self.dirty = true;
        }
    }

    /// The worker's streamed text for the audio of `id` so far: `committed`, the words that are
    /// final (each report repeats them all and may add more), and `tentative`, the words after
    /// them that may still change or vanish (replaced by every report; empty: none). Shown while
    /// recording and transcribing until the final text; the words already committed on screen
    /// never change.
    pub fn stream_text(&mut self, id: u64, committed: &str, tentative: &str) {
        let Some(shown) = self.current(id) else {
            return;
        };
        if shown.final_shown
            || (shown.phase != Phase::Recording && shown.phase != Phase::Transcribing)
        {
            return;
        }
        let (grown, consistent) = grown_committed(&shown.committed, committed);
        if !consistent {
            tracing::warn!(
                id,
                shown_words = shown.committed.split_whitespace().count(),
                "overlay: the committed text reported does not begin with the one shown; only \
                 its further words are added"
            );
        }
        let tentative = words_joined(tentative);
        if grown == shown.committed && tentative == shown.tentative {
            return;
        }
        // Only what is new: a 2-minute dictation's whole text is not logged at every report.
        tracing::info!(
            id,
            added = ?crate::logging::dictated(grown[shown.committed.len()..].trim_start()),
            tentative = ?crate::logging::dictated(&tentative),
            "overlay shows early text"
        );
        shown.committed = grown;
        shown.tentative = tentative;
        self.dirty = true;
    }

    /// The key went up: Whisper works on the whole recording.
    pub fn transcribing(&mut self, id: u64, now: Instant) {
        if let Some(shown) = self.current(id) {
            shown.phase = Phase::Transcribing;
            shown.stopped = Some(now);
            shown.level = 0.0;
            self.dirty = true;
        }
    }

    /// The final text of `id`, on its way to the app: shown whole, in full colour, as it is
    /// delivered (it continues the committed words when it begins with them, as it should);
    /// streamed reports after it change nothing.
    pub fn final_text(&mut self, id: u64, text: &str) {
        if let Some(shown) = self.current(id) {
            shown.committed = words_joined(text);
            shown.tentative.clear();
            shown.final_shown = true;
            self.dirty = true;
        }
    }

    /// The text of `id` was delivered (`copied`: to the clipboard only).
    pub fn delivered(&mut self, id: u64, copied: bool, now: Instant) {
        self.ending(id, Phase::Done { copied }, now, DONE_SHOWN);
    }

    /// Speech in `id` gave no text.
    pub fn nothing_recognised(&mut self, id: u64, now: Instant) {
        if let Some(shown) = self.current(id) {
            shown.committed.clear();
            shown.tentative.clear();
        }
        self.ending(id, Phase::NothingRecognised, now, NOTHING_SHOWN);
    }

    /// `id` ended without anything to show (cancelled, silent, failed: a notification, if
    /// anything, says why).
    pub fn end(&mut self, id: u64) {
        if self.current(id).is_some() {
            self.shown = None;
        }
    }

    fn ending(&mut self, id: u64, phase: Phase, now: Instant, shown_for: Duration) {
        if let Some(shown) = self.current(id) {
            tracing::info!(
                id,
                phase = phase.name(),
                text = ?crate::logging::dictated(&shown.committed),
                "overlay"
            );
            shown.phase = phase;
            shown.stopped.get_or_insert(now);
            shown.hide_at = Some(now + shown_for);
            self.dirty = true;
        }
    }

    fn current(&mut self, id: u64) -> Option<&mut Shown> {
        self.shown.as_mut().filter(|s| s.id == id)
    }

    /// What the overlay shows at `now` (`None` when nothing is shown).
    pub fn view(&self, now: Instant) -> Option<View> {
        let shown = self.shown.as_ref()?;
        Some(View {
            lang: self.lang,
            phase: shown.phase,
            elapsed: shown
                .stopped
                .unwrap_or(now)
                .saturating_duration_since(shown.started),
            max_length: shown.max_length,
            warn_before: shown.warn_before,
            level: shown.level,
            committed: shown.committed.clone(),
            tentative: shown.tentative.clone(),
            mode: shown.mode.clone(),
        })
    }

    /// When the overlay needs the event loop again without any event: the next second of the
    /// clock while recording, or the moment it hides. `None` when nothing is shown.
    pub fn next_deadline(&self) -> Option<Instant> {
        let shown = self.shown.as_ref()?;
        if let Some(hide_at) = shown.hide_at {
            return Some(hide_at);
        }
        (shown.stopped.is_none()).then(|| shown.started + Duration::from_secs(shown.second + 1))
    }

    /// Hides what has been shown long enough, and redraws when the clock's second changed.
    pub fn tick(&mut self, now: Instant) {
        let Some(shown) = self.shown.as_mut() else {
            return;
        };
        if shown.hide_at.is_some_and(|at| now >= at) {
            self.shown = None;
            return;
        }
        if shown.stopped.is_none() {
            let second = now.saturating_duration_since(shown.started).as_secs();
            if second != shown.second {
                shown.second = second;
                self.dirty = true;
            }
        }
    }

    /// Opens the window for a dictation to show, closes it when there is none, and draws a new
    /// frame when something changed. Called at every turn of the event loop.
    pub fn sync<T: 'static>(&mut self, target: &EventLoopWindowTarget<T>) {
        match (&self.shown, &self.window) {
            (Some(_), None) if !self.broken => {
                match OverlaySurface::open(window::surface_kind(), target, self.position) {
                    Ok(surface) => self.window = surface,
                    Err(e) => self.give_up(&e.to_string()),
                }
            }
            (None, Some(_)) => {
                self.window = None;
                tracing::debug!("overlay hidden");
            }
            _ => {}
        }
        if self.dirty {
            self.dirty = false;
            // Drawn now rather than at the window's redraw request: tao's GTK loop hands those
            // out only when some other event wakes it.
            self.draw();
        }
    }

    /// The window system asks for window `id` to be drawn (it was mapped or uncovered).
    pub fn redraw(&mut self, id: WindowId) {
        if self.window.as_ref().and_then(OverlaySurface::id) != Some(id) {
            return;
        }
        self.draw();
        self.note_shown();
    }

    /// Says in the log, once per dictation, that its first frame reached the screen.
    fn note_shown(&mut self) {
        if let Some(shown) = self.shown.as_mut().filter(|s| !s.presented) {
            shown.presented = true;
            tracing::info!(
                id = shown.id,
                after_key_down_ms = shown.started.elapsed().as_millis() as u64,
                "overlay shown"
            );
        }
    }

    /// Renders the current view into the window.
    fn draw(&mut self) {
        let Some(view) = self.view(Instant::now()) else {
            return;
        };
        if self.window.is_none() {
            return;
        }
        if self.renderer.is_none() {
            match Renderer::new() {
                Ok(renderer) => self.renderer = Some(renderer),
                Err(e) => return self.give_up(&e.to_string()),
            }
        }
        let (Some(window), Some(renderer)) = (self.window.as_mut(), self.renderer.as_mut()) else {
            return;
        };
        let drawn = renderer
            .render(&view, window.scale())
            .map_err(|e| e.to_string())
            .and_then(|pixmap| window.present(&pixmap).map_err(|e| e.to_string()));
        match drawn {
            Err(e) => self.give_up(&e),
            Ok(()) if window.shown_when_presented() => self.note_shown(),
            Ok(()) => {}
        }
    }

    fn give_up(&mut self, problem: &str) {
        tracing::warn!("no overlay this run: {problem}");
        self.broken = true;
        self.window = None;
    }
}

/// `text`'s words joined by single spaces.
fn words_joined(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The committed words to show after a report: `shown` (the committed words on screen, joined by
/// single spaces) grown by what `reported` (the report's committed text) adds, and whether
/// `reported` began with `shown`, as it always should. Committed words never change on screen:
/// when `reported` begins with `shown`, the result is `reported` (only its end is new, even a
/// piece glued to the last word, such as a closing "."); when it does not (a worker defect),
/// `shown` stays and only the words of `reported` beyond as many words as `shown` has are added.
pub fn grown_committed(shown: &str, reported: &str) -> (String, bool) {
    let reported = words_joined(reported);
    if reported.starts_with(shown) {
        return (reported, true);
    }
    let had = shown.split_whitespace().count();
    let mut grown = shown.to_string();
    for word in reported.split(' ').skip(had) {
        grown.push(' ');
        grown.push_str(word);
    }
    (grown, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAX: Duration = Duration::from_secs(120);
    const WARN: Duration = Duration::from_secs(10);

    fn overlay() -> Overlay {
        Overlay::new(true, Position::Bottom, UiLang::En)
    }

    #[test]
    fn a_dictation_shows_recording_then_the_early_words_then_the_final_text() {
        let t0 = Instant::now();
        let mut o = overlay();
        assert!(
            o.view(t0).is_none() && o.next_deadline().is_none(),
            "idle: nothing"
        );
        o.recording(7, t0, MAX, WARN);
        let v = o.view(t0 + Duration::from_millis(2500)).unwrap();
        assert_eq!(
            (
                v.phase,
                v.elapsed,
                v.committed.as_str(),
                v.tentative.as_str()
            ),
            (Phase::Recording, Duration::from_millis(2500), "", "")
        );
        o.level(7, 0.05);
        assert!(o.view(t0).unwrap().level > 0.5);
        o.stream_text(7, "", " The quarterly  report ");
        let v = o.view(t0).unwrap();
        assert_eq!(
            (v.committed.as_str(), v.tentative.as_str()),
            ("", "The quarterly report")
        );
        o.stream_text(7, "The quarterly report", "is all");
        let v = o.view(t0).unwrap();
        assert_eq!(
            (v.committed.as_str(), v.tentative.as_str()),
            ("The quarterly report", "is all")
        );
        let up = t0 + Duration::from_secs(4);
        o.transcribing(7, up);
        let v = o.view(up + Duration::from_secs(3)).unwrap();
        assert_eq!(
            (v.phase, v.elapsed, v.level),
            (Phase::Transcribing, Duration::from_secs(4), 0.0)
        );
        // After key-up the tail still streams in.
        o.stream_text(7, "The quarterly report is almost", "finished");
        o.final_text(7, "The quarterly report is almost finished.");
        // A late report (after the final text) changes nothing.
        o.stream_text(7, "The quarterly report is almost finished.", "uh");
        o.delivered(7, false, up + Duration::from_millis(200));
        let v = o.view(up + Duration::from_millis(300)).unwrap();
        assert_eq!(v.phase, Phase::Done { copied: false });
        assert_eq!(
            (v.committed.as_str(), v.tentative.as_str()),
            ("The quarterly report is almost finished.", "")
        );
        let hide = o.next_deadline().unwrap();
        assert_eq!(hide, up + Duration::from_millis(200) + DONE_SHOWN);
        o.tick(hide - Duration::from_millis(1));
        assert!(o.view(hide).is_some());
        o.tick(hide);
        assert!(
            o.view(hide).is_none() && o.next_deadline().is_none(),
            "gone"
        );
    }

    #[test]
    fn speech_without_text_shows_nothing_recognised_for_a_while() {
        let t0 = Instant::now();
        let mut o = overlay();
        o.recording(3, t0, MAX, WARN);
        o.stream_text(3, "", "Dziękuję");
        o.transcribing(3, t0 + Duration::from_secs(3));
        o.nothing_recognised(3, t0 + Duration::from_secs(4));
        let v = o.view(t0 + Duration::from_secs(4)).unwrap();
        assert_eq!(v.phase, Phase::NothingRecognised);
        assert_eq!(v.label(), "Nothing recognised");
        assert!(
            v.committed.is_empty() && v.tentative.is_empty(),
            "no earlier words left over"
        );
        assert_eq!(
            o.next_deadline(),
            Some(t0 + Duration::from_secs(4) + NOTHING_SHOWN)
        );
    }

    #[test]
    fn only_the_dictation_on_screen_changes_it() {
        let t0 = Instant::now();
        let mut o = overlay();
        o.recording(1, t0, MAX, WARN);
        o.transcribing(1, t0 + Duration::from_secs(2));
        // The next dictation starts while the first is transcribed: it takes the screen.
        o.recording(2, t0 + Duration::from_secs(3), MAX, WARN);
        o.stream_text(1, "old", "words");
        o.delivered(1, false, t0 + Duration::from_secs(4));
        o.end(1);
        let v = o.view(t0 + Duration::from_secs(4)).unwrap();
        assert_eq!(
            (v.phase, v.committed.as_str(), v.tentative.as_str()),
            (Phase::Recording, "", "")
        );
        o.end(2);
        assert!(o.view(t0).is_none());
    }

    #[test]
    fn committed_words_only_grow_and_the_tentative_tail_is_replaced_each_time() {
        let t0 = Instant::now();
        let mut o = overlay();
        o.recording(5, t0, MAX, WARN);
        let shown = |o: &Overlay| {
            let v = o.view(t0).unwrap();
            (v.committed, v.tentative)
        };
        o.stream_text(5, "Umówmy się", "na środe");
        o.stream_text(5, "Umówmy się na środę", "o dziesiątej");
        assert_eq!(
            shown(&o),
            ("Umówmy się na środę".into(), "o dziesiątej".into())
        );
        // The tentative tail vanishes: nothing after the committed words.
        o.stream_text(5, "Umówmy się na środę o dziesiątej.", "");
        assert_eq!(
            shown(&o),
            ("Umówmy się na środę o dziesiątej.".into(), "".into())
        );
        // A report whose committed text does not begin with the words shown (a worker defect):
        // the words on screen stay, only the words beyond them are added.
        o.stream_text(5, "Umówmy się w środę o dziesiątej. W sali B", "numer");
        assert_eq!(
            shown(&o),
            (
                "Umówmy się na środę o dziesiątej. W sali B".into(),
                "numer".into()
            )
        );
        // A shorter committed text takes nothing away.
        o.stream_text(5, "Umówmy się", "");
        assert_eq!(
            shown(&o),
            (
                "Umówmy się na środę o dziesiątej. W sali B".into(),
                "".into()
            )
        );
    }

    #[test]
    fn a_report_adds_to_the_committed_words_only_what_is_new() {
        assert_eq!(
            grown_committed("", "  Hello   world "),
            ("Hello world".into(), true)
        );
        assert_eq!(
            grown_committed("Hello world", "Hello world, how are you"),
            ("Hello world, how are you".into(), true)
        );
        // Growth glued to the last word is still only growth.
        assert_eq!(
            grown_committed("Hello world", "Hello world."),
            ("Hello world.".into(), true)
        );
        assert_eq!(
            grown_committed("Hello world", "Hello world"),
            ("Hello world".into(), true)
        );
        // Not beginning with the words shown: they stay.
        assert_eq!(
            grown_committed("Hello world", "Hallo, world and more"),
            ("Hello world and more".into(), false)
        );
        assert_eq!(
            grown_committed("Hello world", ""),
            ("Hello world".into(), false)
        );
        assert_eq!(
            grown_committed("Zażółć gęślą", "Zażółć gęśla jaźń"),
            ("Zażółć gęślą jaźń".into(), false)
        );
    }

    #[test]
    fn the_clock_wakes_the_loop_once_a_second_and_only_while_recording() {
        let t0 = Instant::now();
        let mut o = overlay();
        o.recording(1, t0, MAX, WARN);
        assert_eq!(o.next_deadline(), Some(t0 + Duration::from_secs(1)));
        o.tick(t0 + Duration::from_millis(1100));
        assert_eq!(o.next_deadline(), Some(t0 + Duration::from_secs(2)));
        o.transcribing(1, t0 + Duration::from_millis(1500));
        assert_eq!(
            o.next_deadline(),
            None,
            "transcribing: redrawn on events only"
        );
    }

    #[test]
    fn turned_off_it_shows_nothing() {
        let t0 = Instant::now();
        let mut o = Overlay::new(false, Position::Bottom, UiLang::Pl);
        o.recording(1, t0, MAX, WARN);
        assert!(o.view(t0).is_none() && o.next_deadline().is_none());
        let mut o = overlay();
        o.recording(1, t0, MAX, WARN);
        o.configure(false, Position::Top);
        assert!(o.view(t0).is_none());
        assert_eq!(Position::parse("top"), Some(Position::Top));
        assert_eq!(Position::parse("middle"), None);
        assert_eq!(Position::Bottom.name(), "bottom");
    }
}
