//! What the keys type in the current keyboard layout, for the paste shortcut (macOS): each
//! virtual key code's character with ⌘ held, read from the selected input source's Unicode key
//! layout, and a call on the main thread whenever the person switches input source. Which key
//! the shortcut then presses is decided in portable code (`inject::paste_key`).
//!
//! Both functions must run on the main thread: the Text Input Source functions (`TIS…`) assert
//! the main queue on recent macOS (see `prime_keyboard_events`), and the output thread that
//! sends the keys is not the main thread. enigo 0.6 reads the layout the same way for its
//! `Key::Unicode`, but on the thread that sends the key (`macos_impl.rs`, `keycode_to_string`):
//! the app never uses that on macOS.
//!
//! Elsewhere both answer "nothing": X11 applications match shortcuts by keysym, and enigo finds
//! the key that types "v" in the active layout itself.

/// What each virtual key code 0–127 types with ⌘ held in the current keyboard layout, as
/// `(key code, text)` for the keys that type something: the current keyboard layout input
/// source (`TISCopyCurrentKeyboardLayoutInputSource`; for an input method such as Japanese or
/// Chinese that is the layout it types through), or the ASCII-capable one when that has no
/// Unicode layout data (`TISCopyCurrentASCIICapableKeyboardLayoutInputSource`), translated by
/// `UCKeyTranslate` with the Command modifier (a layout may map keys differently while ⌘ is
/// held: "Dvorak – QWERTY ⌘" becomes QWERTY), no dead keys. Call on the main thread. `None`
/// where there is no such layout (not macOS), or when no source has layout data.
pub fn command_key_characters() -> Option<Vec<(u16, String)>> {
    #[cfg(target_os = "macos")]
    {
        use std::ffi::c_void;
        #[link(name = "Carbon", kind = "framework")]
        extern "C" {
            static kTISPropertyUnicodeKeyLayoutData: *const c_void;
            fn TISCopyCurrentKeyboardLayoutInputSource() -> *const c_void;
            fn TISCopyCurrentASCIICapableKeyboardLayoutInputSource() -> *const c_void;
            fn TISGetInputSourceProperty(
                source: *const c_void,
                key: *const c_void,
            ) -> *const c_void;
            fn LMGetKbdType() -> u8;
            fn UCKeyTranslate(
                layout: *const u8,
                virtual_key_code: u16,
                key_action: u16,
                modifier_key_state: u32,
                keyboard_type: u32,
                options: u32,
                dead_key_state: *mut u32,
                max_length: usize,
                actual_length: *mut usize,
                text: *mut u16,
            ) -> i32;
        }
        #[link(name = "CoreFoundation", kind = "framework")]
        extern "C" {
            fn CFDataGetBytePtr(data: *const c_void) -> *const u8;
            fn CFDataGetLength(data: *const c_void) -> isize;
            fn CFRelease(object: *const c_void);
        }
        // kUCKeyActionDown; cmdKey (1 << 8) shifted right by 8, as UCKeyTranslate wants the
        // modifiers; kUCKeyTranslateNoDeadKeysMask (a dead key answers nothing).
        const KEY_DOWN: u16 = 0;
        const COMMAND: u32 = (1 << 8) >> 8;
        const NO_DEAD_KEYS: u32 = 1;
        // The virtual key codes a Mac keyboard has (`kVK_*` in HIToolbox's Events.h).
        const VIRTUAL_KEY_CODES: u16 = 128;
        // SAFETY: each TISCopy… result is ours (Copy rule) and released below, after the
        // last use of the layout data it owns; TISGetInputSourceProperty follows the Get
        // rule (not released). UCKeyTranslate reads the 'uchr' data for as long as the
        // source lives and writes at most `text.len()` UTF-16 units.
        unsafe {
            let mut characters = None;
            for copy in [
                TISCopyCurrentKeyboardLayoutInputSource as unsafe extern "C" fn() -> *const c_void,
                TISCopyCurrentASCIICapableKeyboardLayoutInputSource,
            ] {
                let source = copy();
                if source.is_null() {
                    continue;
                }
                let data = TISGetInputSourceProperty(source, kTISPropertyUnicodeKeyLayoutData);
                if !data.is_null() && CFDataGetLength(data) > 0 {
                    let layout = CFDataGetBytePtr(data);
                    let keyboard_type = u32::from(LMGetKbdType());
                    let mut found = Vec::new();
                    for code in 0..VIRTUAL_KEY_CODES {
                        let mut dead_keys = 0u32;
                        let mut text = [0u16; 4];
                        let mut length = 0usize;
                        let status = UCKeyTranslate(
                            layout,
                            code,
                            KEY_DOWN,
                            COMMAND,
                            keyboard_type,
                            NO_DEAD_KEYS,
                            &mut dead_keys,
                            text.len(),
                            &mut length,
                            text.as_mut_ptr(),
                        );
                        if status == 0 && length > 0 {
                            let typed = String::from_utf16_lossy(&text[..length.min(text.len())]);
                            found.push((code, typed));
                        }
                    }
                    characters = Some(found);
                }
                CFRelease(source);
                if characters.is_some() {
                    break;
                }
            }
            characters
        }
    }
    #[cfg(not(target_os = "macos"))]
    {
        None
    }
}

/// Calls `changed` whenever the person selects another keyboard input source (the distributed
/// notification `kTISNotifySelectedKeyboardInputSourceChanged`, which macOS delivers on the
/// main thread's run loop: tao's event loop runs it). Call once, on the main thread; the
/// observer stays for the life of the process. Nothing to do elsewhere.
pub fn on_input_source_change(changed: fn()) {
    #[cfg(target_os = "macos")]
    {
        use std::ffi::c_void;
        #[link(name = "Carbon", kind = "framework")]
        extern "C" {
            static kTISNotifySelectedKeyboardInputSourceChanged: *const c_void;
        }
        #[link(name = "CoreFoundation", kind = "framework")]
        extern "C" {
            fn CFNotificationCenterGetDistributedCenter() -> *const c_void;
            fn CFNotificationCenterAddObserver(
                center: *const c_void,
                observer: *const c_void,
                callback: extern "C" fn(
                    *const c_void,
                    *mut c_void,
                    *const c_void,
                    *const c_void,
                    *const c_void,
                ),
                name: *const c_void,
                object: *const c_void,
                suspension_behavior: isize,
            );
        }
        // The observer pointer is `changed` itself, handed back to the callback.
        extern "C" fn input_source_changed(
            _center: *const c_void,
            observer: *mut c_void,
            _name: *const c_void,
            _object: *const c_void,
            _user_info: *const c_void,
        ) {
            // SAFETY: `observer` is the `fn()` registered below (function and data pointers
            // have one size on macOS).
            let changed: fn() = unsafe { std::mem::transmute::<*mut c_void, fn()>(observer) };
            // A panic must not unwind into CoreFoundation.
            if std::panic::catch_unwind(changed).is_err() {
                eprintln!("whisper-dictation: the input-source change handler panicked");
            }
        }
        // CFNotificationSuspensionBehaviorDeliverImmediately: also while the app is inactive
        // (a menu-bar app always is).
        const DELIVER_IMMEDIATELY: isize = 4;
        // SAFETY: the distributed center is a process-wide object (Get rule, not released);
        // the name is the framework's constant string; the callback has the
        // CFNotificationCallback signature and never unwinds.
        unsafe {
            let center = CFNotificationCenterGetDistributedCenter();
            if !center.is_null() {
                CFNotificationCenterAddObserver(
                    center,
                    changed as *const c_void,
                    input_source_changed,
                    kTISNotifySelectedKeyboardInputSourceChanged,
                    std::ptr::null(),
                    DELIVER_IMMEDIATELY,
                );
            }
        }
    }
    #[cfg(not(target_os = "macos"))]
    {
        let _ = changed;
    }
}
