//! The rehearsal of a new Mac user's first command, on Linux: scripts/setup.sh's macOS branch run
//! on a stand-in Apple Silicon Mac with macOS 14 (`setup_rehearsal/stand_in_mac.rs`) and the
//! real macOS arm64 torch 2.13.0 wheel, then the libtorch it assembled read as torch-sys and the
//! macOS loader read it: torch-sys (its build.rs) passes `-L $LIBTORCH/lib -ltorch_cpu -ltorch
//! -lc10` and `-I $LIBTORCH/include -I $LIBTORCH/include/torch/csrc/api/include`; the loader
//! follows each dylib's install name, `LC_LOAD_DYLIB`s and `LC_RPATH`s, read here from the
//! Mach-O files themselves (`setup_rehearsal/macho.rs`). Then the cache is damaged as a user's
//! can be (the layout the script used to make, dylibs in `lib/lib/`, one of them deleted, with
//! a matching manifest) and the next run must repair it, while a run on a sound cache only
//! verifies. `--test` installs what the suite needs from Homebrew, and says so when there is no
//! Homebrew. What this cannot show: that the link and the loading succeed on a real Mac.
#![cfg(target_os = "linux")]

#[path = "setup_rehearsal/macho.rs"]
mod macho;
#[path = "setup_rehearsal/stand_in_mac.rs"]
mod stand_in_mac;

use stand_in_mac::StandInMac;
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// What torch-sys links (`-ltorch_cpu -ltorch -lc10`, found as lib<name>.dylib in lib/).
const LINKED: &[&str] = &["libtorch_cpu.dylib", "libtorch.dylib", "libc10.dylib"];

/// The headers torch-sys's own C++ (libtch/) includes, each found under one of its two include
/// folders.
const HEADERS: &[&str] = &[
    "ATen/autocast_mode.h",
    "torch/csrc/autograd/engine.h",
    "torch/script.h",
    "torch/torch.h",
];

/// Where a dependency of a library in `lib` is found: Some(file name in lib/) or None for the
/// system's own libraries; Err when the loader would not find it.
fn resolve(lib: &Path, loader: &macho::Dylib, dep: &str) -> Result<Option<String>, String> {
    if dep.starts_with("/usr/lib/") || dep.starts_with("/System/Library/") {
        return Ok(None);
    }
    let in_lib = |rest: &str| {
        let name = rest.trim_start_matches('/');
        (!name.contains('/') && lib.join(name).is_file()).then(|| name.to_owned())
    };
    if let Some(rest) = dep.strip_prefix("@loader_path") {
        return in_lib(rest)
            .map(Some)
            .ok_or_else(|| format!("{dep}: not in lib/"));
    }
    if let Some(rest) = dep.strip_prefix("@rpath") {
        for rpath in &loader.rpaths {
            // The loader's own rpaths, relative to its folder (lib/): no absolute rpath counts.
            if rpath.trim_end_matches('/') == "@loader_path" {
                if let Some(name) = in_lib(rest) {
                    return Ok(Some(name));
                }
            }
        }
        return Err(format!(
            "{dep}: no rpath of its loader ({:?}) finds it in lib/",
            loader.rpaths
        ));
    }
    Err(format!(
        "{dep}: an absolute path outside the system, which no Mac has"
    ))
}

/// The libtorch at `libtorch` has the layout torch-sys links against and the macOS loader can
/// load from wherever the cache is; prints what was read.
fn assert_links_as_torch_sys_expects(libtorch: &Path) {
    let lib = libtorch.join("lib");
    let entries: BTreeMap<String, bool> = fs::read_dir(&lib)
        .unwrap_or_else(|e| panic!("{}: {e}", lib.display()))
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                e.file_type().unwrap().is_file(),
            )
        })
        .collect();
    for name in LINKED {
        assert!(
            entries.get(*name) == Some(&true),
            "lib/{name} is not a file in lib/, where torch-sys searches for -l{}; lib/ holds {:?}",
            name.trim_start_matches("lib").trim_end_matches(".dylib"),
            entries.keys().collect::<Vec<_>>()
        );
    }
    let includes = [
        libtorch.join("include"),
        libtorch.join("include/torch/csrc/api/include"),
    ];
    for header in HEADERS {
        assert!(
            includes.iter().any(|dir| dir.join(header).is_file()),
            "{header} is in neither of torch-sys's include folders {includes:?}"
        );
    }

    // From the linked three, every library loaded, transitively, with what the loader reads.
    let mut needed: BTreeSet<String> = BTreeSet::new();
    let mut queue: Vec<String> = LINKED.iter().map(|s| s.to_string()).collect();
    let mut problems = Vec::new();
    while let Some(name) = queue.pop() {
        if !needed.insert(name.clone()) {
            continue;
        }
        let dylib = macho::read(&lib.join(&name)).unwrap_or_else(|e| panic!("{e}"));
        eprintln!(
            "{name}: arm64 {}, dylib {}, install name {:?}, rpaths {:?}, macOS {:?}+\n  loads {:?}",
            dylib.arm64,
            dylib.is_dylib,
            dylib.install_name,
            dylib.rpaths,
            dylib.min_macos,
            dylib.loads
        );
        assert!(dylib.arm64 && dylib.is_dylib, "{name}: not an arm64 dylib");
        let (major, minor) = dylib
            .min_macos
            .unwrap_or_else(|| panic!("{name}: no LC_BUILD_VERSION for macOS"));
        assert!(
            (major, minor) <= (14, 0),
            "{name} needs macOS {major}.{minor}; setup.sh accepts 14.0"
        );
        if LINKED.contains(&name.as_str()) {
            // The linker copies this into the binary, which finds it through its rpath to lib/.
            assert_eq!(
                dylib.install_name.as_deref(),
                Some(format!("@rpath/{name}").as_str()),
                "{name}"
            );
        }
        for (_, dep) in &dylib.loads {
            match resolve(&lib, &dylib, dep) {
                Ok(Some(found)) => queue.push(found),
                Ok(None) => {}
                Err(e) => problems.push(format!("{name} loads {e}")),
            }
        }
    }
    assert!(
        problems.is_empty(),
        "unresolvable dependencies:\n{}",
        problems.join("\n")
    );
    let present: BTreeSet<String> = entries.keys().cloned().collect();
    assert_eq!(
        present, needed,
        "lib/ should hold exactly what the linked libraries load"
    );
}

/// Each file under lib/ with its inode and change time: equal before and after means untouched.
fn fingerprint(libtorch: &Path) -> Vec<(String, u64, i64)> {
    let mut all = Vec::new();
    for e in fs::read_dir(libtorch.join("lib")).unwrap() {
        let e = e.unwrap();
        let m = e.metadata().unwrap();
        all.push((
            e.file_name().to_string_lossy().into_owned(),
            m.ino(),
            m.ctime_nsec() + m.ctime() * 1_000_000_000,
        ));
    }
    all.sort();
    all
}

/// `manifest_of` in setup.sh: "<path> <bytes>" for each file under lib/, in C order.
fn manifest_of(libtorch: &Path) -> String {
    fn walk(dir: &Path, rel: &str, out: &mut Vec<(String, u64)>) {
        for e in fs::read_dir(dir).unwrap() {
            let e = e.unwrap();
            let rel = format!("{rel}/{}", e.file_name().to_string_lossy());
            if e.file_type().unwrap().is_dir() {
                walk(&e.path(), &rel, out);
            } else {
                out.push((rel, e.metadata().unwrap().len()));
            }
        }
    }
    let mut files = Vec::new();
    walk(&libtorch.join("lib"), "lib", &mut files);
    files.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    files.iter().map(|(p, n)| format!("{p} {n}\n")).collect()
}

#[test]
fn a_macs_set_up_assembles_a_libtorch_torch_sys_links_and_repairs_a_damaged_one() {
    let mac = StandInMac::new(true);
    let libtorch = mac.libtorch();

    let first = mac.setup(&["--test"]);
    first.assert_ok();
    assert!(
        first.stderr().contains("assembling libtorch 2.13.0"),
        "{}",
        first.stderr()
    );
    assert_eq!(
        fs::read_link(mac.clone_dir().join(".libtorch")).unwrap(),
        libtorch,
        "the clone's .libtorch (LIBTORCH in .cargo/config.toml) points at the assembled libtorch"
    );
    assert_links_as_torch_sys_expects(&libtorch);
    // The voice-activity detector's weights, where the app looks for them on a Mac (its data
    // folder), the same bytes as this machine's (setup.sh checked their SHA-256 with shasum).
    let vad = "Library/Application Support/whisper-dictation/vad/silero_vad_16k.safetensors";
    let here = whisper_dictation::audio::vad::model_path().unwrap();
    assert_eq!(
        fs::read(mac.path("home").join(vad)).unwrap(),
        fs::read(&here).unwrap(),
        "{vad}"
    );
    // The suite's tools came from Homebrew, asked for once.
    assert_eq!(
        mac.brew_calls(),
        ["install --quiet sox flite flock shellcheck"]
    );

    // A second run only verifies: nothing assembled, installed or touched.
    let before = fingerprint(&libtorch);
    let second = mac.setup(&["--test"]);
    second.assert_ok();
    assert!(
        !second.stderr().contains("assembling"),
        "{}",
        second.stderr()
    );
    assert!(second.stderr().contains("ready"), "{}", second.stderr());
    assert_eq!(
        fingerprint(&libtorch),
        before,
        "the second run changed lib/"
    );
    assert_eq!(
        mac.brew_calls().len(),
        1,
        "brew was called again: {:?}",
        mac.brew_calls()
    );
    assert!(
        second.took.as_secs() < 10,
        "a verifying run took {:?}",
        second.took
    );

    // Damaged: the layout the script used to make (the dylibs in lib/lib/), one dylib deleted
    // too, and a MANIFEST that matches what is there (as the script used to write it). Not
    // what torch-sys links, so the next run (the app's, without --test) assembles it again.
    let nested = libtorch.join("lib/lib");
    fs::create_dir(&nested).unwrap();
    for name in ["libtorch_cpu.dylib", "libtorch.dylib", "libomp.dylib"] {
        fs::rename(libtorch.join("lib").join(name), nested.join(name)).unwrap();
    }
    fs::remove_file(libtorch.join("lib/libc10.dylib")).unwrap();
    fs::write(libtorch.join("MANIFEST"), manifest_of(&libtorch)).unwrap();
    let repaired = mac.setup(&[]);
    repaired.assert_ok();
    assert!(
        repaired
            .stderr()
            .contains("damaged (lib/libtorch_cpu.dylib is missing)"),
        "{}",
        repaired.stderr()
    );
    assert!(
        repaired.stderr().contains("assembling"),
        "{}",
        repaired.stderr()
    );
    assert_links_as_torch_sys_expects(&libtorch);
    assert!(!nested.exists(), "lib/lib/ is gone");
}

#[test]
fn without_homebrew_the_test_set_up_says_what_is_missing_and_how_to_get_it() {
    let mac = StandInMac::new(false);
    let run = mac.setup(&["--test"]);
    assert!(
        !run.output.status.success(),
        "set-up went on without sox:\n{}",
        run.stderr()
    );
    let said = run.stderr();
    for needed in ["sox", "flite", "flock", "shellcheck", "Homebrew"] {
        assert!(said.contains(needed), "no word of {needed}: {said}");
    }
    assert!(!mac.libtorch().exists(), "it stopped before the long steps");
}
