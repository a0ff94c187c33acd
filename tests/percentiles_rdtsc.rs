//! `show --percentiles` against a direct rdtsc loop written here: ML-KEM-768 decapsulation in
//! the `rustcrypto` column (RustCrypto's `ml-kem`), timed one call per sample by cryptospeed (its
//! worker, sampler, set-aside rule, store and `show`) and call by call between two `rdtsc` reads
//! by this test, through the same prepared call (`Implementation::prepare`, after its
//! known-answer test: the library code, optimised as the worker runs it; a generic crate called
//! from this test would be compiled at the test's opt-level). The medians of TSC cycles per call
//! agree within 3% (of the span of the direct loop's medians in sixteen chunks 60 ms apart
//! just before the run and sixteen just after), the quartiles within 5%: what `show` calls a
//! cycle is the time-stamp counter's tick, as a loop of our own reads counts it. Up to four
//! attempts; the first whose chunks agree within 3% and match passes, two such attempts that
//! miss fail (a host that changes speed makes chunks a state apart, or the run a state away
//! from all of them).

mod common;

use common::{bin, ok};

/// The direct loop: `chunks` runs of `calls` decapsulations each, each call between two
/// `rdtsc`, after a warm-up, 60 ms apart; each chunk sorted. Short and spread over a second, the
/// chunks catch each of the speeds a host that switches state every few seconds runs at, as the
/// run's bouts can (chunks of 3000 calls, a third of a second, read a mixture of the states,
/// none as fast as the run's bouts at the canary's floor).
#[cfg(target_arch = "x86_64")]
fn direct_cycles(chunks: usize, calls: usize) -> Vec<Vec<u64>> {
    use cryptospeed_model::{CellSpec, Op};
    let options = cryptospeed_impls::ImplOptions { library: None };
    let mut rustcrypto = cryptospeed_impls::create("rustcrypto", &options).unwrap();
    let primitive = cryptospeed_catalog::lookup("ml-kem-768").unwrap();
    rustcrypto.known_answer_test(primitive).unwrap();
    let cell = CellSpec {
        primitive: "ml-kem-768".into(),
        op: Op::Decaps,
        bytes: None,
        misalign: 0,
    };
    let mut timed = rustcrypto.prepare(primitive, &cell).unwrap();
    timed.run(200).unwrap();
    (0..chunks)
        .map(|chunk| {
            if chunk > 0 {
                std::thread::sleep(std::time::Duration::from_millis(60));
            }
            let mut cycles: Vec<u64> = (0..calls)
                .map(|_| {
                    // SAFETY: rdtsc exists on every x86-64 CPU.
                    let t0 = unsafe { core::arch::x86_64::_rdtsc() };
                    timed.run(1).unwrap();
                    let t1 = unsafe { core::arch::x86_64::_rdtsc() };
                    t1 - t0
                })
                .collect();
            cycles.sort_unstable();
            cycles
        })
        .collect()
}

/// p25, p50, p75 of the `ml-kem-768 decaps` row of `show --percentiles`, and its calls per sample.
fn shown(text: &str) -> (u64, [f64; 3]) {
    let row: Vec<&str> = text
        .lines()
        .find(|l| l.starts_with("ml-kem-768 decaps "))
        .unwrap_or_else(|| panic!("no decaps row in:\n{text}"))
        .split_whitespace()
        .collect();
    // label (2 words), calls/sample, samples, p1 p10 p25 p50 p75 p90 p99
    let f = |i: usize| row[i].parse::<f64>().unwrap();
    (row[2].parse().unwrap(), [f(6), f(7), f(8)])
}

#[cfg(target_arch = "x86_64")]
#[test]
fn median_decaps_cycles_match_a_direct_rdtsc_loop() {
    // Up to four attempts, each a run bracketed by direct loops. An attempt is conclusive when
    // its chunks' medians all agree within 3% and the canary's set-aside moved the run's figure by
    // under 3% (its every-bout figure, where it has one), and the first conclusive one decides.
    // A host that changes speed (a two-state VM ran md5@16 at 235 or 360 ns a call, switching
    // every few seconds) makes brackets a state apart, whose span would let a 5% error through,
    // or has the canary keep its fast state's bouts while both brackets ran slow (show 253355
    // cycles, brackets 364829 and 373968). Brackets in one state around a whole run in the
    // other still agree, so a conclusive attempt that misses is tried once more, and two such
    // misses fail: a defect of show's cycles misses in every attempt. Only when no attempt is
    // conclusive does one within its span pass.
    let dir = tempfile::tempdir().unwrap();
    let mut misses = Vec::new();
    let mut conclusive_misses = Vec::new();
    for attempt in 0..4 {
        let a = bracketed_run(dir.path(), attempt);
        match (a.conclusive, a.matched) {
            (true, Ok(())) => return,
            (true, Err(why)) => {
                conclusive_misses.push(why);
                assert!(
                    conclusive_misses.len() < 2,
                    "show's cycles outside the direct loops' in two conclusive attempts: \
                     {conclusive_misses:#?}"
                );
            }
            (false, m) => misses.push(m),
        }
    }
    assert!(
        misses.iter().any(Result::is_ok),
        "show's cycles outside the direct loops' in every attempt: inconclusive {misses:#?}, \
         conclusive {conclusive_misses:#?}"
    );
    eprintln!("no attempt conclusive (the host moved under each); one matched within its span");
}

/// One bracketed run: whether its brackets' medians agreed within 3%, and whether `show`'s
/// quantiles lay within the tolerance of the span the brackets make (why not, if not).
#[cfg(target_arch = "x86_64")]
struct Attempt {
    conclusive: bool,
    matched: Result<(), String>,
}

/// How far the canary's set-aside moved the run's one figure: its every-bout figure against its
/// reported one (0 where the canary left nothing out).
fn set_aside_moved(json: &str) -> f64 {
    let rows: Vec<serde_json::Value> = serde_json::from_str(json).unwrap();
    let row = &rows[0];
    match row["set_aside"]["every_bout_mean"].as_f64() {
        Some(every) => (every / row["median"].as_f64().unwrap() - 1.0).abs(),
        None => 0.0,
    }
}

/// One run of `show --percentiles` between two direct loops.
#[cfg(target_arch = "x86_64")]
fn bracketed_run(dir: &std::path::Path, attempt: usize) -> Attempt {
    let db = dir.join(format!("p{attempt}.db"));
    let db = db.to_str().unwrap();
    let before = direct_cycles(16, 200);
    // The direct loop reads the host as it is; so must the run: the quiet canary reference
    // (which divides out a slowdown the whole run shares, 3.2% in one CI run) is off here.
    let json = ok(bin().env("CRYPTOSPEED_QUIET_CANARY", "off").args([
        "run",
        "--format",
        "json",
        "--db",
        db,
        "--impl",
        "rustcrypto",
        "-a",
        "ml-kem-768",
        "--ops",
        "decaps",
        "--sample-time",
        "0.000001",
        "--bout-samples",
        "200",
        "--min-bouts",
        "5",
        "--max-time",
        "1.5",
        "--label",
        "p",
    ]));
    let after = direct_cycles(16, 200);
    let text = ok(bin().args(["show", "p", "--db", db, "--percentiles"]));
    let (calls, [p25, p50, p75]) = shown(&text);
    assert_eq!(calls, 1, "one call per sample was asked for:\n{text}");
    // The direct loop's quantiles in each chunk just before and just after the run: the host's
    // load drifts (up to 8% between the two on a busy 2-core VM), and a host at two speeds
    // moves a chunk 1.5x, so `show`'s figure must lie within the tolerance of the span they
    // make; an attempt whose chunks' medians all agree within 3% ran in one state throughout.
    let q = |v: &[u64], p: f64| v[((v.len() - 1) as f64 * p).round() as usize] as f64;
    let chunks: Vec<Vec<u64>> = before.into_iter().chain(after).collect();
    let span = |p: f64| {
        let all: Vec<f64> = chunks.iter().map(|c| q(c, p)).collect();
        let lo = all.iter().copied().fold(f64::INFINITY, f64::min);
        (lo, all.iter().copied().fold(lo, f64::max))
    };
    let within = |p: f64, shown: f64, tolerance: f64| {
        let (a, b) = span(p);
        let line = format!(
            "p{}: show {shown}, direct {a} to {b} over the chunks before and after the run",
            p * 100.0
        );
        eprintln!("attempt {attempt}: {line}");
        if shown >= a * (1.0 - tolerance) && shown <= b * (1.0 + tolerance) {
            Ok(())
        } else {
            Err(line)
        }
    };
    let (lo, hi) = span(0.5);
    Attempt {
        conclusive: hi / lo - 1.0 <= 0.03 && set_aside_moved(&json) <= 0.03,
        matched: within(0.5, p50, 0.03)
            .and_then(|_| within(0.25, p25, 0.05))
            .and_then(|_| within(0.75, p75, 0.05)),
    }
}
