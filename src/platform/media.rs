//! Quiet while you speak, the OS side: what plays sound, made quiet at key-down and given back
//! after (`app::quiet` decides when; `pause_media` in the settings turns it on).
//!
//! - Linux: the media players on the session bus that speak MPRIS (`org.mpris.MediaPlayer2.*`:
//!   music players, video players, browsers' media sessions). Those whose `PlaybackStatus` is
//!   `Playing` are sent `Pause`; after the dictation, those of them still `Paused` are sent
//!   `Play` — one the person paused by hand before is never touched, one they resumed
//!   themselves meanwhile is left alone ([`to_pause`], [`to_resume`]). Nothing is muted. If the
//!   app dies in between, the players stay paused and play again when told to.
//! - macOS: MPRIS has no counterpart there that is not a private framework (MediaRemote), so
//!   the default output device is muted instead, through AppleScript's documented Standard
//!   Additions (`set volume with output muted`), and only when it was not muted already. The
//!   mute is made and undone by one small guard process ([`GUARD_SCRIPT`]) that holds a pipe
//!   from the app: closing it — after the dictation, or the kernel closing it when the app
//!   dies, even by SIGKILL — unmutes, so a crash never leaves the Mac muted.
//!
//! Every call is blocking (D-Bus calls time out after [`CALL_TIMEOUT`]); the app makes them on
//! its own thread, never on the event loop.

use std::time::Duration;

/// The longest a player may take to answer one call.
pub const CALL_TIMEOUT: Duration = Duration::from_millis(1500);

/// A player's state as MPRIS says it (`PlaybackStatus`); on macOS the output device: `Playing`
/// when it is not muted, `Paused` when it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Playback {
    Playing,
    Paused,
    Stopped,
    /// Anything else, or no answer.
    Unknown,
}

impl Playback {
    /// MPRIS's `PlaybackStatus` value.
    pub fn parse(status: &str) -> Playback {
        match status {
            "Playing" => Playback::Playing,
            "Paused" => Playback::Paused,
            "Stopped" => Playback::Stopped,
            _ => Playback::Unknown,
        }
    }
}

/// Of the players and their state at key-down, the ones to pause: those playing that are not
/// already ours (a second key-down before the first resume).
pub fn to_pause(players: &[(String, Playback)], ours: &[String]) -> Vec<String> {
    players
        .iter()
        .filter(|(name, state)| *state == Playback::Playing && !ours.contains(name))
        .map(|(name, _)| name.clone())
        .collect()
}

/// Of the players we paused, the ones to play again: those still paused now. One the person
/// resumed or stopped meanwhile, or that is gone, is left alone.
pub fn to_resume(ours: &[String], players: &[(String, Playback)]) -> Vec<String> {
    ours.iter()
        .filter(|name| {
            players
                .iter()
                .any(|(n, state)| n == *name && *state == Playback::Paused)
        })
        .cloned()
        .collect()
}

/// The MPRIS players among the session bus's names.
pub fn mpris_players(names: &[String]) -> Vec<String> {
    names
        .iter()
        .filter(|n| n.starts_with(MPRIS_PREFIX) && n.len() > MPRIS_PREFIX.len())
        .cloned()
        .collect()
}

const MPRIS_PREFIX: &str = "org.mpris.MediaPlayer2.";

/// The macOS guard, run as `/bin/sh -c GUARD_SCRIPT sh OSASCRIPT`: mutes the output device
/// unless it is muted already (or cannot be: no volume control gives `missing value`), says on
/// its first line whether it did (`muted` / `left`), then, if it did, waits for its standard
/// input to close (the app closes it after the dictation; the kernel closes it when the app
/// dies) and unmutes. It ignores the signals a terminal or a logout sends to the app's whole
/// process group (Ctrl+C's SIGINT, SIGHUP, SIGTERM): killed with the app, it could not unmute;
/// it ends when the pipe closes. Portable shell, so Linux tests run it with a stand-in
/// `osascript`.
pub const GUARD_SCRIPT: &str = r#"trap '' INT HUP TERM
m=$("$1" -e 'if (output muted of (get volume settings)) is false then' -e 'set volume with output muted' -e 'return "muted"' -e 'end if' -e 'return "left"' 2>/dev/null)
[ "$m" = muted ] || { echo left; exit 0; }
echo muted
while read -r _; do :; done
"$1" -e 'set volume without output muted' >/dev/null 2>&1
"#;

/// What the guard's first line says (`None`: it said nothing, it failed).
pub fn guard_muted(first_line: &str) -> Option<bool> {
    match first_line.trim() {
        "muted" => Some(true),
        "left" => Some(false),
        _ => None,
    }
}

/// The media of this OS (see the module doc). Holds nothing between dictations but, on macOS,
/// the guard of a mute in force.
#[derive(Default)]
pub struct Media {
    #[cfg(target_os = "macos")]
    guard: Option<mac::Guard>,
}

impl Media {
    /// Every player and its state.
    pub fn players(&mut self) -> Result<Vec<(String, Playback)>, String> {
        #[cfg(target_os = "linux")]
        {
            linux::players()
        }
        #[cfg(target_os = "macos")]
        {
            // Muted by our guard: "paused" until the guard ends.
            let state = if self.guard.is_some() {
                Playback::Paused
            } else {
                Playback::Playing
            };
            Ok(vec![(mac::OUTPUT.to_string(), state)])
        }
        #[cfg(not(any(target_os = "linux", target_os = "macos")))]
        {
            Ok(Vec::new())
        }
    }

    /// Pauses `player` (macOS: mutes the output device unless already muted; `Ok(false)` when
    /// it was).
    pub fn pause(&mut self, player: &str) -> Result<bool, String> {
        #[cfg(target_os = "linux")]
        {
            linux::call(player, "Pause").map(|()| true)
        }
        #[cfg(target_os = "macos")]
        {
            let _ = player;
            if self.guard.is_some() {
                return Ok(true);
            }
            let guard = mac::Guard::mute()?;
            let muted = guard.is_some();
            self.guard = guard;
            Ok(muted)
        }
        #[cfg(not(any(target_os = "linux", target_os = "macos")))]
        {
            let _ = player;
            Ok(false)
        }
    }

    /// Plays `player` again (macOS: ends the guard, which unmutes).
    pub fn play(&mut self, player: &str) -> Result<(), String> {
        #[cfg(target_os = "linux")]
        {
            linux::call(player, "Play")
        }
        #[cfg(target_os = "macos")]
        {
            let _ = player;
            match self.guard.take() {
                Some(guard) => guard.unmute(),
                None => Ok(()),
            }
        }
        #[cfg(not(any(target_os = "linux", target_os = "macos")))]
        {
            let _ = player;
            Ok(())
        }
    }
}

#[cfg(target_os = "macos")]
mod mac {
    use super::{guard_muted, GUARD_SCRIPT};
    use std::io::{BufRead, BufReader};
    use std::process::{Child, Command, Stdio};

    /// The name the output device goes by among the "players".
    pub const OUTPUT: &str = "output";

    /// The guard process of a mute in force (its standard input is the app's pipe).
    pub struct Guard {
        child: Child,
    }

    impl Guard {
        /// Starts the guard; `None` when it left the output as it was (already muted, or no
        /// volume control).
        pub fn mute() -> Result<Option<Guard>, String> {
            let mut child = Command::new("/bin/sh")
                .args(["-c", GUARD_SCRIPT, "sh", "/usr/bin/osascript"])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .map_err(|e| format!("/bin/sh: {e}"))?;
            let mut line = String::new();
            let read = child
                .stdout
                .take()
                .map(|out| BufReader::new(out).read_line(&mut line));
            match guard_muted(&line) {
                Some(true) => Ok(Some(Guard { child })),
                Some(false) => {
                    let _ = child.wait();
                    Ok(None)
                }
                None => {
                    // Whatever it did, closing its input makes it undo it.
                    drop(child.stdin.take());
                    let _ = child.wait();
                    Err(format!("the mute guard said {line:?} ({read:?})"))
                }
            }
        }

        /// Closes the pipe: the guard unmutes and ends.
        pub fn unmute(mut self) -> Result<(), String> {
            drop(self.child.stdin.take());
            match self.child.wait() {
                Ok(status) if status.success() => Ok(()),
                Ok(status) => Err(format!("the unmute ended with {status}")),
                Err(e) => Err(e.to_string()),
            }
        }
    }
}

#[cfg(target_os = "linux")]
mod linux {
    use super::{mpris_players, Playback, CALL_TIMEOUT};
    use zbus::{Connection, OwnedVariant};

    const PATH: &str = "/org/mpris/MediaPlayer2";
    const PLAYER: &str = "org.mpris.MediaPlayer2.Player";

    async fn connect() -> Result<Connection, String> {
        zbus::connection::Builder::session()
            .method_timeout(CALL_TIMEOUT)
            .build()
            .await
            .map_err(|e| format!("session bus: {e}"))
    }

    pub fn players() -> Result<Vec<(String, Playback)>, String> {
        zbus::block_on(async {
            let conn = connect().await?;
            let reply = conn
                .call_method(
                    Some("org.freedesktop.DBus"),
                    "/org/freedesktop/DBus",
                    Some("org.freedesktop.DBus"),
                    "ListNames",
                    &(),
                )
                .await
                .map_err(|e| format!("ListNames: {e}"))?;
            let names: Vec<String> = reply
                .body()
                .deserialize()
                .map_err(|e| format!("ListNames: {e}"))?;
            let mut players = Vec::new();
            for name in mpris_players(&names) {
                let state = match conn
                    .call_method(
                        Some(name.as_str()),
                        PATH,
                        Some("org.freedesktop.DBus.Properties"),
                        "Get",
                        &(PLAYER, "PlaybackStatus"),
                    )
                    .await
                {
                    Ok(reply) => reply
                        .body()
                        .deserialize::<OwnedVariant>()
                        .ok()
                        .and_then(|v| String::try_from(&*v).ok())
                        .map_or(Playback::Unknown, |s| Playback::parse(&s)),
                    Err(e) => {
                        tracing::debug!(name, "PlaybackStatus: {e}");
                        Playback::Unknown
                    }
                };
                players.push((name, state));
            }
            Ok(players)
        })
    }

    pub fn call(player: &str, method: &str) -> Result<(), String> {
        zbus::block_on(async {
            let conn = connect().await?;
            conn.call_method(Some(player), PATH, Some(PLAYER), method, &())
                .await
                .map(drop)
                .map_err(|e| format!("{player} {method}: {e}"))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};

    fn list(players: &[(&str, Playback)]) -> Vec<(String, Playback)> {
        players.iter().map(|(n, s)| (n.to_string(), *s)).collect()
    }

    fn names(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn only_the_players_playing_at_key_down_are_paused() {
        let at_key_down = list(&[
            ("org.mpris.MediaPlayer2.vlc", Playback::Playing),
            ("org.mpris.MediaPlayer2.spotify", Playback::Paused),
            ("org.mpris.MediaPlayer2.mpv", Playback::Stopped),
            ("org.mpris.MediaPlayer2.odd", Playback::Unknown),
            (
                "org.mpris.MediaPlayer2.chromium.instance7",
                Playback::Playing,
            ),
        ]);
        assert_eq!(
            to_pause(&at_key_down, &[]),
            names(&[
                "org.mpris.MediaPlayer2.vlc",
                "org.mpris.MediaPlayer2.chromium.instance7"
            ])
        );
        // A second key-down before the resume: those already ours are not paused twice.
        assert_eq!(
            to_pause(&at_key_down, &names(&["org.mpris.MediaPlayer2.vlc"])),
            names(&["org.mpris.MediaPlayer2.chromium.instance7"])
        );
    }

    #[test]
    fn only_ours_still_paused_are_played_again() {
        let ours = names(&["a", "b", "c", "d"]);
        let now = list(&[
            // Still as we left it.
            ("a", Playback::Paused),
            // The person resumed it themselves, or stopped it: left alone.
            ("b", Playback::Playing),
            ("c", Playback::Stopped),
            // "d" is gone; "e" was paused by hand before the dictation, never ours.
            ("e", Playback::Paused),
        ]);
        assert_eq!(to_resume(&ours, &now), names(&["a"]));
        assert!(to_resume(&[], &now).is_empty());
    }

    #[test]
    fn players_are_the_mpris_names_and_their_status_is_mpris_words() {
        let bus = names(&[
            "org.freedesktop.DBus",
            ":1.42",
            "org.mpris.MediaPlayer2.vlc",
            "org.mpris.MediaPlayer2.",
            "org.mpris.MediaPlayer2.firefox.instance_1_12",
            "org.freedesktop.Notifications",
        ]);
        assert_eq!(
            mpris_players(&bus),
            names(&[
                "org.mpris.MediaPlayer2.vlc",
                "org.mpris.MediaPlayer2.firefox.instance_1_12"
            ])
        );
        assert_eq!(Playback::parse("Playing"), Playback::Playing);
        assert_eq!(Playback::parse("Paused"), Playback::Paused);
        assert_eq!(Playback::parse("Stopped"), Playback::Stopped);
        assert_eq!(Playback::parse("playing"), Playback::Unknown);
    }

    /// A stand-in `osascript` keeping the mute in a file: `get` answers as AppleScript would,
    /// `with`/`without output muted` set it; every call is appended to `calls`.
    fn fake_osascript(dir: &std::path::Path, muted: &str) -> std::path::PathBuf {
        let state = dir.join("muted");
        std::fs::write(&state, muted).unwrap();
        let script = dir.join("osascript");
        std::fs::write(
            &script,
            format!(
                r#"#!/bin/sh
all="$*"
echo "$all" >> '{calls}'
case "$all" in
  *"get volume settings"*)
    m=$(cat '{state}')
    if [ "$m" = false ]; then echo true > '{state}'; echo muted; else echo left; fi ;;
  *"without output muted"*) echo false > '{state}' ;;
esac
"#,
                calls = dir.join("calls").display(),
                state = state.display()
            ),
        )
        .unwrap();
        crate::platform::set_mode(&script, 0o755).unwrap();
        script
    }

    fn start_guard(osascript: &std::path::Path) -> (std::process::Child, String) {
        let mut child = Command::new("/bin/sh")
            .args(["-c", GUARD_SCRIPT, "sh"])
            .arg(osascript)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        (child, line)
    }

    fn muted(dir: &std::path::Path) -> String {
        std::fs::read_to_string(dir.join("muted"))
            .unwrap()
            .trim()
            .to_string()
    }

    #[test]
    fn the_mac_guard_mutes_and_unmutes_when_its_pipe_closes_however_the_app_ends() {
        let dir = tempfile::tempdir().unwrap();
        let osascript = fake_osascript(dir.path(), "false");
        // The app's normal end: it closes the pipe after the dictation.
        let (mut guard, line) = start_guard(&osascript);
        assert_eq!(guard_muted(&line), Some(true), "{line:?}");
        assert_eq!(muted(dir.path()), "true");
        // A line on the pipe is not the end (only its closing is).
        guard.stdin.as_mut().unwrap().write_all(b"x\n").unwrap();
        std::thread::sleep(std::time::Duration::from_millis(100));
        assert_eq!(muted(dir.path()), "true");
        drop(guard.stdin.take());
        assert!(guard.wait().unwrap().success());
        assert_eq!(muted(dir.path()), "false");

        // The app killed by SIGKILL: a stand-in process holds the pipe's only writer and is
        // killed; the kernel closes its end, which is all the guard sees.
        let mut app = Command::new("sleep")
            .arg("100")
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let pipe = Stdio::from(app.stdout.take().unwrap());
        let mut guard = Command::new("/bin/sh")
            .args(["-c", GUARD_SCRIPT, "sh"])
            .arg(&osascript)
            .stdin(pipe)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(guard.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        assert_eq!(guard_muted(&line), Some(true), "{line:?}");
        assert_eq!(muted(dir.path()), "true");
        // Ctrl+C in the app's terminal reaches its whole process group, the guard too: it
        // stays, still holding the mute until the pipe closes.
        // SAFETY: kill(2) on the pid of our own child, not yet waited for.
        unsafe { libc::kill(guard.id() as i32, libc::SIGINT) };
        std::thread::sleep(std::time::Duration::from_millis(100));
        assert!(
            guard.try_wait().unwrap().is_none(),
            "SIGINT ended the guard"
        );
        assert_eq!(muted(dir.path()), "true");
        app.kill().unwrap(); // SIGKILL
        app.wait().unwrap();
        assert!(guard.wait().unwrap().success());
        assert_eq!(muted(dir.path()), "false");
    }

    #[test]
    fn the_mac_guard_leaves_an_output_muted_by_the_person_alone() {
        let dir = tempfile::tempdir().unwrap();
        let osascript = fake_osascript(dir.path(), "true");
        let (mut guard, line) = start_guard(&osascript);
        assert_eq!(guard_muted(&line), Some(false), "{line:?}");
        assert!(guard.wait().unwrap().success());
        assert_eq!(muted(dir.path()), "true");
        let calls = std::fs::read_to_string(dir.path().join("calls")).unwrap();
        assert!(!calls.contains("without"), "{calls}");
        // No volume control (`missing value`) is left alone too.
        let dir = tempfile::tempdir().unwrap();
        let osascript = fake_osascript(dir.path(), "missing value");
        let (mut guard, line) = start_guard(&osascript);
        assert_eq!(guard_muted(&line), Some(false));
        guard.wait().unwrap();
        assert_eq!(guard_muted(""), None);
    }
}
