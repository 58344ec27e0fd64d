//! A word of Whisper's text as the steps see it: the text split at spaces, each piece the
//! punctuation before the word, the word, and the punctuation after it ("(Wrocław)," →
//! "(", "Wrocław", "),").

/// `token` split into its leading punctuation, its word (first to last letter or digit, with
/// what lies between: "e-mail", "don't") and its trailing punctuation.
pub fn split(token: &str) -> (&str, &str, &str) {
    let start = token
        .char_indices()
        .find(|(_, c)| c.is_alphanumeric())
        .map_or(token.len(), |(i, _)| i);
    let end = token
        .char_indices()
        .rev()
        .find(|(_, c)| c.is_alphanumeric())
        .map_or(start, |(i, c)| i + c.len_utf8())
        .max(start);
    (&token[..start], &token[start..end], &token[end..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn punctuation_is_split_off_the_word() {
        assert_eq!(split("(Wrocław),"), ("(", "Wrocław", "),"));
        assert_eq!(split("e-mail."), ("", "e-mail", "."));
        assert_eq!(split("Umm..."), ("", "Umm", "..."));
        assert_eq!(split("..."), ("...", "", ""));
        assert_eq!(split(""), ("", "", ""));
    }
}
