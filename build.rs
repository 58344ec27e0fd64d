//! Build script: gives the binaries an rpath to the libtorch that torch-sys linked against, so
//! `cargo run` / `cargo test` / the installed binary find libtorch without LD_LIBRARY_PATH, and
//! keeps libtorch's GPU libraries linked when it has them (`build/gpu_link.rs`) in every target
//! but the window process.
//! torch-sys declares `links = "tch"`, which hands us `DEP_TCH_LIBTORCH_LIB` because this crate
//! depends on torch-sys directly.

#[path = "build/gpu_link.rs"]
mod gpu_link;

use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-env-changed=DEP_TCH_LIBTORCH_LIB");
    println!("cargo:rerun-if-changed=build/gpu_link.rs");
    if let Ok(lib_dir) = std::env::var("DEP_TCH_LIBTORCH_LIB") {
        // Resolve the clone's `.libtorch` link to the shared cache folder, which outlives the clone.
        let lib_dir = std::fs::canonicalize(&lib_dir).unwrap_or_else(|_| PathBuf::from(&lib_dir));
        println!("cargo:rustc-link-arg=-Wl,-rpath,{}", lib_dir.display());
        let target_os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
        // Not for the window process (src/window_host), which must not load libtorch: the app
        // binary, and the tests, examples and benchmarks that run the engine.
        for arg in gpu_link::gpu_link_args(&lib_dir, &target_os) {
            println!("cargo:rustc-link-arg-bin=whisper-dictation={arg}");
            println!("cargo:rustc-link-arg-tests={arg}");
            println!("cargo:rustc-link-arg-examples={arg}");
            println!("cargo:rustc-link-arg-benches={arg}");
        }
        // The libtorch folder (parent of lib/), so the app can read its build-version at run time.
        if let Some(root) = lib_dir.parent() {
            println!(
                "cargo:rustc-env=WHISPER_DICTATION_LIBTORCH_DIR={}",
                root.display()
            );
        }
    }
}
