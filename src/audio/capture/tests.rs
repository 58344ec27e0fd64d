//! The recorder on a scripted input source: microphones that change, fail and stall in the
//! middle of a recording, replayed without a sound card.

use super::*;
use crate::audio::resample::resample;
use crate::audio::wav::read_wav;
use std::sync::mpsc::{channel, Receiver};

/// Inputs the test feeds by hand; every open is remembered with its device name.
#[derive(Clone, Default)]
struct Scripted {
    opened: Arc<Mutex<Vec<(String, Feed)>>>,
    /// The inputs' rate, when not [`RATE`].
    rate: Option<u32>,
}

const RATE: u32 = 16_000;

impl InputSource for Scripted {
    fn open(
        &mut self,
        config: &RecorderConfig,
        feed: Feed,
    ) -> Result<OpenStream, (MicrophoneProblem, String)> {
        if config.device == "missing" {
            return Err((MicrophoneProblem::NotFound, "no such microphone".into()));
        }
        self.opened
            .lock()
            .unwrap()
            .push((config.device.clone(), feed));
        Ok(OpenStream {
            keep_alive: Box::new(()),
            rate: self.rate.unwrap_or(RATE),
            name: config.device.clone(),
        })
    }
}

impl Scripted {
    fn devices(&self) -> Vec<String> {
        self.opened
            .lock()
            .unwrap()
            .iter()
            .map(|(name, _)| name.clone())
            .collect()
    }

    /// The newest input's feed.
    fn feed(&self) -> Feed {
        self.opened
            .lock()
            .unwrap()
            .last()
            .expect("an open input")
            .1
            .clone()
    }
}

fn config(device: &str) -> RecorderConfig {
    RecorderConfig {
        device: device.into(),
        keep_open: true,
        strides: false,
    }
}

fn spawn(source: &Scripted, device: &str) -> (Recorder, Receiver<RecorderEvent>) {
    let (tx, rx) = channel();
    let tx = Mutex::new(tx);
    let recorder = Recorder::spawn_with(config(device), source.clone(), None, move |event| {
        if !matches!(event, RecorderEvent::Level { .. }) {
            let _ = tx.lock().unwrap().send(event);
        }
    })
    .unwrap();
    (recorder, rx)
}

/// The next event that `pick` takes, skipping others; panics after 10 s.
fn next<T>(
    rx: &Receiver<RecorderEvent>,
    what: &str,
    mut pick: impl FnMut(RecorderEvent) -> Option<T>,
) -> T {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(event) => {
                if let Some(found) = pick(event) {
                    return found;
                }
            }
            Err(e) => panic!("no {what}: {e}"),
        }
    }
}

/// `seconds` of a tone, fed as 20 ms callbacks in real time; `offset` continues a phase.
fn speak(feed: &Feed, seconds: f32, offset: usize) -> Vec<f32> {
    speak_at(feed, RATE, seconds, offset)
}

/// [`speak`] from a microphone at `rate`.
fn speak_at(feed: &Feed, rate: u32, seconds: f32, offset: usize) -> Vec<f32> {
    let n = (seconds * rate as f32) as usize;
    let step = 0.07 * RATE as f32 / rate as f32;
    let samples: Vec<f32> = (offset..offset + n)
        .map(|i| 0.3 * (i as f32 * step).sin())
        .collect();
    for block in samples.chunks(rate as usize / 50) {
        feed.push(block.iter().copied());
        std::thread::sleep(Duration::from_millis(20));
    }
    samples
}

fn started(rx: &Receiver<RecorderEvent>) -> String {
    next(rx, "Started", |e| match e {
        RecorderEvent::Started { device, .. } => Some(device),
        _ => None,
    })
}

fn audio(rx: &Receiver<RecorderEvent>) -> (u64, Vec<f32>, Option<PathBuf>) {
    next(rx, "Audio", |e| match e {
        RecorderEvent::Audio {
            id,
            samples,
            journal,
            ..
        } => Some((id, samples.to_vec(), journal)),
        _ => None,
    })
}

/// Everything `spoken` is in `got` (which may begin with some pre-roll and end with a tail).
fn assert_contains(got: &[f32], spoken: &[f32]) {
    assert!(
        got.len() >= spoken.len(),
        "{} < {}",
        got.len(),
        spoken.len()
    );
    let start = got
        .windows(spoken.len().min(64))
        .position(|w| w.iter().zip(spoken).all(|(a, b)| (a - b).abs() < 1e-6))
        .unwrap_or_else(|| panic!("the spoken audio's start is not in the recording"));
    for (a, b) in got[start..].iter().zip(spoken) {
        assert!((a - b).abs() < 1e-6, "{a} vs {b}");
    }
}

#[test]
fn a_microphone_changed_during_a_recording_applies_after_it_and_nothing_is_lost() {
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("rec-000000000000001-000000.journal.wav");
    let source = Scripted::default();
    let (recorder, rx) = spawn(&source, "built-in");
    recorder.send(RecorderCommand::Start {
        id: 1,
        journal: Some(journal.clone()),
    });
    assert_eq!(started(&rx), "built-in");
    let feed = source.feed();
    let mut spoken = speak(&feed, 0.6, 0);
    // The Microphone menu, then the permission check's close-and-reopen, mid-recording.
    recorder.send(RecorderCommand::Configure(config("headset")));
    recorder.send(RecorderCommand::Configure(RecorderConfig {
        keep_open: false,
        ..config("headset")
    }));
    recorder.send(RecorderCommand::Configure(config("headset")));
    spoken.extend(speak(&feed, 0.6, spoken.len()));
    assert_eq!(
        source.devices(),
        ["built-in"],
        "no input opened mid-recording"
    );
    recorder.send(RecorderCommand::Stop { id: 1 });
    let (id, samples, kept) = audio(&rx);
    assert_eq!(id, 1);
    assert_contains(&samples, &spoken);
    assert_eq!(kept.as_deref(), Some(journal.as_path()));
    let on_disk = read_wav(&journal).unwrap();
    assert_eq!(
        on_disk.samples.len(),
        samples.len(),
        "the journal holds it all"
    );
    // The changes applied in order once the recording ended: closed, then reopened.
    let deadline = Instant::now() + Duration::from_secs(5);
    while source.devices().len() < 3 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(source.devices(), ["built-in", "headset", "headset"]);
    // The next recording is on the new microphone.
    recorder.send(RecorderCommand::Start {
        id: 2,
        journal: None,
    });
    assert_eq!(started(&rx), "headset");
}

#[test]
fn a_microphone_that_fails_while_the_key_is_held_hands_on_what_it_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("rec-000000000000001-000000.journal.wav");
    let source = Scripted::default();
    let (recorder, rx) = spawn(&source, "usb");
    recorder.send(RecorderCommand::Start {
        id: 7,
        journal: Some(journal.clone()),
    });
    started(&rx);
    let feed = source.feed();
    let spoken = speak(&feed, 1.0, 0);
    feed.fail("device unplugged".into());
    let (problem, follows) = next(&rx, "Failed", |e| match e {
        RecorderEvent::Failed {
            id: Some(7),
            problem,
            audio_follows,
            ..
        } => Some((problem, audio_follows)),
        _ => None,
    });
    assert_eq!(problem, MicrophoneProblem::Lost);
    assert!(follows);
    let (id, samples, kept) = audio(&rx);
    assert_eq!(id, 7);
    assert_contains(&samples, &spoken);
    assert_eq!(kept.as_deref(), Some(journal.as_path()));
    assert_eq!(read_wav(&journal).unwrap().samples.len(), samples.len());
    // Key-up afterwards finds nothing to stop; the next press opens the microphone again.
    recorder.send(RecorderCommand::Stop { id: 7 });
    recorder.send(RecorderCommand::Start {
        id: 8,
        journal: None,
    });
    started(&rx);
    assert_eq!(source.devices(), ["usb", "usb"]);
}

#[test]
fn a_microphone_that_fails_during_the_tail_hands_on_the_whole_recording() {
    let source = Scripted::default();
    let (recorder, rx) = spawn(&source, "bluetooth");
    recorder.send(RecorderCommand::Start {
        id: 3,
        journal: None,
    });
    started(&rx);
    let feed = source.feed();
    let spoken = speak(&feed, 0.5, 0);
    // Key-up; the microphone fails before the tail is over (after the head went on).
    recorder.send(RecorderCommand::Stop { id: 3 });
    let head = next(&rx, "Head", |e| match e {
        RecorderEvent::Head { samples, .. } => Some(samples),
        _ => None,
    });
    assert_contains(&head, &spoken);
    feed.fail("input overrun: device gone".into());
    let follows = next(&rx, "Failed", |e| match e {
        RecorderEvent::Failed {
            id: Some(3),
            audio_follows,
            ..
        } => Some(audio_follows),
        _ => None,
    });
    assert!(follows);
    let (id, samples, _) = audio(&rx);
    assert_eq!(id, 3);
    assert_contains(&samples, &spoken);
}

#[test]
fn a_stalled_microphone_ends_the_recording_keeping_it() {
    let source = Scripted::default();
    let (recorder, rx) = spawn(&source, "stalls");
    recorder.send(RecorderCommand::Start {
        id: 4,
        journal: None,
    });
    started(&rx);
    let spoken = speak(&source.feed(), 0.4, 0);
    // Nothing more arrives: after STALL the recorder gives up on the microphone.
    let (follows, detail) = next(&rx, "Failed", |e| match e {
        RecorderEvent::Failed {
            audio_follows,
            detail,
            ..
        } => Some((audio_follows, detail)),
        _ => None,
    });
    assert!(follows, "{detail}");
    assert!(detail.contains("stopped sending audio"), "{detail}");
    let (_, samples, _) = audio(&rx);
    assert_contains(&samples, &spoken);
}

#[test]
fn only_a_cancel_deletes_the_journal() {
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("rec-000000000000001-000000.journal.wav");
    let source = Scripted::default();
    let (recorder, rx) = spawn(&source, "built-in");
    recorder.send(RecorderCommand::Start {
        id: 5,
        journal: Some(journal.clone()),
    });
    started(&rx);
    speak(&source.feed(), 0.2, 0);
    assert!(journal.exists());
    recorder.send(RecorderCommand::Cancel { id: 5 });
    recorder.send(RecorderCommand::Start {
        id: 6,
        journal: None,
    });
    started(&rx);
    assert!(!journal.exists(), "a tap's journal is deleted");

    // Quitting in the middle of a recording leaves its journal, with what was recorded.
    let second = dir.path().join("rec-000000000000002-000000.journal.wav");
    recorder.send(RecorderCommand::Cancel { id: 6 });
    recorder.send(RecorderCommand::Start {
        id: 9,
        journal: Some(second.clone()),
    });
    started(&rx);
    let spoken = speak(&source.feed(), 0.3, 0);
    drop(recorder);
    let left = read_wav(&second).unwrap();
    assert!(left.samples.len() >= spoken.len(), "{}", left.samples.len());
}

#[test]
fn a_microphone_that_cannot_open_fails_the_start_with_nothing_to_follow() {
    let source = Scripted::default();
    let (tx, rx) = channel();
    let tx = Mutex::new(tx);
    let recorder = Recorder::spawn_with(
        RecorderConfig {
            device: "missing".into(),
            keep_open: false,
            strides: false,
        },
        source.clone(),
        None,
        move |event| {
            let _ = tx.lock().unwrap().send(event);
        },
    )
    .unwrap();
    recorder.send(RecorderCommand::Start {
        id: 1,
        journal: None,
    });
    let (problem, follows) = next(&rx, "Failed", |e| match e {
        RecorderEvent::Failed {
            problem,
            audio_follows,
            ..
        } => Some((problem, audio_follows)),
        _ => None,
    });
    assert_eq!(problem, MicrophoneProblem::NotFound);
    assert!(!follows);
}

/// `seconds` of room quiet, fed as 20 ms callbacks in real time.
fn stay_quiet(feed: &Feed, seconds: f32) {
    stay_quiet_at(feed, RATE, seconds);
}

/// [`stay_quiet`] from a microphone at `rate`; what was fed.
fn stay_quiet_at(feed: &Feed, rate: u32, seconds: f32) -> Vec<f32> {
    let n = (seconds * rate as f32) as usize;
    let samples = vec![0.0005f32; n];
    for block in samples.chunks(rate as usize / 50) {
        feed.push(block.iter().copied());
        std::thread::sleep(Duration::from_millis(20));
    }
    samples
}

/// A recording `id` started on a scripted microphone (`device`) in which 0.8 s of speech and
/// then `quiet` seconds of quiet were said: the recorder, its events, the feed, and how many
/// samples the pause's snapshot had.
fn after_a_pause(
    source: &Scripted,
    device: &str,
    id: u64,
    quiet: f32,
) -> (Recorder, Receiver<RecorderEvent>, Feed, usize) {
    let (recorder, rx) = spawn(source, device);
    recorder.send(RecorderCommand::Start { id, journal: None });
    started(&rx);
    let feed = source.feed();
    speak(&feed, 0.8, 0);
    stay_quiet(&feed, quiet);
    let (pause_end, stride) = next(&rx, "Pause", |e| match e {
        RecorderEvent::Pause {
            samples, stride, ..
        } => Some((samples.len(), stride)),
        _ => None,
    });
    assert!(!stride, "a pause, not a stride");
    (recorder, rx, feed, pause_end)
}

#[test]
fn the_speaker_going_on_after_a_pause_is_reported_once_with_where_the_pause_ended() {
    let source = Scripted::default();
    let (recorder, rx, feed, pause_end) = after_a_pause(&source, "pauses", 6, 0.3);
    speak(&feed, 0.5, 0);
    let (id, reported_end, heard_at) = next(&rx, "SpeechAfterPause", |e| match e {
        RecorderEvent::SpeechAfterPause {
            id,
            pause_end,
            heard_at,
        } => Some((id, pause_end, heard_at)),
        RecorderEvent::Pause { .. } => panic!("no second pause yet"),
        _ => None,
    });
    assert_eq!((id, reported_end), (6, pause_end));
    // Heard after the pause's snapshot and its quiet, within a few checks of the speech.
    let quiet_after = (0.3 * RATE as f32) as usize;
    assert!(
        heard_at > pause_end && heard_at <= pause_end + quiet_after + RATE as usize / 5,
        "heard at {heard_at}, pause ended at {pause_end}"
    );
    // Once per pause: the next event is the next pause.
    stay_quiet(&feed, 0.3);
    next(&rx, "the second Pause", |e| match e {
        RecorderEvent::SpeechAfterPause { .. } => panic!("reported twice"),
        RecorderEvent::Pause { samples, .. } => Some(samples.len()),
        _ => None,
    });
    recorder.send(RecorderCommand::Cancel { id: 6 });
}

#[test]
fn a_pause_that_holds_is_reported_once_with_the_audio_that_shows_it() {
    let source = Scripted::default();
    let (recorder, rx, feed, pause_end) = after_a_pause(&source, "held pauses", 7, 0.7);
    let (id, held_in) = next(&rx, "PauseHeld", |e| match e {
        RecorderEvent::PauseHeld { id, samples } => Some((id, samples.len())),
        RecorderEvent::SpeechAfterPause { .. } => panic!("nothing was said after the pause"),
        _ => None,
    });
    assert_eq!(id, 7);
    // The audio reaches PAUSE_HELD past the pause's snapshot, within a few checks of it.
    let held = (super::super::pause::PAUSE_HELD.as_secs_f32() * RATE as f32) as usize;
    assert!(
        held_in >= pause_end + held && held_in <= pause_end + held + RATE as usize / 5,
        "held in {held_in} samples, the pause's snapshot had {pause_end}"
    );
    // Once per pause, and no speech report for it either: the next event is the next pause.
    speak(&feed, 0.5, 0);
    stay_quiet(&feed, 0.3);
    next(&rx, "the second Pause", |e| match e {
        RecorderEvent::SpeechAfterPause { .. } => panic!("a held pause reported as broken"),
        RecorderEvent::PauseHeld { .. } => panic!("reported twice"),
        RecorderEvent::Pause { samples, .. } => Some(samples.len()),
        _ => None,
    });
    recorder.send(RecorderCommand::Cancel { id: 7 });
}

/// The key pressed again at once, in the last recording's tail: what is said from the new
/// key-down on is the new recording's. Before, the recorder slept through the tail (0.15–0.3
/// s) with the new start waiting, and the first words of the next dictation went to the end
/// of the last one. A microphone that keeps sending (a thread feeding 20 ms blocks) switches
/// to a louder sound as the key goes down again.
#[test]
fn a_start_in_the_tail_ends_the_last_recording_there() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let source = Scripted::default();
    let (recorder, rx) = spawn(&source, "mic");
    recorder.send(RecorderCommand::Start {
        id: 1,
        journal: None,
    });
    started(&rx);
    let feed = source.feed();
    let (loud, done) = (
        Arc::new(AtomicBool::new(false)),
        Arc::new(AtomicBool::new(false)),
    );
    let feeder = {
        let (loud, done) = (Arc::clone(&loud), Arc::clone(&done));
        std::thread::spawn(move || {
            let mut i = 0usize;
            while !done.load(Ordering::Relaxed) {
                let amplitude = if loud.load(Ordering::Relaxed) {
                    0.6
                } else {
                    0.3
                };
                let block: Vec<f32> = (i..i + 320)
                    .map(|n| amplitude * (n as f32 * 0.07).sin())
                    .collect();
                feed.push(block.into_iter());
                i += 320;
                std::thread::sleep(Duration::from_millis(20));
            }
        })
    };
    std::thread::sleep(Duration::from_millis(600));
    recorder.send(RecorderCommand::Stop { id: 1 });
    loud.store(true, Ordering::Relaxed);
    recorder.send(RecorderCommand::Start {
        id: 2,
        journal: None,
    });
    std::thread::sleep(Duration::from_millis(600));
    recorder.send(RecorderCommand::Stop { id: 2 });
    let loud_blocks = |samples: &[f32]| {
        samples
            .chunks(320)
            .filter(|b| b.iter().any(|x| x.abs() > 0.45))
            .count()
    };
    let (first_id, first, _) = audio(&rx);
    let (second_id, second, _) = audio(&rx);
    done.store(true, Ordering::Relaxed);
    feeder.join().unwrap();
    assert_eq!((first_id, second_id), (1, 2));
    assert!(
        first.len() >= RATE as usize / 2,
        "the first recording kept its speech: {} samples",
        first.len()
    );
    // One block may land before the start is handled; the tail alone was 8–15.
    assert!(
        loud_blocks(&first) <= 2,
        "{} blocks of the next dictation at the end of the last one",
        loud_blocks(&first)
    );
    assert!(
        loud_blocks(&second) >= 25,
        "the next dictation holds what was said from its key-down: {} blocks",
        loud_blocks(&second)
    );
}

/// A 48 kHz microphone (most are): the recording is kept at 16 kHz only, and what is handed on,
/// snapshots included, equals converting everything the microphone sent, whole; pauses are found
/// in it as at 16 kHz; the journal ends at 16 kHz with the same samples.
#[test]
fn a_48_khz_microphones_recording_is_handed_on_as_converting_it_whole_gives() {
    const MIC: u32 = 48_000;
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("rec-000000000000001-000000.journal.wav");
    let source = Scripted {
        rate: Some(MIC),
        ..Scripted::default()
    };
    let (recorder, rx) = spawn(&source, "usb");
    recorder.send(RecorderCommand::Start {
        id: 3,
        journal: Some(journal.clone()),
    });
    started(&rx);
    let feed = source.feed();
    let mut sent = speak_at(&feed, MIC, 0.8, 0);
    sent.extend(stay_quiet_at(&feed, MIC, 0.4));
    let snapshot = next(&rx, "Pause", |e| match e {
        RecorderEvent::Pause { samples, .. } => Some(samples),
        _ => None,
    });
    // The snapshot is the recording up to somewhere in the quiet, converted as a whole would be.
    let whole_so_far = resample(&sent, MIC, TARGET_RATE);
    let spoken_at_16k = (0.8 * TARGET_RATE as f32) as usize;
    assert!(
        snapshot.len() > spoken_at_16k && snapshot.len() <= whole_so_far.len(),
        "a snapshot of {} samples, {} sent",
        snapshot.len(),
        whole_so_far.len()
    );
    let settled = snapshot.len() - 64;
    for (i, (a, b)) in snapshot[..settled].iter().zip(&whole_so_far).enumerate() {
        assert!((a - b).abs() < 1e-6, "sample {i}: {a} vs {b}");
    }
    sent.extend(speak_at(&feed, MIC, 0.5, sent.len()));
    recorder.send(RecorderCommand::Stop { id: 3 });
    let (id, samples, kept) = audio(&rx);
    assert_eq!(id, 3);
    assert_eq!(samples, resample(&sent, MIC, TARGET_RATE));
    let kept = read_wav(&kept.expect("the journal")).unwrap();
    assert_eq!(kept.sample_rate, TARGET_RATE);
    assert_eq!(kept.samples.len(), samples.len());
}

/// A sentence in pink noise at 10 dB SNR (a fixture clip), then a second more of the same
/// noise, fed four times faster than real time: with the voice-activity detector the recorder
/// hears the pause after the sentence and that it holds, though the noise never stops; by
/// loudness alone it hears neither. The recording handed on carries the detector's frames.
#[test]
fn in_steady_noise_the_detector_hears_the_pause_after_the_sentence() {
    let clip = crate::audio::wav::read_wav_16k(Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/clips/en_noisy_pink10db.wav"
    )))
    .unwrap();
    // The clip's first 0.5 s are noise alone.
    let noise = &clip[..8_000];
    let spoken: Vec<f32> = [&clip[..], noise, noise].concat();
    let sentence_end = clip.len() - 6_400; // the voice stops ~0.4 s before the clip's end
    let detector = crate::audio::vad::model_path()
        .and_then(|path| crate::audio::vad::VoiceDetector::load(&path))
        .unwrap_or_else(|e| panic!("{e} (scripts/setup.sh --test installs it)"));
    for detector in [Some(detector), None] {
        let hears_voices = detector.is_some();
        let source = Scripted::default();
        let (tx, rx) = channel();
        let tx = Mutex::new(tx);
        let recorder = Recorder::spawn_with(config("mic"), source.clone(), detector, move |e| {
            if !matches!(e, RecorderEvent::Level { .. }) {
                let _ = tx.lock().unwrap().send(e);
            }
        })
        .unwrap();
        recorder.send(RecorderCommand::Start {
            id: 1,
            journal: None,
        });
        started(&rx);
        let feed = source.feed();
        for block in spoken.chunks(320) {
            feed.push(block.iter().copied());
            std::thread::sleep(Duration::from_millis(5));
        }
        std::thread::sleep(Duration::from_millis(100));
        recorder.send(RecorderCommand::Stop { id: 1 });
        let (mut pause_at, mut held) = (None, false);
        let samples = next(&rx, "Audio", |e| match e {
            RecorderEvent::Pause { samples, .. } => {
                pause_at.get_or_insert(samples.len());
                None
            }
            RecorderEvent::PauseHeld { .. } => {
                held = true;
                None
            }
            RecorderEvent::Audio { samples, .. } => Some(samples),
            _ => None,
        });
        if hears_voices {
            let at = pause_at.expect("a pause after the sentence");
            assert!(
                at > sentence_end && at < sentence_end + 8_000,
                "the pause was sent at {at} samples; the sentence ends at ~{sentence_end}"
            );
            assert!(held, "the pause held in the noise");
            let speech = samples.speech().expect("the detector's frames");
            assert!(speech.speech_frames() > 50, "{speech:?}");
        } else {
            assert_eq!(
                (pause_at, held),
                (None, false),
                "by loudness, noise is sound"
            );
            assert!(samples.speech().is_none());
        }
    }
}
