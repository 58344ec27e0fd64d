//! `whisper-dictation start | stop | toggle | cancel` as a compositor binding runs them: the
//! built binary against no app (exit 3 and a message naming the socket it tried), against a
//! stand-in for the app listening on `control.sock` (the line it sends, the reply printed, an
//! error reply exit 1), and with bad arguments (clap's exit 2). The app's own end of the
//! socket is tested in `src/app/remote.rs`. Runs on Linux and macOS; no model, no display.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixListener;
use std::path::Path;
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_whisper-dictation");

/// Runs the binary with `args` and its state folder in `state_dir`.
fn run_in(state_dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .env("WHISPER_DICTATION_STATE_DIR", state_dir)
        .env_remove("WHISPER_DICTATION_LOG")
        .output()
        .expect("the binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("UTF-8")
}

#[test]
fn with_no_app_each_command_exits_3_naming_the_socket() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("control.sock");
    for command in ["start", "stop", "toggle", "cancel"] {
        let out = run_in(dir.path(), &[command]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{command}: {err}");
        assert_eq!(text(&out.stdout), "", "{command}");
        assert_eq!(err.lines().count(), 1, "{err:?}");
        assert!(err.contains("not running"), "{err}");
        assert!(err.contains(&socket.display().to_string()), "{err}");
    }
    // A socket a crash left behind: the same.
    drop(UnixListener::bind(&socket).unwrap());
    let out = run_in(dir.path(), &["start"]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
}

#[test]
fn without_the_override_the_socket_is_in_the_data_folder() {
    let home = tempfile::tempdir().unwrap();
    let out = Command::new(BIN)
        .arg("toggle")
        .env_remove("WHISPER_DICTATION_STATE_DIR")
        .env("HOME", home.path())
        .env("XDG_DATA_HOME", home.path().join("data"))
        .output()
        .unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    // Linux: $XDG_DATA_HOME/whisper-dictation; macOS: ~/Library/Application Support/….
    assert!(
        err.contains(&home.path().display().to_string())
            && err.contains("whisper-dictation/control.sock"),
        "{err}"
    );
}

#[test]
fn bad_arguments_exit_2_with_clap_s_message() {
    let dir = tempfile::tempdir().unwrap();
    for args in [&["start", "now"][..], &["stopp"], &["toggle", "--hold"]] {
        let out = run_in(dir.path(), args);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("error:"), "{err}");
        assert_eq!(text(&out.stdout), "");
    }
}

#[test]
fn a_state_folder_too_deep_for_a_socket_is_said() {
    let deep = Path::new("/tmp").join("d".repeat(120));
    let out = run_in(&deep, &["start"]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("WHISPER_DICTATION_STATE_DIR"), "{err}");
}

/// A stand-in app on `dir/control.sock` that answers each of `replies` to one connection and
/// returns the lines it was sent.
fn stand_in(dir: &Path, replies: &'static [&'static str]) -> std::thread::JoinHandle<Vec<String>> {
    let listener = UnixListener::bind(dir.join("control.sock")).unwrap();
    std::thread::spawn(move || {
        let mut heard = Vec::new();
        for reply in replies {
            let (mut stream, _) = listener.accept().unwrap();
            let mut line = String::new();
            BufReader::new(&stream).read_line(&mut line).unwrap();
            heard.push(line);
            stream.write_all(reply.as_bytes()).unwrap();
        }
        heard
    })
}

#[test]
fn each_command_sends_its_line_and_prints_the_reply() {
    let dir = tempfile::tempdir().unwrap();
    let app = stand_in(
        dir.path(),
        &[
            "ok recording\n",
            "ok stopped\n",
            "ok already recording\n",
            "ok not recording\n",
        ],
    );
    let commands = ["start", "stop", "toggle", "cancel"];
    let mut printed = Vec::new();
    for command in commands {
        let out = run_in(dir.path(), &[command]);
        assert!(out.status.success(), "{command}: {}", text(&out.stderr));
        assert_eq!(text(&out.stderr), "");
        printed.push(text(&out.stdout));
    }
    assert_eq!(
        printed,
        [
            "recording\n",
            "stopped\n",
            "already recording\n",
            "not recording\n"
        ]
    );
    let heard = app.join().unwrap();
    assert_eq!(heard, ["start\n", "stop\n", "toggle\n", "cancel\n"]);
}

#[test]
fn an_error_reply_exits_1_and_says_it() {
    let dir = tempfile::tempdir().unwrap();
    let app = stand_in(dir.path(), &["error: the app is quitting\n"]);
    let out = run_in(dir.path(), &["start"]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(
        err,
        "whisper-dictation: the app refused 'start': the app is quitting\n"
    );
    assert_eq!(text(&out.stdout), "");
    app.join().unwrap();
}

/// The same commands from `whisper-dictation-trigger`, the binary without libtorch that key
/// bindings call: the same line sent, the same replies and exit codes (0, 1, 2, 3).
#[test]
fn the_binary_without_libtorch_speaks_the_same() {
    const LIGHT: &str = env!("CARGO_BIN_EXE_whisper-dictation-trigger");
    let run = |dir: &Path, args: &[&str]| {
        Command::new(LIGHT)
            .args(args)
            .env("WHISPER_DICTATION_STATE_DIR", dir)
            .output()
            .expect("the trigger binary runs")
    };
    let dir = tempfile::tempdir().unwrap();
    let out = run(dir.path(), &["start"]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains(&dir.path().join("control.sock").display().to_string()),
        "{err}"
    );
    for args in [&[][..], &["start", "now"], &["stopp"]] {
        let out = run(dir.path(), args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(text(&out.stderr).contains("usage:"), "{args:?}");
    }
    let app = stand_in(
        dir.path(),
        &["ok recording\n", "error: the app is quitting\n"],
    );
    let started = std::time::Instant::now();
    let out = run(dir.path(), &["start"]);
    let took = started.elapsed();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "recording\n");
    println!(
        "whisper-dictation-trigger start → reply printed: {} ms",
        took.as_millis()
    );
    let out = run(dir.path(), &["cancel"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("the app is quitting"));
    assert_eq!(app.join().unwrap(), ["start\n", "cancel\n"]);
}
