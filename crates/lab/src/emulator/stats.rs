//! What each direction's forwarder counts, readable while it runs: the
//! simulator's per-direction link counters (`sim::net::link::LinkStats`)
//! plus what only a real-time emulator has — frames it could not carry and
//! how late it delivered.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use super::direction::DropCause;

/// Upper bounds (µs) of the lateness histogram's buckets; the last bucket is
/// everything above the last bound.
pub const LATENESS_BOUNDS_US: [u64; 6] = [10, 50, 100, 250, 500, 1000];

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DirectionStats {
    /// "link:from>to", the simulator's name for the direction.
    pub name: String,
    /// IP packets and bytes delivered to the far end.
    pub packets: u64,
    pub bytes: u64,
    pub drops_queue: u64,
    pub drops_loss: u64,
    pub drops_down: u64,
    /// Larger than the ingress MTU (a sender with segmentation offload on).
    pub drops_oversize: u64,
    /// The far end's device refused the frame (its backlog was full).
    pub drops_egress: u64,
    /// ARP and neighbour-discovery frames, forwarded at once (`frame.rs`).
    pub control_frames: u64,
    /// What waits in the queue now, and the most that ever waited (IP bytes
    /// and packets, not counting the packet in transmission).
    pub queue_bytes: u64,
    pub queue_packets: u64,
    pub max_queue_bytes: u64,
    pub max_queue_packets: u64,
    /// Delivery time minus model arrival time, per delivered packet.
    pub lateness: Lateness,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lateness {
    pub count: u64,
    pub sum_ns: u64,
    pub max_ns: u64,
    /// Counts per bucket of `LATENESS_BOUNDS_US`, plus one for the rest.
    pub buckets: [u64; LATENESS_BOUNDS_US.len() + 1],
}

impl Lateness {
    pub fn mean_ns(&self) -> f64 {
        if self.count == 0 { 0.0 } else { self.sum_ns as f64 / self.count as f64 }
    }

    /// Fraction of deliveries at most `bound_us` late (`bound_us` one of `LATENESS_BOUNDS_US`).
    pub fn fraction_within(&self, bound_us: u64) -> f64 {
        let k = LATENESS_BOUNDS_US.iter().position(|&b| b == bound_us).expect("a bucket bound") + 1;
        self.buckets[..k].iter().sum::<u64>() as f64 / self.count.max(1) as f64
    }
}

/// The live counters behind `DirectionStats`, written by one forwarder.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    packets: AtomicU64,
    bytes: AtomicU64,
    drops_queue: AtomicU64,
    drops_loss: AtomicU64,
    drops_down: AtomicU64,
    drops_oversize: AtomicU64,
    drops_egress: AtomicU64,
    control_frames: AtomicU64,
    queue_bytes: AtomicU64,
    queue_packets: AtomicU64,
    max_queue_bytes: AtomicU64,
    max_queue_packets: AtomicU64,
    late_sum_ns: AtomicU64,
    late_max_ns: AtomicU64,
    late_buckets: [AtomicU64; LATENESS_BOUNDS_US.len() + 1],
}

impl Counters {
    pub fn dropped(&self, why: DropCause) {
        let c = match why {
            DropCause::Queue => &self.drops_queue,
            DropCause::Loss => &self.drops_loss,
            DropCause::Down => &self.drops_down,
        };
        c.fetch_add(1, Relaxed);
    }

    pub fn oversize(&self) {
        self.drops_oversize.fetch_add(1, Relaxed);
    }

    pub fn egress_refused(&self) {
        self.drops_egress.fetch_add(1, Relaxed);
    }

    pub fn control(&self) {
        self.control_frames.fetch_add(1, Relaxed);
    }

    /// The queue now holds `bytes` in `packets`.
    pub fn queue_level(&self, (bytes, packets): (u64, u64)) {
        self.queue_bytes.store(bytes, Relaxed);
        self.queue_packets.store(packets, Relaxed);
        self.max_queue_bytes.fetch_max(bytes, Relaxed);
        self.max_queue_packets.fetch_max(packets, Relaxed);
    }

    pub fn delivered(&self, ip_bytes: u32, late_ns: u64) {
        self.packets.fetch_add(1, Relaxed);
        self.bytes.fetch_add(ip_bytes as u64, Relaxed);
        self.late_sum_ns.fetch_add(late_ns, Relaxed);
        self.late_max_ns.fetch_max(late_ns, Relaxed);
        let k = LATENESS_BOUNDS_US.partition_point(|&b| b * 1000 < late_ns);
        self.late_buckets[k].fetch_add(1, Relaxed);
    }

    pub fn snapshot(&self, name: &str) -> DirectionStats {
        let packets = self.packets.load(Relaxed);
        DirectionStats {
            name: name.to_string(),
            packets,
            bytes: self.bytes.load(Relaxed),
            drops_queue: self.drops_queue.load(Relaxed),
            drops_loss: self.drops_loss.load(Relaxed),
            drops_down: self.drops_down.load(Relaxed),
            drops_oversize: self.drops_oversize.load(Relaxed),
            drops_egress: self.drops_egress.load(Relaxed),
            control_frames: self.control_frames.load(Relaxed),
            queue_bytes: self.queue_bytes.load(Relaxed),
            queue_packets: self.queue_packets.load(Relaxed),
            max_queue_bytes: self.max_queue_bytes.load(Relaxed),
            max_queue_packets: self.max_queue_packets.load(Relaxed),
            lateness: Lateness {
                count: packets,
                sum_ns: self.late_sum_ns.load(Relaxed),
                max_ns: self.late_max_ns.load(Relaxed),
                buckets: std::array::from_fn(|k| self.late_buckets[k].load(Relaxed)),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lateness_buckets() {
        let c = Counters::default();
        for late_us in [0, 10, 11, 99, 2000] {
            c.delivered(100, late_us * 1000);
        }
        let s = c.snapshot("l:a>b");
        assert_eq!((s.packets, s.bytes), (5, 500));
        assert_eq!(s.lateness.buckets, [2, 1, 1, 0, 0, 0, 1]);
        assert_eq!(s.lateness.max_ns, 2_000_000);
        assert!((s.lateness.fraction_within(100) - 0.8).abs() < 1e-12);
    }
}
