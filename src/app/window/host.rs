//! The app's end of the window process (`whisper-dictation-window`, `src/window_host`): starts
//! it from beside the app's own executable with the window to open, hands it the app's
//! answers, and turns what it says into [`HostEvent`]s for the event loop. Two threads per
//! open window, both ending with it: one writes the app's lines to the process's stdin, the
//! other reads its stdout and, when that closes, reaps the process.
//!
//! Dropping a [`WindowProcess`] closes the pipe: the window process ends on that, so a window
//! never outlives the app (not even a crashed one: the kernel closes the pipe then).

use super::host_link::{FromWindow, OpenWindow, ToWindow};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;

/// The window process's executable, beside the app's own (`target/release/`, or the app
/// bundle's `Contents/MacOS/`).
pub const EXECUTABLE: &str = "whisper-dictation-window";

/// Whether the window's webview is made incognito (nothing of it kept on disk). On macOS yes
/// (WKWebView's non-persistent data store, made per webview). On Linux no: wry ignores the
/// given `WebContext` for an incognito webview and makes an ephemeral WebKit context per
/// webview; the window's own data folder in the state folder is used instead.
pub const WEBVIEW_INCOGNITO: bool = cfg!(not(target_os = "linux"));

/// What one window process said, with which process it was (a window closed and opened again
/// must not take the first one's last messages).
#[derive(Debug, Clone, PartialEq)]
pub struct HostEvent {
    pub process: u64,
    pub what: FromHost,
}

/// What a window process says.
#[derive(Debug, Clone, PartialEq)]
pub enum FromHost {
    Window(FromWindow),
    /// It ended (the window was closed, or it failed): how it exited.
    Ended {
        status: String,
    },
}

/// Why the window process could not be started.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(
        "the window's program {0} is missing beside the app (build it: cargo build --release --bins)"
    )]
    Missing(PathBuf),
    #[error("cannot start the window's program {path}: {source}")]
    Start {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// A running window process.
pub struct WindowProcess {
    pub id: u64,
    to_window: mpsc::Sender<ToWindow>,
}

/// Where the window process's executable is: beside the app's.
pub fn executable() -> Option<PathBuf> {
    let app = crate::bundle::Location::current()?.exe;
    Some(app.with_file_name(EXECUTABLE))
}

impl WindowProcess {
    /// Starts `program` with `open` as its first line; what it says goes to `events`.
    ///
    /// # Errors
    /// When the program is missing or cannot be started.
    pub fn start(
        program: &Path,
        id: u64,
        open: OpenWindow,
        events: Box<dyn Fn(HostEvent) + Send>,
    ) -> Result<Self, StartError> {
        if !program.is_file() {
            return Err(StartError::Missing(program.to_path_buf()));
        }
        let mut child = Command::new(program)
            // WebKitGTK draws the page without its GPU compositor: a list and a form need
            // none, and the window paints sooner (202 against 240 ms to first paint measured
            // when the window was in the app's process, where the switch would have been the
            // whole app's; WKWebView does not read it).
            .env("WEBKIT_DISABLE_COMPOSITING_MODE", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|source| StartError::Start {
                path: program.to_path_buf(),
                source,
            })?;
        let (to_window, lines) = mpsc::channel::<ToWindow>();
        let mut stdin = child.stdin.take();
        let stdout = child.stdout.take();
        std::thread::Builder::new()
            .name("window-pipe-out".into())
            .spawn(move || {
                for message in std::iter::once(ToWindow::Open(open)).chain(lines) {
                    let Some(pipe) = stdin.as_mut() else { return };
                    let Ok(mut line) = serde_json::to_string(&message) else {
                        continue;
                    };
                    line.push('\n');
                    if pipe.write_all(line.as_bytes()).is_err() {
                        return; // The window process ended; the reader says so.
                    }
                }
                // Every sender dropped: stdin closes here and the window process ends.
            })
            .map_err(|source| StartError::Start {
                path: program.to_path_buf(),
                source,
            })?;
        std::thread::Builder::new()
            .name("window-pipe-in".into())
            .spawn(move || {
                if let Some(stdout) = stdout {
                    for line in BufReader::new(stdout).lines() {
                        let Ok(line) = line else { break };
                        match serde_json::from_str::<FromWindow>(&line) {
                            Ok(said) => events(HostEvent {
                                process: id,
                                what: FromHost::Window(said),
                            }),
                            Err(e) => tracing::warn!("window process: unreadable line: {e}"),
                        }
                    }
                }
                let status = match child.wait() {
                    Ok(status) => status.to_string(),
                    Err(e) => e.to_string(),
                };
                events(HostEvent {
                    process: id,
                    what: FromHost::Ended { status },
                });
            })
            .map_err(|source| StartError::Start {
                path: program.to_path_buf(),
                source,
            })?;
        Ok(WindowProcess { id, to_window })
    }

    /// Hands `message` to the window process (dropped when it has ended).
    pub fn send(&self, message: ToWindow) {
        let _ = self.to_window.send(message);
    }

    /// A handle that sends to this process, for the session that answers the page.
    pub fn sender(&self) -> mpsc::Sender<ToWindow> {
        self.to_window.clone()
    }
}

impl Drop for WindowProcess {
    fn drop(&mut self) {
        self.send(ToWindow::Close);
    }
}
