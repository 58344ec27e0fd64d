//! Whether synthesized keystrokes can reach other apps on macOS, beyond the Accessibility
//! check itself (`accessibility_trusted`): Secure Event Input, which drops them silently, and
//! macOS's own Accessibility prompt, which also puts the app in System Settings' list. The
//! decisions made from these (copy instead of pasting, when to prompt) are portable
//! (`inject::keystroke_gate`, the app's permissions side). Elsewhere there is neither.

/// Whether Secure Event Input is on (`IsSecureEventInputEnabled`, HIToolbox): a password field,
/// Terminal's "Secure Keyboard Entry" or some password managers turn it on, and while it is on
/// macOS drops keystrokes other apps synthesize, without an error. It is one state for the
/// whole login session, whichever app turned it on. `None` where no such thing exists.
pub fn secure_input_enabled() -> Option<bool> {
    #[cfg(target_os = "macos")]
    {
        #[link(name = "Carbon", kind = "framework")]
        extern "C" {
            fn IsSecureEventInputEnabled() -> u8;
        }
        // SAFETY: no arguments; returns a Boolean (unsigned char).
        Some(unsafe { IsSecureEventInputEnabled() } != 0)
    }
    #[cfg(not(target_os = "macos"))]
    {
        None
    }
}

/// Asks for the Accessibility permission with macOS's own prompt
/// (`AXIsProcessTrustedWithOptions` with `kAXTrustedCheckOptionPrompt` true): while the app is
/// not trusted macOS shows its dialog ("… would like to control this computer using
/// accessibility features", with a button to System Settings) and lists the app, switched
/// off, in Privacy & Security → Accessibility, so the person turns it on instead of adding it
/// with +. Returns whether the app is trusted now. Call only when the person asked (the
/// menu's "Permissions…"), never at launch by itself. `None` where no such permission exists.
pub fn ask_for_accessibility() -> Option<bool> {
    #[cfg(target_os = "macos")]
    {
        use std::ffi::c_void;
        #[link(name = "ApplicationServices", kind = "framework")]
        extern "C" {
            static kAXTrustedCheckOptionPrompt: *const c_void;
            fn AXIsProcessTrustedWithOptions(options: *const c_void) -> u8;
        }
        // The callback tables are only passed by address: their layout (5 and 6 pointers)
        // does not matter here.
        #[link(name = "CoreFoundation", kind = "framework")]
        extern "C" {
            static kCFBooleanTrue: *const c_void;
            static kCFTypeDictionaryKeyCallBacks: [usize; 6];
            static kCFTypeDictionaryValueCallBacks: [usize; 5];
            fn CFDictionaryCreate(
                allocator: *const c_void,
                keys: *const *const c_void,
                values: *const *const c_void,
                count: isize,
                key_callbacks: *const c_void,
                value_callbacks: *const c_void,
            ) -> *const c_void;
            fn CFRelease(object: *const c_void);
        }
        // SAFETY: the key and value are the frameworks' constants (never released); the
        // dictionary is ours (Create rule) and released after the call, which does not keep it.
        unsafe {
            let keys = [kAXTrustedCheckOptionPrompt];
            let values = [kCFBooleanTrue];
            let options = CFDictionaryCreate(
                std::ptr::null(),
                keys.as_ptr(),
                values.as_ptr(),
                1,
                std::ptr::addr_of!(kCFTypeDictionaryKeyCallBacks).cast(),
                std::ptr::addr_of!(kCFTypeDictionaryValueCallBacks).cast(),
            );
            if options.is_null() {
                return None;
            }
            let trusted = AXIsProcessTrustedWithOptions(options) != 0;
            CFRelease(options);
            Some(trusted)
        }
    }
    #[cfg(not(target_os = "macos"))]
    {
        None
    }
}
