//! The app's transcription pipeline without a desktop: the worker thread with the real `base`
//! model turns recordings into what would be pasted. Silence and faint noise give nothing (and
//! the engine's own "you" on silence is recognised as a hallucination), speech gives its words,
//! every recording is saved before transcription (unfinished, until the harness marks it
//! finished as the app does), a saved recording can be retried, and a recording that could not
//! be transcribed is kept. The head of a recording transcribed at
//! key-up gives the text when the tail after it is quiet, and is thrown away when it is not.

mod common;

use std::sync::mpsc;
use std::time::Duration;
use whisper_dictation::app::verdict::{judge, Empty};
use whisper_dictation::app::worker::{
    Job, JobAudio, ModelRequest, Outcome, Worker, WorkerCommand, WorkerEvent,
};
use whisper_dictation::audio::level::{GateConfig, Level};
use whisper_dictation::audio::pause::{self, Hearing::Loudness};
use whisper_dictation::audio::wav::read_wav_16k;
use whisper_dictation::recordings::RecordingStore;
use whisper_dictation::settings::Settings;
use whisper_dictation::whisper::TranscribeParams;

const WAIT: Duration = Duration::from_secs(180);

fn clip(name: &str) -> Vec<f32> {
    let path = common::fixtures().join("clips").join(name);
    read_wav_16k(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

struct Harness {
    worker: Worker,
    events: mpsc::Receiver<WorkerEvent>,
    recordings: std::path::PathBuf,
    store: RecordingStore,
    _dir: tempfile::TempDir,
}

impl Harness {
    fn new() -> Harness {
        let dir = tempfile::tempdir().unwrap();
        let recordings = dir.path().join("recordings");
        let (tx, events) = mpsc::channel();
        let tx = std::sync::Mutex::new(tx);
        let store = RecordingStore::new(recordings.clone(), 3);
        let worker = Worker::spawn(store.clone(), move |e| {
            let _ = tx.lock().unwrap().send(e);
        })
        .unwrap();
        Harness {
            worker,
            events,
            recordings,
            store,
            _dir: dir,
        }
    }

    /// What the app does when a dictation ends: its recording is marked finished (held when
    /// it was not transcribed); returns where it is kept.
    fn finish(
        &self,
        outcome: &Outcome,
        recording: Option<&std::path::Path>,
    ) -> Option<std::path::PathBuf> {
        let transcribed = !matches!(outcome, Outcome::Failed(_) | Outcome::Crashed(_));
        recording.map(|path| self.store.finish(path, transcribed))
    }

    fn load(&self) {
        let settings = Settings {
            device: "cpu".into(),
            ..Settings::default()
        };
        self.worker.send(WorkerCommand::Load(ModelRequest {
            dir: common::model_dir("base"),
            name: "base".into(),
            settings,
            state_dir: self._dir.path().join("state"),
        }));
        loop {
            match self.events.recv_timeout(WAIT).expect("the worker answers") {
                WorkerEvent::Ready { device, .. } => {
                    assert_eq!(device.name(), "cpu");
                    return;
                }
                WorkerEvent::LoadFailed { message, .. } => panic!("load failed: {message}"),
                _ => {}
            }
        }
    }

    fn transcribe(
        &self,
        id: u64,
        audio: JobAudio,
        language: &str,
    ) -> (Outcome, Option<std::path::PathBuf>) {
        let params = TranscribeParams {
            language: Some(language.into()),
            ..TranscribeParams::default()
        };
        self.worker
            .send(WorkerCommand::Transcribe(job(id, audio, params)));
        loop {
            if let WorkerEvent::Done {
                id: done,
                outcome,
                recording,
                ..
            } = self.events.recv_timeout(WAIT).expect("the worker answers")
            {
                assert_eq!(done, id);
                let kept = self.finish(&outcome, recording.as_deref());
                return (outcome, kept);
            }
        }
    }

    /// Sends the head of recording `id` early, then the whole recording; returns the outcome
    /// and whether the early result was used.
    fn transcribe_with_head(&self, id: u64, head: Vec<f32>, whole: Vec<f32>) -> (Outcome, bool) {
        let params = self.send_head(id, head);
        // As in the app, the whole recording arrives after the head was taken up (sent at
        // once, the worker would skip the head as superseded).
        loop {
            match self.events.recv_timeout(WAIT).expect("the worker answers") {
                WorkerEvent::Progress { id: done, .. } if done == id => break,
                WorkerEvent::Done { .. } => panic!("no result may come before the recording"),
                _ => {}
            }
        }
        self.worker.send(WorkerCommand::Transcribe(job(
            id,
            JobAudio::Recorded(whole.into()),
            params,
        )));
        loop {
            if let WorkerEvent::Done {
                id: done,
                outcome,
                early,
                recording,
                ..
            } = self.events.recv_timeout(WAIT).expect("the worker answers")
            {
                assert_eq!(done, id);
                self.finish(&outcome, recording.as_deref());
                return (outcome, early);
            }
        }
    }

    /// Sends `head` as the early audio of recording `id` (English); returns the parameters
    /// for the whole recording.
    fn send_head(&self, id: u64, head: Vec<f32>) -> TranscribeParams {
        let params = TranscribeParams {
            language: Some("en".into()),
            ..TranscribeParams::default()
        };
        self.worker.send(WorkerCommand::TranscribeEarly(job(
            id,
            JobAudio::Recorded(head.into()),
            params.clone(),
        )));
        params
    }

    fn saved(&self) -> usize {
        std::fs::read_dir(&self.recordings).map_or(0, |d| d.count())
    }
}

fn words(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Text(text) => text.to_lowercase(),
        other => panic!("expected text, got {other:?}"),
    }
}

#[test]
fn the_pipeline_pastes_speech_and_nothing_for_silence_and_keeps_recordings() {
    let h = Harness::new();

    // A recording made before the model is loaded cannot be transcribed: it is kept.
    let (outcome, kept) = h.transcribe(1, JobAudio::Recorded(clip("en_kal.wav").into()), "en");
    assert!(
        matches!(&outcome, Outcome::Failed(m) if m.contains("not loaded")),
        "{outcome:?}"
    );
    let kept = kept.expect("the recording was saved");
    assert!(kept.is_file());

    h.load();

    // Retry the kept recording.
    let (outcome, again) = h.transcribe(2, JobAudio::Saved(kept.clone()), "en");
    assert_eq!(again.as_deref(), Some(kept.as_path()));
    let text = words(&outcome);
    assert!(
        text.contains("dentist") && text.contains("tomorrow"),
        "{text}"
    );

    // Digital silence and faint noise: nothing, from the energy gate.
    for (id, name) in [(3, "silence_5s.wav"), (4, "near_silent_5s.wav")] {
        let (outcome, _) = h.transcribe(id, JobAudio::Recorded(clip(name).into()), "en");
        assert!(
            matches!(outcome, Outcome::Empty(Empty::NoSound { .. })),
            "{name}: {outcome:?}"
        );
    }

    // Speech in noise still comes through.
    let (outcome, _) = h.transcribe(
        5,
        JobAudio::Recorded(clip("en_noisy_pink10db.wav").into()),
        "en",
    );
    let text = words(&outcome);
    assert!(
        text.contains("meeting") && text.contains("afternoon"),
        "{text}"
    );

    // Polish.
    let (outcome, _) = h.transcribe(6, JobAudio::Recorded(clip("pl_espeak.wav").into()), "pl");
    let text = words(&outcome);
    assert!(text.contains("jutro") && text.contains("sali"), "{text}");

    // Only the newest 3 recordings are kept (the store's limit here).
    assert_eq!(h.saved(), 3);
}

#[test]
fn whispers_you_on_digital_silence_is_judged_a_hallucination() {
    // Without the energy gate, base really does say "you" for 5 s of zeros; the verdict drops it.
    let samples = clip("silence_5s.wav");
    let transcript = {
        let engine = common::engine("base");
        engine
            .transcribe(
                &samples,
                &TranscribeParams {
                    language: Some("en".into()),
                    ..TranscribeParams::default()
                },
            )
            .unwrap()
    };
    let level = Level::measure(&samples, 16_000, &GateConfig::default());
    match judge(&transcript, &level) {
        Err(Empty::Hallucination { text }) => {
            assert_eq!(text.trim().to_lowercase(), "you", "{transcript:?}")
        }
        Err(Empty::NoText) => {} // an engine that says nothing is fine too
        other => panic!("silence gave {other:?} from {:?}", transcript.text),
    }
}

/// Judged by loudness against `audio`'s loudest frame: these recordings carry no frames of
/// the voice-activity detector (the recorder's do).
fn loudness(audio: &[f32]) -> pause::Hearing<'static> {
    Loudness {
        peak: whisper_dictation::audio::level::loudest_frame(audio, 16_000),
    }
}

#[test]
fn the_head_transcribed_at_key_up_stands_only_when_the_tail_is_quiet() {
    let h = Harness::new();
    h.load();
    let speech = clip("en_kal.wav");
    assert!(
        pause::worth_starting(&speech, loudness(&speech), 16_000),
        "the clip ends in quiet, as a dictation does when the speaker has finished"
    );

    // The tail is room noise: the head's text is the recording's text.
    let room = clip("near_silent_5s.wav")[..4_800].to_vec();
    let (outcome, used_early) =
        h.transcribe_with_head(1, speech.clone(), [speech.clone(), room].concat());
    assert!(used_early, "{outcome:?}");
    let text = words(&outcome);
    assert!(
        text.contains("dentist") && text.contains("morning"),
        "{text}"
    );

    // Speech went on after key-up: the early result is dropped and the whole recording,
    // the words after key-up included, is transcribed.
    let more = clip("en_slt.wav");
    let (outcome, used_early) = h.transcribe_with_head(2, speech.clone(), [speech, more].concat());
    assert!(!used_early, "{outcome:?}");
    let text = words(&outcome);
    assert!(
        text.contains("dentist") && text.contains("quarterly"),
        "{text}"
    );
    // Both whole recordings were saved for retry.
    assert_eq!(h.saved(), 2);
}

/// People often let go as the last word ends: the head then does not end in quiet, yet it is
/// transcribed at key-up, and its text stands when the tail holds nothing, so the words do not
/// wait for the tail and then a whole engine time more.
#[test]
fn a_head_let_go_as_the_last_word_ends_stands_when_the_tail_is_quiet() {
    let h = Harness::new();
    h.load();
    let kal = clip("en_kal.wav");
    // The clip without its 0.25 s of trailing digital silence: key-up as "nine" ends.
    let speech = kal[..kal.len() - 4_000].to_vec();
    let room = clip("near_silent_5s.wav")[..4_800].to_vec();
    let whole = [speech.clone(), room].concat();
    assert!(pause::worth_starting(&speech, loudness(&speech), 16_000));
    assert!(
        !pause::tail_can_end_early(&whole, speech.len(), None, 16_000),
        "the head does not end in quiet: the recorder keeps the whole tail"
    );
    let (outcome, used_early) = h.transcribe_with_head(5, speech, whole);
    assert!(used_early, "{outcome:?}");
    let text = words(&outcome);
    assert!(
        text.contains("dentist") && text.contains("morning"),
        "{text}"
    );
}

/// Sends the head of recording `id` early and, while it is being transcribed, the whole
/// recording; returns whether the head's transcription finished, the outcome, and whether the
/// head's text was used.
fn whole_while_head_runs(
    h: &Harness,
    id: u64,
    head: Vec<f32>,
    whole: Vec<f32>,
) -> (bool, Outcome, bool) {
    let params = h.send_head(id, head);
    // The worker takes the head up at once; the whole recording comes while it runs (or, on a
    // slow machine, before it started: then the head is skipped instead of stopped).
    std::thread::sleep(Duration::from_millis(150));
    h.worker.send(WorkerCommand::Transcribe(job(
        id,
        JobAudio::Recorded(whole.into()),
        params,
    )));
    let mut head_finished = false;
    loop {
        match h.events.recv_timeout(WAIT).expect("the worker answers") {
            WorkerEvent::Progress {
                id: done,
                stopped: false,
                ..
            } if done == id => head_finished = true,
            WorkerEvent::Done {
                id: done,
                outcome,
                early,
                ..
            } => {
                assert_eq!(done, id);
                return (head_finished, outcome, early);
            }
            _ => {}
        }
    }
}

/// Speech resumed after a pause: the head sent at the pause is being transcribed when the whole
/// recording arrives with more speech. The worker stops the head (or skips it, had it not
/// started) and transcribes the whole recording instead of finishing the stale head first. When
/// the rest of the recording is quiet, the head's transcription goes on and its text is used.
#[test]
fn newer_speech_stops_the_early_transcription_of_an_older_head() {
    let h = Harness::new();
    h.load();
    let head = clip("en_long_50s.wav")[..20 * 16_000].to_vec();
    let whole = [head.clone(), clip("en_kal.wav")].concat();
    let (head_finished, outcome, early) = whole_while_head_runs(&h, 7, head, whole);
    assert!(!head_finished, "the stale head was transcribed to the end");
    assert!(!early, "the stale head's text was used: {outcome:?}");
    let text = words(&outcome);
    assert!(text.contains("dentist"), "{text}");

    let speech = clip("en_kal.wav");
    let room = clip("near_silent_5s.wav")[..4_800].to_vec();
    let (head_finished, outcome, early) =
        whole_while_head_runs(&h, 8, speech.clone(), [speech, room].concat());
    assert!(head_finished && early, "{outcome:?}");
    assert!(words(&outcome).contains("dentist"), "{outcome:?}");
}

/// Speech without a pause for a while, then a pause (or key-up): the pass over the stride's
/// snapshot, which ends mid-speech, is stopped (or skipped) when the pause's snapshot comes,
/// since that one hears all it does and more and can be committed whole. Only the pause's
/// pass reports progress; at key-up this is the difference between one pass and two.
#[test]
fn a_pause_after_more_speech_stops_the_pass_over_a_stride() {
    if !whisper_dictation::app::worker::commits_without_pauses() {
        return; // no stride is transcribed
    }
    let h = Harness::new();
    h.load();
    // Once the worker is idle (priming the fast encoding after "ready" done), so the stride's
    // pass is running, not waiting, when the pause's snapshot comes.
    h.transcribe(10, JobAudio::Recorded(clip("en_kal.wav").into()), "en");
    let long = clip("en_long_50s.wav");
    let peak = whisper_dictation::audio::level::loudest_frame(&long, 16_000);
    // A stride's snapshot ends mid-speech: the first cut from 15 s on that is not in a pause.
    let stride_len = (150..250)
        .map(|tenths| tenths * 1_600)
        .find(|&len| !pause::ends_in_pause(&long[..len], 0..len, Loudness { peak }))
        .expect("speech after 15 s");
    // The pause's snapshot: that and the next second of speech, then the room's quiet.
    let room = clip("near_silent_5s.wav")[..8_000].to_vec();
    let paused = [long[..stride_len + 16_000].to_vec(), room].concat();
    assert!(pause::ends_in_pause(
        &paused,
        0..paused.len(),
        Loudness { peak }
    ));
    let params = TranscribeParams {
        language: Some("en".into()),
        ..TranscribeParams::default()
    };
    let stride_job = |audio: &[f32]| {
        job(
            11,
            JobAudio::Recorded(audio.to_vec().into()),
            params.clone(),
        )
    };
    h.worker.send(WorkerCommand::TranscribeStride(stride_job(
        &long[..stride_len],
    )));
    std::thread::sleep(Duration::from_millis(150));
    h.worker
        .send(WorkerCommand::TranscribeEarly(stride_job(&paused)));
    // The first pass to report is the pause's; key-up comes after it.
    let first = loop {
        if let WorkerEvent::Progress {
            seconds,
            stopped: false,
            ..
        } = h.events.recv_timeout(WAIT).expect("the worker answers")
        {
            break seconds;
        }
    };
    let paused_s = paused.len() as f32 / 16_000.0;
    assert_eq!(first, paused_s, "the stride's pass ran to its end");
    h.worker
        .send(WorkerCommand::Transcribe(stride_job(&paused)));
    let outcome = loop {
        if let WorkerEvent::Done { outcome, .. } =
            h.events.recv_timeout(WAIT).expect("the worker answers")
        {
            break outcome;
        }
    };
    assert!(words(&outcome).contains("planning session"), "{outcome:?}");
}

/// A pass over a pause's snapshot is of use only if the pause holds (the words of a short
/// stretch are not compared with another pass's): when the recorder hears the speaker go on
/// within [`PAUSE_HELD`] of it, the pass stops and shows nothing new; when the speaker went
/// on later, the pause held and the pass runs to its end.
#[test]
fn a_pass_over_a_pause_stops_when_the_speaker_goes_on_before_it_holds() {
    use whisper_dictation::app::worker::commit::PAUSE_HELD;
    let h = Harness::new();
    h.load();
    h.transcribe(12, JobAudio::Recorded(clip("en_kal.wav").into()), "en");
    let room = clip("near_silent_5s.wav")[..4_000].to_vec();
    let paused = [clip("en_slt.wav"), room].concat();
    let peak = whisper_dictation::audio::level::loudest_frame(&paused, 16_000);
    assert!(pause::ends_in_pause(
        &paused,
        0..paused.len(),
        Loudness { peak }
    ));
    let held = (PAUSE_HELD * 16_000.0) as usize;
    let params = TranscribeParams {
        language: Some("en".into()),
        ..TranscribeParams::default()
    };
    let mut shown = Vec::new();
    for (id, went_on_after) in [(13, held / 2), (14, held + 1_600)] {
        h.worker.send(WorkerCommand::TranscribeEarly(job(
            id,
            JobAudio::Recorded(paused.clone().into()),
            params.clone(),
        )));
        h.worker.send(WorkerCommand::SpeechAfterPause {
            id,
            pause_end: paused.len(),
            heard_at: paused.len() + went_on_after,
        });
        shown.push(loop {
            if let WorkerEvent::Progress {
                id: of,
                stopped,
                tentative,
                ..
            } = h.events.recv_timeout(WAIT).expect("the worker answers")
            {
                assert_eq!(of, id);
                break (stopped, tentative);
            }
        });
    }
    assert_eq!(
        shown[0],
        (true, String::new()),
        "the pass over a pause that did not hold ran"
    );
    assert!(
        !shown[1].0 && shown[1].1.split_whitespace().count() > 3,
        "the pass over a pause that held was stopped: {:?}",
        shown[1]
    );
}

/// When the recorder hears a pause hold, the pass over it is committed then, and shown as
/// committed at once, not when the next snapshot comes a sentence later. The worker judges the
/// pause in the audio it is sent: audio in which the speaker went on within [`PAUSE_HELD`]
/// (which the recorder would report as speech, not as a held pause) commits nothing.
#[test]
fn a_pause_that_held_is_committed_when_the_recorder_says_so() {
    use whisper_dictation::app::worker::commit::PAUSE_HELD;
    let h = Harness::new();
    h.load();
    h.transcribe(20, JobAudio::Recorded(clip("en_kal.wav").into()), "en");
    let room = clip("near_silent_5s.wav");
    let paused = [clip("en_slt.wav"), room[..4_000].to_vec()].concat();
    let held = (PAUSE_HELD * 16_000.0) as usize;
    let quiet_after = [paused.clone(), room[4_000..4_000 + held + 800].to_vec()].concat();
    let voice: Vec<f32> = (0..held + 800)
        .map(|i| 0.3 * (i as f32 * 2.0 * std::f32::consts::PI * 220.0 / 16_000.0).sin())
        .collect();
    let spoken_after = [paused.clone(), room[4_000..5_600].to_vec(), voice].concat();
    let params = TranscribeParams {
        language: Some("en".into()),
        ..TranscribeParams::default()
    };
    let progress = |id: u64| loop {
        if let WorkerEvent::Progress {
            id: of,
            committed,
            tentative,
            ..
        } = h.events.recv_timeout(WAIT).expect("the worker answers")
        {
            assert_eq!(of, id);
            break (committed, tentative);
        }
    };
    for (id, after, holds) in [(21, spoken_after, false), (22, quiet_after, true)] {
        h.worker.send(WorkerCommand::TranscribeEarly(job(
            id,
            JobAudio::Recorded(paused.clone().into()),
            params.clone(),
        )));
        h.worker.send(WorkerCommand::PauseHeld {
            id,
            samples: after.into(),
        });
        let (committed, tentative) = progress(id);
        assert!(
            committed.is_empty(),
            "nothing committed before: {committed:?}"
        );
        assert!(
            tentative.split_whitespace().count() > 3,
            "the pass gave its words: {tentative:?}"
        );
        let shown = progress(id);
        if holds {
            assert_eq!(
                shown,
                (tentative, String::new()),
                "committed as the pause held"
            );
        } else {
            assert_eq!(
                shown,
                (String::new(), tentative),
                "committed though the speaker went on"
            );
        }
    }
}

/// A recording the recorder journaled is transcribed from memory and kept where it is (no
/// second copy), and the run notes on disk, once for its head and whole together, that it began
/// transcribing it: a crash then counts against the recording at the next start.
#[test]
fn a_journaled_recording_is_kept_where_it_is_and_counts_one_attempt() {
    use whisper_dictation::audio::wav_journal::JournalWriter;
    let h = Harness::new();
    h.load();
    let store = RecordingStore::new(h.recordings.clone(), 3);
    let journal = store.new_journal().unwrap();
    let audio = clip("en_kal.wav");
    let mut writer = JournalWriter::create(&journal, 16_000).unwrap();
    writer.append(&audio).unwrap();
    drop(writer);
    let attempts = journal.with_extension("").with_extension("attempts");

    let params = TranscribeParams {
        language: Some("en".into()),
        ..TranscribeParams::default()
    };
    let send_job = |kind: fn(Job) -> WorkerCommand, audio: Vec<f32>| {
        h.worker.send(kind(Job {
            journal: Some(journal.clone()),
            ..job(1, JobAudio::Recorded(audio.into()), params.clone())
        }));
    };
    // The head (a pause two thirds in), then the whole recording once the head was taken up.
    send_job(
        WorkerCommand::TranscribeEarly,
        audio[..audio.len() * 2 / 3].to_vec(),
    );
    while !matches!(
        h.events.recv_timeout(WAIT).expect("the worker answers"),
        WorkerEvent::Progress { .. }
    ) {}
    assert_eq!(std::fs::read_to_string(&attempts).unwrap(), "1");
    send_job(WorkerCommand::Transcribe, audio);
    let (outcome, recording) = loop {
        if let WorkerEvent::Done {
            outcome, recording, ..
        } = h.events.recv_timeout(WAIT).expect("the worker answers")
        {
            break (outcome, recording);
        }
    };
    assert!(words(&outcome).contains("dentist"), "{outcome:?}");
    assert_eq!(recording.as_deref(), Some(journal.as_path()));
    assert_eq!(std::fs::read_to_string(&attempts).unwrap(), "1");
    assert_eq!(
        h.saved(),
        2,
        "the journal and its attempt count, nothing else"
    );
    assert_eq!(store.unfinished()[0].attempts, 1);

    // The app quits before it delivered the text: the recording is recovered at the next
    // start, and a text ready in time is no failed attempt.
    let Harness { worker, _dir, .. } = h;
    drop(worker);
    let unfinished = store.unfinished();
    assert_eq!(unfinished.len(), 1, "{unfinished:?}");
    assert_eq!(unfinished[0].attempts, 0, "a quit is not a failed attempt");
}

/// A job for recording `id` with the default wording and no journal.
fn job(id: u64, audio: JobAudio, params: TranscribeParams) -> Job {
    Job {
        id,
        audio,
        params,
        wording: Default::default(),
        journal: None,
    }
}
