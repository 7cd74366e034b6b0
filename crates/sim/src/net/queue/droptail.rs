//! First-in first-out queue that drops arrivals when full.

use std::collections::VecDeque;

use super::{Queue, QueueLimit};
use crate::net::packet::PacketId;

pub struct DropTail {
    limit: QueueLimit,
    packets: VecDeque<(PacketId, u32)>,
    bytes: u64,
}

impl DropTail {
    pub fn new(limit: QueueLimit) -> DropTail {
        DropTail { limit, packets: VecDeque::new(), bytes: 0 }
    }
}

impl Queue for DropTail {
    fn enqueue(&mut self, pkt: PacketId, size: u32) -> bool {
        let fits = self.fits(size);
        if fits {
            self.packets.push_back((pkt, size));
            self.bytes += size as u64;
        }
        fits
    }

    fn fits(&self, size: u32) -> bool {
        match self.limit {
            QueueLimit::Packets(n) => (self.packets.len() as u64) < n,
            QueueLimit::Bytes(b) => self.bytes + size as u64 <= b,
        }
    }

    fn dequeue(&mut self) -> Option<PacketId> {
        let (p, size) = self.packets.pop_front()?;
        self.bytes -= size as u64;
        Some(p)
    }

    fn len_packets(&self) -> u64 {
        self.packets.len() as u64
    }

    fn len_bytes(&self) -> u64 {
        self.bytes
    }

    fn drain(&mut self) -> Vec<PacketId> {
        self.bytes = 0;
        self.packets.drain(..).map(|(p, _)| p).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packet_and_byte_limits() {
        let mut q = DropTail::new(QueueLimit::Packets(2));
        assert!(q.enqueue(1, 1500) && q.enqueue(2, 1500));
        assert!(!q.enqueue(3, 52));
        assert_eq!(q.dequeue(), Some(1));
        let mut q = DropTail::new(QueueLimit::Bytes(3000));
        assert!(q.enqueue(1, 1500) && q.enqueue(2, 1500));
        assert!(!q.enqueue(3, 1));
        assert_eq!((q.len_packets(), q.len_bytes()), (2, 3000));
    }
}
