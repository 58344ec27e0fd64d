//! Delivers one text through the app's own injector (`inject::Injector`: clipboard, keystroke
//! sender, previous clipboard put back) into whatever window has the keyboard focus, and prints
//! what it did. A hand check of the delivery on a desktop, e.g. the Wayland virtual keyboard on
//! a headless sway:
//!
//! ```text
//! WLR_BACKENDS=headless WLR_LIBINPUT_NO_DEVICES=1 sway -c /dev/null &   # WAYLAND_DISPLAY=wayland-1
//! GDK_BACKEND=wayland zenity --entry &                                  # focused text box
//! RUST_LOG=info cargo run --release --example deliver_text -- type "Zażółć gęślą jaźń"
//! ```
//!
//! Usage: `deliver_text paste|type|copy TEXT [PASTE-KEYS [KEY-AFTER]]`, keys as the per-app
//! modes name them (`ctrl+shift+v`, `enter`). `HOLD_SECS=N` keeps the process (and so the
//! clipboard it serves, on Wayland and X11) for N seconds after, to read it back with
//! `wl-paste`. Exit status 1 with a message on failure.

use std::process::ExitCode;
use whisper_dictation::inject::{Injector, Keystrokes, OutputMode};
use whisper_dictation::platform::{PasteKeys, PressAfter};

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: deliver_text paste|type|copy TEXT [PASTE-KEYS [KEY-AFTER]]";
    let (Some(mode), Some(text)) = (args.first().and_then(|m| OutputMode::parse(m)), args.get(1))
    else {
        eprintln!("{usage}");
        return ExitCode::FAILURE;
    };
    let mut keys = Keystrokes::system();
    if let Some(paste) = args.get(2) {
        keys.paste = PasteKeys::parse(paste).unwrap_or(keys.paste);
    }
    if let Some(after) = args.get(3) {
        keys.after = PressAfter::parse(after).unwrap_or(keys.after);
    }
    let mut injector = match Injector::new() {
        Ok(injector) => injector,
        Err(e) => {
            eprintln!("deliver_text: {e}");
            return ExitCode::FAILURE;
        }
    };
    let delivered = injector.deliver(text, mode, keys, &|| false, |_| text.clone());
    let hold = std::env::var("HOLD_SECS").ok().and_then(|s| s.parse().ok());
    let hold = std::time::Duration::from_secs_f64(hold.unwrap_or(0.0));
    match delivered {
        Ok(delivered) => {
            println!(
                "output={} inserted={} not_pasted={} restored_clipboard={}",
                delivered.mode.name(),
                delivered.inserted(),
                delivered.not_pasted.map_or("", |w| w.reason()),
                delivered.restored_clipboard
            );
            std::thread::sleep(hold);
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("deliver_text: {e}");
            ExitCode::FAILURE
        }
    }
}
