//! Static shortest-path routing, computed once before the run.
//!
//! One Dijkstra per destination over reversed edges gives, for every node,
//! the set of next-hop link directions on a shortest path (all of them, for
//! ECMP). Only routers forward: a host is never a transit hop, so a
//! multi-homed host does not become a bridge between its networks.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::net::{LinkId, NodeId};
use crate::scenario::spec::RoutingMetric;

pub struct Edge {
    pub from: NodeId,
    pub to: NodeId,
    pub delay_ns: u64,
}

pub struct Routes {
    n: usize,
    /// For (at, dst): range into `hops`.
    index: Vec<(u32, u32)>,
    hops: Vec<LinkId>,
}

type Cost = (u64, u64);

impl Routes {
    pub fn compute(is_router: &[bool], edges: &[Edge], metric: RoutingMetric) -> Routes {
        let n = is_router.len();
        let mut incoming: Vec<Vec<LinkId>> = vec![Vec::new(); n];
        let mut outgoing: Vec<Vec<LinkId>> = vec![Vec::new(); n];
        for (id, e) in edges.iter().enumerate() {
            incoming[e.to as usize].push(id as LinkId);
            outgoing[e.from as usize].push(id as LinkId);
        }
        let weight = |e: &Edge| -> Cost {
            match metric {
                RoutingMetric::Delay => (e.delay_ns, 1),
                RoutingMetric::Hops => (1, 0),
            }
        };
        let mut index = vec![(0u32, 0u32); n * n];
        let mut hops = Vec::new();
        let mut dist: Vec<Option<Cost>> = vec![None; n];
        for dst in 0..n {
            dist.iter_mut().for_each(|d| *d = None);
            dist[dst] = Some((0, 0));
            let mut heap = BinaryHeap::new();
            heap.push(Reverse(((0u64, 0u64), dst)));
            while let Some(Reverse((d, v))) = heap.pop() {
                if dist[v] != Some(d) || (v != dst && !is_router[v]) {
                    continue;
                }
                for &l in &incoming[v] {
                    let e = &edges[l as usize];
                    let w = weight(e);
                    let nd = (d.0 + w.0, d.1 + w.1);
                    let u = e.from as usize;
                    if dist[u].is_none_or(|old| nd < old) {
                        dist[u] = Some(nd);
                        heap.push(Reverse((nd, u)));
                    }
                }
            }
            for at in 0..n {
                let Some(d_at) = dist[at] else { continue };
                if at == dst {
                    continue;
                }
                let start = hops.len() as u32;
                for &l in &outgoing[at] {
                    let e = &edges[l as usize];
                    let v = e.to as usize;
                    let transit_ok = v == dst || is_router[v];
                    if let (true, Some(d_v)) = (transit_ok, dist[v]) {
                        let w = weight(e);
                        if (d_v.0 + w.0, d_v.1 + w.1) == d_at {
                            hops.push(l);
                        }
                    }
                }
                index[at * n + dst] = (start, hops.len() as u32 - start);
            }
        }
        Routes { n, index, hops }
    }

    /// Next-hop link directions from `at` towards `dst` (empty: unreachable).
    pub fn next_hops(&self, at: NodeId, dst: NodeId) -> &[LinkId] {
        let (s, l) = self.index[at as usize * self.n + dst as usize];
        &self.hops[s as usize..(s + l) as usize]
    }

    pub fn reachable(&self, src: NodeId, dst: NodeId) -> bool {
        src == dst || !self.next_hops(src, dst).is_empty()
    }

    /// The next hop for a flow: per-flow hashing over equal-cost choices when
    /// `ecmp`, else always the first (lowest link id), as a single-path router would.
    pub fn next_hop(&self, at: NodeId, dst: NodeId, flow: u32, ecmp: bool) -> Option<LinkId> {
        let hops = self.next_hops(at, dst);
        match hops.len() {
            0 => None,
            1 => Some(hops[0]),
            k if ecmp => Some(hops[(flow_hash(flow, at) % k as u64) as usize]),
            _ => Some(hops[0]),
        }
    }
}

/// A per-(flow, node) hash so consecutive routers do not pick correlated paths.
fn flow_hash(flow: u32, at: NodeId) -> u64 {
    let mut x = ((flow as u64) << 32 | at as u64).wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(from: u32, to: u32, ms: u64) -> Edge {
        Edge { from, to, delay_ns: ms * 1_000_000 }
    }

    #[test]
    fn delay_vs_hops_and_ecmp_and_no_host_transit() {
        // host0 - r1 - host3 (2 hops, 20 ms) and host0 - r2 - r4 - host3 (3 hops, 3 ms).
        let is_router = [false, true, true, false, true];
        let mut edges = Vec::new();
        for (a, b, d) in [(0, 1, 10), (1, 3, 10), (0, 2, 1), (2, 4, 1), (4, 3, 1)] {
            edges.push(e(a, b, d));
            edges.push(e(b, a, d));
        }
        let r = Routes::compute(&is_router, &edges, RoutingMetric::Delay);
        assert_eq!(r.next_hops(0, 3), &[4]); // 0->2
        let r = Routes::compute(&is_router, &edges, RoutingMetric::Hops);
        assert_eq!(r.next_hops(0, 3), &[0]); // 0->1
        // Equal delays: two next hops.
        let edges2 = vec![e(0, 1, 1), e(0, 2, 1), e(1, 3, 1), e(2, 3, 1)];
        let r = Routes::compute(&[false, true, true, false], &edges2, RoutingMetric::Delay);
        assert_eq!(r.next_hops(0, 3).len(), 2);
        // A host in the middle does not forward.
        let edges3 = vec![e(0, 1, 1), e(1, 2, 1)];
        let r = Routes::compute(&[false, false, false], &edges3, RoutingMetric::Delay);
        assert!(!r.reachable(0, 2));
        assert!(r.reachable(0, 1));
    }
}
