//! Staying at or above the best single path. The paper states that
//! S-MPTCP's throughput never falls below single-path TCP's but gives no
//! rule for it; this is ours (`guard = "aggregate"`), a measured A/B test:
//!
//! 1. Multipath runs `guard_warmup`, then its aggregate A (the connection's
//!    bytes, as this host counts them) is measured over `guard_window`.
//! 2. If A ≥ `guard_ratio` × the best interface's bandwidth estimate
//!    (`Hint::Bandwidth`), multipath stays: it beats what one link could
//!    carry. Otherwise (or with no estimate) single path on that best
//!    interface (the primary if none is estimated) is tried the same way,
//!    giving S.
//! 3. S ≥ A: single path stays; else multipath comes back. Either way the
//!    connection's choice is final, and logged with both rates.
//!
//! Multipath falls below a single path when a large RTT gap meets a
//! bounded receive buffer: the fast subflow waits for the slow one's
//! segments (head-of-line blocking), as in the paper's Fig. 4 remark.

use crate::time::Time;

#[derive(Debug, Clone, PartialEq)]
enum Phase {
    /// Measuring the aggregate; the window's start once warm.
    Multipath { since: Time, start: Option<(Time, u64)> },
    /// Single path on `iface` against multipath's `aggregate` (bit/s).
    Trial { iface: u16, aggregate: f64, since: Time, start: Option<(Time, u64)> },
    /// Final: single path on an interface, or multipath.
    Decided { single: Option<u16> },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Guard {
    phase: Phase,
}

/// The guard's timing.
pub struct Timing {
    pub warmup: Time,
    pub window: Time,
    pub ratio: f64,
}

impl Guard {
    pub fn new(now: Time) -> Guard {
        Guard { phase: Phase::Multipath { since: now, start: None } }
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
        let (since, start) = match &mut self.phase {
            Phase::Multipath { since, start } | Phase::Trial { since, start, .. } => (*since, start),
            Phase::Decided { .. } => return None,
        };
        if now < since + t.warmup {
            return None;
        }
        let (t0, b0) = *start.get_or_insert((now, bytes));
        if now < t0 + t.window {
            return None;
        }
        let rate = bytes.saturating_sub(b0) as f64 * 8.0 / (now - t0).secs();
        match self.phase {
            Phase::Multipath { .. } => match best.1 {
                Some(estimate) if rate >= t.ratio * estimate => {
                    self.phase = Phase::Decided { single: None };
                    Some(format!("guard: multipath {:.1} Mb/s >= {} x best link estimate {:.1} Mb/s: multipath stays", mbps(rate), t.ratio, mbps(estimate)))
                }
                _ => {
                    self.phase = Phase::Trial { iface: best.0, aggregate: rate, since: now, start: None };
                    let against = best.1.map_or("no link estimate".to_string(), |e| format!("below {} x best link estimate {:.1} Mb/s", t.ratio, mbps(e)));
                    Some(format!("guard: multipath {:.1} Mb/s, {against}: trying single path", mbps(rate)))
                }
            },
            Phase::Trial { iface, aggregate, .. } => {
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
