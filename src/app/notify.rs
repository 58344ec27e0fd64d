//! Desktop notifications (D-Bus on Linux, the notification centre on macOS) sent from their own
//! thread: showing one can block on D-Bus, and the event loop must never wait for it.

use crate::command_thread::CommandThread;

/// The application name notifications carry.
pub const APP_NAME: &str = "Whisper Dictation";

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
