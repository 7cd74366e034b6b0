//! The built-in scenarios `inrpp-hierarchical` and `inrpp-hierarchical-mptcp`
//! (INRPP's transit-stub topology, Reñé et al., ToN 2022, Fig. 15, §IV-C):
//! the node and link counts and the capacities their comments state, and
//! the one-hop detour every receiver access link and core link has.
//! `make inrpp-hierarchical` runs Fig. 16 on them.

mod common;
use common::*;
use pathpool_sim::RunOutput;
use std::collections::{BTreeMap, BTreeSet};

fn builtin(name: &str) -> String {
    let path = format!("{}/../../python/pathpool/scenarios/{name}.toml", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The built-in with a handful of flows for a few milliseconds: its links table is the topology.
fn topology(name: &str) -> RunOutput {
    let text = builtin(name);
    for old in ["flows = 6000", "duration = \"240s\""] {
        assert!(text.contains(old), "the built-in has no `{old}`");
    }
    run_toml(&text.replace("flows = 6000", "flows = 5").replace("duration = \"240s\"", "duration = \"10ms\""))
}

/// Undirected links as (a, b) with a < b, and each one's rate in b/s.
fn links(out: &RunOutput) -> BTreeMap<(String, String), f64> {
    let t = table(out, "links");
    let (src, dst, rate) = (strs(t, "src"), strs(t, "dst"), f64s(t, "rate_bps"));
    let mut m = BTreeMap::new();
    for i in 0..src.len() {
        let key = if src[i] < dst[i] { (src[i].clone(), dst[i].clone()) } else { (dst[i].clone(), src[i].clone()) };
        let previous = m.insert(key, rate[i]);
        assert!(previous.is_none_or(|r| r == rate[i]), "both directions of a link have one rate");
    }
    m
}

fn is_router(n: &str) -> bool {
    n.len() == 2 && (n.starts_with('c') || n.starts_with('e'))
}

fn check(name: &str, host_links: usize) {
    let out = topology(name);
    let links = links(&out);
    let nodes: BTreeSet<&String> = links.keys().flat_map(|(a, b)| [a, b]).collect();
    let routers: Vec<&&String> = nodes.iter().filter(|n| is_router(n)).collect();
    assert_eq!((nodes.len(), routers.len()), (1212, 12), "{name}: 4 core + 8 edge routers, 600 servers, 600 receivers");
    let between_routers: Vec<_> = links.iter().filter(|((a, b), _)| is_router(a) && is_router(b)).collect();
    // 6 core (a full mesh of four), 2 server uplinks, 6 receiver access links, 3 stub links.
    assert_eq!((between_routers.len(), links.len() - between_routers.len()), (17, host_links), "{name}");
    for ((a, b), &rate) in &links {
        // §IV-C: "all the links have the same capacity of 10 Mbps except the links connecting the edge nodes of the servers to the core nodes".
        let server_uplink = matches!((a.as_str(), b.as_str()), ("c0", "e0") | ("c1", "e1"));
        assert_eq!(rate, if server_uplink { 100e6 } else { 10e6 }, "{name}: {a}-{b}");
    }
    // INRPP's one-hop detours u-w-v: every link between routers, but the servers' uplinks, has one.
    let adjacent = |x: &str, y: &str| links.contains_key(&if x < y { (x.to_string(), y.to_string()) } else { (y.to_string(), x.to_string()) });
    for ((a, b), _) in between_routers {
        let detours = routers.iter().filter(|w| adjacent(a, w) && adjacent(w, b)).count();
        let uplink = b == "e0" || b == "e1";
        assert_eq!(detours > 0, !uplink, "{name}: {a}-{b} has {detours} one-hop detours");
    }
}

#[test]
fn hierarchical_topology_has_the_stated_nodes_links_capacities_and_detours() {
    // One link per host.
    check("inrpp-hierarchical", 1200);
}

#[test]
fn hierarchical_mptcp_topology_multihomes_every_host_on_two_edges_of_its_branch() {
    check("inrpp-hierarchical-mptcp", 2400);
    let out = topology("inrpp-hierarchical-mptcp");
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (a, b) in links(&out).keys().filter(|(a, b)| is_router(a) != is_router(b)) {
        let (router, host) = if is_router(a) { (a, b) } else { (b, a) };
        edges.entry(host.clone()).or_default().insert(router.clone());
    }
    let branches: [[&str; 2]; 4] = [["e0", "e1"], ["e2", "e3"], ["e4", "e5"], ["e6", "e7"]];
    for (host, on) in &edges {
        let on: Vec<&str> = on.iter().map(|s| s.as_str()).collect();
        assert!(branches.iter().any(|b| on == b), "{host} is on {on:?}, not both edges of one branch");
    }
}
