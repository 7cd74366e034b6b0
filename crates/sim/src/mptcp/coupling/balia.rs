//! BALIA, the Balanced Linked Adaptation algorithm (Peng, Walid, Hwang,
//! Low, "Multipath TCP: analysis, design, and implementation", IEEE/ACM ToN
//! 24(1), 2016, §VI), as in Linux's `mptcp_balia.c`.
//!
//! With x_k = w_k / rtt_k the rate of path k and α_r = max_k x_k / x_r,
//! each ACK on path r in congestion avoidance grows its window by (packets,
//! per packet acknowledged)
//!
//!   (x_r / rtt_r) / (Σ_k x_k)² · ((1 + α_r) / 2) · ((4 + α_r) / 5)
//!
//! and a loss on path r shrinks it by (w_r / 2) · min(α_r, 1.5): a path much
//! slower than the best backs off more, which balances TCP-friendliness and
//! responsiveness between LIA and OLIA. In bytes with byte counting the
//! increase is bytes_acked · MSS · (x_r/rtt_r)/(Σ x_k)² · (1+α_r)(4+α_r)/10.
//! With one established path both reduce to Reno (α_r = 1). As everywhere
//! in this simulator the decrease applies to FlightSize (RFC 5681 eq. 4).

use super::{reno_decrease, slow_start, snapshot, Credit, PathState, Shared};
use crate::cc::{AckInfo, CcState, Congestion, CongestionControl};

pub struct Balia {
    shared: Shared,
    me: usize,
    credit: Credit,
}

impl Balia {
    pub fn new(shared: Shared, me: usize) -> Balia {
        Balia { shared, me, credit: Credit::default() }
    }
}

fn rate(p: &PathState) -> f64 {
    p.cwnd as f64 / p.rtt()
}

/// α_r = max_k x_k / x_r.
pub fn alpha(paths: &[PathState], me: usize) -> f64 {
    paths.iter().map(rate).fold(0.0, f64::max) / rate(&paths[me])
}

/// The increase, bytes, for `acked` bytes acknowledged on path `me`.
pub fn increase(paths: &[PathState], me: usize, acked: u64) -> f64 {
    let own = &paths[me];
    let sum: f64 = paths.iter().map(rate).sum();
    let a = alpha(paths, me);
    acked as f64 * own.mss as f64 * (rate(own) / own.rtt()) / (sum * sum) * (1.0 + a) * (4.0 + a) / 10.0
}

/// The multiplicative decrease factor: w_r ← w_r − (w_r/2)·min(α_r, 1.5).
pub fn decrease_fraction(paths: &[PathState], me: usize) -> f64 {
    alpha(paths, me).min(1.5) / 2.0
}

impl CongestionControl for Balia {
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
            None => acked as f64 * s.mss as f64 / s.cwnd as f64,
        };
        self.credit.add(s, inc);
    }

    fn on_congestion(&mut self, s: &mut CcState, ev: Congestion, in_flight: u64) {
        self.credit.reset();
        let (paths, pos) = snapshot(&self.shared, self.me, s, None);
        let Some(me) = pos.filter(|_| paths.len() > 1) else {
            return reno_decrease(s, ev, in_flight);
        };
        let md = (in_flight as f64 * decrease_fraction(&paths, me)) as u64;
        s.ssthresh = (in_flight - md).max(2 * s.mss);
        s.cwnd = match ev {
            Congestion::FastRetransmit => s.ssthresh,
            Congestion::Timeout => s.mss,
        };
    }

    fn on_recovery_exit(&mut self, s: &mut CcState) {
        s.cwnd = s.ssthresh;
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{state, table};
    use super::*;

    #[test]
    fn increase_and_decrease_follow_peng_et_al() {
        // One path: Reno (α = 1: (1+1)(4+1)/10 = 1, and x/rtt/x² = 1/w).
        let one = table(&[(10_000, 50)]).borrow().clone();
        assert!((increase(&one, 0, 1000) - 100.0).abs() < 1e-9);
        assert_eq!(decrease_fraction(&one, 0), 0.5);
        // Path 0: 10 kB / 100 ms = 100 kB/s; path 1: 20 kB / 10 ms = 2 MB/s.
        let t = table(&[(10_000, 100), (20_000, 10)]);
        let p = t.borrow().clone();
        let (x0, x1) = (1e5, 2e6);
        assert!((alpha(&p, 0) - x1 / x0).abs() < 1e-9);
        assert!((alpha(&p, 1) - 1.0).abs() < 1e-12);
        let a = x1 / x0;
        let want = 1000.0 * 1000.0 * (x0 / 0.1) / ((x0 + x1) * (x0 + x1)) * (1.0 + a) * (4.0 + a) / 10.0;
        assert!((increase(&p, 0, 1000) - want).abs() < 1e-9);
        // The slow path backs off by min(α, 1.5)/2 = 75 %, the fast one by half.
        assert_eq!(decrease_fraction(&p, 0), 0.75);
        assert_eq!(decrease_fraction(&p, 1), 0.5);
        let mut cc = Balia::new(t, 0);
        let mut s = state(10_000);
        cc.on_congestion(&mut s, Congestion::FastRetransmit, 10_000);
        assert_eq!((s.ssthresh, s.cwnd), (2_500, 2_500));
    }
}
