//! The global hotkey: grabbing the person's key combination from the window system and telling
//! the app each time it goes down and up. It owns the grabs (one listener, one owner; the app
//! asks it to register and unregister) and, on X11, the connection and the thread that waits on
//! it.
//!
//! Why our own on Linux: global-hotkey 0.9's X11 backend (`platform_impl/x11/mod.rs`) runs a
//! thread that polls the X connection and then sleeps 50 ms, forever — 20 wake-ups a second
//! while the app idles (the whole app's idle budget is 5 a second) and up to 50 ms added to every
//! key-down and key-up. `x11` grabs the same keys on the root window and blocks in
//! `wait_for_event`: no wake-up until a key edge arrives, and the edge is passed on at once.
//! Elsewhere global-hotkey waits without polling (macOS: Carbon's `RegisterEventHotKey`, both
//! edges delivered by the main thread's run loop; Windows: `RegisterHotKey`'s window message),
//! so `other` wraps it. On Windows its key-up is still found by polling every 50 ms while the
//! key is held (`platform_impl/windows/mod.rs`); the app does not ship for Windows.
//!
//! What a listener reports, on every OS: one [`HotKeyState::Pressed`] when a registered key goes
//! down with exactly its modifiers (Caps Lock and Num Lock do not count), none while it is held
//! and repeats, and one [`HotKeyState::Released`] when that key comes up (whatever modifiers are
//! still held then).

#[cfg(not(target_os = "linux"))]
mod other;
#[cfg(target_os = "linux")]
mod x11;

#[cfg(not(target_os = "linux"))]
use other as imp;
#[cfg(target_os = "linux")]
use x11 as imp;

use global_hotkey::hotkey::HotKey;
pub use global_hotkey::HotKeyState;

/// Why a hotkey cannot be listened for; each says what the person can act on.
#[derive(Debug, thiserror::Error)]
pub enum HotkeyError {
    /// No X display (no `DISPLAY`, or Wayland without XWayland): nothing to grab keys from.
    #[error("no X display to listen on ({0}); global hotkeys need X11")]
    NoDisplay(String),
    /// Another application grabbed the same combination first (X11's BadAccess).
    #[error("another application already uses {0}")]
    Taken(String),
    /// This keyboard's layout has no key that types it.
    #[error("the keyboard layout has no key {0}")]
    NotOnKeyboard(String),
    /// A key this listener cannot grab (not in its table of keys).
    #[error("{0} cannot be a global hotkey")]
    UnsupportedKey(String),
    /// The same combination is already registered with this listener.
    #[error("{0} is already registered")]
    AlreadyRegistered(String),
    /// The window system refused for another reason (its own words).
    #[error("the system refused the hotkey: {0}")]
    Refused(String),
    /// The connection to the window system failed.
    #[error("the connection to the window system failed: {0}")]
    Connection(String),
}

/// Listens for the registered hotkeys and calls its `on_event` (from a thread of its own on
/// X11, from the main thread's run loop on macOS) with each key edge. Dropping it ungrabs
/// everything and ends its thread.
pub struct HotkeyListener {
    inner: imp::Listener,
}

impl HotkeyListener {
    /// Connects to the window system; nothing is grabbed until [`register`](Self::register).
    /// On macOS and Windows create it on the main thread, which runs the event loop.
    pub fn new(
        on_event: impl Fn(HotKeyState) + Send + Sync + 'static,
    ) -> Result<HotkeyListener, HotkeyError> {
        Ok(HotkeyListener {
            inner: imp::Listener::new(Box::new(on_event))?,
        })
    }

    /// Grabs `hotkey`: from now on its key edges reach `on_event`. On failure nothing of it
    /// stays grabbed.
    pub fn register(&self, hotkey: HotKey) -> Result<(), HotkeyError> {
        self.inner.register(hotkey)
    }

    /// Lets `hotkey` go (nothing happens for one that is not registered).
    pub fn unregister(&self, hotkey: HotKey) -> Result<(), HotkeyError> {
        self.inner.unregister(hotkey)
    }
}

/// What `on_event` is stored as.
type OnEvent = Box<dyn Fn(HotKeyState) + Send + Sync + 'static>;
