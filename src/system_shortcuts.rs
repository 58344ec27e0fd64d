//! macOS's own keyboard shortcuts ("symbolic hotkeys": switching input sources, Spotlight, …)
//! as the person has them, and whether the app's hotkey is one of them. A hotkey that is also a
//! system shortcut does both at every dictation: ⌃⌥Space, the app's old default, is macOS's
//! "Select next source in Input menu", so a Polish user with two keyboard layouts switched
//! layout at each dictation.
//!
//! The OS is asked by `platform::symbolic_hotkeys_plist` (`defaults export
//! com.apple.symbolichotkeys -`); everything here is portable and tested on that text. The
//! domain holds `AppleSymbolicHotKeys`, a dictionary from the shortcut's number to
//! `{enabled, value: {parameters: (character, virtual key code, modifier mask), type}}`; it
//! lists only what was written to it, so the shortcuts macOS has on by default are assumed on
//! unless the person's entry says otherwise ([`DEFAULTS`]).

use crate::i18n::UiLang;
use global_hotkey::hotkey::{Code, HotKey, Modifiers};
use std::str::FromStr;

/// "Select the previous input source", ⌃Space.
pub const PREVIOUS_INPUT_SOURCE: u32 = 60;
/// "Select next source in Input menu", ⌃⌥Space.
pub const NEXT_INPUT_SOURCE: u32 = 61;
/// "Show Spotlight search", ⌘Space.
pub const SPOTLIGHT: u32 = 64;
/// "Show Finder search window", ⌘⌥Space.
pub const FINDER_SEARCH: u32 = 65;

/// The modifier bits of a shortcut's mask (NSEvent's modifier flags).
const SHIFT: u64 = 1 << 17;
const CONTROL: u64 = 1 << 18;
const OPTION: u64 = 1 << 19;
const COMMAND: u64 = 1 << 20;
/// kVK_Space.
const SPACE: u16 = 49;

/// A key with modifiers, as macOS stores a shortcut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShortcutKey {
    /// The virtual key code (kVK_…: the physical key, whatever the layout).
    pub key_code: u16,
    /// NSEvent modifier flags; bits other than Shift/Control/Option/Command (the function-key
    /// and keypad marks) do not change which keys are pressed and are ignored.
    pub modifiers: u64,
}

/// One of macOS's shortcuts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SystemShortcut {
    pub id: u32,
    pub enabled: bool,
    /// `None` when the entry says only whether it is on (the key is then macOS's default).
    pub key: Option<ShortcutKey>,
}

/// The shortcuts that matter for a dictation hotkey, as macOS ships them (on).
pub const DEFAULTS: [SystemShortcut; 4] = [
    shortcut(PREVIOUS_INPUT_SOURCE, SPACE, CONTROL),
    shortcut(NEXT_INPUT_SOURCE, SPACE, CONTROL | OPTION),
    shortcut(SPOTLIGHT, SPACE, COMMAND),
    shortcut(FINDER_SEARCH, SPACE, COMMAND | OPTION),
];

const fn shortcut(id: u32, key_code: u16, modifiers: u64) -> SystemShortcut {
    SystemShortcut {
        id,
        enabled: true,
        key: Some(ShortcutKey {
            key_code,
            modifiers,
        }),
    }
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ShortcutsError {
    #[error("not a property list: {0}")]
    NotAPlist(String),
    #[error("no AppleSymbolicHotKeys dictionary in it")]
    NoHotkeys,
}

/// The entries of `defaults export com.apple.symbolichotkeys -`'s XML. Entries that are not
/// numbered shortcuts, or whose key is not three numbers, are skipped (or kept without a key).
pub fn parse(xml: &str) -> Result<Vec<SystemShortcut>, ShortcutsError> {
    let root = plist::Value::from_reader_xml(xml.as_bytes())
        .map_err(|e| ShortcutsError::NotAPlist(e.to_string()))?;
    let hotkeys = root
        .as_dictionary()
        .and_then(|d| d.get("AppleSymbolicHotKeys"))
        .and_then(plist::Value::as_dictionary)
        .ok_or(ShortcutsError::NoHotkeys)?;
    Ok(hotkeys
        .iter()
        .filter_map(|(id, entry)| {
            let id = id.parse().ok()?;
            let entry = entry.as_dictionary()?;
            let enabled = match entry.get("enabled")? {
                plist::Value::Boolean(on) => *on,
                other => number(other)? != 0,
            };
            let key = entry
                .get("value")
                .and_then(plist::Value::as_dictionary)
                .and_then(|value| value.get("parameters"))
                .and_then(plist::Value::as_array)
                .and_then(|parameters| match parameters.as_slice() {
                    [_, key_code, modifiers] => Some(ShortcutKey {
                        key_code: u16::try_from(number(key_code)?).ok()?,
                        modifiers: u64::try_from(number(modifiers)?).ok()?,
                    }),
                    _ => None,
                });
            Some(SystemShortcut { id, enabled, key })
        })
        .collect())
}

fn number(value: &plist::Value) -> Option<i64> {
    match value {
        plist::Value::Integer(n) => n.as_signed(),
        plist::Value::Real(r) => Some(*r as i64),
        _ => None,
    }
}

/// The shortcuts on: the person's entries, and macOS's defaults they have no entry for.
pub fn enabled(user: &[SystemShortcut]) -> Vec<SystemShortcut> {
    let default_key = |id| DEFAULTS.iter().find(|d| d.id == id).and_then(|d| d.key);
    let mut on: Vec<SystemShortcut> = user
        .iter()
        .filter(|s| s.enabled)
        .filter_map(|s| {
            Some(SystemShortcut {
                key: s.key.or_else(|| default_key(s.id)),
                ..*s
            })
            .filter(|s| s.key.is_some())
        })
        .collect();
    on.extend(
        DEFAULTS
            .iter()
            .filter(|d| !user.iter().any(|s| s.id == d.id)),
    );
    on
}

/// The shortcut among `shortcuts` that `hotkey` (a `global-hotkey` accelerator such as
/// `ctrl+alt+space`) would also press, if any.
pub fn clash(hotkey: &str, shortcuts: &[SystemShortcut]) -> Option<SystemShortcut> {
    let hotkey = HotKey::from_str(hotkey).ok()?;
    let key_code = mac_key_code(hotkey.key)?;
    let mut modifiers = 0;
    for (modifier, bit) in [
        (Modifiers::SHIFT, SHIFT),
        (Modifiers::CONTROL, CONTROL),
        (Modifiers::ALT, OPTION),
        (Modifiers::META, COMMAND),
    ] {
        if hotkey.mods.intersects(modifier) {
            modifiers |= bit;
        }
    }
    shortcuts.iter().copied().find(|s| {
        s.enabled
            && s.key.is_some_and(|k| {
                k.key_code == key_code
                    && k.modifiers & (SHIFT | CONTROL | OPTION | COMMAND) == modifiers
            })
    })
}

/// What the app checks at start and when the hotkey changes: on macOS, the shortcut of the
/// person's system (`plist`: their symbolic hotkeys; unreadable → macOS's defaults) that
/// `hotkey` is; never elsewhere.
pub fn system_clash(hotkey: &str, mac: bool, plist: Option<&str>) -> Option<SystemShortcut> {
    if !mac {
        return None;
    }
    let user = match plist.map(parse) {
        Some(Ok(user)) => user,
        Some(Err(e)) => {
            tracing::debug!("system shortcuts unreadable, assuming macOS's defaults: {e}");
            Vec::new()
        }
        None => Vec::new(),
    };
    clash(hotkey, &enabled(&user))
}

/// The shortcut's name as macOS's Keyboard Shortcuts settings show it.
pub fn name(id: u32, lang: UiLang) -> String {
    let pl = lang == UiLang::Pl;
    let known = match id {
        PREVIOUS_INPUT_SOURCE if pl => "Wybierz poprzednie źródło wprowadzania",
        PREVIOUS_INPUT_SOURCE => "Select the previous input source",
        NEXT_INPUT_SOURCE if pl => "Wybierz następne źródło w menu Wprowadzanie",
        NEXT_INPUT_SOURCE => "Select next source in Input menu",
        SPOTLIGHT if pl => "Pokaż wyszukiwanie Spotlight",
        SPOTLIGHT => "Show Spotlight search",
        FINDER_SEARCH if pl => "Pokaż okno wyszukiwania Findera",
        FINDER_SEARCH => "Show Finder search window",
        _ if pl => return format!("skrót systemowy nr {id}"),
        _ => return format!("system shortcut no. {id}"),
    };
    known.to_string()
}

/// The virtual key code (Carbon's kVK_…, Events.h) of a key, as global-hotkey registers it on
/// macOS (its `key_to_scancode`); `None` for keys macOS has no code for.
pub fn mac_key_code(code: Code) -> Option<u16> {
    use Code::*;
    let letters = [
        (KeyA, 0x00),
        (KeyS, 0x01),
        (KeyD, 0x02),
        (KeyF, 0x03),
        (KeyH, 0x04),
        (KeyG, 0x05),
        (KeyZ, 0x06),
        (KeyX, 0x07),
        (KeyC, 0x08),
        (KeyV, 0x09),
        (KeyB, 0x0b),
        (KeyQ, 0x0c),
        (KeyW, 0x0d),
        (KeyE, 0x0e),
        (KeyR, 0x0f),
        (KeyY, 0x10),
        (KeyT, 0x11),
        (KeyO, 0x1f),
        (KeyU, 0x20),
        (KeyI, 0x22),
        (KeyP, 0x23),
        (KeyL, 0x25),
        (KeyJ, 0x26),
        (KeyK, 0x28),
        (KeyN, 0x2d),
        (KeyM, 0x2e),
    ];
    let others = [
        (IntlBackslash, 0x0a),
        (Digit1, 0x12),
        (Digit2, 0x13),
        (Digit3, 0x14),
        (Digit4, 0x15),
        (Digit6, 0x16),
        (Digit5, 0x17),
        (Equal, 0x18),
        (Digit9, 0x19),
        (Digit7, 0x1a),
        (Minus, 0x1b),
        (Digit8, 0x1c),
        (Digit0, 0x1d),
        (BracketRight, 0x1e),
        (BracketLeft, 0x21),
        (Enter, 0x24),
        (Quote, 0x27),
        (Semicolon, 0x29),
        (Backslash, 0x2a),
        (Comma, 0x2b),
        (Slash, 0x2c),
        (Period, 0x2f),
        (Tab, 0x30),
        (Space, 0x31),
        (Backquote, 0x32),
        (Backspace, 0x33),
        (Escape, 0x35),
        (F17, 0x40),
        (F18, 0x4f),
        (F19, 0x50),
        (F20, 0x5a),
        (F5, 0x60),
        (F6, 0x61),
        (F7, 0x62),
        (F3, 0x63),
        (F8, 0x64),
        (F9, 0x65),
        (F11, 0x67),
        (F13, 0x69),
        (F16, 0x6a),
        (F14, 0x6b),
        (F10, 0x6d),
        (F12, 0x6f),
        (F15, 0x71),
        (Home, 0x73),
        (PageUp, 0x74),
        (Delete, 0x75),
        (F4, 0x76),
        (End, 0x77),
        (F2, 0x78),
        (PageDown, 0x79),
        (F1, 0x7a),
        (ArrowLeft, 0x7b),
        (ArrowRight, 0x7c),
        (ArrowDown, 0x7d),
        (ArrowUp, 0x7e),
    ];
    letters
        .iter()
        .chain(others.iter())
        .find(|(c, _)| *c == code)
        .map(|(_, k)| *k)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `defaults export com.apple.symbolichotkeys -` from a Mac with two input sources
    /// (Polish Pro and U.S.), Spotlight on ⌘Space, Finder's search turned off, and two entries
    /// macOS writes for other shortcuts (Mission Control ⌃↑ with the function-key mark, one
    /// without a value).
    const EXPORT: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>AppleSymbolicHotKeys</key>
	<dict>
		<key>32</key>
		<dict>
			<key>enabled</key>
			<true/>
			<key>value</key>
			<dict>
				<key>parameters</key>
				<array>
					<integer>65535</integer>
					<integer>126</integer>
					<integer>8650752</integer>
				</array>
				<key>type</key>
				<string>standard</string>
			</dict>
		</dict>
		<key>52</key>
		<dict>
			<key>enabled</key>
			<false/>
		</dict>
		<key>60</key>
		<dict>
			<key>enabled</key>
			<true/>
			<key>value</key>
			<dict>
				<key>parameters</key>
				<array>
					<integer>32</integer>
					<integer>49</integer>
					<integer>262144</integer>
				</array>
				<key>type</key>
				<string>standard</string>
			</dict>
		</dict>
		<key>61</key>
		<dict>
			<key>enabled</key>
			<true/>
			<key>value</key>
			<dict>
				<key>parameters</key>
				<array>
					<integer>32</integer>
					<integer>49</integer>
					<integer>786432</integer>
				</array>
				<key>type</key>
				<string>standard</string>
			</dict>
		</dict>
		<key>64</key>
		<dict>
			<key>enabled</key>
			<true/>
			<key>value</key>
			<dict>
				<key>parameters</key>
				<array>
					<integer>65535</integer>
					<integer>49</integer>
					<integer>1048576</integer>
				</array>
				<key>type</key>
				<string>standard</string>
			</dict>
		</dict>
		<key>65</key>
		<dict>
			<key>enabled</key>
			<false/>
			<key>value</key>
			<dict>
				<key>parameters</key>
				<array>
					<integer>65535</integer>
					<integer>49</integer>
					<integer>1572864</integer>
				</array>
				<key>type</key>
				<string>standard</string>
			</dict>
		</dict>
	</dict>
</dict>
</plist>
"#;

    fn with_key(id: u32, enabled: bool, key_code: u16, modifiers: u64) -> SystemShortcut {
        SystemShortcut {
            id,
            enabled,
            key: Some(ShortcutKey {
                key_code,
                modifiers,
            }),
        }
    }

    #[test]
    fn the_export_is_read_into_numbered_shortcuts() {
        let shortcuts = parse(EXPORT).unwrap();
        assert_eq!(
            shortcuts,
            vec![
                with_key(32, true, 126, 8_650_752),
                SystemShortcut {
                    id: 52,
                    enabled: false,
                    key: None
                },
                with_key(60, true, 49, 262_144),
                with_key(61, true, 49, 786_432),
                with_key(64, true, 49, 1_048_576),
                with_key(65, false, 49, 1_572_864),
            ]
        );
    }

    #[test]
    fn control_option_space_is_the_next_input_source() {
        let on = enabled(&parse(EXPORT).unwrap());
        let found = clash("ctrl+alt+space", &on).map(|s| s.id);
        assert_eq!(found, Some(NEXT_INPUT_SOURCE));
        assert_eq!(clash("control+option+Space", &on).map(|s| s.id), Some(61));
        assert_eq!(clash("ctrl+space", &on).map(|s| s.id), Some(60));
        assert_eq!(clash("cmd+space", &on).map(|s| s.id), Some(64));
        assert_eq!(clash("super+space", &on).map(|s| s.id), Some(64));
        // Turned off by the person: no clash.
        assert_eq!(clash("cmd+alt+space", &on), None);
        // The function-key mark of ⌃↑ is not a key the person presses.
        assert_eq!(clash("ctrl+ArrowUp", &on).map(|s| s.id), Some(32));
        // Free combinations.
        for free in [
            "alt+space",
            "ctrl+shift+space",
            "ctrl+alt+KeyD",
            "f8",
            "shift+space",
        ] {
            assert_eq!(clash(free, &on), None, "{free}");
        }
    }

    #[test]
    fn shortcuts_the_person_never_changed_are_macos_defaults() {
        // A fresh account: the domain has no entries at all.
        let on = enabled(&[]);
        assert_eq!(clash("ctrl+alt+space", &on).map(|s| s.id), Some(61));
        assert_eq!(clash("cmd+alt+space", &on).map(|s| s.id), Some(65));
        // Turned off without a value stored: off.
        let off = [SystemShortcut {
            id: NEXT_INPUT_SOURCE,
            enabled: false,
            key: None,
        }];
        assert_eq!(clash("ctrl+alt+space", &enabled(&off)), None);
        // On without a value: macOS's default key.
        let on_default = [SystemShortcut {
            id: NEXT_INPUT_SOURCE,
            enabled: true,
            key: None,
        }];
        assert_eq!(
            clash("ctrl+alt+space", &enabled(&on_default)).map(|s| s.id),
            Some(61)
        );
        // Moved by the person to ⌃⌥⌘Space: the old combination is free.
        let moved = [with_key(
            NEXT_INPUT_SOURCE,
            true,
            49,
            CONTROL | OPTION | COMMAND,
        )];
        assert_eq!(clash("ctrl+alt+space", &enabled(&moved)), None);
        assert_eq!(
            clash("ctrl+alt+cmd+space", &enabled(&moved)).map(|s| s.id),
            Some(61)
        );
    }

    #[test]
    fn only_macos_is_checked_and_a_bad_export_means_the_defaults() {
        assert_eq!(system_clash("ctrl+alt+space", false, Some(EXPORT)), None);
        assert_eq!(system_clash("ctrl+alt+space", false, None), None);
        assert_eq!(
            system_clash("ctrl+alt+space", true, Some(EXPORT)).map(|s| s.id),
            Some(61)
        );
        assert_eq!(
            system_clash("ctrl+alt+space", true, Some("not a plist")).map(|s| s.id),
            Some(61)
        );
        assert_eq!(
            system_clash("ctrl+alt+space", true, None).map(|s| s.id),
            Some(61)
        );
        assert_eq!(system_clash("alt+space", true, Some(EXPORT)), None);
        assert_eq!(system_clash("not a hotkey", true, Some(EXPORT)), None);
    }

    #[test]
    fn unreadable_exports_are_errors() {
        assert!(matches!(
            parse("defaults: no such domain"),
            Err(ShortcutsError::NotAPlist(_))
        ));
        let empty = r#"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict/></plist>"#;
        assert_eq!(parse(empty), Err(ShortcutsError::NoHotkeys));
    }

    #[test]
    fn shortcut_names_are_those_of_system_settings() {
        assert_eq!(name(61, UiLang::En), "Select next source in Input menu");
        assert_eq!(
            name(61, UiLang::Pl),
            "Wybierz następne źródło w menu Wprowadzanie"
        );
        assert_eq!(name(999, UiLang::En), "system shortcut no. 999");
    }
}
