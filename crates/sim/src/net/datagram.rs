//! UDP datagrams (RFC 768), the least a transport can be: one packet from a
//! node to a node, routed like every other packet, queued and lost like
//! them, and handed to whoever handles its body at the destination. Nothing
//! is retransmitted here; a protocol on top (DNS's stub resolver) keeps its
//! own timers.
//!
//! A datagram's packet is `Kind::Datagram` with `seq` naming its body in a
//! `Bodies` store, which the world keeps for the protocol it carries; the
//! body leaves the store when the packet is delivered or dropped.

use crate::net::packet::{Kind, Packet};
use crate::net::NodeId;

/// IPv4 header without options (RFC 791 §3.1): 20 bytes.
pub const IPV4_HEADER_BYTES: u32 = 20;
/// UDP header (RFC 768): source port, destination port, length, checksum, 2 bytes each.
pub const UDP_HEADER_BYTES: u32 = 8;

/// Flow number of datagram packets: they belong to no connection (as
/// INRPP's router probes, they hash on it for ECMP).
pub const NO_FLOW: u32 = u32::MAX;

/// The packet of a datagram from `src` to `dst` carrying `payload` bytes,
/// its body stored under `id`. Wire size: IPv4 + UDP headers + payload.
pub fn packet(src: NodeId, dst: NodeId, id: u32, payload: u32) -> Packet {
    let mut p = Packet::new(NO_FLOW, src, dst, Kind::Datagram, IPV4_HEADER_BYTES + UDP_HEADER_BYTES + payload);
    p.seq = id as u64;
    p.len = payload;
    p
}

/// The bodies of datagrams in the network, by id; a freed id is reused.
pub struct Bodies<T> {
    slots: Vec<Option<T>>,
    free: Vec<u32>,
}

impl<T> Default for Bodies<T> {
    fn default() -> Self {
        Bodies { slots: Vec::new(), free: Vec::new() }
    }
}

impl<T> Bodies<T> {
    pub fn insert(&mut self, body: T) -> u32 {
        match self.free.pop() {
            Some(id) => {
                self.slots[id as usize] = Some(body);
                id
            }
            None => {
                self.slots.push(Some(body));
                (self.slots.len() - 1) as u32
            }
        }
    }

    /// The body of datagram `id`, which leaves the store (delivered or lost).
    pub fn take(&mut self, id: u32) -> T {
        let body = self.slots[id as usize].take().expect("a datagram's body is taken once");
        self.free.push(id);
        body
    }
}
