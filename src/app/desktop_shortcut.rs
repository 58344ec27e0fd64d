//! The hotkey through the desktop's GlobalShortcuts portal (`platform::portal`), for Wayland
//! sessions, where the X11 grab (`platform::HotkeyListener`) hears the keys only while an
//! XWayland window has the focus. Owns the portal shortcut: bound on a thread of its own at
//! start (the desktop may ask the person in a dialog, for as long as they leave it open), then
//! kept by [`DesktopShortcut`] until the app drops it, which closes the portal session.
//!
//! The settings' hotkey is only proposed: the desktop keeps the key the person chose in its own
//! dialog and settings, and reports it ([`DesktopShortcut::granted_trigger`]). Its presses and
//! releases reach the same callback as the X11 listener's, so hold-to-talk and toggle work
//! unchanged.

use crate::platform::portal::{PortalBus, PortalShortcut};
use global_hotkey::HotKeyState;
use std::sync::{Arc, Mutex};

/// The shortcut's name in the desktop's dialog and settings.
const DESCRIPTION: &str = "Dictate (whisper-dictation)";

/// The desktop's shortcut for dictation: empty until (and unless) the desktop binds it.
pub(crate) struct DesktopShortcut {
    bound: Arc<Mutex<Option<PortalShortcut>>>,
}

impl DesktopShortcut {
    /// The key the desktop bound, as it describes it ("Ctrl+Alt+Space"); `None` before the
    /// binding, without one, or when the desktop did not say.
    pub(crate) fn granted_trigger(&self) -> Option<String> {
        let bound = self.bound.lock().unwrap_or_else(|p| p.into_inner());
        bound.as_ref().and_then(PortalShortcut::granted_trigger)
    }
}

/// Binds the dictation shortcut through the desktop portal when the desktop offers
/// GlobalShortcuts, proposing `hotkey` (the settings' text, "ctrl+alt+space"); its key edges go
/// to `on_event` (the same callback as `HotkeyListener::new`'s). Returns at once: the portal is
/// asked on a thread named "desktop-shortcut", and what happened is logged ("hotkey: desktop
/// portal shortcut bound", or why not). Keep the returned value as long as the shortcut should
/// work.
pub(crate) fn bind_in_background(
    hotkey: &str,
    on_event: impl Fn(HotKeyState) + Send + Sync + 'static,
) -> DesktopShortcut {
    let bound = Arc::new(Mutex::new(None));
    let shortcut = DesktopShortcut {
        bound: bound.clone(),
    };
    let hotkey = hotkey.to_string();
    let spawned = std::thread::Builder::new()
        .name("desktop-shortcut".into())
        .spawn(move || {
            if let Some(portal_shortcut) = bind(&hotkey, on_event) {
                *bound.lock().unwrap_or_else(|p| p.into_inner()) = Some(portal_shortcut);
            }
        });
    if let Err(e) = spawned {
        tracing::warn!("hotkey: no desktop portal shortcut (no thread to bind it on: {e})");
    }
    shortcut
}

/// The binding, logged: the shortcut, or `None` with the reason logged.
fn bind(
    hotkey: &str,
    on_event: impl Fn(HotKeyState) + Send + Sync + 'static,
) -> Option<PortalShortcut> {
    let bus = match PortalBus::session() {
        Ok(bus) => bus,
        Err(e) => {
            tracing::info!("hotkey: no desktop portal shortcut ({e})");
            return None;
        }
    };
    if !bus.offers_global_shortcuts() {
        tracing::info!(
            "hotkey: no desktop portal shortcut (the desktop offers no GlobalShortcuts portal)"
        );
        return None;
    }
    let preferred = crate::platform::xdg_shortcut_trigger(hotkey).unwrap_or_else(|| {
        tracing::info!(
            hotkey,
            "hotkey: no portal trigger for this hotkey; the desktop lets the person choose"
        );
        String::new()
    });
    match PortalShortcut::bind(&bus, &preferred, DESCRIPTION, on_event) {
        Ok(shortcut) => {
            let granted = shortcut.granted_trigger();
            tracing::info!(
                trigger = granted.as_deref().unwrap_or("not chosen yet"),
                preferred = preferred.as_str(),
                "hotkey: desktop portal shortcut bound"
            );
            Some(shortcut)
        }
        Err(e) => {
            tracing::info!("hotkey: desktop portal shortcut not bound: {e}");
            None
        }
    }
}
