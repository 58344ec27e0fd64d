//! Which GPU libraries the binary must record as needed. torch-sys asks the linker for
//! `torch_cuda` (or `torch_hip`), but nothing in the program calls into it, so the linker's
//! `--as-needed` drops it and libtorch never registers its CUDA backend: the app would run on
//! the CPU and call the GPU "not usable". Naming the libraries again between `--no-as-needed`
//! and `--as-needed` keeps them. Shared by `build.rs` and `tests/gpu_link.rs`.

use std::path::Path;

/// Linker arguments for the libtorch in `lib_dir` when building for `target_os`; none for a CPU
/// libtorch and off Linux (macOS's linker keeps every dylib it is given, and MPS lives in
/// libtorch_cpu there).
pub fn gpu_link_args(lib_dir: &Path, target_os: &str) -> Vec<String> {
    if target_os != "linux" {
        return Vec::new();
    }
    let present = |name: &str| lib_dir.join(format!("lib{name}.so")).exists();
    let mut libs: Vec<&str> = Vec::new();
    for (backend, c10) in [("torch_cuda", "c10_cuda"), ("torch_hip", "c10_hip")] {
        if present(backend) {
            libs.push(backend);
            if present(c10) {
                libs.push(c10);
            }
        }
    }
    if libs.is_empty() {
        return Vec::new();
    }
    if present("torch") {
        libs.push("torch");
    }
    let mut args = vec!["-Wl,--no-as-needed".to_string()];
    args.extend(libs.iter().map(|lib| format!("-l{lib}")));
    args.push("-Wl,--as-needed".to_string());
    args
}
