//! The hotkey on X11: a connection of the listener's own grabs each registered combination on
//! the root window (`GrabKey`, once per Caps Lock / Num Lock state, because X11 matches the
//! exact modifier state), and a thread named "hotkeys" blocks in `wait_for_event` until a key
//! edge, or the stop message [`Listener`]'s drop sends to the listener's own InputOnly window,
//! arrives. Register and unregister run on the caller's thread through the same connection
//! (x11rb's `RustConnection` is `Sync`); the grabs are in a mutex the thread reads.
//!
//! XKB's detectable auto-repeat is asked for, so a held key repeats as presses without
//! releases: one Pressed when it goes down, one Released when it comes up.
//!
//! Life of a grab: registered (checked requests, so another client's grab, BadAccess, is an
//! error and nothing of the combination stays grabbed) → pressed ⇄ released → unregistered, or
//! released by the X server when the connection closes (the listener dropped, the app gone).

use super::{HotkeyError, OnEvent};
use global_hotkey::hotkey::{Code, HotKey, Modifiers};
use global_hotkey::HotKeyState;
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use x11rb::connection::Connection;
use x11rb::errors::{ConnectionError, ReplyError};
use x11rb::protocol::xkb::{self, ConnectionExt as _};
use x11rb::protocol::xproto::{
    AtomEnum, ClientMessageEvent, ConnectionExt as _, CreateWindowAux, EventMask, GrabMode,
    KeyButMask, Keycode, ModMask, Window, WindowClass,
};
use x11rb::protocol::{ErrorKind, Event};
use x11rb::rust_connection::RustConnection;

/// A keysym (X11's name for what a key types: `XK_space`, `XK_a`, …).
type Keysym = u32;

/// The X11 listener: its connection and grabs, shared with its thread, and the thread.
pub(super) struct Listener {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

struct Shared {
    conn: RustConnection,
    root: Window,
    /// An InputOnly window of the listener's own, never mapped: a ClientMessage sent to it is
    /// the thread's signal to end.
    stop_window: Window,
    grabs: Mutex<Vec<Grab>>,
}

/// One registered hotkey as grabbed.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Grab {
    /// [`HotKey::id`].
    id: u32,
    /// The keys that type its keysym (usually one).
    keycodes: Vec<Keycode>,
    /// Its modifiers, without the lock ones.
    mods: ModMask,
    /// The key that went down with the right modifiers and has not come up yet.
    pressed: Option<Keycode>,
}

/// Which way a key went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Edge {
    Down,
    Up,
}

impl Listener {
    pub(super) fn new(on_event: OnEvent) -> Result<Listener, HotkeyError> {
        let (conn, screen) =
            x11rb::connect(None).map_err(|e| HotkeyError::NoDisplay(e.to_string()))?;
        let root = conn
            .setup()
            .roots
            .get(screen)
            .ok_or_else(|| HotkeyError::NoDisplay(format!("the display has no screen {screen}")))?
            .root;
        ask_for_detectable_auto_repeat(&conn);
        let stop_window = conn
            .generate_id()
            .map_err(|e| HotkeyError::Connection(e.to_string()))?;
        conn.create_window(
            x11rb::COPY_DEPTH_FROM_PARENT,
            stop_window,
            root,
            0,
            0,
            1,
            1,
            0,
            WindowClass::INPUT_ONLY,
            x11rb::COPY_FROM_PARENT,
            &CreateWindowAux::new(),
        )
        .map_err(connection_error)?
        .check()
        .map_err(reply_error)?;
        let shared = Arc::new(Shared {
            conn,
            root,
            stop_window,
            grabs: Mutex::new(Vec::new()),
        });
        let thread = std::thread::Builder::new()
            .name("hotkeys".into())
            .spawn({
                let shared = Arc::clone(&shared);
                move || shared.listen(&on_event)
            })
            .map_err(|e| HotkeyError::Connection(format!("no thread to listen on: {e}")))?;
        Ok(Listener {
            shared,
            thread: Some(thread),
        })
    }

    pub(super) fn register(&self, hotkey: HotKey) -> Result<(), HotkeyError> {
        let keysym = keysym_of(hotkey.key)
            .ok_or_else(|| HotkeyError::UnsupportedKey(hotkey.key.to_string()))?;
        let mods = mod_mask_of(hotkey.mods);
        let mut grabs = self.shared.grabs();
        if grabs.iter().any(|grab| grab.id == hotkey.id()) {
            return Err(HotkeyError::AlreadyRegistered(hotkey.to_string()));
        }
        let keycodes = self.shared.keycodes_of(keysym)?;
        if keycodes.is_empty() {
            return Err(HotkeyError::NotOnKeyboard(hotkey.key.to_string()));
        }
        self.shared.grab(&keycodes, mods).map_err(|e| match e {
            ReplyError::X11Error(e) if e.error_kind == ErrorKind::Access => {
                HotkeyError::Taken(hotkey.to_string())
            }
            e => reply_error(e),
        })?;
        grabs.push(Grab {
            id: hotkey.id(),
            keycodes,
            mods,
            pressed: None,
        });
        Ok(())
    }

    pub(super) fn unregister(&self, hotkey: HotKey) -> Result<(), HotkeyError> {
        let mut grabs = self.shared.grabs();
        if let Some(at) = grabs.iter().position(|grab| grab.id == hotkey.id()) {
            let grab = grabs.remove(at);
            self.shared.ungrab(&grab.keycodes, grab.mods);
            self.shared.conn.flush().map_err(connection_error)?;
        }
        Ok(())
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        let stop = ClientMessageEvent::new(32, self.shared.stop_window, AtomEnum::NONE, [0u32; 5]);
        // An empty event mask sends it to the window's creator: this connection.
        let sent = self
            .shared
            .conn
            .send_event(false, self.shared.stop_window, EventMask::NO_EVENT, stop)
            .and_then(|_| self.shared.conn.flush());
        // When the connection has failed the thread has ended, or ends on the same failure.
        if let (Ok(()), Some(thread)) = (sent, self.thread.take()) {
            let _ = thread.join();
        }
        // The connection closes with the last `Shared`: the X server lets go of every grab.
    }
}

impl Shared {
    fn grabs(&self) -> MutexGuard<'_, Vec<Grab>> {
        self.grabs.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The thread: waits for X events (no wake-up in between) and reports the hotkeys' edges.
    fn listen(&self, on_event: &OnEvent) {
        loop {
            let event = match self.conn.wait_for_event() {
                Ok(event) => event,
                Err(e) => {
                    tracing::warn!("the hotkey's X connection failed: {e}");
                    return;
                }
            };
            let edges = match event {
                Event::KeyPress(key) => {
                    key_edge(&mut self.grabs(), Edge::Down, key.detail, key.state)
                }
                Event::KeyRelease(key) => {
                    key_edge(&mut self.grabs(), Edge::Up, key.detail, key.state)
                }
                Event::ClientMessage(message) if message.window == self.stop_window => return,
                Event::Error(e) => {
                    tracing::debug!("X error on the hotkey's connection: {e:?}");
                    continue;
                }
                _ => continue,
            };
            for state in edges {
                on_event(state);
            }
        }
    }

    /// The keys that type `keysym` in the current keyboard mapping.
    fn keycodes_of(&self, keysym: Keysym) -> Result<Vec<Keycode>, HotkeyError> {
        let setup = self.conn.setup();
        let (min, max) = (setup.min_keycode, setup.max_keycode);
        let count = max.saturating_sub(min).saturating_add(1);
        let mapping = self
            .conn
            .get_keyboard_mapping(min, count)
            .map_err(connection_error)?
            .reply()
            .map_err(reply_error)?;
        Ok(keycodes_in_mapping(
            keysym,
            min,
            mapping.keysyms_per_keycode,
            &mapping.keysyms,
        ))
    }

    /// Grabs every key of `keycodes` with `mods` in each lock state, checked; on the first
    /// error lets all of them go again and returns it.
    fn grab(&self, keycodes: &[Keycode], mods: ModMask) -> Result<(), ReplyError> {
        let mut cookies = Vec::new();
        let mut failure = None;
        'send: for &keycode in keycodes {
            for with_locks in with_lock_masks(mods) {
                match self.conn.grab_key(
                    false,
                    self.root,
                    with_locks,
                    keycode,
                    GrabMode::ASYNC,
                    GrabMode::ASYNC,
                ) {
                    Ok(cookie) => cookies.push(cookie),
                    Err(e) => {
                        failure = Some(e.into());
                        break 'send;
                    }
                }
            }
        }
        for cookie in cookies {
            if let Err(e) = cookie.check() {
                failure.get_or_insert(e);
            }
        }
        match failure {
            None => Ok(()),
            Some(e) => {
                self.ungrab(keycodes, mods);
                let _ = self.conn.flush();
                Err(e)
            }
        }
    }

    /// Lets go of every key of `keycodes` with `mods` in each lock state (only this client's
    /// grabs; one it does not hold is no error). Needs a flush.
    fn ungrab(&self, keycodes: &[Keycode], mods: ModMask) {
        for &keycode in keycodes {
            for with_locks in with_lock_masks(mods) {
                if let Ok(cookie) = self.conn.ungrab_key(keycode, self.root, with_locks) {
                    cookie.ignore_error();
                }
            }
        }
    }
}

/// Asks XKB to report a held key's repeats as presses only (no release between them), so a
/// held hotkey is one press and one release. Without XKB (rare) a held key comes as release and
/// press pairs; said once in the log.
fn ask_for_detectable_auto_repeat(conn: &RustConnection) {
    let asked = || -> Result<bool, ReplyError> {
        if !conn.xkb_use_extension(1, 0)?.reply()?.supported {
            return Ok(false);
        }
        let flag = xkb::PerClientFlag::DETECTABLE_AUTO_REPEAT;
        let reply = conn
            .xkb_per_client_flags(
                xkb::ID::USE_CORE_KBD.into(),
                flag,
                flag,
                Default::default(),
                Default::default(),
                Default::default(),
            )?
            .reply()?;
        Ok(reply.value.contains(flag))
    };
    match asked() {
        Ok(true) => {}
        Ok(false) => tracing::warn!(
            "the X server has no detectable auto-repeat: a held hotkey repeats as releases"
        ),
        Err(e) => tracing::warn!(
            "no detectable auto-repeat from XKB ({e}): a held hotkey repeats as releases"
        ),
    }
}

fn connection_error(e: ConnectionError) -> HotkeyError {
    HotkeyError::Connection(e.to_string())
}

fn reply_error(e: impl Into<ReplyError>) -> HotkeyError {
    match e.into() {
        ReplyError::ConnectionError(e) => connection_error(e),
        ReplyError::X11Error(e) => HotkeyError::Refused(format!("X11 error {:?}", e.error_kind)),
    }
}

/// What a key edge means for the grabs: `Pressed` for a grab whose key goes down with exactly
/// its modifiers (lock ones aside) and is not already down (a repeat), `Released` for a grab
/// whose pressed key comes up, whatever is held then. Updates the grabs' pressed keys.
fn key_edge(
    grabs: &mut [Grab],
    edge: Edge,
    keycode: Keycode,
    state: KeyButMask,
) -> Vec<HotKeyState> {
    let held = held_modifiers(state);
    let mut edges = Vec::new();
    for grab in grabs.iter_mut() {
        match edge {
            Edge::Down
                if grab.pressed.is_none()
                    && grab.mods == held
                    && grab.keycodes.contains(&keycode) =>
            {
                grab.pressed = Some(keycode);
                edges.push(HotKeyState::Pressed);
            }
            Edge::Up if grab.pressed == Some(keycode) => {
                grab.pressed = None;
                edges.push(HotKeyState::Released);
            }
            _ => {}
        }
    }
    edges
}

/// The four modifiers a hotkey can have, from an event's state (lock keys and mouse buttons
/// dropped).
fn held_modifiers(state: KeyButMask) -> ModMask {
    let hotkey_mods = KeyButMask::SHIFT | KeyButMask::CONTROL | KeyButMask::MOD1 | KeyButMask::MOD4;
    ModMask::from(u16::from(state & hotkey_mods))
}

/// X11's modifier mask for a hotkey's modifiers: Shift, Control, Mod1 (Alt), Mod4 (Super,
/// which global-hotkey spells META).
fn mod_mask_of(mods: Modifiers) -> ModMask {
    let mut mask = ModMask::from(0u16);
    if mods.contains(Modifiers::SHIFT) {
        mask |= ModMask::SHIFT;
    }
    if mods.contains(Modifiers::CONTROL) {
        mask |= ModMask::CONTROL;
    }
    if mods.contains(Modifiers::ALT) {
        mask |= ModMask::M1;
    }
    #[allow(deprecated)]
    if mods.intersects(Modifiers::META | Modifiers::SUPER) {
        mask |= ModMask::M4;
    }
    mask
}

/// `mods` with each state of the lock modifiers, as X11 matches a grab against the whole
/// state: none, Num Lock (Mod2), Caps Lock (Lock), both.
fn with_lock_masks(mods: ModMask) -> [ModMask; 4] {
    [
        mods,
        mods | ModMask::M2,
        mods | ModMask::LOCK,
        mods | ModMask::M2 | ModMask::LOCK,
    ]
}

/// The keycodes whose keysyms (`keysyms`: `per_keycode` a key, from `min_keycode` on, as
/// `GetKeyboardMapping` returns them) include `keysym`: those that type it unshifted or shifted
/// in the first group, or, when none does, those that type it at any level or group.
fn keycodes_in_mapping(
    keysym: Keysym,
    min_keycode: Keycode,
    per_keycode: u8,
    keysyms: &[Keysym],
) -> Vec<Keycode> {
    let per_keycode = usize::from(per_keycode);
    if per_keycode == 0 {
        return Vec::new();
    }
    let typing_in_first = |columns: usize| -> Vec<Keycode> {
        keysyms
            .chunks(per_keycode)
            .zip(min_keycode..=Keycode::MAX)
            .filter(|(row, _)| row.iter().take(columns).any(|&s| s == keysym))
            .map(|(_, keycode)| keycode)
            .collect()
    };
    let plain_or_shifted = typing_in_first(2);
    if plain_or_shifted.is_empty() {
        typing_in_first(per_keycode)
    } else {
        plain_or_shifted
    }
}

const LETTERS: [Code; 26] = [
    Code::KeyA,
    Code::KeyB,
    Code::KeyC,
    Code::KeyD,
    Code::KeyE,
    Code::KeyF,
    Code::KeyG,
    Code::KeyH,
    Code::KeyI,
    Code::KeyJ,
    Code::KeyK,
    Code::KeyL,
    Code::KeyM,
    Code::KeyN,
    Code::KeyO,
    Code::KeyP,
    Code::KeyQ,
    Code::KeyR,
    Code::KeyS,
    Code::KeyT,
    Code::KeyU,
    Code::KeyV,
    Code::KeyW,
    Code::KeyX,
    Code::KeyY,
    Code::KeyZ,
];

const DIGITS: [Code; 10] = [
    Code::Digit0,
    Code::Digit1,
    Code::Digit2,
    Code::Digit3,
    Code::Digit4,
    Code::Digit5,
    Code::Digit6,
    Code::Digit7,
    Code::Digit8,
    Code::Digit9,
];

const NUMPAD_DIGITS: [Code; 10] = [
    Code::Numpad0,
    Code::Numpad1,
    Code::Numpad2,
    Code::Numpad3,
    Code::Numpad4,
    Code::Numpad5,
    Code::Numpad6,
    Code::Numpad7,
    Code::Numpad8,
    Code::Numpad9,
];

const FUNCTION_KEYS: [Code; 24] = [
    Code::F1,
    Code::F2,
    Code::F3,
    Code::F4,
    Code::F5,
    Code::F6,
    Code::F7,
    Code::F8,
    Code::F9,
    Code::F10,
    Code::F11,
    Code::F12,
    Code::F13,
    Code::F14,
    Code::F15,
    Code::F16,
    Code::F17,
    Code::F18,
    Code::F19,
    Code::F20,
    Code::F21,
    Code::F22,
    Code::F23,
    Code::F24,
];

/// The keysym a key types in a US layout, for the keys a hotkey can use (values from X11's
/// `keysymdef.h` and `XF86keysym.h`); `None` for the others (modifiers and lock keys among
/// them). The keysym, not the physical key, is what is grabbed: "ctrl+alt+d" is where D is in
/// the person's layout.
fn keysym_of(code: Code) -> Option<Keysym> {
    let in_row = |row: &[Code], first: Keysym| {
        row.iter()
            .zip(first..)
            .find(|(c, _)| **c == code)
            .map(|(_, keysym)| keysym)
    };
    // Letters as their lowercase keysyms (XK_a…XK_z), the unshifted column of the mapping.
    let row = in_row(&LETTERS, 0x61)
        .or_else(|| in_row(&DIGITS, 0x30))
        .or_else(|| in_row(&NUMPAD_DIGITS, 0xffb0))
        .or_else(|| in_row(&FUNCTION_KEYS, 0xffbe));
    if row.is_some() {
        return row;
    }
    Some(match code {
        Code::Space => 0x0020,
        Code::Quote => 0x0027,        // apostrophe
        Code::Comma => 0x002c,        // comma
        Code::Minus => 0x002d,        // minus
        Code::Period => 0x002e,       // period
        Code::Slash => 0x002f,        // slash
        Code::Semicolon => 0x003b,    // semicolon
        Code::Equal => 0x003d,        // equal
        Code::BracketLeft => 0x005b,  // bracketleft
        Code::Backslash => 0x005c,    // backslash
        Code::BracketRight => 0x005d, // bracketright
        Code::Backquote => 0x0060,    // grave
        Code::Backspace => 0xff08,
        Code::Tab => 0xff09,
        Code::Enter => 0xff0d, // Return
        Code::Pause => 0xff13,
        Code::ScrollLock => 0xff14,
        Code::Escape => 0xff1b,
        Code::Home => 0xff50,
        Code::ArrowLeft => 0xff51,
        Code::ArrowUp => 0xff52,
        Code::ArrowRight => 0xff53,
        Code::ArrowDown => 0xff54,
        Code::PageUp => 0xff55,   // Prior
        Code::PageDown => 0xff56, // Next
        Code::End => 0xff57,
        Code::PrintScreen => 0xff61, // Print
        Code::Insert => 0xff63,
        Code::ContextMenu => 0xff67, // Menu
        Code::NumpadEnter => 0xff8d,
        Code::NumpadMultiply => 0xffaa,
        Code::NumpadAdd => 0xffab,
        Code::NumpadSubtract => 0xffad,
        Code::NumpadDecimal => 0xffae,
        Code::NumpadDivide => 0xffaf,
        Code::NumpadEqual => 0xffbd,
        Code::Delete => 0xffff,
        Code::AudioVolumeDown => 0x1008_ff11,
        Code::AudioVolumeMute => 0x1008_ff12,
        Code::AudioVolumeUp => 0x1008_ff13,
        Code::MediaPlayPause | Code::MediaPlay => 0x1008_ff14, // XF86AudioPlay
        Code::MediaStop => 0x1008_ff15,
        Code::MediaTrackPrevious => 0x1008_ff16,
        Code::MediaTrackNext => 0x1008_ff17,
        Code::MediaPause => 0x1008_ff31,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    #[test]
    fn keys_map_to_their_x11_keysyms() {
        assert_eq!(keysym_of(Code::KeyA), Some(0x61)); // XK_a
        assert_eq!(keysym_of(Code::KeyD), Some(0x64));
        assert_eq!(keysym_of(Code::KeyZ), Some(0x7a));
        assert_eq!(keysym_of(Code::Digit0), Some(0x30));
        assert_eq!(keysym_of(Code::Digit9), Some(0x39));
        assert_eq!(keysym_of(Code::F1), Some(0xffbe));
        assert_eq!(keysym_of(Code::F8), Some(0xffc5));
        assert_eq!(keysym_of(Code::F12), Some(0xffc9));
        assert_eq!(keysym_of(Code::F24), Some(0xffd5));
        assert_eq!(keysym_of(Code::Numpad0), Some(0xffb0)); // XK_KP_0
        assert_eq!(keysym_of(Code::Numpad9), Some(0xffb9));
        assert_eq!(keysym_of(Code::Space), Some(0x20));
        assert_eq!(keysym_of(Code::Escape), Some(0xff1b));
        assert_eq!(keysym_of(Code::Enter), Some(0xff0d));
        assert_eq!(keysym_of(Code::Tab), Some(0xff09));
        assert_eq!(keysym_of(Code::ArrowUp), Some(0xff52));
        assert_eq!(keysym_of(Code::ArrowDown), Some(0xff54));
        assert_eq!(keysym_of(Code::Quote), Some(0x27)); // XK_apostrophe
        assert_eq!(keysym_of(Code::Backquote), Some(0x60)); // XK_grave
        assert_eq!(keysym_of(Code::Slash), Some(0x2f));
        assert_eq!(keysym_of(Code::MediaPlayPause), Some(0x1008_ff14));
        // Modifiers, lock keys and keys without a keysym here cannot be hotkeys.
        for code in [
            Code::ControlLeft,
            Code::ShiftRight,
            Code::AltLeft,
            Code::MetaLeft,
            Code::CapsLock,
            Code::NumLock,
            Code::Fn,
        ] {
            assert_eq!(keysym_of(code), None, "{code}");
        }
    }

    #[test]
    fn every_letter_digit_and_function_key_has_its_own_keysym() {
        let mut keysyms: Vec<Keysym> = LETTERS
            .iter()
            .chain(&DIGITS)
            .chain(&NUMPAD_DIGITS)
            .chain(&FUNCTION_KEYS)
            .map(|&code| keysym_of(code).unwrap())
            .collect();
        let all = keysyms.len();
        keysyms.sort_unstable();
        keysyms.dedup();
        assert_eq!(keysyms.len(), all);
    }

    #[test]
    fn modifiers_map_to_x11_masks() {
        let mask = |text: &str| mod_mask_of(HotKey::from_str(text).unwrap().mods);
        assert_eq!(mask("ctrl+alt+space"), ModMask::CONTROL | ModMask::M1);
        assert_eq!(mask("shift+f8"), ModMask::SHIFT);
        assert_eq!(mask("super+KeyD"), ModMask::M4);
        assert_eq!(mask("cmd+KeyD"), ModMask::M4);
        assert_eq!(
            mask("ctrl+shift+alt+super+KeyD"),
            ModMask::CONTROL | ModMask::SHIFT | ModMask::M1 | ModMask::M4
        );
        assert_eq!(mask("f8"), ModMask::from(0u16));
        let hotkey = HotKey::from_str("ctrl+alt+space").unwrap();
        assert_eq!(keysym_of(hotkey.key), Some(0x20));
    }

    #[test]
    fn a_grab_covers_each_state_of_caps_lock_and_num_lock() {
        let mods = ModMask::CONTROL | ModMask::M1;
        let masks = with_lock_masks(mods);
        assert_eq!(
            masks,
            [
                mods,
                mods | ModMask::M2,
                mods | ModMask::LOCK,
                mods | ModMask::M2 | ModMask::LOCK
            ]
        );
        // Without modifiers: the bare key in each lock state.
        assert_eq!(with_lock_masks(ModMask::from(0u16))[0], ModMask::from(0u16));
    }

    #[test]
    fn keycodes_are_found_unshifted_or_shifted_first() {
        // Four keysyms a key from keycode 8: 8 types a/A, 9 types 1/! and AltGr a, 10 types
        // ą/Ą (a Polish key), 11 nothing.
        let mapping = [
            0x61, 0x41, 0, 0, //
            0x31, 0x21, 0x61, 0, //
            0x1b1, 0x1a1, 0, 0, //
            0, 0, 0, 0,
        ];
        assert_eq!(keycodes_in_mapping(0x61, 8, 4, &mapping), vec![8]);
        assert_eq!(keycodes_in_mapping(0x41, 8, 4, &mapping), vec![8]);
        assert_eq!(keycodes_in_mapping(0x21, 8, 4, &mapping), vec![9]);
        // Only at another level: found there.
        let only_altgr = [0x31, 0x21, 0x61, 0];
        assert_eq!(keycodes_in_mapping(0x61, 20, 4, &only_altgr), vec![20]);
        // Two keys typing it (the keypad and the main Enter both, say): both.
        let twice = [0xff0d, 0, 0xff0d, 0];
        assert_eq!(keycodes_in_mapping(0xff0d, 36, 2, &twice), vec![36, 37]);
        assert!(keycodes_in_mapping(0x7a, 8, 4, &mapping).is_empty());
        assert!(keycodes_in_mapping(0x61, 8, 0, &mapping).is_empty());
        // The last keycode, 255, is still one.
        let last = [0, 0x20];
        assert_eq!(keycodes_in_mapping(0x20, 254, 1, &last), vec![255]);
    }

    fn grab(keycode: Keycode, mods: ModMask) -> Grab {
        Grab {
            id: 1,
            keycodes: vec![keycode],
            mods,
            pressed: None,
        }
    }

    const SPACE: Keycode = 65;

    #[test]
    fn a_held_hotkey_is_one_press_and_one_release() {
        let ctrl_alt = KeyButMask::CONTROL | KeyButMask::MOD1;
        let mut grabs = vec![grab(SPACE, ModMask::CONTROL | ModMask::M1)];
        let pressed = vec![HotKeyState::Pressed];
        let released = vec![HotKeyState::Released];
        assert_eq!(key_edge(&mut grabs, Edge::Down, SPACE, ctrl_alt), pressed);
        // Auto-repeat (detectable): presses only, ignored while held.
        for _ in 0..5 {
            assert!(key_edge(&mut grabs, Edge::Down, SPACE, ctrl_alt).is_empty());
        }
        assert_eq!(key_edge(&mut grabs, Edge::Up, SPACE, ctrl_alt), released);
        assert!(key_edge(&mut grabs, Edge::Up, SPACE, ctrl_alt).is_empty());
        // Again, with Num Lock and Caps Lock on and a mouse button down: the same hotkey.
        let locked = ctrl_alt | KeyButMask::MOD2 | KeyButMask::LOCK | KeyButMask::BUTTON1;
        assert_eq!(key_edge(&mut grabs, Edge::Down, SPACE, locked), pressed);
        // Ctrl and Alt let go before Space: Space's release still ends it.
        assert_eq!(
            key_edge(&mut grabs, Edge::Up, SPACE, KeyButMask::from(0u16)),
            released
        );
    }

    #[test]
    fn other_modifiers_or_keys_are_not_the_hotkey() {
        let ctrl_alt = KeyButMask::CONTROL | KeyButMask::MOD1;
        let mut grabs = vec![grab(SPACE, ModMask::CONTROL | ModMask::M1)];
        let with_shift = ctrl_alt | KeyButMask::SHIFT;
        assert!(key_edge(&mut grabs, Edge::Down, SPACE, with_shift).is_empty());
        assert!(key_edge(&mut grabs, Edge::Up, SPACE, with_shift).is_empty());
        assert!(key_edge(&mut grabs, Edge::Down, SPACE, KeyButMask::CONTROL).is_empty());
        assert!(key_edge(&mut grabs, Edge::Down, 38, ctrl_alt).is_empty());
        // Pressed, then another key's release: still held.
        assert_eq!(
            key_edge(&mut grabs, Edge::Down, SPACE, ctrl_alt),
            vec![HotKeyState::Pressed]
        );
        assert!(key_edge(&mut grabs, Edge::Up, 38, ctrl_alt).is_empty());
        assert_eq!(
            key_edge(&mut grabs, Edge::Up, SPACE, ctrl_alt),
            vec![HotKeyState::Released]
        );
    }
}
