//! TCP NewReno's window rules (RFC 5681 §3.1, RFC 6582 §3.2).
//!
//! Slow start and congestion avoidance count acknowledged bytes (RFC 3465),
//! as Linux's `tcp_slow_start` / `tcp_cong_avoid_ai` count acknowledged
//! segments: slow start grows by the bytes acknowledged (up to ssthresh,
//! the rest counting towards avoidance), avoidance by one MSS per cwnd of
//! bytes acknowledged. The loss response halves FlightSize (RFC 5681 eq. 4).

use super::{AckInfo, CcState, Congestion, CongestionControl};

#[derive(Default)]
pub struct NewReno {
    /// Bytes acknowledged towards the next one-MSS increase in avoidance.
    avoidance_credit: u64,
}

impl CongestionControl for NewReno {
    fn on_ack(&mut self, s: &mut CcState, ack: &AckInfo) {
        // Linux's cong_avoid hooks return unless tcp_is_cwnd_limited (`AckInfo::window_unused`).
        if ack.in_recovery || ack.window_unused {
            return;
        }
        let mut acked = ack.acked;
        if s.cwnd < s.ssthresh {
            let grow = acked.min(s.ssthresh - s.cwnd);
            s.cwnd += grow;
            acked -= grow;
        }
        if acked > 0 && s.cwnd >= s.ssthresh {
            self.avoidance_credit += acked;
            while self.avoidance_credit >= s.cwnd {
                self.avoidance_credit -= s.cwnd;
                s.cwnd += s.mss;
            }
        }
    }

    fn on_congestion(&mut self, s: &mut CcState, ev: Congestion, in_flight: u64) {
        s.ssthresh = (in_flight / 2).max(2 * s.mss);
        s.cwnd = match ev {
            Congestion::FastRetransmit => s.ssthresh,
            // RFC 5681 §3.1: the loss window is one segment.
            Congestion::Timeout => s.mss,
        };
        self.avoidance_credit = 0;
    }

    fn on_recovery_exit(&mut self, s: &mut CcState) {
        s.cwnd = s.ssthresh;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(acked: u64) -> AckInfo {
        AckInfo { acked, ..AckInfo::default() }
    }

    #[test]
    fn slow_start_doubles_then_linear() {
        let mut s = CcState { cwnd: 10_000, ssthresh: 40_000, mss: 1000, ..CcState::default() };
        let mut cc = NewReno::default();
        for _ in 0..10 {
            cc.on_ack(&mut s, &ack(1000));
        }
        assert_eq!(s.cwnd, 20_000);
        s.cwnd = 40_000;
        // One window of ACKs in avoidance adds one MSS.
        for _ in 0..40 {
            cc.on_ack(&mut s, &ack(1000));
        }
        assert_eq!(s.cwnd, 41_000);
        cc.on_congestion(&mut s, Congestion::FastRetransmit, 41_000);
        assert_eq!((s.ssthresh, s.cwnd), (20_500, 20_500));
        cc.on_congestion(&mut s, Congestion::Timeout, 1_000);
        assert_eq!((s.ssthresh, s.cwnd), (2_000, 1_000));
    }
}
