//! Small OS queries around the keyboard and the clipboard for delivering text and choosing the
//! hotkey: the first keyboard event made on the main thread (macOS), the system shortcuts the
//! user has (macOS), and the clipboard's change count (macOS). Each answers "nothing to do" or
//! `None` elsewhere; the decisions made from the answers are portable (`inject`,
//! `system_shortcuts`).

/// Creates (and frees, unposted) one keyboard event, on the thread that calls it: the app's
/// main thread, before the output thread sends any key. macOS initialises its key translation
/// once per process, on the thread of the first `CGEventCreateKeyboardEvent`
/// (`SLEventCreateKeyboardEvent` → `CGSKeyEventTranslate` → a dispatch-once block that calls
/// `TSMGetInputSourceProperty`), and the input-source functions assert the main queue on recent
/// macOS: done first on the output thread, it can crash the app there. Needs no permission
/// (nothing is posted). Nothing to do elsewhere.
pub fn prime_keyboard_events() {
    #[cfg(target_os = "macos")]
    {
        use std::ffi::c_void;
        #[link(name = "ApplicationServices", kind = "framework")]
        extern "C" {
            fn CGEventCreateKeyboardEvent(
                source: *const c_void,
                virtual_key: u16,
                key_down: bool,
            ) -> *const c_void;
        }
        #[link(name = "CoreFoundation", kind = "framework")]
        extern "C" {
            fn CFRelease(object: *const c_void);
        }
        // SAFETY: a null source is allowed (the default one); the event is ours to release.
        unsafe {
            let event = CGEventCreateKeyboardEvent(std::ptr::null(), 0, true);
            if !event.is_null() {
                CFRelease(event);
            }
        }
    }
}

/// The symbolic hotkeys the user's macOS has (`defaults export com.apple.symbolichotkeys -`,
/// an XML property list; parsed by `system_shortcuts`). `None` elsewhere, or when `defaults`
/// fails.
pub fn symbolic_hotkeys_plist() -> Option<String> {
    #[cfg(target_os = "macos")]
    {
        let out = std::process::Command::new("/usr/bin/defaults")
            .args(["export", "com.apple.symbolichotkeys", "-"])
            .stdin(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .output()
            .ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
    }
    #[cfg(not(target_os = "macos"))]
    {
        None
    }
}

/// The general pasteboard's `changeCount` on macOS (it grows with every new clipboard
/// content, and reading it is not reading the clipboard, so macOS's clipboard-privacy prompt
/// does not come from it). `None` elsewhere: the text is compared there
/// (`inject::clipboard_still_ours`).
pub fn clipboard_change_count() -> Option<i64> {
    #[cfg(target_os = "macos")]
    {
        use objc2::runtime::{AnyClass, AnyObject};
        let class = AnyClass::get(c"NSPasteboard")?;
        objc2::rc::autoreleasepool(|_| {
            // SAFETY: +[NSPasteboard generalPasteboard] returns the shared pasteboard (or nil
            // under some launchd modes); -changeCount returns an NSInteger.
            unsafe {
                let pasteboard: *mut AnyObject = objc2::msg_send![class, generalPasteboard];
                if pasteboard.is_null() {
                    return None;
                }
                let count: isize = objc2::msg_send![pasteboard, changeCount];
                Some(count as i64)
            }
        })
    }
    #[cfg(not(target_os = "macos"))]
    {
        None
    }
}
