//! What every known-answer driver shares: the message a wrong answer gets, and the corrupted
//! signature a verifier must reject. One copy, so the suite and the OpenSSL module report alike.

/// "WHAT: got …, expected …" with both in hex.
pub(crate) fn mismatch(what: &str, got: &[u8], want: &[u8]) -> String {
    format!(
        "{what}: got {}, expected {}",
        hex::encode(got),
        hex::encode(want)
    )
}

/// The signature with one bit of its middle byte flipped: a verifier that accepts it checks
/// nothing.
pub(crate) fn corrupt(sig: &[u8]) -> Vec<u8> {
    let mut bad = sig.to_vec();
    if let Some(b) = bad.get_mut(sig.len() / 2) {
        *b ^= 0x40;
    }
    bad
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_corrupted_signature_differs_in_one_bit() {
        let sig = [0u8; 9];
        let bad = corrupt(&sig);
        let flipped: u32 = sig
            .iter()
            .zip(&bad)
            .map(|(a, b)| (a ^ b).count_ones())
            .sum();
        assert_eq!(flipped, 1);
        assert!(corrupt(&[]).is_empty());
        assert_eq!(mismatch("x", &[1], &[2]), "x: got 01, expected 02");
    }
}
