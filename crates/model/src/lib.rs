//! The vocabulary of cryptospeed as plain serde types, shared by every other crate.
//!
//! No I/O and no logic beyond small derived quantities: a type here means the same thing in the
//! engine, the worker protocol, the store and the reports (see DESIGN.md "Vocabulary").

use serde::{Deserialize, Serialize};
use std::fmt;

/// What an operation does to its input; public-key operations have no message size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    Hash,
    Mac,
    Encrypt,
    Decrypt,
    Sign,
    Verify,
    Derive,
    /// Key generation (KEMs and signature schemes in `openssl speed` 3.x, `bssl speed`).
    Keygen,
    /// KEM encapsulation.
    Encaps,
    /// KEM decapsulation.
    Decaps,
    /// Verification with a key parsed for each operation (BoringSSL's `RSA 2048 verify (fresh
    /// key)`), as opposed to [`Op::Verify`] with one key reused.
    #[serde(rename = "verify-fresh-key")]
    VerifyFreshKey,
    /// Key generation that ends with both keys in their standard byte encodings (what a TLS
    /// client sends), as opposed to [`Op::Keygen`], which may keep the library's key object only.
    #[serde(rename = "keygen+encode")]
    KeygenEncode,
    /// Encapsulation to an encoded public key parsed inside the timed call (a TLS server's work
    /// per handshake).
    #[serde(rename = "encaps+parse")]
    EncapsParse,
    /// Decapsulation with an encoded private key parsed inside the timed call.
    #[serde(rename = "decaps+parse")]
    DecapsParse,
    /// Verification with an encoded public key parsed inside the timed call.
    #[serde(rename = "verify+parse")]
    VerifyParse,
    /// A TLS 1.3 handshake between a client and a server of one library, both sides' work.
    Handshake,
    /// The client's steps of that handshake alone (the server's run untimed between them).
    #[serde(rename = "handshake-client")]
    HandshakeClient,
    /// The server's steps of that handshake alone.
    #[serde(rename = "handshake-server")]
    HandshakeServer,
    /// A resumed TLS 1.3 handshake (a session ticket's PSK with (EC)DHE), both sides' work.
    #[serde(rename = "handshake-resumed")]
    HandshakeResumed,
}

impl Op {
    pub const ALL: [Op; 19] = [
        Op::Hash,
        Op::Mac,
        Op::Encrypt,
        Op::Decrypt,
        Op::Sign,
        Op::Verify,
        Op::Derive,
        Op::Keygen,
        Op::Encaps,
        Op::Decaps,
        Op::VerifyFreshKey,
        Op::KeygenEncode,
        Op::EncapsParse,
        Op::DecapsParse,
        Op::VerifyParse,
        Op::Handshake,
        Op::HandshakeClient,
        Op::HandshakeServer,
        Op::HandshakeResumed,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Op::Hash => "hash",
            Op::Mac => "mac",
            Op::Encrypt => "encrypt",
            Op::Decrypt => "decrypt",
            Op::Sign => "sign",
            Op::Verify => "verify",
            Op::Derive => "derive",
            Op::Keygen => "keygen",
            Op::Encaps => "encaps",
            Op::Decaps => "decaps",
            Op::VerifyFreshKey => "verify-fresh-key",
            Op::KeygenEncode => "keygen+encode",
            Op::EncapsParse => "encaps+parse",
            Op::DecapsParse => "decaps+parse",
            Op::VerifyParse => "verify+parse",
            Op::Handshake => "handshake",
            Op::HandshakeClient => "handshake-client",
            Op::HandshakeServer => "handshake-server",
            Op::HandshakeResumed => "handshake-resumed",
        }
    }

    pub fn parse(s: &str) -> Option<Op> {
        Op::ALL.into_iter().find(|op| op.as_str() == s)
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One thing that is timed, minus the variant (which is fixed per worker).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CellSpec {
    pub primitive: String,
    pub op: Op,
    /// Message size in bytes; `None` for public-key operations.
    pub bytes: Option<u64>,
    /// Offset of the message buffer from a 64-byte boundary (`openssl speed -misalign`).
    #[serde(default)]
    pub misalign: u32,
}

/// How long and how precisely to measure one cell.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MeasureConfig {
    /// Stop when the 95% CI of the median is within ± this fraction of the median.
    pub precision: f64,
    /// Stop after this many seconds per cell, precise or not.
    pub max_time_s: f64,
    /// Never fewer samples than this (unless `max_time_s` is spent first).
    pub min_samples: u32,
    /// Target duration of one sample (one batch of calls), seconds.
    pub sample_time_s: f64,
    /// Warm-up duration before the first recorded sample, seconds.
    pub warmup_s: f64,
    /// Sample for the whole `max_time_s` even once precise (`run --multi`: concurrent workers
    /// must overlap from start to end). Precision still decides `ok` against `imprecise`.
    #[serde(default)]
    pub fixed_duration: bool,
    /// Samples per bout. 0: the worker measures the cell in one stretch until precise (the
    /// schedule before bouts, and `--multi`). Otherwise a `measure` request is one bout: warm up
    /// for `warmup_s`, then exactly this many samples, with no precision check of its own.
    #[serde(default)]
    pub bout_samples: u32,
    /// Calls per sample for a bout; 0 means calibrate to `sample_time_s` first.
    #[serde(default)]
    pub batch_iters: u64,
    /// A cell is judged precise only after at least this many bouts (each in its own worker
    /// process, spread over the run).
    #[serde(default)]
    pub min_bouts: u32,
    /// Each worker process also places its message buffers at its own offset in the page
    /// (`run --layouts full`); by default only its environment size and heap vary.
    #[serde(default)]
    pub vary_buffers: bool,
}

impl Default for MeasureConfig {
    fn default() -> Self {
        MeasureConfig {
            precision: 0.01,
            max_time_s: 2.0,
            min_samples: 10,
            sample_time_s: 0.010,
            warmup_s: 0.020,
            fixed_duration: false,
            bout_samples: 0,
            batch_iters: 0,
            min_bouts: 0,
            vary_buffers: false,
        }
    }
}

/// One timed batch of `iters` back-to-back calls of a cell's operation.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    pub iters: u64,
    /// Monotonic wall-clock time of the batch, nanoseconds.
    pub wall_ns: u64,
    /// CPU time of the measuring thread during the batch, nanoseconds.
    pub cpu_ns: u64,
    /// Time-stamp-counter ticks (reference cycles) during the batch.
    pub tsc: u64,
    /// Which bout of its measurement the sample belongs to (0 for measurements taken in one
    /// stretch, as every measurement before bouts was).
    #[serde(default)]
    pub bout: u32,
}

impl Sample {
    pub fn ns_per_op(&self) -> f64 {
        self.wall_ns as f64 / self.iters as f64
    }
}

/// Order statistics of a measurement, in nanoseconds per operation (wall time).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub n: usize,
    pub median: f64,
    pub ci_lo: f64,
    pub ci_hi: f64,
    /// Median absolute deviation (unscaled).
    pub mad: f64,
    /// Samples further than 3 scaled MADs from the median.
    pub outliers: usize,
    pub min: f64,
    pub max: f64,
}

impl Summary {
    /// `n` values all at `ns`: no spread, the interval a point (an imported cell's one printed
    /// figure).
    pub fn exact(n: usize, ns: f64) -> Summary {
        Summary {
            n,
            median: ns,
            ci_lo: ns,
            ci_hi: ns,
            mad: 0.0,
            outliers: 0,
            min: ns,
            max: ns,
        }
    }

    /// Half-width of the confidence interval relative to the median (0.01 = ±1%).
    pub fn rel_ci(&self) -> f64 {
        if self.median > 0.0 {
            ((self.ci_hi - self.ci_lo) / 2.0) / self.median
        } else {
            f64::INFINITY
        }
    }
}

/// Outcome of a cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Measured and precise to the requested target.
    Ok,
    /// Measured, but the time budget ran out before the target precision was reached.
    Imprecise,
    /// Known-answer test or the library call failed; not timed.
    Failed,
    /// The implementation does not offer this primitive.
    Unavailable,
    /// Still being measured, or cut short: the bouts taken so far (a run stores each cell this
    /// way after every bout, until the cell finishes; an interrupted run keeps it so, and
    /// `run --resume` goes on from it). Its interval is honest only with two bouts or more
    /// ([`Measurement::honest_interval`]).
    Partial,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Imprecise => "imprecise",
            Status::Failed => "failed",
            Status::Unavailable => "unavailable",
            Status::Partial => "partial",
        }
    }
    pub fn parse(s: &str) -> Option<Status> {
        [
            Status::Ok,
            Status::Imprecise,
            Status::Failed,
            Status::Unavailable,
            Status::Partial,
        ]
        .into_iter()
        .find(|st| st.as_str() == s)
    }
    pub fn has_numbers(self) -> bool {
        matches!(self, Status::Ok | Status::Imprecise | Status::Partial)
    }
}

/// The samples of one cell and their statistics.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Measurement {
    pub cell: CellSpec,
    pub status: Status,
    /// Why the cell failed or is unavailable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Statistics of wall-clock ns per operation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<Summary>,
    /// Median TSC ticks per operation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tsc_per_op: Option<f64>,
    /// Median of (thread CPU time / wall time) over the samples; < 1 means the worker was descheduled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_fraction: Option<f64>,
    #[serde(default)]
    pub samples: Vec<Sample>,
    /// Seconds spent on this cell including calibration and warm-up.
    #[serde(default)]
    pub elapsed_s: f64,
    /// The rate exactly as an imported log printed it (bytes/s for cells with a size, else
    /// ops/s); `None` for cells cryptospeed measured itself. Imported cells have no samples.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reported_rate: Option<f64>,
    /// What the host did to each bout, where the worker could tell (its samples' `bout`s).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disturbances: Vec<BoutDisturbance>,
    /// A TLS handshake cell: the bytes each step of the handshake its worker's check ran wrote
    /// (ClientHello, the server's flight, the client's Finished, the server's tickets), where
    /// the column counts them; empty for other cells and columns that do not.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flights: Vec<u64>,
}

/// What the host did to one bout, read by the worker just around the bout's samples: a fixed
/// reference loop (the canary) timed before and after them, the thread's involuntary context
/// switches and run-queue wait, and the steal time of its CPU. Its `bout` is its samples'.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct BoutDisturbance {
    pub bout: u32,
    /// Thread CPU nanoseconds of the canary (the same fixed loop in every bout), before and after
    /// the samples.
    pub canary_ns: [u64; 2],
    /// Involuntary context switches of the thread over the samples (getrusage RUSAGE_THREAD).
    pub nivcsw: u64,
    /// Nanoseconds the thread waited on a run queue over the samples (schedstat run delay).
    pub run_delay_ns: u64,
    /// Steal time of the CPU the bout ran on over the samples, nanoseconds (/proc/stat ticks).
    pub steal_ns: u64,
    /// The machine's quiet canary reference the run judged the bout against (the orchestrator's,
    /// learnt from earlier runs on the machine: `cryptospeed_stats::host`), nanoseconds; 0 when
    /// the run had none (a machine's first run, a worker without a canary, stored before it).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub canary_quiet_ns: u64,
    /// The machine's canary floor the run judged the bout against: the fastest state the host
    /// has run the canary at, learnt from earlier runs (`cryptospeed_stats::canary_floor`),
    /// nanoseconds of the slower reading; 0 when the run had none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub canary_floor_ns: u64,
}

fn is_zero(x: &u64) -> bool {
    *x == 0
}

impl Measurement {
    /// How many bouts its samples come from.
    pub fn bout_count(&self) -> usize {
        let mut bouts: Vec<u32> = self.samples.iter().map(|s| s.bout).collect();
        bouts.sort_unstable();
        bouts.dedup();
        bouts.len()
    }

    /// Whether its interval may be shown: always, except for a partial cell of fewer than two
    /// bouts (one process's samples say nothing of the variation between processes).
    pub fn honest_interval(&self) -> bool {
        self.status != Status::Partial || self.bout_count() >= 2
    }

    pub fn not_timed(cell: CellSpec, status: Status, reason: impl Into<String>) -> Self {
        Measurement {
            cell,
            status,
            reason: Some(reason.into()),
            summary: None,
            tsc_per_op: None,
            cpu_fraction: None,
            samples: Vec::new(),
            elapsed_s: 0.0,
            reported_rate: None,
            disturbances: Vec::new(),
            flights: Vec::new(),
        }
    }

    /// A cell read from an imported log: one value, no samples, the printed rate kept exactly.
    pub fn imported(cell: CellSpec, rate: f64) -> Self {
        let ops = rate / cell.bytes.unwrap_or(1) as f64;
        let ns = 1e9 / ops;
        Measurement {
            cell,
            status: Status::Ok,
            reason: None,
            summary: Some(Summary::exact(1, ns)),
            tsc_per_op: None,
            cpu_fraction: None,
            samples: Vec::new(),
            elapsed_s: 0.0,
            reported_rate: Some(rate),
            disturbances: Vec::new(),
            flights: Vec::new(),
        }
    }

    /// Operations per second: the imported figure when there is one, else from the median time
    /// per operation.
    pub fn ops_per_s(&self) -> Option<f64> {
        if let Some(rate) = self.reported_rate {
            return Some(rate / self.cell.bytes.unwrap_or(1) as f64);
        }
        self.summary.map(|s| 1e9 / s.median)
    }

    /// The cell's rate in its unit: bytes/s for cells with a size, else ops/s.
    pub fn rate(&self) -> Option<f64> {
        if let Some(rate) = self.reported_rate {
            return Some(rate);
        }
        Some(self.ops_per_s()? * self.cell.bytes.unwrap_or(1) as f64)
    }

    /// Bytes per second, for cells with a message size.
    pub fn bytes_per_s(&self) -> Option<f64> {
        Some(self.ops_per_s()? * self.cell.bytes? as f64)
    }

    /// 95% CI of the rate (ops/s or bytes/s), low then high.
    pub fn rate_ci(&self) -> Option<(f64, f64)> {
        let s = self.summary?;
        let scale = self.cell.bytes.unwrap_or(1) as f64 * 1e9;
        Some((scale / s.ci_hi, scale / s.ci_lo))
    }

    pub fn cycles_per_byte(&self) -> Option<f64> {
        Some(self.tsc_per_op? / self.cell.bytes? as f64)
    }

    pub fn cycles_per_op(&self) -> Option<f64> {
        self.tsc_per_op
    }
}

/// The machine a run was taken on.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Machine {
    pub hostname: String,
    pub cpu_model: String,
    pub cpu_flags: Vec<String>,
    pub cores: u32,
    pub threads: u32,
    /// Human-readable cache sizes, e.g. `L1d 32K 8-way 64B line`.
    pub caches: Vec<String>,
    /// Measured TSC frequency, Hz.
    pub tsc_hz: f64,
    pub constant_tsc: bool,
    pub kernel: String,
    pub os: String,
    pub arch: String,
}

impl Machine {
    /// Stable identity of the machine: same hardware and OS give the same fingerprint.
    pub fn fingerprint(&self) -> String {
        format!(
            "{}|{}|{}|{}|{}|{}",
            self.hostname,
            self.cpu_model,
            self.threads,
            self.cpu_flags.join(" "),
            self.kernel,
            self.os
        )
    }
}

/// An implementation as built and run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Variant {
    /// Short stable human label, e.g. `openssl-3.0.19`.
    pub label: String,
    /// Implementation name from the registry, e.g. `openssl`.
    pub implementation: String,
    pub version: String,
    /// Library path or build identity.
    pub library: String,
    /// Build details (compiler line, options, built-on) as the library reports them.
    pub build_info: Vec<String>,
    /// Effective CPU capability vector the library runs with (e.g. `OPENSSL_ia32cap=0x…`).
    pub capabilities: String,
    /// Environment settings that shape the variant (e.g. `OPENSSL_ia32cap`), empty when none.
    pub feature_mask: String,
}

impl Variant {
    pub fn fingerprint(&self) -> String {
        format!(
            "{}|{}|{}|{}|{}|{}",
            self.implementation,
            self.version,
            self.library,
            self.build_info.join(";"),
            self.capabilities,
            self.feature_mask
        )
    }
}

/// State of a run as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunStatus {
    Running,
    Complete,
    Interrupted,
    Failed,
    /// Marked running, but its process is gone: its heartbeat stopped, or (on the machine that
    /// ran it) the process no longer exists. Judged when the store is read, never written by the
    /// run itself.
    Abandoned,
}

impl RunStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Running => "running",
            RunStatus::Complete => "complete",
            RunStatus::Interrupted => "interrupted",
            RunStatus::Failed => "failed",
            RunStatus::Abandoned => "abandoned",
        }
    }
    pub fn parse(s: &str) -> Option<RunStatus> {
        [
            RunStatus::Running,
            RunStatus::Complete,
            RunStatus::Interrupted,
            RunStatus::Failed,
            RunStatus::Abandoned,
        ]
        .into_iter()
        .find(|st| st.as_str() == s)
    }
}

/// Metadata of a run (its measurements are stored beside it).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunInfo {
    pub id: i64,
    pub label: Option<String>,
    pub started_at: String,
    pub finished_at: Option<String>,
    pub command: String,
    pub tool_version: String,
    pub status: RunStatus,
    pub config: MeasureConfig,
    /// Where an imported run came from; `None` for runs cryptospeed measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub imported: Option<ImportSource>,
    /// The run's identity in every store it is copied to (`cryptospeed sync`); `None` only for
    /// runs not yet stored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uid: Option<String>,
    /// What else the machine was doing while the run measured; `None` for imported runs and
    /// runs stored before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conditions: Option<RunConditions>,
}

/// The machine's state during a run, as a careful reader needs it to judge the numbers.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunConditions {
    /// Seconds the run measured for.
    pub seconds: f64,
    /// CPUs the kernel reports.
    pub cpus: u32,
    /// Share of all CPUs' time stolen by the hypervisor (from /proc/stat).
    pub steal: f64,
    /// CPUs busy on average over the run, ours included (from /proc/stat).
    pub busy_cpus: f64,
    /// CPUs busy with work other than the measuring worker (busy_cpus less the one it uses).
    pub other_load: f64,
    /// Mean CPU frequency at the end of the run, MHz, where the kernel shows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mhz: Option<f64>,
    /// The CPU the workers were pinned to, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pinned: Option<usize>,
    /// The CPUs the rounds ran on: every worker of a round is pinned to one CPU, and the rounds
    /// take these CPUs in turn (with `--pin`, just that CPU). Empty for runs stored before this
    /// was recorded, and where the kernel gave no CPU set.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub round_cpus: Vec<usize>,
    /// Worker processes started (one per variant per round, plus restarts).
    pub processes: u32,
    /// Warnings for the reader: a noisy machine, cells that could not reach the precision.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

impl RunConditions {
    /// Where the workers ran and how busy the machine was, in one line for the reader; `None`
    /// when no CPU was recorded.
    pub fn placement(&self) -> Option<String> {
        let cpus: Vec<String> = self.round_cpus.iter().map(|c| c.to_string()).collect();
        let pinned = match (self.pinned, cpus.len()) {
            (Some(cpu), _) => format!("every worker pinned to CPU {cpu} (--pin)"),
            (None, 0) => return None,
            (None, 1) => format!("every round's workers pinned to CPU {}", cpus[0]),
            (None, _) => format!(
                "every round's workers pinned to one CPU, the rounds taking CPUs {} in turn",
                cpus.join(",")
            ),
        };
        Some(format!(
            "{pinned}; {:.1}% of CPU time stolen, {:.2} CPUs busy with other work",
            100.0 * self.steal,
            self.other_load
        ))
    }
}

/// The origin of an imported run: the file, the format and the header the log carried.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ImportSource {
    /// File name as given to `cryptospeed import` (`-` for stdin).
    pub file: String,
    /// Lines of the file this run came from, 1-based, inclusive.
    pub first_line: usize,
    pub last_line: usize,
    /// Format family, e.g. `openssl-speed`, `openssl-speed-mr`, `bssl-speed`, `bssl-speed-json`.
    pub format: String,
    /// Header fields by name (`version`, `built on`, `options`, `compiler`, `CPUINFO`,
    /// `platform`, `timing`, `multi`, `command`), as printed.
    pub header: Vec<(String, String)>,
}

impl ImportSource {
    pub fn field(&self, name: &str) -> Option<&str> {
        header_field(&self.header, name)
    }
}

/// The value of a named field in a log header kept as ordered `(name, value)` pairs.
pub fn header_field<'a>(header: &'a [(String, String)], name: &str) -> Option<&'a str> {
    header
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

/// A measurement together with the variant it belongs to, as reports consume them.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct VariantMeasurement {
    pub variant: String,
    pub implementation: String,
    pub measurement: Measurement,
    /// The catalog definition the figure was measured under (`kind/operation vVERSION`), as the
    /// store holds it: a run read back and copied elsewhere keeps the one it was measured under,
    /// whatever the copying build's catalog says. `None` for an imported cell, a cell without a
    /// figure, one stored before definitions were kept, or a run not read from a store.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub definition: Option<String>,
}

/// Hardware counter readings of one process (`cycles`, `instructions`, …), by event name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CounterValues {
    pub values: Vec<(String, u64)>,
}

/// A stored `cryptospeed profile` result: one profiled cell, its full analysis as the JSON
/// document `profile --format json` prints (instruction mix, every cache configuration, every
/// predictor, the ILP grid), kept as text so the model does not depend on the simulator.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ProfileRecord {
    pub variant: String,
    pub primitive: String,
    pub bytes: Option<u64>,
    pub document: String,
}

/// Everything a report needs about one run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunRecord {
    pub run: RunInfo,
    pub machine: Machine,
    pub variants: Vec<Variant>,
    pub measurements: Vec<VariantMeasurement>,
}

#[cfg(test)]
mod tests {
    use super::{Op, RunConditions};

    #[test]
    fn every_op_round_trips_through_its_name() {
        for op in Op::ALL {
            assert_eq!(Op::parse(op.as_str()), Some(op), "{op}");
        }
        assert_eq!(Op::VerifyFreshKey.as_str(), "verify-fresh-key");
    }

    #[test]
    fn placement_names_the_cpus_the_rounds_took() {
        let mut c = RunConditions {
            steal: 0.031,
            other_load: 0.25,
            round_cpus: vec![0, 1],
            ..Default::default()
        };
        assert_eq!(
            c.placement().unwrap(),
            "every round's workers pinned to one CPU, the rounds taking CPUs 0,1 in turn; 3.1% of CPU time stolen, 0.25 CPUs busy with other work"
        );
        c.pinned = Some(1);
        c.round_cpus = vec![1];
        assert!(c
            .placement()
            .unwrap()
            .starts_with("every worker pinned to CPU 1 (--pin);"));
        c.pinned = None;
        c.round_cpus.clear();
        assert_eq!(c.placement(), None);
    }
}
