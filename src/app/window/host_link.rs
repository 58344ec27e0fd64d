//! The pipe between the app and its window process: one JSON object per line, the app's
//! [`ToWindow`] on the window process's stdin, the window's [`FromWindow`] on its stdout.
//!
//! Compiled into both sides: the app (`src/app/window/host.rs`) and the window process
//! (`src/window_host/main.rs`, which shares nothing else with the app so that it does not
//! link libtorch). Plain data and serde only.

use serde::{Deserialize, Serialize};

/// Both sides must speak the same version: a window process left from another build says so
/// and ends instead of misreading the app.
pub const VERSION: u32 = 1;

/// What the app tells the window process.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "to_window", rename_all = "snake_case")]
pub enum ToWindow {
    /// The first line: the window to make and the page to show in it.
    Open(OpenWindow),
    /// Run a script in the page (the app's answer to a message).
    Script { js: String },
    /// Bring the window to the front with this title.
    Show { title: String },
    /// Set the window's title.
    Title { title: String },
    /// Close the window and end.
    Close,
}

/// The window to open: everything the window process knows of the app.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OpenWindow {
    pub version: u32,
    pub title: String,
    /// The language of the app's texts: the window process's own menus (macOS's menu bar,
    /// `src/window_host/main_menu.rs`) follow it. Missing (an app before it): English.
    #[serde(default)]
    pub lang: Lang,
    /// The page's address, on `origin`.
    pub url: String,
    /// Logical pixels: the size it opens at, and the smallest it may be made.
    pub size: (f64, f64),
    pub min_size: (f64, f64),
    /// Where WebKitGTK keeps the webview's own files; `None`: its default.
    pub data_dir: Option<String>,
    /// Nothing of the webview kept on disk (macOS's non-persistent store).
    pub incognito: bool,
    /// A WebDriver may drive the webview (tests only).
    pub automation: bool,
    /// The custom protocol's scheme, and the only origin the webview may navigate to.
    pub scheme: String,
    pub origin: String,
    /// The content-security policy every answer of the protocol carries.
    pub csp: String,
    /// Everything the protocol serves, by path; any other path is a 404.
    pub assets: Vec<Asset>,
}

/// The language of the app's texts, as its code: `"pl"` or `"en"` (any other: English).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Lang {
    Pl,
    #[default]
    #[serde(other)]
    En,
}

/// One file the custom protocol serves.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Asset {
    /// The URL's path, e.g. `/en/index.html`.
    pub path: String,
    pub content_type: String,
    pub body: String,
}

/// What the window process tells the app.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "from_window", rename_all = "snake_case")]
pub enum FromWindow {
    /// A message the page posted (`window.ipc.postMessage`), with the page's address.
    Message { url: String, body: String },
    /// Something the app's log should say (a refused navigation, a failed script call).
    Warning { text: String },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_one_line_each_and_read_back() {
        let script = ToWindow::Script {
            js: "window.app.reply({\"text\":\"a\\nb\"})\n".into(),
        };
        let line = serde_json::to_string(&script).unwrap();
        assert!(!line.contains('\n'), "{line}");
        assert_eq!(serde_json::from_str::<ToWindow>(&line).unwrap(), script);
        let message = FromWindow::Message {
            url: "app://localhost/pl/index.html".into(),
            body: "{\"command\":\"painted\"}".into(),
        };
        let line = serde_json::to_string(&message).unwrap();
        assert_eq!(serde_json::from_str::<FromWindow>(&line).unwrap(), message);
    }
}
