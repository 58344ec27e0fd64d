//! Which key the paste shortcut presses on macOS: the one that types "v" in the person's
//! keyboard layout while ⌘ is held. macOS matches ⌘V by the character the key types, not by its
//! position, so the V key's position (`kVK_ANSI_V`, 9) pastes only where that key types "v": on
//! Dvorak it types "k" and ⌘K is sent instead (in many apps "insert link", in Terminal "clear"),
//! nothing is pasted, and the clipboard is then put back — the text is gone (Handy #93, #1904;
//! VoiceInk #597). "v" is at key code 47 there (QWERTY's period), at 43 on Dvorak – Right.
//!
//! The layout is read on the main thread (the input-source calls must run there,
//! `platform::command_key_characters`) at start and again whenever the person switches input
//! source (`platform::on_input_source_change`); the key code is kept in an atomic that the
//! output thread reads when it pastes ([`v_key_code`]). Owner: the main thread writes it, only
//! through [`follow_keyboard_layout`]; the output thread only reads it.
//!
//! Where no key of the layout types "v" with ⌘ (Russian, Greek, Hebrew) the shortcut is sent on
//! the V key's position, which is what macOS itself matches ⌘V against there. Off macOS the key
//! code is not used: X11 applications match shortcuts by keysym, and enigo presses the key that
//! types "v" (`platform::send_paste_shortcut`).

use std::sync::atomic::{AtomicU16, Ordering};

/// `kVK_ANSI_V`: where US QWERTY has "V".
pub const KVK_ANSI_V: u16 = 9;

/// The key code the paste shortcut presses now (see the module doc for who writes it).
static V_KEY: AtomicU16 = AtomicU16::new(KVK_ANSI_V);

/// The key code that types "v" in a layout, given what each key code types with ⌘ held: the
/// lowest such code, or [`KVK_ANSI_V`] when none does (a non-Latin layout) or the layout could
/// not be read (`None`).
pub fn v_key_for(layout: Option<&[(u16, String)]>) -> u16 {
    layout
        .into_iter()
        .flatten()
        .filter(|(_, typed)| typed == "v")
        .map(|&(code, _)| code)
        .min()
        .unwrap_or(KVK_ANSI_V)
}

/// The key code the paste shortcut presses (read by the output thread at each paste).
pub fn v_key_code() -> u16 {
    V_KEY.load(Ordering::Relaxed)
}

/// Reads the current layout now and again at every input-source change. Call once, on the main
/// thread (before the output thread pastes anything). Nothing changes off macOS.
pub fn follow_keyboard_layout() {
    look_up_layout();
    crate::platform::on_input_source_change(look_up_layout);
}

/// Reads the layout (main thread) and stores its "v" key.
fn look_up_layout() {
    let layout = crate::platform::command_key_characters();
    let code = v_key_for(layout.as_deref());
    let before = V_KEY.swap(code, Ordering::Relaxed);
    if layout.is_some() && before != code {
        tracing::info!(key_code = code, "paste shortcut: ⌘ + the key that types v");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// macOS virtual key codes (HIToolbox's Events.h, `kVK_ANSI_*`) of the physical keys, in
    /// the order of the rows below: the number row, then the three letter rows, as a US
    /// keyboard labels them ("`1234567890-=", "qwertyuiop[]\", "asdfghjkl;'", "zxcvbnm,./").
    const KEY_CODES: [u16; 47] = [
        50, 18, 19, 20, 21, 23, 22, 26, 28, 25, 29, 27, 24, // ` 1 2 3 4 5 6 7 8 9 0 - =
        12, 13, 14, 15, 17, 16, 32, 34, 31, 35, 33, 30, 42, // q w e r t y u i o p [ ] \
        0, 1, 2, 3, 5, 4, 38, 40, 37, 41, 39, // a s d f g h j k l ; '
        6, 7, 8, 9, 11, 45, 46, 43, 47, 44, // z x c v b n m , . /
    ];

    /// A layout as `(key code, text)`, from what its keys type in the order of [`KEY_CODES`].
    fn layout(rows: [&str; 4]) -> Vec<(u16, String)> {
        let typed: Vec<String> = rows
            .iter()
            .flat_map(|row| row.chars().map(String::from))
            .collect();
        assert_eq!(
            typed.len(),
            KEY_CODES.len(),
            "one character per key: {rows:?}"
        );
        KEY_CODES.iter().copied().zip(typed).collect()
    }

    // What each key types, as macOS's own layouts have them: dumps of the layouts made with
    // UCKeyTranslate through native-keymap (VS Code's keyboardLayouts/*.darwin.ts, Theia's
    // keyboard/layouts/*-mac.json). Those dumps hold the unmodified keys; Apple's layouts type
    // the same letters with ⌘ held, except "Dvorak – QWERTY ⌘", which turns into QWERTY then
    // (its whole point). Measured with ⌘ held on a Mac by others (the test tables of two public
    // projects): 9 for US, Colemak, French, German, Russian and Dvorak – QWERTY ⌘, 47 for
    // Dvorak, 43 for Dvorak – Right, as these tests expect.
    fn us() -> Vec<(u16, String)> {
        layout([
            "`1234567890-=",
            "qwertyuiop[]\\",
            "asdfghjkl;'",
            "zxcvbnm,./",
        ])
    }

    fn dvorak() -> Vec<(u16, String)> {
        layout([
            "`1234567890[]",
            "',.pyfgcrl/=\\",
            "aoeuidhtns-",
            ";qjkxbmwvz",
        ])
    }

    /// com.apple.keylayout.Dvorak-Right.
    fn dvorak_right() -> Vec<(u16, String)> {
        layout([
            "`1234jlmfp/[]",
            "56q.orsuyb;=\\",
            "78zaehtdck-",
            "90x,inwvg'",
        ])
    }

    fn colemak() -> Vec<(u16, String)> {
        layout([
            "`1234567890-=",
            "qwfpgjluy;[]\\",
            "arstdhneio'",
            "zxcvbkm,./",
        ])
    }

    /// com.apple.keylayout.French (AZERTY).
    fn french() -> Vec<(u16, String)> {
        layout([
            "<&é\"'(§è!çà)-",
            "azertyuiop^$`",
            "qsdfghjklmù",
            "wxcvbn,;:=",
        ])
    }

    /// com.apple.keylayout.German (QWERTZ).
    fn german() -> Vec<(u16, String)> {
        layout([
            "<1234567890ß´",
            "qwertzuiopü+#",
            "asdfghjklöä",
            "yxcvbnm,.-",
        ])
    }

    /// com.apple.keylayout.Russian.
    fn russian() -> Vec<(u16, String)> {
        layout([
            "]1234567890-=",
            "йцукенгшщзхъё",
            "фывапролджэ",
            "ячсмитьбю/",
        ])
    }

    #[test]
    fn dvorak_pastes_with_the_key_that_types_v_not_the_v_position() {
        // Key code 9 types "k" on Dvorak: ⌘K, not ⌘V.
        let dvorak = dvorak();
        assert!(dvorak.contains(&(KVK_ANSI_V, "k".to_string())));
        assert_eq!(v_key_for(Some(&dvorak)), 47);
        assert_eq!(v_key_for(Some(&dvorak_right())), 43);
    }

    #[test]
    fn layouts_with_v_in_its_usual_place_keep_key_code_9() {
        for (name, layout) in [
            ("US", us()),
            ("Colemak", colemak()),
            ("French AZERTY", french()),
            ("German QWERTZ", german()),
        ] {
            assert_eq!(v_key_for(Some(&layout)), KVK_ANSI_V, "{name}");
        }
    }

    #[test]
    fn dvorak_qwerty_command_is_read_with_command_held() {
        // Typing, it is Dvorak ("v" at 47); with ⌘ held it is QWERTY, and the shortcut is
        // matched with ⌘ held: what the platform reads (translated with the Command modifier)
        // is the QWERTY map, so 9 is sent, not 47.
        assert_eq!(v_key_for(Some(&dvorak())), 47, "without ⌘");
        assert_eq!(v_key_for(Some(&us())), KVK_ANSI_V, "with ⌘");
    }

    #[test]
    fn a_layout_without_v_pastes_on_the_v_position() {
        // Russian types Cyrillic on every letter key: macOS matches ⌘V on the V key there.
        assert_eq!(v_key_for(Some(&russian())), KVK_ANSI_V);
        // Nothing read (not a Mac, or no layout data).
        assert_eq!(v_key_for(None), KVK_ANSI_V);
        assert_eq!(v_key_for(Some(&[])), KVK_ANSI_V);
    }

    /// The files under `src/` (outside the platform seam) that contain `needle`.
    fn files_containing(needle: &str) -> Vec<String> {
        fn walk(dir: &std::path::Path, found: &mut Vec<std::path::PathBuf>) {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    walk(&path, found);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    found.push(path);
                }
            }
        }
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        walk(&src, &mut files);
        let mut found: Vec<String> = files
            .iter()
            .filter(|path| !path.starts_with(src.join("platform")))
            .filter(|path| std::fs::read_to_string(path).unwrap().contains(needle))
            .map(|path| path.strip_prefix(&src).unwrap().display().to_string())
            .collect();
        found.sort();
        found
    }

    #[test]
    fn the_layout_is_read_only_on_the_main_thread() {
        // The input-source calls assert the main queue: the layout is read only here, from
        // `follow_keyboard_layout` (and the input-source notification, delivered on the main
        // thread), which the app calls in `run` before the event loop, never the output thread.
        assert_eq!(
            files_containing("command_key_characters("),
            ["inject/paste_key.rs"]
        );
        assert_eq!(
            files_containing("follow_keyboard_layout()"),
            ["app/mod.rs", "inject/paste_key.rs"]
        );
        let app = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/app/mod.rs"),
        )
        .unwrap();
        let primed = app.find("prime_keyboard_events()").expect("primed in run");
        let followed = app.find("follow_keyboard_layout()").unwrap();
        let output = app.find("Output::spawn(").expect("the output thread");
        assert!(
            primed < followed && followed < output,
            "before the output thread starts"
        );
    }

    #[test]
    fn the_stored_key_code_is_the_v_position_until_a_layout_is_read() {
        // Off macOS no layout is ever read: the stored code stays kVK_ANSI_V.
        if !crate::platform::IS_MACOS {
            follow_keyboard_layout();
            assert_eq!(v_key_code(), KVK_ANSI_V);
        }
    }
}
