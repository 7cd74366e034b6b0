//! Rocketfuel ISP maps (Spring et al., SIGCOMM 2002) read from a `.cch`
//! file: routers `r{uid}`, one link `r{a}-r{b}` (a < b) per internal
//! router-router adjacency, and optionally `N` hosts `h{uid}_{k}` on every
//! edge router.
//!
//! Routers are classified as in the INRPP paper (§IV-D): *edge* routers have
//! degree < 3, *gateway* routers degree > 2 and an edge neighbour, and
//! *backbone* routers are the rest. Links between an edge and a gateway
//! router take `edge_link`'s parameters, all others `link`'s.

use std::collections::{BTreeMap, BTreeSet};

use super::cch::{self, CchMap};
use super::ndnsim_reader;
use super::{link, node};
use crate::files::{read_text, FileKind};
use crate::scenario::build::resolve_path;
use crate::scenario::error::Problems;
use crate::scenario::spec::{LinkParams, LinkSpec, NodeKind, NodeSpec, RocketfuelHosts, RocketfuelPrune};
use crate::scenario::Source;
use crate::time::Time;
use crate::units::Duration;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    Edge,
    Gateway,
    Backbone,
}

/// The routers and links kept, with each router's class.
#[derive(Debug, Clone)]
pub struct Graph {
    pub routers: BTreeMap<u32, Class>,
    pub links: BTreeSet<(u32, u32)>,
    pub dropped: cch::Dropped,
}

impl Graph {
    pub fn count(&self, c: Class) -> usize {
        self.routers.values().filter(|&&k| k == c).count()
    }

    /// Whether link (a, b) joins an edge and a gateway router.
    pub fn is_edge_link(&self, a: u32, b: u32) -> bool {
        let (ca, cb) = (self.routers[&a], self.routers[&b]);
        matches!((ca, cb), (Class::Edge, Class::Gateway) | (Class::Gateway, Class::Edge))
    }
}

/// Reads a map and applies the generator's filter: `prune`, then (if asked)
/// the largest connected component, then classifies the routers left
/// (`ndnsim` takes the largest component and labels the routers itself).
pub fn load(path: &std::path::Path, prune: RocketfuelPrune, largest_component: bool) -> Result<Graph, String> {
    let text = read_text(path, FileKind::Topology).map_err(|e| format!("{}: {e}", path.display()))?;
    let map = cch::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(filter(map, prune, largest_component))
}

pub(super) fn adjacency(routers: &BTreeSet<u32>, links: &BTreeSet<(u32, u32)>) -> BTreeMap<u32, Vec<u32>> {
    let mut adj: BTreeMap<u32, Vec<u32>> = routers.iter().map(|&r| (r, Vec::new())).collect();
    for &(a, b) in links {
        adj.get_mut(&a).unwrap().push(b);
        adj.get_mut(&b).unwrap().push(a);
    }
    adj
}

/// The routers of the largest connected component and the links between
/// them. Ties go to the component met first (holding the lowest uid).
pub(super) fn largest_component(routers: &BTreeSet<u32>, mut links: BTreeSet<(u32, u32)>) -> (BTreeSet<u32>, BTreeSet<(u32, u32)>) {
    let adj = adjacency(routers, &links);
    let mut seen = BTreeSet::new();
    let mut best: Vec<u32> = Vec::new();
    for &s in routers {
        if !seen.insert(s) {
            continue;
        }
        let (mut comp, mut stack) = (vec![s], vec![s]);
        while let Some(x) = stack.pop() {
            for &y in &adj[&x] {
                if seen.insert(y) {
                    comp.push(y);
                    stack.push(y);
                }
            }
        }
        if comp.len() > best.len() {
            best = comp;
        }
    }
    let keep: BTreeSet<u32> = best.into_iter().collect();
    links.retain(|(a, _)| keep.contains(a));
    (keep, links)
}

pub fn filter(map: CchMap, prune: RocketfuelPrune, largest_component: bool) -> Graph {
    let mut routers: BTreeSet<u32> = map.routers.keys().copied().collect();
    let mut links = map.links;
    if prune == RocketfuelPrune::Ndnsim {
        // The reader takes the largest component itself, and its labels are
        // the classes (ndnsim_reader.rs).
        let (classes, links) = ndnsim_reader::prune(&routers, links);
        return Graph { routers: classes, links, dropped: map.dropped };
    }
    if prune == RocketfuelPrune::EdgeChains {
        let adj = adjacency(&routers, &links);
        let chain: BTreeSet<u32> = adj
            .iter()
            .filter(|(_, n)| n.len() < 3 && n.iter().all(|v| adj[v].len() < 3))
            .map(|(&r, _)| r)
            .collect();
        routers.retain(|r| !chain.contains(r));
        links.retain(|(a, b)| !chain.contains(a) && !chain.contains(b));
    }
    if largest_component {
        (routers, links) = self::largest_component(&routers, links);
    }
    let adj = adjacency(&routers, &links);
    let classes = adj
        .iter()
        .map(|(&r, n)| {
            let c = if n.len() < 3 {
                Class::Edge
            } else if n.iter().any(|v| adj[v].len() < 3) {
                Class::Gateway
            } else {
                Class::Backbone
            };
            (r, c)
        })
        .collect();
    Graph { routers: classes, links, dropped: map.dropped }
}

#[allow(clippy::too_many_arguments)]
pub fn generate(
    map: &str,
    prune: RocketfuelPrune,
    largest_component: bool,
    link_params: &LinkParams,
    edge_link: Option<&LinkParams>,
    latencies: Option<&str>,
    hosts: Option<&RocketfuelHosts>,
    src: &Source,
    nodes: &mut Vec<NodeSpec>,
    links: &mut Vec<LinkSpec>,
    p: &mut Problems,
) {
    let Some(path) = resolve_data(map, "topology.map", src, p) else { return };
    let g = match load(&path, prune, largest_component) {
        Ok(g) => g,
        Err(e) => {
            p.add("topology.map", e);
            return;
        }
    };
    let mut delays: BTreeMap<(u32, u32), u64> = BTreeMap::new();
    if let Some(lat) = latencies {
        let Some(path) = resolve_data(lat, "topology.latencies", src, p) else { return };
        match read_text(&path, FileKind::Topology).and_then(|t| cch::parse_latencies(&t)) {
            Ok(d) => delays = d,
            Err(e) => {
                p.add("topology.latencies", format!("{}: {e}", path.display()));
                return;
            }
        }
        // A listed pair must be a link of the map (it may have been filtered out).
        if let Some((a, b)) = delays.keys().find(|(a, b)| !g.links.contains(&(*a, *b)) && g.routers.contains_key(a) && g.routers.contains_key(b)) {
            p.add("topology.latencies", format!("{}: routers {a} and {b} are not linked in the map", path.display()));
            return;
        }
    }
    if let Some(h) = hosts {
        if h.per_edge_router == 0 {
            p.add("topology.hosts.per_edge_router", "must be at least 1 (omit hosts for none)");
            return;
        }
    }
    for &uid in g.routers.keys() {
        nodes.push(node(format!("r{uid}"), NodeKind::Router));
    }
    for &(a, b) in &g.links {
        let base = if g.is_edge_link(a, b) { edge_link.unwrap_or(link_params) } else { link_params };
        let mut params = base.clone();
        if let Some(&ms) = delays.get(&(a, b)) {
            params.delay = Duration(Time::from_millis(ms));
        }
        links.push(link(format!("r{a}-r{b}"), &format!("r{a}"), &format!("r{b}"), &params));
    }
    if let Some(h) = hosts {
        for (&uid, _) in g.routers.iter().filter(|(_, &c)| c == Class::Edge) {
            let r = format!("r{uid}");
            for k in 0..h.per_edge_router {
                let name = format!("h{uid}_{k}");
                nodes.push(node(name.clone(), NodeKind::Host));
                links.push(link(format!("{name}-{r}"), &name, &r, &h.access));
            }
        }
    }
}

fn resolve_data(path: &str, field: &str, src: &Source, p: &mut Problems) -> Option<std::path::PathBuf> {
    let r = resolve_path(path, src);
    if r.is_none() {
        p.add(field, format!("'{path}' uses data: but no data directory is known (set PATHPOOL_DATA or --data-dir)"));
    }
    r
}
