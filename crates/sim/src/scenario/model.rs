//! The validated, resolved scenario: names are indices, defaults are filled
//! in, generators are expanded. Everything downstream trusts it.

use std::collections::HashMap;

use crate::net::capacity::Capacity;
use crate::net::delay::Delay;
use crate::net::queue::QueueLimit;
use crate::net::routing::Routes;
use crate::net::interfaces::Interfaces;
use crate::net::NodeId;
use crate::scenario::spec::{LossSpec, NodeKind};
use crate::tcp::TcpConfig;
use crate::time::Time;

pub struct Model {
    pub name: String,
    pub duration: Time,
    pub seed: u64,
    /// Zero: no time series.
    pub sample_interval: Time,
    pub ecmp: bool,
    pub ack_path: crate::net::ack_path::AckPath,
    /// `[sim] host_egress`: whether hosts' outgoing directions drop on
    /// overflow; both planes take a direction's queue limit from `queue_limit`.
    pub host_egress: crate::net::host_egress::HostEgress,
    pub header_bytes: u32,
    pub nodes: Vec<NodeModel>,
    pub links: Vec<LinkModel>,
    pub flows: Vec<FlowModel>,
    pub routes: Routes,
    /// Router-module instances (`[routers]`), one per router that runs one.
    pub routers: Vec<RouterModel>,
    /// Hosts' radios and energy models (`[[devices]]`).
    pub devices: Vec<DeviceModel>,
    /// Device-side controllers (`[[controllers]]`), in file order.
    pub controllers: Vec<ControllerModel>,
    /// Cells (`[[cells]]`) and the UE interfaces they serve (links with
    /// `capacity = { cell = ... }`), for `net::cell`.
    pub cells: Vec<crate::net::cell::CellParams>,
    pub ues: Vec<crate::net::cell::UeParams>,
    /// DNS resolvers (`[[resolvers]]`), in file order.
    pub resolvers: Vec<crate::dns::Resolver>,
    /// The hosts' stub resolvers (`[dns]`).
    pub dns: crate::dns::StubConfig,
    /// Mirrored content (`[[contents]]`) and the fetch sessions that
    /// download it (`[[fetches]]`; their candidate connections are flows).
    pub contents: Vec<crate::app::content::ContentModel>,
    pub fetches: Vec<crate::app::fetch::FetchModel>,
    /// Web page loads (`[[pages]]`); their objects are sessions of `fetches`,
    /// after the `[[fetches]]` ones.
    pub pages: Vec<crate::app::page::PageModel>,
    /// `[[arrivals]]` entries and the sessions of `fetches` they drew.
    pub arrivals: Vec<crate::scenario::arrivals::ArrivalModel>,
    /// The kernel lab's settings (`[lab]`); the simulator does not use them.
    pub lab: crate::scenario::spec::LabSpec,
}

/// The energy models of `host` (validated: every model builds).
pub struct DeviceModel {
    pub host: NodeId,
    /// (interface, technology, overrides), by interface index.
    pub radios: Vec<(u16, String, crate::cc::ParamTable)>,
    /// Green MPTCP's linear model: its parameters and w_i per interface index.
    pub linear: Option<(crate::energy::linear::LinearParams, Vec<f64>)>,
    /// Hints the host's controllers hear at given times, in time order.
    pub hints: Vec<(Time, crate::control::Hint)>,
    /// (interface, wire bytes) after which a `DataLimit` hint is raised.
    pub data_limits: Vec<(u16, u64)>,
}

/// A device-side controller on `host` (validated: its kind and parameters build).
pub struct ControllerModel {
    pub host: NodeId,
    pub kind: String,
    pub params: crate::cc::ParamTable,
    /// Zero: no sample events.
    pub sample_interval: Time,
    pub reaction_delay: Time,
    /// The kinds of action it may emit with these parameters.
    pub actions: Vec<crate::control::ActionKind>,
}

/// A router module running on `node` for its outgoing directions `links`.
pub struct RouterModel {
    pub node: NodeId,
    pub module: String,
    pub params: crate::cc::ParamTable,
    /// Link directions (`LinkId`s), each leaving `node`.
    pub links: Vec<crate::net::LinkId>,
}

pub struct NodeModel {
    pub name: String,
    pub kind: NodeKind,
    /// Interface names, in the order links attach to the node.
    pub interfaces: Vec<String>,
}

pub struct LinkModel {
    pub name: String,
    pub a: NodeId,
    pub b: NodeId,
    pub a_interface: String,
    pub b_interface: String,
    /// [a→b, b→a]; direction d of link i has LinkId 2i + d.
    pub dirs: [DirectionModel; 2],
    /// (time, up?) in time order.
    pub events: Vec<(Time, bool)>,
    /// The largest IP packet both its interfaces carry, bytes (`net::mtu`).
    pub mtu: u32,
    /// Its interfaces have IPv6 addresses as well as IPv4 ones (`families`).
    pub v6: bool,
}

#[derive(Clone)]
pub struct DirectionModel {
    /// Nominal rate (the constant rate, or a capacity model's mean), bit/s.
    pub rate_bps: f64,
    /// One-way propagation delay, constant or a schedule.
    pub delay: Delay,
    /// Mean of each packet's random extra delay (`net::jitter`); zero: none.
    pub jitter: Time,
    pub limit: QueueLimit,
    pub loss: Option<LossSpec>,
    pub capacity: Capacity,
}

#[derive(Clone)]
pub struct FlowModel {
    pub name: String,
    pub src: NodeId,
    pub dst: NodeId,
    /// The end that connects (`src` or `dst`), where MPTCP subflows are opened.
    pub client: NodeId,
    /// A single-path flow bound to this interface of its source (`interface`).
    pub src_if: Option<u16>,
    /// A single-path flow bound to this interface of its destination (a fetch
    /// session's connection, pinned to one client interface).
    pub dst_if: Option<u16>,
    /// None: bulk.
    pub size: Option<u64>,
    /// When the flow starts; with `after`, how long after that flow completes.
    pub start: Time,
    /// The earlier flow whose completion starts this one (request/response).
    pub after: Option<u32>,
    /// Bulk flows stop offering new data here.
    pub stop: Option<Time>,
    pub transport: String,
    pub tcp: TcpConfig,
    /// `transport = "mptcp"` only.
    pub mptcp: Option<crate::mptcp::MptcpConfig>,
    /// The receiver forges this many slow-down notifications on every ACK (INRPP §V-C).
    pub forged_slow_downs: u32,
    /// An INRPP sender returns to open loop on a timeout (§III-C).
    pub inrpp_timeout_open_loop: bool,
    /// The application on the connection (`crate::app`): the source serves it, the destination is its client.
    pub app: Option<crate::app::AppModel>,
    /// A candidate connection of this fetch session (`Model::fetches`):
    /// dormant until the session or a controller opens it.
    pub fetch: Option<u32>,
    /// The IP version it runs over (IPv6: fetch connections only).
    pub family: crate::net::family::Family,
}

impl Model {
    /// Whether any link carries IPv6: results then show each connection's family.
    pub fn has_v6(&self) -> bool {
        self.links.iter().any(|l| l.v6)
    }

    /// The name of direction `d` (0: a→b, 1: b→a) of link `link`, "link:from>to":
    /// the `name` column of the links table, and the root of the direction's
    /// random-stream names (the kernel lab's emulator draws from the same ones).
    pub fn direction_name(&self, link: usize, d: usize) -> String {
        let (from, to) = self.direction_ends(link, d);
        format!("{}:{}>{}", self.links[link].name, self.nodes[from as usize].name, self.nodes[to as usize].name)
    }

    /// The nodes direction `d` (0: a→b, 1: b→a) of link `link` leaves and enters.
    pub fn direction_ends(&self, link: usize, d: usize) -> (NodeId, NodeId) {
        let l = &self.links[link];
        if d == 0 { (l.a, l.b) } else { (l.b, l.a) }
    }

    /// Whether direction `d` of link `link` leaves a host (rather than a router).
    pub fn leaves_host(&self, link: usize, d: usize) -> bool {
        self.nodes[self.direction_ends(link, d).0 as usize].kind == NodeKind::Host
    }

    /// The drop-tail limit of direction `d` of link `link`'s queue: the
    /// scenario's, or none where `host_egress` puts a host's qdisc there
    /// (`net::host_egress`). The simulator's links and the kernel lab's
    /// emulator both take it from here.
    pub fn queue_limit(&self, link: usize, d: usize) -> QueueLimit {
        self.host_egress.limit(self.leaves_host(link, d), self.links[link].dirs[d].limit)
    }
}

/// The interfaces of a scenario's nodes (those with a link: all of them
/// once the scenario is valid).
pub fn interfaces_of(nodes: &[NodeModel], links: &[LinkModel]) -> Interfaces {
    let mut attached: Vec<Vec<Option<(u32, usize)>>> = nodes.iter().map(|n| vec![None; n.interfaces.len()]).collect();
    // Each interface's position by (node, name), found once: looking names up
    // in a node's list per link would be quadratic in the node's degree.
    let mut position: HashMap<(NodeId, &str), usize> = HashMap::new();
    for (id, n) in nodes.iter().enumerate() {
        for (k, name) in n.interfaces.iter().enumerate() {
            position.entry((id as NodeId, name.as_str())).or_insert(k);
        }
    }
    for (i, l) in links.iter().enumerate() {
        for (side, node, name) in [(0, l.a, &l.a_interface), (1, l.b, &l.b_interface)] {
            if let Some(&k) = position.get(&(node, name.as_str())) {
                attached[node as usize][k] = Some((i as u32, side));
            }
        }
    }
    let ends: Vec<(NodeId, NodeId)> = links.iter().map(|l| (l.a, l.b)).collect();
    Interfaces::new(attached.into_iter().map(|v| v.into_iter().flatten().collect()).collect(), &ends)
}
