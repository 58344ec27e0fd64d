//! What sends the keystrokes of a delivery (the paste keystroke, typed text, the key after):
//! enigo on X11 and macOS (XTest, CGEvent), the virtual keyboard on a Wayland session
//! (`platform::VirtualKeyboard`, zwp_virtual_keyboard_v1). Chosen once, when the injector first
//! creates its sender ([`SenderKind::for_session`]), and logged.
//!
//! A Wayland session whose compositor offers no virtual keyboard (GNOME) gets the desktop
//! portal's RemoteDesktop keyboard (`platform::portal::RemoteKeyboard`) where the portal offers
//! it: the desktop asks the person once, and the token it gives back (kept in the state folder,
//! [`REMOTE_DESKTOP_TOKEN`]) spares the question at the next starts. Where neither exists there
//! is no sender at all: enigo's XTest keys would reach only the X11 apps under XWayland, and in
//! every native app they would silently do nothing while the clipboard is put back, losing the
//! text. There paste and type only copy, and the person is told why
//! (`NotPasted::NoKeystrokesOnWayland`).

use crate::platform::portal::{PortalBus, RemoteKeyboard};
use crate::platform::{
    keysyms, send_key_after, send_paste_shortcut, PasteKeys, PressAfter, VirtualKeyboard, IS_MACOS,
};
use enigo::{Enigo, Keyboard};

/// The state folder's file holding the RemoteDesktop portal's restore token (owner-only).
pub const REMOTE_DESKTOP_TOKEN: &str = "remote-desktop.token";

/// Which sender a session gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SenderKind {
    /// enigo: X11 (XTest) and macOS.
    Enigo,
    /// The Wayland virtual keyboard; nothing when the compositor does not offer it.
    VirtualKeyboard,
}

impl SenderKind {
    /// From `WAYLAND_DISPLAY`: set (and not empty) means a Wayland session, where the app's
    /// clipboard is the Wayland one too (arboard's data-control backend).
    pub fn for_session(wayland_display: Option<&str>) -> SenderKind {
        if wayland_display.is_some_and(|d| !d.trim().is_empty()) {
            SenderKind::VirtualKeyboard
        } else {
            SenderKind::Enigo
        }
    }

    /// This process's session.
    pub fn current() -> SenderKind {
        let display = std::env::var_os("WAYLAND_DISPLAY");
        SenderKind::for_session(display.as_deref().and_then(|d| d.to_str()).or(
            // A name that is not UTF-8 is still a display.
            display.as_ref().map(|_| "?"),
        ))
    }

    /// The name logged (`sender = …`).
    pub fn name(self) -> &'static str {
        match self {
            SenderKind::Enigo => "enigo",
            SenderKind::VirtualKeyboard => "wayland-virtual-keyboard",
        }
    }
}

/// The keystroke sender.
pub enum Sender {
    /// Boxed: about 1 KB, against the virtual keyboard's 120 bytes.
    Enigo(Box<Enigo>),
    VirtualKeyboard(VirtualKeyboard),
    /// The RemoteDesktop portal's keyboard (GNOME), boxed like enigo.
    RemoteDesktop(Box<RemoteKeyboard>),
}

impl Sender {
    /// Creates the sender of `kind` and logs which it is; `Err` says why there is none (the
    /// caller, `KeyboardSlot`, logs it). `settings`: enigo's.
    pub fn create(kind: SenderKind, settings: &enigo::Settings) -> Result<Sender, String> {
        let sender = match kind {
            SenderKind::Enigo => Enigo::new(settings)
                .map(|enigo| Sender::Enigo(Box::new(enigo)))
                .map_err(|e| e.to_string())?,
            SenderKind::VirtualKeyboard => match VirtualKeyboard::new() {
                Ok(keyboard) => Sender::VirtualKeyboard(keyboard),
                Err(no_keyboard) => remote_keyboard()
                    .map(|keyboard| Sender::RemoteDesktop(Box::new(keyboard)))
                    .map_err(|no_portal| {
                        format!(
                            "a Wayland session without a virtual keyboard ({no_keyboard}) or the \
                             RemoteDesktop portal ({no_portal}); no enigo either"
                        )
                    })?,
            },
        };
        let name = match sender {
            Sender::RemoteDesktop(_) => "remote-desktop-portal",
            _ => kind.name(),
        };
        tracing::info!(sender = name, "keystroke sender created");
        Ok(sender)
    }

    /// Sends the paste keystroke `keys`; one of the other OS is sent as this OS's own paste.
    /// `v_key`: macOS's key code of "v" (`paste_key`), unused elsewhere.
    pub fn paste(&mut self, v_key: u16, keys: PasteKeys) -> Result<(), String> {
        match self {
            Sender::Enigo(enigo) => {
                send_paste_shortcut(enigo, v_key, keys).map_err(|e| e.to_string())
            }
            Sender::VirtualKeyboard(keyboard) => keyboard
                .press_chord(&keysyms::paste_chord(wayland_paste_keys(keys)))
                .map_err(|e| e.to_string()),
            Sender::RemoteDesktop(keyboard) => keyboard
                .press_chord(&keysyms::paste_chord(wayland_paste_keys(keys)))
                .map_err(|e| e.to_string()),
        }
    }

    /// Presses the key after the text (nothing for [`PressAfter::Nothing`]).
    pub fn key_after(&mut self, after: PressAfter) -> Result<(), String> {
        match self {
            Sender::Enigo(enigo) => send_key_after(enigo, after).map_err(|e| e.to_string()),
            Sender::VirtualKeyboard(keyboard) => keyboard
                .press_chord(&keysyms::after_chord(after))
                .map_err(|e| e.to_string()),
            Sender::RemoteDesktop(keyboard) => keyboard
                .press_chord(&keysyms::after_chord(after))
                .map_err(|e| e.to_string()),
        }
    }

    /// Types `text` key by key.
    pub fn text(&mut self, text: &str) -> Result<(), String> {
        match self {
            Sender::Enigo(enigo) => enigo.text(text).map_err(|e| e.to_string()),
            Sender::VirtualKeyboard(keyboard) => {
                keyboard.type_text(text).map_err(|e| e.to_string())
            }
            Sender::RemoteDesktop(keyboard) => {
                let keysyms: Vec<u32> = text.chars().filter_map(keysyms::char_keysym).collect();
                keyboard.type_keysyms(&keysyms).map_err(|e| e.to_string())
            }
        }
    }
}

/// The paste keystroke sent through keysyms: one of the other OS becomes this OS's own.
fn wayland_paste_keys(keys: PasteKeys) -> PasteKeys {
    if keys.on(IS_MACOS) {
        keys
    } else {
        PasteKeys::system(IS_MACOS)
    }
}

/// The RemoteDesktop portal's keyboard, started with the token kept from the last start (the
/// desktop asks the person when there is none, or it was revoked: this blocks until they
/// answer, on the output thread); the new token is kept for the next start.
fn remote_keyboard() -> Result<RemoteKeyboard, String> {
    let bus = PortalBus::session().map_err(|e| e.to_string())?;
    if !bus.offers_remote_desktop() {
        return Err("the desktop offers no RemoteDesktop portal".into());
    }
    let token_file = crate::paths::state_dir()
        .ok()
        .map(|dir| dir.join(REMOTE_DESKTOP_TOKEN));
    let token = token_file
        .as_ref()
        .and_then(|file| std::fs::read_to_string(file).ok())
        .map(|token| token.trim().to_string())
        .filter(|token| !token.is_empty());
    let keyboard = RemoteKeyboard::start(&bus, token.as_deref()).map_err(|e| e.to_string())?;
    if let (Some(file), Some(new)) = (token_file, keyboard.restore_token()) {
        if token.as_deref() != Some(new) {
            if let Err(e) = crate::atomic_file::write(&file, new.as_bytes()) {
                tracing::warn!(
                    "the RemoteDesktop portal's token is not kept (the desktop will ask again \
                     at the next start): {}: {e}",
                    file.display()
                );
            }
        }
    }
    Ok(keyboard)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wayland_display_means_the_virtual_keyboard() {
        assert_eq!(
            SenderKind::for_session(Some("wayland-1")),
            SenderKind::VirtualKeyboard
        );
        // X11 (and macOS): no WAYLAND_DISPLAY, or an empty one.
        assert_eq!(SenderKind::for_session(None), SenderKind::Enigo);
        assert_eq!(SenderKind::for_session(Some("")), SenderKind::Enigo);
        assert_eq!(SenderKind::for_session(Some(" ")), SenderKind::Enigo);
        assert_eq!(
            SenderKind::VirtualKeyboard.name(),
            "wayland-virtual-keyboard"
        );
    }
}
