//! Real servers for the tests, started on loopback and stopped when dropped: a throw-away
//! PostgreSQL cluster from Debian's `postgresql` package (initdb + pg_ctl), with password
//! authentication so the tests can check the password never leaks. No mocks: the store talks to
//! the same server a team would run. Also what keeps the tests from leaving anything behind: the
//! suite's own cache directory ([`cache_dir`], never the user's `~/.cache/cryptospeed`) and a
//! child process that is killed with its process group when the test ends ([`KillOnDrop`]),
//! also when an assertion panics first.

use anyhow::{anyhow, bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A PostgreSQL server of our own on 127.0.0.1, in a temporary directory.
pub struct PgServer {
    dir: tempfile::TempDir,
    bin: PathBuf,
    pub port: u16,
    pub user: String,
    pub password: String,
    as_postgres: bool,
}

/// The newest PostgreSQL server binaries Debian installed (`/usr/lib/postgresql/N/bin`).
fn server_bin() -> Result<PathBuf> {
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .map_err(|_| anyhow!("PostgreSQL is not installed (/usr/lib/postgresql is missing): run scripts/setup with CRYPTOSPEED_SETUP_TESTS=1, or apt-get install postgresql"))?
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let v = e.file_name().to_string_lossy().parse::<u32>().ok()?;
            Some((v, e.path().join("bin")))
        })
        .filter(|(_, p)| p.join("initdb").exists())
        .collect();
    versions.sort();
    versions
        .pop()
        .map(|(_, p)| p)
        .ok_or_else(|| anyhow!("no initdb under /usr/lib/postgresql/*/bin"))
}

fn free_port() -> Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}

/// The variant cache the test suite builds into (`CRYPTOSPEED_CACHE` for every command a test
/// starts): `$CRYPTOSPEED_TEST_CACHE`, else `cryptospeed-tests` in the user's cache directory
/// (`$XDG_CACHE_HOME`, else `~/.cache`). Never the cache a user's own runs keep
/// (`~/.cache/cryptospeed`): the tests leave that one as they found it. Builds in it are keyed by
/// their content (source, options, toolchain), so whichever test builds first, the others find
/// the same build, and test order decides nothing.
pub fn cache_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("CRYPTOSPEED_TEST_CACHE").filter(|v| !v.is_empty()) {
        return dir.into();
    }
    std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir)
        .join("cryptospeed-tests")
}

/// A child process started in a process group of its own, killed with everything it started
/// (its workers) when this is dropped: at the end of the test, or while a failed assertion
/// unwinds. Waiting for it first (through [`KillOnDrop::child`]) is fine; the kill then finds
/// nothing.
pub struct KillOnDrop {
    child: std::process::Child,
}

impl KillOnDrop {
    /// Spawns `command` as the leader of a new process group.
    pub fn spawn(command: &mut Command) -> Result<KillOnDrop> {
        use std::os::unix::process::CommandExt;
        let child = command
            .process_group(0)
            .spawn()
            .with_context(|| format!("cannot start {:?}", command.get_program()))?;
        Ok(KillOnDrop { child })
    }

    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// The child itself, to signal it, wait for it or read its pipes.
    pub fn child(&mut self) -> &mut std::process::Child {
        &mut self.child
    }

    /// Waits for the child and collects its output (its process group is still killed on drop).
    pub fn wait_with_output(mut self) -> std::io::Result<std::process::Output> {
        use std::io::Read;
        let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
        // Read stderr on a thread so that neither pipe fills while the other is read.
        let err = self.child.stderr.take().map(|mut e| {
            std::thread::spawn(move || {
                let mut buf = Vec::new();
                let _ = e.read_to_end(&mut buf);
                buf
            })
        });
        if let Some(mut out) = self.child.stdout.take() {
            out.read_to_end(&mut stdout)?;
        }
        if let Some(t) = err {
            stderr = t.join().unwrap_or_default();
        }
        let status = self.child.wait()?;
        Ok(std::process::Output {
            status,
            stdout,
            stderr,
        })
    }
}

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        // The whole group (the child was its leader): workers the child started go too.
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", self.child.id())])
            .stderr(std::process::Stdio::null())
            .output();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Whether this process runs as root, by its effective user id (not `$USER`, which `setpriv`
/// or `runuser` may leave saying root).
fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

impl PgServer {
    /// initdb, then start on a free loopback port. PostgreSQL refuses to run as root, so under
    /// root the server runs as the `postgres` user the Debian package creates.
    ///
    /// PostgreSQL cannot be told to bind port 0 and report the port it got, so the port is one
    /// that was free a moment ago; when another process took it in between (another test's
    /// server starting at the same time), the server says "could not bind" and it is started
    /// again on another. The unix socket goes into the server's own directory, so two servers
    /// never share a socket path either.
    pub fn start() -> Result<PgServer> {
        Self::start_on(std::iter::from_fn(|| free_port().ok()))
    }

    /// [`PgServer::start`], trying the ports `ports` gives in turn (at most eight) while each
    /// turns out to be taken.
    pub fn start_on(mut ports: impl Iterator<Item = u16>) -> Result<PgServer> {
        let bin = server_bin()?;
        let dir = tempfile::Builder::new()
            .prefix("cryptospeed-pg")
            .tempdir()?;
        let as_postgres = is_root();
        let password = format!("Pw-{}", random_hex(12)?);
        let pwfile = dir.path().join("pwfile");
        std::fs::write(&pwfile, format!("{password}\n"))?;
        if as_postgres {
            let status = Command::new("chown")
                .args(["-R", "postgres:postgres"])
                .arg(dir.path())
                .status()?;
            if !status.success() {
                bail!("cannot hand {} to the postgres user", dir.path().display());
            }
        }
        let mut server = PgServer {
            bin,
            port: 0,
            user: "cryptospeed".into(),
            password,
            as_postgres,
            dir,
        };
        server
            .tool("initdb")?
            .arg("-D")
            .arg(server.data())
            .args([
                "-U",
                &server.user,
                "--auth=scram-sha-256",
                "-E",
                "UTF8",
                "--no-sync",
            ])
            .arg(format!("--pwfile={}", pwfile.display()))
            .output_ok("initdb")?;
        let mut tried = Vec::new();
        loop {
            let Some(port) = ports.next() else {
                bail!("no free port to start PostgreSQL on (tried {tried:?})");
            };
            server.port = port;
            let log_before = server.log().len();
            match server.resume() {
                Ok(()) => return Ok(server),
                Err(e) => {
                    let log = server.log();
                    let taken = log
                        .get(log_before..)
                        .unwrap_or("")
                        .contains("could not bind");
                    tried.push(port);
                    if !taken || tried.len() >= 8 {
                        return Err(e.context(format!("ports tried: {tried:?}")));
                    }
                }
            }
        }
    }

    /// Starts the (stopped) server again on the same port and data, waiting until it accepts
    /// connections.
    pub fn resume(&self) -> Result<()> {
        self.tool("pg_ctl")?
            .arg("-D")
            .arg(self.data())
            .arg("-l")
            .arg(self.dir.path().join("server.log"))
            .arg("-o")
            .arg(format!(
                "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200",
                self.port,
                self.dir.path().display()
            ))
            .args(["-w", "-t", "60", "start"])
            .output_ok("pg_ctl start")?;
        Ok(())
    }

    /// Stops the server (fast shutdown: open connections are closed), as a restart or a
    /// failover would, waiting until it is down.
    pub fn pause(&self) -> Result<()> {
        self.tool("pg_ctl")?
            .arg("-D")
            .arg(self.data())
            .args(["-m", "fast", "-w", "-t", "60", "stop"])
            .output_ok("pg_ctl stop")?;
        Ok(())
    }

    fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    fn tool(&self, name: &str) -> Result<Command> {
        let path = self.bin.join(name);
        Ok(if self.as_postgres {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(path);
            c
        } else {
            Command::new(path)
        })
    }

    /// Creates a fresh database and returns its URL (with the password in it).
    pub fn database(&self, name: &str) -> Result<String> {
        Command::new(self.bin.join("createdb"))
            .args([
                "-h",
                "127.0.0.1",
                "-p",
                &self.port.to_string(),
                "-U",
                &self.user,
                name,
            ])
            .env("PGPASSWORD", &self.password)
            .output_ok("createdb")?;
        Ok(self.url(name))
    }

    /// The URL of a database on this server, with the password.
    pub fn url(&self, database: &str) -> String {
        format!(
            "postgres://{}:{}@127.0.0.1:{}/{database}",
            self.user, self.password, self.port
        )
    }

    /// Runs SQL through `psql` and returns its unaligned, tuples-only output.
    pub fn psql(&self, database: &str, sql: &str) -> Result<String> {
        let out = Command::new(self.bin.join("psql"))
            .args([
                "-h",
                "127.0.0.1",
                "-p",
                &self.port.to_string(),
                "-U",
                &self.user,
            ])
            .args([
                "-d",
                database,
                "-X",
                "-A",
                "-t",
                "-v",
                "ON_ERROR_STOP=1",
                "-c",
                sql,
            ])
            .env("PGPASSWORD", &self.password)
            .output_ok("psql")?;
        Ok(out)
    }

    /// The server's log (for failure messages).
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("server.log")).unwrap_or_default()
    }

    pub fn dir(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for PgServer {
    fn drop(&mut self) {
        if let Ok(mut c) = self.tool("pg_ctl") {
            let _ = c
                .arg("-D")
                .arg(self.data())
                .args(["-m", "immediate", "stop"])
                .output();
        }
    }
}

/// `bytes` random bytes from the kernel, in hex.
fn random_hex(bytes: usize) -> Result<String> {
    let mut buf = vec![0u8; bytes];
    std::io::Read::read_exact(&mut std::fs::File::open("/dev/urandom")?, &mut buf)?;
    Ok(buf.iter().map(|b| format!("{b:02x}")).collect())
}

trait OutputOk {
    fn output_ok(&mut self, what: &str) -> Result<String>;
}

impl OutputOk for Command {
    fn output_ok(&mut self, what: &str) -> Result<String> {
        let out = self
            .output()
            .with_context(|| format!("cannot start {what}"))?;
        if !out.status.success() {
            bail!(
                "{what} failed ({}): {}{}",
                out.status,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }
}

/// A one-node Slurm cluster on loopback (Debian's slurm-wlm and munge): its own munged with a
/// fresh key and socket, slurmctld and slurmd in the foreground on free ports, state and logs in a
/// temporary directory. slurmd must run as root (it starts jobs as their users), so this needs
/// root. Clients find it through `SLURM_CONF`, which [`SlurmCluster::env`] gives.
pub struct SlurmCluster {
    dir: tempfile::TempDir,
    daemons: Vec<std::process::Child>,
    pub partition: String,
}

/// A one-node cluster's slurm.conf: this host, all its CPUs, one partition, state in `d`. Batch
/// jobs are scheduled on the controller's next one-second pass, not after Slurm's default
/// `batch_sched_delay` of 3 s: an `--exclusive` job array then runs a task a second instead of
/// one every three (a 20-task array of 0.5 s tasks took 48 s with the defaults, 21 s without).
fn slurm_conf(d: &Path, socket: &Path, partition: &str) -> Result<String> {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")?
        .trim()
        .to_string();
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    Ok(format!(
        "ClusterName=cryptospeed-test\n\
             SlurmctldHost={host}(127.0.0.1)\n\
             SlurmctldPort={ctld}\n\
             SlurmdPort={slurmd}\n\
             AuthType=auth/munge\n\
             AuthInfo=socket={socket}\n\
             CredType=cred/munge\n\
             SlurmUser=root\n\
             SlurmdUser=root\n\
             StateSaveLocation={dir}/state\n\
             SlurmdSpoolDir={dir}/spool\n\
             SlurmctldPidFile={dir}/slurmctld.pid\n\
             SlurmdPidFile={dir}/slurmd.pid\n\
             SlurmctldLogFile={dir}/slurmctld.log\n\
             SlurmdLogFile={dir}/slurmd.log\n\
             ProctrackType=proctrack/linuxproc\n\
             TaskPlugin=task/none\n\
             JobAcctGatherType=jobacct_gather/none\n\
             AccountingStorageType=accounting_storage/none\n\
             JobCompType=jobcomp/none\n\
             SelectType=select/cons_tres\n\
             SelectTypeParameters=CR_CPU\n\
             SchedulerType=sched/builtin\n\
             SchedulerParameters=batch_sched_delay=0,sched_min_interval=0\n\
             MpiDefault=none\n\
             ReturnToService=2\n\
             SwitchType=switch/none\n\
             NodeName={host} NodeAddr=127.0.0.1 CPUs={cpus} State=UNKNOWN\n\
             PartitionName={partition} Nodes={host} Default=YES MaxTime=INFINITE State=UP\n",
        ctld = free_port()?,
        slurmd = free_port()?,
        socket = socket.display(),
        dir = d.display(),
    ))
}

/// Starts munged with a fresh key in `d`; its socket.
fn start_munge(d: &Path) -> Result<PathBuf> {
    let mut key = vec![0u8; 1024];
    std::io::Read::read_exact(&mut std::fs::File::open("/dev/urandom")?, &mut key)?;
    std::fs::write(d.join("munge.key"), key)?;
    Command::new("chmod")
        .arg("600")
        .arg(d.join("munge.key"))
        .output_ok("chmod")?;
    let socket = d.join("munge.sock");
    Command::new("munged")
        .arg(format!("--socket={}", socket.display()))
        .arg(format!("--key-file={}", d.join("munge.key").display()))
        .arg(format!("--pid-file={}", d.join("munged.pid").display()))
        .arg(format!("--log-file={}", d.join("munged.log").display()))
        .arg(format!("--seed-file={}", d.join("munge.seed").display()))
        .arg("--force")
        .output_ok("munged")?;
    Ok(socket)
}

impl SlurmCluster {
    pub fn start() -> Result<SlurmCluster> {
        if !is_root() {
            bail!("a loopback Slurm cluster needs root (slurmd starts jobs as their users)");
        }
        for tool in ["munged", "slurmctld", "slurmd", "sbatch"] {
            if !Command::new("sh")
                .args(["-c", &format!("command -v {tool}")])
                .output()?
                .status
                .success()
            {
                bail!("{tool} is missing: apt-get install slurm-wlm munge");
            }
        }
        let dir = tempfile::Builder::new()
            .prefix("cryptospeed-slurm")
            .tempdir()?;
        let d = dir.path();
        std::fs::create_dir_all(d.join("state"))?;
        std::fs::create_dir_all(d.join("spool"))?;
        let socket = start_munge(d)?;
        let partition = "bench".to_string();
        std::fs::write(d.join("slurm.conf"), slurm_conf(d, &socket, &partition)?)?;
        let mut cluster = SlurmCluster {
            dir,
            daemons: Vec::new(),
            partition,
        };
        for daemon in ["slurmctld", "slurmd"] {
            let log = std::fs::File::create(cluster.dir.path().join(format!("{daemon}.out")))?;
            let child = Command::new(daemon)
                .arg("-D")
                .arg("-f")
                .arg(cluster.conf())
                .envs(cluster.env())
                .stdout(log.try_clone()?)
                .stderr(log)
                .spawn()
                .with_context(|| format!("cannot start {daemon}"))?;
            cluster.daemons.push(child);
        }
        cluster.wait_idle()?;
        Ok(cluster)
    }

    /// Waits (a minute at most) for the node to come up idle.
    fn wait_idle(&self) -> Result<()> {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        loop {
            let state = Command::new("sinfo")
                .args(["-h", "-o", "%T"])
                .envs(self.env())
                .output()?;
            if String::from_utf8_lossy(&state.stdout).trim() == "idle" {
                break;
            }
            if std::time::Instant::now() > deadline {
                bail!("the Slurm node never became idle:\n{}", self.logs());
            }
            std::thread::sleep(std::time::Duration::from_millis(300));
        }
        Ok(())
    }

    pub fn conf(&self) -> PathBuf {
        self.dir.path().join("slurm.conf")
    }

    /// What a Slurm client (sbatch, squeue) needs in its environment to reach this cluster.
    pub fn env(&self) -> Vec<(String, String)> {
        vec![("SLURM_CONF".into(), self.conf().display().to_string())]
    }

    /// Whether any job is still queued or running.
    pub fn busy(&self) -> Result<bool> {
        let out = Command::new("squeue")
            .args(["-h", "-o", "%i"])
            .envs(self.env())
            .output_ok("squeue")?;
        Ok(!out.trim().is_empty())
    }

    /// Both daemons' logs, for failure messages.
    pub fn logs(&self) -> String {
        ["slurmctld.log", "slurmd.log", "slurmctld.out", "slurmd.out"]
            .iter()
            .map(|f| {
                let text = std::fs::read_to_string(self.dir.path().join(f)).unwrap_or_default();
                let tail: Vec<&str> = text.lines().rev().take(30).collect();
                format!(
                    "== {f}\n{}\n",
                    tail.into_iter().rev().collect::<Vec<_>>().join("\n")
                )
            })
            .collect()
    }
}

impl Drop for SlurmCluster {
    fn drop(&mut self) {
        let _ = Command::new("scancel")
            .args(["--user", "root"])
            .envs(self.env())
            .output();
        for child in &mut self.daemons {
            stop_child(child);
        }
        if let Ok(pid) = std::fs::read_to_string(self.dir.path().join("munged.pid")) {
            let _ = Command::new("kill").arg(pid.trim()).output();
        }
    }
}

/// SIGTERM, a moment to exit, then SIGKILL.
fn stop_child(child: &mut std::process::Child) {
    let _ = Command::new("kill").arg(child.id().to_string()).output();
    for _ in 0..50 {
        if let Ok(Some(_)) = child.try_wait() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let _ = child.kill();
    let _ = child.wait();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_port_taken_before_the_server_binds_it_is_skipped_for_another() {
        // Held for the whole test: the first port offered is taken when PostgreSQL binds.
        let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let busy = taken.local_addr().unwrap().port();
        let ports = std::iter::once(busy).chain(std::iter::from_fn(|| free_port().ok()));
        let server = PgServer::start_on(ports).unwrap();
        assert_ne!(server.port, busy);
        assert!(server.log().contains("could not bind"), "{}", server.log());
        server.database("ok").unwrap();
        assert_eq!(server.psql("ok", "SELECT 1 + 1").unwrap().trim(), "2");
    }

    /// Whether a process with this id exists (and is not a zombie).
    fn alive(pid: &str) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map(|s| !s.contains(") Z "))
            .unwrap_or(false)
    }

    #[test]
    fn a_child_and_what_it_started_are_killed_when_the_test_unwinds() {
        let dir = tempfile::tempdir().unwrap();
        let pids = dir.path().join("pids");
        let script = format!(
            "sleep 300 & echo $! > {0}.tmp; echo $$ >> {0}.tmp; mv {0}.tmp {0}; wait",
            pids.display()
        );
        let outcome = std::panic::catch_unwind(|| {
            let _child = KillOnDrop::spawn(Command::new("sh").args(["-c", &script])).unwrap();
            let start = std::time::Instant::now();
            while !pids.exists() && start.elapsed().as_secs() < 30 {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            panic!("an assertion fails while the child runs");
        });
        assert!(outcome.is_err());
        let text = std::fs::read_to_string(&pids).unwrap();
        let ids: Vec<&str> = text.split_whitespace().collect();
        assert_eq!(ids.len(), 2, "{text}");
        for pid in ids {
            // A killed grandchild is reaped by init a moment later.
            let start = std::time::Instant::now();
            while alive(pid) && start.elapsed().as_secs() < 10 {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            assert!(!alive(pid), "process {pid} outlived its KillOnDrop");
        }
    }
}
