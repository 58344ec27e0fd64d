//! The user documentation stays true to the code: every device-manager message appears in
//! docs/TROUBLESHOOTING.md word for word in Polish and English, every permission notice is
//! there, and the "Compiled only on macOS" list in docs/M1_SETUP.md names exactly the items of
//! `src/platform/` (mod.rs and its submodules) that have a `#[cfg(target_os = "macos")]`
//! branch — the only folder allowed to have one. The History/Settings window runs in its own
//! executable, which does not link the library (so not libtorch either); its platform seams
//! are `src/window_host/webview.rs` (the webview in the window, the pipe) and
//! `src/window_host/menu_bar.rs` (macOS's main menu and activation policy), the only other files
//! allowed a `cfg(target_os)`.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use whisper_dictation::i18n::{Message, UiLang};
use whisper_dictation::permissions::Problem;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(rel: &str) -> String {
    fs::read_to_string(root().join(rel)).unwrap()
}

/// Each message with the example values the document uses.
fn device_messages() -> Vec<Message> {
    let gpu = || "M1".to_string();
    vec![
        Message::GpuIncompatible { gpu: gpu() },
        Message::GpuOutOfMemory,
        Message::GpuOutOfMemoryRetrying,
        Message::GpuUnsupportedOperation { gpu: gpu() },
        Message::GpuWrongResults { gpu: gpu() },
        Message::GpuCrashedLastTime { gpu: gpu() },
        Message::GpuUnknownError { gpu: gpu() },
        Message::RequestedDeviceMissing {
            requested: "CUDA".into(),
            using: "M1".into(),
        },
        Message::GpuRecovered { gpu: gpu() },
        Message::CannotTranscribe {
            detail: "unknown".into(),
        },
        Message::NotEnoughMemory,
    ]
}

#[test]
fn troubleshooting_quotes_every_device_message_in_both_languages() {
    let doc = read("docs/TROUBLESHOOTING.md");
    let messages = device_messages();
    // Exhaustive: a new variant fails to compile here until the document and this list have it.
    for message in &messages {
        match message {
            Message::GpuIncompatible { .. }
            | Message::GpuOutOfMemory
            | Message::GpuOutOfMemoryRetrying
            | Message::GpuUnsupportedOperation { .. }
            | Message::GpuWrongResults { .. }
            | Message::GpuCrashedLastTime { .. }
            | Message::GpuUnknownError { .. }
            | Message::RequestedDeviceMissing { .. }
            | Message::GpuRecovered { .. }
            | Message::CannotTranscribe { .. }
            | Message::NotEnoughMemory => {}
        }
        for lang in [UiLang::Pl, UiLang::En] {
            let text = message.text(lang);
            assert!(
                doc.contains(&format!("**{text}**")),
                "docs/TROUBLESHOOTING.md lacks, in bold: {text}"
            );
        }
    }
}

#[test]
fn troubleshooting_lists_every_permission_notice() {
    let doc = read("docs/TROUBLESHOOTING.md");
    let problems = [
        Problem::MicrophoneDenied,
        Problem::MicrophoneRestricted,
        Problem::AccessibilityMissing,
        Problem::AccessibilityStale {
            granted_path: PathBuf::from("/Applications/Whisper Dictation.app"),
            moved: false,
        },
        Problem::Translocated,
        Problem::Wayland,
    ];
    for problem in &problems {
        for lang in [UiLang::En, UiLang::Pl] {
            let (summary, _) = problem.text(lang);
            assert!(doc.contains(&summary), "TROUBLESHOOTING lacks {summary:?}");
        }
    }
}

/// The items of a source file with a `#[cfg(target_os = "macos")]` inside: `name` for a free
/// function, `Type::name` for a method, `Type` for a struct field.
fn macos_items(source: &str) -> BTreeSet<String> {
    let mut items = BTreeSet::new();
    let mut current_impl: Option<String> = None;
    let mut current: Option<String> = None;
    for line in source.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("//") {
            continue;
        }
        if let Some(rest) = line.strip_prefix("impl ") {
            // `impl Drop for UserActivity` is UserActivity's.
            let ty = rest.split_once(" for ").map_or(rest, |(_, ty)| ty);
            current_impl = ty.split_whitespace().next().map(str::to_string);
        } else if line.starts_with('}') {
            current_impl = None;
        }
        if let Some(rest) = line.strip_prefix("pub struct ") {
            current = rest.split_whitespace().next().map(str::to_string);
        }
        if let Some(at) = trimmed.find("fn ") {
            let head = &trimmed[..at];
            if head.is_empty() || head.ends_with("pub ") || head.ends_with("pub(crate) ") {
                let name: String = trimmed[at + 3..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                let nested = line.starts_with("    ");
                current = Some(match (&current_impl, nested) {
                    (Some(ty), true) => format!("{ty}::{name}"),
                    _ => name,
                });
            }
        }
        if trimmed.starts_with("#[cfg(target_os = \"macos\")]") {
            if let Some(item) = &current {
                items.insert(item.clone());
            }
        }
    }
    items
}

#[test]
fn the_compiled_only_on_macos_list_matches_the_code() {
    // src/platform/mod.rs and its submodules.
    let mut in_code = BTreeSet::new();
    for entry in fs::read_dir(root().join("src/platform")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "rs") {
            in_code.extend(macos_items(&fs::read_to_string(&path).unwrap()));
        }
    }
    // The struct's field exists only on Linux; its macOS form is the empty struct, which the
    // list covers through ModifierProbe::new and ModifierProbe::held.
    in_code.remove("ModifierProbe");

    let doc = read("docs/M1_SETUP.md");
    let section = doc
        .split_once("## Compiled only on macOS")
        .expect("the section")
        .1;
    let listed: BTreeSet<String> = section
        .lines()
        .filter_map(|l| l.strip_prefix("- `"))
        .filter_map(|l| l.split_once('`').map(|(name, _)| name.to_string()))
        .collect();
    assert_eq!(listed, in_code, "docs/M1_SETUP.md vs src/platform/");
    assert!(
        in_code.len() >= 10,
        "the parser found too little: {in_code:?}"
    );
}

#[test]
fn only_the_platform_module_has_macos_code() {
    let mut offenders = Vec::new();
    let mut stack = vec![
        root().join("src"),
        root().join("examples"),
        root().join("build"),
    ];
    stack.push(root().join("build.rs"));
    while let Some(path) = stack.pop() {
        if path.is_dir() {
            stack.extend(fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = fs::read_to_string(&path).unwrap();
            let cfg = text
                .lines()
                .any(|l| l.contains("cfg(") && l.contains("target_os"));
            let seam = path.starts_with(root().join("src/platform"))
                || path == root().join("src/window_host/webview.rs")
                || path == root().join("src/window_host/menu_bar.rs");
            if cfg && !seam {
                offenders.push(
                    path.strip_prefix(root())
                        .unwrap_or(Path::new("?"))
                        .to_path_buf(),
                );
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "#[cfg(target_os)] outside the platform seams: {offenders:?}"
    );
}
