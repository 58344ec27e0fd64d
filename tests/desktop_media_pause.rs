//! Quiet while you speak (`"pause_media": true`) on the virtual desktop: the real app, two
//! media players on the desktop's session bus (small MPRIS players this test serves, see
//! [`Player`]: `org.mpris.MediaPlayer2.Player` with Play, Pause, PlayPause, Stop and
//! PlaybackStatus, every call recorded), one app start, copy mode:
//!
//! (1) a dictation with "music" playing and "podcast" paused by hand: music is paused at
//!     key-down and played again after key-up; podcast is never touched (no call at all);
//!     prints key-down → Pause and key-up → Play;
//! (2) a dictation during which the person starts music again by hand: the app does not send
//!     it Play (it is theirs now);
//! (3) SIGKILL of the app while the hotkey is held (music paused by it): the player still
//!     works — a Play (as `playerctl play` would send it) resumes it — and PulseAudio's default
//!     sink is not muted (the app never mutes on Linux).
//!
//! Needs the desktop tools (`scripts/setup.sh --test`) and the `base` model; run as
//! `flock /tmp/desktop.lock cargo test --release --test desktop_media_pause -- --nocapture`.
//! Logs in `target/desktop-media-pause/rig/logs/`. About 30 s.

// Linux only: an X11 desktop (Xvfb, xdotool, PulseAudio, D-Bus); on macOS this file is empty.
#![cfg(target_os = "linux")]

mod app_rig;
mod rig;

use app_rig::{clip, fresh_desktop, playing_time, start_app, wait_ready, HOTKEY};
use rig::run_ok;
use std::fs;
use std::path::Path;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

const MUSIC: &str = "org.mpris.MediaPlayer2.quiet_test_music";
const PODCAST: &str = "org.mpris.MediaPlayer2.quiet_test_podcast";
const PATH: &str = "/org/mpris/MediaPlayer2";
const PLAYER_IFACE: &str = "org.mpris.MediaPlayer2.Player";
/// Spoken while the hotkey is held (3.7 s).
const CLIP: &str = "en_espeak.wav";
/// How long the app may take to pause or resume a player before the test fails.
const WITHIN: Duration = Duration::from_secs(5);

/// A media player as MPRIS shows it: its status, and the calls it got with their time.
#[derive(Default)]
struct Player {
    status: Mutex<String>,
    calls: Mutex<Vec<(Instant, String)>>,
}

impl Player {
    fn status(&self) -> String {
        self.status.lock().unwrap().clone()
    }
    /// By hand, as the person would in the player's window.
    fn set(&self, status: &str) {
        *self.status.lock().unwrap() = status.to_string();
    }
    fn calls(&self) -> Vec<String> {
        let calls = self.calls.lock().unwrap();
        calls.iter().map(|(_, c)| c.clone()).collect()
    }
    /// When the first `method` call came after `since`.
    fn call_after(&self, method: &str, since: Instant) -> Option<Instant> {
        let calls = self.calls.lock().unwrap();
        calls
            .iter()
            .find(|(at, c)| c == method && *at >= since)
            .map(|(at, _)| *at)
    }
    /// Waits until the status is `status`.
    fn wait_for(&self, status: &str, timeout: Duration) -> Result<(), String> {
        let deadline = Instant::now() + timeout;
        while self.status() != status {
            if Instant::now() >= deadline {
                return Err(format!(
                    "still {} after {} s (calls: {:?})",
                    self.status(),
                    timeout.as_secs(),
                    self.calls()
                ));
            }
            thread::sleep(Duration::from_millis(10));
        }
        Ok(())
    }
}

/// Serves `player` as `name` on the bus at `address` from a thread of its own, until the test
/// ends; returns once the name is owned.
fn serve(address: &str, name: &'static str, status: &str) -> Arc<Player> {
    let player = Arc::new(Player::default());
    player.set(status);
    let (ready, is_ready) = std::sync::mpsc::channel();
    let address = address.to_string();
    let served = player.clone();
    thread::spawn(move || {
        let result: zbus::Result<()> = zbus::block_on(async move {
            let conn = zbus::connection::Builder::address(address.as_str())
                .build()
                .await?;
            conn.request_name(name).await?;
            let _ = ready.send(());
            let mut stream = zbus::MessageStream::from(&conn);
            loop {
                let next = std::future::poll_fn(|cx| {
                    futures_core::Stream::poll_next(Pin::new(&mut stream), cx)
                })
                .await;
                let Some(Ok(message)) = next else {
                    return Ok(());
                };
                answer(&conn, &message, &served).await?;
            }
        });
        if let Err(e) = result {
            eprintln!("player {name}: {e}");
        }
    });
    is_ready
        .recv_timeout(Duration::from_secs(10))
        .unwrap_or_else(|e| panic!("player {name} did not start: {e}"));
    player
}

/// One D-Bus message to the player: MPRIS's Player methods and its PlaybackStatus property.
async fn answer(
    conn: &zbus::Connection,
    message: &zbus::Message,
    player: &Player,
) -> zbus::Result<()> {
    let header = message.header();
    if header.message_type() != zbus::message::Type::MethodCall {
        return Ok(());
    }
    let member = header
        .member()
        .map(|m| m.as_str().to_string())
        .unwrap_or_default();
    let interface = header
        .interface()
        .map(|i| i.as_str().to_string())
        .unwrap_or_default();
    match (interface.as_str(), member.as_str()) {
        ("org.freedesktop.DBus.Properties", "Get") => {
            let (iface, property): (String, String) = message.body().deserialize()?;
            if iface == PLAYER_IFACE && property == "PlaybackStatus" {
                let status = player.status();
                conn.reply(&header, &zbus::Variant::from(status.as_str()))
                    .await
            } else {
                conn.reply_dbus_error(
                    &header,
                    zbus::fdo::Error::UnknownProperty(format!("{iface}.{property}")),
                )
                .await
            }
        }
        ("org.freedesktop.DBus.Properties", "GetAll") => {
            let status = player.status();
            let mut all = std::collections::HashMap::new();
            all.insert("PlaybackStatus", zbus::Variant::from(status.as_str()));
            all.insert("CanPause", zbus::Variant::from(true));
            all.insert("CanPlay", zbus::Variant::from(true));
            conn.reply(&header, &all).await
        }
        (PLAYER_IFACE, method @ ("Play" | "Pause" | "PlayPause" | "Stop")) => {
            player
                .calls
                .lock()
                .unwrap()
                .push((Instant::now(), method.to_string()));
            let now = player.status();
            let next = match method {
                "Play" => "Playing",
                "Pause" => "Paused",
                "Stop" => "Stopped",
                _ if now == "Playing" => "Paused",
                _ => "Playing",
            };
            player.set(next);
            conn.reply(&header, &()).await
        }
        _ => {
            conn.reply_dbus_error(
                &header,
                zbus::fdo::Error::UnknownMethod(format!("{interface}.{member}")),
            )
            .await
        }
    }
}

fn settings(state: &Path) {
    fs::create_dir_all(state).unwrap();
    let settings = serde_json::json!({
        "hotkey": HOTKEY,
        "hotkey_mode": "hold",
        "output": "copy",
        "language": "en",
        "model": "base",
        "pause_media": true,
    });
    fs::write(
        state.join("settings.json"),
        serde_json::to_string_pretty(&settings).unwrap(),
    )
    .unwrap();
}

fn ms(d: Duration) -> u128 {
    d.as_millis()
}

#[test]
fn media_is_paused_while_the_hotkey_is_held_and_resumed_after() {
    let (desktop, _out, state) = fresh_desktop("desktop-media-pause");
    settings(&state);
    let bus = desktop
        .env()
        .into_iter()
        .find(|(k, _)| k == "DBUS_SESSION_BUS_ADDRESS")
        .map(|(_, v)| v)
        .expect("the desktop's bus");
    let music = serve(&bus, MUSIC, "Playing");
    let podcast = serve(&bus, PODCAST, "Paused");
    let mut app = start_app(&desktop, &state, &[("WHISPER_DICTATION_UI_LANG", "en")]);
    wait_ready(&mut app);

    // (1) Music paused at key-down, played again after key-up; the podcast left paused.
    let wav = clip(CLIP);
    let mut playback = desktop.play(&wav).unwrap_or_else(|e| panic!("{e}"));
    let key_down = Instant::now();
    desktop.key_down(HOTKEY).unwrap_or_else(|e| panic!("{e}"));
    let paused = music.wait_for("Paused", WITHIN);
    let played = playback.wait(playing_time(&wav) + Duration::from_secs(30));
    desktop.key_up(HOTKEY).unwrap_or_else(|e| panic!("{e}"));
    let key_up = Instant::now();
    paused.unwrap_or_else(|e| panic!("(1) music not paused at key-down: {e}"));
    played.unwrap_or_else(|e| panic!("{e}"));
    music
        .wait_for("Playing", WITHIN)
        .unwrap_or_else(|e| panic!("(1) music not resumed after key-up: {e}"));
    let pause_at = music.call_after("Pause", key_down).expect("a Pause call");
    let play_at = music.call_after("Play", key_up).expect("a Play call");
    app.wait_for_log("dictation ", app_rig::TRANSCRIBE_TIMEOUT)
        .unwrap_or_else(|e| panic!("{e}"));
    println!(
        "(1) key-down → music's Pause {} ms; key-up → its Play {} ms (the app waits 300 ms for \
         the recording's tail); music's calls {:?}, podcast's {:?}",
        ms(pause_at - key_down),
        ms(play_at - key_up),
        music.calls(),
        podcast.calls()
    );
    assert_eq!(music.calls(), ["Pause", "Play"]);
    assert!(
        podcast.calls().is_empty() && podcast.status() == "Paused",
        "(1) the podcast paused by hand was touched: {:?}, now {}",
        podcast.calls(),
        podcast.status()
    );
    for line in ["media paused", "media resumed"] {
        let logged = app
            .log()
            .lines()
            .find(|l| l.contains(line))
            .unwrap_or_else(|| panic!("no {line:?} in the log"))
            .to_string();
        assert!(logged.contains("count=1"), "{logged}");
        println!("    {}", logged.trim());
    }

    // (2) Started again by hand during the dictation: the app leaves it alone.
    desktop.key_down(HOTKEY).unwrap_or_else(|e| panic!("{e}"));
    let paused = music.wait_for("Paused", WITHIN);
    music.set("Playing");
    thread::sleep(Duration::from_millis(700));
    desktop.key_up(HOTKEY).unwrap_or_else(|e| panic!("{e}"));
    paused.unwrap_or_else(|e| panic!("(2) music not paused at key-down: {e}"));
    let deadline = Instant::now() + WITHIN;
    while app.log().matches("media resumed").count() < 2 {
        assert!(Instant::now() < deadline, "(2) no second `media resumed`");
        thread::sleep(Duration::from_millis(50));
    }
    thread::sleep(Duration::from_millis(300));
    assert_eq!(
        music.calls(),
        ["Pause", "Play", "Pause"],
        "(2) the app sent Play to a player the person had started again"
    );
    assert_eq!(music.status(), "Playing");
    println!("(2) music started by hand during the dictation: no Play sent, still playing");

    // (3) SIGKILL while the hotkey is held and the music paused by the app.
    let mut playback = desktop.play(&wav).unwrap_or_else(|e| panic!("{e}"));
    desktop.key_down(HOTKEY).unwrap_or_else(|e| panic!("{e}"));
    let paused = music.wait_for("Paused", WITHIN);
    let recording = app.wait_for_log("recording started", WITHIN);
    thread::sleep(Duration::from_millis(500));
    let killed = app.kill();
    desktop.key_up(HOTKEY).unwrap_or_else(|e| panic!("{e}"));
    let _ = playback.wait(playing_time(&wav) + Duration::from_secs(30));
    paused.unwrap_or_else(|e| panic!("(3) music not paused at key-down: {e}"));
    recording.unwrap_or_else(|e| panic!("(3) {e}"));
    println!("(3) the app SIGKILLed during a dictation: {killed:?}");
    thread::sleep(Duration::from_millis(1000));
    assert_eq!(
        music.status(),
        "Paused",
        "(3) the music after the app's death (Linux leaves it paused)"
    );
    // The player works: a Play from anyone (here dbus-send, as playerctl would) resumes it.
    let mut play = desktop.command("dbus-send");
    play.args([
        "--session",
        "--print-reply",
        &format!("--dest={MUSIC}"),
        PATH,
        &format!("{PLAYER_IFACE}.Play"),
    ]);
    run_ok(play, "dbus-send Play", Duration::from_secs(5)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(music.status(), "Playing", "(3) the player did not resume");
    let mut mute = desktop.command("pactl");
    mute.args(["get-sink-mute", "@DEFAULT_SINK@"]);
    let mute = run_ok(mute, "pactl get-sink-mute", Duration::from_secs(5))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        mute.trim(),
        "Mute: no",
        "(3) the default sink is muted after the app's death"
    );
    println!(
        "    music resumed by a Play after the kill (now {}); default sink: {}",
        music.status(),
        mute.trim()
    );
}
