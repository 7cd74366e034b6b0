//! IP versions: what IPv6 changes in a packet-level model.
//!
//! A link carries IPv4, or IPv4 and IPv6 (`[[links]] families`, docs/scenario.md);
//! a single-path TCP connection runs over one of them. IPv6's fixed header
//! is 40 bytes where IPv4's is 20 without options (RFC 8200 §3, RFC 791
//! §3.1), so every segment of an IPv6 connection is 20 bytes longer on the
//! wire and an interface announces an MSS of MTU − 60 instead of MTU − 40
//! (RFC 8200 §8.3, RFC 6691 §2: the MSS leaves out the fixed IP and TCP
//! headers). TCP options are the same over both. An IPv6 link's MTU is at
//! least 1280 bytes (RFC 8200 §5). Nothing else differs here: routes are
//! the same for both (a dual-stack network, one topology), and extension
//! headers, flow labels and fragmentation are not modelled.

/// IPv4 header without options (RFC 791 §3.1).
pub const IPV4_HEADER: u32 = 20;
/// IPv6's fixed header (RFC 8200 §3).
pub const IPV6_HEADER: u32 = 40;
/// TCP header without options (RFC 9293 §3.1).
pub const TCP_HEADER: u32 = 20;
/// The smallest MTU of a link that carries IPv6 (RFC 8200 §5).
pub const IPV6_MIN_MTU: u32 = 1280;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Family {
    #[default]
    V4,
    V6,
}

impl Family {
    /// Both, in the order the scenario writes them.
    pub const ALL: [Family; 2] = [Family::V4, Family::V6];

    /// "v4" or "v6", as scenarios and results write it.
    pub fn name(self) -> &'static str {
        match self {
            Family::V4 => "v4",
            Family::V6 => "v6",
        }
    }

    /// The family a scenario names ("v4", "v6").
    pub fn parse(s: &str) -> Option<Family> {
        Family::ALL.into_iter().find(|f| f.name() == s)
    }

    /// Its fixed IP header, bytes.
    pub fn ip_header(self) -> u32 {
        match self {
            Family::V4 => IPV4_HEADER,
            Family::V6 => IPV6_HEADER,
        }
    }

    /// The fixed IP and TCP headers, what an MSS option leaves out of the
    /// MTU (RFC 6691 §2): 40 bytes over IPv4, 60 over IPv6.
    pub fn ip_tcp_headers(self) -> u32 {
        self.ip_header() + TCP_HEADER
    }

    /// A segment's header bytes over this family, given the scenario's
    /// `sim.header_bytes`, which counts an IPv4 header: the options are the same.
    pub fn header_bytes(self, v4_header_bytes: u32) -> u32 {
        match self {
            Family::V4 => v4_header_bytes,
            Family::V6 => v4_header_bytes + IPV6_HEADER - IPV4_HEADER,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ipv6_adds_twenty_bytes_to_every_header() {
        assert_eq!((Family::V4.header_bytes(52), Family::V6.header_bytes(52)), (52, 72));
        assert_eq!((Family::V4.ip_tcp_headers(), Family::V6.ip_tcp_headers()), (40, 60));
        assert_eq!((Family::parse("v6"), Family::parse("ipv6")), (Some(Family::V6), None));
    }
}
