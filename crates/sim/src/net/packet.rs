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
}

/// A SACK block [start, end) (RFC 2018).
pub type SackBlock = (u64, u64);
/// At most 3 blocks fit beside the timestamp option (RFC 2018 §3).
pub const MAX_SACK_BLOCKS: usize = 3;

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
