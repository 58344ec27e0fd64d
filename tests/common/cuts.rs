//! Whether a dictation kept its words at the points where the app committed text (issue 26):
//! the app logs each commit point as `stream committed id=N cut_s=F words_total=W` (W: the
//! words committed so far in that dictation, counted by whitespace in the committed text), and
//! the pasted text, aligned word by word with the reference (normalised as `wer` does), must
//! have no inserted (duplicated) and no deleted (lost) word within [`CUT_REACH`] words of any
//! cut. Substitutions (a word heard wrong) are the recogniser's business, not the cut's, and so
//! are words heard as fewer words ([`heard_as_fewer_words`]).

use whisper_dictation::wer::normalised_words;

/// How many words on each side of a cut are checked.
pub const CUT_REACH: usize = 2;

/// One commit point of a dictation, from the app's log.
#[derive(Debug, Clone, PartialEq)]
pub struct Cut {
    /// Where in the recording the committed audio ended.
    pub cut_s: f64,
    /// Words committed so far (whitespace-separated words of the committed text).
    pub words_total: usize,
}

/// The commit points that `log` records for dictation `id`, in order; empty when the app does
/// not log any (an app without streaming commit).
pub fn cuts_in_log(log: &str, id: u64) -> Vec<Cut> {
    log.lines()
        .filter(|line| line.contains("stream committed"))
        .filter(|line| field(line, "id").and_then(|v| v.parse::<u64>().ok()) == Some(id))
        .filter_map(|line| {
            Some(Cut {
                cut_s: field(line, "cut_s")?.parse().ok()?,
                words_total: field(line, "words_total")?.parse().ok()?,
            })
        })
        .collect()
}

/// The bare value of `key=` in a log line (numbers and words, not quoted strings).
fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let pattern = format!(" {key}=");
    let start = line.find(&pattern)? + pattern.len();
    line[start..].split_whitespace().next()
}

/// One edit of the alignment of a hypothesis with its reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edit {
    /// Reference word `r` and hypothesis word `h` are the same.
    Same { r: usize, h: usize },
    /// Reference word `r` was heard as hypothesis word `h`.
    Substituted { r: usize, h: usize },
    /// Hypothesis word `h` is not in the reference (a duplicated or invented word).
    Inserted { h: usize },
    /// Reference word `r` is missing; it belonged before hypothesis word `before_h`.
    Deleted { r: usize, before_h: usize },
}

/// A minimum-edit alignment of `hypothesis` with `reference` (Levenshtein, backtraced;
/// on ties a match or substitution is preferred, then a deletion).
pub fn align(reference: &[String], hypothesis: &[String]) -> Vec<Edit> {
    let (n, m) = (reference.len(), hypothesis.len());
    let mut cost = vec![vec![0usize; m + 1]; n + 1];
    for (i, row) in cost.iter_mut().enumerate() {
        row[0] = i;
    }
    cost[0] = (0..=m).collect();
    for i in 1..=n {
        for j in 1..=m {
            let diagonal = cost[i - 1][j - 1] + usize::from(reference[i - 1] != hypothesis[j - 1]);
            cost[i][j] = diagonal.min(cost[i - 1][j] + 1).min(cost[i][j - 1] + 1);
        }
    }
    let (mut i, mut j) = (n, m);
    let mut edits = Vec::with_capacity(n.max(m));
    while i > 0 || j > 0 {
        if i > 0 && j > 0 {
            let same = reference[i - 1] == hypothesis[j - 1];
            if cost[i][j] == cost[i - 1][j - 1] + usize::from(!same) {
                i -= 1;
                j -= 1;
                edits.push(if same {
                    Edit::Same { r: i, h: j }
                } else {
                    Edit::Substituted { r: i, h: j }
                });
                continue;
            }
        }
        if i > 0 && cost[i][j] == cost[i - 1][j] + 1 {
            i -= 1;
            edits.push(Edit::Deleted { r: i, before_h: j });
        } else {
            j -= 1;
            edits.push(Edit::Inserted { h: j });
        }
    }
    edits.reverse();
    edits
}

/// A cut that lost or duplicated words.
#[derive(Debug, Clone, PartialEq)]
pub struct CutFault {
    pub cut: Cut,
    /// The cut's place in the normalised pasted words (words before it).
    pub at_word: usize,
    /// The inserted (`+word`) and deleted (`-word`) words near it.
    pub edits: Vec<String>,
    /// The pasted words around the cut, with `|` at the cut.
    pub context: String,
}

/// The cuts of `cuts` near which `pasted`, aligned with `reference`, has an inserted or a
/// deleted word (within [`CUT_REACH`] words either side); empty when every cut kept its words.
/// How many words at most a word heard wrong may stand for ([`heard_as_fewer_words`]).
const MOST_WORDS_HEARD_AS_ONE: usize = 3;

/// Whether deletion `edits[i]` is part of words heard as one word: a run of deletions next to a
/// substitution, the two together at most [`MOST_WORDS_HEARD_AS_ONE`] reference words. A
/// desktop run of the 110 s clip without pauses (2026-11-29) pasted "turn off the lights
/// invocation and lock the front door" for "…lights in the kitchen and lock…", the passes'
/// recognition after a cut before "in"; a lost word has kept words on both sides.
fn heard_as_fewer_words(edits: &[Edit], i: usize) -> bool {
    let deleted = |k: usize| matches!(edits.get(k), Some(Edit::Deleted { .. }));
    let substituted = |k: Option<usize>| {
        k.and_then(|k| edits.get(k))
            .is_some_and(|edit| matches!(edit, Edit::Substituted { .. }))
    };
    let mut from = i;
    while from > 0 && deleted(from - 1) {
        from -= 1;
    }
    let mut to = i + 1;
    while deleted(to) {
        to += 1;
    }
    to - from < MOST_WORDS_HEARD_AS_ONE
        && (substituted(from.checked_sub(1)) || substituted(Some(to)))
}

/// Whether `words[h]` is one of the three words before or after it.
fn repeats_a_neighbour(words: &[String], h: usize) -> bool {
    let from = h.saturating_sub(3);
    let to = (h + 4).min(words.len());
    (from..to).any(|i| i != h && words[i] == words[h])
}

pub fn cut_faults(reference: &str, pasted: &str, cuts: &[Cut]) -> Vec<CutFault> {
    cut_faults_beyond(reference, pasted, None, cuts)
}

/// [`cut_faults`], less the lost words that `whole` (the same recording transcribed at once,
/// as the app does) lost too: those are the recogniser's on this audio ("Finally, budget
/// review" for "Finally, the budget review"), not a cut's.
pub fn cut_faults_beyond(
    reference: &str,
    pasted: &str,
    whole: Option<&str>,
    cuts: &[Cut],
) -> Vec<CutFault> {
    let reference = normalised_words(reference);
    let hypothesis = normalised_words(pasted);
    let edits = align(&reference, &hypothesis);
    // Reference words the whole transcription has too.
    let in_whole: Vec<bool> = match whole {
        Some(whole) => {
            let mut kept = vec![false; reference.len()];
            for edit in align(&reference, &normalised_words(whole)) {
                if let Edit::Same { r, .. } = edit {
                    kept[r] = true;
                }
            }
            kept
        }
        None => vec![true; reference.len()],
    };
    let raw: Vec<&str> = pasted.split_whitespace().collect();
    cuts.iter()
        .filter_map(|cut| {
            // The committed words, normalised as the pasted text is (a number may become two).
            let committed = raw[..cut.words_total.min(raw.len())].join(" ");
            let at = normalised_words(&committed).len();
            let near = |h: usize| h + CUT_REACH >= at && h < at + CUT_REACH;
            let found: Vec<String> = edits
                .iter()
                .enumerate()
                .filter_map(|(i, edit)| match *edit {
                    // A word said twice: an inserted word that repeats one beside it. (A word
                    // Whisper invents at the end of a stretch, "at nine o'clock", is its
                    // recognition, not the cut's: the WER bound covers it.)
                    Edit::Inserted { h } if near(h) && repeats_a_neighbour(&hypothesis, h) => {
                        Some(format!("+{}", hypothesis[h]))
                    }
                    // A missing word sits between hypothesis words before_h - 1 and before_h.
                    Edit::Deleted { r, before_h }
                        if before_h + CUT_REACH >= at
                            && before_h <= at + CUT_REACH
                            && in_whole[r]
                            && !heard_as_fewer_words(&edits, i) =>
                    {
                        Some(format!("-{}", reference[r]))
                    }
                    _ => None,
                })
                .collect();
            if found.is_empty() {
                return None;
            }
            let from = at.saturating_sub(4);
            let to = (at + 4).min(hypothesis.len());
            let context = format!(
                "{} | {}",
                hypothesis[from..at.min(to)].join(" "),
                hypothesis[at.min(to)..to].join(" ")
            );
            Some(CutFault {
                cut: cut.clone(),
                at_word: at,
                edits: found,
                context,
            })
        })
        .collect()
}
