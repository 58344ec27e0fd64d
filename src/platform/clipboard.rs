//! Putting text on the clipboard marked, or not, as kept out of clipboard history. The mark is
//! a convention history managers honour (they skip the content), and arboard writes it only
//! through its per-OS `Set` extension traits, which is why this lives here:
//!
//! - Linux (X11, and Wayland through arboard's data-control backend, which adds the same): the
//!   extra target `x-kde-passwordManagerHint` (content `secret`), honoured by Klipper and by
//!   GNOME's clipboard extensions; arboard also leaves it out of the hand-over to a clipboard manager
//!   when the app quits (`SAVE_TARGETS`).
//! - macOS: the pasteboard type `org.nspasteboard.ConcealedType` (nspasteboard.org), honoured
//!   by Maccy, Alfred, Raycast, Pastebot and others.
//!
//! Which writes are marked is the caller's decision (`inject::excluded_from_history`).

/// Puts `text` on the clipboard, marked as kept out of clipboard history when
/// `exclude_from_history`; elsewhere than Linux and macOS the mark is not written.
pub fn set_clipboard_text(
    clipboard: &mut arboard::Clipboard,
    text: &str,
    exclude_from_history: bool,
) -> Result<(), arboard::Error> {
    if !exclude_from_history {
        return clipboard.set_text(text);
    }
    #[cfg(target_os = "linux")]
    {
        use arboard::SetExtLinux;
        clipboard.set().exclude_from_history().text(text)
    }
    #[cfg(target_os = "macos")]
    {
        use arboard::SetExtApple;
        clipboard.set().exclude_from_history().text(text)
    }
    #[cfg(not(any(target_os = "linux", target_os = "macos")))]
    {
        clipboard.set_text(text)
    }
}

/// The X11 PRIMARY selection's text (what xterm's Shift+Insert pastes); `None` off X11 or when
/// it holds no text.
pub fn primary_text(clipboard: &mut arboard::Clipboard) -> Option<String> {
    #[cfg(target_os = "linux")]
    {
        use arboard::{GetExtLinux, LinuxClipboardKind};
        clipboard
            .get()
            .clipboard(LinuxClipboardKind::Primary)
            .text()
            .ok()
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = clipboard;
        None
    }
}

/// Puts `text` on the X11 PRIMARY selection as well (kept out of clipboard history); nothing
/// off X11, where there is no such selection.
pub fn set_primary_text(
    clipboard: &mut arboard::Clipboard,
    text: &str,
) -> Result<(), arboard::Error> {
    #[cfg(target_os = "linux")]
    {
        use arboard::{LinuxClipboardKind, SetExtLinux};
        clipboard
            .set()
            .clipboard(LinuxClipboardKind::Primary)
            .exclude_from_history()
            .text(text)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (clipboard, text);
        Ok(())
    }
}
