//! Quiet while you speak (`"pause_media": true`, off by default): media players are paused
//! while a recording runs and played again after it, so music or a video does not go into the
//! microphone and the text. What "paused" means on each OS is `platform::media`'s (MPRIS on
//! Linux; the output device muted on macOS).
//!
//! Its own thread, started at the first recording with the setting on: D-Bus and `osascript`
//! calls never block the event loop or delay the microphone's start (the coordinator only
//! sends a command, after the recorder's start). The coordinator says whether it wants quiet
//! after every input ([`App::keep_quiet`]): on at key-down, off at key-up, at a cancelled tap,
//! when the microphone fails, when the setting is turned off; [`Quiet::end`] at quit.
//!
//! - At key-down only the players playing then are paused, and remembered as ours.
//! - The resume waits [`RESUME_AFTER`] (the recorder's tail after key-up is still recording);
//!   a key-down meanwhile cancels it and the players stay paused into the next dictation.
//! - At the resume only ours that are still paused are played: one the person paused by hand
//!   before the dictation was never ours, one they resumed (or stopped) meanwhile is theirs.
//!
//! Logged: `media paused` and `media resumed` with counts (player names at debug level).

use super::App;
use crate::platform::media::{to_pause, to_resume, Media, Playback};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// After key-up, the wait before players play again: the recorder keeps 0.15–0.3 s of tail.
pub const RESUME_AFTER: Duration = Duration::from_millis(300);
/// The longest quit waits for the players to be played again.
const END_WAIT: Duration = Duration::from_secs(2);

/// What plays sound: `platform::media::Media`, or a stand-in in the tests.
pub trait Players {
    /// Every player and its state.
    fn players(&mut self) -> Result<Vec<(String, Playback)>, String>;
    /// Pauses one; `Ok(false)`: it was left as it was.
    fn pause(&mut self, player: &str) -> Result<bool, String>;
    fn play(&mut self, player: &str) -> Result<(), String>;
}

impl Players for Media {
    fn players(&mut self) -> Result<Vec<(String, Playback)>, String> {
        Media::players(self)
    }
    fn pause(&mut self, player: &str) -> Result<bool, String> {
        Media::pause(self, player)
    }
    fn play(&mut self, player: &str) -> Result<(), String> {
        Media::play(self, player)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Command {
    Quiet,
    Resume,
    End,
}

/// The coordinator's end of the quiet thread.
#[derive(Default)]
pub struct Quiet {
    /// Quiet asked for now.
    on: bool,
    sender: Option<Sender<Command>>,
    thread: Option<JoinHandle<()>>,
}

impl Quiet {
    /// Asks for quiet (`true`) or for the players back; nothing when that is already so.
    pub fn follow(&mut self, on: bool) {
        if on == self.on {
            return;
        }
        self.on = on;
        if on && self.sender.is_none() {
            let (sender, commands) = channel();
            match std::thread::Builder::new()
                .name("quiet".into())
                .spawn(move || run(Media::default(), &commands, RESUME_AFTER))
            {
                Ok(thread) => {
                    self.sender = Some(sender);
                    self.thread = Some(thread);
                }
                Err(e) => tracing::warn!("media not paused: no thread: {e}"),
            }
        }
        if let Some(sender) = &self.sender {
            let _ = sender.send(if on { Command::Quiet } else { Command::Resume });
        }
    }

    /// At quit: the players we paused are played again now; waits for that up to [`END_WAIT`].
    pub fn end(&mut self) {
        let Some(sender) = self.sender.take() else {
            return;
        };
        let _ = sender.send(Command::End);
        if let Some(thread) = self.thread.take() {
            let started = Instant::now();
            while !thread.is_finished() && started.elapsed() < END_WAIT {
                std::thread::sleep(Duration::from_millis(10));
            }
        }
    }
}

impl App {
    /// Quiet while a recording runs, if the settings ask for it (after every input).
    pub(super) fn keep_quiet(&mut self) {
        let recording = self.dictation.activity() == super::Activity::Recording;
        self.quiet.follow(self.settings.pause_media && recording);
    }
}

/// The quiet thread: players paused at `Quiet`, played again `resume_after` a `Resume` (unless
/// a `Quiet` comes first), and at `End` or when the app is gone.
fn run(mut players: impl Players, commands: &Receiver<Command>, resume_after: Duration) {
    let mut ours: Vec<String> = Vec::new();
    let mut resume_at: Option<Instant> = None;
    loop {
        let command = match resume_at {
            Some(at) => match commands.recv_timeout(at.saturating_duration_since(Instant::now())) {
                Ok(command) => Some(command),
                Err(RecvTimeoutError::Timeout) => None,
                Err(RecvTimeoutError::Disconnected) => Some(Command::End),
            },
            None => Some(commands.recv().unwrap_or(Command::End)),
        };
        match command {
            Some(Command::Quiet) => {
                resume_at = None;
                pause(&mut players, &mut ours);
            }
            Some(Command::Resume) => resume_at = Some(Instant::now() + resume_after),
            None => {
                resume_at = None;
                resume(&mut players, &mut ours);
            }
            Some(Command::End) => {
                resume(&mut players, &mut ours);
                return;
            }
        }
    }
}

fn pause(players: &mut impl Players, ours: &mut Vec<String>) {
    let started = Instant::now();
    let all = match players.players() {
        Ok(all) => all,
        Err(e) => return tracing::warn!("media not paused: {e}"),
    };
    let mut paused = 0;
    for player in to_pause(&all, ours) {
        match players.pause(&player) {
            Ok(true) => {
                tracing::debug!(player, "paused");
                ours.push(player);
                paused += 1;
            }
            Ok(false) => tracing::debug!(player, "left as it was"),
            Err(e) => tracing::warn!("media not paused: {e}"),
        }
    }
    tracing::info!(
        count = paused,
        players = all.len(),
        ms = started.elapsed().as_millis() as u64,
        "media paused"
    );
}

fn resume(players: &mut impl Players, ours: &mut Vec<String>) {
    if ours.is_empty() {
        return;
    }
    let started = Instant::now();
    let paused = std::mem::take(ours);
    let all = match players.players() {
        Ok(all) => all,
        Err(e) => return tracing::warn!("media not resumed: {e}"),
    };
    let mut resumed = 0;
    for player in to_resume(&paused, &all) {
        match players.play(&player) {
            Ok(()) => {
                tracing::debug!(player, "played again");
                resumed += 1;
            }
            Err(e) => tracing::warn!("media not resumed: {e}"),
        }
    }
    tracing::info!(
        count = resumed,
        left_alone = paused.len() - resumed,
        ms = started.elapsed().as_millis() as u64,
        "media resumed"
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    /// Players in memory; every call is recorded as "pause a", "play b".
    #[derive(Clone, Default)]
    struct Fake {
        state: Arc<Mutex<Vec<(String, Playback)>>>,
        calls: Arc<Mutex<Vec<String>>>,
    }

    impl Fake {
        fn with(players: &[(&str, Playback)]) -> Fake {
            let fake = Fake::default();
            *fake.state.lock().unwrap() =
                players.iter().map(|(n, s)| (n.to_string(), *s)).collect();
            fake
        }
        fn set(&self, player: &str, to: Playback) {
            for (name, state) in self.state.lock().unwrap().iter_mut() {
                if name == player {
                    *state = to;
                }
            }
        }
        fn state(&self, player: &str) -> Playback {
            let state = self.state.lock().unwrap();
            state.iter().find(|(n, _)| n == player).unwrap().1
        }
        fn calls(&self) -> Vec<String> {
            self.calls.lock().unwrap().clone()
        }
    }

    impl Players for Fake {
        fn players(&mut self) -> Result<Vec<(String, Playback)>, String> {
            Ok(self.state.lock().unwrap().clone())
        }
        fn pause(&mut self, player: &str) -> Result<bool, String> {
            self.calls.lock().unwrap().push(format!("pause {player}"));
            self.set(player, Playback::Paused);
            Ok(true)
        }
        fn play(&mut self, player: &str) -> Result<(), String> {
            self.calls.lock().unwrap().push(format!("play {player}"));
            self.set(player, Playback::Playing);
            Ok(())
        }
    }

    fn settle() {
        std::thread::sleep(Duration::from_millis(150));
    }

    #[test]
    fn playing_ones_are_paused_and_played_again_and_a_hand_paused_one_stays_paused() {
        let fake = Fake::with(&[("music", Playback::Playing), ("podcast", Playback::Paused)]);
        let (send, commands) = channel();
        let players = fake.clone();
        let thread = std::thread::spawn(move || run(players, &commands, Duration::from_millis(50)));
        send.send(Command::Quiet).unwrap();
        settle();
        assert_eq!(fake.state("music"), Playback::Paused);
        send.send(Command::Resume).unwrap();
        settle();
        assert_eq!(fake.state("music"), Playback::Playing);
        assert_eq!(fake.state("podcast"), Playback::Paused);
        assert_eq!(fake.calls(), ["pause music", "play music"]);
        drop(send);
        thread.join().unwrap();
    }

    #[test]
    fn one_the_person_resumed_meanwhile_is_left_alone() {
        let fake = Fake::with(&[("music", Playback::Playing)]);
        let (send, commands) = channel();
        let players = fake.clone();
        let thread = std::thread::spawn(move || run(players, &commands, Duration::from_millis(50)));
        send.send(Command::Quiet).unwrap();
        settle();
        fake.set("music", Playback::Playing); // by hand, during the dictation
        send.send(Command::Resume).unwrap();
        settle();
        assert_eq!(fake.calls(), ["pause music"]);
        send.send(Command::End).unwrap();
        thread.join().unwrap();
    }

    #[test]
    fn a_key_down_before_the_resume_keeps_them_paused_and_the_end_plays_them() {
        let fake = Fake::with(&[("music", Playback::Playing), ("video", Playback::Paused)]);
        let (send, commands) = channel();
        let players = fake.clone();
        let thread = std::thread::spawn(move || run(players, &commands, Duration::from_secs(5)));
        send.send(Command::Quiet).unwrap();
        send.send(Command::Resume).unwrap();
        // The next dictation, within the wait; meanwhile the video was started.
        fake.set("video", Playback::Playing);
        send.send(Command::Quiet).unwrap();
        settle();
        assert_eq!(fake.calls(), ["pause music", "pause video"]);
        // Quit in the middle of it: both played again at once, without the wait.
        send.send(Command::End).unwrap();
        thread.join().unwrap();
        assert_eq!(
            fake.calls(),
            ["pause music", "pause video", "play music", "play video"]
        );
    }

    #[test]
    fn nothing_is_asked_of_the_players_while_nothing_is_ours() {
        let fake = Fake::with(&[("podcast", Playback::Paused)]);
        let (send, commands) = channel();
        let players = fake.clone();
        let thread = std::thread::spawn(move || run(players, &commands, Duration::from_millis(10)));
        send.send(Command::Quiet).unwrap();
        send.send(Command::Resume).unwrap();
        settle();
        drop(send);
        thread.join().unwrap();
        assert!(fake.calls().is_empty());
    }

    #[test]
    fn quiet_sends_only_changes_and_starts_no_thread_while_off() {
        let mut quiet = Quiet::default();
        quiet.follow(false);
        assert!(quiet.sender.is_none() && quiet.thread.is_none());
        quiet.end();
    }
}
