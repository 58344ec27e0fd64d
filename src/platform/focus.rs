//! Which window or app has the keyboard focus, as an identity to compare: where a delivered text
//! went. On X11 the window manager's `_NET_ACTIVE_WINDOW` (the X input focus where no window
//! manager sets it), on macOS the frontmost application's process id. `None` where it cannot be
//! told (Wayland, no display, a query that failed). Whether a text joins the one before is
//! decided from it in portable code (`app::delivery`).

/// The window or app that has the keyboard focus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    /// An X11 window id (the active top-level window).
    Window(u32),
    /// A macOS application's process id (the frontmost application).
    App(i32),
}

/// Reads the focus; one per output thread (on X11 it holds its own connection).
pub struct FocusProbe {
    #[cfg(target_os = "linux")]
    x11: X11Focus,
}

#[cfg(target_os = "linux")]
struct X11Focus {
    conn: x11rb::rust_connection::RustConnection,
    root: u32,
    /// The `_NET_ACTIVE_WINDOW` atom.
    active: u32,
}

impl FocusProbe {
    /// `None` where the focus cannot be read at all (no X display, not macOS).
    pub fn new() -> Option<FocusProbe> {
        #[cfg(target_os = "linux")]
        {
            use x11rb::protocol::xproto::ConnectionExt;
            let (conn, root) = super::x11_root_connection()?;
            let active = conn
                .intern_atom(false, b"_NET_ACTIVE_WINDOW")
                .ok()?
                .reply()
                .ok()?
                .atom;
            Some(FocusProbe {
                x11: X11Focus { conn, root, active },
            })
        }
        #[cfg(target_os = "macos")]
        {
            Some(FocusProbe {})
        }
        #[cfg(not(any(target_os = "linux", target_os = "macos")))]
        {
            None
        }
    }

    /// The window or app with the focus now; `None` when the query failed or nothing has it.
    pub fn focused(&self) -> Option<Focus> {
        #[cfg(target_os = "linux")]
        {
            use x11rb::protocol::xproto::{AtomEnum, ConnectionExt};
            let X11Focus { conn, root, active } = &self.x11;
            // The window manager's answer: the top-level window the person activated.
            let by_manager = conn
                .get_property(false, *root, *active, AtomEnum::WINDOW, 0, 1)
                .ok()
                .and_then(|cookie| cookie.reply().ok())
                .and_then(|reply| reply.value32().and_then(|mut values| values.next()));
            if let Some(window) = by_manager.filter(|&w| w != 0) {
                return Some(Focus::Window(window));
            }
            // No window manager (or none that says): the X input focus. 0 is None and 1 is
            // PointerRoot, neither a window.
            let focus = conn.get_input_focus().ok()?.reply().ok()?.focus;
            (focus > 1).then_some(Focus::Window(focus))
        }
        #[cfg(target_os = "macos")]
        {
            use objc2::runtime::{AnyClass, AnyObject};
            let class = AnyClass::get(c"NSWorkspace")?;
            objc2::rc::autoreleasepool(|_| {
                // SAFETY: +[NSWorkspace sharedWorkspace] returns the shared workspace,
                // -frontmostApplication an NSRunningApplication or nil, -processIdentifier a
                // pid_t (-1 for an application without a process). objc2-app-kit 0.3.2
                // declares them so (NSWorkspace.rs, NSRunningApplication.rs) and does not mark
                // NSWorkspace main-thread-only.
                unsafe {
                    let workspace: *mut AnyObject = objc2::msg_send![class, sharedWorkspace];
                    if workspace.is_null() {
                        return None;
                    }
                    let app: *mut AnyObject = objc2::msg_send![workspace, frontmostApplication];
                    if app.is_null() {
                        return None;
                    }
                    let pid: i32 = objc2::msg_send![app, processIdentifier];
                    (pid > 0).then_some(Focus::App(pid))
                }
            })
        }
        #[cfg(not(any(target_os = "linux", target_os = "macos")))]
        {
            None
        }
    }
}
