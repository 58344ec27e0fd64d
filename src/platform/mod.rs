//! The platform seam: the only module with `#[cfg(target_os)]`. Everything here is a thin
//! query of the OS; the decisions made from the answers live in portable code (and the parsing
//! of what the OS returns is portable too, so Linux tests exercise it).

/// The Apple chip's marketing name ("M1", "M2 Pro") on a Mac; `None` elsewhere.
pub fn apple_chip_name() -> Option<String> {
    #[cfg(target_os = "macos")]
    {
        let out = std::process::Command::new("/usr/sbin/sysctl")
            .args(["-n", "machdep.cpu.brand_string"])
            .output()
            .ok()?;
        chip_name_from_brand(&String::from_utf8_lossy(&out.stdout))
    }
    #[cfg(not(target_os = "macos"))]
    {
        None
    }
}

/// "Apple M1 Pro" → "M1 Pro"; other brand strings (Intel Macs) → `None`.
pub fn chip_name_from_brand(brand: &str) -> Option<String> {
    let name = brand.trim().strip_prefix("Apple ")?.trim();
    name.starts_with('M').then(|| name.to_string())
}

/// Whether this CPU computes bfloat16 natively (AVX-512 BF16 / AMX on x86, BF16 on Arm),
/// which makes bf16 matmuls several times faster than f32 instead of slower.
pub fn cpu_has_native_bf16() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512bf16")
    }
    #[cfg(target_arch = "aarch64")]
    {
        std::arch::is_aarch64_feature_detected!("bf16")
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn apple_brand_strings_become_chip_names() {
        assert_eq!(chip_name_from_brand("Apple M1\n"), Some("M1".into()));
        assert_eq!(chip_name_from_brand("Apple M3 Max"), Some("M3 Max".into()));
        assert_eq!(
            chip_name_from_brand("Intel(R) Core(TM) i9-9880H CPU @ 2.30GHz"),
            None
        );
        assert_eq!(chip_name_from_brand(""), None);
    }
}
