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
//!
//! **Answers by interface** (`by_interface`): dnsmasq answers a name the same
//! to every client, so a resolver with such answers runs one dnsmasq per
//! answer set ("view"): the default answers on port 53, and the answers for
//! client interface name k-th in `views` on port `VIEW_PORT_BASE + k`, all on
//! the same node and link. A host's stub sends each query to the port of the
//! interface it leaves from (`run/control/lookups.rs`), so the answer depends
//! on the asking interface as the simulator's does. A real resolver would
//! choose by the query's source address (BIND's views, Unbound's
//! `access-control-view`) on one port; the exchange on the wire is otherwise
//! the same, and the emulator holds answers from every view port alike.

use std::io::{self, Read};
use std::net::{IpAddr, SocketAddr, UdpSocket};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use pathpool_sim::dns::Resolver;

use super::{PORT, VIEW_PORT_BASE};
use crate::netns::Netns;

/// The client interface names `resolver` answers differently for, in order: its views.
pub fn views(resolver: &Resolver) -> Vec<&str> {
    let mut names: Vec<&str> = resolver.zones.values().flat_map(|z| z.by_interface.keys().map(String::as_str)).collect();
    names.sort_unstable();
    names.dedup();
    names
}

/// The port a query from a client interface named `interface` goes to.
pub fn port(resolver: &Resolver, interface: &str) -> u16 {
    views(resolver).iter().position(|&v| v == interface).map_or(PORT, |k| VIEW_PORT_BASE + k as u16)
}
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

/// dnsmasq's arguments for `resolver`'s answers to a client interface named
/// `interface` (None: the default answers), listening on `listen` at that
/// answer set's port, with each node's first address from `addrs`.
pub fn arguments(resolver: &Resolver, interface: Option<&str>, listen: &[IpAddr], addrs: &[Vec<IpAddr>]) -> Vec<String> {
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
    args.push(format!("--port={}", interface.map_or(PORT, |i| port(resolver, i))));
    args.extend(listen.iter().map(|a| format!("--listen-address={a}")));
    for (domain, zone) in &resolver.zones {
        // Whole seconds: `support.rs` refuses other TTLs on the lab.
        let ttl = zone.ttl.nanos() / 1_000_000_000;
        let mirrors = interface.and_then(|i| zone.by_interface.get(i)).unwrap_or(&zone.mirrors);
        for &m in mirrors {
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
    /// Starts `resolver`'s servers in `ns`, on the node's addresses
    /// `listen`: the default answers and one per view; waits until each has
    /// bound its socket.
    pub fn start_all(resolver: &Resolver, ns: &Netns, listen: &[IpAddr], addrs: &[Vec<IpAddr>]) -> Result<Vec<Dnsmasq>, String> {
        std::iter::once(None).chain(views(resolver).into_iter().map(Some)).map(|v| Dnsmasq::start(resolver, v, ns, listen, addrs)).collect()
    }

    /// Starts one answer set's server (see `arguments`) and waits until it has bound its socket.
    fn start(resolver: &Resolver, interface: Option<&str>, ns: &Netns, listen: &[IpAddr], addrs: &[Vec<IpAddr>]) -> Result<Dnsmasq, String> {
        let binary = dnsmasq()?;
        let mut cmd = Command::new("ip");
        cmd.args(["netns", "exec", ns.name()]).arg(&binary).args(arguments(resolver, interface, listen, addrs));
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
        let at = SocketAddr::new(listen[0], interface.map_or(PORT, |i| port(resolver, i)));
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
