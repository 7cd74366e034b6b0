//! Queue disciplines: what a link direction does with packets that arrive
//! while it is busy. A trait so that AQMs and the INRPP/RCP router modules of
//! later work plug in per link.

pub mod droptail;

use crate::net::packet::PacketId;

pub use droptail::DropTail;

pub trait Queue {
    /// Accepts the packet, or refuses it (the caller counts the drop).
    fn enqueue(&mut self, pkt: PacketId, size: u32) -> bool;
    /// Whether a packet of `size` bytes would be accepted now.
    fn fits(&self, size: u32) -> bool;
    fn dequeue(&mut self) -> Option<PacketId>;
    fn len_packets(&self) -> u64;
    fn len_bytes(&self) -> u64;
    /// Removes every packet (the link went down).
    fn drain(&mut self) -> Vec<PacketId>;
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueueLimit {
    Packets(u64),
    Bytes(u64),
}
