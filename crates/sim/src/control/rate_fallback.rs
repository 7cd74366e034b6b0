//! The worked example of docs/control.md: open a subflow on a secondary
//! interface (cellular) when the primary's (Wi-Fi's) delivery rate stays
//! below a threshold for `hold`, and close it once the primary's rate has
//! stayed at or above the threshold for `hold` again.
//!
//! The rate is measured at every sample over the last `window` (default
//! 500 ms) from the bytes the primary subflows carried (acknowledged at a
//! sender, received at a receiver), so the rule means the same on both
//! planes and in both roles. The window is longer than the sampling period
//! because a real sender's cumulative ACK moves in jumps: after a loss
//! recovery through a deep queue Linux releases up to a queue's worth of
//! acknowledged bytes in one sample, which a 100 ms measurement reads as a
//! burst of rate (docs/lab.md, Controllers). A primary with no open
//! subflow (its interface down) counts as rate 0.

use std::collections::{BTreeMap, VecDeque};

use super::{Action, ActionKind, Built, ConnId, Controller, Event, Host, View};
use crate::cc::params::Params;
use crate::time::Time;

pub struct RateFallback {
    primary: u16,
    secondary: u16,
    /// bit/s.
    threshold: f64,
    hold: Time,
    window: Time,
    backup: bool,
    conns: BTreeMap<ConnId, Watch>,
}

/// One connection's measurement.
#[derive(Default)]
struct Watch {
    /// Samples of (time, primary's bytes) over the last window, oldest first.
    samples: VecDeque<(Time, u64)>,
    /// Since when the rate has been below / at or above the threshold.
    below_since: Option<Time>,
    above_since: Option<Time>,
}

pub fn build(p: &mut Params, host: &Host) -> Built {
    let iface = |p: &mut Params, key: &'static str, default: usize| -> u16 {
        match p.text(key) {
            Some(name) => match host.interfaces.iter().position(|i| i == name) {
                Some(i) => i as u16,
                None => {
                    p.problem(key, format!("'{name}' is not an interface of {} (it has: {})", host.name, host.interfaces.join(", ")));
                    0
                }
            },
            None => default as u16,
        }
    };
    if host.interfaces.len() < 2 {
        p.problem("secondary", format!("{} has {} interface(s); rate_fallback needs a primary and a secondary", host.name, host.interfaces.len()));
    }
    let primary = iface(p, "primary", 0);
    let secondary = iface(p, "secondary", if primary == 0 { 1 } else { 0 });
    if primary == secondary && host.interfaces.len() >= 2 {
        p.problem("secondary", "must differ from primary".to_string());
    }
    let threshold = p.rate("threshold", |r| r > 0.0, "a positive rate");
    if threshold.is_none() {
        p.problem("threshold", "required: the primary's rate below which the secondary opens (e.g. \"5Mbps\")".to_string());
    }
    let hold = p.duration("hold", Time::from_secs(1), |t| t > Time::ZERO, "positive");
    let window = p.duration("window", Time::from_millis(500), |t| t > Time::ZERO, "positive");
    let backup = p.flag("backup", false);
    Built {
        controller: Box::new(RateFallback { primary, secondary, threshold: threshold.unwrap_or(1.0), hold, window, backup, conns: BTreeMap::new() }),
        actions: vec![ActionKind::OpenSubflow, ActionKind::CloseSubflow, ActionKind::Log],
    }
}

impl Controller for RateFallback {
    fn on_event(&mut self, now: Time, event: &Event, view: &View, out: &mut Vec<Action>) {
        if *event != Event::Sample {
            return;
        }
        for c in view.connections.iter().filter(|c| c.client && c.multipath && c.established && !c.fallback) {
            let primary_bytes: u64 = c.subflows.iter().filter(|s| s.local == self.primary).map(|s| s.bytes).sum();
            let primary_open = c.subflows.iter().any(|s| s.open && s.local == self.primary);
            let w = self.conns.entry(c.id).or_default();
            let last = w.samples.back().map(|s| s.0);
            w.samples.push_back((now, primary_bytes));
            // The window starts at the newest sample at least `window` old.
            while w.samples.len() > 2 && now - w.samples[1].0 >= self.window {
                w.samples.pop_front();
            }
            let Some(t0) = last.filter(|&l| now > l) else { continue };
            let (start, b0) = w.samples[0];
            let rate = if primary_open { primary_bytes.saturating_sub(b0) as f64 * 8.0 / (now - start).secs() } else { 0.0 };
            if rate < self.threshold {
                w.above_since = None;
                w.below_since.get_or_insert(t0);
            } else {
                w.below_since = None;
                w.above_since.get_or_insert(t0);
            }
            let secondary = c.subflows.iter().find(|s| s.open && s.local == self.secondary);
            let mbps = |r: f64| r / 1e6;
            match (secondary, w.below_since, w.above_since) {
                (None, Some(since), _) if now - since >= self.hold => {
                    out.push(Action::Log {
                        detail: format!("primary at {:.2} Mb/s, below {:.2} Mb/s since {:.3} s", mbps(rate), mbps(self.threshold), since.secs()),
                    });
                    out.push(Action::OpenSubflow { conn: c.id, local: self.secondary, remote: c.initial.1, backup: self.backup });
                    // Should the plane refuse it, try again only after another hold.
                    w.below_since = Some(now);
                }
                (Some(s), _, Some(since)) if now - since >= self.hold => {
                    out.push(Action::Log {
                        detail: format!("primary at {:.2} Mb/s, at or above {:.2} Mb/s since {:.3} s", mbps(rate), mbps(self.threshold), since.secs()),
                    });
                    out.push(Action::CloseSubflow { conn: c.id, subflow: s.id });
                    w.above_since = Some(now);
                }
                _ => {}
            }
        }
    }
}
