//! Parking lot: routers r0..r{hops} in a chain of links l1..l{hops}; a long
//! flow's hosts src_long/dst_long at the chain's ends, and for every link l{i}
//! a cross-traffic pair src{i} (on r{i-1}) and dst{i} (on r{i}).

use super::{link, node};
use crate::scenario::error::Problems;
use crate::scenario::spec::{LinkParams, LinkSpec, NodeKind, NodeSpec};

pub fn generate(
    hops: u32,
    access: &LinkParams,
    chain: &LinkParams,
    nodes: &mut Vec<NodeSpec>,
    links: &mut Vec<LinkSpec>,
    p: &mut Problems,
) {
    if hops == 0 {
        p.add("topology.hops", "must be at least 1");
        return;
    }
    for r in 0..=hops {
        nodes.push(node(format!("r{r}"), NodeKind::Router));
    }
    for i in 1..=hops {
        links.push(link(format!("l{i}"), &format!("r{}", i - 1), &format!("r{i}"), chain));
    }
    let last = format!("r{hops}");
    for (host, router) in [("src_long", "r0"), ("dst_long", last.as_str())] {
        nodes.push(node(host.into(), NodeKind::Host));
        links.push(link(format!("{host}-{router}"), host, router, access));
    }
    for i in 1..=hops {
        let (s, d) = (format!("src{i}"), format!("dst{i}"));
        let (rs, rd) = (format!("r{}", i - 1), format!("r{i}"));
        nodes.push(node(s.clone(), NodeKind::Host));
        nodes.push(node(d.clone(), NodeKind::Host));
        links.push(link(format!("{s}-{rs}"), &s, &rs, access));
        links.push(link(format!("{d}-{rd}"), &d, &rd, access));
    }
}
