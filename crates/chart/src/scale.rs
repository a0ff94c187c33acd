//! Axes: linear or logarithmic scales, their domains and tick marks, and tick labels in the
//! axis's unit (message and cache sizes in powers of two, rates and percentages in plain numbers).

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    Linear,
    /// Ticks at powers of two (message sizes, cache sizes).
    Log2,
    /// Ticks at powers of ten.
    Log10,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TickFormat {
    /// Plain numbers (1.5, 200, 1200).
    Number,
    /// Byte counts in binary units (16, 1K, 64K, 1M).
    Bytes,
    /// Numbers already in percent (12.5 → `12.5%`).
    Percent,
    /// Ratios (`1.2×`).
    Ratio,
}

#[derive(Debug, Clone)]
pub struct Axis {
    /// The axis title, with its unit (`throughput (MB/s, 10⁶ bytes/s)`).
    pub label: String,
    pub scale: Scale,
    pub format: TickFormat,
    /// Linear axes start at zero unless the data go below it.
    pub include_zero: bool,
}

impl Axis {
    pub fn linear(label: impl Into<String>, format: TickFormat) -> Axis {
        Axis {
            label: label.into(),
            scale: Scale::Linear,
            format,
            include_zero: true,
        }
    }

    pub fn log2(label: impl Into<String>, format: TickFormat) -> Axis {
        Axis {
            label: label.into(),
            scale: Scale::Log2,
            format,
            include_zero: false,
        }
    }
}

/// An axis fitted to data: its domain and ticks, and the mapping to pixels.
#[derive(Debug, Clone)]
pub(crate) struct Fitted {
    pub scale: Scale,
    pub lo: f64,
    pub hi: f64,
    pub ticks: Vec<(f64, String)>,
}

impl Fitted {
    /// Fits `axis` to the values (non-finite values and, on log scales, values ≤ 0 ignored).
    pub fn new(axis: &Axis, values: impl IntoIterator<Item = f64>) -> Fitted {
        let log = axis.scale != Scale::Linear;
        let vals: Vec<f64> = values
            .into_iter()
            .filter(|v| v.is_finite() && (!log || *v > 0.0))
            .collect();
        let mut lo = vals.iter().copied().fold(f64::INFINITY, f64::min);
        let mut hi = vals.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if vals.is_empty() {
            (lo, hi) = if log { (1.0, 10.0) } else { (0.0, 1.0) };
        }
        match axis.scale {
            Scale::Linear => {
                if axis.include_zero {
                    lo = lo.min(0.0);
                    hi = hi.max(0.0);
                }
                if hi - lo < 1e-12 {
                    let pad = if hi.abs() > 0.0 { hi.abs() * 0.1 } else { 1.0 };
                    lo -= pad;
                    hi += pad;
                    if axis.include_zero && lo < 0.0 && vals.iter().all(|v| *v >= 0.0) {
                        lo = 0.0;
                    }
                }
                let step = nice_step((hi - lo) / 5.0);
                let lo = (lo / step + 1e-9).floor() * step;
                let hi = (hi / step - 1e-9).ceil() * step;
                let mut ticks = Vec::new();
                let mut i = 0;
                loop {
                    let v = lo + step * i as f64;
                    if v > hi + step * 1e-6 {
                        break;
                    }
                    // Snap near-zero float noise.
                    let v = if v.abs() < step * 1e-9 { 0.0 } else { v };
                    ticks.push((v, label(v, axis.format, step)));
                    i += 1;
                }
                Fitted {
                    scale: Scale::Linear,
                    lo,
                    hi,
                    ticks,
                }
            }
            Scale::Log2 | Scale::Log10 => {
                let base: f64 = if axis.scale == Scale::Log2 { 2.0 } else { 10.0 };
                let mut a = lo.log(base).floor() as i32;
                let mut b = hi.log(base).ceil() as i32;
                if a == b {
                    a -= 1;
                    b += 1;
                }
                // At most about a dozen labelled ticks.
                let every = ((b - a) as usize).div_ceil(12).max(1) as i32;
                let ticks = (a..=b)
                    .filter(|e| (e - a) % every == 0)
                    .map(|e| {
                        let v = base.powi(e);
                        (v, label(v, axis.format, v))
                    })
                    .collect();
                Fitted {
                    scale: axis.scale,
                    lo: base.powi(a),
                    hi: base.powi(b),
                    ticks,
                }
            }
        }
    }

    /// Position of `v` between pixel `p0` (at `lo`) and `p1` (at `hi`).
    pub fn map(&self, v: f64, p0: f64, p1: f64) -> f64 {
        let t = match self.scale {
            Scale::Linear => (v - self.lo) / (self.hi - self.lo),
            _ => {
                let v = v.max(self.lo * 1e-3);
                (v.ln() - self.lo.ln()) / (self.hi.ln() - self.lo.ln())
            }
        };
        p0 + t * (p1 - p0)
    }
}

/// 1, 2 or 5 times a power of ten, at least `raw`.
fn nice_step(raw: f64) -> f64 {
    if raw.is_nan() || raw <= 0.0 || !raw.is_finite() {
        return 1.0;
    }
    let p = 10f64.powf(raw.log10().floor());
    // A little slack, so 100.000001 / 5 still gets a step of 20.
    let m = raw / p * (1.0 - 1e-9);
    let f = if m <= 1.0 {
        1.0
    } else if m <= 2.0 {
        2.0
    } else if m <= 5.0 {
        5.0
    } else {
        10.0
    };
    f * p
}

/// A tick label; `step` sets how many decimals a linear tick needs.
pub(crate) fn label(v: f64, format: TickFormat, step: f64) -> String {
    match format {
        TickFormat::Bytes => bytes(v),
        TickFormat::Percent => format!("{}%", number(v, step)),
        TickFormat::Ratio => format!("{}×", number(v, step)),
        TickFormat::Number => number(v, step),
    }
}

/// `v` with as many decimals as `step` needs, thousands grouped with a thin space.
pub(crate) fn number(v: f64, step: f64) -> String {
    let decimals = if step >= 1.0 || step <= 0.0 {
        0
    } else {
        (-step.log10().floor()) as usize
    };
    let s = format!("{v:.decimals$}");
    let (int, frac) = match s.split_once('.') {
        Some((i, f)) => (i.to_string(), Some(f.to_string())),
        None => (s.clone(), None),
    };
    let (sign, digits) = match int.strip_prefix('-') {
        Some(d) => ("-", d.to_string()),
        None => ("", int),
    };
    let mut grouped = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 && digits.len() > 4 {
            grouped.push('\u{2009}');
        }
        grouped.push(c);
    }
    match frac {
        Some(f) => format!("{sign}{grouped}.{f}"),
        None => format!("{sign}{grouped}"),
    }
}

/// 16, 1K, 64K, 1M, 1.5K: binary units, as cache and message sizes are written.
pub fn bytes(v: f64) -> String {
    for (unit, scale) in [("G", 1u64 << 30), ("M", 1 << 20), ("K", 1 << 10)] {
        let s = scale as f64;
        if v >= s {
            let q = v / s;
            return if (q - q.round()).abs() < 1e-9 {
                format!("{}{unit}", q.round() as u64)
            } else {
                format!("{q:.1}{unit}")
            };
        }
    }
    format!("{}", v.round() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_ticks_are_round_and_cover_the_data() {
        let f = Fitted::new(&Axis::linear("y", TickFormat::Number), [3.2, 47.0]);
        assert_eq!(f.lo, 0.0);
        assert_eq!(f.hi, 50.0);
        let labels: Vec<&str> = f.ticks.iter().map(|t| t.1.as_str()).collect();
        assert_eq!(labels, ["0", "10", "20", "30", "40", "50"]);
    }

    #[test]
    fn small_steps_get_decimals_and_large_numbers_are_grouped() {
        let f = Fitted::new(&Axis::linear("y", TickFormat::Ratio), [0.9, 1.3]);
        assert_eq!(f.ticks[1].1, "0.5×");
        assert_eq!(number(1234567.0, 1.0), "1\u{2009}234\u{2009}567");
        assert_eq!(number(1234.0, 1.0), "1234");
    }

    #[test]
    fn log2_ticks_are_sizes() {
        let f = Fitted::new(&Axis::log2("size", TickFormat::Bytes), [16.0, 16384.0]);
        let labels: Vec<&str> = f.ticks.iter().map(|t| t.1.as_str()).collect();
        assert_eq!(labels.first(), Some(&"16"));
        assert_eq!(labels.last(), Some(&"16K"));
        assert!(labels.contains(&"1K"));
        assert_eq!(f.map(16.0, 0.0, 100.0), 0.0);
        assert_eq!(f.map(16384.0, 0.0, 100.0), 100.0);
        assert!((f.map(512.0, 0.0, 100.0) - 50.0).abs() < 1e-9);
    }

    #[test]
    fn rounding_noise_does_not_widen_the_axis() {
        let f = Fitted::new(
            &Axis::linear("y", TickFormat::Percent),
            [100.000000001, 0.0],
        );
        assert_eq!(f.hi, 100.0);
        assert_eq!(f.ticks.len(), 6);
    }

    #[test]
    fn a_single_value_still_gets_a_range() {
        let f = Fitted::new(&Axis::linear("y", TickFormat::Number), [5.0, 5.0]);
        assert!(f.lo <= 0.0 && f.hi >= 5.0);
        let f = Fitted::new(&Axis::log2("x", TickFormat::Bytes), [64.0]);
        assert!(f.lo < 64.0 && f.hi > 64.0);
    }
}
