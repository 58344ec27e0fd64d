//! The examples' reading of their own resident memory: `ps -o rss=` (kB), the same on Linux and
//! macOS, as the desktop test reads the app's.

use std::process::Command;

/// This process's resident memory as "N MB" ("?" where `ps` cannot tell).
pub fn rss() -> String {
    Command::new("ps")
        .args(["-o", "rss=", "-p", &std::process::id().to_string()])
        .output()
        .ok()
        .and_then(|out| {
            String::from_utf8_lossy(&out.stdout)
                .trim()
                .parse::<u64>()
                .ok()
        })
        .map_or_else(|| "?".to_string(), |kb| format!("{} MB", kb / 1024))
}
