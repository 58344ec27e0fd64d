//! The desktop portal clients (`platform::portal`) against a stand-in portal on a private
//! session bus: a `dbus-daemon` of the test's own, and `org.freedesktop.portal.Desktop` served
//! here ([`Standin`]: GlobalShortcuts, RemoteDesktop, Session.Close and the Request objects'
//! Response signals, every call recorded with its arguments). No real GlobalShortcuts or
//! RemoteDesktop backend runs on a Linux test machine (they are KDE's and GNOME's), so the
//! conversation is checked as the portal specification writes it: the options sent, the
//! request paths predicted, the answers read back, the key edges passed on. About 1 s.

// Linux only (D-Bus portals); on macOS this file is empty.
#![cfg(target_os = "linux")]

use global_hotkey::HotKeyState;
use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::pin::Pin;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use whisper_dictation::platform::portal::{PortalBus, PortalError, PortalShortcut, RemoteKeyboard};
use zbus::{Connection, Message, ObjectPath, OwnedObjectPath, OwnedVariant, Variant};

const DESKTOP: &str = "org.freedesktop.portal.Desktop";
const DESKTOP_PATH: &str = "/org/freedesktop/portal/desktop";
const SHORTCUTS: &str = "org.freedesktop.portal.GlobalShortcuts";
const REMOTE: &str = "org.freedesktop.portal.RemoteDesktop";
const WITHIN: Duration = Duration::from_secs(3);

/// A `dbus-daemon` of the test's own, ended (by its pid) when dropped.
struct Bus {
    daemon: Child,
    address: String,
}

impl Bus {
    fn start() -> Bus {
        let mut daemon = Command::new("dbus-daemon")
            .args(["--session", "--nofork", "--print-address"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("dbus-daemon runs (package dbus-daemon)");
        let stdout = daemon.stdout.take().expect("its stdout");
        let mut address = String::new();
        BufReader::new(stdout)
            .read_line(&mut address)
            .expect("dbus-daemon prints its address");
        let address = address.trim().to_string();
        assert!(address.starts_with("unix:"), "address {address:?}");
        Bus { daemon, address }
    }

    fn client(&self) -> PortalBus {
        PortalBus::at(&self.address).expect("the client connects")
    }
}

impl Drop for Bus {
    fn drop(&mut self) {
        let _ = self.daemon.kill();
        let _ = self.daemon.wait();
    }
}

/// One method call the stand-in got.
#[derive(Debug, Clone)]
struct Call {
    member: String,
    /// The object it was called on.
    path: String,
    /// The session it names (its first argument), where it names one.
    session: Option<String>,
    /// Its `a{sv}` options.
    options: HashMap<String, OwnedVariant>,
    /// BindShortcuts' shortcuts.
    shortcuts: Vec<(String, HashMap<String, OwnedVariant>)>,
    /// BindShortcuts' and Start's parent window.
    parent: Option<String>,
}

impl Call {
    fn text(&self, option: &str) -> Option<String> {
        self.options
            .get(option)
            .and_then(|v| String::try_from(&**v).ok())
    }
    fn number(&self, option: &str) -> Option<u32> {
        self.options
            .get(option)
            .and_then(|v| u32::try_from(&**v).ok())
    }
}

/// The stand-in portal: its calls, keys, and the responses it is told to give.
#[derive(Default)]
struct Standin {
    calls: Mutex<Vec<Call>>,
    keys: Mutex<Vec<(i32, u32)>>,
    /// The response code per method (0, granted, when not named).
    responses: Mutex<HashMap<String, u32>>,
    restore_tokens: Mutex<u32>,
    conn: Mutex<Option<Connection>>,
}

impl Standin {
    fn serve(bus: &Bus) -> Arc<Standin> {
        let standin = Arc::new(Standin::default());
        let served = standin.clone();
        let address = bus.address.clone();
        let (ready, is_ready) = channel();
        std::thread::spawn(move || {
            let result: zbus::Result<()> = zbus::block_on(async move {
                let conn = zbus::connection::Builder::address(address.as_str())
                    .build()
                    .await?;
                let mut stream = zbus::MessageStream::from(&conn);
                conn.request_name(DESKTOP).await?;
                *served.conn.lock().unwrap() = Some(conn.clone());
                let _ = ready.send(());
                loop {
                    let next = std::future::poll_fn(|cx| {
                        futures_core::Stream::poll_next(Pin::new(&mut stream), cx)
                    })
                    .await;
                    let Some(Ok(message)) = next else {
                        return Ok(());
                    };
                    served.answer(&conn, &message).await?;
                }
            });
            if let Err(e) = result {
                eprintln!("stand-in portal: {e}");
            }
        });
        is_ready
            .recv_timeout(WITHIN)
            .expect("the stand-in portal starts");
        standin
    }

    fn calls(&self) -> Vec<Call> {
        self.calls.lock().unwrap().clone()
    }

    fn call(&self, member: &str) -> Vec<Call> {
        self.calls()
            .into_iter()
            .filter(|c| c.member == member)
            .collect()
    }

    fn respond(&self, member: &str, code: u32) {
        self.responses
            .lock()
            .unwrap()
            .insert(member.to_string(), code);
    }

    /// Waits until `member` was called `count` times.
    fn wait_for(&self, member: &str, count: usize) -> Vec<Call> {
        let deadline = Instant::now() + WITHIN;
        loop {
            let calls = self.call(member);
            if calls.len() >= count || Instant::now() > deadline {
                return calls;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Emits a GlobalShortcuts signal, as the portal does when the person presses the key.
    fn emit(&self, member: &str, body: &(impl serde::Serialize + zbus::DynamicType)) {
        let conn = self.conn.lock().unwrap().clone().expect("served");
        zbus::block_on(conn.emit_signal(None::<&str>, DESKTOP_PATH, SHORTCUTS, member, body))
            .expect("the signal is sent");
    }

    async fn answer(&self, conn: &Connection, message: &Message) -> zbus::Result<()> {
        let header = message.header();
        if header.message_type() != zbus::message::Type::MethodCall {
            return Ok(());
        }
        let member = header.member().map(|m| m.to_string()).unwrap_or_default();
        let path = header.path().map(|p| p.to_string()).unwrap_or_default();
        let sender = header.sender().map(|s| s.to_string()).unwrap_or_default();
        let sender_element = sender.trim_start_matches(':').replace('.', "_");
        let body = message.body();
        let mut call = Call {
            member: member.clone(),
            path,
            session: None,
            options: HashMap::new(),
            shortcuts: Vec::new(),
            parent: None,
        };
        type Options = HashMap<String, OwnedVariant>;
        match member.as_str() {
            "Get" => {
                let (interface, property): (String, String) = body.deserialize()?;
                if (interface == SHORTCUTS || interface == REMOTE) && property == "version" {
                    return conn.reply(&header, &Variant::from(1u32)).await;
                }
                let error = zbus::fdo::Error::UnknownProperty(format!("{interface}.{property}"));
                return conn.reply_dbus_error(&header, error).await;
            }
            "CreateSession" => (call.options,) = body.deserialize::<(Options,)>()?,
            "BindShortcuts" => {
                let (session, shortcuts, parent, options): (
                    OwnedObjectPath,
                    Vec<(String, Options)>,
                    String,
                    Options,
                ) = body.deserialize()?;
                call.session = Some(session.to_string());
                call.shortcuts = shortcuts;
                call.parent = Some(parent);
                call.options = options;
            }
            "SelectDevices" => {
                let (session, options): (OwnedObjectPath, Options) = body.deserialize()?;
                call.session = Some(session.to_string());
                call.options = options;
            }
            "Start" => {
                let (session, parent, options): (OwnedObjectPath, String, Options) =
                    body.deserialize()?;
                call.session = Some(session.to_string());
                call.parent = Some(parent);
                call.options = options;
            }
            "NotifyKeyboardKeysym" => {
                let (session, options, keysym, state): (OwnedObjectPath, Options, i32, u32) =
                    body.deserialize()?;
                call.session = Some(session.to_string());
                call.options = options;
                self.keys.lock().unwrap().push((keysym, state));
            }
            "Close" => {}
            _ => {
                let error = zbus::fdo::Error::UnknownMethod(member.clone());
                return conn.reply_dbus_error(&header, error).await;
            }
        }
        self.calls.lock().unwrap().push(call.clone());
        let Some(token) = call.text("handle_token") else {
            return conn.reply(&header, &()).await; // no request: Close, the keys
        };
        let request = format!("{DESKTOP_PATH}/request/{sender_element}/{token}");
        let request = ObjectPath::try_from(request.as_str())?;
        conn.reply(&header, &request).await?;
        let code = self
            .responses
            .lock()
            .unwrap()
            .get(&member)
            .copied()
            .unwrap_or(0);
        let mut results: HashMap<&str, Variant<'_>> = HashMap::new();
        let session_path;
        let restore_token;
        match member.as_str() {
            "CreateSession" => {
                let session_token = call.text("session_handle_token").unwrap_or_default();
                session_path = format!("{DESKTOP_PATH}/session/{sender_element}/{session_token}");
                // GlobalShortcuts answers an object path, RemoteDesktop's backends a string.
                let handle = if header.interface().map(|i| i.as_str()) == Some(SHORTCUTS) {
                    Variant::from(ObjectPath::try_from(session_path.as_str())?)
                } else {
                    Variant::from(session_path.as_str())
                };
                results.insert("session_handle", handle);
            }
            "BindShortcuts" => {
                let granted: Vec<(String, HashMap<&str, Variant<'_>>)> = call
                    .shortcuts
                    .iter()
                    .map(|(id, _)| {
                        let properties = HashMap::from([
                            ("description", Variant::from("Dictation")),
                            ("trigger_description", Variant::from("Ctrl+Alt+Space")),
                        ]);
                        (id.clone(), properties)
                    })
                    .collect();
                results.insert("shortcuts", Variant::from(granted));
            }
            "Start" => {
                let mut given = self.restore_tokens.lock().unwrap();
                *given += 1;
                restore_token = format!("restore-{given}");
                results.insert("devices", Variant::from(1u32));
                results.insert("restore_token", Variant::from(restore_token.as_str()));
            }
            _ => {}
        }
        conn.emit_signal(
            Some(sender.as_str()),
            request,
            "org.freedesktop.portal.Request",
            "Response",
            &(code, results),
        )
        .await
    }
}

/// The key edges a bound shortcut passes on.
fn edges() -> (
    impl Fn(HotKeyState) + Send + Sync + 'static,
    Receiver<HotKeyState>,
) {
    let (sender, edges) = channel();
    let sender = Mutex::new(sender);
    (
        move |state| {
            let _ = sender.lock().unwrap().send(state);
        },
        edges,
    )
}

fn no_options() -> HashMap<&'static str, Variant<'static>> {
    HashMap::new()
}

#[test]
fn the_shortcut_is_bound_and_only_its_own_edges_reach_the_callback() {
    let bus = Bus::start();
    let client = bus.client();
    assert!(!client.offers_global_shortcuts(), "no portal yet");
    let standin = Standin::serve(&bus);
    assert!(client.offers_global_shortcuts());
    assert!(client.offers_remote_desktop());

    let (on_event, edges) = edges();
    let shortcut = PortalShortcut::bind(&client, "CTRL+ALT+space", "Dictation", on_event)
        .expect("the stand-in grants the shortcut");
    assert_eq!(
        shortcut.granted_trigger().as_deref(),
        Some("Ctrl+Alt+Space")
    );

    let create = &standin.call("CreateSession")[0];
    let create_token = create.text("handle_token").expect("a handle token");
    let session_token = create
        .text("session_handle_token")
        .expect("a session token");
    assert_ne!(create_token, session_token);
    assert!(shortcut.session().ends_with(&format!("/{session_token}")));
    let bind = &standin.call("BindShortcuts")[0];
    assert_eq!(bind.session.as_deref(), Some(shortcut.session()));
    assert_eq!(bind.parent.as_deref(), Some(""));
    let bind_token = bind.text("handle_token").expect("a handle token");
    assert_ne!(bind_token, create_token);
    let [(id, properties)] = bind.shortcuts.as_slice() else {
        panic!("one shortcut, not {:?}", bind.shortcuts);
    };
    assert_eq!(id, "dictate");
    let text = |key: &str| {
        properties
            .get(key)
            .and_then(|v| String::try_from(&**v).ok())
    };
    assert_eq!(text("preferred_trigger").as_deref(), Some("CTRL+ALT+space"));
    assert_eq!(text("description").as_deref(), Some("Dictation"));

    let session = ObjectPath::try_from(shortcut.session()).unwrap();
    let other_session =
        ObjectPath::try_from("/org/freedesktop/portal/desktop/session/1_1/x").unwrap();
    standin.emit(
        "Activated",
        &(&other_session, "dictate", 1u64, no_options()),
    );
    standin.emit("Activated", &(&session, "another", 2u64, no_options()));
    // Another client of the bus sending the portal's signal is not the portal.
    let spoofer =
        zbus::block_on(zbus::connection::Builder::address(bus.address.as_str()).build()).unwrap();
    zbus::block_on(spoofer.emit_signal(
        None::<&str>,
        DESKTOP_PATH,
        SHORTCUTS,
        "Activated",
        &(&session, "dictate", 3u64, no_options()),
    ))
    .unwrap();
    standin.emit("Activated", &(&session, "dictate", 4u64, no_options()));
    standin.emit("Deactivated", &(&session, "dictate", 5u64, no_options()));
    assert_eq!(edges.recv_timeout(WITHIN), Ok(HotKeyState::Pressed));
    assert_eq!(edges.recv_timeout(WITHIN), Ok(HotKeyState::Released));
    // The foreign ones, sent first by the portal, would have come before these; the spoofer's
    // (another connection, so in no set order with the portal's) would be one edge more.
    assert_eq!(
        edges.recv_timeout(Duration::from_millis(200)),
        Err(std::sync::mpsc::RecvTimeoutError::Timeout)
    );

    let changed = vec![(
        "dictate",
        HashMap::from([("trigger_description", Variant::from("F9"))]),
    )];
    standin.emit("ShortcutsChanged", &(&session, changed));
    let deadline = Instant::now() + WITHIN;
    while shortcut.granted_trigger().as_deref() != Some("F9") && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(shortcut.granted_trigger().as_deref(), Some("F9"));

    let session = shortcut.session().to_string();
    drop(shortcut);
    let closed = standin.wait_for("Close", 1);
    assert_eq!(closed.len(), 1, "the session is closed when dropped");
    assert_eq!(closed[0].path, session);
}

#[test]
fn a_cancelled_or_refused_consent_is_its_own_error_and_closes_the_session() {
    let bus = Bus::start();
    let standin = Standin::serve(&bus);
    let client = bus.client();
    standin.respond("BindShortcuts", 1);
    let (on_event, _edges) = edges();
    let cancelled = PortalShortcut::bind(&client, "F9", "Dictation", on_event);
    assert!(
        matches!(cancelled, Err(PortalError::Cancelled("BindShortcuts"))),
        "{:?}",
        cancelled.err()
    );
    assert_eq!(standin.wait_for("Close", 1).len(), 1);

    standin.respond("BindShortcuts", 2);
    let (on_event, _edges) = edges();
    let refused = PortalShortcut::bind(&client, "F9", "Dictation", on_event);
    assert!(
        matches!(refused, Err(PortalError::Refused("BindShortcuts"))),
        "{:?}",
        refused.err()
    );
    standin.respond("Start", 1);
    let cancelled = RemoteKeyboard::start(&client, None);
    assert!(
        matches!(cancelled, Err(PortalError::Cancelled("Start"))),
        "{:?}",
        cancelled.err()
    );
    assert_eq!(standin.wait_for("Close", 3).len(), 3);
}

#[test]
fn without_a_portal_nothing_is_available() {
    let bus = Bus::start();
    let client = bus.client();
    assert!(!client.offers_global_shortcuts());
    assert!(!client.offers_remote_desktop());
    let (on_event, _edges) = edges();
    let bound = PortalShortcut::bind(&client, "F9", "Dictation", on_event);
    assert!(
        matches!(bound, Err(PortalError::Unavailable(_))),
        "{:?}",
        bound.err()
    );
    assert!(matches!(
        RemoteKeyboard::start(&client, None),
        Err(PortalError::Unavailable(_))
    ));
}

#[test]
fn the_remote_keyboard_presses_chords_types_keysyms_and_keeps_its_restore_token() {
    let bus = Bus::start();
    let standin = Standin::serve(&bus);
    let client = bus.client();
    let mut keyboard = RemoteKeyboard::start(&client, None).expect("the stand-in grants it");
    assert_eq!(keyboard.devices(), 1);
    assert_eq!(keyboard.restore_token(), Some("restore-1"));
    let select = &standin.call("SelectDevices")[0];
    assert_eq!(select.number("types"), Some(1), "the keyboard only");
    assert_eq!(select.number("persist_mode"), Some(2), "until revoked");
    assert_eq!(select.text("restore_token"), None);
    assert!(select.text("handle_token").is_some());
    let start = &standin.call("Start")[0];
    assert_eq!(start.parent.as_deref(), Some(""));
    assert!(start.text("handle_token").is_some());
    assert_eq!(start.session, select.session);

    // Ctrl+V: Control_L, v.
    keyboard.press_chord(&[0xffe3, 0x76]).unwrap();
    assert_eq!(
        *standin.keys.lock().unwrap(),
        [(0xffe3, 1), (0x76, 1), (0x76, 0), (0xffe3, 0)]
    );
    standin.keys.lock().unwrap().clear();
    // "ż" (U+017C): Unicode's keysym, 0x0100_0000 | code point.
    keyboard.type_keysyms(&[0x0100_017c]).unwrap();
    assert_eq!(
        *standin.keys.lock().unwrap(),
        [(0x0100_017c, 1), (0x0100_017c, 0)]
    );
    let session = select.session.clone();
    drop(keyboard);
    let closed = standin.wait_for("Close", 1);
    assert_eq!(closed.len(), 1);
    assert_eq!(Some(closed[0].path.clone()), session);

    let again = RemoteKeyboard::start(&client, Some("restore-1")).expect("started again");
    let select = &standin.call("SelectDevices")[1];
    assert_eq!(select.text("restore_token").as_deref(), Some("restore-1"));
    assert_eq!(again.restore_token(), Some("restore-2"));
}
