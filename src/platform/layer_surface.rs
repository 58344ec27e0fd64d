//! The overlay's surface on a Wayland desktop, as portable code sees it: what the desktop offers
//! for it ([`overlay_desktop`]: a Wayland display GTK runs on, the wlr layer shell) and the
//! [`LayerOverlay`] itself — the Linux one in `wayland::layer_overlay`, elsewhere a stand-in
//! that answers "not available". Which surface the overlay then uses is decided in
//! `app::overlay::window`.

/// The screen edge the overlay sits at, centred on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edge {
    Top,
    Bottom,
}

/// One frame for the layer surface: `width`×`height` device pixels, premultiplied ARGB8888 words
/// (`0xAARRGGBB`, row by row), drawn for an integer `scale` (the buffer is `scale` times the
/// surface's logical size).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    pub argb: Vec<u32>,
    pub width: u32,
    pub height: u32,
    pub scale: u32,
}

/// What the desktop offers the overlay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OverlayDesktop {
    /// A Wayland compositor answers at `WAYLAND_DISPLAY`.
    pub wayland_display: bool,
    /// GTK (tao's windows) is told by `GDK_BACKEND` to use X11 (XWayland) rather than Wayland.
    pub gdk_forced_x11: bool,
    /// The compositor offers zwlr_layer_shell_v1 (sway, Hyprland, KDE; not GNOME).
    pub layer_shell: bool,
}

/// Asks the desktop what it offers the overlay: `GDK_BACKEND`, and the compositor's globals
/// when GTK would run on Wayland (one connection, one round trip). On X11 and macOS: no
/// Wayland display.
pub fn overlay_desktop() -> OverlayDesktop {
    let gdk_backend = std::env::var("GDK_BACKEND").ok();
    let gdk_forced_x11 = !gtk_prefers_wayland(gdk_backend.as_deref());
    let (wayland_display, layer_shell) = if gdk_forced_x11 {
        (false, false)
    } else {
        wayland_offer()
    };
    OverlayDesktop {
        wayland_display,
        gdk_forced_x11,
        layer_shell,
    }
}

/// Whether a Wayland compositor answers, and whether it offers the layer shell.
fn wayland_offer() -> (bool, bool) {
    #[cfg(target_os = "linux")]
    {
        match super::wayland::globals() {
            Ok(globals) => (true, globals.has("zwlr_layer_shell_v1")),
            Err(problem) => {
                tracing::debug!("overlay: no Wayland display: {problem}");
                (false, false)
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        (false, false)
    }
}

/// Whether GTK 3 picks its Wayland backend (when a compositor answers) with `GDK_BACKEND` set to
/// `value`: it tries the listed backends in order, `*` meaning all of them, Wayland before X11;
/// unset or empty is `*`. Backends GTK lacks on Linux (quartz, win32, broadway) are skipped here.
pub fn gtk_prefers_wayland(value: Option<&str>) -> bool {
    let Some(value) = value.map(str::trim).filter(|v| !v.is_empty()) else {
        return true;
    };
    for backend in value.split(',').map(str::trim) {
        match backend {
            "wayland" | "*" => return true,
            "x11" => return false,
            _ => {}
        }
    }
    false
}

#[cfg(target_os = "linux")]
pub use super::wayland::layer_overlay::{LayerOverlay, LayerOverlayError};

#[cfg(not(target_os = "linux"))]
pub use stand_in::{LayerOverlay, LayerOverlayError};

/// No layer shell off Linux: every call answers "not available".
#[cfg(not(target_os = "linux"))]
mod stand_in {
    use super::{Edge, Frame};

    #[derive(Debug, thiserror::Error)]
    pub enum LayerOverlayError {
        #[error("there is no Wayland layer shell on this system")]
        NotAvailable,
    }

    pub struct LayerOverlay;

    impl LayerOverlay {
        pub fn open(
            _edge: Edge,
            _size: (u32, u32),
            _margin: u32,
        ) -> Result<LayerOverlay, LayerOverlayError> {
            Err(LayerOverlayError::NotAvailable)
        }

        pub fn scale(&self) -> u32 {
            1
        }

        pub fn show(&self, _frame: Frame) -> Result<(), LayerOverlayError> {
            Err(LayerOverlayError::NotAvailable)
        }

        pub fn hide(&self) -> Result<(), LayerOverlayError> {
            Err(LayerOverlayError::NotAvailable)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gdk_backend_decides_whether_gtk_runs_on_wayland() {
        assert!(gtk_prefers_wayland(None));
        assert!(gtk_prefers_wayland(Some("")));
        assert!(gtk_prefers_wayland(Some("wayland")));
        assert!(gtk_prefers_wayland(Some("*")));
        assert!(gtk_prefers_wayland(Some("wayland,x11")));
        assert!(!gtk_prefers_wayland(Some("x11")));
        assert!(!gtk_prefers_wayland(Some(" x11 ,wayland")));
        assert!(gtk_prefers_wayland(Some("quartz,wayland")));
        assert!(!gtk_prefers_wayland(Some("broadway")));
    }
}
