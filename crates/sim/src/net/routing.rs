//! Static shortest-path routing, computed once before the run.
//!
//! One Dijkstra per destination over reversed edges gives, for every node,
//! the set of next-hop link directions on a shortest path (all of them, for
//! ECMP). Only routers forward: a host is never a transit hop, so a
//! multi-homed host does not become a bridge between its networks. Where
//! every link costs the same (a FatTree, equal delays), a breadth-first
//! search gives the same distances without the heap.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use crate::net::{LinkId, NodeId};
use serde::Deserialize;

pub struct Edge {
    pub from: NodeId,
    pub to: NodeId,
    pub delay_ns: u64,
}

pub struct Routes {
    /// Nodes with a row of their own.
    rows: usize,
    /// How each destination node is routed to.
    dests: Vec<Dest>,
    /// How each node's next hops are found.
    sources: Vec<Source>,
    /// The node each column routes to.
    column_node: Vec<NodeId>,
    /// For (column, row): range into `hops`, at `column * rows + row`.
    index: Vec<(u32, u32)>,
    hops: Vec<LinkId>,
}

/// How routes are chosen (`sim.routing` in a scenario).
#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RoutingMetric {
    /// Shortest path by total propagation delay (ties broken by hop count).
    #[default]
    Delay,
    /// Fewest hops.
    Hops,
}

/// A destination has its own column of next hops, or is a *stub*: a host
/// whose only incoming link direction `edge` comes from the router `gateway`.
/// Hosts never forward, so every path to a stub ends with `edge`, and from
/// anywhere but the gateway the next hops towards the stub are those towards
/// the gateway. Hosts are stubs unless multi-homed, so the table has a column
/// per router rather than per node (and, with leaves below, a row per router).
#[derive(Clone, Copy)]
enum Dest {
    Column(u32),
    Stub { column: u32, gateway: NodeId, edge: LinkId },
}

/// A node has its own row in every column, or is a *leaf*: a host whose
/// only outgoing link direction `edge` goes to the router `gateway`. Every
/// path from a leaf starts with `edge`, so its next hop towards any
/// destination the gateway reaches is `edge`; the table grows with routers ×
/// routers rather than routers × nodes (a FatTree(32): 1 280 switches,
/// 8 192 hosts).
#[derive(Clone, Copy)]
enum Source {
    Row(u32),
    Leaf { gateway: NodeId, edge: LinkId },
}

type Cost = (u64, u64);

impl Routes {
    pub fn compute(is_router: &[bool], edges: &[Edge], metric: RoutingMetric) -> Routes {
        Routes::build(is_router, edges, metric, true)
    }

    fn build(is_router: &[bool], edges: &[Edge], metric: RoutingMetric, stubs: bool) -> Routes {
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
        // Columns for routers and non-stub hosts, in node order.
        let stub_edge = |d: usize| -> Option<LinkId> {
            match incoming[d].as_slice() {
                &[l] if stubs && !is_router[d] && is_router[edges[l as usize].from as usize] => Some(l),
                _ => None,
            }
        };
        let mut column_of = vec![u32::MAX; n];
        let mut column_node = Vec::new();
        for (d, c) in column_of.iter_mut().enumerate() {
            if stub_edge(d).is_none() {
                *c = column_node.len() as u32;
                column_node.push(d as NodeId);
            }
        }
        let dests: Vec<Dest> = (0..n)
            .map(|d| match stub_edge(d) {
                Some(edge) => {
                    let gateway = edges[edge as usize].from;
                    Dest::Stub { column: column_of[gateway as usize], gateway, edge }
                }
                None => Dest::Column(column_of[d]),
            })
            .collect();
        // Rows for routers and non-leaf hosts, in node order.
        let mut row_nodes = Vec::new();
        let sources: Vec<Source> = (0..n)
            .map(|a| match outgoing[a].as_slice() {
                &[edge] if stubs && !is_router[a] && is_router[edges[edge as usize].to as usize] => Source::Leaf { gateway: edges[edge as usize].to, edge },
                _ => {
                    row_nodes.push(a);
                    Source::Row(row_nodes.len() as u32 - 1)
                }
            })
            .collect();
        let leaf = |a: usize| matches!(sources[a], Source::Leaf { .. });
        let rows = row_nodes.len();
        let mut index = vec![(0u32, 0u32); column_node.len() * rows];
        let mut hops = Vec::new();
        let mut dist: Vec<Option<Cost>> = vec![None; n];
        let uniform = edges.windows(2).all(|w| weight(&w[0]) == weight(&w[1]));
        for (col, &dst) in column_node.iter().enumerate() {
            let dst = dst as usize;
            dist.iter_mut().for_each(|d| *d = None);
            dist[dst] = Some((0, 0));
            // Distances to `dst` over reversed edges, expanding only `dst` and
            // routers; a leaf is never on a path to anything but itself.
            let expands = |v: usize| v == dst || is_router[v];
            if uniform {
                breadth_first(dst, &incoming, edges, &weight, &expands, &leaf, &mut dist);
            } else {
                dijkstra(dst, &incoming, edges, &weight, &expands, &leaf, &mut dist);
            }
            for (row, &at) in row_nodes.iter().enumerate() {
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
                index[col * rows + row] = (start, hops.len() as u32 - start);
            }
        }
        Routes { rows, dests, sources, column_node, index, hops }
    }

    fn column(&self, col: u32, row: u32) -> &[LinkId] {
        let (s, l) = self.index[col as usize * self.rows + row as usize];
        &self.hops[s as usize..(s + l) as usize]
    }

    /// Next-hop link directions from `at` towards `dst` (empty: unreachable).
    pub fn next_hops(&self, at: NodeId, dst: NodeId) -> &[LinkId] {
        let col = match &self.dests[dst as usize] {
            _ if at == dst => return &[],
            Dest::Column(c) => *c,
            Dest::Stub { gateway, edge, .. } if at == *gateway => return std::slice::from_ref(edge),
            Dest::Stub { column, .. } => *column,
        };
        match &self.sources[at as usize] {
            Source::Row(r) => self.column(col, *r),
            Source::Leaf { gateway, edge } => {
                let Source::Row(g) = self.sources[*gateway as usize] else { unreachable!("a leaf's gateway is a router, with a row") };
                if self.column_node[col as usize] == *gateway || !self.column(col, g).is_empty() {
                    std::slice::from_ref(edge)
                } else {
                    &[]
                }
            }
        }
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

/// Shortest distances to `dst` over reversed edges by Dijkstra, relaxing no
/// leaf and expanding only the nodes `expands` accepts.
fn dijkstra(
    dst: usize,
    incoming: &[Vec<LinkId>],
    edges: &[Edge],
    weight: &impl Fn(&Edge) -> Cost,
    expands: &impl Fn(usize) -> bool,
    leaf: &impl Fn(usize) -> bool,
    dist: &mut [Option<Cost>],
) {
    let mut heap = BinaryHeap::new();
    heap.push(Reverse(((0u64, 0u64), dst)));
    while let Some(Reverse((d, v))) = heap.pop() {
        if dist[v] != Some(d) || !expands(v) {
            continue;
        }
        for &l in &incoming[v] {
            let e = &edges[l as usize];
            let w = weight(e);
            let nd = (d.0 + w.0, d.1 + w.1);
            let u = e.from as usize;
            if !leaf(u) && dist[u].is_none_or(|old| nd < old) {
                dist[u] = Some(nd);
                heap.push(Reverse((nd, u)));
            }
        }
    }
}

/// The same distances when every edge costs the same: the first visit of a
/// node in breadth-first order is at its shortest distance.
fn breadth_first(
    dst: usize,
    incoming: &[Vec<LinkId>],
    edges: &[Edge],
    weight: &impl Fn(&Edge) -> Cost,
    expands: &impl Fn(usize) -> bool,
    leaf: &impl Fn(usize) -> bool,
    dist: &mut [Option<Cost>],
) {
    let mut queue = VecDeque::from([dst]);
    while let Some(v) = queue.pop_front() {
        if !expands(v) {
            continue;
        }
        let d = dist[v].expect("queued nodes have a distance");
        for &l in &incoming[v] {
            let e = &edges[l as usize];
            let u = e.from as usize;
            if !leaf(u) && dist[u].is_none() {
                let w = weight(e);
                dist[u] = Some((d.0 + w.0, d.1 + w.1));
                queue.push_back(u);
            }
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

    /// A seeded linear congruential generator (Knuth's MMIX constants): `rnd(k)` is in 0..k.
    fn lcg(seed: u64) -> impl FnMut(u64) -> u64 {
        let mut x = seed;
        move |k| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (x >> 33) % k
        }
    }

    /// Stub destinations give exactly the next hops of a column of their own,
    /// on random networks with single- and multi-homed hosts, host-host links,
    /// parallel links and equal-cost paths.
    #[test]
    fn stubs_route_like_full_columns() {
        let mut rnd = lcg(12345);
        for _ in 0..200 {
            let routers = 1 + rnd(8) as u32;
            let hosts = 1 + rnd(10) as u32;
            let n = routers + hosts;
            let is_router: Vec<bool> = (0..n).map(|i| i < routers).collect();
            let mut edges = Vec::new();
            let add = |a: u32, b: u32, d: u64, edges: &mut Vec<Edge>| {
                edges.push(e(a, b, d));
                edges.push(e(b, a, d));
            };
            for _ in 0..rnd(3 * routers as u64) {
                let (a, b) = (rnd(routers as u64) as u32, rnd(routers as u64) as u32);
                if a != b {
                    add(a, b, 1 + rnd(3), &mut edges);
                }
            }
            for h in routers..n {
                // Mostly one link; sometimes none, two, a parallel pair or a host neighbour.
                let links = match rnd(10) {
                    0 => 0,
                    1 | 2 => 2,
                    _ => 1,
                };
                for _ in 0..links {
                    let peer = if rnd(8) == 0 { rnd(n as u64) as u32 } else { rnd(routers as u64) as u32 };
                    if peer != h {
                        add(h, peer, 1 + rnd(3), &mut edges);
                    }
                }
            }
            for metric in [RoutingMetric::Delay, RoutingMetric::Hops] {
                let fast = Routes::build(&is_router, &edges, metric, true);
                let full = Routes::build(&is_router, &edges, metric, false);
                for at in 0..n {
                    for dst in 0..n {
                        assert_eq!(fast.next_hops(at, dst), full.next_hops(at, dst), "{at} -> {dst}");
                    }
                }
            }
        }
    }

    /// Breadth-first search gives Dijkstra's distances when every edge
    /// costs the same, under both metrics, with and without leaves.
    #[test]
    fn breadth_first_equals_dijkstra_on_equal_weights() {
        let mut rnd = lcg(987654321);
        for _ in 0..300 {
            let n = 2 + rnd(20) as usize;
            let is_router: Vec<bool> = (0..n).map(|_| rnd(3) != 0).collect();
            let delay = rnd(3);
            let edges: Vec<Edge> = (0..rnd(4 * n as u64)).map(|_| e(rnd(n as u64) as u32, rnd(n as u64) as u32, delay)).collect();
            let mut incoming: Vec<Vec<LinkId>> = vec![Vec::new(); n];
            for (id, ed) in edges.iter().enumerate() {
                incoming[ed.to as usize].push(id as LinkId);
            }
            let leaves: Vec<bool> = (0..n).map(|_| rnd(4) == 0).collect();
            for metric in [RoutingMetric::Delay, RoutingMetric::Hops] {
                let weight = |ed: &Edge| -> Cost {
                    match metric {
                        RoutingMetric::Delay => (ed.delay_ns, 1),
                        RoutingMetric::Hops => (1, 0),
                    }
                };
                for dst in 0..n {
                    let expands = |v: usize| v == dst || is_router[v];
                    let leaf = |u: usize| u != dst && leaves[u];
                    let (mut a, mut b) = (vec![None; n], vec![None; n]);
                    a[dst] = Some((0, 0));
                    b[dst] = Some((0, 0));
                    dijkstra(dst, &incoming, &edges, &weight, &expands, &leaf, &mut a);
                    breadth_first(dst, &incoming, &edges, &weight, &expands, &leaf, &mut b);
                    assert_eq!(a, b, "dst {dst}");
                }
            }
        }
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
