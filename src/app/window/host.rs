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
    /// It ended (the window was closed, or it failed): how it exited, and whether that was
    /// its ordinary end (the window closed).
    Ended {
        status: String,
        success: bool,
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
        let mut command = Command::new(program);
        if crate::platform::opengl_skipped_here() {
            // The app's own setting (it draws nothing with GL), not the webview's to inherit.
            command.env_remove(crate::platform::GDK_GL);
        }
        let mut child = command
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
                let (status, success) = match child.wait() {
                    Ok(status) => (status.to_string(), status.success()),
                    Err(e) => (e.to_string(), false),
                };
                events(HostEvent {
                    process: id,
                    what: FromHost::Ended { status, success },
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc::Receiver;
    use std::time::Duration;

    fn opening() -> OpenWindow {
        OpenWindow {
            version: super::super::host_link::VERSION,
            title: "History".into(),
            lang: super::super::host_link::Lang::En,
            url: "app://localhost/en/index.html".into(),
            size: (760.0, 600.0),
            min_size: (420.0, 320.0),
            data_dir: None,
            incognito: false,
            automation: false,
            scheme: "app".into(),
            origin: "app://localhost/".into(),
            csp: "default-src 'none'".into(),
            assets: Vec::new(),
        }
    }

    /// Starts `script` (sh) as the window process; what it says arrives on the receiver.
    fn start_script(
        script: &str,
        id: u64,
    ) -> (WindowProcess, Receiver<HostEvent>, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let program = dir.path().join("window");
        std::fs::write(&program, format!("#!/bin/sh\n{script}\n")).unwrap();
        crate::platform::set_mode(&program, 0o755).unwrap();
        let (events, said) = mpsc::channel::<HostEvent>();
        // A fork elsewhere in the test process may briefly hold the new file open for writing
        // (ETXTBSY): try again.
        for _ in 0..100 {
            let events = events.clone();
            match WindowProcess::start(
                &program,
                id,
                opening(),
                Box::new(move |event| {
                    let _ = events.send(event);
                }),
            ) {
                Ok(process) => return (process, said, dir),
                Err(StartError::Start { source, .. }) if source.raw_os_error() == Some(26) => {
                    std::thread::sleep(Duration::from_millis(10));
                }
                Err(e) => panic!("{e}"),
            }
        }
        panic!("the script stayed busy")
    }

    #[test]
    fn a_missing_program_is_named() {
        let missing = Path::new("/nonexistent/whisper-dictation-window");
        let error = WindowProcess::start(missing, 1, opening(), Box::new(|_| {}))
            .err()
            .unwrap();
        assert!(matches!(error, StartError::Missing(_)));
        assert!(error
            .to_string()
            .contains("/nonexistent/whisper-dictation-window"));
        assert!(error.to_string().contains("cargo build --release --bins"));
    }

    #[test]
    fn the_process_reads_the_window_first_and_its_lines_come_back_before_its_end() {
        // Echoes its first line's kind back as a warning, then a page message, then ends.
        let (process, said, _dir) = start_script(
            r#"read first
case "$first" in *'"to_window":"open"'*) kind=open ;; *) kind=other ;; esac
echo "{\"from_window\":\"warning\",\"text\":\"first: $kind\"}"
echo '{"from_window":"message","url":"app://localhost/en/index.html","body":"{\"cmd\":\"hello\"}"}'
exit 3"#,
            7,
        );
        let wait = Duration::from_secs(10);
        let first = said.recv_timeout(wait).unwrap();
        assert_eq!(first.process, 7);
        assert_eq!(
            first.what,
            FromHost::Window(FromWindow::Warning {
                text: "first: open".into()
            })
        );
        assert!(matches!(
            said.recv_timeout(wait).unwrap().what,
            FromHost::Window(FromWindow::Message { ref body, .. }) if body == r#"{"cmd":"hello"}"#
        ));
        match said.recv_timeout(wait).unwrap().what {
            FromHost::Ended { status, success } => {
                assert!(status.contains('3') && !success, "{status}");
            }
            other => panic!("{other:?}"),
        }
        drop(process);
    }

    #[test]
    fn dropping_the_process_closes_its_stdin_and_it_ends() {
        // Reads until its stdin closes, and says how many lines it got.
        let (process, said, _dir) = start_script(
            r#"n=0
while read line; do n=$((n+1)); done
echo "{\"from_window\":\"warning\",\"text\":\"lines: $n\"}""#,
            1,
        );
        process.send(ToWindow::Title {
            title: "Settings".into(),
        });
        drop(process);
        let wait = Duration::from_secs(10);
        // The first line, the title, and the Close sent on drop.
        assert_eq!(
            said.recv_timeout(wait).unwrap().what,
            FromHost::Window(FromWindow::Warning {
                text: "lines: 3".into()
            })
        );
        assert!(matches!(
            said.recv_timeout(wait).unwrap().what,
            FromHost::Ended { .. }
        ));
    }
}
