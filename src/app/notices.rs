//! The app's notifications: what each one says, in English and Polish. Each is a summary line
//! and a body that says what happened, what it means and, where there is one, what to do.

use crate::audio::capture::MicrophoneProblem;
use crate::i18n::UiLang;
use std::time::Duration;

/// Texts of the app's notifications.
#[derive(Debug, Clone, PartialEq)]
pub enum Notice {
    MaxLengthSoon {
        remaining: Duration,
    },
    MaxLengthReached,
    MicrophoneFailed {
        problem: MicrophoneProblem,
        /// What the recording in progress had recorded is kept and transcribed.
        kept: bool,
    },
    TranscriptionFailed {
        detail: String,
    },
    /// The transcription stopped on an internal error (a panic); the recording is kept.
    TranscriptionCrashed,
    PasteFailed {
        detail: String,
    },
    /// Keys were held while the text was to be pasted (or went down while it was): it was left
    /// on the clipboard. `mac`: the paste shortcut to name (Cmd+V, else Ctrl+V).
    NotPasted {
        mac: bool,
    },
    /// macOS's Secure Input was on when the text was to be pasted or typed (a password field,
    /// Terminal's Secure Keyboard Entry, a password manager): no key was sent, the text was left
    /// on the clipboard ([`Notice::not_pasted`]).
    SecureInput,
    /// A Wayland desktop that offers no virtual keyboard (GNOME) was to receive a pasted or
    /// typed text: no app may send keys there, so it was left on the clipboard.
    NoKeystrokesOnWayland,
    ModelFailed {
        model: String,
        detail: String,
        /// The model is in the catalogue, so the Model menu offers to download it again.
        redownload: bool,
    },
    NoModelInstalled {
        models_dir: String,
    },
    HotkeyUnavailable {
        hotkey: String,
        detail: String,
    },
    /// macOS 15.0 or 15.1 refused a hotkey whose only modifier is Option (⌥Space, the Mac
    /// default): the alternative is an item of the Hotkey menu (`hotkey::option_only_refused`).
    HotkeyRefusedByMacos {
        /// The hotkey as people read it ("⌥Space").
        hotkey: String,
        /// The macOS version, "15.1".
        macos: String,
        /// The Hotkey menu's item to choose instead, as people read it ("⌃⇧Space").
        alternative: String,
    },
    /// The History/Settings window could not be opened (its program missing, or it ended
    /// before its page showed).
    WindowUnavailable {
        detail: String,
    },
    /// macOS: the hotkey is also one of the system's shortcuts, so a dictation triggers both.
    HotkeyIsSystemShortcut {
        /// The hotkey as people read it ("⌃⌥Space").
        hotkey: String,
        /// The shortcut's number (`system_shortcuts`).
        shortcut: u32,
    },
    SettingsDamaged {
        detail: String,
        /// Every setting is the default (else only the fields `detail` names).
        whole_file: bool,
    },
    SettingsNotSaved {
        detail: String,
    },
    /// settings.json, read again while the app runs (a menu choice, or a hand edit before a
    /// dictation), is unusable as a whole (not JSON, a newer schema): the file is kept as it is,
    /// the app goes on with the settings it has, and menu choices last until it quits.
    SettingsKept {
        detail: String,
    },
    NothingToRetry,
    AlreadyRunning,
    /// Keystrokes are not allowed (macOS Accessibility); the text was copied instead.
    AccessibilityMissing,
    /// The microphone delivered exact zeros: no microphone permission (macOS) or a muted input.
    /// `mac`: say where the permission is (System Settings exist only there).
    MicrophoneSilent {
        mac: bool,
    },
    /// The microphone, opened at key-down, took this long to deliver its first sample (a
    /// Bluetooth headset): the first word may be cut unless it is kept open.
    MicrophoneSlowToStart {
        device: String,
        millis: u64,
    },
    /// First run: a better model than the installed ones suits this machine (nothing is
    /// downloaded until the user picks it).
    ModelSuggested {
        model: String,
        size: String,
    },
    /// A download entry was clicked once: a second click starts it.
    DownloadConfirm {
        model: String,
        size: String,
    },
    /// A download is running; another waits until it ends.
    DownloadBusy {
        model: String,
    },
    DownloadDone {
        model: String,
    },
    DownloadFailed {
        model: String,
        detail: String,
        /// What arrived is kept; choosing the model again continues from there.
        resumable: bool,
    },
    /// A recording with speech in it gave no text (it is kept for Retry).
    NothingRecognised {
        /// Seconds of active sound.
        speech: f32,
        /// A larger model that would do better (Polish with a small model).
        larger_model: Option<String>,
    },
    /// A recording the previous run did not finish was transcribed at start; its text is on
    /// the clipboard.
    RecordingRecovered {
        /// When it was recorded, as the person's clock shows it.
        recorded_at: String,
        seconds: f32,
    },
    /// Such a recording had no words in it.
    RecoveredNothing {
        recorded_at: String,
    },
    /// Such a recording could not be transcribed.
    RecoveryFailed {
        recorded_at: String,
        detail: String,
    },
    /// Such a recording was not transcribed: doing so stopped the app twice already.
    RecordingNotRetried {
        recorded_at: String,
    },
}

impl Notice {
    /// What to tell when a text meant to be pasted or typed was left on the clipboard (`why`);
    /// `mac`: the paste shortcut to name is Cmd+V.
    pub fn not_pasted(why: crate::inject::NotPasted, mac: bool) -> Notice {
        use crate::inject::NotPasted;
        match why {
            NotPasted::KeysHeld | NotPasted::KeysPressedMeanwhile => Notice::NotPasted { mac },
            NotPasted::SecureInput => Notice::SecureInput,
            NotPasted::NoKeystrokesOnWayland => Notice::NoKeystrokesOnWayland,
        }
    }

    /// (summary, body) in `lang`.
    pub fn text(&self, lang: UiLang) -> (String, String) {
        let pl = lang == UiLang::Pl;
        match self {
            Notice::NothingRecognised { .. }
            | Notice::RecordingRecovered { .. }
            | Notice::RecoveredNothing { .. }
            | Notice::RecoveryFailed { .. }
            | Notice::RecordingNotRetried { .. } => {
                self.kept_recording_text(pl).unwrap_or_default()
            }
            Notice::MaxLengthSoon { remaining } => {
                let s = remaining.as_secs();
                if pl {
                    (
                        "Nagranie zaraz się skończy".into(),
                        format!("Nagrywanie zatrzyma się za {s} s (limit długości)."),
                    )
                } else {
                    (
                        "Recording ends soon".into(),
                        format!("Recording stops in {s} s (maximum length)."),
                    )
                }
            }
            Notice::MaxLengthReached => {
                if pl {
                    (
                        "Osiągnięto limit długości".into(),
                        "Nagranie zatrzymane; przepisuję to, co nagrano.".into(),
                    )
                } else {
                    (
                        "Maximum length reached".into(),
                        "Recording stopped; transcribing what was recorded.".into(),
                    )
                }
            }
            Notice::MicrophoneFailed {
                problem: MicrophoneProblem::Lost,
                kept: true,
            } => {
                if pl {
                    (
                        "Problem z mikrofonem".into(),
                        "Mikrofon przestał działać w trakcie nagrania (odłączony?). To, co \
                         nagrał do tej chwili, jest przepisywane. Sprawdź mikrofon przed \
                         następnym dyktowaniem; szczegóły są w logu."
                            .into(),
                    )
                } else {
                    (
                        "Microphone problem".into(),
                        "The microphone stopped during the recording (unplugged?). What it \
                         recorded until then is being transcribed. Check the microphone before \
                         the next dictation; details are in the log."
                            .into(),
                    )
                }
            }
            Notice::MicrophoneFailed { problem, .. } => {
                let what = match (problem, pl) {
                    (MicrophoneProblem::NotFound, true) => "Nie znaleziono mikrofonu.",
                    (MicrophoneProblem::NotFound, false) => "No microphone was found.",
                    (MicrophoneProblem::CannotOpen, true) => {
                        "Nie można otworzyć mikrofonu (zajęty albo brak dostępu)."
                    }
                    (MicrophoneProblem::CannotOpen, false) => {
                        "The microphone cannot be opened (busy, or no access)."
                    }
                    (MicrophoneProblem::Lost, true) => "Mikrofon przestał działać (odłączony?).",
                    (MicrophoneProblem::Lost, false) => {
                        "The microphone stopped working (unplugged?)."
                    }
                };
                let advice = if pl {
                    "Sprawdź, czy mikrofon jest podłączony i czy aplikacja ma do niego dostęp; szczegóły są w logu."
                } else {
                    "Check that the microphone is connected and that the app may use it; details are in the log."
                };
                let summary = if pl {
                    "Problem z mikrofonem"
                } else {
                    "Microphone problem"
                };
                (summary.into(), format!("{what} {advice}"))
            }
            Notice::TranscriptionFailed { detail } => {
                if pl {
                    (
                        "Nie udało się przepisać".into(),
                        format!("{detail}. Nagranie zachowano: menu → Ponów ostatnie nagranie."),
                    )
                } else {
                    (
                        "Transcription failed".into(),
                        format!("{detail}. The recording is kept: menu → Retry last recording."),
                    )
                }
            }
            Notice::TranscriptionCrashed => {
                if pl {
                    (
                        "Nie udało się przepisać".into(),
                        "Przepisywanie przerwał błąd wewnętrzny aplikacji; model jest wczytywany \
                         od nowa. Nagranie zachowano: menu → Ponów ostatnie nagranie. Szczegóły \
                         są w logu."
                            .into(),
                    )
                } else {
                    (
                        "Transcription failed".into(),
                        "The transcription stopped on an internal error of the app; the model is \
                         being loaded again. The recording is kept: menu → Retry last recording. \
                         Details are in the log."
                            .into(),
                    )
                }
            }
            Notice::PasteFailed { detail } => {
                if pl {
                    (
                        "Nie udało się wkleić".into(),
                        format!("{detail}. Tekst jest w menu → Ostatnie transkrypcje."),
                    )
                } else {
                    (
                        "Could not paste".into(),
                        format!("{detail}. The text is in the menu → Recent transcripts."),
                    )
                }
            }
            Notice::NotPasted { mac } => {
                let shortcut = if *mac { "Cmd+V" } else { "Ctrl+V" };
                if pl {
                    (
                        "Nie wklejono tekstu".into(),
                        format!("Klawisze były wciśnięte podczas wklejania, więc skrót wklejania mógł zadziałać jako inny. Tekst jest w schowku (wklej go {shortcut}) i w menu → Ostatnie transkrypcje."),
                    )
                } else {
                    (
                        "Text not pasted".into(),
                        format!("Keys were held while pasting, which would turn the paste shortcut into another one. The text is on the clipboard (paste it with {shortcut}) and in the menu → Recent transcripts."),
                    )
                }
            }
            Notice::SecureInput => {
                if pl {
                    (
                        "Tekst w schowku: bezpieczne wprowadzanie".into(),
                        "Pole hasła albo inna aplikacja (np. „Bezpieczne wprowadzanie z klawiatury” w Terminalu, menedżer haseł) włączyła w macOS bezpieczne wprowadzanie, przy którym klawisze wysyłane przez aplikacje nie docierają. Tekst jest w schowku: wklej go Cmd+V. Jest też w menu → Ostatnie transkrypcje.".into(),
                    )
                } else {
                    (
                        "Text on the clipboard: Secure Input".into(),
                        "A password field or another app (Terminal's Secure Keyboard Entry, a password manager) has turned on macOS's Secure Input, which drops the keys apps send. The text is on the clipboard: paste it with Cmd+V. It is also in the menu → Recent transcripts.".into(),
                    )
                }
            }
            Notice::NoKeystrokesOnWayland => {
                if pl {
                    (
                        "Tekst w schowku: Wayland".into(),
                        "Ten pulpit Wayland nie pozwala żadnej aplikacji pisać w innych oknach (nie ma wirtualnej klawiatury), więc tekst nie został wklejony. Jest w schowku: wklej go Ctrl+V. Jest też w menu → Ostatnie transkrypcje.".into(),
                    )
                } else {
                    (
                        "Text on the clipboard: Wayland".into(),
                        "This Wayland desktop lets no app type into other windows (it offers no virtual keyboard), so the text was not pasted. It is on the clipboard: press Ctrl+V to paste it. It is also in the menu → Recent transcripts.".into(),
                    )
                }
            }
            Notice::ModelFailed {
                model,
                detail,
                redownload,
            } => {
                let (summary, hint) = if pl {
                    (
                        format!("Nie można wczytać modelu {model}"),
                        " Model → Pobierz ponownie.",
                    )
                } else {
                    (
                        format!("Cannot load the model {model}"),
                        " Model → Download again.",
                    )
                };
                let body = if *redownload {
                    format!("{detail}.{hint}")
                } else {
                    detail.clone()
                };
                (summary, body)
            }
            Notice::NoModelInstalled { models_dir } => {
                if pl {
                    ("Brak modelu".into(), format!("Nie zainstalowano żadnego modelu Whisper w {models_dir}. Wybierz Model → Pobierz model albo uruchom scripts/setup.sh."))
                } else {
                    (
                        "No model installed".into(),
                        format!(
                            "No Whisper model is installed in {models_dir}. Choose Model → Download a model, or run scripts/setup.sh."
                        ),
                    )
                }
            }
            Notice::HotkeyUnavailable { hotkey, detail } => {
                if pl {
                    ("Skrót niedostępny".into(), format!("Nie można użyć skrótu {hotkey}: {detail}. Zmień \"hotkey\" w settings.json."))
                } else {
                    ("Hotkey unavailable".into(), format!("Cannot use the hotkey {hotkey}: {detail}. Change \"hotkey\" in settings.json."))
                }
            }
            Notice::HotkeyRefusedByMacos {
                hotkey,
                macos,
                alternative,
            } => {
                if pl {
                    ("Skrót niedostępny".into(), format!("macOS {macos} nie przyjmuje skrótów, w których jedynym modyfikatorem jest Option (⌥), takich jak {hotkey} (macOS 15.2 i nowsze znów je przyjmują). Wybierz w menu aplikacji Skrót klawiszowy → {alternative} albo zaktualizuj macOS."))
                } else {
                    ("Hotkey unavailable".into(), format!("macOS {macos} refuses hotkeys whose only modifier is Option (⌥), such as {hotkey} (macOS 15.2 and later accept them again). Choose Hotkey → {alternative} in the app's menu, or update macOS."))
                }
            }
            Notice::WindowUnavailable { detail } => {
                if pl {
                    ("Okno się nie otworzyło".into(), format!("Nie można otworzyć okna historii i ustawień: {detail}. Dyktowanie działa jak dotąd; szczegóły są w logu (menu → Otwórz folder logów)."))
                } else {
                    ("The window did not open".into(), format!("The History and Settings window could not be opened: {detail}. Dictation works as before; the log has the details (menu → Open log folder)."))
                }
            }
            Notice::HotkeyIsSystemShortcut { hotkey, shortcut } => {
                let name = crate::system_shortcuts::name(*shortcut, lang);
                let input_source = matches!(
                    *shortcut,
                    crate::system_shortcuts::PREVIOUS_INPUT_SOURCE
                        | crate::system_shortcuts::NEXT_INPUT_SOURCE
                );
                if pl {
                    let effect = if input_source {
                        " (przy kilku układach klawiatury zmieni układ)"
                    } else {
                        ""
                    };
                    ("Skrót zajęty przez macOS".into(), format!("{hotkey} to także skrót systemowy „{name}”: każde dyktowanie uruchomi i jego{effect}. Wybierz inny skrót w menu aplikacji (Skrót klawiszowy), np. ⌥Space, albo wyłącz tamten: Ustawienia systemowe → Klawiatura → Skróty klawiszowe."))
                } else {
                    let effect = if input_source {
                        " (with more than one keyboard layout it switches the layout)"
                    } else {
                        ""
                    };
                    ("Hotkey taken by macOS".into(), format!("{hotkey} is also the system shortcut “{name}”: every dictation triggers it too{effect}. Pick another hotkey in the app's menu (Hotkey), e.g. ⌥Space, or turn that one off: System Settings → Keyboard → Keyboard Shortcuts."))
                }
            }
            Notice::SettingsDamaged { detail, whole_file } => {
                let consequence = match (pl, whole_file) {
                    (true, true) => "Używam ustawień domyślnych.",
                    (true, false) => "Pozostałe ustawienia zachowuję.",
                    (false, true) => "Using the default settings.",
                    (false, false) => "The other settings are kept.",
                };
                let title = if pl {
                    "Ustawienia uszkodzone"
                } else {
                    "Settings damaged"
                };
                (title.into(), format!("{detail}. {consequence}"))
            }
            Notice::SettingsKept { detail } => {
                if pl {
                    (
                        "Nie zmieniono pliku ustawień".into(),
                        format!("{detail}. Plik zostaje bez zmian; dopóki go nie poprawisz, aplikacja działa z obecnymi ustawieniami, a wybory z menu obowiązują do jej zamknięcia."),
                    )
                } else {
                    (
                        "Settings file not changed".into(),
                        format!("{detail}. The file is left as it is; until you correct it, the app goes on with its current settings, and menu choices last until it quits."),
                    )
                }
            }
            Notice::SettingsNotSaved { detail } => {
                if pl {
                    ("Nie zapisano ustawień".into(), detail.clone())
                } else {
                    ("Settings not saved".into(), detail.clone())
                }
            }
            Notice::NothingToRetry => {
                if pl {
                    (
                        "Brak nagrania".into(),
                        "Nie ma zapisanego nagrania do ponowienia.".into(),
                    )
                } else {
                    (
                        "No recording".into(),
                        "There is no saved recording to retry.".into(),
                    )
                }
            }
            Notice::AccessibilityMissing => {
                if pl {
                    ("Brak uprawnień do wklejania".into(), "Tekst jest w schowku (wklej go Cmd+V). Aby wklejać automatycznie: Ustawienia systemowe → Prywatność i ochrona → Dostępność → włącz Whisper Dictation. Jeśli już jest włączony, usuń go (−) i dodaj ponownie: zgoda wygasa po aktualizacji lub przeniesieniu aplikacji.".into())
                } else {
                    ("Not allowed to paste".into(), "The text is on the clipboard (paste it with Cmd+V). To paste automatically: System Settings → Privacy & Security → Accessibility → turn on Whisper Dictation. If it is already on, remove it (−) and add it again: the grant goes stale when the app is updated or moved.".into())
                }
            }
            Notice::MicrophoneSilent { mac: true } => {
                if pl {
                    ("Mikrofon nic nie słyszy".into(), "Nagranie to sama cisza cyfrowa. Ustawienia systemowe → Prywatność i ochrona → Mikrofon → włącz Whisper Dictation. Sprawdź też, czy wejście nie jest wyciszone.".into())
                } else {
                    ("The microphone hears nothing".into(), "The recording is pure digital silence. System Settings → Privacy & Security → Microphone → turn on Whisper Dictation. Also check that the input is not muted.".into())
                }
            }
            Notice::MicrophoneSilent { mac: false } => {
                if pl {
                    ("Mikrofon nic nie słyszy".into(), "Nagranie to sama cisza cyfrowa. Sprawdź, czy wejście nie jest wyciszone i czy wybrany jest właściwy mikrofon (Mikrofon w menu albo ustawienia dźwięku systemu).".into())
                } else {
                    ("The microphone hears nothing".into(), "The recording is pure digital silence. Check that the input is not muted and that the right microphone is chosen (Microphone in the menu, or the system's sound settings).".into())
                }
            }
            Notice::MicrophoneSlowToStart { device, millis } => {
                let seconds = format!("{:.1}", *millis as f64 / 1000.0);
                if pl {
                    (
                        "Mikrofon wolno startuje".into(),
                        format!("„{device}” zaczął nagrywać {seconds} s po naciśnięciu klawisza: pierwsze słowo może zostać ucięte. Ustawienia → Mikrofon otwarty między dyktowaniami (wskaźnik mikrofonu świeci wtedy stale)."),
                    )
                } else {
                    (
                        "The microphone is slow to start".into(),
                        format!("“{device}” began recording {seconds} s after the key went down: the first word may be cut. Settings → Keep the microphone open between dictations (the microphone indicator then stays on)."),
                    )
                }
            }
            Notice::ModelSuggested { model, size } => {
                if pl {
                    ("Sugerowany model".into(), format!("Na tym komputerze lepiej sprawdzi się model {model} ({size}). Pobierz go w menu Model → Pobierz model, jeśli chcesz; nic nie jest pobierane bez pytania."))
                } else {
                    ("Suggested model".into(), format!("The {model} model ({size}) suits this computer better. Get it from Model → Download a model if you like; nothing is downloaded unasked."))
                }
            }
            Notice::DownloadConfirm { model, size } => {
                if pl {
                    (format!("Pobrać {model}?"), format!("Kliknij {model} jeszcze raz (Model → Pobierz model), aby pobrać {size}."))
                } else {
                    (
                        format!("Download {model}?"),
                        format!(
                            "Click {model} again (Model → Download a model) to download {size}."
                        ),
                    )
                }
            }
            Notice::DownloadBusy { model } => {
                if pl {
                    (
                        "Pobieranie trwa".into(),
                        format!(
                            "Trwa pobieranie modelu {model}. Poczekaj na koniec albo je anuluj."
                        ),
                    )
                } else {
                    (
                        "A download is running".into(),
                        format!("The {model} model is downloading. Wait for it, or cancel it."),
                    )
                }
            }
            Notice::DownloadDone { model } => {
                if pl {
                    (
                        format!("Pobrano {model}"),
                        format!(
                            "Model {model} jest sprawdzony i zainstalowany; przełączam na niego."
                        ),
                    )
                } else {
                    (
                        format!("{model} downloaded"),
                        format!("The {model} model is verified and installed; switching to it."),
                    )
                }
            }
            Notice::DownloadFailed {
                model,
                detail,
                resumable,
            } => {
                let (summary, hint) = if pl {
                    (
                        format!("Nie pobrano {model}"),
                        " Pobrane części zostają: wybierz model ponownie, aby dokończyć.",
                    )
                } else {
                    (
                        format!("{model} not downloaded"),
                        " What arrived is kept: choose the model again to continue.",
                    )
                };
                (
                    summary,
                    format!("{detail}.{}", if *resumable { hint } else { "" }),
                )
            }
            Notice::AlreadyRunning => {
                if pl {
                    (
                        "Już działa".into(),
                        "Whisper Dictation jest już uruchomiony (ikona w pasku menu).".into(),
                    )
                } else {
                    (
                        "Already running".into(),
                        "Whisper Dictation is already running (see its menu-bar icon).".into(),
                    )
                }
            }
        }
    }
}

impl Notice {
    /// The notices about a recording that gave no text or that a previous run left unfinished;
    /// `None` for the others.
    fn kept_recording_text(&self, pl: bool) -> Option<(String, String)> {
        let retry = if pl {
            "Nagranie zachowano: menu → Ponów ostatnie nagranie."
        } else {
            "The recording is kept: menu → Retry last recording."
        };
        let interrupted = |at: &str| {
            if pl {
                format!("Dyktowanie z {at} zostało przerwane, bo aplikacja przestała działać")
            } else {
                format!("The dictation from {at} was interrupted when the app stopped")
            }
        };
        let text = match self {
            Notice::NothingRecognised {
                speech,
                larger_model,
            } => {
                let seconds = format!("{speech:.1}");
                let larger = match (larger_model, pl) {
                    (Some(m), true) => {
                        format!(" Model {m} znacznie lepiej rozpoznaje polski (menu → Model).")
                    }
                    (Some(m), false) => {
                        format!(" The {m} model recognises Polish much better (menu → Model).")
                    }
                    (None, _) => String::new(),
                };
                if pl {
                    (
                        "Nic nie rozpoznano".into(),
                        format!(
                            "Nagranie ma {} s mowy, ale nie rozpoznano w nim słów. {retry}{larger}",
                            seconds.replace('.', ",")
                        ),
                    )
                } else {
                    (
                        "Nothing recognised".into(),
                        format!(
                            "The recording has {seconds} s of speech, but no words were \
                             recognised in it. {retry}{larger}"
                        ),
                    )
                }
            }
            Notice::RecordingRecovered {
                recorded_at,
                seconds,
            } => {
                let seconds = format!("{seconds:.0}");
                if pl {
                    (
                        "Odzyskano dyktowanie".into(),
                        format!(
                            "{} ({seconds} s). Jego tekst jest w schowku (nie został wklejony) \
                             i w Ostatnich transkrypcjach.",
                            interrupted(recorded_at)
                        ),
                    )
                } else {
                    (
                        "Dictation recovered".into(),
                        format!(
                            "{} ({seconds} s). Its text is on the clipboard (not pasted) and in \
                             Recent transcripts.",
                            interrupted(recorded_at)
                        ),
                    )
                }
            }
            Notice::RecoveredNothing { recorded_at } => {
                let summary = if pl {
                    "Odzyskano dyktowanie"
                } else {
                    "Dictation recovered"
                };
                let words = if pl {
                    "nie rozpoznano w nim słów"
                } else {
                    "no words were recognised in it"
                };
                (
                    summary.into(),
                    format!("{}; {words}. {retry}", interrupted(recorded_at)),
                )
            }
            Notice::RecoveryFailed {
                recorded_at,
                detail,
            } => {
                let summary = if pl {
                    "Nie odzyskano dyktowania"
                } else {
                    "Dictation not recovered"
                };
                (
                    summary.into(),
                    format!("{}: {detail}. {retry}", interrupted(recorded_at)),
                )
            }
            Notice::RecordingNotRetried { recorded_at } => {
                if pl {
                    (
                        "Nie ponowiono dyktowania".into(),
                        format!(
                            "Przepisywanie dyktowania z {recorded_at} dwa razy przerwało działanie \
                             aplikacji, więc nie jest ponawiane samo. {retry}"
                        ),
                    )
                } else {
                    (
                        "Dictation not retried".into(),
                        format!(
                            "Transcribing the dictation from {recorded_at} stopped the app twice, \
                             so it is not retried by itself. {retry}"
                        ),
                    )
                }
            }
            _ => return None,
        };
        Some(text)
    }
}

#[cfg(test)]
mod tests;
