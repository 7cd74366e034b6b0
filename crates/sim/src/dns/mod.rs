//! DNS on the simulated network (RFC 1034, RFC 1035), as far as PAT's Node
//! Explorer needs it: resolvers on scenario nodes that answer a domain
//! with a fixed list of mirrors (`resolver`), a stub resolver per host with
//! a cache, a timeout and retries (`stub`), and messages whose sizes follow
//! the wire format (`message`). Queries and answers travel as UDP datagrams
//! (`net::datagram`); the world carries them (`world::dns`), docs/dns.md
//! says what is modelled and what is not.

pub mod message;
pub mod resolver;
pub mod stub;

pub use message::{Message, RecordType};
pub use resolver::{Resolver, Zone};
pub use stub::{Stub, StubConfig};

use crate::net::NodeId;
use crate::time::Time;

/// Why a lookup gave no address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// The resolver does not serve the domain: RCODE 3, Name Error (RFC 1035
    /// §4.1.1), called NXDOMAIN by RFC 2308 §1.
    NxDomain,
    /// No answer came back within the timeout, after every attempt.
    Timeout,
}

impl Failure {
    pub fn name(self) -> &'static str {
        match self {
            Failure::NxDomain => "nxdomain",
            Failure::Timeout => "timeout",
        }
    }
}

/// The result of one lookup, as the stub resolver hands it back.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub host: NodeId,
    /// Index into the scenario's resolvers.
    pub resolver: u32,
    pub domain: String,
    /// The host's interface the query left by (and the answer came back to).
    pub interface: u16,
    /// In the resolver's order; empty on a failure. `mirrors` from the A
    /// records, `mirrors_v6` from the AAAA records (asked by a host with an
    /// IPv6 address only).
    pub mirrors: Vec<NodeId>,
    pub mirrors_v6: Vec<NodeId>,
    /// How long the answer may still be cached: the record's TTL, or what
    /// is left of it for an answer from the cache.
    pub ttl: Time,
    pub from_cache: bool,
    /// When the lookup was asked for.
    pub asked: Time,
    /// From the lookup to the answer (zero from the cache).
    pub elapsed: Time,
    /// Queries sent again after a timeout.
    pub retries: u32,
    pub failed: Option<Failure>,
    /// The caller's own tag, echoed (`world::dns::Lookup::token`).
    pub token: u64,
}

impl Answer {
    /// The `outcome` column of the `dns` table: `answer`, `nxdomain` or `timeout`.
    pub fn outcome(&self) -> &'static str {
        self.failed.map_or("answer", Failure::name)
    }
}
