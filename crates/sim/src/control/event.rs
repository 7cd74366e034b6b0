//! What a controller is told: the happenings of its host, in the host's own
//! terms (its interfaces by index, its connections by id). Both planes
//! produce the same events: the simulator from its endpoints and links, the
//! kernel lab from `mptcp_pm` netlink events and polled socket statistics.

use super::{ConnId, SessionId};
use crate::time::Time;

/// Why a subflow ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CloseReason {
    /// A controller (or the scenario's timed actions) closed it.
    Closed,
    /// An interface it used went down.
    InterfaceDown,
    /// The peer or the stack reset it (lab only: the kernel's own timeouts).
    Reset,
}

impl CloseReason {
    pub fn name(self) -> &'static str {
        match self {
            CloseReason::Closed => "closed",
            CloseReason::InterfaceDown => "interface_down",
            CloseReason::Reset => "reset",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// The run starts (model time zero): a controller arms its first timers here.
    Start,
    /// A connection of this host is about to send its first SYN (its
    /// application opened it): the moment to set what the handshake
    /// announces (`Action::SetMss`). On the lab only the client's host hears
    /// it, where a controller declares `set_mss`: the client waits for them
    /// before `connect` (crates/lab `traffic/opening.rs`).
    ConnectionOpening { conn: ConnId },
    /// A connection of this host completed its handshake (for MPTCP, the
    /// initial subflow's MP_CAPABLE exchange).
    ConnectionEstablished { conn: ConnId },
    /// A connection's application received its last byte.
    ConnectionClosed { conn: ConnId },
    /// A middlebox stripped the MPTCP options: the connection fell back to
    /// TCP on its initial subflow (RFC 8684 §3.7); no subflow can be added.
    Fallback { conn: ConnId },
    SubflowEstablished { conn: ConnId, subflow: u32 },
    SubflowClosed { conn: ConnId, subflow: u32, reason: CloseReason },
    /// A subflow's backup flag changed (MP_PRIO, RFC 8684 §3.3.8).
    SubflowPriority { conn: ConnId, subflow: u32, backup: bool },
    /// An interface of this host, or of the peer of `conn`, came (back) up,
    /// so subflows that were impossible may be possible now (for the peer:
    /// what an ADD_ADDR announcement tells, RFC 8684 §3.4.1).
    PathUp { conn: ConnId, peer: bool, iface: u16 },
    /// An interface of this host went up or down.
    InterfaceUp { iface: u16 },
    InterfaceDown { iface: u16 },
    /// The controller's sampling period elapsed; the view carries the samples.
    Sample,
    /// Connection `conn` has carried `bytes` bytes of data both ways, as
    /// this host counts them (acknowledged bytes sent plus bytes received),
    /// as asked with `Action::WatchBytes`.
    BytesCarried { conn: ConnId, bytes: u64 },
    /// A timer the controller armed (`Action::ArmTimer`).
    Timer { token: u64 },
    /// The application on `conn` requested an object: its size if the
    /// server announces it (S-MPTCP's Algorithm 2 branches on that).
    AppRequest { conn: ConnId, size: Option<u64> },
    /// The answer to an `Action::Resolve` of a controller of this host
    /// (docs/dns.md): the resolver's and the mirrors' names, the mirrors in
    /// the resolver's order (empty if `failed`), how long it may be cached
    /// (what is left of the TTL for an answer from the cache), and the time
    /// from the action to the answer (zero from the cache). `mirrors` are
    /// the A records', `mirrors_v6` the AAAA records' (asked by a host with
    /// an IPv6 address only; docs/dns.md).
    DnsAnswer {
        resolver: String,
        domain: String,
        interface: u16,
        mirrors: Vec<String>,
        mirrors_v6: Vec<String>,
        ttl: Time,
        from_cache: bool,
        elapsed: Time,
        failed: Option<crate::dns::Failure>,
    },
    /// A fetch session of this host started (`[[fetches]]`): its
    /// connections may be opened from now on.
    SessionStarted { session: SessionId },
    /// The session sent a content request on `conn`; `pending`: its content
    /// requests under way now, on all its connections.
    RequestIssued { session: SessionId, conn: ConnId, pending: u32 },
    /// A content request's response arrived in full on `conn`;
    /// `first_byte`: from the request's sending to its response's first
    /// byte, a round trip plus the server's time, given only when no other
    /// response was under way on `conn` as it was sent (else it measures
    /// the wait behind that response).
    RequestCompleted { session: SessionId, conn: ConnId, pending: u32, first_byte: Option<Time> },
    /// A probe's response arrived in full: `rtt` from its request's sending
    /// to its response's last byte (behind any response under way before it).
    ProbeResult { conn: ConnId, rtt: Time },
    /// Something the device tells about itself: battery, temperature,
    /// screen, an interface's signal or radio technology, a data limit.
    Hint(Hint),
}

/// A device hint (`[[devices]]` schedules in a scenario; the view holds the latest values).
#[derive(Debug, Clone, PartialEq)]
pub enum Hint {
    /// Battery level, percent.
    Battery { pct: f64 },
    /// Device temperature, °C.
    Temperature { celsius: f64 },
    Screen { on: bool },
    /// An interface's signal level, dBm (RSSI for Wi-Fi, RSRP for LTE/NR).
    Signal { iface: u16, dbm: f64 },
    /// An interface's radio access technology changed (`wifi`, `lte`, `umts`, `nr`).
    Rat { iface: u16, rat: String },
    /// An interface's estimated link bandwidth, bit/s (the radio's own
    /// estimate from its link rate and signal: Android's
    /// `getLinkDownstreamBandwidthKbps`; S-MPTCP's WB).
    Bandwidth { iface: u16, bps: f64 },
    /// An interface has sent and received `bytes` wire bytes, its data limit.
    DataLimit { iface: u16, bytes: u64 },
}

impl Event {
    /// The `event` column of the controller log.
    pub fn kind(&self) -> &'static str {
        match self {
            Event::Start => "start",
            Event::ConnectionOpening { .. } => "connection_opening",
            Event::ConnectionEstablished { .. } => "connection_established",
            Event::ConnectionClosed { .. } => "connection_closed",
            Event::Fallback { .. } => "fallback",
            Event::SubflowEstablished { .. } => "subflow_established",
            Event::SubflowClosed { .. } => "subflow_closed",
            Event::SubflowPriority { .. } => "subflow_priority",
            Event::PathUp { .. } => "path_up",
            Event::InterfaceUp { .. } => "interface_up",
            Event::InterfaceDown { .. } => "interface_down",
            Event::Sample => "sample",
            Event::BytesCarried { .. } => "bytes_carried",
            Event::Timer { .. } => "timer",
            Event::AppRequest { .. } => "app_request",
            Event::DnsAnswer { .. } => "dns_answer",
            Event::SessionStarted { .. } => "session_started",
            Event::RequestIssued { .. } => "request_issued",
            Event::RequestCompleted { .. } => "request_completed",
            Event::ProbeResult { .. } => "probe_result",
            Event::Hint(Hint::Battery { .. }) => "battery",
            Event::Hint(Hint::Temperature { .. }) => "temperature",
            Event::Hint(Hint::Screen { .. }) => "screen",
            Event::Hint(Hint::Signal { .. }) => "signal",
            Event::Hint(Hint::Rat { .. }) => "rat",
            Event::Hint(Hint::Bandwidth { .. }) => "bandwidth",
            Event::Hint(Hint::DataLimit { .. }) => "data_limit",
        }
    }

    /// The connection the event is about, if any.
    pub fn conn(&self) -> Option<ConnId> {
        match *self {
            Event::ConnectionOpening { conn }
            | Event::ConnectionEstablished { conn }
            | Event::ConnectionClosed { conn }
            | Event::Fallback { conn }
            | Event::SubflowEstablished { conn, .. }
            | Event::SubflowClosed { conn, .. }
            | Event::SubflowPriority { conn, .. }
            | Event::PathUp { conn, .. }
            | Event::BytesCarried { conn, .. }
            | Event::AppRequest { conn, .. }
            | Event::RequestIssued { conn, .. }
            | Event::RequestCompleted { conn, .. }
            | Event::ProbeResult { conn, .. } => Some(conn),
            _ => None,
        }
    }
}
