//! LIA, the Linked Increases Algorithm (Raiciu, Handley, Wischik, RFC 6356).
//!
//! In congestion avoidance each ACK on subflow i grows its window by
//! (§4, byte-counting form)
//!
//!   min(α · bytes_acked · MSS_i / cwnd_total, bytes_acked · MSS_i / cwnd_i)
//!
//! with α = cwnd_total · max_i(cwnd_i / rtt_i²) / (Σ_i cwnd_i / rtt_i)²
//! over the established subflows. The first term makes the connection as
//! aggressive as one TCP on its best path (goal 2, "do no harm"), the second
//! caps each subflow at what a TCP would take on its path (goal 1, "improve
//! throughput"); moving traffic by window size balances congestion (goal 3).
//! Slow start and the loss response are Reno's (§3).

use super::{reno_decrease, slow_start, snapshot, Credit, PathState, Shared};
use crate::cc::{AckInfo, CcState, Congestion, CongestionControl};

pub struct Lia {
    shared: Shared,
    me: usize,
    credit: Credit,
}

impl Lia {
    pub fn new(shared: Shared, me: usize) -> Lia {
        Lia { shared, me, credit: Credit::default() }
    }
}

/// RFC 6356 §4: α = cwnd_total · max_i(cwnd_i / rtt_i²) / (Σ_i cwnd_i / rtt_i)².
pub fn alpha(paths: &[PathState]) -> f64 {
    let total: f64 = paths.iter().map(|p| p.cwnd as f64).sum();
    let best = paths.iter().map(|p| p.cwnd as f64 / (p.rtt() * p.rtt())).fold(0.0, f64::max);
    let sum: f64 = paths.iter().map(|p| p.cwnd as f64 / p.rtt()).sum();
    total * best / (sum * sum)
}

/// The increase, bytes, for `acked` bytes acknowledged on path `me` of `paths`.
pub fn increase(paths: &[PathState], me: usize, acked: u64) -> f64 {
    let own = &paths[me];
    let (a, mss) = (acked as f64, own.mss as f64);
    let total: f64 = paths.iter().map(|p| p.cwnd as f64).sum();
    (alpha(paths) * a * mss / total).min(a * mss / own.cwnd as f64)
}

impl CongestionControl for Lia {
    fn on_ack(&mut self, s: &mut CcState, ack: &AckInfo) {
        // Linux's cong_avoid hooks return unless tcp_is_cwnd_limited (`AckInfo::window_unused`).
        if ack.in_recovery || ack.window_unused {
            return;
        }
        let acked = slow_start(s, ack.acked);
        if acked == 0 || s.cwnd < s.ssthresh {
            return;
        }
        let (paths, pos) = snapshot(&self.shared, self.me, s, ack.srtt);
        let inc = match pos {
            Some(me) => increase(&paths, me, acked),
            // Not yet part of the coupling (no RTT sample): Reno's increase.
            None => acked as f64 * s.mss as f64 / s.cwnd as f64,
        };
        self.credit.add(s, inc);
    }

    fn on_congestion(&mut self, s: &mut CcState, ev: Congestion, in_flight: u64) {
        reno_decrease(s, ev, in_flight);
        self.credit.reset();
    }

    fn on_recovery_exit(&mut self, s: &mut CcState) {
        s.cwnd = s.ssthresh;
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{state, table};
    use super::*;
    use crate::time::Time;

    #[test]
    fn alpha_and_increase_follow_rfc6356() {
        // Two equal paths: α = 2w·(w/r²) / (2w/r)² = 1/2, and the increase is
        // α·acked·mss/(2w) = acked·mss/(4w), a quarter of one TCP's.
        let t = table(&[(10_000, 100), (10_000, 100)]);
        let paths = t.borrow().clone();
        assert!((alpha(&paths) - 0.5).abs() < 1e-12);
        assert!((increase(&paths, 0, 1000) - 1000.0 * 1000.0 / 40_000.0).abs() < 1e-9);
        // One path: α = 1 and LIA is Reno.
        let one = table(&[(10_000, 50)]).borrow().clone();
        assert!((alpha(&one) - 1.0).abs() < 1e-12);
        assert!((increase(&one, 0, 1000) - 100.0).abs() < 1e-9);
        // Unequal paths (10 kB over 100 ms, 20 kB over 10 ms): α from the definition.
        let t = table(&[(10_000, 100), (20_000, 10)]);
        let paths = t.borrow().clone();
        let (r1, r2): (f64, f64) = (0.1, 0.01);
        let want = 30_000.0 * (20_000.0 / (r2 * r2)) / (10_000.0 / r1 + 20_000.0 / r2).powi(2);
        assert!((alpha(&paths) - want).abs() < 1e-12);
        // The cap: the increase never exceeds what a TCP on that path would take.
        assert!(increase(&paths, 1, 1000) <= 1000.0 * 1000.0 / 20_000.0 + 1e-9);
    }

    #[test]
    fn grows_a_segment_at_a_time_and_halves_on_loss() {
        let t = table(&[(10_000, 100), (10_000, 100)]);
        let mut cc = Lia::new(t, 0);
        let mut s = state(10_000);
        let ack = AckInfo { acked: 1000, srtt: Some(Time::from_millis(100)), ..AckInfo::default() };
        // acked·mss/(4w) = 25 bytes per ACK: 40 ACKs for one segment.
        for _ in 0..39 {
            cc.on_ack(&mut s, &ack);
        }
        assert_eq!(s.cwnd, 10_000);
        cc.on_ack(&mut s, &ack);
        assert_eq!(s.cwnd, 11_000);
        cc.on_congestion(&mut s, Congestion::FastRetransmit, 11_000);
        assert_eq!((s.ssthresh, s.cwnd), (5_500, 5_500));
    }
}
