//! `[[contents]]` and `[[fetches]]`: mirrored content and the sessions that
//! download it in byte ranges (`crate::app::fetch`). Each session's
//! candidate connections — one per (mirror, client interface) that reaches
//! the mirror and back, and a second over IPv6 where every link between
//! them carries it (`scenario::families`) — become dormant single-path TCP
//! flows from the mirror to the client, pinned to that client interface,
//! appended after the scenario's own flows and named
//! `fetch/mirror/interface` (`fetch/mirror/interface/v6`).

use std::collections::{HashMap, HashSet};

use serde::Deserialize;

use super::build::{resolve_tcp, suggest};
use super::error::Problems;
use super::families::{has_v6, v6_path};
use super::model::{FlowModel, NodeModel};
use super::mptcp::Network;
use super::spec::{NodeKind, Scenario, TcpSpec};
use crate::app::content::ContentModel;
use crate::app::fetch::{Candidate, FetchModel, Policy};
use crate::net::family::Family;
use crate::net::NodeId;
use crate::tcp::TcpConfig;
use crate::time::Time;
use crate::units::{Bytes, Duration};

/// `[[contents]]`: an object and the nodes holding a replica.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContentSpec {
    pub name: String,
    pub bytes: Bytes,
    /// Hosts holding a replica, in the order the lookup returns them.
    pub mirrors: Vec<String>,
    /// The domain it is served under: sessions then look its mirrors up
    /// (`[[resolvers]]`, docs/dns.md).
    pub domain: Option<String>,
}

/// `[[fetches]]`: a client downloading one content in byte ranges.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FetchSpec {
    /// Defaults to "fetch{index}".
    pub name: Option<String>,
    pub client: String,
    pub content: String,
    /// Bytes per request; default the whole content (one request).
    pub chunk: Option<Bytes>,
    /// Content requests outstanding at most (default 1).
    pub pipeline: Option<u32>,
    /// Bytes of each request beside the packet header (default 300).
    pub request: Option<Bytes>,
    pub start: Option<Duration>,
    /// `default` (one connection to the first mirror over the preferred
    /// interface) or `controller` (a controller opens and steers).
    pub policy: Option<String>,
    /// The client interface the default policy uses (default its first).
    pub prefer: Option<String>,
    /// For a content with a domain: the resolver the default policy asks
    /// (default the first `[[resolvers]]` entry).
    pub resolver: Option<String>,
    /// The IP version the default policy connects over: "v4" (default) or "v6".
    pub family: Option<String>,
    /// TCP parameters of every candidate connection over `[tcp]`.
    #[serde(default)]
    pub tcp: TcpSpec,
}

/// A typical HTTP GET with a Range header (a few hundred bytes).
const REQUEST_BYTES: u64 = 300;

/// Resolves the contents and sessions, appending each session's candidate
/// connections to `flows`. Routes are checked only when every link was
/// built (`check_routes`). `contents` and `specs` are the file's entries and those `[[arrivals]]`
/// generated, each with the field it is reported under.
#[allow(clippy::too_many_arguments)]
pub fn resolve(
    sc: &Scenario,
    contents: &[(String, ContentSpec)],
    specs: &[(String, FetchSpec)],
    by_name: &HashMap<String, NodeId>,
    net: &Network,
    defaults: &TcpConfig,
    check_routes: bool,
    flows: &mut Vec<FlowModel>,
    p: &mut Problems,
) -> (Vec<ContentModel>, Vec<FetchModel>) {
    let contents = resolve_contents(contents, by_name, net, p);
    let index = Contents::new(&contents);
    let mut names: HashSet<String> = flows.iter().map(|f| f.name.clone()).collect();
    let mut fetches = Vec::new();
    for (i, (field, spec)) in specs.iter().enumerate() {
        let at = Place { field, index: i, session: fetches.len() as u32 };
        if let Some(m) = fetch(spec, &at, &index, by_name, net, defaults, check_routes, sc.sim.duration.0, flows, &mut names, p) {
            fetches.push(m);
        }
    }
    (contents, fetches)
}

/// The contents with an index by name, so that a session finds its content
/// in constant time: a search of the list per session made `[[arrivals]]`
/// quadratic in its sessions (10⁵ sessions: 10¹⁰ name comparisons).
pub struct Contents<'a> {
    pub list: &'a [ContentModel],
    by_name: HashMap<&'a str, usize>,
}

impl<'a> Contents<'a> {
    pub fn new(list: &'a [ContentModel]) -> Contents<'a> {
        let mut by_name = HashMap::with_capacity(list.len());
        for (i, c) in list.iter().enumerate() {
            // The first of a name, as a search from the front (a duplicate is refused anyway).
            by_name.entry(c.name.as_str()).or_insert(i);
        }
        Contents { list, by_name }
    }

    /// A `[[contents]]` entry by name: its index.
    pub fn find(&self, name: &str, field: &str, p: &mut Problems) -> Option<usize> {
        let found = self.by_name.get(name).copied();
        if found.is_none() {
            let known: Vec<&str> = self.list.iter().map(|c| c.name.as_str()).collect();
            p.add(field, format!("unknown content '{name}' (known: {})", if known.is_empty() { "none".into() } else { known.join(", ") }));
        }
        found
    }
}

fn resolve_contents(specs: &[(String, ContentSpec)], by_name: &HashMap<String, NodeId>, net: &Network, p: &mut Problems) -> Vec<ContentModel> {
    let mut out: Vec<ContentModel> = Vec::new();
    let mut seen: HashSet<&str> = HashSet::with_capacity(specs.len());
    for (field, c) in specs {
        if !seen.insert(c.name.as_str()) {
            p.add(format!("{field}.name"), format!("duplicate content name '{}'", c.name));
        }
        if c.bytes.0 == 0 {
            p.add(format!("{field}.bytes"), "must be positive");
        }
        if c.mirrors.is_empty() {
            p.add(format!("{field}.mirrors"), "needs at least one mirror (a node holding a replica)");
        }
        let mut mirrors = Vec::new();
        for (j, name) in c.mirrors.iter().enumerate() {
            let at = format!("{field}.mirrors[{j}]");
            match by_name.get(name) {
                None => p.add(at, format!("unknown node '{name}'{}", suggest(name, by_name.keys()))),
                Some(&n) if net.nodes[n as usize].kind == NodeKind::Router => p.add(at, format!("'{name}' is a router; mirrors are hosts")),
                Some(&n) if mirrors.contains(&n) => p.add(at, format!("'{name}' is listed twice")),
                Some(&n) => mirrors.push(n),
            }
        }
        if let Some(Err(e)) = c.domain.as_deref().map(crate::dns::message::check_name) {
            p.add(format!("{field}.domain"), e);
        }
        out.push(ContentModel { name: c.name.clone(), bytes: c.bytes.0, mirrors, domain: c.domain.clone() });
    }
    out
}

/// Where a `[[fetches]]` entry is: its field, its index in the file, and
/// the session id it gets if it is valid.
struct Place<'a> {
    field: &'a str,
    index: usize,
    session: u32,
}

#[allow(clippy::too_many_arguments)]
fn fetch(
    spec: &FetchSpec,
    at: &Place,
    contents: &Contents,
    by_name: &HashMap<String, NodeId>,
    net: &Network,
    defaults: &TcpConfig,
    check_routes: bool,
    duration: Time,
    flows: &mut Vec<FlowModel>,
    names: &mut HashSet<String>,
    p: &mut Problems,
) -> Option<FetchModel> {
    let (field, before) = (at.field, p.list.len());
    let name = spec.name.clone().unwrap_or_else(|| format!("fetch{}", at.index));
    let tcp = resolve_tcp(defaults, &spec.tcp, &format!("{field}.tcp"), p);
    let client = client(&spec.client, &format!("{field}.client"), by_name, net, p);
    let content = contents.find(&spec.content, &format!("{field}.content"), p);
    let (client, content) = (client?, content?);
    let c = &contents.list[content];
    let chunk = spec.chunk.map_or(c.bytes, |b| b.0);
    if chunk == 0 || chunk > c.bytes {
        p.add(format!("{field}.chunk"), format!("must be positive and at most the content's {} bytes, got {chunk}", c.bytes));
    }
    let pipeline = spec.pipeline.unwrap_or(1);
    if pipeline == 0 {
        p.add(format!("{field}.pipeline"), "must be at least 1");
    }
    let request = spec.request.map_or(REQUEST_BYTES, |r| r.0);
    if request == 0 || request > u32::MAX as u64 / 2 {
        p.add(format!("{field}.request"), "must be positive (and under 2 GB)");
    }
    let start = start(spec.start, &format!("{field}.start"), duration, p);
    let policy = policy(spec.policy.as_deref(), &format!("{field}.policy"), p);
    let node = &net.nodes[client as usize];
    let prefer = prefer(spec.prefer.as_deref(), &format!("{field}.prefer"), node, p)?;
    let family = family(spec, field, policy, p);
    let mut candidates = Vec::new();
    for (mirror, k) in reaching(c, client, field, net, check_routes, p) {
        candidates.push(Candidate { mirror, iface: k, family: Family::V4, lane: 0, flow: 0 });
        if check_routes && v6_path(net, client, k, mirror) {
            candidates.push(Candidate { mirror, iface: k, family: Family::V6, lane: 0, flow: 0 });
        }
    }
    if policy == Policy::Default && !candidates.iter().any(|k| k.iface == prefer) {
        p.add(format!("{field}.prefer"), format!("no mirror of '{}' is reachable over '{}'", c.name, node.interfaces[prefer as usize]));
    } else if policy == Policy::Default && check_routes && !candidates.iter().any(|k| k.iface == prefer && k.family == family) {
        p.add(format!("{field}.family"), no_v6_path(c, client, prefer, net));
    }
    if p.list.len() != before {
        return None;
    }
    for k in &mut candidates {
        let v6 = if k.family == Family::V6 { "/v6" } else { "" };
        let flow_name = format!("{name}/{}/{}{v6}", net.nodes[k.mirror as usize].name, node.interfaces[k.iface as usize]);
        if !names.insert(flow_name.clone()) {
            p.add(format!("{field}.name"), format!("its connection '{flow_name}' has the name of another flow"));
        }
        k.flow = flows.len() as u32;
        flows.push(connection(flow_name, k, client, start, &tcp, at.session));
    }
    let resolver = c.domain.as_ref().map(|_| spec.resolver.clone().unwrap_or_default());
    let request_bytes = request as u32;
    let bytes = c.bytes;
    Some(FetchModel { name, client, content, bytes, chunk, pipeline, request_bytes, start, policy, prefer, family, resolver, candidates, page: None, after: None })
}

/// The default policy's IP version (`family`): IPv4 unless the scenario
/// says "v6"; under a controller the controller chooses each connection's.
fn family(spec: &FetchSpec, field: &str, policy: Policy, p: &mut Problems) -> Family {
    let Some(name) = spec.family.as_deref() else { return Family::V4 };
    match Family::parse(name) {
        None => {
            p.add(format!("{field}.family"), format!("unknown family '{name}' (known: v4, v6)"));
            Family::V4
        }
        Some(_) if policy != Policy::Default => {
            p.add(format!("{field}.family"), "applies to policy \"default\" only (a controller picks each connection's family)");
            Family::V4
        }
        Some(f) => f,
    }
}

/// Why no mirror of `c` is reachable over IPv6 from interface `k` of `client`.
fn no_v6_path(c: &ContentModel, client: NodeId, k: u16, net: &Network) -> String {
    let (node, iface) = (&net.nodes[client as usize], net.ifaces.get(client, k));
    let link = &net.links[iface.link as usize];
    let without: Vec<&str> = c.mirrors.iter().filter(|&&m| !has_v6(net, m)).map(|&m| net.nodes[m as usize].name.as_str()).collect();
    if !link.v6 {
        format!("\"v6\" over '{}' of '{}', whose link '{}' carries IPv4 only (add families = [\"v4\", \"v6\"] to it)", node.interfaces[k as usize], node.name, link.name)
    } else if without.len() == c.mirrors.len() {
        format!("\"v6\", but no mirror of '{}' has an IPv6 address ({})", c.name, without.join(", "))
    } else {
        format!("\"v6\", but no mirror of '{}' is reachable over IPv6 from '{}' (a link on the way carries IPv4 only)", c.name, node.interfaces[k as usize])
    }
}

/// `client`: a host of the scenario.
pub(super) fn client(name: &str, field: &str, by_name: &HashMap<String, NodeId>, net: &Network, p: &mut Problems) -> Option<NodeId> {
    match by_name.get(name) {
        None => {
            p.add(field, format!("unknown node '{name}'{}", suggest(name, by_name.keys())));
            None
        }
        Some(&n) if net.nodes[n as usize].kind == NodeKind::Router => {
            p.add(field, format!("'{name}' is a router; clients are hosts"));
            None
        }
        Some(&n) => Some(n),
    }
}

/// A session's start: before the end of the run.
pub(super) fn start(spec: Option<Duration>, field: &str, duration: Time, p: &mut Problems) -> Time {
    let start = spec.map_or(Time::ZERO, |s| s.0);
    if start >= duration {
        p.add(field, format!("starts at {start}, not before the end of the run ({duration})"));
    }
    start
}

pub(super) fn policy(spec: Option<&str>, field: &str, p: &mut Problems) -> Policy {
    match spec.unwrap_or("default") {
        "default" => Policy::Default,
        "controller" => Policy::Controller,
        other => {
            p.add(field, format!("unknown policy '{other}' (known: default, controller)"));
            Policy::Default
        }
    }
}

/// The client interface the default policy uses: by name, default the first.
pub(super) fn prefer(spec: Option<&str>, field: &str, node: &NodeModel, p: &mut Problems) -> Option<u16> {
    let Some(i) = spec else { return Some(0) };
    let k = node.interfaces.iter().position(|n| n == i);
    if k.is_none() {
        p.add(field, format!("'{i}' is not an interface of '{}' (it has: {})", node.name, node.interfaces.join(", ")));
    }
    k.map(|k| k as u16)
}

/// The (mirror, client interface) pairs of content `c` whose interface
/// reaches the mirror and back, mirror-major; a mirror that is the client
/// or that no interface reaches is a problem of `{field}.client` or
/// `{field}.content`.
pub(super) fn reaching(c: &ContentModel, client: NodeId, field: &str, net: &Network, check_routes: bool, p: &mut Problems) -> Vec<(NodeId, u16)> {
    let node = &net.nodes[client as usize];
    let mut out = Vec::new();
    for &mirror in &c.mirrors {
        let mname = &net.nodes[mirror as usize].name;
        if mirror == client {
            p.add(format!("{field}.client"), format!("'{mname}' is a mirror of '{}' itself", c.name));
            continue;
        }
        let reaches = |k: u16| !check_routes || net.ifaces.reachable_from(net.routes, net.is_router, client, k, mirror);
        let ifaces: Vec<u16> = (0..node.interfaces.len() as u16).filter(|&k| reaches(k)).collect();
        if ifaces.is_empty() {
            p.add(
                format!("{field}.content"),
                format!("mirror '{mname}' of '{}' is unreachable from every interface of '{}' ({})", c.name, node.name, node.interfaces.join(", ")),
            );
        }
        out.extend(ifaces.into_iter().map(|k| (mirror, k)));
    }
    out
}

/// A session's candidate connection `k` as a dormant flow: single-path TCP
/// from the mirror to the client over `k`'s family, pinned to the client's interface.
pub(super) fn connection(name: String, k: &Candidate, client: NodeId, start: Time, tcp: &TcpConfig, session: u32) -> FlowModel {
    FlowModel {
        name,
        src: k.mirror,
        dst: client,
        client,
        src_if: None,
        dst_if: Some(k.iface),
        family: k.family,
        size: None,
        start,
        after: None,
        stop: None,
        transport: "tcp".into(),
        tcp: tcp.clone(),
        mptcp: None,
        forged_slow_downs: 0,
        inrpp_timeout_open_loop: true,
        app: None,
        fetch: Some(session),
    }
}

/// Checks contents served under a domain against the resolvers: some
/// resolver serves the domain, every mirror any resolver answers for it
/// holds the content (else a request would reach a server without it), and
/// each session's resolver exists and serves it (the first `[[resolvers]]`
/// entry by default).
pub fn check_dns(
    specs: &[(String, FetchSpec)],
    contents: &[ContentModel],
    fetches: &mut [FetchModel],
    resolvers: &[crate::dns::Resolver],
    names: &[String],
    p: &mut Problems,
) {
    for (i, c) in contents.iter().enumerate() {
        let Some(domain) = &c.domain else { continue };
        let serving: Vec<&crate::dns::Resolver> = resolvers.iter().filter(|r| r.zones.contains_key(domain.as_str())).collect();
        if serving.is_empty() {
            p.add(format!("contents[{i}].domain"), format!("no [[resolvers]] entry serves '{domain}'"));
        }
        for (j, r) in resolvers.iter().enumerate() {
            let Some(zone) = r.zones.get(domain.as_str()) else { continue };
            for &m in zone.mirrors.iter().chain(zone.by_interface.values().flatten()) {
                if !c.mirrors.contains(&m) {
                    p.add(
                        format!("resolvers[{j}].domains.\"{domain}\""),
                        format!("answers '{}', which does not hold content '{}' (contents[{i}].mirrors)", names[m as usize], c.name),
                    );
                }
            }
        }
    }
    // A session refused already leaves the others unnumbered: nothing more to check.
    if fetches.len() != specs.len() {
        return;
    }
    for ((field, spec), m) in specs.iter().zip(fetches) {
        let c = &contents[m.content];
        if c.domain.is_none() && spec.resolver.is_some() {
            p.add(format!("{field}.resolver"), format!("content '{}' has no domain to look up", c.name));
        }
        m.resolver = session_resolver(spec.resolver.as_deref(), &format!("{field}.resolver"), c, resolvers, p);
    }
}

/// The resolver a default-policy session asks for content `c` (None for a
/// content without a domain): `named`, else the first `[[resolvers]]`
/// entry; it must exist and serve the content's domain.
pub(super) fn session_resolver(named: Option<&str>, field: &str, c: &ContentModel, resolvers: &[crate::dns::Resolver], p: &mut Problems) -> Option<String> {
    let domain = c.domain.as_ref()?;
    let name = named.map(str::to_string).or_else(|| resolvers.first().map(|r| r.name.clone()))?;
    match resolvers.iter().find(|r| r.name == name) {
        None => p.add(field, format!("unknown resolver '{name}'")),
        Some(r) if !r.zones.contains_key(domain.as_str()) => p.add(field, format!("'{name}' does not serve '{domain}'")),
        Some(_) => {}
    }
    Some(name)
}
