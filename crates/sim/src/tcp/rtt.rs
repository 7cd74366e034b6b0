//! Round-trip time estimation and the retransmission timeout (RFC 6298).

use crate::time::Time;

/// Clock granularity G of RFC 6298 §2 (ns-3's default ClockGranularity).
const CLOCK_GRANULARITY: Time = Time::from_millis(1);

#[derive(Debug, Clone)]
pub struct RttEstimator {
    srtt: Option<Time>,
    rttvar: Time,
    rto: Time,
    min_rto: Time,
    max_rto: Time,
    /// Exponential backoff after timeouts (RFC 6298 §5.5).
    backoff: u32,
    pub min_rtt: Option<Time>,
    pub samples: u64,
    sum_ns: u128,
}

impl RttEstimator {
    pub fn new(initial_rto: Time, min_rto: Time, max_rto: Time) -> RttEstimator {
        RttEstimator { srtt: None, rttvar: Time::ZERO, rto: initial_rto, min_rto, max_rto, backoff: 0, min_rtt: None, samples: 0, sum_ns: 0 }
    }

    /// A sample for both srtt (RFC 6298) and the minimum.
    pub fn sample(&mut self, r: Time) {
        self.sample_srtt(r);
        self.sample_min(r);
    }

    /// The minimum RTT seen (Linux's `tp->rtt_min`, which it feeds with the
    /// congestion control's sample, `ca_rtt_us`; Linux forgets it after
    /// 5 minutes, longer than a run).
    pub fn sample_min(&mut self, r: Time) {
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
    }

    /// RFC 6298 §2.2–2.4; a new sample also clears the backoff (§5.7 leaves
    /// this to the implementation; Linux and ns-3 both recompute from srtt).
    pub fn sample_srtt(&mut self, r: Time) {
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = Time(r.nanos() / 2);
            }
            Some(srtt) => {
                let diff = srtt.nanos().abs_diff(r.nanos());
                self.rttvar = Time((3 * self.rttvar.nanos() + diff) / 4);
                self.srtt = Some(Time((7 * srtt.nanos() + r.nanos()) / 8));
            }
        }
        let srtt = self.srtt.unwrap_or(r);
        let var = Time(4 * self.rttvar.nanos()).max(CLOCK_GRANULARITY);
        self.rto = (srtt + var).max(self.min_rto).min(self.max_rto);
        self.backoff = 0;
        self.samples += 1;
        self.sum_ns += r.nanos() as u128;
    }

    pub fn srtt(&self) -> Option<Time> {
        self.srtt
    }

    /// The current timeout, backoff included.
    pub fn rto(&self) -> Time {
        let backed = self.rto.nanos().saturating_mul(1u64 << self.backoff.min(30));
        Time(backed).min(self.max_rto)
    }

    pub fn back_off(&mut self) {
        self.backoff += 1;
    }

    pub fn mean(&self) -> Option<Time> {
        (self.samples > 0).then(|| Time((self.sum_ns / self.samples as u128) as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc6298_updates() {
        let mut e = RttEstimator::new(Time::from_secs(1), Time::from_millis(200), Time::from_secs(60));
        assert_eq!(e.rto(), Time::from_secs(1));
        e.sample(Time::from_millis(100));
        // srtt 100, rttvar 50: RTO = 100 + 200 = 300 ms.
        assert_eq!(e.rto(), Time::from_millis(300));
        e.sample(Time::from_millis(100));
        // rttvar 37.5, srtt 100: RTO = 250 ms.
        assert_eq!(e.rto(), Time::from_millis(250));
        e.back_off();
        assert_eq!(e.rto(), Time::from_millis(500));
        for _ in 0..50 {
            e.sample(Time::from_millis(10));
        }
        assert_eq!(e.rto(), Time::from_millis(200));
        assert_eq!(e.min_rtt, Some(Time::from_millis(10)));
    }
}
