//! The menu-bar app's words in Polish and English: menu labels (with `&` mnemonics, which GTK
//! underlines and macOS strips), the status line and the Model menu (notifications are in `notices`). The device manager's own
//! messages live in `crate::i18n`.

use crate::device::policy::Reason;
use crate::device::{DeviceKind, Operation};
use crate::i18n::UiLang;
use std::time::Duration;

/// Static labels of one language.
#[derive(Debug, Clone, Copy)]
pub struct Labels {
    pub recent: &'static str,
    pub recent_none: &'static str,
    pub retry: &'static str,
    /// Opens the History window.
    pub history: &'static str,
    /// Opens the window on its Settings page.
    pub settings: &'static str,
    pub model: &'static str,
    pub language: &'static str,
    pub lang_auto: &'static str,
    pub lang_auto_pl_en: &'static str,
    pub lang_more: &'static str,
    pub device: &'static str,
    pub device_auto: &'static str,
    pub encoder_fast: &'static str,
    pub encoder_exact: &'static str,
    pub hotkey_mode: &'static str,
    pub microphone: &'static str,
    pub microphone_default: &'static str,
    pub mode_hold: &'static str,
    pub mode_toggle: &'static str,
    pub output: &'static str,
    pub output_paste: &'static str,
    pub output_type: &'static str,
    pub output_copy: &'static str,
    pub overlay: &'static str,
    pub overlay_shown: &'static str,
    pub overlay_bottom: &'static str,
    pub overlay_top: &'static str,
    pub vocabulary: &'static str,
    /// The Privacy submenu.
    pub privacy: &'static str,
    /// Privacy ▸ Keep recordings (checked by default): a recording is kept once its text was
    /// delivered, for Retry. Unchecked, it is deleted then; one that failed or gave no text is
    /// kept for Retry all the same (`settings.keep_delivered_recordings`).
    pub keep_recordings: &'static str,
    /// Privacy ▸ Keep history (checked by default): each delivered dictation is kept in the
    /// history database (`settings.keep_history`).
    pub keep_history: &'static str,
    /// Privacy ▸ Forget everything…: a first click arms it ([`Self::forget_confirm`]).
    pub forget: &'static str,
    /// The same item while it waits for the confirming click (same mnemonic).
    pub forget_confirm: &'static str,
    pub launch_at_login: &'static str,
    pub open_logs: &'static str,
    pub quit: &'static str,
}

pub fn labels(lang: UiLang) -> Labels {
    match lang {
        UiLang::En => Labels {
            recent: "Recent &transcripts",
            recent_none: "(nothing dictated yet)",
            retry: "&Retry last recording",
            history: "Hi&story…",
            settings: "S&ettings…",
            model: "&Model",
            language: "&Language",
            lang_auto: "&Auto-detect",
            lang_auto_pl_en: "Auto: Polish or &English",
            lang_more: "&More",
            device: "&Device",
            device_auto: "&Auto (best available)",
            encoder_fast: "&Fast: encode only the speech (CPU)",
            encoder_exact: "&Exact: encode whole 30 s windows",
            hotkey_mode: "&Hotkey",
            microphone: "M&icrophone",
            microphone_default: "&System default",
            mode_hold: "&Hold to talk",
            mode_toggle: "&Press to start, press to stop",
            output: "&Output",
            output_paste: "&Paste into the app",
            output_type: "&Type it",
            output_copy: "&Copy only",
            overlay: "O&verlay",
            overlay_shown: "&Show while dictating",
            overlay_bottom: "&Bottom centre",
            overlay_top: "&Top centre",
            vocabulary: "Voc&abulary and replacements…",
            privacy: "Privac&y",
            keep_recordings: "&Keep recordings",
            keep_history: "Keep &history",
            forget: "&Forget everything…",
            forget_confirm: "Click again to &forget everything",
            launch_at_login: "Launch at lo&gin",
            open_logs: "Open log &folder",
            quit: "&Quit",
        },
        UiLang::Pl => Labels {
            recent: "Ostatnie &transkrypcje",
            recent_none: "(jeszcze nic nie podyktowano)",
            retry: "Ponów ostatnie &nagranie",
            history: "&Historia…",
            settings: "Ust&awienia…",
            model: "&Model",
            language: "&Język",
            lang_auto: "&Wykrywaj automatycznie",
            lang_auto_pl_en: "Automatycznie: polski lub &angielski",
            lang_more: "&Więcej",
            device: "&Urządzenie",
            device_auto: "&Automatycznie (najlepsze dostępne)",
            encoder_fast: "&Szybko: koduj tylko mowę (CPU)",
            encoder_exact: "&Dokładnie: koduj całe okna 30 s",
            hotkey_mode: "&Skrót klawiszowy",
            microphone: "M&ikrofon",
            microphone_default: "&Domyślny systemowy",
            mode_hold: "&Przytrzymaj, aby mówić",
            mode_toggle: "&Naciśnij, aby zacząć i skończyć",
            output: "&Wynik",
            output_paste: "&Wklej do aplikacji",
            output_type: "Wpisz &znak po znaku",
            output_copy: "Tylko &kopiuj",
            overlay: "Nakła&dka",
            overlay_shown: "&Pokazuj podczas dyktowania",
            overlay_bottom: "Na &dole, pośrodku",
            overlay_top: "Na &górze, pośrodku",
            vocabulary: "Sł&ownictwo i zamiany…",
            privacy: "&Prywatność",
            keep_recordings: "&Przechowuj nagrania",
            keep_history: "Zapisuj &historię",
            forget: "&Zapomnij wszystko…",
            forget_confirm: "Kliknij ponownie, aby &zapomnieć wszystko",
            launch_at_login: "Uruchamiaj przy lo&gowaniu",
            open_logs: "Otwórz folder &logów",
            quit: "Za&kończ",
        },
    }
}

/// Languages offered under "More", as (code, name in that language).
pub const MORE_LANGUAGES: &[(&str, &str)] = &[
    ("de", "Deutsch"),
    ("es", "Español"),
    ("fr", "Français"),
    ("it", "Italiano"),
    ("pt", "Português"),
    ("nl", "Nederlands"),
    ("cs", "Čeština"),
    ("sk", "Slovenčina"),
    ("uk", "Українська"),
    ("ru", "Русский"),
    ("lt", "Lietuvių"),
    ("sv", "Svenska"),
    ("ja", "日本語"),
    ("zh", "中文"),
];

/// The two main languages' menu names (the first letter is the mnemonic).
pub fn main_languages(lang: UiLang) -> [(&'static str, &'static str); 2] {
    match lang {
        UiLang::En => [("pl", "&Polish (polski)"), ("en", "E&nglish")],
        UiLang::Pl => [("pl", "&Polski"), ("en", "A&ngielski (English)")],
    }
}

/// Hotkeys offered in the menu (the settings may hold any other `global-hotkey` accelerator,
/// shown as one more entry), the OS's default first (`settings::default_hotkey`). None of them
/// is a common system or editor shortcut there; on macOS ⌃⌥Space is left out, as macOS's own
/// "Select next source in Input menu".
pub fn hotkey_presets(mac: bool) -> [&'static str; 4] {
    [
        crate::settings::default_hotkey(mac),
        "ctrl+shift+space",
        "ctrl+alt+d",
        "f8",
    ]
}

/// A hotkey as people read it: "Ctrl+Alt+Space", or on a Mac "⌃⌥Space".
pub fn hotkey_label(hotkey: &str, mac: bool) -> String {
    let parts: Vec<String> = hotkey
        .split('+')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|part| {
            let lower = part.to_ascii_lowercase();
            let named = match (lower.as_str(), mac) {
                ("ctrl" | "control", false) => "Ctrl",
                ("ctrl" | "control", true) => "⌃",
                ("alt" | "option", false) => "Alt",
                ("alt" | "option", true) => "⌥",
                ("shift", false) => "Shift",
                ("shift", true) => "⇧",
                ("super" | "cmd" | "command" | "meta", false) => "Super",
                ("super" | "cmd" | "command" | "meta", true) => "⌘",
                ("space", _) => "Space",
                _ => "",
            };
            if named.is_empty() {
                let key = part.strip_prefix("Key").unwrap_or(part);
                key.to_ascii_uppercase()
            } else {
                named.to_string()
            }
        })
        .collect();
    parts.join(if mac { "" } else { "+" })
}

/// What the app is doing, for the status line.
#[derive(Debug, Clone, PartialEq)]
pub enum Status<'a> {
    Loading { model: &'a str },
    Ready,
    Recording,
    Transcribing { queued: usize },
    Broken,
}

/// Why the model runs on its device, for the status line (the device manager's reason).
pub fn placement_reason(reason: &Reason, lang: UiLang) -> String {
    let gpu_name = |gpu: &DeviceKind| gpu.name().to_uppercase();
    let pl = lang == UiLang::Pl;
    match reason {
        Reason::Preferred if pl => "najszybsze urządzenie tutaj".into(),
        Reason::Preferred => "the fastest device here".into(),
        Reason::Requested if pl => "wybrane w ustawieniach".into(),
        Reason::Requested => "chosen in the settings".into(),
        Reason::RequestedMissing { requested } if pl => {
            format!("{} nie ma na tym komputerze", gpu_name(requested))
        }
        Reason::RequestedMissing { requested } => {
            format!("{} is not available here", gpu_name(requested))
        }
        Reason::NoGpu if pl => "brak GPU, którego można użyć".into(),
        Reason::NoGpu => "no usable GPU".into(),
        Reason::ProbeFailed { gpu } if pl => format!("{} nie przeszło autotestu", gpu_name(gpu)),
        Reason::ProbeFailed { gpu } => format!("{} failed its self-test", gpu_name(gpu)),
        Reason::Unhealthy { gpu, op, .. } if pl => {
            format!(
                "{} zawiodło ostatnio przy {}",
                gpu_name(gpu),
                operation(*op, lang)
            )
        }
        Reason::Unhealthy { gpu, op, .. } => {
            format!(
                "{} failed recently at {}",
                gpu_name(gpu),
                operation(*op, lang)
            )
        }
        Reason::RetryAfterBackoff { gpu } if pl => {
            format!("ponowna próba {} po błędach", gpu_name(gpu))
        }
        Reason::RetryAfterBackoff { gpu } => format!("retrying {} after failures", gpu_name(gpu)),
    }
}

/// What the device was doing, as the end of "failed recently at …" / "zawiodło przy …".
fn operation(op: Operation, lang: UiLang) -> &'static str {
    match (op, lang) {
        (Operation::Load, UiLang::En) => "loading the model",
        (Operation::Load, UiLang::Pl) => "wczytywaniu modelu",
        (Operation::Encode, UiLang::En) => "encoding audio",
        (Operation::Encode, UiLang::Pl) => "kodowaniu dźwięku",
        (Operation::Decode, UiLang::En) => "decoding text",
        (Operation::Decode, UiLang::Pl) => "dekodowaniu tekstu",
        (Operation::Probe, UiLang::En) => "its self-test",
        (Operation::Probe, UiLang::Pl) => "autoteście",
    }
}

/// The status line: state, model, the device in use and why.
pub fn status_line(
    lang: UiLang,
    status: &Status,
    model: &str,
    device: Option<(&str, &str)>,
) -> String {
    let state = match (lang, status) {
        (UiLang::En, Status::Loading { model }) => format!("Loading {model}…"),
        (UiLang::Pl, Status::Loading { model }) => format!("Wczytuję {model}…"),
        (UiLang::En, Status::Ready) => "Ready".into(),
        (UiLang::Pl, Status::Ready) => "Gotowy".into(),
        (UiLang::En, Status::Recording) => "Recording…".into(),
        (UiLang::Pl, Status::Recording) => "Nagrywam…".into(),
        (UiLang::En, Status::Transcribing { queued }) if *queued > 1 => {
            format!("Transcribing ({queued} waiting)…")
        }
        (UiLang::Pl, Status::Transcribing { queued }) if *queued > 1 => {
            format!("Przepisuję ({queued} w kolejce)…")
        }
        (UiLang::En, Status::Transcribing { .. }) => "Transcribing…".into(),
        (UiLang::Pl, Status::Transcribing { .. }) => "Przepisuję…".into(),
        (UiLang::En, Status::Broken) => "Not working: model not loaded".into(),
        (UiLang::Pl, Status::Broken) => "Nie działa: model niewczytany".into(),
    };
    match (device, lang) {
        (Some((device, why)), UiLang::En) => format!("{state} — {model} on {device} ({why})"),
        (Some((device, why)), UiLang::Pl) => format!("{state} — {model} na {device} ({why})"),
        (None, _) => format!("{state} — {model}"),
    }
}

/// The microphone line under the status: which input and whether it is kept open.
pub fn microphone_line(lang: UiLang, device: &str, pre_roll: Option<Duration>) -> String {
    let device = if device.is_empty() {
        match lang {
            UiLang::En => "system default",
            UiLang::Pl => "domyślny systemowy",
        }
    } else {
        device
    };
    match (lang, pre_roll) {
        (UiLang::En, Some(p)) => format!(
            "Microphone: {device} · kept open ({:.1} s pre-roll, first word never cut)",
            p.as_secs_f32()
        ),
        (UiLang::Pl, Some(p)) => format!(
            "Mikrofon: {device} · stale otwarty (bufor {} s, pierwsze słowo nie ginie)",
            format!("{:.1}", p.as_secs_f32()).replace('.', ",")
        ),
        (UiLang::En, None) => format!("Microphone: {device} · opened on each press"),
        (UiLang::Pl, None) => format!("Mikrofon: {device} · otwierany przy naciśnięciu"),
    }
}

/// The Model menu's words beyond [`Labels`]: the download section and its states.
pub mod model_menu {
    use crate::i18n::UiLang;

    /// The last item: the window's Models page (sizes, advice, verify, remove).
    pub fn manage(lang: UiLang) -> &'static str {
        match lang {
            UiLang::En => "&Manage models…",
            UiLang::Pl => "&Zarządzaj modelami…",
        }
    }

    pub fn download_submenu(lang: UiLang) -> &'static str {
        match lang {
            UiLang::En => "&Download a model",
            UiLang::Pl => "&Pobierz model",
        }
    }

    /// A catalogue entry: name, size, advice, and whether it is the suggestion.
    pub fn entry(lang: UiLang, name: &str, size: &str, advice: &str, suggested: bool) -> String {
        let tag = match (suggested, lang) {
            (false, _) => "",
            (true, UiLang::En) => " ★ suggested",
            (true, UiLang::Pl) => " ★ sugerowany",
        };
        format!("{name} — {size}{tag} · {advice}")
    }

    /// An entry clicked once.
    pub fn confirm(lang: UiLang, name: &str, size: &str) -> String {
        match lang {
            UiLang::En => format!("▶ Click again to download {name} ({size})"),
            UiLang::Pl => format!("▶ Kliknij ponownie, aby pobrać {name} ({size})"),
        }
    }

    /// What a running download is doing, with its percent.
    pub fn progress(lang: UiLang, name: &str, stage: &str, percent: u8) -> String {
        match (lang, stage) {
            (UiLang::En, "verifying") => format!("Checking {name}: {percent} %"),
            (UiLang::Pl, "verifying") => format!("Sprawdzanie {name}: {percent} %"),
            (UiLang::En, "loading") => format!("Checking that {name} loads…"),
            (UiLang::Pl, "loading") => format!("Sprawdzanie, czy {name} się wczytuje…"),
            (UiLang::En, _) => format!("Downloading {name}: {percent} %"),
            (UiLang::Pl, _) => format!("Pobieranie {name}: {percent} %"),
        }
    }

    pub fn cancel(lang: UiLang) -> &'static str {
        match lang {
            UiLang::En => "&Cancel the download",
            UiLang::Pl => "&Anuluj pobieranie",
        }
    }

    pub fn redownload(lang: UiLang, name: &str, size: &str) -> String {
        match lang {
            UiLang::En => format!("Download {name} &again ({size})"),
            UiLang::Pl => format!("Pobierz {name} &ponownie ({size})"),
        }
    }

    pub fn all_installed(lang: UiLang) -> &'static str {
        match lang {
            UiLang::En => "(every model is installed)",
            UiLang::Pl => "(wszystkie modele są zainstalowane)",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    /// The mnemonic letter of a label (the character after a single `&`), lowercase.
    fn mnemonic(label: &str) -> Option<char> {
        let mut chars = label.chars();
        while let Some(c) = chars.next() {
            if c == '&' {
                return chars.next().map(|c| c.to_lowercase().next().unwrap_or(c));
            }
        }
        None
    }

    #[test]
    fn top_level_mnemonics_are_unique_in_each_language() {
        for lang in [UiLang::En, UiLang::Pl] {
            let l = labels(lang);
            let top = [
                l.recent,
                l.retry,
                l.history,
                l.settings,
                l.model,
                l.language,
                l.device,
                l.hotkey_mode,
                l.microphone,
                l.output,
                l.overlay,
                l.vocabulary,
                l.privacy,
                l.launch_at_login,
                l.open_logs,
                l.quit,
                // macOS only, and named after the problem; the mnemonic stays the same.
                crate::permissions::menu_label(&[], lang),
            ];
            let mut seen: Vec<char> = top.iter().map(|t| mnemonic(t).expect(t)).collect();
            seen.sort_unstable();
            let before = seen.len();
            seen.dedup();
            assert_eq!(seen.len(), before, "{lang:?}: {top:?}");
            let outputs = [l.output_paste, l.output_type, l.output_copy];
            let mut seen: Vec<char> = outputs.iter().map(|t| mnemonic(t).expect(t)).collect();
            seen.dedup();
            assert_eq!(seen.len(), 3);
            // Privacy: three items; the armed label keeps the item's mnemonic, so the same keys
            // pick it the second time.
            let privacy = [l.keep_recordings, l.keep_history, l.forget];
            let mut seen: Vec<char> = privacy.iter().map(|t| mnemonic(t).expect(t)).collect();
            seen.sort_unstable();
            seen.dedup();
            assert_eq!(seen.len(), 3, "{lang:?}: {privacy:?}");
            assert_eq!(mnemonic(l.forget), mnemonic(l.forget_confirm));
        }
        // The end-to-end test opens Output with "o" and picks Copy only with "c".
        assert_eq!(mnemonic(labels(UiLang::En).output), Some('o'));
        assert_eq!(mnemonic(labels(UiLang::En).output_copy), Some('c'));
        // tests/desktop_history_window.rs opens History with "s" (English).
        assert_eq!(mnemonic(labels(UiLang::En).history), Some('s'));
        assert_eq!(mnemonic(labels(UiLang::Pl).history), Some('h'));
        // tests/desktop_settings_window.rs opens Settings with "e" (English).
        assert_eq!(mnemonic(labels(UiLang::En).settings), Some('e'));
    }

    #[test]
    fn hotkeys_read_as_people_write_them() {
        assert_eq!(hotkey_label("ctrl+alt+space", false), "Ctrl+Alt+Space");
        assert_eq!(hotkey_label("ctrl+alt+space", true), "⌃⌥Space");
        assert_eq!(hotkey_label("ctrl+shift+KeyD", false), "Ctrl+Shift+D");
        assert_eq!(hotkey_label("f8", false), "F8");
        for mac in [false, true] {
            for preset in hotkey_presets(mac) {
                assert!(
                    global_hotkey::hotkey::HotKey::from_str(preset).is_ok(),
                    "{preset} does not parse"
                );
            }
        }
        assert_eq!(hotkey_presets(false)[0], "ctrl+alt+space");
        assert_eq!(hotkey_label(hotkey_presets(true)[0], true), "⌥Space");
        // No preset offered on a Mac is one of macOS's shortcuts as shipped.
        let mac_shortcuts = crate::system_shortcuts::enabled(&[]);
        for preset in hotkey_presets(true) {
            assert_eq!(
                crate::system_shortcuts::clash(preset, &mac_shortcuts),
                None,
                "{preset}"
            );
        }
    }

    #[test]
    fn the_status_line_names_state_model_device_and_reason() {
        let line = status_line(
            UiLang::En,
            &Status::Ready,
            "base",
            Some(("CPU", "no usable GPU")),
        );
        assert_eq!(line, "Ready — base on CPU (no usable GPU)");
        let line = status_line(
            UiLang::Pl,
            &Status::Transcribing { queued: 2 },
            "base",
            None,
        );
        assert_eq!(line, "Przepisuję (2 w kolejce)… — base");
    }

    #[test]
    fn the_microphone_line_says_when_the_stream_stays_open() {
        let line = microphone_line(UiLang::En, "", Some(Duration::from_millis(500)));
        assert!(
            line.contains("system default") && line.contains("0.5 s pre-roll"),
            "{line}"
        );
        let line = microphone_line(UiLang::Pl, "USB Mic", Some(Duration::from_millis(500)));
        assert!(line.contains("USB Mic") && line.contains("0,5 s"), "{line}");
    }

    #[test]
    fn the_reason_for_the_device_is_said_in_the_ui_language() {
        let unhealthy = Reason::Unhealthy {
            gpu: DeviceKind::Mps,
            op: Operation::Encode,
            success_rate: 0.4,
        };
        assert_eq!(
            placement_reason(&unhealthy, UiLang::En),
            "MPS failed recently at encoding audio"
        );
        assert_eq!(
            placement_reason(&unhealthy, UiLang::Pl),
            "MPS zawiodło ostatnio przy kodowaniu dźwięku"
        );
        assert_eq!(
            placement_reason(&Reason::NoGpu, UiLang::Pl),
            "brak GPU, którego można użyć"
        );
        assert_eq!(
            placement_reason(&Reason::NoGpu, UiLang::En),
            "no usable GPU"
        );
    }

    #[test]
    fn model_menu_texts_speak_both_languages() {
        for lang in [UiLang::En, UiLang::Pl] {
            assert!(model_menu::progress(lang, "small", "downloading", 42).contains("42 %"));
            assert!(model_menu::entry(lang, "small", "487 MB", "x", true).contains('★'));
            assert!(model_menu::confirm(lang, "small", "487 MB").contains("487 MB"));
        }
    }
}
