//! Token-level parity with the reference implementation. For every clip in
//! `tests/fixtures/clips`, faster-whisper (CTranslate2, float32, greedy, temperature 0, no
//! timestamps) produced the tokens of each 30 s window and, at every step, its two best tokens
//! with their log-probabilities (`scripts/gen-parity-fixtures.py`). Our engine, on the same real
//! weights and the same audio, must produce the same tokens. Where it does not, the first
//! differing step must be a numerical near-tie in the reference (its two best tokens within
//! 1e-3 in log-probability, ours being one of them); anything else is a bug.

mod common;

use serde::Deserialize;
use std::collections::BTreeMap;
use whisper_dictation::audio::wav::read_wav_16k;
use whisper_dictation::whisper::{Task, TranscribeParams, Transcript};

const NEAR_TIE: f64 = 1e-3;

#[derive(Deserialize)]
struct Fixture {
    clip: String,
    options: Options,
    text: String,
    windows: Vec<Window>,
}

#[derive(Deserialize)]
struct Options {
    language: Option<String>,
}

#[derive(Deserialize)]
struct Window {
    seek_frames: usize,
    kept: bool,
    tokens: Vec<u32>,
    /// `[top1_id, top1_logprob, top2_id, top2_logprob]` per generated step.
    steps: Vec<(u32, f64, u32, f64)>,
    no_speech_prob: f32,
}

/// What comparing one clip found.
enum Outcome {
    Identical,
    /// Diverged at a reference near-tie (window, step, margin).
    NearTie(usize, usize, f64),
}

fn params(fixture: &Fixture) -> TranscribeParams {
    TranscribeParams {
        language: fixture.options.language.clone(),
        task: Task::Transcribe,
        temperatures: vec![0.0],
        beam_size: None,
        without_timestamps: true,
        condition_on_previous_text: true,
        ..TranscribeParams::default()
    }
}

/// Our tokens per window start (frame), from the segments we kept.
fn tokens_by_window(t: &Transcript) -> BTreeMap<usize, Vec<u32>> {
    let mut by_seek: BTreeMap<usize, Vec<u32>> = BTreeMap::new();
    for s in &t.segments {
        by_seek.entry(s.seek).or_default().extend(&s.tokens);
    }
    by_seek
}

fn compare(fixture: &Fixture, ours: &Transcript) -> Result<Outcome, String> {
    let by_window = tokens_by_window(ours);
    for (w, window) in fixture.windows.iter().enumerate() {
        let empty = Vec::new();
        let mine = by_window.get(&window.seek_frames).unwrap_or(&empty);
        let theirs: &[u32] = if window.kept { &window.tokens } else { &[] };
        if mine.as_slice() == theirs {
            continue;
        }
        let step = mine
            .iter()
            .zip(theirs)
            .position(|(a, b)| a != b)
            .unwrap_or(mine.len().min(theirs.len()));
        let Some(&(top1, lp1, top2, lp2)) = window.steps.get(step) else {
            return Err(format!(
                "window {w}: tokens differ at step {step} past the reference's steps\n ours: {mine:?}\n ref:  {theirs:?}"
            ));
        };
        let margin = lp1 - lp2;
        let ours_at = mine.get(step).copied();
        let ours_is_runner_up = ours_at == Some(top2) || ours_at.is_none();
        if margin < NEAR_TIE && ours_is_runner_up {
            return Ok(Outcome::NearTie(w, step, margin));
        }
        return Err(format!(
            "window {w} (seek {}): first difference at step {step}: ours {ours_at:?}, reference {top1} \
             (runner-up {top2}, margin {margin:.5}, not a near-tie)\n ours: {mine:?}\n ref:  {theirs:?}",
            window.seek_frames
        ));
    }
    Ok(Outcome::Identical)
}

fn check_clip(model: &'static str, clip: &str) {
    let path = common::fixtures().join(format!("parity/{model}/{clip}.json"));
    let fixture: Fixture = serde_json::from_str(
        &std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())),
    )
    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let audio = read_wav_16k(&common::fixtures().join("clips").join(&fixture.clip)).unwrap();
    let ours = {
        let engine = common::engine(model);
        engine.transcribe(&audio, &params(&fixture)).unwrap()
    };
    println!("{model}/{clip}: ours      {:?}", ours.text.trim());
    println!("{model}/{clip}: reference {:?}", fixture.text);
    match compare(&fixture, &ours) {
        Ok(Outcome::Identical) => {
            assert_eq!(ours.text.trim(), fixture.text.trim());
            // The no-speech probability comes from the same forward pass: close, not bit-equal.
            for (w, window) in fixture.windows.iter().enumerate() {
                if let Some(seg) = ours.segments.iter().find(|s| s.seek == window.seek_frames) {
                    let diff = (seg.no_speech_prob - window.no_speech_prob).abs();
                    assert!(
                        diff < 2e-3,
                        "window {w}: no_speech_prob {} vs {}",
                        seg.no_speech_prob,
                        window.no_speech_prob
                    );
                }
            }
        }
        Ok(Outcome::NearTie(w, step, margin)) => {
            println!("{model}/{clip}: diverged at window {w} step {step}, a reference near-tie (margin {margin:.2e})");
        }
        Err(msg) => panic!("{model}/{clip}: {msg}"),
    }
}

macro_rules! parity_tests {
    ($model:literal => $($name:ident: $clip:literal),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                check_clip($model, $clip);
            }
        )*
    };
}

mod base {
    use super::check_clip;
    parity_tests!("base" =>
        en_kal: "en_kal",
        en_slt: "en_slt",
        en_awb: "en_awb",
        en_rms: "en_rms",
        en_fest_slt_hts: "en_fest_slt_hts",
        en_espeak: "en_espeak",
        pl_espeak_language_forced: "pl_espeak",
        en_noisy_pink10db: "en_noisy_pink10db",
        silence: "silence_5s",
        near_silence: "near_silent_5s",
        long_form_50s: "en_long_50s",
    );
}

mod tiny_en {
    use super::check_clip;
    parity_tests!("tiny.en" =>
        en_kal: "en_kal",
        en_slt: "en_slt",
        en_awb: "en_awb",
        en_rms: "en_rms",
        en_fest_slt_hts: "en_fest_slt_hts",
        en_espeak: "en_espeak",
        en_noisy_pink10db: "en_noisy_pink10db",
        silence_is_empty: "silence_5s",
        near_silence_is_empty: "near_silent_5s",
        long_form_50s: "en_long_50s",
    );
}

/// Silence must give no text at all on the English-only model (the reference's result too).
#[test]
fn pure_silence_pastes_nothing_on_tiny_en() {
    let audio = vec![0.0f32; 16_000 * 5];
    let engine = common::engine("tiny.en");
    let t = engine
        .transcribe(&audio, &TranscribeParams::default())
        .unwrap();
    assert_eq!(t.text.trim(), "");
    assert!(t.segments.is_empty());
}
