//! Dumbbell: senders src0.. on router `left`, receivers dst0.. on router
//! `right`, one shared link `bottleneck` between the routers (the layout of
//! ns-3's PointToPointDumbbellHelper).

use super::{link, node};
use crate::scenario::error::Problems;
use crate::scenario::spec::{LinkParams, LinkSpec, NodeKind, NodeSpec};
use crate::units::Duration;

pub fn generate(
    pairs: u32,
    access: &LinkParams,
    bottleneck: &LinkParams,
    access_delays: Option<&[Duration]>,
    nodes: &mut Vec<NodeSpec>,
    links: &mut Vec<LinkSpec>,
    p: &mut Problems,
) {
    if pairs == 0 {
        p.add("topology.pairs", "must be at least 1");
        return;
    }
    if let Some(d) = access_delays {
        if d.len() != pairs as usize {
            p.add("topology.access_delays", format!("has {} entries for {pairs} pairs", d.len()));
            return;
        }
    }
    nodes.push(node("left".into(), NodeKind::Router));
    nodes.push(node("right".into(), NodeKind::Router));
    links.push(link("bottleneck".into(), "left", "right", bottleneck));
    for i in 0..pairs as usize {
        let (s, d) = (format!("src{i}"), format!("dst{i}"));
        nodes.push(node(s.clone(), NodeKind::Host));
        nodes.push(node(d.clone(), NodeKind::Host));
        let mut up = access.clone();
        if let Some(delays) = access_delays {
            up.delay = delays[i];
        }
        links.push(link(format!("{s}-left"), &s, "left", &up));
        links.push(link(format!("right-{d}"), "right", &d, access));
    }
}
