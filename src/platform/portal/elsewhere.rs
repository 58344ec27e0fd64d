//! The desktop portals' names off Linux (macOS has no such portal): every client answers
//! "not available", so portable code can ask without its own `cfg`. The Linux clients are
//! `portal/mod.rs` and its modules.

use global_hotkey::HotKeyState;
use std::convert::Infallible;

/// The one shortcut the app binds.
pub const SHORTCUT_ID: &str = "dictate";
/// The `types` bit of a keyboard.
pub const DEVICE_KEYBOARD: u32 = 1;
/// `persist_mode` 2: until the person revokes it.
pub const PERSIST_UNTIL_REVOKED: u32 = 2;

/// Why a portal request did not give what was asked: here, always that there is no portal.
#[derive(Debug, thiserror::Error)]
pub enum PortalError {
    /// The desktop offers no such portal.
    #[error("the desktop offers no {0} portal")]
    Unavailable(&'static str),
}

/// No bus to reach a portal on.
#[derive(Clone)]
pub struct PortalBus {
    never: Infallible,
}

impl PortalBus {
    pub fn session() -> Result<PortalBus, PortalError> {
        Err(PortalError::Unavailable("desktop"))
    }

    pub fn at(address: &str) -> Result<PortalBus, PortalError> {
        let _ = address;
        Err(PortalError::Unavailable("desktop"))
    }

    pub fn interface_version(&self, interface: &str) -> Option<u32> {
        let _ = interface;
        match self.never {}
    }

    pub fn offers_global_shortcuts(&self) -> bool {
        match self.never {}
    }

    pub fn offers_remote_desktop(&self) -> bool {
        match self.never {}
    }
}

/// No desktop shortcut can be bound here.
pub struct PortalShortcut {
    never: Infallible,
}

impl PortalShortcut {
    pub fn bind(
        bus: &PortalBus,
        preferred_trigger: &str,
        description: &str,
        on_event: impl Fn(HotKeyState) + Send + Sync + 'static,
    ) -> Result<PortalShortcut, PortalError> {
        let _ = (preferred_trigger, description, on_event);
        match bus.never {}
    }

    pub fn granted_trigger(&self) -> Option<String> {
        match self.never {}
    }

    pub fn session(&self) -> &str {
        match self.never {}
    }
}

/// No remote keyboard here.
pub struct RemoteKeyboard {
    never: Infallible,
}

impl RemoteKeyboard {
    pub fn start(
        bus: &PortalBus,
        restore_token: Option<&str>,
    ) -> Result<RemoteKeyboard, PortalError> {
        let _ = restore_token;
        match bus.never {}
    }

    pub fn restore_token(&self) -> Option<&str> {
        match self.never {}
    }

    pub fn devices(&self) -> u32 {
        match self.never {}
    }

    pub fn press_chord(&mut self, keysyms: &[u32]) -> Result<(), PortalError> {
        let _ = keysyms;
        match self.never {}
    }

    pub fn type_keysyms(&mut self, keysyms: &[u32]) -> Result<(), PortalError> {
        let _ = keysyms;
        match self.never {}
    }
}
