//! A W3C WebDriver client of the few commands the window's desktop test needs, spoken over
//! HTTP and JSON to WebKitWebDriver (Debian's `webkit2gtk-driver`): start a session whose
//! "browser" is the app (the driver starts it), find elements by CSS, click, type, read text
//! and properties, and wait for the page to show something.

use serde_json::{json, Value};
use std::path::Path;
use std::thread;
use std::time::{Duration, Instant};

/// WebDriver's key for an element reference in JSON.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// Where Debian's webkit2gtk-driver installs the driver.
pub const DRIVER: &str = "/usr/bin/WebKitWebDriver";

/// One session of a WebDriver at `base` (`http://127.0.0.1:<port>`).
pub struct Session {
    base: String,
    id: String,
    agent: ureq::Agent,
}

/// An element of the page, by the driver's reference.
#[derive(Debug, Clone, PartialEq)]
pub struct Element(String);

fn agent(timeout: Duration) -> ureq::Agent {
    ureq::AgentBuilder::new().timeout(timeout).build()
}

/// Calls `method` on `url` with `body`; the response's `value`, or the driver's error.
fn call(
    agent: &ureq::Agent,
    method: &str,
    url: &str,
    body: Option<&Value>,
) -> Result<Value, String> {
    let request = agent
        .request(method, url)
        .set("Content-Type", "application/json");
    let response = match body {
        Some(body) => request.send_string(&body.to_string()),
        None => request.call(),
    };
    let text = match response {
        Ok(response) => response
            .into_string()
            .map_err(|e| format!("{method} {url}: {e}"))?,
        Err(ureq::Error::Status(code, response)) => {
            let text = response.into_string().unwrap_or_default();
            return Err(format!("{method} {url}: HTTP {code}: {text}"));
        }
        Err(e) => return Err(format!("{method} {url}: {e}")),
    };
    let value: Value =
        serde_json::from_str(&text).map_err(|e| format!("{method} {url}: {e}: {text}"))?;
    Ok(value.get("value").cloned().unwrap_or(Value::Null))
}

/// WebKitWebDriver started on `desktop`, ready, on a free port (returned with its process).
/// `env` is the app's: the driver starts the app as its browser, with its own environment, so
/// the app's log is the driver's process's. Panics (a test's set-up) when it cannot start.
pub fn start_driver(
    desktop: &crate::rig::Desktop,
    env: &[(&str, &str)],
) -> (crate::rig::AppProcess, u16) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or_else(|e| panic!("no free port: {e}"));
    let driver = desktop
        .spawn_app(
            Path::new(DRIVER),
            env.iter().copied(),
            [format!("--port={port}")],
        )
        .unwrap_or_else(|e| panic!("starting WebKitWebDriver: {e}"));
    wait_for_driver(port, Duration::from_secs(20)).unwrap_or_else(|e| panic!("{e}"));
    (driver, port)
}

/// Waits until the driver at `port` answers `/status` as ready.
fn wait_for_driver(port: u16, timeout: Duration) -> Result<(), String> {
    let agent = agent(Duration::from_secs(5));
    let deadline = Instant::now() + timeout;
    loop {
        let status = call(
            &agent,
            "GET",
            &format!("http://127.0.0.1:{port}/status"),
            None,
        );
        match status {
            Ok(value) if value["ready"].as_bool() != Some(false) => return Ok(()),
            other if Instant::now() > deadline => {
                return Err(format!(
                    "WebKitWebDriver did not get ready on port {port}: {other:?}"
                ))
            }
            _ => thread::sleep(Duration::from_millis(100)),
        }
    }
}

impl Session {
    /// A new session of the driver at `port` whose browser is `binary` (started by the driver
    /// with the driver's environment); waits up to `timeout` for its webview.
    pub fn start(port: u16, binary: &Path, timeout: Duration) -> Result<Session, String> {
        let base = format!("http://127.0.0.1:{port}");
        let agent = agent(timeout);
        let capabilities = json!({
            "capabilities": {
                "alwaysMatch": {
                    "webkitgtk:browserOptions": {
                        "binary": binary.to_string_lossy(),
                        "args": [],
                    }
                }
            }
        });
        let value = call(
            &agent,
            "POST",
            &format!("{base}/session"),
            Some(&capabilities),
        )?;
        let id = value["sessionId"]
            .as_str()
            .ok_or_else(|| format!("no session id in {value}"))?
            .to_string();
        Ok(Session {
            base,
            id,
            agent: self::agent(Duration::from_secs(60)),
        })
    }

    fn command(&self, method: &str, path: &str, body: Option<Value>) -> Result<Value, String> {
        let url = format!("{}/session/{}{path}", self.base, self.id);
        call(&self.agent, method, &url, body.as_ref())
    }

    fn element_of(value: &Value) -> Result<Element, String> {
        value[ELEMENT]
            .as_str()
            .map(|id| Element(id.to_string()))
            .ok_or_else(|| format!("not an element: {value}"))
    }

    /// The first element matching `css`.
    pub fn find(&self, css: &str) -> Result<Element, String> {
        let body = json!({ "using": "css selector", "value": css });
        Self::element_of(&self.command("POST", "/element", Some(body))?)
    }

    /// Every element matching `css` (none is no error).
    pub fn find_all(&self, css: &str) -> Result<Vec<Element>, String> {
        let body = json!({ "using": "css selector", "value": css });
        let value = self.command("POST", "/elements", Some(body))?;
        value
            .as_array()
            .map(|all| all.iter().map(Self::element_of).collect())
            .unwrap_or_else(|| Err(format!("not a list: {value}")))
    }

    /// The first element matching `css` inside `within`.
    pub fn find_in(&self, within: &Element, css: &str) -> Result<Element, String> {
        let body = json!({ "using": "css selector", "value": css });
        let path = format!("/element/{}/element", within.0);
        Self::element_of(&self.command("POST", &path, Some(body))?)
    }

    pub fn click(&self, element: &Element) -> Result<(), String> {
        let path = format!("/element/{}/click", element.0);
        self.command("POST", &path, Some(json!({}))).map(drop)
    }

    /// Types `text` into `element` as keystrokes (WebDriver's "Element Send Keys").
    pub fn type_text(&self, element: &Element, text: &str) -> Result<(), String> {
        let path = format!("/element/{}/value", element.0);
        self.command("POST", &path, Some(json!({ "text": text })))
            .map(drop)
    }

    pub fn clear(&self, element: &Element) -> Result<(), String> {
        let path = format!("/element/{}/clear", element.0);
        self.command("POST", &path, Some(json!({}))).map(drop)
    }

    /// The element's rendered text.
    pub fn text(&self, element: &Element) -> Result<String, String> {
        let path = format!("/element/{}/text", element.0);
        let value = self.command("GET", &path, None)?;
        Ok(value.as_str().unwrap_or_default().to_string())
    }

    /// The element's DOM property `name` (`value`, `hidden`, `disabled`, …).
    pub fn property(&self, element: &Element, name: &str) -> Result<Value, String> {
        let path = format!("/element/{}/property/{name}", element.0);
        self.command("GET", &path, None)
    }

    /// Ends the session (the driver stops the browser it started).
    pub fn end(self) -> Result<(), String> {
        self.command("DELETE", "", None).map(drop)
    }
}

/// Calls `check` every 100 ms until it gives a value, or fails after `timeout` with the last
/// thing it said.
pub fn wait_for<T>(
    what: &str,
    timeout: Duration,
    mut check: impl FnMut() -> Result<Option<T>, String>,
) -> Result<T, String> {
    let deadline = Instant::now() + timeout;
    let mut last = String::from("nothing yet");
    loop {
        match check() {
            Ok(Some(value)) => return Ok(value),
            Ok(None) => {}
            Err(e) => last = e,
        }
        if Instant::now() > deadline {
            return Err(format!("{what}: not within {timeout:?} ({last})"));
        }
        thread::sleep(Duration::from_millis(100));
    }
}
