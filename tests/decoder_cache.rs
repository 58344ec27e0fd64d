//! The fixed-shape decoder cache (what GPUs use, so no backend re-plans or recompiles per
//! token) computes what the growing cache (the CPU's, checked token for token against
//! faster-whisper by tests/parity.rs) computes: the same tokens on real speech, greedy and with
//! beam search (which reorders the cache), short and long-form. And a draft (the tokens a
//! window is expected to decode to, fed in one call and cut back where the decoder disagrees)
//! changes nothing but the work: the same tokens with any draft, on either cache.

mod common;

use whisper_dictation::audio::wav::read_wav_16k;
use whisper_dictation::whisper::{
    CacheLayout, Engine, LoadOptions, PaddingEncoding, TranscribeParams,
};

fn tokens(engine: &Engine, clip: &str, params: &TranscribeParams) -> Vec<Vec<u32>> {
    let audio = read_wav_16k(&common::fixtures().join("clips").join(clip)).unwrap();
    let transcript = engine.transcribe(&audio, params).unwrap();
    transcript.segments.into_iter().map(|s| s.tokens).collect()
}

#[test]
fn the_fixed_cache_gives_the_growing_caches_tokens() {
    let mut fixed = Engine::load(&common::model_dir("base"), &LoadOptions::default()).unwrap();
    assert_eq!(
        fixed.model().cache_layout(),
        CacheLayout::Growing,
        "the CPU's default"
    );
    fixed.set_cache_layout(CacheLayout::Fixed);
    let growing = common::engine("base");
    let greedy = TranscribeParams {
        language: Some("en".into()),
        ..TranscribeParams::default()
    };
    let beam = TranscribeParams {
        beam_size: Some(5),
        ..greedy.clone()
    };
    let polish = TranscribeParams {
        language: Some("pl".into()),
        ..TranscribeParams::default()
    };
    for (clip, params) in [
        ("en_kal.wav", &greedy),
        ("en_slt.wav", &greedy),
        ("en_noisy_pink10db.wav", &greedy),
        ("en_long_50s.wav", &greedy),
        ("en_awb.wav", &beam),
        ("pl_espeak.wav", &polish),
    ] {
        let want = tokens(&growing, clip, params);
        let got = tokens(&fixed, clip, params);
        assert!(!want.is_empty(), "{clip}");
        assert_eq!(got, want, "{clip}");
    }
}

/// The first window's tokens of `audio`, and how many of `draft` (of audio that starts
/// `elsewhere`, or not) were taken.
fn window_tokens(
    engine: &Engine,
    audio: &[f32],
    params: &TranscribeParams,
    (draft, elsewhere): (&[u32], bool),
) -> (Vec<u32>, usize) {
    let params = TranscribeParams {
        draft: draft.to_vec(),
        draft_elsewhere: elsewhere,
        ..params.clone()
    };
    let transcript = engine.transcribe(audio, &params).unwrap();
    let tokens = transcript
        .segments
        .iter()
        .filter(|s| s.seek == 0)
        .flat_map(|s| s.tokens.iter().copied())
        .collect();
    (tokens, transcript.timings.drafted)
}

#[test]
fn a_draft_changes_the_work_not_the_tokens_on_either_cache() {
    let mut fixed = Engine::load(&common::model_dir("base"), &LoadOptions::default()).unwrap();
    fixed.set_cache_layout(CacheLayout::Fixed);
    let growing = common::engine("base");
    let read = |clip: &str| read_wav_16k(&common::fixtures().join("clips").join(clip)).unwrap();
    let long = read("en_long_50s.wav");
    // A pass of the streamed dictation: one window, the app's short-audio encoding.
    let english = TranscribeParams {
        language: Some("en".into()),
        temperatures: vec![0.0],
        padding: PaddingEncoding::Primed,
        ..TranscribeParams::default()
    };
    let polish = TranscribeParams {
        language: Some("pl".into()),
        ..english.clone()
    };
    for (engine, layout) in [(&*growing, "growing"), (&fixed, "fixed")] {
        for (clip, audio, params) in [
            (
                "en_long_50s.wav, first 20 s",
                &long[..20 * 16_000],
                &english,
            ),
            ("pl_espeak.wav", &read("pl_espeak.wav")[..], &polish),
        ] {
            let (want, none) = window_tokens(engine, audio, params, (&[], false));
            assert!(want.len() > 20, "{layout}, {clip}: {want:?}");
            assert_eq!(none, 0);
            let half = want.len() / 2;
            let mut wrong_in_the_middle = want.clone();
            wrong_in_the_middle[half] = want[half - 1];
            let mut with_more_after = want.clone();
            with_more_after.extend_from_slice(&want[..5]);
            // What each draft must give at least, and at most, of its tokens.
            let drafts: [(&str, Vec<u32>, usize, usize); 4] = [
                ("the same tokens", want.clone(), want.len(), want.len()),
                ("its first half", want[..half].to_vec(), half, half),
                // Found again after the wrong token and the two after it.
                (
                    "a wrong token in the middle",
                    wrong_in_the_middle,
                    half,
                    want.len() - 1,
                ),
                (
                    "tokens past its end",
                    with_more_after,
                    want.len(),
                    want.len(),
                ),
            ];
            for (what, draft, least, most) in drafts {
                let (got, drafted) = window_tokens(engine, audio, params, (&draft, false));
                assert_eq!(got, want, "{layout}, {clip}, a draft of {what}");
                assert!(
                    (least..=most).contains(&drafted),
                    "{layout}, {clip}, a draft of {what}: {drafted} taken"
                );
            }
            // A pass that starts 2 s later with the pass before as its draft: the same words
            // but the first, other timestamps; the same tokens as without a draft, most of
            // them the draft's (a 5 s clip has too few words left to ask that of).
            if audio.len() < 10 * 16_000 {
                continue;
            }
            let later = &audio[2 * 16_000..];
            let (want_later, _) = window_tokens(engine, later, params, (&[], false));
            let (got_later, drafted) = window_tokens(engine, later, params, (&want, true));
            assert_eq!(got_later, want_later, "{layout}, {clip}, 2 s later");
            assert!(
                drafted * 2 > want_later.len(),
                "{layout}, {clip}, 2 s later: {drafted} of {} taken",
                want_later.len()
            );
        }
    }
}
