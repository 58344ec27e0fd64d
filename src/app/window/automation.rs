//! The window driven by a WebDriver, for the desktop tests only: WebKitWebDriver (Debian's
//! `webkit2gtk-driver`) starts the app as its "browser" with `WEBKIT_INSPECTOR_SERVER` set, and
//! the test sets [`ENV`]. Only with both does the window's WebKit context allow automation,
//! and the History window opens at start: the driver's session takes the first webview
//! (wry hands it to WebKit's `automation-started`), so it must exist before the session starts.
//! A person's app never allows automation: the variable is read nowhere else, and without the
//! inspector server there is nothing to connect through.

/// Set to `1` by a test that drives the window through WebKitWebDriver.
pub const ENV: &str = "WHISPER_DICTATION_WEBVIEW_AUTOMATION";

/// Whether this run's window is to be driven by a WebDriver (see the module doc).
pub fn requested() -> bool {
    allowed(
        std::env::var(ENV).ok().as_deref(),
        std::env::var_os("WEBKIT_INSPECTOR_SERVER").is_some_and(|s| !s.is_empty()),
    )
}

fn allowed(flag: Option<&str>, inspector_server: bool) -> bool {
    flag.map(str::trim) == Some("1") && inspector_server
}

#[cfg(test)]
mod tests {
    use super::allowed;

    #[test]
    fn automation_needs_the_tests_flag_and_the_drivers_inspector_server() {
        assert!(allowed(Some("1"), true));
        assert!(!allowed(Some("1"), false), "no driver started the app");
        assert!(
            !allowed(None, true),
            "a driver alone is not the test's request"
        );
        assert!(!allowed(Some("0"), true));
        assert!(!allowed(Some("yes"), true));
    }
}
