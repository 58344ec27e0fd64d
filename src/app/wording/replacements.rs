//! The person's replacements ("cube control" → "kubectl", "coffee shop" → "Café Nero"): whole
//! words and phrases, found whatever their case, written as the person wrote them — except that a
//! replacement starting a sentence starts with a capital, as the sentence did. A part of a word
//! is never replaced ("cube" not in "cubes", "mail" not in "e-mail", "kot" not in "Kotlet").

use super::commands::capitalise;

/// The replacements prepared for matching.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Replacements {
    /// (what is said, lowercased and as chars; what is written), longest first.
    pairs: Vec<(Vec<char>, String)>,
}

impl Replacements {
    pub fn new<'a>(pairs: impl IntoIterator<Item = (&'a String, &'a String)>) -> Replacements {
        let mut pairs: Vec<(Vec<char>, String)> = pairs
            .into_iter()
            .map(|(said, written)| {
                let said = said.split_whitespace().collect::<Vec<_>>().join(" ");
                (lower_chars(&said), written.trim().to_string())
            })
            .filter(|(said, _)| !said.is_empty())
            .collect();
        pairs.sort_by_key(|(said, _)| std::cmp::Reverse(said.len()));
        Replacements { pairs }
    }

    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// `text` with every replacement made, left to right, the longest phrase first where two
    /// start at the same place; what a replacement wrote is not searched again.
    pub fn apply(&self, text: &str) -> String {
        if self.pairs.is_empty() {
            return text.to_string();
        }
        let chars: Vec<char> = text.chars().collect();
        let lower: Vec<char> = lower_chars(text);
        let mut out = String::with_capacity(text.len());
        let mut i = 0;
        while i < chars.len() {
            let at_word_start = i == 0 || !in_word(&chars, i - 1);
            let found = at_word_start
                .then(|| {
                    self.pairs.iter().find(|(said, _)| {
                        let end = i + said.len();
                        end <= lower.len()
                            && lower[i..end] == said[..]
                            && (end == chars.len() || !in_word(&chars, end))
                    })
                })
                .flatten();
            match found {
                Some((said, written)) => {
                    let sentence_start = out
                        .trim_end()
                        .chars()
                        .last()
                        .is_none_or(|c| matches!(c, '.' | '?' | '!' | '\n'));
                    let said_capital = chars[i].is_uppercase();
                    if sentence_start && said_capital {
                        out.push_str(&capitalise(written));
                    } else {
                        out.push_str(written);
                    }
                    i += said.len();
                }
                None => {
                    out.push(chars[i]);
                    i += 1;
                }
            }
        }
        out
    }
}

/// Whether `chars[i]` belongs to a word: a letter or digit, or a hyphen or apostrophe with a
/// letter or digit on both sides ("e-mail", "don't" are one word: a replacement of "mail" or
/// "t" does not reach into them).
fn in_word(chars: &[char], i: usize) -> bool {
    let alnum = |j: Option<usize>| {
        j.and_then(|j| chars.get(j))
            .is_some_and(|c| c.is_alphanumeric())
    };
    chars[i].is_alphanumeric()
        || (matches!(chars[i], '-' | '\'' | '’') && alnum(i.checked_sub(1)) && alnum(Some(i + 1)))
}

/// One lowercase char per char of `text` (so positions match).
fn lower_chars(text: &str) -> Vec<char> {
    text.chars()
        .map(|c| c.to_lowercase().next().unwrap_or(c))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn replacements(pairs: &[(&str, &str)]) -> Replacements {
        let map: BTreeMap<String, String> = pairs
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        Replacements::new(&map)
    }

    #[test]
    fn phrases_are_replaced_whatever_their_case() {
        let r = replacements(&[
            ("cube control", "kubectl"),
            ("coffee shop", "Café Nero"),
            ("gym pulse", "GymPulse"),
            ("coffee", "kawa"),
        ]);
        assert_eq!(
            r.apply("Please deploy it with cube control to the cluster."),
            "Please deploy it with kubectl to the cluster."
        );
        assert_eq!(
            r.apply("Let's meet at the Coffee Shop at noon."),
            "Let's meet at the Café Nero at noon."
        );
        // At a sentence's start the capital stays.
        assert_eq!(
            r.apply("Cube control is installed. Gym pulse too."),
            "Kubectl is installed. GymPulse too."
        );
        assert_eq!(r.apply("I like coffee."), "I like kawa.");
    }

    #[test]
    fn parts_of_words_are_not_replaced() {
        let r = replacements(&[("cube", "Kube"), ("kot", "pies")]);
        for text in ["The cubes are ready.", "Kotlet jest gotowy.", "A rubicube."] {
            assert_eq!(r.apply(text), text, "{text:?}");
        }
        assert_eq!(replacements(&[]).apply("cube"), "cube");
        assert_eq!(replacements(&[("  ", "x")]).apply("a  b"), "a  b");
    }

    /// Issue 25: a step changes only what the person asked it to.
    #[test]
    fn replacements_never_reach_into_other_words() {
        let r = replacements(&[
            ("mail", "email"),
            ("t", "tea"),
            ("cube", "Kube"),
            ("um", "UM Gdańsk"),
        ]);
        for text in [
            "Send me an e-mail.",
            "Don't worry.",
            "The cube-shaped box.",
            "Umowa jest gotowa.",
            "The summary is done.",
            "Mailing lists are old.",
            "Wysłałem mail-a.",
        ] {
            assert_eq!(r.apply(text), text, "{text:?}");
        }
        // A whole word next to a hyphen that joins nothing is still the word.
        assert_eq!(r.apply("Check your mail - now."), "Check your email - now.");
        assert_eq!(r.apply("(mail)"), "(email)");
    }
}
