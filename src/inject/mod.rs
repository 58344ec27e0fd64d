//! Putting text into the app that has focus: paste (clipboard + the paste shortcut, then the
//! user's previous clipboard put back), type it key by key, or only copy it.
//!
//! One [`Injector`] lives for the app's lifetime on its own thread: on X11 the clipboard's owner
//! must stay alive to serve the text, and the waits below must never block the event loop.
//! Before any synthesized key the injector waits (bounded) until the user has let go of the
//! physical modifiers, otherwise Ctrl+V arrives as Ctrl+Alt+V and pastes nothing.

pub mod modifiers;

use crate::platform::{send_paste_shortcut, ModifierProbe};
use enigo::{Enigo, Keyboard};
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

pub struct Injector {
    clipboard: arboard::Clipboard,
    keyboard: Option<Enigo>,
    modifiers: Option<ModifierProbe>,
}

impl Injector {
    pub fn new() -> Result<Injector, InjectError> {
        let clipboard =
            arboard::Clipboard::new().map_err(|e| InjectError::Clipboard(e.to_string()))?;
        let keyboard = match Enigo::new(&enigo::Settings::default()) {
            Ok(enigo) => Some(enigo),
            Err(e) => {
                tracing::warn!("keystrokes unavailable, text will only be copied: {e}");
                None
            }
        };
        Ok(Injector {
            clipboard,
            keyboard,
            modifiers: ModifierProbe::new(),
        })
    }

    /// Delivers `text` in `mode`. Paste and type fall back to copy-only when keystrokes cannot
    /// be sent (no keyboard access, or no permission), so the text is never lost; the returned
    /// mode says what was done.
    pub fn deliver(&mut self, text: &str, mode: OutputMode) -> Result<Delivered, InjectError> {
        // Without the permission to send keys (macOS Accessibility) keystrokes vanish silently:
        // copy instead, and the caller tells the user what to do.
        let may_send_keys =
            self.keyboard.is_some() && crate::platform::accessibility_trusted() != Some(false);
        match (mode, may_send_keys) {
            (OutputMode::Copy, _) | (_, false) => {
                self.set_clipboard(text)?;
                Ok(self.delivered(OutputMode::Copy, Duration::ZERO, false))
            }
            (OutputMode::Paste, true) => self.paste(text),
            (OutputMode::Type, true) => {
                let waited = self.wait_for_modifiers();
                let keyboard = self.keyboard.as_mut().expect("may_send_keys");
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
        let waited = self.wait_for_modifiers();
        let keyboard = self.keyboard.as_mut().expect("paste needs the keyboard");
        send_paste_shortcut(keyboard).map_err(|e| InjectError::Keyboard(e.to_string()))?;
        let pasted = Instant::now();
        let mut restored = false;
        if let Some(previous) = previous {
            std::thread::sleep(RESTORE_DELAY);
            // Leave the clipboard alone if the user copied something else meanwhile.
            if self.clipboard.get_text().ok().as_deref() == Some(text) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_modes_round_trip_through_their_names() {
        for mode in [OutputMode::Paste, OutputMode::Type, OutputMode::Copy] {
            assert_eq!(OutputMode::parse(mode.name()), Some(mode));
        }
        assert_eq!(OutputMode::parse(" PASTE "), Some(OutputMode::Paste));
        assert_eq!(OutputMode::parse("clipboard"), None);
    }
}
