//! BLEST, the blocking-estimation scheduler (Ferlin, Alay, Mehani, Boreli,
//! "BLEST: Blocking estimation-based MPTCP scheduler for heterogeneous
//! networks", IFIP Networking 2016, §III), as in Linux's `mptcp_blest.c`.
//!
//! When the lowest-RTT scheduler would send on a subflow s slower than the
//! fastest subflow f, BLEST estimates how much f could send during one RTT
//! of s, its window growing by one segment per RTT:
//!
//!   X = MSS_f · (cwnd_f + (rtt_s/rtt_f − 1) / 2) · rtt_s/rtt_f
//!
//! and waits for f instead if that would not fit in the connection's send
//! window beside what s would then hold:
//!
//!   X · λ > |MPTCP_SW| − MSS_s · (inflight_s + 1)
//!
//! λ corrects the estimate: it starts at 1.2, rises by 0.04 after an RTT of
//! the slow subflow in which the connection was blocked by its receive
//! window (head-of-line blocking happened anyway) and falls by 0.01
//! otherwise, within [1.0, 1.3] (Linux's defaults). When the window is
//! exhausted BLEST retransmits and penalises as Linux's default scheduler
//! does (`penalisation`).

use super::minrtt::lowest_rtt;
use super::penalisation::Penalisation;
use super::{Chunk, ConnectionView, Scheduler, Step, SubflowView};
use crate::time::Time;

const LAMBDA_START: f64 = 1.2;
const LAMBDA_MIN: f64 = 1.0;
const LAMBDA_MAX: f64 = 1.3;
const LAMBDA_UP: f64 = 0.04;
const LAMBDA_DOWN: f64 = 0.01;

pub struct Blest {
    lambda: f64,
    last_update: Option<Time>,
    /// The connection was window-limited since λ's last update.
    blocked: bool,
    rp: Penalisation,
}

impl Default for Blest {
    fn default() -> Self {
        Blest { lambda: LAMBDA_START, last_update: None, blocked: false, rp: Penalisation::default() }
    }
}

/// X: bytes the fast subflow `f` can send during one RTT of the slow one `s`.
pub fn hol_estimate(f: &SubflowView, s: &SubflowView) -> f64 {
    let ratio = s.rtt().secs() / f.rtt().secs();
    let cwnd_f = f.cwnd as f64 / f.mss as f64;
    f.mss as f64 * (cwnd_f + (ratio - 1.0) / 2.0) * ratio
}

impl Blest {
    fn update_lambda(&mut self, now: Time, slow: &SubflowView) {
        let period = slow.min_rtt.unwrap_or(slow.rtt());
        if self.last_update.is_some_and(|t| now.saturating_sub(t) < period) {
            return;
        }
        let step = if self.blocked { LAMBDA_UP } else { -LAMBDA_DOWN };
        self.lambda = (self.lambda + step).clamp(LAMBDA_MIN, LAMBDA_MAX);
        self.blocked = false;
        self.last_update = Some(now);
    }

    fn pick(&mut self, subflows: &[SubflowView], conn: &ConnectionView, chunk: &Chunk) -> Option<usize> {
        let best = lowest_rtt(subflows, chunk, SubflowView::has_space)?;
        let fast = subflows.iter().filter(|s| s.usable).min_by_key(|s| s.rtt())?;
        if fast.id == best {
            return Some(best);
        }
        let slow = subflows.iter().find(|s| s.id == best)?;
        self.update_lambda(conn.now, slow);
        let room = conn.send_window.saturating_sub(slow.in_flight + slow.queued + slow.mss);
        (hol_estimate(fast, slow) * self.lambda <= room as f64).then_some(best)
    }
}

impl Scheduler for Blest {
    fn next(&mut self, subflows: &[SubflowView], conn: &ConnectionView) -> Step {
        let chunk = match (conn.reinject, conn.new_data) {
            (Some(c), _) => c,
            (None, Some(c)) if !conn.window_limited => c,
            (None, Some(c)) => {
                self.blocked = true;
                return match self.pick(subflows, conn, &c) {
                    Some(sk) => self.rp.step(subflows, conn, sk),
                    None => Step::Wait,
                };
            }
            (None, None) => return Step::Wait,
        };
        match self.pick(subflows, conn, &chunk) {
            Some(subflow) => Step::Send { subflow, chunk },
            None => Step::Wait,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{conn, sf};
    use super::*;
    use std::collections::VecDeque;

    #[test]
    fn x_estimates_the_fast_subflows_bytes_during_a_slow_rtt() {
        // cwnd_f 10 segments, rtt ratio 5: X = 1000 · (10 + 2) · 5 = 60 kB.
        let (f, s) = (sf(0, 20, 10), sf(1, 100, 10));
        assert!((hol_estimate(&f, &s) - 60_000.0).abs() < 1e-6);
    }

    #[test]
    fn waits_for_the_fast_subflow_when_the_slow_one_would_block_the_window() {
        let mut s = vec![sf(0, 20, 10), sf(1, 100, 10)];
        s[0].in_flight = 10_000; // the fast subflow is full; minRTT would use the slow one
        let unacked = VecDeque::new();
        let mut c = conn(&unacked, Some(0), false);
        // X·λ = 60 kB · 1.19 > 100 kB − 1 kB? No: room for it, send on the slow subflow.
        let mut b = Blest::default();
        assert!(matches!(b.next(&s, &c), Step::Send { subflow: 1, .. }));
        // A 50 kB window: the slow subflow would block the fast one; wait.
        c.send_window = 50_000;
        assert_eq!(b.next(&s, &c), Step::Wait);
    }
}
