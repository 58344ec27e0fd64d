//! Probing in a child process: [`probe_in_child`] runs `whisper-dictation devices --probe-child
//! SPEC` (whose body is [`probe_child_main`]) so that a driver abort cannot take the app down. A
//! child that cannot start, dies (a signal, an abort) or hangs yields a report with one failed
//! `process` check, category [`ErrorCategory::Crashed`], quoting the end of its stderr.

use super::{parse_spec, run_probe, CheckResult, ProbeReport, ProbeTarget};
use crate::device::errors::ErrorCategory;
use crate::device::DeviceKind;
use std::io::{self, Read, Write};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};
use tch::Kind;

/// How long the child's output readers may lag behind its exit (a grandchild can hold the pipes).
const READER_GRACE: Duration = Duration::from_millis(500);

/// How much of the child's stderr a crash report quotes.
const STDERR_TAIL_BYTES: usize = 2000;

/// Probes `target_spec` in `exe devices --probe-child <target_spec>`, waiting at most `timeout`.
/// A child that cannot start, dies (a signal, an abort) or hangs gives a report with one failed
/// `process` check of category Crashed, quoting the end of its stderr. The child inherits the
/// environment, so a simulated GPU carries over.
pub fn probe_in_child(exe: &Path, target_spec: &str, timeout: Duration) -> ProbeReport {
    probe_with_command(probe_child_command(exe, target_spec), target_spec, timeout)
}

/// The command [`probe_in_child`] runs.
pub fn probe_child_command(exe: &Path, target_spec: &str) -> Command {
    let mut command = Command::new(exe);
    command.args(["devices", "--probe-child", target_spec]);
    command
}

/// Runs `command` as a probe child for `target_spec` and reads its report from stdout (the last
/// line that is a report, so stray output before it is harmless).
pub fn probe_with_command(command: Command, target_spec: &str, timeout: Duration) -> ProbeReport {
    let started = Instant::now();
    let (kind, precision) = match parse_spec(target_spec) {
        Ok(parsed) => parsed,
        Err(message) => {
            let check = CheckResult::failed("target", message, ErrorCategory::Unknown);
            return ProbeReport::single(DeviceKind::Cpu, Kind::Float, check, started);
        }
    };
    let outcome = run_child(command, timeout);
    if let Some(report) = outcome.stdout.as_deref().and_then(parse_report) {
        return report;
    }
    let check = CheckResult::failed("process", outcome.describe(), ErrorCategory::Crashed);
    ProbeReport::single(kind, precision, check, started)
}

/// The body of `whisper-dictation devices --probe-child SPEC`: probes the target and prints the
/// report as one JSON line on stdout. Returns the exit code: 0 once a report is printed (even a
/// failing one), 2 for a bad spec, 1 if stdout is unwritable.
pub fn probe_child_main(target_spec: &str) -> i32 {
    let started = Instant::now();
    let (kind, precision) = match parse_spec(target_spec) {
        Ok(parsed) => parsed,
        Err(message) => {
            eprintln!("{message}");
            return 2;
        }
    };
    let report = match ProbeTarget::parse(target_spec) {
        Ok(target) => run_probe(&target),
        Err(message) => {
            let check = CheckResult::failed("target", message, ErrorCategory::Unknown);
            ProbeReport::single(kind, precision, check, started)
        }
    };
    match print_report(&report) {
        Ok(()) => 0,
        Err(err) => {
            eprintln!("cannot write the probe report: {err}");
            1
        }
    }
}

fn print_report(report: &ProbeReport) -> io::Result<()> {
    let json = serde_json::to_string(report).map_err(io::Error::other)?;
    let mut stdout = io::stdout().lock();
    writeln!(stdout, "{json}")?;
    stdout.flush()
}

fn parse_report(stdout: &str) -> Option<ProbeReport> {
    stdout
        .lines()
        .rev()
        .filter_map(|line| line.find('{').map(|start| line[start..].trim()))
        .find_map(|json| serde_json::from_str(json).ok())
}

/// How a child process ended, and what it wrote.
struct ChildOutcome {
    end: ChildEnd,
    stdout: Option<String>,
    stderr: String,
}

enum ChildEnd {
    NotStarted(io::Error),
    Exited(ExitStatus),
    TimedOut(Duration),
    WaitFailed(io::Error),
}

impl ChildOutcome {
    /// The error text of a `process` check: what happened, then the end of stderr.
    fn describe(&self) -> String {
        let what = match &self.end {
            ChildEnd::NotStarted(err) => format!("the probe process could not start: {err}"),
            ChildEnd::Exited(status) if status.code().is_none() => {
                format!("the probe process died ({status})")
            }
            ChildEnd::Exited(status) => {
                format!("the probe process ended without a report ({status})")
            }
            ChildEnd::TimedOut(limit) => format!(
                "the probe process did not finish within {:.1} s and was killed",
                limit.as_secs_f64()
            ),
            ChildEnd::WaitFailed(err) => format!("waiting for the probe process failed: {err}"),
        };
        match self.stderr.trim() {
            "" => what,
            tail => format!("{what}; stderr: {tail}"),
        }
    }
}

fn run_child(mut command: Command, timeout: Duration) -> ChildOutcome {
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(err) => {
            return ChildOutcome {
                end: ChildEnd::NotStarted(err),
                stdout: None,
                stderr: String::new(),
            }
        }
    };
    let stdout = Capture::start(child.stdout.take());
    let stderr = Capture::start(child.stderr.take());
    let end = wait_or_kill(&mut child, timeout);
    ChildOutcome {
        end,
        stdout: Some(String::from_utf8_lossy(&stdout.finish(READER_GRACE)).into_owned()),
        stderr: tail(&stderr.finish(READER_GRACE), STDERR_TAIL_BYTES),
    }
}

/// Waits for `child` up to `timeout`, killing it (and reaping it) when the time is up.
fn wait_or_kill(child: &mut Child, timeout: Duration) -> ChildEnd {
    let deadline = Instant::now() + timeout;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return ChildEnd::Exited(status),
            Ok(None) if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                return ChildEnd::TimedOut(timeout);
            }
            Ok(None) => thread::sleep(Duration::from_millis(10)),
            Err(err) => {
                let _ = child.kill();
                let _ = child.wait();
                return ChildEnd::WaitFailed(err);
            }
        }
    }
}

/// The last `max_bytes` of `bytes` as text.
fn tail(bytes: &[u8], max_bytes: usize) -> String {
    let start = bytes.len().saturating_sub(max_bytes);
    String::from_utf8_lossy(&bytes[start..]).into_owned()
}

/// A pipe drained on its own thread, so a chatty child never blocks on a full pipe.
struct Capture {
    buffer: Arc<Mutex<Vec<u8>>>,
    reader: Option<JoinHandle<()>>,
}

impl Capture {
    fn start(pipe: Option<impl Read + Send + 'static>) -> Self {
        let buffer = Arc::new(Mutex::new(Vec::new()));
        let reader = pipe.map(|pipe| {
            let buffer = Arc::clone(&buffer);
            thread::spawn(move || drain(pipe, &buffer))
        });
        Capture { buffer, reader }
    }

    /// What was read, after giving the reader up to `grace` to reach the end of the pipe (a
    /// grandchild may still hold it open; its reader thread then finishes on its own later).
    fn finish(self, grace: Duration) -> Vec<u8> {
        let deadline = Instant::now() + grace;
        if let Some(reader) = self.reader {
            while !reader.is_finished() && Instant::now() < deadline {
                thread::sleep(Duration::from_millis(5));
            }
            if reader.is_finished() {
                let _ = reader.join();
            }
        }
        match self.buffer.lock() {
            Ok(guard) => guard.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }
}

fn drain(mut pipe: impl Read, buffer: &Mutex<Vec<u8>>) {
    let mut chunk = [0u8; 8192];
    loop {
        match pipe.read(&mut chunk) {
            Ok(0) => return,
            Ok(n) => match buffer.lock() {
                Ok(mut guard) => guard.extend_from_slice(&chunk[..n]),
                Err(poisoned) => poisoned.into_inner().extend_from_slice(&chunk[..n]),
            },
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::show;
    use super::*;
    use crate::device::simulated::ENV_VAR;

    #[test]
    fn child_with_a_missing_exe_is_a_crash_report() {
        let report = probe_in_child(
            Path::new("/nonexistent/whisper-dictation"),
            "mps:f16",
            Duration::from_secs(5),
        );
        assert_eq!(
            (report.kind, report.precision.as_str()),
            (DeviceKind::Mps, "f16")
        );
        let check = report.first_failure().unwrap();
        assert_eq!(check.name, "process");
        assert_eq!(check.category, Some(ErrorCategory::Crashed));
        assert!(check.error.as_deref().unwrap().contains("could not start"));
    }

    #[test]
    fn child_that_aborts_is_a_crash_report_quoting_stderr() {
        let mut command = Command::new("/bin/sh");
        command.args([
            "-c",
            "echo 'LLVM ERROR: Failed to infer result type(s).' >&2; kill -ABRT $$",
        ]);
        let report = probe_with_command(command, "mps", Duration::from_secs(10));
        let check = report.first_failure().unwrap();
        assert_eq!(check.category, Some(ErrorCategory::Crashed));
        let error = check.error.as_deref().unwrap();
        assert!(
            error.contains("died") && error.contains("LLVM ERROR"),
            "{error}"
        );
    }

    #[test]
    fn child_that_hangs_is_killed_and_reported() {
        let mut command = Command::new("/bin/sh");
        command.args(["-c", "exec sleep 30"]);
        let started = Instant::now();
        let report = probe_with_command(command, "cuda", Duration::from_millis(300));
        println!("hanging child reported after {:?}", started.elapsed());
        let check = report.first_failure().unwrap();
        assert_eq!(check.category, Some(ErrorCategory::Crashed));
        assert!(check.error.as_deref().unwrap().contains("did not finish"));
    }

    /// The test binary itself as the probe child: runs [`child_entry`] with the spec in
    /// `PROBE_TEST_CHILD_SPEC` and the simulated GPU `simulation`.
    fn test_child(spec: &str, simulation: Option<&str>) -> Command {
        let exe = std::env::current_exe().expect("test binary path");
        let mut command = Command::new(exe);
        command
            .args(["--exact", "device::probe::child::tests::child_entry"])
            .args(["--ignored", "--nocapture", "--test-threads=1"])
            .env("PROBE_TEST_CHILD_SPEC", spec);
        match simulation {
            Some(simulation) => command.env(ENV_VAR, simulation),
            None => command.env_remove(ENV_VAR),
        };
        command
    }

    #[test]
    #[ignore = "the probe child of the child-process tests"]
    fn child_entry() {
        if let Ok(spec) = std::env::var("PROBE_TEST_CHILD_SPEC") {
            probe_child_main(&spec);
        }
    }

    #[test]
    fn child_process_probe_reports_through_stdout() {
        let timeout = Duration::from_secs(120);
        let report = probe_with_command(test_child("cpu", None), "cpu", timeout);
        show("child cpu f32", &report);
        assert!(report.passed(), "{report:#?}");

        let report = probe_with_command(
            test_child("mps", Some("mps,corrupt=conv1d")),
            "mps",
            timeout,
        );
        assert_eq!(report.kind, DeviceKind::Mps);
        assert_eq!(report.first_failure().unwrap().name, "conv1d");
    }

    #[test]
    fn child_process_abort_in_the_probe_is_a_crash() {
        let command = test_child("mps", Some("mps,abort=probe"));
        let report = probe_with_command(command, "mps", Duration::from_secs(120));
        show("child mps abort=probe", &report);
        let check = report.first_failure().unwrap();
        assert_eq!(check.name, "process");
        assert_eq!(check.category, Some(ErrorCategory::Crashed));
        assert!(
            check.error.as_deref().unwrap().contains("LLVM ERROR"),
            "{check:?}"
        );
    }
}
