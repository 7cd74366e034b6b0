//! Fair queueing between an INRPP interface's two cache partitions (the
//! `fair_queue` option; off by default): the cached INRPP traffic and the
//! TCP partition (§V-A) share the link by deficit round robin (Shreedhar and
//! Varghese, "Efficient Fair Queuing Using Deficit Round Robin", SIGCOMM
//! 1995), in the variant of RFC 8290 §4.2 that needs no look at the head
//! packet's size: a class whose deficit is not positive is given one quantum
//! more and the turn passes; otherwise it sends one packet and its deficit
//! falls by the packet's size (it may go negative). The paper's §V-A
//! attributes TCP's extra RTT in the mixed scenario to "the queue management
//! overhead of the cache system"; this is the queue management that keeps
//! TCP's delay to its own partition's backlog at its share of the link.

/// The two classes, in the order of their turns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    Inrpp = 0,
    Tcp = 1,
}

/// RFC 8290 §4's default quantum: one MTU-sized packet (1500 bytes here, 1514 on Ethernet).
pub const QUANTUM: i64 = 1500;

#[derive(Debug, Default)]
pub struct Drr {
    deficit: [i64; 2],
    /// Index of the class whose turn it is.
    turn: usize,
}

impl Drr {
    /// The packet to send next under DRR. `take(class)` hands over that
    /// class's next packet's size if it has one ready (and removes the
    /// packet); a class with none loses any positive deficit (a class may
    /// not bank credit while it has nothing to send, as in Shreedhar–Varghese)
    /// and the turn passes. `None`: neither class has a packet.
    pub fn next(&mut self, mut take: impl FnMut(Class) -> Option<u32>) -> Option<Class> {
        let mut idle = [false; 2];
        // Each visit either sends, grants a quantum (at most ⌈max size / QUANTUM⌉ + 1 per class), or finds a class idle.
        while !(idle[0] && idle[1]) {
            let c = self.turn;
            let class = if c == 0 { Class::Inrpp } else { Class::Tcp };
            if self.deficit[c] <= 0 {
                self.deficit[c] += QUANTUM;
                self.turn ^= 1;
                continue;
            }
            match take(class) {
                Some(size) => {
                    self.deficit[c] -= size as i64;
                    return Some(class);
                }
                None => {
                    idle[c] = true;
                    self.deficit[c] = self.deficit[c].min(0);
                    self.turn ^= 1;
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two backlogged classes with `sizes` packets each: the bytes each sends in the first `n` packets.
    fn share(sizes: [u32; 2], n: usize) -> [u64; 2] {
        let mut drr = Drr::default();
        let mut sent = [0u64; 2];
        for _ in 0..n {
            let c = drr.next(|c| Some(sizes[c as usize])).expect("both backlogged");
            sent[c as usize] += sizes[c as usize] as u64;
        }
        sent
    }

    #[test]
    fn equal_bytes_for_backlogged_classes_whatever_their_packet_sizes() {
        let [a, b] = share([1500, 1500], 100);
        assert_eq!((a, b), (75_000, 75_000));
        // 1500-byte INRPP packets against 300-byte TCP ones: bytes, not packets, are shared.
        let [a, b] = share([1500, 300], 600);
        let ratio = a as f64 / b as f64;
        assert!((0.95..1.05).contains(&ratio), "INRPP {a} bytes, TCP {b} bytes");
    }

    #[test]
    fn work_conserving_and_no_banked_credit() {
        let mut drr = Drr::default();
        // Only TCP has packets: it sends every time.
        for _ in 0..5 {
            assert_eq!(drr.next(|c| (c == Class::Tcp).then_some(1500)), Some(Class::Tcp));
        }
        assert_eq!(drr.next(|_| None), None);
        // INRPP idle all along has no credit saved: with both backlogged they alternate.
        let order: Vec<Class> = (0..4).filter_map(|_| drr.next(|_| Some(1500))).collect();
        assert_eq!(order.iter().filter(|&&c| c == Class::Inrpp).count(), 2, "{order:?}");
    }
}
