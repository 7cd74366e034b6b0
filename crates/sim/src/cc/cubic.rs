//! CUBIC (RFC 9438) with Linux's defaults: C = 0.4, β = 0.7, fast
//! convergence, the Reno-friendly region and HyStart slow start.
//!
//! Windows are in segments (f64) inside the algorithm, as in the RFC; a
//! fractional-byte carry keeps the tiny increments near W_max from being lost
//! to the sender's whole-byte cwnd.
//!
//! Where Linux `tcp_cubic.c` and the RFC differ, this follows the RFC: the
//! target looks one smoothed RTT ahead (Linux: min RTT), ssthresh is
//! β·FlightSize (Linux: β·cwnd), and α switches to 1 once W_est reaches the
//! window before the last reduction (§4.3; Linux keeps α constant, which
//! `reno_alpha = "linux"` imitates). Not
//! modelled: idle restart (Linux shifts the epoch on CA_EVENT_TX_START) and
//! the cwnd-limited check of §5.8/RFC 7661 (bulk flows are always limited).

use super::hystart::HyStart;
use super::{AckInfo, CcState, Congestion, CongestionControl, Params};
use crate::time::Time;

#[derive(Debug, Clone)]
pub struct CubicParams {
    /// β_cubic, the multiplicative decrease factor (RFC 9438 §4.6; Linux 717/1024).
    pub beta: f64,
    /// C, the scaling constant of the cubic function (§5.1; Linux bic_scale 41 → 0.4).
    pub c: f64,
    pub fast_convergence: bool,
    /// The Reno-friendly region (§4.3; Linux `tcp_friendliness`).
    pub tcp_friendliness: bool,
    /// α of the Reno-friendly region: `Rfc9438` switches it to 1 once W_est
    /// reaches cwnd_prior (§4.3); `Linux` keeps 3(1 − β)/(1 + β) (tcp_cubic.c's `beta_scale`).
    pub reno_alpha: RenoAlpha,
    pub hystart: bool,
    /// HyStart acts from this many segments on (Linux `hystart_low_window`).
    pub hystart_low_window: u64,
}

impl CubicParams {
    pub fn read(p: &mut Params) -> CubicParams {
        CubicParams {
            beta: p.number("beta", 0.7, |v| v > 0.0 && v < 1.0, "between 0 and 1 (exclusive)"),
            c: p.number("c", 0.4, |v| v > 0.0, "positive"),
            fast_convergence: p.flag("fast_convergence", true),
            tcp_friendliness: p.flag("tcp_friendliness", true),
            reno_alpha: match p.choice("reno_alpha", "rfc9438", &["rfc9438", "linux"]) {
                "linux" => RenoAlpha::Linux,
                _ => RenoAlpha::Rfc9438,
            },
            hystart: p.flag("hystart", true),
            hystart_low_window: p.number("hystart_low_window", 16.0, |v| v >= 2.0 && v.fract() == 0.0, "a whole number of segments, at least 2")
                as u64,
        }
    }
}

/// How α of the Reno-friendly region evolves within a congestion-avoidance stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RenoAlpha {
    /// RFC 9438 §4.3: 3(1 − β)/(1 + β) while W_est < cwnd_prior, then 1.
    Rfc9438,
    /// Linux `tcp_cubic.c` (`bictcp_update`, tcp_friendliness): 3(1 − β)/(1 + β) throughout.
    Linux,
}

#[derive(Debug)]
pub struct Cubic {
    p: CubicParams,
    /// W_max: the window before the last reduction, or after fast convergence less (segments).
    w_max: f64,
    /// cwnd_prior: the window when ssthresh was last set (segments).
    cwnd_prior: f64,
    /// t_epoch: when the current congestion-avoidance stage began.
    epoch_start: Option<Time>,
    /// K: the time the cubic function takes to reach W_max (seconds).
    k: f64,
    /// W_est: the Reno-friendly estimate (segments).
    w_est: f64,
    /// Fraction of a byte of cwnd not yet applied.
    carry: f64,
    hystart: HyStart,
}

impl Cubic {
    pub fn new(p: CubicParams) -> Cubic {
        let hystart = HyStart::new(p.hystart_low_window);
        Cubic { p, w_max: 0.0, cwnd_prior: 0.0, epoch_start: None, k: 0.0, w_est: 0.0, carry: 0.0, hystart }
    }

    /// W_cubic(t) = C·(t − K)³ + W_max (RFC 9438 eq. 1), t in seconds since the epoch.
    fn w_cubic(&self, t: f64) -> f64 {
        self.p.c * (t - self.k).powi(3) + self.w_max
    }

    /// Starts a congestion-avoidance stage with window `cwnd` (segments).
    fn start_epoch(&mut self, now: Time, cwnd: f64) {
        self.epoch_start = Some(now);
        if self.w_max <= cwnd {
            // No reduction to recover from (after slow start or a timeout): the
            // curve starts at its plateau (§4.8: K = 0, W_max = cwnd_epoch).
            self.w_max = cwnd;
            self.k = 0.0;
        } else {
            // K = ∛((W_max − cwnd_epoch)/C) (eq. 2).
            self.k = ((self.w_max - cwnd) / self.p.c).cbrt();
        }
        // W_est starts at cwnd_epoch (§4.3).
        self.w_est = cwnd;
    }

    /// Congestion avoidance for `acked` bytes (RFC 9438 §4.2–4.5).
    fn avoid(&mut self, s: &mut CcState, ack: &AckInfo, acked: u64) {
        let mss = s.mss as f64;
        let cwnd = (s.cwnd as f64 + self.carry) / mss;
        let segments_acked = acked as f64 / mss;
        let start = match self.epoch_start {
            Some(t) => t,
            None => {
                self.start_epoch(ack.now, cwnd);
                ack.now
            }
        };
        let t = (ack.now - start).secs();
        let rtt = ack.srtt.map_or(0.0, Time::secs);
        let mut next = {
            // target = W_cubic(t + RTT) bounded to [cwnd, 1.5·cwnd] (§4.2); cwnd
            // grows by (target − cwnd)/cwnd per segment ACKed (§4.4, §4.5).
            let target = self.w_cubic(t + rtt).clamp(cwnd, 1.5 * cwnd);
            cwnd + (target - cwnd) / cwnd * segments_acked
        };
        if self.p.tcp_friendliness {
            // W_est grows by α per window ACKed (eq. 4), α = 3(1 − β)/(1 + β)
            // (eq. 5) until W_est reaches cwnd_prior, then 1 (Linux: never 1).
            let beta = self.p.beta;
            let reached_prior = self.p.reno_alpha == RenoAlpha::Rfc9438 && self.w_est >= self.cwnd_prior;
            let alpha = if reached_prior { 1.0 } else { 3.0 * (1.0 - beta) / (1.0 + beta) };
            self.w_est += alpha * segments_acked / cwnd;
            if self.w_cubic(t) < self.w_est {
                // The Reno-friendly region: cwnd = W_est (never lowered by an ACK).
                next = cwnd.max(self.w_est);
            }
        }
        let bytes = next * mss;
        s.cwnd = bytes.floor() as u64;
        self.carry = bytes - bytes.floor();
    }

    /// The ACK-delay allowance of HyStart's train test: the time to send four
    /// 64 KB GSO bursts at Linux's unpaced rate estimate (2·cwnd/srtt in slow
    /// start), at most 1 ms (Linux `hystart_ack_delay`).
    fn hystart_ack_delay(s: &CcState, srtt: Option<Time>) -> Time {
        let Some(srtt) = srtt.filter(|r| *r > Time::ZERO) else { return Time::ZERO };
        let rate = 2.0 * s.cwnd as f64 / srtt.secs();
        Time::from_secs_f64(4.0 * 65_536.0 / rate).min(Time::from_millis(1))
    }
}

impl CongestionControl for Cubic {
    fn on_ack(&mut self, s: &mut CcState, ack: &AckInfo) {
        if let Some(rtt) = ack.rtt.filter(|_| self.p.hystart && s.cwnd < s.ssthresh) {
            let ack_delay = Cubic::hystart_ack_delay(s, ack.srtt);
            if self.hystart.on_rtt_sample(ack.now, rtt, ack.snd_una, ack.snd_nxt, s.cwnd / s.mss, ack_delay) {
                s.ssthresh = s.cwnd;
            }
        }
        // HyStart runs on every ACK (Linux's cubictcp_acked); the window grows only while
        // the sender uses it (cubictcp_cong_avoid returns unless tcp_is_cwnd_limited).
        if ack.in_recovery || ack.acked == 0 || ack.window_unused {
            return;
        }
        let mut acked = ack.acked;
        if s.cwnd < s.ssthresh {
            // Slow start (RFC 5681 §3.1), up to ssthresh; the rest counts towards avoidance.
            let grow = acked.min(s.ssthresh - s.cwnd);
            s.cwnd += grow;
            acked -= grow;
        }
        if acked > 0 {
            self.avoid(s, ack, acked);
        }
    }

    fn on_congestion(&mut self, s: &mut CcState, ev: Congestion, in_flight: u64) {
        let cwnd = (s.cwnd as f64 + self.carry) / s.mss as f64;
        self.epoch_start = None;
        self.carry = 0.0;
        // Fast convergence (§4.7): a window below the last W_max means a new
        // flow is competing; release bandwidth by lowering the plateau.
        self.w_max = if self.p.fast_convergence && cwnd < self.w_max { cwnd * (1.0 + self.p.beta) / 2.0 } else { cwnd };
        // §4.6: ssthresh = FlightSize·β, cwnd_prior = cwnd.
        self.cwnd_prior = cwnd;
        s.ssthresh = ((in_flight as f64 * self.p.beta).round() as u64).max(2 * s.mss);
        s.cwnd = match ev {
            Congestion::FastRetransmit => s.ssthresh,
            Congestion::Timeout => {
                // §4.8: restart from one segment; the next stage starts with
                // K = 0 at its own window, and HyStart runs again (Linux bictcp_reset).
                self.w_max = 0.0;
                self.hystart.reset();
                s.mss
            }
        };
    }

    fn on_recovery_exit(&mut self, s: &mut CcState) {
        s.cwnd = s.ssthresh;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn cubic_with(params: &[(&str, crate::cc::ParamValue)]) -> Cubic {
        let t: crate::cc::ParamTable = params.iter().map(|(k, v)| (k.to_string(), v.clone())).collect();
        Cubic::new(CubicParams::read(&mut Params::new("cubic", &t)))
    }

    fn cubic() -> Cubic {
        cubic_with(&[])
    }

    fn ack(now: Time, acked: u64, srtt_ms: u64) -> AckInfo {
        AckInfo { now, acked, srtt: Some(Time::from_millis(srtt_ms)), ..AckInfo::default() }
    }

    #[test]
    fn reduction_and_k() {
        let mut c = cubic();
        let mut s = CcState { cwnd: 100 * MSS, ssthresh: 50 * MSS, mss: MSS, ..CcState::default() };
        c.on_congestion(&mut s, Congestion::FastRetransmit, 100 * MSS);
        assert_eq!((s.ssthresh, s.cwnd), (70 * MSS, 70 * MSS));
        assert_eq!(c.w_max, 100.0);
        // The epoch starts at the first ACK in avoidance: K = ∛(100·0.3/0.4) = ∛75.
        c.on_ack(&mut s, &ack(Time::from_secs(1), MSS, 100));
        assert!((c.k - 75f64.cbrt()).abs() < 1e-12);
        // A second loss below W_max: fast convergence lowers the plateau to cwnd·(1 + β)/2.
        s.cwnd = 90 * MSS;
        c.carry = 0.0;
        c.on_congestion(&mut s, Congestion::FastRetransmit, 90 * MSS);
        assert!((c.w_max - 90.0 * 0.85).abs() < 1e-9);
        assert_eq!(s.cwnd, 63 * MSS);
    }

    #[test]
    fn window_follows_the_cubic_curve_and_regains_w_max_at_k() {
        // A 1 ms RTT, each round trip ACKing one window, so that cwnd follows
        // the target one RTT ahead; the Reno-friendly region is off to see the curve alone.
        let mut c = cubic_with(&[("tcp_friendliness", crate::cc::ParamValue::Bool(false))]);
        let mut s = CcState { cwnd: 1000 * MSS, ssthresh: u64::MAX, mss: MSS, ..CcState::default() };
        c.on_congestion(&mut s, Congestion::FastRetransmit, 1000 * MSS);
        let k = (1000.0 * 0.3 / 0.4f64).cbrt();
        let mut reached = None;
        for ms in 0..20_000u64 {
            let a = ack(Time::from_millis(ms), s.cwnd, 1);
            c.on_ack(&mut s, &a);
            let w = (s.cwnd as f64 + c.carry) / MSS as f64;
            if ms == (k * 500.0) as u64 {
                // Halfway to K: W_max − C(K/2)³ = W_max − (1 − β)·W_max/8.
                let expected = 1000.0 - 300.0 / 8.0;
                assert!((w - expected).abs() < 1.0, "w({ms} ms) = {w}, expected {expected}");
            }
            if w >= 1000.0 && reached.is_none() {
                reached = Some(ms as f64 / 1000.0);
            }
        }
        let reached = reached.expect("regains W_max");
        assert!((reached - k).abs() < 0.01, "regained W_max after {reached} s, K = {k} s");
    }

    #[test]
    fn reno_friendly_region_grows_like_aimd() {
        // A small window on a short path: ten 10 ms round trips, each ACKing one
        // window, grow W_est by α each, faster than the cubic curve (14 → 14.7 in 0.1 s).
        let mut c = cubic();
        let mut s = CcState { cwnd: 20 * MSS, ssthresh: u64::MAX, mss: MSS, ..CcState::default() };
        c.on_congestion(&mut s, Congestion::FastRetransmit, 20 * MSS);
        assert_eq!(s.cwnd, 14 * MSS);
        for round in 0..10u64 {
            let a = ack(Time::from_millis(10 * round), s.cwnd, 10);
            c.on_ack(&mut s, &a);
        }
        // α = 3(1 − β)/(1 + β) while W_est < cwnd_prior = 20.
        let alpha = 0.9 / 1.7;
        let w = (s.cwnd as f64 + c.carry) / MSS as f64;
        assert!((w - (14.0 + 10.0 * alpha)).abs() < 0.01, "w = {w}");
    }

    #[test]
    fn linux_keeps_the_reno_friendly_alpha_past_cwnd_prior() {
        // W_est from 14 (after a loss at 20) over 30 round trips of 10 ms: RFC 9438 switches α
        // to 1 once W_est passes cwnd_prior = 20 (after about 11.3 rounds), Linux does not.
        let grown = |reno_alpha: &str| {
            let mut c = cubic_with(&[("reno_alpha", crate::cc::ParamValue::Text(reno_alpha.to_string()))]);
            let mut s = CcState { cwnd: 20 * MSS, ssthresh: u64::MAX, mss: MSS, ..CcState::default() };
            c.on_congestion(&mut s, Congestion::FastRetransmit, 20 * MSS);
            for round in 0..30u64 {
                let a = ack(Time::from_millis(10 * round), s.cwnd, 10);
                c.on_ack(&mut s, &a);
            }
            (s.cwnd as f64 + c.carry) / MSS as f64
        };
        let alpha = 0.9 / 1.7;
        let linux = grown("linux");
        assert!(linux > 14.0 + 29.0 * alpha && linux < 14.0 + 31.0 * alpha, "linux: {linux}");
        assert!(grown("rfc9438") > linux + 5.0, "rfc9438: {}", grown("rfc9438"));
    }

    #[test]
    fn timeout_restarts_slow_start_with_k_zero() {
        let mut c = cubic();
        let mut s = CcState { cwnd: 100 * MSS, ssthresh: u64::MAX, mss: MSS, ..CcState::default() };
        c.on_congestion(&mut s, Congestion::Timeout, 100 * MSS);
        assert_eq!((s.ssthresh, s.cwnd), (70 * MSS, MSS));
        s.cwnd = 70 * MSS;
        c.on_ack(&mut s, &ack(Time::from_secs(1), MSS, 100));
        assert_eq!((c.k, c.w_max), (0.0, 70.0));
    }
}
