//! Which words of a dictation the overlay shows on which line: the committed words (final, drawn in
//! full colour) followed by the tentative tail (drawn dimmed), wrapped at spaces to the panel's
//! width, the newest words on the last line. When the text has more lines than the panel, whole
//! lines are dropped from the start and the first line shown begins with "… " (whole words are
//! dropped from it until that fits); a word is never cut, except a single word wider than a line,
//! which is cut at a character and ends with "…".
//!
//! Lines are wrapped from the text's first word, so the lines already shown never re-flow when
//! words are appended: the text scrolls by whole lines. Pure: the width of a piece of text comes
//! from a measuring function (the renderer's font metrics, or a fixed width per character in
//! tests), so the same layout is drawn on screen and checked by the tests.

/// Whether a word is final or may still change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Committed: never changes, drawn in full colour.
    Committed,
    /// The tentative tail: may change or vanish at the next report, drawn dimmed.
    Tentative,
}

/// Consecutive words of one kind on one line, drawn in one colour from `x` (logical pixels from
/// the line's start).
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    pub text: String,
    pub x: f32,
    pub kind: Kind,
}

/// The words shown, line by line.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Layout {
    /// At most the `max_lines` asked for; the newest words on the last.
    pub lines: Vec<Vec<Run>>,
    /// How many words at the start are not shown (0: the text is shown whole).
    pub dropped_words: usize,
}

impl Layout {
    /// Each line's text as it reads on screen (the runs joined by a space).
    pub fn line_texts(&self) -> Vec<String> {
        self.lines
            .iter()
            .map(|runs| {
                runs.iter()
                    .map(|r| r.text.as_str())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect()
    }
}

/// What marks dropped words before the first line, and the end of a cut word.
pub const ELLIPSIS: &str = "…";

struct Word<'a> {
    text: &'a str,
    kind: Kind,
    width: f32,
}

/// Lays out `committed` then `tentative` (each split at whitespace, joined by single spaces) in at
/// most `max_lines` lines of `width`, `measure` giving the width of a text in the same unit.
pub fn layout(
    committed: &str,
    tentative: &str,
    width: f32,
    max_lines: usize,
    measure: impl Fn(&str) -> f32,
) -> Layout {
    let words: Vec<Word> = committed
        .split_whitespace()
        .map(|w| (w, Kind::Committed))
        .chain(tentative.split_whitespace().map(|w| (w, Kind::Tentative)))
        .map(|(text, kind)| Word {
            text,
            kind,
            width: measure(text),
        })
        .collect();
    if words.is_empty() || max_lines == 0 {
        return Layout::default();
    }
    let space = measure(" ");

    // Greedy wrap from the first word: each line a range of word indices. A word wider than a
    // line stands on a line of its own.
    let mut lines: Vec<(usize, usize)> = Vec::new();
    let mut start = 0;
    let mut used = 0.0f32;
    for (i, word) in words.iter().enumerate() {
        if i == start {
            used = word.width;
            continue;
        }
        let wider = used + space + word.width;
        if wider <= width {
            used = wider;
        } else {
            lines.push((start, i));
            start = i;
            used = word.width;
        }
    }
    lines.push((start, words.len()));

    let mut dropped_words = 0;
    let mut lead = false;
    if lines.len() > max_lines {
        let hidden = lines.len() - max_lines;
        dropped_words = lines[hidden].0;
        lines.drain(..hidden);
        lead = true;
        // The first line shown starts with "… ": whole words leave it until that fits (its last
        // word stays, cut if it must be).
        let marker = measure(ELLIPSIS) + space;
        let (first, end) = &mut lines[0];
        let mut line_width = line_width(&words[*first..*end], space);
        while *end - *first > 1 && marker + line_width > width {
            line_width -= words[*first].width + space;
            *first += 1;
            dropped_words += 1;
        }
    }

    let ellipsis = measure(ELLIPSIS);
    let lines = lines
        .iter()
        .enumerate()
        .map(|(n, &(first, end))| {
            let lead = lead && n == 0;
            let mut runs: Vec<Run> = Vec::new();
            let mut x = 0.0;
            let mut pending = if lead {
                format!("{ELLIPSIS} ")
            } else {
                String::new()
            };
            let mut pending_width = if lead { ellipsis + space } else { 0.0 };
            for (i, word) in words[first..end].iter().enumerate() {
                let kind_changes = runs.last().is_some_and(|r| r.kind != word.kind);
                if i > 0 && !kind_changes && !runs.is_empty() {
                    let last = runs.last_mut().expect("a run");
                    last.text.push(' ');
                    last.text.push_str(word.text);
                    x += space + word.width;
                    continue;
                }
                if i > 0 {
                    x += space;
                }
                let mut text = std::mem::take(&mut pending);
                let room = width - x - pending_width;
                let (shown, shown_width) = if word.width > room {
                    cut(word.text, room, &measure, ellipsis)
                } else {
                    (word.text.to_string(), word.width)
                };
                text.push_str(&shown);
                runs.push(Run {
                    text,
                    x,
                    kind: word.kind,
                });
                x += pending_width + shown_width;
                pending_width = 0.0;
            }
            runs
        })
        .collect();
    Layout {
        lines,
        dropped_words,
    }
}

fn line_width(words: &[Word], space: f32) -> f32 {
    words.iter().map(|w| w.width).sum::<f32>() + space * words.len().saturating_sub(1) as f32
}

/// `word` cut at a character so that it and a closing "…" fit in `room` (at least the "…"), and
/// the width of the result.
fn cut(word: &str, room: f32, measure: &impl Fn(&str) -> f32, ellipsis: f32) -> (String, f32) {
    let mut kept = 0.0;
    let mut end = 0;
    for (i, c) in word.char_indices() {
        let w = measure(&word[i..i + c.len_utf8()]);
        if kept + w + ellipsis > room {
            break;
        }
        kept += w;
        end = i + c.len_utf8();
    }
    (format!("{}{ELLIPSIS}", &word[..end]), kept + ellipsis)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::overlay::render::{Renderer, TEXT_LINES, TEXT_PX, TEXT_WIDTH};

    /// Every character one unit wide: exact expectations.
    fn mono(text: &str) -> f32 {
        text.chars().count() as f32
    }

    fn texts(layout: &Layout) -> Vec<String> {
        layout.line_texts()
    }

    /// The text of a layout with the kind of every word: "committed words|tentative words".
    fn kinds(layout: &Layout) -> Vec<Vec<(Kind, String)>> {
        layout
            .lines
            .iter()
            .map(|runs| runs.iter().map(|r| (r.kind, r.text.clone())).collect())
            .collect()
    }

    /// The real overlay font at the overlay's size.
    fn real(committed: &str, tentative: &str) -> (Layout, Renderer) {
        let r = Renderer::new().unwrap();
        let layout = layout(committed, tentative, TEXT_WIDTH, TEXT_LINES, |s| {
            r.advance(s, TEXT_PX, false)
        });
        (layout, r)
    }

    /// Every shown line fits; every shown word is a whole word of the text, except a cut word
    /// ending with "…" that is wider than a line on its own; the shown words are the text's last
    /// words, in order.
    fn assert_honest(layout: &Layout, r: &Renderer, text: &str) {
        let all: Vec<&str> = text.split_whitespace().collect();
        let mut shown: Vec<String> = Vec::new();
        for (n, line) in layout.line_texts().iter().enumerate() {
            let width = r.advance(line, TEXT_PX, false);
            assert!(width <= TEXT_WIDTH, "line {n} is {width} wide: {line:?}");
            let line = if n == 0 && layout.dropped_words > 0 {
                line.strip_prefix("… ")
                    .unwrap_or_else(|| panic!("dropped words but no lead: {line:?}"))
            } else {
                line
            };
            shown.extend(line.split(' ').map(str::to_string));
        }
        assert_eq!(layout.dropped_words + shown.len(), all.len(), "{shown:?}");
        for (word, original) in shown.iter().zip(&all[layout.dropped_words..]) {
            if word != original {
                let head = word.strip_suffix('…').unwrap_or_else(|| {
                    panic!("{word:?} is not the text's {original:?} nor a cut of it")
                });
                assert!(original.starts_with(head), "{word:?} cut from {original:?}");
                assert!(
                    r.advance(original, TEXT_PX, false)
                        > TEXT_WIDTH - r.advance("… ", TEXT_PX, false),
                    "only a word wider than a line is cut: {original:?}"
                );
            }
        }
    }

    #[test]
    fn short_text_is_one_line_and_committed_then_tentative_runs() {
        let l = layout("The report", "is almost", 40.0, 2, mono);
        assert_eq!(texts(&l), vec!["The report is almost"]);
        assert_eq!(l.dropped_words, 0);
        assert_eq!(
            l.lines[0],
            vec![
                Run {
                    text: "The report".into(),
                    x: 0.0,
                    kind: Kind::Committed
                },
                Run {
                    text: "is almost".into(),
                    x: 11.0,
                    kind: Kind::Tentative
                },
            ]
        );
        // Extra whitespace in the reports is one space on screen.
        let l = layout("  The   report ", "  ", 40.0, 2, mono);
        assert_eq!(texts(&l), vec!["The report"]);
        assert!(layout("", " ", 40.0, 2, mono).lines.is_empty());
        assert!(layout("words", "", 40.0, 0, mono).lines.is_empty());
    }

    #[test]
    fn committed_and_tentative_split_across_lines() {
        // 10 units a line: "aaa bbb" | "ccc ddd" | "eee".
        let l = layout("aaa bbb ccc", "ddd eee", 10.0, 3, mono);
        assert_eq!(
            kinds(&l),
            vec![
                vec![(Kind::Committed, "aaa bbb".into())],
                vec![
                    (Kind::Committed, "ccc".into()),
                    (Kind::Tentative, "ddd".into())
                ],
                vec![(Kind::Tentative, "eee".into())],
            ]
        );
        assert_eq!(l.lines[1][1].x, 4.0);
        assert_eq!(l.lines[2][0].x, 0.0);
    }

    #[test]
    fn text_too_long_drops_whole_words_from_the_start_with_a_lead() {
        // Lines of 12 units: "one two" "three four" "five six" "seven eight": the last two
        // shown, the first of them led by "… " (which fits: "… five six" is 10 units).
        let l = layout("one two three four five six", "seven eight", 12.0, 2, mono);
        assert_eq!(texts(&l), vec!["… five six", "seven eight"]);
        assert_eq!(l.dropped_words, 4);
        // The lines are the text's own: a line is not refilled with words from the one before.
        let l = layout("one two three four five six", "seventy", 12.0, 2, mono);
        assert_eq!(texts(&l), vec!["… five six", "seventy"]);
        assert_eq!(l.dropped_words, 4);
        // Where the lead does not fit, whole words leave the first line. Lines of 10 units:
        // "aaaa bbbb" "cccc dddd" "eeee"; "… cccc dddd" is 11: shown "… dddd".
        let l = layout("aaaa bbbb cccc dddd", "eeee", 10.0, 2, mono);
        assert_eq!(texts(&l), vec!["… dddd", "eeee"]);
        assert_eq!(l.dropped_words, 3);
        assert_eq!(l.lines[0][0].kind, Kind::Committed);
        assert_eq!(l.lines[1][0].kind, Kind::Tentative);
    }

    #[test]
    fn a_word_wider_than_a_line_is_cut_at_a_character_with_an_ellipsis() {
        let l = layout("go", "abcdefghijklmnop now", 8.0, 3, mono);
        assert_eq!(texts(&l), vec!["go", "abcdefg…", "now"]);
        assert_eq!(l.dropped_words, 0);
        // Polish: cut at a character, never inside one.
        let l = layout("źdźbłoźdźbłoźdźbło", "", 8.0, 1, mono);
        assert_eq!(texts(&l), vec!["źdźbłoź…"]);
        // The first line shown, led by "… ", holding only a word too wide for the rest.
        let l = layout("aa bb abcdefgh", "", 8.0, 1, mono);
        assert_eq!(texts(&l), vec!["… abcde…"]);
        assert_eq!(l.dropped_words, 2);
        // Narrower than the ellipsis: nothing of the word, never a panic.
        let l = layout("abc", "", 0.5, 1, mono);
        assert_eq!(texts(&l), vec!["…"]);
    }

    #[test]
    fn the_lines_shown_do_not_reflow_as_words_are_added() {
        let words: Vec<String> = (0..40).map(|i| format!("word{i}")).collect();
        let mut previous: Option<Layout> = None;
        for n in 1..words.len() {
            let l = layout(&words[..n].join(" "), "", 23.0, 100, mono);
            if let Some(previous) = previous {
                // All lines but the last are the same as before.
                let keep = previous.lines.len() - 1;
                assert_eq!(l.lines[..keep], previous.lines[..keep], "{n}");
            }
            previous = Some(l);
        }
    }

    #[test]
    fn a_two_minute_dictation_shows_its_last_words_whole_in_the_real_font() {
        // ~300 words, Polish and English, as a 2-minute dictation gives.
        let sentence = "Wczoraj wieczorem rozmawialiśmy z Zofią Kowalczyk o tym, jak przygotować \
                        raport kwartalny; the quarterly report is almost finished, źdźbło żółw \
                        gęśla jaźń.";
        let committed = vec![sentence; 14].join(" ");
        let tentative = "i kto powinien go przejrzeć przed piątkowym spotkaniem we Wrocławiu?";
        let text = format!("{committed} {tentative}");
        assert!(text.split_whitespace().count() >= 300);
        let (l, r) = real(&committed, tentative);
        assert_eq!(l.lines.len(), TEXT_LINES);
        assert!(l.dropped_words > 250, "{}", l.dropped_words);
        assert_honest(&l, &r, &text);
        let lines = l.line_texts();
        assert!(lines[0].starts_with("… "), "{lines:?}");
        assert!(lines[1].ends_with("we Wrocławiu?"), "{lines:?}");
        // The last line is the tentative tail's end, dimmed.
        assert_eq!(l.lines[1].last().unwrap().kind, Kind::Tentative);
        // The committed text alone: its end is shown in full colour.
        let (l, r) = real(&committed, "");
        assert_honest(&l, &r, &committed);
        assert!(l.line_texts()[1].ends_with("gęśla jaźń."));
        assert!(l.lines.iter().flatten().all(|r| r.kind == Kind::Committed));
    }

    #[test]
    fn the_old_mid_word_cut_is_gone() {
        // Today's regression: "…morrow morning?" (a word cut by the lead).
        let text = "Please remind me to call the dentist about the appointment that we moved \
                    from Thursday afternoon to tomorrow morning?";
        let (l, r) = real(
            "Please remind me to call the dentist about the appointment that we \
                           moved from Thursday",
            "afternoon to tomorrow morning?",
        );
        assert_honest(&l, &r, text);
        assert!(l.dropped_words > 0, "{l:?}");
        for line in l.line_texts() {
            assert!(!line.contains("…morrow"), "{line}");
        }
        // A word wider than a whole line, in the real font.
        let long = "Konstantynopolitańczykowianeczka".repeat(3);
        let text = format!("Słowo {long} koniec");
        let (l, r) = real(&text, "");
        assert_honest(&l, &r, &text);
        assert!(l.line_texts().iter().any(|t| t.ends_with('…')), "{l:?}");
    }
}
