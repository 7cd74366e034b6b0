//! `[[pages]]`: web page loads (`crate::app::page`). Each object becomes a
//! fetch session for its content, appended after the `[[fetches]]`
//! sessions and named `page/content`; the page's connections become
//! dormant single-path TCP flows named `page/mirror/interface/lane`,
//! appended after the other flows, which its objects share.

use std::collections::{HashMap, HashSet};

use serde::Deserialize;

use super::build::resolve_tcp;
use super::error::Problems;
use super::fetches::{client, connection, policy, prefer, reaching, session_resolver, Contents};
use super::model::FlowModel;
use super::mptcp::Network;
use super::spec::TcpSpec;
use crate::app::content::ContentModel;
use crate::app::fetch::{Candidate, FetchModel, Policy};
use crate::app::page::{depths, PageModel, PageObject, PER_SERVER};
use crate::net::family::Family;
use crate::net::NodeId;
use crate::tcp::TcpConfig;
use crate::time::Time;
use crate::units::{Bytes, Duration};

/// `[[pages]]`: a client loading a page of objects.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PageSpec {
    /// Defaults to "page{index}".
    pub name: Option<String>,
    pub client: String,
    /// The objects, the main object (the document) first.
    pub objects: Vec<ObjectSpec>,
    pub start: Option<Duration>,
    /// Connections to one server over one interface at most, under the
    /// default policy (default 6, as browsers do).
    pub connections_per_server: Option<u16>,
    /// `default` (a browser: the first mirror of the lookup over the
    /// preferred interface) or `controller` (a controller opens and steers).
    pub policy: Option<String>,
    /// The client interface the default policy uses (default its first).
    pub prefer: Option<String>,
    /// For contents with a domain: the resolver the default policy asks
    /// (default the first `[[resolvers]]` entry).
    pub resolver: Option<String>,
    /// Bytes of each request beside the packet header (default 300).
    pub request: Option<Bytes>,
    /// TCP parameters of the page's connections over `[tcp]`.
    #[serde(default)]
    pub tcp: TcpSpec,
}

/// One object of a page: a `[[contents]]` entry, and the object whose
/// arrival reveals it (default the main object).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ObjectSpec {
    pub content: String,
    /// Another object of the page, by its content's name.
    pub after: Option<String>,
}

/// A typical HTTP GET (a few hundred bytes).
const REQUEST_BYTES: u64 = 300;

/// What the pages need from the rest of the scenario.
pub struct Context<'a> {
    pub by_name: &'a HashMap<String, NodeId>,
    pub net: &'a Network<'a>,
    pub defaults: &'a TcpConfig,
    pub check_routes: bool,
    pub duration: Time,
    pub contents: &'a Contents<'a>,
}

/// Resolves the pages: their objects' sessions are appended to `fetches`
/// and their connections to `flows`.
pub fn resolve(specs: &[(String, PageSpec)], cx: &Context, fetches: &mut Vec<FetchModel>, flows: &mut Vec<FlowModel>, p: &mut Problems) -> Vec<PageModel> {
    let mut names: HashSet<String> = flows.iter().map(|f| f.name.clone()).collect();
    let mut pages = Vec::new();
    for (i, (field, spec)) in specs.iter().enumerate() {
        let name = spec.name.clone().unwrap_or_else(|| format!("page{i}"));
        if let Some(page) = page(spec, field, name, cx, fetches, flows, &mut names, p) {
            pages.push(page);
        }
    }
    for (k, page) in pages.iter().enumerate() {
        for o in &page.objects {
            fetches[o.session as usize].page = Some(k as u32);
        }
    }
    pages
}

/// The objects' contents (indices into `cx.contents`) and parents (object
/// indices), checked: known contents, each once, the main object without a
/// parent, the others' parents objects of the page, no loop.
fn objects(spec: &PageSpec, field: &str, cx: &Context, p: &mut Problems) -> Option<(Vec<usize>, Vec<Option<usize>>)> {
    let before = p.list.len();
    if spec.objects.is_empty() {
        p.add(format!("{field}.objects"), "needs at least the main object (the document)");
        return None;
    }
    let mut found = Vec::new();
    for (j, o) in spec.objects.iter().enumerate() {
        let at = format!("{field}.objects[{j}].content");
        if let Some(k) = spec.objects[..j].iter().position(|e| e.content == o.content) {
            p.add(&at, format!("'{}' is objects[{k}] already (a browser fetches an object once per page)", o.content));
        }
        found.push(cx.contents.find(&o.content, &at, p));
    }
    let mut parents = Vec::new();
    for (j, o) in spec.objects.iter().enumerate() {
        let at = format!("{field}.objects[{j}].after");
        parents.push(match (j, &o.after) {
            (0, None) => None,
            (0, Some(_)) => {
                p.add(at, "the main object (the first) is requested first; it has no parent");
                None
            }
            (_, None) => Some(0),
            (_, Some(a)) => {
                let parent = spec.objects.iter().position(|e| &e.content == a);
                if parent.is_none() {
                    p.add(at, format!("'{a}' is not an object of this page"));
                }
                parent
            }
        });
    }
    if p.list.len() != before {
        return None;
    }
    if let Err(cycle) = depths(&parents) {
        let mut names: Vec<&str> = cycle.iter().map(|&j| spec.objects[j].content.as_str()).collect();
        names.push(names[0]);
        p.add(format!("{field}.objects[{}].after", cycle[0]), format!("the objects' parents form a loop: {}", names.join(" → ")));
        return None;
    }
    Some((found.into_iter().map(|c| c.expect("checked")).collect(), parents))
}

#[allow(clippy::too_many_arguments)]
fn page(
    spec: &PageSpec,
    field: &str,
    name: String,
    cx: &Context,
    fetches: &mut Vec<FetchModel>,
    flows: &mut Vec<FlowModel>,
    names: &mut HashSet<String>,
    p: &mut Problems,
) -> Option<PageModel> {
    let before = p.list.len();
    let tcp = resolve_tcp(cx.defaults, &spec.tcp, &format!("{field}.tcp"), p);
    let client = client(&spec.client, &format!("{field}.client"), cx.by_name, cx.net, p);
    let objects = objects(spec, field, cx, p);
    let start = super::fetches::start(spec.start, &format!("{field}.start"), cx.duration, p);
    let policy = policy(spec.policy.as_deref(), &format!("{field}.policy"), p);
    let per_server = spec.connections_per_server.unwrap_or(PER_SERVER);
    if per_server == 0 {
        p.add(format!("{field}.connections_per_server"), "must be at least 1");
    }
    let request = spec.request.map_or(REQUEST_BYTES, |r| r.0);
    if request == 0 || request > u32::MAX as u64 / 2 {
        p.add(format!("{field}.request"), "must be positive (and under 2 GB)");
    }
    let (client, (contents, parents)) = (client?, objects?);
    let node = &cx.net.nodes[client as usize];
    let prefer = prefer(spec.prefer.as_deref(), &format!("{field}.prefer"), node, p)?;
    // A controller opens the connections it wants, one per mirror and interface.
    let lanes = if policy == Policy::Default { per_server } else { 1 };
    let mut pool: Vec<Candidate> = Vec::new();
    let mut reach: Vec<Vec<(NodeId, u16)>> = Vec::new();
    for (j, &c) in contents.iter().enumerate() {
        let content = &cx.contents.list[c];
        let pairs = reaching(content, client, &format!("{field}.objects[{j}]"), cx.net, cx.check_routes, p);
        if policy == Policy::Default && !pairs.iter().any(|&(_, k)| k == prefer) {
            p.add(format!("{field}.prefer"), format!("no mirror of '{}' is reachable over '{}'", content.name, node.interfaces[prefer as usize]));
        }
        for &(mirror, iface) in &pairs {
            if !pool.iter().any(|k| (k.mirror, k.iface) == (mirror, iface)) {
                pool.extend((0..lanes).map(|lane| Candidate { mirror, iface, family: Family::V4, lane, flow: 0 }));
            }
        }
        reach.push(pairs);
    }
    if p.list.len() != before {
        return None;
    }
    let first = fetches.len() as u32;
    let depth = depths(&parents).expect("checked");
    for k in &mut pool {
        let flow_name = format!("{name}/{}/{}/{}", cx.net.nodes[k.mirror as usize].name, node.interfaces[k.iface as usize], k.lane);
        if !names.insert(flow_name.clone()) {
            p.add(format!("{field}.name"), format!("its connection '{flow_name}' has the name of another flow"));
        }
        // The connection's home session: the first object that may use it.
        let home = reach.iter().position(|r| r.contains(&(k.mirror, k.iface))).expect("in some object's reach") as u32;
        k.flow = flows.len() as u32;
        flows.push(connection(flow_name, k, client, start, &tcp, first + home));
    }
    let mut objects = Vec::new();
    for (j, &c) in contents.iter().enumerate() {
        let content = &cx.contents.list[c];
        let candidates = pool.iter().copied().filter(|k| reach[j].contains(&(k.mirror, k.iface))).collect();
        fetches.push(FetchModel {
            name: format!("{name}/{}", content.name),
            client,
            content: c,
            bytes: content.bytes,
            chunk: content.bytes,
            pipeline: 1,
            request_bytes: request as u32,
            start,
            policy,
            prefer,
            family: Family::V4,
            // `check_dns` names it.
            resolver: None,
            candidates,
            page: None,
            after: parents[j].map(|a| first + a as u32),
        });
        objects.push(PageObject { session: first + j as u32, after: parents[j], depth: depth[j] });
    }
    Some(PageModel { name, client, start, per_server, objects, pool })
}

/// Checks each page's resolver against its objects' domains (as
/// `fetches::check_dns` does for a session) and records it in the objects'
/// sessions. `objects` are the pages' sessions, the first of them session
/// `first`.
pub fn check_dns(
    specs: &[(String, PageSpec)],
    pages: &[PageModel],
    contents: &[ContentModel],
    objects: &mut [FetchModel],
    first: u32,
    resolvers: &[crate::dns::Resolver],
    p: &mut Problems,
) {
    // A page refused already leaves the others unnumbered: nothing more to check.
    if pages.len() != specs.len() {
        return;
    }
    for ((field, spec), page) in specs.iter().zip(pages) {
        let at = format!("{field}.resolver");
        let sessions: Vec<usize> = page.objects.iter().map(|o| (o.session - first) as usize).collect();
        if spec.resolver.is_some() && sessions.iter().all(|&s| contents[objects[s].content].domain.is_none()) {
            p.add(&at, "none of its objects' contents has a domain to look up");
        }
        for s in sessions {
            let m = &mut objects[s];
            m.resolver = session_resolver(spec.resolver.as_deref(), &at, &contents[m.content], resolvers, p);
        }
    }
}
