//! Packets and the pool that owns them while they cross the network.
//!
//! Events refer to packets by index into the pool, so the event heap moves
//! small values; a freed slot is reused (htsim's packet recycling).

use crate::net::NodeId;
use crate::time::Time;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Syn,
    SynAck,
    Data,
    Ack,
    /// A router module's own packet (INRPP's detour probes and their
    /// answers), addressed to a router and consumed there.
    Control,
    /// An application's request from the client to the server of a flow
    /// (`crate::app::exchange`); `seq` holds the request's id.
    Request,
    /// A UDP datagram (`net::datagram`); `seq` names its body, `len` is its payload.
    Datagram,
}

/// A SACK block [start, end) (RFC 2018).
pub type SackBlock = (u64, u64);
/// At most 3 blocks fit beside the timestamp option (RFC 2018 §3).
pub const MAX_SACK_BLOCKS: usize = 3;

/// RCP's congestion header (Dukkipati, "Rate Control Protocol (RCP)", PhD
/// thesis, Stanford 2007): carried by the SYN and data segments of RCP flows
/// and echoed back in their SYN-ACK and ACKs. As in the ns-2 RCP agent it
/// adds no wire bytes, so RCP and TCP packets are the same size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RcpHeader {
    /// Rate the path can give the flow, wire bit/s: the sender writes the
    /// rate it wants (infinite: any) and each RCP router lowers it to its R(t).
    pub rate_bps: f64,
    /// The sender's RTT estimate, which routers average into d (zero: none yet).
    pub rtt: Time,
}

#[derive(Debug, Clone)]
pub struct Packet {
    pub flow: u32,
    pub src: NodeId,
    pub dst: NodeId,
    pub kind: Kind,
    /// Bytes on the wire (headers included).
    pub size: u32,
    /// Data: first payload byte's sequence number (connection-relative).
    pub seq: u64,
    /// Data: payload bytes.
    pub len: u32,
    /// ACK: next byte expected (cumulative acknowledgement).
    pub ack: u64,
    /// ACK: receive window advertised, bytes.
    pub rwnd: u64,
    /// RFC 7323 timestamps: TSval set by the sender of this packet, TSecr echoed.
    pub ts_val: Time,
    pub ts_ecr: Time,
    pub sack: [SackBlock; MAX_SACK_BLOCKS],
    pub n_sack: u8,
    /// Set on retransmitted data segments (statistics only; TCP does not look).
    pub retransmission: bool,
    /// The link epoch when the packet was put on the wire; a link that goes
    /// down bumps its epoch and packets of an older epoch are lost.
    pub epoch: u32,
    /// RCP flows only (None for TCP).
    pub rcp: Option<RcpHeader>,
    /// Source and destination interface (indices into each node's interfaces,
    /// `net::interfaces`): a multi-homed host sends from `src_if` and routers
    /// deliver over `dst_if`'s link. `ANY_INTERFACE` routes by node alone,
    /// as single-path flows do.
    pub src_if: u16,
    pub dst_if: u16,
    /// The MPTCP subflow this packet belongs to (0 for single-path flows).
    pub subflow: u16,
    /// SYN-ACK: an MSS option (RFC 9293 §3.7.1) a controller set (`SetMss`);
    /// 0: none beyond the interfaces' MTUs, which the sender already
    /// respects (`scenario::mtu::fit` for TCP, each subflow's own for MPTCP).
    pub mss: u16,
    /// MPTCP's Data Sequence Signal (RFC 8684 §3.3); None for single-path flows.
    pub dss: Option<Dss>,
    /// INRPP flows only: echoed nonces on data, notifications on ACKs.
    /// Boxed, as `probe`: every packet is copied into the pool and out of the
    /// endpoints, and these 72 bytes inline made every packet 288 bytes.
    pub inrpp: Option<Box<InrppOption>>,
    /// A packet an INRPP router detoured (Reñé et al., §III-A): the next hop
    /// it was meant for, which it must reach before routing by destination
    /// resumes.
    pub detour_to: Option<NodeId>,
    /// `Kind::Control` packets: an INRPP detour probe or its answer.
    pub probe: Option<Box<Probe>>,
}

/// Interface index meaning "route by node": no interface is bound.
pub const ANY_INTERFACE: u16 = u16::MAX;

/// The DSS option of an MPTCP subflow packet (RFC 8684 §3.3), reduced to what
/// the simulator needs: the data sequence number of a data segment's first
/// payload byte (its mapping, §3.3.1) and, on ACKs, the cumulative Data ACK
/// (§3.3.2). The ACK's `rwnd` is then the connection-level receive window,
/// relative to the Data ACK (§3.3.4). It adds no wire bytes (`header_bytes`
/// stays the only header size).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Dss {
    pub dsn: u64,
    pub data_ack: u64,
}

/// An INRPP nonce: the alias of one router interface (Reñé et al., §II-A.3).
pub type Nonce = u32;

/// What an INRPP option says about a nonce (§II-A.3–4, Algorithm 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Note {
    /// The interface is in Backpressure: the next node upstream goes closed loop.
    SlowDown,
    /// The nonce alone: on an ACK, a slow-down an upstream node cleared
    /// (§II-B, Fig. 5); on data, the sender's echo.
    Nonce,
    /// The interface left Backpressure: forget the nonce.
    Cancel,
}

/// At most this many nonces fit in one INRPP option.
pub const MAX_NONCES: usize = 8;

/// INRPP's packet option (§III-C: "the nonces as well as the slow-down and
/// cancel notifications are stored within INRPP's packet option fields"):
/// up to `MAX_NONCES` (nonce, note) entries, one per nonce, and the MAC of
/// the router that sent it on (§V-C, with `authenticate`). Like RCP's header
/// it adds no wire bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InrppOption {
    entries: [(Nonce, Note); MAX_NONCES],
    len: u8,
    pub mac: u32,
}

impl Default for InrppOption {
    fn default() -> Self {
        InrppOption { entries: [(0, Note::Nonce); MAX_NONCES], len: 0, mac: 0 }
    }
}

impl InrppOption {
    pub fn entries(&self) -> &[(Nonce, Note)] {
        &self.entries[..self.len as usize]
    }

    /// Sets the note of `nonce`, adding it if absent; false if the option is full.
    pub fn set(&mut self, nonce: Nonce, note: Note) -> bool {
        if let Some(e) = self.entries[..self.len as usize].iter_mut().find(|e| e.0 == nonce) {
            e.1 = note;
            return true;
        }
        if self.len as usize == MAX_NONCES {
            return false;
        }
        self.entries[self.len as usize] = (nonce, note);
        self.len += 1;
        true
    }

    /// Removes `nonce`, if present.
    pub fn remove(&mut self, nonce: Nonce) {
        let n = self.len as usize;
        if let Some(i) = self.entries[..n].iter().position(|e| e.0 == nonce) {
            self.entries.copy_within(i + 1..n, i);
            self.len -= 1;
        }
    }

    /// Removes the slow-down and cancel notifications, keeping bare nonces;
    /// how many there were.
    pub fn strip_notifications(&mut self) -> usize {
        let before = self.len as usize;
        let mut kept = 0;
        for i in 0..before {
            if self.entries[i].1 == Note::Nonce {
                self.entries[kept] = self.entries[i];
                kept += 1;
            }
        }
        self.len = kept as u8;
        before - kept
    }

    pub fn has(&self, note: Note) -> bool {
        self.entries().iter().any(|e| e.1 == note)
    }

    pub fn nonces(&self) -> impl Iterator<Item = Nonce> + '_ {
        self.entries().iter().map(|e| e.0)
    }
}

/// An INRPP detour probe (§III-A): sent every T_p by a router to a detour
/// node, which answers with the feedback of its interface towards `target`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Probe {
    /// The prober's primary next hop, which the detour node reaches directly.
    pub target: NodeId,
    /// Set in the answer.
    pub feedback: Option<Feedback>,
}

/// A detour node's answer for its interface towards a probe's target.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Feedback {
    /// The interface is in Push state (a detour needs both egresses in Push).
    pub push: bool,
    /// Δ+ of eq. 2 as a rate increment, bit/s.
    pub increase_bps: f64,
    /// Δ− of eq. 2: the fraction of its rate a detour gives up.
    pub decrease: f64,
}

impl Packet {
    pub fn new(flow: u32, src: NodeId, dst: NodeId, kind: Kind, size: u32) -> Packet {
        Packet {
            flow,
            src,
            dst,
            kind,
            size,
            seq: 0,
            len: 0,
            ack: 0,
            rwnd: 0,
            ts_val: Time::ZERO,
            ts_ecr: Time::ZERO,
            sack: [(0, 0); MAX_SACK_BLOCKS],
            n_sack: 0,
            retransmission: false,
            epoch: 0,
            rcp: None,
            src_if: ANY_INTERFACE,
            dst_if: ANY_INTERFACE,
            subflow: 0,
            mss: 0,
            dss: None,
            inrpp: None,
            detour_to: None,
            probe: None,
        }
    }

    pub fn sack_blocks(&self) -> &[SackBlock] {
        &self.sack[..self.n_sack as usize]
    }
}

pub type PacketId = u32;

#[derive(Default)]
pub struct PacketPool {
    slots: Vec<Packet>,
    free: Vec<PacketId>,
}

impl PacketPool {
    pub fn insert(&mut self, p: Packet) -> PacketId {
        if let Some(id) = self.free.pop() {
            self.slots[id as usize] = p;
            id
        } else {
            self.slots.push(p);
            (self.slots.len() - 1) as PacketId
        }
    }

    pub fn get(&self, id: PacketId) -> &Packet {
        &self.slots[id as usize]
    }

    pub fn get_mut(&mut self, id: PacketId) -> &mut Packet {
        &mut self.slots[id as usize]
    }

    pub fn release(&mut self, id: PacketId) {
        self.free.push(id);
    }

    /// Packets currently alive in the network (queued or on a wire).
    pub fn live(&self) -> usize {
        self.slots.len() - self.free.len()
    }
}
