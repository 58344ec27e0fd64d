//! The Linux desktop integration: `resources/whisper-dictation.desktop` (the launcher entry)
//! is a valid Desktop Entry, `scripts/install-desktop-entry.sh` installs it with its Exec
//! pointed at the binary — quoted exactly as `login_item` quotes the autostart entry's Exec —
//! and installs the icon that both entries name; `--uninstall` takes both away.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use whisper_dictation::login_item::xdg_autostart_entry;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The `[Desktop Entry]` group's keys; panics on a duplicate key or a line outside the spec's
/// forms (comments, blank lines, `Key=Value`, `Key[locale]=Value`).
fn keys(text: &str) -> BTreeMap<String, String> {
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("[Desktop Entry]"));
    let mut keys = BTreeMap::new();
    for line in lines {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, value) = line
            .split_once('=')
            .unwrap_or_else(|| panic!("not a key: {line}"));
        assert!(
            key.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-[]_@.".contains(c)),
            "bad key {key}"
        );
        assert!(
            keys.insert(key.to_string(), value.to_string()).is_none(),
            "duplicate {key}"
        );
    }
    keys
}

#[test]
fn the_launcher_entry_is_a_valid_desktop_entry() {
    let path = root().join("resources/whisper-dictation.desktop");
    let entry = keys(&fs::read_to_string(&path).unwrap());
    for (key, value) in [
        ("Type", "Application"),
        ("Name", "Whisper Dictation"),
        ("Icon", "whisper-dictation"),
        ("Terminal", "false"),
        ("Exec", "env OMP_WAIT_POLICY=PASSIVE whisper-dictation"),
    ] {
        assert_eq!(entry.get(key).map(String::as_str), Some(value), "{key}");
    }
    assert!(entry["Comment[pl]"].contains("Dyktowanie"));
    // Lists end with ';'; "Accessibility" is an additional category that needs Utility.
    let categories: Vec<&str> = entry["Categories"]
        .strip_suffix(';')
        .unwrap()
        .split(';')
        .collect();
    assert!(categories.contains(&"Utility"), "{categories:?}");
    assert!(entry["Keywords"].ends_with(';'));

    // The autostart entry "Launch at login" writes names the same icon.
    let autostart = keys(&xdg_autostart_entry(Path::new(
        "/usr/bin/whisper-dictation",
    )));
    assert_eq!(autostart["Icon"], entry["Icon"]);
    assert_eq!(autostart["Name"], entry["Name"]);

    // freedesktop's own validator, where installed (desktop-file-utils), on the launcher and on
    // an autostart entry for an awkward path.
    let dir = tempfile::tempdir().unwrap();
    let generated = dir.path().join("whisper-dictation.desktop");
    fs::write(
        &generated,
        xdg_autostart_entry(Path::new("/opt/My Apps/100% \"x\" $y/whisper-dictation")),
    )
    .unwrap();
    for file in [&path, &generated] {
        match Command::new("desktop-file-validate").arg(file).output() {
            Ok(out) => assert!(
                out.status.success() && out.stdout.is_empty(),
                "desktop-file-validate {}: {}{}",
                file.display(),
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ),
            Err(_) => eprintln!("desktop-file-validate not installed: checked by this test only"),
        }
    }
}

#[test]
fn the_install_script_points_exec_at_the_binary_and_installs_the_icon() {
    let dir = tempfile::tempdir().unwrap();
    // A path that needs every kind of quoting the spec has.
    let odd = dir
        .path()
        .join("My Apps/100% \"real\" $HOME `x` back\\slash");
    fs::create_dir_all(&odd).unwrap();
    let exe = odd.join("whisper-dictation");
    fs::write(&exe, "#!/bin/sh\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&exe, fs::Permissions::from_mode(0o755)).unwrap();
    let data = dir.path().join("data");

    let run = |args: &[&std::ffi::OsStr]| {
        let out = Command::new("bash")
            .arg(root().join("scripts/install-desktop-entry.sh"))
            .args(args)
            .env("XDG_DATA_HOME", &data)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    run(&["--binary".as_ref(), exe.as_os_str()]);

    let installed = data.join("applications/whisper-dictation.desktop");
    let icon = data.join("icons/hicolor/256x256/apps/whisper-dictation.png");
    let entry = keys(&fs::read_to_string(&installed).unwrap());
    let template =
        keys(&fs::read_to_string(root().join("resources/whisper-dictation.desktop")).unwrap());
    let canonical = fs::canonicalize(&exe).unwrap();
    let autostart = keys(&xdg_autostart_entry(&canonical));
    assert_eq!(
        entry["Exec"], autostart["Exec"],
        "the same quoting as login_item"
    );
    assert!(
        entry["Exec"].contains("100%% \\\\\"real\\\\\""),
        "{}",
        entry["Exec"]
    );
    for (key, value) in &template {
        if key != "Exec" {
            assert_eq!(entry.get(key), Some(value), "{key}");
        }
    }
    assert_eq!(
        fs::read(&icon).unwrap(),
        fs::read(root().join("assets/icons/app.png")).unwrap()
    );
    let leftovers: Vec<_> = fs::read_dir(installed.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n.to_string_lossy().ends_with(".partial"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");

    run(&["--uninstall".as_ref()]);
    assert!(!installed.exists() && !icon.exists());
}
