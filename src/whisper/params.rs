//! Everything a transcription call can be told, in one struct with OpenAI's defaults
//! (`whisper/transcribe.py` `transcribe()` and `whisper/decoding.py` `DecodingOptions`).

use serde::{Deserialize, Serialize};

/// Transcribe in the spoken language, or translate into English.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Task {
    #[default]
    Transcribe,
    Translate,
}

/// Which tokens are never sampled (OpenAI `suppress_tokens`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum SuppressTokens {
    /// OpenAI's `"-1"`: the model's `suppress_ids` (non-speech symbols such as `♪`, `[`, `(`),
    /// or, when the model does not list them, the same set computed from the tokenizer.
    #[default]
    ModelDefault,
    /// Only these ids (plus the special tokens that are always suppressed).
    Only(Vec<u32>),
    /// The model default plus these ids.
    DefaultAnd(Vec<u32>),
}

/// Parameters of one call to [`crate::whisper::Engine::transcribe`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TranscribeParams {
    /// Spoken language as a code (`"pl"`, `"en"`) or English name; `None` detects it from the
    /// first 30 s. English-only models always use English.
    pub language: Option<String>,
    /// When detecting, choose only among these languages (e.g. `["pl", "en"]`); empty = all.
    /// Short Polish clips are otherwise often detected as English.
    pub detect_among: Vec<String>,
    /// When detecting: the language taken when detection is unsure
    /// ([`crate::whisper::language::is_sure`]) and this language was among those it weighed
    /// (the app gives the person's recent language). `None`: detection's first, however unsure.
    pub language_when_unsure: Option<String>,
    /// Transcribe, or translate into English.
    pub task: Task,
    /// Temperatures tried in order while a window's result fails the thresholds below
    /// (OpenAI: 0.0, 0.2, … 1.0). The first is used alone when the list has one element.
    pub temperatures: Vec<f32>,
    /// Beam search width at temperature 0; `None` = greedy (OpenAI's library default).
    pub beam_size: Option<usize>,
    /// Beam search patience (OpenAI: `None` = 1.0): stop after `beam_size × patience` endings.
    pub patience: Option<f32>,
    /// Sampled candidates per window at temperature > 0 (OpenAI `best_of`, `None` = 1).
    pub best_of: Option<usize>,
    /// Ranking: `None` divides the log-probability by the length, `Some(α)` uses Google NMT's
    /// `((5 + len) / 6)^α`.
    pub length_penalty: Option<f32>,
    /// A window whose text compresses better than this (gzip ratio) is repetitive: retry hotter.
    pub compression_ratio_threshold: Option<f32>,
    /// A window whose average token log-probability is below this is unreliable: retry hotter.
    pub logprob_threshold: Option<f32>,
    /// A window with a no-speech probability above this and a low log-probability is silence:
    /// it yields no text (the defence against "Thank you." on silence).
    pub no_speech_threshold: Option<f32>,
    /// Feed the previous window's text as the prompt of the next (consistency across windows).
    pub condition_on_previous_text: bool,
    /// Above this temperature the prompt is reset (OpenAI: 0.5).
    pub prompt_reset_on_temperature: f32,
    /// Text that primes the first window: custom vocabulary, names, style.
    pub initial_prompt: Option<String>,
    /// Text forced at the start of the first window's output.
    pub prefix: Option<String>,
    /// Tokens never sampled.
    pub suppress_tokens: SuppressTokens,
    /// Forbid a blank or EOT as the first sampled token.
    pub suppress_blank: bool,
    /// Sample text only; windows then advance by a whole 30 s.
    pub without_timestamps: bool,
    /// Latest allowed first timestamp in seconds (OpenAI: 1.0).
    pub max_initial_timestamp: Option<f32>,
    /// Maximum tokens sampled per window (`None` = half the text context, 224).
    pub sample_len: Option<usize>,
    /// Seed of the sampler used at temperature > 0, so results are reproducible.
    pub seed: u64,
    /// Which attempt a window keeps when every temperature failed the thresholds.
    pub fallback_choice: FallbackChoice,
    /// At most this many tokens per second of a window's audio (plus
    /// [`TOKEN_BUDGET_MARGIN`]), on top of `sample_len`: speech needs about 4–5 per second
    /// with timestamps, so a short utterance cannot decode hundreds of hallucinated tokens.
    /// `None` = no budget (OpenAI).
    pub max_tokens_per_second: Option<f32>,
    /// No hotter attempt starts once the transcription has run this long; the window keeps
    /// what it has (by `fallback_choice`). `None` = no limit (OpenAI).
    pub fallback_time_budget: Option<std::time::Duration>,
    /// How a window holding less than 30 s of audio is encoded.
    pub padding: PaddingEncoding,
    /// Give each segment its words with their times ([`crate::whisper::words`]): one more
    /// decoder pass per window over its text. Off by default (OpenAI's `word_timestamps`).
    pub word_times: bool,
    /// With [`Self::word_times`], each word's probability too (OpenAI's): logits over the
    /// whole vocabulary for every text token, about a third of the word-time pass. On by
    /// default; the app's streamed passes, which read only the times, leave them out.
    pub word_probabilities: bool,
    /// The tokens the first window is expected to decode to, e.g. the previous pass's over the
    /// same audio while a dictation is transcribed as it is spoken: checked in one decoder call
    /// instead of decoded a step per token, with the same result
    /// ([`crate::whisper::decode::WindowOptions::draft`]). Empty: none.
    pub draft: Vec<u32>,
    /// The draft is of audio that starts before or after this audio (the pass before started
    /// elsewhere): it is searched for in what is decoded instead of followed from the start.
    pub draft_elsewhere: bool,
}

impl TranscribeParams {
    /// What push-to-talk dictation wants on top of these parameters: bounded work on any input
    /// and no garbage. A window keeps its best attempt, or nothing when even that is below the
    /// thresholds; at most [`DICTATION_TOKENS_PER_SECOND`] tokens per second of audio; no new
    /// fallback attempt after [`dictation_fallback_budget`] of the audio's length.
    pub fn for_dictation(mut self, audio_seconds: f32) -> Self {
        self.fallback_choice = FallbackChoice::BestIfReliable;
        self.max_tokens_per_second = Some(DICTATION_TOKENS_PER_SECOND);
        self.fallback_time_budget = Some(dictation_fallback_budget(audio_seconds));
        self
    }
}

/// Fast speech is about 3.5 words (~4.5 tokens) per second with timestamps; twice that leaves
/// room for every real utterance and cuts a hallucination loop short.
pub const DICTATION_TOKENS_PER_SECOND: f32 = 8.0;

/// How long fallback attempts may keep starting: 1.5 s plus half the audio's length, so a short
/// unintelligible utterance gives up within seconds while long dictations keep their retries.
pub fn dictation_fallback_budget(audio_seconds: f32) -> std::time::Duration {
    std::time::Duration::from_secs_f32(1.5 + 0.5 * audio_seconds.max(0.0))
}

/// Tokens every window may use on top of its per-second budget (the task and timestamp
/// tokens of a short utterance).
pub const TOKEN_BUDGET_MARGIN: usize = 12;

/// How the encoder treats the padding of a window that holds less than 30 s of audio (Whisper
/// always sees 30 s windows; short audio is padded with silence).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PaddingEncoding {
    /// Encoded with the audio, as the reference does: every window costs a full 30 s pass.
    #[default]
    Full,
    /// When the whole audio fits in one window: only the audio and a margin after it are
    /// encoded, and the padding takes the states it has after a built-in speech primer
    /// ([`crate::whisper::model::Whisper::encode_audio_while`]). A 4.5 s utterance's encoder
    /// costs about a quarter of a full window's; the words are the same on most audio, but
    /// not all (a borderline word can flip). Longer audio is encoded in full.
    Primed,
}

/// The attempt kept when all temperatures fail the compression or log-probability thresholds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FallbackChoice {
    /// The last, hottest attempt (OpenAI's reference). On hard audio that is often
    /// mixed-script gibberish.
    #[default]
    Hottest,
    /// The attempt with the highest average log-probability among those under the compression
    /// threshold, else among all (faster-whisper).
    Best,
    /// [`FallbackChoice::Best`], but no text at all when even that attempt is below the
    /// log-probability threshold: what a dictation app wants (nothing beats garbage).
    BestIfReliable,
}

impl Default for TranscribeParams {
    fn default() -> Self {
        Self {
            language: None,
            detect_among: Vec::new(),
            language_when_unsure: None,
            task: Task::Transcribe,
            temperatures: vec![0.0, 0.2, 0.4, 0.6, 0.8, 1.0],
            beam_size: None,
            patience: None,
            best_of: None,
            length_penalty: None,
            compression_ratio_threshold: Some(2.4),
            logprob_threshold: Some(-1.0),
            no_speech_threshold: Some(0.6),
            condition_on_previous_text: true,
            prompt_reset_on_temperature: 0.5,
            initial_prompt: None,
            prefix: None,
            suppress_tokens: SuppressTokens::ModelDefault,
            suppress_blank: true,
            without_timestamps: false,
            max_initial_timestamp: Some(1.0),
            sample_len: None,
            seed: 0,
            fallback_choice: FallbackChoice::Hottest,
            max_tokens_per_second: None,
            fallback_time_budget: None,
            padding: PaddingEncoding::Full,
            word_times: false,
            word_probabilities: true,
            draft: Vec::new(),
            draft_elsewhere: false,
        }
    }
}
