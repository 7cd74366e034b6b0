//! From a validated scenario to the network the lab builds: one namespace per
//! node, one interface at each end of a link (joined through the link
//! emulator), an IPv4 /24 per link, static routes that follow the
//! simulator's routing, and per-interface source routing on multi-homed
//! hosts. Pure: nothing here touches the system.
//!
//! Addressing: link i (0-based, in the model's order) gets 10.H.L.0/24 with
//! H.L = i + 1 as a 16-bit number; its `a` end is .1 and its `b` end .2.
//!
//! Routing: the model's routes (`sim::net::routing`, shortest paths where
//! only routers forward) go to nodes, the kernel's to addresses. An address
//! X on link L is reached through the node that owns it if that node is a
//! router, else through the router at the other end of L; either way over
//! the simulator's next hops towards that node. With `ecmp`, equal-cost next
//! hops become one multipath route (per-flow hashing, like the simulator's,
//! though with the kernel's hash).
//!
//! Source routing (the standard MPTCP multi-homing set-up, one routing table
//! per local address; ip-rule(8)): on a host with several interfaces, packets
//! from interface k's address use table `SOURCE_TABLE_BASE + k`, which holds
//! only that interface's subnet and a default route through its neighbour,
//! so every subflow leaves by the interface its address belongs to.

use std::fmt;
use std::net::Ipv4Addr;

use pathpool_sim::net::LinkId;
use pathpool_sim::scenario::spec::NodeKind;
use pathpool_sim::Model;

/// Routing table of a multi-homed host's first interface; the k-th uses base + k.
pub const SOURCE_TABLE_BASE: u32 = 100;
/// Linux interface names are at most 15 bytes (IFNAMSIZ - 1).
const IFNAME_MAX: usize = 15;
/// Link subnets are numbered from 1 within 10.0.0.0/8.
const MAX_LINKS: usize = 65_534;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub nodes: Vec<NodePlan>,
    pub links: Vec<LinkPlan>,
    /// Equal-cost next hops become multipath routes.
    pub ecmp: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodePlan {
    pub name: String,
    pub router: bool,
    pub interfaces: Vec<Interface>,
    /// Host routes to every reachable address not on a directly connected link.
    pub routes: Vec<Route>,
    /// One per interface on multi-homed hosts, empty otherwise.
    pub source_tables: Vec<SourceTable>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interface {
    pub name: String,
    pub addr: Ipv4Addr,
    /// Index into `Plan::links`.
    pub link: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkPlan {
    pub name: String,
    /// (node index, interface name) of each end.
    pub a: (usize, String),
    pub b: (usize, String),
    pub subnet: Ipv4Addr,
    /// The MTU of both veth pairs (the scenario's `mtu`, default 1500, a veth's own default).
    pub mtu: u32,
}

/// A /32 route; several next hops make a multipath route.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    pub dst: Ipv4Addr,
    pub via: Vec<NextHop>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NextHop {
    pub gateway: Ipv4Addr,
    pub dev: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceTable {
    pub table: u32,
    /// The rule's selector: packets from this address.
    pub from: Ipv4Addr,
    pub dev: String,
    pub subnet: Ipv4Addr,
    /// The router at the interface's far end, if it is one.
    pub gateway: Option<Ipv4Addr>,
}

/// A scenario the lab cannot lay out, with the offending names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanError(pub Vec<String>);

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the kernel lab cannot build this topology: {}", self.0.join("; "))
    }
}

impl std::error::Error for PlanError {}

pub const PREFIX_LEN: u8 = 24;

fn subnet(link: usize) -> Ipv4Addr {
    let n = link + 1;
    Ipv4Addr::new(10, (n >> 8) as u8, (n & 0xff) as u8, 0)
}

fn host(subnet: Ipv4Addr, h: u8) -> Ipv4Addr {
    let o = subnet.octets();
    Ipv4Addr::new(o[0], o[1], o[2], h)
}

/// Node and interface names become namespace and device names.
fn check_name(what: &str, name: &str, max: usize, problems: &mut Vec<String>) {
    let ok = !name.is_empty()
        && name.len() <= max
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.')
        && name != "."
        && name != "..";
    if !ok {
        problems.push(format!("{what} '{name}' must be 1..={max} characters of [A-Za-z0-9._-]"));
    }
}

pub fn plan(model: &Model) -> Result<Plan, PlanError> {
    let mut problems = Vec::new();
    if model.links.len() > MAX_LINKS {
        problems.push(format!("{} links, at most {MAX_LINKS}", model.links.len()));
    }
    for n in &model.nodes {
        check_name("node name", &n.name, 64, &mut problems);
        for i in &n.interfaces {
            check_name(&format!("interface of node '{}'", n.name), i, IFNAME_MAX, &mut problems);
        }
    }
    if !problems.is_empty() {
        return Err(PlanError(problems));
    }

    let links: Vec<LinkPlan> = model
        .links
        .iter()
        .enumerate()
        .map(|(i, l)| LinkPlan {
            name: l.name.clone(),
            a: (l.a as usize, l.a_interface.clone()),
            b: (l.b as usize, l.b_interface.clone()),
            subnet: subnet(i),
            mtu: l.mtu,
        })
        .collect();
    let addr_of = |link: usize, node: usize| -> Ipv4Addr {
        host(links[link].subnet, if links[link].a.0 == node { 1 } else { 2 })
    };
    // Interface of `node` and far-end address on the link of direction `l`.
    let hop = |node: usize, l: LinkId| -> NextHop {
        let link = l as usize / 2;
        let lp = &links[link];
        // Direction 2i is a→b, 2i + 1 is b→a (`sim::scenario::model`).
        let from_a = l.is_multiple_of(2);
        let (dev, far) = if from_a { (&lp.a.1, lp.b.0) } else { (&lp.b.1, lp.a.0) };
        debug_assert_eq!(if from_a { lp.a.0 } else { lp.b.0 }, node);
        NextHop { gateway: addr_of(link, far), dev: dev.clone() }
    };
    let is_router = |n: usize| model.nodes[n].kind == NodeKind::Router;

    let mut nodes: Vec<NodePlan> = model
        .nodes
        .iter()
        .map(|n| NodePlan {
            name: n.name.clone(),
            router: n.kind == NodeKind::Router,
            interfaces: Vec::new(),
            routes: Vec::new(),
            source_tables: Vec::new(),
        })
        .collect();
    for (i, lp) in links.iter().enumerate() {
        for end in [&lp.a, &lp.b] {
            nodes[end.0].interfaces.push(Interface { name: end.1.clone(), addr: addr_of(i, end.0), link: i });
        }
    }

    for (n, node) in nodes.iter_mut().enumerate() {
        for (i, lp) in links.iter().enumerate() {
            if lp.a.0 == n || lp.b.0 == n {
                continue; // directly connected: the kernel's subnet route
            }
            for (owner, other) in [(lp.a.0, lp.b.0), (lp.b.0, lp.a.0)] {
                let target = if is_router(owner) {
                    owner
                } else if is_router(other) {
                    other
                } else {
                    continue;
                };
                let hops = model.routes.next_hops(n as u32, target as u32);
                let chosen = if model.ecmp { hops } else { &hops[..hops.len().min(1)] };
                if !chosen.is_empty() {
                    let via = chosen.iter().map(|&l| hop(n, l)).collect();
                    node.routes.push(Route { dst: addr_of(i, owner), via });
                }
            }
        }
        if !node.router && node.interfaces.len() > 1 {
            node.source_tables = node
                .interfaces
                .iter()
                .enumerate()
                .map(|(k, iface)| {
                    let lp = &links[iface.link];
                    let far = if lp.a.0 == n { lp.b.0 } else { lp.a.0 };
                    SourceTable {
                        table: SOURCE_TABLE_BASE + k as u32,
                        from: iface.addr,
                        dev: iface.name.clone(),
                        subnet: lp.subnet,
                        gateway: is_router(far).then(|| addr_of(iface.link, far)),
                    }
                })
                .collect();
        }
    }
    Ok(Plan { nodes, links, ecmp: model.ecmp })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use pathpool_sim::scenario::{load, Format, Source};

    pub(crate) fn model(toml: &str) -> Model {
        let src = Source { name: "<test>".into(), dir: ".".into(), data_dir: None };
        load(toml, Format::Toml, &src, None).unwrap()
    }

    /// Client with two interfaces, each through its own router to the
    /// server's two interfaces (the issue's two-path MPTCP set-up).
    pub(crate) const TWO_PATHS: &str = r#"
        [sim]
        duration = "1s"
        [[nodes]]
        name = "client"
        [[nodes]]
        name = "server"
        [[nodes]]
        name = "r1"
        kind = "router"
        [[nodes]]
        name = "r2"
        kind = "router"
        [[links]]
        a = "client:eth0"
        b = "r1"
        rate = "20Mbps"
        delay = "5ms"
        [[links]]
        a = "r1"
        b = "server:eth0"
        rate = "20Mbps"
        delay = "5ms"
        [[links]]
        a = "client:eth1"
        b = "r2"
        rate = "30Mbps"
        delay = "20ms"
        [[links]]
        a = "r2"
        b = "server:eth1"
        rate = "30Mbps"
        delay = "20ms"
    "#;

    fn node<'a>(p: &'a Plan, name: &str) -> &'a NodePlan {
        p.nodes.iter().find(|n| n.name == name).unwrap()
    }

    fn a(s: &str) -> Ipv4Addr {
        s.parse().unwrap()
    }

    #[test]
    fn two_paths_addresses_routes_and_source_tables() {
        let p = plan(&model(TWO_PATHS)).unwrap();
        assert_eq!(p.links.iter().map(|l| l.subnet).collect::<Vec<_>>(), [a("10.0.1.0"), a("10.0.2.0"), a("10.0.3.0"), a("10.0.4.0")]);
        let client = node(&p, "client");
        assert_eq!(
            client.interfaces,
            [
                Interface { name: "eth0".into(), addr: a("10.0.1.1"), link: 0 },
                Interface { name: "eth1".into(), addr: a("10.0.3.1"), link: 2 },
            ]
        );
        // The server's path-2 address is reached over path 2 (through r2),
        // its path-1 address over path 1.
        let route = |n: &NodePlan, dst: &str| n.routes.iter().find(|r| r.dst == a(dst)).cloned();
        assert_eq!(route(client, "10.0.4.2").unwrap().via, [NextHop { gateway: a("10.0.3.2"), dev: "eth1".into() }]);
        assert_eq!(route(client, "10.0.2.2").unwrap().via, [NextHop { gateway: a("10.0.1.2"), dev: "eth0".into() }]);
        // Hosts do not forward: r1 has no route to the server's path-2 address.
        assert!(route(node(&p, "r1"), "10.0.4.2").is_none());
        assert_eq!(
            client.source_tables,
            [
                SourceTable { table: 100, from: a("10.0.1.1"), dev: "eth0".into(), subnet: a("10.0.1.0"), gateway: Some(a("10.0.1.2")) },
                SourceTable { table: 101, from: a("10.0.3.1"), dev: "eth1".into(), subnet: a("10.0.3.0"), gateway: Some(a("10.0.3.2")) },
            ]
        );
        assert!(node(&p, "r1").source_tables.is_empty());
        assert!(node(&p, "r1").router && !client.router);
    }

    #[test]
    fn dumbbell_routes_cross_the_bottleneck() {
        let m = model(
            r#"
            [sim]
            duration = "1s"
            [topology]
            kind = "dumbbell"
            pairs = 2
            access = { rate = "1Gbps", delay = "1ms" }
            bottleneck = { rate = "20Mbps", delay = "10ms" }
        "#,
        );
        let p = plan(&m).unwrap();
        let src0 = node(&p, "src0");
        assert_eq!(src0.interfaces.len(), 1);
        assert!(src0.source_tables.is_empty());
        // Every address off src0's own link is routed through its access router.
        let own = src0.interfaces[0].addr.octets();
        let gw = Ipv4Addr::new(own[0], own[1], own[2], 3 - own[3]);
        assert!(!src0.routes.is_empty());
        assert!(src0.routes.iter().all(|r| r.via.len() == 1 && r.via[0].gateway == gw));
        let dst0_addr = node(&p, "dst0").interfaces[0].addr;
        assert!(src0.routes.iter().any(|r| r.dst == dst0_addr));
    }

    #[test]
    fn refuses_names_the_kernel_cannot_take() {
        let m = model(
            r#"
            [sim]
            duration = "1s"
            [[nodes]]
            name = "h1"
            [[nodes]]
            name = "h2"
            [[links]]
            a = "h1:an-interface-name-too-long"
            b = "h2"
            rate = "1Mbps"
            delay = "1ms"
        "#,
        );
        let e = plan(&m).unwrap_err();
        assert_eq!(e.0.len(), 1);
        assert!(e.0[0].contains("an-interface-name-too-long"), "{e}");
    }
}
