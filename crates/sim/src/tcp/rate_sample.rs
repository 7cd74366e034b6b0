//! Delivery-rate estimation (draft-cheng-iccrg-delivery-rate-estimation-02,
//! as Linux's `tcp_rate.c`): every segment is stamped at (re)transmission
//! with the connection's delivery state, and each ACK turns the stamp of the
//! most recently sent segment it (S)ACKs into a rate sample
//! delivered / max(send interval, ACK interval). Samples taken while the
//! application had nothing to send are marked application-limited.
//!
//! Amounts are bytes of payload (the draft allows bytes or packets).

use crate::time::Time;

/// What a segment remembers of the connection when it was (re)sent (the draft's P.* fields).
#[derive(Debug, Clone, Copy, Default)]
pub struct TxStamp {
    /// C.delivered when the segment was sent.
    pub delivered: u64,
    /// C.delivered_time when the segment was sent.
    pub delivered_time: Time,
    /// C.first_tx_time when the segment was sent.
    pub first_tx_time: Time,
    /// When the segment was sent.
    pub sent_time: Time,
    /// The connection was application-limited when the segment was sent.
    pub app_limited: bool,
    /// This send was a retransmission, so the segment has been sent more
    /// than once (Linux's TCPCB_EVER_RETRANS): its ACK gives no RTT sample
    /// by send time (Karn's rule).
    pub retransmission: bool,
}

/// The rate sample of one ACK (the draft's rs.* fields, Linux's `struct rate_sample`).
#[derive(Debug, Clone, Copy, Default)]
pub struct RateSample {
    /// Bytes newly (S)ACKed by this ACK.
    pub acked_sacked: u64,
    /// Bytes newly marked lost while processing this ACK.
    pub losses: u64,
    /// Bytes in flight before this ACK was processed.
    pub prior_in_flight: u64,
    /// C.delivered after this ACK.
    pub total_delivered: u64,
    /// C.delivered_time after this ACK: when data was last delivered.
    pub delivered_time: Time,
    /// P.delivered of the most recently sent segment this ACK delivered.
    pub prior_delivered: u64,
    /// Bytes delivered over `interval`.
    pub delivered: u64,
    /// The sampling interval; None when this ACK yields no valid sample.
    pub interval: Option<Time>,
    pub is_app_limited: bool,
}

impl RateSample {
    /// Delivery rate, bytes per second, if this ACK gave a valid sample.
    pub fn rate(&self) -> Option<f64> {
        self.interval.filter(|i| *i > Time::ZERO).map(|i| self.delivered as f64 / i.secs())
    }
}

/// The sample being built from the segments one ACK delivers.
#[derive(Debug, Clone, Copy)]
struct Pending {
    prior_delivered: u64,
    prior_time: Time,
    send_interval: Time,
    is_app_limited: bool,
}

#[derive(Debug, Default)]
pub struct RateEstimator {
    /// C.delivered: bytes delivered so far.
    delivered: u64,
    /// C.delivered_time: when C.delivered last changed.
    delivered_time: Time,
    /// C.first_tx_time: send time of the first segment of the current sampling flight.
    first_tx_time: Time,
    /// C.app_limited: 0, or the C.delivered beyond which samples stop being application-limited.
    app_limited: u64,
    acked_sacked: u64,
    pending: Option<Pending>,
}

impl RateEstimator {
    pub fn delivered(&self) -> u64 {
        self.delivered
    }

    /// Stamps a segment being (re)sent (the draft's `OnPacketSent`); `idle` is
    /// true when nothing is outstanding, which starts a new sampling flight.
    pub fn on_send(&mut self, now: Time, idle: bool) -> TxStamp {
        if idle {
            self.first_tx_time = now;
            self.delivered_time = now;
        }
        TxStamp {
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            first_tx_time: self.first_tx_time,
            sent_time: now,
            app_limited: self.app_limited != 0,
            retransmission: false,
        }
    }

    /// A segment of `len` bytes was newly (S)ACKed (`UpdateRateSample` per
    /// packet): the most recently sent such segment defines the sample.
    pub fn on_delivered(&mut self, tx: &TxStamp, len: u32) {
        self.delivered += len as u64;
        self.acked_sacked += len as u64;
        if self.pending.is_none_or(|p| tx.delivered > p.prior_delivered) {
            self.pending = Some(Pending {
                prior_delivered: tx.delivered,
                prior_time: tx.delivered_time,
                send_interval: tx.sent_time.saturating_sub(tx.first_tx_time),
                is_app_limited: tx.app_limited,
            });
            // The next flight's send phase starts at this segment's send time.
            self.first_tx_time = tx.sent_time;
        }
    }

    /// Closes the ACK's sample (`GenerateRateSample`, Linux `tcp_rate_gen`).
    /// Intervals shorter than `min_rtt` are implausible and give no sample.
    pub fn generate(&mut self, now: Time, losses: u64, prior_in_flight: u64, min_rtt: Option<Time>) -> RateSample {
        // The application-limited bubble ends once it is delivered.
        if self.app_limited != 0 && self.delivered > self.app_limited {
            self.app_limited = 0;
        }
        let acked_sacked = std::mem::take(&mut self.acked_sacked);
        if acked_sacked > 0 {
            self.delivered_time = now;
        }
        let mut rs = RateSample {
            acked_sacked,
            losses,
            prior_in_flight,
            total_delivered: self.delivered,
            delivered_time: self.delivered_time,
            ..RateSample::default()
        };
        let Some(p) = self.pending.take() else { return rs };
        rs.prior_delivered = p.prior_delivered;
        rs.is_app_limited = p.is_app_limited;
        rs.delivered = self.delivered - p.prior_delivered;
        // Send and ACK phases of the flight; the longer one bounds the rate
        // (ACK compression can make the ACK phase spuriously short).
        let ack_interval = now.saturating_sub(p.prior_time);
        let interval = p.send_interval.max(ack_interval);
        if min_rtt.is_none_or(|m| interval >= m) {
            rs.interval = Some(interval);
        }
        rs
    }

    /// The sender has less than a segment of new data and room in its window
    /// (`CheckIfApplicationLimited`): samples until what is in flight now is
    /// delivered reflect the application, not the network.
    pub fn mark_app_limited(&mut self, in_flight: u64) {
        self.app_limited = (self.delivered + in_flight).max(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ack_clocked_flights_measure_the_bottleneck_rate() {
        // A full pipe: 100 segments of 1000 bytes in flight, RTT 100 ms, one
        // delivered per ms; each ACK releases a new segment.
        let mut r = RateEstimator::default();
        let mut flight: std::collections::VecDeque<TxStamp> = (0..100).map(|i| r.on_send(Time::ZERO, i == 0)).collect();
        let mut rs = RateSample::default();
        for i in 0..300 {
            let now = Time::from_millis(100 + i);
            let tx = flight.pop_front().unwrap();
            r.on_delivered(&tx, 1000);
            rs = r.generate(now, 0, 0, Some(Time::from_millis(100)));
            flight.push_back(r.on_send(now, false));
        }
        // 100 segments per 100 ms: 1 MB/s.
        assert_eq!((rs.delivered, rs.interval), (100_000, Some(Time::from_millis(100))));
        assert!((rs.rate().unwrap() - 1e6).abs() < 1e-6);
        assert_eq!(rs.total_delivered, 300_000);
    }

    #[test]
    fn app_limited_marks_samples_until_the_bubble_is_delivered() {
        let mut r = RateEstimator::default();
        r.mark_app_limited(2000);
        let a = r.on_send(Time::ZERO, true);
        let b = r.on_send(Time::ZERO, false);
        r.on_delivered(&a, 1000);
        assert!(r.generate(Time::from_millis(10), 0, 0, None).is_app_limited);
        r.on_delivered(&b, 1000);
        assert!(r.generate(Time::from_millis(11), 0, 0, None).is_app_limited);
        // The bubble ends once delivery goes beyond it (C.delivered > C.app_limited).
        let c = r.on_send(Time::from_millis(11), true);
        assert!(c.app_limited);
        r.on_delivered(&c, 1000);
        assert!(r.generate(Time::from_millis(21), 0, 0, None).is_app_limited);
        assert!(!r.on_send(Time::from_millis(21), true).app_limited);
    }

    #[test]
    fn short_intervals_give_no_sample() {
        let mut r = RateEstimator::default();
        let a = r.on_send(Time::ZERO, true);
        r.on_delivered(&a, 1000);
        let rs = r.generate(Time::from_millis(5), 0, 0, Some(Time::from_millis(10)));
        assert_eq!(rs.acked_sacked, 1000);
        assert_eq!(rs.interval, None);
    }
}
