//! The app's end of the control channel ([`crate::remote`] has the protocol and the client):
//! it owns `control.sock` in the state folder. The socket's life: bound at start, only once
//! the instance lock is held (so a file a crash left behind belongs to no one and is removed
//! before binding), made owner-only (its folder is owner-only too, `private_files`); served on
//! a thread of its own; removed at the app's orderly end ([`ControlSocket`]'s drop, from
//! `shutdown`). A file left by a crash or a kill answers nothing (clients are told no app
//! runs) and is replaced at the next start. A state folder too deep for a socket path
//! ([`crate::remote::MAX_SOCKET_PATH`]) leaves the app without the channel, said in the log.
//!
//! The thread takes one connection at a time: it reads the command line (waiting at most
//! [`READ_TIMEOUT`], so a client that says nothing cannot hold it), hands the command to the
//! event loop as `AppEvent::Remote` and writes the reply the coordinator sends back (or an
//! error after [`APP_TIMEOUT`]). Commands are served in the order they connected, so a
//! compositor's press and release bindings arrive as start then stop. The coordinator maps
//! them onto the dictation state machine ([`App::remote`]): start and stop are a hold-mode
//! key-down and key-up whatever the hotkey mode, toggle picks one of them, cancel drops the
//! recording.

use super::state::{Action, Activity, Input};
use super::App;
use crate::remote::{self, Command, Reply};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

/// How long a client may take to send its command line.
pub const READ_TIMEOUT: Duration = Duration::from_secs(1);
/// How long the event loop may take to take a command and reply.
pub const APP_TIMEOUT: Duration = Duration::from_secs(2);

/// A command on its way to the coordinator, with where its reply goes.
#[derive(Debug)]
pub struct Request {
    pub command: Command,
    pub reply: mpsc::Sender<Reply>,
}

/// Why the control socket could not be served.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error(transparent)]
    PathTooLong(#[from] remote::RemoteError),
    #[error("cannot remove the stale control socket {}: {source}", .path.display())]
    RemoveStale {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("cannot listen on {}: {source}", .path.display())]
    Bind {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("cannot start the control socket's thread: {0}")]
    Spawn(#[source] io::Error),
}

/// The bound socket and its thread; dropping it stops the thread and removes the file.
#[derive(Debug)]
pub struct ControlSocket {
    path: PathBuf,
    stop: Arc<AtomicBool>,
}

impl ControlSocket {
    /// Binds `path` (removing a file already there: the caller holds the instance lock) and
    /// serves it on a thread, answering each command with `handle`'s reply.
    ///
    /// # Errors
    /// [`ServeError`] naming the path.
    pub fn serve(
        path: &Path,
        handle: impl Fn(Command) -> Reply + Send + 'static,
    ) -> Result<ControlSocket, ServeError> {
        remote::check_path(path)?;
        match std::fs::remove_file(path) {
            Ok(()) => tracing::info!(path = %path.display(), "removed a stale control socket"),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(source) => {
                return Err(ServeError::RemoveStale {
                    path: path.to_path_buf(),
                    source,
                })
            }
        }
        let listener = UnixListener::bind(path).map_err(|source| ServeError::Bind {
            path: path.to_path_buf(),
            source,
        })?;
        // The folder is owner-only already; the socket is too, should the folder ever not be.
        if let Err(e) = crate::platform::set_mode(path, crate::private_files::FILE_MODE) {
            tracing::warn!(path = %path.display(), "control socket mode not narrowed: {e}");
        }
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = Arc::clone(&stop);
        let socket = ControlSocket {
            path: path.to_path_buf(),
            stop,
        };
        std::thread::Builder::new()
            .name("control-socket".into())
            .spawn(move || accept_loop(&listener, &stopped, &handle))
            .map_err(ServeError::Spawn)?;
        Ok(socket)
    }

    /// The socket file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for ControlSocket {
    /// Tells the thread to end, wakes its `accept` with a connection of its own, and removes
    /// the file. It does not wait for the thread: a command in progress may be waiting for
    /// the event loop that is dropping this, and ends by itself within [`APP_TIMEOUT`].
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = UnixStream::connect(&self.path);
        match std::fs::remove_file(&self.path) {
            Ok(()) => tracing::info!(path = %self.path.display(), "control socket removed"),
            Err(e) => tracing::warn!(path = %self.path.display(), "control socket kept: {e}"),
        }
    }
}

fn accept_loop(listener: &UnixListener, stop: &AtomicBool, handle: &dyn Fn(Command) -> Reply) {
    for stream in listener.incoming() {
        if stop.load(Ordering::SeqCst) {
            return;
        }
        match stream {
            Ok(stream) => serve_one(stream, handle),
            Err(e) => {
                tracing::warn!("control socket: accept failed: {e}");
                // A persistent failure (no file descriptors left) must not spin.
                std::thread::sleep(Duration::from_millis(100));
            }
        }
    }
}

/// One connection: a command line in, the reply line out.
fn serve_one(mut stream: UnixStream, handle: &dyn Fn(Command) -> Reply) {
    let _ = stream.set_read_timeout(Some(READ_TIMEOUT));
    let _ = stream.set_write_timeout(Some(READ_TIMEOUT));
    let reply = match read_command(&stream) {
        Ok(command) => handle(command),
        Err(why) => {
            tracing::info!("control socket: {why}");
            Reply::Error(why)
        }
    };
    let _ = stream.write_all(format!("{}\n", reply.line()).as_bytes());
}

/// The command a client sent, or what to answer instead.
fn read_command(stream: &UnixStream) -> Result<Command, String> {
    let mut line = String::new();
    let read = BufReader::new(stream.take(remote::MAX_LINE)).read_line(&mut line);
    match read {
        Ok(_) => Command::parse(&line).map_err(|e| e.to_string()),
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
            ) =>
        {
            Err(format!(
                "no command within {} s",
                READ_TIMEOUT.as_secs_f32()
            ))
        }
        Err(e) => Err(format!("the command could not be read: {e}")),
    }
}

/// Serves `state_dir`'s control socket for the app: each command goes to the event loop
/// through `to_loop` (as `AppEvent::Remote`) and waits up to [`APP_TIMEOUT`] for the
/// coordinator's reply. `None` (said in the log) when it cannot: the app runs on without it.
pub(super) fn serve_app(
    state_dir: &Path,
    to_loop: impl Fn(Request) + Send + 'static,
) -> Option<ControlSocket> {
    let handle = move |command: Command| {
        let (reply, answer) = mpsc::channel();
        to_loop(Request { command, reply });
        match answer.recv_timeout(APP_TIMEOUT) {
            Ok(reply) => reply,
            Err(mpsc::RecvTimeoutError::Timeout) => Reply::Error(format!(
                "the app did not take '{}' within {} s",
                command.name(),
                APP_TIMEOUT.as_secs()
            )),
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                Reply::Error("the app is quitting".to_string())
            }
        }
    };
    let path = remote::socket_path(state_dir);
    match ControlSocket::serve(&path, handle) {
        Ok(socket) => {
            tracing::info!(path = %socket.path().display(), "control socket listening");
            Some(socket)
        }
        Err(e) => {
            tracing::warn!(
                "no control socket (start/stop/toggle/cancel will not reach the app): {e}"
            );
            None
        }
    }
}

/// The state machine's input for `command` while a recording is (`recording`) or is not under
/// way, and the command it stands for (toggle becomes start or stop).
pub fn input_for(command: Command, recording: bool) -> (Input, Command) {
    match command {
        Command::Start => (Input::Start, Command::Start),
        Command::Stop => (Input::Stop, Command::Stop),
        Command::Toggle if recording => (Input::Stop, Command::Stop),
        Command::Toggle => (Input::Start, Command::Start),
        Command::Cancel => (Input::Cancel, Command::Cancel),
    }
}

/// The reply to `command` (start, stop or cancel: [`input_for`]'s) whose input gave `actions`.
pub fn reply_for(command: Command, actions: &[Action]) -> Reply {
    let said = |what: &str| Reply::Ok(what.to_string());
    let did = |wanted: fn(&Action) -> bool| actions.iter().any(wanted);
    match command {
        Command::Start | Command::Toggle => {
            if did(|a| matches!(a, Action::StartRecording { .. })) {
                said("recording")
            } else {
                said("already recording")
            }
        }
        Command::Stop | Command::Cancel => {
            if did(|a| matches!(a, Action::StopRecording { .. })) {
                said("stopped")
            } else if did(|a| matches!(a, Action::CancelRecording { .. })) {
                if command == Command::Stop {
                    said("cancelled (shorter than 0.3 s)")
                } else {
                    said("cancelled")
                }
            } else {
                said("not recording")
            }
        }
    }
}

impl App {
    /// A command from the control socket, carried out and answered.
    pub(super) fn remote(&mut self, request: Request) {
        let recording = self.dictation.activity() == Activity::Recording;
        let (input, command) = input_for(request.command, recording);
        let actions = self.input_acted(input);
        let reply = reply_for(command, &actions);
        tracing::info!(
            command = request.command.name(),
            reply = %reply,
            "control command"
        );
        // A client that gave up waiting is no matter.
        let _ = request.reply.send(reply);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::remote::{send, RemoteError, CLIENT_TIMEOUT};
    use std::sync::Mutex;
    use std::time::Instant;

    #[test]
    fn toggle_stops_a_recording_and_starts_one_otherwise() {
        assert_eq!(
            input_for(Command::Toggle, true),
            (Input::Stop, Command::Stop)
        );
        assert_eq!(
            input_for(Command::Toggle, false),
            (Input::Start, Command::Start)
        );
        for recording in [true, false] {
            assert_eq!(input_for(Command::Start, recording).0, Input::Start);
            assert_eq!(input_for(Command::Stop, recording).0, Input::Stop);
            assert_eq!(input_for(Command::Cancel, recording).0, Input::Cancel);
        }
    }

    #[test]
    fn replies_say_what_the_state_machine_did() {
        let start = [Action::StartRecording { id: 1 }];
        let stop = [Action::StopRecording { id: 1 }];
        let cancel = [Action::CancelRecording { id: 1 }];
        let ok = |what: &str| Reply::Ok(what.into());
        assert_eq!(reply_for(Command::Start, &start), ok("recording"));
        assert_eq!(reply_for(Command::Start, &[]), ok("already recording"));
        assert_eq!(reply_for(Command::Stop, &stop), ok("stopped"));
        assert_eq!(
            reply_for(Command::Stop, &cancel),
            ok("cancelled (shorter than 0.3 s)")
        );
        assert_eq!(reply_for(Command::Stop, &[]), ok("not recording"));
        assert_eq!(reply_for(Command::Cancel, &cancel), ok("cancelled"));
        assert_eq!(reply_for(Command::Cancel, &[]), ok("not recording"));
        // A stop at the longest recording also says the limit was reached.
        let stopped_at_limit = [Action::StopRecording { id: 1 }, Action::MaxLengthReached];
        assert_eq!(reply_for(Command::Stop, &stopped_at_limit), ok("stopped"));
    }

    /// A server on a socket in a temporary folder whose handler records each command and
    /// replies as a tiny state machine: recording or not.
    fn server(dir: &Path) -> (ControlSocket, Arc<Mutex<Vec<Command>>>) {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&seen);
        let recording = Mutex::new(false);
        let socket = ControlSocket::serve(&remote::socket_path(dir), move |command| {
            log.lock().unwrap().push(command);
            let mut recording = recording.lock().unwrap();
            let (input, command) = input_for(command, *recording);
            let actions = match input {
                Input::Start if !*recording => vec![Action::StartRecording { id: 1 }],
                Input::Stop if *recording => vec![Action::StopRecording { id: 1 }],
                Input::Cancel if *recording => vec![Action::CancelRecording { id: 1 }],
                _ => Vec::new(),
            };
            *recording = input == Input::Start;
            reply_for(command, &actions)
        })
        .unwrap();
        (socket, seen)
    }

    /// Sends `line` as it is and returns the reply line.
    fn raw(path: &Path, line: &[u8]) -> String {
        let mut stream = UnixStream::connect(path).unwrap();
        stream.set_read_timeout(Some(CLIENT_TIMEOUT)).unwrap();
        stream.write_all(line).unwrap();
        let mut reply = String::new();
        stream.read_to_string(&mut reply).unwrap();
        reply
    }

    #[test]
    fn each_command_round_trips_through_a_real_socket() {
        let dir = tempfile::tempdir().unwrap();
        let (socket, seen) = server(dir.path());
        let path = socket.path().to_path_buf();
        assert_eq!(path, dir.path().join(remote::SOCKET_FILE));
        assert_eq!(
            crate::platform::mode_of(&path),
            Some(crate::private_files::FILE_MODE)
        );
        let ok = |what: &str| Reply::Ok(what.into());
        let steps = [
            (Command::Stop, ok("not recording")),
            (Command::Start, ok("recording")),
            (Command::Start, ok("already recording")),
            (Command::Stop, ok("stopped")),
            (Command::Toggle, ok("recording")),
            (Command::Toggle, ok("stopped")),
            (Command::Start, ok("recording")),
            (Command::Cancel, ok("cancelled")),
            (Command::Cancel, ok("not recording")),
        ];
        for (command, reply) in &steps {
            assert_eq!(
                send(&path, *command, CLIENT_TIMEOUT).unwrap(),
                *reply,
                "{command:?}"
            );
        }
        let sent: Vec<Command> = steps.iter().map(|(c, _)| *c).collect();
        assert_eq!(*seen.lock().unwrap(), sent);
        // Any case, a CRLF ending: the same command.
        assert_eq!(raw(&path, b"START\r\n"), "ok recording\n");
    }

    #[test]
    fn an_unknown_command_or_a_silent_client_gets_an_error_and_the_next_is_served() {
        let dir = tempfile::tempdir().unwrap();
        let (socket, seen) = server(dir.path());
        let path = socket.path().to_path_buf();
        assert_eq!(
            raw(&path, b"record\n"),
            "error: unknown command 'record' (expected one of start, stop, toggle, cancel)\n"
        );
        assert_eq!(
            raw(&path, b"\n"),
            "error: no command (expected one of start, stop, toggle, cancel)\n"
        );
        // Connects and says nothing: answered after the read timeout, not waited on forever.
        let begun = Instant::now();
        let mut silent = UnixStream::connect(&path).unwrap();
        silent.set_read_timeout(Some(CLIENT_TIMEOUT)).unwrap();
        let mut reply = String::new();
        silent.read_to_string(&mut reply).unwrap();
        let waited = begun.elapsed();
        assert_eq!(reply, "error: no command within 1 s\n");
        assert!(
            waited >= READ_TIMEOUT && waited < READ_TIMEOUT * 3,
            "{waited:?}"
        );
        // An endless line without a newline is cut at the limit and refused.
        let long = vec![b'x'; 4096];
        let mut stream = UnixStream::connect(&path).unwrap();
        stream.set_read_timeout(Some(CLIENT_TIMEOUT)).unwrap();
        let _ = stream.write_all(&long);
        let mut reply = String::new();
        let _ = stream.read_to_string(&mut reply);
        assert!(reply.starts_with("error: unknown command"), "{reply}");
        // None of them reached the app; a good command after them does.
        assert!(seen.lock().unwrap().is_empty());
        assert_eq!(
            send(&path, Command::Toggle, CLIENT_TIMEOUT).unwrap(),
            Reply::Ok("recording".into())
        );
    }

    #[test]
    fn a_stale_socket_is_replaced_and_the_file_goes_when_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let path = remote::socket_path(dir.path());
        // What a crash leaves: the file, with nothing listening.
        drop(UnixListener::bind(&path).unwrap());
        assert!(matches!(
            send(&path, Command::Start, CLIENT_TIMEOUT),
            Err(RemoteError::NotRunning { .. })
        ));
        let (socket, _) = server(dir.path());
        assert_eq!(
            send(&path, Command::Start, CLIENT_TIMEOUT).unwrap(),
            Reply::Ok("recording".into())
        );
        drop(socket);
        assert!(!path.exists());
        assert!(matches!(
            send(&path, Command::Stop, CLIENT_TIMEOUT),
            Err(RemoteError::NotRunning { .. })
        ));
    }

    #[test]
    fn a_state_folder_too_deep_for_a_socket_is_refused_with_its_path() {
        let deep = Path::new("/tmp").join("d".repeat(remote::MAX_SOCKET_PATH));
        let err = ControlSocket::serve(&remote::socket_path(&deep), |_| Reply::Ok(String::new()))
            .unwrap_err();
        assert!(matches!(err, ServeError::PathTooLong(_)), "{err:?}");
        assert!(err.to_string().contains("control.sock"), "{err}");
    }
}
