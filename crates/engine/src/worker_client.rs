//! The orchestrator's side of a worker process: spawn it, send requests, wait for replies with a
//! deadline, notice when it dies (and of what signal), and kill it on interruption.
//!
//! The worker runs in its own process group, so a Ctrl-C at the terminal reaches only the
//! orchestrator, which then decides what to keep and stops the worker itself.
//!
//! A client can be held to its column's declarations ([`WorkerClient::hold_to`]): a cell the
//! column declares not offered is reported unavailable with the declaration's reason before the
//! worker is asked, whatever language the worker is written in.

use crate::protocol::{Request, Response, PROTOCOL_VERSION};
use cryptospeed_catalog::definition::{refusal, Declared};
use cryptospeed_model::{CellSpec, MeasureConfig, Measurement, Status, Variant};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// How to start a worker: an argument vector and environment, never a shell line.
#[derive(Debug, Clone, Default)]
pub struct WorkerSpec {
    pub program: PathBuf,
    pub args: Vec<String>,
    /// Variables set for the worker, on top of the orchestrator's environment.
    pub env: Vec<(String, String)>,
    /// Start from an empty environment instead of the orchestrator's (only `env` is set): a
    /// traced worker's stack, which the environment's strings begin, then starts at the same
    /// place whatever shell started the profile.
    pub env_clear: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub enum WorkerError {
    Spawn(String),
    /// The worker exited or was killed; the text says how.
    Died(String),
    Timeout(Duration),
    /// The user interrupted the run.
    Interrupted,
    Protocol(String),
}

impl std::fmt::Display for WorkerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WorkerError::Spawn(e) => write!(f, "cannot start worker: {e}"),
            WorkerError::Died(e) => write!(f, "worker died: {e}"),
            WorkerError::Timeout(d) => {
                write!(f, "worker did not answer within {:.0}s", d.as_secs_f64())
            }
            WorkerError::Interrupted => write!(f, "interrupted"),
            WorkerError::Protocol(e) => write!(f, "worker protocol error: {e}"),
        }
    }
}

impl std::error::Error for WorkerError {}

pub struct WorkerClient {
    child: Child,
    stdin: Option<ChildStdin>,
    replies: Receiver<String>,
    pub variant: Variant,
    /// Whether the worker serves `measure` itself (else the orchestrator samples through it).
    pub measures: bool,
    /// The column's name and declarations (crates/impls), empty until [`WorkerClient::hold_to`].
    declared: (&'static str, &'static [Declared]),
    /// A sampling worker's bytes per flight from its last check (handshake cells), carried by
    /// the figure sampled next.
    checked_flights: Vec<u64>,
}

fn signal_name(sig: i32) -> &'static str {
    match sig {
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGABRT => "SIGABRT",
        libc::SIGKILL => "SIGKILL",
        libc::SIGBUS => "SIGBUS",
        libc::SIGILL => "SIGILL",
        libc::SIGFPE => "SIGFPE",
        libc::SIGTERM => "SIGTERM",
        libc::SIGINT => "SIGINT",
        _ => "signal",
    }
}

/// Which primitives' known-answer vectors a worker that asks for them is sent.
#[derive(Debug, Clone, Copy)]
pub enum VectorScope<'a> {
    /// The whole catalog: a worker that may be asked for any cell.
    All,
    /// Only these primitives: a worker asked for one cell, such as a traced one, whose start-up
    /// under an emulator would otherwise be spent parsing every primitive's vectors.
    Only(&'a [&'a str]),
}

impl WorkerClient {
    /// Starts a worker and performs the hello exchange, sending it every primitive's vectors.
    pub fn spawn(spec: &WorkerSpec, cancel: &AtomicBool) -> Result<WorkerClient, WorkerError> {
        Self::spawn_with(spec, VectorScope::All, cancel)
    }

    /// Starts a worker and performs the hello exchange, sending it the vectors of `scope`.
    pub fn spawn_with(
        spec: &WorkerSpec,
        scope: VectorScope,
        cancel: &AtomicBool,
    ) -> Result<WorkerClient, WorkerError> {
        let mut cmd = Command::new(&spec.program);
        if spec.env_clear {
            cmd.env_clear();
        }
        cmd.args(&spec.args)
            .envs(spec.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .process_group(0);
        let mut child = cmd
            .spawn()
            .map_err(|e| WorkerError::Spawn(format!("{}: {e}", spec.program.display())))?;
        let stdout = child.stdout.take().expect("stdout is piped");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                match line {
                    Ok(l) => {
                        if tx.send(l).is_err() {
                            break;
                        }
                    }
                    Err(_) => break,
                }
            }
        });
        let stdin = child.stdin.take();
        let mut client = WorkerClient {
            child,
            stdin,
            replies: rx,
            variant: Variant::default(),
            measures: true,
            declared: ("", &[]),
            checked_flights: Vec::new(),
        };
        match client.request(
            &Request::Hello {
                protocol: PROTOCOL_VERSION,
            },
            Duration::from_secs(60),
            cancel,
        )? {
            Response::Hello {
                protocol,
                variant,
                measures,
                wants_vectors,
            } if protocol == PROTOCOL_VERSION => {
                client.variant = variant;
                client.measures = measures;
                if wants_vectors {
                    client.send_vectors(scope, cancel)?;
                }
                Ok(client)
            }
            Response::Hello { protocol, .. } => Err(WorkerError::Protocol(format!(
                "worker speaks protocol {protocol}, this orchestrator {PROTOCOL_VERSION}"
            ))),
            Response::Error { message } => Err(WorkerError::Spawn(message)),
            other => Err(WorkerError::Protocol(format!(
                "unexpected reply to hello: {other:?}"
            ))),
        }
    }

    /// Sends the catalog's vectors to a worker that asked for them in its `hello` reply.
    fn send_vectors(&mut self, scope: VectorScope, cancel: &AtomicBool) -> Result<(), WorkerError> {
        let mut primitives = crate::vectors::catalog();
        if let VectorScope::Only(ids) = scope {
            primitives.retain(|p| ids.contains(&p.id.as_str()));
        }
        let sent = primitives.len();
        match self.request(
            &Request::Vectors { primitives },
            Duration::from_secs(60),
            cancel,
        )? {
            Response::Vectors { count } if count == sent => Ok(()),
            Response::Vectors { count } => Err(WorkerError::Protocol(format!(
                "the worker read {count} of the {sent} primitives' vectors"
            ))),
            Response::Error { message } => Err(WorkerError::Spawn(message)),
            other => Err(WorkerError::Protocol(format!(
                "unexpected reply to vectors: {other:?}"
            ))),
        }
    }

    /// Describes how the worker ended (waits briefly for it to be reaped).
    fn death(&mut self) -> String {
        let start = Instant::now();
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => {
                    return match (status.code(), status.signal()) {
                        (_, Some(sig)) => format!("killed by {} ({sig})", signal_name(sig)),
                        (Some(code), _) => format!("exited with status {code}"),
                        _ => "ended".into(),
                    }
                }
                Ok(None) if start.elapsed() < Duration::from_secs(2) => {
                    std::thread::sleep(Duration::from_millis(10))
                }
                _ => return "closed its output".into(),
            }
        }
    }

    /// Sends one request and waits for its reply.
    pub fn request(
        &mut self,
        req: &Request,
        deadline: Duration,
        cancel: &AtomicBool,
    ) -> Result<Response, WorkerError> {
        let line = serde_json::to_string(req).map_err(|e| WorkerError::Protocol(e.to_string()))?;
        let write = self
            .stdin
            .as_mut()
            .map(|s| writeln!(s, "{line}").and_then(|_| s.flush()));
        if !matches!(write, Some(Ok(()))) {
            let how = self.death();
            return Err(WorkerError::Died(how));
        }
        let start = Instant::now();
        loop {
            if cancel.load(Ordering::SeqCst) {
                self.kill();
                return Err(WorkerError::Interrupted);
            }
            match self.replies.recv_timeout(Duration::from_millis(50)) {
                Ok(reply) => {
                    return serde_json::from_str(&reply)
                        .map_err(|e| WorkerError::Protocol(format!("{e} in reply {reply:?}")))
                }
                Err(RecvTimeoutError::Timeout) => {
                    if start.elapsed() > deadline {
                        self.kill();
                        return Err(WorkerError::Timeout(deadline));
                    }
                }
                Err(RecvTimeoutError::Disconnected) => {
                    let how = self.death();
                    return Err(WorkerError::Died(how));
                }
            }
        }
    }

    /// Holds this worker to column `name`'s declarations: cells they say are not offered are
    /// never sent to the worker.
    pub fn hold_to(&mut self, name: &'static str, declared: &'static [Declared]) {
        self.declared = (name, declared);
    }

    /// Why the column's declarations say it does not time `cell`, if they do.
    fn refused(&self, cell: &CellSpec) -> Option<String> {
        let p = cryptospeed_catalog::lookup(&cell.primitive)?;
        refusal(self.declared.0, self.declared.1, p, cell.op)
    }

    /// Measures one cell: with one `measure` request, or, for workers that leave sampling to
    /// the orchestrator, with the engine's sampler driving `sample` requests. `deadline` bounds
    /// each request.
    pub fn measure(
        &mut self,
        cell: CellSpec,
        config: &MeasureConfig,
        deadline: Duration,
        cancel: &AtomicBool,
    ) -> Result<Measurement, WorkerError> {
        if let Some(why) = self.refused(&cell) {
            return Ok(Measurement::not_timed(cell, Status::Unavailable, why));
        }
        if self.measures {
            return match self.request(
                &Request::Measure {
                    cell: cell.clone(),
                    config: config.clone(),
                },
                deadline,
                cancel,
            )? {
                Response::Measurement { measurement } => Ok(measurement),
                Response::Error { message } => {
                    Ok(Measurement::not_timed(cell, Status::Failed, message))
                }
                other => Err(WorkerError::Protocol(format!(
                    "unexpected reply to measure: {other:?}"
                ))),
            };
        }
        // The worker only samples: availability and the known-answer tests are asked first, so
        // its cells follow the same rules as a measuring worker's.
        if let Some((status, why)) = self.not_to_sample(&cell.primitive, deadline, cancel)? {
            return Ok(Measurement::not_timed(cell, status, why));
        }
        let full = cell.op != cryptospeed_model::Op::HandshakeResumed;
        let mut m = self.sample_cell(cell, config, deadline, cancel)?;
        // The check is of a full handshake: a resumed cell carries none (as worker_server's).
        if m.status.has_numbers() && full {
            m.flights = std::mem::take(&mut self.checked_flights);
        }
        Ok(m)
    }

    /// For a worker that only samples: why `primitive` is not to be sampled (not offered, or its
    /// known-answer test failed), if it is not.
    fn not_to_sample(
        &mut self,
        primitive: &str,
        deadline: Duration,
        cancel: &AtomicBool,
    ) -> Result<Option<(Status, String)>, WorkerError> {
        let id = primitive.to_string();
        match self.request(
            &Request::Availability {
                primitives: vec![id.clone()],
            },
            deadline,
            cancel,
        )? {
            Response::Availability { entries } => {
                if let Some(e) = entries.into_iter().find(|e| !e.available) {
                    let why = e.reason.unwrap_or_else(|| "not offered".into());
                    return Ok(Some((Status::Unavailable, why)));
                }
            }
            other => {
                return Err(WorkerError::Protocol(format!(
                    "unexpected reply to availability: {other:?}"
                )))
            }
        }
        match self.request(&Request::Verify { primitive: id }, deadline, cancel)? {
            Response::Verify {
                ok: true, flights, ..
            } => self.checked_flights = flights,
            Response::Verify { detail, .. } => {
                return Ok(Some((
                    Status::Failed,
                    format!("not timed: known-answer test failed: {detail}"),
                )))
            }
            other => {
                return Err(WorkerError::Protocol(format!(
                    "unexpected reply to verify: {other:?}"
                )))
            }
        }
        Ok(None)
    }

    /// Measures `cell` with the engine's sampler driving the worker's `sample` requests.
    fn sample_cell(
        &mut self,
        cell: CellSpec,
        config: &MeasureConfig,
        deadline: Duration,
        cancel: &AtomicBool,
    ) -> Result<Measurement, WorkerError> {
        let mut fatal: Option<WorkerError> = None;
        let sampled = cell.clone();
        let m = crate::sampler::measure_with(
            |iters| {
                let reply = self.request(
                    &Request::Sample {
                        cell: sampled.clone(),
                        iters,
                    },
                    deadline,
                    cancel,
                );
                match reply {
                    Ok(Response::Sample { sample }) => Ok(sample),
                    Ok(Response::Error { message }) => Err(message),
                    Ok(other) => Err(format!("unexpected reply to sample: {other:?}")),
                    Err(e) => {
                        let text = e.to_string();
                        fatal = Some(e);
                        Err(text)
                    }
                }
            },
            cell,
            config,
        );
        match fatal {
            Some(e) => Err(e),
            None => Ok(m),
        }
    }

    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// The worker's process id (for counters opened on it).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Asks the worker to exit and waits until it has (a worker under valgrind writes the rest
    /// of its trace after its last reply); killed if it takes longer than `timeout`.
    pub fn quit_and_wait(mut self, timeout: Duration) -> Result<(), WorkerError> {
        let never = AtomicBool::new(false);
        let _ = self.request(&Request::Quit, timeout, &never);
        let start = Instant::now();
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) if status.success() => return Ok(()),
                Ok(Some(_)) => return Err(WorkerError::Died(self.death())),
                Ok(None) if start.elapsed() < timeout => {
                    std::thread::sleep(Duration::from_millis(20))
                }
                _ => {
                    self.kill();
                    return Err(WorkerError::Timeout(timeout));
                }
            }
        }
    }

    /// Asks the worker to exit, and kills it if it does not within a second.
    pub fn quit(mut self) {
        let never = AtomicBool::new(false);
        let _ = self.request(&Request::Quit, Duration::from_secs(1), &never);
        self.kill();
    }
}

impl Drop for WorkerClient {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            self.kill();
        }
    }
}
