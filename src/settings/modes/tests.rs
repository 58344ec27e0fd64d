use super::*;

fn names(names: &[&str]) -> AppNames {
    AppNames(names.iter().map(|n| n.to_string()).collect())
}

fn rule(name: &str, apps: &[&str]) -> AppMode {
    AppMode {
        name: name.into(),
        apps: apps.iter().map(|a| a.to_string()).collect(),
        ..AppMode::default()
    }
}

const LIMITS: Limits = Limits {
    prompt_chars: 600,
    phrase_chars: 100,
    entries: 500,
};

#[test]
fn a_rule_matches_the_instance_or_the_class_in_any_case() {
    let xterm = names(&["xterm", "XTerm"]);
    assert!(rule("T", &["XTERM"]).matches(&xterm));
    assert!(rule("T", &["xterm"]).matches(&xterm));
    assert!(!rule("T", &["xter"]).matches(&xterm), "whole names only");
    assert!(
        !rule("T", &[" "]).matches(&names(&[" "])),
        "a blank name matches nothing"
    );
    let mac = names(&["com.apple.mail", "Mail"]);
    assert!(rule("Mail", &["com.apple.Mail"]).matches(&mac));
    assert!(rule("Mail", &["mail"]).matches(&mac));
}

#[test]
fn the_persons_first_rule_wins_then_the_built_in_one() {
    let own = vec![
        rule("Code", &["code"]),
        AppMode {
            paste_keys: Some("ctrl+v".into()),
            ..rule("My kitty", &["kitty"])
        },
        rule("Second", &["code", "kitty"]),
    ];
    let rules = ModeRules::new(&own, false);
    let code = rules.rule_for(&names(&["code", "Code"])).unwrap();
    assert_eq!((code.rule.name.as_str(), code.builtin), ("Code", false));
    // The person's rule for kitty overrides the built-in terminal rule.
    let kitty = rules.rule_for(&names(&["kitty", "kitty"])).unwrap();
    assert_eq!(
        (kitty.rule.name.as_str(), kitty.builtin),
        ("My kitty", false)
    );
    // A terminal without a rule of the person's gets the built-in one.
    let konsole = rules.rule_for(&names(&["konsole", "konsole"])).unwrap();
    assert!(konsole.builtin);
    assert_eq!(konsole.rule.paste_keys.as_deref(), Some("ctrl+shift+v"));
    assert_eq!(rules.rule_for(&names(&["gedit", "Gedit"])), None);
}

#[test]
fn linux_terminals_paste_with_their_own_keys_and_macos_needs_none() {
    let settings = Settings::default();
    let keys = |app: &[&str]| {
        AppliedMode::for_app(&settings, Some(&names(app)), false)
            .delivery
            .paste_keys
    };
    // WM_CLASS as each sets it (instance, class).
    assert_eq!(keys(&["xterm", "XTerm"]), PasteKeys::ShiftInsert);
    assert_eq!(keys(&["urxvt", "URxvt"]), PasteKeys::ShiftInsert);
    for terminal in [
        ["gnome-terminal-server", "Gnome-terminal"],
        ["konsole", "konsole"],
        ["kitty", "kitty"],
        ["Alacritty", "Alacritty"],
        ["org.wezfurlong.wezterm", "org.wezfurlong.wezterm"],
        ["tilix", "Tilix"],
        ["xfce4-terminal", "Xfce4-terminal"],
    ] {
        assert_eq!(keys(&terminal), PasteKeys::CtrlShiftV, "{terminal:?}");
    }
    assert_eq!(keys(&["gedit", "Gedit"]), PasteKeys::CtrlV);
    assert!(builtin_rules(true).is_empty());
    let terminal = AppliedMode::for_app(
        &settings,
        Some(&names(&["com.apple.Terminal", "Terminal"])),
        true,
    );
    assert_eq!(terminal.name, None);
    assert_eq!(terminal.delivery.paste_keys, PasteKeys::CmdV);
}

#[test]
fn a_rule_sets_only_the_fields_it_names() {
    let general = Settings {
        language: "auto:pl,en".into(),
        prompt: "Medical notes.".into(),
        vocabulary: vec!["paracetamol".into()],
        output: "type".into(),
        ..Settings::default()
    };
    let chat = AppMode {
        language: Some("en".into()),
        vocabulary: Some(vec![]),
        press_after: Some("Enter".into()),
        spoken_commands: Some(false),
        join_previous: Some(false),
        ..rule("Chat", &["Slack"])
    };
    let settings = Settings {
        modes: vec![chat],
        ..general.clone()
    };
    let applied = AppliedMode::for_app(&settings, Some(&names(&["slack", "Slack"])), false);
    assert_eq!(applied.name.as_deref(), Some("Chat"));
    assert_eq!(applied.settings.language, "en");
    assert!(applied.settings.vocabulary.is_empty());
    assert_eq!(
        applied.settings.prompt, "Medical notes.",
        "not named: general"
    );
    assert!(!applied.settings.spoken_commands);
    assert_eq!(applied.delivery.output, "type");
    assert_eq!(applied.delivery.press_after, PressAfter::Enter);
    assert!(!applied.delivery.join_previous);
    // Elsewhere, and where the app is not known: the general settings.
    for app in [Some(names(&["gedit", "Gedit"])), None] {
        let other = AppliedMode::for_app(&settings, app.as_ref(), false);
        assert_eq!(other.name, None);
        assert_eq!(other.settings, settings);
        assert_eq!(other.delivery.press_after, PressAfter::Nothing);
        assert!(other.delivery.join_previous);
    }
}

#[test]
fn a_value_that_is_not_a_choice_leaves_the_general_setting() {
    let settings = Settings {
        modes: vec![AppMode {
            output: Some("shout".into()),
            paste_keys: Some("cmd+v".into()),
            press_after: Some("cmd+enter".into()),
            ..rule("", &["gedit"])
        }],
        ..Settings::default()
    };
    let applied = AppliedMode::for_app(&settings, Some(&names(&["gedit"])), false);
    assert_eq!(
        applied.name.as_deref(),
        Some("gedit"),
        "an unnamed rule: its app"
    );
    assert_eq!(applied.delivery.output, "paste");
    assert_eq!(
        applied.delivery.paste_keys,
        PasteKeys::CtrlV,
        "⌘V is macOS's"
    );
    assert_eq!(applied.delivery.press_after, PressAfter::Nothing);
    let problems = settings.modes[0].problems(false, LIMITS);
    assert_eq!(
        problems,
        vec![
            ModeProblem::NoName,
            ModeProblem::NotAnOutput {
                value: "shout".into()
            },
            ModeProblem::NotPasteKeys {
                value: "cmd+v".into()
            },
            ModeProblem::NotAKeyAfter {
                value: "cmd+enter".into()
            },
        ]
    );
    assert!(
        settings.modes[0].problems(true, LIMITS).len() == 2,
        "fine on a Mac but the name and output"
    );
}

#[test]
fn keys_are_read_as_people_write_them() {
    assert_eq!(
        PasteKeys::parse(" Ctrl + Shift + V "),
        Some(PasteKeys::CtrlShiftV)
    );
    assert_eq!(PasteKeys::parse("Command+V"), Some(PasteKeys::CmdV));
    assert_eq!(PasteKeys::parse("⌘V"), Some(PasteKeys::CmdV));
    assert_eq!(PasteKeys::parse("alt+v"), None);
    assert_eq!(PressAfter::parse("Return"), Some(PressAfter::Enter));
    assert_eq!(PressAfter::parse(""), Some(PressAfter::Nothing));
    assert_eq!(
        PressAfter::parse("Shift + Enter"),
        Some(PressAfter::ShiftEnter)
    );
    for keys in PasteKeys::ALL {
        assert_eq!(PasteKeys::parse(keys.name()), Some(keys));
    }
    for after in PressAfter::ALL {
        assert_eq!(PressAfter::parse(after.name()), Some(after));
    }
}

#[test]
fn a_list_of_rules_names_each_problem_with_its_place() {
    let rules = vec![
        rule("Chat", &["slack"]),
        AppMode {
            language: Some("klingon".into()),
            prompt: Some("x".repeat(601)),
            vocabulary: Some(vec!["y".repeat(101)]),
            ..rule("chat", &[])
        },
        AppMode {
            language: Some("auto:pl,en".into()),
            ..rule("Mail", &["thunderbird"])
        },
    ];
    let problems = problems_of(&rules, false, LIMITS);
    assert_eq!(
        problems,
        vec![
            (
                1,
                ModeProblem::SameName {
                    name: "chat".into()
                }
            ),
            (1, ModeProblem::NoApps),
            (
                1,
                ModeProblem::UnknownLanguage {
                    value: "klingon".into()
                }
            ),
            (
                1,
                ModeProblem::PromptTooLong {
                    chars: 601,
                    max: 600
                }
            ),
            (
                1,
                ModeProblem::VocabularyTooLong {
                    max_words: 500,
                    max_chars: 100
                }
            ),
        ]
    );
    assert_eq!(
        rule(&"n".repeat(MAX_NAME_CHARS + 1), &["x"]).problems(false, LIMITS),
        vec![ModeProblem::NameTooLong],
        "the overlay shows the name"
    );
    assert!(rule(&"n".repeat(MAX_NAME_CHARS), &["x"])
        .problems(false, LIMITS)
        .is_empty());
}

#[test]
fn a_rule_round_trips_through_json_with_only_its_fields() {
    let chat = AppMode {
        press_after: Some("enter".into()),
        ..rule("Chat", &["Slack"])
    };
    let json = serde_json::to_string(&chat).unwrap();
    assert_eq!(
        json,
        r#"{"name":"Chat","apps":["Slack"],"press_after":"enter"}"#
    );
    assert_eq!(serde_json::from_str::<AppMode>(&json).unwrap(), chat);
}

#[test]
fn a_hand_edited_rule_survives_a_menu_choice_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(crate::settings::SETTINGS_FILE);
    // As a person writes it: their own spacing, a Polish name, fields in their order.
    let modes = r#"[
    { "apps": ["thunderbird"], "name": "Poczta",  "language": "pl",
      "prompt": "Szanowni Państwo," },
    {"name":"Chat","apps":["Slack","discord"],"press_after":"enter","join_previous":false}
  ]"#;
    std::fs::write(
        &path,
        format!(
            "{{\n  \"schema_version\": 1,\n  \"output\": \"paste\",\n  \"modes\": {modes}\n}}\n"
        ),
    )
    .unwrap();
    let (mut settings, warning) = Settings::load(dir.path());
    assert!(warning.is_none());
    assert_eq!(settings.modes.len(), 2);
    assert_eq!(settings.modes[0].language.as_deref(), Some("pl"));
    assert_eq!(settings.modes[1].press_after.as_deref(), Some("enter"));
    settings.output = "type".into();
    crate::settings::file::set_key(
        dir.path(),
        &settings,
        crate::settings::file::SettingKey::Output,
    )
    .unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(modes), "{text}");
    assert!(text.contains(r#""output": "type""#), "{text}");
    let (again, _) = Settings::load(dir.path());
    assert_eq!(again.modes, settings.modes);
    // A rule of the wrong shape costs the modes only, named.
    std::fs::write(&path, r#"{"output": "copy", "modes": [{"name": 3}]}"#).unwrap();
    let (broken, warning) = Settings::load(dir.path());
    assert_eq!(broken.output, "copy");
    assert!(broken.modes.is_empty());
    assert!(warning.unwrap().to_string().contains("modes"));
}
