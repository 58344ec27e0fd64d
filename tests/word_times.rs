//! Word times from the cross-attention alignment heads (`whisper::words`) against faster-whisper's
//! `word_timestamps=True` on the same weights and audio (`tests/fixtures/word-times.json`, made by
//! `scripts/gen-word-time-fixtures.py`): the same words, each starting and ending within
//! [`TOLERANCE`] of the reference; and what the extra pass costs next to the transcription.
//!
//! Clips: the short English clips of `tests/fixtures/clips`, and two of
//! `scripts/make-long-clips.sh` (built here when missing): 19 s of speech with every pause over
//! 0.12 s removed, and 24 s of the same speech with its pauses.

mod common;

use serde::Deserialize;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use whisper_dictation::audio::wav::read_wav_16k;
use whisper_dictation::whisper::{PaddingEncoding, TranscribeParams, Transcript};

/// How far a word's start or end may be from faster-whisper's (seconds): 5 of the encoder's
/// 20 ms steps.
const TOLERANCE: f32 = 0.1;

#[derive(Deserialize)]
struct Fixture {
    entries: Vec<Entry>,
}

#[derive(Deserialize)]
struct Entry {
    model: String,
    clip: String,
    /// `clips`: tests/fixtures/clips; `long`: make-long-clips.sh's folder.
    #[serde(rename = "where")]
    folder: String,
    clip_sha256: String,
    segments: Vec<RefSegment>,
}

#[derive(Deserialize)]
struct RefSegment {
    words: Vec<RefWord>,
}

#[derive(Deserialize)]
struct RefWord {
    word: String,
    start: f32,
    end: f32,
    probability: f32,
}

fn fixture() -> Fixture {
    let path = common::fixtures().join("word-times.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The folder of `scripts/make-long-clips.sh`'s clips, built (idempotently) when needed.
fn long_clips() -> PathBuf {
    common::long_clips_in(&Path::new(env!("CARGO_MANIFEST_DIR")).join("target"))
}

fn clip_path(entry: &Entry, long: &mut Option<PathBuf>) -> PathBuf {
    match entry.folder.as_str() {
        "clips" => common::fixtures().join("clips").join(&entry.clip),
        "long" => long.get_or_insert_with(long_clips).join(&entry.clip),
        other => panic!("unknown clip folder {other:?}"),
    }
}

fn params(padding: PaddingEncoding, word_times: bool) -> TranscribeParams {
    TranscribeParams {
        language: Some("en".into()),
        temperatures: vec![0.0],
        beam_size: None,
        padding,
        word_times,
        ..TranscribeParams::default()
    }
}

fn transcribe(model: &'static str, samples: &[f32], params: &TranscribeParams) -> Transcript {
    common::engine(model)
        .transcribe(samples, params)
        .unwrap_or_else(|e| panic!("transcribing with {model}: {e}"))
}

fn model_name(name: &str) -> &'static str {
    match name {
        "base" => "base",
        "tiny.en" => "tiny.en",
        other => panic!("unknown model {other}"),
    }
}

/// Deviations (seconds) of every word's start and end from the reference, and of its
/// probability; an error when the words differ.
struct Deviations {
    times: Vec<f32>,
    probabilities: Vec<f32>,
}

fn compare(entry: &Entry, ours: &Transcript) -> Result<Deviations, String> {
    let theirs: Vec<&RefWord> = entry.segments.iter().flat_map(|s| &s.words).collect();
    let mine: Vec<_> = ours.segments.iter().flat_map(|s| &s.words).collect();
    let texts = |w: Vec<&str>| w.join("|");
    let their_words = texts(theirs.iter().map(|w| w.word.as_str()).collect());
    let my_words = texts(mine.iter().map(|w| w.text.as_str()).collect());
    if their_words != my_words {
        return Err(format!(
            "{} {}: words differ\n ours:   {my_words}\n theirs: {their_words}",
            entry.model, entry.clip
        ));
    }
    let mut deviations = Deviations {
        times: Vec::new(),
        probabilities: Vec::new(),
    };
    for (m, t) in mine.iter().zip(&theirs) {
        deviations.times.push((m.start - t.start).abs());
        deviations.times.push((m.end - t.end).abs());
        deviations
            .probabilities
            .push((m.probability.expect("asked for by default") - t.probability).abs());
        assert!(m.start <= m.end, "{m:?}");
    }
    Ok(deviations)
}

fn median(v: &mut [f32]) -> f32 {
    v.sort_by(f32::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

fn max(v: &[f32]) -> f32 {
    v.iter().copied().fold(0.0, f32::max)
}

/// Every clip of the fixture with `padding`: the words, and their deviations printed; word
/// probabilities within `probability_tolerance` of the reference's.
fn check_all(padding: PaddingEncoding, probability_tolerance: f32) {
    let fixture = fixture();
    let mut long = None;
    let (mut all_times, mut all_probabilities) = (Vec::new(), Vec::new());
    let mut failures = Vec::new();
    for entry in &fixture.entries {
        let path = clip_path(entry, &mut long);
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let sha = format!("{:x}", Sha256::digest(&bytes));
        if sha != entry.clip_sha256 {
            // A rebuilt long clip (another sox or flite) is still compared: same speech.
            eprintln!(
                "note: {} differs from the clip the fixture was made from (sha256 {sha}); \
                 rerun scripts/gen-word-time-fixtures.py to refresh it",
                path.display()
            );
        }
        let samples = read_wav_16k(&path).unwrap();
        let ours = transcribe(model_name(&entry.model), &samples, &params(padding, true));
        match compare(entry, &ours) {
            Ok(mut d) => {
                let words = d.probabilities.len();
                let over = d.times.iter().filter(|&&x| x > TOLERANCE).count();
                println!(
                    "{:?} {:8} {:24} words {words:3}  start/end deviation: max {:.3} s, \
                     median {:.3} s, exact {:.0}%  probability: max {:.3}",
                    padding,
                    entry.model,
                    entry.clip,
                    max(&d.times),
                    median(&mut d.times),
                    100.0 * d.times.iter().filter(|&&x| x < 0.005).count() as f32
                        / d.times.len().max(1) as f32,
                    max(&d.probabilities),
                );
                if over > 0 {
                    failures.push(format!(
                        "{} {}: {over} word times off by more than {TOLERANCE} s",
                        entry.model, entry.clip
                    ));
                }
                all_times.extend(d.times);
                all_probabilities.extend(d.probabilities);
            }
            Err(e) => failures.push(e),
        }
    }
    println!(
        "{padding:?} all: {} word times, max deviation {:.3} s, median {:.3} s, mean {:.4} s; \
         probability max deviation {:.3}",
        all_times.len(),
        max(&all_times),
        median(&mut all_times.clone()),
        all_times.iter().sum::<f32>() / all_times.len().max(1) as f32,
        max(&all_probabilities),
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(!all_times.is_empty(), "no word was compared");
    assert!(
        max(&all_probabilities) <= probability_tolerance,
        "word probabilities differ from faster-whisper's by up to {}",
        max(&all_probabilities)
    );
}

#[test]
fn word_times_match_faster_whisper_with_whole_windows() {
    // The same computation as the reference's: measured equal to its 0.01 s rounding.
    check_all(PaddingEncoding::Full, 0.005);
}

/// The app's encoding (only the audio's part of a short window is computed, the padding's
/// states taken from a primer): slightly different encoder states than the reference's, so
/// the same words within the same time tolerance, probabilities within 0.1 (measured: up to
/// 0.06).
#[test]
fn word_times_match_faster_whisper_with_the_fast_encoder() {
    check_all(PaddingEncoding::Primed, 0.1);
}

/// CPU time of this process (all threads) so far: less disturbed than wall time when other
/// work shares the cores.
fn cpu_time() -> Duration {
    // SAFETY: getrusage writes into the struct it is given.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

/// What asking for word times costs and changes: nothing but the words (same segments, same
/// text), for one more decoder pass per window; without their probabilities, the same words at
/// the same times. Prints the pass's time next to the transcription's for a 5 s and a 24 s
/// clip, with and without probabilities (median of 3 runs after a warm-up).
#[test]
fn word_times_cost_one_decoder_pass_and_change_nothing_else() {
    let mut long = None;
    let fixture = fixture();
    let cases = [("base", "en_slt.wav"), ("base", "long_25s_pauses.wav")];
    for (model, clip) in cases {
        let entry = fixture
            .entries
            .iter()
            .find(|e| e.model == model && e.clip == clip)
            .expect("the clip is in the fixture");
        let samples = read_wav_16k(&clip_path(entry, &mut long)).unwrap();
        for padding in [PaddingEncoding::Full, PaddingEncoding::Primed] {
            let plain_params = params(padding, false);
            let word_params = params(padding, true);
            let times_only = TranscribeParams {
                word_probabilities: false,
                ..word_params.clone()
            };
            let _ = transcribe(model, &samples, &word_params);
            let (mut plain_times, mut with_words, mut word_pass) = (vec![], vec![], vec![]);
            let mut times_only_pass = vec![];
            let (mut plain_cpu, mut words_cpu) = (vec![], vec![]);
            let mut last = None;
            for _ in 0..3 {
                let (started, cpu) = (Instant::now(), cpu_time());
                let plain = transcribe(model, &samples, &plain_params);
                plain_times.push(started.elapsed());
                plain_cpu.push(cpu_time() - cpu);
                let (started, cpu) = (Instant::now(), cpu_time());
                let worded = transcribe(model, &samples, &word_params);
                with_words.push(started.elapsed());
                words_cpu.push(cpu_time() - cpu);
                word_pass.push(worded.timings.words);
                assert!(plain.segments.iter().all(|s| s.words.is_empty()));
                assert_eq!(
                    plain.text, worded.text,
                    "{clip}: word times changed the text"
                );
                let times = |t: &Transcript| {
                    t.segments
                        .iter()
                        .map(|s| (s.start, s.end, s.tokens.clone()))
                        .collect::<Vec<_>>()
                };
                assert_eq!(times(&plain), times(&worded), "{clip}: segments changed");
                assert!(worded.segments.iter().all(|s| !s.words.is_empty()));
                let timed = transcribe(model, &samples, &times_only);
                times_only_pass.push(timed.timings.words);
                let words_of = |t: &Transcript| {
                    t.segments
                        .iter()
                        .flat_map(|s| &s.words)
                        .map(|w| (w.text.clone(), w.start, w.end))
                        .collect::<Vec<_>>()
                };
                assert_eq!(
                    words_of(&timed),
                    words_of(&worded),
                    "{clip}: leaving out the probabilities moved a word"
                );
                let all_words = |t: &Transcript| t.segments.iter().flat_map(|s| &s.words).count();
                let with_probability = |t: &Transcript| {
                    t.segments
                        .iter()
                        .flat_map(|s| &s.words)
                        .filter(|w| w.probability.is_some())
                        .count()
                };
                assert_eq!(with_probability(&worded), all_words(&worded));
                assert_eq!(
                    with_probability(&timed),
                    0,
                    "{clip}: probabilities not asked for"
                );
                last = Some(worded);
            }
            let median_of = |v: &mut Vec<Duration>| {
                v.sort();
                v[1]
            };
            let (plain, worded, pass, times_pass) = (
                median_of(&mut plain_times),
                median_of(&mut with_words),
                median_of(&mut word_pass),
                median_of(&mut times_only_pass),
            );
            let words = last
                .map(|t| t.segments.iter().map(|s| s.words.len()).sum::<usize>())
                .unwrap_or(0);
            let (plain_cpu, words_cpu) = (median_of(&mut plain_cpu), median_of(&mut words_cpu));
            println!(
                "{model} {clip} ({padding:?}) CPU time: transcription {:.0} ms, with word times \
                 {:.0} ms (+{:.0}%)",
                plain_cpu.as_secs_f64() * 1e3,
                words_cpu.as_secs_f64() * 1e3,
                100.0 * (words_cpu.as_secs_f64() / plain_cpu.as_secs_f64() - 1.0)
            );
            println!(
                "{model} {clip} ({:.1} s, {padding:?}, {words} words): transcription {:.0} ms, \
                 with word times {:.0} ms, word-time pass {:.0} ms ({:.0}% of the transcription), \
                 without probabilities {:.0} ms",
                samples.len() as f32 / 16_000.0,
                plain.as_secs_f64() * 1e3,
                worded.as_secs_f64() * 1e3,
                pass.as_secs_f64() * 1e3,
                100.0 * pass.as_secs_f64() / plain.as_secs_f64(),
                times_pass.as_secs_f64() * 1e3,
            );
        }
    }
}

/// The GPUs' decoder cache (preallocated, attended through a mask) gives the same words and
/// times as the CPU's growing one: the alignment pass runs through either.
#[test]
fn word_times_are_the_same_with_the_fixed_decoder_cache() {
    use whisper_dictation::whisper::CacheLayout;
    let samples = read_wav_16k(&common::fixtures().join("clips/en_kal.wav")).unwrap();
    let params = params(PaddingEncoding::Full, true);
    let mut engine = common::engine("base");
    let growing = engine.transcribe(&samples, &params).unwrap();
    engine.set_cache_layout(CacheLayout::Fixed);
    let fixed = engine.transcribe(&samples, &params);
    engine.set_cache_layout(CacheLayout::Growing);
    let fixed = fixed.unwrap();
    let words = |t: &Transcript| -> Vec<_> {
        t.segments
            .iter()
            .flat_map(|s| &s.words)
            .map(|w| (w.text.clone(), w.start, w.end))
            .collect()
    };
    assert!(!words(&growing).is_empty());
    assert_eq!(words(&growing), words(&fixed));
}
