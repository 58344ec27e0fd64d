//! The overlay as a wlr-layer-shell surface (zwlr_layer_shell_v1: sway, Hyprland, KDE), where a
//! Wayland compositor gives an ordinary window neither a place nor "never focused": a surface on
//! the `overlay` layer, namespace [`NAMESPACE`], anchored at the bottom or top centre, that
//! takes no keyboard focus, pushes no window aside and lets every click through (an empty
//! input region).
//!
//! A [`LayerOverlay`] owns its own Wayland connection, on a thread of its own that blocks in
//! `poll` on the connection and on a wake-up socket: it costs nothing while nothing changes.
//! The app sends it frames ([`LayerOverlay::show`]) and [`LayerOverlay::hide`]; dropping it
//! destroys the surface and ends the thread.
//!
//! The surface's life: created → (first commit, no buffer) → configured (acknowledged; logged
//! once, "overlay: layer surface configured") → mapped (a frame attached) → unmapped by
//! `hide` (a null buffer; back to waiting for a configure before the next frame) → destroyed
//! when dropped, or when the compositor closes it (the thread then ends; `show` says so).
//! Pixels go through a wl_shm pool in a memfd, two buffers, each reused only after the
//! compositor released it; a frame that finds both busy waits for a release (only the newest).

use crate::platform::layer_surface::{Edge, Frame};
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::fs::FileExt;
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;
use wayland_client::globals::{registry_queue_init, GlobalListContents};
use wayland_client::protocol::{
    wl_buffer, wl_compositor, wl_output, wl_region, wl_registry, wl_shm, wl_shm_pool, wl_surface,
};
use wayland_client::{delegate_noop, Connection, Dispatch, EventQueue, Proxy, QueueHandle};
use wayland_protocols_wlr::layer_shell::v1::client::{zwlr_layer_shell_v1, zwlr_layer_surface_v1};

/// The layer surface's namespace: compositors and the desktop tests know the overlay by it.
pub const NAMESPACE: &str = "whisper-dictation-overlay";

/// Why the layer-shell overlay cannot be shown.
#[derive(Debug, thiserror::Error)]
pub enum LayerOverlayError {
    #[error("no Wayland compositor to connect to: {0}")]
    Connect(String),
    #[error("the compositor offers no {0}")]
    Missing(&'static str),
    #[error("the Wayland connection failed: {0}")]
    Connection(String),
    #[error("the overlay's shared memory cannot be made: {0}")]
    Memory(String),
    #[error("the overlay's thread cannot be started: {0}")]
    Thread(String),
    #[error(
        "the overlay's layer surface is gone (closed by the compositor, or its connection failed)"
    )]
    Ended,
}

enum Command {
    Show(Frame),
    Hide,
}

/// The overlay's layer surface (see the module doc).
pub struct LayerOverlay {
    commands: Option<mpsc::Sender<Command>>,
    wake: UnixStream,
    scale: Arc<AtomicU32>,
    thread: Option<JoinHandle<()>>,
}

impl LayerOverlay {
    /// Connects to the compositor, creates the surface at `edge` (centred, `margin` logical
    /// pixels from it) sized `size` logical pixels, and starts its thread. Nothing is on
    /// screen before the first [`Self::show`].
    pub fn open(
        edge: Edge,
        size: (u32, u32),
        margin: u32,
    ) -> Result<LayerOverlay, LayerOverlayError> {
        let connection =
            Connection::connect_to_env().map_err(|e| LayerOverlayError::Connect(e.to_string()))?;
        let failed = |e: &dyn std::fmt::Display| LayerOverlayError::Connection(e.to_string());
        let (globals, mut queue) =
            registry_queue_init::<State>(&connection).map_err(|e| failed(&e))?;
        let qh = queue.handle();
        let compositor: wl_compositor::WlCompositor = globals
            .bind(&qh, 1..=6, ())
            .map_err(|_| LayerOverlayError::Missing("wl_compositor"))?;
        let shm: wl_shm::WlShm = globals
            .bind(&qh, 1..=1, ())
            .map_err(|_| LayerOverlayError::Missing("wl_shm"))?;
        let layer_shell: zwlr_layer_shell_v1::ZwlrLayerShellV1 = globals
            .bind(&qh, 1..=4, ())
            .map_err(|_| LayerOverlayError::Missing("zwlr_layer_shell_v1"))?;
        let outputs = globals
            .contents()
            .clone_list()
            .into_iter()
            .filter(|g| g.interface == wl_output::WlOutput::interface().name && g.version >= 2)
            .map(|g| {
                let output: wl_output::WlOutput =
                    globals.registry().bind(g.name, g.version.min(4), &qh, ());
                (output, 1)
            })
            .collect();
        let surface = compositor.create_surface(&qh, ());
        let layer = layer_shell.get_layer_surface(
            &surface,
            None,
            zwlr_layer_shell_v1::Layer::Overlay,
            NAMESPACE.to_string(),
            &qh,
            (),
        );
        // Clicks pass through: an input region with nothing in it.
        let region = compositor.create_region(&qh, ());
        surface.set_input_region(Some(&region));
        region.destroy();
        let scale = Arc::new(AtomicU32::new(1));
        let mut state = State {
            shm,
            surface,
            layer,
            edge,
            size,
            margin,
            outputs,
            entered: Vec::new(),
            preferred_scale: None,
            scale: scale.clone(),
            configured: false,
            awaiting_configure: false,
            logged_configure: false,
            closed: false,
            slots: [None, None],
            pending: None,
            shown: false,
        };
        // The outputs' scales.
        queue.roundtrip(&mut state).map_err(|e| failed(&e))?;
        state.update_scale();
        state.arm();
        queue.flush().map_err(|e| failed(&e))?;

        let (wake, wake_here) = UnixStream::pair().map_err(|e| failed(&e))?;
        wake_here.set_nonblocking(true).map_err(|e| failed(&e))?;
        wake.set_nonblocking(true).map_err(|e| failed(&e))?;
        let (commands, received) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("overlay-layer".into())
            .spawn(move || {
                if let Err(e) = run(&mut queue, &mut state, &received, wake_here) {
                    tracing::warn!("overlay: the layer surface ended: {e}");
                }
                state.destroy();
                let _ = queue.flush();
            })
            .map_err(|e| LayerOverlayError::Thread(e.to_string()))?;
        Ok(LayerOverlay {
            commands: Some(commands),
            wake,
            scale,
            thread: Some(thread),
        })
    }

    /// The integer scale of the output the surface is on (its largest, before it is on one):
    /// frames drawn for it are sharp.
    pub fn scale(&self) -> u32 {
        self.scale.load(Ordering::Relaxed).max(1)
    }

    /// Puts `frame` on screen (maps the surface when hidden).
    pub fn show(&self, frame: Frame) -> Result<(), LayerOverlayError> {
        self.send(Command::Show(frame))
    }

    /// Takes the surface off the screen (a null buffer); the next [`Self::show`] maps it again.
    pub fn hide(&self) -> Result<(), LayerOverlayError> {
        self.send(Command::Hide)
    }

    fn send(&self, command: Command) -> Result<(), LayerOverlayError> {
        let commands = self.commands.as_ref().ok_or(LayerOverlayError::Ended)?;
        commands
            .send(command)
            .map_err(|_| LayerOverlayError::Ended)?;
        self.wake_thread();
        Ok(())
    }

    fn wake_thread(&self) {
        // Non-blocking: a full socket already holds a wake-up, nothing is lost.
        let _ = (&self.wake).write(&[1]);
    }
}

impl Drop for LayerOverlay {
    fn drop(&mut self) {
        // A closed channel tells the thread to destroy the surface and end.
        self.commands = None;
        self.wake_thread();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The thread's loop: commands, then the compositor's events, then sleep in `poll` until
/// either has more.
fn run(
    queue: &mut EventQueue<State>,
    state: &mut State,
    commands: &mpsc::Receiver<Command>,
    mut wake: UnixStream,
) -> Result<(), LayerOverlayError> {
    let failed = |e: &dyn std::fmt::Display| LayerOverlayError::Connection(e.to_string());
    let qh = queue.handle();
    loop {
        loop {
            match commands.try_recv() {
                Ok(Command::Show(frame)) => state.show(frame, &qh)?,
                Ok(Command::Hide) => state.hide(),
                Err(mpsc::TryRecvError::Empty) => break,
                Err(mpsc::TryRecvError::Disconnected) => return Ok(()),
            }
        }
        queue.dispatch_pending(state).map_err(|e| failed(&e))?;
        if state.closed {
            return Err(LayerOverlayError::Ended);
        }
        // Retried after the next wake-up when the socket is full.
        match queue.flush() {
            Err(wayland_client::backend::WaylandError::Io(e))
                if e.kind() == std::io::ErrorKind::WouldBlock => {}
            other => other.map_err(|e| failed(&e))?,
        }
        let Some(guard) = queue.prepare_read() else {
            continue;
        };
        let mut fds = [
            libc::pollfd {
                fd: guard.connection_fd().as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            },
            libc::pollfd {
                fd: wake.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            },
        ];
        // SAFETY: two valid pollfd entries, both fds open for the call.
        let ready = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, -1) };
        if ready < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(failed(&e));
        }
        if fds[0].revents != 0 {
            match guard.read() {
                Err(wayland_client::backend::WaylandError::Io(e))
                    if e.kind() == std::io::ErrorKind::WouldBlock => {}
                other => {
                    other.map_err(|e| failed(&e))?;
                }
            }
        } else {
            drop(guard);
        }
        if fds[1].revents != 0 {
            let mut drained = [0u8; 64];
            while matches!(wake.read(&mut drained), Ok(n) if n > 0) {}
        }
    }
}

/// A wl_buffer over its own memfd.
struct Slot {
    file: File,
    pool: wl_shm_pool::WlShmPool,
    buffer: wl_buffer::WlBuffer,
    width: u32,
    height: u32,
    /// Attached and not yet released by the compositor.
    busy: bool,
}

struct State {
    shm: wl_shm::WlShm,
    surface: wl_surface::WlSurface,
    layer: zwlr_layer_surface_v1::ZwlrLayerSurfaceV1,
    edge: Edge,
    /// The surface's size in logical pixels, as last asked of the compositor.
    size: (u32, u32),
    margin: u32,
    /// Each output with its scale.
    outputs: Vec<(wl_output::WlOutput, i32)>,
    /// The outputs the surface is on.
    entered: Vec<wl_output::WlOutput>,
    /// wl_surface v6's preferred buffer scale, when the compositor says it.
    preferred_scale: Option<i32>,
    scale: Arc<AtomicU32>,
    /// The latest configure was acknowledged: a buffer may be attached.
    configured: bool,
    /// Committed without a buffer; a configure is on its way.
    awaiting_configure: bool,
    logged_configure: bool,
    closed: bool,
    slots: [Option<Slot>; 2],
    /// The newest frame not yet on screen.
    pending: Option<Frame>,
    /// A frame is attached.
    shown: bool,
}

impl State {
    /// The surface's role state, then a commit without a buffer: the compositor answers with a
    /// configure.
    fn arm(&mut self) {
        use zwlr_layer_surface_v1::{Anchor, KeyboardInteractivity};
        let anchor = match self.edge {
            Edge::Bottom => Anchor::Bottom,
            Edge::Top => Anchor::Top,
        };
        self.layer.set_size(self.size.0, self.size.1);
        self.layer.set_anchor(anchor);
        let margin = i32::try_from(self.margin).unwrap_or(0);
        match self.edge {
            Edge::Bottom => self.layer.set_margin(0, 0, margin, 0),
            Edge::Top => self.layer.set_margin(margin, 0, 0, 0),
        }
        // Neither pushes windows aside nor covers a panel's reserved area.
        self.layer.set_exclusive_zone(0);
        self.layer
            .set_keyboard_interactivity(KeyboardInteractivity::None);
        self.surface.commit();
        self.awaiting_configure = true;
        self.configured = false;
    }

    fn show(&mut self, frame: Frame, qh: &QueueHandle<State>) -> Result<(), LayerOverlayError> {
        if frame.width == 0
            || frame.height == 0
            || frame.argb.len() != frame.width as usize * frame.height as usize
        {
            return Ok(());
        }
        self.pending = Some(frame);
        if !self.configured && !self.awaiting_configure {
            self.arm();
        }
        self.draw(qh)
    }

    fn hide(&mut self) {
        self.pending = None;
        if self.shown {
            self.surface.attach(None, 0, 0);
            self.surface.commit();
            self.shown = false;
            // Unmapped: a new configure comes before the next buffer.
            self.configured = false;
            self.awaiting_configure = false;
        }
    }

    /// Attaches the pending frame when the surface is configured and a buffer is free.
    fn draw(&mut self, qh: &QueueHandle<State>) -> Result<(), LayerOverlayError> {
        if !self.configured || self.closed {
            return Ok(());
        }
        let Some(frame) = self.pending.take() else {
            return Ok(());
        };
        let Some(index) = self
            .slots
            .iter()
            .position(|s| s.as_ref().is_none_or(|s| !s.busy))
        else {
            self.pending = Some(frame);
            return Ok(());
        };
        let fits = self.slots[index]
            .as_ref()
            .is_some_and(|s| (s.width, s.height) == (frame.width, frame.height));
        if !fits {
            if let Some(old) = self.slots[index].take() {
                old.buffer.destroy();
                old.pool.destroy();
            }
            self.slots[index] = Some(self.new_slot(index, frame.width, frame.height, qh)?);
        }
        let Some(slot) = self.slots[index].as_mut() else {
            return Ok(());
        };
        let bytes: Vec<u8> = frame.argb.iter().flat_map(|w| w.to_le_bytes()).collect();
        slot.file
            .write_all_at(&bytes, 0)
            .map_err(|e| LayerOverlayError::Memory(e.to_string()))?;
        // A buffer must be a whole multiple of its scale.
        let scale = if self.surface.version() >= 3
            && frame.width % frame.scale.max(1) == 0
            && frame.height % frame.scale.max(1) == 0
        {
            frame.scale.max(1)
        } else {
            1
        };
        if self.surface.version() >= 3 {
            self.surface.set_buffer_scale(scale as i32);
        }
        let logical = (frame.width / scale, frame.height / scale);
        if logical != self.size {
            self.size = logical;
            self.layer.set_size(logical.0, logical.1);
        }
        self.surface.attach(Some(&slot.buffer), 0, 0);
        if self.surface.version() >= 4 {
            self.surface.damage_buffer(0, 0, i32::MAX, i32::MAX);
        } else {
            self.surface.damage(0, 0, i32::MAX, i32::MAX);
        }
        self.surface.commit();
        slot.busy = true;
        self.shown = true;
        Ok(())
    }

    fn new_slot(
        &self,
        index: usize,
        width: u32,
        height: u32,
        qh: &QueueHandle<State>,
    ) -> Result<Slot, LayerOverlayError> {
        let too_big = || LayerOverlayError::Memory(format!("{width}x{height} pixels"));
        let stride = width.checked_mul(4).ok_or_else(too_big)?;
        let len = stride.checked_mul(height).ok_or_else(too_big)?;
        let (stride, len, w, h) = (
            i32::try_from(stride).map_err(|_| too_big())?,
            i32::try_from(len).map_err(|_| too_big())?,
            i32::try_from(width).map_err(|_| too_big())?,
            i32::try_from(height).map_err(|_| too_big())?,
        );
        let file = memfd()?;
        file.set_len(len as u64)
            .map_err(|e| LayerOverlayError::Memory(e.to_string()))?;
        let pool = self.shm.create_pool(file.as_fd(), len, qh, ());
        let buffer = pool.create_buffer(0, w, h, stride, wl_shm::Format::Argb8888, qh, index);
        Ok(Slot {
            file,
            pool,
            buffer,
            width,
            height,
            busy: false,
        })
    }

    /// The scale frames should be drawn at: the compositor's preferred one, else the largest of
    /// the outputs the surface is on, else of all outputs.
    fn update_scale(&mut self) {
        let on = |o: &wl_output::WlOutput| self.entered.is_empty() || self.entered.contains(o);
        let largest = self
            .outputs
            .iter()
            .filter(|(o, _)| on(o))
            .map(|(_, s)| *s)
            .max();
        let scale = self.preferred_scale.or(largest).unwrap_or(1).clamp(1, 8);
        self.scale.store(scale as u32, Ordering::Relaxed);
    }

    fn destroy(&mut self) {
        for slot in self.slots.iter_mut().filter_map(Option::take) {
            slot.buffer.destroy();
            slot.pool.destroy();
        }
        if !self.closed {
            self.layer.destroy();
        }
        self.surface.destroy();
        for (output, _) in &self.outputs {
            if output.version() >= 3 {
                output.release();
            }
        }
    }
}

/// An anonymous shared-memory file.
fn memfd() -> Result<File, LayerOverlayError> {
    // SAFETY: a NUL-terminated name and a flag; the result is checked before use.
    let fd =
        unsafe { libc::memfd_create(c"whisper-dictation-overlay".as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return Err(LayerOverlayError::Memory(
            std::io::Error::last_os_error().to_string(),
        ));
    }
    // SAFETY: a new fd that nothing else owns.
    Ok(File::from(unsafe { OwnedFd::from_raw_fd(fd) }))
}

impl Dispatch<zwlr_layer_surface_v1::ZwlrLayerSurfaceV1, ()> for State {
    fn event(
        state: &mut Self,
        layer: &zwlr_layer_surface_v1::ZwlrLayerSurfaceV1,
        event: zwlr_layer_surface_v1::Event,
        _: &(),
        _: &Connection,
        qh: &QueueHandle<Self>,
    ) {
        match event {
            zwlr_layer_surface_v1::Event::Configure {
                serial,
                width,
                height,
            } => {
                layer.ack_configure(serial);
                state.configured = true;
                state.awaiting_configure = false;
                if !state.logged_configure {
                    state.logged_configure = true;
                    tracing::info!(width, height, "overlay: layer surface configured");
                }
                if let Err(e) = state.draw(qh) {
                    tracing::warn!("overlay: a frame cannot be shown: {e}");
                }
            }
            zwlr_layer_surface_v1::Event::Closed => {
                tracing::info!("overlay: the compositor closed the layer surface");
                state.closed = true;
                layer.destroy();
            }
            _ => {}
        }
    }
}

impl Dispatch<wl_buffer::WlBuffer, usize> for State {
    fn event(
        state: &mut Self,
        _: &wl_buffer::WlBuffer,
        event: wl_buffer::Event,
        index: &usize,
        _: &Connection,
        qh: &QueueHandle<Self>,
    ) {
        if let wl_buffer::Event::Release = event {
            if let Some(slot) = state.slots.get_mut(*index).and_then(Option::as_mut) {
                slot.busy = false;
            }
            if let Err(e) = state.draw(qh) {
                tracing::warn!("overlay: a frame cannot be shown: {e}");
            }
        }
    }
}

impl Dispatch<wl_surface::WlSurface, ()> for State {
    fn event(
        state: &mut Self,
        _: &wl_surface::WlSurface,
        event: wl_surface::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        match event {
            wl_surface::Event::Enter { output } => state.entered.push(output),
            wl_surface::Event::Leave { output } => state.entered.retain(|o| *o != output),
            wl_surface::Event::PreferredBufferScale { factor } => {
                state.preferred_scale = Some(factor)
            }
            _ => return,
        }
        state.update_scale();
    }
}

impl Dispatch<wl_output::WlOutput, ()> for State {
    fn event(
        state: &mut Self,
        output: &wl_output::WlOutput,
        event: wl_output::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        if let wl_output::Event::Scale { factor } = event {
            if let Some(entry) = state.outputs.iter_mut().find(|(o, _)| o == output) {
                entry.1 = factor;
            }
            state.update_scale();
        }
    }
}

impl Dispatch<wl_registry::WlRegistry, GlobalListContents> for State {
    fn event(
        _: &mut Self,
        _: &wl_registry::WlRegistry,
        _: wl_registry::Event,
        _: &GlobalListContents,
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        // Outputs plugged in later are not followed: the overlay lives one dictation.
    }
}

delegate_noop!(State: ignore wl_compositor::WlCompositor);
delegate_noop!(State: ignore wl_region::WlRegion);
delegate_noop!(State: ignore wl_shm::WlShm);
delegate_noop!(State: ignore wl_shm_pool::WlShmPool);
delegate_noop!(State: ignore zwlr_layer_shell_v1::ZwlrLayerShellV1);
