//! Which connections IPv6 can carry in a scenario (`[[links]] families`,
//! `net::family`): a link's two interfaces have IPv6 addresses or not, a
//! host has IPv6 if any of its links does, and an IPv6 connection needs
//! IPv6 on every link its packets may cross, both ways. Routes are the
//! same for both families (one dual-stack topology).

use std::collections::HashSet;

use super::mptcp::Network;
use crate::net::NodeId;

/// Whether an IPv6 connection between interface `k` of `client` and
/// `server` has IPv6 on every link: `k`'s own, and every link of every
/// equal-cost route between `k`'s gateway and `server`, each way (ECMP may
/// hash a connection onto any of them).
pub fn v6_path(net: &Network, client: NodeId, k: u16, server: NodeId) -> bool {
    let first = net.ifaces.get(client, k);
    if !net.links[first.link as usize].v6 {
        return false;
    }
    let gateway = first.peer;
    gateway == server || (routes_v6(net, gateway, server) && routes_v6(net, server, gateway))
}

/// Whether every link direction on the routes from `from` to `to` carries IPv6.
fn routes_v6(net: &Network, from: NodeId, to: NodeId) -> bool {
    let (mut stack, mut seen) = (vec![from], HashSet::new());
    while let Some(at) = stack.pop() {
        if at == to || !seen.insert(at) {
            continue;
        }
        for &dir in net.routes.next_hops(at, to) {
            let link = &net.links[(dir / 2) as usize];
            if !link.v6 {
                return false;
            }
            stack.push(if dir % 2 == 0 { link.b } else { link.a });
        }
    }
    true
}

/// Whether `node` has an IPv6 address: one of its links carries IPv6.
pub fn has_v6(net: &Network, node: NodeId) -> bool {
    net.ifaces.of(node).iter().any(|i| net.links[i.link as usize].v6)
}
