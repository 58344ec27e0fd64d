//! The paste keystroke and typed text through `org.freedesktop.portal.RemoteDesktop`: GNOME's
//! way for an app to send keys on Wayland (it offers no virtual-keyboard protocol). One session
//! with the keyboard only, started once the person allows it in the desktop's dialog; the
//! restore token the desktop gives back lets the next start skip the dialog (persist mode 2:
//! until the person revokes it), so whoever keeps the settings should keep
//! [`RemoteKeyboard::restore_token`] and hand it to the next [`RemoteKeyboard::start`].
//!
//! Keys are keysyms (`platform::keysyms`: `paste_chord`, `after_chord`, `char_keysym`), sent as
//! `NotifyKeyboardKeysym`: a chord's keys pressed in order and released in reverse, a text's
//! keysyms each pressed and released. Life of the session: created → devices selected →
//! started (the dialog, or the restore token) → keys → closed when the [`RemoteKeyboard`] is
//! dropped, or by the portal when the app's bus connection ends.

use super::request::{token, unwrap_variant, PortalBus, Results};
use super::PortalError;
use std::collections::HashMap;
use std::time::Duration;
use zbus::{ObjectPath, OwnedObjectPath, Variant};

pub(super) const IFACE: &str = "org.freedesktop.portal.RemoteDesktop";
/// The `types` bit of a keyboard (1 keyboard, 2 pointer, 4 touchscreen).
pub const DEVICE_KEYBOARD: u32 = 1;
/// `persist_mode` 2: the permission lasts until the person revokes it.
pub const PERSIST_UNTIL_REVOKED: u32 = 2;
/// `NotifyKeyboardKeysym`'s states.
const RELEASED: u32 = 0;
const PRESSED: u32 = 1;
/// CreateSession and SelectDevices open no dialog.
const SETUP_TIMEOUT: Duration = Duration::from_secs(60);
/// Start may wait on the person in the desktop's dialog.
const START_TIMEOUT: Duration = Duration::from_secs(10 * 60);

impl PortalBus {
    /// Whether the desktop offers RemoteDesktop (GNOME, KDE Plasma).
    pub fn offers_remote_desktop(&self) -> bool {
        self.interface_version(IFACE).is_some()
    }
}

/// A started RemoteDesktop session with a keyboard: sends keys until dropped.
pub struct RemoteKeyboard {
    bus: PortalBus,
    session: OwnedObjectPath,
    devices: u32,
    restore_token: Option<String>,
}

impl RemoteKeyboard {
    /// Creates a session, asks for the keyboard (with `restore_token` from an earlier start,
    /// which lets the desktop skip its dialog) and starts it. Blocks until the desktop answers,
    /// which may take as long as the person leaves its dialog open: call it off the main thread.
    pub fn start(
        bus: &PortalBus,
        restore_token: Option<&str>,
    ) -> Result<RemoteKeyboard, PortalError> {
        zbus::block_on(start(bus, restore_token))
    }

    /// The token that lets the next [`start`](Self::start) skip the dialog; `None` when the
    /// desktop gave none.
    pub fn restore_token(&self) -> Option<&str> {
        self.restore_token.as_deref()
    }

    /// The device types granted (bits of [`DEVICE_KEYBOARD`], pointer 2, touchscreen 4).
    pub fn devices(&self) -> u32 {
        self.devices
    }

    /// Presses `keysyms` in order and releases them in reverse: a chord, modifiers first
    /// (`keysyms::paste_chord`). On a failed press the keys already down are released.
    pub fn press_chord(&mut self, keysyms: &[u32]) -> Result<(), PortalError> {
        zbus::block_on(async {
            for (pressed, &keysym) in keysyms.iter().enumerate() {
                if let Err(e) = self.key(keysym, PRESSED).await {
                    for &down in keysyms[..pressed].iter().rev() {
                        let _ = self.key(down, RELEASED).await;
                    }
                    return Err(e);
                }
            }
            for &keysym in keysyms.iter().rev() {
                self.key(keysym, RELEASED).await?;
            }
            Ok(())
        })
    }

    /// Types `keysyms` one after the other, each pressed and released
    /// (`keysyms::char_keysym` of each character of a text).
    pub fn type_keysyms(&mut self, keysyms: &[u32]) -> Result<(), PortalError> {
        zbus::block_on(async {
            for &keysym in keysyms {
                self.key(keysym, PRESSED).await?;
                self.key(keysym, RELEASED).await?;
            }
            Ok(())
        })
    }

    async fn key(&self, keysym: u32, state: u32) -> Result<(), PortalError> {
        let call = "NotifyKeyboardKeysym";
        // The portal takes the keysym as a signed int; every keysym fits (the largest,
        // Unicode's 0x0110ffff, is far below 2³¹).
        let keysym = i32::try_from(keysym).map_err(|_| PortalError::Call {
            call,
            message: format!("keysym {keysym:#x} is out of range"),
        })?;
        let options: HashMap<&str, Variant<'_>> = HashMap::new();
        self.bus
            .conn
            .call_method(
                Some(super::request::DESKTOP),
                super::request::DESKTOP_PATH,
                Some(IFACE),
                call,
                &(&self.session, options, keysym, state),
            )
            .await
            .map(drop)
            .map_err(|e| PortalError::Call {
                call,
                message: e.to_string(),
            })
    }
}

impl Drop for RemoteKeyboard {
    /// Closes the session (a short call; the injector's thread drops it, not the main thread).
    fn drop(&mut self) {
        zbus::block_on(self.bus.close_session(self.session.as_str()));
    }
}

async fn start(
    bus: &PortalBus,
    restore_token: Option<&str>,
) -> Result<RemoteKeyboard, PortalError> {
    let owner = bus.portal_owner(IFACE).await?;
    let session = bus
        .create_session(&owner, IFACE, "remote", SETUP_TIMEOUT)
        .await?;
    let path: OwnedObjectPath = ObjectPath::try_from(session.as_str())
        .map_err(|e| super::request::malformed("CreateSession", e))?
        .into();
    match start_in(bus, &owner, &path, restore_token).await {
        Ok((devices, restore_token)) => Ok(RemoteKeyboard {
            bus: bus.clone(),
            session: path,
            devices,
            restore_token,
        }),
        Err(e) => {
            bus.close_session(&session).await;
            Err(e)
        }
    }
}

/// SelectDevices and Start in the created `session`: the granted devices and the new restore
/// token.
async fn start_in(
    bus: &PortalBus,
    owner: &str,
    session: &OwnedObjectPath,
    restore_token: Option<&str>,
) -> Result<(u32, Option<String>), PortalError> {
    let select_token = token("remote_select");
    let mut options = HashMap::from([
        ("handle_token", Variant::from(select_token.as_str())),
        ("types", Variant::from(DEVICE_KEYBOARD)),
        ("persist_mode", Variant::from(PERSIST_UNTIL_REVOKED)),
    ]);
    if let Some(restore) = restore_token {
        options.insert("restore_token", Variant::from(restore));
    }
    bus.request(
        "SelectDevices",
        owner,
        IFACE,
        &select_token,
        &(session, options),
        Some(SETUP_TIMEOUT),
    )
    .await?;
    let start_token = token("remote_start");
    let options = HashMap::from([("handle_token", Variant::from(start_token.as_str()))]);
    let started = bus
        .request(
            "Start",
            owner,
            IFACE,
            &start_token,
            &(session, "", options),
            Some(START_TIMEOUT),
        )
        .await?;
    let devices = granted_devices(&started)?;
    if devices & DEVICE_KEYBOARD == 0 {
        return Err(PortalError::NotGranted {
            call: "Start",
            missing: "a keyboard",
        });
    }
    let restore = started
        .get("restore_token")
        .and_then(|v| match unwrap_variant(v) {
            Variant::Str(text) => Some(text.to_string()),
            _ => None,
        });
    Ok((devices, restore))
}

/// The `devices` of Start's results (`u`).
fn granted_devices(results: &Results) -> Result<u32, PortalError> {
    let value = results.get("devices").ok_or(PortalError::NotGranted {
        call: "Start",
        missing: "any device",
    })?;
    match unwrap_variant(value) {
        Variant::U32(devices) => Ok(*devices),
        other => Err(super::request::malformed(
            "Start",
            format!("devices is {}", other.value_signature()),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use zbus::OwnedVariant;

    #[test]
    fn the_granted_devices_are_a_number_or_an_error() {
        let mut results = Results::new();
        assert!(matches!(
            granted_devices(&results),
            Err(PortalError::NotGranted { .. })
        ));
        results.insert("devices".into(), OwnedVariant::from(3u32));
        assert_eq!(granted_devices(&results).unwrap(), 3);
        let text = OwnedVariant::try_from(Variant::from("keyboard")).unwrap();
        results.insert("devices".into(), text);
        assert!(matches!(
            granted_devices(&results),
            Err(PortalError::Malformed { .. })
        ));
    }
}
