//! Opportunistic retransmission and penalisation, for a connection whose
//! receive window is exhausted (Raiciu, Paasch, Barré, Ford, Honda,
//! Duchêne, Bonaventure, Handley, "How hard can it be? Designing and
//! implementing a deployable Multipath TCP", NSDI 2012, §4.2; Linux
//! `mptcp_rcv_buf_optimization` with `penal = 1`). The chunk at the head of
//! the window is holding everything up; with `sk` the subflow the scheduler
//! would send on:
//!
//! - penalise: halve the window of the (first) subflow that carried the
//!   head, if it is slower than `sk` and not already recovering — at most
//!   once per srtt of `sk`;
//! - retransmit: send the head again on `sk` if `sk` has not carried it and
//!   the subflows that did are much slower (srtt above 4× that of `sk`) or
//!   have tiny windows (at most 4 segments).

use super::{ConnectionView, Step, SubflowView};
use crate::time::Time;

#[derive(Default)]
pub struct Penalisation {
    /// Per subflow id: when it last caused a penalisation.
    last: Vec<Option<Time>>,
}

impl Penalisation {
    pub fn step(&mut self, subflows: &[SubflowView], conn: &ConnectionView, sk: usize) -> Step {
        let (Some(head), Some(me)) = (conn.unacked.front(), subflows.iter().find(|s| s.id == sk)) else {
            return Step::Wait;
        };
        if self.last.len() <= sk {
            self.last.resize(sk + 1, None);
        }
        let carriers = || subflows.iter().filter(|s| s.id != sk && head.sent_on & s.bit != 0);
        if self.last[sk].is_none_or(|t| conn.now.saturating_sub(t) >= me.rtt()) {
            if let Some(slow) = carriers().next() {
                if me.rtt() < slow.rtt() && slow.open_state {
                    self.last[sk] = Some(conn.now);
                    return Step::Penalise { subflow: slow.id };
                }
            }
        }
        if head.sent_on & me.bit != 0 || !me.available() {
            return Step::Wait;
        }
        let mut retransmit = false;
        for it in carriers() {
            if it.cwnd <= 4 * it.mss {
                retransmit = true;
                break;
            }
            if Time(me.rtt().nanos().saturating_mul(4)) >= it.rtt() {
                retransmit = false;
                break;
            }
            retransmit = true;
        }
        if retransmit {
            Step::Send { subflow: sk, chunk: *head }
        } else {
            Step::Wait
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{conn, sf};
    use super::super::Chunk;
    use super::*;
    use std::collections::VecDeque;

    #[test]
    fn penalises_once_per_rtt_then_retransmits_the_head_on_the_fast_subflow() {
        let s = vec![sf(0, 10, 10), sf(1, 100, 20)];
        let unacked: VecDeque<Chunk> = [Chunk { dsn: 0, len: 1000, sent_on: 2 }].into();
        let c = conn(&unacked, Some(1000), true);
        let mut rp = Penalisation::default();
        assert_eq!(rp.step(&s, &c, 0), Step::Penalise { subflow: 1 });
        // Penalised this RTT already; the head is on a subflow 10× slower: retransmit it.
        assert_eq!(rp.step(&s, &c, 0), Step::Send { subflow: 0, chunk: unacked[0] });
        // Carrier only 3× slower with a large window: no retransmission.
        let s = vec![sf(0, 10, 10), sf(1, 30, 20)];
        assert_eq!(rp.step(&s, &c, 0), Step::Wait);
    }
}
