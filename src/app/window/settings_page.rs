//! The Settings page's side of the window: its commands ([`super::ipc::Command::Settings`],
//! `Check`, `Set`) answered from a snapshot of the form ([`SettingsSession`]), and the window's
//! pages ([`Page`]). A valid `Set` is handed to the app ([`Change`], through the event loop:
//! `settings_side.rs` applies it the way the menu's choices are applied and answers
//! [`Reply::Applied`]); an invalid one is answered at once with its problem. Nothing here
//! writes settings.json or touches the app's state: pure, tested without a window.

use super::form::{check, Change, FormChoices, FormValues};
use super::ipc::{Command, Reply};
use crate::i18n::UiLang;

/// The window's pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Page {
    History,
    Settings,
    Models,
}

impl Page {
    /// The window's title on this page.
    pub fn title(self, lang: UiLang) -> &'static str {
        let labels = super::settings_texts::labels(lang);
        match self {
            Page::History => labels.history,
            Page::Settings => labels.settings,
            Page::Models => super::models_texts::labels(lang).models,
        }
    }

    /// The page's name in the URL's fragment (`index.html#settings`).
    pub fn name(self) -> &'static str {
        match self {
            Page::History => "history",
            Page::Settings => "settings",
            Page::Models => "models",
        }
    }
}

/// What the Settings page's commands need while the window is open.
pub struct SettingsSession {
    /// The settings as the app has them (the app updates them after each change).
    pub values: FormValues,
    pub choices: FormChoices,
    pub lang: UiLang,
    /// Hands a valid change to the app.
    pub apply: Box<dyn FnMut(Change)>,
}

impl SettingsSession {
    /// Whether `command` is one of the Settings page's (answered by [`Self::handle`]).
    pub fn owns(command: &Command) -> bool {
        matches!(
            command,
            Command::Settings {} | Command::Check { .. } | Command::Set { .. }
        )
    }

    /// Answers one of the page's commands; `None` when the answer comes from the app
    /// (a valid `Set`) or the command is not the page's.
    pub fn handle(&mut self, command: &Command) -> Option<Reply> {
        match command {
            Command::Settings {} => Some(Reply::Settings {
                values: self.values.clone(),
                choices: Box::new(self.choices.clone()),
            }),
            Command::Check { key, value } => Some(Reply::Checked {
                key: key.clone(),
                problem: check(key, value, &self.choices)
                    .err()
                    .map(|p| p.text(self.lang)),
            }),
            Command::Set { key, value } => match check(key, value, &self.choices) {
                Ok(change) => {
                    (self.apply)(change);
                    None
                }
                Err(problem) => Some(Reply::Checked {
                    key: key.clone(),
                    problem: Some(problem.text(self.lang)),
                }),
            },
            _ => None,
        }
    }
}

/// One log line per Settings answer, without the person's words (which setting, not its
/// value: a vocabulary or a prompt can be private).
pub fn log_reply(reply: &Reply) {
    match reply {
        Reply::Settings { .. } => tracing::info!("settings page: values shown"),
        Reply::Checked { key, problem } => {
            tracing::info!(
                key,
                valid = problem.is_none(),
                "settings page: value checked"
            );
        }
        Reply::Applied {
            key,
            saved,
            problem,
            ..
        } => tracing::info!(
            key,
            saved,
            applied = problem.is_none(),
            "settings page: change applied"
        ),
        Reply::Show { page } => tracing::info!(page = page.name(), "window: page shown"),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::Settings;
    use std::cell::RefCell;
    use std::rc::Rc;

    fn session() -> (SettingsSession, Rc<RefCell<Vec<Change>>>) {
        let applied = Rc::new(RefCell::new(Vec::new()));
        let sink = Rc::clone(&applied);
        let session = SettingsSession {
            values: FormValues::of(&Settings::default()),
            choices: FormChoices {
                models: vec!["base".into()],
                devices: vec!["cpu".into()],
                ..FormChoices::default()
            },
            lang: UiLang::Pl,
            apply: Box::new(move |change| sink.borrow_mut().push(change)),
        };
        (session, applied)
    }

    /// A message as the page sends it, through the window's own parser.
    fn run(session: &mut SettingsSession, body: &str) -> Option<Reply> {
        let command = super::super::ipc::parse("app://localhost/pl/index.html", body).unwrap();
        assert!(SettingsSession::owns(&command), "{body}");
        session.handle(&command)
    }

    #[test]
    fn the_page_gets_the_values_and_choices() {
        let (mut session, applied) = session();
        let Some(Reply::Settings { values, choices }) = run(&mut session, r#"{"cmd":"settings"}"#)
        else {
            panic!()
        };
        assert_eq!(values.output, "paste");
        assert_eq!(choices.models, vec!["base".to_string()]);
        assert!(applied.borrow().is_empty());
    }

    #[test]
    fn check_answers_valid_or_the_problem_in_the_ui_language_and_applies_nothing() {
        let (mut session, applied) = session();
        assert_eq!(
            run(
                &mut session,
                r#"{"cmd":"check","key":"hotkey","value":"ctrl+alt+d"}"#
            ),
            Some(Reply::Checked {
                key: "hotkey".into(),
                problem: None
            })
        );
        let Some(Reply::Checked { key, problem }) = run(
            &mut session,
            r#"{"cmd":"check","key":"history_text_days","value":"-3"}"#,
        ) else {
            panic!()
        };
        assert_eq!(key, "history_text_days");
        assert_eq!(problem.as_deref(), Some("Od 0 do 36500 dni (0 = zawsze)."));
        assert!(applied.borrow().is_empty());
    }

    #[test]
    fn a_valid_set_goes_to_the_app_and_an_invalid_one_is_answered_at_once() {
        let (mut session, applied) = session();
        assert_eq!(
            run(
                &mut session,
                r#"{"cmd":"set","key":"output","value":"copy"}"#
            ),
            None,
            "the app answers once it has applied it"
        );
        assert_eq!(
            run(
                &mut session,
                r#"{"cmd":"set","key":"replacements","value":[["cube control","kubectl"]]}"#
            ),
            None
        );
        let Some(Reply::Checked { problem, .. }) = run(
            &mut session,
            r#"{"cmd":"set","key":"vocabulary","value":["Wrocław","wrocław"]}"#,
        ) else {
            panic!()
        };
        assert_eq!(problem.as_deref(), Some("„wrocław” już jest na liście."));
        let applied = applied.borrow();
        assert_eq!(applied.len(), 2);
        assert_eq!(applied[0], Change::Output(crate::inject::OutputMode::Copy));
        assert_eq!(applied[1].key(), "replacements");
    }

    /// The page reads `kind` and these fields (assets/ui/settings.js).
    #[test]
    fn the_replies_are_the_json_the_page_reads() {
        let values = FormValues::of(&Settings {
            replacements: [("cube control".to_string(), "kubectl".to_string())].into(),
            ..Settings::default()
        });
        let applied = serde_json::to_value(Reply::Applied {
            key: "replacements".into(),
            values,
            saved: true,
            problem: None,
        })
        .unwrap();
        assert_eq!(applied["kind"], "applied");
        assert_eq!(applied["saved"], true);
        assert_eq!(applied["problem"], serde_json::Value::Null);
        assert_eq!(
            applied["values"]["replacements"],
            serde_json::json!([["cube control", "kubectl"]])
        );
        assert_eq!(applied["values"]["history_text_days"], 0);
        let checked = serde_json::to_value(Reply::Checked {
            key: "hotkey".into(),
            problem: Some("x".into()),
        })
        .unwrap();
        assert_eq!(
            checked,
            serde_json::json!({"kind": "checked", "key": "hotkey", "problem": "x"})
        );
        let show = serde_json::to_value(Reply::Show {
            page: Page::Settings,
        })
        .unwrap();
        assert_eq!(
            show,
            serde_json::json!({"kind": "show", "page": "settings"})
        );
        let (session, _) = session();
        let settings = serde_json::to_value(Reply::Settings {
            values: session.values.clone(),
            choices: Box::new(session.choices.clone()),
        })
        .unwrap();
        assert_eq!(settings["kind"], "settings");
        assert_eq!(settings["choices"]["models"], serde_json::json!(["base"]));
        assert!(settings["values"]["vocabulary"].is_array());
    }

    #[test]
    fn page_commands_parse_and_unknown_pages_are_refused() {
        let parse = |body| super::super::ipc::parse("app://localhost/en/index.html", body);
        assert_eq!(
            parse(r#"{"cmd":"page","page":"settings"}"#).unwrap(),
            Command::Page {
                page: Page::Settings
            }
        );
        assert_eq!(
            parse(r#"{"cmd":"shown","page":"history"}"#).unwrap(),
            Command::Shown {
                page: Page::History
            }
        );
        for bad in [
            r#"{"cmd":"page","page":"logs"}"#,
            r#"{"cmd":"set","key":"output"}"#,
            r#"{"cmd":"set","key":"output","value":"copy","extra":1}"#,
            r#"{"cmd":"settings","x":1}"#,
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
        assert_eq!(Page::Settings.title(UiLang::Pl), "Ustawienia");
        assert_eq!(Page::History.title(UiLang::En), "History");
    }
}
