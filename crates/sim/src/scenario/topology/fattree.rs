//! FatTree(k), the data-centre topology of Al-Fares, Loukissas and Vahdat,
//! "A Scalable, Commodity Data Center Network Architecture" (SIGCOMM 2008),
//! §3.1 and Fig. 3: k pods, each of k/2 edge and k/2 aggregation switches;
//! every edge switch has k/2 hosts and a link to every aggregation switch of
//! its pod; (k/2)² core switches, core c linked to aggregation switch c / (k/2)
//! of every pod (the j-th aggregation switch of a pod reaches cores
//! j·k/2 .. (j+1)·k/2 − 1). So k³/4 hosts, 5k²/4 switches, and (k/2)² equal-cost
//! paths between hosts of different pods, one per core switch.
//!
//! Numbering follows htsim's `FatTreeTopology` (datacenter/fat_tree_topology.cpp),
//! so that a host index means the same host in both: host `h{i}` is on edge
//! switch `tor{i / (k/2)}`, edge switch t in pod t / (k/2), aggregation switch
//! `agg{a}` in pod a / (k/2). The defaults are htsim's too (`main_tcp.cpp`,
//! `main.h`): 100 Gb/s links with 1 µs of propagation each, 8-packet switch
//! queues, and a 1000-packet queue at each host's NIC (`FEEDER_BUFFER`).
//! htsim counts a switch queue in bytes (`memFromPkt(8)`, 12 000 bytes), where
//! its 1-byte SYNs and 40-byte ACKs take almost no room; `queue_bytes` gives
//! that, `queue` (the default) counts every packet as one.

use super::{link, node};
use crate::scenario::error::Problems;
use crate::scenario::spec::{LinkParams, LinkSpec, NodeKind, NodeSpec};
use crate::time::Time;
use crate::units::{Bytes, Duration, Rate};

/// Largest k accepted: 8192 hosts and 1280 switches.
pub const MAX_K: u32 = 32;
pub const DEFAULT_RATE_BPS: f64 = 100e9;
pub const DEFAULT_DELAY: Time = Time(1_000);
pub const DEFAULT_QUEUE: u64 = 8;
pub const DEFAULT_HOST_QUEUE: u64 = 1000;

/// The FatTree's shape, from k.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    pub k: u32,
}

impl Shape {
    pub fn half(self) -> u32 {
        self.k / 2
    }
    pub fn hosts(self) -> u32 {
        self.k * self.k * self.k / 4
    }
    /// Edge switches, as many as aggregation switches: k/2 in each of k pods.
    pub fn edges(self) -> u32 {
        self.k * self.half()
    }
    pub fn cores(self) -> u32 {
        self.half() * self.half()
    }
    /// The pod of edge or aggregation switch `s`.
    pub fn pod(self, s: u32) -> u32 {
        s / self.half()
    }
}

pub struct Params<'a> {
    pub k: u32,
    pub rate: Option<Rate>,
    pub delay: Option<Duration>,
    pub queue: Option<u64>,
    pub queue_bytes: Option<Bytes>,
    pub host_queue: Option<u64>,
    pub nodes: &'a mut Vec<NodeSpec>,
    pub links: &'a mut Vec<LinkSpec>,
}

pub fn generate(f: Params, p: &mut Problems) {
    if f.k < 2 || !f.k.is_multiple_of(2) || f.k > MAX_K {
        p.add("topology.k", format!("must be even, from 2 to {MAX_K} (k pods of k/2 edge and k/2 aggregation switches), got {}", f.k));
        return;
    }
    for (field, q) in [("topology.queue", f.queue), ("topology.host_queue", f.host_queue)] {
        if q == Some(0) {
            p.add(field, "must be at least 1 packet");
            return;
        }
    }
    if f.queue.is_some() && f.queue_bytes.is_some() {
        p.add("topology.queue_bytes", "give either queue (packets) or queue_bytes, not both");
        return;
    }
    let shape = Shape { k: f.k };
    let params = LinkParams {
        rate: f.rate.unwrap_or(Rate(DEFAULT_RATE_BPS)),
        delay: f.delay.unwrap_or(Duration(DEFAULT_DELAY)),
        jitter: None,
        queue: if f.queue_bytes.is_some() { None } else { Some(f.queue.unwrap_or(DEFAULT_QUEUE)) },
        queue_bytes: f.queue_bytes,
        loss: None,
        mtu: None,
    };
    let host_queue = f.host_queue.unwrap_or(DEFAULT_HOST_QUEUE);
    let (nodes, links) = (f.nodes, f.links);
    for t in 0..shape.edges() {
        nodes.push(node(format!("tor{t}"), NodeKind::Router));
    }
    for a in 0..shape.edges() {
        nodes.push(node(format!("agg{a}"), NodeKind::Router));
    }
    for c in 0..shape.cores() {
        nodes.push(node(format!("core{c}"), NodeKind::Router));
    }
    let half = shape.half();
    for i in 0..shape.hosts() {
        let (h, tor) = (format!("h{i}"), format!("tor{}", i / half));
        nodes.push(node(h.clone(), NodeKind::Host));
        let mut l = link(format!("{h}-{tor}"), &h, &tor, &params);
        // The host's NIC queue (a→b) counts packets; the edge switch's port (b→a) is a switch queue.
        (l.queue, l.queue_bytes) = (None, None);
        l.a_to_b.queue = Some(host_queue);
        (l.b_to_a.queue, l.b_to_a.queue_bytes) = (params.queue, params.queue_bytes);
        links.push(l);
    }
    for t in 0..shape.edges() {
        for j in 0..half {
            let a = shape.pod(t) * half + j;
            links.push(link(format!("tor{t}-agg{a}"), &format!("tor{t}"), &format!("agg{a}"), &params));
        }
    }
    for a in 0..shape.edges() {
        let j = a % half;
        for c in j * half..(j + 1) * half {
            links.push(link(format!("agg{a}-core{c}"), &format!("agg{a}"), &format!("core{c}"), &params));
        }
    }
}
