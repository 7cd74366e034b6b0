//! What a controller sees of its host: the host's interfaces and every
//! connection it is an end of — nothing of other hosts (a device knows its
//! own sockets and interfaces, and of its peers only the addresses they
//! announce). Plain data, so both planes build the same view: the simulator
//! from its endpoints, the kernel lab from `TCP_INFO`/`MPTCP_INFO` and the
//! link emulator's counters.
//!
//! What a host observes depends on its role in a connection (docs/control.md
//! lists the fields per role): the data sender sees its congestion state
//! (`SenderSample`), the data receiver what a receiver knows (bytes
//! received per subflow, the out-of-order queue). Both see connection-level bytes in each direction
//! and per-interface bytes.

use std::collections::BTreeMap;

use super::{ConnId, Hint, SessionId};
use crate::time::Time;

#[derive(Debug, Clone, Default)]
pub struct View {
    pub now: Time,
    pub host: String,
    /// The device's latest hints (None: never told).
    pub device: DeviceView,
    pub interfaces: Vec<InterfaceView>,
    pub connections: Vec<ConnectionView>,
    /// The fetch sessions of this host that have started.
    pub sessions: Vec<SessionView>,
}

/// The latest device hints (`control::Hint`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DeviceView {
    pub battery_pct: Option<f64>,
    pub temperature_c: Option<f64>,
    pub screen_on: Option<bool>,
}

impl View {
    pub fn connection(&self, conn: ConnId) -> Option<&ConnectionView> {
        self.connections.iter().find(|c| c.id == conn)
    }

    /// The index of this host's interface called `name`.
    pub fn interface(&self, name: &str) -> Option<u16> {
        self.interfaces.iter().position(|i| i.name == name).map(|i| i as u16)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct InterfaceView {
    pub name: String,
    pub up: bool,
    /// None where the plane does not model it (the simulator's links have no MTU).
    pub mtu: Option<u32>,
    /// Wire bytes this interface sent and received, cumulative (its data use).
    pub bytes_sent: u64,
    pub bytes_received: u64,
    /// The latest hints: signal level (dBm) and radio access technology.
    pub signal_dbm: Option<f64>,
    pub rat: Option<String>,
    /// The latest estimated link bandwidth, bit/s (`Hint::Bandwidth`).
    pub bandwidth_bps: Option<f64>,
    /// Its data limit (`DataLimit` hint) has been reached.
    pub over_data_limit: bool,
    /// It has an IPv6 address as well as an IPv4 one (its link's `families`).
    pub v6: bool,
}

/// This host's role in a connection's data transfer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// It sends the data (a phone uploading, a server).
    Sender,
    /// It receives the data (a phone downloading).
    Receiver,
}

#[derive(Debug, Clone)]
pub struct ConnectionView {
    pub id: ConnId,
    /// The flow's name in the scenario.
    pub flow: String,
    pub role: Role,
    /// This host connects (and, for MPTCP, opens the subflows).
    pub client: bool,
    pub multipath: bool,
    pub established: bool,
    /// MPTCP options were stripped: the connection runs as TCP (RFC 8684 §3.7).
    pub fallback: bool,
    /// The path manager the flow names (`fullmesh`, `backup`, `single_path`).
    pub path_manager: String,
    /// The initial subflow's (local, remote) interfaces.
    pub initial: (u16, u16),
    /// (local, remote) pairs this host could open a subflow on: those whose
    /// addresses it knows and that have a route both ways (on both planes).
    pub paths: Vec<(u16, u16)>,
    /// The peer's interface names, by index.
    pub peer_interfaces: Vec<String>,
    /// Whether each of the peer's interfaces is up (what its announcements tell).
    pub peer_up: Vec<bool>,
    /// Data bytes this host sent (acknowledged; None where the transport
    /// keeps no cumulative count: RCP, INRPP) and received (in order).
    pub bytes_sent: Option<u64>,
    pub bytes_received: u64,
    /// At the receiver of an MPTCP connection: bytes held above a hole in
    /// the data sequence space (the connection's out-of-order queue).
    pub ooo_bytes: Option<u64>,
    /// The application on the connection, if the scenario gives one.
    pub app: Option<AppView>,
    /// At the client of a fetch session's connection: what the session knows of it.
    pub fetch: Option<FetchConnView>,
    /// At the data sender of a single-path TCP connection: its congestion
    /// state (an MPTCP connection's is per subflow).
    pub sender: Option<SenderSample>,
    /// Every subflow ever opened by an MPTCP connection, by id (empty for a
    /// single-path connection).
    pub subflows: Vec<SubflowView>,
}

/// What the device knows of a connection's application (`crate::app`).
#[derive(Debug, Clone, PartialEq)]
pub struct AppView {
    pub name: String,
    /// `video`, `download`, `interactive`, or the scenario's name for it.
    pub category: String,
    /// The objects (responses) requested so far, and completed.
    pub requests: u64,
    pub completed: u64,
    /// The latest object's size if the server announced it (a
    /// Content-Length), else None; and the time it was requested.
    pub object_size: Option<u64>,
    pub object_requested_at: Option<Time>,
    /// A video player's buffer level (s) and playing bitrate (bit/s), as of
    /// its latest sample.
    pub buffer_s: Option<f64>,
    pub bitrate_bps: Option<f64>,
    /// A video's manifest: its length (s) and its highest bitrate (bit/s).
    pub video_length_s: Option<f64>,
    pub video_top_bitrate_bps: Option<f64>,
}

/// A fetch session (`crate::app::fetch`), at its client.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionView {
    pub id: SessionId,
    pub name: String,
    pub content: String,
    /// The domain the content is served under, if any (its mirrors are then
    /// found by lookups, `Action::Resolve`).
    pub domain: Option<String>,
    /// The servers holding the content, in the scenario's order, and those
    /// of them the session can reach over IPv6 from some interface.
    pub mirrors: Vec<String>,
    pub mirrors_v6: Vec<String>,
    /// Where the next content requests go (None before the first steer).
    pub current: Option<ConnId>,
    /// Its connections opened and not closed.
    pub connections: Vec<ConnId>,
    /// Content bytes delivered, and the content's size.
    pub bytes_done: u64,
    pub bytes_total: u64,
    /// Content requests under way.
    pub pending: u32,
    pub finished: bool,
}

/// A fetch session's connection, at the client.
#[derive(Debug, Clone, PartialEq)]
pub struct FetchConnView {
    pub session: SessionId,
    pub mirror: String,
    /// The client interface it is pinned to, and its IP version.
    pub local_interface: u16,
    pub family: crate::net::family::Family,
    /// RTT from the client's own samples: the handshake (SYN to SYN-ACK)
    /// and probes, smoothed as RFC 6298 §2 does; and the least of them.
    pub srtt: Option<Time>,
    pub min_rtt: Option<Time>,
    /// Responses under way on it (content and probes).
    pub pending: u32,
}

impl ConnectionView {
    pub fn subflow_on(&self, local: u16, remote: u16) -> Option<&SubflowView> {
        self.subflows.iter().find(|s| s.open && s.local == local && s.remote == remote)
    }
}

#[derive(Debug, Clone)]
pub struct SubflowView {
    pub id: u32,
    /// This host's interface and the peer's.
    pub local: u16,
    pub remote: u16,
    pub backup: bool,
    /// Not yet closed or failed.
    pub open: bool,
    pub established: bool,
    /// Data bytes it carried: acknowledged (at the sender) or received in
    /// order (at the receiver: all a receiver knows of a subflow).
    pub bytes: u64,
    /// At the data sender only.
    pub sender: Option<SenderSample>,
}

/// What the data sender knows of a subflow (Linux: `TCP_INFO`).
#[derive(Debug, Clone, PartialEq)]
pub struct SenderSample {
    pub cwnd: u64,
    pub ssthresh: u64,
    pub slow_start: bool,
    pub srtt: Option<Time>,
    /// The latest delivery-rate sample, bytes/s (`tcpi_delivery_rate`).
    pub delivery_rate: Option<f64>,
    pub bytes_sent: u64,
    pub bytes_acked: u64,
    pub in_flight: u64,
    pub retransmits: u64,
    /// None where the plane cannot count them (Linux keeps no per-connection count).
    pub timeouts: Option<u64>,
    /// The congestion control's bandwidth estimate, bytes/s (BBR, Westwood+).
    pub bw_estimate: Option<f64>,
    /// Its additive-increase coefficient a (Westwood+; eMPTCP's x²).
    pub increment: Option<f64>,
}

/// A host's latest hints (`control::Hint`), kept by a plane for its
/// controllers' views.
#[derive(Debug, Default)]
pub struct LatestHints {
    device: DeviceView,
    /// By interface.
    interfaces: BTreeMap<u16, InterfaceHints>,
}

#[derive(Debug, Default)]
struct InterfaceHints {
    signal_dbm: Option<f64>,
    rat: Option<String>,
    bandwidth_bps: Option<f64>,
    over_data_limit: bool,
}

impl LatestHints {
    pub fn note(&mut self, hint: &Hint) {
        match hint {
            Hint::Battery { pct } => self.device.battery_pct = Some(*pct),
            Hint::Temperature { celsius } => self.device.temperature_c = Some(*celsius),
            Hint::Screen { on } => self.device.screen_on = Some(*on),
            Hint::Signal { iface, dbm } => self.interfaces.entry(*iface).or_default().signal_dbm = Some(*dbm),
            Hint::Rat { iface, rat } => self.interfaces.entry(*iface).or_default().rat = Some(rat.clone()),
            Hint::Bandwidth { iface, bps } => self.interfaces.entry(*iface).or_default().bandwidth_bps = Some(*bps),
            Hint::DataLimit { iface, .. } => self.interfaces.entry(*iface).or_default().over_data_limit = true,
        }
    }

    /// Writes the hints into `view`.
    pub fn fill(&self, view: &mut View) {
        view.device = self.device.clone();
        for (&k, h) in &self.interfaces {
            if let Some(i) = view.interfaces.get_mut(k as usize) {
                i.signal_dbm = h.signal_dbm;
                i.rat = h.rat.clone();
                i.bandwidth_bps = h.bandwidth_bps;
                i.over_data_limit = h.over_data_limit;
            }
        }
    }
}
