//! Staying at or above the best single path. The paper states that
//! S-MPTCP's throughput never falls below single-path TCP's but gives no
//! rule for it; this is ours (`guard = "aggregate"`), a measured A/B test:
//!
//! 1. Multipath runs `guard_warmup`; then its rate (the connection's bytes,
//!    as this host counts them) is measured over successive windows of
//!    `guard_window` until it is steady — a window within ±`guard_steady`
//!    (5 %) of the one before — or, once `guard_max_wait` (20 s) has
//!    passed, its mean since the warm-up. A coupled controller grows by about a segment per RTT, so at
//!    hundreds of Mb/s its ramp lasts many seconds and an early window
//!    would understate multipath. That steady rate is A.
//! 2. If A ≥ `guard_ratio` × the best interface's bandwidth estimate
//!    (`Hint::Bandwidth`), multipath stays: it carries at least what one
//!    link could. The default ratio, 0.965, is the payload share of a
//!    link's rate (1448-byte payloads in 1500-byte packets): what a single
//!    path delivers at best. Otherwise (or with no estimate) single path on
//!    that best interface (the primary if none is estimated) is measured
//!    the same way, giving S.
//! 3. S ≥ A: single path stays; else multipath comes back. Either way the
//!    connection's choice is final, and logged with both rates.
//!
//! Multipath falls below a single path when a large RTT gap meets a
//! bounded receive buffer: the fast subflow waits for the slow one's
//! segments (head-of-line blocking), as in the paper's Fig. 4 remark.

use crate::time::Time;

/// The guard's timing.
pub struct Timing {
    pub warmup: Time,
    pub window: Time,
    pub steady: f64,
    pub max_wait: Time,
    pub ratio: f64,
}

/// A rate measured over successive windows until it is steady.
#[derive(Debug, Clone, PartialEq)]
struct Meter {
    since: Time,
    /// The first window's start, and the current window's.
    first: Option<(Time, u64)>,
    start: Option<(Time, u64)>,
    last: Option<f64>,
}

impl Meter {
    fn new(now: Time) -> Meter {
        Meter { since: now, first: None, start: None, last: None }
    }

    /// The steady rate (bit/s), once there is one.
    fn sample(&mut self, now: Time, bytes: u64, t: &Timing) -> Option<f64> {
        if now < self.since + t.warmup {
            return None;
        }
        self.first.get_or_insert((now, bytes));
        let (t0, b0) = *self.start.get_or_insert((now, bytes));
        if now < t0 + t.window {
            return None;
        }
        let rate = bytes.saturating_sub(b0) as f64 * 8.0 / (now - t0).secs();
        self.start = Some((now, bytes));
        // Steady: within ±`steady` of the window before (a drop after a
        // loss is no more steady than a ramp).
        let steady = self.last.is_some_and(|last| (rate - last).abs() <= last * t.steady);
        self.last = Some(rate);
        if steady {
            return Some(rate);
        }
        // Never steady by `max_wait`: the mean since the warm-up.
        let (f0, fb) = self.first.expect("set above");
        (now >= self.since + t.max_wait).then(|| bytes.saturating_sub(fb) as f64 * 8.0 / (now - f0).secs())
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Phase {
    Multipath(Meter),
    /// Single path on `iface` against multipath's `aggregate` (bit/s).
    Trial { iface: u16, aggregate: f64, meter: Meter },
    /// Final: single path on an interface, or multipath.
    Decided { single: Option<u16> },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Guard {
    phase: Phase,
}

impl Guard {
    pub fn new(now: Time) -> Guard {
        Guard { phase: Phase::Multipath(Meter::new(now)) }
    }

    /// The interface single path is on, while tried or once chosen.
    pub fn single(&self) -> Option<u16> {
        match self.phase {
            Phase::Trial { iface, .. } | Phase::Decided { single: Some(iface) } => Some(iface),
            _ => None,
        }
    }

    /// A sample of the connection's `bytes` at `now`; `best` the interface
    /// with the highest bandwidth estimate (or the primary) and that estimate.
    pub fn sample(&mut self, now: Time, bytes: u64, best: (u16, Option<f64>), t: &Timing) -> Option<String> {
        let mbps = |x: f64| x / 1e6;
        match &mut self.phase {
            Phase::Multipath(meter) => {
                let rate = meter.sample(now, bytes, t)?;
                match best.1 {
                    Some(estimate) if rate >= t.ratio * estimate => {
                        self.phase = Phase::Decided { single: None };
                        Some(format!("guard: multipath {:.1} Mb/s >= {} x best link estimate {:.1} Mb/s: multipath stays", mbps(rate), t.ratio, mbps(estimate)))
                    }
                    _ => {
                        self.phase = Phase::Trial { iface: best.0, aggregate: rate, meter: Meter::new(now) };
                        let against = best.1.map_or("no link estimate".to_string(), |e| format!("below {} x best link estimate {:.1} Mb/s", t.ratio, mbps(e)));
                        Some(format!("guard: multipath {:.1} Mb/s, {against}: trying single path", mbps(rate)))
                    }
                }
            }
            Phase::Trial { iface, aggregate, meter } => {
                let rate = meter.sample(now, bytes, t)?;
                let (iface, aggregate) = (*iface, *aggregate);
                let keep = rate >= aggregate;
                self.phase = Phase::Decided { single: keep.then_some(iface) };
                Some(format!(
                    "guard: single path {:.1} Mb/s {} multipath {:.1} Mb/s: {} stays",
                    mbps(rate),
                    if keep { ">=" } else { "<" },
                    mbps(aggregate),
                    if keep { "single path" } else { "multipath" }
                ))
            }
            Phase::Decided { .. } => None,
        }
    }
}
