//! The app's hotkey text (global-hotkey's accelerator form, as the settings keep it:
//! "ctrl+alt+space", "Super+KeyD", "F9") in the form of the XDG shortcuts specification that
//! the desktop portal's GlobalShortcuts takes as a preferred trigger: modifiers `SHIFT`, `CTRL`,
//! `ALT`, `LOGO`, then an XKB keysym name ("CTRL+ALT+space", "LOGO+d", "F9"). Portable and pure.

/// The XDG shortcuts spec trigger of `hotkey`; `None` for text global-hotkey would not take or a
/// key without a keysym name here (the desktop then lets the person choose one).
pub fn xdg_shortcut_trigger(hotkey: &str) -> Option<String> {
    let tokens: Vec<&str> = hotkey.split('+').map(str::trim).collect();
    let (key, modifiers) = tokens.split_last()?;
    let mut parts: Vec<&str> = Vec::new();
    for modifier in modifiers {
        let name = match modifier.to_ascii_uppercase().as_str() {
            "SHIFT" => "SHIFT",
            "CTRL" | "CONTROL" => "CTRL",
            "ALT" | "OPTION" => "ALT",
            "SUPER" | "META" | "CMD" | "COMMAND" => "LOGO",
            // global-hotkey's "command or control" is Control off macOS.
            "COMMANDORCONTROL" | "COMMANDORCTRL" | "CMDORCTRL" | "CMDORCONTROL" => "CTRL",
            _ => return None,
        };
        if !parts.contains(&name) {
            parts.push(name);
        }
    }
    let key = keysym_name(key)?;
    let mut trigger = parts.join("+");
    if !trigger.is_empty() {
        trigger.push('+');
    }
    trigger.push_str(&key);
    Some(trigger)
}

/// The XKB keysym name of a global-hotkey key name (any case; "KeyD" or "D", "Digit1" or "1").
fn keysym_name(key: &str) -> Option<String> {
    let upper = key.to_ascii_uppercase();
    let letter = upper.strip_prefix("KEY").unwrap_or(&upper);
    if letter.len() == 1 && letter.as_bytes()[0].is_ascii_uppercase() {
        return Some(letter.to_ascii_lowercase());
    }
    let digit = upper.strip_prefix("DIGIT").unwrap_or(&upper);
    if digit.len() == 1 && digit.as_bytes()[0].is_ascii_digit() {
        return Some(digit.to_string());
    }
    if let Some(number) = upper.strip_prefix('F') {
        if matches!(number.parse::<u8>(), Ok(1..=35)) && !number.starts_with('0') {
            return Some(format!("F{number}"));
        }
    }
    for prefix in ["NUMPAD", "NUM"] {
        if let Some(digit) = upper.strip_prefix(prefix) {
            if digit.len() == 1 && digit.as_bytes()[0].is_ascii_digit() {
                return Some(format!("KP_{digit}"));
            }
        }
    }
    let name = match upper.as_str() {
        "SPACE" => "space",
        "ENTER" => "Return",
        "TAB" => "Tab",
        "ESCAPE" | "ESC" => "Escape",
        "BACKSPACE" => "BackSpace",
        "DELETE" => "Delete",
        "INSERT" => "Insert",
        "HOME" => "Home",
        "END" => "End",
        "PAGEUP" => "Page_Up",
        "PAGEDOWN" => "Page_Down",
        "ARROWUP" | "UP" => "Up",
        "ARROWDOWN" | "DOWN" => "Down",
        "ARROWLEFT" | "LEFT" => "Left",
        "ARROWRIGHT" | "RIGHT" => "Right",
        "BACKQUOTE" | "`" => "grave",
        "MINUS" | "-" => "minus",
        "EQUAL" | "=" => "equal",
        "BRACKETLEFT" | "[" => "bracketleft",
        "BRACKETRIGHT" | "]" => "bracketright",
        "BACKSLASH" | "\\" => "backslash",
        "SEMICOLON" | ";" => "semicolon",
        "QUOTE" | "'" => "apostrophe",
        "COMMA" | "," => "comma",
        "PERIOD" | "." => "period",
        "SLASH" | "/" => "slash",
        "PRINTSCREEN" => "Print",
        "SCROLLLOCK" => "Scroll_Lock",
        "PAUSE" | "PAUSEBREAK" => "Pause",
        "CAPSLOCK" => "Caps_Lock",
        "NUMLOCK" => "Num_Lock",
        "CONTEXTMENU" => "Menu",
        "NUMPADADD" | "NUMADD" | "NUMPADPLUS" | "NUMPLUS" => "KP_Add",
        "NUMPADSUBTRACT" | "NUMSUBTRACT" => "KP_Subtract",
        "NUMPADMULTIPLY" | "NUMMULTIPLY" | "NUMPADSTAR" => "KP_Multiply",
        "NUMPADDIVIDE" | "NUMDIVIDE" => "KP_Divide",
        "NUMPADDECIMAL" | "NUMDECIMAL" => "KP_Decimal",
        "NUMPADENTER" | "NUMENTER" => "KP_Enter",
        "NUMPADEQUAL" | "NUMEQUAL" => "KP_Equal",
        "AUDIOVOLUMEUP" | "VOLUMEUP" => "XF86AudioRaiseVolume",
        "AUDIOVOLUMEDOWN" | "VOLUMEDOWN" => "XF86AudioLowerVolume",
        "AUDIOVOLUMEMUTE" | "VOLUMEMUTE" => "XF86AudioMute",
        "MEDIAPLAYPAUSE" | "MEDIAPLAY" => "XF86AudioPlay",
        "MEDIAPAUSE" => "XF86AudioPause",
        "MEDIASTOP" => "XF86AudioStop",
        "MEDIATRACKNEXT" => "XF86AudioNext",
        "MEDIATRACKPREV" | "MEDIATRACKPREVIOUS" => "XF86AudioPrev",
        _ => return None,
    };
    Some(name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_settings_hotkeys_become_xdg_triggers() {
        let cases = [
            ("Control+Alt+Space", "CTRL+ALT+space"),
            ("ctrl+alt+space", "CTRL+ALT+space"),
            ("Super+KeyD", "LOGO+d"),
            ("F9", "F9"),
            ("f8", "F8"),
            ("ctrl+shift+space", "CTRL+SHIFT+space"),
            ("ctrl+alt+d", "CTRL+ALT+d"),
            ("alt+space", "ALT+space"),
            ("cmd+shift+Digit1", "LOGO+SHIFT+1"),
            ("shift + F12", "SHIFT+F12"),
            ("ctrl+Numpad5", "CTRL+KP_5"),
            ("ctrl+ArrowUp", "CTRL+Up"),
            ("alt+Backquote", "ALT+grave"),
            ("ctrl+ctrl+x", "CTRL+x"),
            ("F24", "F24"),
        ];
        for (hotkey, trigger) in cases {
            assert_eq!(
                xdg_shortcut_trigger(hotkey).as_deref(),
                Some(trigger),
                "{hotkey}"
            );
        }
    }

    #[test]
    fn what_has_no_trigger_is_none() {
        let none = [
            "",
            "ctrl+",
            "hyper+x",
            "ctrl+NoSuchKey",
            "F0",
            "F36",
            "F09",
            "ctrl+alt",
        ];
        for hotkey in none {
            assert_eq!(xdg_shortcut_trigger(hotkey), None, "{hotkey:?}");
        }
    }

    #[test]
    fn every_preset_hotkey_has_a_trigger() {
        for mac in [false, true] {
            for preset in crate::app::texts::hotkey_presets(mac) {
                assert!(xdg_shortcut_trigger(preset).is_some(), "{preset}");
            }
        }
    }
}
