//! The TCP partition of an INRPP interface's cache (Reñé et al., §V-A): so
//! that TCP and INRPP coexist, the cache is split by protocol. Packets of
//! other transports (TCP, and anything without the INRPP option) that the
//! queue cannot take go to a small drop-tail FIFO of their own, "limited to
//! 50 ms worth of traffic" because TCP does not work well with large
//! buffers; the two partitions take turns refilling the queue (fair queuing
//! between them, one packet each), or, with the router's `fair_queue`
//! option, share the link by deficit round robin (`fair`). TCP data never
//! detours and never meets backpressure: it sees only a somewhat longer
//! drop-tail buffer.

use std::collections::VecDeque;

use crate::net::packet::PacketId;

pub struct TcpPartition {
    packets: VecDeque<(PacketId, u32)>,
    bytes: u64,
    /// Bytes it may hold; 0: no partition, other transports meet the queue alone.
    limit: u64,
    /// The next packet for the queue comes from here, if it has one.
    tcp_turn: bool,
    pub max_bytes: u64,
    pub cached: u64,
    pub drops: u64,
}

impl TcpPartition {
    pub fn new(limit: u64) -> TcpPartition {
        TcpPartition { packets: VecDeque::new(), bytes: 0, limit, tcp_turn: false, max_bytes: 0, cached: 0, drops: 0 }
    }

    pub fn enabled(&self) -> bool {
        self.limit > 0
    }

    pub fn is_empty(&self) -> bool {
        self.packets.is_empty()
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// Keeps packet `id` of `size` bytes, or counts a drop if it does not fit (drop-tail).
    pub fn offer(&mut self, id: PacketId, size: u32) -> bool {
        if self.bytes + size as u64 > self.limit {
            self.drops += 1;
            return false;
        }
        self.packets.push_back((id, size));
        self.bytes += size as u64;
        self.cached += 1;
        self.max_bytes = self.max_bytes.max(self.bytes);
        true
    }

    /// Whether the TCP partition's turn has come.
    pub fn has_turn(&self) -> bool {
        self.tcp_turn
    }

    /// The next TCP packet, if there is one and it `fits`; the INRPP partition's turn is next.
    pub fn take(&mut self, fits: impl Fn(u32) -> bool) -> Option<PacketId> {
        let &(id, size) = self.packets.front().filter(|p| fits(p.1))?;
        self.packets.pop_front();
        self.bytes -= size as u64;
        self.tcp_turn = false;
        Some(id)
    }

    /// `take` with the packet's size, for a scheduler that counts bytes (`fair`).
    pub fn take_sized(&mut self, fits: impl Fn(u32) -> bool) -> Option<(PacketId, u32)> {
        let size = self.packets.front()?.1;
        self.take(fits).map(|id| (id, size))
    }

    /// The INRPP partition sent a packet: the TCP partition's turn is next.
    pub fn inrpp_served(&mut self) {
        self.tcp_turn = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drop_tail_within_the_limit_and_turns_between_partitions() {
        let mut p = TcpPartition::new(3000);
        assert!(p.offer(1, 1500) && p.offer(2, 1500));
        assert!(!p.offer(3, 100));
        assert_eq!((p.cached, p.drops, p.bytes()), (2, 1, 3000));
        assert!(!p.has_turn());
        p.inrpp_served();
        assert!(p.has_turn());
        assert_eq!(p.take(|s| s < 1500), None, "the head does not fit");
        assert_eq!(p.take(|_| true), Some(1));
        assert!(!p.has_turn());
        assert_eq!(p.take(|_| true), Some(2));
        assert!(p.is_empty());
    }
}
