//! The control channel to the running app, the client's side and the words both sides speak:
//! `whisper-dictation start | stop | toggle | cancel` ([`Command`]) reach the app through a Unix
//! domain socket, `control.sock` in the state folder next to `instance.lock` ([`socket_path`]).
//! The app owns the socket (`app::remote` binds it once it holds the instance lock, serves it
//! on a thread of its own, and removes it when it quits); this module only connects to it
//! ([`send`]).
//!
//! The protocol is one command per connection, one line each way: the client writes the
//! command's name and a newline (`start\n`), the app answers one line — `ok <what happened>`
//! (`ok recording`, `ok already recording`, `ok stopped`, `ok not recording`, `ok cancelled`)
//! or `error: <why>` ([`Reply`]) — and closes the connection. Unix sockets are the same on
//! Linux and macOS (`std::os::unix::net`); a socket path must fit `sockaddr_un`'s `sun_path`,
//! 104 bytes on macOS and 108 on Linux, so the shorter one counts on both ([`MAX_SOCKET_PATH`]).

use std::io::{self, BufRead, BufReader, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The socket's name inside the state folder, next to `single_instance::LOCK_FILE`.
pub const SOCKET_FILE: &str = "control.sock";

/// The longest socket path, in bytes, that binds on both Linux and macOS: macOS's `sun_path` is
/// 104 bytes with the terminating NUL (Linux's is 108). A longer state folder (a deep
/// `WHISPER_DICTATION_STATE_DIR`) leaves the app without a control channel, said in its log,
/// and the commands say so too ([`RemoteError::PathTooLong`]).
pub const MAX_SOCKET_PATH: usize = 103;

/// The longest line either side reads: a command or a reply is a few words.
pub const MAX_LINE: u64 = 256;

/// How long the client waits for the app's reply: the app answers within its own 2 s (a command
/// the event loop did not take in time is answered with an error), so this only catches an app
/// that hangs.
pub const CLIENT_TIMEOUT: Duration = Duration::from_secs(5);

/// The socket of the app whose state folder is `state_dir`.
pub fn socket_path(state_dir: &Path) -> PathBuf {
    state_dir.join(SOCKET_FILE)
}

/// What a client asks the running app to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    /// Start recording, as the hotkey's press does in hold mode (whatever mode is chosen);
    /// nothing when a recording is under way.
    Start,
    /// End the recording and transcribe it, as the hotkey's release does in hold mode (a
    /// recording shorter than 0.3 s is dropped, as a tap is); nothing when none is under way.
    Stop,
    /// [`Command::Start`] when nothing is recording, else [`Command::Stop`]: one key.
    Toggle,
    /// End the recording and throw its audio away; nothing when none is under way.
    Cancel,
}

impl Command {
    /// Every command, in the order the help lists them.
    pub const ALL: [Command; 4] = [
        Command::Start,
        Command::Stop,
        Command::Toggle,
        Command::Cancel,
    ];

    /// The command's word on the wire and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Command::Start => "start",
            Command::Stop => "stop",
            Command::Toggle => "toggle",
            Command::Cancel => "cancel",
        }
    }

    /// The command in a request line (surrounding white space and case ignored).
    ///
    /// # Errors
    /// [`ProtocolError::Empty`] for a blank line, [`ProtocolError::Unknown`] naming any other
    /// word.
    pub fn parse(line: &str) -> Result<Command, ProtocolError> {
        let word = line.trim();
        if word.is_empty() {
            return Err(ProtocolError::Empty);
        }
        Command::ALL
            .into_iter()
            .find(|command| word.eq_ignore_ascii_case(command.name()))
            .ok_or_else(|| ProtocolError::Unknown {
                word: word.chars().take(40).collect(),
            })
    }
}

/// Why a request line is not a command.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProtocolError {
    #[error("no command (expected one of start, stop, toggle, cancel)")]
    Empty,
    #[error("unknown command '{word}' (expected one of start, stop, toggle, cancel)")]
    Unknown { word: String },
}

/// The app's one-line answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// The command was taken; what happened ("recording", "already recording", …).
    Ok(String),
    /// The command was not carried out, and why.
    Error(String),
}

impl Reply {
    /// The reply as sent, without the newline: `ok <what>` or `error: <why>`. Line breaks in
    /// the text become spaces, so the reply stays one line.
    pub fn line(&self) -> String {
        let one_line = |text: &str| text.replace(['\r', '\n'], " ");
        match self {
            Reply::Ok(what) => format!("ok {}", one_line(what)),
            Reply::Error(why) => format!("error: {}", one_line(why)),
        }
    }

    /// A reply line as read (its newline may be there or not).
    ///
    /// # Errors
    /// [`RemoteError::BadReply`] for a line that is neither `ok …` nor `error: …`.
    pub fn parse(line: &str) -> Result<Reply, RemoteError> {
        let line = line.trim_end_matches(['\r', '\n']);
        if let Some(why) = line.strip_prefix("error:") {
            return Ok(Reply::Error(why.trim().to_string()));
        }
        match line.strip_prefix("ok") {
            Some(what) if what.is_empty() || what.starts_with(' ') => {
                Ok(Reply::Ok(what.trim().to_string()))
            }
            _ => Err(RemoteError::BadReply {
                line: line.chars().take(80).collect(),
            }),
        }
    }
}

impl std::fmt::Display for Reply {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.line())
    }
}

/// Why a command did not reach the app or got no answer.
#[derive(Debug, thiserror::Error)]
pub enum RemoteError {
    /// No app listens: no socket file (never started, or quit), or one a crash left behind.
    #[error(
        "whisper-dictation is not running: nothing listens on {} ({source}); start the app \
         first",
        .socket.display()
    )]
    NotRunning {
        socket: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error(
        "the control socket {} is {len} bytes long, more than the {MAX_SOCKET_PATH} a Unix \
         socket allows; point WHISPER_DICTATION_STATE_DIR at a shorter folder",
        .socket.display()
    )]
    PathTooLong { socket: PathBuf, len: usize },
    #[error("talking to the app through {}: {source}", .socket.display())]
    Io {
        socket: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("the app closed {} without a reply", .socket.display())]
    NoReply { socket: PathBuf },
    #[error("the app's reply is not understood: '{line}'")]
    BadReply { line: String },
}

/// Refuses a socket path that cannot be bound or connected to ([`MAX_SOCKET_PATH`]).
///
/// # Errors
/// [`RemoteError::PathTooLong`].
pub fn check_path(socket: &Path) -> Result<(), RemoteError> {
    let len = socket.as_os_str().len();
    if len > MAX_SOCKET_PATH {
        return Err(RemoteError::PathTooLong {
            socket: socket.to_path_buf(),
            len,
        });
    }
    Ok(())
}

/// Sends `command` to the app listening on `socket` and returns its reply, waiting at most
/// `timeout` for each read and write.
///
/// # Errors
/// [`RemoteError::NotRunning`] when nothing listens there (no socket, or a stale one), and
/// the others for a path too long, a broken connection, no reply or a reply not understood.
pub fn send(socket: &Path, command: Command, timeout: Duration) -> Result<Reply, RemoteError> {
    check_path(socket)?;
    let io_error = |source| RemoteError::Io {
        socket: socket.to_path_buf(),
        source,
    };
    let mut stream = UnixStream::connect(socket).map_err(|source| match source.kind() {
        io::ErrorKind::NotFound | io::ErrorKind::ConnectionRefused => RemoteError::NotRunning {
            socket: socket.to_path_buf(),
            source,
        },
        _ => io_error(source),
    })?;
    stream
        .set_read_timeout(Some(timeout))
        .and_then(|()| stream.set_write_timeout(Some(timeout)))
        .map_err(io_error)?;
    stream
        .write_all(format!("{}\n", command.name()).as_bytes())
        .map_err(io_error)?;
    let mut line = String::new();
    BufReader::new(stream.take(MAX_LINE))
        .read_line(&mut line)
        .map_err(io_error)?;
    if line.is_empty() {
        return Err(RemoteError::NoReply {
            socket: socket.to_path_buf(),
        });
    }
    Reply::parse(&line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_parse_from_their_names_and_nothing_else() {
        for command in Command::ALL {
            assert_eq!(Command::parse(command.name()), Ok(command));
            assert_eq!(
                Command::parse(&format!("  {}\r\n", command.name().to_uppercase())),
                Ok(command)
            );
        }
        assert_eq!(Command::parse(" \n"), Err(ProtocolError::Empty));
        let err = Command::parse("record\n").unwrap_err();
        assert_eq!(
            err,
            ProtocolError::Unknown {
                word: "record".into()
            }
        );
        assert!(err.to_string().contains("'record'"), "{err}");
        assert!(err.to_string().contains("start, stop, toggle, cancel"));
        // An endless word is cut in the message.
        let long = "x".repeat(500);
        let ProtocolError::Unknown { word } = Command::parse(&long).unwrap_err() else {
            panic!("not unknown");
        };
        assert_eq!(word.len(), 40);
    }

    #[test]
    fn replies_are_one_line_each_way() {
        let ok = Reply::Ok("already recording".into());
        assert_eq!(ok.line(), "ok already recording");
        assert_eq!(Reply::parse("ok already recording\n").unwrap(), ok);
        let error = Reply::Error("the app did not answer\nin time".into());
        assert_eq!(error.line(), "error: the app did not answer in time");
        assert_eq!(
            Reply::parse(&format!("{error}\n")).unwrap(),
            Reply::Error("the app did not answer in time".into())
        );
        assert_eq!(Reply::parse("ok").unwrap(), Reply::Ok(String::new()));
        for bad in ["okay", "", "recording", "err: x"] {
            assert!(
                matches!(Reply::parse(bad), Err(RemoteError::BadReply { .. })),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn a_missing_or_stale_socket_means_no_app_and_names_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let socket = socket_path(dir.path());
        let err = send(&socket, Command::Start, CLIENT_TIMEOUT).unwrap_err();
        assert!(matches!(err, RemoteError::NotRunning { .. }), "{err:?}");
        assert!(err.to_string().contains(&socket.display().to_string()));
        assert!(err.to_string().contains("not running"), "{err}");
        // A crash leaves the file; nothing accepts on it.
        drop(std::os::unix::net::UnixListener::bind(&socket).unwrap());
        assert!(socket.exists());
        let err = send(&socket, Command::Stop, CLIENT_TIMEOUT).unwrap_err();
        assert!(matches!(err, RemoteError::NotRunning { .. }), "{err:?}");
    }

    #[test]
    fn a_path_longer_than_sun_path_is_refused_before_connecting() {
        let long = Path::new("/tmp").join("d".repeat(MAX_SOCKET_PATH));
        let socket = socket_path(&long);
        let err = send(&socket, Command::Toggle, CLIENT_TIMEOUT).unwrap_err();
        assert!(matches!(err, RemoteError::PathTooLong { .. }), "{err:?}");
        assert!(err.to_string().contains("WHISPER_DICTATION_STATE_DIR"));
        assert!(check_path(&socket_path(Path::new("/tmp/short"))).is_ok());
        // The longest path that fits binds.
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().as_os_str().len() + 1;
        let fits = dir.path().join("s".repeat(MAX_SOCKET_PATH - base));
        assert_eq!(fits.as_os_str().len(), MAX_SOCKET_PATH);
        assert!(check_path(&fits).is_ok());
        std::os::unix::net::UnixListener::bind(&fits).unwrap();
    }
}
