//! Telling a run in progress from one whose process is gone. A run marked `running` is only
//! believed while it shows signs of life: a measuring run beats a heartbeat into the store every
//! few seconds (and records how often it promised to), and every run records its process id.
//! A reader judges it `abandoned` when the heartbeat is overdue, or, on the machine that ran it,
//! when that process no longer exists. Nothing is written: a run that was only slow and beats
//! again is `running` again.

use cryptospeed_model::RunStatus;

/// What a run row says about its process.
#[derive(Debug, Clone, Default)]
pub struct Pulse {
    /// When the run last beat (RFC 3339), and how often it promised to, in seconds.
    pub heartbeat_at: Option<String>,
    pub heartbeat_s: Option<f64>,
    pub pid: Option<i64>,
    /// The host name of the run's machine.
    pub host: String,
}

/// How long past its last beat a run is still believed: three missed beats and a second.
pub fn timeout_s(heartbeat_s: f64) -> f64 {
    3.0 * heartbeat_s + 1.0
}

/// The status a reader should show for a run stored with `status`.
pub fn judge(status: RunStatus, pulse: &Pulse) -> RunStatus {
    if status != RunStatus::Running {
        return status;
    }
    if let (Some(at), Some(every)) = (&pulse.heartbeat_at, pulse.heartbeat_s) {
        if let Ok(at) = chrono::DateTime::parse_from_rfc3339(at) {
            let age = chrono::Utc::now().signed_duration_since(at);
            if age.num_milliseconds() as f64 / 1000.0 > timeout_s(every) {
                return RunStatus::Abandoned;
            }
        }
    }
    if let Some(pid) = pulse.pid {
        if !pulse.host.is_empty() && pulse.host == local_hostname() && !process_exists(pid) {
            return RunStatus::Abandoned;
        }
    }
    RunStatus::Running
}

/// This machine's host name, as the machine probe records it (the kernel's node name).
pub fn local_hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

/// Whether a process with this id runs here (a zombie does not count). Where /proc is missing,
/// every process is assumed alive: only the heartbeat then judges.
pub fn process_exists(pid: i64) -> bool {
    if !std::path::Path::new("/proc/self").exists() {
        return true;
    }
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state is the first field after the parenthesised command name.
        Ok(stat) => stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_some_and(|state| state != "Z" && state != "X"),
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pulse(age_s: i64, every: f64, pid: Option<i64>) -> Pulse {
        let at = chrono::Utc::now() - chrono::Duration::seconds(age_s);
        Pulse {
            heartbeat_at: Some(at.to_rfc3339()),
            heartbeat_s: Some(every),
            pid,
            host: local_hostname(),
        }
    }

    #[test]
    fn an_overdue_heartbeat_means_abandoned() {
        let me = Some(std::process::id() as i64);
        assert_eq!(
            judge(RunStatus::Running, &pulse(2, 10.0, me)),
            RunStatus::Running
        );
        assert_eq!(
            judge(RunStatus::Running, &pulse(40, 10.0, me)),
            RunStatus::Abandoned
        );
        // Only running runs are judged.
        assert_eq!(
            judge(RunStatus::Complete, &pulse(40, 10.0, me)),
            RunStatus::Complete
        );
    }

    #[test]
    fn a_dead_process_on_this_host_means_abandoned_at_once() {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id() as i64;
        child.wait().unwrap();
        assert!(!process_exists(pid));
        assert!(process_exists(std::process::id() as i64));
        assert_eq!(
            judge(RunStatus::Running, &pulse(0, 10.0, Some(pid))),
            RunStatus::Abandoned
        );
        // On another host the process id says nothing.
        let elsewhere = Pulse {
            host: "some-other-host".into(),
            ..pulse(0, 10.0, Some(pid))
        };
        assert_eq!(judge(RunStatus::Running, &elsewhere), RunStatus::Running);
    }

    #[test]
    fn runs_stored_without_a_pulse_stay_running() {
        assert_eq!(
            judge(RunStatus::Running, &Pulse::default()),
            RunStatus::Running
        );
    }
}
