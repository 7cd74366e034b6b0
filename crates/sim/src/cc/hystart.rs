//! Hybrid slow start (Ha and Rhee, "Taming the elephants: new TCP slow
//! start", Computer Networks 2011), as Linux's `tcp_cubic.c` runs it by
//! default (HYSTART_ACK_TRAIN | HYSTART_DELAY): slow start ends, with
//! ssthresh = cwnd, when in one round
//! - the ACK train (ACKs no more than 2 ms apart) has lasted longer than
//!   half the minimum RTT (plus the ACK-delay allowance), or
//! - the smallest of the round's first eight RTT samples exceeds the minimum
//!   RTT by clamp(min RTT / 8, 4 ms, 16 ms).
//!
//! Both only once cwnd has reached `low_window` segments (default 16).

use crate::time::Time;

/// Linux `hystart_ack_delta_us`: ACKs closer than this belong to one train.
const ACK_DELTA: Time = Time::from_millis(2);
/// Linux HYSTART_MIN_SAMPLES: RTT samples a round takes before the delay test.
const MIN_SAMPLES: u32 = 8;
/// Linux HYSTART_DELAY_MIN / HYSTART_DELAY_MAX: bounds of the delay threshold.
const DELAY_MIN: Time = Time::from_millis(4);
const DELAY_MAX: Time = Time::from_millis(16);

#[derive(Debug, Clone)]
pub struct HyStart {
    low_window: u64,
    /// Slow start's end was found (until a timeout restarts it).
    found: bool,
    round_start: Time,
    last_ack: Time,
    /// The round ends when this sequence number is acknowledged (snd_nxt at its start).
    end_seq: u64,
    /// Smallest RTT sample of this round.
    curr_rtt: Option<Time>,
    sample_cnt: u32,
    /// Smallest RTT sample seen (Linux `delay_min`).
    delay_min: Option<Time>,
}

impl HyStart {
    pub fn new(low_window: u64) -> HyStart {
        HyStart {
            low_window,
            found: false,
            round_start: Time::ZERO,
            last_ack: Time::ZERO,
            end_seq: 0,
            curr_rtt: None,
            sample_cnt: 0,
            delay_min: None,
        }
    }

    /// Forgets everything (after a timeout, Linux `bictcp_reset`).
    pub fn reset(&mut self) {
        *self = HyStart::new(self.low_window);
    }

    fn start_round(&mut self, now: Time, snd_nxt: u64) {
        self.round_start = now;
        self.last_ack = now;
        self.end_seq = snd_nxt;
        self.curr_rtt = None;
        self.sample_cnt = 0;
    }

    /// One RTT sample during slow start (Linux `hystart_update`); true when
    /// slow start should end. `ack_delay` is the allowance for ACKs held by
    /// segmentation offload (Linux `hystart_ack_delay`).
    pub fn on_rtt_sample(&mut self, now: Time, rtt: Time, snd_una: u64, snd_nxt: u64, cwnd_segments: u64, ack_delay: Time) -> bool {
        let delay_min = *self.delay_min.insert(self.delay_min.map_or(rtt, |m| m.min(rtt)));
        if self.found {
            return false;
        }
        if snd_una > self.end_seq {
            self.start_round(now, snd_nxt);
        }
        if cwnd_segments < self.low_window {
            return false;
        }
        if now.saturating_sub(self.last_ack) <= ACK_DELTA {
            self.last_ack = now;
            // An unpaced sender's train spans half the window's RTT (Linux halves
            // the threshold when sk_pacing_status is SK_PACING_NONE).
            let threshold = Time((delay_min + ack_delay).nanos() / 2);
            if now - self.round_start > threshold {
                self.found = true;
            }
        }
        let curr = *self.curr_rtt.insert(self.curr_rtt.map_or(rtt, |c| c.min(rtt)));
        if self.sample_cnt < MIN_SAMPLES {
            self.sample_cnt += 1;
        } else if curr > delay_min + Time(delay_min.nanos() / 8).clamp(DELAY_MIN, DELAY_MAX) {
            self.found = true;
        }
        self.found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: fn(u64) -> Time = Time::from_millis;

    #[test]
    fn delay_increase_ends_slow_start() {
        let mut h = HyStart::new(16);
        // Round 1 at 100 ms: samples spaced 5 ms apart (no ACK train).
        for i in 0..10 {
            assert!(!h.on_rtt_sample(MS(100 + 5 * i), MS(100), 1 + i, 1000, 20, Time::ZERO));
        }
        // Round 2: RTTs of 113 ms exceed 100 + clamp(12.5, 4, 16) = 112.5 ms after 8 samples.
        let mut found_at = None;
        for i in 0..10 {
            if h.on_rtt_sample(MS(300 + 5 * i), MS(113), 1001 + i, 2000, 20, Time::ZERO) {
                found_at.get_or_insert(i);
            }
        }
        assert_eq!(found_at, Some(8));
    }

    #[test]
    fn ack_train_longer_than_half_the_rtt_ends_slow_start() {
        let mut h = HyStart::new(16);
        // ACKs 1 ms apart at the base RTT of 40 ms: the train passes 20 ms at its 22nd ACK.
        let mut found_at = None;
        for i in 0..40 {
            if h.on_rtt_sample(MS(40 + i), MS(40), 1 + i, 1000, 32, Time::ZERO) {
                found_at.get_or_insert(i);
            }
        }
        assert_eq!(found_at, Some(21));
    }

    #[test]
    fn small_windows_and_timeouts() {
        let mut h = HyStart::new(16);
        for i in 0..40 {
            assert!(!h.on_rtt_sample(MS(40 + i), MS(40 + 2 * i), 1 + i, 1000, 15, Time::ZERO));
        }
        h.reset();
        assert!(h.delay_min.is_none() && !h.found);
    }
}
