//! Word error rate of a transcript against the text that was spoken, as the benchmarks report
//! it: both texts normalised the same way (lower case, punctuation dropped, small numbers
//! written as words, so "at 9." and "at nine" agree), then the word-level edit distance over the
//! reference's length.

/// Words of `text` after normalisation.
pub fn normalised_words(text: &str) -> Vec<String> {
    text.split_whitespace()
        .flat_map(|raw| {
            let word: String = raw
                .chars()
                .filter(|c| c.is_alphanumeric() || *c == '\'')
                .flat_map(char::to_lowercase)
                .collect();
            let word = word.trim_matches('\'').to_string();
            match word.parse::<u32>() {
                Ok(n) => number_words(n),
                Err(_) => vec![word],
            }
        })
        .filter(|w| !w.is_empty())
        .collect()
}

/// Edit operations (substitutions, insertions, deletions) turning `reference` into
/// `hypothesis`, word by word.
pub fn word_errors(reference: &[String], hypothesis: &[String]) -> usize {
    edit_distance(reference, hypothesis)
}

/// The Levenshtein distance between two sequences (of words, of characters).
pub fn edit_distance<T: PartialEq>(reference: &[T], hypothesis: &[T]) -> usize {
    let mut previous: Vec<usize> = (0..=hypothesis.len()).collect();
    for (i, r) in reference.iter().enumerate() {
        let mut current = vec![i + 1; hypothesis.len() + 1];
        for (j, h) in hypothesis.iter().enumerate() {
            let substitute = previous[j] + usize::from(r != h);
            current[j + 1] = substitute.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        previous = current;
    }
    previous[hypothesis.len()]
}

/// One step of an alignment of a hypothesis with its reference ([`align`]); indices are word
/// positions in each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edit {
    Match {
        reference: usize,
        hypothesis: usize,
    },
    Substitute {
        reference: usize,
        hypothesis: usize,
    },
    /// A hypothesis word the reference does not have (a word said twice).
    Insert {
        hypothesis: usize,
    },
    /// A reference word the hypothesis lost.
    Delete {
        reference: usize,
    },
}

/// A least-cost alignment of `hypothesis` with `reference` (the edits [`edit_distance`]
/// counts), in order.
pub fn align<T: PartialEq>(reference: &[T], hypothesis: &[T]) -> Vec<Edit> {
    let (n, m) = (reference.len(), hypothesis.len());
    let mut cost = vec![vec![0usize; m + 1]; n + 1];
    for (i, row) in cost.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in cost[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=n {
        for j in 1..=m {
            let substitute =
                cost[i - 1][j - 1] + usize::from(reference[i - 1] != hypothesis[j - 1]);
            cost[i][j] = substitute.min(cost[i - 1][j] + 1).min(cost[i][j - 1] + 1);
        }
    }
    let mut edits = Vec::new();
    let (mut i, mut j) = (n, m);
    while i > 0 || j > 0 {
        if i > 0 && j > 0 {
            let same = reference[i - 1] == hypothesis[j - 1];
            if cost[i][j] == cost[i - 1][j - 1] + usize::from(!same) {
                edits.push(if same {
                    Edit::Match {
                        reference: i - 1,
                        hypothesis: j - 1,
                    }
                } else {
                    Edit::Substitute {
                        reference: i - 1,
                        hypothesis: j - 1,
                    }
                });
                i -= 1;
                j -= 1;
                continue;
            }
        }
        if j > 0 && cost[i][j] == cost[i][j - 1] + 1 {
            edits.push(Edit::Insert { hypothesis: j - 1 });
            j -= 1;
        } else {
            edits.push(Edit::Delete { reference: i - 1 });
            i -= 1;
        }
    }
    edits.reverse();
    edits
}

/// Word error rate of `hypothesis` against `reference`, in percent (0 for two empty texts; an
/// empty reference with words hypothesised counts each as an error over one reference word).
pub fn wer_percent(reference: &str, hypothesis: &str) -> f64 {
    let r = normalised_words(reference);
    let h = normalised_words(hypothesis);
    100.0 * word_errors(&r, &h) as f64 / r.len().max(1) as f64
}

/// Word error rate of `hypothesis` against `reference` as written, in percent: words are
/// compared with their case and punctuation, so "page second we" against "page. Second, we"
/// is two errors where [`wer_percent`] sees none. Whisper writes a stretch without
/// punctuation or capitals at times (a pass from mid-sentence); this rate shows it.
pub fn written_wer_percent(reference: &str, hypothesis: &str) -> f64 {
    let words =
        |text: &str| -> Vec<String> { text.split_whitespace().map(str::to_string).collect() };
    let r = words(reference);
    100.0 * word_errors(&r, &words(hypothesis)) as f64 / r.len().max(1) as f64
}

/// English words for 0–99 (larger numbers stay digits: the clips do not say them).
fn number_words(n: u32) -> Vec<String> {
    const ONES: [&str; 20] = [
        "zero",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "thirteen",
        "fourteen",
        "fifteen",
        "sixteen",
        "seventeen",
        "eighteen",
        "nineteen",
    ];
    const TENS: [&str; 10] = [
        "", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
    ];
    match n {
        0..=19 => vec![ONES[n as usize].to_string()],
        20..=99 if n.is_multiple_of(10) => vec![TENS[(n / 10) as usize].to_string()],
        20..=99 => vec![
            TENS[(n / 10) as usize].to_string(),
            ONES[(n % 10) as usize].to_string(),
        ],
        _ => vec![n.to_string()],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_alignment_names_the_word_said_twice_and_the_word_lost() {
        let words = |t: &str| normalised_words(t);
        let (said, heard) = ("we met at the big office", "we met met at the office");
        let edits = align(&words(said), &words(heard));
        assert!(
            edits
                .iter()
                .any(|e| matches!(e, Edit::Insert { hypothesis: 1 | 2 })),
            "{edits:?}"
        );
        assert!(edits.contains(&Edit::Delete { reference: 4 }), "{edits:?}");
        let cost = edits
            .iter()
            .filter(|e| !matches!(e, Edit::Match { .. }))
            .count();
        assert_eq!(cost, edit_distance(&words(said), &words(heard)));
    }

    #[test]
    fn punctuation_case_and_small_numbers_do_not_count() {
        assert_eq!(
            wer_percent(
                "Please remind me to call the dentist tomorrow morning at nine.",
                "please remind me to call the dentist tomorrow morning at 9"
            ),
            0.0
        );
        assert_eq!(
            normalised_words("Gate 12, at 2:30!"),
            ["gate", "twelve", "at", "230"]
        );
        assert_eq!(normalised_words("I'll be 'late'"), ["i'll", "be", "late"]);
    }

    #[test]
    fn substitutions_insertions_and_deletions_each_cost_one() {
        // one substitution in four words
        assert_eq!(wer_percent("a b c d", "a x c d"), 25.0);
        // one deletion
        assert_eq!(wer_percent("a b c d", "a b d"), 25.0);
        // two insertions
        assert_eq!(wer_percent("a b c d", "a b c d e f"), 50.0);
        assert_eq!(wer_percent("", ""), 0.0);
        assert_eq!(wer_percent("", "thank you"), 200.0);
        assert_eq!(wer_percent("a b", ""), 100.0);
    }

    #[test]
    fn the_written_rate_counts_lost_punctuation_and_capitals() {
        let (said, heard) = (
            "the checkout page. Second, we agreed.",
            "the checkout page second we agreed",
        );
        assert_eq!(wer_percent(said, heard), 0.0);
        // "page." → "page", "Second," → "second", "agreed." → "agreed": 3 of 6.
        assert_eq!(written_wer_percent(said, heard), 50.0);
        assert_eq!(written_wer_percent(said, said), 0.0);
    }
}
