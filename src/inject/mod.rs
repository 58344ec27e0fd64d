//! Putting text into the app that has focus: paste (clipboard + the paste shortcut, then the
//! user's previous clipboard put back), type it key by key, or only copy it.
//!
//! One [`Injector`] lives for the app's lifetime on its own thread: on X11 the clipboard's owner
//! must stay alive to serve the text, and the waits below must never block the event loop.
//! Before any synthesized key the injector waits until the user has let go of the physical
//! modifiers, otherwise Ctrl+V arrives as Ctrl+Alt+V and pastes nothing: up to
//! [`MODIFIER_WAIT`] after the hotkey went up, and while the hotkey is held for the next
//! dictation until its key-up ([`modifiers`]). Keystrokes that find modifiers held, or that a
//! modifier pressed meanwhile may have changed, never count as delivered: the text is left on
//! the clipboard and the caller says so ([`NotPasted`]).
//!
//! What paste and type modes put on the clipboard (the text being pasted, the previous text put
//! back, a text left there unpasted) is marked as kept out of clipboard history
//! ([`excluded_from_history`], `platform::set_clipboard_text`): the person asked for it in the
//! focused app, not in their clipboard manager. Copy-only mode and the menu's "copy again" are
//! the person asking for the text on the clipboard, and are not marked.
//!
//! The keystroke sender is created when the permission allows it, not only at start
//! ([`keyboard_access`]): on macOS it cannot exist before Accessibility is granted. The first
//! keyboard event of the process is created on the main thread beforehand
//! (`platform::prime_keyboard_events`, called by the app before this thread starts), and so is
//! the lookup of the key that types "v" in the person's layout ([`paste_key`]).
//!
//! While macOS's Secure Event Input is on (a password field, Terminal's Secure Keyboard Entry)
//! keystrokes are dropped silently: paste and type then only copy, and the caller says why
//! ([`keystroke_gate`], [`NotPasted::SecureInput`]). Nothing is put back on the clipboard then.
//!
//! The keystrokes go through enigo on X11 and macOS and through the virtual keyboard on a
//! Wayland session ([`sender`]); a Wayland session whose compositor offers none (GNOME) only
//! copies ([`NotPasted::NoKeystrokesOnWayland`]). There the modifier probe (X11) reads only
//! XWayland's keyboard, or nothing, and the clipboard is the Wayland one (data control).

pub mod keyboard_access;
pub mod modifiers;
pub mod paste_key;
pub mod sender;

use crate::platform::{paste_modifiers, Focus, FocusProbe, ModifierProbe, Modifiers};
use crate::platform::{PasteKeys, PressAfter};
use keyboard_access::KeyboardSlot;
use sender::{Sender, SenderKind};
use std::time::{Duration, Instant};

/// How long the target app gets to read the clipboard before the previous content comes back
/// (restoring at once pastes the OLD text; 50 ms worked on X11, 300 ms leaves margin).
pub const RESTORE_DELAY: Duration = Duration::from_millis(300);
/// The longest wait for the user to let go of the modifier keys once the hotkey is up.
pub const MODIFIER_WAIT: Duration = Duration::from_millis(1500);
/// The longest wait while the hotkey is held for the next recording: the longest recording the
/// settings allow (`max_recording_secs` is at most 3600), so its key-up always comes first.
pub const HOTKEY_HELD_WAIT: Duration = Duration::from_secs(3600);

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

/// How a per-app mode (`settings::modes`) delivers: the paste keystroke and a key after.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Keystrokes {
    pub paste: PasteKeys,
    pub after: PressAfter,
}

impl Keystrokes {
    /// The system's paste, nothing after.
    pub fn system() -> Keystrokes {
        Keystrokes {
            paste: PasteKeys::system(crate::platform::IS_MACOS),
            after: PressAfter::Nothing,
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

/// Whether what `mode` puts on the clipboard is marked as kept out of clipboard history: yes
/// for paste and type (the clipboard only carries the text into the focused app, or holds it
/// when that failed), no for copy-only, where the person asked for it on the clipboard.
pub fn excluded_from_history(mode: OutputMode) -> bool {
    mode != OutputMode::Copy
}

/// Why a text meant to be pasted or typed was left on the clipboard instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotPasted {
    /// Modifier keys stayed held past the wait: the keystrokes were not sent.
    KeysHeld,
    /// A modifier key went down while the keystrokes were sent: they may have done something
    /// else (Ctrl+Alt+V), so the text does not count as pasted.
    KeysPressedMeanwhile,
    /// macOS's Secure Event Input was on: keystrokes would have been dropped silently, so none
    /// were sent.
    SecureInput,
    /// A Wayland session whose compositor offers no virtual keyboard (GNOME): no app may send
    /// keys to the others there, so none were sent.
    NoKeystrokesOnWayland,
}

impl NotPasted {
    /// A short machine-readable name for logs.
    pub fn reason(self) -> &'static str {
        match self {
            NotPasted::KeysHeld => "keys_held",
            NotPasted::KeysPressedMeanwhile => "keys_pressed_meanwhile",
            NotPasted::SecureInput => "secure_input",
            NotPasted::NoKeystrokesOnWayland => "no_virtual_keyboard",
        }
    }
}

/// What a delivery does before any keystroke is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gate {
    /// Send the keystrokes (paste or type).
    Send,
    /// Only put the text on the clipboard. `Some`: keystrokes were meant and the person is told
    /// why not; `None`: copy-only mode, or keystrokes not allowed (the permission notice says
    /// what to do).
    CopyOnly(Option<NotPasted>),
}

/// Whether keystrokes can be sent, as a delivery finds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keys {
    /// A sender exists and the permission allows it.
    Ready,
    /// No sender, or no permission (macOS Accessibility: the permission notice says what to do).
    Unavailable,
    /// A Wayland session without a virtual keyboard ([`sender`]): nothing can send keys there.
    NoneOnWayland,
}

/// Whether `mode` sends keystrokes now. `keys`: whether they can be sent; `secure_input`:
/// macOS's Secure Event Input as `platform::secure_input_enabled` says (`None` where there is
/// none). Secure Input on turns paste and type into copy-only, with [`NotPasted::SecureInput`]:
/// pasting would send ⌘V into nothing and then put the previous clipboard back, losing the
/// text. A Wayland session without a virtual keyboard does the same, with
/// [`NotPasted::NoKeystrokesOnWayland`].
pub fn keystroke_gate(mode: OutputMode, keys: Keys, secure_input: Option<bool>) -> Gate {
    match keys {
        _ if mode == OutputMode::Copy => Gate::CopyOnly(None),
        Keys::Unavailable => Gate::CopyOnly(None),
        Keys::NoneOnWayland => Gate::CopyOnly(Some(NotPasted::NoKeystrokesOnWayland)),
        Keys::Ready if secure_input == Some(true) => Gate::CopyOnly(Some(NotPasted::SecureInput)),
        Keys::Ready => Gate::Send,
    }
}

/// What a delivery did, with its timing.
#[derive(Debug, Clone, PartialEq)]
pub struct Delivered {
    /// What was done: `Copy` when the text was only put on the clipboard (copy mode, no
    /// permission to send keys, or [`NotPasted`]).
    pub mode: OutputMode,
    /// When the text reached the target (shortcut sent, typing done, or clipboard set).
    pub at: Instant,
    /// How long the user's modifiers were still held.
    pub waited_for_modifiers: Duration,
    /// Whether part of that wait was for the hotkey's key-up (the next dictation's recording).
    pub waited_for_hotkey: bool,
    /// Whether the previous clipboard text was put back (paste mode).
    pub restored_clipboard: bool,
    /// The window or app that had the focus when the keystrokes were sent (`None` when no
    /// keystrokes were sent, or the focus cannot be read).
    pub focus: Option<Focus>,
    /// The text as sent (with the joining space, if any).
    pub sent: String,
    /// Set when keystrokes were meant but the text was left on the clipboard.
    pub not_pasted: Option<NotPasted>,
    /// The key pressed after the text (a mode's Enter), when one was.
    pub pressed_after: Option<PressAfter>,
}

impl Delivered {
    /// Whether the text went into the focused app (pasted or typed, as sent).
    pub fn inserted(&self) -> bool {
        self.mode != OutputMode::Copy && self.not_pasted.is_none()
    }
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
    /// Which sender this session gets (the virtual keyboard on Wayland, else enigo).
    sender: SenderKind,
    keyboard: KeyboardSlot<Sender>,
    modifiers: Option<ModifierProbe>,
    focus: Option<FocusProbe>,
}

impl Injector {
    pub fn new() -> Result<Injector, InjectError> {
        let clipboard =
            arboard::Clipboard::new().map_err(|e| InjectError::Clipboard(e.to_string()))?;
        let mut injector = Injector {
            clipboard,
            sender: SenderKind::current(),
            keyboard: KeyboardSlot::default(),
            modifiers: ModifierProbe::new(),
            focus: FocusProbe::new(),
        };
        // Tried now where the permission allows it, else at the first delivery after it does.
        injector.keyboard(crate::platform::accessibility_trusted());
        Ok(injector)
    }

    /// The name of the app `focus` belongs to (where a text went), when the system tells it.
    pub fn app_name(&self, focus: Focus) -> Option<String> {
        self.focus.as_ref()?.app_name(focus)
    }

    /// The keystroke sender, created now if the permission changed since the last try.
    fn keyboard(&mut self, permission: Option<bool>) -> Option<&mut Sender> {
        let kind = self.sender;
        self.keyboard
            .get(permission, || Sender::create(kind, &keyboard_settings()))
    }

    /// Whether keystrokes can be sent now (the sender created first if it may be).
    fn keys(&mut self, permission: Option<bool>) -> Keys {
        if self.keyboard(permission).is_some() && permission != Some(false) {
            Keys::Ready
        } else if self.sender == SenderKind::VirtualKeyboard {
            Keys::NoneOnWayland
        } else {
            Keys::Unavailable
        }
    }

    /// Delivers `text` in `mode`. Paste and type fall back to copy-only when keystrokes cannot
    /// be sent (no keyboard access, or no permission), so the text is never lost; the returned
    /// mode says what was done. `hotkey_held` says whether the hotkey is down now (the next
    /// recording): keystrokes wait for its key-up. `join` turns the text into what is sent,
    /// given the window or app that has the focus once the keys are free (the joining space).
    pub fn deliver(
        &mut self,
        text: &str,
        mode: OutputMode,
        keys: Keystrokes,
        hotkey_held: &dyn Fn() -> bool,
        join: impl FnOnce(Option<Focus>) -> String,
    ) -> Result<Delivered, InjectError> {
        // Without the permission to send keys (macOS Accessibility) keystrokes vanish silently:
        // copy instead, and the caller tells the user what to do.
        let permission = crate::platform::accessibility_trusted();
        let keys_now = match mode {
            OutputMode::Copy => Keys::Unavailable,
            _ => self.keys(permission),
        };
        let exclude = excluded_from_history(mode);
        let secure_input = match keys_now {
            Keys::Ready => crate::platform::secure_input_enabled(),
            _ => None,
        };
        if let Gate::CopyOnly(why) = keystroke_gate(mode, keys_now, secure_input) {
            if let Some(why) = why {
                tracing::warn!(
                    reason = why.reason(),
                    "keystrokes would be dropped: the text is left on the clipboard, not pasted"
                );
            }
            self.put_on_clipboard(text, exclude)?;
            return Ok(self.copied(text, Duration::ZERO, false, why));
        }
        let (released, waited, waited_for_hotkey) = self.wait_for_modifiers(hotkey_held);
        if released == modifiers::Released::TimedOut {
            tracing::warn!(
                waited_ms = waited.as_millis() as u64,
                "modifier keys still held: the text is left on the clipboard, not pasted"
            );
            self.put_on_clipboard(text, exclude)?;
            return Ok(self.copied(text, waited, waited_for_hotkey, Some(NotPasted::KeysHeld)));
        }
        let focus = self.focus.as_ref().and_then(FocusProbe::focused);
        let sent = join(focus);
        let mut delivered = match mode {
            OutputMode::Type => self.type_text(&sent, hotkey_held)?,
            _ => self.paste(&sent, keys.paste, hotkey_held)?,
        };
        if delivered.not_pasted.is_none() && keys.after != PressAfter::Nothing {
            self.press_after(keys.after, &mut delivered, hotkey_held)?;
        }
        delivered.waited_for_modifiers = waited;
        delivered.waited_for_hotkey = waited_for_hotkey;
        delivered.focus = focus;
        if delivered.not_pasted.is_some() {
            // Left for the person to paste: the text as said, without the joining space.
            self.put_on_clipboard(text, exclude)?;
        }
        Ok(delivered)
    }

    /// Puts `text` on the clipboard as the person asked for it (the menu's "copy again", a
    /// recovered text): not marked as kept out of clipboard history.
    pub fn set_clipboard(&mut self, text: &str) -> Result<(), InjectError> {
        self.put_on_clipboard(text, false)
    }

    /// Puts `text` on the clipboard, marked as kept out of clipboard history when `exclude`.
    fn put_on_clipboard(&mut self, text: &str, exclude: bool) -> Result<(), InjectError> {
        crate::platform::set_clipboard_text(&mut self.clipboard, text, exclude)
            .map_err(|e| InjectError::Clipboard(e.to_string()))
    }

    /// Types `text` key by key.
    fn type_text(
        &mut self,
        text: &str,
        hotkey_held: &dyn Fn() -> bool,
    ) -> Result<Delivered, InjectError> {
        let before = self.held_modifiers();
        let keyboard = self.keyboard.current().expect("Keys::Ready");
        keyboard.text(text).map_err(InjectError::Keyboard)?;
        let at = Instant::now();
        // Typing presses no modifier of its own that may still show.
        let after = self.held_modifiers();
        let as_is = modifiers::sent_as_is(before, after, Modifiers::NONE, hotkey_held());
        Ok(self.sent(OutputMode::Type, text, at, false, as_is))
    }

    /// Pastes `text`: clipboard, paste shortcut, the previous clipboard text put back. Both
    /// are marked as kept out of clipboard history: the dictated text is only passing through,
    /// and the previous text may be one a password manager marked so (arboard cannot read
    /// whether it was); a history manager has it already when it was not.
    fn paste(
        &mut self,
        text: &str,
        keys: PasteKeys,
        hotkey_held: &dyn Fn() -> bool,
    ) -> Result<Delivered, InjectError> {
        // Only text can be put back; an image or file list on the clipboard is replaced.
        let previous = self.clipboard.get_text().ok();
        self.put_on_clipboard(text, excluded_from_history(OutputMode::Paste))?;
        // xterm's Shift+Insert pastes the PRIMARY selection: the text goes there too, and the
        // person's selection text comes back after, as the clipboard's does.
        // A Wayland compositor without a primary selection for clipboard managers refuses it:
        // then Shift+Insert pastes the clipboard only (what GTK and Qt apps paste anyway).
        let previous_primary = if keys == PasteKeys::ShiftInsert {
            let previous = crate::platform::primary_text(&mut self.clipboard);
            match crate::platform::set_primary_text(&mut self.clipboard, text) {
                Ok(()) => previous,
                Err(e) => {
                    tracing::warn!("the primary selection cannot be set, only the clipboard: {e}");
                    None
                }
            }
        } else {
            None
        };
        let ours = crate::platform::clipboard_change_count();
        let before = self.held_modifiers();
        let keyboard = self.keyboard.current().expect("paste needs the keyboard");
        keyboard
            .paste(paste_key::v_key_code(), keys)
            .map_err(InjectError::Keyboard)?;
        let pasted = Instant::now();
        let after = self.held_modifiers();
        let as_is = modifiers::sent_as_is(before, after, paste_modifiers(keys), hotkey_held());
        if let Some(previous) = previous_primary.filter(|_| as_is) {
            std::thread::sleep(RESTORE_DELAY);
            if crate::platform::primary_text(&mut self.clipboard).as_deref() == Some(text) {
                let _ = crate::platform::set_primary_text(&mut self.clipboard, &previous);
            }
        }
        if !as_is {
            // Maybe not pasted: the text stays on the clipboard for the person.
            return Ok(self.sent(OutputMode::Paste, text, pasted, false, false));
        }
        let mut restored = false;
        if let Some(previous) = previous {
            std::thread::sleep(RESTORE_DELAY);
            // Leave the clipboard alone if the user copied something else meanwhile.
            let clipboard = &mut self.clipboard;
            let now = crate::platform::clipboard_change_count();
            if clipboard_still_ours(ours, now, || {
                clipboard.get_text().ok().as_deref() == Some(text)
            }) {
                restored = self
                    .put_on_clipboard(&previous, excluded_from_history(OutputMode::Paste))
                    .is_ok();
            }
        }
        Ok(self.sent(OutputMode::Paste, text, pasted, restored, true))
    }

    /// Presses the mode's key after the text (Enter in a chat box) once the text is in (a
    /// paste: [`RESTORE_DELAY`] after its keystroke); a modifier pressed meanwhile makes it
    /// count as not sent as is, like the paste.
    fn press_after(
        &mut self,
        after: PressAfter,
        delivered: &mut Delivered,
        hotkey_held: &dyn Fn() -> bool,
    ) -> Result<(), InjectError> {
        if delivered.mode == OutputMode::Paste {
            // The target reads the clipboard when it handles the paste keystroke, and that
            // read is answered later than the next key is delivered: an Enter sent at once
            // reached a terminal before the text (an empty line, the text left unsent). The
            // text's own wait for the restore covers it when there was a clipboard to restore.
            let ready = delivered.at + RESTORE_DELAY;
            std::thread::sleep(ready.saturating_duration_since(Instant::now()));
        }
        let before = self.held_modifiers();
        let keyboard = self.keyboard.current().expect("keys were sent");
        keyboard.key_after(after).map_err(InjectError::Keyboard)?;
        let own = match after {
            PressAfter::ShiftEnter => paste_modifiers(PasteKeys::ShiftInsert),
            PressAfter::CtrlEnter => paste_modifiers(PasteKeys::CtrlV),
            PressAfter::CmdEnter => paste_modifiers(PasteKeys::CmdV),
            PressAfter::Nothing | PressAfter::Enter => Modifiers::NONE,
        };
        let after_keys = self.held_modifiers();
        if !modifiers::sent_as_is(before, after_keys, own, hotkey_held()) {
            tracing::warn!("a modifier went down while the key after the text was pressed");
        }
        delivered.pressed_after = Some(after);
        Ok(())
    }

    fn held_modifiers(&self) -> Option<Modifiers> {
        self.modifiers.as_ref().and_then(ModifierProbe::held)
    }

    /// Waits until the hotkey is up and no modifier is held
    /// ([`modifiers::wait_until_released`]); returns the
    /// outcome, how long it took and whether the hotkey was held during it.
    fn wait_for_modifiers(
        &self,
        hotkey_held: &dyn Fn() -> bool,
    ) -> (modifiers::Released, Duration, bool) {
        let started = Instant::now();
        let mut saw_hotkey = false;
        let outcome = match &self.modifiers {
            Some(probe) => modifiers::wait_until_released(
                || probe.held().map(Modifiers::any),
                || {
                    let held = hotkey_held();
                    saw_hotkey |= held;
                    held
                },
                modifiers::Bounds {
                    released: MODIFIER_WAIT,
                    hotkey_held: HOTKEY_HELD_WAIT,
                    interval: Duration::from_millis(10),
                },
                std::thread::sleep,
            ),
            None => modifiers::Released::Unknown,
        };
        (outcome, started.elapsed(), saw_hotkey)
    }

    /// The text only put on the clipboard.
    fn copied(
        &self,
        text: &str,
        waited: Duration,
        waited_for_hotkey: bool,
        not_pasted: Option<NotPasted>,
    ) -> Delivered {
        Delivered {
            mode: OutputMode::Copy,
            at: Instant::now(),
            waited_for_modifiers: waited,
            waited_for_hotkey,
            restored_clipboard: false,
            focus: None,
            sent: text.to_string(),
            not_pasted,
            pressed_after: None,
        }
    }

    /// Keystrokes sent in `mode` at `at`; `as_is` false when a modifier went down meanwhile.
    fn sent(
        &self,
        mode: OutputMode,
        text: &str,
        at: Instant,
        restored: bool,
        as_is: bool,
    ) -> Delivered {
        Delivered {
            mode: if as_is { mode } else { OutputMode::Copy },
            at,
            waited_for_modifiers: Duration::ZERO,
            waited_for_hotkey: false,
            restored_clipboard: restored,
            focus: None,
            sent: text.to_string(),
            not_pasted: (!as_is).then_some(NotPasted::KeysPressedMeanwhile),
            pressed_after: None,
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
    fn secure_input_turns_paste_and_type_into_copy_only_with_the_reason() {
        for mode in [OutputMode::Paste, OutputMode::Type] {
            assert_eq!(
                keystroke_gate(mode, Keys::Ready, Some(true)),
                Gate::CopyOnly(Some(NotPasted::SecureInput)),
                "{mode:?}"
            );
            // Off, or no such thing (X11): the keys are sent.
            assert_eq!(keystroke_gate(mode, Keys::Ready, Some(false)), Gate::Send);
            assert_eq!(keystroke_gate(mode, Keys::Ready, None), Gate::Send);
            // No permission or no sender: copied, and the permission notice speaks.
            assert_eq!(
                keystroke_gate(mode, Keys::Unavailable, Some(true)),
                Gate::CopyOnly(None)
            );
        }
        // Copy-only mode sends nothing anyway: nothing to tell.
        assert_eq!(
            keystroke_gate(OutputMode::Copy, Keys::Ready, Some(true)),
            Gate::CopyOnly(None)
        );
    }

    #[test]
    fn a_wayland_desktop_without_a_virtual_keyboard_only_copies_and_says_why() {
        for mode in [OutputMode::Paste, OutputMode::Type] {
            assert_eq!(
                keystroke_gate(mode, Keys::NoneOnWayland, None),
                Gate::CopyOnly(Some(NotPasted::NoKeystrokesOnWayland)),
                "{mode:?}"
            );
        }
        // Copy-only mode there: the person asked for the clipboard, nothing to tell.
        assert_eq!(
            keystroke_gate(OutputMode::Copy, Keys::NoneOnWayland, None),
            Gate::CopyOnly(None)
        );
        assert_eq!(
            NotPasted::NoKeystrokesOnWayland.reason(),
            "no_virtual_keyboard"
        );
    }

    #[test]
    fn a_text_kept_from_secure_input_does_not_count_as_inserted() {
        // What `deliver` returns for it (`copied`): the text as said, on the clipboard.
        let delivered = Delivered {
            mode: OutputMode::Copy,
            at: Instant::now(),
            waited_for_modifiers: Duration::ZERO,
            waited_for_hotkey: false,
            restored_clipboard: false,
            focus: None,
            sent: "hasło".into(),
            not_pasted: Some(NotPasted::SecureInput),
            pressed_after: None,
        };
        assert!(!delivered.inserted());
        assert_eq!(NotPasted::SecureInput.reason(), "secure_input");
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
    fn only_copy_only_mode_leaves_its_text_to_clipboard_history() {
        assert!(excluded_from_history(OutputMode::Paste));
        assert!(excluded_from_history(OutputMode::Type));
        assert!(!excluded_from_history(OutputMode::Copy));
    }

    #[test]
    fn output_modes_round_trip_through_their_names() {
        for mode in [OutputMode::Paste, OutputMode::Type, OutputMode::Copy] {
            assert_eq!(OutputMode::parse(mode.name()), Some(mode));
        }
        assert_eq!(OutputMode::parse(" PASTE "), Some(OutputMode::Paste));
        assert_eq!(OutputMode::parse("clipboard"), None);
        // A per-app mode's `output` is checked by the same names (settings::modes).
        for mode in [OutputMode::Paste, OutputMode::Type, OutputMode::Copy] {
            assert!(crate::settings::modes::is_output(
                &mode.name().to_uppercase()
            ));
        }
        assert!(!crate::settings::modes::is_output("clipboard"));
    }
}
