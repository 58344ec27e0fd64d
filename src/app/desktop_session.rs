//! Which desktop session the app runs in and what works there: found once at start from the
//! environment (`XDG_SESSION_TYPE`, `DISPLAY`, `WAYLAND_DISPLAY`, `XDG_CURRENT_DESKTOP`,
//! `GDK_BACKEND`), the Wayland compositor's globals and the desktop portal's interfaces; logged
//! in one line and said in the menu under the status (on Wayland, where it is news).
//!
//! The decisions mirror what each part does on its own (the injector picks the virtual
//! keyboard when the compositor offers it, the overlay the layer shell, the hotkey the portal
//! or the X11 grab); this module only puts them in one place for the person and the log.

use crate::i18n::UiLang;

/// What the app reads of the session at start.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionFacts {
    /// `XDG_SESSION_TYPE` ("x11", "wayland", "tty").
    pub session_type: Option<String>,
    /// `DISPLAY` is set: an X server (or XWayland) is there.
    pub x_display: bool,
    /// `WAYLAND_DISPLAY` is set.
    pub wayland_display: bool,
    /// `XDG_CURRENT_DESKTOP` ("GNOME", "KDE", "sway", "Hyprland"), for the log and the line.
    pub desktop: Option<String>,
    /// `GDK_BACKEND` forces GTK (and so the app's own windows) onto X11.
    pub gdk_forced_x11: bool,
    /// The compositor's global interfaces; `None` when there was no compositor to ask.
    pub wayland_globals: Option<Vec<String>>,
    /// The desktop portal offers `org.freedesktop.portal.GlobalShortcuts`.
    pub portal_shortcuts: bool,
    /// The desktop portal offers `org.freedesktop.portal.RemoteDesktop`.
    pub portal_remote_desktop: bool,
}

impl SessionFacts {
    /// The facts of this process's session; the Wayland and portal queries only on Linux
    /// with a Wayland display (elsewhere they answer nothing).
    pub fn read() -> SessionFacts {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        let wayland_display = var("WAYLAND_DISPLAY").is_some();
        let wayland_globals = if wayland_display {
            match crate::platform::wayland_globals() {
                Ok(names) => Some(names),
                Err(e) => {
                    tracing::warn!("the Wayland compositor could not be asked what it offers: {e}");
                    None
                }
            }
        } else {
            None
        };
        // Asked only on Wayland: on X11 the grab is the hotkey and XTest the keys.
        let (portal_shortcuts, portal_remote_desktop) = if wayland_display {
            crate::platform::portal_offers()
        } else {
            (false, false)
        };
        SessionFacts {
            session_type: var("XDG_SESSION_TYPE"),
            x_display: var("DISPLAY").is_some(),
            wayland_display,
            desktop: var("XDG_CURRENT_DESKTOP"),
            gdk_forced_x11: var("GDK_BACKEND").is_some_and(|b| b.trim() == "x11"),
            wayland_globals,
            portal_shortcuts,
            portal_remote_desktop,
        }
    }

    fn offers(&self, interface: &str) -> bool {
        self.wayland_globals
            .as_ref()
            .is_some_and(|names| names.iter().any(|n| n == interface))
    }
}

/// The kind of session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionKind {
    /// X11, or no desktop session variables at all (macOS reads as this too: nothing to say).
    X11,
    /// Wayland; `xwayland`: X11 apps run too (DISPLAY is set).
    Wayland { xwayland: bool },
}

/// How dictation is started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HotkeyWay {
    /// The app's own global hotkey (X11 key grab, macOS Carbon hotkey).
    Grab,
    /// The desktop portal's global shortcut (KDE Plasma, GNOME 48+, Hyprland).
    Portal,
    /// Wayland with XWayland, no portal: the app's X11 grab hears the hotkey only while an X11
    /// app has the focus; the desktop's own key binding to `whisper-dictation-trigger` works
    /// everywhere.
    XWaylandOnly,
    /// Wayland without X11 and without the portal: only the desktop's key binding.
    BindingOnly,
}

/// How the text gets into the focused app.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeysWay {
    /// Synthesized keystrokes (X11's XTest, macOS's CGEvent).
    Synthesized,
    /// Wayland's virtual-keyboard protocol (wlroots compositors, KDE).
    VirtualKeyboard,
    /// The desktop portal's RemoteDesktop keyboard (GNOME; asks the person once).
    RemoteDesktopPortal,
    /// No way to send keys: the text is left on the clipboard.
    CopyOnly,
}

/// Where the overlay shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OverlayWay {
    /// An always-on-top window (X11 override-redirect, macOS panel).
    Window,
    /// A layer-shell surface above every window (wlroots compositors, KDE).
    LayerShell,
    /// None: the compositor has no layer shell (GNOME).
    Nothing,
}

/// What works in this session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionPlan {
    pub kind: SessionKind,
    pub desktop: Option<String>,
    pub hotkey: HotkeyWay,
    pub keys: KeysWay,
    pub overlay: OverlayWay,
}

/// The compositor's virtual keyboard (what the injector uses on Wayland).
pub const VIRTUAL_KEYBOARD: &str = "zwp_virtual_keyboard_manager_v1";
/// The compositor's layer shell (what the overlay uses on Wayland).
pub const LAYER_SHELL: &str = "zwlr_layer_shell_v1";

/// What works, from the facts.
pub fn plan(facts: &SessionFacts) -> SessionPlan {
    let wayland = facts.wayland_display
        || facts
            .session_type
            .as_deref()
            .is_some_and(|t| t.eq_ignore_ascii_case("wayland"));
    if !wayland {
        return SessionPlan {
            kind: SessionKind::X11,
            desktop: facts.desktop.clone(),
            hotkey: HotkeyWay::Grab,
            keys: KeysWay::Synthesized,
            overlay: OverlayWay::Window,
        };
    }
    let hotkey = if facts.portal_shortcuts {
        HotkeyWay::Portal
    } else if facts.x_display {
        HotkeyWay::XWaylandOnly
    } else {
        HotkeyWay::BindingOnly
    };
    let keys = if facts.offers(VIRTUAL_KEYBOARD) {
        KeysWay::VirtualKeyboard
    } else if facts.portal_remote_desktop {
        KeysWay::RemoteDesktopPortal
    } else {
        KeysWay::CopyOnly
    };
    let overlay = if facts.x_display && (facts.gdk_forced_x11 || !facts.wayland_display) {
        // The app's windows are X11 ones (XWayland; GTK forced there, or no Wayland display
        // to run on): the override-redirect window shows.
        OverlayWay::Window
    } else if facts.offers(LAYER_SHELL) {
        OverlayWay::LayerShell
    } else {
        OverlayWay::Nothing
    };
    SessionPlan {
        kind: SessionKind::Wayland {
            xwayland: facts.x_display,
        },
        desktop: facts.desktop.clone(),
        hotkey,
        keys,
        overlay,
    }
}

impl SessionPlan {
    /// Short machine-readable names for the log: (session, hotkey, keys, overlay).
    pub fn names(&self) -> (&'static str, &'static str, &'static str, &'static str) {
        let session = match self.kind {
            SessionKind::X11 => "x11",
            SessionKind::Wayland { xwayland: true } => "wayland+xwayland",
            SessionKind::Wayland { xwayland: false } => "wayland",
        };
        let hotkey = match self.hotkey {
            HotkeyWay::Grab => "grab",
            HotkeyWay::Portal => "portal",
            HotkeyWay::XWaylandOnly => "xwayland-grab",
            HotkeyWay::BindingOnly => "desktop-binding",
        };
        let keys = match self.keys {
            KeysWay::Synthesized => "synthesized",
            KeysWay::VirtualKeyboard => "virtual-keyboard",
            KeysWay::RemoteDesktopPortal => "remote-desktop-portal",
            KeysWay::CopyOnly => "copy-only",
        };
        let overlay = match self.overlay {
            OverlayWay::Window => "window",
            OverlayWay::LayerShell => "layer-shell",
            OverlayWay::Nothing => "none",
        };
        (session, hotkey, keys, overlay)
    }

    /// The line under the status in the menu: what works here, or `None` where everything
    /// does as on X11 and macOS (nothing to tell).
    pub fn line(&self, lang: UiLang) -> Option<String> {
        let SessionKind::Wayland { .. } = self.kind else {
            return None;
        };
        let desktop = self
            .desktop
            .as_deref()
            .map(|d| format!(" ({})", d.split(':').next().unwrap_or(d)))
            .unwrap_or_default();
        let hotkey = match (self.hotkey, lang) {
            (HotkeyWay::Grab | HotkeyWay::Portal, UiLang::En) => "hotkey from the desktop",
            (HotkeyWay::Grab | HotkeyWay::Portal, UiLang::Pl) => "skrót z pulpitu",
            (HotkeyWay::XWaylandOnly, UiLang::En) => {
                "hotkey only in X11 apps (bind whisper-dictation-trigger)"
            }
            (HotkeyWay::XWaylandOnly, UiLang::Pl) => {
                "skrót tylko w aplikacjach X11 (przypisz whisper-dictation-trigger)"
            }
            (HotkeyWay::BindingOnly, UiLang::En) => "hotkey: bind whisper-dictation-trigger",
            (HotkeyWay::BindingOnly, UiLang::Pl) => "skrót: przypisz whisper-dictation-trigger",
        };
        let keys = match (self.keys, lang) {
            (KeysWay::Synthesized | KeysWay::VirtualKeyboard, UiLang::En) => "pastes",
            (KeysWay::Synthesized | KeysWay::VirtualKeyboard, UiLang::Pl) => "wkleja",
            (KeysWay::RemoteDesktopPortal, UiLang::En) => "pastes (with your consent)",
            (KeysWay::RemoteDesktopPortal, UiLang::Pl) => "wkleja (za Twoją zgodą)",
            (KeysWay::CopyOnly, UiLang::En) => "copies only (paste with Ctrl+V)",
            (KeysWay::CopyOnly, UiLang::Pl) => "tylko kopiuje (wklej Ctrl+V)",
        };
        let overlay = match (self.overlay, lang) {
            (OverlayWay::Window | OverlayWay::LayerShell, UiLang::En) => "overlay on",
            (OverlayWay::Window | OverlayWay::LayerShell, UiLang::Pl) => "nakładka działa",
            (OverlayWay::Nothing, UiLang::En) => "no overlay here",
            (OverlayWay::Nothing, UiLang::Pl) => "bez nakładki",
        };
        Some(format!("Wayland{desktop}: {hotkey} · {keys} · {overlay}"))
    }

    /// What the Settings page says under the hotkey on Wayland: the shortcut the desktop
    /// granted through the portal (`granted`, as the desktop describes it), that it has not
    /// yet, or that the key above is heard only in X11 apps or not at all and how to bind the
    /// trigger. `None` on X11 and macOS, where the key above is the hotkey.
    pub fn hotkey_note(&self, granted: Option<&str>, lang: UiLang) -> Option<String> {
        let SessionKind::Wayland { .. } = self.kind else {
            return None;
        };
        let en = lang == UiLang::En;
        Some(match (self.hotkey, granted) {
            (HotkeyWay::Portal, Some(granted)) if en => format!(
                "This desktop's shortcut for dictation: {granted}. Change it in the desktop's \
                 keyboard settings (it decides; the key above was only proposed)."
            ),
            (HotkeyWay::Portal, Some(granted)) => format!(
                "Skrót dyktowania w tym pulpicie: {granted}. Zmienisz go w ustawieniach \
                 klawiatury pulpitu (to on decyduje; klawisz powyżej był tylko propozycją)."
            ),
            (HotkeyWay::Portal, None) if en => "The desktop has not bound a shortcut for \
                dictation yet: it asks you once, in its own dialog."
                .into(),
            (HotkeyWay::Portal, None) => "Pulpit nie przypisał jeszcze skrótu dyktowania: \
                zapyta o to raz, we własnym oknie."
                .into(),
            (HotkeyWay::XWaylandOnly, _) if en => "On Wayland the key above is heard only \
                while an X11 app has the focus. For every app, bind \
                \"whisper-dictation-trigger toggle\" in the desktop's keyboard shortcuts \
                (README, \"Wayland\")."
                .into(),
            (HotkeyWay::XWaylandOnly, _) => "Na Waylandzie klawisz powyżej działa tylko, gdy \
                aktywna jest aplikacja X11. Dla wszystkich aplikacji przypisz \
                „whisper-dictation-trigger toggle” w skrótach klawiszowych pulpitu (README, \
                „Wayland”)."
                .into(),
            (HotkeyWay::BindingOnly | HotkeyWay::Grab, _) if en => "This Wayland desktop \
                lets no app hear keys: the key above does nothing here. Bind \
                \"whisper-dictation-trigger start\" to a key's press and \"… stop\" to its \
                release in the desktop's configuration (README, \"Wayland\")."
                .into(),
            (HotkeyWay::BindingOnly | HotkeyWay::Grab, _) => "Ten pulpit Wayland nie daje \
                aplikacjom słyszeć klawiszy: klawisz powyżej nic tu nie robi. Przypisz \
                „whisper-dictation-trigger start” do naciśnięcia klawisza i „… stop” do \
                puszczenia w konfiguracji pulpitu (README, „Wayland”)."
                .into(),
        })
    }

    /// Whether the app's own hotkey listener (an X11 grab) should be started: not on Wayland
    /// without X11 (nothing to grab), and not where the portal's shortcut is the hotkey (both
    /// could hear one press, and in toggle mode the second would stop what the first started).
    pub fn grabs_keys(&self) -> bool {
        matches!(self.hotkey, HotkeyWay::Grab | HotkeyWay::XWaylandOnly)
    }

    /// Whether the person must bind the trigger in the desktop for a hotkey that works in
    /// every app (Wayland without the portal's shortcuts): the notice says how, once.
    pub fn hotkey_needs_binding(&self) -> bool {
        matches!(
            self.hotkey,
            HotkeyWay::XWaylandOnly | HotkeyWay::BindingOnly
        )
    }

    /// Logs what was found, once at start.
    pub fn log(&self, facts: &SessionFacts) {
        let (session, hotkey, keys, overlay) = self.names();
        tracing::info!(
            session,
            desktop = facts.desktop.as_deref().unwrap_or("-"),
            hotkey,
            keys,
            overlay,
            compositor_globals = facts.wayland_globals.as_ref().map_or(0, Vec::len),
            portal_shortcuts = facts.portal_shortcuts,
            portal_remote_desktop = facts.portal_remote_desktop,
            "desktop session"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wayland(globals: &[&str]) -> SessionFacts {
        SessionFacts {
            session_type: Some("wayland".into()),
            wayland_display: true,
            wayland_globals: Some(globals.iter().map(|g| g.to_string()).collect()),
            ..SessionFacts::default()
        }
    }

    #[test]
    fn x11_and_macos_have_nothing_to_say() {
        let facts = SessionFacts {
            session_type: Some("x11".into()),
            x_display: true,
            ..SessionFacts::default()
        };
        let plan = plan(&facts);
        assert_eq!(plan.kind, SessionKind::X11);
        assert_eq!(plan.names(), ("x11", "grab", "synthesized", "window"));
        assert_eq!(plan.line(UiLang::En), None);
        assert!(plan.grabs_keys());
        // No variables at all (macOS): the same.
        assert_eq!(super::plan(&SessionFacts::default()).line(UiLang::Pl), None);
    }

    #[test]
    fn sway_pastes_by_virtual_keyboard_with_the_layer_overlay_and_the_desktop_binding() {
        let mut facts = wayland(&[VIRTUAL_KEYBOARD, LAYER_SHELL, "wl_seat"]);
        facts.desktop = Some("sway".into());
        let plan = plan(&facts);
        assert_eq!(
            plan.names(),
            (
                "wayland",
                "desktop-binding",
                "virtual-keyboard",
                "layer-shell"
            )
        );
        assert!(!plan.grabs_keys(), "no X display to grab keys from");
        assert_eq!(
            plan.line(UiLang::En).unwrap(),
            "Wayland (sway): hotkey: bind whisper-dictation-trigger · pastes · overlay on"
        );
        assert_eq!(
            plan.line(UiLang::Pl).unwrap(),
            "Wayland (sway): skrót: przypisz whisper-dictation-trigger · wkleja · nakładka działa"
        );
    }

    #[test]
    fn gnome_uses_the_portals_and_has_no_overlay() {
        let mut facts = wayland(&["wl_seat", "xdg_wm_base"]);
        facts.x_display = true;
        facts.desktop = Some("ubuntu:GNOME".into());
        facts.portal_shortcuts = true;
        facts.portal_remote_desktop = true;
        let plan = plan(&facts);
        assert_eq!(
            plan.names(),
            (
                "wayland+xwayland",
                "portal",
                "remote-desktop-portal",
                "none"
            )
        );
        let line = plan.line(UiLang::En).unwrap();
        assert!(
            line.starts_with("Wayland (ubuntu): hotkey from the desktop"),
            "{line}"
        );
        assert!(line.contains("no overlay here"), "{line}");
        assert!(
            !plan.grabs_keys(),
            "the portal's shortcut alone: never two presses for one"
        );
    }

    #[test]
    fn without_any_way_to_send_keys_it_copies_and_says_so() {
        let mut facts = wayland(&["wl_seat"]);
        facts.x_display = true;
        let plan = plan(&facts);
        assert_eq!(plan.keys, KeysWay::CopyOnly);
        assert_eq!(plan.hotkey, HotkeyWay::XWaylandOnly);
        let line = plan.line(UiLang::Pl).unwrap();
        assert!(line.contains("tylko kopiuje (wklej Ctrl+V)"), "{line}");
        assert!(line.contains("skrót tylko w aplikacjach X11"), "{line}");
        assert!(plan.grabs_keys(), "X11 apps still hear the grab");
    }

    #[test]
    fn the_settings_page_names_the_desktops_shortcut_or_how_to_bind_one() {
        let mut facts = wayland(&[]);
        facts.portal_shortcuts = true;
        let portal = plan(&facts);
        let note = portal.hotkey_note(Some("Ctrl+Alt+D"), UiLang::En).unwrap();
        assert!(
            note.contains("shortcut for dictation: Ctrl+Alt+D."),
            "{note}"
        );
        let note = portal.hotkey_note(Some("Ctrl+Alt+D"), UiLang::Pl).unwrap();
        assert!(
            note.contains("Skrót dyktowania w tym pulpicie: Ctrl+Alt+D."),
            "{note}"
        );
        assert!(portal
            .hotkey_note(None, UiLang::En)
            .unwrap()
            .contains("not bound"));
        let sway = plan(&wayland(&[VIRTUAL_KEYBOARD]));
        let note = sway.hotkey_note(None, UiLang::En).unwrap();
        assert!(
            note.contains("\"whisper-dictation-trigger start\""),
            "{note}"
        );
        let x11 = plan(&SessionFacts {
            x_display: true,
            ..SessionFacts::default()
        });
        assert_eq!(x11.hotkey_note(Some("F9"), UiLang::En), None);
    }

    #[test]
    fn gtk_forced_onto_xwayland_keeps_the_x11_overlay_window() {
        let mut facts = wayland(&[LAYER_SHELL]);
        facts.x_display = true;
        facts.gdk_forced_x11 = true;
        assert_eq!(plan(&facts).overlay, OverlayWay::Window);
    }

    #[test]
    fn a_compositor_that_could_not_be_asked_offers_nothing() {
        let facts = SessionFacts {
            wayland_display: true,
            wayland_globals: None,
            ..SessionFacts::default()
        };
        let plan = plan(&facts);
        assert_eq!(plan.keys, KeysWay::CopyOnly);
        assert_eq!(plan.overlay, OverlayWay::Nothing);
    }
}
