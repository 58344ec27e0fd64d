//! The keystrokes a delivery may send besides the text, as the per-app modes name them
//! (`settings::modes`): the paste keystroke of the target app and a key pressed after the text.
//! Portable names and parsing; `platform::send_paste_shortcut` and `platform::send_key_after`
//! press them.

/// The keystroke that pastes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PasteKeys {
    /// Ctrl+V (Linux, the default there).
    CtrlV,
    /// Ctrl+Shift+V: most Linux terminals.
    CtrlShiftV,
    /// Shift+Insert; on X11 the text is put on the PRIMARY selection as well as the clipboard,
    /// since xterm and urxvt paste PRIMARY with it (GTK and Qt apps paste the clipboard).
    ShiftInsert,
    /// ⌘V (macOS, the only one there).
    CmdV,
}

impl PasteKeys {
    pub const ALL: [PasteKeys; 4] = [
        PasteKeys::CtrlV,
        PasteKeys::CtrlShiftV,
        PasteKeys::ShiftInsert,
        PasteKeys::CmdV,
    ];

    pub fn name(self) -> &'static str {
        match self {
            PasteKeys::CtrlV => "ctrl+v",
            PasteKeys::CtrlShiftV => "ctrl+shift+v",
            PasteKeys::ShiftInsert => "shift+insert",
            PasteKeys::CmdV => "cmd+v",
        }
    }

    /// Any case, spaces around the `+` allowed; `command+v`/`⌘v` for ⌘V.
    pub fn parse(text: &str) -> Option<PasteKeys> {
        let norm = normalise_keys(text);
        let norm = norm.replace("command", "cmd").replace('⌘', "cmd+");
        PasteKeys::ALL.into_iter().find(|k| k.name() == norm)
    }

    /// The system's own paste keystroke: ⌘V on macOS, Ctrl+V elsewhere.
    pub fn system(mac: bool) -> PasteKeys {
        if mac {
            PasteKeys::CmdV
        } else {
            PasteKeys::CtrlV
        }
    }

    /// Whether it exists on this OS: ⌘V only on macOS, the others only off it.
    pub fn on(self, mac: bool) -> bool {
        (self == PasteKeys::CmdV) == mac
    }
}

/// A key pressed after the text has gone in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PressAfter {
    Nothing,
    Enter,
    ShiftEnter,
    CtrlEnter,
    /// ⌘Enter (macOS).
    CmdEnter,
}

impl PressAfter {
    pub const ALL: [PressAfter; 5] = [
        PressAfter::Nothing,
        PressAfter::Enter,
        PressAfter::ShiftEnter,
        PressAfter::CtrlEnter,
        PressAfter::CmdEnter,
    ];

    pub fn name(self) -> &'static str {
        match self {
            PressAfter::Nothing => "none",
            PressAfter::Enter => "enter",
            PressAfter::ShiftEnter => "shift+enter",
            PressAfter::CtrlEnter => "ctrl+enter",
            PressAfter::CmdEnter => "cmd+enter",
        }
    }

    /// Any case; `return` for Enter, empty for nothing.
    pub fn parse(text: &str) -> Option<PressAfter> {
        let norm = normalise_keys(text)
            .replace("return", "enter")
            .replace("command", "cmd");
        if norm.is_empty() {
            return Some(PressAfter::Nothing);
        }
        PressAfter::ALL.into_iter().find(|k| k.name() == norm)
    }

    /// Whether it exists on this OS (⌘Enter only on macOS).
    pub fn on(self, mac: bool) -> bool {
        self != PressAfter::CmdEnter || mac
    }
}

fn normalise_keys(text: &str) -> String {
    text.trim()
        .to_lowercase()
        .split('+')
        .map(str::trim)
        .collect::<Vec<_>>()
        .join("+")
}
