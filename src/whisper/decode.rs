//! Decoding one 30-second window (OpenAI's `DecodingTask`): build the initial tokens (prompt,
//! start-of-transcript, language, task), run the decoder one token at a time on its key-value
//! cache, filter the logits, choose tokens (greedy, sampling or beam search), and rank the
//! candidates. Also language detection, which is one decoder step on the same window.

use super::draft::Draft;
use super::model::{AudioKeys, DecoderState, ModelError, Whisper};
use super::params::Task;
use super::rules::{log_softmax, LogitRules};
use super::search::{best_candidate, BeamSearch, Candidate, Greedy, Search, SplitMix64};
use super::step_threads::FewerThreads;
use super::tokenizer::{SpecialTokens, Tokenizer};
use flate2::{write::ZlibEncoder, Compression};
use std::collections::VecDeque;
use std::io::Write;
use tch::{Kind, Tensor};

/// How to decode one window (a resolved subset of [`super::params::TranscribeParams`]).
#[derive(Debug, Clone)]
pub struct WindowOptions {
    pub task: Task,
    /// Language token id (multilingual models), `None` for English-only models.
    pub language_token: Option<u32>,
    pub temperature: f32,
    pub sample_len: usize,
    /// Beam width at temperature 0 (`None` = greedy).
    pub beam_size: Option<usize>,
    pub patience: f32,
    /// Sampled candidates at temperature > 0.
    pub best_of: usize,
    pub length_penalty: Option<f32>,
    /// Previous text (already truncated or not: it is cut to the last `n_text_ctx/2 - 1`).
    pub prompt: Vec<u32>,
    /// Tokens forced at the start of the output (fed, not returned, as in OpenAI).
    pub prefix: Vec<u32>,
    /// The tokens this window is expected to decode to (timestamps included, end-of-text not):
    /// the previous pass's over the same audio. Greedy decoding at temperature 0 feeds them
    /// with the first tokens in one decoder call and keeps each while it is the token the
    /// decoder chooses after the ones before it; at the first it would not choose, the cache
    /// is cut back there and decoding goes on a step at a time. The result is the one without
    /// a draft (up to the order of float sums); an agreeing pass costs one batched call instead
    /// of a call per token. Ignored by beam search and sampling.
    pub draft: Vec<u32>,
    /// The draft is of audio that starts before or after this window's (a pass whose start
    /// moved): it is searched for once two tokens have been decoded.
    pub draft_elsewhere: bool,
    pub suppress: Vec<u32>,
    pub suppress_at_begin: Vec<u32>,
    pub without_timestamps: bool,
    pub max_initial_timestamp_index: Option<u32>,
    pub seed: u64,
}

/// The chosen candidate of one window.
#[derive(Debug, Clone, PartialEq)]
pub struct WindowResult {
    /// Sampled tokens (timestamps included, EOT excluded).
    pub tokens: Vec<u32>,
    pub text: String,
    /// Sum of log-probabilities divided by (tokens + 1), as OpenAI.
    pub avg_logprob: f32,
    /// Probability of the no-speech token at the start-of-transcript position.
    pub no_speech_prob: f32,
    pub temperature: f32,
    /// gzip ratio of the text: high means repetitive.
    pub compression_ratio: f32,
    /// Tokens of [`WindowOptions::draft`] the decoder chose (decoded without a step of their own).
    pub drafted: usize,
}

/// The tokens fed before sampling begins, and where the start-of-transcript token is.
#[derive(Debug, Clone, PartialEq)]
pub struct InitialTokens {
    pub tokens: Vec<u32>,
    pub sot_index: usize,
}

/// `[sot_prev, prompt…]? sot [language task]? [no_timestamps]? prefix…` as OpenAI builds it.
pub fn initial_tokens(
    specials: &SpecialTokens,
    opts: &WindowOptions,
    n_text_ctx: usize,
) -> InitialTokens {
    let mut tokens = Vec::new();
    if !opts.prompt.is_empty() {
        let keep = (n_text_ctx / 2).saturating_sub(1);
        let from = opts.prompt.len().saturating_sub(keep);
        tokens.push(specials.sot_prev);
        tokens.extend_from_slice(&opts.prompt[from..]);
    }
    let sot_index = tokens.len();
    tokens.push(specials.sot);
    if let Some(lang) = opts.language_token {
        tokens.push(lang);
        let task = match opts.task {
            Task::Transcribe => specials.transcribe,
            Task::Translate => specials.translate,
        };
        tokens.extend(task);
    }
    if opts.without_timestamps {
        tokens.push(specials.no_timestamps);
    }
    if !opts.prefix.is_empty() {
        let keep = (n_text_ctx / 2).saturating_sub(1);
        let from = opts.prefix.len().saturating_sub(keep);
        tokens.extend_from_slice(&opts.prefix[from..]);
    }
    InitialTokens { tokens, sot_index }
}

/// Decodes one window whose cross-attention keys/values are `keys`
/// ([`Whisper::audio_keys`] of the encoder's output), asking `keep_going` before each step:
/// [`ModelError::Stopped`] when it says stop.
pub fn decode_window(
    model: &Whisper,
    tokenizer: &Tokenizer,
    keys: &AudioKeys,
    opts: &WindowOptions,
    keep_going: &mut dyn FnMut() -> bool,
) -> Result<WindowResult, ModelError> {
    let specials = tokenizer.specials();
    let n_text_ctx = model.dims().n_text_ctx;
    let init = initial_tokens(specials, opts, n_text_ctx);
    let sample_begin = init.tokens.len();
    let rules = logit_rules(specials, opts, sample_begin);
    let (rows, mut search) = search_for(opts, specials.eot);
    let greedy_at_zero =
        rows == 1 && matches!(search, Search::Greedy(_)) && opts.temperature == 0.0;
    let mut draft = Draft::new(
        if greedy_at_zero { &opts.draft } else { &[] },
        specials.timestamp_begin,
        opts.draft_elsewhere,
    );
    // Room for tokens fed after `fed` decoded ones: the text context, and the step budget.
    let room = |fed: usize| n_text_ctx.saturating_sub(fed + 1).min(opts.sample_len);

    let mut state = model.start_decoding_with(keys, rows)?;
    let mut tokens: Vec<Vec<u32>> = vec![init.tokens.clone(); rows];
    let mut sum_logprobs = vec![0.0f64; rows];
    let mut no_speech_prob = f32::NAN;

    // Draft tokens fed after the last decoded one, not checked yet.
    let mut in_flight: VecDeque<u32> = draft.propose(room(sample_begin)).iter().copied().collect();
    let first: Vec<Vec<u32>> = tokens
        .iter()
        .map(|row| row.iter().chain(&in_flight).copied().collect())
        .collect();
    let hidden = model.decode(&token_tensor(&first, 0), &mut state)?;
    // Each step's logits, one per row: the first step's, then one after each token in flight.
    let (mut queued, sot_logits) = first_logits(model, &hidden, init.sot_index, sample_begin - 1)?;
    if let Some(no_speech) = specials.no_speech {
        no_speech_prob = log_softmax(&sot_logits)
            .get(no_speech as usize)
            .map_or(0.0, |lp| lp.exp());
    }
    for _ in 0..opts.sample_len {
        if !keep_going() {
            return Err(ModelError::Stopped);
        }
        let mut logits = match queued.pop_front() {
            Some(logits) => logits,
            None => {
                let fed_from = tokens[0].len() - 1;
                in_flight = draft
                    .propose(room(tokens[0].len()))
                    .iter()
                    .copied()
                    .collect();
                let mut fed = tokens.clone();
                fed[0].extend(&in_flight);
                // One token of one row: a product too small to share out.
                let one_token = rows == 1 && in_flight.is_empty();
                let _threads = FewerThreads::limit(if one_token {
                    model.one_token_threads()
                } else {
                    None
                });
                let hidden = model.decode(&token_tensor(&fed, fed_from), &mut state)?;
                queued = positions_logits(model, &hidden)?;
                queued.pop_front().unwrap_or_default()
            }
        };
        for (row, row_logits) in logits.iter_mut().enumerate() {
            rules.apply(row_logits, &tokens[row]);
        }
        let outcome = search.update(&mut tokens, &logits, &mut sum_logprobs);
        if let (Some(proposed), Some(&chosen)) = (in_flight.pop_front(), tokens[0].last()) {
            if !draft.check(proposed, chosen) {
                // The cache holds the draft past the chosen token: cut back to the tokens
                // before it, which the next call feeds on.
                in_flight.clear();
                queued.clear();
                state.truncate(tokens[0].len() - 1)?;
            }
        }
        draft.follow(&tokens[0][sample_begin..]);
        if outcome.completed || tokens[0].len() > n_text_ctx {
            break;
        }
        if let Some(sources) = outcome.source_rows {
            reorder_if_needed(&mut state, &sources)?;
        }
    }

    let candidates = search.finalize(&tokens, &sum_logprobs, sample_begin);
    let mut result = choose(tokenizer, candidates, opts, no_speech_prob);
    result.drafted = draft.kept();
    Ok(result)
}

/// Language probabilities for the window whose keys/values are `keys`, restricted to
/// `allowed` token ids when not empty; sorted by probability, highest first.
pub fn detect_language(
    model: &Whisper,
    tokenizer: &Tokenizer,
    keys: &AudioKeys,
    allowed: &[u32],
) -> Result<Vec<(u32, f32)>, ModelError> {
    let specials = tokenizer.specials();
    let mut state = model.start_decoding_with(keys, 1)?;
    let hidden = model.decode(&token_tensor(&[vec![specials.sot]], 0), &mut state)?;
    let logits = last_position_logits(model, &hidden)?.remove(0);
    let language_ids: Vec<u32> = if allowed.is_empty() {
        specials.languages.iter().map(|(_, id)| *id).collect()
    } else {
        allowed.to_vec()
    };
    let mut masked = vec![f32::NEG_INFINITY; logits.len()];
    for &id in &language_ids {
        if let Some(l) = logits.get(id as usize) {
            masked[id as usize] = *l;
        }
    }
    let logprobs = log_softmax(&masked);
    let mut probs: Vec<(u32, f32)> = language_ids
        .iter()
        .filter(|&&id| (id as usize) < logprobs.len())
        .map(|&id| (id, logprobs[id as usize].exp()))
        .collect();
    probs.sort_by(|a, b| b.1.total_cmp(&a.1));
    Ok(probs)
}

/// gzip compression ratio of the text's UTF-8 bytes (OpenAI's `compression_ratio`, zlib level 6).
pub fn compression_ratio(text: &str) -> f32 {
    let bytes = text.as_bytes();
    if bytes.is_empty() {
        return 0.0;
    }
    let mut encoder = ZlibEncoder::new(Vec::new(), Compression::new(6));
    // Writing into a Vec cannot fail.
    let compressed = encoder
        .write_all(bytes)
        .and_then(|_| encoder.finish())
        .map(|c| c.len())
        .unwrap_or(bytes.len());
    bytes.len() as f32 / compressed.max(1) as f32
}

fn logit_rules(specials: &SpecialTokens, opts: &WindowOptions, sample_begin: usize) -> LogitRules {
    LogitRules {
        sample_begin,
        suppress_at_begin: opts.suppress_at_begin.clone(),
        suppress: opts.suppress.clone(),
        timestamps: (!opts.without_timestamps).then_some(super::rules::TimestampTokens {
            eot: specials.eot,
            no_timestamps: specials.no_timestamps,
            timestamp_begin: specials.timestamp_begin,
        }),
        max_initial_timestamp_index: opts.max_initial_timestamp_index,
    }
}

fn search_for(opts: &WindowOptions, eot: u32) -> (usize, Search) {
    match (opts.temperature == 0.0, opts.beam_size) {
        (true, Some(beam)) if beam > 1 => (
            beam,
            Search::Beam(BeamSearch::new(beam, opts.patience, eot)),
        ),
        (true, _) => (1, greedy(0.0, eot, opts.seed)),
        (false, _) => (
            opts.best_of.max(1),
            greedy(opts.temperature, eot, opts.seed),
        ),
    }
}

fn greedy(temperature: f32, eot: u32, seed: u64) -> Search {
    Search::Greedy(Greedy {
        temperature,
        eot,
        rng: SplitMix64::new(seed),
    })
}

fn choose(
    tokenizer: &Tokenizer,
    candidates: Vec<Candidate>,
    opts: &WindowOptions,
    no_speech_prob: f32,
) -> WindowResult {
    let best = best_candidate(&candidates, opts.length_penalty).unwrap_or(0);
    let Some(candidate) = candidates.into_iter().nth(best) else {
        return WindowResult {
            tokens: Vec::new(),
            text: String::new(),
            avg_logprob: f32::NEG_INFINITY,
            no_speech_prob,
            temperature: opts.temperature,
            compression_ratio: 0.0,
            drafted: 0,
        };
    };
    // As in OpenAI, a forced prefix belongs to the initial tokens, not to the output.
    let tokens = candidate.tokens;
    let text = tokenizer.decode(&tokens);
    WindowResult {
        avg_logprob: (candidate.sum_logprob / (tokens.len() as f64 + 1.0)) as f32,
        compression_ratio: compression_ratio(&text),
        tokens,
        text,
        no_speech_prob,
        temperature: opts.temperature,
        drafted: 0,
    }
}

fn reorder_if_needed(state: &mut DecoderState, sources: &[usize]) -> Result<(), ModelError> {
    let identity = sources.iter().enumerate().all(|(i, &s)| i == s);
    if identity {
        return Ok(());
    }
    let idx: Vec<i64> = sources.iter().map(|&s| s as i64).collect();
    state.reorder(&idx)
}

/// `[rows, len - from]` int64 tensor of each row's tokens from `from` on.
fn token_tensor(tokens: &[Vec<u32>], from: usize) -> Tensor {
    let rows = tokens.len() as i64;
    let flat: Vec<i64> = tokens
        .iter()
        .flat_map(|seq| seq[from..].iter().map(|&t| i64::from(t)))
        .collect();
    let cols = flat.len() as i64 / rows.max(1);
    Tensor::from_slice(&flat).view([rows, cols])
}

/// Logits of every position of `hidden` (`[1, n, d]`: one row, with tokens in flight), one
/// entry per position, or of the last position of each row (`[rows, 1, d]`).
fn positions_logits(model: &Whisper, hidden: &Tensor) -> Result<StepLogits, ModelError> {
    if hidden.size()[0] == 1 {
        return Ok(rows_to_vecs(&model.logits(hidden)?)?
            .into_iter()
            .map(|logits| vec![logits])
            .collect());
    }
    Ok(VecDeque::from([last_position_logits(model, hidden)?]))
}

fn last_position_logits(model: &Whisper, hidden: &Tensor) -> Result<Vec<Vec<f32>>, ModelError> {
    let n = hidden.size()[1];
    let last = hidden
        .f_narrow(1, n - 1, 1)
        .map_err(|source| ModelError::Torch {
            stage: "select last position",
            source,
        })?;
    let logits = model.logits(&last)?;
    rows_to_vecs(&logits)
}

/// Logits per decoding step still to be taken, each one vector per row.
type StepLogits = VecDeque<Vec<Vec<f32>>>;

/// Logits of the first call: each row's positions from `first_step` on (the first step's,
/// then one after each draft token fed with it), as one entry per step holding one vector per
/// row, and row 0's start-of-transcript position (for the no-speech probability), in one
/// projection so the embedding table is read once.
fn first_logits(
    model: &Whisper,
    hidden: &Tensor,
    sot_index: usize,
    first_step: usize,
) -> Result<(StepLogits, Vec<f32>), ModelError> {
    let n = hidden.size()[1];
    let mut wanted = vec![sot_index as i64];
    wanted.extend(first_step as i64..n);
    let per_row = wanted.len();
    let positions = Tensor::from_slice(&wanted).to_device(hidden.device());
    let picked = hidden
        .f_index_select(1, &positions)
        .map_err(|source| ModelError::Torch {
            stage: "select first-call positions",
            source,
        })?;
    let all = rows_to_vecs(&model.logits(&picked)?)?;
    let mut steps: StepLogits = (1..per_row).map(|_| Vec::new()).collect();
    let mut sot = Vec::new();
    for (i, logits) in all.into_iter().enumerate() {
        let (row, at) = (i / per_row, i % per_row);
        match at {
            0 if row == 0 => sot = logits,
            0 => {}
            at => steps[at - 1].push(logits),
        }
    }
    Ok((steps, sot))
}

/// `[rows, 1, vocab]` float logits → one `Vec<f32>` per row, on the CPU.
fn rows_to_vecs(logits: &Tensor) -> Result<Vec<Vec<f32>>, ModelError> {
    let torch = |source| ModelError::Torch {
        stage: "copy logits to the CPU",
        source,
    };
    let size = logits.size();
    let vocab = *size.last().unwrap_or(&0) as usize;
    let rows = logits
        .f_to_device(tch::Device::Cpu)
        .and_then(|l| l.f_to_kind(Kind::Float))
        .and_then(|l| l.f_contiguous())
        .and_then(|l| l.f_view([-1, vocab.max(1) as i64]))
        .map_err(torch)?;
    // Row by row: a draft's first call has ~40 rows of 51865 logits (8 MB), and a copy of
    // them all besides the rows held that much more at once.
    (0..rows.size()[0])
        .map(|row| Vec::<f32>::try_from(&rows.get(row)).map_err(torch))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compression_ratio_flags_repetition() {
        let normal = "Jutro o dziesiątej mamy spotkanie z klientem w sprawie umowy.";
        let looping = "Thank you. ".repeat(30);
        assert!(compression_ratio(normal) < 2.0);
        assert!(compression_ratio(&looping) > 2.4);
        assert_eq!(compression_ratio(""), 0.0);
    }
}
