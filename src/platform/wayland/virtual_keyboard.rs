//! The paste keystroke and typed text on a Wayland session, through the virtual-keyboard
//! protocol (`zwp_virtual_keyboard_v1`, offered by sway, Hyprland and other wlroots compositors,
//! not by GNOME): a keyboard of the app's own in the person's seat. Only that protocol: not the
//! input-method one (the person's own IME keeps working) and no virtual pointer.
//!
//! A virtual keyboard sends key codes, and what a code types is the keymap the client uploads
//! with it: like wtype, [`VirtualKeyboard`] uploads an XKB keymap with one key per keysym it
//! needs ([`keymap_text`]), so any character types as itself whatever the person's layout is
//! (ą, ł, ż included) and the paste keystroke is the keysym `v` with Control, which is what
//! Wayland apps match. The compositor hands that keymap to the focused app with the first key
//! (and the person's own keymap back at their next key). The keymap is uploaded again only when
//! a text needs keysyms it lacks; a text with more than [`MAX_KEYS`] distinct characters is
//! typed in parts, one keymap each (X11 apps under XWayland take key codes up to 255 only).
//!
//! Modifiers are sent both ways: the modifier key is pressed (mapped to its modifier in the
//! keymap) and the modifier state is sent (`modifiers`), because wlroots takes the state only
//! from the latter. Requests are flushed and a round trip waits for the compositor to have
//! handled them before a call returns, so a paste keystroke has reached the app's queue before
//! the caller puts the previous clipboard back.
//!
//! Owner: the output thread's `Injector` (`inject::sender`), one for the app's lifetime, with
//! its own connection to `WAYLAND_DISPLAY`.

use crate::platform::keysyms;
use std::collections::HashSet;
use std::os::fd::{AsFd, FromRawFd, OwnedFd};
use std::time::{Duration, Instant};
use wayland_client::globals::{registry_queue_init, BindError, GlobalListContents};
use wayland_client::protocol::{wl_registry, wl_seat};
use wayland_client::{delegate_noop, Connection, Dispatch, EventQueue, QueueHandle};
use wayland_protocols_misc::zwp_virtual_keyboard_v1::client::{
    zwp_virtual_keyboard_manager_v1::ZwpVirtualKeyboardManagerV1,
    zwp_virtual_keyboard_v1::ZwpVirtualKeyboardV1,
};

/// The most keys in one uploaded keymap (XKB key codes 9..=208, and 209 typing nothing,
/// [`keymap_text`]): X11 apps under XWayland see key codes up to 255 only.
pub const MAX_KEYS: usize = 200;

/// The XKB key code of the keymap's first key; the protocol's key numbers are XKB's minus 8
/// (evdev codes), so it is key 1.
const FIRST_KEYCODE: u32 = 9;
const EVDEV_OFFSET: u32 = 8;

/// `wl_keyboard.keymap_format.xkb_v1`.
const KEYMAP_FORMAT_XKB_V1: u32 = 1;
/// `wl_keyboard.key_state`.
const RELEASED: u32 = 0;
const PRESSED: u32 = 1;

/// Characters typed between two round trips: the compositor has read them before more are
/// written (the client's buffer holds about 200 key events; one that overflows ends the
/// connection), and the apps get the text in steady portions.
const CHARS_PER_ROUND_TRIP: usize = 32;

/// The pause after each typed character. Apps read key events from their queue one by one; a
/// short gap keeps a busy one (a browser) from having hundreds pile up. About 500 characters
/// a second.
const CHAR_GAP: Duration = Duration::from_millis(2);

/// How long after its creation the keyboard sends its first key. A seat that had no keyboard
/// (a headless desktop, a tablet) announces one when this one is created, and apps ask for its
/// events only then: keys sent at once were lost (seen on sway: the first press of a short-lived
/// keyboard never reached a GTK app, only its release). In the app the keyboard is created at
/// start, long before the first dictation, so this costs nothing there.
const SETTLE_AFTER_CREATION: Duration = Duration::from_millis(100);

/// The protocol's global names.
pub const MANAGER_INTERFACE: &str = "zwp_virtual_keyboard_manager_v1";
pub const SEAT_INTERFACE: &str = "wl_seat";

#[derive(Debug, thiserror::Error)]
pub enum VirtualKeyboardError {
    #[error("no Wayland display (WAYLAND_DISPLAY is not set)")]
    NoDisplay,
    #[error("cannot connect to the Wayland display: {0}")]
    Connect(String),
    #[error("the compositor does not offer {0}")]
    NotOffered(&'static str),
    #[error("the Wayland connection was lost: {0}")]
    ConnectionLost(String),
    #[error("the keymap could not be written: {0}")]
    Keymap(std::io::Error),
}

/// The dispatch target: none of the objects used sends an event the keyboard needs.
struct Events;

impl Dispatch<wl_registry::WlRegistry, GlobalListContents> for Events {
    fn event(
        _: &mut Self,
        _: &wl_registry::WlRegistry,
        _: wl_registry::Event,
        _: &GlobalListContents,
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
    }
}

delegate_noop!(Events: ignore wl_seat::WlSeat);
delegate_noop!(Events: ZwpVirtualKeyboardManagerV1);
delegate_noop!(Events: ZwpVirtualKeyboardV1);

/// A virtual keyboard in the compositor's first seat.
pub struct VirtualKeyboard {
    connection: Connection,
    queue: EventQueue<Events>,
    keyboard: ZwpVirtualKeyboardV1,
    /// The keysyms of the keymap uploaded last, key `i + 1` typing `keymap[i]`; empty before the
    /// first upload.
    keymap: Vec<u32>,
    /// The modifier state last sent.
    depressed: u32,
    /// The clock of the key events' timestamps (milliseconds, one clock per keyboard).
    started: Instant,
}

impl VirtualKeyboard {
    /// Connects to `WAYLAND_DISPLAY` and creates the keyboard; `Err` when there is no Wayland
    /// display, the compositor offers no seat or no virtual-keyboard manager (GNOME), or it
    /// refuses this client one (a compositor may allow it only to trusted clients).
    pub fn new() -> Result<VirtualKeyboard, VirtualKeyboardError> {
        if std::env::var_os("WAYLAND_DISPLAY").is_none_or(|d| d.is_empty()) {
            return Err(VirtualKeyboardError::NoDisplay);
        }
        let connection = Connection::connect_to_env()
            .map_err(|e| VirtualKeyboardError::Connect(e.to_string()))?;
        let (globals, queue) = registry_queue_init::<Events>(&connection)
            .map_err(|e| VirtualKeyboardError::Connect(e.to_string()))?;
        let offered: Vec<String> = globals
            .contents()
            .with_list(|list| list.iter().map(|g| g.interface.clone()).collect());
        if let Some(missing) = first_missing(&offered) {
            return Err(VirtualKeyboardError::NotOffered(missing));
        }
        let handle = queue.handle();
        let bind_error = |name| move |_: BindError| VirtualKeyboardError::NotOffered(name);
        let manager: ZwpVirtualKeyboardManagerV1 = globals
            .bind(&handle, 1..=1, ())
            .map_err(bind_error(MANAGER_INTERFACE))?;
        let seat: wl_seat::WlSeat = globals
            .bind(&handle, 1..=1, ())
            .map_err(bind_error(SEAT_INTERFACE))?;
        let keyboard = manager.create_virtual_keyboard(&seat, &handle, ());
        let mut keyboard = VirtualKeyboard {
            connection,
            queue,
            keyboard,
            keymap: Vec::new(),
            depressed: 0,
            started: Instant::now(),
        };
        // A compositor that refuses the keyboard (`unauthorized`) ends the connection: seen here.
        keyboard.round_trip()?;
        Ok(keyboard)
    }

    /// Presses `keysyms` in order and releases them in reverse: modifiers first, then the key
    /// (`keysyms::paste_chord`, `keysyms::after_chord`). Returns once the compositor has them.
    pub fn press_chord(&mut self, keysyms: &[u32]) -> Result<(), VirtualKeyboardError> {
        if keysyms.is_empty() {
            return Ok(());
        }
        self.make_keys(keysyms)?;
        for &keysym in keysyms {
            self.key(keysym, PRESSED);
        }
        for &keysym in keysyms.iter().rev() {
            self.key(keysym, RELEASED);
        }
        self.round_trip()
    }

    /// Types `text` character by character ([`keysyms::char_keysym`]: a line break is Return,
    /// other control characters are skipped). Returns once the compositor has every key.
    pub fn type_text(&mut self, text: &str) -> Result<(), VirtualKeyboardError> {
        let keysyms: Vec<u32> = text.chars().filter_map(keysyms::char_keysym).collect();
        for part in chunks(&keysyms, MAX_KEYS) {
            self.make_keys(part)?;
            for (i, &keysym) in part.iter().enumerate() {
                self.key(keysym, PRESSED);
                self.key(keysym, RELEASED);
                if (i + 1) % CHARS_PER_ROUND_TRIP == 0 {
                    self.round_trip()?;
                } else {
                    self.flush()?;
                }
                std::thread::sleep(CHAR_GAP);
            }
            self.round_trip()?;
        }
        Ok(())
    }

    /// Uploads a keymap with keys for all of `needed` unless the current one has them.
    fn make_keys(&mut self, needed: &[u32]) -> Result<(), VirtualKeyboardError> {
        let Some(keymap) = keymap_for(&self.keymap, needed, MAX_KEYS) else {
            return Ok(());
        };
        if self.keymap.is_empty() {
            std::thread::sleep(SETTLE_AFTER_CREATION.saturating_sub(self.started.elapsed()));
        }
        let text = keymap_text(&keymap);
        let file = keymap_file(&text).map_err(VirtualKeyboardError::Keymap)?;
        let size = u32::try_from(text.len() + 1).expect("a keymap of at most 200 keys");
        self.keyboard
            .keymap(KEYMAP_FORMAT_XKB_V1, file.as_fd(), size);
        self.keymap = keymap;
        // The new keymap starts with no modifier held.
        self.depressed = 0;
        tracing::debug!(
            keys = self.keymap.len(),
            "virtual keyboard: keymap uploaded"
        );
        Ok(())
    }

    /// Presses or releases the key of `keysym` (in the keymap), with the modifier state when it
    /// is a modifier's key.
    fn key(&mut self, keysym: u32, state: u32) {
        let index = self
            .keymap
            .iter()
            .position(|&k| k == keysym)
            .expect("make_keys put every keysym in the keymap");
        let key = FIRST_KEYCODE - EVDEV_OFFSET + index as u32;
        self.keyboard.key(self.now_ms(), key, state);
        if let Some(mask) = keysyms::modifier_mask(keysym) {
            self.depressed = if state == PRESSED {
                self.depressed | mask
            } else {
                self.depressed & !mask
            };
            self.keyboard.modifiers(self.depressed, 0, 0, 0);
        }
    }

    /// Milliseconds since the keyboard was created (the protocol wants only one clock per
    /// keyboard; it wraps after 49 days, as the protocol's own timestamps do).
    fn now_ms(&self) -> u32 {
        self.started.elapsed().as_millis() as u32
    }

    fn flush(&self) -> Result<(), VirtualKeyboardError> {
        self.connection
            .flush()
            .map_err(|e| VirtualKeyboardError::ConnectionLost(e.to_string()))
    }

    /// Sends what is queued and waits until the compositor has handled it.
    fn round_trip(&mut self) -> Result<(), VirtualKeyboardError> {
        self.queue
            .roundtrip(&mut Events)
            .map(|_| ())
            .map_err(|e| VirtualKeyboardError::ConnectionLost(e.to_string()))
    }
}

impl Drop for VirtualKeyboard {
    fn drop(&mut self) {
        if self.depressed != 0 {
            self.keyboard.modifiers(0, 0, 0, 0);
        }
        self.keyboard.destroy();
        let _ = self.connection.flush();
    }
}

/// The first interface a virtual keyboard needs that `offered` (the compositor's globals)
/// lacks: the manager (GNOME has none), then a seat (a compositor without input).
pub fn first_missing(offered: &[String]) -> Option<&'static str> {
    [MANAGER_INTERFACE, SEAT_INTERFACE]
        .into_iter()
        .find(|needed| !offered.iter().any(|name| name == needed))
}

/// An unnamed in-memory file (memfd) holding `text` and its terminating NUL (the
/// compositor maps it and compiles it as a C string).
fn keymap_file(text: &str) -> std::io::Result<OwnedFd> {
    use std::io::Write;
    // SAFETY: a NUL-terminated name and plain flags; the descriptor is owned from here on.
    let fd = unsafe { libc::memfd_create(c"whisper-dictation-keymap".as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `fd` was just created and is owned by nothing else.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    let mut file = std::fs::File::from(fd);
    file.write_all(text.as_bytes())?;
    file.write_all(&[0])?;
    Ok(OwnedFd::from(file))
}

/// The keymap (keysyms, key `i + 1` typing the `i`-th) to upload so that every keysym of
/// `needed` has a key, given the `current` one: `None` when it has them all already; the
/// current keys with the missing ones added after them when that fits in `max` keys (the keys
/// keep their codes); else the keysyms of `needed` alone, each once, in order of appearance.
pub fn keymap_for(current: &[u32], needed: &[u32], max: usize) -> Option<Vec<u32>> {
    let mut missing = Vec::new();
    for &keysym in needed {
        if !current.contains(&keysym) && !missing.contains(&keysym) {
            missing.push(keysym);
        }
    }
    if missing.is_empty() {
        return None;
    }
    if current.len() + missing.len() <= max {
        return Some(current.iter().copied().chain(missing).collect());
    }
    let mut alone = Vec::new();
    for &keysym in needed {
        if !alone.contains(&keysym) {
            alone.push(keysym);
        }
    }
    Some(alone)
}

/// `keysyms` cut, in order, into parts of at most `max` distinct keysyms each.
pub fn chunks(keysyms: &[u32], max: usize) -> Vec<&[u32]> {
    let mut parts = Vec::new();
    let mut start = 0;
    let mut distinct = HashSet::new();
    for (i, keysym) in keysyms.iter().enumerate() {
        if !distinct.contains(keysym) && distinct.len() == max {
            parts.push(&keysyms[start..i]);
            start = i;
            distinct.clear();
        }
        distinct.insert(*keysym);
    }
    if start < keysyms.len() {
        parts.push(&keysyms[start..]);
    }
    parts
}

/// The name of `keysym` in a keymap: `U0105` for a Unicode keysym (what libxkbcommon's and
/// Xlib's keysym lookups read as `0x0100_0000 | 0x105`), the hexadecimal number otherwise
/// (`0xffe3`; keymap compilers read a number of 10 or more as the keysym itself).
pub fn keysym_name(keysym: u32) -> String {
    if (keysyms::UNICODE_OFFSET | 0x100..=keysyms::UNICODE_OFFSET | 0x10_ffff).contains(&keysym) {
        format!("U{:04X}", keysym & 0x00ff_ffff)
    } else {
        format!("0x{keysym:x}")
    }
}

/// An XKB keymap whose key `<Kn>` (XKB key code `8 + n`, protocol key `n`) types `keysyms[n-1]`
/// at its only level, with the standard types and compatibility map ("complete": modifier keys
/// set their modifiers) and the modifier keys among them mapped to their modifiers.
///
/// One more key code is named after the last key, typing nothing: GTK 3's Wayland keymap looks
/// keys up with a loop that stops before the keymap's highest code
/// (`gdk_wayland_keymap_get_entries_for_keyval`), so its key bindings never match the key with
/// that code. Seen on sway: Ctrl+V and Enter did nothing in a GTK entry while `v` or Return had
/// the highest code (wtype's `maximum` one higher does not help: libxkbcommon takes the highest
/// code from the names, and the compositor passes its own serialization on to the app).
pub fn keymap_text(keysyms: &[u32]) -> String {
    use std::fmt::Write;
    let spare = keysyms.len() + 1;
    let last = EVDEV_OFFSET as usize + spare;
    let mut text = String::new();
    text.push_str("xkb_keymap {\n");
    text.push_str("xkb_keycodes \"whisper-dictation\" {\n");
    let _ = writeln!(text, "minimum = 8;\nmaximum = {last};");
    for n in 1..=spare {
        let _ = writeln!(text, "<K{n}> = {};", n + EVDEV_OFFSET as usize);
    }
    text.push_str("};\n");
    text.push_str("xkb_types \"whisper-dictation\" { include \"complete\" };\n");
    text.push_str("xkb_compatibility \"whisper-dictation\" { include \"complete\" };\n");
    text.push_str("xkb_symbols \"whisper-dictation\" {\n");
    for (i, &keysym) in keysyms.iter().enumerate() {
        let _ = writeln!(text, "key <K{}> {{[ {} ]}};", i + 1, keysym_name(keysym));
    }
    for (i, &keysym) in keysyms.iter().enumerate() {
        if let Some(name) = keysyms::modifier_mask(keysym).and_then(keysyms::modifier_name) {
            let _ = writeln!(text, "modifier_map {name} {{ <K{}> }};", i + 1);
        }
    }
    text.push_str("};\n};\n");
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_keymap_has_one_key_per_keysym_from_code_9() {
        let text = keymap_text(&[0x0100_0105, 0x61, keysyms::CONTROL_L, keysyms::V]);
        let expected = "xkb_keymap {
xkb_keycodes \"whisper-dictation\" {
minimum = 8;
maximum = 13;
<K1> = 9;
<K2> = 10;
<K3> = 11;
<K4> = 12;
<K5> = 13;
};
xkb_types \"whisper-dictation\" { include \"complete\" };
xkb_compatibility \"whisper-dictation\" { include \"complete\" };
xkb_symbols \"whisper-dictation\" {
key <K1> {[ U0105 ]};
key <K2> {[ 0x61 ]};
key <K3> {[ 0xffe3 ]};
key <K4> {[ 0x76 ]};
modifier_map Control { <K3> };
};
};
";
        assert_eq!(text, expected);
    }

    #[test]
    fn a_compositor_without_the_protocol_is_named_as_such() {
        let names = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        // What GNOME's mutter offers (no virtual keyboard, no data control).
        let gnome = names(&["wl_compositor", "wl_seat", "zwp_text_input_manager_v3"]);
        assert_eq!(
            first_missing(&gnome),
            Some("zwp_virtual_keyboard_manager_v1")
        );
        let sway = names(&["wl_seat", "zwp_virtual_keyboard_manager_v1", "wl_shm"]);
        assert_eq!(first_missing(&sway), None);
        assert_eq!(
            first_missing(&names(&["zwp_virtual_keyboard_manager_v1"])),
            Some("wl_seat")
        );
        assert_eq!(
            VirtualKeyboardError::NotOffered(MANAGER_INTERFACE).to_string(),
            "the compositor does not offer zwp_virtual_keyboard_manager_v1"
        );
    }

    #[test]
    fn keysym_names_are_unicode_names_or_numbers() {
        assert_eq!(keysym_name(0x0100_0105), "U0105"); // ą
        assert_eq!(keysym_name(0x0100_017c), "U017C"); // ż
        assert_eq!(keysym_name(0x0101_f600), "U1F600");
        assert_eq!(keysym_name(0xf3), "0xf3"); // ó (Latin-1)
        assert_eq!(keysym_name(0x20), "0x20"); // space: a number of 10 or more
        assert_eq!(keysym_name(0xff0d), "0xff0d"); // Return
    }

    #[test]
    fn modifier_keys_are_mapped_to_their_modifiers() {
        let text = keymap_text(&[keysyms::CONTROL_L, keysyms::SHIFT_L, keysyms::V]);
        assert!(text.contains("modifier_map Control { <K1> };"), "{text}");
        assert!(text.contains("modifier_map Shift { <K2> };"), "{text}");
        assert!(!text.contains("<K3> };"), "v is no modifier: {text}");
    }

    #[test]
    fn a_keymap_is_uploaded_only_for_missing_keysyms() {
        let polish: Vec<u32> = "zażółć".chars().filter_map(keysyms::char_keysym).collect();
        let first = keymap_for(&[], &polish, MAX_KEYS).unwrap();
        // Each once, in order of appearance (z, a, ż, ó, ł, ć).
        assert_eq!(first.len(), 6);
        assert_eq!(first[0], 0x7a);
        assert_eq!(keymap_for(&first, &polish, MAX_KEYS), None);
        assert_eq!(keymap_for(&first, &[0x61, 0x7a], MAX_KEYS), None);
        // Ctrl+V then: added after the keys there, whose codes stay.
        let chord = keysyms::paste_chord(crate::platform::PasteKeys::CtrlV);
        let second = keymap_for(&first, &chord, MAX_KEYS).unwrap();
        assert_eq!(&second[..6], &first[..]);
        assert_eq!(&second[6..], &chord[..]);
        // Too many to add: the needed ones alone.
        let third = keymap_for(&second, &[1000, 1001, 1000], 9).unwrap();
        assert_eq!(third, [1000, 1001]);
    }

    #[test]
    fn long_texts_are_typed_in_parts_of_few_enough_distinct_keysyms() {
        let text: Vec<u32> = vec![1, 2, 1, 3, 3, 4, 1, 5];
        assert_eq!(
            chunks(&text, 3),
            [&[1, 2, 1, 3, 3][..], &[4, 1, 5][..]],
            "a part ends before the keysym that would be its fourth"
        );
        assert_eq!(chunks(&text, 5), [&text[..]]);
        assert!(chunks(&[], 3).is_empty());
        // 300 distinct characters with MAX_KEYS: two parts, none over the limit.
        let many: Vec<u32> = (0x100..0x100 + 300).map(|c| 0x0100_0000 | c).collect();
        let parts = chunks(&many, MAX_KEYS);
        assert_eq!(parts.len(), 2);
        assert!(parts
            .iter()
            .all(|p| p.iter().collect::<HashSet<_>>().len() <= MAX_KEYS));
        assert_eq!(parts.concat(), many);
    }

    #[test]
    fn the_largest_keymap_stays_within_xwaylands_key_codes() {
        let keysyms: Vec<u32> = (0..MAX_KEYS as u32).map(|i| 0x0100_0100 + i).collect();
        let text = keymap_text(&keysyms);
        let maximum: usize = text
            .lines()
            .find_map(|l| {
                l.strip_prefix("maximum = ")?
                    .strip_suffix(';')?
                    .parse()
                    .ok()
            })
            .unwrap();
        assert_eq!(maximum, 8 + MAX_KEYS + 1, "the keys and the spare code");
        assert!(maximum <= 255, "XWayland takes key codes up to 255");
    }
}
