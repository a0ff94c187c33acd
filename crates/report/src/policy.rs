//! The Content Security Policy every HTML page cryptospeed writes carries (the report, the results
//! site): no script, no fetch of any kind, inline styles and `data:` images only, so a page shows
//! the same offline and from any static host and cannot reach out.

pub const CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";
