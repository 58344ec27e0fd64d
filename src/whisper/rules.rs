//! The logit filters Whisper applies before choosing each token, mirroring the classes of
//! OpenAI's `whisper/decoding.py`: `SuppressBlank`, `SuppressTokens` and `ApplyTimestampRules`.
//! They work on one row of plain `f32` logits and the token sequence that row has so far, so
//! they are tested on hand-made logits without a model.

/// Timestamp precision of one timestamp token in seconds (OpenAI: `30 / 1500`).
pub const TIME_PRECISION: f32 = 0.02;

/// Special token ids the timestamp rules need.
#[derive(Debug, Clone, Copy)]
pub struct TimestampTokens {
    pub eot: u32,
    pub no_timestamps: u32,
    pub timestamp_begin: u32,
}

/// All filters of one decoding call.
#[derive(Debug, Clone)]
pub struct LogitRules {
    /// Index in the token sequence where sampled tokens start (after prompt and SOT sequence).
    pub sample_begin: usize,
    /// Suppressed at the first sampled position only (OpenAI `SuppressBlank`: " " and EOT).
    pub suppress_at_begin: Vec<u32>,
    /// Suppressed at every position (OpenAI `SuppressTokens`).
    pub suppress: Vec<u32>,
    /// `ApplyTimestampRules`, when timestamps are sampled.
    pub timestamps: Option<TimestampTokens>,
    /// Latest allowed first timestamp, as a timestamp index (OpenAI: `max_initial_timestamp` /
    /// precision, 1.0 s → 50).
    pub max_initial_timestamp_index: Option<u32>,
}

impl LogitRules {
    /// Applies every filter to `logits` (one row, vocabulary-sized), given the row's tokens so far
    /// (prompt and SOT sequence included).
    pub fn apply(&self, logits: &mut [f32], tokens: &[u32]) {
        if tokens.len() == self.sample_begin {
            suppress(logits, &self.suppress_at_begin);
        }
        suppress(logits, &self.suppress);
        if let Some(ts) = self.timestamps {
            self.apply_timestamp_rules(logits, tokens, ts);
        }
    }

    fn apply_timestamp_rules(&self, logits: &mut [f32], tokens: &[u32], ts: TimestampTokens) {
        let n_vocab = logits.len();
        let begin = (ts.timestamp_begin as usize).min(n_vocab);
        let eot = (ts.eot as usize).min(n_vocab);
        if let Some(l) = logits.get_mut(ts.no_timestamps as usize) {
            *l = f32::NEG_INFINITY;
        }
        let sampled = tokens.get(self.sample_begin..).unwrap_or(&[]);
        let is_ts = |t: &u32| *t >= ts.timestamp_begin;
        let last_was_timestamp = sampled.last().is_some_and(is_ts);
        let penultimate_was_timestamp = sampled.len() < 2 || is_ts(&sampled[sampled.len() - 2]);
        if last_was_timestamp {
            if penultimate_was_timestamp {
                // A pair of timestamps closed a segment: text must follow.
                fill(&mut logits[begin..], f32::NEG_INFINITY);
            } else {
                // Text was just closed by a timestamp: another timestamp (or EOT) must follow.
                fill(&mut logits[..eot], f32::NEG_INFINITY);
            }
        }
        if let Some(&last_ts) = sampled.iter().rev().find(|t| is_ts(t)) {
            // Timestamps never decrease, and a segment has a non-zero length.
            let last_allowed = if last_was_timestamp && !penultimate_was_timestamp {
                last_ts
            } else {
                last_ts + 1
            };
            let upto = (last_allowed as usize).min(n_vocab);
            fill(&mut logits[begin..upto.max(begin)], f32::NEG_INFINITY);
        }
        if tokens.len() == self.sample_begin {
            // The first sampled token is a timestamp, no later than `max_initial_timestamp`.
            fill(&mut logits[..begin], f32::NEG_INFINITY);
            if let Some(max_index) = self.max_initial_timestamp_index {
                let from = (ts.timestamp_begin as usize + max_index as usize + 1).min(n_vocab);
                fill(&mut logits[from..], f32::NEG_INFINITY);
            }
        }
        // If the timestamps together are likelier than any single text token, pick a timestamp.
        let logprobs = log_softmax(logits);
        let timestamp_logprob = log_sum_exp(&logprobs[begin..]);
        let max_text_logprob = logprobs[..begin]
            .iter()
            .copied()
            .fold(f32::NEG_INFINITY, f32::max);
        if timestamp_logprob > max_text_logprob {
            fill(&mut logits[..begin], f32::NEG_INFINITY);
        }
    }
}

fn suppress(logits: &mut [f32], ids: &[u32]) {
    for &id in ids {
        if let Some(l) = logits.get_mut(id as usize) {
            *l = f32::NEG_INFINITY;
        }
    }
}

fn fill(logits: &mut [f32], value: f32) {
    logits.iter_mut().for_each(|l| *l = value);
}

/// Numerically stable log-softmax (sums in f64, results in f32 as torch's float32 would give).
pub fn log_softmax(logits: &[f32]) -> Vec<f32> {
    let lse = log_sum_exp(logits);
    logits.iter().map(|&l| l - lse).collect()
}

/// `log(Σ exp(x))`, −∞ for an empty or all −∞ slice.
pub fn log_sum_exp(values: &[f32]) -> f32 {
    let max = values.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    if max == f32::NEG_INFINITY {
        return f32::NEG_INFINITY;
    }
    let sum: f64 = values.iter().map(|&v| f64::from(v - max).exp()).sum();
    max + sum.ln() as f32
}

/// Index of the largest value; the first one on ties (as `torch.argmax`).
pub fn argmax(values: &[f32]) -> usize {
    let mut best = 0;
    for (i, &v) in values.iter().enumerate() {
        if v > values[best] {
            best = i;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    const EOT: u32 = 10;
    const NO_TS: u32 = 11;
    const TS0: u32 = 12;
    const VOCAB: usize = 20;

    fn rules(sample_begin: usize, timestamps: bool) -> LogitRules {
        LogitRules {
            sample_begin,
            suppress_at_begin: vec![1, EOT],
            suppress: vec![3],
            timestamps: timestamps.then_some(TimestampTokens {
                eot: EOT,
                no_timestamps: NO_TS,
                timestamp_begin: TS0,
            }),
            max_initial_timestamp_index: Some(2),
        }
    }

    fn allowed(logits: &[f32]) -> Vec<usize> {
        (0..logits.len())
            .filter(|&i| logits[i].is_finite())
            .collect()
    }

    #[test]
    fn blank_and_eot_are_suppressed_only_at_the_first_sampled_position() {
        let r = rules(2, false);
        let mut first = vec![0.0; VOCAB];
        r.apply(&mut first, &[7, 8]);
        assert!(first[1].is_infinite() && first[EOT as usize].is_infinite());
        let mut later = vec![0.0; VOCAB];
        r.apply(&mut later, &[7, 8, 5]);
        assert!(later[1].is_finite() && later[EOT as usize].is_finite());
        assert!(
            later[3].is_infinite(),
            "suppress list applies at every step"
        );
    }

    #[test]
    fn first_token_must_be_an_early_timestamp() {
        let r = rules(1, true);
        let mut logits = vec![0.0; VOCAB];
        logits[5] = 10.0; // text token strongly preferred, but not allowed first
        r.apply(&mut logits, &[7]);
        assert_eq!(allowed(&logits), vec![12, 13, 14]);
    }

    #[test]
    fn after_text_then_timestamp_only_timestamps_or_eot_follow_and_never_decrease() {
        let r = rules(1, true);
        let mut logits = vec![0.0; VOCAB];
        logits[EOT as usize] = 5.0; // likelier than all timestamps together: stays allowed
        r.apply(&mut logits, &[7, TS0 + 1, 5, TS0 + 4]);
        // Text is banned, earlier timestamps too; the closing timestamp may repeat (TS0+4).
        assert_eq!(allowed(&logits), vec![EOT as usize, 16, 17, 18, 19]);
    }

    #[test]
    fn after_a_timestamp_pair_text_must_follow() {
        let r = rules(1, true);
        let mut logits = vec![0.0; VOCAB];
        r.apply(&mut logits, &[7, TS0, 5, TS0 + 3, TS0 + 3]);
        assert!(allowed(&logits).iter().all(|&t| t < TS0 as usize));
        assert!(logits[NO_TS as usize].is_infinite());
    }

    #[test]
    fn timestamps_win_when_their_total_probability_beats_every_text_token() {
        let r = rules(1, true);
        let mut logits = vec![f32::NEG_INFINITY; VOCAB];
        logits[5] = 1.0; // best text token
                         // Each timestamp is less likely than token 5, but the 8 together are likelier.
        logits[TS0 as usize..].fill(0.5);
        r.apply(&mut logits, &[7, TS0, 5]);
        assert!(logits[5].is_infinite());
        assert!(logits[TS0 as usize + 1].is_finite());
    }

    #[test]
    fn log_softmax_normalises_and_argmax_takes_first_of_ties() {
        let lp = log_softmax(&[1.0, 3.0, 3.0, f32::NEG_INFINITY]);
        let total: f32 = lp.iter().map(|l| l.exp()).sum();
        assert!((total - 1.0).abs() < 1e-6);
        assert_eq!(argmax(&[1.0, 3.0, 3.0]), 1);
        assert_eq!(log_sum_exp(&[f32::NEG_INFINITY]), f32::NEG_INFINITY);
    }
}
