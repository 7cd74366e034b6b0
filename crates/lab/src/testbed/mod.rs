//! The testbed: a scenario's nodes as network namespaces, its links
//! emulated (`crate::emulator`: each node interface is a veth whose peer is
//! an emulator end), addressed and routed as `plan` lays out, with MPTCP
//! enabled, and with `[sim] host_egress = "qdisc"` a qdisc on every host
//! interface (`host_qdisc`).
//!
//! Everything is named with a fresh run prefix (`prefix.rs`) and removed
//! when the `Testbed` is dropped — on success, on error (a half-built
//! testbed drops what it made) and on panic — and on SIGINT/SIGTERM/SIGHUP
//! (`interrupt.rs`).

pub mod host_qdisc;
pub mod interrupt;
pub mod plan;

use std::fmt;
use std::io;
use std::time::Instant;

use pathpool_sim::net::host_egress::HostEgress;
use pathpool_sim::Model;

use crate::emulator::{self, netdev, Emulator};
use crate::netns::Netns;
use crate::prefix::{clean_stale, run_prefix};
use crate::preflight::{self, Unavailable};
use host_qdisc::HostQdisc;
use plan::{Plan, PlanError, PREFIX_LEN};

#[derive(Debug)]
pub enum Error {
    Unavailable(Unavailable),
    Plan(PlanError),
    Io(io::Error),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Unavailable(e) => e.fmt(f),
            Error::Plan(e) => e.fmt(f),
            Error::Io(e) => write!(f, "building the testbed: {e}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<io::Error> for Error {
    fn from(e: io::Error) -> Error {
        Error::Io(e)
    }
}

pub struct Testbed {
    prefix: String,
    /// Namespaces of dead runs removed before this one was built.
    stale_removed: Vec<String>,
    plan: Plan,
    /// Declared first: its forwarders stop before their interfaces go.
    emulator: Emulator,
    /// In `plan.nodes` order. Declared before the registration so that the
    /// namespaces are gone before a signal would stop looking for them.
    namespaces: Vec<Netns>,
    /// Holds the emulator's ends of every link.
    _emulator_ns: Netns,
    _signals: interrupt::Registration,
}

impl Testbed {
    /// Checks the machine and the topology, then builds it; model time zero
    /// is when it is built.
    pub fn build(model: &Model) -> Result<Testbed, Error> {
        Testbed::build_at(model, None)
    }

    /// As `build`, with model time zero at `zero` if given (a moment after
    /// the build, so that a run can set up its applications first).
    pub fn build_at(model: &Model, zero: Option<Instant>) -> Result<Testbed, Error> {
        preflight::check().map_err(Error::Unavailable)?;
        let plan = plan::plan(model).map_err(Error::Plan)?;
        // A run killed outright (SIGKILL, a crash) could not clean up: its
        // namespaces carry its dead PID (`prefix.rs`). Remove them, and say so.
        let stale_removed = clean_stale()?;
        if !stale_removed.is_empty() {
            eprintln!("pathpool lab: removed {} namespaces left by runs whose process died: {}", stale_removed.len(), stale_removed.join(", "));
        }
        let prefix = run_prefix();
        let signals = interrupt::register(&prefix)?;
        let mut namespaces = Vec::with_capacity(plan.nodes.len());
        for node in &plan.nodes {
            let ns = Netns::create(&format!("{prefix}{}", node.name))?;
            let mut sysctls = vec![
                // Multi-homed hosts receive on one interface what they send
                // on another: no reverse-path filtering.
                ("net.ipv4.conf.all.rp_filter", "0"),
                ("net.ipv4.conf.default.rp_filter", "0"),
                ("net.mptcp.enabled", "1"),
            ];
            if node.router {
                sysctls.push(("net.ipv4.ip_forward", "1"));
                if plan.ecmp {
                    // Hash multipath routes per flow (ports included).
                    sysctls.push(("net.ipv4.fib_multipath_hash_policy", "1"));
                }
            }
            namespaces.push(ns);
            namespaces.last().expect("just pushed").sysctls(&sysctls)?;
        }
        let emulator_ns = Netns::create(&format!("{prefix}{}", emulator::NAMESPACE))?;
        // Set before the emulator's ends exist, so they get no IPv6 link-local address either.
        emulator_ns.sysctls(&[("net.ipv6.conf.all.disable_ipv6", "1"), ("net.ipv6.conf.default.disable_ipv6", "1")])?;
        let mut ends_up = Vec::with_capacity(plan.links.len() * 2);
        for (i, link) in plan.links.iter().enumerate() {
            for (end, (node, iface)) in emulator::ends(i).into_iter().zip([&link.a, &link.b]) {
                let peer_ns = namespaces[*node].name();
                // The node's interface and the emulator's end take the link's MTU; the emulator reads it (SIOCGIFMTU).
                let mtu = link.mtu.to_string();
                emulator_ns.ip(&["link", "add", &end, "mtu", &mtu, "type", "veth", "peer", "name", iface, "mtu", &mtu, "netns", peer_ns])?;
                ends_up.push(format!("link set {end} up"));
            }
        }
        emulator_ns.ip_batch(&ends_up)?;
        for (node, ns) in plan.nodes.iter().zip(&namespaces) {
            ns.run(|| node.interfaces.iter().try_for_each(|i| netdev::disable_offloads(&i.name)))??;
            ns.ip_batch(&commands(node))?;
        }
        if model.host_egress == HostEgress::Qdisc {
            // `plan.nodes`, and so `namespaces`, are in the model's node order.
            let qdiscs: Vec<HostQdisc> = host_qdisc::host_qdiscs(model).into_iter().collect::<Result<_, _>>().map_err(io::Error::other)?;
            for (n, ns) in namespaces.iter().enumerate() {
                let lines: Vec<String> = qdiscs.iter().filter(|q| q.node as usize == n).map(HostQdisc::command).collect();
                if !lines.is_empty() {
                    ns.tc_batch(&lines)?;
                }
            }
        }
        let emulator = Emulator::start(model, &emulator_ns, zero.unwrap_or_else(Instant::now))?;
        Ok(Testbed { prefix, stale_removed, plan, emulator, namespaces, _emulator_ns: emulator_ns, _signals: signals })
    }

    /// The namespaces of dead runs removed before this testbed was built.
    pub fn stale_removed(&self) -> &[String] {
        &self.stale_removed
    }

    /// The prefix of every namespace of this testbed.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// The link emulator: its clock (model time zero) and per-direction counters.
    pub fn emulator(&self) -> &Emulator {
        &self.emulator
    }

    /// The namespace of node `name`.
    pub fn node(&self, name: &str) -> Option<&Netns> {
        self.plan.nodes.iter().position(|n| n.name == name).map(|i| &self.namespaces[i])
    }
}

/// One node's `ip -batch` lines: addresses and links up, then routes, then
/// source-routing rules and tables.
fn commands(node: &plan::NodePlan) -> Vec<String> {
    let mut c = Vec::new();
    for i in &node.interfaces {
        c.push(format!("addr add {}/{PREFIX_LEN} dev {}", i.addr, i.name));
        c.push(format!("link set {} up", i.name));
    }
    for r in &node.routes {
        let hops: Vec<String> = r.via.iter().map(|h| format!("via {} dev {}", h.gateway, h.dev)).collect();
        c.push(match hops.as_slice() {
            [one] => format!("route add {}/32 {one}", r.dst),
            many => format!("route add {}/32 nexthop {}", r.dst, many.join(" nexthop ")),
        });
    }
    for t in &node.source_tables {
        c.push(format!("rule add from {} table {}", t.from, t.table));
        c.push(format!("route add {}/{PREFIX_LEN} dev {} scope link table {}", t.subnet, t.dev, t.table));
        if let Some(gw) = t.gateway {
            c.push(format!("route add default via {gw} dev {} table {}", t.dev, t.table));
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::plan::{Interface, NextHop, NodePlan, Route, SourceTable};
    use super::*;

    #[test]
    fn ip_batch_commands_of_a_multihomed_host() {
        let a = |s: &str| s.parse().unwrap();
        let node = NodePlan {
            name: "client".into(),
            router: false,
            interfaces: vec![
                Interface { name: "eth0".into(), addr: a("10.0.1.1"), link: 0 },
                Interface { name: "eth1".into(), addr: a("10.0.3.1"), link: 2 },
            ],
            routes: vec![
                Route { dst: a("10.0.2.2"), via: vec![NextHop { gateway: a("10.0.1.2"), dev: "eth0".into() }] },
                Route {
                    dst: a("10.0.9.2"),
                    via: vec![
                        NextHop { gateway: a("10.0.1.2"), dev: "eth0".into() },
                        NextHop { gateway: a("10.0.3.2"), dev: "eth1".into() },
                    ],
                },
            ],
            source_tables: vec![SourceTable {
                table: 101,
                from: a("10.0.3.1"),
                dev: "eth1".into(),
                subnet: a("10.0.3.0"),
                gateway: Some(a("10.0.3.2")),
            }],
        };
        assert_eq!(
            commands(&node),
            [
                "addr add 10.0.1.1/24 dev eth0",
                "link set eth0 up",
                "addr add 10.0.3.1/24 dev eth1",
                "link set eth1 up",
                "route add 10.0.2.2/32 via 10.0.1.2 dev eth0",
                "route add 10.0.9.2/32 nexthop via 10.0.1.2 dev eth0 nexthop via 10.0.3.2 dev eth1",
                "rule add from 10.0.3.1 table 101",
                "route add 10.0.3.0/24 dev eth1 scope link table 101",
                "route add default via 10.0.3.2 dev eth1 table 101",
            ]
        );
    }
}
