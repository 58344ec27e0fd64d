//! Which window has the keyboard focus, as an identity to compare: where a delivered text went.
//! On X11 the window manager's `_NET_ACTIVE_WINDOW` (the X input focus where no window manager
//! sets it) and which life of that window id it is; on macOS the frontmost application's
//! process id and the number of its frontmost window; on a Wayland compositor with the wlr
//! foreign-toplevel protocol (sway, Hyprland…) the activated window and its app id
//! (`wayland::toplevels`). `None` where it cannot be told (GNOME's and KDE's Wayland, no
//! display, a query that failed). Whether a text joins the one before is decided from it in
//! portable code (`app::delivery`, [`Focus::same_window`]). The app's name, for the history
//! ([`FocusProbe::app_name`]): the window's `WM_CLASS` class on X11 (never its title, which
//! names the person's documents), the application's localized name on macOS.
//!
//! **A window id alone is not a window.** The X server gives each connection the lowest free
//! client slot, and the slot fixes the connection's resource-id base (slot × 0x200000 with the
//! default 256 clients); a program creates its resources in the same order each run, so a
//! program opened right after another one closed gets the same base and its first window the
//! same id. Seen on Xvfb with openbox: four `zenity --entry` boxes opened one after another,
//! each after the one before had closed, all were window 0x600003 (client slot 3), each with
//! its own `_NET_WM_PID` (`tests/focus_identity.rs` shows it with two X clients in a row). The
//! "same window, less than 90 s later" rule compared those ids, so a text into a fresh box
//! could start with a space. The probe therefore watches the window it last saw (X
//! `StructureNotify`) and counts its lives: a `DestroyNotify` ends one, and the same id seen
//! again afterwards is a new life, never equal to the old one, whichever program owns it now
//! (a new owner's `_NET_WM_PID` would tell a new program apart too, but not a window the same
//! program closed and reopened, and not every program sets it). Where the window cannot be
//! watched (it is gone already), the focus is `None`: in doubt, no joining space. On macOS
//! window numbers are not reused within a login session, and the pid tells the app.

/// The window that has the keyboard focus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    /// An X11 window (the active top-level window): its id, and which life of that id it is
    /// (a number unique in this process; a window destroyed and an id given to a new window
    /// are two lives).
    Window { id: u32, life: u64 },
    /// A Wayland window as a wlroots compositor's foreign-toplevel protocol announced it: a
    /// number this process gave it, never given to another window.
    Toplevel { number: u64 },
    /// A macOS application (the frontmost one): its process id, and the window number
    /// (`CGWindowID`) of its frontmost on-screen window at the normal level; `None` when it
    /// shows none or the window list could not be read.
    App { pid: i32, window: Option<u32> },
}

impl Focus {
    /// Whether a text delivered at `self` and one delivered at `other` went into the same
    /// window: the same X window in the same life, or the same Mac app and window. An identity
    /// not read in full (a Mac app with no window known) is never the same as anything.
    pub fn same_window(&self, other: &Focus) -> bool {
        match (*self, *other) {
            (
                Focus::Window { id, life },
                Focus::Window {
                    id: id2,
                    life: life2,
                },
            ) => id == id2 && life == life2,
            (
                Focus::App {
                    pid,
                    window: Some(window),
                },
                Focus::App {
                    pid: pid2,
                    window: Some(window2),
                },
            ) => pid == pid2 && window == window2,
            (Focus::Toplevel { number }, Focus::Toplevel { number: number2 }) => number == number2,
            _ => false,
        }
    }
}

/// The X window the probe watches (the last one it saw focused) and the life it gave it.
/// Portable bookkeeping, fed by the X11 seam: [`WindowLives::destroyed`] from the
/// `DestroyNotify` events, [`WindowLives::life`] at each focus query.
#[derive(Debug, Default)]
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
struct WindowLives {
    watched: Option<(u32, u64)>,
}

/// Lives are numbered across the process, so a probe made anew (the output thread's injector
/// recreated) never repeats one an older probe gave.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
static NEXT_LIFE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
impl WindowLives {
    /// The window `id` was destroyed: its life ends (the same id later is a new window).
    fn destroyed(&mut self, id: u32) {
        if self.watched.is_some_and(|(watched, _)| watched == id) {
            self.watched = None;
        }
    }

    /// The life of window `id`, the focus now: the watched window's while it lives, else a
    /// new life once `watch(id, previous)` has started watching `id` (and stopped watching
    /// `previous`, the window watched before). `None` when it could not be watched (the
    /// window is gone already): its destruction would go unseen.
    fn life(&mut self, id: u32, watch: impl FnOnce(u32, Option<u32>) -> bool) -> Option<u64> {
        match self.watched {
            Some((watched, life)) if watched == id => Some(life),
            previous => {
                let previous = previous.map(|(watched, _)| watched);
                self.watched = None;
                if !watch(id, previous) {
                    return None;
                }
                let life = NEXT_LIFE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                self.watched = Some((id, life));
                Some(life)
            }
        }
    }
}

/// The first window of `pid` at the normal level (0) in a front-to-back window list of
/// (owner pid, level, window number), as `CGWindowListCopyWindowInfo` gives it: the app's
/// frontmost window.
pub fn front_window_of(
    pid: i32,
    windows: impl IntoIterator<Item = (i32, i32, u32)>,
) -> Option<u32> {
    windows
        .into_iter()
        .find(|&(owner, level, _)| owner == pid && level == 0)
        .map(|(_, _, number)| number)
}

/// Reads the focus; one per output thread (on X11 it holds its own connection; on a Wayland
/// compositor with the foreign-toplevel protocol, its own connection and thread).
pub struct FocusProbe {
    #[cfg(target_os = "linux")]
    x11: Option<X11Focus>,
    #[cfg(target_os = "linux")]
    wayland: Option<super::wayland::toplevels::ToplevelFocus>,
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

/// Both names of an X11 `WM_CLASS` value, instance then class, the empty ones left out
/// ("xterm\0XTerm\0" → ["xterm", "XTerm"]).
pub fn names_of_wm_class(value: &[u8]) -> Vec<String> {
    value
        .split(|&b| b == 0)
        .map(|part| {
            String::from_utf8_lossy(part)
                .trim()
                .chars()
                .take(200)
                .collect::<String>()
        })
        .filter(|name| !name.is_empty())
        .take(2)
        .collect()
}

#[cfg(target_os = "linux")]
struct X11Focus {
    conn: x11rb::rust_connection::RustConnection,
    root: u32,
    /// The `_NET_ACTIVE_WINDOW` atom.
    active: u32,
    /// The window watched for its destruction, and its life.
    lives: std::cell::RefCell<WindowLives>,
}

impl FocusProbe {
    /// `None` where the focus cannot be read at all (no X display, not macOS).
    pub fn new() -> Option<FocusProbe> {
        #[cfg(target_os = "linux")]
        {
            use x11rb::protocol::xproto::ConnectionExt;
            // On Wayland the X server (XWayland) sees only X11 windows: the compositor's own
            // account comes first where it gives one.
            if let Some(wayland) = super::wayland::toplevels::ToplevelFocus::new() {
                return Some(FocusProbe {
                    x11: None,
                    wayland: Some(wayland),
                });
            }
            let (conn, root) = super::x11_root_connection()?;
            let active = conn
                .intern_atom(false, b"_NET_ACTIVE_WINDOW")
                .ok()?
                .reply()
                .ok()?
                .atom;
            Some(FocusProbe {
                x11: Some(X11Focus {
                    conn,
                    root,
                    active,
                    lives: Default::default(),
                }),
                wayland: None,
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
            use x11rb::connection::Connection;
            use x11rb::protocol::xproto::{
                AtomEnum, ChangeWindowAttributesAux, ConnectionExt, EventMask,
            };
            use x11rb::protocol::Event;
            let X11Focus {
                conn,
                root,
                active,
                lives,
            } = match (&self.x11, &self.wayland) {
                (_, Some(wayland)) => {
                    return wayland
                        .activated()
                        .map(|a| Focus::Toplevel { number: a.number })
                }
                (Some(x11), None) => x11,
                (None, None) => return None,
            };
            // The window manager's answer: the top-level window the person activated.
            let by_manager = conn
                .get_property(false, *root, *active, AtomEnum::WINDOW, 0, 1)
                .ok()
                .and_then(|cookie| cookie.reply().ok())
                .and_then(|reply| reply.value32().and_then(|mut values| values.next()))
                .filter(|&w| w != 0);
            let window = match by_manager {
                Some(window) => window,
                // No window manager (or none that says): the X input focus. 0 is None and 1
                // is PointerRoot, neither a window.
                None => Some(conn.get_input_focus().ok()?.reply().ok()?.focus)
                    .filter(|&focus| focus > 1)?,
            };
            // The events the server sent before that reply are queued now: a DestroyNotify of
            // the watched window, sent before a new window could take its id, is among them.
            let mut lives = lives.borrow_mut();
            while let Ok(Some(event)) = conn.poll_for_event() {
                if let Event::DestroyNotify(destroyed) = event {
                    lives.destroyed(destroyed.window);
                }
            }
            let life = lives.life(window, |window, previous| {
                if let Some(previous) = previous {
                    // Best effort: gone already, or watched a little longer for nothing.
                    let stop = ChangeWindowAttributesAux::new().event_mask(EventMask::NO_EVENT);
                    let _ = conn.change_window_attributes(previous, &stop);
                }
                // Checked (a round trip): an error means the window is gone already.
                let watch =
                    ChangeWindowAttributesAux::new().event_mask(EventMask::STRUCTURE_NOTIFY);
                conn.change_window_attributes(window, &watch)
                    .ok()
                    .is_some_and(|cookie| cookie.check().is_ok())
            })?;
            Some(Focus::Window { id: window, life })
        }
        #[cfg(target_os = "macos")]
        {
            use objc2::runtime::{AnyClass, AnyObject};
            /// The number of `pid`'s frontmost on-screen window at the normal level, from the
            /// window server's list ([`front_window_of`] picks it). Window numbers and owners are
            /// in the list without the Screen Recording permission (only titles need it). `None`
            /// when the list cannot be read or the app shows no such window.
            fn front_window(pid: i32) -> Option<u32> {
                use std::ffi::c_void;
                // core-graphics 0.25's window.rs declares these so (CGWindowListOption and
                // CGWindowID are u32; the keys are CFStringRefs); CFIndex is isize and CFNumberType
                // u32 with kCFNumberSInt64Type = 4 (core-foundation-sys 0.8.7's base.rs,
                // number.rs).
                const ON_SCREEN_ONLY: u32 = 1 << 0;
                const EXCLUDE_DESKTOP_ELEMENTS: u32 = 1 << 4;
                const NULL_WINDOW_ID: u32 = 0;
                const NUMBER_SINT64: u32 = 4;
                #[link(name = "CoreGraphics", kind = "framework")]
                extern "C" {
                    static kCGWindowNumber: *const c_void;
                    static kCGWindowLayer: *const c_void;
                    static kCGWindowOwnerPID: *const c_void;
                    fn CGWindowListCopyWindowInfo(
                        option: u32,
                        relative_to_window: u32,
                    ) -> *const c_void;
                }
                #[link(name = "CoreFoundation", kind = "framework")]
                extern "C" {
                    fn CFArrayGetCount(array: *const c_void) -> isize;
                    fn CFArrayGetValueAtIndex(array: *const c_void, index: isize) -> *const c_void;
                    fn CFDictionaryGetValue(
                        dictionary: *const c_void,
                        key: *const c_void,
                    ) -> *const c_void;
                    fn CFNumberGetValue(number: *const c_void, kind: u32, value: *mut c_void)
                        -> u8;
                    fn CFRelease(object: *const c_void);
                }
                // SAFETY: the array is ours (Copy rule) and released once, after the last read of
                // its dictionaries, which it owns (Get rule: not released here). Every value under
                // these three keys is a CFNumber (CGWindow.h); a missing one is NULL and skipped.
                unsafe {
                    let list = CGWindowListCopyWindowInfo(
                        ON_SCREEN_ONLY | EXCLUDE_DESKTOP_ELEMENTS,
                        NULL_WINDOW_ID,
                    );
                    if list.is_null() {
                        return None;
                    }
                    let number = |window: *const c_void, key: *const c_void| -> Option<i64> {
                        let value = CFDictionaryGetValue(window, key);
                        let mut out: i64 = 0;
                        (!value.is_null()
                            && CFNumberGetValue(
                                value,
                                NUMBER_SINT64,
                                (&mut out as *mut i64).cast(),
                            ) != 0)
                            .then_some(out)
                    };
                    let windows = (0..CFArrayGetCount(list))
                        .map(|i| CFArrayGetValueAtIndex(list, i))
                        .filter(|window| !window.is_null())
                        .filter_map(|window| {
                            Some((
                                i32::try_from(number(window, kCGWindowOwnerPID)?).ok()?,
                                i32::try_from(number(window, kCGWindowLayer)?).ok()?,
                                u32::try_from(number(window, kCGWindowNumber)?).ok()?,
                            ))
                        });
                    let front = front_window_of(pid, windows);
                    CFRelease(list);
                    front
                }
            }
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
                    (pid > 0).then(|| Focus::App {
                        pid,
                        window: front_window(pid),
                    })
                }
            })
        }
        #[cfg(not(any(target_os = "linux", target_os = "macos")))]
        {
            None
        }
    }

    /// The names the app that has the focus now goes by, for the per-app modes
    /// (`settings::modes`): the X11 `WM_CLASS` instance and class, the macOS bundle id and the
    /// app's name. `None` when the focus or its app cannot be read.
    pub fn focused_app_names(&self) -> Option<Vec<String>> {
        let focus = self.focused()?;
        #[cfg(target_os = "linux")]
        {
            if let Focus::Toplevel { .. } = focus {
                return self.app_name(focus).map(|app_id| vec![app_id]);
            }
            let names = names_of_wm_class(&self.wm_class(focus)?);
            (!names.is_empty()).then_some(names)
        }
        #[cfg(target_os = "macos")]
        {
            use objc2::runtime::{AnyClass, AnyObject};
            let Focus::App { pid, .. } = focus else {
                return None;
            };
            let class = AnyClass::get(c"NSRunningApplication")?;
            let mut names = Vec::new();
            objc2::rc::autoreleasepool(|_| {
                // SAFETY: as in `app_name`; -bundleIdentifier is an NSString or nil
                // (objc2-app-kit 0.3.2, NSRunningApplication.rs).
                unsafe {
                    let app: *mut AnyObject =
                        objc2::msg_send![class, runningApplicationWithProcessIdentifier: pid];
                    if app.is_null() {
                        return;
                    }
                    let id: *mut AnyObject = objc2::msg_send![app, bundleIdentifier];
                    if !id.is_null() {
                        let utf8: *const std::ffi::c_char = objc2::msg_send![id, UTF8String];
                        if !utf8.is_null() {
                            names.push(
                                std::ffi::CStr::from_ptr(utf8)
                                    .to_string_lossy()
                                    .into_owned(),
                            );
                        }
                    }
                }
            });
            names.extend(self.app_name(focus));
            (!names.is_empty()).then_some(names)
        }
        #[cfg(not(any(target_os = "linux", target_os = "macos")))]
        {
            let _ = focus;
            None
        }
    }

    /// The raw `WM_CLASS` property of the X window `focus` (instance and class, NUL-separated).
    #[cfg(target_os = "linux")]
    fn wm_class(&self, focus: Focus) -> Option<Vec<u8>> {
        use x11rb::protocol::xproto::{AtomEnum, ConnectionExt};
        let Focus::Window { id: window, .. } = focus else {
            return None;
        };
        let reply = self
            .x11
            .as_ref()?
            .conn
            .get_property(false, window, AtomEnum::WM_CLASS, AtomEnum::STRING, 0, 64)
            .ok()?
            .reply()
            .ok()?;
        Some(reply.value)
    }

    /// The name of the app that `focus` belongs to, as the system names it; `None` when it
    /// cannot be told.
    pub fn app_name(&self, focus: Focus) -> Option<String> {
        #[cfg(target_os = "linux")]
        {
            if let Focus::Toplevel { number } = focus {
                // The window's app id while it is still the activated one.
                let activated = self.wayland.as_ref()?.activated()?;
                return (activated.number == number && !activated.app_id.is_empty())
                    .then_some(activated.app_id);
            }
            class_of_wm_class(&self.wm_class(focus)?)
        }
        #[cfg(target_os = "macos")]
        {
            use objc2::runtime::{AnyClass, AnyObject};
            let Focus::App { pid, .. } = focus else {
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
        assert_eq!(names_of_wm_class(b"xterm\0XTerm\0"), ["xterm", "XTerm"]);
        assert_eq!(names_of_wm_class(b"\0Gedit\0"), ["Gedit"]);
        assert!(names_of_wm_class(b"").is_empty());
        assert_eq!(class_of_wm_class(b"\0\0"), None);
        assert_eq!(class_of_wm_class(b""), None);
    }

    #[test]
    fn a_window_id_given_again_after_its_window_was_destroyed_is_a_new_life() {
        let mut lives = WindowLives::default();
        let mut watched = Vec::new();
        let mut watch = |id, previous| {
            watched.push((id, previous));
            true
        };
        let first = lives.life(0x60_0003, &mut watch).unwrap();
        // Asked again while it lives: the same life, not watched again.
        assert_eq!(lives.life(0x60_0003, &mut watch), Some(first));
        // Its program closed it; the next program's first window got the same id.
        lives.destroyed(0x60_0003);
        let second = lives.life(0x60_0003, &mut watch).unwrap();
        assert_ne!(first, second);
        // Another window: watched instead of the one before; back to the one before, a new
        // life (its destruction in between would have gone unseen).
        let other = lives.life(0x80_0003, &mut watch).unwrap();
        let again = lives.life(0x60_0003, &mut watch).unwrap();
        assert!(other != second && again != second && again != other);
        // A DestroyNotify of a window no longer watched changes nothing.
        lives.destroyed(0x80_0003);
        assert_eq!(lives.life(0x60_0003, &mut watch), Some(again));
        assert_eq!(
            watched,
            [
                (0x60_0003, None),
                (0x60_0003, None),
                (0x80_0003, Some(0x60_0003)),
                (0x60_0003, Some(0x80_0003)),
            ]
        );
    }

    #[test]
    fn a_window_that_cannot_be_watched_has_no_identity() {
        let mut lives = WindowLives::default();
        assert_eq!(lives.life(0x60_0003, |_, _| false), None);
        // Nothing was left watched: the next query tries again.
        assert!(lives.life(0x60_0003, |_, _| true).is_some());
    }

    #[test]
    fn the_same_window_is_the_same_id_in_the_same_life_or_the_same_app_and_window() {
        let x = |id, life| Focus::Window { id, life };
        assert!(x(0x60_0003, 7).same_window(&x(0x60_0003, 7)));
        assert!(!x(0x60_0003, 7).same_window(&x(0x60_0003, 8)));
        assert!(!x(0x60_0003, 7).same_window(&x(0x80_0003, 7)));
        let mac = |pid, window| Focus::App { pid, window };
        assert!(mac(412, Some(9_001)).same_window(&mac(412, Some(9_001))));
        assert!(!mac(412, Some(9_001)).same_window(&mac(412, Some(9_002))));
        assert!(!mac(412, Some(9_001)).same_window(&mac(413, Some(9_001))));
        // An app whose window is not known: in doubt, not the same.
        assert!(!mac(412, None).same_window(&mac(412, None)));
        assert!(!mac(412, None).same_window(&mac(412, Some(9_001))));
    }

    #[test]
    fn the_front_window_of_an_app_is_its_first_at_the_normal_level() {
        // Front to back: the menu bar (level 24, the WindowServer's), a floating palette of
        // app 412 (level 3), another app's window, then app 412's document windows.
        let list = [
            (88, 24, 1),
            (412, 3, 50),
            (500, 0, 61),
            (412, 0, 72),
            (412, 0, 73),
        ];
        assert_eq!(front_window_of(412, list), Some(72));
        assert_eq!(front_window_of(500, list), Some(61));
        assert_eq!(front_window_of(600, list), None);
    }
}
