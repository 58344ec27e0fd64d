//! What dictated text leaves to clipboard-history managers, on a real (virtual) X11 desktop
//! with the real app (issue 27, "Private by default"). History managers (Klipper, GNOME's
//! clipboard extensions) skip clipboard content that offers the target
//! `x-kde-passwordManagerHint`; `xclip -t TARGETS` lists what the clipboard's owner offers.
//!
//! - Paste mode, nothing on the clipboard before: the text is pasted into a text box, and what
//!   the app put on the clipboard for the paste is still there afterwards (there was nothing to
//!   put back): it offers the hint, and no `SAVE_TARGETS` (arboard does not ask a clipboard
//!   manager to keep it either).
//! - Paste mode with a text of the person's on the clipboard: once the app has put it back,
//!   that too offers the hint (the app cannot tell whether a password manager had marked it).
//! - Copy only (Output ▸ Copy only): the person asked for the text on the clipboard, so it is
//!   left to their history: no hint.
//!
//! Needs the desktop tools (`scripts/setup.sh --test`) and the `base` model; run under
//! `flock /tmp/desktop.lock`. Logs and screenshots in `target/desktop-privacy-clipboard/`.

// Linux only: an X11 desktop (Xvfb, xdotool, xclip, PulseAudio); on macOS this file is empty.
#![cfg(target_os = "linux")]

mod app_rig;
mod rig;

use app_rig::{
    clip, clip_text, fresh_desktop, hold_hotkey_while_playing, pick_in_tray_menu, start_app,
    wait_for_clipboard, wait_ready, write_settings, TRANSCRIBE_TIMEOUT,
};
use rig::{AppProcess, Desktop, TextBox};
use std::thread;
use std::time::Duration;

/// The target a history manager skips content for (arboard's `exclude_from_history`).
const HINT: &str = "x-kde-passwordManagerHint";
/// The person's own text on the clipboard before a paste.
const SENTINEL: &str = "copied by hand ✓";
/// "The quarterly report is almost finished, but the charts still need more work."
const CLIP: &str = "en_slt.wav";

/// The clipboard's targets, one per entry.
fn targets(desktop: &Desktop) -> Vec<String> {
    desktop
        .clipboard_targets()
        .unwrap_or_else(|e| panic!("{e}"))
        .lines()
        .map(str::to_string)
        .collect()
}

/// One held dictation of [`CLIP`], waited for until it was delivered.
fn dictate(desktop: &Desktop, app: &mut AppProcess) {
    hold_hotkey_while_playing(desktop, app, &clip(CLIP), Duration::ZERO);
    app.wait_for_log("dictation done", TRANSCRIBE_TIMEOUT)
        .unwrap_or_else(|e| panic!("{e}"));
}

/// Whether `text` is the clip's text (most of its words).
fn says_the_clip(text: &str) -> bool {
    rig::word_recall(&clip_text(CLIP), text) >= 0.6
}

#[test]
fn pasted_text_is_kept_out_of_clipboard_history_and_copied_text_is_not() {
    let (desktop, out, state) = fresh_desktop("desktop-privacy-clipboard");
    write_settings(&state, "paste", "en");
    let mut app = start_app(&desktop, &state, &[("WHISPER_DICTATION_UI_LANG", "en")]);
    wait_ready(&mut app);
    assert_eq!(
        desktop.clipboard().unwrap_or_else(|e| panic!("{e}")),
        "",
        "a fresh desktop's clipboard is empty"
    );

    // (a) Paste mode, nothing to put back: the app's own clipboard content stays.
    let text_box = TextBox::open(&desktop, "privacy-paste").unwrap_or_else(|e| panic!("{e}"));
    text_box.focus().unwrap_or_else(|e| panic!("{e}"));
    dictate(&desktop, &mut app);
    // Past the 0.3 s the app would wait before putting something back.
    thread::sleep(Duration::from_millis(800));
    let on_clipboard = desktop.clipboard().unwrap_or_else(|e| panic!("{e}"));
    let pasted_targets = targets(&desktop);
    let pasted = text_box.submit().unwrap_or_else(|e| panic!("{e}"));
    println!("paste mode: pasted {pasted:?}; clipboard {on_clipboard:?} offers {pasted_targets:?}");
    assert!(says_the_clip(&pasted), "pasted {pasted:?}");
    assert_eq!(
        on_clipboard, pasted,
        "the clipboard holds what the app put there to paste"
    );
    assert!(
        pasted_targets.iter().any(|t| t == HINT),
        "paste mode's clipboard content is not marked for history managers: {pasted_targets:?}"
    );
    assert!(
        !pasted_targets.iter().any(|t| t == "SAVE_TARGETS"),
        "{pasted_targets:?}"
    );

    // (b) Paste mode with the person's text on the clipboard: put back, marked too.
    desktop
        .set_clipboard(SENTINEL)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        !targets(&desktop).iter().any(|t| t == HINT),
        "xclip's own content carries no hint"
    );
    let text_box = TextBox::open(&desktop, "privacy-restore").unwrap_or_else(|e| panic!("{e}"));
    text_box.focus().unwrap_or_else(|e| panic!("{e}"));
    dictate(&desktop, &mut app);
    let restored = wait_for_clipboard(&desktop, SENTINEL, Duration::from_secs(3));
    let restored_targets = targets(&desktop);
    let pasted = text_box.submit().unwrap_or_else(|e| panic!("{e}"));
    println!("paste mode over {SENTINEL:?}: pasted {pasted:?}; put back {restored:?}, offers {restored_targets:?}");
    assert!(says_the_clip(&pasted), "pasted {pasted:?}");
    assert_eq!(restored, SENTINEL, "the person's text is put back");
    assert!(
        restored_targets.iter().any(|t| t == HINT),
        "{restored_targets:?}"
    );

    // (c) Copy only: the text is on the clipboard because the person asked for it there.
    pick_in_tray_menu(&desktop, &mut app, &out, ("o", "c"), "output mode changed");
    dictate(&desktop, &mut app);
    thread::sleep(Duration::from_millis(300));
    let copied = desktop.clipboard().unwrap_or_else(|e| panic!("{e}"));
    let copied_targets = targets(&desktop);
    println!("copy only: clipboard {copied:?} offers {copied_targets:?}");
    assert!(says_the_clip(&copied), "copied {copied:?}");
    assert!(
        copied_targets.iter().any(|t| t == "UTF8_STRING"),
        "{copied_targets:?}"
    );
    assert!(
        !copied_targets.iter().any(|t| t == HINT),
        "copy-only's text is kept out of the person's clipboard history: {copied_targets:?}"
    );

    app.stop()
        .unwrap_or_else(|e| panic!("stopping the app: {e}"));
    drop(app);
    let mut desktop = desktop;
    desktop.stop().unwrap_or_else(|e| panic!("{e}"));
}
