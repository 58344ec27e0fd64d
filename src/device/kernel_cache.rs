//! How many compiled CPU kernels libtorch's oneDNN keeps. oneDNN compiles a kernel for each
//! shape it multiplies and keeps the last 1,024 by default; a streamed dictation transcribes
//! audio of a new length on every pass (`app::worker::stream`), so nearly every pass adds a
//! handful of kernels no later pass asks for. On the long-dictation desktop test that was
//! ~45 MB after a 60 s dictation that never came back (AVX-512 machine, 2026-11-27:
//! BENCHMARKS.md). One pass needs about ten (the encoder's, the cross-attention's, the
//! prompt's, the vocabulary projection); [`CAPACITY`] keeps a few passes' worth.
//!
//! libtorch's own wrapper of oneDNN keeps a second cache, of whole layer computations by
//! shape (`LRU_CACHE_CAPACITY`, also 1,024 by default), ~0.5 MB each: over 36 app-like passes
//! of 5–13 s with prompts of other lengths the engine's live heap grew 220 → 228 MB with it,
//! and stayed at 214 MB with [`LAYER_CAPACITY`] (195 against 205 MB in the float32 layout),
//! in the same time (`LRU_CACHE_CAPACITY=2` cost nothing either; 0 crashes libtorch).

/// oneDNN's variable for the cache's size, read at its first use.
pub const CAPACITY_ENV: &str = "ONEDNN_PRIMITIVE_CACHE_CAPACITY";
/// Its older name, which oneDNN still reads when the new one is not set.
pub const OLD_CAPACITY_ENV: &str = "DNNL_PRIMITIVE_CACHE_CAPACITY";
/// The app's default size of the cache.
pub const CAPACITY: &str = "32";

/// libtorch's variable for its cache of oneDNN layer computations, read at its first use.
pub const LAYER_CAPACITY_ENV: &str = "LRU_CACHE_CAPACITY";
/// The app's default size of that cache.
pub const LAYER_CAPACITY: &str = "8";

/// The value to give [`CAPACITY_ENV`], given what is set now: none when the person set it.
pub fn capacity_to_set(current: Option<&std::ffi::OsStr>) -> Option<&'static str> {
    match current {
        Some(_) => None,
        None => Some(CAPACITY),
    }
}

/// Bounds the caches at [`CAPACITY`] and [`LAYER_CAPACITY`] unless the person set their sizes
/// (either name of the first). Call in `main` before the first computation and before other
/// threads exist.
pub fn bound() {
    let set = std::env::var_os(CAPACITY_ENV).or_else(|| std::env::var_os(OLD_CAPACITY_ENV));
    if let Some(value) = capacity_to_set(set.as_deref()) {
        std::env::set_var(CAPACITY_ENV, value);
    }
    if std::env::var_os(LAYER_CAPACITY_ENV).is_none() {
        std::env::set_var(LAYER_CAPACITY_ENV, LAYER_CAPACITY);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;

    #[test]
    fn the_cache_is_bounded_unless_the_person_sized_it() {
        assert_eq!(capacity_to_set(None), Some("32"));
        assert_eq!(capacity_to_set(Some(OsStr::new("1024"))), None);
        assert_eq!(capacity_to_set(Some(OsStr::new(""))), None);
        assert!(CAPACITY.parse::<u32>().is_ok_and(|n| n >= 10));
        // 0 is no bound for libtorch's layer cache: it crashed.
        assert!(LAYER_CAPACITY.parse::<u32>().is_ok_and(|n| n >= 1));
    }
}
