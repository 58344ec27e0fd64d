//! Which window or app has the keyboard focus, as an identity to compare: where a delivered text
//! went. On X11 the window manager's `_NET_ACTIVE_WINDOW` (the X input focus where no window
//! manager sets it), on macOS the frontmost application's process id. `None` where it cannot be
//! told (Wayland, no display, a query that failed). Whether a text joins the one before is
//! decided from it in portable code (`app::delivery`). The app's name, for the history
//! ([`FocusProbe::app_name`]): the window's `WM_CLASS` class on X11 (never its title, which
//! names the person's documents), the application's localized name on macOS.

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

/// The application class of an X11 `WM_CLASS` property's value: two NUL-terminated strings,
/// the instance then the class ("gedit\0Gedit\0" → "Gedit"); the instance when there is no
/// class; `None` when both are empty.
pub fn class_of_wm_class(value: &[u8]) -> Option<String> {
    let mut parts = value.split(|&b| b == 0).map(String::from_utf8_lossy);
    let instance = parts.next().unwrap_or_default();
    let class = parts.next().unwrap_or_default();
    let name = if class.trim().is_empty() {
        instance
    } else {
        class
    };
    let name = name.trim();
    (!name.is_empty()).then(|| name.chars().take(100).collect())
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

    /// The name of the app that `focus` belongs to, as the system names it; `None` when it
    /// cannot be told.
    pub fn app_name(&self, focus: Focus) -> Option<String> {
        #[cfg(target_os = "linux")]
        {
            use x11rb::protocol::xproto::{AtomEnum, ConnectionExt};
            let Focus::Window(window) = focus else {
                return None;
            };
            let reply = self
                .x11
                .conn
                .get_property(false, window, AtomEnum::WM_CLASS, AtomEnum::STRING, 0, 64)
                .ok()?
                .reply()
                .ok()?;
            class_of_wm_class(&reply.value)
        }
        #[cfg(target_os = "macos")]
        {
            use objc2::runtime::{AnyClass, AnyObject};
            let Focus::App(pid) = focus else {
                return None;
            };
            let class = AnyClass::get(c"NSRunningApplication")?;
            objc2::rc::autoreleasepool(|_| {
                // SAFETY: +[NSRunningApplication runningApplicationWithProcessIdentifier:]
                // takes a pid_t and returns an NSRunningApplication or nil, -localizedName an
                // NSString or nil, -UTF8String a NUL-terminated C string (or NULL) that lives
                // as long as the autorelease pool, which outlives the copy made here.
                // objc2-app-kit 0.3.2 declares them so (NSRunningApplication.rs: 134, 252;
                // the class is Send + Sync there), objc2-foundation's NSString.rs: 659.
                unsafe {
                    let app: *mut AnyObject =
                        objc2::msg_send![class, runningApplicationWithProcessIdentifier: pid];
                    if app.is_null() {
                        return None;
                    }
                    let name: *mut AnyObject = objc2::msg_send![app, localizedName];
                    if name.is_null() {
                        return None;
                    }
                    let utf8: *const std::ffi::c_char = objc2::msg_send![name, UTF8String];
                    if utf8.is_null() {
                        return None;
                    }
                    let name = std::ffi::CStr::from_ptr(utf8).to_string_lossy();
                    let name = name.trim();
                    (!name.is_empty()).then(|| name.chars().take(100).collect())
                }
            })
        }
        #[cfg(not(any(target_os = "linux", target_os = "macos")))]
        {
            let _ = focus;
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_class_of_wm_class_names_the_app() {
        assert_eq!(
            class_of_wm_class(b"gedit\0Gedit\0").as_deref(),
            Some("Gedit")
        );
        assert_eq!(
            class_of_wm_class(b"zenity\0Zenity\0").as_deref(),
            Some("Zenity")
        );
        assert_eq!(class_of_wm_class(b"xterm\0").as_deref(), Some("xterm"));
        assert_eq!(class_of_wm_class(b"\0\0"), None);
        assert_eq!(class_of_wm_class(b""), None);
    }
}
