//! Folding text for search, and turning what the person types into an FTS5 query.
//!
//! The search index holds [`fold`]ed text: lower case, Polish (and other Latin) letters without
//! their diacritics, so "zolw" finds "Żółw" and "lodz" finds "Łódź". SQLite's `unicode61`
//! tokenizer with `remove_diacritics 2` folds case and the letters that decompose in Unicode
//! (ż = z + ◌̇), but not ł/Ł, ø, đ or ħ, which are letters of their own: those are folded here,
//! in Rust, before the text reaches the index and before a query reaches it. The displayed text
//! is stored as it was; only the index holds the folded copy.
//!
//! [`match_expression`] quotes every typed word, so FTS5's syntax (`"`, `*`, `-`, `:`,
//! parentheses, `AND`/`OR`/`NOT`/`NEAR`) typed by the person is searched for as text and never
//! an error; the last word is a prefix ("zol" finds "żółw") unless a space follows it.

/// `text` in lower case with the diacritics of Latin letters removed (Polish ą ć ę ł ń ó ś ź ż
/// and the other letters of Latin-1 and Latin Extended-A), and combining marks dropped (text
/// in decomposed form folds like composed text). Everything else is kept as it is.
pub fn fold(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if is_combining_mark(c) {
            continue;
        }
        match base_letter(c) {
            Some(base) => out.push_str(base),
            None => out.extend(c.to_lowercase()),
        }
    }
    out
}

/// The base letters (lower case) of a Latin letter with a diacritic, or of a letter such as
/// ł or ø that SQLite's tokenizer does not fold; `None` for any other character.
fn base_letter(c: char) -> Option<&'static str> {
    Some(match c {
        // Polish first: the letters this app's people type.
        'ą' | 'Ą' => "a",
        'ć' | 'Ć' => "c",
        'ę' | 'Ę' => "e",
        'ł' | 'Ł' => "l",
        'ń' | 'Ń' => "n",
        'ó' | 'Ó' => "o",
        'ś' | 'Ś' => "s",
        'ź' | 'Ź' | 'ż' | 'Ż' => "z",
        // Letters that do not decompose in Unicode.
        'ø' | 'Ø' => "o",
        'đ' | 'Đ' | 'ð' | 'Ð' => "d",
        'ħ' | 'Ħ' => "h",
        'ŀ' | 'Ŀ' => "l",
        'ŧ' | 'Ŧ' => "t",
        'ı' => "i",
        // Latin-1 and Latin Extended-A letters that do decompose (the tokenizer would fold
        // them too; here so that `fold` alone is complete for European text).
        'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' | 'ā' | 'ă' | 'À' | 'Á' | 'Â' | 'Ã' | 'Ä' | 'Å' | 'Ā'
        | 'Ă' => "a",
        'ç' | 'č' | 'ĉ' | 'ċ' | 'Ç' | 'Č' | 'Ĉ' | 'Ċ' => "c",
        'ď' | 'Ď' => "d",
        'è' | 'é' | 'ê' | 'ë' | 'ē' | 'ĕ' | 'ė' | 'ě' | 'È' | 'É' | 'Ê' | 'Ë' | 'Ē' | 'Ĕ' | 'Ė'
        | 'Ě' => "e",
        'ĝ' | 'ğ' | 'ġ' | 'ģ' | 'Ĝ' | 'Ğ' | 'Ġ' | 'Ģ' => "g",
        'ĥ' | 'Ĥ' => "h",
        'ì' | 'í' | 'î' | 'ï' | 'ĩ' | 'ī' | 'ĭ' | 'į' | 'Ì' | 'Í' | 'Î' | 'Ï' | 'Ĩ' | 'Ī' | 'Ĭ'
        | 'Į' | 'İ' => "i",
        'ĵ' | 'Ĵ' => "j",
        'ķ' | 'Ķ' => "k",
        'ĺ' | 'ļ' | 'ľ' | 'Ĺ' | 'Ļ' | 'Ľ' => "l",
        'ñ' | 'ņ' | 'ň' | 'Ñ' | 'Ņ' | 'Ň' => "n",
        'ò' | 'ô' | 'õ' | 'ö' | 'ō' | 'ŏ' | 'ő' | 'Ò' | 'Ô' | 'Õ' | 'Ö' | 'Ō' | 'Ŏ' | 'Ő' => {
            "o"
        }
        'ŕ' | 'ŗ' | 'ř' | 'Ŕ' | 'Ŗ' | 'Ř' => "r",
        'ŝ' | 'ş' | 'š' | 'Ŝ' | 'Ş' | 'Š' => "s",
        'ţ' | 'ť' | 'Ţ' | 'Ť' => "t",
        'ù' | 'ú' | 'û' | 'ü' | 'ũ' | 'ū' | 'ŭ' | 'ů' | 'ű' | 'ų' | 'Ù' | 'Ú' | 'Û' | 'Ü' | 'Ũ'
        | 'Ū' | 'Ŭ' | 'Ů' | 'Ű' | 'Ų' => "u",
        'ŵ' | 'Ŵ' => "w",
        'ý' | 'ÿ' | 'ŷ' | 'Ý' | 'Ÿ' | 'Ŷ' => "y",
        'ž' | 'Ž' => "z",
        'æ' | 'Æ' => "ae",
        'œ' | 'Œ' => "oe",
        'ß' => "ss",
        _ => return None,
    })
}

/// Combining diacritical marks (U+0300–U+036F): the accents of text in decomposed form.
fn is_combining_mark(c: char) -> bool {
    ('\u{0300}'..='\u{036F}').contains(&c)
}

/// The FTS5 query for what the person typed: each word (split at white space) folded and
/// quoted as an FTS5 string (so no character of it is syntax), all of them required, the last
/// a prefix unless the query ends in white space. `None` when nothing searchable was typed
/// (empty, spaces, or only punctuation): the caller shows the recent entries instead.
pub fn match_expression(query: &str) -> Option<String> {
    // A control character (NUL above all: FTS5 reads its query as a C string) separates
    // words like a space.
    let folded: String = fold(query)
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let words: Vec<&str> = folded
        .split_whitespace()
        .filter(|word| word.chars().any(char::is_alphanumeric))
        .collect();
    let last = words.len().checked_sub(1)?;
    let prefix_last = !folded.ends_with(char::is_whitespace);
    let quoted: Vec<String> = words
        .iter()
        .enumerate()
        .map(|(i, word)| {
            let star = if i == last && prefix_last { "*" } else { "" };
            format!("\"{}\"{star}", word.replace('"', "\"\""))
        })
        .collect();
    Some(quoted.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn polish_letters_fold_to_their_base_letters_in_lower_case() {
        assert_eq!(fold("Zażółć gęślą jaźń"), "zazolc gesla jazn");
        assert_eq!(fold("ZAŻÓŁĆ GĘŚLĄ JAŹŃ"), "zazolc gesla jazn");
        assert_eq!(fold("Łódź"), "lodz");
        assert_eq!(fold("Żółw"), "zolw");
        assert_eq!(fold("ąćęłńóśźż ĄĆĘŁŃÓŚŹŻ"), "acelnoszz acelnoszz");
    }

    #[test]
    fn letters_that_do_not_decompose_and_decomposed_text_fold_too() {
        assert_eq!(fold("Øresund Đorđe Ħal"), "oresund dorde hal");
        // "Żółw" in decomposed form: Z + dot above, o + acute; ł has no decomposition.
        assert_eq!(fold("Z\u{307}o\u{301}łw"), "zolw");
        assert_eq!(fold("Straße naïve Crème"), "strasse naive creme");
    }

    #[test]
    fn other_text_is_kept_except_for_case() {
        assert_eq!(fold("Hello, World! 42 – ok?"), "hello, world! 42 – ok?");
        assert_eq!(fold("Привет Мир"), "привет мир");
        assert_eq!(fold(""), "");
    }

    #[test]
    fn every_typed_word_is_quoted_and_the_last_is_a_prefix() {
        assert_eq!(match_expression("zol").as_deref(), Some("\"zol\"*"));
        assert_eq!(
            match_expression("Żółw  Łódź").as_deref(),
            Some("\"zolw\" \"lodz\"*")
        );
        assert_eq!(
            match_expression("zolw lodz ").as_deref(),
            Some("\"zolw\" \"lodz\"")
        );
    }

    #[test]
    fn fts_syntax_typed_by_the_person_is_text() {
        assert_eq!(
            match_expression("say \"hi\"").as_deref(),
            Some("\"say\" \"\"\"hi\"\"\"*")
        );
        assert_eq!(
            match_expression("a:b NOT (c*) -d").as_deref(),
            Some("\"a:b\" \"not\" \"(c*)\" \"-d\"*")
        );
    }

    #[test]
    fn nothing_searchable_is_no_expression() {
        assert_eq!(match_expression(""), None);
        assert_eq!(match_expression("   "), None);
        assert_eq!(match_expression("\" * - : ( )"), None);
        assert_eq!(match_expression("\0\t\u{7f}"), None);
    }

    #[test]
    fn control_characters_separate_words() {
        assert_eq!(match_expression("a\0b").as_deref(), Some("\"a\" \"b\"*"));
        assert_eq!(match_expression("a\t").as_deref(), Some("\"a\""));
    }
}
