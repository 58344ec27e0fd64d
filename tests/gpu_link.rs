//! The binary keeps libtorch's GPU library linked when the libtorch it is built against has one
//! (otherwise the linker's `--as-needed` drops it, CUDA is never registered, and the app runs on
//! the CPU saying there is no usable GPU), and a CPU build is unchanged. Checked with `readelf
//! -d`: on this build's own binary, and on a probe program built with the same link logic
//! (`build/gpu_link.rs`) against a stub CUDA libtorch, which needs no GPU.

// Linux only: ELF linking (readelf, gcc, .so); the macOS binary's dylibs are checked by the bundle script (otool) and the CI's smoke run.
#![cfg(target_os = "linux")]

#[path = "../build/gpu_link.rs"]
mod gpu_link;

use std::path::{Path, PathBuf};
use std::process::Command;

/// The shared libraries `binary` records as needed.
fn needed(binary: &Path) -> Vec<String> {
    let out = Command::new("readelf")
        .arg("-d")
        .arg(binary)
        .output()
        .expect("readelf (binutils) runs");
    assert!(out.status.success(), "readelf -d {}", binary.display());
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.contains("(NEEDED)"))
        .filter_map(|l| Some(l.split('[').nth(1)?.trim_end_matches(']').to_string()))
        .collect()
}

fn libtorch_lib() -> PathBuf {
    let lib = Path::new(env!("CARGO_MANIFEST_DIR")).join(".libtorch/lib");
    std::fs::canonicalize(&lib)
        .unwrap_or_else(|e| panic!("{}: {e} (run scripts/setup.sh)", lib.display()))
}

/// An empty shared library with the given soname.
fn stub_library(path: &Path) {
    let soname = path.file_name().unwrap().to_string_lossy().into_owned();
    let status = Command::new("gcc")
        .args(["-shared", "-x", "c", "-", "-o"])
        .arg(path)
        .arg(format!("-Wl,-soname,{soname}"))
        .stdin(std::process::Stdio::null())
        .status()
        .expect("gcc runs");
    assert!(status.success(), "gcc made {}", path.display());
}

#[test]
fn gpu_libraries_are_named_only_for_a_gpu_libtorch_on_linux() {
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path();
    for name in ["libtorch_cpu.so", "libc10.so", "libtorch.so"] {
        std::fs::write(lib.join(name), b"").unwrap();
    }
    assert!(
        gpu_link::gpu_link_args(lib, "linux").is_empty(),
        "CPU libtorch"
    );
    for name in ["libtorch_cuda.so", "libc10_cuda.so"] {
        std::fs::write(lib.join(name), b"").unwrap();
    }
    assert_eq!(
        gpu_link::gpu_link_args(lib, "linux"),
        [
            "-Wl,--no-as-needed",
            "-ltorch_cuda",
            "-lc10_cuda",
            "-ltorch",
            "-Wl,--as-needed"
        ]
    );
    assert!(gpu_link::gpu_link_args(lib, "macos").is_empty());
    std::fs::remove_file(lib.join("libtorch_cuda.so")).unwrap();
    std::fs::write(lib.join("libtorch_hip.so"), b"").unwrap();
    std::fs::write(lib.join("libc10_hip.so"), b"").unwrap();
    assert_eq!(
        gpu_link::gpu_link_args(lib, "linux")[1..3],
        ["-ltorch_hip", "-lc10_hip"],
        "ROCm"
    );
}

#[test]
fn this_build_records_libtorch_cuda_exactly_when_its_libtorch_has_it() {
    let needed = needed(Path::new(env!("CARGO_BIN_EXE_whisper-dictation")));
    assert!(
        needed.iter().any(|n| n == "libtorch_cpu.so"),
        "libtorch_cpu.so is needed: {needed:?}"
    );
    let has_cuda = libtorch_lib().join("libtorch_cuda.so").exists();
    assert_eq!(
        needed.iter().any(|n| n == "libtorch_cuda.so"),
        has_cuda,
        "NEEDED {needed:?}, libtorch has CUDA: {has_cuda}"
    );
}

/// Builds the probe program against a copy of this machine's libtorch that also has (stub)
/// CUDA libraries, in its own target folder (kept between runs, so only the first is slow).
#[test]
fn a_build_against_a_cuda_libtorch_records_libtorch_cuda_as_needed() {
    let target = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/cuda-link-check");
    let stub = target.join("stub-libtorch");
    let real = libtorch_lib();
    std::fs::create_dir_all(stub.join("lib")).unwrap();
    for entry in std::fs::read_dir(&real).unwrap().flatten() {
        let link = stub.join("lib").join(entry.file_name());
        if std::fs::symlink_metadata(&link).is_err() {
            std::os::unix::fs::symlink(entry.path(), &link).unwrap();
        }
    }
    for name in ["libtorch_cuda.so", "libc10_cuda.so"] {
        let path = stub.join("lib").join(name);
        if !path.exists() {
            stub_library(&path);
        }
    }
    let include = stub.join("include");
    if std::fs::symlink_metadata(&include).is_err() {
        std::os::unix::fs::symlink(real.parent().unwrap().join("include"), &include).unwrap();
    }
    std::fs::write(stub.join("build-version"), "2.13.0+cu130\n").unwrap();

    let manifest =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/cuda-link/Cargo.toml");
    let out = Command::new(env!("CARGO"))
        .args(["build", "--release", "--offline", "--manifest-path"])
        .arg(&manifest)
        .env("LIBTORCH", &stub)
        .env("CARGO_TARGET_DIR", &target)
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "building the probe against the stub CUDA libtorch failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let probe = target.join("release/cuda-link");
    let needed = needed(&probe);
    for lib in ["libtorch_cuda.so", "libc10_cuda.so", "libtorch_cpu.so"] {
        assert!(
            needed.iter().any(|n| n == lib),
            "{lib} missing from {needed:?}"
        );
    }
    // And it runs: the stub CUDA libraries load, libtorch answers.
    let run = Command::new(&probe).output().expect("the probe runs");
    assert!(
        run.status.success() && String::from_utf8_lossy(&run.stdout).contains("libtorch threads"),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
}
