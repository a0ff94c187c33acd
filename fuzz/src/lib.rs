//! The property every importer fuzz target checks, written once: no input may panic, every run's
//! line range is ordered, every rate is finite and non-negative, and every error names a line
//! inside the input; every skipped line is a line of the input, listed once, in order. Each
//! target in fuzz_targets/ calls [`check`] with its format family.

use cryptospeed_import::{parse, read, ImportOptions};

pub fn check(data: &[u8], format: &str) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for decrypt in [false, true] {
        match parse(text, Some(format), &ImportOptions { decrypt }) {
            Ok(runs) => {
                for run in runs {
                    assert!(run.first_line <= run.last_line);
                    assert!(run.results.iter().all(|r| r.rate.is_finite() && r.rate >= 0.0));
                }
            }
            Err(e) => assert!(e.line <= text.lines().count() + 1, "{e}"),
        }
    }
    // Sniffing the family must not panic either, and skipped lines are lines of the input.
    if let Ok(log) = read(text, None, &ImportOptions::default()) {
        let lines = text.lines().count();
        assert!(log.skipped.iter().all(|(n, _)| *n >= 1 && *n <= lines));
        assert!(log.skipped.windows(2).all(|w| w[0].0 < w[1].0));
    }
}
