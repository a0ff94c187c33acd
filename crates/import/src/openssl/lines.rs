//! What a line of an `openssl speed` log is, read from its text alone: a table header or row,
//! a time or a rate, a shell command or prompt, noise; and the time-and-rate pairs of the
//! public-key rows, checked against each other.

use super::*;

pub(super) fn join(sizes: &[u64]) -> String {
    sizes
        .iter()
        .map(|s| s.to_string())
        .collect::<Vec<_>>()
        .join(":")
}

/// `0.000241s 0.000016s 4152.0 62365.7`: `count` times with an `s`, then `count` rates. Returns
/// the rates, after checking each time agrees with its rate as far as rounding allows.
pub(super) fn times_and_rates(
    n: usize,
    figures: &[&str],
    count: usize,
) -> Result<Vec<f64>, ImportError> {
    if figures.len() != 2 * count {
        return Err(ImportError::at(n, format!("expected {count} time(s) in seconds and {count} rate(s), found {} value(s) — truncated?", figures.len())));
    }
    let mut rates = Vec::new();
    for i in 0..count {
        let (t, r) = (figures[i], figures[count + i]);
        let time = time_value(t).ok_or_else(|| {
            ImportError::at(n, format!("expected a time like '0.000241s', found '{t}'"))
        })?;
        let rate = number(r)
            .filter(|v| *v >= 0.0)
            .ok_or_else(|| ImportError::at(n, format!("'{r}' is not a rate per second")))?;
        // `0.000000s … 0.0`: an operation not run (cryptospeed's own `show` writes a KEM or
        // signature row so when only some of its operations were timed); a rate of 0 is n/a.
        if time == 0.0 && rate == 0.0 {
            rates.push(0.0);
            continue;
        }
        let time_range = rounding::interval(t.trim_end_matches('s'), time);
        let rate_range = rounding::interval(r, rate);
        if !rounding::time_matches_rate(time_range, rate_range) {
            return Err(ImportError::at(
                n,
                format!(
                    "time '{t}' and rate '{r}' disagree beyond rounding (1/{r} = {:.7}s, outside [{:.7}, {:.7}]s): the row is garbled",
                    1.0 / rate,
                    time_range.0,
                    time_range.1,
                ),
            ));
        }
        rates.push(rate);
    }
    Ok(rates)
}

/// A printed time: `0.000241s`, or `infs` where openssl divided by a zero rate.
pub(super) fn time_value(t: &str) -> Option<f64> {
    let body = t.strip_suffix('s')?;
    if body == "inf" {
        return Some(f64::INFINITY);
    }
    number(body).filter(|v| *v >= 0.0)
}

pub(super) fn is_time_token(w: &str) -> bool {
    time_value(w).is_some()
}

/// The header of a public-key table, and which table it opens.
pub(super) fn public_key_header(t: &str) -> Option<Table> {
    if !(t.contains("/s") && (t.contains("sign") || t.contains("op") || t.contains("keygen"))) {
        return None;
    }
    Some(if t.contains("encaps/s") {
        Table::Kem
    } else if t.contains("keygens/s") {
        Table::Signature
    } else if t.contains("encr./s") {
        Table::RsaFull
    } else {
        Table::PublicKey
    })
}

/// Whether a line can be a row of the symmetric table: its last field is a value as openssl
/// prints them (`1234.56k`, `812.40`). A row that passes this and then fails to read is an
/// error; a line that does not (`real 0m3.007s`, a fence, a prompt) is skipped.
pub(super) fn looks_like_row(t: &str) -> bool {
    let tokens: Vec<&str> = t.split_whitespace().collect();
    tokens.len() >= 2
        && tokens
            .last()
            .is_some_and(|last| number(last.strip_suffix('k').unwrap_or(last)).is_some())
}

/// `H:…`, `F:…`, `F2:…`, `DT:…`, `R3:…`: an `-mr` line (not a `+` that merely starts a line).
pub(super) fn is_mr_tag(rest: &str) -> bool {
    rest.split_once(':').is_some_and(|(tag, _)| {
        !tag.is_empty()
            && tag.len() <= 4
            && tag
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
    })
}

pub(super) fn is_command_line(t: &str) -> bool {
    let body = strip_prompt(t);
    (body != t && !body.is_empty() && !body.starts_with(|c: char| c.is_ascii_digit()))
        || speed_command_at(t).is_some()
}

/// Where `openssl speed`, `openssl.exe speed` or a bare `speed ` (the `OpenSSL>` prompt) starts.
pub(super) fn speed_command_at(t: &str) -> Option<usize> {
    ["openssl speed", "openssl.exe speed", "openssl  speed"]
        .iter()
        .filter_map(|p| t.find(p))
        .min()
        .or_else(|| t.starts_with("speed ").then_some(0))
}

/// The command without the shell prompt: `alix:~# openssl speed …`, `$ time ./apps/openssl speed
/// …` and `OpenSSL> speed …` give `openssl speed …`, `./apps/openssl speed …`, `speed …`.
pub(super) fn strip_prompt(t: &str) -> &str {
    for p in ["$ ", "# ", "% ", "> ", "OpenSSL> "] {
        if let Some(rest) = t.strip_prefix(p) {
            return strip_prompt(rest.trim());
        }
    }
    if let Some(at) = speed_command_at(t) {
        let start = t[..at]
            .rfind(char::is_whitespace)
            .map(|i| i + 1)
            .unwrap_or(0);
        return t[start..].trim();
    }
    t
}

/// Lines openssl speed prints on stdout that carry no figures.
pub(super) fn is_noise(t: &str) -> bool {
    const PREFIXES: &[&str] = &[
        "To get the most accurate results",
        "program when this computer is idle",
        "First we calculate the approximate speed",
        "WARNING",
        "Warning",
        "Don't understand line",
        "You have chosen to measure elapsed time",
        "instead of user CPU time",
    ];
    // Error messages (`Error initializing …`, an error-stack line `40E7…:error:…`, `… failure`)
    // are not noise: they are stderr merged by `2>&1`, skipped and listed for the user to see.
    PREFIXES.iter().any(|p| t.starts_with(p))
}

pub(super) fn shorten(t: &str) -> String {
    if t.chars().count() > 80 {
        format!("{}…", t.chars().take(80).collect::<String>())
    } else {
        t.to_string()
    }
}
