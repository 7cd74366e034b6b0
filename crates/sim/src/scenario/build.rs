//! Validation: turns a parsed `Scenario` into a `Model`, or reports every
//! problem found (not just the first), each with its field path.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::error::{Problems, ScenarioError};
use super::model::{DirectionModel, FlowModel, LinkModel, Model, NodeModel};
use super::spec::{
    CapacitySpec, ClientEnd, DelaySpec, DirectionSpec, FlowSpec, LinkSpec, LossSpec, Names, NodeKind, NodeSpec, Scenario, TcpSpec,
    WorkloadSpec,
};
use super::pattern;
use super::Source;
use crate::app::AppModel;
use crate::cc;
use crate::engine::Seeds;
use crate::net::capacity::{Capacity, CellShare, MahimahiLink};
use crate::net::delay::Delay;
use crate::net::family::{Family, IPV6_MIN_MTU};
use crate::net::mtu;
use crate::net::queue::QueueLimit;
use crate::net::routing::{Edge, Routes};
use crate::net::NodeId;
use crate::tcp::TcpConfig;
use crate::time::Time;
use super::topology;

/// Default drop-tail limit, packets (ns-3's DropTailQueue and Linux's
/// pfifo default txqueuelen are 100 and 1000; we follow ns-3).
const DEFAULT_QUEUE_PACKETS: u64 = 100;

pub fn build(sc: &Scenario, src: &Source) -> Result<Model, ScenarioError> {
    let mut p = Problems::new();
    let duration = sc.sim.duration.0;
    if duration == Time::ZERO {
        p.add("sim.duration", "must be positive");
    }
    if !super::limits::check(sc, &mut p) {
        return Err(ScenarioError { source: src.name.clone(), problems: p.list });
    }

    // Generated topology first, then the file's own nodes and links.
    let (mut node_specs, mut link_specs) = (Vec::new(), Vec::new());
    if let Some(t) = &sc.topology {
        topology::generate(t, src, &mut node_specs, &mut link_specs, &mut p);
    }
    let generated_nodes = node_specs.len();
    let generated_links = link_specs.len();
    node_specs.extend(sc.nodes.iter().cloned());
    link_specs.extend(sc.links.iter().cloned());
    let node_field = |i: usize| {
        if i < generated_nodes { "topology".to_string() } else { format!("nodes[{}]", i - generated_nodes) }
    };
    let link_field = |i: usize| {
        if i < generated_links { "topology".to_string() } else { format!("links[{}]", i - generated_links) }
    };

    let mut nodes: Vec<NodeModel> = Vec::new();
    let mut by_name: HashMap<String, NodeId> = HashMap::new();
    for (i, n) in node_specs.iter().enumerate() {
        check_node(n, &node_field(i), &by_name, &mut p);
        by_name.entry(n.name.clone()).or_insert(nodes.len() as NodeId);
        nodes.push(NodeModel { name: n.name.clone(), kind: n.kind, interfaces: Vec::new() });
    }

    let mut links: Vec<LinkModel> = Vec::new();
    let mut link_names: HashMap<String, usize> = HashMap::new();
    let mut attach = Attach { nodes: &mut nodes, taken: HashSet::new() };
    let mut link_fields = Vec::new();
    for (i, l) in link_specs.iter().enumerate() {
        let field = link_field(i);
        if let Some(m) = build_link(l, &field, &by_name, &mut attach, src, duration, &mut p) {
            if link_names.insert(m.name.clone(), i).is_some() {
                p.add(format!("{field}.name"), format!("duplicate link name '{}'", m.name));
            }
            check_mtu(m.mtu, &field, sc.sim.header_bytes, &mut p);
            links.push(m);
            link_fields.push(field);
        }
    }
    check_inner_mtus(&links, &link_fields, &nodes, &mut p);

    let (cells, ues) = super::cells::resolve(sc, &link_specs, &link_field, &mut links, &nodes, &by_name, duration, &mut p);

    let is_router: Vec<bool> = nodes.iter().map(|n| n.kind == NodeKind::Router).collect();
    let edges: Vec<Edge> = links
        .iter()
        .flat_map(|l| {
            // Routes are static: a delay schedule weighs a link by its delay at time zero.
            let delay_ns = |d: usize| l.dirs[d].delay.initial().nanos();
            [Edge { from: l.a, to: l.b, delay_ns: delay_ns(0) }, Edge { from: l.b, to: l.a, delay_ns: delay_ns(1) }]
        })
        .collect();
    let routes = Routes::compute(&is_router, &edges, sc.sim.routing);
    let routers = super::routers::resolve(sc.routers.as_ref(), &nodes, &links, &mut p);
    if sc.sim.ack_path == crate::net::ack_path::AckPath::Instant && !routers.is_empty() {
        // A router module sees what it forwards leave its links; instant ACKs never do.
        p.add("sim.ack_path", "\"instant\" cannot be combined with [routers] modules (their ACKs would skip the routers' transmitters)");
    }

    let defaults = resolve_tcp(&TcpConfig::default(), &sc.tcp, "tcp", &mut p);
    let mut flows = Vec::new();
    for (i, f) in sc.flows.iter().enumerate() {
        expand_flow(f, &format!("flows[{i}]"), &defaults, duration, &mut flows, &mut p);
    }
    let seeds = Seeds { master: sc.sim.seed };
    let hosts: Vec<&str> = nodes.iter().filter(|n| n.kind == NodeKind::Host).map(|n| n.name.as_str()).collect();
    for (i, w) in sc.workloads.iter().enumerate() {
        expand_workload(w, i, &defaults, sc.sim.header_bytes, duration, &seeds, &hosts, &mut flows, &mut p);
    }
    let mut flow_names = std::collections::HashMap::new();
    for (i, (field, f)) in flows.iter().enumerate() {
        if flow_names.insert(f.model.name.clone(), i).is_some() {
            p.add(format!("{field}.name"), format!("duplicate flow name '{}'", f.model.name));
        }
    }
    resolve_after(&mut flows, &flow_names, &mut p);
    // Routes are only meaningful once every link was built: a refused link
    // would otherwise show up again as "no route" for the flows crossing it.
    let links_ok = links.len() == link_specs.len();
    let rcp_dirs = super::rcp::rcp_directions(&routers, 2 * links.len());
    let ifaces = super::model::interfaces_of(&nodes, &links);
    // Devices before flows (an MPTCP flow's scheduler may need its source's
    // energy profile); their problems are reported after the flows' and the
    // controllers', in the order of the file's sections.
    let mut device_problems = Problems::new();
    let devices = super::devices::resolve(&sc.devices, &nodes, &by_name, duration, &mut device_problems);
    let net = super::mptcp::Network {
        nodes: &nodes,
        links: &links,
        ifaces: &ifaces,
        routes: &routes,
        is_router: &is_router,
        duration,
        devices: &devices,
        device_specs: &sc.devices,
    };
    let mut flows: Vec<FlowModel> = flows
        .into_iter()
        .enumerate()
        .filter_map(|(i, (field, mut f))| {
            let mptcp = f.mptcp.take();
            let interface = f.interface.take();
            let mut m = resolve_flow_ends(f, &field, &by_name, &nodes, &routes, links_ok, &mut p)?;
            if let Some(name) = interface {
                m.src_if = Some(resolve_interface(&m, &name, &field, &net, links_ok, &mut p)?);
            }
            if links_ok {
                super::rcp::check_flow(&m, i as u32, &field, &rcp_dirs, &links, &routes, sc.sim.ecmp, &mut p);
                m.mptcp = mptcp.and_then(|spec| super::mptcp::resolve(&spec, &m, &field, &net, &mut p));
            }
            Some(m)
        })
        .collect();

    let generated = super::arrivals::expand(&sc.arrivals, duration, &seeds, &hosts, &mut p);
    let label = |what: &str, i: usize| format!("{what}[{i}]");
    let content_specs: Vec<_> = sc.contents.iter().enumerate().map(|(i, c)| (label("contents", i), c.clone())).chain(generated.contents).collect();
    let arrivals = super::arrivals::models(&generated.entries, sc.fetches.len() as u32);
    let fetch_specs: Vec<_> = sc.fetches.iter().enumerate().map(|(i, f)| (label("fetches", i), f.clone())).chain(generated.fetches).collect();
    let page_specs: Vec<_> = sc.pages.iter().enumerate().map(|(i, pg)| (label("pages", i), pg.clone())).collect();
    let (contents, mut fetches) = super::fetches::resolve(sc, &content_specs, &fetch_specs, &by_name, &net, &defaults, links_ok, &mut flows, &mut p);
    let sessions = fetches.len();
    let content_index = super::fetches::Contents::new(&contents);
    let cx = super::pages::Context { by_name: &by_name, net: &net, defaults: &defaults, check_routes: links_ok, duration, contents: &content_index };
    let pages = super::pages::resolve(&page_specs, &cx, &mut fetches, &mut flows, &mut p);
    let controllers = super::controllers::resolve(&sc.controllers, &nodes, &links, &by_name, &mut p);
    let (resolvers, dns) = super::resolvers::resolve(&sc.resolvers, &sc.dns, &nodes, &by_name, &mut p);
    let node_names: Vec<String> = nodes.iter().map(|n| n.name.clone()).collect();
    let (plain, objects) = fetches.split_at_mut(sessions);
    super::fetches::check_dns(&fetch_specs, &contents, plain, &resolvers, &node_names, &mut p);
    super::pages::check_dns(&page_specs, &pages, &contents, objects, sessions as u32, &resolvers, &mut p);
    for d in device_problems.list {
        p.add(d.field, d.message);
    }
    let model = Model {
        name: sc.name.clone().unwrap_or_else(|| default_name(&src.name)),
        duration,
        seed: sc.sim.seed,
        sample_interval: sc.sim.sample_interval.0,
        ecmp: sc.sim.ecmp,
        ack_path: sc.sim.ack_path,
        host_egress: sc.sim.host_egress,
        header_bytes: sc.sim.header_bytes,
        nodes,
        links,
        flows,
        routes,
        routers,
        controllers,
        devices,
        cells,
        ues,
        resolvers,
        dns,
        contents,
        fetches,
        pages,
        arrivals,
        lab: sc.lab.clone(),
    };
    p.into_result(&src.name, model)
}

fn default_name(source: &str) -> String {
    Path::new(source).file_stem().map_or_else(|| "scenario".into(), |s| s.to_string_lossy().into_owned())
}

fn check_node(n: &NodeSpec, field: &str, seen: &HashMap<String, NodeId>, p: &mut Problems) {
    if n.name.is_empty() || n.name.contains(':') || n.name.contains(char::is_whitespace) {
        p.add(format!("{field}.name"), format!("'{}' is not a valid node name (non-empty, no spaces or ':')", n.name));
    }
    if seen.contains_key(&n.name) {
        p.add(format!("{field}.name"), format!("duplicate node name '{}'", n.name));
    }
}

/// The nodes while links attach to them, with every (node, interface name)
/// taken so far: a link's interface is checked against its node's in
/// constant time, so building is linear in the links, not quadratic in a
/// node's degree (a dumbbell router has one interface per pair).
struct Attach<'a> {
    nodes: &'a mut [NodeModel],
    taken: HashSet<(NodeId, String)>,
}

/// Splits "node:iface"; the interface defaults to eth{k} by attachment order.
fn endpoint(s: &str, field: &str, by_name: &HashMap<String, NodeId>, attach: &mut Attach, p: &mut Problems) -> Option<(NodeId, String)> {
    let (node, iface) = match s.split_once(':') {
        Some((n, i)) => (n, Some(i)),
        None => (s, None),
    };
    let Some(&id) = by_name.get(node) else {
        p.add(field, format!("unknown node '{node}'{}", suggest(node, by_name.keys())));
        return None;
    };
    if iface == Some("") {
        p.add(field, format!("'{s}' has an empty interface name"));
        return None;
    }
    let n = &mut attach.nodes[id as usize];
    let iface = iface.map(str::to_string).unwrap_or_else(|| format!("eth{}", n.interfaces.len()));
    if !attach.taken.insert((id, iface.clone())) {
        p.add(field, format!("node '{node}' already has an interface '{iface}' on another link"));
        return None;
    }
    n.interfaces.push(iface.clone());
    Some((id, iface))
}

pub(super) fn suggest<'a>(name: &str, known: impl Iterator<Item = &'a String>) -> String {
    let mut known: Vec<&String> = known.collect();
    known.sort();
    // The first two characters, not bytes: names may be any Unicode text.
    let prefix: String = name.chars().take(2).collect();
    let close: Vec<&&String> = known.iter().filter(|k| k.starts_with(&prefix)).take(5).collect();
    if close.is_empty() {
        String::new()
    } else {
        format!(" (known nodes include: {})", close.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", "))
    }
}

fn build_link(
    l: &LinkSpec,
    field: &str,
    by_name: &HashMap<String, NodeId>,
    attach: &mut Attach,
    src: &Source,
    duration: Time,
    p: &mut Problems,
) -> Option<LinkModel> {
    let a = endpoint(&l.a, &format!("{field}.a"), by_name, attach, p);
    let b = endpoint(&l.b, &format!("{field}.b"), by_name, attach, p);
    let nodes = &*attach.nodes;
    let both = DirectionSpec {
        rate: l.rate,
        delay: l.delay.clone(),
        jitter: l.jitter,
        queue: l.queue,
        queue_bytes: l.queue_bytes,
        loss: l.loss.clone(),
        capacity: l.capacity.clone(),
    };
    let ab = direction(&both, &l.a_to_b, field, "a_to_b", src, duration, p);
    let ba = direction(&both, &l.b_to_a, field, "b_to_a", src, duration, p);
    let mut events = Vec::new();
    for (i, e) in l.events.iter().enumerate() {
        if e.at.0 >= duration {
            p.add(format!("{field}.events[{i}].at"), format!("{} is not before the end of the run ({duration})", e.at.0));
        }
        events.push((e.at.0, e.state == super::spec::LinkState::Up));
    }
    events.sort_by_key(|e| e.0);
    let ((a, a_if), (b, b_if)) = (a?, b?);
    if a == b {
        p.add(field, format!("a link needs two different nodes, both ends are '{}'", nodes[a as usize].name));
    }
    let name = l.name.clone().unwrap_or_else(|| format!("{}-{}", nodes[a as usize].name, nodes[b as usize].name));
    let mtu = l.mtu.unwrap_or(mtu::DEFAULT_MTU);
    let v6 = families(l.families.as_deref(), field, mtu, p);
    Some(LinkModel { name, a, b, a_interface: a_if, b_interface: b_if, dirs: [ab?, ba?], events, mtu, v6 })
}

/// A link's `families`: whether it carries IPv6 besides IPv4. IPv4 is
/// always there (DNS, MPTCP and every other transport run over it; an
/// IPv6-only link is not modelled), and an IPv6 link's MTU is at least
/// 1280 bytes (RFC 8200 §5).
fn families(spec: Option<&[String]>, field: &str, mtu: u32, p: &mut Problems) -> bool {
    let Some(names) = spec else { return false };
    let field = format!("{field}.families");
    let mut seen = Vec::new();
    for name in names {
        match Family::parse(name) {
            None => p.add(&field, format!("unknown family '{name}' (known: v4, v6)")),
            Some(f) if seen.contains(&f) => p.add(&field, format!("'{name}' is listed twice")),
            Some(f) => seen.push(f),
        }
    }
    if !seen.contains(&Family::V4) && seen.len() == names.len() {
        p.add(&field, "must include \"v4\": IPv6-only links are not modelled (DNS and every transport but single-path TCP run over IPv4)");
    }
    let v6 = seen.contains(&Family::V6);
    if v6 && mtu < IPV6_MIN_MTU {
        p.add(&field, format!("IPv6 needs an MTU of at least {IPV6_MIN_MTU} bytes (RFC 8200 §5), the link's is {mtu}"));
    }
    v6
}

/// An MTU within IPv4's bounds that leaves room for a segment's payload.
fn check_mtu(mtu: u32, field: &str, header_bytes: u32, p: &mut Problems) {
    if !(mtu::MIN_MTU..=mtu::MAX_MTU).contains(&mtu) {
        p.add(format!("{field}.mtu"), format!("must be between {} and {} bytes (IPv4, RFC 791), got {mtu}", mtu::MIN_MTU, mtu::MAX_MTU));
    } else if mtu <= header_bytes {
        p.add(format!("{field}.mtu"), format!("must be larger than sim.header_bytes ({header_bytes}) to carry a segment's payload, got {mtu}"));
    }
}

/// Refuses a link between two routers whose MTU is below a host link's:
/// the hosts' MSS options keep segments within their own links, and with
/// no path-MTU discovery modelled (RFC 1191, RFC 8899) a smaller MTU inside
/// the network would silently drop full-sized segments (RFC 2923 §2.1).
fn check_inner_mtus(links: &[LinkModel], fields: &[String], nodes: &[NodeModel], p: &mut Problems) {
    let is_host = |n: NodeId| nodes[n as usize].kind == NodeKind::Host;
    let Some(largest) = links.iter().filter(|l| is_host(l.a) || is_host(l.b)).map(|l| l.mtu).max() else { return };
    for (l, field) in links.iter().zip(fields) {
        if !is_host(l.a) && !is_host(l.b) && l.mtu < largest {
            p.add(
                format!("{field}.mtu"),
                format!("{} between two routers is below a host link's MTU ({largest}); path-MTU discovery is not modelled, so segments would be dropped", l.mtu),
            );
        }
    }
}

/// One direction's parameters: the per-direction table over the link's own.
fn direction(
    both: &DirectionSpec,
    own: &DirectionSpec,
    field: &str,
    dir: &str,
    src: &Source,
    duration: Time,
    p: &mut Problems,
) -> Option<DirectionModel> {
    // Report a problem at the most specific field that set the value.
    let pick = |own_set: bool, name: &str| {
        if own_set { format!("{field}.{dir}.{name}") } else { format!("{field}.{name}") }
    };
    let before = p.list.len();
    let capacity_spec = own.capacity.as_ref().or(both.capacity.as_ref());
    let rate = own.rate.or(both.rate);
    let rate_field = pick(own.rate.is_some(), "rate");
    let capacity = match (capacity_spec, rate) {
        (Some(c), None) => load_capacity(c, &pick(own.capacity.is_some(), "capacity"), src, p),
        (Some(_), Some(_)) => {
            p.add(rate_field, "give either a constant rate or a capacity model, not both");
            None
        }
        (None, Some(r)) => {
            if r.0 <= 0.0 {
                p.add(rate_field, format!("rate must be positive, got {} bit/s", r.0));
                None
            } else {
                Some(Capacity::Constant { bps: r.0 })
            }
        }
        (None, None) => {
            p.add(rate_field, "missing: every link direction needs a rate or a capacity model");
            None
        }
    };
    let delay = match own.delay.as_ref().or(both.delay.as_ref()) {
        Some(d) => load_delay(d, &pick(own.delay.is_some(), "delay"), p),
        None => {
            p.add(pick(false, "delay"), "missing: every link needs a propagation delay (may be 0)");
            None
        }
    };
    let limit = match (own.queue.or(both.queue), own.queue_bytes.or(both.queue_bytes)) {
        (Some(_), Some(_)) => {
            p.add(pick(own.queue.is_some(), "queue"), "give either queue (packets) or queue_bytes, not both");
            None
        }
        (Some(0), None) => {
            p.add(pick(own.queue.is_some(), "queue"), "queue must hold at least one packet");
            None
        }
        (Some(n), None) => Some(QueueLimit::Packets(n)),
        (None, Some(b)) if b.0 < 1500 => {
            p.add(pick(own.queue_bytes.is_some(), "queue_bytes"), format!("queue_bytes must hold at least one 1500-byte packet, got {}", b.0));
            None
        }
        (None, Some(b)) => Some(QueueLimit::Bytes(b.0)),
        (None, None) => Some(QueueLimit::Packets(DEFAULT_QUEUE_PACKETS)),
    };
    let loss = own.loss.clone().or(both.loss.clone());
    if let Some(l) = &loss {
        check_loss(l, &pick(own.loss.is_some(), "loss"), p);
    }
    if p.list.len() != before {
        return None;
    }
    let capacity = capacity?;
    let rate_bps = match &capacity {
        Capacity::Constant { bps } => *bps,
        other => other.bits_until(duration) / duration.secs().max(1e-9),
    };
    let jitter = own.jitter.or(both.jitter).map_or(Time::ZERO, |d| d.0);
    Some(DirectionModel { rate_bps, delay: delay?, jitter, limit: limit?, loss, capacity })
}

fn check_prob(v: f64, field: String, p: &mut Problems) {
    if !(0.0..=1.0).contains(&v) {
        p.add(field, format!("must be a probability in [0, 1], got {v}"));
    }
}

fn check_loss(l: &LossSpec, field: &str, p: &mut Problems) {
    match l {
        LossSpec::Bernoulli { p: prob } => check_prob(*prob, format!("{field}.p"), p),
        LossSpec::GilbertElliott { p_good_to_bad, p_bad_to_good, loss_good, loss_bad } => {
            check_prob(*p_good_to_bad, format!("{field}.p_good_to_bad"), p);
            check_prob(*p_bad_to_good, format!("{field}.p_bad_to_good"), p);
            check_prob(*loss_good, format!("{field}.loss_good"), p);
            check_prob(*loss_bad, format!("{field}.loss_bad"), p);
        }
    }
}

/// A constant delay, or a schedule checked as a capacity schedule is: the
/// first step at time 0 and step times increasing (negative durations are
/// refused when the file is read).
fn load_delay(d: &DelaySpec, field: &str, p: &mut Problems) -> Option<Delay> {
    let steps = match d {
        DelaySpec::Constant(d) => return Some(Delay::constant(d.0)),
        DelaySpec::Schedule(s) => &s.schedule,
    };
    let mut problems = Vec::new();
    if steps.is_empty() {
        problems.push((format!("{field}.schedule"), "needs at least one step"));
    }
    for (i, (t, _)) in steps.iter().enumerate() {
        if i == 0 && t.0 != Time::ZERO {
            problems.push((format!("{field}.schedule[0]"), "the first step must start at time 0"));
        }
        if i > 0 && t.0 <= steps[i - 1].0 .0 {
            problems.push((format!("{field}.schedule[{i}]"), "step times must increase"));
        }
    }
    let ok = problems.is_empty();
    for (f, m) in problems {
        p.add(f, m);
    }
    ok.then(|| Delay::schedule(steps.iter().map(|(t, d)| (t.0, d.0)).collect()))
}

fn load_capacity(c: &CapacitySpec, field: &str, src: &Source, p: &mut Problems) -> Option<Capacity> {
    if let Some(cells) = &c.cell {
        if c.schedule.is_some() || c.mahimahi.is_some() {
            p.add(field, "give exactly one of schedule, mahimahi or cell");
            return None;
        }
        if c.offset.is_some() {
            p.add(format!("{field}.offset"), "offset applies to mahimahi traces only");
        }
        let cells = cells.names();
        if cells.is_empty() {
            p.add(format!("{field}.cell"), "names no cell");
            return None;
        }
        return Some(Capacity::Cell(CellShare { cells, granted_bits: 0.0, nominal_bps: 0.0 }));
    }
    match (&c.schedule, &c.mahimahi) {
        (Some(_), Some(_)) | (None, None) => {
            p.add(field, "give exactly one of schedule, mahimahi or cell");
            None
        }
        (Some(steps), None) => {
            if c.offset.is_some() {
                p.add(format!("{field}.offset"), "offset applies to mahimahi traces only");
            }
            let mut out = Vec::new();
            for (i, (t, r)) in steps.iter().enumerate() {
                if i == 0 && t.0 != Time::ZERO {
                    p.add(format!("{field}.schedule[0]"), "the first step must start at time 0");
                }
                if i > 0 && t.0 <= out.last().map_or(Time::ZERO, |s: &(Time, f64)| s.0) {
                    p.add(format!("{field}.schedule[{i}]"), "step times must increase");
                }
                out.push((t.0, r.0));
            }
            if out.is_empty() || out.iter().all(|s| s.1 <= 0.0) {
                p.add(format!("{field}.schedule"), "needs at least one step with a positive rate");
                return None;
            }
            Some(Capacity::Schedule { steps: out })
        }
        (None, Some(path)) => {
            let resolved = resolve_path(path, src);
            let Some(resolved) = resolved else {
                p.add(format!("{field}.mahimahi"), format!("'{path}' uses data: but no data directory is known (set PATHPOOL_DATA or --data-dir)"));
                return None;
            };
            match read_mahimahi(&resolved) {
                Ok(ms) => Some(Capacity::Mahimahi(MahimahiLink::new(ms, c.offset.map_or(Time::ZERO, |o| o.0)))),
                Err(e) => {
                    p.add(format!("{field}.mahimahi"), format!("{}: {e}", resolved.display()));
                    None
                }
            }
        }
    }
}

/// `data:REL` resolves against the data directory, a relative path against the scenario's directory.
pub fn resolve_path(path: &str, src: &Source) -> Option<PathBuf> {
    match path.strip_prefix("data:") {
        Some(rel) => src.data_dir.as_ref().map(|d| d.join(rel)),
        None => Some(src.dir.join(path)),
    }
}

fn read_mahimahi(path: &Path) -> Result<Vec<u64>, String> {
    let text = crate::files::read_text(path, crate::files::FileKind::Trace)?;
    let mut ms = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let v: u64 = line.parse().map_err(|_| format!("line {}: '{line}' is not an integer millisecond", i + 1))?;
        if ms.last().is_some_and(|&last| v < last) {
            return Err(format!("line {}: timestamps must not decrease", i + 1));
        }
        ms.push(v);
    }
    match ms.last() {
        None => Err("the trace is empty".into()),
        Some(0) => Err("the trace's last timestamp must be positive (it is the loop period)".into()),
        Some(_) => Ok(ms),
    }
}

/// Fills a TCP configuration from a table over `base`, checking each value.
pub(super) fn resolve_tcp(base: &TcpConfig, t: &TcpSpec, field: &str, p: &mut Problems) -> TcpConfig {
    let mut c = base.clone();
    let mut cc_known = true;
    if let Some(name) = &t.cc {
        if cc::names().contains(&name.as_str()) {
            if *name != c.cc {
                // Inherited parameters belong to the other algorithm.
                c.cc_params.clear();
            }
            c.cc = name.clone();
        } else {
            cc_known = false;
            p.add(format!("{field}.cc"), format!("unknown congestion control '{name}' (known: {})", cc::names().join(", ")));
        }
    }
    if let Some(own) = &t.cc_params {
        c.cc_params.extend(own.iter().map(|(k, v)| (k.clone(), v.clone())));
        // Inherited parameters were checked where they were given.
        let problems = if cc_known { cc::check_params(&c.cc, &c.cc_params) } else { Vec::new() };
        for (key, message) in problems.into_iter().filter(|(k, _)| own.contains_key(k)) {
            p.add(format!("{field}.cc_params.{key}"), message);
        }
    }
    if let Some(v) = t.mss {
        if v == 0 || v > 65_000 {
            p.add(format!("{field}.mss"), format!("must be between 1 and 65000 bytes, got {v}"));
        }
        c.mss = v;
    }
    if let Some(v) = t.initial_window {
        if v == 0 {
            p.add(format!("{field}.initial_window"), "must be at least 1 segment");
        }
        c.initial_window = v;
    }
    for (v, name, slot) in [
        (t.min_rto, "min_rto", &mut c.min_rto),
        (t.initial_rto, "initial_rto", &mut c.initial_rto),
        (t.max_rto, "max_rto", &mut c.max_rto),
        (t.delayed_ack_timeout, "delayed_ack_timeout", &mut c.delayed_ack_timeout),
    ] {
        if let Some(d) = v {
            if d.0 == Time::ZERO {
                p.add(format!("{field}.{name}"), "must be positive");
            }
            *slot = d.0;
        }
    }
    // Checked where min_rto or max_rto is set, not again for every flow that inherits them.
    if (t.min_rto.is_some() || t.max_rto.is_some()) && c.min_rto > c.max_rto {
        p.add(format!("{field}.min_rto"), format!("min_rto ({}) exceeds max_rto ({})", c.min_rto, c.max_rto));
    }
    if let Some(v) = t.sack {
        c.sack = v;
    }
    if let Some(v) = t.recovery {
        c.recovery = v;
    }
    if let Some(v) = t.delayed_ack {
        c.delayed_ack = v;
    }
    if let Some(v) = t.delayed_ack_segments {
        if v == 0 {
            p.add(format!("{field}.delayed_ack_segments"), "must be at least 1");
        }
        c.delayed_ack_segments = v;
    }
    if let Some(v) = t.rcv_buffer {
        c.rcv_buffer = v.0;
    }
    if c.rcv_buffer < c.mss as u64 {
        p.add(format!("{field}.rcv_buffer"), format!("must hold at least one segment ({} bytes), got {}", c.mss, c.rcv_buffer));
    }
    if let Some(v) = t.handshake {
        c.handshake = v;
    }
    if let Some(v) = t.dupack_threshold {
        if v == 0 {
            p.add(format!("{field}.dupack_threshold"), "must be at least 1");
        }
        c.dupack_threshold = v;
    }
    if let Some(v) = t.newreno_exit {
        c.newreno_exit = v;
    }
    if let Some(v) = t.newreno_timer {
        c.newreno_timer = v;
    }
    if let Some(v) = t.cwnd_growth {
        c.cwnd_growth = v;
    }
    if let Some(v) = t.rto_formula {
        c.rto_formula = v;
    }
    if let Some(v) = t.send_buffer {
        c.send_buffer = v;
    }
    if let Some(v) = t.rack {
        c.rack = v;
    }
    if let Some(v) = t.sack_compression {
        c.sack_compression = v;
    }
    if let Some(v) = t.ssthresh_from {
        c.ssthresh_from = v;
    }
    match t.initial_ssthresh {
        Some(0) => p.add(format!("{field}.initial_ssthresh"), "must be at least 1 segment"),
        Some(v) => c.initial_ssthresh = Some(v),
        None => {}
    }
    c
}

/// A flow whose endpoints are still names; `resolve_flow_ends` checks them.
struct PendingFlow {
    model: FlowModel,
    src: String,
    dst: String,
    /// The destination connects (`client = "dst"`).
    client_dst: bool,
    /// The name of the flow whose completion starts this one.
    after: Option<String>,
    /// MPTCP flows: the settings to resolve once the ends are known.
    mptcp: Option<super::mptcp::MptcpSpec>,
    /// The source interface it is bound to, by name (`interface`).
    interface: Option<String>,
}

/// Resolves each `after` to the index of the flow it names, which must be
/// an earlier flow (so dependencies have no cycles) with a size (so that it
/// completes).
fn resolve_after(flows: &mut [(String, PendingFlow)], names: &std::collections::HashMap<String, usize>, p: &mut Problems) {
    for i in 0..flows.len() {
        let Some(name) = flows[i].1.after.clone() else { continue };
        let field = format!("{}.after", flows[i].0);
        match names.get(&name) {
            None => p.add(field, format!("no flow named '{name}'")),
            Some(&j) if j >= i => p.add(field, format!("flow '{name}' must come before this one")),
            Some(&j) if flows[j].1.model.size.is_none() => p.add(field, format!("flow '{name}' is bulk and never completes; give it a size")),
            Some(&j) => flows[i].1.model.after = Some(j as u32),
        }
    }
}

fn check_transport(t: &str, field: &str, p: &mut Problems) {
    const KNOWN: [&str; 4] = ["tcp", "rcp", "mptcp", "inrpp"];
    if !KNOWN.contains(&t) {
        p.add(format!("{field}.transport"), format!("unknown transport '{t}' (known: {})", KNOWN.join(", ")));
    }
}

fn expand_flow(
    f: &FlowSpec,
    field: &str,
    defaults: &TcpConfig,
    duration: Time,
    out: &mut Vec<(String, PendingFlow)>,
    p: &mut Problems,
) {
    check_transport(&f.transport, field, p);
    super::rcp::check_flow_spec(&f.transport, &f.tcp, field, p);
    super::mptcp::check_spec(&f.transport, f.mptcp.as_ref(), field, p);
    if f.interface.is_some() && f.transport != "tcp" {
        p.add(
            format!("{field}.interface"),
            format!("applies to transport 'tcp' only, not '{}' (an MPTCP connection's path manager picks its subflows' interfaces)", f.transport),
        );
    }
    if f.client == ClientEnd::Dst && !matches!(f.transport.as_str(), "tcp" | "mptcp") {
        p.add(format!("{field}.client"), format!("applies to transports 'tcp' and 'mptcp' only, not '{}'", f.transport));
    }
    if let Some(a) = &f.inrpp {
        if f.transport == "mptcp" {
            p.add(format!("{field}.inrpp"), "does not apply to transport 'mptcp'");
        }
        if a.forged_slow_downs as usize > crate::net::packet::MAX_NONCES {
            p.add(
                format!("{field}.inrpp.forged_slow_downs"),
                format!("an INRPP option holds at most {} nonces, got {}", crate::net::packet::MAX_NONCES, a.forged_slow_downs),
            );
        }
        if !a.timeout_open_loop && f.transport != "inrpp" {
            p.add(format!("{field}.inrpp.timeout_open_loop"), "applies to transport 'inrpp' only (an INRPP sender's closed loop)");
        }
    }
    let tcp = resolve_tcp(defaults, &f.tcp, &format!("{field}.tcp"), p);
    if f.size.is_some_and(|s| s.0 == 0) {
        p.add(format!("{field}.size"), "must be positive (omit it for a bulk transfer)");
    }
    if f.size.is_some() && f.stop.is_some() {
        p.add(format!("{field}.stop"), "stop applies to bulk flows (without size) only");
    }
    let count = f.count.unwrap_or(1);
    if count == 0 {
        p.add(format!("{field}.count"), "must be at least 1");
    }
    if f.count.is_none() && f.start_step.is_some() {
        p.add(format!("{field}.start_step"), "start_step needs count");
    }
    let start0 = f.start.map_or(Time::ZERO, |s| s.0);
    let step = f.start_step.map_or(Time::ZERO, |s| s.0);
    let last_start = start0 + Time(step.nanos() * count.saturating_sub(1) as u64);
    let app = super::apps::build(f, field, last_start, duration, p);
    for i in 0..count {
        let sub = |s: &str| s.replace("{i}", &i.to_string());
        let start = start0 + Time(step.nanos() * i as u64);
        let item_field = if count > 1 { format!("{field} (i={i})") } else { field.to_string() };
        if start >= duration {
            p.add(format!("{item_field}.start"), format!("starts at {start}, not before the end of the run ({duration})"));
        }
        if let Some(stop) = f.stop {
            if stop.0 <= start {
                p.add(format!("{item_field}.stop"), format!("stop ({}) must be after start ({start})", stop.0));
            }
        }
        let index = out.len();
        let name = f.name.as_deref().map(sub).unwrap_or_else(|| format!("f{index}"));
        out.push((
            item_field,
            PendingFlow {
                model: FlowModel {
                    src: 0,
                    dst: 0,
                    client: 0,
                    src_if: None,
                    dst_if: None,
                    size: f.size.map(|s| s.0),
                    start,
                    after: None,
                    stop: f.stop.map(|s| s.0),
                    transport: f.transport.clone(),
                    tcp: tcp.clone(),
                    mptcp: None,
                    forged_slow_downs: f.inrpp.as_ref().map_or(0, |a| a.forged_slow_downs),
                    inrpp_timeout_open_loop: f.inrpp.as_ref().is_none_or(|a| a.timeout_open_loop),
                    app: app.clone().map(|a| AppModel { name: if a.name.is_empty() { name.clone() } else { sub(&a.name) }, ..a }),
                    fetch: None,
                    family: Family::V4,
                    name,
                },
                src: sub(&f.src),
                dst: sub(&f.dst),
                client_dst: f.client == ClientEnd::Dst,
                after: f.after.as_deref().map(sub),
                mptcp: (f.transport == "mptcp").then(|| f.mptcp.clone().unwrap_or_default()),
                interface: f.interface.as_deref().map(sub),
            },
        ));
    }
}

/// Poisson arrivals with Pareto sizes (INRPP paper §IV-B, PPBP): the load
/// ρ = λ·E[L]/C with E[L] in packets and C in packets per second, so
/// λ = ρ·C/(E[L]·packet bits) with C in bit/s.
#[allow(clippy::too_many_arguments)]
fn expand_workload(
    w: &WorkloadSpec,
    index: usize,
    defaults: &TcpConfig,
    header_bytes: u32,
    duration: Time,
    seeds: &Seeds,
    hosts: &[&str],
    out: &mut Vec<(String, PendingFlow)>,
    p: &mut Problems,
) {
    let field = format!("workloads[{index}]");
    let (name, src, dst, load, capacity, mean_size, shape, flows, start, transport, tcp) = match w {
        WorkloadSpec::PoissonPareto { name, src, dst, load, capacity, mean_size, shape, flows, start, transport, tcp } => {
            (name, src, dst, load, capacity, mean_size, shape, flows, start, transport, tcp)
        }
        WorkloadSpec::TrafficMatrix { .. } => return expand_traffic_matrix(w, index, defaults, duration, seeds, hosts, out, p),
    };
    check_transport(transport, &field, p);
    super::rcp::check_flow_spec(transport, tcp, &field, p);
    let tcp = resolve_tcp(defaults, tcp, &format!("{field}.tcp"), p);
    let before = p.list.len();
    let src = endpoint_names(src, &format!("{field}.src"), hosts, p);
    let dst = endpoint_names(dst, &format!("{field}.dst"), hosts, p);
    if src.is_empty() {
        p.add(format!("{field}.src"), "needs at least one source node");
    }
    if dst.is_empty() {
        p.add(format!("{field}.dst"), "needs at least one destination node");
    }
    // Written so that NaN fails too.
    if load.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
        p.add(format!("{field}.load"), format!("must be positive, got {load}"));
    }
    if capacity.0 <= 0.0 {
        p.add(format!("{field}.capacity"), format!("must be positive, got {} bit/s", capacity.0));
    }
    if mean_size.partial_cmp(&1.0).is_none_or(|o| o == std::cmp::Ordering::Less) {
        p.add(format!("{field}.mean_size"), format!("must be at least 1 packet, got {mean_size}"));
    }
    if shape.partial_cmp(&1.0) != Some(std::cmp::Ordering::Greater) {
        p.add(format!("{field}.shape"), format!("must exceed 1 for a finite mean, got {shape}"));
    }
    if *flows == 0 {
        p.add(format!("{field}.flows"), "must be at least 1");
    }
    if p.list.len() != before {
        return;
    }
    let label = name.clone().unwrap_or_else(|| format!("w{index}"));
    let mut rng = seeds.stream(&format!("workload:{label}"));
    let packet_bits = (tcp.mss + header_bytes) as f64 * 8.0;
    let lambda = load * capacity.0 / (mean_size * packet_bits);
    let scale = mean_size * (shape - 1.0) / shape;
    let mut t = start.map_or(0.0, |s| s.0.secs());
    for k in 0..*flows {
        t += rng.exponential(1.0 / lambda);
        let at = Time::from_secs_f64(t);
        if at >= duration {
            break;
        }
        let packets = rng.pareto(*shape, scale).round().max(1.0);
        let s = src[rng.below(src.len())];
        let d = dst[rng.below(dst.len())];
        out.push((
            format!("{field} (flow {k})"),
            PendingFlow {
                model: FlowModel {
                    name: format!("{label}.{k}"),
                    src: 0,
                    dst: 0,
                    client: 0,
                    src_if: None,
                    dst_if: None,
                    size: Some((packets * tcp.mss as f64) as u64),
                    start: at,
                    after: None,
                    stop: None,
                    transport: transport.clone(),
                    tcp: tcp.clone(),
                    mptcp: None,
                    forged_slow_downs: 0,
                    inrpp_timeout_open_loop: true,
                    app: None,
                    fetch: None,
                    family: Family::V4,
                },
                src: s.to_string(),
                dst: d.to_string(),
                client_dst: false,
                after: None,
                mptcp: (transport == "mptcp").then(Default::default),
                interface: None,
            },
        ));
    }
}

/// A traffic matrix: one bulk flow `{name}.{host}` from every host taking
/// part, to the host `traffic_matrix::destinations` draws for it.
#[allow(clippy::too_many_arguments)]
fn expand_traffic_matrix(
    w: &WorkloadSpec,
    index: usize,
    defaults: &TcpConfig,
    duration: Time,
    seeds: &Seeds,
    hosts: &[&str],
    out: &mut Vec<(String, PendingFlow)>,
    p: &mut Problems,
) {
    let WorkloadSpec::TrafficMatrix { name, matrix, hosts: chosen, start, stop, transport, tcp, mptcp } = w else { return };
    let field = &format!("workloads[{index}]");
    check_transport(transport, field, p);
    super::rcp::check_flow_spec(transport, tcp, field, p);
    super::mptcp::check_spec(transport, mptcp.as_ref(), field, p);
    let tcp = resolve_tcp(defaults, tcp, &format!("{field}.tcp"), p);
    let start = start.map_or(Time::ZERO, |s| s.0);
    if start >= duration {
        p.add(format!("{field}.start"), format!("{start} is not before the end of the run ({duration})"));
    }
    if let Some(stop) = stop.filter(|s| s.0 <= start) {
        p.add(format!("{field}.stop"), format!("stop ({}) must be after start ({start})", stop.0));
    }
    let before = p.list.len();
    let members: Vec<&str> = match chosen {
        Some(names) => endpoint_names(names, &format!("{field}.hosts"), hosts, p),
        None => hosts.to_vec(),
    };
    let mut unique = HashSet::new();
    if let Some(twice) = members.iter().find(|h| !unique.insert(**h)) {
        p.add(format!("{field}.hosts"), format!("'{twice}' is listed twice"));
    }
    if members.len() < 2 {
        p.add(format!("{field}.hosts"), format!("a traffic matrix needs at least two hosts, got {}", members.len()));
    }
    if p.list.len() != before {
        return;
    }
    let label = name.clone().unwrap_or_else(|| format!("w{index}"));
    let mut rng = seeds.stream(&format!("workload:{label}"));
    let dsts = super::traffic_matrix::destinations(*matrix, members.len(), &mut rng);
    for (s, d) in members.iter().zip(dsts) {
        out.push((
            format!("{field} (host {s})"),
            PendingFlow {
                model: FlowModel {
                    name: format!("{label}.{s}"),
                    src: 0,
                    dst: 0,
                    client: 0,
                    src_if: None,
                    dst_if: None,
                    size: None,
                    start,
                    after: None,
                    stop: stop.map(|s| s.0),
                    transport: transport.clone(),
                    tcp: tcp.clone(),
                    mptcp: None,
                    forged_slow_downs: 0,
                    inrpp_timeout_open_loop: true,
                    app: None,
                    fetch: None,
                    family: Family::V4,
                },
                src: s.to_string(),
                dst: members[d].to_string(),
                client_dst: false,
                after: None,
                mptcp: (transport == "mptcp").then(|| mptcp.clone().unwrap_or_default()),
                interface: None,
            },
        ));
    }
}

/// A workload's `src`/`dst`: plain names as given (checked per generated
/// flow), patterns replaced by the host names they match, in node order.
pub(super) fn endpoint_names<'a>(names: &'a Names, field: &str, hosts: &[&'a str], p: &mut Problems) -> Vec<&'a str> {
    let mut out = Vec::new();
    for (i, entry) in names.entries().iter().enumerate() {
        let at = match names {
            Names::One(_) => field.to_string(),
            Names::List(_) => format!("{field}[{i}]"),
        };
        if !pattern::is_pattern(entry) {
            out.push(entry.as_str());
            continue;
        }
        if let Err(e) = pattern::check(entry) {
            p.add(at, format!("bad pattern '{entry}': {e}"));
            continue;
        }
        let before = out.len();
        out.extend(hosts.iter().filter(|h| pattern::matches(entry, h)));
        if out.len() == before {
            p.add(at, format!("pattern '{entry}' matches no host"));
        }
    }
    out
}

/// The index of `m`'s source interface `name`, checking that the flow's
/// packets can leave by it and its ACKs come back to it.
fn resolve_interface(m: &FlowModel, name: &str, field: &str, net: &super::mptcp::Network, check_routes: bool, p: &mut Problems) -> Option<u16> {
    let src = &net.nodes[m.src as usize];
    let Some(i) = src.interfaces.iter().position(|n| n == name) else {
        p.add(format!("{field}.interface"), format!("'{name}' is not an interface of '{}' (it has: {})", src.name, src.interfaces.join(", ")));
        return None;
    };
    if check_routes && !net.ifaces.reachable_from(net.routes, net.is_router, m.src, i as u16, m.dst) {
        p.add(
            format!("{field}.interface"),
            format!("no route from '{}' by '{name}' to '{}' and back", src.name, net.nodes[m.dst as usize].name),
        );
        return None;
    }
    Some(i as u16)
}

fn resolve_flow_ends(
    f: PendingFlow,
    field: &str,
    by_name: &HashMap<String, NodeId>,
    nodes: &[NodeModel],
    routes: &Routes,
    check_routes: bool,
    p: &mut Problems,
) -> Option<FlowModel> {
    let lookup = |name: &str, which: &str, p: &mut Problems| -> Option<NodeId> {
        match by_name.get(name) {
            None => {
                p.add(format!("{field}.{which}"), format!("unknown node '{name}'{}", suggest(name, by_name.keys())));
                None
            }
            Some(&id) if nodes[id as usize].kind == NodeKind::Router => {
                p.add(format!("{field}.{which}"), format!("'{name}' is a router; flows run between hosts"));
                None
            }
            Some(&id) => Some(id),
        }
    };
    let s = lookup(&f.src, "src", p);
    let d = lookup(&f.dst, "dst", p);
    let (s, d) = (s?, d?);
    if s == d {
        p.add(format!("{field}.dst"), format!("source and destination are the same node '{}'", f.src));
        return None;
    }
    if check_routes && !routes.reachable(s, d) {
        p.add(format!("{field}.dst"), format!("no route from '{}' to '{}'", f.src, f.dst));
        return None;
    }
    if check_routes && !routes.reachable(d, s) {
        p.add(format!("{field}.src"), format!("no route back from '{}' to '{}' (for ACKs)", f.dst, f.src));
        return None;
    }
    Some(FlowModel { src: s, dst: d, client: if f.client_dst { d } else { s }, ..f.model })
}
