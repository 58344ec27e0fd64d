//! A terminal on the rig's desktop as the target of a dictation: xterm or xfce4-terminal
//! running a small shell script that appends every line it reads from the terminal to a file,
//! so a test reads back exactly what reached the terminal's line, and how many Returns did.
//!
//! The terminal's tty is in its usual canonical mode: a pasted text sits in the line (echoed,
//! editable) until a Return sends it to the script, which writes it as one line of the file.
//! Without a mode that presses Enter the test presses Return itself (`press_return`); with one,
//! the file shows the line (and an empty line for every extra Return) without it.
//!
//! Like `TextBox`, the terminal is a child of the test, stopped (SIGTERM, then SIGKILL) when
//! dropped; its shell goes with it (the terminal's hang-up).

use super::{err, find_in_path, output_within, stop_child, timed_out, Desktop};
use std::fs::{self, File};
use std::io;
use std::path::PathBuf;
use std::process::{Child, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::thread;
use std::time::{Duration, Instant};

/// Reads lines from the terminal and appends each to `$OUT`, once `$READY` is written (the
/// terminal's tty is then set up and reading).
const LINE_READER: &str = r#"#!/bin/sh
: > "$READY"
while IFS= read -r line; do printf '%s\n' "$line" >> "$OUT"; done
"#;

/// Terminals opened so far, to place each one below the one before (three rows of the screen),
/// so a screenshot shows them all.
static OPENED: AtomicU32 = AtomicU32::new(0);

/// The terminals this module can start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// xterm: `WM_CLASS` "xterm", "XTerm"; Shift+Insert pastes the PRIMARY selection.
    Xterm,
    /// xfce4-terminal (VTE, GTK): `WM_CLASS` "xfce4-terminal", "Xfce4-terminal"; Ctrl+Shift+V
    /// pastes the clipboard.
    Xfce4Terminal,
}

impl Kind {
    /// The program, which is also the Debian package that provides it.
    pub fn program(self) -> &'static str {
        match self {
            Kind::Xterm => "xterm",
            Kind::Xfce4Terminal => "xfce4-terminal",
        }
    }
}

/// A terminal window whose lines are read back from a file.
pub struct Terminal<'d> {
    desktop: &'d Desktop,
    kind: Kind,
    title: String,
    window: String,
    child: Child,
    lines: PathBuf,
}

impl<'d> Terminal<'d> {
    /// Starts a `kind` terminal titled `title` (make it unique) running the line reader, and
    /// waits until the reader runs and the window is mapped.
    pub fn open(desktop: &'d Desktop, kind: Kind, title: &str) -> io::Result<Terminal<'d>> {
        let program = kind.program();
        if find_in_path(program).is_none() {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!(
                    "{program} is not installed: `scripts/setup.sh --test` (or `--desktop`) \
                     installs it, or `apt-get install {program}`"
                ),
            ));
        }
        let script = desktop.logs.join(format!("terminal-{title}.sh"));
        let lines = desktop.logs.join(format!("terminal-{title}.lines"));
        let ready = desktop.logs.join(format!("terminal-{title}.ready"));
        fs::write(&script, LINE_READER)?;
        let _ = fs::remove_file(&lines);
        let _ = fs::remove_file(&ready);
        File::create(&lines)?;
        let (_, out, errf) = desktop.log_file(&format!("terminal-{title}"))?;
        let place = format!(
            "100x8+40+{}",
            60 + 220 * (OPENED.fetch_add(1, Ordering::SeqCst) % 3)
        );
        let mut cmd = desktop.command(program);
        match kind {
            // `-e` must come last: the rest of the line is the command.
            Kind::Xterm => {
                cmd.args(["-title", title, "-geometry", &place, "-e", "sh"])
                    .arg(&script);
            }
            // Its own process (no server instance found on the bus to hand the window to),
            // no title set by the shell.
            Kind::Xfce4Terminal => {
                cmd.args([
                    "--disable-server",
                    "--hide-menubar",
                    "--dynamic-title-mode=none",
                ])
                .arg(format!("--geometry={place}"))
                .arg(format!("--title={title}"))
                .arg("-x")
                .arg("sh")
                .arg(&script);
            }
        }
        cmd.env("OUT", &lines)
            .env("READY", &ready)
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(errf);
        let child = cmd
            .spawn()
            .map_err(|e| err(format!("cannot start {program}: {e}")))?;
        let mut terminal = Terminal {
            desktop,
            kind,
            title: title.to_string(),
            window: String::new(),
            child,
            lines,
        };
        let pattern = format!("^{title}$");
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if terminal.window.is_empty() {
                let mut cmd = desktop.command("xdotool");
                cmd.args(["search", "--onlyvisible", "--name", &pattern]);
                if let Ok(out) = output_within(cmd, "xdotool search", Duration::from_secs(5)) {
                    if let Some(id) = String::from_utf8_lossy(&out.stdout).lines().next() {
                        terminal.window = id.trim().to_string();
                    }
                }
            }
            if !terminal.window.is_empty() && ready.exists() {
                return Ok(terminal);
            }
            if let Some(status) = terminal.child.try_wait()? {
                return Err(err(format!(
                    "{program} (terminal {title:?}) exited ({status}) before it was ready; \
                     its log: {}",
                    desktop.logs.join(format!("terminal-{title}.log")).display()
                )));
            }
            if Instant::now() >= deadline {
                return Err(timed_out(format!(
                    "the terminal {title:?} ({program}) was not up within 20 s (window: {:?}, \
                     line reader started: {})",
                    terminal.window,
                    ready.exists()
                )));
            }
            thread::sleep(Duration::from_millis(100));
        }
    }

    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// The X window id (decimal, as xdotool prints it).
    pub fn window(&self) -> &str {
        &self.window
    }

    /// The window's `WM_CLASS` as xprop prints it, e.g. `"xterm", "XTerm"`.
    pub fn wm_class(&self) -> io::Result<String> {
        let mut cmd = self.desktop.command("xprop");
        cmd.args(["-id", &self.window, "WM_CLASS"]);
        let out = output_within(cmd, "xprop WM_CLASS", Duration::from_secs(5))?;
        let text = String::from_utf8_lossy(&out.stdout);
        Ok(text
            .split_once('=')
            .map(|(_, v)| v.trim().to_string())
            .unwrap_or_else(|| text.trim().to_string()))
    }

    /// Gives the window another `WM_CLASS` (instance and class), as another app's would be: a
    /// rule for that name then applies to this window and no built-in one does.
    pub fn set_wm_class(&self, instance: &str, class: &str) -> io::Result<()> {
        self.desktop
            .xdotool(&[
                "set_window",
                "--classname",
                instance,
                "--class",
                class,
                &self.window,
            ])
            .map(drop)
    }

    /// Gives the terminal the keyboard focus and checks that it has it.
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
                    "the terminal {:?} (window {}) did not get the focus within 10 s \
                     (active window: {})",
                    self.title,
                    self.window,
                    active.trim()
                )));
            }
            thread::sleep(Duration::from_millis(100));
        }
    }

    /// Types `text` into the terminal as a keyboard would (XTEST), no Return.
    pub fn type_text(&self, text: &str) -> io::Result<()> {
        self.focus()?;
        self.desktop
            .xdotool(&["type", "--clearmodifiers", "--delay", "5", text])
            .map(drop)
    }

    /// Presses Return in the terminal: what sits in its line reaches the line reader.
    pub fn press_return(&self) -> io::Result<()> {
        self.focus()?;
        self.desktop
            .xdotool(&["key", "--clearmodifiers", "Return"])
            .map(drop)
    }

    /// The lines the reader has received so far.
    pub fn lines(&self) -> io::Result<Vec<String>> {
        Ok(fs::read_to_string(&self.lines)?
            .lines()
            .map(str::to_string)
            .collect())
    }

    /// Waits until the reader has received at least `n` lines; returns all of them.
    pub fn wait_for_lines(&self, n: usize, timeout: Duration) -> io::Result<Vec<String>> {
        let deadline = Instant::now() + timeout;
        loop {
            let lines = self.lines()?;
            if lines.len() >= n {
                return Ok(lines);
            }
            if Instant::now() >= deadline {
                return Err(timed_out(format!(
                    "the terminal {:?} received {} line(s), not {n}, within {} s: {lines:?}",
                    self.title,
                    lines.len(),
                    timeout.as_secs_f32()
                )));
            }
            thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Terminal<'_> {
    fn drop(&mut self) {
        let _ = stop_child(&mut self.child, Duration::from_secs(2));
    }
}
