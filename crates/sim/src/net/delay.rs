//! A link direction's propagation delay, possibly varying over time, and the
//! wire that keeps its packets in order when the delay falls.
//!
//! The delay is piecewise constant: (start time, delay) steps, the first at
//! time zero, the last holding forever. A packet takes the delay in force
//! when its transmission starts, as ns-3's `PointToPointChannel::TransmitStart`
//! reads `m_delay` then and delivers at `txTime + m_delay`. Unlike ns-3, whose
//! packets overtake each other when `Delay` falls mid-run, a packet never
//! reaches the far end before one sent earlier in the same direction:
//! arrival = max(end of transmission + delay, previous arrival). This is
//! netem's rule with a rate set (`netem_enqueue` in `sch_netem.c` takes the
//! last queued packet's `time_to_send` as the reference point, so its
//! `tfifo` stays in order) and that of a real path whose delay comes from
//! FIFO hops, where later packets queue behind earlier ones. A packet's
//! jitter (`net::jitter`), when the direction has some, adds to its delay
//! under the same rule.

use crate::net::jitter::Jitter;
use crate::time::Time;

/// (start time, delay) steps, sorted, the first at time zero (checked at load).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delay {
    steps: Vec<(Time, Time)>,
}

impl Delay {
    pub fn constant(delay: Time) -> Delay {
        Delay { steps: vec![(Time::ZERO, delay)] }
    }

    /// `steps` must be non-empty, sorted by strictly increasing time, the
    /// first at time zero (the scenario checks it).
    pub fn schedule(steps: Vec<(Time, Time)>) -> Delay {
        debug_assert!(steps.first().is_some_and(|s| s.0 == Time::ZERO));
        Delay { steps }
    }

    /// The delay in force at `t`.
    pub fn at(&self, t: Time) -> Time {
        self.steps[self.steps.partition_point(|s| s.0 <= t).saturating_sub(1)].1
    }

    /// The delay at time zero: what static routing weighs a link by.
    pub fn initial(&self) -> Time {
        self.steps[0].1
    }
}

/// The wire of one link direction: when each packet reaches the far end.
#[derive(Debug, Clone)]
pub struct Wire {
    pub delay: Delay,
    /// Arrival time of the latest packet put on the wire.
    last_arrival: Time,
    jitter: Option<Jitter>,
}

impl Wire {
    pub fn new(delay: Delay, jitter: Option<Jitter>) -> Wire {
        Wire { delay, last_arrival: Time::ZERO, jitter }
    }

    /// One packet's jitter (zero without any), for a direction that keeps
    /// its packets in order itself (a cell's, `net::cell`).
    pub fn jitter(&mut self) -> Time {
        self.jitter.as_mut().map_or(Time::ZERO, Jitter::draw)
    }

    /// When a packet whose transmission ran from `start` to `finish` arrives:
    /// `finish` plus the delay in force at `start` and its jitter, but not
    /// before the packet put on the wire before it.
    pub fn arrival(&mut self, start: Time, finish: Time) -> Time {
        let at = Time(finish.0.saturating_add(self.delay.at(start).0 + self.jitter().0)).max(self.last_arrival);
        self.last_arrival = at;
        at
    }

    /// The link went down: what was on the wire is lost, so it holds no
    /// later packet back.
    pub fn cut(&mut self) {
        self.last_arrival = Time::ZERO;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Time {
        Time::from_millis(v)
    }

    #[test]
    fn steps_take_effect_at_their_times() {
        let d = Delay::schedule(vec![(ms(0), ms(50)), (ms(100), ms(10)), (ms(200), ms(30))]);
        assert_eq!([d.at(ms(0)), d.at(ms(99)), d.at(ms(100)), d.at(ms(199)), d.at(ms(5000))], [ms(50), ms(50), ms(10), ms(10), ms(30)]);
        assert_eq!(d.initial(), ms(50));
        assert_eq!(Delay::constant(ms(7)).at(ms(1000)), ms(7));
    }

    #[test]
    fn a_falling_delay_never_reorders() {
        // 50 ms until 100 ms, then 10 ms; a packet leaves every millisecond.
        let mut w = Wire::new(Delay::schedule(vec![(ms(0), ms(50)), (ms(100), ms(10))]), None);
        let arrivals: Vec<Time> = (95..105).map(|t| w.arrival(ms(t), ms(t + 1))).collect();
        // Those sent before the step arrive at t + 51 ms (146..=150 ms); those after
        // would arrive at t + 11 ms (111..=115 ms) and wait behind the last one.
        assert_eq!(arrivals, [146, 147, 148, 149, 150, 150, 150, 150, 150, 150].map(ms));
        assert!(arrivals.windows(2).all(|p| p[0] <= p[1]));
        // Once the wire has drained, the new delay holds.
        assert_eq!(w.arrival(ms(200), ms(201)), ms(211));
    }

    #[test]
    fn a_rising_delay_only_spaces_packets_out() {
        let mut w = Wire::new(Delay::schedule(vec![(ms(0), ms(10)), (ms(100), ms(50))]), None);
        assert_eq!(w.arrival(ms(99), ms(100)), ms(110));
        assert_eq!(w.arrival(ms(100), ms(101)), ms(151));
    }

    #[test]
    fn jitter_delays_packets_but_never_reorders_them() {
        use crate::engine::Seeds;
        let jitter = Jitter::new(Time::from_micros(200), Seeds { master: 1 }.stream("j"));
        let mut w = Wire::new(Delay::constant(ms(10)), jitter);
        // A packet every 100 µs, each taking 10 µs to send: without jitter they would arrive 100 µs apart.
        let arrivals: Vec<Time> = (0..1000u64).map(|i| w.arrival(Time(i * 100_000), Time(i * 100_000 + 10_000))).collect();
        assert!(arrivals.windows(2).all(|p| p[0] <= p[1]), "in order");
        let extra: Vec<u64> = arrivals.iter().enumerate().map(|(i, a)| a.0 - (i as u64 * 100_000 + 10_000 + 10_000_000)).collect();
        let mean = extra.iter().sum::<u64>() as f64 / extra.len() as f64;
        // A packet's extra delay is the largest of its own draw and those of the packets ahead of it less their
        // head start: E[max_k (X_k − k·100 µs)] with X_k exponential of mean 200 µs, ∫ 1 − Π_k P(X_k ≤ x + k·100 µs) dx.
        let expected: f64 = (0..20_000)
            .map(|i| {
                let x = i as f64 * 0.5;
                0.5 * (1.0 - (0..200).map(|k| 1.0 - (-(x + 100.0 * k as f64) / 200.0).exp()).product::<f64>())
            })
            .sum::<f64>()
            * 1e3;
        assert!((mean - expected).abs() < 0.05 * expected, "mean extra delay {mean} ns, expected {expected} ns");
        let back_to_back = arrivals.windows(2).filter(|p| p[0] == p[1]).count();
        assert!(back_to_back > 100, "packets behind a late one arrive together: {back_to_back}");
        assert_eq!(Wire::new(Delay::constant(ms(10)), None).arrival(ms(0), ms(1)), ms(11), "no jitter, no extra delay");
    }

    #[test]
    fn a_cut_wire_holds_nothing_back() {
        let mut w = Wire::new(Delay::schedule(vec![(ms(0), ms(50)), (ms(10), ms(1))]), None);
        assert_eq!(w.arrival(ms(9), ms(10)), ms(60));
        w.cut();
        assert_eq!(w.arrival(ms(20), ms(21)), ms(22));
    }
}
