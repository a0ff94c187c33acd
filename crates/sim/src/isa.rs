//! The instruction sets `profile` traces: x86-64 natively under valgrind, and the cross builds
//! (ppc64le, aarch64, riscv64) under qemu-user. A trace is decoded by its instruction set's own
//! decoder ([`crate::decode::Decoded::new`]), chosen by the variant's architecture.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum Isa {
    #[default]
    #[serde(rename = "x86_64")]
    X86_64,
    #[serde(rename = "ppc64le")]
    Ppc64le,
    #[serde(rename = "aarch64")]
    Aarch64,
    #[serde(rename = "riscv64")]
    Riscv64,
}

impl Isa {
    pub const ALL: [Isa; 4] = [Isa::X86_64, Isa::Ppc64le, Isa::Aarch64, Isa::Riscv64];

    /// The architecture's name as variants and `uname -m` spell it.
    pub fn name(self) -> &'static str {
        match self {
            Isa::X86_64 => "x86_64",
            Isa::Ppc64le => "ppc64le",
            Isa::Aarch64 => "aarch64",
            Isa::Riscv64 => "riscv64",
        }
    }

    /// `x86_64`/`x86-64`/`amd64`, `ppc64le`, `aarch64`/`arm64`, `riscv64`.
    pub fn from_name(name: &str) -> Option<Isa> {
        match name.to_ascii_lowercase().as_str() {
            "x86_64" | "x86-64" | "amd64" => Some(Isa::X86_64),
            "ppc64le" | "powerpc64le" => Some(Isa::Ppc64le),
            "aarch64" | "arm64" => Some(Isa::Aarch64),
            "riscv64" => Some(Isa::Riscv64),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for isa in Isa::ALL {
            assert_eq!(Isa::from_name(isa.name()), Some(isa));
        }
        assert_eq!(Isa::from_name("arm64"), Some(Isa::Aarch64));
        assert_eq!(Isa::from_name("mips"), None);
    }
}
