//! How fast a link direction can send, possibly varying over time.
//!
//! Three models: a constant rate; a piecewise-constant schedule; and a
//! Mahimahi packet-delivery trace (Netravali et al., USENIX ATC 2015): each
//! line is a millisecond at which 1500 bytes may leave; the trace loops with
//! a period equal to its last timestamp. As in Mahimahi's link queue, one
//! opportunity can carry several small packets (its unused bytes stay
//! available at that instant) and a large packet may span opportunities;
//! bytes an opportunity could not use are lost, never banked.
//!
//! A fourth, `Cell`, marks a direction a cell's scheduler serves
//! (`net::cell`): the world moves its packets TTI by TTI, and the capacity
//! only counts the bits the cell granted it.

use crate::time::Time;

/// Bytes one Mahimahi delivery opportunity carries.
pub const MAHIMAHI_MTU: u32 = 1500;

#[derive(Debug, Clone)]
pub enum Capacity {
    Constant { bps: f64 },
    /// (start time, rate) steps, sorted, the first at time zero; the last rate holds forever.
    Schedule { steps: Vec<(Time, f64)> },
    Mahimahi(MahimahiLink),
    Cell(CellShare),
}

/// A direction served by a cell: its candidate cells and what it was granted.
#[derive(Debug, Clone)]
pub struct CellShare {
    /// The cells it may attach to, by name (as the scenario gives them).
    pub cells: Vec<String>,
    /// Bits of the blocks the cells granted it so far.
    pub granted_bits: f64,
    /// Its rate alone at time zero, bit/s (set when the scenario is resolved).
    pub nominal_bps: f64,
}

#[derive(Debug, Clone)]
pub struct MahimahiLink {
    /// Opportunity times within one period, milliseconds, sorted.
    opportunities_ms: Vec<u64>,
    period_ms: u64,
    /// Where in the trace the run starts.
    offset: Time,
    /// Index (over the looped trace) of the next unused opportunity.
    next: u64,
    /// Bytes still usable at `leftover_at`.
    leftover: u32,
    leftover_at: Time,
}

impl MahimahiLink {
    /// `opportunities_ms` must be sorted with a positive last value (checked at load).
    pub fn new(opportunities_ms: Vec<u64>, offset: Time) -> MahimahiLink {
        let period_ms = *opportunities_ms.last().expect("non-empty trace");
        let mut m = MahimahiLink { opportunities_ms, period_ms, offset, next: 0, leftover: 0, leftover_at: Time::ZERO };
        m.next = m.first_at_or_after(Time::ZERO);
        m
    }

    fn n(&self) -> u64 {
        self.opportunities_ms.len() as u64
    }

    /// Simulation time of looped opportunity `k` (trace time minus offset).
    fn time_of(&self, k: u64) -> Time {
        let ms = (k / self.n()) * self.period_ms + self.opportunities_ms[(k % self.n()) as usize];
        Time::from_millis(ms).saturating_sub(self.offset)
    }

    /// Number of looped opportunities with trace time strictly below `trace_ns`
    /// (or at or below, with `inclusive`).
    fn count_before(&self, trace_ns: u64, inclusive: bool) -> u64 {
        let period_ns = self.period_ms * 1_000_000;
        let mut cycles = trace_ns / period_ns;
        let mut within = trace_ns - cycles * period_ns;
        if !inclusive && within == 0 && cycles > 0 {
            // At a period boundary, the previous cycle's opportunities stamped
            // with the period itself happen now: they are not before it.
            cycles -= 1;
            within = period_ns;
        }
        let idx = self.opportunities_ms.partition_point(|&ms| {
            let ns = ms * 1_000_000;
            if inclusive { ns <= within } else { ns < within }
        });
        cycles * self.n() + idx as u64
    }

    fn first_at_or_after(&self, t: Time) -> u64 {
        self.count_before(t.nanos() + self.offset.nanos(), false)
    }

    fn finish_time(&mut self, start: Time, bytes: u32) -> Time {
        let mut remaining = bytes;
        if self.leftover > 0 && self.leftover_at == start {
            let used = remaining.min(self.leftover);
            self.leftover -= used;
            remaining -= used;
            if remaining == 0 {
                return start;
            }
        }
        self.next = self.next.max(self.first_at_or_after(start));
        loop {
            let t = self.time_of(self.next);
            self.next += 1;
            let used = remaining.min(MAHIMAHI_MTU);
            remaining -= used;
            if remaining == 0 {
                self.leftover = MAHIMAHI_MTU - used;
                self.leftover_at = t;
                return t;
            }
        }
    }

    fn bits_until(&self, t: Time) -> f64 {
        let n = self.count_before(t.nanos() + self.offset.nanos(), true) - self.first_at_or_after(Time::ZERO);
        n as f64 * MAHIMAHI_MTU as f64 * 8.0
    }
}

impl Capacity {
    /// When the last bit of a `bytes`-byte packet leaves, if transmission
    /// starts at `start`; `Time::MAX` if the link never has capacity again.
    pub fn finish_time(&mut self, start: Time, bytes: u32) -> Time {
        match self {
            Capacity::Constant { bps } => start + Time::transmission(bytes as u64, *bps),
            Capacity::Schedule { steps } => schedule_finish(steps, start, bytes),
            Capacity::Mahimahi(m) => m.finish_time(start, bytes),
            // The world serves cell directions TTI by TTI; a plane without
            // cells (the lab refuses them) would send at the nominal rate.
            Capacity::Cell(c) => start + Time::transmission(bytes as u64, c.nominal_bps.max(1.0)),
        }
    }

    /// Bits the link could have carried in [0, t]: the denominator of
    /// utilisation (for a cell direction: the bits granted to it so far).
    pub fn bits_until(&self, t: Time) -> f64 {
        match self {
            Capacity::Constant { bps } => bps * t.secs(),
            Capacity::Schedule { steps } => {
                let mut bits = 0.0;
                for (i, &(s, rate)) in steps.iter().enumerate() {
                    if s >= t {
                        break;
                    }
                    let end = steps.get(i + 1).map_or(t, |n| n.0.min(t));
                    bits += rate * (end - s).secs();
                }
                bits
            }
            Capacity::Mahimahi(m) => m.bits_until(t),
            Capacity::Cell(c) => c.granted_bits,
        }
    }

    /// The rate at time `t`, bit/s: a schedule's current step; for a
    /// Mahimahi trace, which has no instantaneous rate, its mean over one period.
    pub fn rate_at(&self, t: Time) -> f64 {
        match self {
            Capacity::Constant { bps } => *bps,
            Capacity::Schedule { steps } => steps[steps.partition_point(|s| s.0 <= t).saturating_sub(1)].1,
            Capacity::Mahimahi(m) => {
                m.opportunities_ms.len() as f64 * MAHIMAHI_MTU as f64 * 8.0 / (m.period_ms as f64 / 1e3)
            }
            Capacity::Cell(c) => c.nominal_bps,
        }
    }
}

fn schedule_finish(steps: &[(Time, f64)], start: Time, bytes: u32) -> Time {
    let mut bits = bytes as f64 * 8.0;
    let mut t = start;
    let mut i = steps.partition_point(|s| s.0 <= start).saturating_sub(1);
    loop {
        let rate = steps[i].1;
        let end = steps.get(i + 1).map(|s| s.0);
        if rate > 0.0 {
            let need = Time((bits * 1e9 / rate).ceil() as u64);
            match end {
                Some(e) if t + need > e => bits -= rate * (e - t).secs(),
                _ => return t + need,
            }
        }
        match end {
            Some(e) => {
                t = e;
                i += 1;
            }
            None => return Time::MAX,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constant_rate() {
        let mut c = Capacity::Constant { bps: 8e6 };
        assert_eq!(c.finish_time(Time::ZERO, 1000), Time::from_millis(1));
    }

    #[test]
    fn schedule_spans_steps_and_outages() {
        // 8 Mb/s for 0.5 ms, then nothing until 1 ms, then 8 Mb/s.
        let mut c = Capacity::Schedule {
            steps: vec![(Time::ZERO, 8e6), (Time::from_micros(500), 0.0), (Time::from_millis(1), 8e6)],
        };
        // 1000 bytes need 1 ms at 8 Mb/s: 0.5 ms before the outage, 0.5 ms after it.
        assert_eq!(c.finish_time(Time::ZERO, 1000), Time::from_micros(1500));
        assert!((c.bits_until(Time::from_millis(2)) - 8e6 * 0.0015).abs() < 1e-6);
        assert_eq!(c.rate_at(Time::from_micros(499)), 8e6);
        assert_eq!(c.rate_at(Time::from_micros(500)), 0.0);
        assert_eq!(c.rate_at(Time::from_secs(9)), 8e6);
    }

    #[test]
    fn mahimahi_period_boundary_keeps_its_opportunities() {
        // Two opportunities a millisecond (24 Mb/s): a saturated link uses both each time.
        let mut m = Capacity::Mahimahi(MahimahiLink::new(vec![1, 1], Time::ZERO));
        let mut t = Time::ZERO;
        let mut finishes = Vec::new();
        for _ in 0..6 {
            t = m.finish_time(t, 1500);
            finishes.push(t.nanos() / 1_000_000);
        }
        assert_eq!(finishes, vec![1, 1, 2, 2, 3, 3]);
    }

    #[test]
    fn mahimahi_opportunities_loop_and_share() {
        let mut m = Capacity::Mahimahi(MahimahiLink::new(vec![1, 1, 3], Time::ZERO));
        // Two opportunities at 1 ms: a 1500 B packet uses one, two 700 B packets share the next.
        assert_eq!(m.finish_time(Time::ZERO, 1500), Time::from_millis(1));
        assert_eq!(m.finish_time(Time::from_millis(1), 700), Time::from_millis(1));
        assert_eq!(m.finish_time(Time::from_millis(1), 700), Time::from_millis(1));
        // Leftover 100 B at 1 ms is not enough for 1500 B: 100 B there, 1400 B at 3 ms.
        assert_eq!(m.finish_time(Time::from_millis(1), 1500), Time::from_millis(3));
        // Loops with period 3 ms: next opportunities at 4, 4, 6 ms.
        assert_eq!(m.finish_time(Time::from_millis(3), 1500), Time::from_millis(4));
        // Idle until 5 ms: the 4 ms opportunities are wasted.
        assert_eq!(m.finish_time(Time::from_millis(5), 1500), Time::from_millis(6));
        // Capacity over [0, 6 ms]: opportunities at 1,1,3,4,4,6.
        assert_eq!(m.bits_until(Time::from_millis(6)), 6.0 * 12000.0);
        // Three 1500-byte opportunities every 3 ms.
        assert_eq!(m.rate_at(Time::ZERO), 12e6);
    }
}
