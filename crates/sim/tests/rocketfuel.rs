//! The `rocketfuel` topology generator on the real AS 3257 (Tiscali) map from
//! ../shared/data: counts, classification, errors, and a short run with
//! thousands of hosts. Skipped when ../shared/data is absent.

mod common;

use common::{load_err, run_toml, shared_data, source};
use pathpool_sim::scenario::spec::{NodeKind, RocketfuelPrune};
use pathpool_sim::scenario::topology::detour_census::{census, DetourCensus};
use pathpool_sim::scenario::topology::rocketfuel::{load, Class};
use pathpool_sim::{Format, Model, Time};

const MAP: &str = "data:rocketfuel/maps_cch/3257.cch";

fn scenario(topology_extra: &str, rest: &str) -> String {
    format!(
        r#"
        [sim]
        duration = "1.5s"
        ecmp = true
        sample_interval = 0

        [topology]
        kind = "rocketfuel"
        map = "{MAP}"
        link = {{ rate = "1Gbps", delay = "5ms", queue_bytes = 6250000 }}
        edge_link = {{ rate = "100Mbps", delay = "5ms", queue_bytes = 625000 }}
        {topology_extra}

        {rest}
        "#
    )
}

fn load_ok(text: &str) -> Model {
    pathpool_sim::load(text, Format::Toml, &source("rf.toml"), None).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn counts_and_classes_of_3257() {
    let Some(data) = shared_data() else {
        eprintln!("skipped: ../shared/data not found");
        return;
    };
    let maps = data.join("rocketfuel/maps_cch");
    // (file, prune, routers, links, edge, gateway, backbone)
    let cases = [
        ("3257.cch", RocketfuelPrune::None, 506, 750, 333, 127, 46),
        ("3257.pop.cch", RocketfuelPrune::None, 506, 750, 333, 127, 46),
        ("3257.cch", RocketfuelPrune::EdgeChains, 442, 683, 269, 127, 46),
        // The paper's 440 routers, 681 links, 267 edge, 126 gateway, 47 backbone (§IV-D).
        ("3257.pop.cch", RocketfuelPrune::Ndnsim, 440, 681, 267, 126, 47),
        ("3257.r1.cch", RocketfuelPrune::None, 411, 653, 257, 110, 44),
        // r0 falls apart: 240 of its 248 routers are in the largest component.
        ("3257.r0.cch", RocketfuelPrune::None, 240, 404, 138, 64, 38),
    ];
    for (file, prune, routers, links, edge, gateway, backbone) in cases {
        let g = load(&maps.join(file), prune, true).unwrap();
        let got = (g.routers.len(), g.links.len(), g.count(Class::Edge), g.count(Class::Gateway), g.count(Class::Backbone));
        assert_eq!(got, (routers, links, edge, gateway, backbone), "{file} {prune:?}");
    }
    let whole = load(&maps.join("3257.r0.cch"), RocketfuelPrune::None, false).unwrap();
    assert_eq!((whole.routers.len(), whole.links.len()), (248, 405));
    // The full map is consistent: no one-sided listings, duplicates or self-loops to drop.
    let g = load(&maps.join("3257.cch"), RocketfuelPrune::None, true).unwrap();
    assert_eq!((g.dropped.self_loops, g.dropped.one_sided, g.dropped.unknown_neighbours), (0, 0, 0));
    assert_eq!(g.dropped.external_nodes, 718);
}

/// ndnSIM's reader drops two routers of `edge_chains`' 442, and their links.
#[test]
fn ndnsim_prune_drops_routers_468_and_501() {
    let Some(data) = shared_data() else {
        eprintln!("skipped: ../shared/data not found");
        return;
    };
    let map = data.join("rocketfuel/maps_cch/3257.pop.cch");
    let chains = load(&map, RocketfuelPrune::EdgeChains, true).unwrap();
    let ndnsim = load(&map, RocketfuelPrune::Ndnsim, true).unwrap();
    let gone: Vec<u32> = chains.routers.keys().filter(|r| !ndnsim.routers.contains_key(r)).copied().collect();
    assert_eq!(gone, vec![468, 501]);
    assert!(ndnsim.routers.keys().all(|r| chains.routers.contains_key(r)));
    let lost: Vec<(u32, u32)> = chains.links.difference(&ndnsim.links).copied().collect();
    assert_eq!(lost, vec![(337, 468), (337, 501)]);
    // Router 337 keeps the reader's backbone label with one link left.
    assert_eq!((ndnsim.routers[&337], ndnsim.links.iter().filter(|(a, b)| *a == 337 || *b == 337).count()), (Class::Backbone, 1));
    // The paper's degree rule on the same routers and links: 337 would be an edge router.
    let degree = |r: u32| ndnsim.links.iter().filter(|(a, b)| *a == r || *b == r).count();
    let edge = ndnsim.routers.keys().filter(|&&r| degree(r) < 3).count();
    let gateway = ndnsim
        .routers
        .keys()
        .filter(|&&r| degree(r) > 2 && ndnsim.links.iter().any(|&(a, b)| (a == r && degree(b) < 3) || (b == r && degree(a) < 3)))
        .count();
    assert_eq!((edge, gateway, ndnsim.routers.len() - edge - gateway), (268, 126, 46));
}

/// Table I's Tiscali row (§I) is the census of `3257.r0.cch`, every router and link of it.
#[test]
fn table_i_tiscali_from_the_r0_map() {
    let Some(data) = shared_data() else {
        eprintln!("skipped: ../shared/data not found");
        return;
    };
    let g = load(&data.join("rocketfuel/maps_cch/3257.r0.cch"), RocketfuelPrune::None, false).unwrap();
    let c = census(&g.links);
    assert_eq!(c, DetourCensus { links: 405, with_detour: 99, by_count: [60, 19, 12, 5, 3], max: 8 });
    assert_eq!(format!("{:.2}", c.with_detour_pct()), "24.44");
    let split: Vec<String> = c.by_count_pct().iter().map(|p| format!("{p:.2}")).collect();
    // The paper prints 60.60 for 60/99 = 60.606...: truncated, not rounded.
    assert_eq!(split, ["60.61", "19.19", "12.12", "5.05", "3.03"]);
}

#[test]
fn generated_scenario_names_rates_and_latencies() {
    if shared_data().is_none() {
        eprintln!("skipped: ../shared/data not found");
        return;
    }
    let m = load_ok(&scenario(
        r#"prune = "edge_chains"
        latencies = "data:rocketfuel/latency/3257/latencies.intra"
        hosts = { per_edge_router = 4, access = { rate = "1Gbps", delay = "1ms" } }"#,
        "",
    ));
    let routers = m.nodes.iter().filter(|n| n.kind == NodeKind::Router).count();
    let hosts: Vec<&str> = m.nodes.iter().filter(|n| n.kind == NodeKind::Host).map(|n| n.name.as_str()).collect();
    assert_eq!((routers, hosts.len()), (442, 4 * 269));
    assert!(hosts.contains(&"h3_0") && hosts.contains(&"h3_3"));
    assert_eq!(m.links.len(), 683 + 4 * 269);
    // Every edge-gateway link at 100 Mb/s, the other router links at 1 Gb/s.
    let data = shared_data().unwrap().join("rocketfuel/maps_cch/3257.cch");
    let g = load(&data, RocketfuelPrune::EdgeChains, true).unwrap();
    let edge_links = g.links.iter().filter(|(a, b)| g.is_edge_link(*a, *b)).count();
    let slow = m.links.iter().filter(|l| l.dirs[0].rate_bps == 100e6 && l.dirs[1].rate_bps == 100e6).count();
    assert_eq!(slow, edge_links);
    assert!(edge_links > 200, "{edge_links}");
    // latencies.intra lists New+York,+NY236 London217 29 (ms).
    let l = m.links.iter().find(|l| l.name == "r217-r236").unwrap();
    assert_eq!(l.dirs[0].delay.initial(), Time::from_millis(29));
    let l = m.links.iter().find(|l| l.name == "h3_0-r3").unwrap();
    assert_eq!(l.dirs[0].delay.initial(), Time::from_millis(1));
}

#[test]
fn errors_name_the_field() {
    if shared_data().is_none() {
        eprintln!("skipped: ../shared/data not found");
        return;
    }
    let e = load_err(&scenario("", "").replace("3257.cch", "nope.cch"));
    assert!(e.contains("bad.toml: topology.map: ") && e.contains("nope.cch"), "{e}");
    let e = load_err(&scenario("linkk = 1", ""));
    assert!(e.contains("topology: unknown field `linkk`"), "{e}");
    let e = load_err(&scenario("", "").replace("rate = \"100Mbps\"", "rate = \"-100Mbps\""));
    assert!(e.contains("bad.toml: topology") && e.contains("negative"), "{e}");
    let e = load_err(&scenario("", "").replace("rate = \"100Mbps\"", "rate = 0"));
    assert!(e.contains("bad.toml: topology.rate: rate must be positive"), "{e}");
    let e = load_err(&scenario("hosts = { per_edge_router = 0, access = { rate = \"1Gbps\", delay = \"1ms\" } }", ""));
    assert!(e.contains("topology.hosts.per_edge_router: must be at least 1"), "{e}");
    let e = load_err(&scenario(
        "hosts = { per_edge_router = 2, access = { rate = \"1Gbps\", delay = \"1ms\" } }",
        r#"[[workloads]]
        kind = "poisson_pareto"
        src = ["h*_0", "x*"]
        dst = "h[0-9"
        load = 0.5
        capacity = "1Gbps"
        mean_size = 10
        flows = 10"#,
    ));
    assert!(e.contains("bad.toml: workloads[0].src[1]: pattern 'x*' matches no host"), "{e}");
    assert!(e.contains("bad.toml: workloads[0].dst: bad pattern 'h[0-9'"), "{e}");
}

/// 13 450 hosts (50 per edge router, as in the paper), 300 flows, 1.5 s.
#[test]
fn short_run_with_thousands_of_hosts() {
    if shared_data().is_none() {
        eprintln!("skipped: ../shared/data not found");
        return;
    }
    let out = run_toml(&scenario(
        r#"prune = "edge_chains"
        hosts = { per_edge_router = 50, access = { rate = "1Gbps", delay = "5ms", queue_bytes = 6250000 } }"#,
        r#"[[workloads]]
        kind = "poisson_pareto"
        name = "ppbp"
        src = "h*_*[02468]"
        dst = "h*_*[13579]"
        load = 0.8
        capacity = "1Gbps"
        mean_size = 125
        flows = 300"#,
    ));
    let s = &out.summary;
    assert!(s["packets"]["delivered"].as_u64().unwrap() > 10_000, "{s}");
    let flows = common::table(&out, "flows");
    let n = common::f64s(flows, "flow_id").len();
    assert_eq!(n, 300);
}

/// The built-in `inrpp-rocketfuel` builds the workload its header states
/// (docs/reproductions/inrpp.md, Rocketfuel): 50 hosts on each of the 267
/// edge routers, 25 of them senders, and per edge router Poisson arrivals
/// of λ_e = ρ · 100 Mb/s / (E[L] · 1500 B · 8) = 53.33 flows/s at ρ = 0.8.
/// A model only, no run.
#[test]
fn inrpp_rocketfuel_workload_per_edge_router_as_stated() {
    if shared_data().is_none() {
        eprintln!("skipped: ../shared/data not found");
        return;
    }
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../python/pathpool/scenarios/inrpp-rocketfuel.toml");
    let m = load_ok(&std::fs::read_to_string(path).unwrap());
    // Each host's edge router: the other end of its one link.
    let mut router_of = std::collections::HashMap::new();
    for l in &m.links {
        for (h, r) in [(l.a, l.b), (l.b, l.a)] {
            if m.nodes[h as usize].kind == NodeKind::Host {
                assert!(router_of.insert(h, r).is_none(), "host {} has two links", m.nodes[h as usize].name);
            }
        }
    }
    let mut hosts_per_router = std::collections::BTreeMap::new();
    for r in router_of.values() {
        *hosts_per_router.entry(*r).or_insert(0) += 1;
    }
    assert_eq!(hosts_per_router.len(), 267, "edge routers with hosts");
    assert!(hosts_per_router.values().all(|&n| n == 50), "{hosts_per_router:?}");
    // Senders: 25 per edge router (even k), receivers the odd k.
    let mut arrivals = std::collections::BTreeMap::new();
    let mut senders = std::collections::BTreeSet::new();
    for f in &m.flows {
        let k: u32 = m.nodes[f.src as usize].name.rsplit('_').next().unwrap().parse().unwrap();
        assert_eq!(k % 2, 0, "sender {}", m.nodes[f.src as usize].name);
        assert_eq!(m.nodes[f.dst as usize].name.rsplit('_').next().unwrap().parse::<u32>().unwrap() % 2, 1);
        senders.insert(f.src);
        *arrivals.entry(router_of[&f.src]).or_insert(0u32) += 1;
    }
    // n uniform draws among 6675 senders reach 6675 · (1 − (1 − 1/6675)^n) of them (5883 for n = 14 240).
    let reached = 6675.0 * (1.0 - (1.0 - 1.0 / 6675.0f64).powf(m.flows.len() as f64));
    assert!((senders.len() as f64 - reached).abs() < 100.0, "{} senders drew a flow, {reached:.0} expected", senders.len());
    // Rate: the 14 240 flows (the cap) arrive within the first second, each
    // edge router's count has mean λ_e · 1 s and a Poisson's dispersion.
    let lambda_e: f64 = 0.8 * 100e6 / (125.0 * 1500.0 * 8.0);
    let n = m.flows.len() as f64;
    let last = m.flows.iter().map(|f| f.start.secs()).fold(0.0, f64::max);
    assert_eq!(n, (267.0 * lambda_e).round());
    // Gamma(n, 267 λ_e): mean 1 s, deviation 1/√n ≈ 8 ms.
    assert!((last - 1.0).abs() < 0.04, "last arrival at {last} s");
    let per_router = n / 267.0;
    assert!((per_router / (lambda_e * last) - 1.0).abs() < 0.05, "{per_router} flows per edge router by {last} s");
    let counts: Vec<f64> = hosts_per_router.keys().map(|r| *arrivals.get(r).unwrap_or(&0) as f64).collect();
    // Index of dispersion Σ(n_i − m)²/m ~ χ²(266) for Poisson counts: 266 ± 4·√532.
    let d: f64 = counts.iter().map(|c| (c - per_router).powi(2)).sum::<f64>() / per_router;
    assert!((d - 266.0).abs() < 4.0 * 532f64.sqrt(), "dispersion {d}");
}
