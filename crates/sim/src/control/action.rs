//! What a controller asks for. Interfaces are the controller's host's
//! (`local`) and the connection peer's (`remote`), by index, as the `View`
//! lists them; each plane translates an action into its own terms (the
//! simulator into `MptcpSender`'s API, the lab into MPTCP netlink commands)
//! or records it as refused, with the reason, in the controller log.

use super::{ConnId, SessionId};
use crate::time::Time;

/// Why a plane refuses `SetIncrement` at a connection's data receiver.
pub const SENDER_ONLY: &str = "this host receives the connection's data; only its sender's congestion control has an increment";
/// Why `SetCongestionControl` is refused at a connection's data receiver (both planes).
pub const CC_SENDER_ONLY: &str = "this host receives the connection's data; congestion control is its data sender's choice";
/// Why `SetReceiveBuffer` is refused at a connection's data sender (both planes).
pub const RECEIVER_ONLY: &str = "this host sends the connection's data; only its receiver's buffer sizes the window";

/// Why `CloseConnection` is refused on a session's current connection.
pub const CURRENT_CONNECTION: &str = "it is its session's current connection: steer the session to another one first";
/// Why `CloseConnection` is refused while responses are under way on the
/// connection (requests move between connections at request boundaries only).
pub const RESPONSES_PENDING: &str = "responses are still pending on it";
/// Why `OpenConnection` is refused for a connection that was closed.
pub const NOT_REOPENED: &str = "that connection was closed; a closed connection is not reopened";
/// Why `Probe` is refused before the handshake completed.
pub const NOT_ESTABLISHED: &str = "the connection is not established yet";

#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Open a subflow from this host's interface `local` to the peer's
    /// interface `remote` (MP_JOIN, RFC 8684 §3.2), as a backup or not.
    OpenSubflow { conn: ConnId, local: u16, remote: u16, backup: bool },
    /// Close a subflow (its data is reinjected on the others, §3.3.6).
    CloseSubflow { conn: ConnId, subflow: u32 },
    /// Set or clear a subflow's backup flag (MP_PRIO, §3.3.8).
    SetBackup { conn: ConnId, subflow: u32, backup: bool },
    /// Use another packet scheduler on the connection (simulator only: the
    /// lab's kernel has no BPF MPTCP scheduler).
    SetScheduler { conn: ConnId, scheduler: String },
    /// Deliver `Event::Timer { token }` after `after`.
    ArmTimer { after: Time, token: u64 },
    /// Deliver `Event::BytesCarried` once `conn` has carried `bytes` bytes.
    WatchBytes { conn: ConnId, bytes: u64 },
    /// Set this host's receive buffer for `conn` (its connection-level one
    /// for MPTCP): the window it advertises from then on is at most
    /// `bytes`. Only the connection's data receiver may (S-MPTCP's
    /// auto-tuner sizes the phone's buffer).
    SetReceiveBuffer { conn: ConnId, bytes: u64 },
    /// Announce MSS option `mss` in `conn`'s handshakes (TCP_MAXSEG before
    /// connect, RFC 9293 §3.7.1): the peer's segments then carry at most
    /// `mss` less its TCP options. Only before the connection's first SYN
    /// (`Event::ConnectionOpening`); MPTCP joins announce the same.
    SetMss { conn: ConnId, mss: u16 },
    /// Run congestion control `algorithm` (a `cc::names()` one) on `conn`
    /// (TCP_CONGESTION before connect): a single-path connection's, or
    /// every subflow of an MPTCP connection, the joins included, each its
    /// own instance (uncoupled: no coupled BBR exists). Only the data
    /// sender may, and only before the first SYN
    /// (`Event::ConnectionOpening`). S-MPTCP's auto-tuner sets `bbr`.
    SetCongestionControl { conn: ConnId, algorithm: String },
    /// Set the additive-increase coefficient a (W ← W + a/W per ACK,
    /// Westwood+'s eq. 14; eMPTCP's a = x², eq. 21) of a subflow of `conn`,
    /// or with `subflow` None of a single-path connection. Only the data
    /// sender may, and only where the congestion control is Westwood+
    /// (the kernel lab has none).
    SetIncrement { conn: ConnId, subflow: Option<u32>, a: f64 },
    /// Look `domain` up at the resolver named `resolver` (`[[resolvers]]`),
    /// the query leaving by this host's interface `interface`, or by the
    /// routed one with None: `Event::DnsAnswer` follows, from the host's
    /// cache at once if it holds a fresh answer (docs/dns.md).
    Resolve { resolver: String, domain: String, interface: Option<u16> },
    /// Open a fetch session's connection to `mirror` (a host of the
    /// content's lookup, by name) over this host's interface
    /// `local_interface` over IP version `family`: a single-path TCP
    /// handshake from that interface (IPv6 where the scenario gives both
    /// ends and every link between them IPv6, docs/scenario.md).
    OpenConnection { session: SessionId, mirror: String, local_interface: u16, family: crate::net::family::Family },
    /// Close a fetch session's connection (neither its current one nor one
    /// with responses under way).
    CloseConnection { conn: ConnId },
    /// Send the session's next content requests on `conn`. With `resume`
    /// false, requests already sent finish on their own connections (a
    /// request-boundary remap); with `resume` true, the session stops
    /// reading the responses under way elsewhere and asks `conn` for the
    /// rest of each range, the old connections draining theirs to be
    /// discarded (`app::fetch::Fetch::cut`).
    Steer { session: SessionId, conn: ConnId, resume: bool },
    /// An application-level request of `request_bytes` for `response_bytes`
    /// on a fetch connection: its response's arrival gives
    /// `Event::ProbeResult` (a TCP keep-alive acknowledges no new data, so
    /// Linux takes no RTT sample from it).
    Probe { conn: ConnId, request_bytes: u32, response_bytes: u64 },
    /// A free-form line in the controller log.
    Log { detail: String },
}

/// An action's kind: what a controller declares it may emit, and what a
/// plane declares it can carry out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ActionKind {
    OpenSubflow,
    CloseSubflow,
    SetBackup,
    SetScheduler,
    ArmTimer,
    WatchBytes,
    SetReceiveBuffer,
    SetMss,
    SetCongestionControl,
    SetIncrement,
    Resolve,
    OpenConnection,
    CloseConnection,
    Steer,
    Probe,
    Log,
}

impl ActionKind {
    /// The kinds that act on fetch sessions (`crate::app::fetch`).
    pub const FETCH: [ActionKind; 4] = [ActionKind::OpenConnection, ActionKind::CloseConnection, ActionKind::Steer, ActionKind::Probe];
}

impl ActionKind {
    /// The `action` column of the controller log.
    pub fn name(self) -> &'static str {
        match self {
            ActionKind::OpenSubflow => "open_subflow",
            ActionKind::CloseSubflow => "close_subflow",
            ActionKind::SetBackup => "set_backup",
            ActionKind::SetScheduler => "set_scheduler",
            ActionKind::ArmTimer => "arm_timer",
            ActionKind::WatchBytes => "watch_bytes",
            ActionKind::SetReceiveBuffer => "set_receive_buffer",
            ActionKind::SetMss => "set_mss",
            ActionKind::SetCongestionControl => "set_congestion_control",
            ActionKind::SetIncrement => "set_increment",
            ActionKind::Resolve => "resolve",
            ActionKind::OpenConnection => "open_connection",
            ActionKind::CloseConnection => "close_connection",
            ActionKind::Steer => "steer",
            ActionKind::Probe => "probe",
            ActionKind::Log => "log",
        }
    }
}

impl Action {
    pub fn kind(&self) -> ActionKind {
        match self {
            Action::OpenSubflow { .. } => ActionKind::OpenSubflow,
            Action::CloseSubflow { .. } => ActionKind::CloseSubflow,
            Action::SetBackup { .. } => ActionKind::SetBackup,
            Action::SetScheduler { .. } => ActionKind::SetScheduler,
            Action::ArmTimer { .. } => ActionKind::ArmTimer,
            Action::WatchBytes { .. } => ActionKind::WatchBytes,
            Action::SetReceiveBuffer { .. } => ActionKind::SetReceiveBuffer,
            Action::SetMss { .. } => ActionKind::SetMss,
            Action::SetCongestionControl { .. } => ActionKind::SetCongestionControl,
            Action::SetIncrement { .. } => ActionKind::SetIncrement,
            Action::Resolve { .. } => ActionKind::Resolve,
            Action::OpenConnection { .. } => ActionKind::OpenConnection,
            Action::CloseConnection { .. } => ActionKind::CloseConnection,
            Action::Steer { .. } => ActionKind::Steer,
            Action::Probe { .. } => ActionKind::Probe,
            Action::Log { .. } => ActionKind::Log,
        }
    }

    /// The connection the action is on, if any.
    pub fn conn(&self) -> Option<ConnId> {
        match *self {
            Action::OpenSubflow { conn, .. }
            | Action::CloseSubflow { conn, .. }
            | Action::SetBackup { conn, .. }
            | Action::SetScheduler { conn, .. }
            | Action::WatchBytes { conn, .. }
            | Action::SetReceiveBuffer { conn, .. }
            | Action::SetMss { conn, .. }
            | Action::SetCongestionControl { conn, .. }
            | Action::SetIncrement { conn, .. }
            | Action::CloseConnection { conn }
            | Action::Steer { conn, .. }
            | Action::Probe { conn, .. } => Some(conn),
            _ => None,
        }
    }

    /// The subflow the action is on, if any.
    pub fn subflow(&self) -> Option<u32> {
        match *self {
            Action::CloseSubflow { subflow, .. } | Action::SetBackup { subflow, .. } => Some(subflow),
            Action::SetIncrement { subflow, .. } => subflow,
            _ => None,
        }
    }

    /// The `detail` column of the controller log.
    pub fn detail(&self) -> String {
        match self {
            Action::OpenSubflow { local, remote, backup, .. } => {
                format!("local {local} -> remote {remote}{}", if *backup { ", backup" } else { "" })
            }
            Action::CloseSubflow { .. } => String::new(),
            Action::SetBackup { backup, .. } => format!("backup = {backup}"),
            Action::SetScheduler { scheduler, .. } => scheduler.clone(),
            Action::ArmTimer { after, token } => format!("token {token} in {:.6} s", after.secs()),
            Action::WatchBytes { bytes, .. } | Action::SetReceiveBuffer { bytes, .. } => format!("{bytes} bytes"),
            Action::SetMss { mss, .. } => format!("MSS {mss} bytes"),
            Action::SetCongestionControl { algorithm, .. } => algorithm.clone(),
            Action::SetIncrement { a, .. } => format!("a = {a:.6}"),
            Action::Resolve { resolver, domain, interface } => match interface {
                Some(i) => format!("{domain} at {resolver} over interface {i}"),
                None => format!("{domain} at {resolver}"),
            },
            Action::OpenConnection { session, mirror, local_interface, family } => {
                let v6 = if *family == crate::net::family::Family::V6 { " (v6)" } else { "" };
                format!("session {session}: {mirror} over local {local_interface}{v6}")
            }
            Action::CloseConnection { .. } => String::new(),
            Action::Steer { session, resume: false, .. } => format!("session {session}"),
            Action::Steer { session, resume: true, .. } => format!("session {session}, resuming"),
            Action::Probe { request_bytes, response_bytes, .. } => format!("{request_bytes} -> {response_bytes} bytes"),
            Action::Log { detail } => detail.clone(),
        }
    }
}
