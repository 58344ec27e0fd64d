//! Desktop notifications (D-Bus on Linux, the notification centre on macOS) sent from their own
//! thread: showing one can block on D-Bus, and the event loop must never wait for it.

use std::sync::mpsc::{self, Sender};

/// The application name notifications carry.
pub const APP_NAME: &str = "Whisper Dictation";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub summary: String,
    pub body: String,
}

#[derive(Clone)]
pub struct Notifier {
    notes: Sender<Note>,
}

impl Notifier {
    pub fn spawn() -> std::io::Result<Notifier> {
        let (notes, rx) = mpsc::channel::<Note>();
        std::thread::Builder::new()
            .name("notifier".into())
            .spawn(move || {
                for note in rx {
                    show(&note);
                }
            })?;
        Ok(Notifier { notes })
    }

    /// Queues a notification; also logged, so a machine without a notification daemon loses
    /// nothing.
    pub fn send(&self, summary: impl Into<String>, body: impl Into<String>) {
        let note = Note {
            summary: summary.into(),
            body: body.into(),
        };
        tracing::info!(summary = %note.summary, body = %note.body, "notification");
        let _ = self.notes.send(note);
    }
}

fn show(note: &Note) {
    let shown = notify_rust::Notification::new()
        .appname(APP_NAME)
        .summary(&note.summary)
        .body(&note.body)
        .icon("whisper-dictation")
        .show();
    if let Err(e) = shown {
        tracing::warn!(
            "notification not shown ({e}): {}: {}",
            note.summary,
            note.body
        );
    }
}
