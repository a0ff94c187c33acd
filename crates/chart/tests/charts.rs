//! Chart output checked three ways: byte-for-byte snapshots of fixed fixtures (any change to the
//! drawing shows up in review), a real SVG parser (usvg, which resvg renders with) accepting every
//! chart, and the PNG rasterisation showing the series' colours.

use cryptospeed_chart::*;
use resvg::{tiny_skia, usvg};

fn throughput_fixture() -> LineChart {
    let mut c = LineChart::new(
        "throughput-aes-128-cbc",
        "throughput",
        "aes-128-cbc encrypt: throughput by message size",
        Axis::log2("message size (bytes)", TickFormat::Bytes),
        Axis::linear("throughput (MB/s, 10⁶ bytes/s)", TickFormat::Number),
    );
    let sizes = [16.0, 64.0, 256.0, 1024.0, 8192.0, 16384.0];
    for (k, name) in ["openssl-3.0.19", "gcc-12 -O3", "<script>alert(1)</script>"]
        .iter()
        .enumerate()
    {
        c.series.push(Series {
            name: name.to_string(),
            points: sizes
                .iter()
                .enumerate()
                .map(|(i, &x)| {
                    let y = (400.0 + 150.0 * i as f64) * (1.0 + 0.2 * k as f64);
                    Point {
                        x,
                        y,
                        lo: Some(y * 0.97),
                        hi: Some(y * 1.02),
                    }
                })
                .collect(),
        });
    }
    c
}

fn speedup_fixture(series: usize) -> BarChart {
    let mut c = BarChart::new(
        "speedup",
        "speedup",
        "speedup over gcc-11 at 8K",
        "primitive",
        Axis::linear("speedup (× baseline)", TickFormat::Ratio),
    );
    c.categories = ["md5", "sha256", "aes-128-cbc", "chacha20-poly1305"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    c.reference = Some((1.0, "baseline".into()));
    for k in 0..series {
        c.series.push(BarSeries {
            name: if k == 2 {
                "<b>&\"compiler\"".into()
            } else {
                format!("compiler {k}")
            },
            values: (0..4)
                .map(|i| {
                    (i != 3 || k % 2 == 0).then(|| {
                        let v = 0.8 + 0.05 * k as f64 + 0.1 * i as f64;
                        Bar {
                            value: v,
                            lo: Some(v - 0.02),
                            hi: Some(v + 0.03),
                            faded: k == 1,
                            note: None,
                        }
                    })
                })
                .collect(),
        });
    }
    c
}

fn mix_fixture() -> BarChart {
    let mut c = BarChart::new(
        "mix",
        "instruction-mix",
        "instruction mix",
        "profiled cell",
        Axis::linear("share of instructions (%)", TickFormat::Percent),
    );
    c.stacked = true;
    c.categories = vec!["aes-128-cbc (openssl)".into(), "des-cbc (openssl)".into()];
    for (name, a, b) in [
        ("load", 20.0, 30.0),
        ("integer ALU", 30.0, 60.0),
        ("crypto", 50.0, 10.0),
    ] {
        c.series.push(BarSeries {
            name: name.into(),
            values: vec![Some(Bar::new(a)), Some(Bar::new(b))],
        });
    }
    c
}

fn parse(svg: &str) -> usvg::Tree {
    let mut options = usvg::Options::default();
    options.fontdb_mut().load_system_fonts();
    usvg::Tree::from_str(svg, &options).expect("usvg parses the chart")
}

#[test]
fn throughput_line_chart_snapshot() {
    let svg = throughput_fixture().svg();
    parse(&svg);
    insta::assert_snapshot!("throughput", svg);
}

#[test]
fn speedup_bar_chart_snapshot() {
    let svg = speedup_fixture(3).svg();
    parse(&svg);
    insta::assert_snapshot!("speedup", svg);
}

#[test]
fn stacked_mix_snapshot() {
    let svg = mix_fixture().svg();
    parse(&svg);
    insta::assert_snapshot!("mix", svg);
}

#[test]
fn user_text_never_becomes_markup() {
    let line = throughput_fixture().svg();
    let bars = speedup_fixture(3).svg();
    for svg in [&line, &bars] {
        assert!(!svg.contains("<script"), "raw <script> in chart");
        assert!(!svg.contains("<b>"), "raw <b> in chart");
    }
    assert!(line.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(bars.contains("&lt;b&gt;&amp;&quot;compiler&quot;"));
}

#[test]
fn twelve_series_have_twelve_legend_entries_and_distinct_fills() {
    let svg = speedup_fixture(12).svg();
    parse(&svg);
    assert_eq!(svg.matches("class=\"legend-entry\"").count(), 12);
    // Series 10-12 reuse colours 1-3, hatched.
    assert_eq!(svg.matches("<pattern id=\"speedup-hatch-").count(), 3);
    assert!(svg.contains("fill=\"url(#speedup-hatch-9)\""));
    let mut line = throughput_fixture();
    for k in 3..12 {
        let mut s = line.series[0].clone();
        s.name = format!("variant {k}");
        line.series.push(s);
    }
    let svg = line.svg();
    parse(&svg);
    assert_eq!(svg.matches("class=\"legend-entry\"").count(), 12);
    assert!(svg.contains("stroke-dasharray=\"6 3\""));
}

#[test]
fn png_shows_the_series_colours() {
    let svg = speedup_fixture(3).svg();
    let png = to_png(&svg, 1.0).unwrap();
    let pixmap = tiny_skia::Pixmap::decode_png(&png).unwrap();
    let tree = parse(&svg);
    assert_eq!(pixmap.width(), tree.size().width().ceil() as u32);
    let has = |hex: &str| {
        let v = u32::from_str_radix(&hex[1..], 16).unwrap();
        let (r, g, b) = ((v >> 16) as u8, (v >> 8) as u8, v as u8);
        pixmap
            .pixels()
            .iter()
            .any(|p| p.red() == r && p.green() == g && p.blue() == b && p.alpha() == 255)
    };
    assert!(has(PALETTE[0]), "first series colour missing from the PNG");
    assert!(has(PALETTE[2]), "third series colour missing from the PNG");
    // Text was drawn: some dark, non-series pixels exist (glyphs are antialiased black).
    assert!(pixmap
        .pixels()
        .iter()
        .any(|p| p.red() < 40 && p.green() < 40 && p.blue() < 40 && p.alpha() == 255));
}
