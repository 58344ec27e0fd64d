//! The repeat check on recorded pass results: copies written over noise are dropped, what the
//! person said twice stays.

use super::*;
use crate::app::worker::stream::tests::transcript_of;

/// Words with alignment times (text as Whisper writes it, start, end in seconds).
fn timed(words: &[(&str, f32, f32)]) -> Vec<SaidWord> {
    words
        .iter()
        .map(|&(text, start, end)| SaidWord::new(text, Span::Word { start, end }))
        .collect()
}

/// "The invoice total is $420 due on the 15th." as a neural voice says it (3.1 s), as a pass
/// that committed it timed it.
const INVOICE: [(&str, f32, f32); 9] = [
    (" The", 0.30, 0.42),
    (" invoice", 0.42, 0.90),
    (" total", 0.90, 1.30),
    (" is", 1.30, 1.44),
    (" $420", 1.44, 2.30),
    (" due", 2.30, 2.52),
    (" on", 2.52, 2.66),
    (" the", 2.66, 2.78),
    (" 15th.", 2.78, 3.40),
];

/// The pass over the 1.2 s of steady noise after it, prompted with it, wrote it again: all its
/// words squeezed into the noise (the alignment heads' times for words that are not there).
const COPY_OVER_NOISE: [(&str, f32, f32); 9] = [
    (" The", 0.00, 0.06),
    (" invoice", 0.06, 0.20),
    (" total", 0.20, 0.32),
    (" is", 0.32, 0.38),
    (" $420", 0.38, 0.62),
    (" due", 0.62, 0.74),
    (" on", 0.74, 0.80),
    (" the", 0.80, 0.86),
    (" 15th.", 0.86, 1.10),
];

/// The same copy, "total" left out (as pasted in 2 of 3 runs).
fn copy_without_total() -> Vec<(&'static str, f32, f32)> {
    COPY_OVER_NOISE
        .iter()
        .copied()
        .filter(|w| w.0 != " total")
        .collect()
}

#[test]
fn an_exact_copy_of_the_committed_sentence_over_noise_is_dropped() {
    let committed = timed(&INVOICE);
    let pass = timed(&COPY_OVER_NOISE);
    assert_eq!(said_again(&committed, &pass, 1.2), Some(0..9));
    // Key-up's text, no times: the 1.2 s after the cut cannot hold the sentence either.
    let text = SaidWord::untimed("The invoice total is $420 due on the 15th.");
    assert_eq!(said_again(&committed, &text, 1.2), Some(0..9));
}

#[test]
fn a_copy_with_a_word_missing_is_dropped_and_the_words_after_it_stay() {
    let committed = timed(&INVOICE);
    let pass = timed(&copy_without_total());
    let copy = near_copy(&committed, &pass).expect("a copy");
    assert_eq!((copy.words, copy.original, copy.edits), (8, 0..9, 1));
    assert_eq!(said_again(&committed, &pass, 1.2), Some(0..8));
    // Without alignment times for the committed words (a pause's commit), by letters alone:
    // 37 letters ("420" said as nine) are not said in 1.3 s.
    let untimed = SaidWord::untimed("The invoice total is $420 due on the 15th.");
    let text = "The invoice is $420 due on the 15th. Please pay by Friday.";
    let tail = SaidWord::untimed(text);
    let dropped = said_again(&untimed, &tail, 1.3).expect("a copy");
    assert_eq!(dropped, 0..8);
    assert_eq!(without_text_words(text, dropped), "Please pay by Friday.");
    // After a sentence that was said, ending the text: dropped too.
    let after = "Please pay by Friday. The invoice is $420 due on the 15th.";
    let dropped = said_again(&untimed, &SaidWord::untimed(after), 1.3).expect("a copy");
    assert_eq!(without_text_words(after, dropped), "Please pay by Friday.");
    // Written three times: every copy goes.
    let thrice = "The invoice total is $420 due on the 15th. The invoice is $420 due on the 15th.";
    assert_eq!(
        without_copies_in_text(&untimed, thrice, 1.3),
        (String::new(), 17)
    );
    // Inside a longer sentence with words of its own: no copy.
    let inside = "Please note the invoice is $420 due on the 15th.";
    assert_eq!(said_again(&untimed, &SaidWord::untimed(inside), 1.3), None);
}

#[test]
fn a_phrase_the_person_said_twice_stays() {
    // "Test one two three." committed, then said again in its own 1.7 s of speech.
    let committed = timed(&[
        (" Test", 0.40, 0.80),
        (" one", 0.80, 1.20),
        (" two", 1.20, 1.65),
        (" three.", 1.65, 2.20),
    ]);
    let again = timed(&[
        (" Test", 0.50, 0.85),
        (" one", 0.85, 1.25),
        (" two", 1.25, 1.70),
        (" three.", 1.70, 2.20),
    ]);
    assert!(near_copy(&committed, &again).is_some(), "it is a copy");
    assert_eq!(
        said_again(&committed, &again, 3.0),
        None,
        "but it was spoken"
    );
    // Known only by its text, in the 2.5 s after the cut: there is room to say it.
    let text = SaidWord::untimed("Test one two three.");
    assert_eq!(said_again(&committed, &text, 2.5), None);
    // Two words said twice are too short to tell, however fast: kept.
    let no = SaidWord::untimed("No, no.");
    assert_eq!(said_again(&no, &SaidWord::untimed("No, no."), 0.2), None);
}

#[test]
fn other_words_are_no_copy() {
    let committed = timed(&INVOICE);
    let other = SaidWord::untimed("Please send it to the accounts team.");
    assert_eq!(near_copy(&committed, &other), None);
    // Two words changed in nine: another sentence that shares words.
    let changed = SaidWord::untimed("The invoice total is $380 due on the 20th.");
    assert_eq!(near_copy(&committed, &changed), None);
    // Four words must be exact.
    let short = SaidWord::untimed("We meet on the 15th.");
    assert_eq!(
        near_copy(&short, &SaidWord::untimed("meet on the 16th.")),
        None
    );
    assert!(near_copy(&short, &SaidWord::untimed("meet on the 15th.")).is_some());
    // A copy of the committed text's last sentence only.
    let two = SaidWord::untimed("Good morning. The invoice total is $420 due on the 15th.");
    let copy = near_copy(
        &two,
        &SaidWord::untimed("The invoice total is 420 due on the 15th"),
    );
    assert_eq!(copy.map(|c| c.original), Some(2..11));
}

/// A short dictation's one pass (no commits) that wrote its sentence again over the noise
/// after it: the copy, in its own segment squeezed into the last 1.2 s, is dropped, by segment
/// times and by word times; one the person said in its own seconds stays.
#[test]
fn a_text_that_says_its_sentence_again_over_noise_loses_the_copy() {
    let shifted: Vec<(&str, f32, f32)> = copy_without_total()
        .iter()
        .map(|&(w, s, e)| (w, s + 3.4, e + 3.4))
        .collect();
    let both: Vec<(&str, f32, f32)> = INVOICE.iter().copied().chain(shifted).collect();
    let mut by_words = transcript_of(&both, 9);
    by_words.duration = 4.6;
    let (kept, dropped) = without_repeated_sentence(&by_words);
    assert_eq!(dropped, 8);
    assert_eq!(kept.text, " The invoice total is $420 due on the 15th.");
    assert_eq!(kept.segments.len(), 1);
    // Three times, the last two squeezed into the noise: both copies go.
    let thrice: Vec<(&str, f32, f32)> = both
        .iter()
        .copied()
        .chain(
            copy_without_total()
                .iter()
                .map(|&(w, s, e)| (w, s / 2.0 + 4.5, e / 2.0 + 4.5)),
        )
        .collect();
    let mut thrice = transcript_of(&thrice, 9);
    thrice.duration = 5.1;
    let (kept, dropped) = without_repeated_sentence(&thrice);
    assert_eq!((kept.text.as_str(), dropped), (INVOICE_TEXT, 16));

    // Segment timestamps only (no word times asked for): the copy's segment is 3.4–4.5 s.
    let mut by_segments = by_words.clone();
    for segment in &mut by_segments.segments {
        segment.words.clear();
    }
    let (kept, dropped) = without_repeated_sentence(&by_segments);
    assert_eq!((kept.text.as_str(), dropped), (INVOICE_TEXT, 8));

    // Said twice, each in its own 3 s: kept.
    let mut said_twice = by_segments.clone();
    said_twice.segments[1].start = 3.6;
    said_twice.segments[1].end = 6.4;
    said_twice.duration = 6.8;
    assert_eq!(without_repeated_sentence(&said_twice).1, 0);
    // Both sentences in one segment: nothing tells the copy's time apart; kept.
    let one_segment = transcript_of(&both, 17);
    let mut one_segment = Transcript {
        duration: 4.6,
        ..one_segment
    };
    for segment in &mut one_segment.segments {
        segment.words.clear();
    }
    assert_eq!(without_repeated_sentence(&one_segment).1, 0);
}

const INVOICE_TEXT: &str = " The invoice total is $420 due on the 15th.";

#[test]
fn words_are_dropped_by_word_times_or_by_segment_text() {
    let words = [
        (" One", 0.0, 0.4),
        (" two", 0.4, 0.8),
        (" three.", 0.8, 1.2),
        (" Four", 1.5, 1.9),
        (" five.", 1.9, 2.4),
    ];
    let transcript = transcript_of(&words, 3);
    let kept = without_words(&transcript, 1..4);
    assert_eq!(kept.text, " One five.");
    assert_eq!(
        (kept.segments[1].start, kept.segments[1].end),
        (1.9, 2.4),
        "the segment's times are its words'"
    );
    let gone = without_words(&transcript, 0..3);
    assert_eq!(
        (gone.text.as_str(), gone.segments.len()),
        (" Four five.", 1)
    );
    let mut untimed = transcript.clone();
    for segment in &mut untimed.segments {
        segment.words.clear();
    }
    assert_eq!(without_words(&untimed, 1..4).text, " One five.");
    assert_eq!(SaidWord::of_transcript(&untimed, 0.0).len(), 5);
}
