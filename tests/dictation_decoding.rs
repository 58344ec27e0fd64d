//! Decoding for dictation (`TranscribeParams::for_dictation`): bounded work on any input and no
//! garbage, without changing what real speech gives. On every speech clip the text equals
//! OpenAI's rules' text; on unintelligible audio (time-reversed speech, where OpenAI's rules
//! try all six temperatures and keep mixed-script gibberish) it gives nothing.

mod common;

use whisper_dictation::audio::wav::read_wav_16k;
use whisper_dictation::whisper::{language, TranscribeParams, Transcript};

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

/// A Polish reply alone ("Tak.", espeak-ng's Polish voice, 1.4 s with its quiet) is too short
/// for detection among `pl,en` to be sure (it says English, "Talk."): the person's recent
/// language, given as `language_when_unsure`, is taken instead. A sure detection (a whole
/// sentence) is not overridden, and a recent language detection did not weigh is not taken.
#[test]
fn an_unsure_detection_on_a_short_clip_takes_the_recent_language() {
    let reply =
        read_wav_16k(&common::fixtures().join("replies_pl").join("tak_espeak.wav")).unwrap();
    let detecting = |audio: &[f32], recent: Option<&str>| {
        let mut params = TranscribeParams {
            detect_among: vec!["pl".into(), "en".into()],
            language_when_unsure: recent.map(str::to_string),
            ..TranscribeParams::default()
        }
        .for_dictation(audio.len() as f32 / 16_000.0);
        params.fallback_time_budget = None;
        let t = run(audio, &params);
        println!(
            "{recent:?}: {} at {:?}, {:?}",
            t.language, t.language_probability, t.text
        );
        t
    };
    let alone = detecting(&reply, None);
    let seconds = reply.len() as f32 / 16_000.0;
    assert!(!language::is_sure(
        alone.language_probability.unwrap(),
        seconds
    ));
    let recent_polish = detecting(&reply, Some("pl"));
    assert_eq!(
        (recent_polish.language.as_str(), recent_polish.text.trim()),
        ("pl", "Tak.")
    );
    assert_eq!(detecting(&reply, Some("en")).language, "en");
    // Not among those weighed: detection's own first.
    assert_eq!(detecting(&reply, Some("de")).language, alone.language);

    let sentence = clip("en_kal.wav");
    let sure = detecting(&sentence, Some("pl"));
    assert_eq!(
        (sure.language.as_str(), sure.text.is_empty()),
        ("en", false)
    );
}
