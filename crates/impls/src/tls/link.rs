//! The emulated network path of `tls::net`: two network namespaces, each with a TUN device
//! (10.251.51.1 and .2, point to point), and a relay in this process that carries every IP
//! packet from one device to the other after a fixed one-way delay, dropping a given share.
//! This is what `tc qdisc ... netem delay D loss L` on both ends of a veth pair does; it is
//! done in user space because the kernels these tools run on may lack sch_netem (the VMs here
//! do: `tc` answers "Specified qdisc kind is unknown"). The kernels' TCP stacks are real; only
//! the wire is emulated. Namespaces and devices go away when [`Link`] drops.

use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The emulated path: one-way delay each way and the share of packets lost each way.
#[derive(Debug, Clone, Copy)]
pub struct Path {
    pub delay_ms: f64,
    pub loss_pct: f64,
}

/// Two namespaces joined by the delaying relay; deleted on drop.
pub struct Link {
    names: [String; 2],
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
    fds: [i32; 2],
}

/// The server's and the client's addresses.
pub const ADDRS: [&str; 2] = ["10.251.51.1", "10.251.51.2"];

fn ip(args: &[&str]) -> Result<(), String> {
    let out = Command::new(args[0])
        .args(&args[1..])
        .output()
        .map_err(|e| format!("{}: {e}", args[0]))?;
    if out.status.success() {
        return Ok(());
    }
    Err(format!(
        "`{}` failed: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr).trim()
    ))
}

/// Moves the calling thread into namespace `name` (a thread's network namespace is its own).
pub fn enter(name: &str) -> Result<(), String> {
    let path = format!("/var/run/netns/{name}\0");
    // SAFETY: a NUL-terminated path; the descriptor is closed after setns.
    unsafe {
        let fd = libc::open(path.as_ptr().cast(), libc::O_RDONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return Err(format!("open {path}: {}", std::io::Error::last_os_error()));
        }
        let r = libc::setns(fd, libc::CLONE_NEWNET);
        libc::close(fd);
        if r != 0 {
            return Err(format!("setns: {}", std::io::Error::last_os_error()));
        }
    }
    Ok(())
}

/// Opens a TUN device called `dev` (no packet information header) in namespace `ns`, from a
/// thread that enters it, and returns its descriptor.
fn open_tun(ns: &str, dev: &str) -> Result<i32, String> {
    let (ns, dev) = (ns.to_string(), dev.to_string());
    std::thread::spawn(move || -> Result<i32, String> {
        enter(&ns)?;
        const TUNSETIFF: libc::c_ulong = 0x4004_54ca;
        let mut ifr = [0u8; 40];
        ifr[..dev.len()].copy_from_slice(dev.as_bytes());
        let flags = (libc::IFF_TUN | libc::IFF_NO_PI) as i16;
        ifr[16..18].copy_from_slice(&flags.to_ne_bytes());
        // SAFETY: a path literal; ifr is a struct ifreq's 40 bytes.
        unsafe {
            let fd = libc::open(c"/dev/net/tun".as_ptr(), libc::O_RDWR | libc::O_CLOEXEC);
            if fd < 0 || libc::ioctl(fd, TUNSETIFF, ifr.as_mut_ptr()) < 0 {
                return Err(format!("TUN {dev}: {}", std::io::Error::last_os_error()));
            }
            Ok(fd)
        }
    })
    .join()
    .map_err(|_| "the TUN thread panicked".to_string())?
}

/// Reads packets from `from` until `stop`, handing each to the writer with its due time (or
/// dropping it with probability `loss`); the writer writes each to `to` when due.
fn relay(from: i32, to: i32, path: Path, seed: u64, stop: Arc<AtomicBool>) -> [JoinHandle<()>; 2] {
    let (tx, rx) = mpsc::channel::<(Instant, Vec<u8>)>();
    let delay = Duration::from_secs_f64(path.delay_ms / 1e3);
    let reader = std::thread::spawn(move || {
        let mut rng = seed | 1;
        let mut buf = vec![0u8; 65536];
        while !stop.load(Ordering::Relaxed) {
            let mut pfd = libc::pollfd {
                fd: from,
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one pollfd; buf outlives the read.
            let n = unsafe {
                if libc::poll(&mut pfd, 1, 50) <= 0 {
                    continue;
                }
                libc::read(from, buf.as_mut_ptr().cast(), buf.len())
            };
            if n <= 0 {
                continue;
            }
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            if (rng % 1_000_000) as f64 >= path.loss_pct * 1e4 {
                let _ = tx.send((Instant::now() + delay, buf[..n as usize].to_vec()));
            }
        }
    });
    let writer = std::thread::spawn(move || {
        for (due, pkt) in rx {
            let now = Instant::now();
            if due > now {
                std::thread::sleep(due - now);
            }
            // SAFETY: pkt outlives the write.
            unsafe { libc::write(to, pkt.as_ptr().cast(), pkt.len()) };
        }
    });
    [reader, writer]
}

impl Link {
    /// Makes namespaces `PREFIX-srv` and `PREFIX-cli`, a TUN device in each and the relay.
    pub fn new(prefix: &str, path: Path) -> Result<Link, String> {
        let names = [format!("{prefix}-srv"), format!("{prefix}-cli")];
        for n in &names {
            let _ = ip(&["ip", "netns", "del", n]);
            ip(&["ip", "netns", "add", n])?;
        }
        let mut link = Link {
            names,
            stop: Arc::new(AtomicBool::new(false)),
            threads: Vec::new(),
            fds: [-1; 2],
        };
        let dev = format!("{prefix}-tun");
        let mut fds = [0; 2];
        for i in 0..2 {
            let ns = link.names[i].clone();
            fds[i] = open_tun(&ns, &dev)?;
            link.fds[i] = fds[i];
            let x = |a: &[&str]| {
                let mut all = vec!["ip", "netns", "exec", ns.as_str()];
                all.extend_from_slice(a);
                ip(&all)
            };
            let peer = format!("{}/32", ADDRS[1 - i]);
            x(&["ip", "addr", "add", ADDRS[i], "peer", &peer, "dev", &dev])?;
            x(&["ip", "link", "set", &dev, "up"])?;
            x(&["ip", "link", "set", "lo", "up"])?;
        }
        let stop = &link.stop;
        link.threads
            .extend(relay(fds[0], fds[1], path, 0x9e37_79b9, stop.clone()));
        link.threads
            .extend(relay(fds[1], fds[0], path, 0x7f4a_7c15, stop.clone()));
        Ok(link)
    }

    /// Namespace 0 is the server's, 1 the client's.
    pub fn enter(&self, i: usize) -> Result<(), String> {
        enter(&self.names[i])
    }
}

impl Drop for Link {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
        for fd in self.fds.into_iter().filter(|&fd| fd >= 0) {
            // SAFETY: our own descriptor, closed once.
            unsafe { libc::close(fd) };
        }
        for n in &self.names {
            let _ = ip(&["ip", "netns", "del", n]);
        }
    }
}
