//! Fuzzes the openssl_human log reader: no input may panic; errors must name a line inside the input.
#![no_main]

use cryptospeed_import::{parse, ImportOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        for decrypt in [false, true] {
            match parse(text, Some("openssl-speed"), &ImportOptions { decrypt }) {
                Ok(runs) => {
                    for run in runs {
                        assert!(run.first_line <= run.last_line);
                        assert!(run.results.iter().all(|r| r.rate.is_finite() && r.rate >= 0.0));
                    }
                }
                Err(e) => assert!(e.line <= text.lines().count() + 1, "{e}"),
            }
        }
        // Sniffing must not panic either.
        let _ = parse(text, None, &ImportOptions::default());
    }
});
