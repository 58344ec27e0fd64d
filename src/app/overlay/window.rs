//! The overlay's surface: borderless, always on top, never focused, clicks pass through it, placed
//! at the bottom or top centre of the primary screen. Chosen once per process
//! ([`surface_kind`]): a tao window with pixels copied in by softbuffer (X11, XWayland when GTK
//! is told to use it, macOS; what each platform adds — X11 override-redirect, a status-level
//! panel joining every Space on macOS — is in `crate::platform`), or on a Wayland session a
//! wlr layer-shell surface (`crate::platform::layer_surface`), or, where the compositor offers
//! no layer shell (GNOME), none.

use super::render::{pixel_size, to_xrgb};
use super::Position;
use crate::platform::layer_surface::{self, Edge, Frame, LayerOverlay, OverlayDesktop};
use std::num::NonZeroU32;
use std::rc::Rc;
use std::sync::OnceLock;
use tao::dpi::{LogicalSize, PhysicalPosition};
use tao::event_loop::EventLoopWindowTarget;
use tao::window::{Window, WindowBuilder, WindowId};
use tiny_skia::Pixmap;

/// The window's title: window managers and the desktop tests find it by this name.
pub const TITLE: &str = "whisper-dictation overlay";

/// Distance from the screen's edge, in logical pixels (clear of a dock, a panel or the menu bar).
const MARGIN: f64 = 64.0;

/// Why the overlay window could not be shown.
#[derive(Debug, thiserror::Error)]
pub enum WindowError {
    #[error("the overlay window cannot be created: {0}")]
    Create(String),
    #[error("the overlay cannot be drawn into its window: {0}")]
    Surface(String),
    #[error("the overlay's layer surface: {0}")]
    Layer(String),
}

/// Where the overlay's pixels go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SurfaceKind {
    /// A tao window ([`OverlayWindow`]): X11, XWayland, macOS.
    Window,
    /// A wlr layer-shell surface: a Wayland session whose compositor offers one.
    LayerShell,
    /// A Wayland session without the layer shell (GNOME): a window there would be an ordinary
    /// toplevel that takes the focus, so no overlay.
    None,
}

/// The surface for a desktop: the tao window unless GTK runs on Wayland (a Wayland display,
/// and `GDK_BACKEND` not forcing X11); there the layer shell, or nothing without it.
pub fn choose_surface(desktop: OverlayDesktop) -> SurfaceKind {
    if !desktop.wayland_display || desktop.gdk_forced_x11 {
        SurfaceKind::Window
    } else if desktop.layer_shell {
        SurfaceKind::LayerShell
    } else {
        SurfaceKind::None
    }
}

/// This process's surface kind: the one given to [`set_surface_kind`] (the session plan made at
/// start), else asked of the desktop at the first dictation shown; kept for the rest of the run.
pub fn surface_kind() -> SurfaceKind {
    *SURFACE_KIND.get_or_init(|| {
        let desktop = layer_surface::overlay_desktop();
        let kind = choose_surface(desktop);
        tracing::debug!(?desktop, ?kind, "overlay: surface chosen");
        log_no_overlay(kind);
        kind
    })
}

/// Fixes this process's surface kind (the first call wins; later ones change nothing), so the
/// overlay follows the decision the app made once at start instead of asking again.
pub fn set_surface_kind(kind: SurfaceKind) {
    if SURFACE_KIND.set(kind).is_ok() {
        log_no_overlay(kind);
    }
}

static SURFACE_KIND: OnceLock<SurfaceKind> = OnceLock::new();

/// Said once per process, when the overlay has nowhere to show.
fn log_no_overlay(kind: SurfaceKind) {
    if kind == SurfaceKind::None {
        tracing::info!("overlay: the compositor offers no layer shell (GNOME); no overlay");
    }
}

/// The overlay on screen: the tao window or the layer surface.
pub enum OverlaySurface {
    Window(OverlayWindow),
    Layer(LayerOverlay),
}

impl OverlaySurface {
    /// Opens the surface of `kind` placed for `position`; `None` for [`SurfaceKind::None`].
    pub fn open<T: 'static>(
        kind: SurfaceKind,
        target: &EventLoopWindowTarget<T>,
        position: Position,
    ) -> Result<Option<OverlaySurface>, WindowError> {
        Ok(match kind {
            SurfaceKind::Window => Some(OverlaySurface::Window(OverlayWindow::open(
                target, position,
            )?)),
            SurfaceKind::LayerShell => {
                let edge = match position {
                    Position::Bottom => Edge::Bottom,
                    Position::Top => Edge::Top,
                };
                let size = (
                    super::render::WIDTH.round() as u32,
                    super::render::HEIGHT.round() as u32,
                );
                let layer = LayerOverlay::open(edge, size, MARGIN.round() as u32)
                    .map_err(|e| WindowError::Layer(e.to_string()))?;
                Some(OverlaySurface::Layer(layer))
            }
            SurfaceKind::None => None,
        })
    }

    /// The tao window's id (the layer surface has none: it gets no redraw events).
    pub fn id(&self) -> Option<WindowId> {
        match self {
            OverlaySurface::Window(window) => Some(window.id()),
            OverlaySurface::Layer(_) => None,
        }
    }

    /// The scale to draw at.
    pub fn scale(&self) -> f32 {
        match self {
            OverlaySurface::Window(window) => window.scale(),
            OverlaySurface::Layer(layer) => layer.scale() as f32,
        }
    }

    /// Whether a frame is on screen once presented: the layer surface's; the window's first
    /// frame shows at its first redraw event, after it was mapped.
    pub fn shown_when_presented(&self) -> bool {
        matches!(self, OverlaySurface::Layer(_))
    }

    /// Puts `pixmap` on screen.
    pub fn present(&mut self, pixmap: &Pixmap) -> Result<(), WindowError> {
        match self {
            OverlaySurface::Window(window) => window.present(pixmap),
            OverlaySurface::Layer(layer) => layer
                .show(Frame {
                    argb: to_argb(pixmap),
                    width: pixmap.width(),
                    height: pixmap.height(),
                    scale: (pixmap.width() as f32 / super::render::WIDTH)
                        .round()
                        .max(1.0) as u32,
                })
                .map_err(|e| WindowError::Layer(e.to_string())),
        }
    }
}

/// `pixmap`'s premultiplied RGBA as premultiplied ARGB8888 words (`0xAARRGGBB`: wl_shm's
/// format).
pub fn to_argb(pixmap: &Pixmap) -> Vec<u32> {
    pixmap
        .data()
        .chunks_exact(4)
        .map(|px| u32::from_be_bytes([px[3], px[0], px[1], px[2]]))
        .collect()
}

pub struct OverlayWindow {
    window: Rc<Window>,
    surface: softbuffer::Surface<Rc<Window>, Rc<Window>>,
    /// Keeps the display connection the surface draws through.
    _context: softbuffer::Context<Rc<Window>>,
}

impl OverlayWindow {
    /// Creates the window, hidden, placed for `position`, then shows it without focusing it.
    pub fn open<T: 'static>(
        target: &EventLoopWindowTarget<T>,
        position: Position,
    ) -> Result<OverlayWindow, WindowError> {
        let builder = WindowBuilder::new()
            .with_title(TITLE)
            .with_decorations(false)
            .with_resizable(false)
            .with_always_on_top(true)
            .with_visible_on_all_workspaces(true)
            .with_focused(false)
            .with_focusable(false)
            .with_visible(false)
            .with_inner_size(LogicalSize::new(
                f64::from(super::render::WIDTH),
                f64::from(super::render::HEIGHT),
            ));
        let builder = crate::platform::overlay_window_builder(builder);
        let window = builder
            .build(target)
            .map_err(|e| WindowError::Create(e.to_string()))?;
        crate::platform::prepare_overlay_window(
            &window,
            (
                f64::from(super::render::WIDTH),
                f64::from(super::render::HEIGHT),
            ),
        );
        // Clicks go to the app underneath.
        let _ = window.set_ignore_cursor_events(true);
        let monitor = target
            .primary_monitor()
            .or_else(|| window.current_monitor());
        if let Some(monitor) = monitor {
            let scale = monitor.scale_factor();
            let (w, h) = pixel_size(scale as f32);
            let at = place(
                (
                    monitor.position().x,
                    monitor.position().y,
                    monitor.size().width,
                    monitor.size().height,
                ),
                (w, h),
                position,
                scale,
            );
            window.set_outer_position(PhysicalPosition::new(at.0, at.1));
        }
        let window = Rc::new(window);
        let context = softbuffer::Context::new(window.clone())
            .map_err(|e| WindowError::Surface(e.to_string()))?;
        let surface = softbuffer::Surface::new(&context, window.clone())
            .map_err(|e| WindowError::Surface(e.to_string()))?;
        window.set_visible(true);
        window.request_redraw();
        Ok(OverlayWindow {
            window,
            surface,
            _context: context,
        })
    }

    pub fn id(&self) -> WindowId {
        self.window.id()
    }

    /// The screen's scale factor where the window is.
    pub fn scale(&self) -> f32 {
        self.window.scale_factor() as f32
    }

    /// Asks for a [`Self::present`] at the event loop's next redraw.
    pub fn request_redraw(&self) {
        self.window.request_redraw();
    }

    /// Copies `pixmap` to the screen.
    pub fn present(&mut self, pixmap: &Pixmap) -> Result<(), WindowError> {
        let (Some(w), Some(h)) = (
            NonZeroU32::new(pixmap.width()),
            NonZeroU32::new(pixmap.height()),
        ) else {
            return Ok(());
        };
        let size = self.window.inner_size();
        if size.width != w.get() || size.height != h.get() {
            self.window
                .set_inner_size(tao::dpi::PhysicalSize::new(w.get(), h.get()));
        }
        let surface_error = |e: softbuffer::SoftBufferError| WindowError::Surface(e.to_string());
        self.surface.resize(w, h).map_err(surface_error)?;
        let mut buffer = self.surface.buffer_mut().map_err(surface_error)?;
        to_xrgb(pixmap, &mut buffer);
        buffer.present().map_err(surface_error)?;
        // On X11 the frame would wait in the display connection's buffer until the next one
        // (softbuffer flushes only when it waits for the server to have taken the previous
        // frame, at the next `buffer_mut`), so the last frame of a dictation never showed: wait
        // now (one round trip to the server).
        let _next_frame = self.surface.buffer_mut().map_err(surface_error)?;
        Ok(())
    }
}

impl Drop for OverlayWindow {
    fn drop(&mut self) {
        self.window.set_visible(false);
    }
}

/// The window's top-left corner, in physical pixels, on a monitor at (`x`, `y`) of `w`×`h`
/// physical pixels: centred horizontally, [`MARGIN`] logical pixels from the bottom or top edge.
pub fn place(
    (x, y, w, h): (i32, i32, u32, u32),
    (width, height): (u32, u32),
    position: Position,
    scale: f64,
) -> (i32, i32) {
    let margin = (MARGIN * scale).round() as i64;
    let left = i64::from(x) + (i64::from(w) - i64::from(width)) / 2;
    let top = match position {
        Position::Bottom => i64::from(y) + i64::from(h) - i64::from(height) - margin,
        Position::Top => i64::from(y) + margin,
    };
    let clamp = |v: i64| v.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32;
    (clamp(left.max(i64::from(x))), clamp(top.max(i64::from(y))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_surface_is_the_window_unless_gtk_runs_on_wayland() {
        let desktop = |wayland_display, gdk_forced_x11, layer_shell| OverlayDesktop {
            wayland_display,
            gdk_forced_x11,
            layer_shell,
        };
        // X11 (and macOS): no Wayland display.
        assert_eq!(
            choose_surface(desktop(false, false, false)),
            SurfaceKind::Window
        );
        // GDK_BACKEND=x11 on a Wayland session: the X11 window through XWayland.
        assert_eq!(
            choose_surface(desktop(true, true, true)),
            SurfaceKind::Window
        );
        assert_eq!(
            choose_surface(desktop(true, true, false)),
            SurfaceKind::Window
        );
        // sway, Hyprland, KDE.
        assert_eq!(
            choose_surface(desktop(true, false, true)),
            SurfaceKind::LayerShell
        );
        // GNOME.
        assert_eq!(
            choose_surface(desktop(true, false, false)),
            SurfaceKind::None
        );
    }

    #[test]
    fn pixels_become_premultiplied_argb_words() {
        let mut pixmap = Pixmap::new(2, 1).unwrap();
        pixmap.data_mut()[..8].copy_from_slice(&[0x10, 0x20, 0x30, 0xff, 0x08, 0x00, 0x04, 0x80]);
        assert_eq!(to_argb(&pixmap), vec![0xff10_2030, 0x8008_0004]);
    }

    #[test]
    fn it_sits_centred_near_the_chosen_edge() {
        let screen = (0, 0, 1024, 768);
        assert_eq!(place(screen, (440, 104), Position::Bottom, 1.0), (292, 600));
        assert_eq!(place(screen, (440, 104), Position::Top, 1.0), (292, 64));
        // A Retina screen: physical pixels, twice the margin.
        let retina = (0, 0, 2880, 1800);
        assert_eq!(
            place(retina, (880, 208), Position::Bottom, 2.0),
            (1000, 1464)
        );
        // A second monitor left of the first.
        assert_eq!(
            place((-1920, 0, 1920, 1080), (440, 104), Position::Top, 1.0),
            (-1180, 64)
        );
        // A screen smaller than the panel keeps it on the screen's corner.
        assert_eq!(
            place((0, 0, 300, 80), (440, 104), Position::Bottom, 1.0),
            (0, 0)
        );
    }
}
