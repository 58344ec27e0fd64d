//! The fixed-shape decoder cache (what GPUs use, so no backend re-plans or recompiles per
//! token) computes what the growing cache (the CPU's, checked token for token against
//! faster-whisper by tests/parity.rs) computes: the same tokens on real speech, greedy and with
//! beam search (which reorders the cache), short and long-form.

mod common;

use whisper_dictation::audio::wav::read_wav_16k;
use whisper_dictation::whisper::{CacheLayout, Engine, LoadOptions, TranscribeParams};

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
