//! FatTree(k) (Al-Fares et al., SIGCOMM 2008) and its traffic matrices:
//! the generator's sizes, reachability between every pair of hosts, k
//! refused when odd or out of range, permutation and random matrices, and
//! ECMP spreading the ndiffports subflows of one MPTCP connection over
//! different core switches — measured from the links the data crossed.

mod common;

use std::collections::BTreeSet;

use common::{f64s, load_err, run_toml, source, strs, table};
use pathpool_sim::net::queue::QueueLimit;
use pathpool_sim::scenario::spec::NodeKind;
use pathpool_sim::{load, Format, Model};

fn fattree(k: u32, extra: &str) -> String {
    format!(
        r#"
[sim]
duration = "3ms"
ecmp = true
sample_interval = "0s"

[topology]
kind = "fattree"
k = {k}
rate = "1Gbps"
{extra}
"#
    )
}

fn model(text: &str) -> Model {
    load(text, Format::Toml, &source("fattree.toml"), None).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn sizes_for_k_4_and_8() {
    for k in [4u32, 8] {
        let m = model(&fattree(k, ""));
        let hosts = m.nodes.iter().filter(|n| n.kind == NodeKind::Host).count() as u32;
        let switches = m.nodes.iter().filter(|n| n.kind == NodeKind::Router).count() as u32;
        let named = |prefix: &str| m.nodes.iter().filter(|n| n.name.starts_with(prefix)).count() as u32;
        assert_eq!(hosts, k * k * k / 4, "k={k}: hosts");
        assert_eq!((named("tor"), named("agg"), named("core")), (k * k / 2, k * k / 2, k * k / 4), "k={k}: edge, aggregation, core");
        assert_eq!(switches, 5 * k * k / 4, "k={k}: switches");
        // Each tier of links has k³/4: host–edge, edge–aggregation, aggregation–core.
        assert_eq!(m.links.len() as u32, 3 * k * k * k / 4, "k={k}: links");
        // Every switch has k ports; a host has one.
        let mut degree = vec![0u32; m.nodes.len()];
        for l in &m.links {
            degree[l.a as usize] += 1;
            degree[l.b as usize] += 1;
        }
        for (n, d) in m.nodes.iter().zip(&degree) {
            let want = if n.kind == NodeKind::Host { 1 } else { k };
            assert_eq!(*d, want, "k={k}: ports of {}", n.name);
        }
    }
}

#[test]
fn every_host_pair_is_reachable_with_the_expected_path_count() {
    for k in [4u32, 8] {
        let m = model(&fattree(k, ""));
        let hosts: Vec<u32> = (0..m.nodes.len() as u32).filter(|&i| m.nodes[i as usize].kind == NodeKind::Host).collect();
        let half = k / 2;
        for &s in &hosts {
            for &d in &hosts {
                if s != d {
                    assert!(m.routes.reachable(s, d), "k={k}: {} cannot reach {}", m.nodes[s as usize].name, m.nodes[d as usize].name);
                }
            }
        }
        // From an edge switch towards a host of another pod, every aggregation
        // switch of the pod is a next hop (k/2 of them), and from there every
        // core switch it has (k/2): the (k/2)² equal-cost paths of §2.1.
        let id = |name: &str| m.nodes.iter().position(|n| n.name == name).unwrap() as u32;
        let far = id(&format!("h{}", k * k * k / 4 - 1));
        assert_eq!(m.routes.next_hops(id("tor0"), far).len() as u32, half, "k={k}");
        assert_eq!(m.routes.next_hops(id("agg0"), far).len() as u32, half, "k={k}");
        assert_eq!(m.routes.next_hops(id("core0"), far).len(), 1, "k={k}");
    }
}

#[test]
fn bad_k_is_refused() {
    for k in [0, 1, 3, 7, 34] {
        let e = load_err(&fattree(k, ""));
        assert!(e.contains("topology.k") && e.contains("must be even"), "k={k}: {e}");
    }
    let e = load_err(&fattree(4, "queue = 0"));
    assert!(e.contains("topology.queue"), "{e}");
    let e = load_err(&fattree(4, "queue = 8\nqueue_bytes = 12000"));
    assert!(e.contains("topology.queue_bytes") && e.contains("not both"), "{e}");
}

#[test]
fn switch_queues_count_packets_or_bytes_and_host_queues_packets() {
    for (extra, switch) in [("", QueueLimit::Packets(8)), ("queue_bytes = 12000", QueueLimit::Bytes(12_000))] {
        let m = model(&fattree(4, extra));
        for l in &m.links {
            let host_side = m.nodes[l.a as usize].kind == NodeKind::Host;
            let a_to_b = if host_side { QueueLimit::Packets(1000) } else { switch };
            assert_eq!((l.dirs[0].limit, l.dirs[1].limit), (a_to_b, switch), "{extra:?}: link {}", l.name);
        }
    }
}

/// Sources and destinations of the generated flows, by host name.
fn pairs(m: &Model) -> Vec<(String, String)> {
    m.flows.iter().map(|f| (m.nodes[f.src as usize].name.clone(), m.nodes[f.dst as usize].name.clone())).collect()
}

#[test]
fn permutation_and_random_matrices() {
    let workload = |matrix: &str, seed: u64| {
        fattree(4, "").replace("[sim]", &format!("[sim]\nseed = {seed}"))
            + &format!("\n[[workloads]]\nkind = \"traffic_matrix\"\nname = \"tm\"\nmatrix = \"{matrix}\"\n")
    };
    for seed in 1..6 {
        let m = model(&workload("permutation", seed));
        let p = pairs(&m);
        assert_eq!(p.len(), 16);
        let srcs: BTreeSet<&String> = p.iter().map(|x| &x.0).collect();
        let dsts: BTreeSet<&String> = p.iter().map(|x| &x.1).collect();
        assert_eq!((srcs.len(), dsts.len()), (16, 16), "seed {seed}: each host sends once and receives once");
        assert!(p.iter().all(|(s, d)| s != d));
        assert!(m.flows.iter().all(|f| f.size.is_none()), "long (bulk) flows");
        assert_eq!(m.flows[0].name, "tm.h0");
        let r = model(&workload("random", seed));
        assert_eq!(r.flows.len(), 16);
        assert!(pairs(&r).iter().all(|(s, d)| s != d));
    }
    // The seed draws the matrix: two seeds, two permutations.
    assert_ne!(pairs(&model(&workload("permutation", 1))), pairs(&model(&workload("permutation", 2))));
    let e = load_err(&(workload("permutation", 1) + "hosts = [\"h0\"]\n"));
    assert!(e.contains("workloads[0].hosts") && e.contains("at least two hosts"), "{e}");
    let e = load_err(&workload("shuffle", 1));
    assert!(e.contains("shuffle"), "{e}");
}

/// One connection from host `src` to host `dst` with `n` ndiffports subflows
/// (n = 1: TCP): the core switches its data packets went through — the
/// aggregation→core links of the source's pod that carried packets (ACKs
/// come back core→aggregation, and leave the destination's pod).
fn cores_used(k: u32, src: u32, dst: u32, n: u32) -> BTreeSet<String> {
    let transport = if n == 1 {
        "transport = \"tcp\"".to_string()
    } else {
        format!("transport = \"mptcp\"\nmptcp = {{ path_manager = \"ndiffports\", path_manager_params = {{ subflows = {n} }} }}")
    };
    let text = fattree(k, "") + &format!("\n[[flows]]\nsrc = \"h{src}\"\ndst = \"h{dst}\"\n{transport}\n");
    let out = run_toml(&text);
    if n > 1 {
        let subflows = f64s(table(&out, "subflows"), "bytes_acked");
        assert_eq!(subflows.len() as u32, n, "ndiffports opens {n} subflows");
        assert!(subflows.iter().all(|&b| b > 0.0), "every subflow carried data: {subflows:?}");
    }
    let links = table(&out, "links");
    let (from, to, packets) = (strs(links, "src"), strs(links, "dst"), f64s(links, "packets_sent"));
    let half = k / 2;
    let pod = src / (half * half);
    let aggs: Vec<String> = (pod * half..(pod + 1) * half).map(|a| format!("agg{a}")).collect();
    (0..from.len()).filter(|&i| aggs.contains(&from[i]) && to[i].starts_with("core") && packets[i] > 0.0).map(|i| to[i].clone()).collect()
}

#[test]
fn ecmp_spreads_ndiffports_subflows_over_core_switches() {
    let (k, n) = (8u32, 8u32);
    let per_pod = k * k / 4;
    let mut distinct = Vec::new();
    for pod in 0..k {
        // A different source in every pod (the hash mixes the switch), to the next pod.
        let src = pod * per_pod + (3 * pod) % per_pod;
        let dst = ((pod + 1) % k) * per_pod + (5 * pod) % per_pod;
        assert_eq!(cores_used(k, src, dst, 1).len(), 1, "a TCP flow takes one path");
        distinct.push(cores_used(k, src, dst, n).len());
    }
    // 8 subflows hashed uniformly onto (k/2)² = 16 cores reach 16·(1 − (15/16)⁸) ≈ 6.0 on average.
    let mean = distinct.iter().sum::<usize>() as f64 / distinct.len() as f64;
    println!("FIGURE distinct core switches per 8-subflow connection on FatTree(8): {distinct:?}, mean {mean:.2} (uniform hashing: 6.0)");
    assert!(distinct.iter().all(|&d| d >= 2), "a connection's subflows all on one core: {distinct:?}");
    assert!(mean >= 4.5, "subflows spread over {mean:.2} cores on average: {distinct:?}");
}

#[test]
fn permutation_runs_on_fattree_k4_with_tcp_and_mptcp() {
    let olia = "transport = \"mptcp\"\nmptcp = { coupling = \"olia\", path_manager = \"ndiffports\", path_manager_params = { subflows = 2 } }";
    for transport in ["transport = \"tcp\"", olia] {
        let text = fattree(4, "") + &format!("\n[[workloads]]\nkind = \"traffic_matrix\"\nmatrix = \"permutation\"\n{transport}\n");
        let out = run_toml(&text);
        let delivered = f64s(table(&out, "flows"), "bytes_delivered");
        assert_eq!(delivered.len(), 16);
        assert!(delivered.iter().all(|&b| b > 0.0), "{transport}: every host's flow delivered data: {delivered:?}");
    }
}
