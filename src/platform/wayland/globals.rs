//! The globals a Wayland compositor announces: one connection to `WAYLAND_DISPLAY`, one
//! registry round trip, the interface names kept. What they mean for the app (which paste,
//! which overlay) is decided in portable code (`app::desktop_session`).

use wayland_client::protocol::wl_registry;
use wayland_client::{Connection, Dispatch, QueueHandle};

/// The interface names (and versions) the compositor offers, in the order announced.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WaylandGlobals {
    pub interfaces: Vec<(String, u32)>,
}

impl WaylandGlobals {
    /// Whether `interface` is offered (any version).
    pub fn has(&self, interface: &str) -> bool {
        self.interfaces.iter().any(|(name, _)| name == interface)
    }
}

impl Dispatch<wl_registry::WlRegistry, ()> for WaylandGlobals {
    fn event(
        state: &mut Self,
        _: &wl_registry::WlRegistry,
        event: wl_registry::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        if let wl_registry::Event::Global {
            interface, version, ..
        } = event
        {
            state.interfaces.push((interface, version));
        }
    }
}

/// The globals of the compositor at `WAYLAND_DISPLAY`; `Err` with the reason when there is
/// none to connect to (X11, macOS, a Wayland socket that does not answer).
pub fn globals() -> Result<WaylandGlobals, String> {
    if std::env::var_os("WAYLAND_DISPLAY").is_none_or(|d| d.is_empty()) {
        return Err("WAYLAND_DISPLAY is not set".into());
    }
    let connection = Connection::connect_to_env().map_err(|e| e.to_string())?;
    let mut queue = connection.new_event_queue();
    let _registry = connection.display().get_registry(&queue.handle(), ());
    let mut found = WaylandGlobals::default();
    queue.roundtrip(&mut found).map_err(|e| e.to_string())?;
    Ok(found)
}
