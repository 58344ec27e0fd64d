//! The focused window on a Wayland compositor that offers the wlr foreign-toplevel protocol
//! (`zwlr_foreign_toplevel_manager_v1`: sway, Hyprland, river, labwc, Wayfire): which window is
//! `activated` and its app id ("foot", "org.gnome.TextEditor", "firefox"), for the per-app
//! modes and the history's app. GNOME and KDE do not offer it to ordinary apps; there the
//! focus stays unknown, as before.
//!
//! The compositor tells a bound client about every window and every change of a window's app
//! id, title and state; a thread of its own blocks on the connection and keeps only which
//! window is activated now. It wakes only when a window changes (no timer, nothing while
//! nothing moves). Each window the compositor announces gets a number never given again in
//! this process, so a closed window and a new one are never the same window (the joining
//! space). Titles are read by the protocol but never kept: they name the person's documents.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use wayland_client::backend::ObjectId;
use wayland_client::protocol::wl_registry;
use wayland_client::{event_created_child, Connection, Dispatch, Proxy, QueueHandle};
use wayland_protocols_wlr::foreign_toplevel::v1::client::{
    zwlr_foreign_toplevel_handle_v1::{self, ZwlrForeignToplevelHandleV1},
    zwlr_foreign_toplevel_manager_v1::{self, ZwlrForeignToplevelManagerV1},
};

/// The protocol's `activated` state value.
const ACTIVATED: u32 = 2;

/// Numbers for windows, never reused in this process.
static NEXT_WINDOW: AtomicU64 = AtomicU64::new(1);

/// The activated window: its number and app id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Activated {
    pub number: u64,
    pub app_id: String,
}

/// Follows the activated window; see the module documentation.
pub struct ToplevelFocus {
    now: Arc<Mutex<Option<Activated>>>,
    manager: ZwlrForeignToplevelManagerV1,
    connection: Connection,
}

/// One window as the compositor last described it (its pending changes apply at `done`).
#[derive(Default)]
struct Window {
    number: u64,
    app_id: String,
    activated: bool,
    pending_app_id: Option<String>,
    pending_activated: Option<bool>,
}

#[derive(Default)]
struct Tracker {
    manager: Option<ZwlrForeignToplevelManagerV1>,
    windows: HashMap<ObjectId, Window>,
    finished: bool,
}

impl Tracker {
    fn activated(&self) -> Option<Activated> {
        self.windows
            .values()
            .find(|w| w.activated)
            .map(|w| Activated {
                number: w.number,
                app_id: w.app_id.clone(),
            })
    }
}

impl ToplevelFocus {
    /// Binds the protocol at `WAYLAND_DISPLAY`; `None` where there is no compositor or it does
    /// not offer the protocol.
    pub fn new() -> Option<ToplevelFocus> {
        std::env::var_os("WAYLAND_DISPLAY").filter(|d| !d.is_empty())?;
        let connection = Connection::connect_to_env().ok()?;
        let mut queue = connection.new_event_queue::<Tracker>();
        let handle = queue.handle();
        let _registry = connection.display().get_registry(&handle, ());
        let mut tracker = Tracker::default();
        // The globals, then the windows the manager announces and their first states.
        queue.roundtrip(&mut tracker).ok()?;
        let manager = tracker.manager.clone()?;
        queue.roundtrip(&mut tracker).ok()?;
        let now = Arc::new(Mutex::new(tracker.activated()));
        let shared = now.clone();
        let spawned = std::thread::Builder::new()
            .name("wayland-focus".into())
            .spawn(move || {
                while !tracker.finished {
                    if queue.blocking_dispatch(&mut tracker).is_err() {
                        break;
                    }
                    *shared.lock().unwrap_or_else(|p| p.into_inner()) = tracker.activated();
                }
                *shared.lock().unwrap_or_else(|p| p.into_inner()) = None;
            });
        if spawned.is_err() {
            return None;
        }
        Some(ToplevelFocus {
            now,
            manager,
            connection,
        })
    }

    /// The activated window now; `None` when no window is (or the compositor went away).
    pub fn activated(&self) -> Option<Activated> {
        self.now.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

impl Drop for ToplevelFocus {
    fn drop(&mut self) {
        // The compositor answers `finished`, which ends the thread.
        self.manager.stop();
        let _ = self.connection.flush();
    }
}

impl Dispatch<wl_registry::WlRegistry, ()> for Tracker {
    fn event(
        state: &mut Self,
        registry: &wl_registry::WlRegistry,
        event: wl_registry::Event,
        _: &(),
        _: &Connection,
        handle: &QueueHandle<Self>,
    ) {
        if let wl_registry::Event::Global {
            name,
            interface,
            version,
        } = event
        {
            if interface == ZwlrForeignToplevelManagerV1::interface().name {
                state.manager = Some(registry.bind(name, version.min(3), handle, ()));
            }
        }
    }
}

impl Dispatch<ZwlrForeignToplevelManagerV1, ()> for Tracker {
    fn event(
        state: &mut Self,
        _: &ZwlrForeignToplevelManagerV1,
        event: zwlr_foreign_toplevel_manager_v1::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        match event {
            zwlr_foreign_toplevel_manager_v1::Event::Toplevel { toplevel } => {
                let window = Window {
                    number: NEXT_WINDOW.fetch_add(1, Ordering::Relaxed),
                    ..Window::default()
                };
                state.windows.insert(toplevel.id(), window);
            }
            zwlr_foreign_toplevel_manager_v1::Event::Finished => state.finished = true,
            _ => {}
        }
    }

    event_created_child!(Tracker, ZwlrForeignToplevelManagerV1, [
        zwlr_foreign_toplevel_manager_v1::EVT_TOPLEVEL_OPCODE => (ZwlrForeignToplevelHandleV1, ()),
    ]);
}

impl Dispatch<ZwlrForeignToplevelHandleV1, ()> for Tracker {
    fn event(
        state: &mut Self,
        handle: &ZwlrForeignToplevelHandleV1,
        event: zwlr_foreign_toplevel_handle_v1::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        let id = handle.id();
        if let zwlr_foreign_toplevel_handle_v1::Event::Closed = event {
            state.windows.remove(&id);
            handle.destroy();
            return;
        }
        let Some(window) = state.windows.get_mut(&id) else {
            return;
        };
        match event {
            zwlr_foreign_toplevel_handle_v1::Event::AppId { app_id } => {
                window.pending_app_id = Some(app_id.chars().take(200).collect());
            }
            zwlr_foreign_toplevel_handle_v1::Event::State { state: states } => {
                window.pending_activated = Some(is_activated(&states));
            }
            zwlr_foreign_toplevel_handle_v1::Event::Done => {
                if let Some(app_id) = window.pending_app_id.take() {
                    window.app_id = app_id;
                }
                if let Some(activated) = window.pending_activated.take() {
                    window.activated = activated;
                }
            }
            _ => {}
        }
    }
}

/// Whether the protocol's state array (native-endian 32-bit values) holds `activated`.
pub fn is_activated(states: &[u8]) -> bool {
    states
        .chunks_exact(4)
        .any(|v| u32::from_ne_bytes([v[0], v[1], v[2], v[3]]) == ACTIVATED)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_state_array_is_read_as_32_bit_values() {
        let states =
            |values: &[u32]| -> Vec<u8> { values.iter().flat_map(|v| v.to_ne_bytes()).collect() };
        assert!(is_activated(&states(&[ACTIVATED])));
        // maximized (0), minimized (1), fullscreen (3): not activated.
        assert!(!is_activated(&states(&[0, 1, 3])));
        assert!(is_activated(&states(&[0, ACTIVATED])));
        assert!(!is_activated(&[]));
        // A byte 2 inside another value is not the state 2.
        assert!(!is_activated(&states(&[0x0200])));
    }
}
