//! Round-trip time estimation and the retransmission timeout (RFC 6298),
//! with Linux's floor on the variance term as an option (`RtoFormula`).

use super::{RtoFormula, TcpConfig};
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
    formula: RtoFormula,
    /// Exponential backoff after timeouts (RFC 6298 §5.5).
    backoff: u32,
    pub min_rtt: Option<Time>,
    pub samples: u64,
    sum_ns: u128,
}

impl RttEstimator {
    pub fn new(initial_rto: Time, min_rto: Time, max_rto: Time) -> RttEstimator {
        RttEstimator {
            srtt: None,
            rttvar: Time::ZERO,
            rto: initial_rto,
            min_rto,
            max_rto,
            formula: RtoFormula::Rfc6298,
            backoff: 0,
            min_rtt: None,
            samples: 0,
            sum_ns: 0,
        }
    }

    /// The estimator a flow's `[tcp]` settings ask for.
    pub fn from_config(cfg: &TcpConfig) -> RttEstimator {
        RttEstimator { formula: cfg.rto_formula, ..RttEstimator::new(cfg.initial_rto, cfg.min_rto, cfg.max_rto) }
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
        let var = Time(4 * self.rttvar.nanos());
        self.rto = match self.formula {
            // RFC 6298 §2.3: SRTT + max(G, 4·RTTVAR), then the floor on the whole timeout (§2.4).
            RtoFormula::Rfc6298 => (srtt + var.max(CLOCK_GRANULARITY)).max(self.min_rto),
            // Linux floors the variance term instead: `tcp_rtt_estimator` keeps `rttvar_us` at least
            // `tcp_rto_min_us` (through `mdev_max_us`, reset to it every round trip), and `__tcp_set_rto`
            // returns srtt + rttvar_us, so the timeout is at least srtt + 200 ms.
            RtoFormula::Linux => srtt + var.max(self.min_rto),
        }
        .min(self.max_rto);
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

    #[test]
    fn linux_floors_the_variance_term_not_the_timeout() {
        let linux = TcpConfig { rto_formula: RtoFormula::Linux, ..TcpConfig::default() };
        let (mut e, mut rfc) = (RttEstimator::from_config(&linux), RttEstimator::from_config(&TcpConfig::default()));
        assert_eq!(e.rto(), Time::from_secs(1));
        // First sample: srtt 200, rttvar 100, 4·rttvar = 400 ms above the floor: 600 ms either way.
        e.sample(Time::from_millis(200));
        rfc.sample(Time::from_millis(200));
        assert_eq!((e.rto(), rfc.rto()), (Time::from_millis(600), Time::from_millis(600)));
        // A steady 200 ms path: rttvar decays, RFC 6298's timeout to srtt + G, Linux's to srtt + 200 ms.
        for _ in 0..60 {
            e.sample(Time::from_millis(200));
            rfc.sample(Time::from_millis(200));
        }
        assert_eq!(e.rto(), Time::from_millis(400));
        assert!(rfc.rto() < Time::from_millis(202), "{}", rfc.rto());
        e.back_off();
        assert_eq!(e.rto(), Time::from_millis(800));
    }
}
