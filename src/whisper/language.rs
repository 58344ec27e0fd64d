//! Which language a transcription that detects it takes ([`choose`]): the one Whisper's
//! detection ranks first, unless detection is unsure ([`is_sure`]) and the caller named a
//! language for that case ([`TranscribeParams::language_when_unsure`]: the app gives the one
//! the person's recent dictations agree on).
//!
//! Why: detection on a second or so of speech is a guess. On the project's clips (`base`,
//! among `pl,en`, the app's decoding), the first 0.8 s of the Polish clip with 0.3 s of quiet
//! was detected as English at 0.92 ("YOTA"), and over about 200 cuts of 0.6–3.0 s the wrong
//! detections came on 0.6–0.9 s (English, at 0.64–0.97) and once on 1.6 s (Polish, at 0.52);
//! every detection at 0.9 or more over more than a second of speech was right, and right ones
//! on 1–1.8 s came as low as 0.62. A Polish "Tak." alone is under a second: users of other
//! apps see it typed as English. Over [`LANGUAGE_HEARD_ENOUGH`] detection is taken however
//! sure it is: there it has heard what a longer recording's would.

use super::params::TranscribeParams;
use super::tokenizer::{self, Tokenizer};

/// Detection at this probability or more is sure, over [`LANGUAGE_HEARD`] or more.
pub const LANGUAGE_SURE: f32 = 0.9;
/// Seconds of audio (or, where the caller knows it, of speech) detection must have heard to
/// be sure.
pub const LANGUAGE_HEARD: f32 = 1.5;

/// Over this many seconds detection is sure however probable its language.
pub const LANGUAGE_HEARD_ENOUGH: f32 = 5.0;

/// Whether a detection at `probability` over `seconds` of audio (or speech) is sure.
pub fn is_sure(probability: f32, seconds: f32) -> bool {
    seconds >= LANGUAGE_HEARD_ENOUGH || (probability >= LANGUAGE_SURE && seconds >= LANGUAGE_HEARD)
}

/// The language (code) and its probability, from `detected` (language token ids with their
/// probabilities, highest first) over `content_frames` mel frames (100 a second): the first,
/// or `params.language_when_unsure` when the first is not sure and that language was among
/// those detection weighed (with its own probability). English with no probability when
/// nothing was detected (no audio).
pub fn choose(
    detected: &[(u32, f32)],
    tokenizer: &Tokenizer,
    params: &TranscribeParams,
    content_frames: usize,
) -> (Option<String>, Option<f32>) {
    let specials = tokenizer.specials();
    let Some(&(first, p)) = detected.first() else {
        return (Some("en".to_string()), None);
    };
    let seconds = content_frames as f32 / 100.0;
    let fallback = params
        .language_when_unsure
        .as_deref()
        .and_then(tokenizer::lookup_language)
        .and_then(|code| specials.language(code))
        .filter(|_| !is_sure(p, seconds))
        .and_then(|id| detected.iter().find(|(weighed, _)| *weighed == id));
    let (id, p) = fallback.copied().unwrap_or((first, p));
    let code = specials.language_code(id).unwrap_or("en");
    (Some(code.to_string()), Some(p))
}
