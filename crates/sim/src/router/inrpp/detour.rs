//! One-hop detours (Reñé et al., §III-A–B): which exist, how much spare
//! capacity an interface has, and the rate at which a router sends cached
//! data around its congested interface.
//!
//! - **Table III**: a router R1 whose interface towards R2 has a neighbour
//!   R3 directly connected to R2 may detour over R1→R3→R2. It is found from
//!   the link-state view (every direction's ends), and used only if R3 runs
//!   INRPP on R3→R2 (it must answer probes).
//! - **Eq. 1**: SC = α·T_p·RB − β·Q, with RB the residual bandwidth
//!   (capacity minus load) and L the load, both EWMAs over the last five
//!   T_p intervals, and Q the queue at the end of the interval.
//! - **Eq. 2**: a probe is answered with Δ+ = SC/N, N the routers
//!   contending for the detour, if SC > 0, else Δ− from SC/L.
//! - **Eq. 3**: every T_d the detour's rate becomes r + Δ+ − r·Δ−.

use super::state::State;
use crate::net::packet::Feedback;
use crate::net::{LinkId, NodeId};
use crate::time::Time;

/// Weight of the newest interval in the EWMAs: "the last five intervals",
/// read as the usual N-period EWMA, 2/(N + 1).
const EWMA_GAIN: f64 = 2.0 / (5.0 + 1.0);

/// Load and residual bandwidth of one interface, sampled every T_p.
#[derive(Debug, Default)]
pub struct Meter {
    /// The link's bytes_sent at the previous sample.
    last_bytes: u64,
    /// RB, bytes/s.
    residual: f64,
    /// L, bytes/s.
    load: f64,
    sampled: bool,
}

impl Meter {
    /// One T_p interval of length `t_p` s ended with `bytes_sent` in all, at capacity `capacity_bps`.
    pub fn sample(&mut self, bytes_sent: u64, capacity_bps: f64, t_p: f64) {
        let load = bytes_sent.saturating_sub(self.last_bytes) as f64 / t_p;
        self.last_bytes = bytes_sent;
        let residual = (capacity_bps / 8.0 - load).max(0.0);
        if self.sampled {
            self.load += EWMA_GAIN * (load - self.load);
            self.residual += EWMA_GAIN * (residual - self.residual);
        } else {
            (self.load, self.residual, self.sampled) = (load, residual, true);
        }
    }

    /// Eq. 1: the spare capacity, bytes over one T_p, with `queue` bytes queued.
    pub fn spare(&self, alpha: f64, beta: f64, t_p: f64, queue: u64) -> f64 {
        alpha * t_p * self.residual - beta * queue as f64
    }

    /// Eq. 2 for `contenders` routers sharing the interface, as the feedback
    /// a probe carries; `push` is whether the interface is in Push state.
    ///
    /// Δ+ is a byte count per T_p ("the additive rate increment"); it is
    /// returned as bit/s. Δ− = −SC/L is the unitless decrease, with L in
    /// bytes per T_p like SC; the paper prints SC/L, which is negative for
    /// SC ≤ 0 and would make eq. 3 increase the rate, so the sign is taken
    /// as intended. It is at most 1 (a rate never goes below zero).
    pub fn feedback(&self, sc: f64, contenders: usize, t_p: f64, push: bool) -> Feedback {
        if sc > 0.0 {
            Feedback { push, increase_bps: 8.0 * sc / (contenders.max(1) as f64 * t_p), decrease: 0.0 }
        } else {
            let load = self.load * t_p;
            let decrease = if load > 0.0 { (-sc / load).min(1.0) } else { 1.0 };
            Feedback { push, increase_bps: 0.0, decrease }
        }
    }
}

/// A one-hop detour of one interface (a row of Table III).
#[derive(Debug)]
pub struct Detour {
    /// The congested interface (index into the module's interfaces) and the
    /// next hop it leads to.
    pub primary: usize,
    pub target: NodeId,
    /// The first leg: this router's interface towards the detour node.
    pub via_iface: usize,
    pub via_link: LinkId,
    pub via: NodeId,
    /// The second leg: the detour node's direction towards `target`.
    pub second_link: LinkId,
    /// r_d, wire bit/s (eq. 3), at most the smaller of the legs' capacities.
    pub rate_bps: f64,
    pub max_bps: f64,
    /// The latest answer from `via`.
    pub remote: Option<Feedback>,
    /// The next detoured packet may leave then.
    pub next_departure: Time,
    /// A pacing timer is pending for then.
    pub pacer: Option<Time>,
    pub packets: u64,
    pub bytes: u64,
    pub probes: u64,
    pub answers: u64,
}

impl Detour {
    /// Eq. 3 with the detour's feedback: that of its tighter leg, as a
    /// TeXCP probe carries the feedback of its path's bottleneck (Kandula et
    /// al., "Walking the Tightrope", SIGCOMM 2005, the paper's [14]).
    /// Without an answer from the detour node yet the rate stays.
    pub fn decide(&mut self, local: Feedback) {
        let Some(remote) = self.remote else { return };
        let (increase, decrease) = if local.decrease > 0.0 || remote.decrease > 0.0 {
            (0.0, local.decrease.max(remote.decrease))
        } else {
            (local.increase_bps.min(remote.increase_bps), 0.0)
        };
        self.rate_bps = (self.rate_bps + increase - self.rate_bps * decrease).clamp(0.0, self.max_bps);
    }

    /// §III-A: a detour has spare capacity only if both its egresses are in
    /// Push state; `first_leg` is the state of this router's interface.
    pub fn usable(&self, first_leg: State) -> bool {
        self.rate_bps > 0.0 && first_leg == State::Push && self.remote.is_some_and(|f| f.push)
    }
}

/// Table III for the router whose interfaces are `ifaces` (outgoing
/// direction, next hop): every (primary, via interface, second leg) with
/// the via interface's node joined directly to the primary's next hop by a
/// direction that `runs_inrpp`.
pub fn table(
    ifaces: &[(LinkId, NodeId)],
    directions: impl Iterator<Item = (LinkId, NodeId, NodeId)>,
    runs_inrpp: impl Fn(LinkId) -> bool,
) -> Vec<(usize, usize, LinkId)> {
    let edges: Vec<(LinkId, NodeId, NodeId)> = directions.filter(|&(l, _, _)| runs_inrpp(l)).collect();
    let mut rows = Vec::new();
    for (p, &(_, target)) in ifaces.iter().enumerate() {
        for (v, &(_, via)) in ifaces.iter().enumerate() {
            if v == p || via == target {
                continue;
            }
            if let Some(&(second, _, _)) = edges.iter().find(|&&(_, from, to)| from == via && to == target) {
                rows.push((p, v, second));
            }
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fig. 2: R1 (0) reaches R2 (1) over i1 and R3 (2) over i2, R3 and R2
    /// are joined, and i3 leads to R4 (3), joined to nobody else: i1 and i2
    /// detour for each other, i3 has no detour (Table III).
    #[test]
    fn table_iii_of_fig_2() {
        // Directions: 0: R1→R2, 2: R1→R3, 4: R1→R4, 6: R3→R2, 7: R2→R3 (odd ids the reverses).
        let dirs = [(0, 0, 1), (1, 1, 0), (2, 0, 2), (3, 2, 0), (4, 0, 3), (5, 3, 0), (6, 2, 1), (7, 1, 2)];
        let ifaces = [(0, 1), (2, 2), (4, 3)];
        let rows = table(&ifaces, dirs.iter().copied(), |_| true);
        assert_eq!(rows, [(0, 1, 6), (1, 0, 7)]);
        // R3 does not run INRPP towards R2: i1 has no detour.
        let rows = table(&ifaces, dirs.iter().copied(), |l| l != 6);
        assert_eq!(rows, [(1, 0, 7)]);
    }

    #[test]
    fn spare_capacity_and_feedback_follow_eqs_1_and_2() {
        let mut m = Meter::default();
        let t_p = 0.01;
        // 10 Mb/s link, 4 Mb/s of load: RB = 750 kB/s.
        m.sample(5_000, 10e6, t_p);
        assert!((m.residual - 750_000.0).abs() < 1e-6 && (m.load - 500_000.0).abs() < 1e-6);
        // A quiet interval moves both by a third of the way.
        m.sample(5_000, 10e6, t_p);
        assert!((m.residual - (750_000.0 + (1_250_000.0 - 750_000.0) / 3.0)).abs() < 1e-6);
        let (alpha, beta) = (0.4, 0.4 * 0.4 * 2f64.sqrt());
        let sc = m.spare(alpha, beta, t_p, 0);
        assert!((sc - alpha * t_p * m.residual).abs() < 1e-9);
        // Two contenders share Δ+.
        let f = m.feedback(sc, 2, t_p, true);
        assert!((f.increase_bps - 8.0 * sc / (2.0 * t_p)).abs() < 1e-6 && f.decrease == 0.0);
        // A queue beyond the spare capacity: Δ− = −SC / (L·T_p).
        let sc = m.spare(alpha, beta, t_p, 20_000);
        assert!(sc < 0.0);
        let f = m.feedback(sc, 1, t_p, false);
        assert!((f.decrease - (-sc / (m.load * t_p))).abs() < 1e-9 && f.increase_bps == 0.0 && !f.push);
    }

    #[test]
    fn eq_3_uses_the_tighter_leg_and_stays_within_capacity() {
        let mut d = Detour {
            primary: 0,
            target: 1,
            via_iface: 1,
            via_link: 2,
            via: 2,
            second_link: 6,
            rate_bps: 0.0,
            max_bps: 10e6,
            remote: None,
            next_departure: Time::ZERO,
            pacer: None,
            packets: 0,
            bytes: 0,
            probes: 0,
            answers: 0,
        };
        let up = |inc: f64| Feedback { push: true, increase_bps: inc, decrease: 0.0 };
        d.decide(up(4e6));
        assert_eq!(d.rate_bps, 0.0, "no answer from the detour node yet");
        d.remote = Some(up(3e6));
        d.decide(up(4e6));
        assert_eq!(d.rate_bps, 3e6);
        assert!(d.usable(State::Push) && !d.usable(State::StoreAndDetour));
        d.remote = Some(Feedback { push: true, increase_bps: 0.0, decrease: 0.25 });
        d.decide(up(4e6));
        assert_eq!(d.rate_bps, 2.25e6);
        d.remote = Some(up(20e6));
        d.decide(up(20e6));
        assert_eq!(d.rate_bps, 10e6);
        d.remote = Some(Feedback { push: false, ..up(1.0) });
        assert!(!d.usable(State::Push), "the second leg is not in Push");
    }
}
