//! The ordinary words of English and Polish that a vocabulary's near-miss correction never
//! rewrites ("waiter" is no misspelling of an entry "Walter", nor "poznam" of "Poznań"). The
//! lists are `resources/wording/common-words-{en,pl}.txt`: the 50,000 most frequent words of
//! each language (of them, those of six letters or more: shorter words are never near-miss
//! corrected), from the wordfreq package's data (CC BY-SA 4.0; source, licence and the script
//! that regenerates them, `scripts/gen-common-words.py`, are in each file's header). They are
//! built into the binary, so nothing is read or fetched at run time.

use super::fold::fold;
use std::collections::HashSet;
use std::sync::OnceLock;

const ENGLISH: &str = include_str!("../../../resources/wording/common-words-en.txt");
const POLISH: &str = include_str!("../../../resources/wording/common-words-pl.txt");

/// The words of both lists, folded.
fn words() -> &'static HashSet<String> {
    static WORDS: OnceLock<HashSet<String>> = OnceLock::new();
    WORDS.get_or_init(|| {
        ENGLISH
            .lines()
            .chain(POLISH.lines())
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(fold)
            .collect()
    })
}

/// Whether the folded word `word` is an ordinary English or Polish word.
pub fn is_ordinary(word: &str) -> bool {
    words().contains(word)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lists_hold_ordinary_words_and_no_misspellings() {
        for word in [
            "walked",
            "waiter",
            "poznam",
            "warszawy",
            "kowalskiego",
            "turned",
        ] {
            assert!(is_ordinary(word), "{word}");
        }
        for word in [
            "kowalsky",
            "agneszka",
            "warshawa",
            "kubernetis",
            "kowalczik",
        ] {
            assert!(!is_ordinary(word), "{word}");
        }
        assert!(words().len() > 40_000, "{}", words().len());
    }
}
