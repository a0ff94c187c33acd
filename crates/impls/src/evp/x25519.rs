//! X25519 through BoringSSL's calls (`X25519_keypair`, `X25519_public_from_private`, `X25519`),
//! which AWS-LC and BoringSSL both export: the library's own X25519 for the X25519MLKEM768
//! pq_suite.rs composes from its ML-KEM-768 (crate::hybrid_kem).
#![allow(non_snake_case)]

use crate::hybrid_kem::X25519;
use crate::suite::Res;
use std::os::raw::c_int;

crate::dynamic_api! {
    X25519Api, "libcrypto with BoringSSL's X25519 calls";
    required {
        X25519_keypair: fn(*mut u8, *mut u8);
        X25519_public_from_private: fn(*mut u8, *const u8);
        X25519: fn(*mut u8, *const u8, *const u8) -> c_int;
    }
    optional {}
}

impl X25519 for X25519Api {
    fn pair(&self, private: Option<&[u8; 32]>) -> ([u8; 32], [u8; 32]) {
        let mut public = [0u8; 32];
        match private {
            // SAFETY: 32-byte buffers, as the prototypes ask.
            Some(own) => unsafe {
                (self.X25519_public_from_private)(public.as_mut_ptr(), own.as_ptr());
                (public, *own)
            },
            None => {
                let mut own = [0u8; 32];
                // SAFETY: as above.
                unsafe { (self.X25519_keypair)(public.as_mut_ptr(), own.as_mut_ptr()) };
                (public, own)
            }
        }
    }

    fn shared(&self, private: &[u8; 32], peer: &[u8; 32], out: &mut [u8; 32]) -> Res<()> {
        // SAFETY: 32-byte buffers; X25519 returns 0 for a low-order peer key.
        match unsafe { (self.X25519)(out.as_mut_ptr(), private.as_ptr(), peer.as_ptr()) } {
            1 => Ok(()),
            _ => Err(format!("{}'s X25519 rejected the peer key", self.path)),
        }
    }
}
