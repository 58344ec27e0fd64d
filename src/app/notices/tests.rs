//! What the notifications say, in both languages.

use super::*;

#[test]
fn a_hotkey_macos_uses_is_named_with_what_to_do() {
    let notice = Notice::HotkeyIsSystemShortcut {
        hotkey: "⌃⌥Space".into(),
        shortcut: crate::system_shortcuts::NEXT_INPUT_SOURCE,
    };
    let (summary, body) = notice.text(UiLang::En);
    assert_eq!(summary, "Hotkey taken by macOS");
    assert!(
        body.contains("⌃⌥Space is also the system shortcut “Select next source in Input menu”")
            && body.contains("switches the layout")
            && body.contains("Keyboard Shortcuts"),
        "{body}"
    );
    let (summary, body) = notice.text(UiLang::Pl);
    assert_eq!(summary, "Skrót zajęty przez macOS");
    assert!(
        body.contains("zmieni układ") && body.contains("Skrót klawiszowy"),
        "{body}"
    );
    let spotlight = Notice::HotkeyIsSystemShortcut {
        hotkey: "⌘Space".into(),
        shortcut: crate::system_shortcuts::SPOTLIGHT,
    };
    let (_, body) = spotlight.text(UiLang::En);
    assert!(
        body.contains("Spotlight") && !body.contains("layout"),
        "{body}"
    );
}

#[test]
fn kept_recordings_are_said_with_when_and_what_to_do() {
    let nothing = |larger_model: Option<&str>| Notice::NothingRecognised {
        speech: 2.5,
        larger_model: larger_model.map(str::to_string),
    };
    let (summary, body) = nothing(Some("small")).text(UiLang::Pl);
    assert_eq!(summary, "Nic nie rozpoznano");
    assert!(
        body.contains("2,5 s") && body.contains("Ponów ostatnie nagranie"),
        "{body}"
    );
    assert!(
        body.contains("Model small") && body.contains("polski"),
        "{body}"
    );
    let (_, body) = nothing(None).text(UiLang::En);
    assert!(
        body.contains("2.5 s") && body.contains("Retry last recording"),
        "{body}"
    );
    assert!(!body.contains("model"), "{body}");

    let at = "14:05".to_string();
    let recovered = Notice::RecordingRecovered {
        recorded_at: at.clone(),
        seconds: 20.4,
    };
    let (summary, body) = recovered.text(UiLang::En);
    assert_eq!(summary, "Dictation recovered");
    assert!(
        body.contains("14:05 was interrupted") && body.contains("(20 s)"),
        "{body}"
    );
    assert!(body.contains("clipboard (not pasted)"), "{body}");
    let (_, body) = recovered.text(UiLang::Pl);
    assert!(
        body.contains("z 14:05") && body.contains("schowku"),
        "{body}"
    );
    for notice in [
        Notice::RecoveredNothing {
            recorded_at: at.clone(),
        },
        Notice::RecoveryFailed {
            recorded_at: at.clone(),
            detail: "x.wav is not a valid WAV file".into(),
        },
        Notice::RecordingNotRetried {
            recorded_at: at.clone(),
        },
    ] {
        for lang in [UiLang::En, UiLang::Pl] {
            let (summary, body) = notice.text(lang);
            assert!(!summary.is_empty(), "{notice:?}");
            assert!(body.contains("14:05"), "{body}");
            assert!(
                body.contains("Retry last recording") || body.contains("Ponów ostatnie nagranie"),
                "{body}"
            );
        }
    }
}

#[test]
fn a_failed_microphone_or_transcription_says_the_recording_is_kept() {
    for lang in [UiLang::En, UiLang::Pl] {
        let (summary, kept) = Notice::MicrophoneFailed {
            problem: MicrophoneProblem::Lost,
            kept: true,
        }
        .text(lang);
        assert!(
            summary == "Microphone problem" || summary == "Problem z mikrofonem",
            "{summary}"
        );
        assert!(
            kept.contains("being transcribed") || kept.contains("jest przepisywane"),
            "{kept}"
        );
        let (_, nothing) = Notice::MicrophoneFailed {
            problem: MicrophoneProblem::Lost,
            kept: false,
        }
        .text(lang);
        assert!(
            !nothing.contains("dropped") && !nothing.contains("przerwano"),
            "{nothing}"
        );
        let (_, crashed) = Notice::TranscriptionCrashed.text(lang);
        assert!(
            crashed.contains("Retry last recording") || crashed.contains("Ponów ostatnie nagranie"),
            "{crashed}"
        );
    }
}

#[test]
fn notices_speak_both_languages() {
    let (summary, body) = Notice::MaxLengthSoon {
        remaining: Duration::from_secs(10),
    }
    .text(UiLang::Pl);
    assert_eq!(summary, "Nagranie zaraz się skończy");
    assert!(body.contains("10 s"));
    for lang in [UiLang::En, UiLang::Pl] {
        let (_, mac) = Notice::MicrophoneSilent { mac: true }.text(lang);
        let (_, linux) = Notice::MicrophoneSilent { mac: false }.text(lang);
        assert!(mac.contains("Whisper Dictation"), "{mac}");
        assert!(
            !linux.contains("Whisper Dictation") && !linux.contains('→'),
            "{linux}"
        );
    }
    let (summary, _) = Notice::AlreadyRunning.text(UiLang::En);
    assert_eq!(summary, "Already running");
}

#[test]
fn a_damaged_settings_file_is_reported_with_its_consequence_once() {
    let file = crate::settings::Settings::load;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("settings.json"), "{broken").unwrap();
    let whole = file(dir.path()).1.expect("a warning");
    std::fs::write(
        dir.path().join("settings.json"),
        r#"{"max_recording_secs": "long"}"#,
    )
    .unwrap();
    let fields = file(dir.path()).1.expect("a warning");
    for (warning, en, pl) in [
        (
            &whole,
            "Using the default settings.",
            "Używam ustawień domyślnych.",
        ),
        (
            &fields,
            "The other settings are kept.",
            "Pozostałe ustawienia zachowuję.",
        ),
    ] {
        let notice = Notice::SettingsDamaged {
            detail: warning.file_and_problem(),
            whole_file: warning.whole_file,
        };
        let (_, body) = notice.text(UiLang::En);
        assert!(body.ends_with(en), "{body}");
        assert_eq!(
            body.to_lowercase().matches("default settings").count(),
            usize::from(warning.whole_file),
            "{body}"
        );
        let (_, body) = notice.text(UiLang::Pl);
        assert!(body.ends_with(pl), "{body}");
    }
}

#[test]
fn a_menu_choice_on_a_damaged_file_says_the_file_is_kept_in_both_languages() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("settings.json"),
        "{\n  \"language\": \u{201C}en\"\n}",
    )
    .unwrap();
    let settings = crate::settings::Settings::default();
    let key = crate::settings::file::SettingKey::Language;
    let error = crate::settings::file::set_key(dir.path(), &settings, key).unwrap_err();
    let notice = Notice::SettingsKept {
        detail: error.to_string(),
    };
    for (lang, summary, kept) in [
        (
            UiLang::En,
            "Settings file not changed",
            "The file is left as it is",
        ),
        (
            UiLang::Pl,
            "Nie zmieniono pliku ustawień",
            "Plik zostaje bez zmian",
        ),
    ] {
        let (title, body) = notice.text(lang);
        assert_eq!(title, summary);
        assert!(
            body.contains("settings.json") && body.contains("line 2, column 15"),
            "{body}"
        );
        assert!(body.contains(kept), "{body}");
    }
}

#[test]
fn model_notices_speak_both_languages() {
    let failed = |redownload| Notice::ModelFailed {
        model: "base".into(),
        detail: "model.bin: tensor `x` is missing".into(),
        redownload,
    };
    let (_, body) = failed(true).text(UiLang::Pl);
    assert!(
        body.contains("Pobierz ponownie") && body.contains("model.bin"),
        "{body}"
    );
    let (_, body) = failed(false).text(UiLang::En);
    assert!(!body.contains("again"), "{body}");
    let failed = Notice::DownloadFailed {
        model: "small".into(),
        detail: "stalled".into(),
        resumable: true,
    };
    assert!(failed.text(UiLang::En).1.contains("continue"));
    let confirm = Notice::DownloadConfirm {
        model: "small".into(),
        size: "487 MB".into(),
    };
    assert!(confirm.text(UiLang::Pl).1.contains("487 MB"));
}

#[test]
fn a_text_not_pasted_says_where_it_is_and_the_shortcut_to_paste_it() {
    for (mac, shortcut) in [(true, "Cmd+V"), (false, "Ctrl+V")] {
        let (summary, body) = Notice::NotPasted { mac }.text(UiLang::En);
        assert_eq!(summary, "Text not pasted");
        assert!(
            body.contains(shortcut) && body.contains("Recent transcripts"),
            "{body}"
        );
        let (summary, body) = Notice::NotPasted { mac }.text(UiLang::Pl);
        assert_eq!(summary, "Nie wklejono tekstu");
        assert!(
            body.contains(shortcut) && body.contains("Ostatnie transkrypcje"),
            "{body}"
        );
    }
}

#[test]
fn secure_input_says_why_nothing_was_pasted_and_what_to_press() {
    use crate::inject::NotPasted;
    let notice = Notice::not_pasted(NotPasted::SecureInput, true);
    assert_eq!(notice, Notice::SecureInput);
    let (summary, body) = notice.text(UiLang::En);
    assert_eq!(summary, "Text on the clipboard: Secure Input");
    assert!(
        body.contains("password field")
            && body.contains("Secure Keyboard Entry")
            && body.contains("paste it with Cmd+V")
            && body.contains("Recent transcripts"),
        "{body}"
    );
    let (summary, body) = notice.text(UiLang::Pl);
    assert_eq!(summary, "Tekst w schowku: bezpieczne wprowadzanie");
    assert!(
        body.contains("Pole hasła")
            && body.contains("wklej go Cmd+V")
            && body.contains("Ostatnie transkrypcje"),
        "{body}"
    );
    // The held-keys reasons keep their own notice, with the platform's shortcut.
    assert_ne!(
        Notice::not_pasted(NotPasted::NoKeystrokesOnWayland, false),
        Notice::NotPasted { mac: false }
    );
    for why in [NotPasted::KeysHeld, NotPasted::KeysPressedMeanwhile] {
        assert_eq!(
            Notice::not_pasted(why, false),
            Notice::NotPasted { mac: false }
        );
    }
}

#[test]
fn a_wayland_desktop_without_keystrokes_says_the_text_is_on_the_clipboard() {
    use crate::inject::NotPasted;
    let notice = Notice::not_pasted(NotPasted::NoKeystrokesOnWayland, false);
    assert_eq!(notice, Notice::NoKeystrokesOnWayland);
    let (summary, body) = notice.text(UiLang::En);
    assert_eq!(summary, "Text on the clipboard: Wayland");
    assert!(
        body.contains("lets no app type")
            && body.contains("press Ctrl+V")
            && body.contains("Recent transcripts"),
        "{body}"
    );
    let (summary, body) = notice.text(UiLang::Pl);
    assert_eq!(summary, "Tekst w schowku: Wayland");
    assert!(
        body.contains("nie pozwala żadnej aplikacji pisać")
            && body.contains("wklej go Ctrl+V")
            && body.contains("Ostatnie transkrypcje"),
        "{body}"
    );
}
