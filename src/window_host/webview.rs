//! The window process's platform seam: where a wry webview goes in a tao window, and which
//! file descriptor is the pipe to the app.
//!
//! On Linux (WebKitGTK) the webview goes into the window's GTK box (tao's `default_vbox`, so
//! it fills the window under any menu bar), on macOS (WKWebView) it is the window's content
//! view (`WebViewBuilder::build`, which sets a parent view filling the content view and makes
//! the webview first responder).

use std::fs::File;

/// Builds `builder`'s webview into `window`.
///
/// # Errors
/// wry's, e.g. a window without its GTK box (tao creates one unless told not to).
pub fn build<'a>(
    builder: wry::WebViewBuilder<'a>,
    window: &'a tao::window::Window,
) -> wry::Result<wry::WebView> {
    #[cfg(target_os = "linux")]
    {
        use tao::platform::unix::WindowExtUnix;
        use wry::WebViewBuilderExtUnix;
        match window.default_vbox() {
            Some(vbox) => builder.build_gtk(vbox),
            None => Err(wry::Error::UnsupportedWindowHandle),
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        builder.build(window)
    }
}

/// The pipe to the app: this process's stdout, taken for the pipe alone. Whatever a library
/// prints to stdout afterwards (GTK, WebKit) goes to stderr instead, so it can never be read
/// as a message.
///
/// # Errors
/// When there is no stdout to take.
pub fn protocol_output() -> std::io::Result<File> {
    use std::os::fd::FromRawFd;
    // SAFETY: `dup` returns a new descriptor this process owns (or -1, checked); `dup2` only
    // points descriptor 1 elsewhere.
    unsafe {
        let pipe = libc::dup(1);
        if pipe < 0 {
            return Err(std::io::Error::last_os_error());
        }
        libc::dup2(2, 1);
        Ok(File::from_raw_fd(pipe))
    }
}
