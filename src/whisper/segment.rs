//! One stretch of a transcript with its time span ([`Segment`]), as the decoding loop
//! (`transcribe`) makes it and the word-time pass (`words`) fills in its words ([`Word`]).

use serde::Serialize;

/// One stretch of text with its time span.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Segment {
    /// First mel frame of the window this segment came from.
    pub seek: usize,
    pub start: f32,
    pub end: f32,
    pub text: String,
    pub tokens: Vec<u32>,
    pub temperature: f32,
    pub avg_logprob: f32,
    pub compression_ratio: f32,
    pub no_speech_prob: f32,
    /// Its words with their times, when [`TranscribeParams::word_times`] asked for them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub words: Vec<Word>,
}

/// One word and when it was said, in seconds from the start of the transcribed audio.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Word {
    /// As written in the segment's text, with its leading space and merged punctuation.
    pub text: String,
    pub start: f32,
    pub end: f32,
    /// The mean of its tokens' probabilities (over the text tokens only) in the alignment pass;
    /// `None` when [`TranscribeParams::word_probabilities`](super::TranscribeParams::word_probabilities)
    /// did not ask for them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub probability: Option<f32>,
}
