//! `[[resolvers]]` and `[dns]`: resolvers on nodes with the domains they
//! answer, and the hosts' stub-resolver settings, checked into
//! `crate::dns` models; every problem is reported under `resolvers[i]` or
//! `dns`. Negative delays and TTLs are refused by the parser (`units`).

use std::collections::{BTreeMap, HashMap};

use super::build::suggest;
use super::error::Problems;
use super::model::NodeModel;
use super::spec::{DnsSpec, NodeKind, ResolverSpec};
use crate::dns::message::{check_name, MAX_TTL_S};
use crate::dns::{Resolver, StubConfig, Zone};
use crate::net::NodeId;
use crate::time::Time;

/// More sends than this per lookup: glibc caps `attempts` at 5 (`RES_MAXRETRY`).
const MAX_ATTEMPTS: u32 = 5;

pub fn resolve(
    specs: &[ResolverSpec],
    dns: &DnsSpec,
    nodes: &[NodeModel],
    by_name: &HashMap<String, NodeId>,
    p: &mut Problems,
) -> (Vec<Resolver>, StubConfig) {
    let mut out: Vec<Resolver> = Vec::new();
    for (i, r) in specs.iter().enumerate() {
        let field = format!("resolvers[{i}]");
        let Some(&node) = by_name.get(&r.node) else {
            p.add(format!("{field}.node"), format!("unknown node '{}'{}", r.node, suggest(&r.node, by_name.keys())));
            continue;
        };
        let name = r.name.clone().unwrap_or_else(|| r.node.clone());
        if name.is_empty() {
            p.add(format!("{field}.name"), "must not be empty");
        } else if out.iter().any(|o| o.name == name) {
            p.add(format!("{field}.name"), format!("another resolver is named '{name}'; give each its own name"));
        }
        let mut zones = BTreeMap::new();
        for (domain, d) in &r.domains {
            let at = format!("{field}.domains.\"{domain}\"");
            if let Err(e) = check_name(domain) {
                p.add(at.clone(), e);
            }
            let ttl = d.ttl.0;
            if ttl > Time::from_secs(MAX_TTL_S) {
                p.add(format!("{at}.ttl"), format!("{ttl} is over the longest TTL, 2^31 - 1 s (RFC 2181 §8)"));
            }
            let answer = mirrors(&d.mirrors, &format!("{at}.mirrors"), nodes, by_name, p);
            let mut by_interface = BTreeMap::new();
            for (iface, list) in &d.by_interface {
                let at = format!("{at}.by_interface.{iface}");
                if !nodes.iter().any(|n| n.kind == NodeKind::Host && n.interfaces.contains(iface)) {
                    p.add(at.clone(), format!("no host has an interface named '{iface}'"));
                }
                by_interface.insert(iface.clone(), mirrors(list, &at, nodes, by_name, p));
            }
            zones.insert(domain.strip_suffix('.').unwrap_or(domain).to_string(), Zone { mirrors: answer, ttl, by_interface });
        }
        out.push(Resolver { name, node, delay: r.delay.map_or(Time::ZERO, |d| d.0), zones });
    }
    let default = StubConfig::default();
    let timeout = dns.timeout.map_or(default.timeout, |d| d.0);
    if timeout == Time::ZERO {
        p.add("dns.timeout", "must be positive");
    }
    let attempts = dns.attempts.unwrap_or(default.attempts);
    if !(1..=MAX_ATTEMPTS).contains(&attempts) {
        p.add("dns.attempts", format!("must be 1 to {MAX_ATTEMPTS} (glibc's RES_MAXRETRY), got {attempts}"));
    }
    (out, StubConfig { timeout, attempts })
}

/// An answer's mirrors: hosts, at least one.
fn mirrors(names: &[String], at: &str, nodes: &[NodeModel], by_name: &HashMap<String, NodeId>, p: &mut Problems) -> Vec<NodeId> {
    if names.is_empty() {
        p.add(at, "needs at least one mirror (leave the domain out for an NXDOMAIN answer)");
    }
    let mut out = Vec::new();
    for (k, m) in names.iter().enumerate() {
        match by_name.get(m) {
            None => p.add(format!("{at}[{k}]"), format!("unknown node '{m}'{}", suggest(m, by_name.keys()))),
            Some(&n) if nodes[n as usize].kind == NodeKind::Router => {
                p.add(format!("{at}[{k}]"), format!("'{m}' is a router; mirrors are hosts that serve content"))
            }
            Some(&n) => out.push(n),
        }
    }
    out
}
