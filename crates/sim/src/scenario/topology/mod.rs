//! Built-in topology generators. Each writes plain node and link entries, as
//! if the user had typed them, so everything downstream validates them alike.

pub mod cch;
pub mod detour_census;
pub mod dumbbell;
pub mod graphml;
pub mod fattree;
pub mod ndnsim_reader;
pub mod parking_lot;
pub mod rocketfuel;
pub mod zoo;

use crate::scenario::error::Problems;
use crate::scenario::spec::{DelaySpec, LinkParams, LinkSpec, NodeKind, NodeSpec, TopologySpec};
use crate::scenario::Source;

pub fn generate(t: &TopologySpec, src: &Source, nodes: &mut Vec<NodeSpec>, links: &mut Vec<LinkSpec>, p: &mut Problems) {
    match t {
        TopologySpec::Dumbbell { pairs, access, bottleneck, access_delays } => {
            dumbbell::generate(*pairs, access, bottleneck, access_delays.as_deref(), nodes, links, p)
        }
        TopologySpec::ParkingLot { hops, access, link } => parking_lot::generate(*hops, access, link, nodes, links, p),
        TopologySpec::Rocketfuel { map, prune, largest_component, link, edge_link, latencies, hosts } => rocketfuel::generate(
            map,
            *prune,
            *largest_component,
            link,
            edge_link.as_ref(),
            latencies.as_deref(),
            hosts.as_ref(),
            src,
            nodes,
            links,
            p,
        ),
        TopologySpec::Zoo { file, link, delay, external, largest_component, hosts } => {
            zoo::generate(file, link, *delay, *external, *largest_component, hosts.as_ref(), src, nodes, links, p)
        }
        TopologySpec::Fattree { k, rate, delay, queue, queue_bytes, host_queue } => fattree::generate(
            fattree::Params { k: *k, rate: *rate, delay: *delay, queue: *queue, queue_bytes: *queue_bytes, host_queue: *host_queue, nodes, links },
            p,
        ),
    }
}

fn node(name: String, kind: NodeKind) -> NodeSpec {
    NodeSpec { name, kind }
}

fn link(name: String, a: &str, b: &str, params: &LinkParams) -> LinkSpec {
    LinkSpec {
        name: Some(name),
        a: a.into(),
        b: b.into(),
        rate: Some(params.rate),
        delay: Some(DelaySpec::Constant(params.delay)),
        jitter: params.jitter,
        queue: params.queue,
        queue_bytes: params.queue_bytes,
        loss: params.loss.clone(),
        capacity: None,
        mtu: params.mtu,
        families: None,
        a_to_b: Default::default(),
        b_to_a: Default::default(),
        events: Vec::new(),
    }
}
