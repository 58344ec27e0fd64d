//! Whether two words are forms of one word: the guard that keeps a vocabulary entry from
//! rewriting another form of itself ("Warszawa" is not to replace "Warszawy", "Warszawie",
//! "Warszawę"; "Kowalski" not "Kowalska", "Kowalscy"; "Agnieszka" not "Agnieszce") or an
//! ordinary word that shares its stem ("Walker" not "walked"; "Parker" not "parked").
//!
//! Both words are folded ([`super::fold::fold`]: no case, no diacritics, so "ą"/"a" and
//! "ó"/"o" alternations vanish). They are forms of one word when, after a common stem of at
//! least three letters, what is left of each is an inflectional ending of Polish or English
//! ([`ENDINGS`]), possibly after the stem's last consonant alternated the way Polish declension
//! alternates it ([`ALTERNATIONS`]: "Agniesz-k-a"/"Agniesz-c-e", "Pa-wel"/"Pa-wl-a",
//! "Kowals-k-i"/"Kowals-c-y"). One spelling rule keeps misspellings out: Polish writes no "y"
//! after "k" or "g", so "Kowalsky" is no form of "Kowalski" and is still corrected.
//!
//! This is a guard, not a grammar: it may call two unrelated words forms of one another (then
//! the vocabulary leaves a word as said, which is the safe side), and it never makes a change.

/// Endings (folded) of Polish nouns, adjectives and surnames, then of English nouns and verbs.
const ENDINGS: &[&str] = &[
    // Polish: cases of nouns in -a, of masculine and neuter nouns, of adjectival surnames
    // (-ski/-ska/-cki), of married surnames (-owa, -ówna), with the "i" of a soft stem.
    "", "a", "e", "i", "y", "o", "u", "ie", "ia", "iu", "io", "ii", "em", "iem", "om", "iom", "ami",
    "iami", "ach", "iach", "ow", "iow", "owi", "iowi", "owie", "ego", "iego", "emu", "iemu", "ej",
    "iej", "ym", "im", "ymi", "imi", "ych", "ich", "owa", "owej", "owe", "owych", "owym", "owymi",
    "owna", "ownie", "owny", "owien",
    // English: plurals, possessives, past tenses, participles, agent nouns, comparatives.
    "s", "es", "'s", "s'", "d", "ed", "ing", "er", "ers", "est", "ies", "ied", "ly",
];

/// Polish consonant alternations at the end of a stem (folded): the entry's side, the other
/// form's side ("k" of "Agnieszka" is "c" in "Agnieszce"), and the mobile "e" ("Marek"/"Marka",
/// "Paweł"/"Pawła", "Ostrowiec"/"Ostrowca").
const ALTERNATIONS: &[(&str, &str)] = &[
    ("k", "c"),
    ("g", "dz"),
    ("ch", "sz"),
    ("r", "rz"),
    ("t", "c"),
    ("d", "dz"),
    ("sk", "sc"),
    ("st", "sc"),
    ("ek", "k"),
    ("ec", "c"),
    ("el", "l"),
];

fn is_ending(ending: &str, stem: &str) -> bool {
    // Polish writes "ki", "gi", never "ky", "gy" (the spelling rule in the module doc).
    if ending.starts_with('y') && stem.ends_with(['k', 'g']) {
        return false;
    }
    ENDINGS.contains(&ending)
}

/// Whether the folded words `a` and `b` are forms of one word (see the module doc). A word is
/// not a form of itself here: equal words give `false`.
pub fn same_word(a: &str, b: &str) -> bool {
    if a == b {
        return false;
    }
    let (a_chars, b_chars): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let common = a_chars
        .iter()
        .zip(&b_chars)
        .take_while(|(x, y)| x == y)
        .count();
    // Back off up to two letters so an alternating consonant is part of the endings.
    (0..=2.min(common)).any(|back| {
        let stem_len = common - back;
        if stem_len < 3 {
            return false;
        }
        let stem: String = a_chars[..stem_len].iter().collect();
        let tail_a: String = a_chars[stem_len..].iter().collect();
        let tail_b: String = b_chars[stem_len..].iter().collect();
        endings_of_one_stem(&stem, &tail_a, &tail_b)
    })
}

/// Whether `a` and `b`, each after `stem`, are endings of it, directly or after an alternation.
fn endings_of_one_stem(stem: &str, a: &str, b: &str) -> bool {
    if is_ending(a, stem) && is_ending(b, stem) {
        return true;
    }
    ALTERNATIONS.iter().any(|&(x, y)| {
        [(x, y), (y, x)].iter().any(|&(in_a, in_b)| {
            match (a.strip_prefix(in_a), b.strip_prefix(in_b)) {
                (Some(end_a), Some(end_b)) => {
                    is_ending(end_a, &format!("{stem}{in_a}"))
                        && is_ending(end_b, &format!("{stem}{in_b}"))
                }
                _ => false,
            }
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::wording::fold::fold;

    /// ("Warszawą" folds to "warszawa" itself: that form is kept by the vocabulary's diacritic
    /// rule, not here.)
    fn forms(entry: &str, words: &[&str]) {
        for word in words {
            assert!(
                same_word(&fold(word), &fold(entry)),
                "{word:?} is a form of {entry:?}"
            );
        }
    }

    #[test]
    fn polish_cases_and_genders_are_forms_of_the_entry() {
        forms(
            "Warszawa",
            &["Warszawy", "Warszawie", "Warszawę", "Warszawo"],
        );
        forms(
            "Agnieszka",
            &["Agnieszki", "Agnieszce", "Agnieszkę", "Agnieszko"],
        );
        forms(
            "Kowalski",
            &[
                "Kowalska",
                "Kowalskiego",
                "Kowalskiej",
                "Kowalskiemu",
                "Kowalskim",
                "Kowalską",
                "Kowalscy",
                "Kowalskich",
                "Kowalskimi",
            ],
        );
        forms("Łódź", &["Łodzi", "Łodzią"]);
        forms("Kraków", &["Krakowa", "Krakowie", "Krakowem"]);
        forms("Paweł", &["Pawła", "Pawłowi", "Pawłem", "Pawle"]);
        forms("Marek", &["Marka", "Markowi", "Markiem"]);
        forms("Marta", &["Marty", "Marcie", "Martę"]);
        forms("Magda", &["Magdy", "Magdzie"]);
        forms("Piotr", &["Piotra", "Piotrze", "Piotrem"]);
        forms(
            "Kowalczyk",
            &["Kowalczykowa", "Kowalczykowej", "Kowalczykówna"],
        );
    }

    #[test]
    fn english_inflections_share_the_stem() {
        forms(
            "Walker",
            &["walked", "walks", "walking", "Walkers", "Walker's"],
        );
        forms("Parker", &["parked", "parks", "parking"]);
        forms("Turner", &["turned", "turns", "turning"]);
    }

    #[test]
    fn misspellings_are_no_forms() {
        for (said, entry) in [
            ("Kowalsky", "Kowalski"),
            ("Agneszka", "Agnieszka"),
            ("Warshawa", "Warszawa"),
            ("Kubernetis", "Kubernetes"),
            ("Kowalczik", "Kowalczyk"),
            ("Kowalski", "Kowalski"),
        ] {
            assert!(!same_word(&fold(said), &fold(entry)), "{said:?}");
        }
    }
}
