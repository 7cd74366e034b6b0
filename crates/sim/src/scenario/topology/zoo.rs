//! Internet Topology Zoo maps (Knight, Nguyen, Falkner, Bowden, Roughan,
//! IEEE JSAC 29(9), 2011) read from their GraphML files: one router per
//! node, one link per pair of adjacent nodes, optionally hosts on every
//! router.
//!
//! The Zoo's conventions: node `label` (a city or PoP name), `Latitude` and
//! `Longitude` in degrees, `Internal` (0 for a neighbouring network's node);
//! edge `LinkSpeedRaw` in bit/s where the source gave a speed. Parallel
//! edges (several circuits between two PoPs) become one link carrying the
//! sum of their speeds; self-loops are dropped.

use std::collections::{BTreeMap, BTreeSet};

use super::graphml::{self, Attributes};
use super::rocketfuel::largest_component;
use super::{link, node};
use crate::files::{read_text, FileKind};
use crate::scenario::build::resolve_path;
use crate::scenario::error::Problems;
use crate::scenario::spec::{LinkParams, LinkSpec, NodeKind, NodeSpec, ZooDelay, ZooHosts};
use crate::scenario::Source;
use crate::time::Time;
use crate::units::{Duration, Rate};

/// Mean Earth radius (IUGG), m.
const EARTH_RADIUS_M: f64 = 6_371_008.8;
/// Propagation speed in optical fibre, about 2/3 of c (refractive index
/// ≈ 1.47), the usual figure for turning distance into delay.
const FIBRE_M_PER_S: f64 = 2.0e8;

#[derive(Debug, Clone)]
pub struct ZooNode {
    /// The scenario name (see `names`).
    pub name: String,
    /// (latitude, longitude) in degrees, where the file gives both.
    pub position: Option<(f64, f64)>,
}

/// A link between `nodes[a]` and `nodes[b]` (a < b) and the speeds of the
/// file's parallel edges it stands for (None where an edge gives none).
#[derive(Debug, Clone)]
pub struct ZooLink {
    pub a: usize,
    pub b: usize,
    pub speeds: Vec<Option<f64>>,
}

#[derive(Debug, Clone)]
pub struct ZooGraph {
    pub nodes: Vec<ZooNode>,
    pub links: Vec<ZooLink>,
}

impl ZooLink {
    /// The sum over the parallel edges, each at its speed or `default`.
    pub fn rate(&self, default: Rate) -> Rate {
        Rate(self.speeds.iter().map(|s| s.unwrap_or(default.0)).sum())
    }
}

impl ZooGraph {
    /// Great-circle distance of a link (haversine), None without both positions.
    pub fn distance_m(&self, l: &ZooLink) -> Option<f64> {
        let ((lat1, lon1), (lat2, lon2)) = (self.nodes[l.a].position?, self.nodes[l.b].position?);
        let (p1, p2) = (lat1.to_radians(), lat2.to_radians());
        let (dp, dl) = (p2 - p1, (lon2 - lon1).to_radians());
        let h = (dp / 2.0).sin().powi(2) + p1.cos() * p2.cos() * (dl / 2.0).sin().powi(2);
        Some(2.0 * EARTH_RADIUS_M * h.sqrt().min(1.0).asin())
    }
}

/// Reads a Zoo file; `external = false` drops the nodes marked `Internal = 0`
/// and their edges, `largest_component` keeps only the largest connected one.
pub fn load(path: &std::path::Path, external: bool, largest_component: bool) -> Result<ZooGraph, String> {
    let text = read_text(path, FileKind::Topology).map_err(|e| format!("{}: {e}", path.display()))?;
    let g = graphml::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    from_graph(g, external, largest_component).map_err(|e| format!("{}: {e}", path.display()))
}

fn number(a: &Attributes, field: &str, what: &str) -> Result<Option<f64>, String> {
    match a.get(field) {
        None => Ok(None),
        Some(s) => s.parse::<f64>().ok().filter(|v| v.is_finite()).map(Some).ok_or_else(|| format!("{what}: {field} '{s}' is not a number")),
    }
}

fn from_graph(g: graphml::Graph, external: bool, only_largest: bool) -> Result<ZooGraph, String> {
    if g.directed {
        return Err("a directed graph (edgedefault=\"directed\", GraphML's default): Topology Zoo maps are undirected".into());
    }
    let mut keep: BTreeSet<u32> = BTreeSet::new();
    for (i, n) in g.nodes.iter().enumerate() {
        let what = format!("node '{}'", n.id);
        let internal = number(&n.attributes, "Internal", &what)?.is_none_or(|v| v != 0.0);
        if external || internal {
            keep.insert(i as u32);
        }
    }
    let mut parallel: BTreeMap<(u32, u32), Vec<Option<f64>>> = BTreeMap::new();
    for e in &g.edges {
        let (a, b) = (e.a.min(e.b) as u32, e.a.max(e.b) as u32);
        if a == b || !keep.contains(&a) || !keep.contains(&b) {
            continue;
        }
        let what = format!("edge '{}'–'{}'", g.nodes[e.a].id, g.nodes[e.b].id);
        let speed = number(&e.attributes, "LinkSpeedRaw", &what)?;
        if let Some(s) = speed.filter(|&s| s <= 0.0) {
            return Err(format!("{what}: LinkSpeedRaw {s} is not a positive rate"));
        }
        parallel.entry((a, b)).or_default().push(speed);
    }
    if only_largest {
        let pairs: BTreeSet<(u32, u32)> = parallel.keys().copied().collect();
        let (kept, pairs) = largest_component(&keep, pairs);
        keep = kept;
        parallel.retain(|k, _| pairs.contains(k));
    }
    let labels: Vec<String> = keep.iter().map(|&i| label(&g.nodes[i as usize])).collect();
    let names = names(&labels, keep.iter().map(|&i| g.nodes[i as usize].id.as_str()));
    let mut nodes = Vec::with_capacity(keep.len());
    let mut index = BTreeMap::new();
    for (&i, name) in keep.iter().zip(names) {
        let n = &g.nodes[i as usize];
        let what = format!("node '{}'", n.id);
        let lat = number(&n.attributes, "Latitude", &what)?;
        let lon = number(&n.attributes, "Longitude", &what)?;
        index.insert(i, nodes.len());
        nodes.push(ZooNode { name, position: lat.zip(lon) });
    }
    let links = parallel.into_iter().map(|((a, b), speeds)| ZooLink { a: index[&a], b: index[&b], speeds }).collect();
    Ok(ZooGraph { nodes, links })
}

/// A node's label reduced to letters, digits and `_` (other runs become one
/// `_`), or `n{id}` where nothing is left.
fn label(n: &graphml::GraphNode) -> String {
    let raw = n.attributes.get("label").map(String::as_str).unwrap_or("");
    let mut s = String::new();
    for c in raw.chars() {
        if c.is_ascii_alphanumeric() {
            s.push(c);
        } else if !s.is_empty() && !s.ends_with('_') {
            s.push('_');
        }
    }
    let s = s.trim_end_matches('_').to_string();
    if s.is_empty() {
        format!("n{}", n.id)
    } else {
        s
    }
}

/// Scenario names: the label, or `{label}_{id}` for every node whose label
/// another node shares (the Zoo repeats labels, e.g. "None").
fn names<'a>(labels: &[String], ids: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut count: BTreeMap<&str, usize> = BTreeMap::new();
    for l in labels {
        *count.entry(l).or_default() += 1;
    }
    labels.iter().zip(ids).map(|(l, id)| if count[l.as_str()] > 1 { format!("{l}_{id}") } else { l.clone() }).collect()
}

#[allow(clippy::too_many_arguments)]
pub fn generate(
    file: &str,
    link_params: &LinkParams,
    delay: ZooDelay,
    external: bool,
    largest_component: bool,
    hosts: Option<&ZooHosts>,
    src: &Source,
    nodes: &mut Vec<NodeSpec>,
    links: &mut Vec<LinkSpec>,
    p: &mut Problems,
) {
    let Some(path) = resolve_path(file, src) else {
        p.add("topology.file", format!("'{file}' uses data: but no data directory is known (set PATHPOOL_DATA or --data-dir)"));
        return;
    };
    let g = match load(&path, external, largest_component) {
        Ok(g) => g,
        Err(e) => {
            p.add("topology.file", e);
            return;
        }
    };
    if g.nodes.is_empty() {
        p.add("topology.file", format!("{}: no node is left to build a network from", path.display()));
        return;
    }
    if hosts.is_some_and(|h| h.per_router == 0) {
        p.add("topology.hosts.per_router", "must be at least 1 (omit hosts for none)");
        return;
    }
    for n in &g.nodes {
        nodes.push(node(n.name.clone(), NodeKind::Router));
    }
    for l in &g.links {
        let mut params = link_params.clone();
        params.rate = l.rate(link_params.rate);
        if let (ZooDelay::Distance, Some(d)) = (delay, g.distance_m(l)) {
            params.delay = Duration(link_params.delay.0 + Time::from_secs_f64(d / FIBRE_M_PER_S));
        }
        let (a, b) = (&g.nodes[l.a].name, &g.nodes[l.b].name);
        links.push(link(format!("{a}-{b}"), a, b, &params));
    }
    if let Some(h) = hosts {
        for n in &g.nodes {
            for k in 0..h.per_router {
                let name = format!("h_{}_{k}", n.name);
                nodes.push(node(name.clone(), NodeKind::Host));
                links.push(link(format!("{name}-{}", n.name), &name, &n.name, &h.access));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(text: &str) -> ZooGraph {
        from_graph(graphml::parse(text).unwrap(), true, false).unwrap()
    }

    const HEAD: &str = r#"<graphml><key id="l" for="node" attr.name="label"/><key id="i" for="node" attr.name="Internal"/>
        <key id="la" for="node" attr.name="Latitude"/><key id="lo" for="node" attr.name="Longitude"/>
        <key id="s" for="edge" attr.name="LinkSpeedRaw"/><graph edgedefault="undirected">"#;

    #[test]
    fn parallel_edges_add_up_and_self_loops_go() {
        let g = graph(&format!(
            r#"{HEAD}<node id="0"><data key="l">New York</data></node><node id="1"><data key="l">None</data></node>
            <node id="2"><data key="l">None</data></node>
            <edge source="0" target="1"><data key="s">1e9</data></edge><edge source="1" target="0"/><edge source="1" target="1"/>
            <edge source="2" target="1"/></graph></graphml>"#
        ));
        let names: Vec<&str> = g.nodes.iter().map(|n| n.name.as_str()).collect();
        assert_eq!(names, ["New_York", "None_1", "None_2"]);
        assert_eq!(g.links.len(), 2);
        assert_eq!((g.links[0].a, g.links[0].b), (0, 1));
        assert_eq!(g.links[0].rate(Rate(1e8)).0, 1.1e9);
    }

    #[test]
    fn distance_is_great_circle() {
        // Two points on the equator a quarter turn apart: π/2 · R.
        let g = graph(&format!(
            r#"{HEAD}<node id="0"><data key="la">0</data><data key="lo">0</data></node>
            <node id="1"><data key="la">0</data><data key="lo">90</data></node><node id="2"/>
            <edge source="0" target="1"/><edge source="0" target="2"/></graph></graphml>"#
        ));
        let d = g.distance_m(&g.links[0]).unwrap();
        assert!((d - std::f64::consts::FRAC_PI_2 * EARTH_RADIUS_M).abs() < 1e-6, "{d}");
        assert_eq!(g.distance_m(&g.links[1]), None);
    }

    #[test]
    fn external_nodes_and_bad_numbers() {
        let text = format!(
            r#"{HEAD}<node id="0"/><node id="1"><data key="i">0</data></node><edge source="0" target="1"><data key="s">fast</data></edge>
            </graph></graphml>"#
        );
        let g = from_graph(graphml::parse(&text).unwrap(), false, false).unwrap();
        assert_eq!((g.nodes.len(), g.links.len()), (1, 0));
        let e = from_graph(graphml::parse(&text).unwrap(), true, false).unwrap_err();
        assert_eq!(e, "edge '0'–'1': LinkSpeedRaw 'fast' is not a number");
        let directed = graphml::parse(&text.replace(r#" edgedefault="undirected""#, "")).unwrap();
        assert!(from_graph(directed, true, false).unwrap_err().starts_with("a directed graph"));
    }
}
