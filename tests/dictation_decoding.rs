//! Decoding for dictation (`TranscribeParams::for_dictation`): bounded work on any input and no
//! garbage, without changing what real speech gives. On every speech clip the text equals
//! OpenAI's rules' text; on unintelligible audio (time-reversed speech, where OpenAI's rules
//! try all six temperatures and keep mixed-script gibberish) it gives nothing.

mod common;

use whisper_dictation::audio::wav::read_wav_16k;
use whisper_dictation::whisper::{TranscribeParams, Transcript};

fn clip(name: &str) -> Vec<f32> {
    read_wav_16k(&common::fixtures().join("clips").join(name)).unwrap()
}

fn run(audio: &[f32], params: &TranscribeParams) -> Transcript {
    common::engine("base").transcribe(audio, params).unwrap()
}

/// The dictation preset without its time budget, so the test does not depend on this
/// machine's speed (the budget only stops fallback attempts early).
fn dictation(language: &str, audio: &[f32]) -> TranscribeParams {
    let mut params = TranscribeParams {
        language: Some(language.into()),
        ..TranscribeParams::default()
    }
    .for_dictation(audio.len() as f32 / 16_000.0);
    params.fallback_time_budget = None;
    params
}

#[test]
fn real_speech_gives_the_same_text_as_openais_rules() {
    for (name, language) in [
        ("en_kal.wav", "en"),
        ("en_slt.wav", "en"),
        ("en_awb.wav", "en"),
        ("en_rms.wav", "en"),
        ("en_fest_slt_hts.wav", "en"),
        ("en_espeak.wav", "en"),
        ("en_noisy_pink10db.wav", "en"),
        ("pl_espeak.wav", "pl"),
        ("en_long_50s.wav", "en"),
    ] {
        let audio = clip(name);
        let reference = TranscribeParams {
            language: Some(language.into()),
            ..TranscribeParams::default()
        };
        let want = run(&audio, &reference).text;
        let got = run(&audio, &dictation(language, &audio)).text;
        assert!(!want.trim().is_empty(), "{name}");
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn unintelligible_audio_gives_nothing_instead_of_gibberish() {
    let mut reversed = clip("en_kal.wav");
    reversed.reverse();
    let reference = TranscribeParams {
        language: Some("en".into()),
        ..TranscribeParams::default()
    };
    let openai = run(&reversed, &reference);
    assert_eq!(openai.timings.attempts, 6, "every temperature was tried");
    assert!(
        !openai.text.trim().is_empty(),
        "OpenAI's rules keep the hottest attempt"
    );

    let ours = run(&reversed, &dictation("en", &reversed));
    assert_eq!(
        ours.text.trim(),
        "",
        "nothing rather than {:?}",
        openai.text
    );
    assert!(ours.segments.is_empty());
    // Each attempt was held to the token budget: 4.7 s × 8/s + 12.
    let budget = (reversed.len() as f32 / 16_000.0 * 8.0).ceil() as usize + 12;
    assert!(budget < 224);
}
