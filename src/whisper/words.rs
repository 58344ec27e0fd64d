//! Word times from the cross-attention alignment heads, as faster-whisper's
//! `word_timestamps=True` computes them (OpenAI's `whisper/timing.py` `find_alignment`, in the
//! form of CTranslate2's `Whisper.align`): after a window is decoded, the decoder runs once more
//! over `sot [language task] <|notimestamps|> text… <|endoftext|>` against the same
//! cross-attention keys/values (no new encoder work). The alignment heads' attention weights
//! (`softmax(q·kᵀ/√d)` over the audio's own encoder positions only, 20 ms each), normalised
//! over the tokens, median-filtered along time (width 7) and averaged over the heads, form a
//! token × time cost; dynamic time warping finds the monotonic path through it, and each token
//! starts where the path first enters its row. Tokens are grouped into words at space-prefixed
//! tokens (whole characters only; languages written without spaces split at every character),
//! punctuation is merged into its word, and faster-whisper's fix-ups for overlong words at
//! sentence and segment borders are applied.
//!
//! Opt-in ([`super::TranscribeParams::word_times`]): one decoder pass over a window's text
//! plus its vocabulary projection, measured in `tests/word_times.rs`. The windows, segments and
//! their times stay those of a transcription without word times (faster-whisper also moves the
//! next window's start to the last word's end; this does not).

use super::model::{AudioKeys, ModelError, Whisper};
use super::segment::{Segment, Word};
use super::tokenizer::Tokenizer;
use tch::{Kind, Tensor};

/// The median filter's width along time (OpenAI's and faster-whisper's default).
pub const MEDIAN_FILTER_WIDTH: usize = 7;
/// Encoder positions per second of audio (two mel frames of 10 ms each).
pub const TOKENS_PER_SECOND: f64 = 50.0;
/// Merged into the word after them (faster-whisper's `prepend_punctuations`).
pub const PREPEND_PUNCTUATIONS: &str = "\"'“¿([{-";
/// Merged into the word before them (faster-whisper's `append_punctuations`).
pub const APPEND_PUNCTUATIONS: &str = "\"'.。,，!！?？:：”)]}、";
const SENTENCE_END_MARKS: &str = ".。!！?？";
/// Python's `string.punctuation`.
const PUNCTUATION: &str = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";
/// Languages written without spaces between words: split at every whole character.
const NO_SPACE_LANGUAGES: [&str; 6] = ["zh", "ja", "th", "lo", "my", "yue"];

/// What [`add_word_times`] needs to know of the window's decoding.
pub struct WindowAlignment<'a> {
    /// `(decoder layer, head)` pairs that follow the audio in time.
    pub heads: &'a [(usize, usize)],
    /// `sot`, then the language and task tokens of multilingual models.
    pub sot_sequence: &'a [u32],
    /// The language code (chooses how tokens are grouped into words).
    pub language: &'a str,
    /// The window's audio, in mel frames (10 ms).
    pub num_frames: usize,
    /// The window's start in the audio, in seconds.
    pub time_offset: f64,
    /// Each word's probability too: logits over the vocabulary for every text token, about a
    /// third of the word-time pass (`TranscribeParams::word_probabilities`).
    pub probabilities: bool,
}

/// Gives each segment of one window its words (faster-whisper's `add_word_timestamps`), from
/// one decoder pass against the window's `keys`. `last_speech` is where speech last ended
/// before this window (seconds; 0 at the start): a first word far after it that is overlong is
/// shortened. Returns the new last end of speech (the last word's end, else the last
/// segment's end).
pub fn add_word_times(
    model: &Whisper,
    tokenizer: &Tokenizer,
    keys: &AudioKeys,
    window: &WindowAlignment,
    segments: &mut [Segment],
    last_speech: f32,
) -> Result<f32, ModelError> {
    let eot = tokenizer.specials().eot;
    let text_counts: Vec<usize> = segments
        .iter()
        .map(|s| s.tokens.iter().filter(|&&t| t < eot).count())
        .collect();
    let text: Vec<u32> = segments
        .iter()
        .flat_map(|s| s.tokens.iter().copied().filter(|&t| t < eot))
        .collect();
    let alignment = find_alignment(model, tokenizer, keys, window, &text)?;
    let spans: Vec<SegmentSpan> = segments
        .iter()
        .zip(&text_counts)
        .map(|(s, &text_tokens)| SegmentSpan {
            start: f64::from(s.start),
            end: f64::from(s.end),
            text_tokens,
        })
        .collect();
    let (words, _) = place_words(
        alignment,
        &spans,
        window.time_offset,
        f64::from(last_speech),
    );
    for (segment, words) in segments.iter_mut().zip(words) {
        segment.words = words;
    }
    let last_end = segments
        .iter()
        .rev()
        .find_map(|s| s.words.last().map(|w| w.end))
        .or(segments.last().map(|s| s.end));
    Ok(last_end.unwrap_or(last_speech))
}

/// One word of the alignment, times in seconds from the window's start.
#[derive(Debug, Clone, PartialEq)]
struct Aligned {
    text: String,
    /// How many text tokens it spans.
    tokens: usize,
    start: f64,
    end: f64,
    probability: Option<f64>,
}

fn torch(stage: &'static str) -> impl FnOnce(tch::TchError) -> ModelError {
    move |source| ModelError::Torch { stage, source }
}

/// faster-whisper's `find_alignment` (CTranslate2's `align` and the word grouping).
fn find_alignment(
    model: &Whisper,
    tokenizer: &Tokenizer,
    keys: &AudioKeys,
    window: &WindowAlignment,
    text: &[u32],
) -> Result<Vec<Aligned>, ModelError> {
    let specials = tokenizer.specials();
    let dims = model.dims();
    let frames = (window.num_frames / 2).min(dims.n_audio_ctx);
    let mut tokens = window.sot_sequence.to_vec();
    tokens.push(specials.no_timestamps);
    tokens.extend_from_slice(text);
    tokens.push(specials.eot);
    if text.is_empty() || frames == 0 || tokens.len() > dims.n_text_ctx || window.heads.is_empty() {
        return Ok(Vec::new());
    }
    let ids: Vec<i64> = tokens.iter().map(|&t| i64::from(t)).collect();
    let input = Tensor::from_slice(&ids).view([1, -1]);
    let mut state = model.start_decoding_with(keys, 1)?;
    let (hidden, scores) =
        model.decode_attending(&input, &mut state, window.heads, frames as i64)?;

    let offset = window.sot_sequence.len();
    let probabilities = if window.probabilities {
        Some(token_probabilities(
            model,
            &hidden,
            offset,
            text,
            specials.eot,
        )?)
    } else {
        None
    };

    let heads = scores.size()[1] as usize;
    let weights: Vec<f32> = scores
        .f_softmax(-1, Kind::Float)
        .and_then(|w| w.f_to_device(tch::Device::Cpu))
        .and_then(|w| w.f_contiguous())
        .and_then(|w| w.f_flatten(0, -1))
        .and_then(|w| Vec::<f32>::try_from(&w))
        .map_err(torch("alignment weights"))?;
    let matrix = alignment_matrix(weights, heads, tokens.len(), frames);
    // The rows from <|notimestamps|> to the last text token (the end-of-text row left out).
    let rows = text.len() + 1;
    let matrix = &matrix[offset * frames..(offset + rows) * frames];
    let jumps = jump_times(&negative_dtw(matrix, rows, frames));

    let mut with_end = text.to_vec();
    with_end.push(specials.eot);
    let text_of = |ids: &[u32]| token_text(tokenizer, ids);
    let spaces = !NO_SPACE_LANGUAGES.contains(&window.language);
    let words = split_to_words(&with_end, specials.eot, &text_of, spaces);
    Ok(words_from_jumps(&words, &jumps, probabilities.as_deref()))
}

/// The text of token ids as faster-whisper's `decode_with_timestamps` spells it: special
/// tokens by name, bytes that are not whole characters as U+FFFD.
fn token_text(tokenizer: &Tokenizer, ids: &[u32]) -> String {
    let eot = tokenizer.specials().eot;
    let mut bytes = Vec::new();
    for &id in ids {
        if id >= eot {
            bytes.extend_from_slice(b"<|endoftext|>");
        } else {
            bytes.extend(tokenizer.decode_bytes(&[id]));
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The per-token cost over time (CTranslate2's `align`): `weights` `[heads, tokens, frames]`
/// (softmax over the frames), each head's column normalised over the tokens (zero mean, unit
/// variance), each row median-filtered along time, then the mean over the heads:
/// `[tokens, frames]`.
fn alignment_matrix(mut weights: Vec<f32>, heads: usize, tokens: usize, frames: usize) -> Vec<f32> {
    for h in 0..heads {
        let head = &mut weights[h * tokens * frames..(h + 1) * tokens * frames];
        for f in 0..frames {
            let column = (0..tokens).map(|t| f64::from(head[t * frames + f]));
            let mean = column.clone().sum::<f64>() / tokens as f64;
            let variance = column.map(|x| (x - mean).powi(2)).sum::<f64>() / tokens as f64;
            let std = variance.sqrt();
            for t in 0..tokens {
                let x = &mut head[t * frames + f];
                *x = ((f64::from(*x) - mean) / std) as f32;
            }
        }
        for row in head.chunks_exact_mut(frames) {
            median_filter(row, MEDIAN_FILTER_WIDTH);
        }
    }
    let mut mean = vec![0.0f32; tokens * frames];
    for head in weights.chunks_exact(tokens * frames) {
        for (m, x) in mean.iter_mut().zip(head) {
            *m += x;
        }
    }
    for m in &mut mean {
        *m /= heads as f32;
    }
    mean
}

/// A median filter of odd `width` along `row`, reflecting at the ends (`abc|ba`); rows no longer
/// than half the width are left as they are.
fn median_filter(row: &mut [f32], width: usize) {
    let rank = width / 2;
    let n = row.len();
    if n <= rank {
        return;
    }
    let source = row.to_vec();
    let mut window = vec![0.0f32; width];
    for (j, out) in row.iter_mut().enumerate() {
        for (k, w) in window.iter_mut().enumerate() {
            let mut read = (j as isize + k as isize - rank as isize).unsigned_abs();
            if read >= n {
                read = (2 * n).saturating_sub(read + 2);
            }
            *w = source[read];
        }
        window.select_nth_unstable_by(rank, f32::total_cmp);
        *out = window[rank];
    }
}

/// Dynamic time warping of the negated cost `x` (`rows × cols`, row-major): the monotonic path
/// from the first cell to the last, as `(row, col)` pairs. Ties prefer the diagonal, then the
/// step down a row only when strictly cheaper, else the step along time (OpenAI's and
/// CTranslate2's order).
fn negative_dtw(x: &[f32], rows: usize, cols: usize) -> Vec<(usize, usize)> {
    let width = cols + 1;
    let mut cost = vec![f32::INFINITY; (rows + 1) * width];
    let mut trace = vec![2u8; (rows + 1) * width];
    cost[0] = 0.0;
    for j in 1..=cols {
        for i in 1..=rows {
            let c0 = cost[(i - 1) * width + j - 1];
            let c1 = cost[(i - 1) * width + j];
            let c2 = cost[i * width + j - 1];
            let (c, t) = if c0 < c1 && c0 < c2 {
                (c0, 0)
            } else if c1 < c0 && c1 < c2 {
                (c1, 1)
            } else {
                (c2, 2)
            };
            cost[i * width + j] = -x[(i - 1) * cols + j - 1] + c;
            trace[i * width + j] = t;
        }
    }
    for k in 0..=rows {
        trace[k * width] = 1;
    }
    trace[..=cols].fill(2);
    let (mut i, mut j) = (rows, cols);
    let mut path = Vec::with_capacity(rows + cols);
    while i > 0 || j > 0 {
        path.push((i.wrapping_sub(1), j.wrapping_sub(1)));
        match trace[i * width + j] {
            0 => {
                i -= 1;
                j -= 1;
            }
            1 => i -= 1,
            _ => j -= 1,
        }
    }
    path.reverse();
    // The edges' steps (row or column -1) never occur: the path reaches (0, 0) through (1, 1).
    path.retain(|&(i, j)| i < rows && j < cols);
    path
}

/// For each row of a DTW path, the time (seconds) at which the path first enters it.
fn jump_times(path: &[(usize, usize)]) -> Vec<f64> {
    let mut times = Vec::new();
    let mut last_row = None;
    for &(row, col) in path {
        if last_row != Some(row) {
            times.push(col as f64 / TOKENS_PER_SECOND);
            last_row = Some(row);
        }
    }
    times
}

/// Tokens grouped into words (faster-whisper's `split_to_word_tokens`): first into whole
/// characters (a character's bytes can span tokens), then, with `spaces`, a piece that starts
/// with a space, is punctuation or a special token starts a new word, any other piece joins
/// the word before it. `text_of` spells token ids as [`token_text`] does.
fn split_to_words(
    tokens: &[u32],
    eot: u32,
    text_of: &dyn Fn(&[u32]) -> String,
    spaces: bool,
) -> Vec<(String, Vec<u32>)> {
    const REPLACEMENT: char = '\u{FFFD}';
    let full: Vec<char> = text_of(tokens).chars().collect();
    let mut pieces: Vec<(String, Vec<u32>)> = Vec::new();
    let mut current = Vec::new();
    let mut offset = 0;
    for &token in tokens {
        current.push(token);
        let decoded = text_of(&current);
        let broken = decoded
            .chars()
            .position(|c| c == REPLACEMENT)
            .map(|i| i + offset);
        let whole = match broken {
            None => true,
            Some(i) => full.get(i) == Some(&REPLACEMENT),
        };
        if whole {
            offset += decoded.chars().count();
            pieces.push((decoded, std::mem::take(&mut current)));
        }
    }
    if !spaces {
        return pieces;
    }
    let mut words: Vec<(String, Vec<u32>)> = Vec::new();
    for (piece, ids) in pieces {
        let special = ids[0] >= eot;
        let with_space = piece.starts_with(' ');
        let punctuation = PUNCTUATION.contains(piece.trim());
        match words.last_mut() {
            Some(last) if !(special || with_space || punctuation) => {
                last.0.push_str(&piece);
                last.1.extend(ids);
            }
            _ => words.push((piece, ids)),
        }
    }
    words
}

/// Each word's start and end from the path's jump times (the rows are `<|notimestamps|>` and
/// the text tokens: a word starts where the path enters the row of the token before its
/// first, and ends where it enters the row of its last), and the mean probability of its
/// tokens. The last word (end of text) only bounds the one before it.
fn words_from_jumps(
    words: &[(String, Vec<u32>)],
    jumps: &[f64],
    probabilities: Option<&[f32]>,
) -> Vec<Aligned> {
    if words.len() <= 1 {
        return Vec::new();
    }
    let mut boundaries = vec![0usize];
    for (_, ids) in &words[..words.len() - 1] {
        boundaries.push(boundaries.last().copied().unwrap_or(0) + ids.len());
    }
    boundaries
        .windows(2)
        .zip(words)
        .filter_map(|(bounds, (text, ids))| {
            let (from, to) = (bounds[0], bounds[1]);
            let probability = match probabilities {
                Some(all) => {
                    let probs = all.get(from..to)?;
                    Some(
                        probs.iter().map(|&p| f64::from(p)).sum::<f64>()
                            / probs.len().max(1) as f64,
                    )
                }
                None => None,
            };
            Some(Aligned {
                text: text.clone(),
                tokens: ids.len(),
                start: *jumps.get(from)?,
                end: *jumps.get(to)?,
                probability,
            })
        })
        .collect()
}

/// faster-whisper's `merge_punctuations`: an opening mark (a word that is a space and one of
/// [`PREPEND_PUNCTUATIONS`]) joins the word after it, a closing mark (one of
/// [`APPEND_PUNCTUATIONS`]) the word before it; the emptied words stay, with no text and no
/// tokens. (Membership is Python's substring test, as there.)
fn merge_punctuations(alignment: &mut [Aligned]) {
    if alignment.len() >= 2 {
        let mut j = alignment.len() - 1;
        for i in (0..alignment.len() - 1).rev() {
            let previous = &alignment[i];
            if previous.text.starts_with(' ') && PREPEND_PUNCTUATIONS.contains(previous.text.trim())
            {
                let (text, tokens) = (previous.text.clone(), previous.tokens);
                let following = &mut alignment[j];
                following.text = text + &following.text;
                following.tokens += tokens;
                alignment[i].text.clear();
                alignment[i].tokens = 0;
            } else {
                j = i;
            }
        }
    }
    let mut i = 0;
    for j in 1..alignment.len() {
        if !alignment[i].text.ends_with(' ') && APPEND_PUNCTUATIONS.contains(&alignment[j].text) {
            let (text, tokens) = (std::mem::take(&mut alignment[j].text), alignment[j].tokens);
            alignment[i].text.push_str(&text);
            alignment[i].tokens += tokens;
            alignment[j].tokens = 0;
        } else {
            i = j;
        }
    }
}

/// A segment as [`place_words`] sees it: its times (seconds from the audio's start) and how
/// many text tokens it holds.
#[derive(Debug, Clone, Copy, PartialEq)]
struct SegmentSpan {
    start: f64,
    end: f64,
    text_tokens: usize,
}

/// The median of the non-zero values (NumPy's: the mean of the two middle ones when even).
fn median_nonzero(values: impl Iterator<Item = f64>) -> Option<f64> {
    let mut v: Vec<f64> = values.filter(|&d| d != 0.0).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

fn round_centiseconds(t: f64) -> f64 {
    (t * 100.0).round() / 100.0
}

/// The second half of faster-whisper's `add_word_timestamps`: overlong words at sentence ends
/// shortened to twice the median word length (at most 0.7 s), punctuation merged, the words
/// handed to their segments by token count and placed in the audio (`time_offset`, rounded to
/// 0.01 s), then per segment: a first word long after `last_speech` and overlong is
/// shortened, and a first or last word reaching more than 0.5 s past the segment's own
/// timestamps is pulled back to them. Returns each segment's words and the last end of
/// speech.
fn place_words(
    mut alignment: Vec<Aligned>,
    segments: &[SegmentSpan],
    time_offset: f64,
    mut last_speech: f64,
) -> (Vec<Vec<Word>>, f64) {
    let median = median_nonzero(alignment.iter().map(|w| w.end - w.start));
    let median_duration = median.unwrap_or(0.0).min(0.7);
    let max_duration = median_duration * 2.0;
    if median.is_some() {
        for i in 1..alignment.len() {
            if alignment[i].end - alignment[i].start > max_duration {
                if SENTENCE_END_MARKS.contains(alignment[i].text.as_str()) {
                    alignment[i].end = alignment[i].start + max_duration;
                } else if SENTENCE_END_MARKS.contains(alignment[i - 1].text.as_str()) {
                    alignment[i].start = alignment[i].end - max_duration;
                }
            }
        }
    }
    merge_punctuations(&mut alignment);

    let mut next = 0;
    let mut placed = Vec::with_capacity(segments.len());
    for segment in segments {
        let mut words: Vec<(String, f64, f64, Option<f64>)> = Vec::new();
        let mut saved_tokens = 0;
        while next < alignment.len() && saved_tokens < segment.text_tokens {
            let timing = &alignment[next];
            if !timing.text.is_empty() {
                words.push((
                    timing.text.clone(),
                    round_centiseconds(time_offset + timing.start),
                    round_centiseconds(time_offset + timing.end),
                    timing.probability,
                ));
            }
            saved_tokens += timing.tokens;
            next += 1;
        }
        if !words.is_empty() {
            let (mut seg_start, mut seg_end) = (segment.start, segment.end);
            let long_after_speech = words[0].2 - last_speech > median_duration * 4.0;
            let first_too_long = words[0].2 - words[0].1 > max_duration
                || (words.len() > 1 && words[1].2 - words[0].1 > max_duration * 2.0);
            if long_after_speech && first_too_long {
                if words.len() > 1 && words[1].2 - words[1].1 > max_duration {
                    let boundary = (words[1].2 / 2.0).max(words[1].2 - max_duration);
                    words[0].2 = boundary;
                    words[1].1 = boundary;
                }
                words[0].1 = (words[0].2 - max_duration).max(0.0);
            }
            if seg_start < words[0].2 && seg_start - 0.5 > words[0].1 {
                words[0].1 = (words[0].2 - median_duration).min(seg_start).max(0.0);
            } else {
                seg_start = words[0].1;
            }
            let last = words.len() - 1;
            if seg_end > words[last].1 && seg_end + 0.5 < words[last].2 {
                words[last].2 = (words[last].1 + median_duration).max(seg_end);
            } else {
                seg_end = words[last].2;
            }
            let _ = seg_start;
            last_speech = seg_end;
        }
        placed.push(
            words
                .into_iter()
                .map(|(text, start, end, probability)| Word {
                    text,
                    start: start as f32,
                    end: end as f32,
                    probability: probability.map(|p| p as f32),
                })
                .collect(),
        );
    }
    (placed, last_speech)
}

/// Rows of logits computed at a time for [`token_probabilities`]: the vocabulary is 51865 wide,
/// so a pass's ~60 text tokens at once held ~12 MB of float32 logits and as much again for
/// their log-softmax, the largest part of what word times added to a pass's peak memory.
const PROBABILITY_ROWS: i64 = 8;

/// The probability of each of the `text` tokens given the tokens before it, over the text
/// vocabulary (below `eot`), from the decoder's `hidden` states of the alignment pass (the text
/// starting at row `offset`), [`PROBABILITY_ROWS`] rows of logits at a time.
fn token_probabilities(
    model: &Whisper,
    hidden: &Tensor,
    offset: usize,
    text: &[u32],
    eot: u32,
) -> Result<Vec<f32>, ModelError> {
    let mut probabilities = Vec::with_capacity(text.len());
    for (n, ids) in text.chunks(PROBABILITY_ROWS as usize).enumerate() {
        let from = offset as i64 + n as i64 * PROBABILITY_ROWS;
        let ids: Vec<i64> = ids.iter().map(|&t| i64::from(t)).collect();
        let rows = hidden
            .f_narrow(1, from, ids.len() as i64)
            .map_err(torch("word probabilities"))?;
        let chunk: Vec<f32> = model
            .logits(&rows)?
            .f_narrow(2, 0, i64::from(eot))
            .and_then(|l| l.f_log_softmax(-1, Kind::Float))
            .and_then(|l| l.f_gather(2, &Tensor::from_slice(&ids).view([1, -1, 1]), false))
            .and_then(|p| p.f_exp())
            .and_then(|p| p.f_flatten(0, -1))
            .and_then(|p| p.f_to_device(tch::Device::Cpu))
            .and_then(|p| Vec::<f32>::try_from(&p))
            .map_err(torch("word probabilities"))?;
        probabilities.extend(chunk);
    }
    Ok(probabilities)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_median_filter_reflects_at_the_ends() {
        let mut row = [5.0, 1.0, 9.0, 2.0, 8.0];
        median_filter(&mut row, 3);
        // Padded as 1 5 1 9 2 8 2.
        assert_eq!(row, [1.0, 5.0, 2.0, 8.0, 2.0]);
        let mut short = [3.0, 1.0, 2.0];
        median_filter(&mut short, 7);
        assert_eq!(
            short,
            [3.0, 1.0, 2.0],
            "rows of at most half the width stay"
        );
        let mut spike = [0.0, 0.0, 0.0, 10.0, 0.0, 0.0, 0.0, 0.0];
        median_filter(&mut spike, 7);
        assert!(
            spike.iter().all(|&x| x == 0.0),
            "a one-frame spike is removed"
        );
    }

    #[test]
    fn dtw_follows_the_highest_weights_and_jumps_mark_where_each_row_starts() {
        // Three tokens over eight frames: token 0 at frames 0-1, token 1 at 2-4, token 2 at 5-7.
        let (rows, cols) = (3, 8);
        // Off its frames a token's weight is below average (as after the normalisation).
        let mut x = vec![-1.0f32; rows * cols];
        for (t, frames) in [(0, 0..2), (1, 2..5), (2, 5..8)] {
            for f in frames {
                x[t * cols + f] = 1.0;
            }
        }
        let path = negative_dtw(&x, rows, cols);
        assert_eq!(path.first(), Some(&(0, 0)));
        assert_eq!(path.last(), Some(&(2, 7)));
        assert!(path
            .windows(2)
            .all(|w| w[1].0 >= w[0].0 && w[1].1 >= w[0].1));
        let jumps = jump_times(&path);
        assert_eq!(jumps, vec![0.0, 2.0 / 50.0, 5.0 / 50.0]);
    }

    /// A byte table: ids 0-5 are the pieces below, 6 is the end of text; "ż" (C5 BC) is split
    /// over ids 3 and 4.
    fn text_of(ids: &[u32]) -> String {
        let mut bytes = Vec::new();
        for &id in ids {
            let piece: &[u8] = match id {
                0 => b" Hello",
                1 => b",",
                2 => b" wor",
                3 => &[0xC5],
                4 => &[0xBC, b'd'],
                5 => b"!",
                _ => b"<|endoftext|>",
            };
            bytes.extend_from_slice(piece);
        }
        String::from_utf8_lossy(&bytes).into_owned()
    }

    #[test]
    fn tokens_group_into_words_at_spaces_whole_characters_and_punctuation() {
        let words = split_to_words(&[0, 1, 2, 3, 4, 5, 6], 6, &text_of, true);
        let texts: Vec<&str> = words.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(texts, [" Hello", ",", " worżd", "!", "<|endoftext|>"]);
        assert_eq!(words[2].1, vec![2, 3, 4]);
        let pieces = split_to_words(&[0, 2, 3, 4, 6], 6, &text_of, false);
        let texts: Vec<&str> = pieces.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(texts, [" Hello", " wor", "żd", "<|endoftext|>"]);
    }

    fn aligned(text: &str, tokens: usize, start: f64, end: f64) -> Aligned {
        Aligned {
            text: text.into(),
            tokens,
            start,
            end,
            probability: Some(0.9),
        }
    }

    #[test]
    fn words_take_their_times_from_the_rows_of_their_tokens() {
        let words = split_to_words(&[0, 1, 2, 3, 4, 5, 6], 6, &text_of, true);
        // Rows: <|notimestamps|> and the six text tokens.
        let jumps = [0.0, 0.1, 0.5, 0.6, 0.7, 0.8, 1.2];
        let probabilities = [0.5, 1.0, 0.9, 0.6, 0.3, 1.0];
        let aligned = words_from_jumps(&words, &jumps, Some(&probabilities));
        assert_eq!(
            aligned.len(),
            4,
            "the end of text only bounds the last word"
        );
        assert_eq!((aligned[0].start, aligned[0].end), (0.0, 0.1));
        assert_eq!((aligned[2].start, aligned[2].end), (0.5, 0.8));
        assert!((aligned[2].probability.unwrap() - 0.6).abs() < 1e-6);
        let without = words_from_jumps(&words, &jumps, None);
        assert_eq!((without[2].start, without[2].end), (0.5, 0.8));
        assert_eq!(without[2].probability, None);
        assert_eq!((aligned[3].start, aligned[3].end), (0.8, 1.2));
    }

    #[test]
    fn punctuation_joins_its_word_and_leaves_an_empty_one() {
        let mut words = vec![
            aligned(" \"", 1, 0.0, 0.1),
            aligned(" Hello", 1, 0.1, 0.4),
            aligned(",", 1, 0.4, 0.4),
            aligned(" world", 2, 0.5, 0.9),
            aligned(".\"", 1, 0.9, 1.0),
        ];
        merge_punctuations(&mut words);
        let texts: Vec<&str> = words.iter().map(|w| w.text.as_str()).collect();
        // `."` is not a substring of the append list: it stays a word, as in faster-whisper.
        assert_eq!(texts, ["", " \" Hello,", "", " world", ".\""]);
        assert_eq!(words[1].tokens, 3);
        assert_eq!(words.iter().map(|w| w.tokens).sum::<usize>(), 6);
    }

    #[test]
    fn words_go_to_their_segments_and_overlong_border_words_are_cut() {
        let alignment = vec![
            aligned(" One", 1, 0.0, 0.3),
            aligned(" two", 1, 0.3, 0.6),
            aligned(".", 1, 0.6, 0.6),
            // Spans the pause: 1.9 s, far over twice the 0.3 s median.
            aligned(" Three", 1, 0.6, 2.5),
            aligned(" four", 1, 2.5, 2.8),
        ];
        let segments = [
            SegmentSpan {
                start: 10.0,
                end: 10.6,
                text_tokens: 3,
            },
            SegmentSpan {
                start: 12.0,
                end: 12.8,
                text_tokens: 2,
            },
        ];
        let (words, last) = place_words(alignment, &segments, 10.0, 0.0);
        let texts: Vec<Vec<&str>> = words
            .iter()
            .map(|s| s.iter().map(|w| w.text.as_str()).collect())
            .collect();
        assert_eq!(texts, [vec![" One", " two."], vec![" Three", " four"]]);
        // After a sentence end an overlong word keeps its last 0.6 s (twice the median).
        assert!((words[1][0].start - 11.9).abs() < 1e-4, "{:?}", words[1][0]);
        assert!((words[1][0].end - 12.5).abs() < 1e-4);
        assert!((last - 12.8).abs() < 1e-9);
    }
}
