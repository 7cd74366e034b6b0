//! Green MPTCP's scheduler, Rule 2 (green-mptcp-iiot-energy.txt §3.2):
//! split the stream over the subflows by the energy cost of their interfaces
//! and their current throughput. `green` and `green_literal` are one
//! mechanism with two shares.
//!
//! **The shares.** Interface i costs g_i = w_i + w_D/n per unit of data: its
//! own weight plus the device's, spread over the device's n interfaces
//! (`LinearParams::channel_weights`). Channel i's throughput is
//!
//!   h_i = inflight_i / srtt_i                                          (6)
//!
//! and sending v_i through it at instant k costs (eq. 3)
//!
//!   E = Σ_i g_i · v_i² / h_i.                                          (3)
//!
//! The scheduler splits a given volume V = Σ_i v_i, it does not set it.
//! Minimising (3) under that constraint, with a Lagrange multiplier λ:
//! ∂/∂v_i [E − λ(Σ_j v_j − V)] = 2·g_i·v_i/h_i − λ = 0, so v_i = λ·h_i/(2·g_i),
//!
//!   v_i ∝ h_i / g_i                                                     (`green`)
//!
//! — the minimum, since (3) is convex in v. The paper instead sets
//! ∂E/∂v_i = 0 channel by channel (which alone gives v_i = 0), prints
//! v_i^opt = 2·g_i/h_i, and splits by
//!
//!   v_i / v_j = (g_i/h_i) / (g_j/h_j),                                 (5)
//!
//! i.e. v_i ∝ g_i / h_i (`green_literal`): the minimiser's inverse, which
//! sends more on the costlier and the slower channel.
//!
//! **Throughput.** h_i = max(inflight_i, `h_floor_segments` · mss_i) / srtt_i:
//! with the floor, a subflow with nothing in flight is neither starved
//! (`green`, h_i = 0 gives it no share, and so nothing to put in flight) nor
//! handed everything (`green_literal` would divide by h_i = 0). A subflow
//! without an RTT sample yet takes the largest srtt of the others (it is
//! assumed no faster than the slowest one measured); when none has a
//! sample, the shares are equal.
//!
//! **Shares to segments: a deficit counter.** Each chunk is one decision
//! (the paper's instant k). Every chunk sent credits each subflow that may
//! carry data with share_i × the chunk's length; the chunk goes to the
//! subflow with the largest credit, ties to the first, which is then debited
//! the chunk's length. Credits stay within ±`credit_limit` bytes, so old
//! history fades: a subflow that could not take its share for a while makes
//! up for it only until its credit, at most the limit, is spent, and the
//! others' debts are bounded alike. A subflow that cannot carry data
//! (closed, failed, potentially failed, or a backup while a non-backup one
//! is usable) starts again from 0.
//!
//! - `hold = false` (the default, work-conserving): the chunk goes to the
//!   subflow with the largest credit among those with room in their window
//!   (usable, not in loss recovery); the scheduler waits only when none has
//!   room.
//! - `hold = true`: the chunk goes to the subflow with the largest credit; if
//!   it has no room, the scheduler waits for it rather than send on another.
//! - Backup subflows carry data only while no non-backup subflow is usable
//!   (as `minrtt`); the shares are over the subflows that may carry data.
//! - A chunk being reinjected goes to a subflow that has not carried it,
//!   while one of those may carry data, and waits for it if it has no room;
//!   when all have carried it, any may carry it again.
//! - New data never goes beyond the receive window (`next_segment`).
//!
//! The feedback through h_i: more data on a subflow puts more in flight,
//! which raises its h_i and, under `green`, its share (under
//! `green_literal`, the opposite: more in flight lowers it). docs/green.md
//! describes what that does to bulk and application-limited streams.

use super::{next_segment, Chunk, ConnectionView, Scheduler, Step, SubflowView};
use crate::cc::Params;

/// `green`'s and `green_literal`'s `scheduler_params`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GreenParams {
    /// h_i counts at least this many segments in flight (default 1).
    pub h_floor_segments: f64,
    /// Wait for the subflow whose turn it is rather than use another (default false).
    pub hold: bool,
    /// The deficit counters stay within ± this many bytes (default 64 KiB).
    pub credit_limit: f64,
}

impl GreenParams {
    pub fn read(p: &mut Params) -> GreenParams {
        let h_floor_segments = p.number("h_floor_segments", 1.0, |v| v > 0.0, "positive");
        let hold = p.flag("hold", false);
        let credit_limit = p.bytes("credit_limit", |b| b > 0, "positive").unwrap_or(64 * 1024) as f64;
        GreenParams { h_floor_segments, hold, credit_limit }
    }
}

/// Each channel's share of the data from its cost g_i and throughput h_i:
/// v_i ∝ h_i/g_i (the minimiser of eq. 3) or, `literal`, v_i ∝ g_i/h_i
/// (eq. 5 as printed). The shares sum to 1.
pub fn shares(g: &[f64], h: &[f64], literal: bool) -> Vec<f64> {
    let v: Vec<f64> = g.iter().zip(h).map(|(g, h)| if literal { g / h } else { h / g }).collect();
    let total: f64 = v.iter().sum();
    v.iter().map(|x| x / total).collect()
}

/// h_i of eq. 6 in bytes per second, counting at least `floor` segments in
/// flight; a subflow without an RTT sample takes the largest srtt of the
/// others. None when none has a sample.
pub fn throughputs(subflows: &[&SubflowView], floor: f64) -> Option<Vec<f64>> {
    let slowest = subflows.iter().filter_map(|s| s.srtt).max()?;
    Some(
        subflows
            .iter()
            .map(|s| (s.in_flight as f64).max(floor * s.mss as f64) / s.srtt.unwrap_or(slowest).secs())
            .collect(),
    )
}

pub struct Green {
    /// Eq. 5 as printed (`green_literal`) instead of the minimiser (`green`).
    literal: bool,
    params: GreenParams,
    /// g_i by the data sender's interface index.
    g: Vec<f64>,
    /// The deficit counter of each subflow, by id, bytes.
    credit: Vec<f64>,
}

impl Green {
    /// `g[i]` is interface i's g_i, each positive.
    pub fn new(literal: bool, params: GreenParams, g: Vec<f64>) -> Green {
        Green { literal, params, g, credit: Vec::new() }
    }

    /// `green` or (`literal`) `green_literal` with the parameters in `p`;
    /// Err says why the energy profile cannot be used.
    pub fn build(literal: bool, p: &mut Params, profile: Option<&[f64]>) -> Result<Box<dyn Scheduler>, String> {
        let params = GreenParams::read(p);
        let name = if literal { "green_literal" } else { "green" };
        let g = profile.ok_or_else(|| {
            format!(
                "'{name}' needs the data sender's energy profile (g_i = w_i + w_device/n per interface): \
                 give its host a [[devices]] entry with linear = {{ w = {{ ... }} }}"
            )
        })?;
        if let Some((i, x)) = g.iter().enumerate().find(|(_, x)| !(x.is_finite() && **x > 0.0)) {
            return Err(format!("'{name}' divides by g_i = w_i + w_device/n, which is {x} on interface {i}: every g_i must be positive"));
        }
        Ok(Box::new(Green::new(literal, params, g.to_vec())))
    }

    /// The share of each subflow in `carriers`.
    fn shares_of(&self, carriers: &[&SubflowView]) -> Vec<f64> {
        match throughputs(carriers, self.params.h_floor_segments) {
            Some(h) => {
                let g: Vec<f64> = carriers.iter().map(|s| self.g[s.iface as usize]).collect();
                shares(&g, &h, self.literal)
            }
            None => vec![1.0 / carriers.len() as f64; carriers.len()],
        }
    }

    fn pick(&mut self, subflows: &[SubflowView], chunk: &Chunk) -> Option<usize> {
        // Backups carry data only while no non-backup subflow is usable.
        let backup = !subflows.iter().any(|s| s.usable && !s.backup);
        let carriers: Vec<&SubflowView> = subflows.iter().filter(|s| s.usable && s.backup == backup).collect();
        let len = chunk.len as f64;
        let credit: Vec<f64> = carriers
            .iter()
            .zip(self.shares_of(&carriers))
            .map(|(s, share)| self.credit.get(s.id).copied().unwrap_or(0.0) + share * len)
            .collect();
        let fresh = |s: &SubflowView| chunk.sent_on & s.bit == 0;
        let any_fresh = carriers.iter().any(|s| fresh(s));
        let hold = self.params.hold;
        let best = (0..carriers.len())
            .filter(|&k| (!any_fresh || fresh(carriers[k])) && (hold || carriers[k].available()))
            .reduce(|a, b| if credit[b] > credit[a] { b } else { a })?;
        if !carriers[best].available() {
            // `hold`: the subflow whose turn it is has no room.
            return None;
        }
        let limit = self.params.credit_limit;
        let mut next = vec![0.0; subflows.iter().map(|s| s.id + 1).max().unwrap_or(0)];
        for (k, s) in carriers.iter().enumerate() {
            let debit = if k == best { len } else { 0.0 };
            next[s.id] = (credit[k] - debit).clamp(-limit, limit);
        }
        self.credit = next;
        Some(carriers[best].id)
    }
}

impl Scheduler for Green {
    fn next(&mut self, subflows: &[SubflowView], conn: &ConnectionView) -> Step {
        next_segment(subflows, conn, |sf, chunk| self.pick(sf, chunk))
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{conn, sf};
    use super::*;
    use crate::cc::ParamTable;
    use std::collections::VecDeque;

    const DEFAULTS: GreenParams = GreenParams { h_floor_segments: 1.0, hold: false, credit_limit: 65536.0 };

    fn close(a: &[f64], b: &[f64]) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-12)
    }

    /// Which subflow each of `n` new chunks goes to, the views unchanged.
    fn picks(s: &mut Green, views: &[SubflowView], n: usize) -> Vec<Option<usize>> {
        let unacked = VecDeque::new();
        (0..n as u64)
            .map(|i| match s.next(views, &conn(&unacked, Some(i * 1000), false)) {
                Step::Send { subflow, .. } => Some(subflow),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn shares_follow_the_minimiser_or_eq_5_as_printed() {
        // Equal h, g_2 = 2·g_1: v ∝ h/g = 1 : 1/2; eq. 5, v ∝ g/h = 1 : 2.
        assert!(close(&shares(&[1.0, 2.0], &[5.0, 5.0], false), &[2.0 / 3.0, 1.0 / 3.0]));
        assert!(close(&shares(&[1.0, 2.0], &[5.0, 5.0], true), &[1.0 / 3.0, 2.0 / 3.0]));
        // Equal g, h_1 = 3·h_2: the minimiser follows the throughput, eq. 5 its inverse.
        assert!(close(&shares(&[1.0, 1.0], &[3.0, 1.0], false), &[0.75, 0.25]));
        assert!(close(&shares(&[1.0, 1.0], &[3.0, 1.0], true), &[0.25, 0.75]));
        // h/g = 1 : 2 and g/h = 1 : 1/2.
        assert!(close(&shares(&[1.0, 2.0], &[1.0, 4.0], false), &[1.0 / 3.0, 2.0 / 3.0]));
        assert!(close(&shares(&[1.0, 2.0], &[1.0, 4.0], true), &[2.0 / 3.0, 1.0 / 3.0]));
    }

    #[test]
    fn the_deficit_counter_splits_chunks_by_the_shares() {
        // Nothing in flight, equal srtt: h equal, shares 2/3 : 1/3.
        let views = [sf(0, 20, 1000), sf(1, 20, 1000)];
        for (literal, want) in [(false, [200, 100]), (true, [100, 200])] {
            let mut s = Green::new(literal, DEFAULTS, vec![1.0, 2.0]);
            let got = picks(&mut s, &views, 300);
            let on = |id| got.iter().filter(|&&p| p == Some(id)).count() as i64;
            assert!((on(0) - want[0]).abs() <= 1 && (on(1) - want[1]).abs() <= 1, "literal {literal}: {} : {}", on(0), on(1));
        }
    }

    #[test]
    fn hold_waits_for_the_subflow_whose_turn_it_is() {
        let mut views = [sf(0, 20, 10), sf(1, 20, 10)];
        views[0].in_flight = 10_000; // full, and with h_0 > h_1 its share is larger still
        let work_conserving = picks(&mut Green::new(false, DEFAULTS, vec![1.0, 2.0]), &views, 3);
        assert_eq!(work_conserving, [Some(1); 3]);
        let hold = picks(&mut Green::new(false, GreenParams { hold: true, ..DEFAULTS }, vec![1.0, 2.0]), &views, 1);
        assert_eq!(hold, [None]);
        // With room again, the cheaper subflow makes up for the turns it missed.
        let mut s = Green::new(false, DEFAULTS, vec![1.0, 2.0]);
        picks(&mut s, &views, 10);
        views[0].in_flight = 0;
        assert_eq!(picks(&mut s, &views, 3), [Some(0); 3]);
    }

    #[test]
    fn credits_stay_within_the_limit() {
        let mut views = [sf(0, 20, 10), sf(1, 20, 10)];
        views[0].in_flight = 10_000;
        let mut s = Green::new(false, GreenParams { credit_limit: 3000.0, ..DEFAULTS }, vec![1.0, 1.0]);
        picks(&mut s, &views, 100);
        assert!(s.credit.iter().all(|c| c.abs() <= 3000.0), "{:?}", s.credit);
        // Back with room, subflow 0 makes up for 100 missed turns only up to
        // the limits: its credit 3000 against the other's −3000 closes by
        // 1000 bytes a chunk, 6 chunks and a tie, then they alternate.
        views[0].in_flight = 0;
        let got = picks(&mut s, &views, 9);
        assert_eq!(got, [[Some(0); 7].as_slice(), &[Some(1), Some(0)]].concat());
    }

    #[test]
    fn floors_for_nothing_in_flight_and_no_rtt_sample() {
        let mut views = [sf(0, 10, 10), sf(1, 40, 10), sf(2, 10, 10)];
        views[0].in_flight = 5000;
        views[2].srtt = None;
        let h = throughputs(&views.iter().collect::<Vec<_>>(), 2.0).unwrap();
        // 5000 bytes in 10 ms; the floor of 2 segments in 40 ms; subflow 2 takes the largest srtt, 40 ms.
        assert!(close(&h, &[500_000.0, 50_000.0, 50_000.0]), "{h:?}");
        // green_literal with nothing in flight anywhere: finite shares, not a division by zero.
        views[0].in_flight = 0;
        let literal = Green::new(true, DEFAULTS, vec![1.0, 1.0, 1.0]);
        let sh = literal.shares_of(&views.iter().collect::<Vec<_>>());
        assert!(sh.iter().all(|x| x.is_finite() && *x > 0.0), "{sh:?}");
        // No sample anywhere: equal shares whatever g says.
        views.iter_mut().for_each(|s| s.srtt = None);
        let green = Green::new(false, DEFAULTS, vec![1.0, 5.0, 9.0]);
        assert!(close(&green.shares_of(&views.iter().collect::<Vec<_>>()), &[1.0 / 3.0; 3]));
    }

    #[test]
    fn backups_only_when_no_other_subflow_is_usable() {
        // The backup is far cheaper, and has room; the non-backup one is full.
        let mut views = [sf(0, 20, 10), sf(1, 20, 10)];
        views[1].backup = true;
        views[0].in_flight = 10_000;
        let mut s = Green::new(false, DEFAULTS, vec![10.0, 1.0]);
        assert_eq!(picks(&mut s, &views, 1), [None]);
        views[0].usable = false;
        assert_eq!(picks(&mut s, &views, 2), [Some(1); 2]);
    }

    #[test]
    fn reinjections_prefer_subflows_that_have_not_carried_the_chunk() {
        let views = [sf(0, 20, 10), sf(1, 20, 10)];
        let mut s = Green::new(false, DEFAULTS, vec![1.0, 100.0]);
        let chunk = Chunk { dsn: 0, len: 1000, sent_on: 1 };
        assert_eq!(s.pick(&views, &chunk), Some(1), "subflow 0 carried it");
        assert_eq!(s.pick(&views, &Chunk { sent_on: 3, ..chunk }), Some(0), "both did: the shares decide");
        let unacked = VecDeque::new();
        assert_eq!(s.next(&views, &conn(&unacked, Some(0), true)), Step::Wait, "window-limited");
    }

    #[test]
    fn parameters_and_the_energy_profile_are_checked() {
        let table: ParamTable = [("hold".to_string(), crate::cc::ParamValue::Bool(true))].into();
        let mut p = Params::new("green", &table);
        assert!(Green::build(false, &mut p, Some(&[1.0, 2.0])).is_ok());
        assert!(p.finish().is_ok());
        let mut p = Params::new("green", &table);
        let e = Green::build(false, &mut p, None).err().unwrap();
        assert!(e.contains("[[devices]]") && e.contains("linear"), "{e}");
        let e = Green::build(true, &mut p, Some(&[1.0, 0.0])).err().unwrap();
        assert!(e.contains("0 on interface 1"), "{e}");
        let table: ParamTable = [("h_floor".to_string(), crate::cc::ParamValue::Number(2.0))].into();
        let mut p = Params::new("green", &table);
        let _ = Green::build(false, &mut p, Some(&[1.0]));
        let problems = p.finish().unwrap_err();
        assert_eq!(problems[0].0, "h_floor");
        assert!(problems[0].1.contains("known: credit_limit, h_floor_segments, hold"), "{}", problems[0].1);
    }
}
