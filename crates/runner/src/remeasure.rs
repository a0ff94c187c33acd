//! `compare BASE NEW --remeasure`: a stored baseline made comparable by timing both sides' builds
//! again, now, in one interleaved run, so the comparison is the paired within-run one instead of
//! one across runs (which on a noisy host calls nothing different). Each stored side's variant
//! record (implementation, library, build record, CPU-feature mask, replica tag) is turned back
//! into the [`ImplChoice`] that runs that build; a worker started from it must describe itself
//! exactly as the stored record does (same library, version, build record, capabilities), and a
//! cached variant passes its usual checks (its files' hashes, its known-answer tests), or the side
//! is refused with the reason. The new run goes through the same [`Plan`] and run loop as
//! `cryptospeed run`; the stored runs are only read.

use crate::{variant_of, ImplChoice, Plan, RunRequest};
use anyhow::{bail, Result};
use cryptospeed_engine::mask::FeatureMask;
use cryptospeed_impls::MaskControl;
use cryptospeed_model::{CellSpec, Machine, MeasureConfig, RunRecord, Variant};
use std::sync::atomic::AtomicBool;

/// One side of a stored comparison: its name, the variant it keeps and the runs it pools.
#[derive(Debug, Clone, Copy)]
pub struct StoredSide<'a> {
    pub name: &'a str,
    pub variant: &'a str,
    pub records: &'a [RunRecord],
}

/// A side that cannot be timed again, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub side: String,
    pub reason: String,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "side '{}' cannot be re-measured: {}",
            self.side, self.reason
        )
    }
}

/// The run that re-measures the sides, ready for [`crate::execute`].
#[derive(Debug, Clone)]
pub struct Remeasure {
    /// The shared cells, one variant per re-measured side, the baseline's stored settings.
    pub plan: Plan,
    /// The label the new run is stored under, naming the runs it re-measures: `remeasure-1-2`.
    pub label: String,
    /// Each re-measured side (its index among the sides given) and its variant label in the new
    /// run (the stored label; a second side of the very same build gets a replica tag).
    pub remeasured: Vec<(usize, String)>,
    /// The sides left out, with the reason.
    pub refused: Vec<Refusal>,
}

/// Builds the run that times the sides again: every side that can still be loaded on this
/// machine, on the cells they all share that `keep` keeps. Fails, saying why for each side, when
/// the baseline or all but one side cannot be re-measured.
pub fn prepare(
    sides: &[StoredSide],
    baseline: usize,
    keep: &dyn Fn(&CellSpec) -> bool,
    cancel: &AtomicBool,
) -> Result<Remeasure> {
    let here = cryptospeed_engine::machine::probe();
    let (mut chosen, mut refused) = (Vec::new(), Vec::new());
    for (i, side) in sides.iter().enumerate() {
        match rebuild(side, &here, cancel) {
            Ok(choice) => chosen.push((i, choice)),
            Err(reason) => refused.push(Refusal {
                side: side.name.to_string(),
                reason,
            }),
        }
    }
    if chosen.len() < 2 || !chosen.iter().any(|(i, _)| *i == baseline) {
        bail!("{}", refusal_text(sides, baseline, &refused));
    }
    let remeasured = distinct_labels(sides, &mut chosen);
    let kept: Vec<StoredSide> = chosen.iter().map(|(i, _)| sides[*i]).collect();
    let cells: Vec<CellSpec> = shared_cells(&kept).into_iter().filter(keep).collect();
    if cells.is_empty() {
        bail!("the sides share no measured cell to re-measure (after the filters)");
    }
    let mut plan = request(config_of(&sides[baseline]), cells).plan()?;
    plan.variants = chosen.into_iter().map(|(_, c)| c).collect();
    Ok(Remeasure {
        plan,
        label: label_of(&kept),
        remeasured,
        refused,
    })
}

/// Why nothing can be re-measured: each refused side's reason, and what is still possible.
fn refusal_text(sides: &[StoredSide], baseline: usize, refused: &[Refusal]) -> String {
    let mut lines: Vec<String> = refused.iter().map(|r| r.to_string()).collect();
    let why = if refused.iter().any(|r| r.side == sides[baseline].name) {
        "the baseline cannot be timed again"
    } else {
        "fewer than two sides can be timed again"
    };
    lines.push(format!(
        "--remeasure needs the baseline and another side it can time again now ({why}); the stored runs are unchanged, and `compare` without --remeasure compares their stored figures"
    ));
    lines.join("\n")
}

/// The choice that runs a side's build now, or why there is none.
fn rebuild(side: &StoredSide, here: &Machine, cancel: &AtomicBool) -> Result<ImplChoice, String> {
    let runs: Vec<&RunRecord> = side
        .records
        .iter()
        .filter(|r| r.variants.iter().any(|v| v.label == side.variant))
        .collect();
    for r in &runs {
        loadable_here(r, here)?;
    }
    let stored = one_build(&runs, side.variant)?;
    // The most specific candidate's reason is the one worth reading.
    let mut first_reason = None;
    for choice in candidates(stored)? {
        match matches_now(&choice, stored, cancel) {
            Ok(()) => return Ok(choice),
            Err(reason) => first_reason = first_reason.or(Some(reason)),
        }
    }
    Err(first_reason.unwrap_or_else(|| "no worker could be started for it".into()))
}

/// Refuses a run that is an imported log or was measured on another machine.
fn loadable_here(r: &RunRecord, here: &Machine) -> Result<(), String> {
    if let Some(source) = &r.run.imported {
        // Logs read on the fly (not stored) carry negative ids.
        let what = match r.run.id > 0 {
            true => format!("run {} is an imported log", r.run.id),
            false => "it is a log file".to_string(),
        };
        return Err(format!(
            "{what} ({}, {}): there is no build to load, only its printed figures",
            source.file, source.format
        ));
    }
    let m = &r.machine;
    if m.hostname != here.hostname || m.cpu_model != here.cpu_model || m.arch != here.arch {
        return Err(format!(
            "run {} was measured on another machine ({}, {}); only builds of this machine ({}, {}) can be timed again",
            r.run.id, m.hostname, m.cpu_model, here.hostname, here.cpu_model
        ));
    }
    Ok(())
}

/// The one build a side's runs hold under its variant label.
fn one_build<'a>(runs: &[&'a RunRecord], label: &str) -> Result<&'a Variant, String> {
    let mut builds: Vec<&Variant> = Vec::new();
    for r in runs {
        for v in r.variants.iter().filter(|v| v.label == label) {
            if !builds.iter().any(|b| b.fingerprint() == v.fingerprint()) {
                builds.push(v);
            }
        }
    }
    match builds.as_slice() {
        [one] => Ok(one),
        [] => Err(format!("it holds no variant '{label}'")),
        many => Err(format!(
            "it pools runs of {} different builds labelled {label}; name one run",
            many.len()
        )),
    }
}

/// The replica tag a stored variant carries (`NAME#TAG`), from its build record.
fn replica_tag(v: &Variant) -> Option<String> {
    v.build_info.iter().find_map(|line| {
        let rest = line.strip_prefix("replica #")?;
        let (tag, _) = rest.split_once(": the same build")?;
        v.label
            .ends_with(&format!("#{tag}"))
            .then(|| tag.to_string())
    })
}

/// The worker choices that may run the stored build now, most specific first: the cached
/// variant of its label, `NAME:LIBRARY` with the library file it recorded, the implementation
/// as `run --impl` loads it by default.
fn candidates(v: &Variant) -> Result<Vec<ImplChoice>, String> {
    let Some(registered) = cryptospeed_impls::registered(&v.implementation) else {
        return Err(format!(
            "its implementation '{}' is not in this build of cryptospeed",
            v.implementation
        ));
    };
    let mask = mask_of(registered.capabilities.masks, &v.feature_mask)?;
    let replica = replica_tag(v);
    let dress = |c: ImplChoice| ImplChoice {
        mask: mask.clone(),
        replica: replica.clone(),
        ..c
    };
    let base = base_label(&v.label, replica.as_deref(), &mask);
    let mut out: Vec<ImplChoice> = cached_variant(&base)?.into_iter().map(&dress).collect();
    if v.library.starts_with('/') {
        if out.is_empty() && !std::path::Path::new(&v.library).exists() {
            return Err(format!("its library {} is gone", v.library));
        }
        let named = ImplChoice {
            library: Some(v.library.clone()),
            ..ImplChoice::parse(&v.implementation)
        };
        out.push(dress(named));
    }
    out.push(dress(ImplChoice::parse(&v.implementation)));
    Ok(out)
}

/// The label of the build itself: the stored label less its replica tag and mask.
fn base_label(label: &str, replica: Option<&str>, mask: &FeatureMask) -> String {
    let mut base = label;
    if let Some(tag) = replica {
        base = base.strip_suffix(&format!("#{tag}")).unwrap_or(base);
    }
    if !mask.is_empty() {
        base = base
            .strip_suffix(&format!("+{}", mask.label()))
            .unwrap_or(base);
    }
    base.to_string()
}

/// The cached variant labelled `label`, checked as `run --variant` checks it (its files as
/// cached, its known-answer tests); `None` when the cache holds no variant of that label.
fn cached_variant(label: &str) -> Result<Option<ImplChoice>, String> {
    let cache = cryptospeed_variants::Cache::open(None);
    match cache.find(label) {
        Ok(e) if e.manifest.label == label => {}
        _ => return Ok(None),
    }
    match crate::variant::choices(label) {
        Ok(mut found) if found.len() == 1 => Ok(found.pop()),
        Ok(_) => Err(format!("the cached variant {label} is ambiguous")),
        Err(e) => Err(format!("its cached variant cannot be timed now: {e:#}")),
    }
}

/// The CPU-feature mask whose setting is the one the stored variant ran under (`OPENSSL_ia32cap=…`
/// or `GODEBUG=cpu.…`); the smallest such mask.
fn mask_of(control: MaskControl, recorded: &str) -> Result<FeatureMask, String> {
    if recorded.is_empty() {
        return Ok(FeatureMask::default());
    }
    let names: Vec<&str> = FeatureMask::names()
        .into_iter()
        .filter(|n| *n != "baseline" && *n != "none")
        .collect();
    let mut subsets: Vec<u32> = (1..1u32 << names.len()).collect();
    subsets.sort_by_key(|s| (s.count_ones(), *s));
    for bits in subsets {
        let spelled: Vec<&str> = (0..names.len())
            .filter(|i| bits & (1 << i) != 0)
            .map(|i| names[i])
            .collect();
        let Ok(mask) = FeatureMask::parse(&spelled.join(",")) else {
            continue;
        };
        let setting = match control {
            MaskControl::OpensslIa32cap => mask
                .openssl_ia32cap()
                .map(|c| format!("OPENSSL_ia32cap={c}")),
            MaskControl::GoDebug => mask.godebug().map(|g| format!("GODEBUG={g}")),
            MaskControl::None => None,
        };
        if setting.as_deref() == Some(recorded) {
            return Ok(mask);
        }
    }
    Err(format!(
        "it ran under {recorded}, which no CPU-feature mask (--mask) spells"
    ))
}

/// Starts a worker for `choice` and checks it stands for the stored build: same label, library,
/// version, build record, capabilities and mask.
fn matches_now(choice: &ImplChoice, stored: &Variant, cancel: &AtomicBool) -> Result<(), String> {
    let worker = choice
        .start(None, cancel)
        .map_err(|e| format!("its worker does not start now: {e:#}"))?;
    let now = variant_of(choice, &worker);
    worker.quit();
    match difference(stored, &now) {
        None => Ok(()),
        Some(what) => Err(format!(
            "the build changed since it was stored ({what}); the stored figures stand for a build that is no longer here"
        )),
    }
}

/// The first way two variant records differ, in words; `None` when they are the same build.
fn difference(stored: &Variant, now: &Variant) -> Option<String> {
    let fields = [
        ("label", &stored.label, &now.label),
        ("version", &stored.version, &now.version),
        ("library", &stored.library, &now.library),
        ("capabilities", &stored.capabilities, &now.capabilities),
        ("feature mask", &stored.feature_mask, &now.feature_mask),
    ];
    if let Some((name, a, b)) = fields.iter().find(|(_, a, b)| a != b) {
        return Some(format!("{name} {b} now, {a} stored"));
    }
    let lines = stored.build_info.iter().zip(now.build_info.iter());
    if let Some((a, b)) = lines.clone().find(|(a, b)| a != b) {
        return Some(format!("build record '{b}' now, '{a}' stored"));
    }
    (stored.build_info.len() != now.build_info.len()).then(|| {
        format!(
            "a build record of {} lines now, {} stored",
            now.build_info.len(),
            stored.build_info.len()
        )
    })
}

/// Gives a side that is the very same build as an earlier one a replica tag of its own (two
/// workers of one build in one run, an A/A check), and returns each side's label in the new run.
fn distinct_labels(
    sides: &[StoredSide],
    chosen: &mut [(usize, ImplChoice)],
) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = Vec::new();
    for (i, choice) in chosen.iter_mut() {
        let mut label = sides[*i].variant.to_string();
        if out.iter().any(|(_, l)| *l == label) {
            let old = choice.replica.clone();
            let tag = match &old {
                Some(t) => format!("{t}-{}", *i + 1),
                None => format!("{}", *i + 1),
            };
            let base = match &old {
                Some(t) => label.strip_suffix(&format!("#{t}")).unwrap_or(&label),
                None => &label,
            };
            label = format!("{base}#{tag}");
            choice.replica = Some(tag);
        }
        out.push((*i, label));
    }
    out
}

/// The cells every side measured (with figures, at the natural alignment `compare` reads), in
/// the first side's order.
fn shared_cells(sides: &[StoredSide]) -> Vec<CellSpec> {
    let measured = |side: &StoredSide| -> Vec<CellSpec> {
        side.records
            .iter()
            .flat_map(|r| r.measurements.iter())
            .filter(|vm| vm.variant == side.variant && vm.measurement.status.has_numbers())
            .map(|vm| vm.measurement.cell.clone())
            .filter(|c| c.misalign == 0)
            .collect()
    };
    let mut cells: Vec<CellSpec> = Vec::new();
    for c in measured(&sides[0]) {
        if !cells.contains(&c) && sides[1..].iter().all(|s| measured(s).contains(&c)) {
            cells.push(c);
        }
    }
    cells
}

/// The baseline's measuring settings, from its newest run.
fn config_of(side: &StoredSide) -> MeasureConfig {
    side.records
        .iter()
        .filter(|r| r.variants.iter().any(|v| v.label == side.variant))
        .max_by_key(|r| r.run.id)
        .map(|r| r.run.config.clone())
        .expect("a re-measurable side has a run")
}

/// A run of `cells` under the stored settings (interleaved in bouts, whatever the stored run was).
fn request(c: MeasureConfig, cells: Vec<CellSpec>) -> RunRequest {
    RunRequest {
        cells,
        precision: c.precision,
        max_time: c.max_time_s,
        min_samples: c.min_samples,
        sample_time: c.sample_time_s,
        bout_samples: if c.bout_samples == 0 {
            3
        } else {
            c.bout_samples
        },
        min_bouts: c.min_bouts,
        vary_buffers: c.vary_buffers,
        pin: None,
        multi: None,
        implementations: None,
        variants: None,
        masks: Vec::new(),
    }
}

/// `remeasure-1-2`: the runs of each side (`+` between pooled runs), sides in order.
fn label_of(sides: &[StoredSide]) -> String {
    let ids = |s: &StoredSide| {
        s.records
            .iter()
            .filter(|r| r.variants.iter().any(|v| v.label == s.variant))
            .map(|r| r.run.id.to_string())
            .collect::<Vec<_>>()
            .join("+")
    };
    let parts: Vec<String> = sides.iter().map(ids).collect();
    let prefix = cryptospeed_compare::history::series::REMEASURE_LABEL;
    format!("{prefix}{}", parts.join("-"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn variant(label: &str, build_info: &[&str]) -> Variant {
        Variant {
            label: label.into(),
            implementation: "openssl".into(),
            version: "3.0.19".into(),
            library: "libcrypto.so.3".into(),
            build_info: build_info.iter().map(|l| l.to_string()).collect(),
            ..Default::default()
        }
    }

    #[test]
    fn a_stored_label_gives_back_its_replica_tag_and_mask() {
        let v = variant(
            "openssl-3.0.19+no-aesni#slow",
            &["replica #slow: the same build as a variant of its own"],
        );
        assert_eq!(replica_tag(&v).as_deref(), Some("slow"));
        assert_eq!(replica_tag(&variant("openssl-3.0.19", &[])), None);
        let mask = FeatureMask::parse("no-aesni").unwrap();
        let cap = format!("OPENSSL_ia32cap={}", mask.openssl_ia32cap().unwrap());
        assert_eq!(mask_of(MaskControl::OpensslIa32cap, &cap).unwrap(), mask);
        assert_eq!(
            base_label(&v.label, Some("slow"), &mask),
            "openssl-3.0.19",
            "the build's own label"
        );
        let go = FeatureMask::parse("no-avx2").unwrap();
        let debug = format!("GODEBUG={}", go.godebug().unwrap());
        let found = mask_of(MaskControl::GoDebug, &debug).unwrap();
        assert_eq!(found.godebug(), go.godebug());
        assert!(mask_of(MaskControl::None, "OPENSSL_ia32cap=~0x1:~0x0").is_err());
        assert!(mask_of(MaskControl::OpensslIa32cap, "").unwrap().is_empty());
    }

    #[test]
    fn the_first_difference_between_two_builds_is_named() {
        let old = variant("openssl-3.0.19", &["OpenSSL 3.0.19", "built on: x"]);
        assert_eq!(difference(&old, &old), None);
        let mut now = old.clone();
        now.build_info[1] = "built on: y".into();
        assert_eq!(
            difference(&old, &now).unwrap(),
            "build record 'built on: y' now, 'built on: x' stored"
        );
        now.version = "3.0.20".into();
        assert_eq!(
            difference(&old, &now).unwrap(),
            "version 3.0.20 now, 3.0.19 stored"
        );
        now = old.clone();
        now.build_info.push("provider legacy: loaded".into());
        assert!(difference(&old, &now)
            .unwrap()
            .contains("3 lines now, 2 stored"));
    }

    fn record(id: i64, label: &str, cells: &[(&str, u64)]) -> RunRecord {
        let measurements = cells
            .iter()
            .map(|(p, b)| {
                let cell = CellSpec {
                    primitive: p.to_string(),
                    op: cryptospeed_model::Op::Hash,
                    bytes: Some(*b),
                    misalign: 0,
                };
                cryptospeed_model::VariantMeasurement {
                    variant: label.into(),
                    implementation: "openssl".into(),
                    measurement: cryptospeed_model::Measurement::imported(cell, 1e9),
                    definition: None,
                }
            })
            .collect();
        let json = serde_json::json!({
            "run": {"id": id, "label": null, "started_at": "", "finished_at": null, "command": "",
                    "tool_version": "", "status": "complete",
                    "config": {"precision": 0.01, "max_time_s": 0.2, "min_samples": 10,
                           "sample_time_s": 0.005, "warmup_s": 0.01}},
            "machine": Machine::default(),
            "variants": [variant(label, &[])],
            "measurements": [],
        });
        let mut r: RunRecord = serde_json::from_value(json).unwrap();
        r.measurements = measurements;
        r
    }

    #[test]
    fn only_the_cells_every_side_measured_are_timed_again_and_the_run_is_named_after_the_sides() {
        let base = [record(1, "a", &[("md5", 16), ("sha256", 16)])];
        let new = [
            record(2, "b", &[("sha256", 16), ("sha256", 8192)]),
            record(5, "b", &[("sha256", 16)]),
        ];
        let sides = [
            StoredSide {
                name: "run 1",
                variant: "a",
                records: &base,
            },
            StoredSide {
                name: "new",
                variant: "b",
                records: &new,
            },
        ];
        let cells = shared_cells(&sides);
        assert_eq!(cells.len(), 1);
        assert_eq!(
            (cells[0].primitive.as_str(), cells[0].bytes),
            ("sha256", Some(16))
        );
        assert_eq!(label_of(&sides), "remeasure-1-2+5");
        assert_eq!(config_of(&sides[1]).max_time_s, 0.2);
    }

    #[test]
    fn a_second_side_of_the_same_build_becomes_a_replica_of_its_own() {
        let runs = [record(1, "openssl-3.0.19#t", &[])];
        let side = StoredSide {
            name: "run 1",
            variant: "openssl-3.0.19#t",
            records: &runs,
        };
        let choice = ImplChoice::parse("openssl#t");
        let mut chosen = vec![(0, choice.clone()), (1, choice)];
        let labels = distinct_labels(&[side, side], &mut chosen);
        assert_eq!(labels[0].1, "openssl-3.0.19#t");
        assert_eq!(labels[1].1, "openssl-3.0.19#t-2");
        assert_eq!(chosen[1].1.replica.as_deref(), Some("t-2"));
    }
}
