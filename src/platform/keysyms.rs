//! The XKB keysyms of what a delivery sends where keys are named by keysym rather than pressed
//! through the OS's own keyboard (Wayland's virtual keyboard, `wayland::virtual_keyboard`; the
//! RemoteDesktop portal's `NotifyKeyboardKeysym`): the paste keystroke, the key pressed after
//! the text, and each character of a typed text. Portable and pure: the values are X11's
//! `keysymdef.h` (the same in libxkbcommon's `xkbcommon-keysyms.h`), so Linux tests check them.
//!
//! A chord is its modifier keysyms first, then the key: press in order, release in reverse.
//! The modifier masks are the real modifiers' bits in any XKB keymap (`wl_keyboard.modifiers`,
//! `zwp_virtual_keyboard_v1.modifiers`), which is what [`modifier_mask`] answers.

use super::{PasteKeys, PressAfter};

pub const SHIFT_L: u32 = 0xffe1;
pub const SHIFT_R: u32 = 0xffe2;
pub const CONTROL_L: u32 = 0xffe3;
pub const CONTROL_R: u32 = 0xffe4;
pub const ALT_L: u32 = 0xffe9;
pub const ALT_R: u32 = 0xffea;
pub const SUPER_L: u32 = 0xffeb;
pub const SUPER_R: u32 = 0xffec;
pub const RETURN: u32 = 0xff0d;
pub const TAB: u32 = 0xff09;
pub const INSERT: u32 = 0xff63;
/// The keysym of "v" (Latin-1 keysyms are the code point).
pub const V: u32 = 0x76;

/// Where Unicode keysyms start: U+0100 and above are `0x0100_0000 | code point`
/// (`keysymdef.h`: "Unicode characters ... 0x01000100 to 0x0110FFFF").
pub const UNICODE_OFFSET: u32 = 0x0100_0000;

/// The real modifier bits of an XKB keymap: Shift, Lock, Control, Mod1..Mod5 are indices 0..7
/// in every keymap (Alt is Mod1 and Super is Mod4 in the standard compat/modifier map).
pub const SHIFT_MASK: u32 = 1 << 0;
pub const CONTROL_MASK: u32 = 1 << 2;
pub const MOD1_MASK: u32 = 1 << 3;
pub const MOD4_MASK: u32 = 1 << 6;

/// The keysyms of a paste keystroke, modifiers first: Ctrl+V → `[Control_L, v]`, Ctrl+Shift+V
/// → `[Control_L, Shift_L, v]`, Shift+Insert → `[Shift_L, Insert]`, ⌘V → `[Super_L, v]`.
pub fn paste_chord(keys: PasteKeys) -> Vec<u32> {
    match keys {
        PasteKeys::CtrlV => vec![CONTROL_L, V],
        PasteKeys::CtrlShiftV => vec![CONTROL_L, SHIFT_L, V],
        PasteKeys::ShiftInsert => vec![SHIFT_L, INSERT],
        PasteKeys::CmdV => vec![SUPER_L, V],
    }
}

/// The keysyms of the key pressed after the text, modifiers first; empty for nothing.
pub fn after_chord(after: PressAfter) -> Vec<u32> {
    match after {
        PressAfter::Nothing => vec![],
        PressAfter::Enter => vec![RETURN],
        PressAfter::ShiftEnter => vec![SHIFT_L, RETURN],
        PressAfter::CtrlEnter => vec![CONTROL_L, RETURN],
        PressAfter::CmdEnter => vec![SUPER_L, RETURN],
    }
}

/// The keysym that types `c`: printable ASCII and Latin-1 are their code point, any other
/// character `0x0100_0000 | code point` (ą → `0x0100_0105`); a line break is Return and a tab
/// Tab. Other control characters (a carriage return, DEL, C1 controls) type nothing: `None`.
pub fn char_keysym(c: char) -> Option<u32> {
    let cp = u32::from(c);
    match c {
        '\n' => Some(RETURN),
        '\t' => Some(TAB),
        _ if c.is_control() => None,
        _ if cp < 0x100 => Some(cp),
        _ => Some(UNICODE_OFFSET | cp),
    }
}

/// The real modifier `keysym` sets while held (a modifier key's keysym), else `None`.
pub fn modifier_mask(keysym: u32) -> Option<u32> {
    match keysym {
        SHIFT_L | SHIFT_R => Some(SHIFT_MASK),
        CONTROL_L | CONTROL_R => Some(CONTROL_MASK),
        ALT_L | ALT_R => Some(MOD1_MASK),
        SUPER_L | SUPER_R => Some(MOD4_MASK),
        _ => None,
    }
}

/// The XKB modifier-map name of a modifier mask (`modifier_map Control { … }`).
pub fn modifier_name(mask: u32) -> Option<&'static str> {
    match mask {
        SHIFT_MASK => Some("Shift"),
        CONTROL_MASK => Some("Control"),
        MOD1_MASK => Some("Mod1"),
        MOD4_MASK => Some("Mod4"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn polish_letters_are_unicode_keysyms() {
        let expected = [
            ('ą', 0x0100_0105),
            ('ć', 0x0100_0107),
            ('ę', 0x0100_0119),
            ('ł', 0x0100_0142),
            ('ń', 0x0100_0144),
            ('ś', 0x0100_015b),
            ('ź', 0x0100_017a),
            ('ż', 0x0100_017c),
            ('Ą', 0x0100_0104),
            ('Ć', 0x0100_0106),
            ('Ę', 0x0100_0118),
            ('Ł', 0x0100_0141),
            ('Ń', 0x0100_0143),
            ('Ś', 0x0100_015a),
            ('Ź', 0x0100_0179),
            ('Ż', 0x0100_017b),
        ];
        for (c, keysym) in expected {
            assert_eq!(char_keysym(c), Some(keysym), "{c}");
        }
        // ó is Latin-1: its keysym is its code point (XK_oacute, XK_Oacute).
        assert_eq!(char_keysym('ó'), Some(0xf3));
        assert_eq!(char_keysym('Ó'), Some(0xd3));
    }

    #[test]
    fn ascii_and_latin1_are_their_code_points() {
        assert_eq!(char_keysym('a'), Some(0x61));
        assert_eq!(char_keysym('Z'), Some(0x5a));
        assert_eq!(char_keysym(' '), Some(0x20));
        assert_eq!(char_keysym('~'), Some(0x7e));
        assert_eq!(char_keysym('0'), Some(0x30));
        assert_eq!(char_keysym('\u{a0}'), Some(0xa0)); // no-break space
        assert_eq!(char_keysym('ÿ'), Some(0xff));
        // Beyond the BMP too (an emoji): still 0x0100_0000 | code point.
        assert_eq!(char_keysym('😀'), Some(0x0101_f600));
        assert_eq!(char_keysym('€'), Some(0x0100_20ac));
    }

    #[test]
    fn line_breaks_and_tabs_are_keys_and_other_controls_type_nothing() {
        assert_eq!(char_keysym('\n'), Some(0xff0d));
        assert_eq!(char_keysym('\t'), Some(0xff09));
        for c in ['\r', '\0', '\u{1b}', '\u{7f}', '\u{85}', '\u{9f}'] {
            assert_eq!(char_keysym(c), None, "{:?}", c);
        }
    }

    #[test]
    fn chords_name_their_modifiers_first() {
        assert_eq!(paste_chord(PasteKeys::CtrlV), [0xffe3, 0x76]);
        assert_eq!(paste_chord(PasteKeys::CtrlShiftV), [0xffe3, 0xffe1, 0x76]);
        assert_eq!(paste_chord(PasteKeys::ShiftInsert), [0xffe1, 0xff63]);
        assert_eq!(paste_chord(PasteKeys::CmdV), [0xffeb, 0x76]);
        assert!(after_chord(PressAfter::Nothing).is_empty());
        assert_eq!(after_chord(PressAfter::Enter), [0xff0d]);
        assert_eq!(after_chord(PressAfter::ShiftEnter), [0xffe1, 0xff0d]);
        assert_eq!(after_chord(PressAfter::CtrlEnter), [0xffe3, 0xff0d]);
        assert_eq!(after_chord(PressAfter::CmdEnter), [0xffeb, 0xff0d]);
        // Every chord: modifiers, then exactly one key that is none.
        for chord in PasteKeys::ALL
            .map(paste_chord)
            .into_iter()
            .chain(PressAfter::ALL.map(after_chord))
            .filter(|c| !c.is_empty())
        {
            let (key, modifiers) = chord.split_last().unwrap();
            assert!(modifier_mask(*key).is_none(), "{chord:x?}");
            assert!(modifiers.iter().all(|m| modifier_mask(*m).is_some()));
        }
    }

    #[test]
    fn modifier_keys_set_the_real_modifier_bits() {
        assert_eq!(modifier_mask(SHIFT_L), Some(1));
        assert_eq!(modifier_mask(CONTROL_L), Some(4));
        assert_eq!(modifier_mask(ALT_L), Some(8));
        assert_eq!(modifier_mask(SUPER_L), Some(64));
        assert_eq!(modifier_mask(V), None);
        assert_eq!(modifier_mask(RETURN), None);
        assert_eq!(modifier_name(CONTROL_MASK), Some("Control"));
        assert_eq!(modifier_name(MOD4_MASK), Some("Mod4"));
    }
}
