//! Desktop notifications (D-Bus on Linux, the notification centre on macOS) sent from their own
//! thread: showing one can block on D-Bus (and on macOS for up to 2 s, waiting for the
//! delivery), and the event loop must never wait for it. A notification that could not be
//! shown is logged as a warning with its text.
//!
//! macOS shows a notification as coming from an app (its name and icon), chosen once per
//! process by bundle id before the first one ([`init_sender`]); see [`sender_for`].

use crate::bundle::{Location, BUNDLE_ID};
use crate::command_thread::CommandThread;

/// The application name notifications carry.
pub const APP_NAME: &str = "Whisper Dictation";
/// The icon name notifications carry on Linux (the installed icon theme's).
pub const ICON: &str = "whisper-dictation";
/// The app a loose executable's notifications are shown as on macOS (`cargo run`, a binary
/// outside the bundle): Terminal, which is on every Mac and which that process usually runs
/// under anyway. It is also what mac-notification-sys falls back to when setting an id fails.
pub const LOOSE_SENDER: &str = "com.apple.Terminal";

/// The bundle id macOS shows the notifications as: the app's own (`Info.plist`'s, shared with
/// the bundle code) when running from its `.app`, else [`LOOSE_SENDER`]. A loose executable
/// is no app Launch Services knows, and asking for the app's id there would work only where a
/// bundle was installed before (and fail, logged, everywhere else).
pub fn sender_for(location: Option<&Location>) -> &'static str {
    match location {
        Some(location) if location.bundle.is_some() => BUNDLE_ID,
        _ => LOOSE_SENDER,
    }
}

/// Sets, once at start and before any notification, the app the notifications are shown as
/// (macOS; nothing elsewhere). A failure is logged: macOS then shows them as Terminal's.
pub fn init_sender(location: Option<&Location>) {
    let sender = sender_for(location);
    match crate::platform::set_notification_sender(sender) {
        Ok(()) => tracing::debug!(sender, "notifications are shown as this app"),
        Err(e) => tracing::warn!(sender, "notifications will be shown as Terminal's: {e}"),
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub summary: String,
    pub body: String,
}

/// The notification thread; dropping it shows what is queued, then ends it.
pub struct Notifier(CommandThread<Note>);

impl Notifier {
    pub fn spawn() -> std::io::Result<Notifier> {
        CommandThread::spawn("notifier", |rx| {
            for note in rx {
                show(&note);
            }
        })
        .map(Notifier)
    }

    /// Queues a notification; also logged, so a machine without a notification daemon loses
    /// nothing.
    pub fn send(&self, summary: impl Into<String>, body: impl Into<String>) {
        let note = Note {
            summary: summary.into(),
            body: body.into(),
        };
        tracing::info!(summary = %note.summary, body = %note.body, "notification");
        self.0.send(note);
    }
}

/// Shows `note` now, on the calling thread; a failure is logged with the text. Returns whether
/// it was shown.
pub fn show(note: &Note) -> bool {
    let shown = crate::platform::show_notification(APP_NAME, ICON, &note.summary, &note.body);
    if let Err(e) = &shown {
        tracing::warn!(
            "notification not shown ({e}): {}: {}",
            note.summary,
            note.body
        );
    }
    shown.is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn the_bundle_shows_notifications_as_itself_and_a_loose_binary_as_terminal() {
        let bundled = Location::of(Path::new(
            "/Applications/Whisper Dictation.app/Contents/MacOS/whisper-dictation",
        ));
        assert_eq!(sender_for(Some(&bundled)), BUNDLE_ID);
        // Info.plist's id, the one the bundle script ships.
        assert!(include_str!("../../Info.plist").contains(&format!("<string>{BUNDLE_ID}</string>")));
        // A translocated bundle is still the app (Launch Services registered it at launch).
        let translocated = Location::of(Path::new(
            "/private/var/folders/xy/T/AppTranslocation/1A2B/d/Whisper Dictation.app/Contents/MacOS/whisper-dictation",
        ));
        assert_eq!(sender_for(Some(&translocated)), BUNDLE_ID);
        let cargo_run = Location::of(Path::new(
            "/Users/ala/whisper-dictation/target/release/whisper-dictation",
        ));
        assert_eq!(sender_for(Some(&cargo_run)), LOOSE_SENDER);
        assert_eq!(sender_for(None), LOOSE_SENDER);
    }
}
