//! Showing a desktop notification, and on macOS the app it is shown as. Linux: notify-rust
//! over D-Bus, with the app name and icon. macOS: mac-notification-sys (the library under
//! notify-rust there) called directly, because notify-rust's macOS `show()` returns before
//! sending and drops the send's error (its handle sends on drop), so a failure could never be
//! reported; and the sender's bundle id must be set once before the first notification, or
//! mac-notification-sys looks up an app named "use_default" by AppleScript (an app-chooser
//! dialog) and posts as Finder. Which id to use is decided by the caller (`app::notify`).

/// Makes `bundle_id` the app macOS shows the notifications as (its name and icon). Call once,
/// before the first notification; a second call fails. On failure (no app with that id known
/// to Launch Services) macOS shows them as Terminal's. Nothing to do elsewhere.
pub fn set_notification_sender(bundle_id: &str) -> Result<(), String> {
    #[cfg(target_os = "macos")]
    {
        mac_notification_sys::set_application(bundle_id).map_err(|e| e.to_string())
    }
    #[cfg(not(target_os = "macos"))]
    {
        let _ = bundle_id;
        Ok(())
    }
}

/// Shows a notification now; the error says why it could not be (no notification daemon on
/// Linux; on macOS what mac-notification-sys reports — it does not confirm delivery itself).
/// May block: call it off the event loop (the app's notifier thread).
pub fn show_notification(
    app_name: &str,
    icon: &str,
    summary: &str,
    body: &str,
) -> Result<(), String> {
    #[cfg(target_os = "macos")]
    {
        // The app name and icon come from the sender's bundle (set_notification_sender).
        let _ = (app_name, icon);
        mac_notification_sys::send_notification(summary, None, body, None)
            .map(drop)
            .map_err(|e| e.to_string())
    }
    #[cfg(not(target_os = "macos"))]
    {
        notify_rust::Notification::new()
            .appname(app_name)
            .summary(summary)
            .body(body)
            .icon(icon)
            .show()
            .map(drop)
            .map_err(|e| e.to_string())
    }
}
