//! OLIA, the Opportunistic Linked-Increases Algorithm (Khalili, Gast,
//! Popovic, Le Boudec, "MPTCP is not Pareto-optimal: performance issues and
//! a possible solution", IEEE/ACM ToN 21(5), 2013, §V; CoNEXT 2012), as in
//! Linux's `mptcp_olia.c`.
//!
//! For each ACK on path r in congestion avoidance (windows in packets, per
//! packet acknowledged):
//!
//!   w_r ← w_r + (w_r / rtt_r²) / (Σ_p w_p / rtt_p)² + α_r / w_r
//!
//! The first term is Kelly and Voice's optimal increase (it gives the
//! resource pooling of LIA without its non-Pareto-optimality); the second
//! re-balances windows towards the paths that look best. With R_u the
//! established paths, M the paths with the largest window and B the
//! presumably best paths — largest ℓ_r / rtt_r², where ℓ_r is the larger of
//! the bytes acknowledged between the last two losses and since the last
//! loss (an estimate of 1/loss rate, so ℓ_r/rtt_r² ranks TCP throughput):
//!
//!   α_r = 1 / (|R_u| · |B∖M|)    if r ∈ B∖M ≠ ∅
//!   α_r = −1 / (|R_u| · |M|)     if r ∈ M and B∖M ≠ ∅
//!   α_r = 0                      otherwise.
//!
//! In bytes with byte counting the increase is
//! bytes_acked · MSS · [(w_r/rtt_r²)/(Σ_p w_p/rtt_p)² + α_r/w_r]; α_r may make
//! it negative, shrinking the window a segment at a time. A path in fast
//! recovery counts with its ssthresh. Slow start and the loss response are Reno's.

use super::{reno_decrease, slow_start, snapshot, Credit, PathState, Shared};
use crate::cc::{AckInfo, CcState, Congestion, CongestionControl};

pub struct Olia {
    shared: Shared,
    me: usize,
    credit: Credit,
    /// snd_una at the second-last loss, the last loss, and now (Linux's mptcp_loss1..3).
    loss: [u64; 3],
}

impl Olia {
    pub fn new(shared: Shared, me: usize) -> Olia {
        Olia { shared, me, credit: Credit::default(), loss: [0; 3] }
    }

    /// ℓ_r: the larger of the bytes between the last two losses and since the last one.
    fn loss_interval(&self) -> u64 {
        (self.loss[2] - self.loss[1]).max(self.loss[1] - self.loss[0])
    }
}

/// The window OLIA counts for a path: ssthresh while in fast recovery.
fn window(p: &PathState) -> f64 {
    if p.in_recovery { p.ssthresh as f64 } else { p.cwnd as f64 }
}

/// α_r for every path of `paths` (the established ones).
pub fn alphas(paths: &[PathState]) -> Vec<f64> {
    let n = paths.len() as f64;
    let max_w = paths.iter().map(window).fold(0.0, f64::max);
    let quality = |p: &PathState| p.loss_interval as f64 / (p.rtt() * p.rtt());
    let best_q = paths.iter().map(quality).fold(0.0, f64::max);
    let in_m: Vec<bool> = paths.iter().map(|p| window(p) == max_w).collect();
    let in_b_not_m: Vec<bool> = paths.iter().zip(&in_m).map(|(p, &m)| !m && quality(p) == best_q).collect();
    let (m, b_not_m) = (in_m.iter().filter(|&&x| x).count() as f64, in_b_not_m.iter().filter(|&&x| x).count() as f64);
    (0..paths.len())
        .map(|r| {
            if b_not_m == 0.0 {
                0.0
            } else if in_b_not_m[r] {
                1.0 / (n * b_not_m)
            } else if in_m[r] {
                -1.0 / (n * m)
            } else {
                0.0
            }
        })
        .collect()
}

/// The increase, bytes (negative: a decrease), for `acked` bytes on path `me`.
pub fn increase(paths: &[PathState], me: usize, acked: u64) -> f64 {
    let own = &paths[me];
    let (a, mss, w) = (acked as f64, own.mss as f64, window(own));
    let sum: f64 = paths.iter().map(|p| window(p) / p.rtt()).sum();
    let kelly = (w / (own.rtt() * own.rtt())) / (sum * sum);
    a * mss * (kelly + alphas(paths)[me] / w)
}

impl CongestionControl for Olia {
    fn on_ack(&mut self, s: &mut CcState, ack: &AckInfo) {
        self.loss[2] = ack.snd_una;
        self.shared.borrow_mut()[self.me].loss_interval = self.loss_interval();
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
        // A new loss interval starts, unless nothing was acknowledged since the
        // last loss (Linux `mptcp_olia_set_state`).
        if self.loss[2] != self.loss[1] {
            self.loss[0] = self.loss[1];
            self.loss[1] = self.loss[2];
        }
        self.shared.borrow_mut()[self.me].loss_interval = self.loss_interval();
        reno_decrease(s, ev, in_flight);
        self.credit.reset();
    }

    fn on_recovery_exit(&mut self, s: &mut CcState) {
        s.cwnd = s.ssthresh;
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::table;
    use super::*;

    fn paths(spec: &[(u64, u64, u64)]) -> Vec<PathState> {
        let t = table(&spec.iter().map(|&(w, ms, _)| (w, ms)).collect::<Vec<_>>());
        let mut v = t.borrow().clone();
        for (p, &(_, _, l)) in v.iter_mut().zip(spec) {
            p.loss_interval = l;
        }
        v
    }

    #[test]
    fn alpha_moves_window_from_the_largest_to_the_best_paths() {
        // Path 0 has the largest window; path 1 the best ℓ/rtt² but a smaller
        // window: B∖M = {1}, M = {0}, |R_u| = 3.
        let a = alphas(&paths(&[(30_000, 100, 1_000), (10_000, 100, 50_000), (10_000, 100, 2_000)]));
        assert_eq!(a, vec![-1.0 / 3.0, 1.0 / 3.0, 0.0]);
        // The best path also has the largest window: B∖M = ∅, no re-balancing.
        let a = alphas(&paths(&[(30_000, 100, 50_000), (10_000, 100, 1_000)]));
        assert_eq!(a, vec![0.0, 0.0]);
        // Two paths tie for the largest window, two best paths outside M.
        let a = alphas(&paths(&[(30_000, 100, 1), (30_000, 100, 1), (10_000, 10, 500), (10_000, 10, 500)]));
        assert_eq!(a, vec![-1.0 / 8.0, -1.0 / 8.0, 1.0 / 8.0, 1.0 / 8.0]);
    }

    #[test]
    fn increase_is_reno_on_one_path_and_kelly_voice_plus_alpha_on_several() {
        let one = paths(&[(10_000, 50, 0)]);
        assert!((increase(&one, 0, 1000) - 1000.0 * 1000.0 / 10_000.0).abs() < 1e-9);
        // Two equal paths, no re-balancing: (w/r²)/(2w/r)² = 1/(4w).
        let two = paths(&[(10_000, 100, 5), (10_000, 100, 5)]);
        assert!((increase(&two, 0, 1000) - 1000.0 * 1000.0 / 40_000.0).abs() < 1e-9);
        // Re-balancing: the large-window path may shrink.
        let p = paths(&[(40_000, 100, 10), (30_000, 100, 100_000)]);
        let sum: f64 = 40_000.0 / 0.1 + 30_000.0 / 0.1;
        let kelly = (40_000.0 / 0.01) / (sum * sum);
        let want = 1000.0 * 1000.0 * (kelly - 0.5 / 40_000.0);
        assert!((increase(&p, 0, 1000) - want).abs() < 1e-9);
        assert!(want < 0.0);
    }
}
