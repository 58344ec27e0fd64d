//! Weight files mapped read-only into memory while a model loads, and handing back the pages
//! of tensors already copied out of them. Every page of the file read stays in the process's
//! resident set until the map is dropped at the end of the load, on top of the converted
//! weights: `base`'s 145 MB `model.bin` beside its float32 weights made the load's peak ~595 MB
//! on a CPU without bf16 (~120 MB of it the file's pages), where the app is ~300 MB once ready.

use memmap2::{Mmap, UncheckedAdvice};

/// Lets the pages under `bytes` leave the resident set, when `bytes` lies inside `map` (else
/// does nothing and says `false`). The bytes stay readable: a later read maps the same bytes
/// in again from the file.
pub(crate) fn release(map: &Mmap, bytes: &[u8]) -> bool {
    let start = map.as_ptr() as usize;
    let at = bytes.as_ptr() as usize;
    let inside = !bytes.is_empty()
        && at >= start
        && at
            .checked_add(bytes.len())
            .is_some_and(|end| end <= start + map.len());
    if !inside {
        return false;
    }
    // SAFETY: `map` is memmap2's `Mmap`, a read-only shared mapping of a file, and nothing is
    // ever written through it. MADV_DONTNEED on such a mapping only drops this process's page
    // table entries for the range (rounded out to whole pages): any later read of it, through a
    // borrow still alive or by a tensor sharing a page at the range's ends, faults the very same
    // bytes in again from the file (the page cache). The contents a borrow sees do not change.
    unsafe { map.unchecked_advise_range(UncheckedAdvice::DontNeed, at - start, bytes.len()) }
        .is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// The resident size of the mappings of `path` in this process, from `/proc/self/smaps`
    /// (`None` where there is none: macOS).
    fn resident_kb(path: &std::path::Path) -> Option<u64> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
        let name = path.to_str()?;
        let mut in_map = false;
        let mut kb = 0;
        for line in smaps.lines() {
            if line.contains('-') && line.split_whitespace().count() >= 5 {
                in_map = line.ends_with(name);
            } else if in_map && line.starts_with("Rss:") {
                kb += line.split_whitespace().nth(1)?.parse::<u64>().ok()?;
            }
        }
        Some(kb)
    }

    #[test]
    fn released_pages_leave_memory_and_read_back_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("weights.bin");
        let bytes: Vec<u8> = (0..4 << 20)
            .map(|i: u32| (i * 7 + i / 4096) as u8)
            .collect();
        std::fs::File::create(&path)
            .unwrap()
            .write_all(&bytes)
            .unwrap();
        let file = std::fs::File::open(&path).unwrap();
        let map = unsafe { Mmap::map(&file) }.unwrap();
        let sum = |b: &[u8]| b.iter().map(|&x| u64::from(x)).sum::<u64>();
        assert_eq!(sum(&map), sum(&bytes), "read in once");
        // A tensor's bytes in the middle (not page-aligned), then all of it.
        let tensor = &map[5_000..3_000_000];
        let before = resident_kb(&path);
        assert!(release(&map, tensor));
        if let (Some(before), Some(after)) = (before, resident_kb(&path)) {
            assert!(before > 4_000, "{before} kB resident once read");
            assert!(after < 1_500, "{after} kB still resident");
        }
        assert_eq!(&map[..], &bytes[..], "the same bytes after the release");
        assert!(release(&map, &map[..]));
        assert_eq!(&map[..], &bytes[..]);
        // Bytes that are not the map's are left alone.
        assert!(!release(&map, &bytes[..4096]));
        assert!(!release(&map, &[]));
        assert_eq!(sum(&bytes), sum(&map));
    }
}
