//! Where a wry webview goes in a tao window, which differs by platform: on Linux (WebKitGTK)
//! into the window's GTK box (tao's `default_vbox`, so the webview fills the window under any
//! menu bar), on macOS (WKWebView) as the window's content view (`WebViewBuilder::build`,
//! which sets a parent view filling the content view and makes the webview first responder).

/// Whether the window's webview is made incognito (nothing of it kept on disk). On macOS yes
/// (WKWebView's non-persistent data store, made per webview). On Linux no: wry ignores the
/// given `WebContext` for an incognito webview and makes an ephemeral WebKit context per
/// webview, and each of those left a WebKitNetworkProcess running after its window closed
/// (tests/desktop_history_window.rs counted one more per open); the app's one shared context
/// keeps it to one.
pub const WEBVIEW_INCOGNITO: bool = cfg!(not(target_os = "linux"));

/// Builds `builder`'s webview into `window`.
///
/// # Errors
/// wry's, e.g. a window without its GTK box (tao creates one unless told not to).
pub fn build_webview<'a>(
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
