//! The hotkey through `org.freedesktop.portal.GlobalShortcuts`: one session with one shortcut,
//! [`SHORTCUT_ID`], whose key the desktop lets the person choose (the app only proposes a
//! `preferred_trigger`). The desktop sends its presses and releases to every app, whichever
//! window has the focus, unlike the X11 grab that XWayland windows alone see on Wayland.
//!
//! Life of the session: created → shortcut bound (the desktop's dialog, once per app) →
//! Activated ⇄ Deactivated (a thread named "portal-shortcut" blocks on the bus until one of
//! them, a ShortcutsChanged, the session's Closed or the stop arrives) → closed when the
//! [`PortalShortcut`] is dropped (that thread sends Session.Close), by the desktop, or by the
//! portal when the app's bus connection ends.

use super::request::{malformed, PortalBus, Results, DESKTOP_PATH};
use super::request::{token, unwrap_variant, Latch};
use super::PortalError;
use futures_core::Stream;
use global_hotkey::HotKeyState;
use std::collections::HashMap;
use std::future::poll_fn;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::Poll;
use std::time::Duration;
use zbus::{Message, MessageStream, ObjectPath, OwnedObjectPath, Variant};

pub(super) const IFACE: &str = "org.freedesktop.portal.GlobalShortcuts";
const SESSION_IFACE: &str = "org.freedesktop.portal.Session";
/// The one shortcut the app binds: dictation (hold to talk, or press to start and stop).
pub const SHORTCUT_ID: &str = "dictate";
/// CreateSession opens no dialog.
const CREATE_TIMEOUT: Duration = Duration::from_secs(60);
/// BindShortcuts may wait on the person in the desktop's dialog: a generous bound, still one
/// (the binding runs on a thread of its own, never the app's main thread).
const BIND_TIMEOUT: Duration = Duration::from_secs(30 * 60);

impl PortalBus {
    /// Whether the desktop offers GlobalShortcuts (KDE Plasma; GNOME 48 and later).
    pub fn offers_global_shortcuts(&self) -> bool {
        self.interface_version(IFACE).is_some()
    }
}

/// The callback the key edges go to: the same one [`crate::platform::HotkeyListener::new`]
/// takes.
type OnEvent = Arc<dyn Fn(HotKeyState) + Send + Sync + 'static>;

/// A bound desktop shortcut: its key edges go to `on_event` until it is dropped.
pub struct PortalShortcut {
    session: String,
    trigger: Arc<Mutex<Option<String>>>,
    stop: Latch,
}

impl PortalShortcut {
    /// Opens a session and binds [`SHORTCUT_ID`], proposing `preferred_trigger` (the XDG
    /// shortcuts spec's form, "CTRL+ALT+space": `platform::xdg_shortcut_trigger`) and
    /// `description` (shown in the desktop's dialog and settings); an empty trigger proposes none. Blocks until the desktop
    /// answers, which may take as long as the person leaves its dialog open: call it off the
    /// main thread. From then on `on_event` gets Pressed on each Activated and Released on each
    /// Deactivated of this shortcut, from a thread of its own.
    pub fn bind(
        bus: &PortalBus,
        preferred_trigger: &str,
        description: &str,
        on_event: impl Fn(HotKeyState) + Send + Sync + 'static,
    ) -> Result<PortalShortcut, PortalError> {
        zbus::block_on(bind(
            bus,
            preferred_trigger,
            description,
            Arc::new(on_event),
        ))
    }

    /// The key the desktop bound, as it describes it ("Ctrl+Alt+Space"); `None` when it did not
    /// say (or the person has not chosen one yet).
    pub fn granted_trigger(&self) -> Option<String> {
        self.trigger
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// The session's object path.
    pub fn session(&self) -> &str {
        &self.session
    }
}

impl Drop for PortalShortcut {
    /// Ends the listening thread, which closes the session on its way out (not waited for: the
    /// app's main thread may be the one dropping it).
    fn drop(&mut self) {
        self.stop.set();
    }
}

async fn bind(
    bus: &PortalBus,
    preferred_trigger: &str,
    description: &str,
    on_event: OnEvent,
) -> Result<PortalShortcut, PortalError> {
    let owner = bus.portal_owner(IFACE).await?;
    let session = bus
        .create_session(&owner, IFACE, "shortcut", CREATE_TIMEOUT)
        .await?;
    match bind_in(
        bus,
        &owner,
        &session,
        preferred_trigger,
        description,
        on_event,
    )
    .await
    {
        Ok(shortcut) => Ok(shortcut),
        Err(e) => {
            bus.close_session(&session).await;
            Err(e)
        }
    }
}

/// The binding within the created `session`, and the thread that listens.
async fn bind_in(
    bus: &PortalBus,
    owner: &str,
    session: &str,
    preferred_trigger: &str,
    description: &str,
    on_event: OnEvent,
) -> Result<PortalShortcut, PortalError> {
    let session_path = ObjectPath::try_from(session)
        .map_err(|e| malformed("CreateSession", e))?
        .into();
    // Subscribed before binding, so nothing the desktop sends after its answer is missed.
    let edges = bus.signals(owner, DESKTOP_PATH, IFACE, None).await?;
    let closed = bus
        .signals(owner, session, SESSION_IFACE, Some("Closed"))
        .await?;
    let bind_token = token("shortcut_bind");
    let mut shortcut = HashMap::from([("description", Variant::from(description))]);
    if !preferred_trigger.is_empty() {
        shortcut.insert("preferred_trigger", Variant::from(preferred_trigger));
    }
    let options = HashMap::from([("handle_token", Variant::from(bind_token.as_str()))]);
    let body = (
        &session_path,
        vec![(SHORTCUT_ID, shortcut)],
        "", // parent window: none (a tray app has no window to parent the dialog to)
        options,
    );
    let bound = bus
        .request(
            "BindShortcuts",
            owner,
            IFACE,
            &bind_token,
            &body,
            Some(BIND_TIMEOUT),
        )
        .await?;
    let granted = bound
        .get("shortcuts")
        .ok_or_else(|| malformed("BindShortcuts", "no shortcuts"))?;
    let trigger = match our_trigger(granted) {
        Ok(Some(trigger)) => trigger,
        Ok(None) => {
            return Err(PortalError::NotGranted {
                call: "BindShortcuts",
                missing: "the dictation shortcut",
            })
        }
        Err(detail) => return Err(malformed("BindShortcuts", detail)),
    };
    let trigger = Arc::new(Mutex::new(trigger));
    let stop = Latch::new();
    let listener = Listener {
        bus: bus.clone(),
        session: session_path,
        edges,
        closed,
        trigger: trigger.clone(),
        on_event,
    };
    let thread_stop = stop.clone();
    std::thread::Builder::new()
        .name("portal-shortcut".into())
        .spawn(move || zbus::block_on(listener.run(thread_stop)))
        .map_err(|e| PortalError::Call {
            call: "BindShortcuts",
            message: format!("no thread to listen on: {e}"),
        })?;
    Ok(PortalShortcut {
        session: session.to_string(),
        trigger,
        stop,
    })
}

/// In a list of shortcuts (`a(sa{sv})`), ours: `Some(trigger_description)` when it is there
/// (`Some(None)` when the desktop did not describe its trigger), `None` when it is not; an
/// error for a list of another shape.
fn our_trigger(shortcuts: &Variant<'_>) -> Result<Option<Option<String>>, String> {
    let Variant::Array(list) = unwrap_variant(shortcuts) else {
        return Err(format!(
            "shortcuts is {}, not a(sa{{sv}})",
            shortcuts.value_signature()
        ));
    };
    for entry in list.inner() {
        let Variant::Structure(entry) = entry else {
            return Err("a shortcut is not a structure".into());
        };
        let [Variant::Str(id), Variant::Dict(properties)] = entry.fields() else {
            return Err("a shortcut is not (sa{sv})".into());
        };
        if id.as_str() != SHORTCUT_ID {
            continue;
        }
        let description = properties.iter().find_map(|(key, value)| match key {
            Variant::Str(key) if key.as_str() == "trigger_description" => {
                match unwrap_variant(value) {
                    Variant::Str(text) => Some(text.to_string()),
                    _ => None,
                }
            }
            _ => None,
        });
        return Ok(Some(description.filter(|d| !d.is_empty())));
    }
    Ok(None)
}

/// What the listening thread owns.
struct Listener {
    bus: PortalBus,
    session: OwnedObjectPath,
    /// The interface's signals: Activated, Deactivated, ShortcutsChanged.
    edges: MessageStream,
    /// The session's Closed.
    closed: MessageStream,
    trigger: Arc<Mutex<Option<String>>>,
    on_event: OnEvent,
}

/// What woke the listening thread.
enum Wake {
    Signal(zbus::Result<Message>),
    Closed,
    Stop,
}

impl Listener {
    async fn run(mut self, stop: Latch) {
        loop {
            let wake = poll_fn(|cx| {
                if stop.poll_set(cx).is_ready() {
                    return Poll::Ready(Wake::Stop);
                }
                if let Poll::Ready(closed) = Pin::new(&mut self.closed).poll_next(cx) {
                    // The stream ends only with the connection: the session is gone either way.
                    let _ = closed;
                    return Poll::Ready(Wake::Closed);
                }
                match Pin::new(&mut self.edges).poll_next(cx) {
                    Poll::Ready(Some(message)) => Poll::Ready(Wake::Signal(message)),
                    Poll::Ready(None) => Poll::Ready(Wake::Closed),
                    Poll::Pending => Poll::Pending,
                }
            })
            .await;
            match wake {
                Wake::Signal(Ok(message)) => self.handle(&message),
                Wake::Signal(Err(e)) => tracing::warn!("hotkey: desktop portal signal: {e}"),
                Wake::Closed => {
                    tracing::info!("hotkey: the desktop closed the portal shortcut's session");
                    return;
                }
                Wake::Stop => break,
            }
        }
        self.bus.close_session(self.session.as_str()).await;
    }

    fn handle(&self, message: &Message) {
        let header = message.header();
        let member = header.member().map(|m| m.as_str()).unwrap_or("");
        match member {
            "Activated" | "Deactivated" => {
                let edge: Result<(OwnedObjectPath, String, u64, Results), _> =
                    message.body().deserialize();
                match edge {
                    Ok((session, id, _, _)) if session == self.session && id == SHORTCUT_ID => {
                        (self.on_event)(if member == "Activated" {
                            HotKeyState::Pressed
                        } else {
                            HotKeyState::Released
                        });
                    }
                    Ok(_) => {} // another session's or shortcut's
                    Err(e) => tracing::warn!("hotkey: malformed {member} from the portal: {e}"),
                }
            }
            "ShortcutsChanged" => {
                let shortcuts: Result<(OwnedObjectPath, Vec<(String, Results)>), _> =
                    message.body().deserialize();
                match shortcuts {
                    Ok((session, list)) if session == self.session => {
                        if let Some((_, properties)) = list.iter().find(|(id, _)| id == SHORTCUT_ID)
                        {
                            let trigger = properties
                                .get("trigger_description")
                                .and_then(|v| String::try_from(&**v).ok())
                                .filter(|d| !d.is_empty());
                            tracing::info!(
                                trigger = trigger.as_deref().unwrap_or("none"),
                                "hotkey: the desktop changed the portal shortcut"
                            );
                            *self.trigger.lock().unwrap_or_else(|p| p.into_inner()) = trigger;
                        }
                    }
                    Ok(_) => {}
                    Err(e) => tracing::warn!("hotkey: malformed ShortcutsChanged: {e}"),
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shortcut(id: &str, trigger: Option<&str>) -> (String, HashMap<String, Variant<'static>>) {
        let mut properties = HashMap::from([("description".to_string(), Variant::from("x"))]);
        if let Some(trigger) = trigger {
            properties.insert(
                "trigger_description".into(),
                Variant::from(trigger.to_string()),
            );
        }
        (id.to_string(), properties)
    }

    #[test]
    fn our_shortcut_and_its_trigger_are_found_among_the_granted() {
        let granted = Variant::from(vec![
            shortcut("other", Some("F1")),
            shortcut(SHORTCUT_ID, Some("Ctrl+Alt+Space")),
        ]);
        assert_eq!(
            our_trigger(&granted),
            Ok(Some(Some("Ctrl+Alt+Space".into())))
        );
        let wrapped = Variant::Variant(Box::new(granted));
        assert_eq!(
            our_trigger(&wrapped),
            Ok(Some(Some("Ctrl+Alt+Space".into())))
        );
        let undescribed = Variant::from(vec![shortcut(SHORTCUT_ID, None)]);
        assert_eq!(our_trigger(&undescribed), Ok(Some(None)));
        let without = Variant::from(vec![shortcut("other", Some("F1"))]);
        assert_eq!(our_trigger(&without), Ok(None));
    }

    #[test]
    fn a_granted_list_of_another_shape_is_an_error_not_a_panic() {
        assert!(our_trigger(&Variant::from("dictate")).is_err());
        assert!(our_trigger(&Variant::from(vec!["dictate"])).is_err());
        assert!(our_trigger(&Variant::from(vec![("dictate", 1u32)])).is_err());
    }
}
