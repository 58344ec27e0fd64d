//! How the next token is chosen from filtered logits: greedy/sampling (OpenAI's `GreedyDecoder`)
//! and beam search with patience (OpenAI's `BeamSearchDecoder`), and how finished candidates are
//! ranked (`MaximumLikelihoodRanker`). Pure logic over token lists and logit rows, no model.

use super::rules::{argmax, log_softmax};
use std::collections::HashMap;

/// A finished sequence: the sampled tokens (without the final EOT) and their log-probability.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub tokens: Vec<u32>,
    pub sum_logprob: f64,
}

/// What one step did to the rows.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// Beam search keeps rows from these old row indices (the decoder cache must follow).
    pub source_rows: Option<Vec<usize>>,
    /// Every row is finished (or enough candidates were found).
    pub completed: bool,
}

/// A token chooser. `tokens` holds each row's whole sequence (prompt included); `logits` holds
/// one filtered row per sequence.
pub enum Search {
    Greedy(Greedy),
    Beam(BeamSearch),
}

impl Search {
    pub fn update(
        &mut self,
        tokens: &mut Vec<Vec<u32>>,
        logits: &[Vec<f32>],
        sum_logprobs: &mut Vec<f64>,
    ) -> Step {
        match self {
            Search::Greedy(g) => g.update(tokens, logits, sum_logprobs),
            Search::Beam(b) => b.update(tokens, logits, sum_logprobs),
        }
    }

    /// The candidates once decoding stopped, `sample_begin` being where sampled tokens start.
    pub fn finalize(
        &mut self,
        tokens: &[Vec<u32>],
        sum_logprobs: &[f64],
        sample_begin: usize,
    ) -> Vec<Candidate> {
        match self {
            Search::Greedy(g) => g.finalize(tokens, sum_logprobs, sample_begin),
            Search::Beam(b) => b.finalize(tokens, sum_logprobs, sample_begin),
        }
    }
}

/// Argmax at temperature 0, otherwise sampling from `softmax(logits / temperature)`.
pub struct Greedy {
    pub temperature: f32,
    pub eot: u32,
    pub rng: SplitMix64,
}

impl Greedy {
    fn update(
        &mut self,
        tokens: &mut [Vec<u32>],
        logits: &[Vec<f32>],
        sum_logprobs: &mut [f64],
    ) -> Step {
        for (row, seq) in tokens.iter_mut().enumerate() {
            if seq.last() == Some(&self.eot) {
                seq.push(self.eot);
                continue;
            }
            let row_logits = &logits[row];
            let next = if self.temperature == 0.0 {
                argmax(row_logits)
            } else {
                sample(row_logits, self.temperature, &mut self.rng)
            };
            sum_logprobs[row] += f64::from(log_softmax(row_logits)[next]);
            seq.push(next as u32);
        }
        let completed = tokens.iter().all(|s| s.last() == Some(&self.eot));
        Step {
            source_rows: None,
            completed,
        }
    }

    fn finalize(
        &self,
        tokens: &[Vec<u32>],
        sum_logprobs: &[f64],
        sample_begin: usize,
    ) -> Vec<Candidate> {
        tokens
            .iter()
            .zip(sum_logprobs)
            .map(|(seq, &lp)| Candidate {
                tokens: sampled_until_eot(seq, sample_begin, self.eot),
                sum_logprob: lp,
            })
            .collect()
    }
}

/// Beam search over `beam_size` rows; stops once `round(beam_size · patience)` sequences ended.
pub struct BeamSearch {
    pub beam_size: usize,
    pub eot: u32,
    pub max_candidates: usize,
    finished: Vec<(Vec<u32>, f64)>,
}

impl BeamSearch {
    pub fn new(beam_size: usize, patience: f32, eot: u32) -> Self {
        let max_candidates = ((beam_size as f32 * patience).round() as usize).max(1);
        Self {
            beam_size,
            eot,
            max_candidates,
            finished: Vec::new(),
        }
    }

    fn update(
        &mut self,
        tokens: &mut Vec<Vec<u32>>,
        logits: &[Vec<f32>],
        sum_logprobs: &mut Vec<f64>,
    ) -> Step {
        // Every row proposes its beam_size + 1 best continuations; identical sequences (all rows
        // are equal at the first step) count once.
        let mut order: Vec<Vec<u32>> = Vec::new();
        let mut scores: HashMap<Vec<u32>, (f64, usize)> = HashMap::new();
        for (row, seq) in tokens.iter().enumerate() {
            let logprobs = log_softmax(&logits[row]);
            for token in top_k(&logprobs, self.beam_size + 1) {
                let mut candidate = seq.clone();
                candidate.push(token as u32);
                let score = sum_logprobs[row] + f64::from(logprobs[token]);
                if !scores.contains_key(&candidate) {
                    order.push(candidate.clone());
                }
                scores.insert(candidate, (score, row));
            }
        }
        // Stable sort: equal scores keep proposal order, as Python's sorted() does.
        order.sort_by(|a, b| scores[b].0.total_cmp(&scores[a].0));
        let mut next_tokens = Vec::with_capacity(self.beam_size);
        let mut next_logprobs = Vec::with_capacity(self.beam_size);
        let mut sources = Vec::with_capacity(self.beam_size);
        let mut newly_finished = Vec::new();
        for seq in order {
            let (score, source) = scores[&seq];
            if seq.last() == Some(&self.eot) {
                newly_finished.push((seq, score));
            } else {
                next_tokens.push(seq);
                next_logprobs.push(score);
                sources.push(source);
                if next_tokens.len() == self.beam_size {
                    break;
                }
            }
        }
        for candidate in newly_finished {
            if self.finished.len() >= self.max_candidates {
                break;
            }
            self.finished.push(candidate);
        }
        *tokens = next_tokens;
        *sum_logprobs = next_logprobs;
        Step {
            source_rows: Some(sources),
            completed: self.finished.len() >= self.max_candidates,
        }
    }

    fn finalize(
        &mut self,
        tokens: &[Vec<u32>],
        sum_logprobs: &[f64],
        sample_begin: usize,
    ) -> Vec<Candidate> {
        if self.finished.len() < self.beam_size {
            // Not enough ended sequences: take the best unfinished ones, closed with EOT.
            let mut rows: Vec<usize> = (0..tokens.len()).collect();
            rows.sort_by(|&a, &b| sum_logprobs[b].total_cmp(&sum_logprobs[a]));
            for row in rows {
                let mut seq = tokens[row].clone();
                seq.push(self.eot);
                self.finished.push((seq, sum_logprobs[row]));
                if self.finished.len() >= self.beam_size {
                    break;
                }
            }
        }
        self.finished
            .iter()
            .map(|(seq, lp)| Candidate {
                tokens: sampled_until_eot(seq, sample_begin, self.eot),
                sum_logprob: *lp,
            })
            .collect()
    }
}

/// Index of the best candidate by length-normalised log-probability (OpenAI's
/// `MaximumLikelihoodRanker`): `None` divides by the length, `Some(α)` by `((5 + len) / 6)^α`.
pub fn best_candidate(candidates: &[Candidate], length_penalty: Option<f32>) -> Option<usize> {
    let score = |c: &Candidate| {
        let len = c.tokens.len() as f64;
        let penalty = match length_penalty {
            None => len,
            Some(alpha) => ((5.0 + len) / 6.0).powf(f64::from(alpha)),
        };
        c.sum_logprob / penalty
    };
    let mut best: Option<(usize, f64)> = None;
    for (i, c) in candidates.iter().enumerate() {
        let s = score(c);
        if best.is_none_or(|(_, b)| s > b) {
            best = Some((i, s));
        }
    }
    best.map(|(i, _)| i)
}

fn sampled_until_eot(seq: &[u32], sample_begin: usize, eot: u32) -> Vec<u32> {
    let sampled = seq.get(sample_begin..).unwrap_or(&[]);
    let end = sampled
        .iter()
        .position(|&t| t == eot)
        .unwrap_or(sampled.len());
    sampled[..end].to_vec()
}

/// Indices of the `k` largest values, largest first (ties: lower index first).
fn top_k(values: &[f32], k: usize) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..values.len()).collect();
    let k = k.min(idx.len());
    if k == 0 {
        return Vec::new();
    }
    let cmp = |a: &usize, b: &usize| values[*b].total_cmp(&values[*a]).then(a.cmp(b));
    idx.select_nth_unstable_by(k - 1, cmp);
    idx.truncate(k);
    idx.sort_by(cmp);
    idx
}

fn sample(logits: &[f32], temperature: f32, rng: &mut SplitMix64) -> usize {
    let scaled: Vec<f32> = logits.iter().map(|l| l / temperature).collect();
    let logprobs = log_softmax(&scaled);
    let mut u = rng.next_f64();
    let mut last_possible = 0;
    for (i, lp) in logprobs.iter().enumerate() {
        if lp.is_finite() {
            last_possible = i;
            u -= f64::from(*lp).exp();
            if u <= 0.0 {
                return i;
            }
        }
    }
    last_possible
}

/// A small, seedable random generator so sampling is reproducible (Steele et al., SplitMix64).
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EOT: u32 = 9;

    /// Logits over a 10-token vocabulary from (token, logit) pairs; others are very unlikely.
    fn row(pairs: &[(usize, f32)]) -> Vec<f32> {
        let mut l = vec![-30.0; 10];
        for &(t, v) in pairs {
            l[t] = v;
        }
        l
    }

    #[test]
    fn greedy_takes_argmax_and_stops_adding_logprob_after_eot() {
        let mut g = Search::Greedy(Greedy {
            temperature: 0.0,
            eot: EOT,
            rng: SplitMix64::new(0),
        });
        let mut tokens = vec![vec![1, 2]];
        let mut lps = vec![0.0];
        let step = g.update(&mut tokens, &[row(&[(4, 5.0)])], &mut lps);
        assert!(!step.completed);
        let step = g.update(&mut tokens, &[row(&[(EOT as usize, 5.0)])], &mut lps);
        assert!(step.completed);
        let before = lps[0];
        g.update(&mut tokens, &[row(&[(3, 5.0)])], &mut lps);
        assert_eq!(
            tokens[0],
            vec![1, 2, 4, EOT, EOT],
            "finished rows only get EOT"
        );
        assert_eq!(lps[0], before);
        let c = g.finalize(&tokens, &lps, 2);
        assert_eq!(c[0].tokens, vec![4]);
    }

    #[test]
    fn sampling_is_reproducible_and_respects_suppression() {
        let logits = row(&[(2, 1.0), (3, 1.0), (4, 1.0)]);
        let mut masked = logits.clone();
        masked[3] = f32::NEG_INFINITY;
        let draw = |seed| {
            let mut rng = SplitMix64::new(seed);
            (0..50)
                .map(|_| sample(&masked, 1.0, &mut rng))
                .collect::<Vec<_>>()
        };
        assert_eq!(draw(7), draw(7));
        let d = draw(7);
        assert!(d.iter().all(|&t| t != 3));
        assert!(d.contains(&2) && d.contains(&4));
    }

    #[test]
    fn beam_search_keeps_the_best_prefixes_and_reorders_rows() {
        let mut b = BeamSearch::new(2, 1.0, EOT);
        // Step 1: all rows equal; 5 and 6 are the two best continuations.
        let mut tokens = vec![vec![0], vec![0]];
        let mut lps = vec![0.0, 0.0];
        let first = row(&[(5, 2.0), (6, 1.0), (7, 0.0)]);
        let step = b.update(&mut tokens, &[first.clone(), first], &mut lps);
        assert_eq!(tokens, vec![vec![0, 5], vec![0, 6]]);
        // Both rows proposed the same sequences; as in OpenAI, the last proposer is the source.
        assert_eq!(step.source_rows, Some(vec![1, 1]));
        // Step 2: the second row's continuation beats everything from the first.
        let from5 = row(&[]); // undecided: every continuation ≈ log(1/10)
        let from6 = row(&[(3, 8.0), (EOT as usize, 7.5)]);
        let step = b.update(&mut tokens, &[from5, from6], &mut lps);
        assert_eq!(tokens, vec![vec![0, 6, 3], vec![0, 5, 0]]);
        assert_eq!(step.source_rows, Some(vec![1, 0]));
        // [0, 6, EOT] ended and is kept as a candidate.
        assert_eq!(b.finished.len(), 1);
        assert!(!step.completed);
    }

    #[test]
    fn beam_finalize_fills_with_unfinished_rows_and_ranker_normalises_length() {
        let mut b = BeamSearch::new(2, 1.0, EOT);
        let c = b.finalize(&[vec![0, 1, 2], vec![0, 3]], &[-1.0, -0.5], 1);
        assert_eq!(c.len(), 2);
        assert_eq!(c[0].tokens, vec![3], "best unfinished row first");
        let cands = vec![
            Candidate {
                tokens: vec![1, 2, 3, 4],
                sum_logprob: -2.0,
            },
            Candidate {
                tokens: vec![1],
                sum_logprob: -1.0,
            },
        ];
        assert_eq!(
            best_candidate(&cands, None),
            Some(0),
            "-0.5 per token beats -1.0"
        );
        assert_eq!(
            best_candidate(&cands, Some(0.0)),
            Some(1),
            "α=0 compares sums"
        );
    }

    #[test]
    fn top_k_orders_and_breaks_ties_by_index() {
        assert_eq!(top_k(&[1.0, 3.0, 3.0, 2.0], 3), vec![1, 2, 3]);
        assert_eq!(top_k(&[1.0], 5), vec![0]);
    }
}
