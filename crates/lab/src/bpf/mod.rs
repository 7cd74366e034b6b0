//! The lab's Westwood+: a BPF `tcp_congestion_ops` (`bpf/westwood.bpf.c`,
//! built by `build.rs` and embedded here) registered as `pp_westwood` for
//! the runs that use `tcp.cc = "westwood"`, and its maps: each flow's
//! increment coefficient (by its server port), a controller's per subflow
//! (by 4-tuple), and each socket's estimate (docs/lab.md, "Westwood+ on the
//! lab").
//!
//! Registration goes through `bpftool struct_ops register` (libbpf loads the
//! object, creates its maps and registers the struct_ops map); the maps are
//! then found by name through `bpf(2)` (`syscall.rs`). It is global to the
//! kernel, so one lab process uses it at a time: its PID is written to
//! `OWNER`. A signal that ends the run unregisters it (`unregister_own`,
//! from the testbed's signal watcher); one whose owner died otherwise
//! (SIGKILL, a crash) is removed by the next run and by `pathpool lab clean`.

mod syscall;

use std::io;
use std::net::SocketAddr;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The congestion control's name in the kernel (`TCP_CONGESTION`).
pub const KERNEL_NAME: &str = "pp_westwood";
/// Fixed point of the increment coefficient in the maps: a = 1.0 (`A_ONE` of the BPF program).
const A_ONE: f64 = 65536.0;
/// The PID of the process that registered it.
const OWNER: &str = "/run/pathpool-westwood.pid";

#[cfg(pp_bpf)]
const OBJECT: Result<&[u8], &str> = Ok(include_bytes!(env!("PATHPOOL_BPF_OBJECT")));
#[cfg(not(pp_bpf))]
const OBJECT: Result<&[u8], &str> = Err(env!("PATHPOOL_BPF_MISSING"));

/// Ok if this build and machine can run the BPF Westwood+, else why not.
pub fn available() -> Result<(), String> {
    OBJECT.map_err(|why| format!("the lab's BPF Westwood+ was not built: {why}"))?;
    bpftool().ok_or("bpftool is not installed (Debian package bpftool; `make install` as root installs it)")?;
    Ok(())
}

fn bpftool() -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH").into_iter().flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>()).map(|d| d.join("bpftool"));
    on_path.chain(["/usr/sbin/bpftool", "/sbin/bpftool"].map(PathBuf::from)).find(|p| p.is_file())
}

fn registered() -> bool {
    std::fs::read_to_string("/proc/sys/net/ipv4/tcp_available_congestion_control").is_ok_and(|list| list.split_whitespace().any(|n| n == KERNEL_NAME))
}

fn owner() -> Option<u32> {
    std::fs::read_to_string(OWNER).ok()?.trim().parse().ok()
}

fn bpftool_run(args: &[&str]) -> Result<(), String> {
    let tool = bpftool().ok_or("bpftool is not installed")?;
    let out = Command::new(&tool).args(args).output().map_err(|e| format!("{}: {e}", tool.display()))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!("bpftool {}: {}", args.join(" "), String::from_utf8_lossy(&out.stderr).trim()))
    }
}

/// Unregisters a `pp_westwood` whose registering process is gone; true if
/// there was one.
pub fn clean_stale() -> Result<bool, String> {
    let alive = owner().is_some_and(|pid| Path::new(&format!("/proc/{pid}")).exists());
    if !registered() || alive {
        return Ok(false);
    }
    bpftool_run(&["struct_ops", "unregister", "name", KERNEL_NAME])?;
    let _ = std::fs::remove_file(OWNER);
    Ok(true)
}

/// Unregisters `pp_westwood` if this process registered it (on a signal,
/// which ends the process without running `Westwood`'s drop).
pub fn unregister_own() -> Result<(), String> {
    if owner() != Some(std::process::id()) || !registered() {
        return Ok(());
    }
    bpftool_run(&["struct_ops", "unregister", "name", KERNEL_NAME])?;
    let _ = std::fs::remove_file(OWNER);
    Ok(())
}

/// A socket's ends, as the BPF program keys them (`struct tuple`):
/// addresses in network order, ports in host order.
fn tuple(local: SocketAddr, remote: SocketAddr) -> Option<[u8; 12]> {
    let (SocketAddr::V4(l), SocketAddr::V4(r)) = (local, remote) else { return None };
    let mut k = [0u8; 12];
    k[0..4].copy_from_slice(&l.ip().octets());
    k[4..8].copy_from_slice(&r.ip().octets());
    k[8..10].copy_from_slice(&l.port().to_ne_bytes());
    k[10..12].copy_from_slice(&r.port().to_ne_bytes());
    Some(k)
}

fn fixed(a: f64) -> [u8; 4] {
    ((a * A_ONE).round().clamp(1.0, u32::MAX as f64) as u32).to_ne_bytes()
}

/// A Westwood+ socket as the BPF program has it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    /// BWE, bytes of payload per second: 0 until its first sampling window closed.
    pub bw_estimate: f64,
    /// The increment coefficient a it uses.
    pub increment: f64,
}

/// `pp_westwood`, registered while this lives.
#[derive(Debug)]
pub struct Westwood {
    flow_a: OwnedFd,
    sk_a: OwnedFd,
    est: OwnedFd,
}

impl Westwood {
    pub fn register() -> Result<Westwood, String> {
        available()?;
        clean_stale()?;
        if registered() {
            return Err(format!(
                "{KERNEL_NAME} is registered by another live process ({}): one lab run with westwood at a time",
                owner().map_or("unknown".into(), |p| p.to_string())
            ));
        }
        let file = std::env::temp_dir().join(format!("pathpool-westwood-{}.bpf.o", std::process::id()));
        std::fs::write(&file, OBJECT.expect("available() checked it")).map_err(|e| format!("{}: {e}", file.display()))?;
        let done = bpftool_run(&["struct_ops", "register", &file.to_string_lossy()]);
        let _ = std::fs::remove_file(&file);
        done?;
        std::fs::write(OWNER, std::process::id().to_string()).map_err(|e| format!("{OWNER}: {e}"))?;
        let map = |name: &str| -> Result<OwnedFd, String> {
            syscall::map_by_name(name).map_err(|e| format!("BPF map {name}: {e}"))?.ok_or(format!("BPF map {name} not found after registering"))
        };
        let maps = (|| Ok::<_, String>(Westwood { flow_a: map("pp_ww_flow_a")?, sk_a: map("pp_ww_sk_a")?, est: map("pp_ww_est")? }))();
        if maps.is_err() {
            let _ = bpftool_run(&["struct_ops", "unregister", "name", KERNEL_NAME]);
            let _ = std::fs::remove_file(OWNER);
        }
        maps
    }

    /// Flow with server port `port` starts with increment coefficient `a`.
    pub fn set_flow_increment(&self, port: u16, a: f64) -> io::Result<()> {
        syscall::update(&self.flow_a, &port.to_ne_bytes(), &fixed(a))
    }

    /// The socket (local, remote) takes `a` from its next ACK on.
    pub fn set_increment(&self, local: SocketAddr, remote: SocketAddr, a: f64) -> io::Result<()> {
        let key = tuple(local, remote).ok_or_else(|| io::Error::other("the BPF Westwood+ keys IPv4 sockets only"))?;
        syscall::update(&self.sk_a, &key, &fixed(a))
    }

    /// The socket's estimate (`pp_ww_est`, exported at every sampling
    /// window: `struct estimate`, whose first field is the BWE) and the a its
    /// next ACK uses: the BPF program's `increment()` lookup — the
    /// controller's, else the flow's by either port, else 1.
    pub fn sample(&self, local: SocketAddr, remote: SocketAddr) -> Option<Sample> {
        let key = tuple(local, remote)?;
        let mut est = [0u8; 16];
        let bw = syscall::lookup(&self.est, &key, &mut est).ok()?;
        let bw_estimate = if bw { u64::from_ne_bytes(est[0..8].try_into().expect("eight bytes")) as f64 } else { 0.0 };
        let mut a = [0u8; 4];
        let found = syscall::lookup(&self.sk_a, &key, &mut a).ok()?
            || syscall::lookup(&self.flow_a, &remote.port().to_ne_bytes(), &mut a).ok()?
            || syscall::lookup(&self.flow_a, &local.port().to_ne_bytes(), &mut a).ok()?;
        let increment = if found { u32::from_ne_bytes(a) as f64 / A_ONE } else { 1.0 };
        Some(Sample { bw_estimate, increment })
    }
}

impl Drop for Westwood {
    fn drop(&mut self) {
        if let Err(e) = bpftool_run(&["struct_ops", "unregister", "name", KERNEL_NAME]) {
            eprintln!("pathpool lab: {e}");
        }
        let _ = std::fs::remove_file(OWNER);
    }
}
