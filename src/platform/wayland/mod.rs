//! Wayland sessions: what the compositor offers an ordinary client (its globals, read once at
//! start), the paste and typing through the virtual-keyboard protocol, the overlay as a
//! layer-shell surface, and the focused window through the foreign-toplevel protocol. Each opens its own connection to `WAYLAND_DISPLAY`; none exists on X11
//! or macOS (the app asks [`globals`] first, and it answers `None` there).

mod globals;
pub mod layer_overlay;
pub mod toplevels;
pub mod virtual_keyboard;

pub use globals::{globals, WaylandGlobals};
