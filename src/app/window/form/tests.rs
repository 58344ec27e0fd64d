use super::*;
use serde_json::json;

fn choices() -> FormChoices {
    FormChoices {
        models: vec!["base".into(), "small".into()],
        microphones: vec!["USB Mic".into()],
        devices: vec!["cpu".into(), "cuda".into()],
        ..FormChoices::default()
    }
}

fn ok(key: &str, value: Value) -> Change {
    check(key, &value, &choices()).unwrap_or_else(|p| panic!("{key} {value}: {p:?}"))
}

fn problem(key: &str, value: Value) -> Problem {
    match check(key, &value, &choices()) {
        Ok(change) => panic!("{key} {value} was taken: {change:?}"),
        Err(problem) => problem,
    }
}

#[test]
fn hotkeys_are_what_global_hotkey_registers() {
    assert_eq!(
        ok("hotkey", json!("ctrl+alt+space")),
        Change::Hotkey("ctrl+alt+space".into())
    );
    // As people type it: spaces and capitals.
    assert_eq!(
        ok("hotkey", json!("Ctrl + Shift + Space")),
        Change::Hotkey("ctrl+shift+space".into())
    );
    assert_eq!(ok("hotkey", json!("f8")), Change::Hotkey("f8".into()));
    for half_typed in ["ctrl+", "ctrl+alt+spac", "", "hyper+q", "ctrl+alt"] {
        assert!(
            matches!(
                problem("hotkey", json!(half_typed)),
                Problem::NotAHotkey { .. }
            ),
            "{half_typed}"
        );
    }
    assert_eq!(problem("hotkey", json!(5)), Problem::WrongType);
}

#[test]
fn choices_take_the_values_the_app_reads_and_nothing_else() {
    assert_eq!(
        ok("hotkey_mode", json!("toggle")),
        Change::HotkeyMode(HotkeyMode::Toggle)
    );
    assert_eq!(
        ok("output", json!("copy")),
        Change::Output(OutputMode::Copy)
    );
    assert_eq!(
        ok("overlay_position", json!("top")),
        Change::OverlayPosition(Position::Top)
    );
    assert_eq!(
        ok("encoder", json!("exact")),
        Change::Encoder("exact".into())
    );
    for (key, bad) in [
        ("hotkey_mode", "sometimes"),
        ("output", "fax"),
        ("overlay_position", "left"),
        ("encoder", "slow"),
    ] {
        assert_eq!(problem(key, json!(bad)), Problem::NotAChoice, "{key}");
    }
    assert_eq!(
        ok("input_device", json!("")),
        Change::Microphone(String::new())
    );
    assert_eq!(
        ok("input_device", json!("Unplugged Mic")),
        Change::Microphone("Unplugged Mic".into())
    );
}

#[test]
fn languages_are_whispers_and_written_as_codes() {
    assert_eq!(
        ok("language", json!("auto")),
        Change::Language("auto".into())
    );
    assert_eq!(ok("language", json!("pl")), Change::Language("pl".into()));
    assert_eq!(
        ok("language", json!("Polish")),
        Change::Language("pl".into())
    );
    assert_eq!(
        ok("language", json!("auto: pl, english, pl")),
        Change::Language("auto:pl,en".into())
    );
    assert_eq!(
        problem("language", json!("klingon")),
        Problem::UnknownLanguage {
            language: "klingon".into()
        }
    );
    assert_eq!(
        problem("language", json!("auto:pl,xx")),
        Problem::UnknownLanguage {
            language: "xx".into()
        }
    );
    assert_eq!(problem("language", json!("auto:")), Problem::NoLanguages);
    assert!(matches!(
        problem("language", json!("  ")),
        Problem::UnknownLanguage { .. }
    ));
}

#[test]
fn models_and_devices_must_be_on_this_machine() {
    assert_eq!(ok("model", json!("small")), Change::Model("small".into()));
    assert_eq!(
        problem("model", json!("large-v3")),
        Problem::ModelNotInstalled {
            model: "large-v3".into()
        }
    );
    assert!(problem("model", json!("../base"))
        .text(UiLang::En)
        .contains("../base"));
    assert_eq!(ok("device", json!("auto")), Change::Device("auto".into()));
    assert_eq!(ok("device", json!("GPU")), Change::Device("cuda".into()));
    assert_eq!(
        problem("device", json!("mps")),
        Problem::DeviceUnavailable {
            device: "MPS".into()
        }
    );
    assert_eq!(problem("device", json!("tpu")), Problem::NotAChoice);
}

#[test]
fn the_vocabulary_is_a_list_of_distinct_words() {
    assert_eq!(
        ok(
            "vocabulary",
            json!(["Wrocław", "  Kubernetes  ", "Anna  Nowak"])
        ),
        Change::Vocabulary(vec![
            "Wrocław".into(),
            "Kubernetes".into(),
            "Anna Nowak".into()
        ])
    );
    assert_eq!(ok("vocabulary", json!([])), Change::Vocabulary(vec![]));
    assert_eq!(
        problem("vocabulary", json!(["Wrocław", " "])),
        Problem::EmptyWord
    );
    assert_eq!(
        problem("vocabulary", json!(["Wrocław", "wrocław"])),
        Problem::DuplicateWord {
            word: "wrocław".into()
        }
    );
    assert_eq!(
        problem("vocabulary", json!(["x".repeat(MAX_PHRASE_CHARS + 1)])),
        Problem::TooLong {
            max: MAX_PHRASE_CHARS
        }
    );
    assert_eq!(problem("vocabulary", json!("Wrocław")), Problem::WrongType);
    assert_eq!(problem("vocabulary", json!([1])), Problem::WrongType);
    let many: Vec<String> = (0..=MAX_ENTRIES).map(|i| format!("w{i}")).collect();
    assert_eq!(
        problem("vocabulary", json!(many)),
        Problem::TooMany { max: MAX_ENTRIES }
    );
}

#[test]
fn replacements_are_pairs_each_phrase_once() {
    let Change::Replacements(pairs) = ok(
        "replacements",
        json!([["cube control", "kubectl"], ["  eee  kropka ", ""]]),
    ) else {
        panic!()
    };
    assert_eq!(
        pairs.get("cube control").map(String::as_str),
        Some("kubectl")
    );
    assert_eq!(pairs.get("eee kropka").map(String::as_str), Some(""));
    assert_eq!(
        problem("replacements", json!([["", "kubectl"]])),
        Problem::EmptyPhrase
    );
    assert_eq!(
        problem(
            "replacements",
            json!([["cube control", "kubectl"], ["Cube Control", "k"]])
        ),
        Problem::DuplicatePhrase {
            phrase: "Cube Control".into()
        }
    );
    assert_eq!(
        problem("replacements", json!([["only one"]])),
        Problem::WrongType
    );
    assert_eq!(
        problem("replacements", json!({"cube control": "kubectl"})),
        Problem::WrongType
    );
}

#[test]
fn prompt_switches_and_days() {
    assert_eq!(
        ok("prompt", json!("Spotkanie z Agnieszką.")),
        Change::Prompt("Spotkanie z Agnieszką.".into())
    );
    assert_eq!(
        problem("prompt", json!("ł".repeat(MAX_PROMPT_CHARS + 1))),
        Problem::TooLong {
            max: MAX_PROMPT_CHARS
        }
    );
    assert_eq!(ok("overlay", json!(false)), Change::Overlay(false));
    assert_eq!(ok("keep_history", json!(false)), Change::KeepHistory(false));
    assert_eq!(
        ok("keep_delivered_recordings", json!(true)),
        Change::KeepRecordings(true)
    );
    assert_eq!(
        ok("spoken_commands", json!(false)),
        Change::SpokenCommands(false)
    );
    assert_eq!(
        ok("remove_fillers", json!(true)),
        Change::RemoveFillers(true)
    );
    assert_eq!(problem("overlay", json!("yes")), Problem::WrongType);
    assert_eq!(
        ok("history_text_days", json!("30")),
        Change::HistoryTextDays(30)
    );
    assert_eq!(
        ok("history_audio_days", json!(0)),
        Change::HistoryAudioDays(0)
    );
    assert_eq!(problem("history_text_days", json!("")), Problem::NotANumber);
    assert_eq!(
        problem("history_text_days", json!("3x")),
        Problem::NotANumber
    );
    assert_eq!(
        problem("history_text_days", json!(2.5)),
        Problem::NotANumber
    );
    for out_of_range in [
        json!("-1"),
        json!(-1),
        json!(MAX_DAYS + 1),
        json!("99999999999"),
    ] {
        assert_eq!(
            problem("history_audio_days", out_of_range.clone()),
            Problem::OutOfRange { max: MAX_DAYS },
            "{out_of_range}"
        );
    }
    assert_eq!(problem("schema_version", json!(1)), Problem::UnknownSetting);
    assert_eq!(problem("ui_lang", json!("pl")), Problem::UnknownSetting);
}

#[test]
fn recording_length_microphone_and_text_logging() {
    assert_eq!(
        ok("max_recording_secs", json!("300")),
        Change::MaxRecordingSecs(300)
    );
    assert_eq!(
        ok("max_recording_secs", json!(5)),
        Change::MaxRecordingSecs(5)
    );
    assert_eq!(
        ok("max_recording_secs", json!(3600)),
        Change::MaxRecordingSecs(3600)
    );
    for out in [
        json!(4),
        json!(3601),
        json!("-1"),
        json!(""),
        json!("2 min"),
        json!(2.5),
    ] {
        assert_eq!(
            problem("max_recording_secs", out.clone()),
            Problem::SecondsOutOfRange,
            "{out}"
        );
    }
    assert_eq!(
        problem("max_recording_secs", json!(true)),
        Problem::WrongType
    );
    assert_eq!(
        ok("keep_microphone_open", json!(false)),
        Change::KeepMicrophoneOpen(false)
    );
    assert_eq!(ok("pause_media", json!(true)), Change::PauseMedia(true));
    assert_eq!(problem("pause_media", json!("on")), Problem::WrongType);
    assert!(!FormValues::of(&Settings::default()).pause_media);
    assert_eq!(ok("log_text", json!(true)), Change::LogText(true));
    assert_eq!(problem("log_text", json!("yes")), Problem::WrongType);
    // The form shows the length the app uses (it clamps what the file says).
    let long = Settings {
        max_recording_secs: 99_999,
        ..Settings::default()
    };
    assert_eq!(FormValues::of(&long).max_recording_secs, 3600);
}

#[test]
fn every_change_names_a_settings_field_and_every_value_has_one() {
    let defaults = serde_json::to_value(Settings::default()).unwrap();
    let values = serde_json::to_value(FormValues::of(&Settings::default())).unwrap();
    for (key, value) in values.as_object().unwrap() {
        assert!(defaults.get(key).is_some(), "{key} is not a setting");
        // The value the form shows is one the check takes back.
        let mut value = value.clone();
        if key == "replacements" {
            value = json!([]);
        }
        let mut choices = choices();
        choices.models.push(Settings::default().model);
        let change =
            check(key, &value, &choices).unwrap_or_else(|p| panic!("{key} {value}: {p:?}"));
        assert_eq!(change.key(), key);
    }
}

#[test]
fn every_problem_is_said_in_both_languages() {
    let problems = [
        Problem::UnknownSetting,
        Problem::WrongType,
        Problem::NotAHotkey { detail: "x".into() },
        Problem::HotkeyUnavailable { detail: "x".into() },
        Problem::NotAChoice,
        Problem::UnknownLanguage {
            language: "xx".into(),
        },
        Problem::NoLanguages,
        Problem::ModelNotInstalled { model: "m".into() },
        Problem::DeviceUnavailable {
            device: "MPS".into(),
        },
        Problem::EmptyWord,
        Problem::DuplicateWord { word: "w".into() },
        Problem::TooLong { max: 100 },
        Problem::TooMany { max: 500 },
        Problem::EmptyPhrase,
        Problem::DuplicatePhrase { phrase: "p".into() },
        Problem::NotANumber,
        Problem::OutOfRange { max: MAX_DAYS },
        Problem::SecondsOutOfRange,
    ];
    for problem in problems {
        let (en, pl) = (problem.text(UiLang::En), problem.text(UiLang::Pl));
        assert!(!en.is_empty() && !pl.is_empty());
        assert_ne!(en, pl, "{problem:?}");
    }
}

/// The page sends the whole list of modes; it is kept tidied, or the first problem of the first
/// rule that has one is said, naming the rule.
#[test]
fn modes_are_taken_tidied_or_the_first_problem_names_its_rule() {
    let Change::Modes(rules) = ok(
        "modes",
        json!([
            {"name": " Chat ", "apps": [" Slack", "slack", "", "discord"], "press_after": "enter",
             "output": "", "language": " ", "vocabulary": [" Kubernetes ", " "]},
            {"name": "Notes", "apps": ["obsidian"], "language": "pl", "prompt": ""},
        ]),
    ) else {
        panic!()
    };
    assert_eq!(rules[0].name, "Chat");
    assert_eq!(rules[0].apps, ["Slack", "discord"]);
    assert_eq!(rules[0].press_after.as_deref(), Some("enter"));
    assert_eq!(
        (rules[0].output.clone(), rules[0].language.clone()),
        (None, None)
    );
    assert_eq!(rules[0].vocabulary, Some(vec!["Kubernetes".to_string()]));
    // An empty prompt is "no prompt here", as written.
    assert_eq!(rules[1].prompt.as_deref(), Some(""));
    assert_eq!(ok("modes", json!([])), Change::Modes(Vec::new()));

    let problem_of = |value: Value| match problem("modes", value) {
        Problem::Mode {
            place,
            name,
            problem,
        } => (place, name, problem),
        other => panic!("{other:?}"),
    };
    assert_eq!(
        problem_of(json!([{"name": "Chat", "apps": ["slack"]}, {"name": "", "apps": ["  "]}])),
        (2, String::new(), ModeProblem::NoName)
    );
    assert_eq!(
        problem_of(json!([{"name": "Chat", "apps": ["slack"], "paste_keys": "cmd+v"}])).2,
        ModeProblem::NotPasteKeys {
            value: "cmd+v".into()
        },
        "⌘V is not a Linux keystroke"
    );
    assert_eq!(
        problem_of(json!([{"name": "A", "apps": ["x"]}, {"name": "a", "apps": ["y"]}])),
        (
            2,
            "a".to_string(),
            ModeProblem::SameName { name: "a".into() }
        )
    );
    let said = problem(
        "modes",
        json!([{"name": "Mail", "apps": ["thunderbird"], "language": "klingon"}]),
    );
    assert_eq!(
        said.text(UiLang::En),
        "Mode \"Mail\": Whisper does not know the language \"klingon\" (e.g. pl, en, auto)."
    );
    assert_eq!(
        said.text(UiLang::Pl),
        "Tryb „Mail”: Whisper nie zna języka „klingon” (np. pl, en, auto)."
    );
    // Not a list of rules, or too many.
    assert_eq!(problem("modes", json!({"name": "x"})), Problem::WrongType);
    assert_eq!(
        problem("modes", json!([{"apps": "slack"}])),
        Problem::WrongType
    );
    let many: Vec<Value> = (0..=MAX_MODES)
        .map(|i| json!({"name": format!("m{i}"), "apps": ["a"]}))
        .collect();
    assert_eq!(
        problem("modes", Value::from(many)),
        Problem::TooMany { max: MAX_MODES }
    );
}

/// The form shows the person's modes as settings.json has them, and offers each app once.
#[test]
fn the_form_shows_the_modes_and_offers_each_app_once() {
    let rule = crate::settings::modes::AppMode {
        name: "Chat".into(),
        apps: vec!["slack".into()],
        press_after: Some("enter".into()),
        ..Default::default()
    };
    let values = FormValues::of(&Settings {
        modes: vec![rule.clone()],
        ..Settings::default()
    });
    assert_eq!(values.modes, vec![rule]);
    let json = serde_json::to_value(&values).unwrap();
    assert_eq!(
        json["modes"],
        json!([{"name": "Chat", "apps": ["slack"], "press_after": "enter"}])
    );
    let mut choices = FormChoices::default();
    choices.offer_apps(["xterm".to_string(), "XTerm".to_string()]);
    choices.offer_apps(["Slack".into(), " ".into(), "xterm".into(), "kitty".into()]);
    assert_eq!(choices.apps, ["xterm", "Slack", "kitty"]);
}
