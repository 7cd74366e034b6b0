//! BBR v1's long-term bandwidth estimate, `lt_bw` (Linux `tcp_bbr.c`,
//! `bbr_lt_bw_sampling` and `bbr_lt_bw_interval_done`; Cardwell et al.,
//! "BBR Congestion Control", IETF 97 slides, "policer detection").
//!
//! From the first loss on, BBR measures its average delivery rate over
//! intervals of 4 to 16 round trips, each ended by a loss. An interval whose
//! losses reach 20 % of what it delivered is "lossy"; two lossy intervals in a
//! row whose rates agree within 1/8 (or 4 kbit/s) suggest a token-bucket
//! policer, and BBR then uses their mean rate instead of its max filter, at
//! pacing gain 1, for 48 round trips of PROBE_BW. The same test fires on any
//! bottleneck whose drop rate stays at 20 % or more — ten BBR flows in a
//! one-BDP buffer are such a case — and then pins each flow to the rate it
//! was delivering.
//!
//! Amounts are bytes and bytes per second (Linux counts packets and takes
//! the interval in whole milliseconds).

use crate::time::Time;

/// The minimum number of round trips in a sampling interval (Linux `bbr_lt_intvl_min_rtts`).
const INTERVAL_MIN_ROUNDS: u32 = 4;
/// An interval is lossy when lost/delivered ≥ 50/256 (Linux `bbr_lt_loss_thresh`).
const LOSS_THRESH: f64 = 50.0 / 256.0;
/// Two intervals' rates are consistent within 1/8 of the earlier (Linux `bbr_lt_bw_ratio`) ...
const BW_RATIO: f64 = 1.0 / 8.0;
/// ... or within 4 kbit/s (Linux `bbr_lt_bw_diff`), bytes/s.
const BW_DIFF: f64 = 4000.0 / 8.0;
/// Round trips of PROBE_BW that use lt_bw once policing is suspected (Linux `bbr_lt_bw_max_rtts`).
const MAX_ROUNDS: u32 = 48;
/// Linux compares the difference after its 1 % pacing margin (`bbr_rate_bytes_per_sec`).
const PACING_MARGIN: f64 = 0.01;

/// The connection's delivery counters when BBR looks at them (Linux `tp->delivered`,
/// `tp->delivered_mstamp`, `tp->lost`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Counters {
    /// Bytes delivered so far.
    pub delivered: u64,
    /// When data was last delivered.
    pub delivered_time: Time,
    /// Bytes deemed lost so far, a lost retransmission counting again.
    pub lost: u64,
}

/// What one sampling step asks of BBR.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    Nothing,
    /// Policing suspected: pace at gain 1 from now on (Linux sets `pacing_gain` at once).
    StartedUsing,
    /// The 48 round trips are over: back to the max filter, gain cycling restarts.
    StoppedUsing,
}

/// One ACK's (or one timeout's) view for a sampling step.
#[derive(Debug, Clone, Copy)]
pub struct Observation {
    pub counters: Counters,
    /// This ACK marked segments lost (the timeout always counts as a loss).
    pub losses: bool,
    pub is_app_limited: bool,
    pub round_start: bool,
    /// BBR is in PROBE_BW (the only mode that counts down lt_bw's round trips).
    pub probe_bw: bool,
}

#[derive(Debug, Clone, Default)]
pub struct LongTermBw {
    /// The last interval's rate, or, while `use_bw`, the mean of the two that agreed; bytes/s.
    bw: f64,
    use_bw: bool,
    is_sampling: bool,
    /// Round trips in this interval, or, while `use_bw`, of using lt_bw.
    rounds: u32,
    start: Counters,
}

impl LongTermBw {
    /// The rate to use instead of the max filter, while policing is suspected (Linux `bbr_bw`).
    pub fn estimate(&self) -> Option<f64> {
        self.use_bw.then_some(self.bw)
    }

    fn reset_interval(&mut self, c: Counters) {
        self.start = c;
        self.rounds = 0;
    }

    /// Forgets everything (Linux `bbr_reset_lt_bw_sampling`).
    pub fn reset(&mut self, c: Counters) {
        self.bw = 0.0;
        self.use_bw = false;
        self.is_sampling = false;
        self.reset_interval(c);
    }

    /// Linux `bbr_lt_bw_interval_done`: the interval was lossy, at rate `bw`.
    fn interval_done(&mut self, bw: f64, c: Counters) -> Step {
        if self.bw > 0.0 {
            let diff = (bw - self.bw).abs();
            if diff <= BW_RATIO * self.bw || diff * (1.0 - PACING_MARGIN) <= BW_DIFF {
                self.bw = (bw + self.bw) / 2.0;
                self.use_bw = true;
                self.rounds = 0;
                return Step::StartedUsing;
            }
        }
        self.bw = bw;
        self.reset_interval(c);
        Step::Nothing
    }

    /// Linux `bbr_lt_bw_sampling`, on every ACK with a valid rate sample and on a timeout.
    pub fn sample(&mut self, o: Observation) -> Step {
        let c = o.counters;
        if self.use_bw {
            if o.probe_bw && o.round_start {
                self.rounds += 1;
                if self.rounds >= MAX_ROUNDS {
                    self.reset(c);
                    return Step::StoppedUsing;
                }
            }
            return Step::Nothing;
        }
        // Sampling starts at the first loss, once a policer's tokens are spent.
        if !self.is_sampling {
            if !o.losses {
                return Step::Nothing;
            }
            self.reset_interval(c);
            self.is_sampling = true;
        }
        // Running out of data would underestimate the rate.
        if o.is_app_limited {
            self.reset(c);
            return Step::Nothing;
        }
        if o.round_start {
            self.rounds += 1;
        }
        if self.rounds < INTERVAL_MIN_ROUNDS {
            return Step::Nothing;
        }
        if self.rounds > 4 * INTERVAL_MIN_ROUNDS {
            self.reset(c);
            return Step::Nothing;
        }
        // An interval ends at a loss: the tokens are spent.
        if !o.losses {
            return Step::Nothing;
        }
        let lost = c.lost - self.start.lost;
        let delivered = c.delivered - self.start.delivered;
        if delivered == 0 || (lost as f64) < LOSS_THRESH * delivered as f64 {
            return Step::Nothing;
        }
        let t = c.delivered_time.saturating_sub(self.start.delivered_time);
        if t < Time::from_millis(1) {
            return Step::Nothing;
        }
        self.interval_done(delivered as f64 / t.secs(), c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An ACK at round `round` (100 ms each) on a flow delivering `rate` bytes/s and losing `loss` of what it sends.
    fn obs(round: u32, rate: f64, loss: f64, losses: bool) -> Observation {
        let delivered = (rate * 0.1 * round as f64) as u64;
        Observation {
            counters: Counters {
                delivered,
                delivered_time: Time::from_millis(100 * round as u64),
                lost: (delivered as f64 * loss) as u64,
            },
            losses,
            is_app_limited: false,
            round_start: true,
            probe_bw: true,
        }
    }

    #[test]
    fn two_consistent_lossy_intervals_pin_the_rate() {
        let mut lt = LongTermBw::default();
        let mut steps = Vec::new();
        for round in 1..=12 {
            steps.push(lt.sample(obs(round, 1e5, 0.25, true)));
        }
        // Sampling starts at round 1 (the first loss) with 1 round counted, so interval 1
        // ends at round 4 and interval 2 at round 8.
        assert_eq!(steps.iter().position(|s| *s == Step::StartedUsing), Some(7));
        assert!((lt.estimate().unwrap() - 1e5).abs() < 1.0);
        // 48 round trips of PROBE_BW later it is dropped.
        let mut round = 12;
        while lt.estimate().is_some() {
            round += 1;
            let step = lt.sample(obs(round, 1e5, 0.25, true));
            assert!(round <= 8 + 48, "still in use at round {round}");
            if lt.estimate().is_none() {
                assert_eq!(step, Step::StoppedUsing);
            }
        }
        assert_eq!(round, 8 + 48);
    }

    #[test]
    fn moderate_loss_or_changing_rates_do_not() {
        let mut lt = LongTermBw::default();
        for round in 1..=40 {
            lt.sample(obs(round, 1e5, 0.10, true));
        }
        assert_eq!(lt.estimate(), None, "10 % loss is not lossy");
        let mut lt = LongTermBw::default();
        // Lossy, but the rate doubles between intervals.
        for round in 1..=7 {
            lt.sample(obs(round, 1e5, 0.25, true));
        }
        // Interval 2, rounds 4 to 8, at 2e5 bytes/s.
        let mut o = obs(8, 1e5, 0.25, true);
        o.counters.delivered = lt.start.delivered + 80_000;
        o.counters.lost = lt.start.lost + 40_000;
        assert_eq!(lt.sample(o), Step::Nothing);
        assert_eq!(lt.estimate(), None);
    }
}
