//! The connection-level receive side (RFC 8684 §3.3): a bounded buffer
//! shared by the subflows, reassembly by data sequence number, in-order
//! delivery to the application, and the receive window it advertises.
//!
//! The application reads in-order data at once, so the window is the
//! buffer minus the out-of-order bytes held, counted from the Data ACK
//! (§3.3.4). A chunk that arrives twice (reinjection, the redundant
//! scheduler) is discarded the second time. Each chunk's out-of-order delay
//! — how long it waited in the buffer for the data before it — is recorded.

use std::collections::BTreeMap;

use crate::time::Time;

pub struct Reassembly {
    buffer: u64,
    /// The next DSN expected: the Data ACK.
    rcv_nxt: u64,
    /// Out-of-order chunks: start → (end, arrival time).
    ooo: BTreeMap<u64, (u64, Time)>,
    ooo_bytes: u64,
    /// Bytes that arrived again after being received (discarded).
    pub duplicate_bytes: u64,
    pub delay: DelayStats,
}

/// Out-of-order delays of the chunks delivered (zero for those that arrived in order).
#[derive(Default)]
pub struct DelayStats {
    chunks: u64,
    sum_ns: u128,
    /// The non-zero delays, nanoseconds.
    waited: Vec<u64>,
}

impl DelayStats {
    fn add(&mut self, d: Time) {
        self.chunks += 1;
        self.sum_ns += d.nanos() as u128;
        if d > Time::ZERO {
            self.waited.push(d.nanos());
        }
    }

    pub fn mean(&self) -> Option<Time> {
        (self.chunks > 0).then(|| Time((self.sum_ns / self.chunks as u128) as u64))
    }

    /// The nearest-rank p-quantile (0 < p ≤ 1) over all delivered chunks.
    pub fn quantile(&self, p: f64) -> Option<Time> {
        if self.chunks == 0 {
            return None;
        }
        let rank = ((p * self.chunks as f64).ceil() as u64).clamp(1, self.chunks);
        let zeros = self.chunks - self.waited.len() as u64;
        if rank <= zeros {
            return Some(Time::ZERO);
        }
        let mut w = self.waited.clone();
        let k = (rank - zeros - 1) as usize;
        Some(Time(*w.select_nth_unstable(k).1))
    }
}

impl Reassembly {
    pub fn new(buffer: u64) -> Reassembly {
        Reassembly { buffer, rcv_nxt: 0, ooo: BTreeMap::new(), ooo_bytes: 0, duplicate_bytes: 0, delay: DelayStats::default() }
    }

    /// In-order bytes delivered to the application (the Data ACK).
    pub fn delivered(&self) -> u64 {
        self.rcv_nxt
    }

    /// Bytes held above a hole.
    pub fn ooo_bytes(&self) -> u64 {
        self.ooo_bytes
    }

    /// A new connection-level buffer: the window advertised from the next Data ACK on.
    pub fn set_buffer(&mut self, bytes: u64) {
        self.buffer = bytes;
    }

    /// The receive window advertised from the Data ACK.
    pub fn window(&self) -> u64 {
        self.buffer.saturating_sub(self.ooo_bytes)
    }

    /// A subflow delivers chunk [dsn, dsn + len) in its own order.
    pub fn insert(&mut self, dsn: u64, len: u32, now: Time) {
        let end = dsn + len as u64;
        if end <= self.rcv_nxt {
            self.duplicate_bytes += len as u64;
            return;
        }
        if dsn > self.rcv_nxt {
            self.hold(dsn, end, now);
            return;
        }
        self.duplicate_bytes += self.rcv_nxt - dsn;
        self.rcv_nxt = end;
        self.delay.add(Time::ZERO);
        while let Some((&start, &(end, arrived))) = self.ooo.first_key_value() {
            if start > self.rcv_nxt {
                break;
            }
            self.ooo.pop_first();
            self.ooo_bytes -= end - start;
            if end > self.rcv_nxt {
                self.duplicate_bytes += self.rcv_nxt - start;
                self.rcv_nxt = end;
                self.delay.add(now - arrived);
            } else {
                self.duplicate_bytes += end - start;
            }
        }
    }

    /// Holds the bytes of [dsn, end) not held yet. Subflows with different
    /// MSS carry a reinjected chunk in different pieces, so a range may
    /// overlap several held ones; the held ranges stay disjoint.
    fn hold(&mut self, dsn: u64, end: u64, now: Time) {
        let before = self.ooo.range(..=dsn).next_back().map(|(&s, &(e, _))| (s, e));
        let after = self.ooo.range(dsn..).next().map(|(&s, _)| s);
        // The usual case, without overlap: held as it is.
        if before.is_none_or(|(_, e)| e <= dsn) && after.is_none_or(|s| s >= end) {
            self.ooo.insert(dsn, (end, now));
            self.ooo_bytes += end - dsn;
            return;
        }
        let mut cursor = dsn;
        let mut gaps = Vec::new();
        let first = before.map_or(dsn, |(s, _)| s);
        for (&s, &(e, _)) in self.ooo.range(first..end) {
            if s > cursor {
                gaps.push((cursor, s));
            }
            cursor = cursor.max(e);
            if cursor >= end {
                break;
            }
        }
        if cursor < end {
            gaps.push((cursor, end));
        }
        let new: u64 = gaps.iter().map(|(s, e)| e - s).sum();
        self.duplicate_bytes += (end - dsn) - new;
        self.ooo_bytes += new;
        for (s, e) in gaps {
            self.ooo.insert(s, (e, now));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reassembles_by_dsn_and_measures_the_wait() {
        let mut r = Reassembly::new(10_000);
        r.insert(1000, 1000, Time::from_millis(1));
        r.insert(2000, 1000, Time::from_millis(2));
        assert_eq!((r.delivered(), r.window()), (0, 8000));
        r.insert(2000, 1000, Time::from_millis(3));
        assert_eq!(r.duplicate_bytes, 1000);
        r.insert(0, 1000, Time::from_millis(11));
        assert_eq!((r.delivered(), r.window()), (3000, 10_000));
        r.insert(0, 1000, Time::from_millis(12));
        assert_eq!(r.duplicate_bytes, 2000);
        // Waits: 0 (in order), 10 ms and 9 ms.
        assert_eq!(r.delay.mean(), Some(Time(19_000_000 / 3)));
        assert_eq!(r.delay.quantile(0.95), Some(Time::from_millis(10)));
        assert_eq!(r.delay.quantile(0.3), Some(Time::ZERO));
        assert_eq!(r.delay.quantile(0.5), Some(Time::from_millis(9)));
    }

    #[test]
    fn pieces_of_a_chunk_overlap_without_counting_twice() {
        let mut r = Reassembly::new(10_000);
        // A 1448-byte chunk at 1000, and the same bytes again as 1388 + 60.
        r.insert(1000, 1448, Time::ZERO);
        r.insert(1000, 1388, Time::ZERO);
        r.insert(2388, 60, Time::ZERO);
        assert_eq!((r.ooo_bytes(), r.duplicate_bytes), (1448, 1448));
        // A piece reaching past a held range holds only its new bytes.
        r.insert(2000, 1000, Time::ZERO);
        assert_eq!((r.ooo_bytes(), r.duplicate_bytes), (2000, 1448 + 448));
        r.insert(0, 1000, Time::ZERO);
        assert_eq!((r.delivered(), r.ooo_bytes()), (3000, 0));
    }
}
