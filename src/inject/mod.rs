//! Putting text into the app that has focus: paste (clipboard + the paste shortcut, then the
//! user's previous clipboard put back), type it key by key, or only copy it.
//!
//! One [`Injector`] lives for the app's lifetime on its own thread: on X11 the clipboard's owner
//! must stay alive to serve the text, and the waits below must never block the event loop.
//! Before any synthesized key the injector waits (bounded) until the user has let go of the
//! physical modifiers, otherwise Ctrl+V arrives as Ctrl+Alt+V and pastes nothing.
//!
//! The keystroke sender is created when the permission allows it, not only at start
//! ([`keyboard_access`]): on macOS it cannot exist before Accessibility is granted. The first
//! keyboard event of the process is created on the main thread beforehand
//! (`platform::prime_keyboard_events`, called by the app before this thread starts).

pub mod keyboard_access;
pub mod modifiers;

use crate::platform::{send_paste_shortcut, ModifierProbe};
use enigo::{Enigo, Keyboard};
use keyboard_access::KeyboardSlot;
use std::time::{Duration, Instant};

/// How long the target app gets to read the clipboard before the previous content comes back
/// (restoring at once pastes the OLD text; 50 ms worked on X11, 300 ms leaves margin).
pub const RESTORE_DELAY: Duration = Duration::from_millis(300);
/// The longest wait for the user to let go of the modifier keys.
pub const MODIFIER_WAIT: Duration = Duration::from_millis(1500);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputMode {
    /// Clipboard + paste shortcut, previous clipboard restored.
    Paste,
    /// Typed as key presses (works where pasting is blocked; slower).
    Type,
    /// Left on the clipboard for the user to paste.
    Copy,
}

impl OutputMode {
    pub fn parse(text: &str) -> Option<Self> {
        match text.trim().to_ascii_lowercase().as_str() {
            "paste" => Some(OutputMode::Paste),
            "type" => Some(OutputMode::Type),
            "copy" => Some(OutputMode::Copy),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            OutputMode::Paste => "paste",
            OutputMode::Type => "type",
            OutputMode::Copy => "copy",
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum InjectError {
    #[error("the clipboard is not available: {0}")]
    Clipboard(String),
    #[error("keystrokes cannot be sent: {0}")]
    Keyboard(String),
}

/// What a delivery did, with its timing.
#[derive(Debug, Clone, PartialEq)]
pub struct Delivered {
    pub mode: OutputMode,
    /// When the text reached the target (shortcut sent, typing done, or clipboard set).
    pub at: Instant,
    /// How long the user's modifiers were still held.
    pub waited_for_modifiers: Duration,
    /// Whether the previous clipboard text was put back (paste mode).
    pub restored_clipboard: bool,
}

/// enigo's settings for the app: no system Accessibility prompt (enigo's default opens one at
/// every launch while the app is not trusted; the app has its own notice that says what to
/// do, `permissions`), everything else enigo's default.
pub fn keyboard_settings() -> enigo::Settings {
    enigo::Settings {
        open_prompt_to_get_permissions: false,
        ..enigo::Settings::default()
    }
}

pub struct Injector {
    clipboard: arboard::Clipboard,
    keyboard: KeyboardSlot<Enigo>,
    modifiers: Option<ModifierProbe>,
}

impl Injector {
    pub fn new() -> Result<Injector, InjectError> {
        let clipboard =
            arboard::Clipboard::new().map_err(|e| InjectError::Clipboard(e.to_string()))?;
        let mut injector = Injector {
            clipboard,
            keyboard: KeyboardSlot::default(),
            modifiers: ModifierProbe::new(),
        };
        // Tried now where the permission allows it, else at the first delivery after it does.
        injector.keyboard(crate::platform::accessibility_trusted());
        Ok(injector)
    }

    /// The keystroke sender, created now if the permission changed since the last try.
    fn keyboard(&mut self, permission: Option<bool>) -> Option<&mut Enigo> {
        self.keyboard
            .get(permission, || Enigo::new(&keyboard_settings()))
    }

    /// Delivers `text` in `mode`. Paste and type fall back to copy-only when keystrokes cannot
    /// be sent (no keyboard access, or no permission), so the text is never lost; the returned
    /// mode says what was done.
    pub fn deliver(&mut self, text: &str, mode: OutputMode) -> Result<Delivered, InjectError> {
        // Without the permission to send keys (macOS Accessibility) keystrokes vanish silently:
        // copy instead, and the caller tells the user what to do.
        let permission = crate::platform::accessibility_trusted();
        let may_send_keys = mode != OutputMode::Copy
            && self.keyboard(permission).is_some()
            && permission != Some(false);
        match (mode, may_send_keys) {
            (OutputMode::Copy, _) | (_, false) => {
                self.set_clipboard(text)?;
                Ok(self.delivered(OutputMode::Copy, Duration::ZERO, false))
            }
            (OutputMode::Paste, true) => self.paste(text),
            (OutputMode::Type, true) => {
                let waited = self.wait_for_modifiers();
                let keyboard = self.keyboard.current().expect("may_send_keys");
                keyboard
                    .text(text)
                    .map_err(|e| InjectError::Keyboard(e.to_string()))?;
                Ok(self.delivered(OutputMode::Type, waited, false))
            }
        }
    }

    /// Puts `text` on the clipboard (the menu's "copy again").
    pub fn set_clipboard(&mut self, text: &str) -> Result<(), InjectError> {
        self.clipboard
            .set_text(text)
            .map_err(|e| InjectError::Clipboard(e.to_string()))
    }

    fn paste(&mut self, text: &str) -> Result<Delivered, InjectError> {
        // Only text can be put back; an image or file list on the clipboard is replaced.
        let previous = self.clipboard.get_text().ok();
        self.set_clipboard(text)?;
        let ours = crate::platform::clipboard_change_count();
        let waited = self.wait_for_modifiers();
        let keyboard = self.keyboard.current().expect("paste needs the keyboard");
        send_paste_shortcut(keyboard).map_err(|e| InjectError::Keyboard(e.to_string()))?;
        let pasted = Instant::now();
        let mut restored = false;
        if let Some(previous) = previous {
            std::thread::sleep(RESTORE_DELAY);
            // Leave the clipboard alone if the user copied something else meanwhile.
            let clipboard = &mut self.clipboard;
            let now = crate::platform::clipboard_change_count();
            if clipboard_still_ours(ours, now, || {
                clipboard.get_text().ok().as_deref() == Some(text)
            }) {
                restored = self.clipboard.set_text(previous).is_ok();
            }
        }
        Ok(Delivered {
            mode: OutputMode::Paste,
            at: pasted,
            waited_for_modifiers: waited,
            restored_clipboard: restored,
        })
    }

    fn wait_for_modifiers(&self) -> Duration {
        let started = Instant::now();
        let outcome = match &self.modifiers {
            Some(probe) => modifiers::wait_until_released(
                || probe.held(),
                MODIFIER_WAIT,
                Duration::from_millis(10),
                std::thread::sleep,
            ),
            None => modifiers::Released::Unknown,
        };
        if outcome == modifiers::Released::TimedOut {
            tracing::warn!(
                "modifier keys still held after {} ms; sending the keystrokes anyway",
                MODIFIER_WAIT.as_millis()
            );
        }
        started.elapsed()
    }

    fn delivered(&self, mode: OutputMode, waited: Duration, restored: bool) -> Delivered {
        Delivered {
            mode,
            at: Instant::now(),
            waited_for_modifiers: waited,
            restored_clipboard: restored,
        }
    }
}

/// Whether the clipboard still holds the text the app put there, so the user's previous text
/// may be put back. Where the system counts clipboard changes (macOS's pasteboard
/// `changeCount`, `ours` right after the app set it, `now` after the paste) the counts decide:
/// reading the clipboard a second time in one dictation can show macOS's clipboard-privacy
/// prompt. Elsewhere `reads_back_ours` reads it and compares.
pub fn clipboard_still_ours(
    ours: Option<i64>,
    now: Option<i64>,
    reads_back_ours: impl FnOnce() -> bool,
) -> bool {
    match (ours, now) {
        (Some(ours), Some(now)) => ours == now,
        _ => reads_back_ours(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_change_count_decides_without_reading_the_clipboard_again() {
        let read_back = |result: bool| {
            move || -> bool { panic!("the clipboard was read again (would say {result})") }
        };
        // Nothing else was copied since the app set its text: restore.
        assert!(clipboard_still_ours(Some(41), Some(41), read_back(false)));
        // The user copied something meanwhile: leave it.
        assert!(!clipboard_still_ours(Some(41), Some(42), read_back(true)));
    }

    #[test]
    fn without_a_change_count_the_text_is_compared() {
        // Linux: no count, the clipboard is read back.
        assert!(clipboard_still_ours(None, None, || true));
        assert!(!clipboard_still_ours(None, None, || false));
        // A count that could not be read after the paste falls back to comparing too.
        assert!(!clipboard_still_ours(Some(7), None, || false));
    }

    #[test]
    fn the_keystroke_sender_never_opens_the_system_prompt() {
        let settings = keyboard_settings();
        assert!(!settings.open_prompt_to_get_permissions);
        // The rest stays enigo's default (Linux's delay, keys released on drop).
        assert_eq!(
            enigo::Settings {
                open_prompt_to_get_permissions: true,
                ..settings
            },
            enigo::Settings::default()
        );
    }

    #[test]
    fn output_modes_round_trip_through_their_names() {
        for mode in [OutputMode::Paste, OutputMode::Type, OutputMode::Copy] {
            assert_eq!(OutputMode::parse(mode.name()), Some(mode));
        }
        assert_eq!(OutputMode::parse(" PASTE "), Some(OutputMode::Paste));
        assert_eq!(OutputMode::parse("clipboard"), None);
    }
}
