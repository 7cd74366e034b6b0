//! The path manager of the run's MPTCP connections, on the real kernel: the
//! source's namespace uses the userspace path manager (`net.mptcp.pm_type =
//! 1`), and this controller opens exactly the subflows the simulator's path
//! manager would (`sim::mptcp::path_manager`, asked once the connection is
//! established, as the simulator asks), plays the scenario's timed actions,
//! and keeps each connection's subflow records from the kernel's events —
//! the same netlink seam the device-side controllers of later issues drive.
//!
//! With `[lab] path_manager = "kernel"` the source uses the in-kernel path
//! manager instead (its endpoints are set up by `run/mod.rs`), and this
//! controller only records the subflows the kernel opens.
//!
//! Differences from the simulator, by construction: a link that goes down
//! is modelled by the emulator, so the kernel's subflow over it does not
//! fail at once — it stalls and retransmits, and the kernel's default
//! scheduler stops using it after `net.mptcp.stale_loss_cnt` timeouts; no
//! subflow is re-opened when the link comes back, because none failed.

use std::net::{IpAddr, SocketAddr};
use std::sync::Mutex;

use pathpool_sim::mptcp::path_manager::{self, Candidates};
use pathpool_sim::mptcp::{Action, End, MptcpConfig};
use pathpool_sim::scenario::spec::LabPathManager;
use pathpool_sim::Time;

use crate::pm::{Event, EventStream, LocalAddr, PathManager};
use crate::traffic::info::TcpInfo;
use crate::traffic::{RunClock, BASE_PORT, POLL};

/// One subflow of a lab MPTCP connection.
#[derive(Debug, Clone)]
pub struct SubflowRecord {
    /// Indices into the source's and the destination's interfaces.
    pub local_iface: u16,
    pub remote_iface: u16,
    pub local_ip: IpAddr,
    pub remote: SocketAddr,
    /// The local address and port, once the subflow is established.
    pub local: Option<SocketAddr>,
    pub backup: bool,
    pub opened: Time,
    pub established: Option<Time>,
    pub closed: Option<Time>,
    /// Closed by a scenario action (else, if closed, the kernel closed it).
    pub closed_by_action: bool,
    /// The latest `tcp_info` the sampler read, and its srtt samples.
    pub last: Option<TcpInfo>,
    pub srtt_sum_s: f64,
    pub srtt_samples: u64,
}

impl SubflowRecord {
    fn new(pair: (u16, u16), local_ip: IpAddr, remote: SocketAddr, backup: bool, opened: Time) -> SubflowRecord {
        SubflowRecord {
            local_iface: pair.0,
            remote_iface: pair.1,
            local_ip,
            remote,
            local: None,
            backup,
            opened,
            established: None,
            closed: None,
            closed_by_action: false,
            last: None,
            srtt_sum_s: 0.0,
            srtt_samples: 0,
        }
    }

    pub fn is_open(&self) -> bool {
        self.closed.is_none()
    }
}

/// One MPTCP flow as the controller and the sampler see it.
#[derive(Debug, Default)]
pub struct Connection {
    pub token: Option<u32>,
    /// In the order they were opened; index = `subflows.subflow_id`.
    pub subflows: Vec<SubflowRecord>,
}

/// An MPTCP flow whose source lives in the controller's namespace.
pub struct ControlledFlow<'a> {
    pub index: usize,
    pub start: Time,
    pub config: &'a MptcpConfig,
    /// Addresses of the source's and the destination's interfaces, by index.
    pub local_addrs: Vec<IpAddr>,
    pub remote_addrs: Vec<IpAddr>,
    pub conn: &'a Mutex<Connection>,
}

impl ControlledFlow<'_> {
    fn port(&self) -> u16 {
        BASE_PORT + self.index as u16
    }

    fn remote(&self, r: u16) -> SocketAddr {
        SocketAddr::new(self.remote_addrs[r as usize], self.port())
    }
}

/// Runs until the stop flag; `events` and `pm` belong to the source's namespace.
pub fn control(flows: &[ControlledFlow], mode: LabPathManager, mut events: EventStream, mut pm: PathManager, clock: &RunClock) -> Result<(), String> {
    let mut next_action = vec![0usize; flows.len()];
    while !clock.stopped() {
        for (f, next) in flows.iter().zip(&mut next_action) {
            while let Some(&(at, action)) = f.config.actions.get(*next) {
                if at > clock.now() {
                    break;
                }
                // As in the simulator, an action on a connection not yet
                // established does nothing.
                let token = f.conn.lock().unwrap_or_else(|e| e.into_inner()).token;
                if let Some(token) = token {
                    act(f, token, action, &mut pm, clock.now())?;
                }
                *next += 1;
            }
        }
        match events.next(POLL) {
            None => {}
            Some(Err(e)) => return Err(format!("path-manager events: {e}")),
            Some(Ok(event)) => on_event(flows, mode, event, &mut pm, clock.now())?,
        }
    }
    Ok(())
}

fn flow_of<'a, 'b>(flows: &'a [ControlledFlow<'b>], token: u32) -> Option<&'a ControlledFlow<'b>> {
    flows.iter().find(|f| f.conn.lock().unwrap_or_else(|e| e.into_inner()).token == Some(token))
}

fn on_event(flows: &[ControlledFlow], mode: LabPathManager, event: Event, pm: &mut PathManager, now: Time) -> Result<(), String> {
    match event {
        Event::Established(c) if !c.server_side => {
            let Some(f) = flows.iter().find(|f| f.port() == c.remote.port()) else { return Ok(()) };
            let initial = f.config.initial;
            let mut record = SubflowRecord::new(initial, c.local.ip(), c.remote, false, f.start);
            record.local = Some(c.local);
            record.established = Some(now);
            {
                let mut conn = f.conn.lock().unwrap_or_else(|e| e.into_inner());
                conn.token = Some(c.token);
                conn.subflows.push(record);
            }
            if mode == LabPathManager::Kernel {
                return Ok(());
            }
            let n_local = f.local_addrs.len();
            let n_remote = f.remote_addrs.len();
            let wanted = path_manager::make(&f.config.path_manager).wanted(&Candidates {
                initial,
                reachable: &f.config.reachable,
                local_up: &vec![true; n_local],
                remote_up: &vec![true; n_remote],
                open: &[initial],
            });
            for o in wanted {
                open(f, c.token, o.pair, o.backup, pm, now)?;
            }
        }
        Event::SubEstablished(s) => {
            let Some(f) = flow_of(flows, s.token) else { return Ok(()) };
            let mut conn = f.conn.lock().unwrap_or_else(|e| e.into_inner());
            // The event's backup bit is the peer's (what it asked of us,
            // RFC 8684 §3.3.8); the record keeps the one this end sent.
            if let Some(r) = conn.subflows.iter_mut().find(|r| r.local.is_none() && r.local_ip == s.local.ip() && r.remote == s.remote) {
                r.local = Some(s.local);
                r.established = Some(now);
            } else if let (Some(l), Some(r)) = (
                f.local_addrs.iter().position(|&a| a == s.local.ip()),
                f.remote_addrs.iter().position(|&a| a == s.remote.ip()),
            ) {
                // Opened by the in-kernel path manager: seen first when established.
                let backup = f.config.path_manager == "backup";
                let mut record = SubflowRecord::new((l as u16, r as u16), s.local.ip(), s.remote, backup, now);
                record.local = Some(s.local);
                record.established = Some(now);
                conn.subflows.push(record);
            }
        }
        Event::SubClosed(s) => {
            let Some(f) = flow_of(flows, s.token) else { return Ok(()) };
            let mut conn = f.conn.lock().unwrap_or_else(|e| e.into_inner());
            let same = |r: &SubflowRecord| r.remote == s.remote && r.local.map_or(r.local_ip == s.local.ip(), |l| l == s.local);
            if let Some(r) = conn.subflows.iter_mut().find(|r| r.is_open() && same(r)) {
                r.closed = Some(now);
            }
        }
        _ => {}
    }
    Ok(())
}

/// Opens a subflow between local interface l and remote interface r. The
/// local address id (RFC 8684 §3.2) is l + 1: id 0 is the initial
/// subflow's address, and the userspace path manager wants a non-zero one.
fn open(f: &ControlledFlow, token: u32, (l, r): (u16, u16), backup: bool, pm: &mut PathManager, now: Time) -> Result<(), String> {
    let local = LocalAddr { id: l as u8 + 1, ip: f.local_addrs[l as usize], ifindex: None };
    f.conn.lock().unwrap_or_else(|e| e.into_inner()).subflows.push(SubflowRecord::new((l, r), local.ip, f.remote(r), backup, now));
    pm.subflow_create(token, local, f.remote(r), backup)
        .map_err(|e| format!("opening a subflow {} -> {}: {e}", local.ip, f.remote(r)))
}

fn act(f: &ControlledFlow, token: u32, action: Action, pm: &mut PathManager, now: Time) -> Result<(), String> {
    if let Action::Open { local, remote, backup } = action {
        return open(f, token, (local, remote), backup, pm, now);
    }
    let mut conn = f.conn.lock().unwrap_or_else(|e| e.into_inner());
    for r in conn.subflows.iter_mut().filter(|r| r.is_open()) {
        let Some(local) = r.local else { continue };
        let uses = |end: End, iface: u16| match end {
            End::Local => r.local_iface == iface,
            End::Remote => r.remote_iface == iface,
        };
        match action {
            Action::Close { end, iface } if uses(end, iface) => {
                r.closed_by_action = true;
                pm.subflow_destroy(token, local, r.remote).map_err(|e| format!("closing subflow {local} -> {}: {e}", r.remote))?;
            }
            Action::SetBackup { end, iface, backup } if uses(end, iface) => {
                pm.set_subflow_backup(token, local, r.remote, backup)
                    .map_err(|e| format!("flagging subflow {local} -> {}: {e}", r.remote))?;
                r.backup = backup;
            }
            _ => {}
        }
    }
    Ok(())
}
