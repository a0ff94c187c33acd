//! The same code path natively and traced: valgrind's synthetic CPU hides AVX-512, SHA-NI and
//! VAES, so the library takes another path under it. The native run is repeated under the
//! CPU-feature mask derived from the two capability vectors, so both figures describe the same
//! code; the unmasked figure is kept beside it.

use crate::ImplChoice;
use anyhow::Result;
use cryptospeed_engine::mask::FeatureMask;
use cryptospeed_model::{CellSpec, Measurement, Variant};
use std::sync::atomic::AtomicBool;

/// The native run again, under the mask that hides what valgrind's CPU lacks.
pub(super) struct SamePath {
    pub mask: FeatureMask,
    pub variant: Variant,
    pub measurement: Measurement,
}

/// Measures the cell natively on the traced code path: a mask derived from the two capability
/// vectors, when the implementation honours one; None (with a note) when it cannot.
pub(super) fn same_path_native(
    choice: &ImplChoice,
    cell: &CellSpec,
    native_caps: &str,
    traced_caps: &str,
    cancel: &AtomicBool,
) -> Result<Option<SamePath>> {
    let Some(mask) = traced_path_mask(native_caps, traced_caps) else {
        return Ok(None);
    };
    let mut masked = choice.clone();
    masked.mask = mask.clone();
    if let Err(e) = masked.spec(None) {
        eprintln!("cryptospeed: no native figure on the traced path: {e:#}");
        return Ok(None);
    }
    eprintln!("cryptospeed: native run again under --mask {mask}, the traced code path");
    let (variant, measurement, _) = super::native(&masked, cell, cancel)?;
    Ok(Some(SamePath {
        mask,
        variant,
        measurement,
    }))
}

/// The two 64-bit words of an `OPENSSL_ia32cap=0x…:0x…` capability vector.
fn ia32cap_words(caps: &str) -> Option<(u64, u64)> {
    let v = caps.split_once("OPENSSL_ia32cap=")?.1;
    let (a, b) = v.split_once(':')?;
    let hex = |s: &str| u64::from_str_radix(s.trim().trim_start_matches("0x"), 16).ok();
    Some((hex(a)?, hex(b.split_whitespace().next()?)?))
}

/// Every maskable extension the native CPU has and valgrind's lacks entirely (all of its
/// OPENSSL_ia32cap bits absent under valgrind): the mask that makes the native run take the
/// traced path. None when there is no such extension or the vectors are not OpenSSL's.
pub(super) fn traced_path_mask(native: &str, traced: &str) -> Option<FeatureMask> {
    let (n, t) = (ia32cap_words(native)?, ia32cap_words(traced)?);
    let hidden: Vec<&str> = FeatureMask::names()
        .into_iter()
        .filter(|name| name.starts_with("no-"))
        .filter(|name| {
            let Some(cap) = FeatureMask::parse(name)
                .ok()
                .and_then(|m| m.openssl_ia32cap())
            else {
                return false;
            };
            // "~0xW0:~0xW1": the bits this mask clears.
            let Some((b0, b1)) =
                ia32cap_words(&format!("OPENSSL_ia32cap={}", cap.replace('~', "")))
            else {
                return false;
            };
            let has = (n.0 & b0) | (n.1 & b1) != 0;
            let kept = (n.0 & b0 & t.0) | (n.1 & b1 & t.1) != 0;
            has && !kept
        })
        .collect();
    (!hidden.is_empty()).then(|| FeatureMask::parse(&hidden.join(",")).ok())?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_traced_path_mask_hides_what_valgrind_lacks() {
        // This project's EPYC natively and under valgrind 3.19 (docs/profile.md).
        let native = "OPENSSL_ia32cap=0xfffa3203078bffff:0x405fc6f1bf07ab";
        let traced = "OPENSSL_ia32cap=0x7ffaf3ffffebffff:0x427aa";
        let m = traced_path_mask(native, traced).unwrap();
        assert_eq!(m.to_string(), "no-avx512+no-shani+no-vaes");
        assert!(traced_path_mask(native, native).is_none());
        assert!(traced_path_mask("libgcrypt 1.10", traced).is_none());
    }
}
