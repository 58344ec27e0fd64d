//! The desktop portals (`org.freedesktop.portal.Desktop` on the session bus) that reach past
//! Wayland's walls where the desktop offers them: the global hotkey through GlobalShortcuts
//! (KDE Plasma, GNOME 48+), and the paste keystroke and typed text through RemoteDesktop
//! (GNOME, which has no virtual-keyboard protocol). Owns the sessions it opens: each is created,
//! granted by the person (the desktop's consent dialog), used, and closed when its owner
//! ([`PortalShortcut`], [`RemoteKeyboard`]) is dropped — or by the portal when the app's bus
//! connection ends.
//!
//! Every portal method answers with a request object and the result comes later as that
//! request's `Response` signal (`request`): 0 granted, 1 cancelled by the person, 2 ended
//! otherwise; each is its own [`PortalError`]. A client reaches the portal through a
//! [`PortalBus`]: the session bus for the app, a private bus for the tests
//! (`tests/portal_standin.rs` serves a stand-in portal there).
//!
//! Linux only; elsewhere `portal/elsewhere.rs` answers "not available" with the same names.

mod global_shortcuts;
mod remote_desktop;
mod request;

pub use global_shortcuts::{PortalShortcut, SHORTCUT_ID};
pub use remote_desktop::{RemoteKeyboard, DEVICE_KEYBOARD, PERSIST_UNTIL_REVOKED};
pub use request::PortalBus;

/// Why a portal request did not give what was asked; each names the request and what happened.
#[derive(Debug, thiserror::Error)]
pub enum PortalError {
    /// No session bus (or the given address) to reach the portal on.
    #[error("no D-Bus session bus to reach the desktop portal on: {0}")]
    NoBus(String),
    /// The desktop runs no portal with this interface (no backend implements it).
    #[error("the desktop offers no {0} portal")]
    Unavailable(&'static str),
    /// The method call itself failed (the portal's error, or the bus's).
    #[error("{call} failed: {message}")]
    Call { call: &'static str, message: String },
    /// The person said no in the desktop's dialog (response 1).
    #[error("{0} was cancelled in the desktop's dialog")]
    Cancelled(&'static str),
    /// The desktop ended the request without granting it (response 2: refused, or failed).
    #[error("the desktop refused {0}")]
    Refused(&'static str),
    /// A response code the portal specification does not define.
    #[error("{call} ended with response {code}, which the portal specification does not define")]
    UnknownResponse { call: &'static str, code: u32 },
    /// No response within the time given (a consent dialog left open, a stuck portal).
    #[error("no answer to {call} within {seconds} s")]
    TimedOut { call: &'static str, seconds: u64 },
    /// The portal's answer did not have the shape the specification gives it.
    #[error("the portal's answer to {call} is malformed: {detail}")]
    Malformed { call: &'static str, detail: String },
    /// The request was granted, but without what the app needs (its shortcut, a keyboard).
    #[error("{call} was granted without {missing}")]
    NotGranted {
        call: &'static str,
        missing: &'static str,
    },
    /// The session was closed (by the desktop, or an earlier failure).
    #[error("the portal session is closed")]
    SessionClosed,
}
