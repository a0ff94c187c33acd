//! CPU-feature masks: the no-rebuild variant. `--mask no-aesni,no-avx2` names instruction-set
//! extensions to hide from an implementation; this module turns the names into what each library
//! family reads at start-up: `OPENSSL_ia32cap` for OpenSSL (and `openssl speed`), `GODEBUG` for
//! Go. Bit positions are those of OpenSSL's OPENSSL_ia32cap(3) manual: the first 64-bit word is
//! CPUID(1).EDX:ECX, the second CPUID(7,0).EBX:ECX.

use std::fmt;

/// One extension a mask can hide.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Feature {
    AesNi,
    Pclmul,
    Ssse3,
    Avx,
    Avx2,
    Avx512,
    ShaNi,
    Vaes,
}

struct FeatureInfo {
    feature: Feature,
    name: &'static str,
    /// Bits cleared in OPENSSL_ia32cap's first and second 64-bit words.
    word0: u64,
    word1: u64,
    /// Go's `GODEBUG=cpu.X=off` names.
    go: &'static [&'static str],
}

const AVX512_BITS: u64 = (1 << 16) | (1 << 17) | (1 << 21) | (1 << 30) | (1 << 31);

const FEATURES: &[FeatureInfo] = &[
    FeatureInfo {
        feature: Feature::AesNi,
        name: "no-aesni",
        word0: 1 << 57,
        word1: 1 << 41,
        go: &["aes"],
    },
    FeatureInfo {
        feature: Feature::Pclmul,
        name: "no-pclmul",
        word0: 1 << 33,
        word1: 1 << 42,
        go: &["pclmulqdq"],
    },
    FeatureInfo {
        feature: Feature::Ssse3,
        name: "no-ssse3",
        word0: 1 << 41,
        word1: 0,
        go: &["ssse3"],
    },
    // Code paths for AVX2 and AVX-512 test AVX too, so hiding AVX hides them as well.
    FeatureInfo {
        feature: Feature::Avx,
        name: "no-avx",
        word0: 1 << 60,
        word1: (1 << 5) | AVX512_BITS,
        go: &["avx", "avx2", "avx512"],
    },
    FeatureInfo {
        feature: Feature::Avx2,
        name: "no-avx2",
        word0: 0,
        word1: 1 << 5,
        go: &["avx2"],
    },
    FeatureInfo {
        feature: Feature::Avx512,
        name: "no-avx512",
        word0: 0,
        word1: AVX512_BITS,
        go: &["avx512"],
    },
    FeatureInfo {
        feature: Feature::ShaNi,
        name: "no-shani",
        word0: 0,
        word1: 1 << 29,
        go: &["sha"],
    },
    FeatureInfo {
        feature: Feature::Vaes,
        name: "no-vaes",
        word0: 0,
        word1: (1 << 41) | (1 << 42),
        go: &[],
    },
];

/// A set of hidden extensions; empty means "no mask".
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FeatureMask {
    features: Vec<Feature>,
}

impl FeatureMask {
    /// Every name `--mask` accepts, `baseline` included.
    pub fn names() -> Vec<&'static str> {
        let mut v: Vec<&str> = FEATURES.iter().map(|f| f.name).collect();
        v.push("baseline");
        v.push("none");
        v
    }

    /// Parses `no-aesni,no-avx2` (combinable; `baseline` hides every extension above SSE2;
    /// `none` is the unmasked variant).
    pub fn parse(text: &str) -> Result<FeatureMask, String> {
        let mut features = Vec::new();
        for name in text
            .split([',', '+'])
            .map(str::trim)
            .filter(|s| !s.is_empty())
        {
            match name {
                "none" => {}
                "baseline" => features.extend(FEATURES.iter().map(|f| f.feature)),
                _ => match FEATURES.iter().find(|f| f.name == name) {
                    Some(f) => features.push(f.feature),
                    None => {
                        return Err(format!(
                            "unknown CPU feature mask '{name}'; known: {}",
                            FeatureMask::names().join(", ")
                        ))
                    }
                },
            }
        }
        features.sort();
        features.dedup();
        Ok(FeatureMask { features })
    }

    pub fn is_empty(&self) -> bool {
        self.features.is_empty()
    }

    fn infos(&self) -> impl Iterator<Item = &'static FeatureInfo> + '_ {
        FEATURES
            .iter()
            .filter(|f| self.features.contains(&f.feature))
    }

    /// The value of `OPENSSL_ia32cap` that clears the masked bits from what the CPU reports:
    /// `~0x…:~0x…`. Never empty (an empty value would disable every extension); `None` when the
    /// mask hides nothing.
    pub fn openssl_ia32cap(&self) -> Option<String> {
        if self.is_empty() {
            return None;
        }
        let (w0, w1) = self
            .infos()
            .fold((0u64, 0u64), |(a, b), f| (a | f.word0, b | f.word1));
        // `~0x0` leaves a word as detected.
        Some(format!("~0x{w0:x}:~0x{w1:x}"))
    }

    /// The value of `GODEBUG` for Go's crypto (`cpu.aes=off,cpu.avx2=off`); `None` when empty.
    pub fn godebug(&self) -> Option<String> {
        let mut names: Vec<&str> = self.infos().flat_map(|f| f.go.iter().copied()).collect();
        names.sort();
        names.dedup();
        (!names.is_empty()).then(|| {
            names
                .iter()
                .map(|n| format!("cpu.{n}=off"))
                .collect::<Vec<_>>()
                .join(",")
        })
    }

    /// Short text for variant labels: `no-aesni+no-avx2`, or `baseline` when every extension
    /// is hidden.
    pub fn label(&self) -> String {
        if self.features.len() == FEATURES.len() {
            return "baseline".into();
        }
        self.infos().map(|f| f.name).collect::<Vec<_>>().join("+")
    }
}

impl fmt::Display for FeatureMask {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            f.write_str("none")
        } else {
            f.write_str(&self.label())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_translate_to_the_documented_bits() {
        // AES-NI is bit 57 of the first word (OPENSSL_ia32cap(3)); VAES bit 41 of the second.
        assert_eq!(
            FeatureMask::parse("no-aesni")
                .unwrap()
                .openssl_ia32cap()
                .unwrap(),
            "~0x200000000000000:~0x20000000000"
        );
        assert_eq!(
            FeatureMask::parse("no-avx2")
                .unwrap()
                .openssl_ia32cap()
                .unwrap(),
            "~0x0:~0x20"
        );
        assert_eq!(
            FeatureMask::parse("no-shani")
                .unwrap()
                .openssl_ia32cap()
                .unwrap(),
            "~0x0:~0x20000000"
        );
        assert_eq!(
            FeatureMask::parse("no-avx512")
                .unwrap()
                .openssl_ia32cap()
                .unwrap(),
            "~0x0:~0xc0230000"
        );
        let both = FeatureMask::parse("no-avx2,no-aesni").unwrap();
        assert_eq!(both.label(), "no-aesni+no-avx2");
        assert_eq!(
            both.openssl_ia32cap().unwrap(),
            "~0x200000000000000:~0x20000000020"
        );
        assert_eq!(both.godebug().unwrap(), "cpu.aes=off,cpu.avx2=off");
        let base = FeatureMask::parse("baseline").unwrap();
        assert_eq!(base.label(), "baseline");
        assert_eq!(
            base.openssl_ia32cap().unwrap(),
            "~0x1200020200000000:~0x600e0230020"
        );
        assert!(FeatureMask::parse("none")
            .unwrap()
            .openssl_ia32cap()
            .is_none());
        assert!(FeatureMask::parse("no-aesni,")
            .unwrap()
            .openssl_ia32cap()
            .unwrap()
            .starts_with('~'));
        assert!(FeatureMask::parse("no-sse9")
            .unwrap_err()
            .contains("no-aesni"));
    }
}
