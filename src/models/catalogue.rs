//! The models a user can download: which Whisper sizes exist, where each comes from (a hub
//! repository in a layout our engine loads), what it costs (download, memory) and whom it
//! suits; and the default suggested for a machine, a pure function of the machine's facts.
//!
//! Sizes are what the repositories publish at the time of writing, rounded, for the menu and
//! `models list` only: a download takes the real sizes (and hashes) from the hub's metadata.
//! Revisions are the branch `main`; the commit actually fetched is resolved once per download
//! (so every file comes from one commit) and written into the installed model's manifest.
//!
//! What is known to load: every entry is in a layout `whisper::Engine` reads (CTranslate2
//! `model.bin`, or a single `model.safetensors`), and the engine takes every dimension from the
//! tensors (80 or 128 mel bins, 51864–51866 tokens, 2 to 32 decoder layers). Loaded here with
//! real weights: tiny.en and base (CTranslate2) and base converted to the Hugging Face layout
//! (`tests/hf_layout.rs`). The other repositories could not be fetched on the machines this was
//! built on; their file lists (`tokenizer.json` in particular) are as published when this was
//! written, and a download checks them: a repository missing a required file is refused by
//! name, and a folder that does not load is never installed.

use crate::whisper::Layout;

/// One downloadable model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CatalogueEntry {
    /// The name it is installed under (`models/<name>/`) and chosen by (`--model`, settings).
    pub name: &'static str,
    /// Hub repository, `owner/name`.
    pub repo: &'static str,
    /// Branch, tag or commit of the repository.
    pub revision: &'static str,
    /// The layout of the repository's files (both load through `whisper::Engine`).
    pub layout: Layout,
    /// Approximate download size in bytes (display only; see the module comment).
    pub download_bytes: u64,
    /// Parameters, for the memory estimate.
    pub parameters: u64,
    /// English only (`*.en`, distil) or the 99 (100 for large-v3) Whisper languages.
    pub english_only: bool,
    /// Mel bins of the input: 80, or 128 for large-v3 and its derivatives (our mel frontend
    /// computes both).
    pub n_mels: usize,
    /// One line of advice, English.
    pub advice_en: &'static str,
    /// The same in Polish.
    pub advice_pl: &'static str,
}

impl CatalogueEntry {
    /// Memory the model needs while it runs on the CPU, in bytes: the weights widened to
    /// float32 (the loader does that on the CPU; float16 matmuls there are ~150x slower) plus
    /// the activations, caches and libtorch's own share, measured at about 300 MB for
    /// dictation-length audio.
    pub fn memory_bytes(&self) -> u64 {
        self.parameters * 4 + 300 * MB
    }

    /// The languages, for a list: "English" or "99 languages".
    pub fn languages(&self) -> &'static str {
        match (self.english_only, self.n_mels) {
            (true, _) => "English",
            (false, 128) => "100 languages",
            (false, _) => "99 languages",
        }
    }

    pub fn advice(&self, polish: bool) -> &'static str {
        if polish {
            self.advice_pl
        } else {
            self.advice_en
        }
    }
}

const MB: u64 = 1_000_000;

/// Every model `models download` knows, smallest first.
pub const CATALOGUE: &[CatalogueEntry] = &[
    CatalogueEntry {
        name: "tiny",
        repo: "Systran/faster-whisper-tiny",
        revision: "main",
        layout: Layout::CTranslate2,
        download_bytes: 78 * MB,
        parameters: 39_000_000,
        english_only: false,
        n_mels: 80,
        advice_en: "fastest, rough; weak for Polish",
        advice_pl: "najszybszy, niedokładny; słaby po polsku",
    },
    CatalogueEntry {
        name: "tiny.en",
        repo: "Systran/faster-whisper-tiny.en",
        revision: "main",
        layout: Layout::CTranslate2,
        download_bytes: 78 * MB,
        parameters: 39_000_000,
        english_only: true,
        n_mels: 80,
        advice_en: "fastest, English only",
        advice_pl: "najszybszy, tylko angielski",
    },
    CatalogueEntry {
        name: "base",
        repo: "Systran/faster-whisper-base",
        revision: "main",
        layout: Layout::CTranslate2,
        download_bytes: 148 * MB,
        parameters: 74_000_000,
        english_only: false,
        n_mels: 80,
        advice_en: "fast on any CPU; fine for English, fair for Polish",
        advice_pl: "szybki na każdym procesorze; dobry po angielsku, znośny po polsku",
    },
    CatalogueEntry {
        name: "base.en",
        repo: "Systran/faster-whisper-base.en",
        revision: "main",
        layout: Layout::CTranslate2,
        download_bytes: 148 * MB,
        parameters: 74_000_000,
        english_only: true,
        n_mels: 80,
        advice_en: "fast, English only, better than base at English",
        advice_pl: "szybki, tylko angielski, lepszy od base po angielsku",
    },
    CatalogueEntry {
        name: "small",
        repo: "Systran/faster-whisper-small",
        revision: "main",
        layout: Layout::CTranslate2,
        download_bytes: 487 * MB,
        parameters: 244_000_000,
        english_only: false,
        n_mels: 80,
        advice_en: "good Polish on a recent laptop; the first step up from base",
        advice_pl: "dobry polski na nowszym laptopie; pierwszy krok w górę od base",
    },
    CatalogueEntry {
        name: "small.en",
        repo: "Systran/faster-whisper-small.en",
        revision: "main",
        layout: Layout::CTranslate2,
        download_bytes: 487 * MB,
        parameters: 244_000_000,
        english_only: true,
        n_mels: 80,
        advice_en: "accurate English at modest cost",
        advice_pl: "dokładny angielski niewielkim kosztem",
    },
    CatalogueEntry {
        name: "medium",
        repo: "Systran/faster-whisper-medium",
        revision: "main",
        layout: Layout::CTranslate2,
        download_bytes: 1_530 * MB,
        parameters: 769_000_000,
        english_only: false,
        n_mels: 80,
        advice_en: "very good Polish; slow on a CPU, wants a GPU or Apple Silicon",
        advice_pl: "bardzo dobry polski; wolny na CPU, najlepiej z GPU lub Apple Silicon",
    },
    CatalogueEntry {
        name: "medium.en",
        repo: "Systran/faster-whisper-medium.en",
        revision: "main",
        layout: Layout::CTranslate2,
        download_bytes: 1_530 * MB,
        parameters: 769_000_000,
        english_only: true,
        n_mels: 80,
        advice_en: "very accurate English; slow on a CPU",
        advice_pl: "bardzo dokładny angielski; wolny na CPU",
    },
    CatalogueEntry {
        name: "large-v3",
        repo: "Systran/faster-whisper-large-v3",
        revision: "main",
        layout: Layout::CTranslate2,
        download_bytes: 3_090 * MB,
        parameters: 1_550_000_000,
        english_only: false,
        n_mels: 128,
        advice_en: "most accurate, every language; needs a strong GPU and 8 GB of memory",
        advice_pl: "najdokładniejszy, każdy język; wymaga mocnego GPU i 8 GB pamięci",
    },
    CatalogueEntry {
        name: "large-v3-turbo",
        repo: "openai/whisper-large-v3-turbo",
        revision: "main",
        layout: Layout::HuggingFace,
        download_bytes: 1_620 * MB,
        parameters: 809_000_000,
        english_only: false,
        n_mels: 128,
        advice_en: "best for Polish on Apple Silicon: near large-v3 accuracy, several times faster",
        advice_pl: "najlepszy po polsku na Apple Silicon: prawie jak large-v3, kilka razy szybszy",
    },
    CatalogueEntry {
        name: "distil-large-v3",
        repo: "distil-whisper/distil-large-v3",
        revision: "main",
        layout: Layout::HuggingFace,
        download_bytes: 1_510 * MB,
        parameters: 756_000_000,
        english_only: true,
        n_mels: 128,
        advice_en: "fast large model, English only (distilled on English speech)",
        advice_pl: "szybki duży model, tylko angielski (destylowany na mowie angielskiej)",
    },
];

/// The catalogue entry called `name`.
pub fn find(name: &str) -> Option<&'static CatalogueEntry> {
    CATALOGUE.iter().find(|e| e.name == name)
}

/// What the default suggestion depends on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Machine {
    /// `std::env::consts::OS`.
    pub os: &'static str,
    /// `std::env::consts::ARCH`.
    pub arch: &'static str,
    /// Physical memory in bytes (0 when unknown).
    pub memory_bytes: u64,
    /// A usable CUDA (or ROCm) GPU.
    pub cuda: bool,
}

impl Machine {
    /// This machine. Asks libtorch whether CUDA is there (no probe, nothing loaded).
    pub fn detect() -> Machine {
        Machine {
            os: std::env::consts::OS,
            arch: std::env::consts::ARCH,
            memory_bytes: total_memory_bytes().unwrap_or(0),
            cuda: tch::Cuda::is_available(),
        }
    }

    pub fn is_apple_silicon(&self) -> bool {
        self.os == "macos" && self.arch == "aarch64"
    }
}

const GB: u64 = 1_000_000_000;

/// The model suggested for `machine` (never downloaded unasked). Multilingual, since the app
/// is for Polish and English; sized so that a dictation comes back in about a second:
/// - Apple Silicon (MPS, unified memory): large-v3-turbo from 16 GB, small from 8 GB;
/// - a CUDA GPU: large-v3-turbo with 8 GB of memory or more, small otherwise;
/// - a CPU only: base (small is ~3x slower than base on a CPU; tiny is poor at Polish), and
///   tiny below 2 GB. Unknown memory (0) counts as little.
pub fn suggest_default(machine: &Machine) -> &'static str {
    let memory = machine.memory_bytes;
    if machine.is_apple_silicon() {
        return match memory {
            m if m >= 16 * GB => "large-v3-turbo",
            m if m >= 8 * GB => "small",
            _ => "base",
        };
    }
    if machine.cuda {
        return if memory >= 8 * GB {
            "large-v3-turbo"
        } else {
            "small"
        };
    }
    if memory != 0 && memory < 2 * GB {
        "tiny"
    } else {
        "base"
    }
}

/// The model to suggest when Polish gave no text with `current`: the machine's suggestion
/// (see [`suggest_default`]) when it is a larger multilingual model, otherwise `small`, the
/// first step up with good Polish. `None` when `current` is already `small` or larger, or is not
/// a catalogue model (a folder of the person's own: they chose it knowingly).
pub fn larger_for_polish(current: &str, machine_suggestion: &str) -> Option<&'static str> {
    const GOOD_POLISH: &str = "small";
    let current = find(current)?;
    let good = find(GOOD_POLISH)?;
    if current.parameters >= good.parameters {
        return None;
    }
    let suggested = find(machine_suggestion)
        .filter(|m| !m.english_only && m.parameters > current.parameters)
        .filter(|m| m.parameters >= good.parameters);
    Some(suggested.map_or(good.name, |m| m.name))
}

/// Physical memory: `/proc/meminfo` on Linux, `sysctl hw.memsize` on macOS; `None` elsewhere
/// or when neither answers.
pub fn total_memory_bytes() -> Option<u64> {
    if let Ok(text) = std::fs::read_to_string("/proc/meminfo") {
        return parse_meminfo(&text);
    }
    let out = std::process::Command::new("sysctl")
        .args(["-n", "hw.memsize"])
        .output()
        .ok()?;
    String::from_utf8_lossy(&out.stdout).trim().parse().ok()
}

/// `MemTotal:  16318196 kB` → bytes.
pub fn parse_meminfo(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kb: u64 = line
        .trim_start_matches("MemTotal:")
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kb * 1024)
}

/// Bytes for people: "466 MB", "1.6 GB" (decimal units, as the hub and Finder show them).
pub fn human_bytes(bytes: u64) -> String {
    if bytes >= GB {
        format!("{:.1} GB", bytes as f64 / GB as f64)
    } else if bytes >= MB {
        format!("{} MB", (bytes as f64 / MB as f64).round() as u64)
    } else if bytes >= 1000 {
        format!("{} kB", bytes / 1000)
    } else {
        format!("{bytes} B")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn polish_without_text_on_a_small_model_suggests_a_larger_multilingual_one() {
        // A CPU-only machine is suggested base: the step up is small.
        assert_eq!(larger_for_polish("base", "base"), Some("small"));
        assert_eq!(larger_for_polish("tiny", "base"), Some("small"));
        assert_eq!(larger_for_polish("base.en", "base"), Some("small"));
        // A Mac with 16 GB is suggested large-v3-turbo.
        assert_eq!(
            larger_for_polish("base", "large-v3-turbo"),
            Some("large-v3-turbo")
        );
        // Already good at Polish, or the person's own model: nothing to suggest.
        for current in [
            "small",
            "medium",
            "large-v3-turbo",
            "/models/my-finetune",
            "x",
        ] {
            assert_eq!(
                larger_for_polish(current, "large-v3-turbo"),
                None,
                "{current}"
            );
        }
    }

    fn machine(os: &'static str, arch: &'static str, gb: u64, cuda: bool) -> Machine {
        Machine {
            os,
            arch,
            memory_bytes: gb * GB,
            cuda,
        }
    }

    #[test]
    fn the_catalogue_names_every_size_once_with_a_source() {
        let names: Vec<&str> = CATALOGUE.iter().map(|e| e.name).collect();
        for wanted in [
            "tiny",
            "tiny.en",
            "base",
            "base.en",
            "small",
            "small.en",
            "medium",
            "medium.en",
            "large-v3",
            "large-v3-turbo",
        ] {
            assert_eq!(
                names.iter().filter(|n| **n == wanted).count(),
                1,
                "{wanted}"
            );
        }
        for e in CATALOGUE {
            assert!(e.repo.contains('/') && !e.revision.is_empty(), "{e:?}");
            assert!(!e.advice_en.is_empty() && !e.advice_pl.is_empty(), "{e:?}");
            assert_eq!(
                e.english_only,
                e.name.ends_with(".en") || e.name.starts_with("distil")
            );
            assert!(e.memory_bytes() > e.download_bytes, "{e:?}");
            // float16 files: about two bytes per parameter.
            let ratio = e.download_bytes as f64 / (2 * e.parameters) as f64;
            assert!((0.9..1.1).contains(&ratio), "{}: {ratio}", e.name);
        }
        // Smallest first, so the menu reads in order of cost.
        assert!(CATALOGUE
            .windows(2)
            .all(|w| w[0].download_bytes <= w[1].download_bytes
                || w[1].name == "large-v3-turbo"
                || w[1].name == "distil-large-v3"));
        assert_eq!(find("large-v3").map(|e| e.n_mels), Some(128));
        assert_eq!(find("large-v3").unwrap().languages(), "100 languages");
        assert_eq!(find("base").unwrap().languages(), "99 languages");
        assert!(find("huge").is_none());
    }

    #[test]
    fn the_default_follows_the_machine() {
        assert_eq!(
            suggest_default(&machine("linux", "x86_64", 8, false)),
            "base"
        );
        assert_eq!(
            suggest_default(&machine("linux", "x86_64", 64, false)),
            "base"
        );
        assert_eq!(
            suggest_default(&machine("linux", "aarch64", 1, false)),
            "tiny"
        );
        assert_eq!(
            suggest_default(&machine("linux", "x86_64", 32, true)),
            "large-v3-turbo"
        );
        assert_eq!(
            suggest_default(&machine("linux", "x86_64", 4, true)),
            "small"
        );
        assert_eq!(
            suggest_default(&machine("macos", "aarch64", 16, false)),
            "large-v3-turbo"
        );
        assert_eq!(
            suggest_default(&machine("macos", "aarch64", 8, false)),
            "small"
        );
        assert_eq!(
            suggest_default(&machine("macos", "aarch64", 4, false)),
            "base"
        );
        // An Intel Mac has no MPS worth using: a CPU machine.
        assert_eq!(
            suggest_default(&machine("macos", "x86_64", 32, false)),
            "base"
        );
        // Memory unknown: the safe CPU choice.
        assert_eq!(
            suggest_default(&machine("linux", "x86_64", 0, false)),
            "base"
        );
        for gb in [0, 1, 4, 8, 16, 64] {
            for (os, arch) in [
                ("linux", "x86_64"),
                ("macos", "aarch64"),
                ("windows", "x86_64"),
            ] {
                for cuda in [false, true] {
                    let name = suggest_default(&machine(os, arch, gb, cuda));
                    let entry = find(name).expect("a catalogue entry");
                    assert!(!entry.english_only, "{name}: the app is for Polish too");
                }
            }
        }
    }

    #[test]
    fn meminfo_and_sizes_read_as_people_expect() {
        let text = "MemTotal:       16318196 kB\nMemFree:  1 kB\n";
        assert_eq!(parse_meminfo(text), Some(16_318_196 * 1024));
        assert_eq!(parse_meminfo("garbage"), None);
        assert_eq!(human_bytes(466_000_000), "466 MB");
        assert_eq!(human_bytes(1_620_000_000), "1.6 GB");
        assert_eq!(human_bytes(2_500), "2 kB");
        assert_eq!(human_bytes(12), "12 B");
    }
}
