//! The permissions dictation needs on macOS — the microphone, and Accessibility (to paste or
//! type into other apps) — turned into what to tell the user. The OS is asked by tiny probes in
//! `platform`; everything decided from their answers is here, portable and tested with fake
//! answers.
//!
//! - Microphone: macOS asks by itself the first time the app opens the microphone (the text is
//!   `NSMicrophoneUsageDescription` in Info.plist). Not asked yet is not a problem; refused or
//!   restricted is, with the Privacy → Microphone pane to open.
//! - Accessibility: never asked by macOS; the user has to turn the app on in Privacy →
//!   Accessibility. A grant is tied to the app's code identity (for an ad-hoc signed app, the
//!   hash of that exact build) and path, so after an update or a move the old entry may still
//!   show as on in System Settings while macOS no longer applies it. The app remembers which
//!   copy (path, size, modification time) last had the grant ([`GrantRecord`], in
//!   `permissions.json`); missing now and seen granted for another copy → *stale*, and the
//!   message says to remove the entry (−) and add the app again (+).
//! - A translocated copy (see `bundle`) can keep neither grant: the message says to move the app.
//! - Linux under Wayland: there is no permission to grant, but ordinary apps get no global
//!   hotkeys and no synthesized keys there (only X11 apps through XWayland do), so the app says
//!   once what works and what does not.
//!
//! The app re-checks on a timer while something is missing, and when the user picks the
//! permissions item in the menu, so a grant given in System Settings takes effect without a
//! restart ([`PermissionWatch`]).

use crate::bundle::Location;
use crate::i18n::UiLang;
use serde::{Deserialize, Serialize};
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, UNIX_EPOCH};

/// System Settings → Privacy & Security → Microphone (macOS 12 and later, also 13+'s System
/// Settings).
pub const MICROPHONE_PANE: &str =
    "x-apple.systempreferences:com.apple.preference.security?Privacy_Microphone";
/// System Settings → Privacy & Security → Accessibility.
pub const ACCESSIBILITY_PANE: &str =
    "x-apple.systempreferences:com.apple.preference.security?Privacy_Accessibility";

/// How often to look again while a permission is missing or not yet asked.
pub const RECHECK_EVERY: Duration = Duration::from_secs(3);

/// The file (in the state folder) remembering which copy of the app last had Accessibility.
pub const RECORD_FILE: &str = "permissions.json";

/// The microphone authorisation as macOS reports it (`AVAuthorizationStatus`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MicrophoneAccess {
    /// Not asked yet: macOS shows its prompt when the app first opens the microphone.
    NotAsked,
    /// Forbidden by a profile or parental controls; the user may not be able to change it.
    Restricted,
    Denied,
    Granted,
}

impl MicrophoneAccess {
    /// From `AVAuthorizationStatus` (0 not determined, 1 restricted, 2 denied, 3 authorized);
    /// an unknown value (a future status) is `None`.
    pub fn from_av_status(status: i64) -> Option<MicrophoneAccess> {
        match status {
            0 => Some(MicrophoneAccess::NotAsked),
            1 => Some(MicrophoneAccess::Restricted),
            2 => Some(MicrophoneAccess::Denied),
            3 => Some(MicrophoneAccess::Granted),
            _ => None,
        }
    }
}

/// What the OS said, plus what the app needs. `None` = no such permission here (Linux).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Observed {
    pub microphone: Option<MicrophoneAccess>,
    pub accessibility: Option<bool>,
    /// Whether the output mode sends keystrokes (paste, type); "copy only" does not.
    pub sends_keys: bool,
    /// A Wayland session (Linux) where the app's own hotkey is heard only in X11 apps (no
    /// portal shortcut): the desktop's key binding is the way (`app::desktop_session`).
    pub wayland: bool,
}

/// Which copy of the app this is, as far as a privacy grant cares: where it is and which build
/// (size and modification time stand in for the code signature's hash, which changes with
/// every build of an ad-hoc signed app).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AppIdentity {
    /// The `.app` (or the loose executable) as the user sees it.
    pub path: PathBuf,
    pub size: u64,
    pub modified_secs: u64,
}

impl AppIdentity {
    /// The identity of the executable at `location`.
    pub fn of(location: &Location) -> io::Result<AppIdentity> {
        let meta = std::fs::metadata(&location.exe)?;
        let modified_secs = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_secs());
        Ok(AppIdentity {
            path: location.shown_path().to_path_buf(),
            size: meta.len(),
            modified_secs,
        })
    }
}

/// What the app remembers between runs.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct GrantRecord {
    /// The copy that last had the Accessibility permission.
    pub accessibility_granted_to: Option<AppIdentity>,
}

impl GrantRecord {
    /// Reads `permissions.json` in `dir`; missing or damaged → empty (it is only a hint).
    pub fn load(dir: &Path) -> GrantRecord {
        std::fs::read(dir.join(RECORD_FILE))
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default()
    }

    /// Writes it atomically.
    pub fn save(&self, dir: &Path) -> io::Result<()> {
        crate::private_files::create_dir_all(dir)?;
        let json = serde_json::to_vec_pretty(self).map_err(io::Error::other)?;
        crate::atomic_file::write(&dir.join(RECORD_FILE), &json)
    }
}

/// A missing permission (or a copy that cannot keep one), with what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    MicrophoneDenied,
    MicrophoneRestricted,
    AccessibilityMissing,
    /// Granted before to another copy (`granted_path`), not to this one.
    AccessibilityStale {
        granted_path: PathBuf,
        /// The app moved (otherwise it was updated or rebuilt in place).
        moved: bool,
    },
    /// Running from a translocated copy (`bundle`).
    Translocated,
    /// A Wayland session without the portal's shortcuts: bind the trigger in the desktop.
    Wayland,
}

/// The permission a problem concerns, for telling when it is solved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Permission {
    Microphone,
    Accessibility,
    /// Where the app runs from (translocation).
    Location,
    /// The desktop session (Wayland).
    Session,
}

impl Problem {
    pub fn permission(&self) -> Permission {
        match self {
            Problem::MicrophoneDenied | Problem::MicrophoneRestricted => Permission::Microphone,
            Problem::AccessibilityMissing | Problem::AccessibilityStale { .. } => {
                Permission::Accessibility
            }
            Problem::Translocated => Permission::Location,
            Problem::Wayland => Permission::Session,
        }
    }

    /// The System Settings pane to open for it.
    pub fn pane(&self) -> Option<&'static str> {
        match self.permission() {
            Permission::Microphone => Some(MICROPHONE_PANE),
            Permission::Accessibility => Some(ACCESSIBILITY_PANE),
            Permission::Location | Permission::Session => None,
        }
    }

    /// (summary, body) of the notification, in `lang`: what is wrong and exactly what to do.
    pub fn text(&self, lang: UiLang) -> (String, String) {
        let pl = lang == UiLang::Pl;
        let open = if pl {
            "Wybierz w menu aplikacji „Uprawnienia…”, aby otworzyć właściwy panel."
        } else {
            "Choose “Permissions…” in the app's menu to open the right pane."
        };
        match self {
            Problem::MicrophoneDenied => {
                if pl {
                    ("Brak dostępu do mikrofonu".into(), format!("Whisper Dictation nie może nagrywać. Ustawienia systemowe → Prywatność i ochrona → Mikrofon → włącz Whisper Dictation. {open}"))
                } else {
                    ("No microphone access".into(), format!("Whisper Dictation cannot record. System Settings → Privacy & Security → Microphone → turn on Whisper Dictation. {open}"))
                }
            }
            Problem::MicrophoneRestricted => {
                if pl {
                    ("Mikrofon zablokowany".into(), "Dostęp do mikrofonu blokuje profil zarządzania albo Czas przed ekranem; zmienić to może tylko administrator tego Maca.".into())
                } else {
                    ("Microphone blocked".into(), "Microphone access is blocked by a management profile or Screen Time; only this Mac's administrator can change that.".into())
                }
            }
            Problem::AccessibilityMissing => {
                if pl {
                    ("Brak uprawnień do wklejania".into(), format!("Bez uprawnienia Dostępność tekst trafia tylko do schowka. Ustawienia systemowe → Prywatność i ochrona → Dostępność → włącz Whisper Dictation (jeśli go nie ma na liście: +, wybierz aplikację). {open}"))
                } else {
                    ("Not allowed to paste".into(), format!("Without the Accessibility permission the text only goes to the clipboard. System Settings → Privacy & Security → Accessibility → turn on Whisper Dictation (not in the list: +, choose the app). {open}"))
                }
            }
            Problem::AccessibilityStale {
                granted_path,
                moved,
            } => {
                let path = granted_path.display();
                let why = match (pl, moved) {
                    (true, true) => {
                        format!("Zgodę dano kopii w {path}, a aplikacja została przeniesiona.")
                    }
                    (true, false) => {
                        "Zgodę dano poprzedniej wersji, a aplikacja została zaktualizowana."
                            .to_string()
                    }
                    (false, true) => {
                        format!("It was given to the copy at {path}, and the app has moved.")
                    }
                    (false, false) => {
                        "It was given to the previous version, and the app has been updated."
                            .to_string()
                    }
                };
                if pl {
                    ("Uprawnienie Dostępność wygasło".into(), format!("{why} Na liście może nadal wyglądać na włączone, ale macOS go nie stosuje. Ustawienia systemowe → Prywatność i ochrona → Dostępność: zaznacz Whisper Dictation, usuń (−), potem dodaj ponownie (+) i włącz. {open}"))
                } else {
                    ("Accessibility permission is stale".into(), format!("{why} It may still look turned on in the list, but macOS no longer applies it. System Settings → Privacy & Security → Accessibility: select Whisper Dictation, remove it (−), then add it again (+) and turn it on. {open}"))
                }
            }
            Problem::Wayland => {
                if pl {
                    ("Wayland: przypisz skrót w ustawieniach pulpitu".into(), "Na Waylandzie własnego skrótu aplikacji nie słychać, gdy aktywna jest aplikacja Waylanda (przekazują go tylko aplikacje X11). Skrót działający wszędzie: dodaj w skrótach klawiszowych pulpitu polecenie „whisper-dictation-trigger toggle” (mówienie z przytrzymaniem: „whisper-dictation-trigger start” przy naciśnięciu i „… stop” przy puszczeniu; README, „Wayland”). Drugi wiersz menu mówi, co tu działa: wklejanie i nakładka.".into())
                } else {
                    ("Wayland: bind the hotkey in your desktop".into(), "On Wayland the app's own hotkey is not heard while a Wayland app has the focus (only X11 apps pass it on). For a hotkey that works everywhere, add a keyboard shortcut in your desktop's settings that runs \"whisper-dictation-trigger toggle\" (hold-to-talk: \"whisper-dictation-trigger start\" on press and \"… stop\" on release; README, \"Wayland\"). The menu's second line says what works here: the paste and the overlay.".into())
                }
            }
            Problem::Translocated => {
                if pl {
                    ("Przenieś aplikację do Aplikacji".into(), "macOS uruchamia Whisper Dictation z tymczasowej kopii (aplikacja pobrana z internetu, otwarta tam, gdzie ją rozpakowano). Uprawnienia i uruchamianie przy logowaniu nie przetrwają. Zakończ aplikację, przeciągnij ją w Finderze do folderu Aplikacje i otwórz stamtąd.".into())
                } else {
                    ("Move the app to Applications".into(), "macOS runs Whisper Dictation from a temporary copy (an app downloaded from the internet and opened where it was unpacked). Permissions and launch at login will not last. Quit the app, drag it to the Applications folder in Finder and open it from there.".into())
                }
            }
        }
    }
}

/// The outcome of one check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    /// What is wrong now, most blocking first.
    pub problems: Vec<Problem>,
    /// Something may still change without the user going to System Settings (the microphone
    /// prompt not answered yet): keep re-checking even with no problem.
    pub pending: bool,
    /// The record to keep (updated when Accessibility is granted to this copy now).
    pub record: GrantRecord,
}

/// Asks the OS now (the probes in `platform`); `sends_keys` comes from the output mode,
/// `hotkey_needs_binding` from the desktop session (Wayland without the portal's shortcuts).
pub fn observe(sends_keys: bool, hotkey_needs_binding: bool) -> Observed {
    Observed {
        microphone: crate::platform::microphone_authorization()
            .and_then(MicrophoneAccess::from_av_status),
        accessibility: crate::platform::accessibility_trusted(),
        sends_keys,
        wayland: hotkey_needs_binding,
    }
}

/// Decides from the OS's answers, this copy's identity and what was remembered.
pub fn check(
    observed: &Observed,
    location: &Location,
    current: Option<&AppIdentity>,
    record: &GrantRecord,
) -> Check {
    let mut problems = Vec::new();
    let mut record = record.clone();
    let mut pending = false;
    // Only where macOS has these permissions at all does translocation matter.
    let macos_permissions = observed.microphone.is_some() || observed.accessibility.is_some();
    if macos_permissions && location.translocated {
        problems.push(Problem::Translocated);
    }
    match observed.microphone {
        Some(MicrophoneAccess::Denied) => problems.push(Problem::MicrophoneDenied),
        Some(MicrophoneAccess::Restricted) => problems.push(Problem::MicrophoneRestricted),
        Some(MicrophoneAccess::NotAsked) => pending = true,
        Some(MicrophoneAccess::Granted) | None => {}
    }
    match observed.accessibility {
        Some(true) => {
            if let Some(current) = current {
                record.accessibility_granted_to = Some(current.clone());
            }
        }
        Some(false) if observed.sends_keys => {
            let stale = record
                .accessibility_granted_to
                .as_ref()
                .zip(current)
                .filter(|(granted, now)| granted != now);
            problems.push(match stale {
                Some((granted, now)) => Problem::AccessibilityStale {
                    granted_path: granted.path.clone(),
                    moved: granted.path != now.path,
                },
                None => Problem::AccessibilityMissing,
            });
        }
        Some(false) | None => {}
    }
    if observed.wayland {
        problems.push(Problem::Wayland);
    }
    Check {
        problems,
        pending,
        record,
    }
}

/// What changed between two checks, for notifications.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Changes {
    /// Problems that were not there before (notify each).
    pub new: Vec<Problem>,
    /// Permissions that had a problem and no longer do (say it works now).
    pub solved: Vec<Permission>,
}

/// Compares problem lists by permission: a stale grant turning into a plain missing one is not
/// news; a solved one is.
pub fn changes(before: &[Problem], after: &[Problem]) -> Changes {
    let had = |list: &[Problem], p: Permission| list.iter().any(|x| x.permission() == p);
    let mut changes = Changes::default();
    for problem in after {
        if !had(before, problem.permission()) {
            changes.new.push(problem.clone());
        }
    }
    for problem in before {
        let permission = problem.permission();
        if !had(after, permission) && !changes.solved.contains(&permission) {
            changes.solved.push(permission);
        }
    }
    changes
}

/// The notification for a permission that now works: (summary, body).
pub fn solved_text(permission: Permission, lang: UiLang) -> Option<(String, String)> {
    let pl = lang == UiLang::Pl;
    match permission {
        Permission::Microphone => Some(if pl {
            (
                "Mikrofon dostępny".into(),
                "Whisper Dictation może już nagrywać.".into(),
            )
        } else {
            (
                "Microphone allowed".into(),
                "Whisper Dictation can record now.".into(),
            )
        }),
        Permission::Accessibility => Some(if pl {
            (
                "Wklejanie włączone".into(),
                "Uprawnienie Dostępność działa: podyktowany tekst będzie wklejany.".into(),
            )
        } else {
            (
                "Pasting enabled".into(),
                "The Accessibility permission works: dictated text will be pasted.".into(),
            )
        }),
        Permission::Location | Permission::Session => None,
    }
}

/// The answer to "Permissions…" when nothing is missing: (summary, body).
pub fn all_granted_text(lang: UiLang) -> (String, String) {
    if lang == UiLang::Pl {
        (
            "Uprawnienia w porządku".into(),
            "Whisper Dictation ma dostęp do mikrofonu i może wklejać tekst.".into(),
        )
    } else {
        (
            "Permissions are fine".into(),
            "Whisper Dictation may use the microphone and paste text.".into(),
        )
    }
}

/// The permissions menu item's label: a plain "Permissions…" when all is well, the problem in
/// a few words when not (with `&` mnemonics as the rest of the menu).
pub fn menu_label(problems: &[Problem], lang: UiLang) -> &'static str {
    let pl = lang == UiLang::Pl;
    match problems.first().map(Problem::permission) {
        None => {
            if pl {
                "Up&rawnienia…"
            } else {
                "&Permissions…"
            }
        }
        Some(Permission::Microphone) => {
            if pl {
                "⚠ Up&rawnienia: mikrofon…"
            } else {
                "⚠ &Permissions: microphone…"
            }
        }
        Some(Permission::Accessibility) => {
            if pl {
                "⚠ Up&rawnienia: Dostępność (wklejanie)…"
            } else {
                "⚠ &Permissions: Accessibility (pasting)…"
            }
        }
        Some(Permission::Location | Permission::Session) => {
            if pl {
                "⚠ Up&rawnienia: przenieś aplikację…"
            } else {
                "⚠ &Permissions: move the app…"
            }
        }
    }
}

/// The app's side: asks the OS (through `probe`), remembers the last problems and the grant
/// record, and says what changed. Owned by the event loop; each check takes microseconds.
pub struct PermissionWatch {
    state_dir: PathBuf,
    location: Option<Location>,
    identity: Option<AppIdentity>,
    record: GrantRecord,
    problems: Vec<Problem>,
    pending: bool,
    applies: bool,
}

impl PermissionWatch {
    /// For the running app; nothing is asked of the OS yet.
    pub fn new(state_dir: PathBuf, location: Option<Location>) -> PermissionWatch {
        let identity = location.as_ref().and_then(|l| AppIdentity::of(l).ok());
        PermissionWatch {
            record: GrantRecord::load(&state_dir),
            state_dir,
            location,
            identity,
            problems: Vec::new(),
            pending: false,
            applies: false,
        }
    }

    /// Checks with `observed`; returns what changed since the last check and saves the record
    /// when it changed (a failed save only costs the stale-grant hint, so it is logged).
    pub fn update(&mut self, observed: &Observed) -> Changes {
        let fallback = Location::of(Path::new(""));
        let location = self.location.as_ref().unwrap_or(&fallback);
        let result = check(observed, location, self.identity.as_ref(), &self.record);
        if result.record != self.record {
            if let Err(e) = result.record.save(&self.state_dir) {
                tracing::warn!("cannot remember the Accessibility grant: {e}");
            }
            self.record = result.record;
        }
        let changes = changes(&self.problems, &result.problems);
        self.problems = result.problems;
        self.pending = result.pending;
        self.applies = observed.microphone.is_some() || observed.accessibility.is_some();
        changes
    }

    pub fn problems(&self) -> &[Problem] {
        &self.problems
    }

    /// Whether this platform has these permissions at all (as of the last check): macOS.
    pub fn applies(&self) -> bool {
        self.applies
    }

    /// Whether to look again soon: a prompt not answered yet, or a permission missing that
    /// the user can grant while the app runs (moving the app or changing the session needs a
    /// restart anyway).
    pub fn wants_recheck(&self) -> bool {
        self.pending
            || self.problems.iter().any(|p| {
                matches!(
                    p.permission(),
                    Permission::Microphone | Permission::Accessibility
                )
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn app_at(path: &str) -> Location {
        Location::of(Path::new(&format!(
            "{path}/Contents/MacOS/whisper-dictation"
        )))
    }

    fn identity(path: &str, modified_secs: u64) -> AppIdentity {
        AppIdentity {
            path: PathBuf::from(path),
            size: 1000,
            modified_secs,
        }
    }

    fn observed(microphone: MicrophoneAccess, accessibility: bool) -> Observed {
        Observed {
            microphone: Some(microphone),
            accessibility: Some(accessibility),
            sends_keys: true,
            wayland: false,
        }
    }

    const APP: &str = "/Applications/Whisper Dictation.app";

    #[test]
    fn all_granted_is_quiet_and_remembers_who_had_accessibility() {
        let me = identity(APP, 1);
        let result = check(
            &observed(MicrophoneAccess::Granted, true),
            &app_at(APP),
            Some(&me),
            &GrantRecord::default(),
        );
        assert!(result.problems.is_empty());
        assert!(!result.pending);
        assert_eq!(result.record.accessibility_granted_to, Some(me));
    }

    #[test]
    fn linux_has_no_permissions_to_miss() {
        let none = Observed {
            microphone: None,
            accessibility: None,
            sends_keys: true,
            wayland: false,
        };
        let loose = Location::of(Path::new("/usr/bin/whisper-dictation"));
        let result = check(&none, &loose, None, &GrantRecord::default());
        assert_eq!(result.problems, vec![]);
        assert!(!result.pending);
        // Even from a path that looks translocated: the notion does not exist there.
        let odd = Location::of(Path::new("/tmp/AppTranslocation/x/whisper-dictation"));
        assert!(check(&none, &odd, None, &GrantRecord::default())
            .problems
            .is_empty());
    }

    #[test]
    fn a_wayland_session_is_explained_once_and_not_rechecked() {
        let state = tempfile::tempdir().unwrap();
        let loose = Location::of(Path::new("/usr/bin/whisper-dictation"));
        let mut watch = PermissionWatch::new(state.path().to_path_buf(), Some(loose));
        let wayland = Observed {
            microphone: None,
            accessibility: None,
            sends_keys: true,
            wayland: true,
        };
        assert_eq!(watch.update(&wayland).new, vec![Problem::Wayland]);
        assert!(
            !watch.wants_recheck(),
            "nothing changes without a new session"
        );
        assert!(!watch.applies(), "no macOS permissions menu item");
        let (summary, body) = Problem::Wayland.text(UiLang::En);
        assert!(
            summary.contains("Wayland") && body.contains("whisper-dictation-trigger start"),
            "{body}"
        );
        for lang in [UiLang::En, UiLang::Pl] {
            let (_, body) = Problem::Wayland.text(lang);
            assert!(
                body.contains("whisper-dictation-trigger toggle"),
                "the way to a hotkey that works everywhere: {body}"
            );
        }
        assert_eq!(Problem::Wayland.pane(), None);
    }

    #[test]
    fn the_microphone_prompt_not_answered_yet_is_pending_not_a_problem() {
        let result = check(
            &observed(MicrophoneAccess::NotAsked, true),
            &app_at(APP),
            Some(&identity(APP, 1)),
            &GrantRecord::default(),
        );
        assert!(result.problems.is_empty());
        assert!(result.pending);
        for (access, problem) in [
            (MicrophoneAccess::Denied, Problem::MicrophoneDenied),
            (MicrophoneAccess::Restricted, Problem::MicrophoneRestricted),
        ] {
            let result = check(
                &observed(access, true),
                &app_at(APP),
                Some(&identity(APP, 1)),
                &GrantRecord::default(),
            );
            assert_eq!(result.problems, vec![problem.clone()]);
            assert_eq!(problem.pane(), Some(MICROPHONE_PANE));
        }
    }

    #[test]
    fn accessibility_missing_matters_only_when_keys_are_sent() {
        let me = identity(APP, 1);
        let mut answers = observed(MicrophoneAccess::Granted, false);
        let result = check(&answers, &app_at(APP), Some(&me), &GrantRecord::default());
        assert_eq!(result.problems, vec![Problem::AccessibilityMissing]);
        assert_eq!(result.problems[0].pane(), Some(ACCESSIBILITY_PANE));
        answers.sends_keys = false; // "copy only"
        let result = check(&answers, &app_at(APP), Some(&me), &GrantRecord::default());
        assert!(result.problems.is_empty());
    }

    #[test]
    fn a_grant_seen_for_another_copy_is_stale() {
        let record = GrantRecord {
            accessibility_granted_to: Some(identity(APP, 1)),
        };
        let answers = observed(MicrophoneAccess::Granted, false);

        // Rebuilt or updated in place: same path, another build.
        let result = check(&answers, &app_at(APP), Some(&identity(APP, 2)), &record);
        assert_eq!(
            result.problems,
            vec![Problem::AccessibilityStale {
                granted_path: PathBuf::from(APP),
                moved: false
            }]
        );
        // The record is kept: it explains the state until the user fixes it.
        assert_eq!(result.record, record);

        // Moved from Downloads (the record) to Applications (now).
        let downloads = "/Users/ala/Downloads/Whisper Dictation.app";
        let record = GrantRecord {
            accessibility_granted_to: Some(identity(downloads, 1)),
        };
        let result = check(&answers, &app_at(APP), Some(&identity(APP, 1)), &record);
        assert_eq!(
            result.problems,
            vec![Problem::AccessibilityStale {
                granted_path: PathBuf::from(downloads),
                moved: true
            }]
        );
        let (summary, body) = result.problems[0].text(UiLang::En);
        assert_eq!(summary, "Accessibility permission is stale");
        assert!(
            body.contains(downloads) && body.contains("remove it (−)"),
            "{body}"
        );

        // The same copy lost its grant (turned off by the user): plainly missing.
        let record = GrantRecord {
            accessibility_granted_to: Some(identity(APP, 1)),
        };
        let result = check(&answers, &app_at(APP), Some(&identity(APP, 1)), &record);
        assert_eq!(result.problems, vec![Problem::AccessibilityMissing]);

        // Granted again after the fix: the record follows this copy.
        let fixed = check(
            &observed(MicrophoneAccess::Granted, true),
            &app_at(APP),
            Some(&identity(APP, 2)),
            &record,
        );
        assert!(fixed.problems.is_empty());
        assert_eq!(
            fixed.record.accessibility_granted_to,
            Some(identity(APP, 2))
        );
    }

    #[test]
    fn a_translocated_copy_is_told_to_move_first() {
        let translocated =
            app_at("/private/var/folders/ab/T/AppTranslocation/12AB/d/Whisper Dictation.app");
        let result = check(
            &observed(MicrophoneAccess::Granted, false),
            &translocated,
            None,
            &GrantRecord::default(),
        );
        assert_eq!(
            result.problems,
            vec![Problem::Translocated, Problem::AccessibilityMissing]
        );
        assert_eq!(Problem::Translocated.pane(), None);
        assert!(menu_label(&result.problems, UiLang::En).contains("move the app"));
    }

    #[test]
    fn changes_report_new_problems_once_and_solved_permissions() {
        let missing = vec![Problem::AccessibilityMissing];
        let stale = vec![Problem::AccessibilityStale {
            granted_path: PathBuf::from(APP),
            moved: false,
        }];
        assert_eq!(changes(&[], &missing).new, missing);
        assert_eq!(changes(&missing, &missing), Changes::default());
        assert_eq!(
            changes(&stale, &missing),
            Changes::default(),
            "same permission"
        );
        let solved = changes(&missing, &[]);
        assert_eq!(solved.solved, vec![Permission::Accessibility]);
        assert!(solved.new.is_empty());
        let both = changes(
            &[Problem::MicrophoneDenied, Problem::AccessibilityMissing],
            &[Problem::AccessibilityMissing],
        );
        assert_eq!(both.solved, vec![Permission::Microphone]);
        assert!(solved_text(Permission::Accessibility, UiLang::Pl).is_some());
        assert!(solved_text(Permission::Location, UiLang::En).is_none());
    }

    #[test]
    fn every_problem_says_what_to_do_in_both_languages() {
        let all = [
            Problem::MicrophoneDenied,
            Problem::MicrophoneRestricted,
            Problem::AccessibilityMissing,
            Problem::AccessibilityStale {
                granted_path: PathBuf::from("/Users/ala/Downloads/Whisper Dictation.app"),
                moved: true,
            },
            Problem::AccessibilityStale {
                granted_path: PathBuf::from(APP),
                moved: false,
            },
            Problem::Translocated,
            Problem::Wayland,
        ];
        for problem in &all {
            let (pl_summary, pl_body) = problem.text(UiLang::Pl);
            let (en_summary, en_body) = problem.text(UiLang::En);
            assert_ne!(pl_summary, en_summary);
            assert!(
                pl_body.chars().any(|c| "ąćęłńóśźż".contains(c)),
                "{pl_body}"
            );
            assert!(
                !en_body.chars().any(|c| "ąćęłńóśźż".contains(c)),
                "{en_body}"
            );
            // Where a pane exists, the text names the path to it in System Settings.
            match problem.permission() {
                Permission::Microphone if *problem == Problem::MicrophoneDenied => {
                    assert!(en_body.contains("Privacy & Security → Microphone"));
                    assert!(pl_body.contains("Prywatność i ochrona → Mikrofon"));
                }
                Permission::Accessibility => {
                    assert!(en_body.contains("Privacy & Security → Accessibility"));
                    assert!(pl_body.contains("Prywatność i ochrona → Dostępność"));
                }
                _ => {}
            }
        }
        for lang in [UiLang::Pl, UiLang::En] {
            for problems in [&all[..0], &all[..1], &all[2..3], &all[5..]] {
                assert_eq!(menu_label(problems, lang).matches('&').count(), 1);
            }
        }
    }

    #[test]
    fn av_statuses_map_to_access() {
        assert_eq!(
            MicrophoneAccess::from_av_status(0),
            Some(MicrophoneAccess::NotAsked)
        );
        assert_eq!(
            MicrophoneAccess::from_av_status(1),
            Some(MicrophoneAccess::Restricted)
        );
        assert_eq!(
            MicrophoneAccess::from_av_status(2),
            Some(MicrophoneAccess::Denied)
        );
        assert_eq!(
            MicrophoneAccess::from_av_status(3),
            Some(MicrophoneAccess::Granted)
        );
        assert_eq!(MicrophoneAccess::from_av_status(7), None);
    }

    #[test]
    fn the_watch_remembers_the_grant_across_runs_and_reports_changes() {
        let state = tempfile::tempdir().unwrap();
        let apps = tempfile::tempdir().unwrap();
        let exe_dir = apps.path().join("Whisper Dictation.app/Contents/MacOS");
        std::fs::create_dir_all(&exe_dir).unwrap();
        let exe = exe_dir.join("whisper-dictation");
        std::fs::write(&exe, b"build 1").unwrap();
        let location = Location::of(&exe);

        // First run: granted; the record is written.
        let mut watch = PermissionWatch::new(state.path().to_path_buf(), Some(location.clone()));
        let granted = observed(MicrophoneAccess::Granted, true);
        assert_eq!(watch.update(&granted), Changes::default());
        assert!(!watch.wants_recheck());
        let saved = GrantRecord::load(state.path());
        assert_eq!(
            saved
                .accessibility_granted_to
                .as_ref()
                .map(|i| i.path.clone()),
            location.bundle.clone()
        );

        // Rebuilt (another size), next run: macOS no longer trusts it → stale, re-checked.
        std::fs::write(&exe, b"build 2, longer").unwrap();
        let mut watch = PermissionWatch::new(state.path().to_path_buf(), Some(location.clone()));
        let lost = observed(MicrophoneAccess::Granted, false);
        let changes = watch.update(&lost);
        assert!(matches!(
            changes.new.as_slice(),
            [Problem::AccessibilityStale { moved: false, .. }]
        ));
        assert!(watch.wants_recheck());
        assert!(watch.update(&lost).new.is_empty(), "told once");
        assert!(watch.applies());

        // The user re-adds it: solved, without a restart; the record now names this build.
        let changes = watch.update(&granted);
        assert_eq!(changes.solved, vec![Permission::Accessibility]);
        assert!(watch.problems().is_empty());
        let saved = GrantRecord::load(state.path());
        assert_eq!(saved.accessibility_granted_to.unwrap().size, 15);

        // A damaged record is only a lost hint.
        std::fs::write(state.path().join(RECORD_FILE), b"{not json").unwrap();
        assert_eq!(GrantRecord::load(state.path()), GrantRecord::default());
    }
}
