//! Fuzzes the openssl_human log reader (see cryptospeed_fuzz::check for the properties).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| cryptospeed_fuzz::check(data, "openssl-speed"));
