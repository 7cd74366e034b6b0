//! Who gets a cell's TTI: one UE per TTI and direction, chosen among the
//! attached UEs that have data and a usable channel.
//!
//! - Round robin: the UEs in turn, in a fixed order (the cell's list of UE
//!   interfaces), skipping those with nothing to send.
//! - Proportional fair (Kelly 1997; the HDR scheduler of Jalali, Padovani
//!   and Pankaj 2000): the UE with the largest r_i / R_i, r_i its block this
//!   TTI and R_i its mean served block, an exponential average over
//!   `window` TTIs updated on every TTI the UE competes in. Ties go to the
//!   earlier UE in the list.

/// Scheduler names a scenario may use.
pub const NAMES: [&str; 2] = ["round_robin", "proportional_fair"];

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    RoundRobin,
    ProportionalFair { window: f64 },
}

/// A UE that could be served this TTI: its place in the cell's list and its block, bits.
#[derive(Debug, Clone, Copy)]
pub struct Candidate {
    pub slot: usize,
    pub bits: u64,
}

#[derive(Debug, Clone)]
pub struct Scheduler {
    kind: Kind,
    /// Round robin: the slot to start looking from.
    next: usize,
    /// Proportional fair: R_i per slot, bits per TTI.
    mean: Vec<f64>,
}

impl Scheduler {
    pub fn new(kind: Kind, slots: usize) -> Scheduler {
        Scheduler { kind, next: 0, mean: vec![0.0; slots] }
    }

    /// The candidate served this TTI (`candidates` in slot order, non-empty).
    pub fn pick(&mut self, candidates: &[Candidate]) -> Candidate {
        match self.kind {
            Kind::RoundRobin => {
                let c = *candidates.iter().find(|c| c.slot >= self.next).unwrap_or(&candidates[0]);
                self.next = c.slot + 1;
                c
            }
            Kind::ProportionalFair { window } => {
                let metric = |c: &Candidate| {
                    let m = self.mean[c.slot];
                    if m > 0.0 { c.bits as f64 / m } else { f64::INFINITY }
                };
                let mut best = candidates[0];
                for c in &candidates[1..] {
                    if metric(c) > metric(&best) {
                        best = *c;
                    }
                }
                for c in candidates {
                    let served = if c.slot == best.slot { c.bits as f64 } else { 0.0 };
                    self.mean[c.slot] += (served - self.mean[c.slot]) / window;
                }
                best
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(slot: usize, bits: u64) -> Candidate {
        Candidate { slot, bits }
    }

    #[test]
    fn round_robin_takes_turns_and_skips_the_idle() {
        let mut s = Scheduler::new(Kind::RoundRobin, 3);
        let all = [c(0, 10), c(1, 10), c(2, 10)];
        let order: Vec<usize> = (0..6).map(|_| s.pick(&all).slot).collect();
        assert_eq!(order, vec![0, 1, 2, 0, 1, 2]);
        // Slot 1 has nothing to send: 0 and 2 alternate.
        let some = [c(0, 10), c(2, 10)];
        let order: Vec<usize> = (0..4).map(|_| s.pick(&some).slot).collect();
        assert_eq!(order, vec![0, 2, 0, 2]);
    }

    #[test]
    fn proportional_fair_shares_time_between_unequal_channels() {
        // A good channel (4x the bits) and a poor one: each gets about half the TTIs.
        let mut s = Scheduler::new(Kind::ProportionalFair { window: 100.0 }, 2);
        let all = [c(0, 4000), c(1, 1000)];
        let good = (0..10_000).filter(|_| s.pick(&all).slot == 0).count();
        assert!((4500..=5500).contains(&good), "{good}");
    }
}
