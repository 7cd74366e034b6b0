//! Link MTUs and the segment sizes they allow.
//!
//! A link's MTU is the largest IP packet its interfaces carry (Ethernet's
//! 1500 bytes unless the scenario says otherwise). TCP keeps its segments
//! under it by the MSS option (RFC 9293 §3.7.1): each end announces at most
//! its interface's MTU minus the fixed IPv4 and TCP headers (40 bytes, RFC
//! 6691: options are not subtracted), and a sender takes the TCP options
//! it sends (the timestamps) off the peer's value. In the simulator a
//! segment's headers and options are `header_bytes`, so a connection's
//! payload per segment is at most MTU − `header_bytes`.
//!
//! There is no path-MTU discovery: RFC 1191's "fragmentation needed" ICMP
//! and RFC 4821/8899's probing are not modelled. The MSS negotiation keeps
//! segments within the end hosts' links, and the scenario check refuses an
//! MTU between routers below the hosts' (where real TCP would need PMTUD,
//! or black-hole, RFC 2923 §2.1). A scenario's links and flows meet these
//! rules in `scenario::mtu`.

use super::family::Family;

/// Ethernet's MTU, a link's default.
pub const DEFAULT_MTU: u32 = 1500;
/// The smallest MTU an IPv4 module must accept without fragmenting (RFC 791).
pub const MIN_MTU: u32 = 68;
/// The largest IPv4 packet (RFC 791's 16-bit total length).
pub const MAX_MTU: u32 = 65535;
/// The fixed IPv4 and TCP headers, what an MSS option leaves out of the MTU
/// (RFC 9293 §3.7.1, RFC 6691); IPv6's are 60 (`Family::ip_tcp_headers`).
pub const IP_TCP_HEADERS: u32 = 40;

/// The MSS option an interface of MTU `mtu` announces: MTU − 40 over
/// IPv4, MTU − 60 over IPv6 (`net::family`).
pub fn announced_mss(mtu: u32, family: Family) -> u32 {
    mtu - family.ip_tcp_headers()
}

/// Payload bytes per segment under an announced MSS `mss` when every
/// segment carries `header_bytes` of headers and options over `family`:
/// the options beyond the fixed IP and TCP headers come off (RFC 9293
/// §3.7.1's "effective send MSS"), and at least one byte is left.
pub fn payload_under(mss: u32, header_bytes: u32, family: Family) -> u32 {
    mss.saturating_sub(header_bytes.saturating_sub(family.ip_tcp_headers())).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ethernet_with_timestamps_leaves_1448_bytes() {
        assert_eq!(announced_mss(DEFAULT_MTU, Family::V4), 1460);
        assert_eq!(payload_under(1460, 52, Family::V4), 1448);
        assert_eq!(payload_under(1400, 52, Family::V4), 1388);
        // Headers without options: the MSS is the payload.
        assert_eq!(payload_under(1460, 40, Family::V4), 1460);
    }

    #[test]
    fn ethernet_over_ipv6_leaves_1428_bytes() {
        // RFC 8200 §8.3: MTU − 60; the same 12 bytes of timestamps come off.
        assert_eq!(announced_mss(DEFAULT_MTU, Family::V6), 1440);
        assert_eq!(payload_under(1440, Family::V6.header_bytes(52), Family::V6), 1428);
    }
}
