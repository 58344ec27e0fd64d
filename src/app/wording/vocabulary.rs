//! The person's own words written their way. A word or phrase of the text that folds to a
//! vocabulary entry ("wroclaw", "WROCŁAW") is written as the entry ("Wrocław"); a near miss of
//! a long enough entry ("Kubernetis", "Zofia Kowalczik", "Kowalsky", "Agneszka", "Warshawa") is
//! corrected too. The vocabulary exists to write names right, and Polish inflects them, so what
//! is never changed:
//! - another form of the entry ([`super::inflection`]: "do Warszawy", "Warszawie", "pani
//!   Kowalska", "Agnieszce", "we Wrocławiu"; a diacritic the speech has and the entry lacks, as in
//!   "z Zofią", is another form too);
//! - an ordinary word of English or Polish ([`super::ordinary`]: "walked" near "Walker",
//!   "waiter" near "Walter", "poznam" near "Poznań"), and a word sharing the entry's stem with an
//!   inflectional ending ("parked" near "Parker", "turned" near "Turner");
//! - a word of fewer than 6 letters that is not the entry itself (too many ordinary words are
//!   one letter away from a short name), and a word whose first letter differs.

use super::fold::{edit_distance, fold};
use super::inflection::same_word;
use super::ordinary::is_ordinary;
use super::token::split;

/// The vocabulary prepared for matching.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Vocabulary {
    entries: Vec<Entry>,
}

#[derive(Debug, Clone, PartialEq)]
struct Entry {
    /// As the person writes it.
    written: String,
    /// Folded, words separated by single spaces.
    folded: String,
    words: usize,
}

/// How many edits a near miss of a folded entry of `len` characters may have.
fn allowed_edits(len: usize) -> usize {
    match len {
        0..=5 => 0,
        6..=9 => 1,
        _ => 2,
    }
}

impl Vocabulary {
    pub fn new(words: &[String]) -> Vocabulary {
        let mut entries: Vec<Entry> = words
            .iter()
            .map(|w| w.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|w| !w.is_empty())
            .map(|written| Entry {
                folded: fold(&written),
                words: written.split(' ').count(),
                written,
            })
            .collect();
        // Longer phrases first, so "Zofia Kowalczyk" wins over "Zofia".
        entries.sort_by(|a, b| {
            b.words
                .cmp(&a.words)
                .then(b.folded.len().cmp(&a.folded.len()))
        });
        Vocabulary { entries }
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// `text` with the vocabulary's spellings; unchanged without a match.
    pub fn apply(&self, text: &str) -> String {
        if self.entries.is_empty() {
            return text.to_string();
        }
        let mut tokens: Vec<String> = text.split(' ').map(str::to_string).collect();
        let mut done = vec![false; tokens.len()];
        for entry in &self.entries {
            let n = entry.words;
            if n == 0 || n > tokens.len() {
                continue;
            }
            for start in 0..=tokens.len() - n {
                if done[start..start + n].iter().any(|&d| d) {
                    continue;
                }
                let window = &tokens[start..start + n];
                let (lead, _, _) = split(&window[0]);
                let (_, _, trail) = split(&window[n - 1]);
                let words: Vec<&str> = window
                    .iter()
                    .enumerate()
                    .map(|(i, t)| {
                        let (_, word, after) = split(t);
                        // Inner tokens keep no punctuation of their own to match a phrase.
                        if i + 1 < n && !after.is_empty() {
                            ""
                        } else {
                            word
                        }
                    })
                    .collect();
                if words.iter().any(|w| w.is_empty()) {
                    continue;
                }
                let said = words.join(" ");
                if said == entry.written || !matches(&said, entry) {
                    if said == entry.written {
                        done[start..start + n].iter_mut().for_each(|d| *d = true);
                    }
                    continue;
                }
                let (lead, trail) = (lead.to_string(), trail.to_string());
                let mut replaced: Vec<String> =
                    entry.written.split(' ').map(str::to_string).collect();
                replaced[0] = format!("{lead}{}", replaced[0]);
                let last = replaced.len() - 1;
                replaced[last] = format!("{}{trail}", replaced[last]);
                tokens.splice(start..start + n, replaced);
                done[start..start + n].iter_mut().for_each(|d| *d = true);
            }
        }
        tokens.join(" ")
    }
}

/// Whether `said` is the entry written otherwise (case, missing diacritics) or a near miss of
/// it. A diacritic the person's speech has and the entry lacks is a different word form
/// ("z Zofią" is not "Zofia"), so it never matches.
fn matches(said: &str, entry: &Entry) -> bool {
    let folded = fold(said);
    if folded == entry.folded {
        let lower = said.to_lowercase();
        let written = entry.written.to_lowercase();
        return lower.chars().count() == written.chars().count()
            && lower
                .chars()
                .zip(written.chars())
                .all(|(s, e)| s == e || s.is_ascii());
    }
    let (a, b): (Vec<char>, Vec<char>) = (folded.chars().collect(), entry.folded.chars().collect());
    if a.len() < 6 || a.first() != b.first() {
        return false;
    }
    // Word by word: a word that differs from the entry's word must be long enough, and neither
    // another form of it nor an ordinary word.
    let said_words: Vec<&str> = folded.split(' ').collect();
    let entry_words: Vec<&str> = entry.folded.split(' ').collect();
    if said_words.len() != entry_words.len() {
        return false;
    }
    let guarded = said_words
        .iter()
        .zip(&entry_words)
        .filter(|(s, e)| s != e)
        .any(|(s, e)| s.chars().count() < 6 || same_word(s, e) || is_ordinary(s));
    !guarded && edit_distance(&folded, &entry.folded) <= allowed_edits(b.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vocabulary(words: &[&str]) -> Vocabulary {
        Vocabulary::new(&words.iter().map(|w| w.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn case_and_diacritics_are_restored_and_near_misses_corrected() {
        let v = vocabulary(&[
            "Wrocław",
            "Łódź",
            "Kubernetes",
            "Zofia Kowalczyk",
            "GymPulse",
        ]);
        assert_eq!(
            v.apply("The meeting is in Wroclaw with Zofia Kowalczik."),
            "The meeting is in Wrocław with Zofia Kowalczyk."
        );
        assert_eq!(v.apply("Jadę do Lodz."), "Jadę do Łódź.");
        assert_eq!(
            v.apply("The kubernetis cluster is down."),
            "The Kubernetes cluster is down."
        );
        assert_eq!(v.apply("Open gympulse, please."), "Open GymPulse, please.");
    }

    #[test]
    fn ordinary_words_and_inflected_names_are_left_alone() {
        let v = vocabulary(&[
            "Wrocław",
            "Gdynia",
            "Kowalczyk",
            "Marta",
            "Kubernetes",
            "Oskar",
            "Zofia Kowalczyk",
        ]);
        for text in [
            "Jutro jadę do Wrocławia, a potem do Gdyni.",
            "Spotkałem się z panią Kowalczykową.",
            "To jest nowa marka samochodów.",
            "He likes the Oscar ceremony.",
            "Kubernetes is already spelled right.",
            "The governess arrived.",
            "Rozmawiałem z Zofią Kowalczyk.",
            // Whisper's own text (`base`) for the project's Polish clip.
            "Jutro o 10 mamy ważne spotkania na rąbem w sali konferencjonnej.",
        ] {
            assert_eq!(v.apply(text), text, "{text:?}");
        }
        assert_eq!(vocabulary(&[]).apply("wroclaw"), "wroclaw");
    }

    /// Issue 25: a vocabulary rewrote other forms of its entries and ordinary words.
    #[test]
    fn other_forms_of_an_entry_and_ordinary_words_are_never_rewritten() {
        let v = vocabulary(&[
            "Warszawa",
            "Agnieszka",
            "Kowalski",
            "Walker",
            "Parker",
            "Turner",
            "Walter",
            "Poznań",
        ]);
        for text in [
            "Jadę do Warszawy.",
            "Kocham Warszawę.",
            "Mieszkam w Warszawie.",
            "Dzwoniłem do Agnieszki.",
            "Dałem to Agnieszce.",
            "Pani Kowalska dzwoniła.",
            "Państwo Kowalscy przyjechali.",
            "He walked home.",
            "She parked the car.",
            "He turned left.",
            "The waiter came.",
            "Chętnie ją poznam.",
            "Walkers and Parkers.",
        ] {
            assert_eq!(v.apply(text), text, "{text:?}");
        }
    }

    #[test]
    fn misspellings_of_long_entries_are_still_corrected() {
        let v = vocabulary(&["Kowalski", "Agnieszka", "Warszawa", "Walker"]);
        assert_eq!(v.apply("Pan Kowalsky dzwonił."), "Pan Kowalski dzwonił.");
        assert_eq!(v.apply("Agneszka przyszła."), "Agnieszka przyszła.");
        assert_eq!(v.apply("Warshawa is big."), "Warszawa is big.");
        assert_eq!(v.apply("Mr walker is here."), "Mr Walker is here.");
    }
}
