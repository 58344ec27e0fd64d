//! Comparing words as a person would when case and diacritics are not what tells them apart:
//! "Wrocław", "wroclaw" and "WROCLAW" fold to the same text.

/// `text` lowercased with the diacritics of Polish and the other Latin-script languages
/// Whisper writes taken off ("Łódź" → "lodz", "Müller" → "muller").
pub fn fold(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        for lower in c.to_lowercase() {
            match base_letter(lower) {
                Some(base) => out.push_str(base),
                None => out.push(lower),
            }
        }
    }
    out
}

fn base_letter(c: char) -> Option<&'static str> {
    Some(match c {
        'ą' | 'á' | 'à' | 'â' | 'ä' | 'ã' | 'å' | 'ā' => "a",
        'ć' | 'č' | 'ç' => "c",
        'ď' => "d",
        'ę' | 'é' | 'è' | 'ê' | 'ë' | 'ě' | 'ē' => "e",
        'í' | 'ì' | 'î' | 'ï' | 'ī' => "i",
        'ł' | 'ľ' | 'ĺ' => "l",
        'ń' | 'ñ' | 'ň' => "n",
        'ó' | 'ò' | 'ô' | 'ö' | 'õ' | 'ő' | 'ø' => "o",
        'ř' => "r",
        'ś' | 'š' => "s",
        'ť' => "t",
        'ú' | 'ù' | 'û' | 'ü' | 'ů' | 'ű' | 'ū' => "u",
        'ý' | 'ÿ' => "y",
        'ź' | 'ż' | 'ž' => "z",
        'ß' => "ss",
        _ => return None,
    })
}

/// Levenshtein distance between two strings, in characters.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    crate::wer::edit_distance(&a, &b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folding_takes_off_case_and_diacritics() {
        assert_eq!(fold("Łódź"), "lodz");
        assert_eq!(fold("WROCŁAW"), "wroclaw");
        assert_eq!(fold("Zażółć gęślą jaźń"), "zazolc gesla jazn");
        assert_eq!(fold("Müller Straße"), "muller strasse");
        assert_eq!(fold("Kubernetes"), "kubernetes");
    }

    #[test]
    fn edit_distance_counts_characters() {
        assert_eq!(edit_distance("kubernetes", "kubernetis"), 1);
        assert_eq!(edit_distance("kowalczyk", "kowalczik"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("łódź", "lodz"), 3);
        assert_eq!(edit_distance("same", "same"), 0);
    }
}
