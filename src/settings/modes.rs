//! Per-app modes: rules that match the app a dictation goes into and set how it is heard and
//! delivered there. A rule names its apps (X11: the `WM_CLASS` instance or class, "xterm",
//! "XTerm"; macOS: the bundle id "com.apple.Terminal" or the app's name "Terminal"; any case)
//! and sets any of: output, the paste keystroke, language, prompt, vocabulary, spoken commands,
//! fillers, a key pressed after the text, and whether a text continues the one before with a
//! space. A field a rule leaves out is the general setting's.
//!
//! **Which rule applies** ([`ModeRules::rule_for`]): the person's rules (`"modes"` in
//! settings.json), first match in their order; then the built-in ones ([`builtin_rules`]: the
//! Linux terminals, whose paste is not Ctrl+V). A person's rule that names a terminal overrides
//! the built-in one for it, also when it only sets another field (a built-in's paste keys apply
//! only where no rule of the person's matches). The app that counts is the one that had the
//! focus at key-down.
//!
//! Values are kept as the person wrote them (strings, as the rest of settings.json); a value
//! that is not one of a field's choices is ignored where it is used (the general setting
//! applies) and said by [`AppMode::problems`], which the Settings page shows as it is typed.
//! Pure: no I/O; the focus is read by `platform::focus`, the rule applied by the app.

use super::Settings;
pub use crate::platform::{PasteKeys, PressAfter};
use serde::{Deserialize, Serialize};

/// One rule, as settings.json writes it. Every field but `name` and `apps` is optional.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct AppMode {
    /// Shown in the overlay and the history ("Terminal", "Chat").
    pub name: String,
    /// The apps it applies to: X11 `WM_CLASS` instance or class, macOS bundle id or name.
    pub apps: Vec<String>,
    /// `paste`, `type` or `copy`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// The paste keystroke ([`PasteKeys`]): `ctrl+v`, `ctrl+shift+v`, `shift+insert`, `cmd+v`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paste_keys: Option<String>,
    /// As the general `language` setting (`auto`, `auto:pl,en`, `pl`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// Replaces the general vocabulary (an empty list: none here).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vocabulary: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spoken_commands: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remove_fillers: Option<bool>,
    /// The key pressed after the text ([`PressAfter`]): `none`, `enter`, `shift+enter`,
    /// `ctrl+enter`, `cmd+enter`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub press_after: Option<String>,
    /// Whether a text continues the one before it (same window, shortly after) with a space.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub join_previous: Option<bool>,
}

/// The names an app goes by, as the focus probe reads them: on X11 the `WM_CLASS` instance and
/// class ("xterm", "XTerm"), on macOS the bundle id and the app's name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AppNames(pub Vec<String>);

impl AppNames {
    /// Whether `rule_app` (as a rule writes it) is one of these names, in any case.
    pub fn named(&self, rule_app: &str) -> bool {
        let rule_app = rule_app.trim();
        !rule_app.is_empty()
            && self
                .0
                .iter()
                .any(|n| n.trim().eq_ignore_ascii_case(rule_app))
    }
}

impl AppMode {
    /// Whether this rule names one of `app`'s names.
    pub fn matches(&self, app: &AppNames) -> bool {
        self.apps.iter().any(|a| app.named(a))
    }
}

/// The built-in rules: Linux terminals, where Ctrl+V is not paste. Each is overridden by a rule
/// of the person's naming the same app. Nothing on macOS: ⌘V pastes in Terminal and iTerm2.
pub fn builtin_rules(mac: bool) -> Vec<AppMode> {
    if mac {
        return Vec::new();
    }
    let rule = |name: &str, apps: &[&str], keys: PasteKeys| AppMode {
        name: name.to_string(),
        apps: apps.iter().map(|a| a.to_string()).collect(),
        paste_keys: Some(keys.name().to_string()),
        ..AppMode::default()
    };
    vec![
        // xterm, uxterm and urxvt paste the PRIMARY selection with Shift+Insert; Ctrl+Shift+V
        // does nothing there by default.
        rule(
            "Terminal (xterm)",
            &["xterm", "uxterm", "urxvt", "rxvt", "urxvt-unicode"],
            PasteKeys::ShiftInsert,
        ),
        rule(
            "Terminal",
            &[
                "gnome-terminal",
                "gnome-terminal-server",
                "org.gnome.Console",
                "kgx",
                "org.gnome.Ptyxis",
                "ptyxis",
                "konsole",
                "org.kde.konsole",
                "yakuake",
                "kitty",
                "alacritty",
                "org.wezfurlong.wezterm",
                "wezterm",
                "tilix",
                "com.gexperts.Tilix",
                "xfce4-terminal",
                "terminator",
                "mate-terminal",
                "lxterminal",
                "qterminal",
                "terminology",
                "sakura",
                "guake",
                "tilda",
                "st",
                "st-256color",
                "foot",
                "footclient",
                "com.mitchellh.ghostty",
                "ghostty",
                "blackbox",
                "com.raggesilver.BlackBox",
                "hyper",
                "tabby",
                "cool-retro-term",
                "warp",
                "dev.warp.Warp",
            ],
            PasteKeys::CtrlShiftV,
        ),
    ]
}

/// The person's rules with the built-in ones after them.
#[derive(Debug, Clone, PartialEq)]
pub struct ModeRules<'a> {
    pub own: &'a [AppMode],
    pub builtin: Vec<AppMode>,
}

/// A rule that applies, and whether it is built in.
#[derive(Debug, Clone, PartialEq)]
pub struct MatchedRule {
    pub rule: AppMode,
    pub builtin: bool,
}

impl<'a> ModeRules<'a> {
    pub fn new(own: &'a [AppMode], mac: bool) -> ModeRules<'a> {
        ModeRules {
            own,
            builtin: builtin_rules(mac),
        }
    }

    /// The rule for `app`: the person's first match, else the first built-in one.
    pub fn rule_for(&self, app: &AppNames) -> Option<MatchedRule> {
        if let Some(rule) = self.own.iter().find(|r| r.matches(app)) {
            return Some(MatchedRule {
                rule: rule.clone(),
                builtin: false,
            });
        }
        self.builtin
            .iter()
            .find(|r| r.matches(app))
            .map(|rule| MatchedRule {
                rule: rule.clone(),
                builtin: true,
            })
    }
}

/// How a dictation is delivered, once its rule (or none) is applied.
#[derive(Debug, Clone, PartialEq)]
pub struct Delivery {
    /// `paste`, `type` or `copy`, as the general `output` setting writes it.
    pub output: String,
    pub paste_keys: PasteKeys,
    pub press_after: PressAfter,
    pub join_previous: bool,
}

/// What a dictation into an app uses: the settings with the rule's fields in place of the
/// general ones, how it is delivered, and the rule's name (`None`: no rule applies).
#[derive(Debug, Clone, PartialEq)]
pub struct AppliedMode {
    pub name: Option<String>,
    pub builtin: bool,
    pub settings: Settings,
    pub delivery: Delivery,
}

impl AppliedMode {
    /// The general settings, no rule.
    pub fn general(settings: &Settings, mac: bool) -> AppliedMode {
        AppliedMode {
            name: None,
            builtin: false,
            settings: settings.clone(),
            delivery: Delivery {
                output: settings.output.clone(),
                paste_keys: PasteKeys::system(mac),
                press_after: PressAfter::Nothing,
                join_previous: true,
            },
        }
    }

    /// The mode for a dictation into `app` (`None`: not known): the general settings with the
    /// matching rule's fields. A field whose value is not one of its choices (or not for this
    /// OS) is left at the general setting.
    pub fn for_app(settings: &Settings, app: Option<&AppNames>, mac: bool) -> AppliedMode {
        let mut applied = AppliedMode::general(settings, mac);
        let Some(matched) = app.and_then(|app| ModeRules::new(&settings.modes, mac).rule_for(app))
        else {
            return applied;
        };
        let rule = matched.rule;
        applied.name = Some(rule.name.trim().to_string()).filter(|n| !n.is_empty());
        applied.name = applied.name.or_else(|| rule.apps.first().cloned());
        applied.builtin = matched.builtin;
        let s = &mut applied.settings;
        if let Some(output) = rule.output.filter(|o| is_output(o)) {
            applied.delivery.output = output.trim().to_ascii_lowercase();
            s.output = applied.delivery.output.clone();
        }
        if let Some(keys) = rule.paste_keys.as_deref().and_then(PasteKeys::parse) {
            if keys.on(mac) {
                applied.delivery.paste_keys = keys;
            }
        }
        if let Some(after) = rule.press_after.as_deref().and_then(PressAfter::parse) {
            if after.on(mac) {
                applied.delivery.press_after = after;
            }
        }
        if let Some(join) = rule.join_previous {
            applied.delivery.join_previous = join;
        }
        if let Some(language) = rule.language.filter(|l| !l.trim().is_empty()) {
            s.language = language;
        }
        if let Some(prompt) = rule.prompt {
            s.prompt = prompt;
        }
        if let Some(vocabulary) = rule.vocabulary {
            s.vocabulary = vocabulary;
        }
        if let Some(on) = rule.spoken_commands {
            s.spoken_commands = on;
        }
        if let Some(on) = rule.remove_fillers {
            s.remove_fillers = on;
        }
        applied
    }
}

/// What is wrong with a rule's field, for the Settings page (said in the UI's language by the
/// window's texts) and the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModeProblem {
    /// The rule has no name.
    NoName,
    /// A name longer than [`MAX_NAME_CHARS`] (the overlay shows it).
    NameTooLong,
    /// Two rules share a name (the overlay and history could not tell them apart).
    SameName { name: String },
    /// The rule names no app.
    NoApps,
    /// An app name longer than [`MAX_APP_CHARS`].
    AppTooLong { app: String },
    /// `output` is not paste, type or copy.
    NotAnOutput { value: String },
    /// `paste_keys` is not one of [`PasteKeys`], or not one of this OS's.
    NotPasteKeys { value: String },
    /// `press_after` is not one of [`PressAfter`], or not one of this OS's.
    NotAKeyAfter { value: String },
    /// `language` is not `auto`, `auto:…` or a Whisper language.
    UnknownLanguage { value: String },
    /// The prompt is longer than the general prompt may be.
    PromptTooLong { chars: usize, max: usize },
    /// A vocabulary word is longer than the general vocabulary's may be, or there are too many.
    VocabularyTooLong { max_words: usize, max_chars: usize },
}

/// The longest app name a rule may give (characters).
pub const MAX_APP_CHARS: usize = 200;
/// The longest name of a rule (characters): it is shown in the overlay.
pub const MAX_NAME_CHARS: usize = 40;

impl AppMode {
    /// What is wrong with this rule on this OS (empty: nothing). `max_prompt`,
    /// `max_phrase` and `max_entries` are the general prompt's and vocabulary's limits.
    pub fn problems(&self, mac: bool, limits: Limits) -> Vec<ModeProblem> {
        let mut problems = Vec::new();
        if self.name.trim().is_empty() {
            problems.push(ModeProblem::NoName);
        } else if self.name.trim().chars().count() > MAX_NAME_CHARS {
            problems.push(ModeProblem::NameTooLong);
        }
        if self.apps.iter().all(|a| a.trim().is_empty()) {
            problems.push(ModeProblem::NoApps);
        }
        for app in &self.apps {
            if app.chars().count() > MAX_APP_CHARS {
                problems.push(ModeProblem::AppTooLong {
                    app: app.chars().take(40).collect(),
                });
            }
        }
        if let Some(output) = &self.output {
            if !is_output(output) {
                problems.push(ModeProblem::NotAnOutput {
                    value: output.clone(),
                });
            }
        }
        if let Some(keys) = &self.paste_keys {
            if !PasteKeys::parse(keys).is_some_and(|k| k.on(mac)) {
                problems.push(ModeProblem::NotPasteKeys {
                    value: keys.clone(),
                });
            }
        }
        if let Some(after) = &self.press_after {
            if !PressAfter::parse(after).is_some_and(|k| k.on(mac)) {
                problems.push(ModeProblem::NotAKeyAfter {
                    value: after.clone(),
                });
            }
        }
        if let Some(language) = &self.language {
            if !language_is_known(language) {
                problems.push(ModeProblem::UnknownLanguage {
                    value: language.clone(),
                });
            }
        }
        if let Some(prompt) = &self.prompt {
            let chars = prompt.chars().count();
            if chars > limits.prompt_chars {
                problems.push(ModeProblem::PromptTooLong {
                    chars,
                    max: limits.prompt_chars,
                });
            }
        }
        if let Some(words) = &self.vocabulary {
            if words.len() > limits.entries
                || words
                    .iter()
                    .any(|w| w.chars().count() > limits.phrase_chars)
            {
                problems.push(ModeProblem::VocabularyTooLong {
                    max_words: limits.entries,
                    max_chars: limits.phrase_chars,
                });
            }
        }
        problems
    }
}

/// The general settings' limits a rule keeps to.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub prompt_chars: usize,
    pub phrase_chars: usize,
    pub entries: usize,
}

/// What is wrong with a list of rules: each rule's problems (by its place in the list), and two
/// rules of one name.
pub fn problems_of(rules: &[AppMode], mac: bool, limits: Limits) -> Vec<(usize, ModeProblem)> {
    let mut all = Vec::new();
    for (i, rule) in rules.iter().enumerate() {
        let name = rule.name.trim();
        // The name's problem first: it is what a new rule is given first.
        if !name.is_empty()
            && rules[..i]
                .iter()
                .any(|r| r.name.trim().eq_ignore_ascii_case(name))
        {
            all.push((
                i,
                ModeProblem::SameName {
                    name: name.to_string(),
                },
            ));
        }
        all.extend(rule.problems(mac, limits).into_iter().map(|p| (i, p)));
    }
    all
}

/// `paste`, `type` or `copy` in any case, as the general `output` setting is read
/// (`inject::OutputMode::parse`, which the inject module's tests hold to the same names).
pub fn is_output(text: &str) -> bool {
    matches!(
        text.trim().to_ascii_lowercase().as_str(),
        "paste" | "type" | "copy"
    )
}

/// `auto`, `auto:` with known languages, or a language Whisper knows.
fn language_is_known(text: &str) -> bool {
    use crate::whisper::tokenizer::lookup_language;
    let text = text.trim();
    if text.eq_ignore_ascii_case("auto") {
        return true;
    }
    if let Some(list) = text.strip_prefix("auto:") {
        let codes: Vec<&str> = list
            .split(',')
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .collect();
        return !codes.is_empty() && codes.iter().all(|c| lookup_language(c).is_some());
    }
    lookup_language(text).is_some()
}

#[cfg(test)]
mod tests;
