//! A host's controllers' actions, carried out on the kernel: subflows
//! through the userspace path manager's netlink commands (`pm::PathManager`,
//! kernel `Documentation/netlink/specs/mptcp_pm.yaml`), timers and byte
//! watches in the host's thread. Checks mirror the simulator's
//! `World::apply`, with its reasons; what the kernel refuses is refused
//! with the kernel's error.

use std::net::SocketAddr;
use std::time::Instant;

use std::os::fd::AsRawFd;

use pathpool_sim::control::action::{CC_SENDER_ONLY, RECEIVER_ONLY, SENDER_ONLY};
use pathpool_sim::control::{Action, CloseReason, ConnId, Event};
use pathpool_sim::mptcp::sender::OpenError;
use pathpool_sim::Time;

use super::super::connection::SubflowRecord;
use super::Host;
use crate::pm::LocalAddr;
use crate::traffic::BASE_PORT;

/// Why the lab refuses `SetScheduler`: the kernel has no BPF MPTCP scheduler.
pub const NO_SCHEDULER: &str = "the kernel has no BPF MPTCP scheduler: a connection's scheduler cannot change";

impl Host<'_> {
    /// Carries out `action` of instance `i`, taken at `now` on an event seen
    /// at `seen`; Ok(the subflow it made or acted on), Err(why it was refused).
    pub(super) fn apply(&mut self, i: u32, now: Time, action: &Action, seen: Instant) -> Result<Option<u32>, String> {
        let done = match *action {
            Action::ArmTimer { after, token } => {
                self.timers.push((now + after, i, token));
                return Ok(None);
            }
            Action::WatchBytes { conn, bytes } => {
                self.own(conn)?;
                self.watches.push((conn, bytes, i));
                return Ok(None);
            }
            Action::Log { .. } => return Ok(None),
            Action::SetScheduler { conn, .. } => {
                self.own(conn)?;
                return Err(NO_SCHEDULER.into());
            }
            Action::SetMss { conn, mss } => return self.set_mss(conn, mss).map(|()| None),
            Action::SetCongestionControl { conn, ref algorithm } => {
                return self.set_congestion_control(conn, algorithm).map(|()| None);
            }
            Action::Resolve { ref resolver, ref domain, interface } => return self.ctl_resolve(resolver, domain, interface),
            Action::SetIncrement { conn, subflow, a } => self.set_increment(conn, subflow, a),
            Action::SetReceiveBuffer { conn, bytes } => self.set_receive_buffer(conn, bytes),
            Action::OpenSubflow { conn, local, remote, backup } => self.open(conn, local, remote, backup),
            Action::CloseSubflow { conn, subflow } => self.close(conn, subflow),
            Action::SetBackup { conn, subflow, backup } => self.set_backup(conn, subflow, backup),
            // Application-level actions, on the host's own fetch client (`fetch.rs`).
            Action::OpenConnection { session, ref mirror, local_interface, family } => return self.ctl_open_connection(session, mirror, local_interface, family),
            Action::CloseConnection { conn } => return self.ctl_close_connection(conn),
            Action::Steer { session, conn, resume } => return self.ctl_steer(session, conn, resume),
            Action::Probe { conn, request_bytes, response_bytes } => return self.ctl_probe(conn, request_bytes, response_bytes),
        };
        if done.is_ok() {
            let reaction = seen.elapsed().as_secs_f64();
            self.s.log.lock().unwrap_or_else(|e| e.into_inner()).reactions_s.push(reaction);
        }
        done
    }

    /// Err unless `conn` is a connection this host is an end of.
    fn own(&self, conn: ConnId) -> Result<(), String> {
        match self.s.model.flows.get(conn as usize) {
            Some(f) if f.src == self.id || f.dst == self.id => Ok(()),
            _ => Err(format!("connection {conn} is not one of this host's")),
        }
    }

    /// The MSS option this host's client announces on `conn`: recorded for
    /// the client, which sets TCP_MAXSEG before `connect` (`traffic/opening.rs`).
    /// Only this host's own openings, at `ConnectionOpening`: a server's
    /// socket comes from a listener that accepted before anyone asked.
    fn set_mss(&self, conn: ConnId, mss: u16) -> Result<(), String> {
        self.own(conn)?;
        let f = &self.s.model.flows[conn as usize];
        if f.client != self.id {
            return Err("only the connection's client sets an MSS on the lab (TCP_MAXSEG before connect); this host accepts it".into());
        }
        let options = self.s.model.header_bytes.saturating_sub(pathpool_sim::net::mtu::IP_TCP_HEADERS);
        if (mss as u32) <= options {
            return Err(format!("an MSS of {mss} bytes leaves no payload beside the {options} bytes of TCP options"));
        }
        self.s.flows[conn as usize].opening.set_mss(mss)
    }

    /// The congestion control this host's client runs on `conn`: recorded
    /// for the client, which sets TCP_CONGESTION on its socket before
    /// `connect` (`traffic/opening.rs`; on an MPTCP socket the kernel gives
    /// every subflow, joins included, its own instance). Checks and reasons
    /// as the simulator's `World::set_congestion_control`; a server's socket
    /// comes from a listener, so only the client's end may.
    fn set_congestion_control(&self, conn: ConnId, algorithm: &str) -> Result<(), String> {
        self.own(conn)?;
        let f = &self.s.model.flows[conn as usize];
        if f.transport != "tcp" && f.transport != "mptcp" {
            return Err(format!("a {} connection has no congestion control to set", f.transport));
        }
        if !pathpool_sim::cc::names().contains(&algorithm) {
            return Err(format!("unknown congestion control '{algorithm}' (known: {})", pathpool_sim::cc::names().join(", ")));
        }
        if f.src != self.id {
            return Err(CC_SENDER_ONLY.into());
        }
        if f.client != self.id {
            return Err("only the connection's client sets a congestion control on the lab (TCP_CONGESTION before connect); this host accepts it".into());
        }
        let name = crate::support::kernel_cc(algorithm);
        let available = std::fs::read_to_string("/proc/sys/net/ipv4/tcp_available_congestion_control").unwrap_or_default();
        if !available.split_whitespace().any(|n| n == name) {
            return Err(format!("congestion control '{algorithm}' is not available in this kernel (it has {})", available.trim()));
        }
        self.s.flows[conn as usize].opening.set_cc(algorithm)
    }

    /// Sizes the receive buffer of this host's socket of `conn` (the MPTCP
    /// socket, which passes it to its subflows): `SO_RCVBUFFORCE` with
    /// `bytes` (root may exceed `net.core.rmem_max`). The kernel doubles the
    /// value for its bookkeeping and advertises about half of it (socket(7),
    /// `tcp_adv_win_scale`), so the window is about `bytes`, as the
    /// simulator's; it also turns off the socket's receive autotuning.
    fn set_receive_buffer(&self, conn: ConnId, bytes: u64) -> Result<Option<u32>, String> {
        self.own(conn)?;
        let f = &self.s.model.flows[conn as usize];
        if f.transport != "tcp" && f.transport != "mptcp" {
            return Err(format!("a {} connection has no receive window to size", f.transport));
        }
        if f.dst != self.id {
            return Err(RECEIVER_ONLY.into());
        }
        if bytes == 0 {
            return Err("a receive buffer of 0 bytes would stall the connection".into());
        }
        let socket = self.s.flows[conn as usize].socket(false).ok_or("the connection has no socket yet")?;
        let value = libc::c_int::try_from(bytes).unwrap_or(libc::c_int::MAX);
        // SAFETY: a valid socket descriptor and a c_int option of its size.
        let rc = unsafe {
            libc::setsockopt(
                socket.as_raw_fd(),
                libc::SOL_SOCKET,
                libc::SO_RCVBUFFORCE,
                (&value as *const libc::c_int).cast(),
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            )
        };
        if rc != 0 {
            return Err(format!("the kernel refused SO_RCVBUFFORCE: {}", std::io::Error::last_os_error()));
        }
        Ok(None)
    }

    /// Sets the increment coefficient of the BPF Westwood+ on this host's
    /// socket of `conn` (its subflow `subflow` for MPTCP): the socket's
    /// 4-tuple → a in `pp_ww_sk_a`, read from its next ACK on. Checks and
    /// reasons as the simulator's `World::set_increment`.
    fn set_increment(&self, conn: ConnId, subflow: Option<u32>, a: f64) -> Result<Option<u32>, String> {
        self.own(conn)?;
        if !(a > 0.0 && a.is_finite()) {
            return Err(format!("an increment coefficient must be positive and finite, got {a}"));
        }
        let f = &self.s.model.flows[conn as usize];
        if f.src != self.id {
            return Err(SENDER_ONLY.into());
        }
        let ends = match (f.transport.as_str(), subflow) {
            ("tcp", None) => self.s.flows[conn as usize].socket(true).as_deref().and_then(crate::traffic::info::socket_ends),
            ("mptcp", Some(id)) => {
                let conns = self.s.conns[conn as usize].lock().unwrap_or_else(|e| e.into_inner());
                let r = conns.subflows.get(id as usize).ok_or_else(|| format!("no subflow {id}"))?;
                // The client's port is known once the subflow is established.
                (r.src.port() != 0 && r.dst.port() != 0).then_some((r.src, r.dst))
            }
            ("mptcp", None) => return Err("an MPTCP connection's increment is set per subflow".into()),
            ("tcp", Some(_)) => return Err("a single-path connection has no subflows".into()),
            _ => return Err("only TCP and MPTCP connections have a congestion window".into()),
        };
        let w = self.s.westwood.filter(|_| f.tcp.cc == "westwood").ok_or("its congestion control is not westwood (only Westwood+ takes an increment coefficient)")?;
        let (local, remote) = ends.ok_or("the connection's socket is not connected yet")?;
        w.set_increment(local, remote, a).map_err(|e| format!("the BPF map refused the increment: {e}"))?;
        Ok(subflow)
    }

    /// This end's token of MPTCP connection `conn`.
    fn token(&self, conn: ConnId) -> Result<u32, String> {
        self.own(conn)?;
        if self.s.model.flows[conn as usize].transport != "mptcp" {
            return Err("not an MPTCP connection".into());
        }
        let seen = &self.seen[conn as usize];
        match seen.token {
            Some(t) if !seen.fallback => Ok(t),
            _ => Err(OpenError::NotMultipath.to_string()),
        }
    }

    /// Opens a subflow from this host's interface `local` to the peer's
    /// `remote` (MP_JOIN, RFC 8684 §3.2). The local address id is
    /// `local` + 1: id 0 is the initial subflow's address, and the
    /// userspace path manager wants a non-zero one.
    fn open(&mut self, conn: ConnId, local: u16, remote: u16, backup: bool) -> Result<Option<u32>, String> {
        self.own(conn)?;
        let f = &self.s.model.flows[conn as usize];
        if f.client != self.id {
            return Err("only the connection's client opens subflows".into());
        }
        let at_src = f.src == self.id;
        let peer = if at_src { f.dst } else { f.src };
        let (mine, theirs) = (&self.s.addrs[self.id as usize], &self.s.addrs[peer as usize]);
        if local as usize >= mine.len() || remote as usize >= theirs.len() {
            return Err(format!("no interface pair ({local}, {remote})"));
        }
        let token = self.token(conn)?;
        let (s, d) = if at_src { (local, remote) } else { (remote, local) };
        let conf = f.mptcp.as_ref().expect("an mptcp flow");
        if !conf.reachable[s as usize][d as usize] {
            return Err(OpenError::Unreachable.to_string());
        }
        let view = self.view_connection(conn, self.s.clock.now());
        if !view.is_some_and(|v| self.interface_up(local) && v.peer_up[remote as usize]) {
            return Err(OpenError::InterfaceDown.to_string());
        }
        let port = BASE_PORT + conn as u16;
        let addr = LocalAddr { id: local as u8 + 1, ip: mine[local as usize], ifindex: None };
        let server = SocketAddr::new(theirs[remote as usize], port);
        let opened = self.s.clock.now();
        self.pm.subflow_create(token, addr, server, backup).map_err(|e| format!("the kernel refused subflow-create: {e}"))?;
        let client = SocketAddr::new(addr.ip, 0);
        let (src, dst) = if at_src { (client, server) } else { (server, client) };
        let mut c = self.s.conns[conn as usize].lock().unwrap_or_else(|e| e.into_inner());
        c.subflows.push(SubflowRecord::new((s, d), src, dst, backup, opened));
        Ok(Some(c.subflows.len() as u32 - 1))
    }

    fn interface_up(&self, iface: u16) -> bool {
        let link = super::links::interface_links(self.s.model, self.id)[iface as usize];
        self.links.is_up(link)
    }

    /// Subflow `subflow` of `conn` if it is open and established: this
    /// end's token, and the subflow's local and remote addresses.
    pub(super) fn established_subflow(&self, conn: ConnId, subflow: u32) -> Result<(u32, SocketAddr, SocketAddr), String> {
        let token = self.token(conn)?;
        let c = self.s.conns[conn as usize].lock().unwrap_or_else(|e| e.into_inner());
        let Some(r) = c.subflows.get(subflow as usize).filter(|r| r.is_open()) else {
            return Err(format!("subflow {subflow} is not open"));
        };
        if r.established.is_none() {
            return Err(format!("subflow {subflow} is not established yet: the kernel names a subflow by its ports"));
        }
        let at_src = self.s.model.flows[conn as usize].src == self.id;
        Ok(if at_src { (token, r.src, r.dst) } else { (token, r.dst, r.src) })
    }

    /// Closes a subflow (RFC 8684 §3.3.6: its data is reinjected on the others).
    fn close(&mut self, conn: ConnId, subflow: u32) -> Result<Option<u32>, String> {
        let (token, local, remote) = self.established_subflow(conn, subflow)?;
        self.pm.subflow_destroy(token, local, remote).map_err(|e| format!("the kernel refused subflow-destroy: {e}"))?;
        self.s.conns[conn as usize].lock().unwrap_or_else(|e| e.into_inner()).subflows[subflow as usize].closed_by = Some(CloseReason::Closed);
        Ok(Some(subflow))
    }

    /// Sets or clears a subflow's backup flag (MP_PRIO, RFC 8684 §3.3.8).
    /// The kernel reports only the peer's MP_PRIO; this host's controllers
    /// hear of their own change as the simulator's do, once it is made.
    fn set_backup(&mut self, conn: ConnId, subflow: u32, backup: bool) -> Result<Option<u32>, String> {
        let (token, local, remote) = self.established_subflow(conn, subflow)?;
        self.pm.set_subflow_backup(token, local, remote, backup).map_err(|e| format!("the kernel refused set-flags: {e}"))?;
        let changed = {
            let mut c = self.s.conns[conn as usize].lock().unwrap_or_else(|e| e.into_inner());
            let r = &mut c.subflows[subflow as usize];
            std::mem::replace(&mut r.backup, backup) != backup
        };
        if changed {
            self.pending.push_back(Event::SubflowPriority { conn, subflow, backup });
        }
        Ok(Some(subflow))
    }
}
