//! The words of a re-transcription against the entry's text, for the History window: which
//! words both have, which only the new one has, and which it lost. Words are compared as the
//! word error rate compares them (case and punctuation aside, `wer::normalised_words` per
//! word) and shown as written.

use crate::wer::{align, normalised_words, Edit};

/// One word of the difference, in reading order.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct DiffWord {
    pub text: String,
    pub change: Change,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    /// In both texts.
    Same,
    /// Only in the new text.
    Added,
    /// Only in the old text.
    Removed,
}

/// `new`'s words against `old`'s: a substituted word is shown as the old one removed, then
/// the new one added.
pub fn words(old: &str, new: &str) -> Vec<DiffWord> {
    let old_words: Vec<&str> = old.split_whitespace().collect();
    let new_words: Vec<&str> = new.split_whitespace().collect();
    let key = |word: &&str| normalised_words(word).join(" ");
    let old_keys: Vec<String> = old_words.iter().map(key).collect();
    let new_keys: Vec<String> = new_words.iter().map(key).collect();
    let word = |text: &str, change| DiffWord {
        text: text.to_string(),
        change,
    };
    let mut diff = Vec::new();
    for edit in align(&old_keys, &new_keys) {
        match edit {
            Edit::Match { hypothesis, .. } => diff.push(word(new_words[hypothesis], Change::Same)),
            Edit::Substitute {
                reference,
                hypothesis,
            } => {
                diff.push(word(old_words[reference], Change::Removed));
                diff.push(word(new_words[hypothesis], Change::Added));
            }
            Edit::Insert { hypothesis } => diff.push(word(new_words[hypothesis], Change::Added)),
            Edit::Delete { reference } => diff.push(word(old_words[reference], Change::Removed)),
        }
    }
    diff
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(diff: &[DiffWord]) -> String {
        diff.iter()
            .map(|w| match w.change {
                Change::Same => w.text.clone(),
                Change::Added => format!("+{}", w.text),
                Change::Removed => format!("-{}", w.text),
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn case_and_punctuation_are_the_same_word_and_shown_as_the_new_text_writes_them() {
        let diff = words("Przypomnij mi jutro rano", "przypomnij mi, jutro rano.");
        assert_eq!(shown(&diff), "przypomnij mi, jutro rano.");
    }

    #[test]
    fn a_changed_word_is_removed_then_added_and_lost_or_new_words_are_marked() {
        let diff = words(
            "Call the dentist tomorrow morning",
            "Call the dentists tomorrow at morning",
        );
        assert_eq!(
            shown(&diff),
            "Call the -dentist +dentists tomorrow +at morning"
        );
        assert_eq!(
            shown(&words("one two three", "one three")),
            "one -two three"
        );
        assert_eq!(shown(&words("", "Hello.")), "+Hello.");
        assert!(words("", "").is_empty());
    }
}
