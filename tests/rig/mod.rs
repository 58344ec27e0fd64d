//! A real X11 desktop on a headless Linux machine, for the end-to-end test (`tests/desktop.rs`)
//! and the headless demonstration (`examples/desktop_demo.rs`).
//!
//! `Desktop::start` brings up, in order: Xvfb, a session D-Bus, openbox (a window manager, so
//! `xdotool windowactivate` can focus a window), PulseAudio with a fake microphone (a null sink
//! whose monitor is the default source; ALSA is routed to it through `$XDG_CONFIG_HOME/alsa/
//! asoundrc`, which is what cpal opens) plus a low-latency reader that keeps the null sink from
//! working in 2 s blocks, dunst (notifications), `dbus-monitor` logging every `Notify` call, and
//! trayer (hosts the XEmbed tray icon that libayatana-appindicator falls back to).
//! Then `play` a WAV into the fake microphone, press keys and click with xdotool, read and set
//! the clipboard with xclip, open a GTK text box in another process (zenity) or a terminal whose
//! lines are read back (`terminal`: xterm, xfce4-terminal), take screenshots and find the tray
//! icon in them by colour.
//!
//! Every process is started by this module, recorded by pid, and stopped by `stop()` or on drop:
//! SIGTERM, a bounded wait, SIGKILL if needed, and always a `wait()` (PID 1 in the containers
//! this runs in does not reap orphans). Nothing is ever killed by name. Every wait is bounded and
//! its error says what did not come up. Missing tools are reported with the Debian package to
//! install (`scripts/setup.sh --desktop` or `--test` installs them all).
//!
//! Standard library only, plus `png` to read screenshots (and `serde_json` for sway's tree on
//! the Wayland desktop, [`wayland`]).
#![allow(dead_code)]

use std::collections::VecDeque;
use std::ffi::OsStr;
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufReader, Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Mutex;
use std::thread;
use std::time::{Duration, Instant};

pub mod terminal;
pub mod wayland;

/// Screen size of the virtual display.
pub const SCREEN: (u32, u32) = (1024, 768);
/// Height of the trayer panel at the top edge; tray icons lie within it, at the right.
pub const TRAY_HEIGHT: u32 = 40;
/// The PulseAudio sink `play` writes to; its monitor is the default source (the microphone).
pub const FAKE_SINK: &str = "fakesink";

const SIGTERM: i32 = 15;
const SIGKILL: i32 = 9;
extern "C" {
    // libc's kill(2): std cannot send SIGTERM, and the `kill` program may be missing.
    fn kill(pid: i32, sig: i32) -> i32;
}

/// A command whose process gets SIGTERM if the thread that started it dies (a test killed
/// by a signal skips every `Drop`; this keeps its desktop from outliving it). Linux only
/// (prctl's PR_SET_PDEATHSIG): elsewhere, where this desktop cannot run anyway (the tests that
/// use it are Linux-only files; the demo example reports the missing X11 tools), a plain command,
/// so the example still builds and links there.
#[cfg(target_os = "linux")]
fn new_command(program: impl AsRef<OsStr>) -> Command {
    use std::os::unix::process::CommandExt;
    const PR_SET_PDEATHSIG: i32 = 1;
    extern "C" {
        // libc's prctl(2).
        fn prctl(option: i32, arg2: u64, arg3: u64, arg4: u64, arg5: u64) -> i32;
    }
    let mut cmd = Command::new(program);
    // SAFETY: prctl is async-signal-safe and touches no memory of the parent.
    unsafe {
        cmd.pre_exec(|| {
            prctl(PR_SET_PDEATHSIG, SIGTERM as u64, 0, 0, 0);
            Ok(())
        });
    }
    cmd
}

#[cfg(not(target_os = "linux"))]
fn new_command(program: impl AsRef<OsStr>) -> Command {
    Command::new(program)
}

/// The tools the desktop needs: (program, Debian package that provides it).
const TOOLS: &[(&str, &str)] = &[
    ("Xvfb", "xvfb"),
    ("xdpyinfo", "x11-utils"),
    ("xprop", "x11-utils"),
    ("xsetroot", "x11-xserver-utils"),
    ("dbus-daemon", "dbus"),
    ("dbus-send", "dbus"),
    ("dbus-monitor", "dbus"),
    ("openbox", "openbox"),
    ("pulseaudio", "pulseaudio"),
    ("pactl", "pulseaudio-utils"),
    ("paplay", "pulseaudio-utils"),
    ("parec", "pulseaudio-utils"),
    ("dunst", "dunst"),
    ("trayer", "trayer"),
    ("xdotool", "xdotool"),
    ("xclip", "xclip"),
    ("zenity", "zenity"),
    ("import", "imagemagick"),
];

/// Shared libraries looked up by file name in the usual library folders: (file, package).
const LIBRARIES: &[(&str, &str)] = &[
    // ALSA's `pulse` plugin: without it cpal's ALSA `default` device cannot reach PulseAudio.
    (
        "alsa-lib/libasound_module_pcm_pulse.so",
        "libasound2-plugins",
    ),
    // The tray icon (the app loads it at run time).
    (
        "libayatana-appindicator3.so.1",
        "libayatana-appindicator3-1",
    ),
];

/// Checks that every tool and library the desktop needs is installed; the error lists what is
/// missing and the Debian packages that provide it.
pub fn check_tools() -> io::Result<()> {
    let mut missing: Vec<(String, &str)> = Vec::new();
    for (program, package) in TOOLS {
        if find_in_path(program).is_none() {
            missing.push((program.to_string(), package));
        }
    }
    for (file, package) in LIBRARIES {
        if !library_installed(file) {
            missing.push((file.rsplit('/').next().unwrap().to_string(), package));
        }
    }
    if missing.is_empty() {
        return Ok(());
    }
    let mut packages: Vec<&str> = missing.iter().map(|(_, p)| *p).collect();
    packages.dedup();
    packages.sort();
    packages.dedup();
    let what: Vec<String> = missing
        .iter()
        .map(|(t, p)| format!("{t} (package {p})"))
        .collect();
    Err(io::Error::new(
        io::ErrorKind::NotFound,
        format!(
            "the headless desktop needs tools that are not installed: {}. Install them with \
             `scripts/setup.sh --desktop` (or `scripts/setup.sh --test`), or \
             `apt-get install {}`",
            what.join(", "),
            packages.join(" ")
        ),
    ))
}

fn find_in_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| {
            fs::metadata(candidate)
                .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
                .unwrap_or(false)
        })
}

fn library_installed(file: &str) -> bool {
    let mut dirs: Vec<PathBuf> = vec!["/usr/lib".into(), "/usr/lib64".into(), "/lib".into()];
    for root in ["/usr/lib", "/lib"] {
        if let Ok(entries) = fs::read_dir(root) {
            for entry in entries.flatten() {
                let name = entry.file_name();
                if name.to_string_lossy().contains("-linux-") {
                    dirs.push(entry.path());
                }
            }
        }
    }
    dirs.iter().any(|dir| dir.join(file).exists())
}

/// A process the desktop started: its name (for messages), the child, and its log file.
struct Started {
    name: String,
    child: Child,
    log: PathBuf,
}

impl Started {
    /// SIGTERM, up to `grace` for it to exit, then SIGKILL; always waited for.
    fn stop(&mut self, grace: Duration) -> io::Result<ExitStatus> {
        stop_child(&mut self.child, grace)
    }
}

/// Stops exactly this child: SIGTERM, a bounded wait, SIGKILL if it is still there, and a
/// `wait()` so it does not stay a zombie.
fn stop_child(child: &mut Child, grace: Duration) -> io::Result<ExitStatus> {
    if let Some(status) = child.try_wait()? {
        return Ok(status);
    }
    // SAFETY: kill(2) on the pid of our own child, which has not been waited for (so the pid
    // cannot have been reused).
    unsafe { kill(child.id() as i32, SIGTERM) };
    if let Some(status) = wait_child(child, grace)? {
        return Ok(status);
    }
    unsafe { kill(child.id() as i32, SIGKILL) };
    child.wait()
}

/// Waits up to `timeout` for the child to exit; `None` if it is still running.
fn wait_child(child: &mut Child, timeout: Duration) -> io::Result<Option<ExitStatus>> {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Some(status));
        }
        if Instant::now() >= deadline {
            return Ok(None);
        }
        thread::sleep(Duration::from_millis(20));
    }
}

/// The last `lines` lines of a log file, for error messages.
pub fn tail(path: &Path, lines: usize) -> String {
    let text = fs::read(path)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    let all: Vec<&str> = text.lines().collect();
    let start = all.len().saturating_sub(lines);
    all[start..].join("\n")
}

fn err(message: impl Into<String>) -> io::Error {
    io::Error::other(message.into())
}

fn timed_out(message: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::TimedOut, message.into())
}

/// Runs a command to completion within `timeout`, capturing stdout and stderr; on timeout the
/// command is killed and waited for, and the error names `what`.
pub fn output_within(mut cmd: Command, what: &str, timeout: Duration) -> io::Result<Output> {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd
        .spawn()
        .map_err(|e| err(format!("{what}: cannot start: {e}")))?;
    let mut out_pipe = child.stdout.take().unwrap();
    let mut err_pipe = child.stderr.take().unwrap();
    let out_reader = thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = out_pipe.read_to_end(&mut buf);
        buf
    });
    let err_reader = thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = err_pipe.read_to_end(&mut buf);
        buf
    });
    match wait_child(&mut child, timeout)? {
        Some(status) => Ok(Output {
            status,
            stdout: out_reader.join().unwrap_or_default(),
            stderr: err_reader.join().unwrap_or_default(),
        }),
        None => {
            unsafe { kill(child.id() as i32, SIGKILL) };
            let _ = child.wait();
            Err(timed_out(format!(
                "{what} did not finish within {} s",
                timeout.as_secs_f32()
            )))
        }
    }
}

/// `output_within`, and a non-zero exit is an error carrying the command's stderr.
pub fn run_ok(cmd: Command, what: &str, timeout: Duration) -> io::Result<String> {
    let out = output_within(cmd, what, timeout)?;
    if !out.status.success() {
        return Err(err(format!(
            "{what} failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Polls `ready` every 50 ms until it returns true or `timeout` passes; `what` names the thing
/// that should have come up, e.g. "Xvfb :99 did not answer xdpyinfo".
fn wait_until(what: &str, timeout: Duration, mut ready: impl FnMut() -> bool) -> io::Result<()> {
    let deadline = Instant::now() + timeout;
    loop {
        if ready() {
            return Ok(());
        }
        if Instant::now() >= deadline {
            return Err(timed_out(format!(
                "{what} within {} s",
                timeout.as_secs_f32()
            )));
        }
        thread::sleep(Duration::from_millis(50));
    }
}

static RUNTIME_COUNTER: AtomicU32 = AtomicU32::new(0);

/// A running virtual desktop; see the module documentation.
pub struct Desktop {
    display: u32,
    /// The Wayland socket's name (`wayland-1`) on a Wayland desktop (`wayland::start`); `None`
    /// on the X11 one.
    wayland: Option<String>,
    scratch: PathBuf,
    logs: PathBuf,
    home: PathBuf,
    config_home: PathBuf,
    /// XDG_RUNTIME_DIR and the sockets (D-Bus, PulseAudio): a short path under /tmp, since a
    /// unix socket path must stay under 108 bytes whatever the scratch folder is.
    runtime: PathBuf,
    bus_address: String,
    pulse_server: String,
    notify_log: PathBuf,
    /// The desktop's processes in start order; stopped in reverse.
    procs: Vec<Started>,
    /// Short-lived helpers (xclip serving the clipboard, stray text boxes), stopped first.
    helpers: Mutex<Vec<Started>>,
    counter: AtomicU32,
}

impl Desktop {
    /// A desktop with nothing started yet: its folders under `scratch` made, and its runtime
    /// folder (`/tmp/PREFIX-PID-N`, owner-only) fresh.
    fn unstarted(scratch: &Path, prefix: &str) -> io::Result<Desktop> {
        let logs = scratch.join("logs");
        let home = scratch.join("home");
        let config_home = scratch.join("config");
        for dir in [&logs, &home, &config_home] {
            fs::create_dir_all(dir)?;
        }
        let runtime = std::env::temp_dir().join(format!(
            "{prefix}-{}-{}",
            std::process::id(),
            RUNTIME_COUNTER.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = fs::remove_dir_all(&runtime);
        fs::create_dir_all(&runtime)?;
        fs::set_permissions(&runtime, fs::Permissions::from_mode(0o700))?;
        Ok(Desktop {
            display: 0,
            wayland: None,
            scratch: scratch.to_path_buf(),
            logs: logs.clone(),
            home,
            config_home,
            bus_address: format!("unix:path={}", runtime.join("bus").display()),
            pulse_server: format!("unix:{}", runtime.join("pulse.sock").display()),
            runtime,
            notify_log: logs.join("notifications.log"),
            procs: Vec::new(),
            helpers: Mutex::new(Vec::new()),
            counter: AtomicU32::new(0),
        })
    }

    /// Starts the whole desktop; `scratch` receives the logs, the PulseAudio home, the config
    /// folder (asoundrc, openbox, autostart) and anything else the desktop writes. On error,
    /// whatever was already started is stopped again.
    pub fn start(scratch: &Path) -> io::Result<Desktop> {
        check_tools()?;
        let mut desktop = Desktop::unstarted(scratch, "wd-rig")?;
        // On error `desktop` is dropped here, which stops what was started.
        desktop.start_xvfb()?;
        desktop.start_dbus()?;
        desktop.start_openbox()?;
        desktop.start_pulseaudio()?;
        desktop.start_dunst()?;
        desktop.start_notification_monitor()?;
        desktop.start_trayer()?;
        Ok(desktop)
    }

    /// The X display name, e.g. ":99".
    pub fn display(&self) -> String {
        format!(":{}", self.display)
    }

    pub fn scratch(&self) -> &Path {
        &self.scratch
    }

    /// The environment every program on this desktop needs (the app included). HOME is left
    /// alone on purpose: the app finds its models under the real home. `WAYLAND_DISPLAY` must
    /// be removed as well (see `env_remove` / `command`).
    pub fn env(&self) -> Vec<(String, String)> {
        if let Some(socket) = &self.wayland {
            return self.wayland_env(socket);
        }
        vec![
            ("DISPLAY".into(), self.display()),
            ("DBUS_SESSION_BUS_ADDRESS".into(), self.bus_address.clone()),
            ("PULSE_SERVER".into(), self.pulse_server.clone()),
            (
                "XDG_CONFIG_HOME".into(),
                self.config_home.display().to_string(),
            ),
            ("XDG_RUNTIME_DIR".into(), self.runtime.display().to_string()),
            ("XDG_SESSION_TYPE".into(), "x11".into()),
            ("GDK_BACKEND".into(), "x11".into()),
            ("NO_AT_BRIDGE".into(), "1".into()),
        ]
    }

    /// Variables that must not reach programs on this desktop.
    pub fn env_remove(&self) -> &'static [&'static str] {
        if self.wayland.is_some() {
            &["DISPLAY", "SWAYSOCK"]
        } else {
            &["WAYLAND_DISPLAY"]
        }
    }

    /// A command with this desktop's environment.
    pub fn command(&self, program: impl AsRef<OsStr>) -> Command {
        let mut cmd = new_command(program);
        cmd.envs(self.env());
        for name in self.env_remove() {
            cmd.env_remove(name);
        }
        cmd
    }

    fn log_file(&self, name: &str) -> io::Result<(PathBuf, File, File)> {
        let path = self.logs.join(format!("{name}.log"));
        let file = OpenOptions::new().create(true).append(true).open(&path)?;
        let clone = file.try_clone()?;
        Ok((path, file, clone))
    }

    /// Starts a desktop process with its output in `logs/NAME.log` and records it.
    fn spawn(&mut self, name: &str, cmd: Command) -> io::Result<()> {
        self.spawn_logged(name, cmd, true)
    }

    /// `spawn` for a process whose stdout is data, not messages: only stderr is logged.
    fn spawn_quiet(&mut self, name: &str, cmd: Command) -> io::Result<()> {
        self.spawn_logged(name, cmd, false)
    }

    fn spawn_logged(&mut self, name: &str, mut cmd: Command, stdout: bool) -> io::Result<()> {
        let (log, out, errf) = self.log_file(name)?;
        let out = if stdout {
            Stdio::from(out)
        } else {
            Stdio::null()
        };
        cmd.stdin(Stdio::null()).stdout(out).stderr(errf);
        let child = cmd
            .spawn()
            .map_err(|e| err(format!("cannot start {name}: {e}")))?;
        self.procs.push(Started {
            name: name.to_string(),
            child,
            log,
        });
        Ok(())
    }

    /// Waits until `ready` holds; fails at once (with its log) if the last started process
    /// exits meanwhile, or after `timeout` with an error saying that `what` did not happen.
    fn wait_ready(
        &mut self,
        what: &str,
        timeout: Duration,
        ready: impl Fn(&Desktop) -> bool,
    ) -> io::Result<()> {
        let deadline = Instant::now() + timeout;
        loop {
            if ready(self) {
                return Ok(());
            }
            let last = self.procs.last_mut().expect("a started process");
            if let Some(status) = last.child.try_wait()? {
                return Err(err(format!(
                    "{what}: {} exited ({status}); its log ({}):\n{}",
                    last.name,
                    last.log.display(),
                    tail(&last.log, 15)
                )));
            }
            if Instant::now() >= deadline {
                let last = self.procs.last().unwrap();
                return Err(timed_out(format!(
                    "{what} within {} s; the log of {} ({}):\n{}",
                    timeout.as_secs_f32(),
                    last.name,
                    last.log.display(),
                    tail(&last.log, 15)
                )));
            }
            thread::sleep(Duration::from_millis(50));
        }
    }

    fn start_xvfb(&mut self) -> io::Result<()> {
        let mut attempts = 0;
        for n in 90..400u32 {
            let socket = PathBuf::from(format!("/tmp/.X11-unix/X{n}"));
            let lock = PathBuf::from(format!("/tmp/.X{n}-lock"));
            if socket.exists() || lock.exists() {
                continue;
            }
            attempts += 1;
            let mut cmd = new_command("Xvfb");
            cmd.arg(format!(":{n}"))
                .args(["-screen", "0"])
                .arg(format!("{}x{}x24", SCREEN.0, SCREEN.1))
                .args(["-nolisten", "tcp"])
                // Without it the server resets when its last client leaves — right after the
                // readiness check's xdpyinfo — and a client connecting then (openbox) is
                // refused: "Failed to open the display".
                .arg("-noreset");
            self.spawn("xvfb", cmd)?;
            self.display = n;
            let result = self.wait_ready(
                &format!("Xvfb :{n} did not answer xdpyinfo"),
                Duration::from_secs(10),
                |d| {
                    let cmd = d.command("xdpyinfo");
                    output_within(cmd, "xdpyinfo", Duration::from_secs(5))
                        .map(|o| o.status.success())
                        .unwrap_or(false)
                },
            );
            match result {
                Ok(()) => return Ok(()),
                Err(e)
                    if attempts < 5
                        && self.procs.last_mut().unwrap().child.try_wait()?.is_some() =>
                {
                    // Another server took the number between our check and its start ("Server
                    // is already active"): try the next number. This one was waited for.
                    self.procs.pop();
                    eprintln!("rig: {e}; trying the next display number");
                }
                Err(e) => return Err(e),
            }
        }
        Err(err("no free X display number between :90 and :399"))
    }

    fn start_dbus(&mut self) -> io::Result<()> {
        let mut cmd = new_command("dbus-daemon");
        cmd.args(["--session", "--nofork", "--nopidfile"])
            .arg(format!("--address={}", self.bus_address));
        self.spawn("dbus-daemon", cmd)?;
        let what = format!("the session D-Bus at {} did not answer", self.bus_address);
        self.wait_ready(&what, Duration::from_secs(10), |d| {
            let mut cmd = d.command("dbus-send");
            cmd.args([
                "--session",
                "--print-reply",
                "--dest=org.freedesktop.DBus",
                "/org/freedesktop/DBus",
                "org.freedesktop.DBus.GetId",
            ]);
            run_ok(cmd, "dbus-send GetId", Duration::from_secs(5)).is_ok()
        })
    }

    /// True when `property` is set on the root window to a window id.
    fn root_has(&self, property: &str) -> bool {
        let mut cmd = self.command("xprop");
        cmd.args(["-root", property]);
        run_ok(cmd, "xprop", Duration::from_secs(5))
            .map(|out| out.contains("window id"))
            .unwrap_or(false)
    }

    fn start_openbox(&mut self) -> io::Result<()> {
        let cmd = self.command("openbox");
        self.spawn("openbox", cmd)?;
        let what = format!("openbox did not manage display {}", self.display());
        self.wait_ready(&what, Duration::from_secs(10), |d| {
            d.root_has("_NET_SUPPORTING_WM_CHECK")
        })?;
        // A dark background (set once the window manager runs, or it is lost), so that
        // screenshots show the tray and the menus clearly.
        let mut root = self.command("xsetroot");
        root.args(["-solid", "#2e3440"]);
        run_ok(root, "xsetroot", Duration::from_secs(10)).map(drop)
    }

    fn pactl(&self, args: &[&str]) -> io::Result<String> {
        let mut cmd = self.command("pactl");
        cmd.args(args);
        run_ok(
            cmd,
            &format!("pactl {}", args.join(" ")),
            Duration::from_secs(5),
        )
    }

    fn start_pulseaudio(&mut self) -> io::Result<()> {
        let script = self.scratch.join("fake-microphone.pa");
        let socket = self.runtime.join("pulse.sock");
        fs::write(
            &script,
            format!(
                "load-module module-native-protocol-unix auth-anonymous=1 socket={}\n\
                 load-module module-null-sink sink_name={FAKE_SINK} \
                 sink_properties=device.description=Fake-microphone\n\
                 set-default-sink {FAKE_SINK}\n\
                 set-default-source {FAKE_SINK}.monitor\n",
                socket.display()
            ),
        )?;
        let mut cmd = self.command("pulseaudio");
        cmd.env("HOME", &self.home)
            .args(["-n", "-F"])
            .arg(&script)
            .args([
                "--daemonize=no",
                "--exit-idle-time=-1",
                "--use-pid-file=no",
                "--log-target=stderr",
            ]);
        self.spawn("pulseaudio", cmd)?;
        let what = format!(
            "PulseAudio did not answer `pactl info` at {}",
            self.pulse_server
        );
        self.wait_ready(&what, Duration::from_secs(15), |d| {
            d.pactl(&["info"]).is_ok()
        })?;

        // ALSA's default device is PulseAudio: cpal opens ALSA `default`.
        let alsa = self.config_home.join("alsa");
        fs::create_dir_all(&alsa)?;
        fs::write(
            alsa.join("asoundrc"),
            "pcm.!default { type pulse }\nctl.!default { type pulse }\n",
        )?;

        // Without a low-latency reader the null sink renders in 2 s blocks and a recorder's
        // first audio arrives 1-2 s late.
        let mut reader = self.command("parec");
        reader
            .args(["--latency-msec=20", "-d"])
            .arg(format!("{FAKE_SINK}.monitor"));
        self.spawn_quiet("parec", reader)?;
        self.wait_ready(
            "the low-latency parec reader did not connect to PulseAudio",
            Duration::from_secs(10),
            |d| {
                d.pactl(&["list", "short", "source-outputs"])
                    .map(|s| !s.trim().is_empty())
                    .unwrap_or(false)
            },
        )
    }

    /// Whether `name` has an owner on the session bus.
    fn bus_name_owned(&self, name: &str) -> bool {
        let mut cmd = self.command("dbus-send");
        cmd.args([
            "--session",
            "--print-reply",
            "--dest=org.freedesktop.DBus",
            "/org/freedesktop/DBus",
            "org.freedesktop.DBus.NameHasOwner",
        ])
        .arg(format!("string:{name}"));
        run_ok(cmd, "dbus-send NameHasOwner", Duration::from_secs(5))
            .map(|out| out.contains("boolean true"))
            .unwrap_or(false)
    }

    fn start_dunst(&mut self) -> io::Result<()> {
        // Bottom left, out of the way of the tray and its menu at the top right.
        let config = self.scratch.join("dunstrc");
        fs::write(
            &config,
            "[global]\n    origin = bottom-left\n    offset = 10x10\n    width = 420\n",
        )?;
        let mut cmd = self.command("dunst");
        cmd.arg("-config").arg(&config);
        self.spawn("dunst", cmd)?;
        self.wait_ready(
            "dunst did not own org.freedesktop.Notifications on the session bus",
            Duration::from_secs(10),
            |d| d.bus_name_owned("org.freedesktop.Notifications"),
        )
    }

    fn start_notification_monitor(&mut self) -> io::Result<()> {
        let log = self.notify_log.clone();
        let mut cmd = self.command("dbus-monitor");
        cmd.arg("interface='org.freedesktop.Notifications',member='Notify'")
            .stdin(Stdio::null())
            .stdout(File::create(&log)?)
            .stderr(File::create(self.logs.join("dbus-monitor.stderr.log"))?);
        let child = cmd
            .spawn()
            .map_err(|e| err(format!("cannot start dbus-monitor: {e}")))?;
        self.procs.push(Started {
            name: "dbus-monitor".into(),
            child,
            log: log.clone(),
        });
        // dbus-monitor loses its unique name when it becomes a monitor: from then on it logs.
        self.wait_ready(
            "dbus-monitor did not start monitoring notifications",
            Duration::from_secs(10),
            |d| {
                fs::read_to_string(&d.notify_log)
                    .map(|s| s.contains("NameLost"))
                    .unwrap_or(false)
            },
        )
    }

    fn start_trayer(&mut self) -> io::Result<()> {
        let mut cmd = self.command("trayer");
        cmd.args([
            "--edge",
            "top",
            "--align",
            "right",
            "--widthtype",
            "request",
            "--height",
        ])
        .arg(TRAY_HEIGHT.to_string())
        .args(["--SetDockType", "true"]);
        self.spawn("trayer", cmd)?;
        self.wait_ready(
            "trayer did not show its panel",
            Duration::from_secs(10),
            |d| d.window_exists("--class", "trayer"),
        )
    }

    /// Whether a window matches `xdotool search HOW PATTERN`.
    fn window_exists(&self, how: &str, pattern: &str) -> bool {
        let mut cmd = self.command("xdotool");
        cmd.args(["search", how, pattern]);
        output_within(cmd, "xdotool search", Duration::from_secs(5))
            .map(|o| o.status.success() && !o.stdout.is_empty())
            .unwrap_or(false)
    }

    // ------------------------------------------------------------------ driving

    fn xdotool(&self, args: &[&str]) -> io::Result<String> {
        let mut cmd = self.command("xdotool");
        cmd.args(args);
        run_ok(
            cmd,
            &format!("xdotool {}", args.join(" ")),
            Duration::from_secs(10),
        )
    }

    /// Presses and holds keys, e.g. `key_down("ctrl+alt+space")` (XTEST, like a real keyboard).
    pub fn key_down(&self, keys: &str) -> io::Result<()> {
        self.xdotool(&["keydown", keys]).map(drop)
    }

    /// Releases keys pressed with `key_down`: "ctrl+alt+space" releases Ctrl, Alt and Space, in
    /// that order (`xdotool keyup ctrl alt space`).
    pub fn key_up(&self, keys: &str) -> io::Result<()> {
        let mut args = vec!["keyup"];
        args.extend(keys.split('+').filter(|k| !k.is_empty()));
        self.xdotool(&args).map(drop)
    }

    /// Presses and releases keys, e.g. `key("o")`, `key("ctrl+v")`.
    pub fn key(&self, keys: &str) -> io::Result<()> {
        self.xdotool(&["key", keys]).map(drop)
    }

    /// Moves the pointer to (x, y) and clicks button 1.
    pub fn click(&self, x: u32, y: u32) -> io::Result<()> {
        self.xdotool(&["mousemove", &x.to_string(), &y.to_string(), "click", "1"])
            .map(drop)
    }

    /// Moves the pointer to (x, y) without clicking.
    pub fn move_pointer(&self, x: u32, y: u32) -> io::Result<()> {
        self.xdotool(&["mousemove", &x.to_string(), &y.to_string()])
            .map(drop)
    }

    /// Plays a WAV file into the fake microphone; the app hears it as if spoken.
    pub fn play(&self, wav: &Path) -> io::Result<Playback> {
        if !wav.is_file() {
            return Err(err(format!("no audio file at {}", wav.display())));
        }
        let (_, out, errf) = self.log_file("paplay")?;
        let mut cmd = self.command("paplay");
        cmd.args(["-d", FAKE_SINK])
            .arg(wav)
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(errf);
        let child = cmd
            .spawn()
            .map_err(|e| err(format!("cannot start paplay: {e}")))?;
        Ok(Playback {
            child,
            file: wav.to_path_buf(),
            started: Instant::now(),
        })
    }

    /// A screenshot of the whole screen (PNG).
    pub fn screenshot(&self, path: &Path) -> io::Result<()> {
        self.screenshot_with(path, &[])
    }

    /// A screenshot of the rectangle at (x, y), `width` x `height` (PNG).
    pub fn screenshot_region(
        &self,
        path: &Path,
        (x, y, width, height): (u32, u32, u32, u32),
    ) -> io::Result<()> {
        let geometry = format!("{width}x{height}+{x}+{y}");
        self.screenshot_with(path, &["-crop", &geometry, "+repage"])
    }

    fn screenshot_with(&self, path: &Path, extra: &[&str]) -> io::Result<()> {
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent)?;
        }
        let mut cmd = self.command("import");
        cmd.args(["-window", "root"]).args(extra).arg(path);
        run_ok(
            cmd,
            &format!("screenshot (import) to {}", path.display()),
            Duration::from_secs(20),
        )
        .map(drop)
    }

    /// Takes screenshots into `shot` until the tray band shows a region of at least
    /// `min_pixels` pixels within `tolerance` of `colour` (an icon drawn in that colour), and
    /// returns it; the error names the screenshot and the closest match.
    pub fn wait_for_tray_icon(
        &self,
        shot: &Path,
        colour: [u8; 3],
        tolerance: u8,
        min_pixels: usize,
        timeout: Duration,
    ) -> io::Result<Blob> {
        let deadline = Instant::now() + timeout;
        loop {
            self.screenshot(shot)?;
            let found = find_blob(shot, colour, tolerance, tray_area())?;
            match found {
                Some(blob) if blob.pixels >= min_pixels => return Ok(blob),
                _ if Instant::now() >= deadline => {
                    return Err(timed_out(format!(
                        "no tray icon of colour #{:02X}{:02X}{:02X} in the tray (top {} px) \
                         within {} s; largest match {found:?} in {}",
                        colour[0],
                        colour[1],
                        colour[2],
                        TRAY_HEIGHT,
                        timeout.as_secs_f32(),
                        shot.display()
                    )))
                }
                _ => thread::sleep(Duration::from_millis(250)),
            }
        }
    }

    /// Clicks the tray icon at `icon` and waits until its menu is drawn: the largest region
    /// below the tray that changed since just before the click. Returns that region (its
    /// bounds are the menu's); `shot` holds the screenshot showing it.
    pub fn open_tray_menu(
        &self,
        icon: (u32, u32),
        shot: &Path,
        timeout: Duration,
    ) -> io::Result<Blob> {
        self.screenshot(shot)?;
        let before = Image::read(shot)?;
        self.click(icon.0, icon.1)?;
        let area = (0, TRAY_HEIGHT, SCREEN.0, SCREEN.1 - TRAY_HEIGHT);
        let deadline = Instant::now() + timeout;
        let mut last: Option<Blob> = None;
        loop {
            thread::sleep(Duration::from_millis(300));
            self.screenshot(shot)?;
            let after = Image::read(shot)?;
            let menu = largest_change(&before, &after, area);
            // Drawn completely: big enough, and the same as in the previous screenshot.
            if let Some(menu) = menu {
                if menu.pixels > 4000 && last == Some(menu) {
                    return Ok(menu);
                }
            }
            last = menu;
            if Instant::now() >= deadline {
                return Err(timed_out(format!(
                    "clicking the tray icon at {icon:?} opened no menu within {} s (largest \
                     change {last:?}; see {})",
                    timeout.as_secs_f32(),
                    shot.display()
                )));
            }
        }
    }

    /// A screenshot of an open menu with the tray above it (and a margin): what a reader of
    /// the docs wants to see.
    pub fn screenshot_menu(&self, menu: &Blob, icon: (u32, u32), path: &Path) -> io::Result<()> {
        let x = menu.bounds.0.min(icon.0).saturating_sub(24);
        let bottom = (menu.bounds.3 + 24).min(SCREEN.1);
        self.screenshot_region(path, (x, 0, SCREEN.0 - x, bottom))
    }

    /// The text on the clipboard ("" when nothing owns it).
    pub fn clipboard(&self) -> io::Result<String> {
        let mut cmd = self.command("xclip");
        cmd.args(["-selection", "clipboard", "-o"]);
        let out = output_within(
            cmd,
            "reading the clipboard (xclip -o)",
            Duration::from_secs(5),
        )?;
        if !out.status.success() {
            return Ok(String::new());
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// The targets (formats) the clipboard's owner offers, one per line as `xclip -t TARGETS`
    /// lists them ("" when nothing owns it): e.g. `UTF8_STRING`, and `x-kde-passwordManagerHint`
    /// on content marked as kept out of clipboard history.
    pub fn clipboard_targets(&self) -> io::Result<String> {
        let mut cmd = self.command("xclip");
        cmd.args(["-selection", "clipboard", "-t", "TARGETS", "-o"]);
        let out = output_within(
            cmd,
            "reading the clipboard's targets (xclip -t TARGETS -o)",
            Duration::from_secs(5),
        )?;
        if !out.status.success() {
            return Ok(String::new());
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// Puts `text` on the clipboard. An xclip process (recorded, stopped with the desktop)
    /// serves it until another program takes the clipboard.
    pub fn set_clipboard(&self, text: &str) -> io::Result<()> {
        let n = self.counter.fetch_add(1, Ordering::SeqCst);
        let (log, out, errf) = self.log_file("xclip")?;
        let mut cmd = self.command("xclip");
        // -quiet keeps xclip in the foreground (our child) instead of forking a daemon.
        cmd.args(["-selection", "clipboard", "-i", "-quiet"])
            .stdin(Stdio::piped())
            .stdout(out)
            .stderr(errf);
        let mut child = cmd
            .spawn()
            .map_err(|e| err(format!("cannot start xclip: {e}")))?;
        {
            let mut stdin = child.stdin.take().unwrap();
            stdin.write_all(text.as_bytes())?;
        }
        self.add_helper(Started {
            name: format!("xclip #{n}"),
            child,
            log,
        });
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            if self.clipboard()? == text {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(timed_out(format!(
                    "the clipboard did not hold {text:?} within 5 s of xclip -i"
                )));
            }
            thread::sleep(Duration::from_millis(50));
        }
    }

    fn add_helper(&self, started: Started) {
        let mut helpers = self.helpers.lock().unwrap_or_else(|e| e.into_inner());
        // Reap the helpers that have exited (xclip exits when it loses the clipboard).
        helpers.retain_mut(|h| !matches!(h.child.try_wait(), Ok(Some(_))));
        helpers.push(started);
    }

    /// Everything `dbus-monitor` logged about `Notify` calls (summary and body strings intact).
    pub fn notifications(&self) -> io::Result<String> {
        fs::read(&self.notify_log).map(|b| String::from_utf8_lossy(&b).into_owned())
    }

    /// Waits until a notification containing `text` has been sent.
    pub fn wait_for_notification(&self, text: &str, timeout: Duration) -> io::Result<()> {
        wait_until(
            &format!("no notification containing {text:?} was sent"),
            timeout,
            || {
                self.notifications()
                    .map(|n| n.contains(text))
                    .unwrap_or(false)
            },
        )
        .map_err(|e| {
            err(format!(
                "{e}; the notifications so far:\n{}",
                self.notifications().unwrap_or_default()
            ))
        })
    }

    /// Starts the app (or any program) on this desktop with its stdout and stderr in
    /// `logs/NAME-N.log`; `env` is added to the desktop's environment. `WHISPER_DICTATION_*`
    /// variables of the caller's environment are not passed on: only those in `env` reach the
    /// program, so a developer's shell cannot change what a test runs.
    pub fn spawn_app<I, A, K, V>(&self, bin: &Path, env: I, args: A) -> io::Result<AppProcess>
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<OsStr>,
        V: AsRef<OsStr>,
        A: IntoIterator,
        A::Item: AsRef<OsStr>,
    {
        if !bin.is_file() {
            return Err(err(format!("no program at {}", bin.display())));
        }
        let n = self.counter.fetch_add(1, Ordering::SeqCst);
        let stem = bin
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "app".into());
        let (log, out, errf) = self.log_file(&format!("{stem}-{n}"))?;
        let mut cmd = self.command(bin);
        for (name, _) in std::env::vars_os() {
            if name.to_string_lossy().starts_with("WHISPER_DICTATION_") {
                cmd.env_remove(name);
            }
        }
        cmd.envs(env)
            .args(args)
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(errf);
        let child = cmd
            .spawn()
            .map_err(|e| err(format!("cannot start {}: {e}", bin.display())))?;
        Ok(AppProcess {
            name: stem,
            child,
            log,
            cursor: 0,
        })
    }

    /// Stops everything this desktop started, in reverse order, and waits for each process;
    /// Xvfb has exited when this returns. Errors name the processes that had to be killed.
    pub fn stop(&mut self) -> io::Result<()> {
        let mut problems = Vec::new();
        let helpers: Vec<Started> = {
            let mut h = self.helpers.lock().unwrap_or_else(|e| e.into_inner());
            h.drain(..).collect()
        };
        for mut helper in helpers.into_iter().rev() {
            if let Err(e) = helper.stop(Duration::from_secs(2)) {
                problems.push(format!("{}: {e}", helper.name));
            }
        }
        while let Some(mut p) = self.procs.pop() {
            match p.stop(Duration::from_secs(5)) {
                Ok(_) => {}
                Err(e) => problems.push(format!("{}: {e}", p.name)),
            }
            if p.name == "xvfb" && self.display != 0 {
                // Killed hard, Xvfb leaves its lock and socket behind; they are ours to remove.
                let lock = PathBuf::from(format!("/tmp/.X{}-lock", self.display));
                let ours = fs::read_to_string(&lock)
                    .map(|s| s.trim() == p.child.id().to_string())
                    .unwrap_or(false);
                if ours {
                    let _ = fs::remove_file(&lock);
                    let _ = fs::remove_file(format!("/tmp/.X11-unix/X{}", self.display));
                }
            }
        }
        let _ = fs::remove_dir_all(&self.runtime);
        if problems.is_empty() {
            Ok(())
        } else {
            Err(err(format!(
                "stopping the desktop: {}",
                problems.join("; ")
            )))
        }
    }
}

impl Drop for Desktop {
    fn drop(&mut self) {
        if let Err(e) = self.stop() {
            eprintln!("rig: {e}");
        }
    }
}

/// A WAV file being played into the fake microphone.
pub struct Playback {
    child: Child,
    file: PathBuf,
    started: Instant,
}

impl Playback {
    pub fn started(&self) -> Instant {
        self.started
    }

    /// Waits until the file has been played (bounded by `timeout`).
    pub fn wait(&mut self, timeout: Duration) -> io::Result<()> {
        match wait_child(&mut self.child, timeout)? {
            Some(status) if status.success() => Ok(()),
            Some(status) => Err(err(format!(
                "paplay {} failed ({status})",
                self.file.display()
            ))),
            None => Err(timed_out(format!(
                "paplay {} did not finish within {} s",
                self.file.display(),
                timeout.as_secs_f32()
            ))),
        }
    }
}

impl Drop for Playback {
    fn drop(&mut self) {
        let _ = stop_child(&mut self.child, Duration::from_secs(1));
    }
}

/// A program started with `Desktop::spawn_app`, its output in a log file.
pub struct AppProcess {
    name: String,
    child: Child,
    log: PathBuf,
    /// Byte offset in the log up to which `wait_for_log` has consumed lines.
    cursor: usize,
}

impl AppProcess {
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn log_path(&self) -> &Path {
        &self.log
    }

    /// Everything the program has written so far.
    pub fn log(&self) -> String {
        fs::read(&self.log)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default()
    }

    /// Waits for a line containing `needle` after the lines matched by earlier calls, and
    /// returns it; later calls search after it. Fails at once (with the log's tail) if the
    /// program exits first, or after `timeout`.
    pub fn wait_for_log(&mut self, needle: &str, timeout: Duration) -> io::Result<String> {
        let deadline = Instant::now() + timeout;
        loop {
            let text = self.log();
            let complete = &text.as_bytes()[..text.rfind('\n').map(|i| i + 1).unwrap_or(0)];
            let complete = String::from_utf8_lossy(complete);
            let mut offset = self.cursor.min(complete.len());
            while !complete.is_char_boundary(offset) {
                offset -= 1;
            }
            let mut position = offset;
            for line in complete[offset..].split_inclusive('\n') {
                position += line.len();
                if line.contains(needle) {
                    self.cursor = position;
                    return Ok(line.trim_end().to_string());
                }
            }
            if let Some(status) = self.child.try_wait()? {
                // One last look: the line may have been written just before the exit.
                if self.log().len() > text.len() {
                    continue;
                }
                return Err(err(format!(
                    "{} exited ({status}) before logging {needle:?}; the end of its log ({}):\n{}",
                    self.name,
                    self.log.display(),
                    tail(&self.log, 25)
                )));
            }
            if Instant::now() >= deadline {
                return Err(timed_out(format!(
                    "{} did not log {needle:?} within {} s; the end of its log ({}):\n{}",
                    self.name,
                    timeout.as_secs_f32(),
                    self.log.display(),
                    tail(&self.log, 25)
                )));
            }
            thread::sleep(Duration::from_millis(50));
        }
    }

    /// Whether any line so far contains `needle` (ignores the `wait_for_log` position).
    pub fn logged(&self, needle: &str) -> bool {
        self.log().contains(needle)
    }

    /// Waits up to `timeout` for the program to exit by itself.
    pub fn wait_exit(&mut self, timeout: Duration) -> io::Result<ExitStatus> {
        wait_child(&mut self.child, timeout)?.ok_or_else(|| {
            timed_out(format!(
                "{} did not exit within {} s; the end of its log:\n{}",
                self.name,
                timeout.as_secs_f32(),
                tail(&self.log, 15)
            ))
        })
    }

    /// Kills the program at once with SIGKILL, as a crash would end it (no handler runs, no
    /// file is closed); waited for.
    pub fn kill(&mut self) -> io::Result<ExitStatus> {
        if let Some(status) = self.child.try_wait()? {
            return Ok(status);
        }
        // SAFETY: kill(2) on the pid of our own child, not yet waited for.
        unsafe { kill(self.child.id() as i32, SIGKILL) };
        self.child.wait()
    }

    /// Stops the program: SIGTERM, up to 10 s to exit, then SIGKILL; waited for.
    pub fn stop(&mut self) -> io::Result<ExitStatus> {
        stop_child(&mut self.child, Duration::from_secs(10))
    }
}

impl Drop for AppProcess {
    fn drop(&mut self) {
        let _ = self.stop();
    }
}

/// A GTK text box (`zenity --entry`) in its own process: the target of a paste.
pub struct TextBox<'d> {
    desktop: &'d Desktop,
    title: String,
    window: String,
    child: Child,
    stdout: PathBuf,
}

impl<'d> TextBox<'d> {
    /// Opens a text box whose window is titled `title` (make it unique) and waits until its
    /// window exists.
    pub fn open(desktop: &'d Desktop, title: &str) -> io::Result<TextBox<'d>> {
        let stdout = desktop.logs.join(format!("textbox-{title}.out"));
        let (_, _, errf) = desktop.log_file("zenity")?;
        let mut cmd = desktop.command("zenity");
        cmd.arg("--entry")
            .arg(format!("--title={title}"))
            .arg("--text=Dictate here:")
            .arg("--width=420")
            .stdin(Stdio::null())
            .stdout(File::create(&stdout)?)
            .stderr(errf);
        let child = cmd
            .spawn()
            .map_err(|e| err(format!("cannot start zenity: {e}")))?;
        let mut text_box = TextBox {
            desktop,
            title: title.to_string(),
            window: String::new(),
            child,
            stdout,
        };
        let pattern = format!("^{title}$");
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            let mut cmd = desktop.command("xdotool");
            cmd.args(["search", "--onlyvisible", "--name", &pattern]);
            if let Ok(out) = output_within(cmd, "xdotool search", Duration::from_secs(5)) {
                let ids = String::from_utf8_lossy(&out.stdout);
                if let Some(id) = ids.lines().next() {
                    text_box.window = id.trim().to_string();
                    return Ok(text_box);
                }
            }
            if let Some(status) = text_box.child.try_wait()? {
                return Err(err(format!(
                    "zenity (text box {title:?}) exited ({status}) before showing its window"
                )));
            }
            if Instant::now() >= deadline {
                return Err(timed_out(format!(
                    "the text box window {title:?} (zenity) did not appear within 15 s"
                )));
            }
            thread::sleep(Duration::from_millis(100));
        }
    }

    /// Gives the text box the keyboard focus and checks that it has it.
    pub fn focus(&self) -> io::Result<()> {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let _ = self
                .desktop
                .xdotool(&["windowactivate", "--sync", &self.window]);
            let active = self
                .desktop
                .xdotool(&["getactivewindow"])
                .unwrap_or_default();
            if active.trim() == self.window {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(timed_out(format!(
                    "the text box {:?} (window {}) did not get the focus within 10 s \
                     (active window: {})",
                    self.title,
                    self.window,
                    active.trim()
                )));
            }
            thread::sleep(Duration::from_millis(100));
        }
    }

    /// Presses Return in the text box and returns the text it held (zenity prints it). A
    /// Return that zenity let pass (seen once on a loaded 2-core machine: the box had the
    /// focus and stayed open) is pressed once more before giving up.
    pub fn submit(mut self) -> io::Result<String> {
        let mut closed = None;
        for wait in [Duration::from_secs(5), Duration::from_secs(10)] {
            self.focus()?;
            self.desktop
                .xdotool(&["key", "--clearmodifiers", "Return"])?;
            closed = wait_child(&mut self.child, wait)?;
            if closed.is_some() {
                break;
            }
        }
        if closed.is_none() {
            return Err(timed_out(format!(
                "the text box {:?} did not close within 15 s of two presses of Return",
                self.title
            )));
        }
        let text = fs::read_to_string(&self.stdout)?;
        Ok(text.strip_suffix('\n').unwrap_or(&text).to_string())
    }
}

impl Drop for TextBox<'_> {
    fn drop(&mut self) {
        let _ = stop_child(&mut self.child, Duration::from_secs(2));
    }
}

// ---------------------------------------------------------------------- screenshots

/// An RGB image read from a PNG file.
pub struct Image {
    pub width: u32,
    pub height: u32,
    /// Row-major RGB bytes.
    pub rgb: Vec<u8>,
}

impl Image {
    pub fn read(path: &Path) -> io::Result<Image> {
        let file = File::open(path)?;
        let mut decoder = png::Decoder::new(BufReader::new(file));
        decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
        let mut reader = decoder
            .read_info()
            .map_err(|e| err(format!("reading {}: {e}", path.display())))?;
        let size = reader
            .output_buffer_size()
            .ok_or_else(|| err(format!("{}: image too large", path.display())))?;
        let mut buf = vec![0; size];
        let info = reader
            .next_frame(&mut buf)
            .map_err(|e| err(format!("reading {}: {e}", path.display())))?;
        buf.truncate(info.buffer_size());
        let channels = match info.color_type {
            png::ColorType::Grayscale => 1,
            png::ColorType::GrayscaleAlpha => 2,
            png::ColorType::Rgb => 3,
            png::ColorType::Rgba => 4,
            png::ColorType::Indexed => {
                return Err(err(format!("{}: palette not expanded", path.display())))
            }
        };
        let mut rgb = Vec::with_capacity((info.width * info.height * 3) as usize);
        for row in buf.chunks(info.line_size) {
            for px in row.chunks(channels).take(info.width as usize) {
                match channels {
                    1 | 2 => rgb.extend_from_slice(&[px[0], px[0], px[0]]),
                    _ => rgb.extend_from_slice(&px[..3]),
                }
            }
        }
        Ok(Image {
            width: info.width,
            height: info.height,
            rgb,
        })
    }

    pub fn pixel(&self, x: u32, y: u32) -> [u8; 3] {
        let i = ((y * self.width + x) * 3) as usize;
        [self.rgb[i], self.rgb[i + 1], self.rgb[i + 2]]
    }
}

/// A connected region of pixels of one colour: its centre, size and bounding box.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Blob {
    pub x: u32,
    pub y: u32,
    pub pixels: usize,
    /// Bounding box: left, top, right, bottom (inclusive).
    pub bounds: (u32, u32, u32, u32),
}

/// Parses "#RRGGBB".
pub fn rgb(hex: &str) -> [u8; 3] {
    let h = hex.trim_start_matches('#');
    let byte = |i: usize| u8::from_str_radix(&h[i..i + 2], 16).expect("a #RRGGBB colour");
    [byte(0), byte(2), byte(4)]
}

/// The largest connected region (8-neighbourhood) of pixels within `tolerance` of `colour` on
/// every channel, as (centre x, centre y, pixel count); `None` when no pixel matches.
pub fn find_colour(
    png_path: &Path,
    colour: [u8; 3],
    tolerance: u8,
) -> io::Result<Option<(u32, u32, usize)>> {
    let image = Image::read(png_path)?;
    let whole = (0, 0, image.width, image.height);
    Ok(largest_blob(&image, colour, tolerance, whole).map(|b| (b.x, b.y, b.pixels)))
}

/// `find_colour` within the rectangle (x, y, width, height) of the image.
pub fn find_colour_in(
    png_path: &Path,
    colour: [u8; 3],
    tolerance: u8,
    area: (u32, u32, u32, u32),
) -> io::Result<Option<(u32, u32, usize)>> {
    let image = Image::read(png_path)?;
    Ok(largest_blob(&image, colour, tolerance, area).map(|b| (b.x, b.y, b.pixels)))
}

/// The largest matching region inside `area` with its bounding box (see `find_colour`).
pub fn find_blob(
    png_path: &Path,
    colour: [u8; 3],
    tolerance: u8,
    area: (u32, u32, u32, u32),
) -> io::Result<Option<Blob>> {
    let image = Image::read(png_path)?;
    Ok(largest_blob(&image, colour, tolerance, area))
}

/// The tray band of a full-screen screenshot: the top `TRAY_HEIGHT` pixels (trayer's panel).
pub fn tray_area() -> (u32, u32, u32, u32) {
    (0, 0, SCREEN.0, TRAY_HEIGHT)
}

/// The largest region of matching pixels inside `area`; ties go to the right-most region (the
/// tray is at the top right).
pub fn largest_blob(
    image: &Image,
    colour: [u8; 3],
    tolerance: u8,
    area: (u32, u32, u32, u32),
) -> Option<Blob> {
    let (width, height) = (image.width, image.height);
    largest_region(width, height, area, |x, y| {
        let p = image.pixel(x, y);
        (0..3).all(|c| p[c].abs_diff(colour[c]) <= tolerance)
    })
}

/// The largest region inside `area` where `after` differs from `before` (same size) by more
/// than a little on some channel: what appeared on the screen between two screenshots.
pub fn largest_change(before: &Image, after: &Image, area: (u32, u32, u32, u32)) -> Option<Blob> {
    if (before.width, before.height) != (after.width, after.height) {
        return None;
    }
    largest_region(after.width, after.height, area, |x, y| {
        let (a, b) = (before.pixel(x, y), after.pixel(x, y));
        (0..3).any(|c| a[c].abs_diff(b[c]) > 24)
    })
}

/// The largest 8-connected region of pixels satisfying `matches(x, y)` inside `area` of a
/// `width` x `height` image; ties go to the right-most region.
fn largest_region(
    width: u32,
    height: u32,
    (ax, ay, aw, ah): (u32, u32, u32, u32),
    pixel_matches: impl Fn(u32, u32) -> bool,
) -> Option<Blob> {
    let x1 = (ax + aw).min(width);
    let y1 = (ay + ah).min(height);
    if ax >= x1 || ay >= y1 {
        return None;
    }
    let (w, h) = ((x1 - ax) as usize, (y1 - ay) as usize);
    let matches = |x: usize, y: usize| pixel_matches(ax + x as u32, ay + y as u32);
    let mut seen = vec![false; w * h];
    let mut best: Option<Blob> = None;
    let mut queue = VecDeque::new();
    for start in 0..w * h {
        if seen[start] || !matches(start % w, start / w) {
            continue;
        }
        seen[start] = true;
        queue.push_back(start);
        let (mut count, mut sum_x, mut sum_y) = (0usize, 0usize, 0usize);
        let (mut left, mut top, mut right, mut bottom) = (usize::MAX, usize::MAX, 0, 0);
        while let Some(i) = queue.pop_front() {
            let (x, y) = (i % w, i / w);
            count += 1;
            sum_x += x;
            sum_y += y;
            left = left.min(x);
            top = top.min(y);
            right = right.max(x);
            bottom = bottom.max(y);
            for dy in -1i64..=1 {
                for dx in -1i64..=1 {
                    let (nx, ny) = (x as i64 + dx, y as i64 + dy);
                    if nx < 0 || ny < 0 || nx >= w as i64 || ny >= h as i64 {
                        continue;
                    }
                    let j = ny as usize * w + nx as usize;
                    if !seen[j] && matches(nx as usize, ny as usize) {
                        seen[j] = true;
                        queue.push_back(j);
                    }
                }
            }
        }
        let blob = Blob {
            x: ax + (sum_x / count) as u32,
            y: ay + (sum_y / count) as u32,
            pixels: count,
            bounds: (
                ax + left as u32,
                ay + top as u32,
                ax + right as u32,
                ay + bottom as u32,
            ),
        };
        let better = match best {
            None => true,
            Some(b) => count > b.pixels || (count == b.pixels && blob.x > b.x),
        };
        if better {
            best = Some(blob);
        }
    }
    best
}

// ---------------------------------------------------------------------- text

/// Lower-case words of `text` (letters, digits and apostrophes), for comparing transcripts.
pub fn words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// The share of `expected`'s words found in `got` (each found word used once).
pub fn word_recall(expected: &str, got: &str) -> f64 {
    let expected = words(expected);
    let mut got = words(got);
    let mut found = 0;
    for w in &expected {
        if let Some(i) = got.iter().position(|g| g == w) {
            got.remove(i);
            found += 1;
        }
    }
    if expected.is_empty() {
        1.0
    } else {
        found as f64 / expected.len() as f64
    }
}

/// The value of `key=` in a tracing log line: a number, a bare word, or a quoted string.
pub fn log_field(line: &str, key: &str) -> Option<String> {
    let pattern = format!("{key}=");
    let mut search = 0;
    let start = loop {
        let i = line[search..].find(&pattern)? + search;
        // A whole field name: preceded by a space (or the line start).
        if i == 0 || line.as_bytes()[i - 1] == b' ' {
            break i + pattern.len();
        }
        search = i + pattern.len();
    };
    let rest = &line[start..];
    if let Some(quoted) = rest.strip_prefix('"') {
        let mut value = String::new();
        let mut chars = quoted.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => match chars.next() {
                    Some('n') => value.push('\n'),
                    Some('t') => value.push('\t'),
                    Some(other) => value.push(other),
                    None => break,
                },
                '"' => return Some(value),
                c => value.push(c),
            }
        }
        Some(value)
    } else {
        Some(rest.split_whitespace().next().unwrap_or("").to_string())
    }
}
