//! Mirrored content (`[[contents]]`): one object of known size, replicated
//! on several servers, any of which answers a range request for any of its
//! bytes (RFC 9110 §14.2).

use crate::net::NodeId;

#[derive(Debug, Clone, PartialEq)]
pub struct ContentModel {
    pub name: String,
    pub bytes: u64,
    /// The servers holding a replica, in the scenario's order.
    pub mirrors: Vec<NodeId>,
    /// The domain it is served under (`docs/dns.md`): a session then learns
    /// its mirrors from a resolver's answer instead of this list.
    pub domain: Option<String>,
}
