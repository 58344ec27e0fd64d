//! `whisper-dictation start | stop | toggle | cancel`: one command to the running app through
//! its control socket (`whisper_dictation::remote`), for a compositor's key bindings, a
//! launcher or a macOS shortcut. The reply's text goes to stdout. Exit codes: 0 the app took
//! the command (also when it had nothing to do: "already recording", "not recording"); 1 the
//! app answered with an error, or the socket could not be used; 2 bad arguments (clap's);
//! [`NOT_RUNNING`] no app is running.

use anyhow::bail;
use whisper_dictation::paths;
use whisper_dictation::remote::{self, Command, RemoteError, Reply, CLIENT_TIMEOUT};

/// The exit code when no app listens on the socket, apart from errors (1) and bad arguments
/// (2) so that a script can tell "start the app first".
pub const NOT_RUNNING: i32 = 3;

/// Sends `command` to the app whose state folder `paths::state_dir` names and prints its reply.
pub fn run(command: Command) -> anyhow::Result<()> {
    let socket = remote::socket_path(&paths::state_dir()?);
    match remote::send(&socket, command, CLIENT_TIMEOUT) {
        Ok(Reply::Ok(what)) => {
            println!("{what}");
            Ok(())
        }
        Ok(Reply::Error(why)) => bail!("the app refused '{}': {why}", command.name()),
        Err(err @ RemoteError::NotRunning { .. }) => {
            eprintln!("whisper-dictation: {err}");
            std::process::exit(NOT_RUNNING);
        }
        Err(err) => Err(err.into()),
    }
}
