//! A scenario resolver as a real DNS server: Debian's dnsmasq
//! (dnsmasq(8), package `dnsmasq-base`, installed by `make install`) in
//! its node's namespace, answering from the scenario's table only:
//!
//! - one `--host-record=DOMAIN,ADDRESS,TTL` per mirror, in the scenario's
//!   order, with `--no-round-robin`: dnsmasq otherwise rotates the records
//!   of a name from one answer to the next (checked on the wire: three
//!   records came back in three orders without it, in the configured order
//!   with it; `lab/tests/dns.rs` checks the order a lookup gets);
//! - `--local=/#/`: every name is local, so a name it has no record for
//!   gets NXDOMAIN (RCODE 3) instead of REFUSED for want of an upstream;
//! - `--no-resolv`, `--no-hosts`, `--no-poll`, `--conf-file=/dev/null`: no
//!   upstream server, no resolv.conf, no /etc/hosts, no configuration
//!   file; no `--dhcp-range`, so no DHCP;
//! - `--listen-address` on each of the node's addresses with
//!   `--bind-interfaces`, port 53;
//! - `--keep-in-foreground`, no PID file: the lab keeps it as its child
//!   and stops it when the run ends (and the kernel does if the lab's
//!   thread dies: `PR_SET_PDEATHSIG`).
//!
//! A mirror's address is that of its first interface, where its fetch
//! listeners are reached (`run/control/fetch.rs`). The resolver's delay is
//! not dnsmasq's: the emulator holds the answers (`emulator/hold.rs`).

use std::io::{self, Read};
use std::net::{IpAddr, SocketAddr, UdpSocket};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use pathpool_sim::dns::Resolver;

use crate::netns::Netns;

/// The DNS server's port (RFC 1035 §4.2.1).
pub const PORT: u16 = 53;
/// How long dnsmasq may take to bind its sockets.
const START_TIMEOUT: Duration = Duration::from_secs(5);

/// Where dnsmasq is, else why the lab cannot run resolvers.
pub fn dnsmasq() -> Result<PathBuf, String> {
    let on_path = std::env::var_os("PATH").into_iter().flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>()).map(|d| d.join("dnsmasq"));
    on_path
        .chain(["/usr/sbin/dnsmasq", "/sbin/dnsmasq"].map(PathBuf::from))
        .find(|p| p.is_file())
        .ok_or_else(|| "dnsmasq is not installed (Debian package dnsmasq-base; `make install` as root installs it)".into())
}

/// dnsmasq's arguments for `resolver`, listening on `listen`, with each
/// node's first address from `addrs`.
pub fn arguments(resolver: &Resolver, listen: &[IpAddr], addrs: &[Vec<IpAddr>]) -> Vec<String> {
    let mut args: Vec<String> = [
        "--keep-in-foreground",
        "--conf-file=/dev/null",
        "--no-resolv",
        "--no-hosts",
        "--no-poll",
        "--no-round-robin",
        "--local=/#/",
        "--pid-file=",
        "--user=root",
        "--bind-interfaces",
    ]
    .map(String::from)
    .into();
    args.push(format!("--port={PORT}"));
    args.extend(listen.iter().map(|a| format!("--listen-address={a}")));
    for (domain, zone) in &resolver.zones {
        // Whole seconds: `support.rs` refuses other TTLs on the lab.
        let ttl = zone.ttl.nanos() / 1_000_000_000;
        for &m in &zone.mirrors {
            args.push(format!("--host-record={domain},{},{ttl}", addrs[m as usize][0]));
        }
    }
    args
}

/// A running dnsmasq; stopped (SIGTERM, then waited for) when dropped.
pub struct Dnsmasq {
    child: Child,
}

impl Dnsmasq {
    /// Starts `resolver`'s server in `ns`, on the node's addresses
    /// `listen`, and waits until it has bound its socket.
    pub fn start(resolver: &Resolver, ns: &Netns, listen: &[IpAddr], addrs: &[Vec<IpAddr>]) -> Result<Dnsmasq, String> {
        let binary = dnsmasq()?;
        let mut cmd = Command::new("ip");
        cmd.args(["netns", "exec", ns.name()]).arg(&binary).args(arguments(resolver, listen, addrs));
        cmd.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped());
        // SAFETY: prctl(2) only, between fork and exec; the signal outlives the exec (`ip netns exec` execs dnsmasq).
        unsafe {
            cmd.pre_exec(|| match libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM) {
                0 => Ok(()),
                _ => Err(io::Error::last_os_error()),
            });
        }
        let child = cmd.spawn().map_err(|e| format!("resolver '{}': starting {}: {e}", resolver.name, binary.display()))?;
        let mut server = Dnsmasq { child };
        let started = Instant::now();
        let at = SocketAddr::new(listen[0], PORT);
        loop {
            if let Ok(Some(status)) = server.child.try_wait() {
                let mut err = String::new();
                if let Some(mut e) = server.child.stderr.take() {
                    let _ = e.read_to_string(&mut err);
                }
                return Err(format!("resolver '{}': dnsmasq exited ({status}): {}", resolver.name, err.trim()));
            }
            // Bound once our own bind to its address fails with EADDRINUSE.
            let bound = ns.run(|| UdpSocket::bind(at).is_err_and(|e| e.kind() == io::ErrorKind::AddrInUse)).unwrap_or(false);
            if bound {
                return Ok(server);
            }
            if started.elapsed() > START_TIMEOUT {
                return Err(format!("resolver '{}': dnsmasq did not bind {at} within {START_TIMEOUT:?}", resolver.name));
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Dnsmasq {
    fn drop(&mut self) {
        // SAFETY: signals our own child, which has not been waited for yet.
        unsafe { libc::kill(self.child.id() as libc::pid_t, libc::SIGTERM) };
        let _ = self.child.wait();
    }
}
