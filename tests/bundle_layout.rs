//! The macOS app bundle, as far as it can be checked off a Mac: `scripts/bundle-macos.sh
//! --layout-only` run with a placeholder binary and placeholder libtorch dylibs, then the
//! bundle's files, its Info.plist (parsed back with the `plist` crate), the Polish strings, the
//! entitlements, the icon container, the manifest of rpaths / install names / signatures, and
//! the zip. What only a Mac can do (install_name_tool, codesign, ditto) is recorded in the
//! manifest, and checked there against what the script is meant to do.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const APP: &str = "Whisper Dictation.app";
/// The key bindings' executable beside the app's (no libtorch).
const TRIGGER: &str = "whisper-dictation-trigger";
const DYLIBS: [&str; 4] = [
    "libtorch.dylib",
    "libtorch_cpu.dylib",
    "libc10.dylib",
    "libomp.dylib",
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A placeholder "release binary" and libtorch `lib/` folder as in PyPI's torch 2.13.0 macOS
/// wheel: the four dylibs the app needs, three it must leave out, and libomp as a symbolic link
/// as in some installs (the bundle must hold the file, not the link).
struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let lib = dir.path().join("libtorch/lib");
        fs::create_dir_all(&lib).unwrap();
        fs::write(
            dir.path().join("whisper-dictation"),
            b"\xcf\xfa\xed\xfe placeholder binary",
        )
        .unwrap();
        fs::write(
            dir.path().join("whisper-dictation-window"),
            b"\xcf\xfa\xed\xfe placeholder window binary",
        )
        .unwrap();
        fs::write(
            dir.path().join(TRIGGER),
            b"\xcf\xfa\xed\xfe placeholder trigger binary",
        )
        .unwrap();
        for name in [
            "libtorch.dylib",
            "libtorch_cpu.dylib",
            "libc10.dylib",
            // In the wheel's lib/ too, and not needed by the app:
            "libtorch_python.dylib",
            "libshm.dylib",
            "libtorch_global_deps.dylib",
        ] {
            fs::write(lib.join(name), format!("placeholder {name}")).unwrap();
        }
        fs::write(lib.join("libomp.5.dylib"), "placeholder libomp").unwrap();
        std::os::unix::fs::symlink("libomp.5.dylib", lib.join("libomp.dylib")).unwrap();
        Fixture { dir }
    }

    fn lib(&self) -> PathBuf {
        self.dir.path().join("libtorch/lib")
    }

    fn out(&self) -> PathBuf {
        self.dir.path().join("out")
    }

    fn app(&self) -> PathBuf {
        self.out().join(APP)
    }

    fn bundle(&self, extra: &[&str]) -> Output {
        let mut command = Command::new("bash");
        command
            .arg(root().join("scripts/bundle-macos.sh"))
            .arg("--binary")
            .arg(self.dir.path().join("whisper-dictation"))
            .arg("--libtorch-lib")
            .arg(self.lib())
            .arg("--out")
            .arg(self.out())
            .args(extra);
        command.output().expect("bash runs")
    }

    fn bundle_ok(&self) {
        let output = self.bundle(&["--layout-only"]);
        assert!(
            output.status.success(),
            "bundle-macos.sh failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

/// `version` of `[package]` in Cargo.toml, read from the file (the bundle script's sed does the
/// same; Cargo's own reading, `CARGO_PKG_VERSION`, must agree).
fn cargo_toml_version() -> String {
    let text = fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let package = text.split_once("[package]").unwrap().1;
    let package = package.split("\n[").next().unwrap();
    package
        .lines()
        .find_map(|l| l.strip_prefix("version"))
        .and_then(|v| v.trim_start().strip_prefix('='))
        .map(|v| v.trim().trim_matches('"').to_string())
        .expect("version in [package]")
}

/// Every file under `dir`, relative, with `/` separators.
fn files_under(dir: &Path) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(current) = stack.pop() {
        for entry in fs::read_dir(&current).unwrap() {
            let path = entry.unwrap().path();
            let meta = fs::symlink_metadata(&path).unwrap();
            assert!(
                !meta.file_type().is_symlink(),
                "a link in the bundle: {}",
                path.display()
            );
            if meta.is_dir() {
                stack.push(path);
            } else {
                let rel = path.strip_prefix(dir).unwrap();
                found.insert(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    found
}

fn dict(path: &Path) -> plist::Dictionary {
    plist::Value::from_file(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .into_dictionary()
        .unwrap_or_else(|| panic!("{} is not a dictionary", path.display()))
}

fn string<'a>(dict: &'a plist::Dictionary, key: &str) -> &'a str {
    dict.get(key)
        .and_then(plist::Value::as_string)
        .unwrap_or_else(|| panic!("{key} missing or not a string"))
}

/// The manifest's steps: (step, fields).
fn manifest(out: &Path) -> Vec<(String, Vec<String>)> {
    fs::read_to_string(out.join("bundle-manifest.tsv"))
        .unwrap()
        .lines()
        .filter(|line| !line.starts_with('#') && !line.is_empty())
        .map(|line| {
            let mut fields = line.split('\t').map(str::to_string);
            (fields.next().unwrap(), fields.collect())
        })
        .collect()
}

fn steps<'a>(manifest: &'a [(String, Vec<String>)], step: &str) -> Vec<&'a [String]> {
    manifest
        .iter()
        .filter(|(s, _)| s == step)
        .map(|(_, fields)| fields.as_slice())
        .collect()
}

#[test]
fn the_layout_holds_the_binary_the_dylibs_the_icon_and_the_plists() {
    let fixture = Fixture::new();
    fixture.bundle_ok();
    let app = fixture.app();

    let mut expected: BTreeSet<String> = [
        "Contents/Info.plist",
        "Contents/PkgInfo",
        "Contents/MacOS/whisper-dictation",
        "Contents/MacOS/whisper-dictation-window",
        "Contents/MacOS/whisper-dictation-trigger",
        "Contents/Resources/AppIcon.icns",
        "Contents/Resources/en.lproj/InfoPlist.strings",
        "Contents/Resources/pl.lproj/InfoPlist.strings",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    expected.extend(DYLIBS.iter().map(|d| format!("Contents/Frameworks/{d}")));
    assert_eq!(
        files_under(&app),
        expected,
        "libtorch_python, libshm, global_deps stay out"
    );

    // The binary and the dylibs are the given files, byte for byte (the link followed).
    let exe = app.join("Contents/MacOS/whisper-dictation");
    assert_eq!(
        fs::read(&exe).unwrap(),
        fs::read(fixture.dir.path().join("whisper-dictation")).unwrap()
    );
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        fs::metadata(&exe).unwrap().permissions().mode() & 0o777,
        0o755
    );
    for dylib in DYLIBS {
        assert_eq!(
            fs::read(app.join("Contents/Frameworks").join(dylib)).unwrap(),
            fs::read(fixture.lib().join(dylib)).unwrap(),
            "{dylib}"
        );
    }
    assert_eq!(fs::read(app.join("Contents/PkgInfo")).unwrap(), b"APPL????");
    assert_eq!(
        fs::read(app.join("Contents/Resources/AppIcon.icns")).unwrap(),
        fs::read(root().join("assets/icons/AppIcon.icns")).unwrap()
    );

    // Info.plist, parsed back.
    let info = dict(&app.join("Contents/Info.plist"));
    let version = cargo_toml_version();
    assert_eq!(version, env!("CARGO_PKG_VERSION"));
    assert_eq!(string(&info, "CFBundleShortVersionString"), version);
    assert_eq!(string(&info, "CFBundleVersion"), version);
    assert_eq!(
        info.get("LSUIElement").and_then(plist::Value::as_boolean),
        Some(true)
    );
    // Launched from Finder or at login the app starts with its OpenMP threads sleeping, so it
    // skips the re-execution that sets the variable (platform::prefer_sleeping_compute_threads).
    let environment = info
        .get("LSEnvironment")
        .and_then(plist::Value::as_dictionary)
        .expect("LSEnvironment");
    assert_eq!(
        environment
            .get("OMP_WAIT_POLICY")
            .and_then(plist::Value::as_string),
        Some("PASSIVE")
    );
    assert_eq!(
        string(&info, "CFBundleIdentifier"),
        whisper_dictation::bundle::BUNDLE_ID
    );
    assert_eq!(string(&info, "CFBundlePackageType"), "APPL");
    assert_eq!(string(&info, "CFBundleExecutable"), "whisper-dictation");
    assert!(app
        .join("Contents/MacOS")
        .join(string(&info, "CFBundleExecutable"))
        .is_file());
    let icon = string(&info, "CFBundleIconFile");
    assert!(
        app.join("Contents/Resources")
            .join(format!("{icon}.icns"))
            .is_file(),
        "{icon}"
    );
    let minimum = string(&info, "LSMinimumSystemVersion");
    let major: u32 = minimum.split('.').next().unwrap().parse().unwrap();
    // The bundled libtorch 2.13.0 is PyPI's macosx_14_0_arm64 wheel: older systems cannot load it.
    assert!(
        major >= 14,
        "{minimum}: libtorch 2.13.0's dylibs need macOS 14"
    );
    let microphone = string(&info, "NSMicrophoneUsageDescription");
    assert!(
        microphone.len() > 40 && microphone.contains("Whisper Dictation"),
        "{microphone}"
    );
    let localizations: Vec<&str> = info
        .get("CFBundleLocalizations")
        .and_then(plist::Value::as_array)
        .expect("CFBundleLocalizations")
        .iter()
        .filter_map(plist::Value::as_string)
        .collect();
    assert!(
        localizations.contains(&"pl") && localizations.contains(&"en"),
        "{localizations:?}"
    );
    let text = fs::read_to_string(app.join("Contents/Info.plist")).unwrap();
    assert!(!text.contains("@VERSION@"), "placeholder left");

    // The Polish microphone prompt (a .strings file in property-list form).
    let pl = dict(&app.join("Contents/Resources/pl.lproj/InfoPlist.strings"));
    let prompt = string(&pl, "NSMicrophoneUsageDescription");
    assert!(prompt.contains("głos") && prompt != microphone, "{prompt}");
    let en = dict(&app.join("Contents/Resources/en.lproj/InfoPlist.strings"));
    assert_eq!(string(&en, "NSMicrophoneUsageDescription"), microphone);
}

#[test]
fn the_manifest_records_rpaths_install_names_and_signatures() {
    let fixture = Fixture::new();
    fixture.bundle_ok();
    let app = fixture.app();
    let manifest = manifest(&fixture.out());

    assert_eq!(
        steps(&manifest, "mode"),
        vec![["layout-only".to_string()].as_slice()]
    );
    assert_eq!(steps(&manifest, "version")[0][0], env!("CARGO_PKG_VERSION"));
    assert_eq!(steps(&manifest, "bundle")[0][0], APP);

    // Every file listed exists, and every file in the bundle is listed.
    let listed: BTreeSet<String> = steps(&manifest, "file")
        .iter()
        .map(|f| f[0].clone())
        .collect();
    assert_eq!(listed, files_under(&app));

    // The executable: the build's absolute rpath to libtorch goes, the Frameworks one comes.
    let exe = "Contents/MacOS/whisper-dictation";
    let canonical_lib = fs::canonicalize(fixture.lib()).unwrap();
    let window = "Contents/MacOS/whisper-dictation-window";
    let trigger = format!("Contents/MacOS/{TRIGGER}");
    let canonical_lib = canonical_lib.to_string_lossy().into_owned();
    assert_eq!(
        steps(&manifest, "rpath-delete"),
        vec![
            [exe.to_string(), canonical_lib.clone()].as_slice(),
            // The window's and the trigger's executables keep no rpath: they link no libtorch.
            [window.to_string(), canonical_lib.clone()].as_slice(),
            [trigger.clone(), canonical_lib].as_slice()
        ]
    );
    for plain in [window, trigger.as_str()] {
        assert!(
            !steps(&manifest, "rpath-ensure")
                .iter()
                .any(|step| step[0] == plain),
            "{plain} needs no Frameworks rpath"
        );
        assert!(steps(&manifest, "sign").contains(&[plain.to_string(), "-".to_string()].as_slice()));
    }
    let ensured = steps(&manifest, "rpath-ensure");
    assert!(ensured.contains(
        &[
            exe.to_string(),
            "@executable_path/../Frameworks".to_string()
        ]
        .as_slice()
    ));

    // Each dylib: install name @rpath/<name>, only the relative @loader_path rpath, signed.
    for dylib in DYLIBS {
        let rel = format!("Contents/Frameworks/{dylib}");
        assert!(
            steps(&manifest, "id").contains(&[rel.clone(), format!("@rpath/{dylib}")].as_slice()),
            "{dylib}"
        );
        assert!(
            ensured.contains(&[rel.clone(), "@loader_path".to_string()].as_slice()),
            "{dylib}"
        );
        assert!(
            steps(&manifest, "sign").contains(&[rel, "-".to_string()].as_slice()),
            "{dylib}"
        );
    }
    assert_eq!(steps(&manifest, "id").len(), DYLIBS.len());

    // The app last, ad hoc, with the entitlements file that exists and asks for the microphone.
    let signs = steps(&manifest, "sign");
    let app_sign = signs.last().unwrap();
    assert_eq!(app_sign[0], ".");
    assert_eq!(app_sign[1], "-");
    assert_eq!(app_sign[3], "runtime=no");
    let entitlements = app_sign[2].strip_prefix("entitlements=").unwrap();
    let entitlements = dict(&root().join(entitlements));
    assert_eq!(
        entitlements
            .get("com.apple.security.device.audio-input")
            .and_then(plist::Value::as_boolean),
        Some(true)
    );
    assert!(
        !entitlements.contains_key("com.apple.security.cs.disable-library-validation"),
        "not needed: see the comment in the entitlements file"
    );
}

#[test]
fn the_zip_holds_the_app_at_its_top() {
    if Command::new("zip").arg("-v").output().is_err() {
        eprintln!("no zip tool here: the archive step is skipped by the script too");
        return;
    }
    let fixture = Fixture::new();
    fixture.bundle_ok();
    let name = format!(
        "Whisper-Dictation-{}-macos-arm64.zip",
        env!("CARGO_PKG_VERSION")
    );
    let zip = fs::read(fixture.out().join(&name)).unwrap();
    assert!(zip.starts_with(b"PK\x03\x04"));
    for entry in [
        "Whisper Dictation.app/Contents/Info.plist",
        "Whisper Dictation.app/Contents/Frameworks/libomp.dylib",
    ] {
        assert!(
            zip.windows(entry.len()).any(|w| w == entry.as_bytes()),
            "{entry}"
        );
    }
    assert_eq!(steps(&manifest(&fixture.out()), "zip")[0][0], name);
}

#[test]
fn a_second_run_replaces_the_bundle_and_a_failed_one_leaves_no_debris() {
    let fixture = Fixture::new();
    fixture.bundle_ok();
    fs::write(fixture.app().join("Contents/Resources/stale.txt"), "old").unwrap();
    fixture.bundle_ok();
    assert!(!fixture.app().join("Contents/Resources/stale.txt").exists());

    fs::remove_file(fixture.lib().join("libc10.dylib")).unwrap();
    let output = fixture.bundle(&["--layout-only"]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("libc10.dylib"), "{stderr}");
    let mut left: Vec<String> = fs::read_dir(fixture.out())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    let zip = format!(
        "Whisper-Dictation-{}-macos-arm64.zip",
        env!("CARGO_PKG_VERSION")
    );
    let mut expected = vec![APP.to_string(), "bundle-manifest.tsv".to_string()];
    if fixture.out().join(&zip).exists() {
        expected.push(zip);
    }
    expected.sort();
    assert_eq!(left, expected, "no .partial left behind");
}

#[cfg(not(target_os = "macos"))]
#[test]
fn off_a_mac_only_the_layout_can_run() {
    let fixture = Fixture::new();
    let output = fixture.bundle(&[]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--layout-only"), "{stderr}");
    assert!(!fixture.app().exists());
}

/// The icon container: 'icns', the total length, then (type, length, PNG) entries whose PNG
/// size matches the type. Also what `scripts/make-icns.py` promises: all eleven types.
#[test]
fn the_app_icon_is_a_well_formed_icns_of_pngs() {
    let data = fs::read(root().join("assets/icons/AppIcon.icns")).unwrap();
    assert_eq!(&data[..4], b"icns");
    let total = u32::from_be_bytes(data[4..8].try_into().unwrap()) as usize;
    assert_eq!(total, data.len());
    let sizes = [
        ("icp4", 16),
        ("icp5", 32),
        ("icp6", 64),
        ("ic07", 128),
        ("ic08", 256),
        ("ic09", 512),
        ("ic10", 1024),
        ("ic11", 32),
        ("ic12", 64),
        ("ic13", 256),
        ("ic14", 512),
    ];
    let mut seen = Vec::new();
    let mut at = 8;
    while at < data.len() {
        let kind = std::str::from_utf8(&data[at..at + 4]).unwrap().to_string();
        let len = u32::from_be_bytes(data[at + 4..at + 8].try_into().unwrap()) as usize;
        assert!(
            len > 8 && at + len <= data.len(),
            "{kind}: bad length {len}"
        );
        let png = &data[at + 8..at + len];
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "{kind} is not a PNG");
        assert_eq!(&png[12..16], b"IHDR");
        let width = u32::from_be_bytes(png[16..20].try_into().unwrap());
        let height = u32::from_be_bytes(png[20..24].try_into().unwrap());
        let want = sizes
            .iter()
            .find(|(k, _)| *k == kind)
            .unwrap_or_else(|| panic!("unexpected type {kind}"))
            .1;
        assert_eq!((width, height), (want, want), "{kind}");
        // Decodes, and is not blank: the artwork is there.
        let decoder = png::Decoder::new(std::io::Cursor::new(png));
        let mut reader = decoder.read_info().unwrap();
        let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
        let frame = reader.next_frame(&mut pixels).unwrap();
        let opaque = pixels[..frame.buffer_size()]
            .chunks(4)
            .filter(|p| p[3] == 255)
            .count();
        let area = (want * want) as usize;
        assert!(
            opaque > area / 3 && opaque < area,
            "{kind}: {opaque} of {area} opaque"
        );
        seen.push(kind);
        at += len;
    }
    let mut expected: Vec<String> = sizes.iter().map(|(k, _)| k.to_string()).collect();
    expected.sort();
    seen.sort();
    assert_eq!(seen, expected);
}

/// The script's macOS branch (closure of dylibs from `otool -L`, rpaths and install names with
/// `install_name_tool`, signing inside out, the final `otool` check, `ditto`), run on Linux
/// with stand-in tools (`tests/fake_macos/fake_tool.py`) that model the Mach-O files as PyPI's
/// torch 2.13.0 macOS wheel has them (its load commands, read with a Mach-O parser).
struct FakeMac {
    fixture: Fixture,
    bin: PathBuf,
    state: PathBuf,
    log: PathBuf,
}

impl FakeMac {
    fn new(extra_binary_loads: &[&str]) -> FakeMac {
        let fixture = Fixture::new();
        let bin = fixture.dir.path().join("fake-bin");
        fs::create_dir_all(&bin).unwrap();
        let tool = root().join("tests/fake_macos/fake_tool.py");
        for name in [
            "otool",
            "install_name_tool",
            "codesign",
            "ditto",
            "plutil",
            "uname",
        ] {
            std::os::unix::fs::symlink(&tool, bin.join(name)).unwrap();
        }
        let lib = fs::canonicalize(fixture.lib()).unwrap();
        let system = [
            "/usr/lib/libc++.1.dylib",
            "/usr/lib/libSystem.B.dylib",
            "/System/Library/Frameworks/Metal.framework/Versions/A/Metal",
        ];
        let mut exe_loads = vec![
            "@rpath/libtorch.dylib",
            "@rpath/libtorch_cpu.dylib",
            "@rpath/libc10.dylib",
            "/System/Library/Frameworks/ApplicationServices.framework/Versions/A/ApplicationServices",
        ];
        exe_loads.extend_from_slice(extra_binary_loads);
        exe_loads.extend_from_slice(&system);
        let dylib = |id: &str, loads: &[&str], rpath: &str| {
            let mut all: Vec<&str> = loads.to_vec();
            all.extend_from_slice(&system);
            serde_json::json!({ "id": id, "loads": all, "rpaths": [rpath] })
        };
        let mut window_loads = vec![
            "/System/Library/Frameworks/WebKit.framework/Versions/A/WebKit",
            "/System/Library/Frameworks/AppKit.framework/Versions/C/AppKit",
        ];
        window_loads.extend_from_slice(&system);
        let state = serde_json::json!({
            "whisper-dictation": { "id": null, "loads": exe_loads, "rpaths": [lib] },
            // build.rs gives every target the rpath; the window's executable needs none.
            "whisper-dictation-window": { "id": null, "loads": window_loads, "rpaths": [lib] },
            // The trigger: std only.
            TRIGGER: { "id": null, "loads": system, "rpaths": [lib] },
            "libtorch.dylib": dylib("@rpath/libtorch.dylib", &["@rpath/libtorch_cpu.dylib", "@rpath/libc10.dylib"], "@loader_path"),
            "libtorch_cpu.dylib": dylib("@rpath/libtorch_cpu.dylib", &["@rpath/libc10.dylib", "@rpath/libomp.dylib"], "@loader_path"),
            "libc10.dylib": dylib("@rpath/libc10.dylib", &[], "@loader_path"),
            "libomp.dylib": dylib("/opt/llvm-openmp/lib/libomp.dylib", &[], "@loader_path/"),
            "libtorch_python.dylib": dylib("@rpath/libtorch_python.dylib", &["@rpath/libtorch.dylib"], "@loader_path"),
        });
        let state_path = fixture.dir.path().join("macho-state.json");
        fs::write(&state_path, serde_json::to_vec_pretty(&state).unwrap()).unwrap();
        let log = fixture.dir.path().join("tools.log");
        FakeMac {
            fixture,
            bin,
            state: state_path,
            log,
        }
    }

    fn bundle(&self) -> Output {
        self.bundle_with(&[])
    }

    fn bundle_with(&self, extra: &[&str]) -> Output {
        let path = format!(
            "{}:{}",
            self.bin.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        Command::new("bash")
            .arg(root().join("scripts/bundle-macos.sh"))
            .arg("--binary")
            .arg(self.fixture.dir.path().join("whisper-dictation"))
            .arg("--libtorch-lib")
            .arg(self.fixture.lib())
            .arg("--out")
            .arg(self.fixture.out())
            .env("PATH", path)
            .env("FAKE_MACHO_STATE", &self.state)
            .env("FAKE_TOOL_LOG", &self.log)
            .args(extra)
            .output()
            .unwrap()
    }

    fn calls(&self) -> Vec<Vec<String>> {
        fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .map(|l| l.split('\t').map(str::to_string).collect())
            .collect()
    }

    fn state(&self) -> serde_json::Value {
        serde_json::from_slice(&fs::read(&self.state).unwrap()).unwrap()
    }
}

#[test]
fn the_macos_branch_fixes_rpaths_signs_inside_out_and_checks_the_result() {
    let mac = FakeMac::new(&[]);
    let output = mac.bundle();
    assert!(
        output.status.success(),
        "bundle-macos.sh (fake macOS) failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let app = mac.fixture.app();
    let frameworks: BTreeSet<String> = fs::read_dir(app.join("Contents/Frameworks"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let expected: BTreeSet<String> = DYLIBS.iter().map(|s| s.to_string()).collect();
    assert_eq!(frameworks, expected, "the closure found through otool -L");

    // The Mach-O files as install_name_tool left them.
    let state = mac.state();
    assert_eq!(
        state["whisper-dictation"]["rpaths"],
        serde_json::json!(["@executable_path/../Frameworks"])
    );
    assert_eq!(
        state["whisper-dictation-window"]["rpaths"],
        serde_json::json!([]),
        "the window's executable links no libtorch"
    );
    assert_eq!(
        state[TRIGGER]["rpaths"],
        serde_json::json!([]),
        "the trigger links no libtorch"
    );
    for dylib in DYLIBS {
        assert_eq!(state[dylib]["id"], format!("@rpath/{dylib}"), "{dylib}");
    }
    assert_eq!(
        state["libomp.dylib"]["rpaths"],
        serde_json::json!(["@loader_path/"]),
        "no second @loader_path"
    );
    assert_eq!(
        state["libtorch_cpu.dylib"]["rpaths"],
        serde_json::json!(["@loader_path"])
    );

    // Signing: every dylib, the window's and the trigger's executables, then the app with the
    // entitlements, then the check.
    let calls = mac.calls();
    let codesign: Vec<&Vec<String>> = calls.iter().filter(|c| c[0] == "codesign").collect();
    assert_eq!(codesign.len(), DYLIBS.len() + 4, "{codesign:?}");
    for call in &codesign[..DYLIBS.len()] {
        assert!(call.last().unwrap().ends_with(".dylib"), "{call:?}");
        assert!(call.contains(&"--sign".to_string()) && call.contains(&"-".to_string()));
        assert!(
            !call.contains(&"--options".to_string()),
            "ad hoc: no hardened runtime"
        );
    }
    let window_sign = codesign[DYLIBS.len()];
    assert!(
        window_sign
            .last()
            .unwrap()
            .ends_with("Contents/MacOS/whisper-dictation-window")
            && !window_sign.contains(&"--entitlements".to_string()),
        "{window_sign:?}"
    );
    let trigger_sign = codesign[DYLIBS.len() + 1];
    assert!(
        trigger_sign
            .last()
            .unwrap()
            .ends_with(&format!("Contents/MacOS/{TRIGGER}"))
            && !trigger_sign.contains(&"--entitlements".to_string()),
        "{trigger_sign:?}"
    );
    let app_sign = codesign[DYLIBS.len() + 2];
    assert!(
        app_sign.last().unwrap().ends_with(".app.partial"),
        "{app_sign:?}"
    );
    let at = app_sign.iter().position(|a| a == "--entitlements").unwrap();
    assert!(app_sign[at + 1].ends_with("resources/whisper-dictation.entitlements"));
    assert!(codesign[DYLIBS.len() + 3].contains(&"--verify".to_string()));
    // rpaths were fixed before anything was signed (a change after signing breaks it).
    let first_sign = calls.iter().position(|c| c[0] == "codesign").unwrap();
    let last_edit = calls
        .iter()
        .rposition(|c| c[0] == "install_name_tool")
        .unwrap();
    assert!(last_edit < first_sign);

    let manifest = manifest(&mac.fixture.out());
    assert_eq!(steps(&manifest, "mode")[0][0], "macos");
    let lib = fs::canonicalize(mac.fixture.lib()).unwrap();
    assert!(steps(&manifest, "rpath-delete").contains(
        &[
            "Contents/MacOS/whisper-dictation".to_string(),
            lib.to_string_lossy().into_owned()
        ]
        .as_slice()
    ));
    assert!(calls.iter().any(|c| c[0] == "ditto"));
    let zip = fs::read(mac.fixture.out().join(&steps(&manifest, "zip")[0][0])).unwrap();
    let entry = b"Whisper Dictation.app/Contents/MacOS/whisper-dictation";
    assert!(zip.windows(entry.len()).any(|w| w == entry));
}

#[test]
fn the_macos_branch_refuses_a_binary_that_links_outside_the_bundle() {
    let mac = FakeMac::new(&["/opt/homebrew/lib/libsndfile.1.dylib"]);
    let output = mac.bundle();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("still links outside the bundle")
            && stderr.contains("/opt/homebrew/lib/libsndfile.1.dylib"),
        "{stderr}"
    );
    assert!(!mac.fixture.app().exists(), "no bundle from a failed run");

    let mac = FakeMac::new(&["@rpath/libmissing.dylib"]);
    let output = mac.bundle();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("@rpath/libmissing.dylib"), "{stderr}");
}

#[test]
fn a_developer_id_build_gets_the_hardened_runtime_and_a_timestamp() {
    let mac = FakeMac::new(&[]);
    let identity = "Developer ID Application: Ala Kowalska (AB12CD34EF)";
    let output = mac.bundle_with(&["--identity", identity, "--no-zip"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let calls = mac.calls();
    for call in signing_calls(&calls, identity) {
        let runtime = call.iter().position(|a| a == "--options").unwrap();
        assert_eq!(call[runtime + 1], "runtime");
        assert!(call.contains(&"--timestamp".to_string()), "{call:?}");
    }
    let manifest = manifest(&mac.fixture.out());
    let app_sign = steps(&manifest, "sign").last().unwrap().to_vec();
    assert_eq!(app_sign[1], identity);
    assert_eq!(app_sign[3], "runtime=hardened");
    assert!(steps(&manifest, "zip").is_empty(), "--no-zip");
    assert!(!calls.iter().any(|c| c[0] == "ditto"));
}

/// Regression: every ad-hoc rebuild is a new code identity, so macOS forgot the Microphone and
/// Accessibility grants at each rebuild. A named identity that is not a Developer ID (a
/// self-signed certificate) keeps one identity across builds, and gets neither the hardened
/// runtime (which would turn library validation on and refuse the re-signed libtorch dylibs)
/// nor a timestamp (Apple's server timestamps only its own certificates).
#[test]
fn a_self_signed_identity_signs_without_the_hardened_runtime() {
    let mac = FakeMac::new(&[]);
    let identity = "Whisper Dictation Local";
    let output = mac.bundle_with(&["--identity", identity, "--no-zip"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let calls = mac.calls();
    for call in signing_calls(&calls, identity) {
        assert!(!call.contains(&"--options".to_string()), "{call:?}");
        assert!(call.contains(&"--timestamp=none".to_string()), "{call:?}");
    }
    let manifest = manifest(&mac.fixture.out());
    let app_sign = steps(&manifest, "sign").last().unwrap().to_vec();
    assert_eq!(app_sign[1], identity);
    assert_eq!(app_sign[3], "runtime=no");
    assert_eq!(app_sign[4], "signing=self-signed");
}

/// The codesign calls that signed (not the final --verify): every dylib, the window's and the
/// trigger's executables, then the app, each with `identity`.
fn signing_calls<'a>(calls: &'a [Vec<String>], identity: &str) -> Vec<&'a Vec<String>> {
    let signs: Vec<&Vec<String>> = calls
        .iter()
        .filter(|c| c[0] == "codesign" && !c.contains(&"--verify".to_string()))
        .collect();
    assert_eq!(signs.len(), DYLIBS.len() + 3, "{signs:?}");
    for call in &signs {
        let at = call.iter().position(|a| a == "--sign").unwrap();
        assert_eq!(call[at + 1], identity, "{call:?}");
    }
    signs
}

#[test]
fn the_macos_branch_refuses_a_window_executable_that_links_libtorch() {
    let mac = FakeMac::new(&[]);
    let mut state = mac.state();
    state["whisper-dictation-window"]["loads"]
        .as_array_mut()
        .unwrap()
        .push("@rpath/libtorch.dylib".into());
    fs::write(&mac.state, serde_json::to_vec_pretty(&state).unwrap()).unwrap();
    let output = mac.bundle();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("whisper-dictation-window links a library by @rpath"),
        "{stderr}"
    );
    assert!(!mac.fixture.app().exists(), "no bundle from a failed run");
}
