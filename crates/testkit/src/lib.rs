//! Real servers for the tests, started on loopback and stopped when dropped: a throw-away
//! PostgreSQL cluster from Debian's `postgresql` package (initdb + pg_ctl), with password
//! authentication so the tests can check the password never leaks. No mocks: the store talks to
//! the same server a team would run.

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

fn is_root() -> bool {
    std::env::var("USER").map(|u| u == "root").unwrap_or(false)
        || Command::new("id")
            .arg("-u")
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
            .unwrap_or(false)
}

impl PgServer {
    /// initdb, then start on a free loopback port. PostgreSQL refuses to run as root, so under
    /// root the server runs as the `postgres` user the Debian package creates.
    pub fn start() -> Result<PgServer> {
        let bin = server_bin()?;
        let dir = tempfile::Builder::new()
            .prefix("cryptospeed-pg")
            .tempdir()?;
        let as_postgres = is_root();
        let password = format!(
            "Pw-{:x}",
            std::process::id() as u64 * 7919 + free_port()? as u64
        );
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
        let server = PgServer {
            bin,
            port: free_port()?,
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
        server
            .tool("pg_ctl")?
            .arg("-D")
            .arg(server.data())
            .arg("-l")
            .arg(server.dir.path().join("server.log"))
            .arg("-o")
            .arg(format!(
                "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200",
                server.port,
                server.dir.path().display()
            ))
            .args(["-w", "-t", "60", "start"])
            .output_ok("pg_ctl start")?;
        Ok(server)
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
