//! The same virtual desktop on Wayland: a headless sway (wlroots' headless backend, pixman
//! rendering, no input devices) instead of Xvfb, openbox and trayer; the session D-Bus, the
//! fake microphone and the notification log as on X11. No X server runs (`xwayland disable`),
//! so every program here is a Wayland client or nothing.
//!
//! Driving it: keys through a virtual keyboard (`wtype`, which sway's bindings hear like a real
//! keyboard's), the clipboard through the data-control protocol (`wl-copy`/`wl-paste`), a
//! GTK text box on the Wayland backend that writes its text to a file at each change (so its
//! content is read without pressing anything in it), screenshots with `grim`.
//!
//! sway refuses to start as root ("Unable to drop root"): it checks that `setuid(0)` fails
//! after dropping privileges. The test machines run as root, so sway gets a preloaded library
//! (built here with `cc`) whose `setuid`/`setgid` fail with EPERM, which is what sway checks
//! for; nothing else of sway changes. Its bindings run commands without it (`env -u
//! LD_PRELOAD`, [`unpreloaded`]).

use super::*;

/// What the Wayland desktop needs besides what both desktops need: (program, package).
const WAYLAND_TOOLS: &[(&str, &str)] = &[
    ("sway", "sway"),
    ("swaymsg", "sway"),
    ("wtype", "wtype"),
    ("wl-copy", "wl-clipboard"),
    ("wl-paste", "wl-clipboard"),
    ("grim", "grim"),
    ("cc", "gcc"),
    ("dbus-daemon", "dbus"),
    ("pulseaudio", "pulseaudio"),
    ("dunst", "dunst"),
];

/// The system Python with GTK's bindings (the text box); not a virtualenv's.
const SYSTEM_PYTHON: &str = "/usr/bin/python3";

/// The text box: a GTK entry whose every change is written (whole, atomically) to a file.
const TEXT_BOX_PY: &str = r#"
import os, sys, gi
gi.require_version("Gtk", "3.0")
from gi.repository import Gtk
title, out = sys.argv[1], sys.argv[2]
def changed(entry):
    with open(out + ".tmp", "w", encoding="utf-8") as f:
        f.write(entry.get_text())
    os.replace(out + ".tmp", out)
window = Gtk.Window(title=title)
window.set_default_size(700, 120)
entry = Gtk.Entry()
entry.connect("changed", changed)
window.add(entry)
window.connect("destroy", Gtk.main_quit)
window.show_all()
changed(entry)
Gtk.main()
"#;

const NO_ROOT_C: &str = "#include <errno.h>\n#include <sys/types.h>\n\
int setuid(uid_t uid) { (void)uid; errno = EPERM; return -1; }\n\
int setgid(gid_t gid) { (void)gid; errno = EPERM; return -1; }\n";

/// `command` as a sway binding runs it: without the preload sway itself needs.
pub fn unpreloaded(command: &str) -> String {
    format!("env -u LD_PRELOAD {command}")
}

/// Checks the Wayland desktop's tools; the error names the packages to install.
pub fn check_wayland_tools() -> io::Result<()> {
    let mut missing: Vec<String> = WAYLAND_TOOLS
        .iter()
        .filter(|(program, _)| find_in_path(program).is_none())
        .map(|(program, package)| format!("{program} (package {package})"))
        .collect();
    let gtk = Command::new(SYSTEM_PYTHON)
        .args(["-c", "import gi; gi.require_version('Gtk', '3.0')"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !gtk {
        missing.push("GTK for Python (packages python3-gi gir1.2-gtk-3.0)".into());
    }
    if missing.is_empty() {
        return Ok(());
    }
    Err(io::Error::new(
        io::ErrorKind::NotFound,
        format!(
            "the headless Wayland desktop needs: {}. Install them with `scripts/setup.sh --test`",
            missing.join(", ")
        ),
    ))
}

impl Desktop {
    /// Starts sway (with `sway_config` added to its configuration: the test's bindings), the
    /// session D-Bus, the fake microphone, dunst and the notification log. `scratch` receives
    /// the logs and the configuration.
    pub fn start_wayland(scratch: &Path, sway_config: &str) -> io::Result<Desktop> {
        check_wayland_tools()?;
        let mut desktop = Desktop::unstarted(scratch, "wd-wl")?;
        desktop.start_dbus()?;
        desktop.start_sway(sway_config)?;
        desktop.start_pulseaudio()?;
        desktop.start_dunst()?;
        desktop.start_notification_monitor()?;
        Ok(desktop)
    }

    /// The environment of programs on the Wayland desktop.
    pub(super) fn wayland_env(&self, socket: &str) -> Vec<(String, String)> {
        vec![
            ("WAYLAND_DISPLAY".into(), socket.to_string()),
            ("DBUS_SESSION_BUS_ADDRESS".into(), self.bus_address.clone()),
            ("PULSE_SERVER".into(), self.pulse_server.clone()),
            (
                "XDG_CONFIG_HOME".into(),
                self.config_home.display().to_string(),
            ),
            ("XDG_RUNTIME_DIR".into(), self.runtime.display().to_string()),
            ("XDG_SESSION_TYPE".into(), "wayland".into()),
            ("XDG_CURRENT_DESKTOP".into(), "sway".into()),
            ("GDK_BACKEND".into(), "wayland".into()),
            ("NO_AT_BRIDGE".into(), "1".into()),
        ]
    }

    /// The Wayland socket's name, on the Wayland desktop.
    pub fn wayland_socket(&self) -> Option<&str> {
        self.wayland.as_deref()
    }

    fn start_sway(&mut self, extra: &str) -> io::Result<()> {
        let source = self.scratch.join("noroot.c");
        let preload = self.scratch.join("noroot.so");
        fs::write(&source, NO_ROOT_C)?;
        let mut cc = new_command("cc");
        cc.args(["-shared", "-fPIC", "-o"])
            .arg(&preload)
            .arg(&source);
        run_ok(
            cc,
            "building sway's root preload (cc)",
            Duration::from_secs(60),
        )?;
        let config = self.scratch.join("sway.config");
        fs::write(
            &config,
            format!(
                "xwayland disable\n\
                 output HEADLESS-1 resolution {}x{} bg #2e3440 solid_color\n\
                 default_border none\n\
                 {extra}\n",
                SCREEN.0, SCREEN.1
            ),
        )?;
        // The environment programs on the desktop get, less the socket (sway makes it).
        let mut cmd = new_command("sway");
        cmd.envs(
            self.wayland_env("")
                .into_iter()
                .filter(|(name, _)| name != "WAYLAND_DISPLAY"),
        )
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env("WLR_BACKENDS", "headless")
        .env("WLR_LIBINPUT_NO_DEVICES", "1")
        .env("WLR_RENDERER", "pixman")
        .env("LD_PRELOAD", &preload)
        .arg("-c")
        .arg(&config);
        self.spawn("sway", cmd)?;
        let runtime = self.runtime.clone();
        let socket = |runtime: &Path| -> Option<String> {
            fs::read_dir(runtime).ok()?.flatten().find_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                (name.starts_with("wayland-") && !name.ends_with(".lock")).then_some(name)
            })
        };
        self.wait_ready(
            "sway did not open its Wayland socket",
            Duration::from_secs(15),
            |_| socket(&runtime).is_some(),
        )?;
        self.wayland = socket(&runtime);
        self.wait_ready(
            "sway did not answer swaymsg -t get_version",
            Duration::from_secs(10),
            |d| d.swaymsg(&["-t", "get_version"]).is_ok(),
        )
    }

    /// Runs `swaymsg ARGS` on this desktop's sway; its reply.
    pub fn swaymsg(&self, args: &[&str]) -> io::Result<String> {
        let socket = fs::read_dir(&self.runtime)?
            .flatten()
            .map(|e| e.path())
            .find(|p| {
                p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("sway-ipc."))
            })
            .ok_or_else(|| err("sway's IPC socket is not there"))?;
        let mut cmd = self.command("swaymsg");
        cmd.arg("-s").arg(socket).args(args);
        run_ok(
            cmd,
            &format!("swaymsg {}", args.join(" ")),
            Duration::from_secs(10),
        )
    }

    fn wtype(&self, args: &[&str]) -> io::Result<String> {
        let mut cmd = self.command("wtype");
        cmd.args(args);
        run_ok(
            cmd,
            &format!("wtype {}", args.join(" ")),
            Duration::from_secs(10),
        )
    }

    /// Holds `key` (an XKB key name, e.g. "F9") down for `hold` on one virtual keyboard
    /// (`wtype -P KEY -s MS -p KEY`), as sway's bindings see a held key: the press binding runs
    /// at once, the `--release` one when it comes up. One process for both edges: sway takes a
    /// virtual keyboard that goes away as the release of its keys.
    pub fn wl_hold_key(&self, key: &str, hold: Duration) -> io::Result<HeldKey> {
        let (log, out, errf) = self.log_file("wtype")?;
        let mut cmd = self.command("wtype");
        cmd.args(["-P", key, "-s"])
            .arg(hold.as_millis().to_string())
            .args(["-p", key])
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(errf);
        let child = cmd
            .spawn()
            .map_err(|e| err(format!("cannot start wtype: {e}")))?;
        Ok(HeldKey {
            child,
            log,
            hold,
            started: Instant::now(),
        })
    }

    /// The text on the Wayland clipboard ("" when nothing offers text).
    pub fn wl_clipboard(&self) -> io::Result<String> {
        let mut cmd = self.command("wl-paste");
        cmd.args(["--no-newline", "--type", "text/plain;charset=utf-8"]);
        let out = output_within(
            cmd,
            "reading the clipboard (wl-paste)",
            Duration::from_secs(5),
        )?;
        if !out.status.success() {
            return Ok(String::new());
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// Puts `text` on the Wayland clipboard; a `wl-copy --foreground` (recorded, stopped with
    /// the desktop) serves it until another program takes the clipboard.
    pub fn wl_set_clipboard(&self, text: &str) -> io::Result<()> {
        let n = self.counter.fetch_add(1, Ordering::SeqCst);
        let (log, out, errf) = self.log_file("wl-copy")?;
        let mut cmd = self.command("wl-copy");
        cmd.args(["--foreground", "--type", "text/plain;charset=utf-8"])
            .stdin(Stdio::piped())
            .stdout(out)
            .stderr(errf);
        let mut child = cmd
            .spawn()
            .map_err(|e| err(format!("cannot start wl-copy: {e}")))?;
        child.stdin.take().unwrap().write_all(text.as_bytes())?;
        self.add_helper(Started {
            name: format!("wl-copy #{n}"),
            child,
            log,
        });
        wait_until(
            &format!("the clipboard did not hold {text:?} after wl-copy"),
            Duration::from_secs(5),
            || self.wl_clipboard().is_ok_and(|now| now == text),
        )
    }

    /// A screenshot of the whole output (PNG, `grim`).
    pub fn wl_screenshot(&self, path: &Path) -> io::Result<()> {
        let mut cmd = self.command("grim");
        cmd.arg(path);
        run_ok(cmd, "grim", Duration::from_secs(10)).map(drop)
    }
}

/// A key held by [`Desktop::wl_hold_key`].
pub struct HeldKey {
    child: Child,
    log: PathBuf,
    hold: Duration,
    started: Instant,
}

impl HeldKey {
    /// Waits until the key is up (the `--release` binding ran); when it went up.
    pub fn released(mut self) -> io::Result<Instant> {
        let status = wait_child(&mut self.child, self.hold + Duration::from_secs(10))?
            .ok_or_else(|| timed_out("wtype holding a key did not exit"))?;
        if !status.success() {
            return Err(err(format!(
                "wtype holding a key failed ({status}): {}",
                tail(&self.log, 5)
            )));
        }
        Ok(Instant::now())
    }

    /// When the key went down (the process's start).
    pub fn started(&self) -> Instant {
        self.started
    }
}

impl Drop for HeldKey {
    fn drop(&mut self) {
        let _ = stop_child(&mut self.child, Duration::from_secs(2));
    }
}

/// A GTK text box on the Wayland desktop whose text is read from the file it writes.
pub struct WaylandTextBox<'d> {
    desktop: &'d Desktop,
    title: String,
    child: Child,
    text_file: PathBuf,
}

impl<'d> WaylandTextBox<'d> {
    /// Opens the text box titled `title` and waits until sway shows it focused.
    pub fn open(desktop: &'d Desktop, title: &str) -> io::Result<WaylandTextBox<'d>> {
        let script = desktop.scratch.join("text_box.py");
        fs::write(&script, TEXT_BOX_PY)?;
        let text_file = desktop.logs.join(format!("textbox-{title}.txt"));
        let _ = fs::remove_file(&text_file);
        let (_, out, errf) = desktop.log_file(&format!("textbox-{title}"))?;
        let mut cmd = desktop.command(SYSTEM_PYTHON);
        cmd.arg(&script)
            .arg(title)
            .arg(&text_file)
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(errf);
        let child = cmd
            .spawn()
            .map_err(|e| err(format!("cannot start the GTK text box: {e}")))?;
        let text_box = WaylandTextBox {
            desktop,
            title: title.to_string(),
            child,
            text_file,
        };
        wait_until(
            &format!("the text box {title:?} was not shown focused by sway"),
            Duration::from_secs(20),
            || text_box.focused() && text_box.text_file.exists(),
        )?;
        Ok(text_box)
    }

    /// Whether sway's tree shows this window focused.
    fn focused(&self) -> bool {
        let Ok(tree) = self.desktop.swaymsg(&["-t", "get_tree"]) else {
            return false;
        };
        let Ok(tree) = serde_json::from_str::<serde_json::Value>(&tree) else {
            return false;
        };
        fn find<'a>(node: &'a serde_json::Value, title: &str) -> Option<&'a serde_json::Value> {
            if node["name"] == title {
                return Some(node);
            }
            node["nodes"]
                .as_array()
                .into_iter()
                .flatten()
                .find_map(|n| find(n, title))
        }
        find(&tree, &self.title).is_some_and(|n| n["focused"] == true)
    }

    /// Gives it the focus (sway's `focus` command) and checks it has it.
    pub fn focus(&self) -> io::Result<()> {
        let criteria = format!("[title=\"^{}$\"] focus", self.title);
        self.desktop.swaymsg(&[&criteria])?;
        wait_until(
            &format!("the text box {:?} did not get the focus", self.title),
            Duration::from_secs(10),
            || self.focused(),
        )
    }

    /// The text in the box now.
    pub fn text(&self) -> String {
        fs::read_to_string(&self.text_file).unwrap_or_default()
    }

    /// Waits until the box's text satisfies `done`; the text then (or at the timeout).
    pub fn wait_for_text(&self, timeout: Duration, done: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + timeout;
        loop {
            let text = self.text();
            if done(&text) || Instant::now() >= deadline {
                return text;
            }
            thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for WaylandTextBox<'_> {
    fn drop(&mut self) {
        let _ = stop_child(&mut self.child, Duration::from_secs(2));
    }
}
