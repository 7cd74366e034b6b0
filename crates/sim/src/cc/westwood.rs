//! TCP Westwood+ (Mascolo, Casetti, Gerla, Sanadidi, Wang, "TCP Westwood:
//! bandwidth estimation for enhanced transport over wireless links",
//! MobiCom 2001; Grieco and Mascolo, "Performance evaluation and comparison
//! of Westwood+, New Reno, and Vegas TCP congestion control", CCR 2004), with
//! the bandwidth filter of Linux's `tcp_westwood.c` and the increment
//! coefficient of the eMPTCP paper (eqs. 14 and 21):
//!
//!   ACK:  W ← W + a/W                          (additive increase, a = 1 by default)
//!   LOSS: W = ssthresh = max(2, BWE·RTTmin/MSS)  (adaptive decrease)
//!
//! BWE is the bytes delivered over each window of one RTT (at least 50 ms),
//! passed twice through the low-pass filter x ← (7x + sample)/8.
//! Slow start is Reno's (eqs. 11–12). eMPTCP drives `set_increment` with
//! a = x² and reads `bandwidth_estimate`.

use super::{AckInfo, CcState, Congestion, CongestionControl, Params};
use crate::time::Time;

/// Linux's TCP_WESTWOOD_RTT_MIN: bandwidth samples span at least 50 ms.
const MIN_WINDOW: Time = Time::from_millis(50);
/// Linux's TCP_WESTWOOD_INIT_RTT: the RTT assumed before the first sample.
const INIT_RTT: Time = Time::from_secs(20);

#[derive(Debug, Clone)]
pub struct WestwoodParams {
    /// The increment coefficient a of eq. 14 (eMPTCP's x²).
    pub increment: f64,
}

impl WestwoodParams {
    pub fn read(p: &mut Params) -> WestwoodParams {
        WestwoodParams { increment: p.number("increment", 1.0, |v| v > 0.0, "positive") }
    }
}

#[derive(Debug)]
pub struct Westwood {
    increment: f64,
    /// Once-filtered bandwidth, bytes/s (Linux `bw_ns_est`).
    bw_ns_est: f64,
    /// Twice-filtered bandwidth: the BWE, bytes/s (Linux `bw_est`).
    bw_est: f64,
    /// Bytes delivered in the current sampling window (Linux `bk`).
    bk: u64,
    /// Start of the current sampling window (Linux `rtt_win_sx`), from the first ACK.
    window_start: Option<Time>,
    /// Latest RTT sample.
    rtt: Time,
    rtt_min: Time,
    /// Take the next RTT as RTTmin (at start and after a timeout).
    reset_rtt_min: bool,
    /// Bytes acknowledged towards the next one-MSS increase in avoidance, times a.
    avoidance_credit: f64,
}

impl Westwood {
    pub fn new(p: WestwoodParams) -> Westwood {
        Westwood {
            increment: p.increment,
            bw_ns_est: 0.0,
            bw_est: 0.0,
            bk: 0,
            window_start: None,
            rtt: INIT_RTT,
            rtt_min: INIT_RTT,
            reset_rtt_min: true,
            avoidance_credit: 0.0,
        }
    }

    /// The increment coefficient a (eMPTCP sets a = x², eq. 21).
    pub fn set_increment(&mut self, a: f64) {
        assert!(a > 0.0 && a.is_finite(), "increment coefficient must be positive, got {a}");
        self.increment = a;
    }

    pub fn increment(&self) -> f64 {
        self.increment
    }

    /// BWE, bytes of payload per second.
    pub fn bwe(&self) -> f64 {
        self.bw_est
    }

    /// The low-pass filter (Linux `westwood_filter`): the first sample fills it.
    fn filter(&mut self, window: Time) {
        let sample = self.bk as f64 / window.secs();
        if self.bw_ns_est == 0.0 && self.bw_est == 0.0 {
            self.bw_ns_est = sample;
            self.bw_est = sample;
        } else {
            self.bw_ns_est = (7.0 * self.bw_ns_est + sample) / 8.0;
            self.bw_est = (7.0 * self.bw_est + self.bw_ns_est) / 8.0;
        }
    }

    /// Linux `westwood_update_window` then the delivered-bytes count: a window
    /// closes once it has lasted more than max(RTT, 50 ms).
    fn update_bwe(&mut self, now: Time, delivered: u64) {
        let start = *self.window_start.get_or_insert(now);
        let window = now - start;
        if window > self.rtt.max(MIN_WINDOW) {
            self.filter(window);
            self.bk = 0;
            self.window_start = Some(now);
        }
        // Linux approximates delivered bytes from cumulative and duplicate ACKs
        // (`westwood_acked_count`); the SACK scoreboard gives them exactly.
        self.bk += delivered;
    }

    /// max(2, BWE·RTTmin/MSS) segments, in bytes (eq. 14; Linux `tcp_westwood_bw_rttmin`).
    fn bw_rttmin(&self, mss: u64) -> u64 {
        let segments = (self.bw_est * self.rtt_min.secs() / mss as f64).floor() as u64;
        segments.max(2) * mss
    }
}

impl CongestionControl for Westwood {
    fn on_ack(&mut self, s: &mut CcState, ack: &AckInfo) {
        if let Some(r) = ack.rtt {
            self.rtt = r;
        }
        self.update_bwe(ack.now, ack.rate.acked_sacked);
        self.rtt_min = if std::mem::take(&mut self.reset_rtt_min) { self.rtt } else { self.rtt_min.min(self.rtt) };

        // Linux's cong_avoid hooks return unless tcp_is_cwnd_limited (`AckInfo::window_unused`).
        if ack.in_recovery || ack.window_unused {
            return;
        }
        let mut acked = ack.acked;
        if s.cwnd < s.ssthresh {
            // Slow start: W ← W + 1 per ACKed segment (eq. 11).
            let grow = acked.min(s.ssthresh - s.cwnd);
            s.cwnd += grow;
            acked -= grow;
        }
        if acked > 0 && s.cwnd >= s.ssthresh {
            // W ← W + a/W per ACKed segment (eq. 14): one MSS per cwnd/a bytes ACKed.
            self.avoidance_credit += self.increment * acked as f64;
            while self.avoidance_credit >= s.cwnd as f64 {
                self.avoidance_credit -= s.cwnd as f64;
                s.cwnd += s.mss;
            }
        }
    }

    fn on_congestion(&mut self, s: &mut CcState, ev: Congestion, _in_flight: u64) {
        s.ssthresh = self.bw_rttmin(s.mss);
        s.cwnd = match ev {
            // Eq. 14: cwnd = ssthresh (never raised by a loss).
            Congestion::FastRetransmit => s.cwnd.min(s.ssthresh),
            // RFC 5681 §3.1 loss window; RTTmin is re-learnt (Linux CA_EVENT_LOSS).
            Congestion::Timeout => {
                self.reset_rtt_min = true;
                s.mss
            }
        };
        self.avoidance_credit = 0.0;
    }

    fn on_recovery_exit(&mut self, s: &mut CcState) {
        s.cwnd = s.ssthresh;
    }

    fn bandwidth_estimate(&self) -> Option<f64> {
        Some(self.bw_est)
    }

    fn increment(&self) -> Option<f64> {
        Some(self.increment)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::RateSample;

    fn ack(now_ms: u64, acked: u64, rtt_ms: u64) -> AckInfo {
        AckInfo {
            now: Time::from_millis(now_ms),
            acked,
            rtt: Some(Time::from_millis(rtt_ms)),
            rate: RateSample { acked_sacked: acked, ..RateSample::default() },
            ..AckInfo::default()
        }
    }

    fn westwood(a: f64) -> Westwood {
        Westwood::new(WestwoodParams { increment: a })
    }

    #[test]
    fn bwe_filters_delivered_bytes_per_rtt() {
        let mut w = westwood(1.0);
        let mut s = CcState { cwnd: 100_000, ssthresh: 50_000, mss: 1000, ..CcState::default() };
        // 1000 bytes every ms (1 MB/s) with a 100 ms RTT.
        for t in 0..=2000 {
            w.on_ack(&mut s, &ack(t, 1000, 100));
        }
        assert!((w.bwe() - 1e6).abs() / 1e6 < 0.02, "bwe {}", w.bwe());
        // On loss: BWE·RTTmin = 1 MB/s · 100 ms = 100 segments.
        w.on_congestion(&mut s, Congestion::FastRetransmit, 150_000);
        assert!((99_000..=100_000).contains(&s.ssthresh), "ssthresh {}", s.ssthresh);
        assert_eq!(s.cwnd, s.ssthresh);
        w.on_congestion(&mut s, Congestion::Timeout, 150_000);
        assert_eq!(s.cwnd, 1000);
    }

    #[test]
    fn additive_increase_is_a_segments_per_window() {
        // In avoidance at cwnd = 40 segments: one window of ACKs adds a segments,
        // so a = 1/4 needs four windows for one segment.
        for (a, windows) in [(1.0, 1), (0.25, 4)] {
            let mut w = westwood(a);
            let mut s = CcState { cwnd: 40_000, ssthresh: 40_000, mss: 1000, ..CcState::default() };
            for i in 0..40 * windows - 1 {
                w.on_ack(&mut s, &ack(i, 1000, 100));
            }
            assert_eq!(s.cwnd, 40_000, "a = {a}");
            w.on_ack(&mut s, &ack(1000, 1000, 100));
            assert_eq!(s.cwnd, 41_000, "a = {a}");
        }
    }

    #[test]
    fn a_controller_reaches_the_flow_s_westwood() {
        use crate::tcp::{TcpConfig, TcpSender};
        let cfg = TcpConfig { cc: "westwood".into(), ..TcpConfig::default() };
        let mut sender = TcpSender::new(0, 0, 1, None, 52, cfg, crate::engine::Seeds { master: 1 }.stream("cc"));
        sender.cc_as_mut::<Westwood>().expect("runs Westwood+").set_increment(0.25);
        assert_eq!(sender.cc_as_mut::<Westwood>().map(|w| w.increment()), Some(0.25));
        assert_eq!(sender.cc().bandwidth_estimate(), Some(0.0));
        assert!(sender.cc_as_mut::<crate::cc::cubic::Cubic>().is_none());
    }

    #[test]
    fn decrease_has_a_floor_of_two_segments() {
        let mut w = westwood(1.0);
        let mut s = CcState { cwnd: 10_000, ssthresh: u64::MAX, mss: 1000, ..CcState::default() };
        w.on_congestion(&mut s, Congestion::FastRetransmit, 10_000);
        assert_eq!((s.ssthresh, s.cwnd), (2000, 2000));
    }
}
