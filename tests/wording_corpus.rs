//! The wording's promise held against data, not a handful of examples (issue 25): the sentence
//! lists in `tests/fixtures/wording/` — the project's clip texts, Whisper's own text for the
//! project's clips, units, abbreviations in capitals, medical and technical terms, lists ending
//! with a one-word item, short replies — are left byte-identical by the default settings
//! (spoken commands and filler removal on, no vocabulary); the inflected forms of vocabulary
//! entries and the ordinary words near them are left alone by a vocabulary of every entry,
//! while the misspellings it exists for are still corrected. Each test prints its counts.
//! Pure text: no model, no desktop.

use std::collections::BTreeMap;
use std::path::PathBuf;
use whisper_dictation::app::wording::Wording;
use whisper_dictation::settings::Settings;

fn fixture(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/wording")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The lines of a fixture that are not comments or blank.
fn lines(name: &str) -> Vec<String> {
    fixture(name)
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

/// A fixture's lines split at " | " into exactly `n` fields.
fn fields(name: &str, n: usize) -> Vec<Vec<String>> {
    lines(name)
        .into_iter()
        .map(|l| {
            let f: Vec<String> = l.split(" | ").map(str::to_string).collect();
            assert_eq!(f.len(), n, "{name}: {l:?}");
            f
        })
        .collect()
}

/// Every changed line, as "language: before → after".
fn changed(wording: &Wording, sentences: &[String], language: &str) -> Vec<String> {
    sentences
        .iter()
        .filter_map(|s| {
            let out = wording.rewrite(s, language);
            (out != *s).then(|| format!("{language}: {s:?} → {out:?}"))
        })
        .collect()
}

#[test]
fn the_default_settings_leave_ordinary_sentences_byte_identical() {
    let wording = Wording::from_settings(&Settings::default());
    assert!(wording.spoken_commands && wording.remove_fillers && wording.vocabulary.is_empty());
    let english = lines("ordinary-en.txt");
    let polish = lines("ordinary-pl.txt");
    let mut wrong = changed(&wording, &english, "en");
    wrong.extend(changed(&wording, &polish, "pl"));
    println!(
        "ordinary sentences left byte-identical by the defaults: {} English + {} Polish = {}; \
         changed: {}",
        english.len(),
        polish.len(),
        english.len() + polish.len(),
        wrong.len()
    );
    assert!(english.len() + polish.len() >= 300);
    assert!(wrong.is_empty(), "changed:\n{}", wrong.join("\n"));
}

/// A wording with every entry of both vocabulary fixtures.
fn vocabulary_wording() -> Wording {
    let mut entries: Vec<String> = fields("vocabulary-forms.txt", 2)
        .into_iter()
        .chain(fields("vocabulary-corrections.txt", 3))
        .map(|f| f[0].clone())
        .collect();
    entries.sort();
    entries.dedup();
    Wording::from_settings(&Settings {
        vocabulary: entries,
        replacements: BTreeMap::new(),
        ..Settings::default()
    })
}

#[test]
fn a_vocabulary_leaves_other_forms_of_its_entries_and_ordinary_words_alone() {
    let wording = vocabulary_wording();
    let forms = fields("vocabulary-forms.txt", 2);
    let entries: std::collections::BTreeSet<&str> = forms.iter().map(|f| f[0].as_str()).collect();
    let wrong: Vec<String> = forms
        .iter()
        .filter_map(|f| {
            let language = if f[1].is_ascii() { "en" } else { "pl" };
            let out = wording.rewrite(&f[1], language);
            (out != f[1]).then(|| format!("{}: {:?} → {out:?}", f[0], f[1]))
        })
        .collect();
    println!(
        "inflected forms and nearby ordinary words left alone by a vocabulary of {} entries: \
         {} sentences; changed: {}",
        entries.len(),
        forms.len(),
        wrong.len()
    );
    assert!(forms.len() >= 100);
    assert!(wrong.is_empty(), "changed:\n{}", wrong.join("\n"));
}

#[test]
fn a_vocabulary_still_corrects_what_it_is_for() {
    let wording = vocabulary_wording();
    let cases = fields("vocabulary-corrections.txt", 3);
    let wrong: Vec<String> = cases
        .iter()
        .filter_map(|f| {
            let out = wording.vocabulary.apply(&f[1]);
            (out != f[2]).then(|| format!("{}: {:?} → {out:?}, not {:?}", f[0], f[1], f[2]))
        })
        .collect();
    println!(
        "corrections a vocabulary must make: {}; wrong: {}",
        cases.len(),
        wrong.len()
    );
    assert!(wrong.is_empty(), "wrong:\n{}", wrong.join("\n"));
}

#[test]
fn the_defaults_still_carry_out_commands_and_remove_fillers() {
    // The other side of the corpus: the steps are on, not merely harmless.
    let wording = Wording::from_settings(&Settings::default());
    for (said, language, expected) in [
        (
            "Dear Anna. New line. Thank you.",
            "en",
            "Dear Anna.\nThank you.",
        ),
        ("Is it ready, question mark.", "en", "Is it ready?"),
        ("To jest test, kropka.", "pl", "To jest test."),
        ("Um, I think so.", "en", "I think so."),
        ("Myślę, yyy, że tak.", "pl", "Myślę, że tak."),
    ] {
        assert_eq!(wording.rewrite(said, language), expected, "{said:?}");
    }
}
