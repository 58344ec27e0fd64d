//! "Open log folder": the folder is opened with a short note in it, `ABOUT.txt` in the UI's
//! language, saying what the log files hold (and whether dictated text is among it now), so a
//! person who attaches them to a bug report knows what they send. The note is rewritten at
//! every opening (owner-only, like the logs); the appender's pruning leaves it alone (it keeps
//! only `whisper-dictation.*.log` files in count).

use crate::i18n::UiLang;
use std::path::Path;

/// The note's file name in the log folder.
pub const ABOUT_FILE: &str = "ABOUT.txt";

/// What the log files hold, in `lang`; `text_logged`: text logging is on (the setting or the
/// environment variable).
pub fn about(lang: UiLang, text_logged: bool) -> String {
    let env = crate::logging::LOG_TEXT_ENV;
    match (lang, text_logged) {
        (UiLang::En, false) => format!(
            "whisper-dictation's log files, one a day, the last 7 kept.\n\
             They hold what the app did and how long it took: timings, lengths of texts, \
             language, device, model, dictation numbers, errors. They hold nothing you \
             dictated: a text is written as its length, e.g. text=<42-chars>.\n\
             For a bug report where the words matter, turn text logging on for one run \
             ({env}=1, or \"log_text\": true in settings.json), reproduce the problem, \
             and turn it off again.\n\
             Only your account can read these files.\n"
        ),
        (UiLang::En, true) => format!(
            "whisper-dictation's log files, one a day, the last 7 kept.\n\
             TEXT LOGGING IS ON: besides timings, lengths, language, device and errors, the \
             files written while it is on hold the texts you dictated. Read them before you \
             send them, and turn it off once the bug report is sent (remove {env}, or set \
             \"log_text\": false in settings.json).\n\
             Only your account can read these files.\n"
        ),
        (UiLang::Pl, false) => format!(
            "Pliki dziennika whisper-dictation, jeden na dzień, zostaje 7 ostatnich.\n\
             Zapisują, co aplikacja robiła i ile to trwało: czasy, długości tekstów, język, \
             urządzenie, model, numery dyktowań, błędy. Nie ma w nich nic z tego, co \
             podyktowano: tekst jest zapisany jako jego długość, np. text=<42-chars>.\n\
             Do zgłoszenia błędu, w którym liczą się słowa, włącz zapisywanie tekstu na jedno \
             uruchomienie ({env}=1 albo \"log_text\": true w settings.json), powtórz problem \
             i wyłącz je z powrotem.\n\
             Te pliki może czytać tylko Twoje konto.\n"
        ),
        (UiLang::Pl, true) => format!(
            "Pliki dziennika whisper-dictation, jeden na dzień, zostaje 7 ostatnich.\n\
             ZAPISYWANIE TEKSTU JEST WŁĄCZONE: oprócz czasów, długości, języka, urządzenia i \
             błędów pliki zapisane w tym czasie zawierają podyktowane teksty. Przeczytaj je, \
             zanim je wyślesz, i wyłącz zapisywanie po wysłaniu zgłoszenia (usuń {env} albo \
             ustaw \"log_text\": false w settings.json).\n\
             Te pliki może czytać tylko Twoje konto.\n"
        ),
    }
}

/// Writes the note into `dir` (creating it owner-only) and opens the folder.
///
/// # Errors
/// Why the note could not be written or the folder opened, as text for the log.
pub fn open(dir: &Path, lang: UiLang) -> Result<(), String> {
    let note = about(lang, crate::logging::log_text());
    crate::private_files::create_dir_all(dir)
        .and_then(|()| crate::atomic_file::write(&dir.join(ABOUT_FILE), note.as_bytes()))
        .map_err(|e| format!("{}: {e}", dir.join(ABOUT_FILE).display()))?;
    crate::platform::open_folder(dir).map_err(|e| format!("cannot open {}: {e}", dir.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_note_says_whether_dictated_text_is_in_the_logs_in_both_languages() {
        for lang in [UiLang::En, UiLang::Pl] {
            let off = about(lang, false);
            let on = about(lang, true);
            assert!(off.contains("text=<42-chars>"), "{off}");
            assert!(off.contains(crate::logging::LOG_TEXT_ENV), "{off}");
            assert!(on.contains("\"log_text\": false"), "{on}");
            assert_ne!(off, on);
        }
        assert!(about(UiLang::En, true).contains("TEXT LOGGING IS ON"));
        assert!(about(UiLang::Pl, false).contains("nic z tego, co podyktowano"));
    }
}
