//! The alternating rounds: per cell, the oracle program and cryptospeed's own `run` of the same
//! cell, one after the other on the same pinned CPU, the order swapped every round so drift and
//! a warm cache favour neither side. Nothing runs concurrently.

use crate::{Cell, Clock, Oracle, Provenance};
use anyhow::{bail, Context, Result};
use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Instant;

/// How the rounds are run.
#[derive(Debug, Clone)]
pub struct Options {
    /// The cryptospeed executable whose `run` gives our side.
    pub cryptospeed: PathBuf,
    /// The results store our side's runs go to (a scratch file: they are not the product).
    pub db: PathBuf,
    /// The CPU both sides are pinned to.
    pub cpu: usize,
    /// Rounds every cell gets before it is first judged.
    pub rounds: usize,
    /// Rounds a cell may get while its interval cannot decide (`report::looks`).
    pub max_rounds: usize,
    /// `run --max-time` for our side, seconds.
    pub max_time: f64,
}

/// Both sides' figures of one cell, one pair per round.
#[derive(Debug, Clone, Default)]
pub struct Pairs {
    /// The oracle's figure per CPU second (a wall-clock figure divided by its CPU share).
    pub oracle: Vec<f64>,
    pub ours: Vec<f64>,
    /// Our figure over every bout, none set aside for its canary (`run`'s
    /// `set_aside.every_bout_mean`), per round; empty where the rounds did not keep it.
    pub ours_every_bout: Vec<f64>,
    /// The share of its wall time the oracle process was on the CPU, per round.
    pub oracle_cpu_share: Vec<f64>,
    /// Whether our round found the host slowed: its cell's median bout's canary over 15% above
    /// the canary's floor (`run`'s `set_aside.canary_floor`), per round; empty where the rounds
    /// did not keep it. The oracle's figure of such a round averages over the host's states.
    pub ours_host_slowed: Vec<bool>,
}

impl Pairs {
    /// Rounds measured so far.
    pub fn len(&self) -> usize {
        self.ours.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ours.is_empty()
    }
}

/// Times `cell` on both sides until `pairs` holds `rounds` rounds, each round's order swapped
/// from the one before (rounds already there count: a cell is extended, not restarted).
pub fn measure(
    oracle: &dyn Oracle,
    built: &Provenance,
    cell: &Cell,
    opts: &Options,
    pairs: &mut Pairs,
    rounds: usize,
) -> Result<()> {
    for round in pairs.len()..rounds {
        if round % 2 == 1 {
            push_ours(pairs, run_ours(oracle.column(), cell, opts)?);
        }
        let (figure, share) = run_oracle(oracle, built, cell, opts.cpu)?;
        let per_cpu_second = match oracle.clock() {
            Clock::Wall => figure / share.clamp(0.05, 1.0),
            Clock::Undisturbed => figure,
        };
        pairs.oracle.push(per_cpu_second);
        pairs.oracle_cpu_share.push(share);
        if round % 2 == 0 {
            push_ours(pairs, run_ours(oracle.column(), cell, opts)?);
        }
    }
    Ok(())
}

fn push_ours(pairs: &mut Pairs, ours: Ours) {
    pairs.ours.push(ours.figure);
    pairs.ours_every_bout.push(ours.every_bout);
    pairs.ours_host_slowed.push(ours.host_slowed);
}

/// One round of our side: the figure as reported, over every bout, and whether the host ran
/// slowed (see [`Pairs::ours_host_slowed`]).
struct Ours {
    figure: f64,
    every_bout: f64,
    host_slowed: bool,
}

/// A command pinned to one CPU (inherited by every process it starts).
fn pinned(argv: &[String], cpu: usize) -> Command {
    let mut cmd = Command::new(&argv[0]);
    cmd.args(&argv[1..]).env("LC_ALL", "C");
    // SAFETY: sched_setaffinity on the calling (child) thread only, before exec; no allocation.
    unsafe {
        cmd.pre_exec(move || {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_SET(cpu, &mut set);
            if libc::sched_setaffinity(0, std::mem::size_of_val(&set), &set) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    cmd
}

/// Runs a pinned command, with `env` added to its environment, to its end; its standard
/// output, or why it failed.
fn output_with(argv: &[String], cpu: usize, env: &[(&str, &str)]) -> Result<String> {
    let out = pinned(argv, cpu)
        .envs(env.iter().copied())
        .output()
        .with_context(|| format!("starting {}", argv[0]))?;
    if !out.status.success() {
        bail!(
            "{} exited with {}: {}",
            argv.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The oracle's figure and the CPU share of its process (CPU time over wall time).
fn run_oracle(
    oracle: &dyn Oracle,
    built: &Provenance,
    cell: &Cell,
    cpu: usize,
) -> Result<(f64, f64)> {
    let argv = oracle.command(built, cell);
    let done = |out: &str| oracle.parse(cell, out).is_ok();
    let (text, share) = until(&argv, cpu, done, |line| oracle.window_starts(line))?;
    let figure = oracle
        .parse(cell, &text)
        .with_context(|| format!("reading {} for {}", argv.join(" "), cell.spec()))?;
    Ok((figure, share))
}

/// Runs a pinned oracle program until its output holds the figure (`done`), then stops it (a
/// program that times many algorithms in turn is not left to time the ones not asked for); its
/// output and the share of the wall time it was on the CPU while it timed the cell: between the
/// last line that `starts` a timed window (by default the line before the figure's: each program
/// starts a loop right after it prints the previous result) and the figure's own (`stdbuf -oL`
/// makes each line arrive when it is printed). Where no line started a window before the
/// figure's, the window is the whole process: its CPU time from `wait4`, which holds threads that have ended
/// (perftools times in a thread that ends before the figure is printed; `/proc` no longer
/// lists it then).
fn until(
    argv: &[String],
    cpu: usize,
    done: impl Fn(&str) -> bool,
    starts: impl Fn(&str) -> bool,
) -> Result<(String, f64)> {
    let mut line_buffered = vec!["stdbuf".to_string(), "-oL".to_string()];
    line_buffered.extend_from_slice(argv);
    let start = Instant::now();
    let mut child = pinned(&line_buffered, cpu)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .with_context(|| format!("starting {} (stdbuf is in coreutils)", argv[0]))?;
    let pid = child.id();
    let (mut text, mut window, mut found) = (String::new(), None, false);
    let (mut mark, mut marked) = ((start, on_cpu(pid)), false);
    for line in BufReader::new(child.stdout.take().context("no stdout")?).lines() {
        let line = line?;
        text += &line;
        text.push('\n');
        let now = (Instant::now(), on_cpu(pid));
        if done(&text) {
            found = true;
            window = share(mark, now).filter(|_| marked);
            let _ = child.kill();
            break;
        }
        if starts(&line) {
            (mark, marked) = (now, true);
        }
    }
    let wall = start.elapsed().as_secs_f64();
    let (status, cpu_seconds) = reap(pid)?;
    if !found && status != 0 {
        bail!(
            "{} exited with status {status}: {}",
            argv.join(" "),
            text.trim()
        );
    }
    Ok((text, window.unwrap_or(cpu_seconds / wall).min(1.0)))
}

/// Seconds all of a process's threads have run on a CPU (`/proc/PID/task/*/schedstat`,
/// nanoseconds): a Go benchmark runs on a thread other than the main one.
fn on_cpu(pid: u32) -> Option<f64> {
    let mut ns = 0.0;
    for task in std::fs::read_dir(format!("/proc/{pid}/task"))
        .ok()?
        .flatten()
    {
        let s = std::fs::read_to_string(task.path().join("schedstat")).unwrap_or_default();
        ns += s
            .split_whitespace()
            .next()
            .and_then(|x| x.parse().ok())
            .unwrap_or(0.0);
    }
    Some(ns / 1e9)
}

/// CPU seconds over wall seconds between two marks, when both were read.
fn share(from: (Instant, Option<f64>), to: (Instant, Option<f64>)) -> Option<f64> {
    let wall = to.0.duration_since(from.0).as_secs_f64();
    Some((to.1? - from.1?) / wall).filter(|_| wall > 0.05)
}

/// Waits for a child and returns its wait status and the CPU seconds (user + system) it used.
fn reap(pid: u32) -> Result<(i32, f64)> {
    let mut status = 0;
    // SAFETY: an all-zero rusage is valid; wait4 fills it for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: pid is our un-reaped child; the pointers are to live locals.
    let r = unsafe { libc::wait4(pid as libc::pid_t, &mut status, 0, &mut usage) };
    if r < 0 {
        bail!("wait4: {}", std::io::Error::last_os_error());
    }
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    Ok((status, secs(usage.ru_utime) + secs(usage.ru_stime)))
}

/// The argv of cryptospeed's own run of `cell`.
pub fn ours_command(column: &str, cell: &Cell, opts: &Options) -> Vec<String> {
    let mut argv: Vec<String> = vec![opts.cryptospeed.display().to_string(), "run".into()];
    for (k, v) in [
        ("--impl", column.to_string()),
        ("--cells", cell.spec()),
        ("--ops", cell.op.to_string()),
        ("--pin", opts.cpu.to_string()),
        ("--max-time", opts.max_time.to_string()),
        ("--format", "json".into()),
        ("--db", opts.db.display().to_string()),
    ] {
        argv.push(k.into());
        argv.push(v);
    }
    argv
}

/// Our side's figure. The quiet canary reference is switched off for it
/// (`CRYPTOSPEED_QUIET_CANARY=off`): it divides out a slowdown the whole run shares, which the
/// oracle's figure, timed beside it on the same CPU, also carries and nothing divides out of;
/// both sides are then timed alike.
/// With it, the figure over every bout (the same when no bout was set aside for its canary)
/// and whether the host ran slowed.
fn run_ours(column: &str, cell: &Cell, opts: &Options) -> Result<Ours> {
    let text = output_with(
        &ours_command(column, cell, opts),
        opts.cpu,
        &[("CRYPTOSPEED_QUIET_CANARY", "off")],
    )?;
    let figure = figure_of(&text, cell)?;
    Ok(Ours {
        figure,
        every_bout: every_bout_of(&text).unwrap_or(figure),
        host_slowed: host_slowed_in(&text),
    })
}

/// Whether the one measurement in `run --format json` output found the host slowed: its
/// `set_aside.canary_floor` is there only where the cell's median bout's canary ran over 15%
/// above the canary's floor.
pub fn host_slowed_in(json: &str) -> bool {
    let rows: Vec<serde_json::Value> = serde_json::from_str(json).unwrap_or_default();
    rows.first()
        .is_some_and(|r| r["set_aside"]["canary_floor"].is_object())
}

/// `set_aside.every_bout_mean` of the one measurement in `run --format json` output.
pub fn every_bout_of(json: &str) -> Option<f64> {
    let rows: Vec<serde_json::Value> = serde_json::from_str(json).ok()?;
    rows.first()?["set_aside"]["every_bout_mean"].as_f64()
}

/// The median of the one measurement in `run --format json` output, checked for unit.
pub fn figure_of(json: &str, cell: &Cell) -> Result<f64> {
    let rows: Vec<serde_json::Value> = serde_json::from_str(json).context("run --format json")?;
    let row = rows.first().context("run printed no measurement")?;
    let unit = row["unit"].as_str().unwrap_or_default();
    if unit != cell.unit() {
        bail!("run gave {unit}, expected {}", cell.unit());
    }
    row["median"]
        .as_f64()
        .with_context(|| format!("no median in {row}"))
}
