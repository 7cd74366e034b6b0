//! A resolver on a scenario node (`[[resolvers]]`): it answers each
//! domain it serves with a fixed list of mirrors, in a fixed order (no
//! round-robin rotation of the records, which servers commonly do and
//! BIND's `rrset-order` option sets), after a processing delay. The answer may depend
//! on the client's interface that asked, as a CDN's answer depends on the
//! network a query comes from. A domain it does not serve gets a Name
//! Error (RFC 1035 §4.1.1, RCODE 3). It answers every query on its own,
//! without a queue: `delay` is the same for each.

use std::collections::BTreeMap;

use super::message::RecordType;
use crate::net::NodeId;
use crate::time::Time;

#[derive(Debug, Clone)]
pub struct Resolver {
    /// Its name in lookups (default: its node's name).
    pub name: String,
    pub node: NodeId,
    /// From a query's arrival to its answer's departure.
    pub delay: Time,
    /// The domains it serves, by name without a trailing dot.
    pub zones: BTreeMap<String, Zone>,
}

/// What a resolver answers for one domain.
#[derive(Debug, Clone)]
pub struct Zone {
    pub mirrors: Vec<NodeId>,
    /// The records' TTL (RFC 1035 §3.2.1): how long a client may cache them.
    pub ttl: Time,
    /// Other mirrors for queries from a client interface of that name.
    pub by_interface: BTreeMap<String, Vec<NodeId>>,
}

impl Resolver {
    /// The answer to a query of type `rtype` for `domain` from a client
    /// interface named `interface`: (mirrors, TTL), or None for a domain it
    /// does not serve. An A answer names every mirror; an AAAA answer the
    /// mirrors with an IPv6 address (`has_v6`), in the same order, as a
    /// zone publishes AAAA records for its dual-stack servers only; none
    /// is an empty answer (NODATA, RFC 2308 §2.2).
    pub fn answer(&self, domain: &str, interface: &str, rtype: RecordType, has_v6: impl Fn(NodeId) -> bool) -> Option<(Vec<NodeId>, Time)> {
        let zone = self.zones.get(domain.strip_suffix('.').unwrap_or(domain))?;
        let mirrors = zone.by_interface.get(interface).unwrap_or(&zone.mirrors);
        let mirrors = match rtype {
            RecordType::A => mirrors.clone(),
            RecordType::Aaaa => mirrors.iter().copied().filter(|&m| has_v6(m)).collect(),
        };
        Some((mirrors, zone.ttl))
    }
}
