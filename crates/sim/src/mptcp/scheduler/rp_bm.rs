//! Lowest-RTT with retransmission-and-penalisation and buffer-bloat
//! mitigation (Paasch, Ferlin, Alay, Bonaventure, "Experimental evaluation
//! of Multipath TCP schedulers", CSWS 2014, §3.2; the S-MPTCP paper's
//! schedulers 2C "RP" and 2D "BM").
//!
//! - RP: when the receive window stops new data, opportunistic
//!   retransmission of the blocking chunk and penalisation of the slow
//!   subflow that holds it (`penalisation`).
//! - BM: MPT-BM (Ferlin, Dreibholz, Alay, "Tackling the challenge of
//!   bufferbloat in multi-path transport over heterogeneous wireless
//!   networks", IWQoS 2014): a subflow whose smoothed RTT grows past λ times
//!   its minimum RTT — a bloated buffer on its path — may only fill
//!   cwnd · λ · rtt_min / srtt of its window, which bounds the queueing delay
//!   it builds to about (λ − 1) · rtt_min. λ = 3.

use super::minrtt::lowest_rtt;
use super::penalisation::Penalisation;
use super::{next_segment, ConnectionView, Scheduler, Step, SubflowView};

/// MPT-BM's λ: the RTT inflation a subflow may build over its minimum.
pub const BM_LAMBDA: f64 = 3.0;

#[derive(Default)]
pub struct RpBm {
    rp: Penalisation,
}

/// The window a subflow may fill under buffer-bloat mitigation.
pub fn bm_window(s: &SubflowView) -> u64 {
    match (s.min_rtt, s.srtt) {
        (Some(min), Some(srtt)) if srtt > min => {
            let cap = s.cwnd as f64 * BM_LAMBDA * min.secs() / srtt.secs();
            (cap as u64).min(s.cwnd)
        }
        _ => s.cwnd,
    }
}

fn space(s: &SubflowView) -> bool {
    s.has_space_in(bm_window(s))
}

impl Scheduler for RpBm {
    fn next(&mut self, subflows: &[SubflowView], conn: &ConnectionView) -> Step {
        match conn.new_data {
            Some(new) if conn.reinject.is_none() && conn.window_limited => match lowest_rtt(subflows, &new, space) {
                Some(sk) => self.rp.step(subflows, conn, sk),
                None => Step::Wait,
            },
            _ => next_segment(subflows, conn, |sf, chunk| lowest_rtt(sf, chunk, space)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::sf;
    use super::*;
    use crate::time::Time;

    #[test]
    fn bloated_subflows_fill_less_of_their_window() {
        let mut s = sf(0, 10, 30);
        assert_eq!(bm_window(&s), 30_000);
        // srtt 3× the minimum: still the whole window; 6×: half of it.
        s.srtt = Some(Time::from_millis(30));
        assert_eq!(bm_window(&s), 30_000);
        s.srtt = Some(Time::from_millis(60));
        assert_eq!(bm_window(&s), 15_000);
    }
}
