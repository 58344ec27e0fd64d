//! Which class of CPU the engine runs on, as far as its layout goes: one that computes bfloat16
//! natively (AVX-512 BF16 or AMX on x86, BF16 on Arm: M2 and later) or one that does not (an
//! M1, most laptops before 2023, AVX2-only servers). The hardware says what it has
//! (`platform::cpu_has_native_bf16`); the environment may cap it, so that any machine can be
//! made to behave as one without bf16:
//! - `WHISPER_DICTATION_CPU_BF16=0` (or `off`, `false`, `no`): behave as without native bf16;
//!   `=1` (`on`, `true`, `yes`): as with it, whatever the hardware says (for tests of the
//!   bf16 layout's choice; libtorch then emulates it, slowly);
//! - `ONEDNN_MAX_CPU_ISA` below `AVX512_CORE_BF16` (e.g. `AVX2`), oneDNN's own cap: its bf16
//!   kernels are then emulated;
//! - `ATEN_CPU_CAPABILITY` of `default` or `avx2`, ATen's cap: its bf16 conversions and
//!   element-wise kernels lose their AVX-512 forms.
//!
//! The decisions are portable functions of the hardware flag and the variables, so they are
//! tested on any machine.

use std::fmt;

/// The override of the detected class.
pub const CPU_BF16_ENV: &str = "WHISPER_DICTATION_CPU_BF16";
/// oneDNN's instruction-set cap.
pub const ONEDNN_ISA_ENV: &str = "ONEDNN_MAX_CPU_ISA";
/// ATen's kernel cap.
pub const ATEN_CAPABILITY_ENV: &str = "ATEN_CPU_CAPABILITY";

/// oneDNN's x86 instruction sets below the first with bf16 dot products (`AVX512_CORE_BF16`).
const ONEDNN_ISAS_WITHOUT_BF16: [&str; 7] = [
    "SSE41",
    "AVX",
    "AVX2",
    "AVX2_VNNI",
    "AVX2_VNNI_2",
    "AVX512_CORE",
    "AVX512_CORE_VNNI",
];

/// ATen's capabilities without AVX-512.
const ATEN_CAPABILITIES_WITHOUT_BF16: [&str; 2] = ["default", "avx2"];

/// What the engine may count on from this CPU, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CpuClass {
    /// The hardware computes bfloat16 natively.
    pub hardware_bf16: bool,
    /// The engine may use bfloat16: the hardware has it and nothing caps it.
    pub native_bf16: bool,
    /// What capped or forced it (the variable and its value), if anything did.
    pub cap: Option<String>,
}

impl CpuClass {
    /// This machine's class: the hardware, capped by the process's environment.
    pub fn detect() -> CpuClass {
        CpuClass::from_parts(crate::platform::cpu_has_native_bf16(), |name| {
            std::env::var(name).ok()
        })
    }

    /// The class of a CPU whose hardware does (`hardware_bf16`) or does not compute bf16
    /// natively, under the variables `env` returns.
    pub fn from_parts(hardware_bf16: bool, env: impl Fn(&str) -> Option<String>) -> CpuClass {
        let set = |name: &str| {
            env(name)
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
        };
        let named = |name: &str, value: &str| Some(format!("{name}={value}"));
        if let Some(value) = set(CPU_BF16_ENV) {
            match value.to_ascii_lowercase().as_str() {
                "0" | "off" | "false" | "no" => {
                    return CpuClass {
                        hardware_bf16,
                        native_bf16: false,
                        cap: named(CPU_BF16_ENV, &value),
                    }
                }
                "1" | "on" | "true" | "yes" => {
                    return CpuClass {
                        hardware_bf16,
                        native_bf16: true,
                        cap: named(CPU_BF16_ENV, &value),
                    }
                }
                _ => tracing::warn!("{CPU_BF16_ENV}={value:?} is not 0 or 1; ignored"),
            }
        }
        let mut cap = None;
        if let Some(value) = set(ONEDNN_ISA_ENV) {
            if ONEDNN_ISAS_WITHOUT_BF16.contains(&value.to_ascii_uppercase().as_str()) {
                cap = named(ONEDNN_ISA_ENV, &value);
            }
        }
        if let Some(value) = set(ATEN_CAPABILITY_ENV) {
            if cap.is_none()
                && ATEN_CAPABILITIES_WITHOUT_BF16.contains(&value.to_ascii_lowercase().as_str())
            {
                cap = named(ATEN_CAPABILITY_ENV, &value);
            }
        }
        CpuClass {
            hardware_bf16,
            native_bf16: hardware_bf16 && cap.is_none(),
            cap,
        }
    }
}

impl CpuClass {
    /// The app's CPU layout for this class, in a few words (`whisper::model` has the details).
    pub fn app_layout(&self) -> &'static str {
        if self.native_bf16 {
            "bf16 encoder, int8 decoder weights, float32 elsewhere"
        } else {
            "float32, int8 decoder weights, encoder weights stored as float16 where exact"
        }
    }
}

impl fmt::Display for CpuClass {
    /// "native bf16", "no native bf16", "no native bf16 (capped by ONEDNN_MAX_CPU_ISA=AVX2)".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.native_bf16 {
            "native bf16"
        } else {
            "no native bf16"
        })?;
        match &self.cap {
            Some(cap) if self.hardware_bf16 && !self.native_bf16 => {
                write!(f, " (hardware has it; capped by {cap})")
            }
            Some(cap) if self.native_bf16 && !self.hardware_bf16 => {
                write!(
                    f,
                    " (forced by {cap}; the hardware lacks it: emulated, slowly)"
                )
            }
            Some(cap) => write!(f, " ({cap})"),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(hardware: bool, vars: &[(&str, &str)]) -> CpuClass {
        CpuClass::from_parts(hardware, |name| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.to_string())
        })
    }

    #[test]
    fn the_hardware_decides_when_nothing_caps_it() {
        assert!(class(true, &[]).native_bf16);
        assert!(!class(false, &[]).native_bf16);
        assert_eq!(class(true, &[]).to_string(), "native bf16");
        assert_eq!(class(false, &[]).to_string(), "no native bf16");
    }

    #[test]
    fn onednn_and_aten_caps_below_bf16_turn_it_off() {
        for vars in [
            [(ONEDNN_ISA_ENV, "AVX2")],
            [(ONEDNN_ISA_ENV, "avx512_core")],
            [(ATEN_CAPABILITY_ENV, "avx2")],
            [(ATEN_CAPABILITY_ENV, "default")],
        ] {
            let c = class(true, &vars);
            assert!(!c.native_bf16, "{vars:?}");
            assert!(c.to_string().contains("capped by"), "{c}");
        }
        // Caps at or above bf16 leave it alone.
        assert!(class(true, &[(ONEDNN_ISA_ENV, "AVX512_CORE_AMX")]).native_bf16);
        assert!(class(true, &[(ATEN_CAPABILITY_ENV, "avx512")]).native_bf16);
        // A cap cannot give what the hardware lacks.
        assert!(!class(false, &[(ONEDNN_ISA_ENV, "AVX512_CORE_BF16")]).native_bf16);
    }

    #[test]
    fn each_class_names_its_layout() {
        assert!(class(true, &[]).app_layout().starts_with("bf16"));
        assert!(class(true, &[(CPU_BF16_ENV, "0")])
            .app_layout()
            .starts_with("float32"));
    }

    #[test]
    fn the_apps_own_variable_wins_both_ways() {
        let off = class(true, &[(CPU_BF16_ENV, "0")]);
        assert!(!off.native_bf16);
        assert_eq!(
            off.to_string(),
            "no native bf16 (hardware has it; capped by WHISPER_DICTATION_CPU_BF16=0)"
        );
        let on = class(false, &[(CPU_BF16_ENV, "yes"), (ONEDNN_ISA_ENV, "AVX2")]);
        assert!(on.native_bf16);
        assert_eq!(
            on.to_string(),
            "native bf16 (forced by WHISPER_DICTATION_CPU_BF16=yes; the hardware lacks it: \
             emulated, slowly)"
        );
        // Not a switch: ignored, and the caps still apply.
        assert!(!class(true, &[(CPU_BF16_ENV, "maybe"), (ONEDNN_ISA_ENV, "AVX2")]).native_bf16);
        assert!(class(true, &[(CPU_BF16_ENV, " ")]).native_bf16);
    }
}
