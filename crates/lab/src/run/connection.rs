//! What the lab knows of each MPTCP connection's subflows, shared by the
//! controller thread of the connection's client (which keeps the records
//! from the kernel's path-manager events), the sampler (which adds each
//! subflow's `tcp_info`) and `collect.rs` (the `subflows` table). Records
//! are in the flow's terms — its source's and destination's interfaces and
//! addresses — whichever end connects, as the simulator's `subflows` table.

use std::net::SocketAddr;

use pathpool_sim::control::CloseReason;
use pathpool_sim::Time;

use crate::traffic::info::{SubflowInfo, TcpInfo};

/// One subflow of a lab MPTCP connection.
#[derive(Debug, Clone)]
pub struct SubflowRecord {
    /// Indices into the source's and the destination's interfaces.
    pub src_iface: u16,
    pub dst_iface: u16,
    /// Its addresses at the source and at the destination. The client's
    /// port is ephemeral: 0 until the subflow is established.
    pub src: SocketAddr,
    pub dst: SocketAddr,
    /// What the client asked for (the kernel's events carry the peer's bit, RFC 8684 §3.3.8).
    pub backup: bool,
    pub opened: Time,
    pub established: Option<Time>,
    pub closed: Option<Time>,
    /// Why pathpool closed it: a controller's action (`Closed`) or an
    /// interface of it going down (`InterfaceDown`). None: if closed, the
    /// kernel closed it (`Reset`).
    pub closed_by: Option<CloseReason>,
    /// The latest `tcp_info` of the data sender's end the sampler read, and its srtt samples.
    pub last: Option<TcpInfo>,
    pub srtt_sum_s: f64,
    pub srtt_samples: u64,
}

impl SubflowRecord {
    pub fn new(ifaces: (u16, u16), src: SocketAddr, dst: SocketAddr, backup: bool, opened: Time) -> SubflowRecord {
        SubflowRecord {
            src_iface: ifaces.0,
            dst_iface: ifaces.1,
            src,
            dst,
            backup,
            opened,
            established: None,
            closed: None,
            closed_by: None,
            last: None,
            srtt_sum_s: 0.0,
            srtt_samples: 0,
        }
    }

    pub fn is_open(&self) -> bool {
        self.closed.is_none()
    }

    /// Whether the subflow with these source and destination addresses is
    /// this one (a port 0 here, not yet known, matches any port).
    pub fn is(&self, src: SocketAddr, dst: SocketAddr) -> bool {
        let same = |mine: SocketAddr, theirs: SocketAddr| mine.ip() == theirs.ip() && (mine.port() == 0 || mine.port() == theirs.port());
        same(self.src, src) && same(self.dst, dst)
    }

    /// Whether `info`, read from the socket of the flow's source (`at_src`)
    /// or destination, is this subflow.
    pub fn is_info(&self, info: &SubflowInfo, at_src: bool) -> bool {
        let (src, dst) = if at_src { (info.local, info.remote) } else { (info.remote, info.local) };
        self.src == src && self.dst == dst
    }
}

/// One MPTCP flow's subflows, in the order they were opened (index =
/// `subflows.subflow_id`, the initial subflow first).
#[derive(Debug, Default)]
pub struct Connection {
    pub subflows: Vec<SubflowRecord>,
}
