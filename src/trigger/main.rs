//! `whisper-dictation-trigger start | stop | toggle | cancel`: the trigger commands of
//! `whisper-dictation` (`src/cli/trigger.rs`) in a binary without libtorch, for key bindings
//! that hold to talk. Every run of the main binary loads libtorch before `main` (~0.45 s on
//! the test machine), and with the microphone opened at key-down the words said meanwhile are
//! lost; this one starts in milliseconds. Same socket and protocol (`remote.rs`, shared by
//! path like the window's `host_link.rs`), same state folder (`paths.rs`), same replies and
//! exit codes: 0 taken, 1 refused or the socket unusable, 2 bad arguments, 3 no app running.

#[allow(dead_code)]
#[path = "../paths.rs"]
mod paths;
#[allow(dead_code)]
#[path = "../remote.rs"]
mod remote;

use remote::{Command, RemoteError, Reply, CLIENT_TIMEOUT};
use std::process::ExitCode;

const USAGE: &str = "usage: whisper-dictation-trigger start|stop|toggle|cancel\n\
    Sends one command to the running whisper-dictation app (as `whisper-dictation <command>` \
    does, without loading the speech engine): start and stop hold to talk, toggle is one key \
    for both, cancel throws the recording away.";

/// As `whisper-dictation`'s own trigger commands: not running is 3, apart from errors (1) and
/// bad arguments (2).
const NOT_RUNNING: u8 = 3;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let command = match args.as_slice() {
        [flag] if flag == "-h" || flag == "--help" => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        [word] => match Command::parse(word) {
            Ok(command) => command,
            Err(e) => return bad_arguments(&e.to_string()),
        },
        [] => return bad_arguments("no command"),
        _ => return bad_arguments("one command at a time"),
    };
    let state_dir = match paths::state_dir() {
        Ok(dir) => dir,
        Err(e) => {
            eprintln!("whisper-dictation-trigger: {e}");
            return ExitCode::FAILURE;
        }
    };
    match remote::send(&remote::socket_path(&state_dir), command, CLIENT_TIMEOUT) {
        Ok(Reply::Ok(what)) => {
            println!("{what}");
            ExitCode::SUCCESS
        }
        Ok(Reply::Error(why)) => {
            eprintln!(
                "whisper-dictation-trigger: the app refused '{}': {why}",
                command.name()
            );
            ExitCode::FAILURE
        }
        Err(err @ RemoteError::NotRunning { .. }) => {
            eprintln!("whisper-dictation-trigger: {err}");
            ExitCode::from(NOT_RUNNING)
        }
        Err(err) => {
            eprintln!("whisper-dictation-trigger: {err}");
            ExitCode::FAILURE
        }
    }
}

fn bad_arguments(why: &str) -> ExitCode {
    eprintln!("whisper-dictation-trigger: {why}\n{USAGE}");
    ExitCode::from(2)
}
