//! What macOS needs to know to give the app its CPU: an activity held while a dictation is
//! recorded or transcribed (App Nap would otherwise throttle a windowless app's threads), and
//! the number of performance cores (M1/M2 mix performance and efficiency cores; compute spread
//! over both waits for the slow ones). Nothing, or `None`, elsewhere; the decisions are
//! portable (`app`, `device::threads`).

/// `NSActivityUserInitiated` (NSProcessInfo.h): user-initiated work, no App Nap, no idle
/// system sleep while it lasts.
#[cfg(target_os = "macos")]
const NS_ACTIVITY_USER_INITIATED: u64 = 0x00FF_FFFF | (1 << 20);

/// While this lives, macOS treats the process as doing work the user asked for
/// (`-[NSProcessInfo beginActivityWithOptions:reason:]`, ended on drop). A no-op elsewhere.
pub struct UserActivity {
    #[cfg(target_os = "macos")]
    token: Option<objc2::rc::Retained<objc2::runtime::AnyObject>>,
}

impl UserActivity {
    /// Begins one; `reason` shows in Activity Monitor's and `pmset`'s diagnostics.
    pub fn begin(reason: &std::ffi::CStr) -> UserActivity {
        #[cfg(target_os = "macos")]
        {
            use objc2::rc::Retained;
            use objc2::runtime::{AnyClass, AnyObject};
            let token = (|| {
                let process_info_class = AnyClass::get(c"NSProcessInfo")?;
                let string_class = AnyClass::get(c"NSString")?;
                objc2::rc::autoreleasepool(|_| {
                    // SAFETY: +processInfo returns the shared NSProcessInfo; +stringWithUTF8String:
                    // copies the NUL-terminated UTF-8 `reason`; -beginActivityWithOptions:reason:
                    // takes NSActivityOptions (uint64_t) and an NSString and returns the
                    // activity object (autoreleased: Retained keeps it until endActivity:).
                    unsafe {
                        let info: *mut AnyObject =
                            objc2::msg_send![process_info_class, processInfo];
                        let text: *mut AnyObject =
                            objc2::msg_send![string_class, stringWithUTF8String: reason.as_ptr()];
                        if info.is_null() || text.is_null() {
                            return None;
                        }
                        let token: Option<Retained<AnyObject>> = objc2::msg_send![
                            info,
                            beginActivityWithOptions: NS_ACTIVITY_USER_INITIATED,
                            reason: text
                        ];
                        token
                    }
                })
            })();
            UserActivity { token }
        }
        #[cfg(not(target_os = "macos"))]
        {
            let _ = reason;
            UserActivity {}
        }
    }
}

impl Drop for UserActivity {
    fn drop(&mut self) {
        #[cfg(target_os = "macos")]
        if let (Some(token), Some(class)) = (
            self.token.take(),
            objc2::runtime::AnyClass::get(c"NSProcessInfo"),
        ) {
            // SAFETY: ends the activity begun in `begin` on the same shared NSProcessInfo.
            unsafe {
                let info: *mut objc2::runtime::AnyObject = objc2::msg_send![class, processInfo];
                if !info.is_null() {
                    let _: () = objc2::msg_send![info, endActivity: &*token];
                }
            }
        }
    }
}

/// The number of performance cores (`hw.perflevel0.physicalcpu`, on Apple silicon; an Intel
/// Mac has no performance levels). `None` elsewhere or when the system does not say.
pub fn performance_cores() -> Option<usize> {
    #[cfg(target_os = "macos")]
    {
        let mut value: i32 = 0;
        let mut size = std::mem::size_of::<i32>();
        // SAFETY: the name is NUL-terminated; `value` and `size` describe a 4-byte buffer.
        let rc = unsafe {
            libc::sysctlbyname(
                c"hw.perflevel0.physicalcpu".as_ptr(),
                (&mut value as *mut i32).cast(),
                &mut size,
                std::ptr::null_mut(),
                0,
            )
        };
        (rc == 0 && value > 0).then_some(value as usize)
    }
    #[cfg(not(target_os = "macos"))]
    {
        None
    }
}
