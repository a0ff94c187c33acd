//! The text report of profiles, one after another: a summary, then tables of the instruction
//! mix, the branch predictors, each cache level's miss rates (by associativity, by line size, by
//! replacement policy) and the ILP limit grid.

use crate::registry::OutputFormat;
use comfy_table::{presets::UTF8_FULL_CONDENSED, Table};
use cryptospeed_sim::analysis::{Analysis, CacheResult, Level};
use cryptospeed_sim::cache::human_size;
use cryptospeed_sim::decode::Class;
use cryptospeed_sim::profile::ProfileDocument;
use cryptospeed_sim::timing::CpiStack;
use std::collections::BTreeMap;
use std::fmt::Write as _;

pub const FORMAT: OutputFormat<[ProfileDocument], ()> = OutputFormat {
    name: "text",
    aliases: &[],
    write,
};

pub fn write(profiles: &[ProfileDocument], _: &()) -> String {
    profiles.iter().map(one).collect::<Vec<_>>().join("\n")
}

fn one(p: &ProfileDocument) -> String {
    let mut s = summary(p);
    let _ = writeln!(s, "\ninstruction mix\n{}", mix_table(p));
    let _ = writeln!(s, "branch predictors\n{}", predictor_table(p));
    for (level, ways) in [(Level::I1, 4u64), (Level::D1, 4), (Level::L2, 8)] {
        s += &cache_tables(&p.analysis, level, ways);
    }
    s += &ilp_table(&p.analysis);
    s += &timing_table(p);
    let a = &p.analysis;
    let _ = writeln!(
        s,
        "trace: {} instructions in all, {:.1} s under {}; {} cache configurations, {} predictors{}{} ILP points{} simulated in {:.1} s",
        p.trace_instructions_total,
        p.trace_seconds,
        match p.tracer.as_str() {
            "qemu" => "qemu-user",
            _ => "valgrind",
        },
        a.caches.len(),
        a.predictors.len(),
        if a.timing.is_empty() { " and " } else { ", " },
        a.ilp.len(),
        if a.timing.is_empty() {
            String::new()
        } else {
            format!(" and {} timing-model cores", a.timing.len())
        },
        p.simulate_seconds
    );
    s
}

fn table() -> Table {
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED);
    t
}

fn pct(n: u64, d: u64) -> String {
    if d == 0 {
        "-".into()
    } else {
        format!("{:.2}%", 100.0 * n as f64 / d as f64)
    }
}

/// What was profiled, how, and the native figures beside the traced ones.
fn summary(p: &ProfileDocument) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "== {} on {} — {} B, {} measured call(s) after {} warm-up, traced with {}{}",
        p.primitive,
        p.implementation,
        p.bytes,
        p.iters,
        p.warmup,
        p.tracer,
        match p.architecture.as_str() {
            "x86_64" => String::new(),
            isa => format!(" ({isa} code)"),
        }
    );
    if let Some(why) = &p.native_skipped {
        let _ = writeln!(s, "{why}");
    }
    if let Some(w) = &p.path_warning {
        let _ = writeln!(s, "warning: {w}");
    }
    let _ = writeln!(
        s,
        "instructions (measured part): {} · {:.3} instructions/byte · TSC cycles/byte (native): {}",
        p.instructions,
        p.instructions_per_byte,
        p.tsc_cycles_per_byte
            .map(|c| format!("{c:.3}"))
            .unwrap_or_else(|| "-".into())
    );
    if let Some(mask) = &p.native_mask {
        let _ = writeln!(
            s,
            "native figure measured under --mask {mask}, derived from what valgrind's CPU lacks, so it times the traced code path (capabilities {}); unmasked, the CPU's own path: {} TSC cycles/byte",
            p.capabilities_masked.as_deref().unwrap_or("-"),
            p.tsc_cycles_per_byte_unmasked
                .map(|c| format!("{c:.3}"))
                .unwrap_or_else(|| "-".into())
        );
    }
    if let Some(t) = p.default_timing() {
        let _ = writeln!(
            s,
            "timing model, default core: {:.3} core cycles/byte, IPC {:.2}",
            p.model_cycles_per_byte(&t.result),
            t.result.ipc
        );
    }
    if let Some(c) = p.tsc_cycles_per_byte {
        let _ = writeln!(
            s,
            "traced instructions per native TSC cycle: {:.2} (TSC cycles are reference cycles: with turbo the core runs faster and its real IPC is lower by that ratio; meaningful only when the traced path is the native one)",
            p.instructions_per_byte / c
        );
    }
    let _ = match &p.counters {
        Ok(v) => writeln!(
            s,
            "hardware counters (native run, whole worker during the measurement): {}",
            v.values
                .iter()
                .map(|(n, x)| format!("{n} {x}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Err(e) => writeln!(s, "hardware counters: {e}"),
    };
    s
}

fn mix_table(p: &ProfileDocument) -> Table {
    let m = &p.mix;
    let mut t = table();
    t.set_header(vec!["class", "instructions", "share"]);
    for c in Class::ALL {
        let n = m.by_class.get(&c).copied().unwrap_or(0);
        if n > 0 {
            t.add_row(vec![
                c.name().to_string(),
                n.to_string(),
                pct(n, m.instructions),
            ]);
        }
    }
    for (name, n) in [
        ("(reading memory)", m.reading_memory),
        ("(writing memory)", m.writing_memory),
    ] {
        t.add_row(vec![
            name.to_string(),
            n.to_string(),
            pct(n, m.instructions),
        ]);
    }
    t
}

fn predictor_table(p: &ProfileDocument) -> Table {
    let mut t = table();
    t.set_header(vec![
        "predictor",
        "conditional",
        "taken",
        "mispredicted",
        "hit rate",
        "indirect (mispredicted)",
    ]);
    for r in &p.analysis.predictors {
        let c = r.counts;
        t.add_row(vec![
            r.predictor.clone(),
            c.conditional.to_string(),
            pct(c.conditional_taken, c.conditional),
            c.conditional_mispredicted.to_string(),
            format!("{:.3}%", 100.0 * r.hit_rate),
            format!("{} ({})", c.indirect, c.indirect_mispredicted),
        ]);
    }
    t
}

/// A column of a miss-rate table: its heading and which configuration it shows.
type Column = (String, Box<dyn Fn(&CacheResult) -> bool>);

/// One level's three miss-rate tables: by associativity, by line size, by policy.
fn cache_tables(a: &Analysis, level: Level, ways: u64) -> String {
    let name = level.name();
    let by_assoc: Vec<Column> = [1u64, 2, 4, 8, 16]
        .into_iter()
        .map(|w| -> Column {
            let heading = if w == 1 {
                "direct".into()
            } else {
                format!("{w}-way")
            };
            let pick = move |c: &CacheResult| {
                c.config.assoc == w && c.config.line == 64 && c.config.policy == "lru"
            };
            (heading, Box::new(pick))
        })
        .collect();
    let by_line: Vec<Column> = [8u64, 16, 32, 64]
        .into_iter()
        .map(|l| -> Column {
            let pick = move |c: &CacheResult| {
                c.config.line == l && c.config.assoc == ways && c.config.policy == "lru"
            };
            (format!("{l} B"), Box::new(pick))
        })
        .collect();
    let by_policy: Vec<Column> = cryptospeed_sim::cache::policy_names()
        .into_iter()
        .map(|pol| -> Column {
            let pick = move |c: &CacheResult| {
                c.config.policy == pol && c.config.assoc == ways && c.config.line == 64
            };
            (pol.to_string(), Box::new(pick))
        })
        .collect();
    let titles = [
        format!("{name} miss rate by size and associativity (64 B lines, LRU)"),
        format!("{name} miss rate by size and line size ({ways}-way, LRU)"),
        format!("{name} miss rate by size and replacement policy ({ways}-way, 64 B lines)"),
    ];
    let mut s = miss_table(a, level, &titles[0], &by_assoc);
    s += &miss_table(a, level, &titles[1], &by_line);
    s += &miss_table(a, level, &titles[2], &by_policy);
    s
}

fn miss_table(a: &Analysis, level: Level, title: &str, columns: &[Column]) -> String {
    let rows: Vec<&CacheResult> = a.caches.iter().filter(|c| c.level == level).collect();
    let mut sizes: Vec<u64> = rows.iter().map(|c| c.config.size).collect();
    sizes.sort_unstable();
    sizes.dedup();
    let mut t = table();
    let mut header = vec!["size".to_string()];
    header.extend(columns.iter().map(|(n, _)| n.clone()));
    t.set_header(header);
    for s in sizes {
        let mut row = vec![human_size(s)];
        for (_, pick) in columns {
            row.push(
                rows.iter()
                    .find(|c| c.config.size == s && pick(c))
                    .map(|c| format!("{:.3}%", 100.0 * c.miss_rate))
                    .unwrap_or_else(|| "-".into()),
            );
        }
        t.add_row(row);
    }
    format!("{title}\n{t}\n")
}

/// Achievable IPC by instruction window (rows) and issue width (columns).
fn ilp_table(a: &Analysis) -> String {
    let mut by: BTreeMap<usize, BTreeMap<usize, f64>> = BTreeMap::new();
    for r in &a.ilp {
        by.entry(r.window).or_default().insert(r.width, r.ipc);
    }
    let widths: Vec<usize> = by
        .values()
        .next()
        .map(|m| m.keys().copied().collect())
        .unwrap_or_default();
    let mut t = table();
    let mut header = vec!["window \\ width".to_string()];
    header.extend(widths.iter().map(|w| w.to_string()));
    t.set_header(header);
    for (w, row) in &by {
        let mut r = vec![w.to_string()];
        r.extend(
            widths
                .iter()
                .map(|x| format!("{:.2}", row.get(x).copied().unwrap_or(0.0))),
        );
        t.add_row(r);
    }
    format!(
        "ILP limit: achievable IPC by instruction window and issue width ({} instructions; dataflow through registers and memory, perfect caches and prediction)\n{t}\n",
        a.ilp_instructions
    )
}

/// The timing model at every sweep point: IPC, modelled cycles per byte and the CPI stack in
/// shares of the cycles. Nothing when the model did not run (older documents).
fn timing_table(p: &ProfileDocument) -> String {
    let runs = &p.analysis.timing;
    let Some(first) = runs.first() else {
        return String::new();
    };
    let mut t = table();
    let mut header = vec![
        "sweep".to_string(),
        "value".into(),
        "IPC".into(),
        "cycles/byte".into(),
    ];
    header.extend(CpiStack::NAMES.iter().map(|n| n.to_string()));
    t.set_header(header);
    for r in runs {
        let cycles = r.result.cycles;
        let mut row = vec![
            r.sweep.clone(),
            r.x.clone(),
            format!("{:.3}", r.result.ipc),
            format!("{:.3}", p.model_cycles_per_byte(&r.result)),
        ];
        row.extend(r.result.cpi.values().iter().map(|v| pct(*v, cycles)));
        t.add_row(row);
    }
    let tsc = p
        .tsc_cycles_per_byte
        .map(|c| format!("; native: {c:.3} TSC cycles/byte"))
        .unwrap_or_default();
    format!(
        "timing model: {} instructions timed after {} warm-up instructions warmed its caches and predictor; cycles/byte = model CPI × {:.3} instructions/byte{tsc} (default core: docs/profile.md; each sweep changes one thing)\n{t}\n",
        first.result.instructions, first.result.warmed, p.instructions_per_byte
    )
}

#[cfg(test)]
mod tests {
    use super::super::fixture::document;

    #[test]
    fn same_bytes_as_before_the_move() {
        let expected = include_str!("../../tests/data/profile-md5-64.txt");
        assert_eq!(super::write(&[document()], &()), expected);
    }

    #[test]
    fn the_native_figures_and_counters_are_shown_when_there() {
        let mut doc = document();
        doc.tsc_cycles_per_byte = Some(8.5);
        doc.counters = Ok(cryptospeed_model::CounterValues {
            values: vec![("cycles".into(), 1200)],
        });
        let text = super::write(&[doc], &());
        assert!(text.contains("TSC cycles/byte (native): 8.500"), "{text}");
        assert!(
            text.contains("instructions per native TSC cycle: 5.00"),
            "{text}"
        );
        assert!(text.contains("measurement): cycles 1200\n"), "{text}");
    }
}
