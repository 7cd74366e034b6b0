//! The connection analyzer (§III-A1, 3): connections and interfaces
//! multipath must leave alone.
//!
//! - A middlebox stripped the MPTCP options (the connection fell back to
//!   TCP, RFC 8684 §3.7): no MP_JOIN is attempted.
//! - Connections through a proxy (`proxied`, by application or flow name)
//!   stay on one path: the paper's SOCKS-proxy and banking-app problems.
//! - IMS, tunnel, CLAT and tethering interfaces (`exclude`) carry no
//!   subflow.
//! - Subflows pair only v4 with v4 and v6 with v6 (`families`,
//!   `peer_families`): no cross-family pair through a CLAT translation.

use super::settings::{Family, Settings};
use crate::control::view::ConnectionView;

/// Why the connection must stay on its one path, if it must.
pub fn single_only(c: &ConnectionView, s: &Settings) -> Option<String> {
    if c.fallback {
        return Some("MPTCP fallback (a middlebox stripped the options): no MP_JOIN".to_string());
    }
    let app = c.app.as_ref().map(|a| a.name.as_str());
    if s.proxied.iter().any(|p| *p == c.flow || Some(p.as_str()) == app) {
        return Some("proxied connection: one path".to_string());
    }
    None
}

/// Whether a subflow may run from local interface `local` to the peer's `remote`.
pub fn pair_allowed(c: &ConnectionView, local: u16, remote: u16, s: &Settings) -> bool {
    if s.exclude.contains(&local) {
        return false;
    }
    let mine = s.families.get(local as usize).copied().unwrap_or(Family::Dual);
    let theirs = c.peer_interfaces.get(remote as usize).and_then(|n| s.peer_families.get(n)).copied().unwrap_or(Family::Dual);
    mine.meets(theirs)
}
