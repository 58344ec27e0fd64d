//! The Models page of the real app's window on a real (virtual) X11 desktop (issue 28). The
//! app's models folder is the test's own (`WHISPER_DICTATION_MODELS_DIR`) with `base` in it
//! (a link to the set-up's copy) and its hub a hub-shaped server on 127.0.0.1 (`HF_ENDPOINT`,
//! `tests/fake_hub`) serving the set-up's `tiny.en`. The tray menu's Model ▸ "Manage
//! models…" (picked by keyboard) opens the window on its Models page; the test
//!
//! - downloads tiny.en with its Download button (the button is the confirmation; the download
//!   is the menu's own: the log's "model download started"), sees the page's progress (the
//!   log's "models page: progress shown" at every 10 %, up to 100) and then tiny.en installed
//!   (its folder with a manifest) and in use (the menu's path switches to a downloaded model);
//! - verifies it (its files against the manifest and a load: "models page: done
//!   action=verify ok=true") and takes the screenshot `docs/models.png`;
//! - goes back to base with its Use button (the log's `menu action=Model("base")`);
//! - removes tiny.en with two presses of its Remove button and sees its folder gone, base and
//!   the set-up's copy it links to untouched.
//!
//! Needs the desktop tools (`scripts/setup.sh --test`), WebKitGTK 4.1 and the `base` and
//! `tiny.en` models; run under `flock /tmp/desktop.lock`. Logs and screenshots in
//! `target/desktop-models-window/`.

// Linux only: an X11 desktop (Xvfb, xdotool, xclip, openbox); on macOS this file is empty.
#![cfg(target_os = "linux")]

mod app_rig;
mod fake_hub;
mod rig;

use app_rig::{
    activate_window, find_window, fresh_desktop, open_menu, start_app, wait_for_page_on_screen,
    wait_ready, write_settings,
};
use fake_hub::FakeHub;
use rig::{log_field, AppProcess, Desktop};
use std::fs;
use std::path::Path;
use std::thread;
use std::time::Duration;

/// The tray menu's Model submenu, and its "Manage models…" (their mnemonics).
const MODEL_KEY: &str = "m";
const MANAGE_KEY: &str = "m";

fn key(desktop: &Desktop, keys: &str) {
    desktop.key(keys).unwrap_or_else(|e| panic!("{e}"));
    thread::sleep(Duration::from_millis(150));
}

fn wait(app: &mut AppProcess, needle: &str, seconds: u64) -> String {
    app.wait_for_log(needle, Duration::from_secs(seconds))
        .unwrap_or_else(|e| panic!("{e}"))
}

/// The next "models page: done" line, checked to be `action` on `model` and successful.
fn done(app: &mut AppProcess, action: &str, model: &str, seconds: u64) -> String {
    let line = wait(app, "models page: done", seconds);
    assert_eq!(
        log_field(&line, "action").as_deref(),
        Some(action),
        "{line}"
    );
    assert_eq!(log_field(&line, "model").as_deref(), Some(model), "{line}");
    assert_eq!(log_field(&line, "ok").as_deref(), Some("true"), "{line}");
    line
}

#[test]
fn models_page_downloads_verifies_uses_and_removes_a_model() {
    let set_up = whisper_dictation::paths::models_dir().expect("a home folder");
    for name in ["base", "tiny.en"] {
        assert!(
            set_up.join(name).join("model.bin").is_file(),
            "the test model '{name}' is not installed in {}: run scripts/setup.sh --test",
            set_up.display()
        );
    }
    let hub = FakeHub::start("Systran/faster-whisper-tiny.en", &set_up.join("tiny.en"));
    let (desktop, out, state) = fresh_desktop("desktop-models-window");
    let models = out.join("models");
    fs::create_dir_all(&models).unwrap();
    std::os::unix::fs::symlink(set_up.join("base"), models.join("base")).unwrap();
    write_settings(&state, "copy", "en");
    let mut app = start_app(
        &desktop,
        &state,
        &[
            ("HF_ENDPOINT", hub.url.as_str()),
            ("WHISPER_DICTATION_MODELS_DIR", models.to_str().unwrap()),
        ],
    );
    wait_ready(&mut app);

    // Model ▸ Manage models… from the tray: the window opens on its Models page.
    open_menu(&desktop, &out);
    key(&desktop, MODEL_KEY);
    key(&desktop, MANAGE_KEY);
    let list = wait(&mut app, "models page: list shown", 20);
    assert_eq!(
        log_field(&list, "installed").as_deref(),
        Some("1"),
        "{list}"
    );
    assert_eq!(
        log_field(&list, "current").as_deref(),
        Some("base"),
        "{list}"
    );
    let (id, area) = find_window(&desktop, "Models");
    activate_window(&desktop, &id);
    wait_for_page_on_screen(&desktop, area, &out.join("models-list.png"));

    // The page focuses its first button (tiny's Download); the next is tiny.en's.
    key(&desktop, "Tab");
    key(&desktop, "Return");
    let started = wait(&mut app, "model download started", 10);
    assert_eq!(
        log_field(&started, "model").as_deref(),
        Some("tiny.en"),
        "{started}"
    );
    desktop
        .screenshot_region(&out.join("downloading.png"), area)
        .unwrap_or_else(|e| panic!("{e}"));
    let finished = done(&mut app, "download", "tiny.en", 180);
    println!("download: {finished}");
    let percents: Vec<(String, u8)> = app
        .log()
        .lines()
        .filter(|l| l.contains("models page: progress shown"))
        .filter_map(|l| {
            Some((
                log_field(l, "stage")?,
                log_field(l, "percent")?.parse().ok()?,
            ))
        })
        .collect();
    println!("progress the page showed: {percents:?}");
    let downloading: Vec<u8> = percents
        .iter()
        .filter(|(stage, _)| stage == "downloading")
        .map(|(_, p)| *p)
        .collect();
    assert!(
        downloading.len() >= 2 && downloading.windows(2).all(|w| w[0] <= w[1]),
        "{percents:?}"
    );
    assert_eq!(downloading.last(), Some(&100), "{percents:?}");
    let installed = models.join("tiny.en");
    assert!(installed.join("model.bin").is_file());
    assert!(
        installed
            .join(whisper_dictation::models::manifest::MANIFEST_FILE)
            .is_file(),
        "the download wrote its manifest"
    );
    let list = wait(&mut app, "models page: list shown", 10);
    assert_eq!(
        log_field(&list, "current").as_deref(),
        Some("tiny.en"),
        "{list}"
    );
    assert_eq!(
        log_field(&list, "installed").as_deref(),
        Some("2"),
        "{list}"
    );

    // Focus stayed on tiny.en's row: its first enabled button is now Verify (Use and Remove
    // are off for the model in use).
    key(&desktop, "Return");
    let verified = done(&mut app, "verify", "tiny.en", 120);
    println!("verify: {verified}");
    assert!(
        log_field(&verified, "detail")
            .is_some_and(|d| d.contains("SHA-256") && d.ends_with("loads")),
        "{verified}"
    );
    thread::sleep(Duration::from_millis(400));
    let shot = out.join("models.png");
    desktop
        .screenshot_region(&shot, area)
        .unwrap_or_else(|e| panic!("{e}"));
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/models.png");
    fs::copy(&shot, &docs).unwrap_or_else(|e| panic!("{}: {e}", docs.display()));

    // Tab to base's Use: the menu's own Model choice.
    key(&desktop, "Tab");
    key(&desktop, "Return");
    wait(&mut app, "menu action=Model(\"base\")", 10);
    done(&mut app, "use", "base", 10);
    let list = wait(&mut app, "models page: list shown", 10);
    assert_eq!(
        log_field(&list, "current").as_deref(),
        Some("base"),
        "{list}"
    );

    // Focus is on base's Verify now (Use is off); Shift+Tab is tiny.en's Remove, pressed twice.
    key(&desktop, "shift+Tab");
    key(&desktop, "Return");
    thread::sleep(Duration::from_millis(300));
    desktop
        .screenshot_region(&out.join("remove-armed.png"), area)
        .unwrap_or_else(|e| panic!("{e}"));
    key(&desktop, "Return");
    done(&mut app, "remove", "tiny.en", 20);
    assert!(
        !installed.exists(),
        "{} is still there",
        installed.display()
    );
    assert!(models.join("base").join("model.bin").is_file());
    assert!(set_up.join("tiny.en").join("model.bin").is_file());
    let list = wait(&mut app, "models page: list shown", 10);
    assert_eq!(
        log_field(&list, "installed").as_deref(),
        Some("1"),
        "{list}"
    );
    desktop
        .screenshot_region(&out.join("removed.png"), area)
        .unwrap_or_else(|e| panic!("{e}"));
    app.stop().unwrap_or_else(|e| panic!("{e}"));
}
