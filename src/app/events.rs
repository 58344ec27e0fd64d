//! How events reach the app's event loop: every helper thread's events, the hotkey's, the
//! menu's and the control socket's, wrapped into one [`AppEvent`] and sent through the loop's
//! proxy.

use super::history_thread::HistoryEvent;
use super::model_download::DownloadEvent;
use super::output::OutputEvent;
use super::worker::WorkerEvent;
use crate::audio::capture::RecorderEvent;
use global_hotkey::HotKeyState;
use std::sync::Mutex;
use tao::event_loop::EventLoopProxy;
use tray_icon::menu::MenuEvent;

/// Everything that reaches the event loop from elsewhere.
#[derive(Debug)]
pub enum AppEvent {
    Hotkey(HotKeyState),
    Menu(String),
    Recorder(RecorderEvent),
    Worker(WorkerEvent),
    Output(OutputEvent),
    /// A model download started from the menu.
    Download(DownloadEvent),
    /// The history database's thread ([`super::history_thread`]).
    History(HistoryEvent),
    /// Ctrl+C, SIGTERM (logout, shutdown) or SIGHUP.
    Terminate,
    /// A deadline the loop asked for has come ([`super::wakeup`]).
    Wake,
    /// The History window asks the app for something ([`super::window`]).
    Window(super::window::WindowRequest),
    /// A command from the control socket, waiting for its reply ([`super::remote`]).
    Remote(super::remote::Request),
}

/// An event sender for a thread: wraps its events into [`AppEvent`]s for the event loop.
pub(super) fn sender<E: Send + 'static>(
    proxy: &EventLoopProxy<AppEvent>,
    wrap: fn(E) -> AppEvent,
) -> impl Fn(E) + Send + 'static {
    let proxy = Mutex::new(proxy.clone());
    move |event| {
        let proxy = proxy.lock().unwrap_or_else(|p| p.into_inner());
        // Fails only once the event loop has ended (the app is quitting).
        let _ = proxy.send_event(wrap(event));
    }
}

/// The hotkey's edges as [`AppEvent::Hotkey`]s, for [`crate::platform::HotkeyListener`] (it
/// calls this from its own thread on X11).
pub(super) fn forward_hotkeys(
    proxy: &EventLoopProxy<AppEvent>,
) -> impl Fn(HotKeyState) + Send + Sync + 'static {
    let proxy = Mutex::new(proxy.clone());
    move |state| {
        let proxy = proxy.lock().unwrap_or_else(|p| p.into_inner());
        let _ = proxy.send_event(AppEvent::Hotkey(state));
    }
}

pub(super) fn forward_menu(proxy: EventLoopProxy<AppEvent>) {
    let proxy = Mutex::new(proxy);
    MenuEvent::set_event_handler(Some(move |event: MenuEvent| {
        let proxy = proxy.lock().unwrap_or_else(|p| p.into_inner());
        let _ = proxy.send_event(AppEvent::Menu(event.id().as_ref().to_string()));
    }));
}
