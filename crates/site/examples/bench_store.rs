//! Fills a SQLite store with synthetic measured runs for the site's scale benchmark
//! (`scripts/bench-site`): `cargo run --release -p cryptospeed-site --example bench_store -- DB RUNS`.
//! Four machines of different clocks, three pairs of variants (three OpenSSL releases beside ring,
//! RustCrypto and AWS-LC), 25 bulk primitives of the catalog at five sizes: 250 cells a run, each
//! with its summary and TSC ticks (no samples: the site draws from summaries). Each run goes in
//! through the store's own `copy_run`, one transaction per run.

use cryptospeed_model::*;
use cryptospeed_store::{SqliteStore, Store};

const SIZES: [u64; 5] = [16, 64, 256, 1024, 8192];
const PAIRS: [[(&str, &str, &str); 2]; 3] = [
    [
        ("openssl-3.0.19", "openssl", "3.0.19"),
        ("ring", "ring", "0.17.14"),
    ],
    [
        ("openssl-3.5.5", "openssl", "3.5.5"),
        ("rustcrypto", "rustcrypto", "0.10"),
    ],
    [
        ("openssl-4.0.3", "openssl", "4.0.3"),
        ("aws-lc", "aws-lc", "1.66.2"),
    ],
];

/// A small deterministic generator (SplitMix64), so every store made with the same arguments
/// holds the same figures.
struct Mix(u64);

impl Mix {
    fn unit(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn machine(i: usize) -> Machine {
    Machine {
        hostname: format!("bench-node-{i}"),
        cpu_model: [
            "AMD EPYC 7B13",
            "Intel Xeon Platinum 8481C",
            "AMD EPYC 9B14",
            "Ampere Altra",
        ][i]
            .into(),
        cores: 2 + 2 * i as u32,
        threads: 2 + 2 * i as u32,
        tsc_hz: [2.6e9, 2.0e9, 2.25e9, 3.0e9][i],
        constant_tsc: true,
        kernel: "6.1.0".into(),
        os: "Debian GNU/Linux 12 (bookworm)".into(),
        arch: if i == 3 { "aarch64" } else { "x86_64" }.into(),
        ..Machine::default()
    }
}

fn variant(v: (&str, &str, &str)) -> Variant {
    Variant {
        label: v.0.into(),
        implementation: v.1.into(),
        version: v.2.into(),
        ..Variant::default()
    }
}

fn measurement(
    (primitive, op): (&str, Op),
    bytes: u64,
    ns: f64,
    tsc_hz: f64,
    mix: &mut Mix,
) -> Measurement {
    let ns = ns * (1.0 + 0.02 * (mix.unit() - 0.5));
    let half = ns * 0.005;
    Measurement {
        cell: CellSpec {
            primitive: primitive.into(),
            op,
            bytes: Some(bytes),
            misalign: 0,
        },
        status: Status::Ok,
        reason: None,
        summary: Some(Summary {
            n: 60,
            median: ns,
            ci_lo: ns - half,
            ci_hi: ns + half,
            mad: half,
            outliers: 0,
            min: ns - 2.0 * half,
            max: ns + 4.0 * half,
        }),
        tsc_per_op: Some(ns * tsc_hz / 1e9),
        cpu_fraction: Some(0.99),
        samples: Vec::new(),
        elapsed_s: 0.3,
        reported_rate: None,
        disturbances: Vec::new(),
        flights: Vec::new(),
    }
}

fn record(k: usize, primitives: &[(&str, Op)], mix: &mut Mix) -> RunRecord {
    let (m, pair) = (k % 4, (k / 4) % 3);
    let machine = machine(m);
    let mut measurements = Vec::new();
    for (vi, v) in PAIRS[pair].iter().enumerate() {
        for (pi, p) in primitives.iter().enumerate() {
            for b in SIZES {
                let ns = (40.0 + 3.0 * pi as f64 + b as f64 * (0.5 + 0.1 * pi as f64))
                    * (1.0 + 0.15 * vi as f64)
                    / (1.0 + 0.1 * m as f64);
                measurements.push(VariantMeasurement {
                    variant: v.0.into(),
                    implementation: v.1.into(),
                    measurement: measurement(*p, b, ns, machine.tsc_hz, mix),
                    definition: None,
                });
            }
        }
    }
    let started = format!(
        "2026-{:02}-{:02}T{:02}:{:02}:00.000Z",
        1 + k / 1000 % 12,
        1 + k / 40 % 28,
        k / 2 % 24,
        k % 60
    );
    RunRecord {
        run: RunInfo {
            id: 0,
            label: Some(format!("nightly-{}", k / 12)),
            started_at: started.clone(),
            finished_at: Some(started),
            command: "cryptospeed run --impl openssl,ring -b 16,64,256,1024,8192".into(),
            tool_version: "0.1.0".into(),
            status: RunStatus::Complete,
            config: MeasureConfig::default(),
            imported: None,
            uid: None,
            conditions: None,
        },
        machine,
        variants: PAIRS[pair].iter().map(|v| variant(*v)).collect(),
        measurements,
    }
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let (Some(db), Some(runs)) = (args.get(1), args.get(2)) else {
        anyhow::bail!(
            "usage: bench_store DB RUNS [FIRST]: adds RUNS runs (numbered from FIRST, default 0)"
        );
    };
    let runs: usize = runs.parse()?;
    let first: usize = args.get(3).map_or(Ok(0), |f| f.parse())?;
    let primitives: Vec<(&str, Op)> = cryptospeed_catalog::all()
        .iter()
        .filter(|p| p.has_bytes() && p.default_ops().len() == 1)
        .map(|p| (p.id, p.default_ops()[0]))
        .take(25)
        .collect();
    let mut store = SqliteStore::open(std::path::Path::new(db))?;
    let mut mix = Mix(first as u64);
    for k in first..first + runs {
        let rec = record(k, &primitives, &mut mix);
        store.copy_run(&format!("{k:032x}"), &rec, &[])?;
    }
    eprintln!(
        "bench_store: {runs} run(s) of {} cells added to {db}",
        primitives.len() * SIZES.len() * 2
    );
    Ok(())
}
