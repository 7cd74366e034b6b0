//! Interfaces and interface-bound forwarding.
//!
//! An address is (node, interface); a node's interfaces are numbered in the
//! order links attach to it, and each interface has exactly one link. A
//! packet bound to interfaces (an MPTCP subflow's) is source-routed at its
//! origin, leaving over its source interface's link whatever the node's
//! routing table says (per-interface routing on a multi-homed host). Towards
//! its destination interface, routers forward it to that interface's
//! *gateway* — the node at the far end of the interface's link — and the
//! gateway hands it over that link. Unbound packets (`ANY_INTERFACE`) are
//! routed by node alone.

use crate::net::routing::Routes;
use crate::net::{LinkId, NodeId};

/// One interface of a node.
#[derive(Debug, Clone, Copy)]
pub struct Interface {
    /// The scenario link attached to it.
    pub link: u32,
    /// The link direction leaving the node through it.
    pub out: LinkId,
    /// The link direction arriving at the node through it.
    pub inbound: LinkId,
    /// The node at the other end of the link (the interface's gateway).
    pub peer: NodeId,
}

pub struct Interfaces {
    by_node: Vec<Vec<Interface>>,
}

impl Interfaces {
    /// `attached[n]` lists node n's interfaces in order as (link, side), side 0
    /// being the link's `a` end; direction d of link i has LinkId 2i + d.
    pub fn new(attached: Vec<Vec<(u32, usize)>>, ends: &[(NodeId, NodeId)]) -> Interfaces {
        let by_node = attached
            .into_iter()
            .map(|list| {
                list.into_iter()
                    .map(|(link, side)| {
                        let (a, b) = ends[link as usize];
                        Interface {
                            link,
                            out: 2 * link + side as LinkId,
                            inbound: 2 * link + 1 - side as LinkId,
                            peer: if side == 0 { b } else { a },
                        }
                    })
                    .collect()
            })
            .collect();
        Interfaces { by_node }
    }

    pub fn of(&self, node: NodeId) -> &[Interface] {
        &self.by_node[node as usize]
    }

    pub fn get(&self, node: NodeId, iface: u16) -> Interface {
        self.by_node[node as usize][iface as usize]
    }

    /// Next hop at `at` (not `dst` itself) towards interface `dst_if` of `dst`.
    pub fn next_hop(&self, routes: &Routes, at: NodeId, dst: NodeId, dst_if: u16, key: u32, ecmp: bool) -> Option<LinkId> {
        let i = self.get(dst, dst_if);
        if at == i.peer {
            Some(i.inbound)
        } else {
            routes.next_hop(at, i.peer, key, ecmp)
        }
    }

    /// Whether packets sent from interface `si` of `s` reach `d` (routed by
    /// node from the interface's gateway on), and `d`'s replies bound to
    /// `si` come back: a single-path flow bound to one interface.
    pub fn reachable_from(&self, routes: &Routes, is_router: &[bool], s: NodeId, si: u16, d: NodeId) -> bool {
        let gateway = self.get(s, si).peer;
        gateway == d || (is_router[gateway as usize] && routes.reachable(gateway, d) && routes.reachable(d, gateway))
    }

    /// Whether packets sent from interface `si` of `s` reach `d` bound to
    /// interface `di`, with only routers in between. The first hop is `si`'s
    /// link; a packet that lands on `d` directly is delivered there.
    pub fn reachable(&self, routes: &Routes, is_router: &[bool], s: NodeId, si: u16, d: NodeId, di: u16) -> bool {
        let (first, last) = (self.get(s, si), self.get(d, di));
        if first.peer == d {
            return true;
        }
        let (n1, gateway) = (first.peer, last.peer);
        is_router[n1 as usize] && is_router[gateway as usize] && (n1 == gateway || routes.reachable(n1, gateway))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::routing::Edge;
    use crate::net::routing::RoutingMetric;

    /// Host 0 (two interfaces) — routers 1 and 2 — host 3 (two interfaces), and
    /// a core link 1–2: links 0: 0–1, 1: 0–2, 2: 1–3, 3: 2–3, 4: 1–2.
    fn diamond() -> (Interfaces, Routes, Vec<bool>) {
        let ends = [(0, 1), (0, 2), (1, 3), (2, 3), (1, 2)];
        let mut attached = vec![Vec::new(); 4];
        for (i, &(a, b)) in ends.iter().enumerate() {
            attached[a as usize].push((i as u32, 0));
            attached[b as usize].push((i as u32, 1));
        }
        let edges: Vec<Edge> = ends
            .iter()
            .flat_map(|&(a, b)| [Edge { from: a, to: b, delay_ns: 1 }, Edge { from: b, to: a, delay_ns: 1 }])
            .collect();
        let is_router = vec![false, true, true, false];
        let routes = Routes::compute(&is_router, &edges, RoutingMetric::Delay);
        (Interfaces::new(attached, &ends), routes, is_router)
    }

    #[test]
    fn forwards_to_the_destination_interfaces_gateway() {
        let (ifs, routes, is_router) = diamond();
        // Host 0 leaves by its second interface (link 1, towards router 2).
        assert_eq!(ifs.get(0, 1).out, 2);
        // Towards host 3's first interface (link 2, gateway router 1): router 2
        // crosses the core link to router 1, which hands over link 2.
        assert_eq!(ifs.next_hop(&routes, 2, 3, 0, 0, false), Some(9)); // link 4, 2→1
        assert_eq!(ifs.next_hop(&routes, 1, 3, 0, 0, false), Some(4)); // link 2, 1→3
        assert!(ifs.reachable(&routes, &is_router, 0, 1, 3, 0));
        assert!(ifs.reachable(&routes, &is_router, 3, 0, 0, 1));
    }

    #[test]
    fn hosts_do_not_relay() {
        // 0 — 1 (host) — 2 (router) — 3: 0 cannot reach 3 through host 1.
        let ends = [(0, 1), (1, 2), (2, 3)];
        let attached = vec![vec![(0, 0)], vec![(0, 1), (1, 0)], vec![(1, 1), (2, 0)], vec![(2, 1)]];
        let edges: Vec<Edge> = ends
            .iter()
            .flat_map(|&(a, b)| [Edge { from: a, to: b, delay_ns: 1 }, Edge { from: b, to: a, delay_ns: 1 }])
            .collect();
        let is_router = vec![false, false, true, false];
        let routes = Routes::compute(&is_router, &edges, RoutingMetric::Delay);
        let ifs = Interfaces::new(attached, &ends);
        assert!(!ifs.reachable(&routes, &is_router, 0, 0, 3, 0));
        assert!(ifs.reachable(&routes, &is_router, 0, 0, 1, 0));
    }
}
