//! A bare X server of a test's own (no window manager, no desktop): the tests of the X11
//! platform code that need only a display, on display numbers apart from the shared test
//! desktop's. Needs `Xvfb` (`scripts/setup.sh --test`).

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// An Xvfb of a test's own, stopped (and waited for) on drop.
pub struct Xvfb {
    child: Child,
    /// Its display number.
    n: u32,
    pub display: String,
    /// Whether it took connections: only then are the lock and socket its own.
    up: bool,
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        // Killed, it leaves its lock and socket behind (a later run would skip the number).
        if self.up {
            let _ = std::fs::remove_file(lock_file(self.n));
            let _ = std::fs::remove_file(socket_file(self.n));
        }
    }
}

fn lock_file(n: u32) -> String {
    format!("/tmp/.X{n}-lock")
}

fn socket_file(n: u32) -> String {
    format!("/tmp/.X11-unix/X{n}")
}

/// Starts Xvfb on the first free display number in `numbers` (the shared desktop's rig uses
/// :90–:399; each test takes a range of its own) and waits until it takes connections.
pub fn start_xvfb(numbers: std::ops::Range<u32>) -> Xvfb {
    let (first, last) = (numbers.start, numbers.end - 1);
    for n in numbers {
        if Path::new(&socket_file(n)).exists() || Path::new(&lock_file(n)).exists() {
            continue;
        }
        let child = Command::new("Xvfb")
            .arg(format!(":{n}"))
            .args(["-screen", "0", "320x240x24", "-nolisten", "tcp", "-noreset"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("Xvfb: {e} (scripts/setup.sh --test installs it)"));
        let mut xvfb = Xvfb {
            child,
            n,
            display: format!(":{n}"),
            up: false,
        };
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if x11rb::connect(Some(&xvfb.display)).is_ok() {
                xvfb.up = true;
                return xvfb;
            }
            if xvfb.child.try_wait().unwrap().is_some() {
                break; // Another server took the number: try the next.
            }
            thread::sleep(Duration::from_millis(20));
        }
        // Still running but not answering: its files are its own.
        xvfb.up = xvfb.child.try_wait().unwrap().is_none();
        assert!(
            !xvfb.up,
            "Xvfb {} did not take connections within 10 s",
            xvfb.display
        );
    }
    panic!("no free X display number between :{first} and :{last}");
}
