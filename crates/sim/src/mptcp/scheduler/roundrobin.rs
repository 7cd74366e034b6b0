//! Round-robin (Linux `mptcp_rr.c` with its defaults: one segment per turn,
//! `cwnd_limited`): new chunks go to the subflows in turn, skipping those
//! that cannot send now; RTTs and backup flags play no part. A chunk being
//! reinjected goes to an available subflow that has not carried it, if any.

use super::{next_segment, ConnectionView, Scheduler, Step, SubflowView};

#[derive(Default)]
pub struct RoundRobin {
    /// Position (among the subflows shown) whose turn is next.
    next: usize,
}

impl Scheduler for RoundRobin {
    fn next(&mut self, subflows: &[SubflowView], conn: &ConnectionView) -> Step {
        let next = &mut self.next;
        next_segment(subflows, conn, |sf, chunk| {
            if chunk.sent_on != 0 {
                let mut available = sf.iter().filter(|s| s.available());
                let unused = available.clone().find(|s| chunk.sent_on & s.bit == 0);
                return unused.or_else(|| available.next()).map(|s| s.id);
            }
            let n = sf.len();
            let pos = (0..n).map(|k| (*next + k) % n).find(|&i| sf[i].available())?;
            *next = pos + 1;
            Some(sf[pos].id)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{conn, sf};
    use super::*;
    use std::collections::VecDeque;

    #[test]
    fn takes_turns_among_subflows_with_room() {
        let mut s = vec![sf(0, 10, 10), sf(1, 100, 10), sf(2, 50, 10)];
        let unacked = VecDeque::new();
        let c = conn(&unacked, Some(0), false);
        let mut rr = RoundRobin::default();
        let mut order = Vec::new();
        for _ in 0..4 {
            if let Step::Send { subflow, .. } = rr.next(&s, &c) {
                order.push(subflow);
            }
        }
        assert_eq!(order, [0, 1, 2, 0]);
        s[1].in_flight = 10_000;
        let picks: Vec<Step> = (0..2).map(|_| rr.next(&s, &c)).collect();
        assert!(matches!(picks[..], [Step::Send { subflow: 2, .. }, Step::Send { subflow: 0, .. }]), "{picks:?}");
    }
}
