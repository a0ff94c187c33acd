//! What a printed number can stand for. `openssl speed` prints a time per operation and a rate,
//! each rounded by printf from the same unrounded count and time, so `0.001508s` is any time in
//! [0.0015075, 0.0015085] and `662.9` any rate in [662.85, 662.95]. A consistency check between two
//! printed figures must accept every pair one unrounded pair could have produced: it compares
//! intervals, never the printed digits (1/662.9 = 0.0015085 does not contradict 0.001508).

/// Half a unit of the last printed digit: 0.0005 for `1.234`, 0.5 for `12`.
pub(crate) fn half_unit(printed: &str) -> f64 {
    let digits = printed.trim_end_matches(['s', 'k']);
    let decimals = digits.split_once('.').map(|(_, d)| d.len()).unwrap_or(0) as i32;
    0.5 * 10f64.powi(-decimals)
}

/// The interval of unrounded values that print as `printed` (whose value is `value`).
pub(crate) fn interval(printed: &str, value: f64) -> (f64, f64) {
    if value.is_infinite() {
        return (f64::INFINITY, f64::INFINITY);
    }
    let h = half_unit(printed);
    ((value - h).max(0.0), value + h)
}

/// Whether some time t and rate r with t·r = 1 lie in the intervals `time` and `rate`. A rate
/// interval reaching 0 allows any time up to infinity (`infs` next to `0.0`).
pub(crate) fn time_matches_rate(time: (f64, f64), rate: (f64, f64)) -> bool {
    let (t_lo, t_hi) = time;
    let (r_lo, r_hi) = rate;
    let reciprocal = |r: f64| if r > 0.0 { 1.0 / r } else { f64::INFINITY };
    // 1/r over [r_lo, r_hi] is [1/r_hi, 1/r_lo]; the two intervals must overlap. The relative
    // slack only absorbs the binary representation of the printed decimals.
    let (from, to) = (reciprocal(r_hi), reciprocal(r_lo));
    let slack = 1e-9;
    from <= t_hi * (1.0 + slack) && t_lo <= to * (1.0 + slack)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn consistent(time: &str, rate: &str) -> bool {
        let t: f64 = if time == "inf" {
            f64::INFINITY
        } else {
            time.parse().unwrap()
        };
        let r: f64 = rate.parse().unwrap();
        time_matches_rate(interval(time, t), interval(rate, r))
    }

    #[test]
    fn pairs_one_unrounded_pair_could_print_are_consistent() {
        // openssl 1.1.1 on a real machine: 1/662.9 = 0.0015085, printed time 0.001508.
        assert!(consistent("0.001508", "662.9"));
        assert!(consistent("0.000241", "4152.0"));
        assert!(
            consistent("0.0000", "20603.9"),
            "four-decimal ECDSA times round to zero"
        );
        assert!(consistent("73.900000", "0.0"));
        assert!(consistent("6.115000", "0.2"));
        assert!(consistent("inf", "0.0"));
    }

    #[test]
    fn pairs_rounding_cannot_explain_are_not() {
        assert!(!consistent("0.000241", "92365.7"));
        assert!(!consistent("0.001508", "672.9"));
        assert!(!consistent("inf", "1.0"));
        assert!(!consistent("0.0001", "20603.9"));
    }

    #[test]
    fn half_units_follow_the_printed_digits() {
        assert_eq!(half_unit("0.001508s"), 0.0000005);
        assert_eq!(half_unit("662.9"), 0.05);
        assert_eq!(half_unit("12"), 0.5);
        assert_eq!(half_unit("1234.56k"), 0.005);
    }
}
