//! Multipath TCP (RFC 8684), modelled at the level that matters for
//! performance.
//!
//! A connection runs over subflows, each an ordinary TCP connection
//! (`tcp::TcpSender` / `tcp::TcpReceiver`) bound to one interface of the
//! source and one of the destination (`net::interfaces`). Data has a
//! connection-level sequence number (DSN) besides each subflow's own; every
//! data segment carries its mapping and every ACK the cumulative Data ACK
//! and the connection-level receive window (`net::packet::Dss`).
//!
//! - `sender`: the sending end — the send queue, the subflows, the push
//!   loop that asks the `scheduler` where each chunk goes, reinjection of
//!   data from subflows that fail, close or time out, the `path_manager`
//!   and the typed API (open, close, re-flag subflows) that device-side
//!   controllers and the scenario's timed actions use.
//! - `receiver`: the receiving end — subflow receivers and the
//!   connection-level `reassembly` with its bounded shared buffer.
//! - `coupling`: uncoupled, LIA, OLIA and BALIA congestion control.
//!
//! Not modelled: MPTCP option bytes on the wire (a segment is
//! `header_bytes` + payload, as for TCP), the DATA_FIN exchange, and the
//! fourth ACK that fully establishes an MP_JOIN subflow (a joined subflow
//! carries data as soon as its SYN-ACK arrives). Closing a subflow takes
//! effect at once at both ends.

pub mod coupling;
pub mod path_manager;
pub mod reassembly;
pub mod receiver;
pub mod scheduler;
pub mod send_queue;
pub mod sender;
pub mod timers;

pub use receiver::MptcpReceiver;
pub use sender::MptcpSender;

use crate::cc::ParamTable;
use crate::time::Time;

/// A flow's resolved MPTCP settings (see `scenario::mptcp`).
#[derive(Debug, Clone)]
pub struct MptcpConfig {
    /// The scheduler the connection starts with (a controller may switch it).
    pub scheduler: String,
    /// `scheduler`'s parameters; a scheduler switched to at run time has
    /// its defaults unless it is `scheduler` itself.
    pub scheduler_params: ParamTable,
    /// g_i = w_i + w_device/n by the source's interface index (Green MPTCP
    /// §3.2), from the source host's `[[devices]]` linear model, if it has one.
    pub energy_profile: Option<Vec<f64>>,
    pub coupling: String,
    pub path_manager: String,
    /// Its parameters (`path_manager::build` checks them).
    pub path_manager_params: crate::cc::ParamTable,
    /// A middlebox strips MPTCP options from the initial handshake, so the
    /// connection falls back to TCP on the initial subflow (RFC 8684 §3.7).
    pub options_stripped: bool,
    /// Also run each interface alone with single-path TCP, for the
    /// aggregation percentage.
    pub baselines: bool,
    /// The initial subflow's (local, remote) interface pair.
    pub initial: (u16, u16),
    /// `reachable[l][r]`: a subflow from the source's interface l to the
    /// destination's interface r has a route both ways.
    pub reachable: Vec<Vec<bool>>,
    /// Timed path-manager actions, in time order.
    pub actions: Vec<(Time, Action)>,
}

impl MptcpConfig {
    /// What scheduler `name` is built from on this connection.
    pub fn scheduler_setup(&self, name: &str) -> scheduler::Setup<'_> {
        const DEFAULTS: &ParamTable = &ParamTable::new();
        let params = if name == self.scheduler { &self.scheduler_params } else { DEFAULTS };
        scheduler::Setup { params, energy_profile: self.energy_profile.as_deref() }
    }

    /// The (local, remote) pairs with a route both ways, as the source
    /// (`at_src`) or the destination sees them (a controller's `paths`).
    pub fn paths_seen_from(&self, at_src: bool) -> Vec<(u16, u16)> {
        let mut paths: Vec<(u16, u16)> = self
            .reachable
            .iter()
            .enumerate()
            .flat_map(|(l, row)| row.iter().enumerate().filter(|(_, &ok)| ok).map(move |(r, _)| (l as u16, r as u16)))
            .map(|(l, r)| if at_src { (l, r) } else { (r, l) })
            .collect();
        paths.sort_unstable();
        paths
    }
}

/// Which end of the connection an interface belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// The flow's source (the data sender).
    Local,
    /// The flow's destination.
    Remote,
}

/// A timed path-manager action on one connection (`mptcp.actions`), carried
/// out by the `control::timed` controller on the connection's client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Open a subflow between these interfaces.
    Open { local: u16, remote: u16, backup: bool },
    /// Close every subflow using this interface.
    Close { end: End, iface: u16 },
    /// Set or clear the backup flag (MP_PRIO) of every subflow using this interface.
    SetBackup { end: End, iface: u16, backup: bool },
}

impl Action {
    /// The action as the connection's client sees it: `End::Local` is the
    /// client's interface (the source's, unless the destination connects).
    pub fn seen_from(self, client_is_src: bool) -> Action {
        if client_is_src {
            return self;
        }
        let flip = |end| if end == End::Local { End::Remote } else { End::Local };
        match self {
            Action::Open { local, remote, backup } => Action::Open { local: remote, remote: local, backup },
            Action::Close { end, iface } => Action::Close { end: flip(end), iface },
            Action::SetBackup { end, iface, backup } => Action::SetBackup { end: flip(end), iface, backup },
        }
    }
}
