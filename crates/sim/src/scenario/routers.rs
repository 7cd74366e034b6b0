//! Validation of `[routers]`: the module and its parameters, and the link
//! directions it runs on, grouped into one instance per router.

use std::collections::BTreeMap;

use super::error::Problems;
use super::model::{LinkModel, NodeModel, RouterModel};
use super::spec::{NodeKind, RoutersSpec};
use crate::net::{LinkId, NodeId};
use crate::router;
use crate::time::Time;

pub fn resolve(spec: Option<&RoutersSpec>, nodes: &[NodeModel], links: &[LinkModel], p: &mut Problems) -> Vec<RouterModel> {
    let Some(r) = spec else { return Vec::new() };
    let before = p.list.len();
    if router::names().contains(&r.module.as_str()) {
        for (key, message) in router::check_params(&r.module, &r.params) {
            p.add(format!("routers.params.{key}"), message);
        }
    } else {
        p.add("routers.module", format!("unknown router module '{}' (known: {})", r.module, router::names().join(", ")));
    }
    let is_router = |n: NodeId| nodes[n as usize].kind == NodeKind::Router;
    let selected: Vec<usize> = match &r.links {
        None => (0..links.len()).collect(),
        Some(names) => {
            if names.is_empty() {
                p.add("routers.links", "lists no link (omit it to run the module on every link leaving a router)");
            }
            let mut chosen = Vec::new();
            for (i, name) in names.iter().enumerate() {
                match links.iter().position(|l| l.name == *name) {
                    None => p.add(format!("routers.links[{i}]"), format!("unknown link '{name}'")),
                    Some(k) if !is_router(links[k].a) && !is_router(links[k].b) => p.add(
                        format!("routers.links[{i}]"),
                        format!("link '{name}' joins two hosts; router modules run on directions leaving a router"),
                    ),
                    Some(k) if chosen.contains(&k) => p.add(format!("routers.links[{i}]"), format!("link '{name}' is listed twice")),
                    Some(k) => chosen.push(k),
                }
            }
            chosen
        }
    };
    // Each chosen link's directions that leave a router, by router.
    let mut by_node: BTreeMap<NodeId, Vec<LinkId>> = BTreeMap::new();
    for k in selected {
        for (d, from) in [links[k].a, links[k].b].into_iter().enumerate() {
            if is_router(from) {
                by_node.entry(from).or_default().push((2 * k + d) as LinkId);
            }
        }
    }
    if by_node.is_empty() && r.links.is_none() {
        p.add("routers", "the scenario has no router (a node with kind = \"router\") to run the module on");
    }
    if p.list.len() != before {
        return Vec::new();
    }
    let dirs: Vec<(String, f64)> = by_node
        .values()
        .flatten()
        .map(|&l| {
            let link = &links[l as usize / 2];
            let (from, to) = if l.is_multiple_of(2) { (link.a, link.b) } else { (link.b, link.a) };
            let rate = link.dirs[l as usize % 2].capacity.rate_at(Time::ZERO);
            (format!("{}:{}>{}", link.name, nodes[from as usize].name, nodes[to as usize].name), rate)
        })
        .collect();
    for (key, message) in router::check_directions(&r.module, &r.params, &dirs) {
        p.add(format!("routers.params.{key}"), message);
    }
    if p.list.len() != before {
        return Vec::new();
    }
    by_node
        .into_iter()
        .map(|(node, links)| RouterModel { node, module: r.module.clone(), params: r.params.clone(), links })
        .collect()
}
