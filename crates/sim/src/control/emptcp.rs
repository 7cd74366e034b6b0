//! eMPTCP's weight manager (Nuha, Yulianto and Hendrawan, "Enhanced
//! Multipath TCP to Improve the Mobile Device Network Resiliency", 2024,
//! §3-A, Fig. 6): a multipath host's paths — the subflows of its MPTCP
//! connections and its single-path TCP connections, all running Westwood+ —
//! take one fair share at a shared bottleneck by scaling each path's
//! additive increase, W ← W + x²/W (eq. 31), with every `interval` t
//!
//!   x = bw_max / (bwe_1 + … + bwe_n)                               (eq. 32)
//!
//! where bwe_i is path i's Westwood+ bandwidth estimate and bw_max the
//! highest estimate one path would reach (bit/s: ns-2's Westwood agent
//! counts bits, and the paper's 110 000 is "the highest bwe value of a
//! single path" below its 230 kbit/s bottleneck). The adaptive decrease,
//! max(2, BWE·RTTmin/seg), is Westwood+'s own (`cc/westwood.rs`).
//!
//! What the paper leaves open, each a parameter (docs/emptcp.md):
//! - `start`: the weights apply once every path has reached congestion
//!   avoidance (`all`, Fig. 6's "once the connections reach the CA phase"),
//!   or per path as each reaches it (`per_path`); a path counts as having
//!   reached it once it is seen out of slow start at an update.
//! - `clamp`: eq. 32 exceeds 1 when Σ bwe collapses (a handover), which
//!   would make the host more aggressive than one TCP; `clamped` caps x at 1,
//!   `literal` does not. Both keep the previous x when Σ bwe is 0 (eq. 32
//!   is undefined there) and set nothing before a first x exists.
//! - `bw_max` in bit/s, or `bw_max_fraction` of the largest single-path
//!   estimate at each update.
//! - `increments`: a static a per path (Table IV's D1², D2², D3²), in the
//!   order (connection, subflow) of the group, instead of the weight manager.

use std::collections::{BTreeMap, BTreeSet};

use super::view::SenderSample;
use super::{Action, ActionKind, Built, ConnId, Controller, Event, Host, View};
use crate::cc::params::Params;
use crate::time::Time;

/// A path of the multipath host: a connection, and its subflow if MPTCP.
type PathId = (ConnId, Option<u32>);

const TIMER: u64 = 0;

enum BwMax {
    /// bit/s.
    Absolute(f64),
    /// Of the largest path estimate at the update.
    Fraction(f64),
}

enum Mode {
    Weighted { bw_max: BwMax, interval: Time, all_paths: bool, clamp: bool },
    Static(Vec<f64>),
}

pub struct Emptcp {
    mode: Mode,
    /// The flows that form the multipath host (None: every connection this host sends on).
    flows: Option<Vec<String>>,
    /// The previous x (eq. 32), kept where it is undefined.
    x: Option<f64>,
    /// Paths seen in congestion avoidance at an update.
    reached_ca: BTreeSet<PathId>,
    /// The weights apply (with `start = "all"`, latched once all paths reached it).
    started: bool,
    /// The coefficient last set per path.
    applied: BTreeMap<PathId, f64>,
}

pub fn build(p: &mut Params, _host: &Host) -> Built {
    let flows = p.text("flows").map(|s| s.split(',').map(|f| f.trim().to_string()).filter(|f| !f.is_empty()).collect());
    let increments = p.text("increments").map(|s| {
        s.split(',')
            .map(|v| v.trim().parse::<f64>().ok().filter(|a| *a > 0.0 && a.is_finite()))
            .collect::<Option<Vec<f64>>>()
    });
    let absolute = p.rate("bw_max", |r| r > 0.0, "a positive rate in bit/s");
    // NaN: absent (an invalid value is reported and read as absent too).
    let fraction = Some(p.number("bw_max_fraction", f64::NAN, |f| f > 0.0, "a positive number")).filter(|f| !f.is_nan());
    let interval = p.duration("interval", Time::from_secs(1), |t| t > Time::ZERO, "positive");
    let all_paths = p.choice("start", "all", &["all", "per_path"]) == "all";
    let clamp = p.choice("clamp", "clamped", &["clamped", "literal"]) == "clamped";
    let mode = match (increments, absolute, fraction) {
        (Some(Some(list)), None, None) if !list.is_empty() => Mode::Static(list),
        (Some(_), None, None) => {
            p.problem("increments", "must be a comma-separated list of positive numbers, e.g. \"0.01,0.01,0.01\"".into());
            Mode::Static(vec![1.0])
        }
        (None, Some(b), None) => Mode::Weighted { bw_max: BwMax::Absolute(b), interval, all_paths, clamp },
        (None, None, Some(f)) => Mode::Weighted { bw_max: BwMax::Fraction(f), interval, all_paths, clamp },
        _ => {
            p.problem("bw_max", "give exactly one of bw_max (bit/s), bw_max_fraction, or increments (a static list)".into());
            Mode::Static(vec![1.0])
        }
    };
    Built {
        controller: Box::new(Emptcp {
            mode,
            flows,
            x: None,
            reached_ca: BTreeSet::new(),
            started: false,
            applied: BTreeMap::new(),
        }),
        actions: vec![ActionKind::SetIncrement, ActionKind::ArmTimer, ActionKind::Log],
    }
}

impl Emptcp {
    /// The multipath host's established paths, in (connection, subflow)
    /// order, with what their sender knows.
    fn paths<'v>(&self, view: &'v View) -> Vec<(PathId, &'v SenderSample)> {
        let mut out = Vec::new();
        let chosen = |flow: &str| self.flows.as_ref().is_none_or(|f| f.iter().any(|n| n == flow));
        for c in view.connections.iter().filter(|c| c.established && chosen(&c.flow)) {
            if c.multipath {
                for s in c.subflows.iter().filter(|s| s.open && s.established) {
                    if let Some(sample) = &s.sender {
                        out.push(((c.id, Some(s.id)), sample));
                    }
                }
            } else if let Some(sample) = &c.sender {
                out.push(((c.id, None), sample));
            }
        }
        out
    }

    fn set(&mut self, path: PathId, a: f64, out: &mut Vec<Action>) {
        if self.applied.get(&path).is_none_or(|&old| (old - a).abs() > 1e-12 * a) {
            self.applied.insert(path, a);
            out.push(Action::SetIncrement { conn: path.0, subflow: path.1, a });
        }
    }

    /// One weight-manager update (Fig. 6).
    fn update(&mut self, view: &View, out: &mut Vec<Action>) {
        let Mode::Weighted { bw_max, all_paths, clamp, .. } = &self.mode else { return };
        let (all_paths, clamp) = (*all_paths, *clamp);
        let paths = self.paths(view);
        if paths.is_empty() {
            return;
        }
        for (id, s) in &paths {
            if !s.slow_start {
                self.reached_ca.insert(*id);
            }
        }
        // bit/s; a path whose algorithm keeps no estimate counts as 0 (its
        // SetIncrement is refused and logged: it is not Westwood+).
        let bwe: Vec<f64> = paths.iter().map(|(_, s)| s.bw_estimate.unwrap_or(0.0) * 8.0).collect();
        let sum: f64 = bwe.iter().sum();
        let max = match *bw_max {
            BwMax::Absolute(b) => b,
            BwMax::Fraction(f) => f * bwe.iter().copied().fold(0.0, f64::max),
        };
        if sum > 0.0 {
            let x = max / sum;
            self.x = Some(if clamp { x.min(1.0) } else { x });
        }
        let Some(x) = self.x else { return };
        self.started |= paths.iter().all(|(id, _)| self.reached_ca.contains(id));
        out.push(Action::Log {
            detail: format!("x = {x:.4} (bw_max {max:.0} bit/s, sum of bwe {sum:.0} bit/s over {} paths)", paths.len()),
        });
        let ids: Vec<PathId> = paths.iter().map(|(id, _)| *id).collect();
        for id in ids {
            let applies = if all_paths { self.started } else { self.reached_ca.contains(&id) };
            if applies {
                self.set(id, x * x, out);
            }
        }
    }

    /// Static increments (Tables II–IV): the k-th path gets the k-th value
    /// (the last one repeats for further paths).
    fn apply_static(&mut self, view: &View, out: &mut Vec<Action>) {
        let Mode::Static(list) = &self.mode else { return };
        let list = list.clone();
        let ids: Vec<PathId> = self.paths(view).into_iter().map(|(id, _)| id).collect();
        for (k, id) in ids.into_iter().enumerate() {
            self.set(id, list[k.min(list.len() - 1)], out);
        }
    }
}

impl Controller for Emptcp {
    fn on_event(&mut self, _now: Time, event: &Event, view: &View, out: &mut Vec<Action>) {
        match (&self.mode, event) {
            (Mode::Weighted { interval, .. }, Event::Start) => out.push(Action::ArmTimer { after: *interval, token: TIMER }),
            (Mode::Weighted { interval, .. }, Event::Timer { token: TIMER }) => {
                let interval = *interval;
                self.update(view, out);
                out.push(Action::ArmTimer { after: interval, token: TIMER });
            }
            (Mode::Static(_), Event::ConnectionEstablished { .. } | Event::SubflowEstablished { .. }) => self.apply_static(view, out),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::view::{ConnectionView, Role, SubflowView};

    fn sample(bwe_bps: f64, slow_start: bool) -> SenderSample {
        SenderSample {
            cwnd: 10_000,
            ssthresh: 5_000,
            slow_start,
            srtt: None,
            delivery_rate: None,
            bytes_sent: 0,
            bytes_acked: 0,
            in_flight: 0,
            retransmits: 0,
            timeouts: None,
            bw_estimate: Some(bwe_bps / 8.0),
            increment: Some(1.0),
        }
    }

    /// One MPTCP connection with a subflow per (bwe bit/s, in slow start).
    fn view(paths: &[(f64, bool)]) -> View {
        let subflows = paths
            .iter()
            .enumerate()
            .map(|(i, &(b, ss))| SubflowView {
                id: i as u32,
                local: i as u16,
                remote: 0,
                backup: false,
                open: true,
                established: true,
                bytes: 0,
                sender: Some(sample(b, ss)),
            })
            .collect();
        View {
            connections: vec![ConnectionView {
                id: 0,
                flow: "up".into(),
                role: Role::Sender,
                client: true,
                multipath: true,
                established: true,
                fallback: false,
                path_manager: "fullmesh".into(),
                initial: (0, 0),
                paths: vec![],
                peer_interfaces: vec![],
                peer_up: vec![],
                bytes_sent: Some(0),
                bytes_received: 0,
                ooo_bytes: None,
                app: None,
                fetch: None,
                sender: None,
                subflows,
            }],
            ..View::default()
        }
    }

    fn weighted(bw_max: f64, all_paths: bool, clamp: bool) -> Emptcp {
        Emptcp {
            mode: Mode::Weighted { bw_max: BwMax::Absolute(bw_max), interval: Time::from_secs(1), all_paths, clamp },
            flows: None,
            x: None,
            reached_ca: BTreeSet::new(),
            started: false,
            applied: BTreeMap::new(),
        }
    }

    fn increments(out: &[Action]) -> Vec<(Option<u32>, f64)> {
        out.iter()
            .filter_map(|a| match *a {
                Action::SetIncrement { subflow, a, .. } => Some((subflow, a)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn eq_32_sets_x_squared_on_every_path() {
        let mut c = weighted(110_000.0, true, true);
        let mut out = Vec::new();
        c.update(&view(&[(100_000.0, false), (60_000.0, false), (60_000.0, false)]), &mut out);
        let x: f64 = 110_000.0 / 220_000.0;
        assert_eq!(increments(&out), vec![(Some(0), x * x), (Some(1), x * x), (Some(2), x * x)]);
    }

    #[test]
    fn start_all_waits_for_every_path_per_path_does_not() {
        let paths = [(100_000.0, false), (60_000.0, true)];
        let mut all = weighted(110_000.0, true, true);
        let mut out = Vec::new();
        all.update(&view(&paths), &mut out);
        assert!(increments(&out).is_empty(), "one path still in slow start");
        let mut each = weighted(110_000.0, false, true);
        each.update(&view(&paths), &mut out);
        assert_eq!(increments(&out).len(), 1);
        // Once the second path has left slow start, `all` applies to both, and stays started.
        out.clear();
        all.update(&view(&[(100_000.0, false), (60_000.0, false)]), &mut out);
        assert_eq!(increments(&out).len(), 2);
        out.clear();
        all.update(&view(&[(50_000.0, true), (60_000.0, true)]), &mut out);
        assert_eq!(increments(&out).len(), 2, "after a timeout the paths keep their weight");
    }

    #[test]
    fn clamp_caps_x_at_one_literal_does_not_and_zero_keeps_the_previous_x() {
        let collapsed = [(20_000.0, false), (10_000.0, false)];
        let mut clamped = weighted(110_000.0, true, true);
        let mut literal = weighted(110_000.0, true, false);
        let mut out = Vec::new();
        clamped.update(&view(&collapsed), &mut out);
        assert_eq!(increments(&out), vec![(Some(0), 1.0), (Some(1), 1.0)]);
        out.clear();
        literal.update(&view(&collapsed), &mut out);
        let x: f64 = 110_000.0 / 30_000.0;
        assert_eq!(increments(&out), vec![(Some(0), x * x), (Some(1), x * x)]);
        out.clear();
        literal.update(&view(&[(0.0, false), (0.0, false)]), &mut out);
        assert!(increments(&out).is_empty(), "Σ bwe = 0: x unchanged, nothing new to set");
        assert_eq!(literal.x, Some(x));
        let mut fresh = weighted(110_000.0, true, true);
        fresh.update(&view(&[(0.0, false)]), &mut out);
        assert!(fresh.x.is_none() && increments(&out).is_empty(), "no x before a first estimate");
    }

    #[test]
    fn fraction_of_the_largest_estimate() {
        let mut c = weighted(0.0, true, true);
        c.mode = Mode::Weighted { bw_max: BwMax::Fraction(0.5), interval: Time::from_secs(1), all_paths: true, clamp: true };
        let mut out = Vec::new();
        c.update(&view(&[(100_000.0, false), (100_000.0, false)]), &mut out);
        assert_eq!(increments(&out), vec![(Some(0), 0.0625), (Some(1), 0.0625)]);
    }
}
