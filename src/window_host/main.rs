//! `whisper-dictation-window`: the History and Settings window's own process. The app starts
//! it when the person opens the window and it ends when the window closes, so nothing of the
//! webview (WebKit's libraries, their caches, the JavaScript engine) ever lives in the app:
//! closed, the window costs the app nothing.
//!
//! It knows nothing of the app. Its first line on stdin is the window to open
//! ([`host_link::OpenWindow`]: the title, the page's address, and every file the page may
//! load); then it runs the app's scripts in the page and forwards what the page posts to its
//! stdout, one JSON line each ([`host_link`]). The app's end of the pipe is
//! `src/app/window/host.rs`. When stdin closes (the app quit or crashed) it ends too.
//!
//! It shares no code with the app's library beyond the pipe's message types, so it does not
//! link libtorch: it starts in milliseconds and its memory is its own. On macOS it has its own
//! menu bar and Dock tile while it runs ([`main_menu`]).

#[path = "../app/window/host_link.rs"]
mod host_link;
mod main_menu;
mod menu_bar;
mod webview;

use host_link::{FromWindow, OpenWindow, ToWindow};
use std::borrow::Cow;
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, Write};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use tao::dpi::LogicalSize;
use tao::event::{Event, WindowEvent};
use tao::event_loop::{ControlFlow, EventLoopBuilder};
use tao::window::WindowBuilder;
use wry::http::Response;
use wry::{NewWindowResponse, WebContext, WebViewBuilder};

/// The pipe to the app: where the page's messages and the warnings go.
#[derive(Clone)]
struct ToApp(Arc<Mutex<File>>);

impl ToApp {
    fn send(&self, message: &FromWindow) {
        let Ok(mut line) = serde_json::to_string(message) else {
            return;
        };
        line.push('\n');
        if let Ok(mut out) = self.0.lock() {
            // The app gone: stdin closes too, and the loop ends on that.
            let _ = out.write_all(line.as_bytes()).and_then(|()| out.flush());
        }
    }

    fn warn(&self, text: String) {
        self.send(&FromWindow::Warning { text });
    }
}

fn main() -> ExitCode {
    let to_app = match webview::protocol_output() {
        Ok(pipe) => ToApp(Arc::new(Mutex::new(pipe))),
        Err(e) => {
            eprintln!("window process: no pipe to the app on stdout: {e}");
            return ExitCode::from(2);
        }
    };
    let mut first = String::new();
    if let Err(e) = std::io::stdin().lock().read_line(&mut first) {
        to_app.warn(format!("window process: cannot read what to open: {e}"));
        return ExitCode::from(2);
    }
    let open = match serde_json::from_str::<ToWindow>(&first) {
        Ok(ToWindow::Open(open)) if open.version == host_link::VERSION => open,
        Ok(ToWindow::Open(open)) => {
            to_app.warn(format!(
                "window process: it speaks version {} of the pipe and the app {} (a window \
                 process from another build: build both with `cargo build --release --bins`)",
                host_link::VERSION,
                open.version
            ));
            return ExitCode::from(2);
        }
        Ok(_) | Err(_) => {
            to_app.warn("window process: the first line was not the window to open".into());
            return ExitCode::from(2);
        }
    };
    match run(open, to_app.clone()) {
        Ok(never) => match never {},
        Err(e) => {
            to_app.warn(format!("window process: {e}"));
            ExitCode::from(1)
        }
    }
}

/// Opens the window and runs its event loop until the window or the app closes it.
fn run(open: OpenWindow, to_app: ToApp) -> Result<std::convert::Infallible, String> {
    let mut event_loop = EventLoopBuilder::<ToWindow>::with_user_event().build();
    // macOS: Edit's ⌘C/⌘V/… and the rest reach the page only through a main menu.
    let menus = main_menu::window_menu(open.lang);
    let installed_menu = match menu_bar::install(&mut event_loop, &menus) {
        Ok(installed) => Some(installed),
        Err(e) => {
            to_app.warn(format!("window process: no main menu: {e}"));
            None
        }
    };
    let proxy = event_loop.create_proxy();
    let stdin_warnings = to_app.clone();
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            match serde_json::from_str::<ToWindow>(&line) {
                Ok(message) => {
                    if proxy.send_event(message).is_err() {
                        return;
                    }
                }
                Err(e) => stdin_warnings.warn(format!("window process: unreadable line: {e}")),
            }
        }
        // The app closed the pipe (it quit, or crashed): the window goes with it.
        let _ = proxy.send_event(ToWindow::Close);
    });

    let window = WindowBuilder::new()
        .with_title(&open.title)
        .with_inner_size(LogicalSize::new(open.size.0, open.size.1))
        .with_min_inner_size(LogicalSize::new(open.min_size.0, open.min_size.1))
        // Shown once its webview exists and the page is loading: shown first, one open in
        // three under openbox waited 0.5 s more before WebKit asked for the page
        // (examples/window_open_time.rs under Xvfb + openbox: 5 of 16 opens at ~770 ms; built
        // hidden, 0 of 32).
        .with_visible(false)
        .build(&event_loop)
        .map_err(|e| format!("cannot create the window: {e}"))?;
    let mut web_context = WebContext::new(open.data_dir.as_ref().map(Into::into));
    if open.automation {
        web_context.set_allows_automation(true);
    }
    let assets: Arc<HashMap<String, host_link::Asset>> = Arc::new(
        open.assets
            .into_iter()
            .map(|asset| (asset.path.clone(), asset))
            .collect(),
    );
    let csp = open.csp.clone();
    let from_page = to_app.clone();
    let refused_navigation = to_app.clone();
    let refused_window = to_app.clone();
    let origin = open.origin.clone();
    let builder = WebViewBuilder::new_with_web_context(&mut web_context)
        .with_incognito(open.incognito)
        .with_devtools(false)
        .with_custom_protocol(open.scheme.clone(), move |_id, request| {
            response(assets.get(request.uri().path()), &csp)
        })
        .with_ipc_handler(move |request| {
            from_page.send(&FromWindow::Message {
                url: request.uri().to_string(),
                body: request.body().clone(),
            });
        })
        .with_navigation_handler(move |url| {
            let allowed = url.starts_with(&origin);
            if !allowed {
                refused_navigation.warn(format!(
                    "history window: navigation refused: {}",
                    url.chars().take(200).collect::<String>()
                ));
            }
            allowed
        })
        .with_new_window_req_handler(move |url, _features| {
            refused_window.warn(format!(
                "history window: new window refused: {}",
                url.chars().take(200).collect::<String>()
            ));
            NewWindowResponse::Deny
        })
        .with_download_started_handler(|_url, _path| false)
        .with_drag_drop_handler(|_| true)
        .with_url(&open.url);
    let webview = webview::build(builder, &window)
        .map_err(|e| format!("cannot create the window's web view: {e}"))?;
    window.set_visible(true);

    event_loop.run(move |event, _target, control_flow| {
        // Kept for the loop's life: dropped, it leaves the menu bar.
        let _kept = &installed_menu;
        *control_flow = ControlFlow::Wait;
        match event {
            Event::UserEvent(ToWindow::Script { js }) => {
                if let Err(e) = webview.evaluate_script(&js) {
                    to_app.warn(format!("history window: cannot answer the page: {e}"));
                }
            }
            Event::UserEvent(ToWindow::Show { title }) => {
                window.set_visible(true);
                window.set_focus();
                window.set_title(&title);
            }
            Event::UserEvent(ToWindow::Title { title }) => window.set_title(&title),
            Event::UserEvent(ToWindow::Close | ToWindow::Open(_))
            | Event::WindowEvent {
                event: WindowEvent::CloseRequested | WindowEvent::Destroyed,
                ..
            } => *control_flow = ControlFlow::Exit,
            _ => {}
        }
    })
}

/// The custom protocol's answer: the asset, or a 404; always with the policy.
fn response(asset: Option<&host_link::Asset>, csp: &str) -> Response<Cow<'static, [u8]>> {
    let (status, content_type, body) = match asset {
        Some(asset) => (
            200,
            asset.content_type.as_str(),
            asset.body.clone().into_bytes(),
        ),
        None => (404, "text/plain; charset=utf-8", b"not found".to_vec()),
    };
    let built = Response::builder()
        .status(status)
        .header("Content-Type", content_type)
        .header("Content-Security-Policy", csp)
        .header("X-Content-Type-Options", "nosniff")
        .header("Cache-Control", "no-store")
        .body(Cow::Owned(body));
    // The builder fails only on an invalid header: the policy came from the app.
    built.unwrap_or_else(|_| Response::new(Cow::Borrowed(&b""[..])))
}
