//! Nothing is lost, on a real (virtual) X11 desktop: the real app is killed with SIGKILL at
//! four moments of a dictation — while the person speaks, right after key-up, during the
//! transcription of the audio so far (the key still held, at a pause), and during the
//! transcription of the whole recording — and the simulated M1 GPU aborts the process in the
//! middle of an encode, as MPS does. After each, the next start recovers the recording: its
//! text is on the clipboard (and not pasted into the focused text box), a notification says a
//! dictation was recovered and when it was recorded, and after the abort the status and a
//! notification say why the CPU is used now. Also: a recording whose transcription already
//! stopped the app twice is not retried but kept, and speech that gives no text (reversed
//! speech, in Polish) is said, with a larger model named.
//!
//! Needs what `tests/desktop.rs` needs (`scripts/setup.sh --test`, the `base` model). Logs
//! and screenshots are left in `target/desktop-recovery/`.

// Linux only: an X11 desktop (Xvfb, xdotool, PulseAudio) and /proc; on macOS this file is empty.
#![cfg(target_os = "linux")]

mod app_rig;
mod rig;

use app_rig::{
    clip, clip_text, concatenate, fresh_desktop, ready_on_cpu, reversed, start_app,
    wait_for_clipboard, wait_ready, write_settings, HOTKEY, READY_TIMEOUT, TRANSCRIBE_TIMEOUT,
};
use rig::{AppProcess, Desktop, TextBox};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The journal is written at least this often while recording (the bound).
const FLUSH_BOUND: Duration = Duration::from_millis(500);
const RECOVERED_NOTICE: &str = "Dictation recovered";
const CRASHED_M1_NOTICE: &str =
    "Last time the app closed unexpectedly while using the M1 GPU. Using the CPU this time.";
const SIMULATED_M1_ABORTING: &str = "mps,name=M1,abort=encode@2";

/// The recordings folder's journals (unfinished recordings).
fn journals(state: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = fs::read_dir(state.join("recordings"))
        .map(|dir| {
            dir.flatten()
                .map(|e| e.path())
                .filter(|p| p.to_string_lossy().ends_with(".journal.wav"))
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    found
}

/// Seconds of 16-bit mono audio in a journal, from its length on disk (what a crash left).
fn journal_seconds(path: &Path) -> f64 {
    let bytes = fs::metadata(path).map_or(0, |m| m.len());
    let rate = hound::WavReader::open(path).map_or(16_000, |r| r.spec().sample_rate);
    bytes.saturating_sub(44) as f64 / 2.0 / f64::from(rate)
}

/// Kills the app with SIGKILL, lets the hotkey go, and checks one journal was left holding
/// at least `at_least` of audio; returns its path.
fn kill_and_find_journal(
    desktop: &Desktop,
    app: &mut AppProcess,
    state: &Path,
    moment: &str,
    at_least: Duration,
) -> PathBuf {
    let status = app.kill().unwrap_or_else(|e| panic!("{e}"));
    let _ = desktop.key_up(HOTKEY);
    let left = journals(state);
    assert_eq!(
        left.len(),
        1,
        "killed {moment} ({status}): one unfinished recording expected, found {left:?}"
    );
    let seconds = journal_seconds(&left[0]);
    println!(
        "killed {moment}: {} holds {seconds:.2} s (at least {:.2} s expected)",
        left[0].file_name().unwrap().to_string_lossy(),
        at_least.as_secs_f64()
    );
    assert!(
        seconds + 1e-3 >= at_least.as_secs_f64(),
        "killed {moment}: the journal holds {seconds:.2} s, at least {:.2} s expected",
        at_least.as_secs_f64()
    );
    left[0].clone()
}

/// The fraction of `got`'s words that are words of `expected` (a recovered prefix of a clip
/// has few of its words but no others).
fn precision(expected: &str, got: &str) -> f64 {
    rig::word_recall(got, expected)
}

/// After a start: the recording left by the previous run is recovered — its text on the
/// clipboard and in the history, not typed into the focused `text_box`, the notification said
/// (the `n`th in this test) with the time it was recorded, and the journal gone. Returns the
/// text.
fn assert_recovered(
    desktop: &Desktop,
    app: &mut AppProcess,
    text_box: Option<TextBox<'_>>,
    expected: &str,
    must: &[&str],
    n: usize,
    journal: &Path,
) -> String {
    let line = app
        .wait_for_log("recording recovered", READY_TIMEOUT + TRANSCRIBE_TIMEOUT)
        .unwrap_or_else(|e| panic!("{e}"));
    let text = rig::log_field(&line, "text").unwrap_or_default();
    let recorded_at = rig::log_field(&line, "recorded_at").unwrap_or_default();
    println!("recovered (recorded at {recorded_at}): {text:?}");
    assert!(!text.trim().is_empty(), "{line}");
    // A recording cut mid-sentence (given no `must` words) may end in a cut word misheard:
    // "…I will be about to…" for "…about ten minutes late".
    let min_precision = if must.is_empty() { 0.6 } else { 0.8 };
    assert!(
        precision(expected, &text) >= min_precision,
        "recovered {text:?}: words that are not in {expected:?}"
    );
    let words = rig::words(&text);
    for word in must {
        assert!(
            words.iter().any(|w| w == word),
            "{word:?} missing from {text:?}"
        );
    }
    let clipboard = wait_for_clipboard(desktop, &text, Duration::from_secs(5));
    assert_eq!(
        clipboard, text,
        "the recovered text must be on the clipboard"
    );
    // …and in the history, like a dictation's: one entry for every text delivered or
    // recovered (the history's thread may log it before or after the recovery's line).
    let kept_all = |log: &str| {
        let texts =
            log.matches("recording recovered").count() + log.matches("dictation done").count();
        log.matches("history entry added").count() >= texts
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    while !kept_all(&app.log()) && Instant::now() < deadline {
        thread::sleep(Duration::from_millis(100));
    }
    assert!(
        kept_all(&app.log()),
        "the recovered text was not kept in the history:\n{}",
        rig::tail(app.log_path(), 20)
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    while count_notices(desktop, RECOVERED_NOTICE) < n && Instant::now() < deadline {
        thread::sleep(Duration::from_millis(100));
    }
    let notices = desktop.notifications().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        notices.matches(RECOVERED_NOTICE).count(),
        n,
        "one notification per recovered dictation:\n{notices}"
    );
    assert!(
        notices.contains(&format!("The dictation from {recorded_at} was interrupted")),
        "the notification says when it was recorded ({recorded_at}):\n{notices}"
    );
    assert!(
        !journal.exists(),
        "a recovered recording is finished: {}",
        journal.display()
    );
    if let Some(text_box) = text_box {
        let typed = text_box.submit().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(typed, "", "a recovered text must never be pasted");
    }
    text
}

fn count_notices(desktop: &Desktop, text: &str) -> usize {
    desktop
        .notifications()
        .map_or(0, |n| n.matches(text).count())
}

/// Starts the app (English UI unless `env` says otherwise) with a focused text box open.
fn start<'d>(
    desktop: &'d Desktop,
    state: &Path,
    language: &str,
    env: &[(&str, &str)],
    box_title: &str,
) -> (AppProcess, TextBox<'d>) {
    write_settings(state, "paste", language);
    let text_box = TextBox::open(desktop, box_title).unwrap_or_else(|e| panic!("{e}"));
    text_box.focus().unwrap_or_else(|e| panic!("{e}"));
    let mut vars = vec![("WHISPER_DICTATION_UI_LANG", "en")];
    vars.extend_from_slice(env);
    let mut app = start_app(desktop, state, &vars);
    let ready = wait_ready(&mut app);
    println!("app ready after {:.1} s", ready.as_secs_f64());
    (app, text_box)
}

/// Holds the hotkey while `wav` plays; returns once the microphone records, with the playback
/// running, the moment the app started recording, and the audio from before it (pre-roll)
/// the recording starts with.
fn hold_and_play(
    desktop: &Desktop,
    app: &mut AppProcess,
    wav: &Path,
) -> (rig::Playback, Instant, Duration) {
    let playback = desktop.play(wav).unwrap_or_else(|e| panic!("{e}"));
    desktop.key_down(HOTKEY).unwrap_or_else(|e| panic!("{e}"));
    if let Err(e) = app.wait_for_log("recording started", Duration::from_secs(5)) {
        let _ = desktop.key_up(HOTKEY);
        panic!("{e}");
    }
    let started = Instant::now();
    let microphone = app
        .wait_for_log("microphone recording", Duration::from_secs(5))
        .unwrap_or_else(|e| panic!("{e}"));
    let pre_roll_ms: u64 = rig::log_field(&microphone, "pre_roll_ms")
        .and_then(|ms| ms.parse().ok())
        .unwrap_or_else(|| panic!("no pre_roll_ms in {microphone}"));
    (playback, started, Duration::from_millis(pre_roll_ms))
}

/// Waits for the worker to start transcribing one of `parts` ("head", "whole", or "tail": what
/// a dictation streamed while spoken has left after key-up) of a recording.
fn wait_transcribing(app: &mut AppProcess, parts: &[&str]) {
    let deadline = Instant::now() + TRANSCRIBE_TIMEOUT;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = app
            .wait_for_log("transcribing", left)
            .unwrap_or_else(|e| panic!("waiting to transcribe the {parts:?}: {e}"));
        if rig::log_field(&line, "part").is_some_and(|part| parts.contains(&part.as_str())) {
            return;
        }
    }
}

/// A journal as a run that died twice while transcribing it leaves one.
fn plant_crashed_twice(state: &Path) -> PathBuf {
    let dir = state.join("recordings");
    fs::create_dir_all(&dir).unwrap();
    let millis = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis()
        - 3_600_000;
    let journal = dir.join(format!("rec-{millis:015}-999999.journal.wav"));
    // The app's journal layout: the canonical 44-byte header of 16-bit mono PCM.
    let mut reader = hound::WavReader::open(clip("en_awb.wav")).unwrap();
    let rate = reader.spec().sample_rate;
    let data: Vec<u8> = reader
        .samples::<i16>()
        .flat_map(|s| s.unwrap().to_le_bytes())
        .collect();
    let mut bytes = Vec::new();
    bytes.extend_from_slice(b"RIFF");
    bytes.extend_from_slice(&(36 + data.len() as u32).to_le_bytes());
    bytes.extend_from_slice(b"WAVEfmt ");
    bytes.extend_from_slice(&16u32.to_le_bytes());
    bytes.extend_from_slice(&[1, 0, 1, 0]);
    bytes.extend_from_slice(&rate.to_le_bytes());
    bytes.extend_from_slice(&(rate * 2).to_le_bytes());
    bytes.extend_from_slice(&[2, 0, 16, 0]);
    bytes.extend_from_slice(b"data");
    bytes.extend_from_slice(&(data.len() as u32).to_le_bytes());
    bytes.extend_from_slice(&data);
    fs::write(&journal, bytes).unwrap();
    fs::write(dir.join(format!("rec-{millis:015}-999999.attempts")), "2").unwrap();
    journal
}

fn assert_aborted(status: ExitStatus) {
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(
        status.signal(),
        Some(6),
        "the simulated M1 must abort the process (SIGABRT) as MPS does: {status}"
    );
}

#[test]
fn a_killed_app_loses_no_dictation() {
    let test_started = Instant::now();
    let (desktop, out, state) = fresh_desktop("desktop-recovery");

    // (a) Polish, the UI in Polish: a recording that stopped the app twice is kept, not
    // retried; reversed speech gives no text and that is said, with a larger model named.
    let crashed_twice = plant_crashed_twice(&state);
    let (mut app, text_box) = start(
        &desktop,
        &state,
        "pl",
        &[("WHISPER_DICTATION_UI_LANG", "pl")],
        "recovery-a",
    );
    desktop
        .wait_for_notification("Nie ponowiono dyktowania", Duration::from_secs(20))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(!crashed_twice.exists(), "kept as a finished recording");
    assert!(
        crashed_twice
            .with_extension("")
            .with_extension("wav")
            .exists(),
        "kept for Retry: {}",
        crashed_twice.display()
    );
    app.wait_for_log("not retried", Duration::from_secs(5))
        .unwrap_or_else(|e| panic!("{e}"));
    let backwards = out.join("en_kal_reversed.wav");
    reversed(&clip("en_kal.wav"), &backwards);
    let (mut playback, _, _) = hold_and_play(&desktop, &mut app, &backwards);
    playback
        .wait(Duration::from_secs(30))
        .unwrap_or_else(|e| panic!("{e}"));
    desktop.key_up(HOTKEY).unwrap_or_else(|e| panic!("{e}"));
    let empty = app
        .wait_for_log("dictation empty", TRANSCRIBE_TIMEOUT)
        .unwrap_or_else(|e| panic!("{e}"));
    println!("reversed speech: {empty}");
    desktop
        .wait_for_notification("Nic nie rozpoznano", Duration::from_secs(10))
        .unwrap_or_else(|e| panic!("{e}"));
    let notices = desktop.notifications().unwrap();
    assert!(
        notices.contains("Model small znacznie lepiej rozpoznaje polski"),
        "a larger model for Polish is named:\n{notices}"
    );
    assert!(notices.contains("Ponów ostatnie nagranie"), "{notices}");
    drop(text_box);

    // (b) Killed while speaking, 2.5 s into a clip (the UI in English from here on).
    let slt = clip_text("en_slt.wav");
    let (playback, recording, pre_roll) = hold_and_play(&desktop, &mut app, &clip("en_slt.wav"));
    thread::sleep(Duration::from_millis(2500));
    // What the microphone had delivered when the process died, all of which but the last
    // FLUSH_BOUND must be on disk.
    let spoken = pre_roll + recording.elapsed();
    let journal = kill_and_find_journal(
        &desktop,
        &mut app,
        &state,
        "while speaking",
        spoken.saturating_sub(FLUSH_BOUND),
    );
    drop(playback);
    drop(app);
    let (mut app, text_box) = start(&desktop, &state, "en", &[], "recovery-b");
    assert_recovered(&desktop, &mut app, Some(text_box), &slt, &[], 1, &journal);

    // (c) Killed right after key-up.
    let text_box = TextBox::open(&desktop, "recovery-c").unwrap_or_else(|e| panic!("{e}"));
    text_box.focus().unwrap_or_else(|e| panic!("{e}"));
    let (mut playback, _, _) = hold_and_play(&desktop, &mut app, &clip("en_kal.wav"));
    playback
        .wait(Duration::from_secs(30))
        .unwrap_or_else(|e| panic!("{e}"));
    desktop.key_up(HOTKEY).unwrap_or_else(|e| panic!("{e}"));
    app.wait_for_log("recording stopped", Duration::from_secs(10))
        .unwrap_or_else(|e| panic!("{e}"));
    let journal = kill_and_find_journal(
        &desktop,
        &mut app,
        &state,
        "right after key-up",
        Duration::from_secs(3),
    );
    drop(app);
    drop(text_box);
    let kal = clip_text("en_kal.wav");
    let (mut app, text_box) = start(&desktop, &state, "en", &[], "recovery-c2");
    assert_recovered(
        &desktop,
        &mut app,
        Some(text_box),
        &kal,
        &["dentist"],
        2,
        &journal,
    );

    // (d) Killed while the audio so far is transcribed, the key still held at a pause.
    let with_pause = out.join("kal_pause_awb.wav");
    concatenate(
        &[
            Ok(&clip("en_kal.wav")),
            Err(Duration::from_millis(2000)),
            Ok(&clip("en_awb.wav")),
        ],
        &with_pause,
    );
    let (playback, _, _) = hold_and_play(&desktop, &mut app, &with_pause);
    wait_transcribing(&mut app, &["head"]);
    let journal = kill_and_find_journal(
        &desktop,
        &mut app,
        &state,
        "during the early transcription",
        Duration::from_secs(3),
    );
    drop(playback);
    let attempts = fs::read_to_string(journal.with_extension("").with_extension("attempts"))
        .unwrap_or_default();
    assert_eq!(
        attempts, "1",
        "the interrupted transcription is counted on disk"
    );
    drop(app);
    let both = format!("{kal} {}", clip_text("en_awb.wav"));
    let (mut app, text_box) = start(&desktop, &state, "en", &[], "recovery-d");
    assert_recovered(
        &desktop,
        &mut app,
        Some(text_box),
        &both,
        &["dentist"],
        3,
        &journal,
    );

    // (e) Killed while the whole recording is transcribed: the key let go while the words go
    // on, so the audio up to key-up does not stand for the recording. The worker transcribes
    // it whole, or, when the pass at key-up had a quiet word gap to settle at, only the tail
    // after it (the streaming commit's key-up): either is the work after key-up killed here.
    let awb = clip_text("en_awb.wav");
    let (playback, _, _) = hold_and_play(&desktop, &mut app, &clip("en_awb.wav"));
    thread::sleep(Duration::from_millis(2600));
    desktop.key_up(HOTKEY).unwrap_or_else(|e| panic!("{e}"));
    wait_transcribing(&mut app, &["whole", "tail"]);
    let journal = kill_and_find_journal(
        &desktop,
        &mut app,
        &state,
        "during the whole transcription",
        Duration::from_secs(2),
    );
    drop(playback);
    drop(app);
    let (mut app, text_box) = start(&desktop, &state, "en", &[], "recovery-e");
    assert_recovered(&desktop, &mut app, Some(text_box), &awb, &[], 4, &journal);
    app.stop().unwrap_or_else(|e| panic!("{e}"));
    drop(app);

    // (f) The simulated M1 aborts the process in the middle of a dictation's encode (its
    // second: the warm-up is the first). The next start uses the CPU, says why, and recovers.
    let simulated = [("WHISPER_DICTATION_SIMULATE_GPU", SIMULATED_M1_ABORTING)];
    let (mut app, text_box) = start(&desktop, &state, "en", &simulated, "recovery-f");
    let (mut playback, _, _) = hold_and_play(&desktop, &mut app, &clip("en_kal.wav"));
    playback
        .wait(Duration::from_secs(30))
        .unwrap_or_else(|e| panic!("{e}"));
    desktop.key_up(HOTKEY).unwrap_or_else(|e| panic!("{e}"));
    let status = app
        .wait_exit(TRANSCRIBE_TIMEOUT)
        .unwrap_or_else(|e| panic!("the simulated M1 did not abort: {e}"));
    assert_aborted(status);
    // The process died holding the hotkey's grab: make sure no modifier stays down for the
    // text box of the next start.
    let _ = desktop.key_up(HOTKEY);
    let left = journals(&state);
    assert_eq!(left.len(), 1, "{left:?}");
    let journal = left[0].clone();
    println!(
        "aborted mid-encode ({status}): {} holds {:.2} s",
        journal.display(),
        journal_seconds(&journal)
    );
    drop(app);
    drop(text_box);
    let (mut app, text_box) = start(&desktop, &state, "en", &simulated, "recovery-f2");
    let ready = ready_on_cpu(&app);
    println!(
        "after the abort: {}",
        &ready[ready.find("why").unwrap_or(0)..]
    );
    // Not pasted is checked after the four kills above; here the box only holds the focus (after
    // the abort its Return was sometimes ignored: a grab the dead process held).
    drop(text_box);
    assert_recovered(&desktop, &mut app, None, &kal, &["dentist"], 5, &journal);
    desktop
        .wait_for_notification(CRASHED_M1_NOTICE, Duration::from_secs(10))
        .unwrap_or_else(|e| panic!("the reason for the CPU was not said: {e}"));
    let transcribed = app.log();
    assert!(
        transcribed
            .lines()
            .any(|l| l.contains("transcribing") && l.contains("cpu")),
        "recovered on the CPU:\n{transcribed}"
    );

    app.stop().unwrap_or_else(|e| panic!("{e}"));
    drop(app);
    let mut desktop = desktop;
    desktop.stop().unwrap_or_else(|e| panic!("{e}"));
    println!(
        "five recoveries in {:.0} s",
        test_started.elapsed().as_secs_f64()
    );
}
