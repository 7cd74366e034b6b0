//! The address plan of a capture: the IPv4 and Ethernet addresses and the
//! ports that synthesized headers carry (docs/results.md, "pcap export").
//!
//! Every scenario link is a point-to-point subnet, a /30 of 10.0.0.0/8:
//! link k (0-based, in `links` order) is 10.0.0.0 + 4k, its `a` end's
//! interface has host address 1 and its `b` end's 2 (RFC 3021's /31 would
//! do, but a /30 reads as the usual numbering). An interface's MAC is the
//! locally administered 02:00 followed by its four address bytes (IEEE 802
//! U/L bit set, RFC 7042 §2.1). A packet bound to no interface (a
//! single-path flow's) carries its node's first interface's address.

use crate::net::interfaces::Interfaces;
use crate::net::packet::ANY_INTERFACE;
use crate::net::NodeId;

/// Links the plan has room for: 2^22 /30 subnets in 10.0.0.0/8.
pub const MAX_LINKS: usize = 1 << 22;

/// The port every connection's listening end (the flow's destination) uses.
pub const SERVER_PORT: u16 = 5201;
/// A DNS resolver's port (RFC 1035 §4.2.1).
pub const DNS_PORT: u16 = 53;

/// The IPv4 address of the interface at `side` (0 = `a`, 1 = `b`) of scenario link `link`.
pub fn interface_ip(link: u32, side: u32) -> [u8; 4] {
    ((10u32 << 24) + 4 * link + side + 1).to_be_bytes()
}

/// The interface's MAC: 02:00 and its IPv4 address.
pub fn mac(ip: [u8; 4]) -> [u8; 6] {
    [0x02, 0x00, ip[0], ip[1], ip[2], ip[3]]
}

/// The opening end's port of flow `flow`'s subflow `subflow`: ports cycle
/// through 1024–65535, so two connections between the same addresses get
/// the same ports only beyond 4032 flows.
pub fn client_port(flow: u32, subflow: u16) -> u16 {
    (1024 + (flow as u64 * 16 + subflow as u64) % 64512) as u16
}

/// A DNS client's port: 49152 + its node number modulo 16384 (the IANA dynamic range).
pub fn dns_client_port(node: NodeId) -> u16 {
    49152 + (node % 16384) as u16
}

pub struct Addresses {
    /// Each node's interface addresses, in interface order.
    by_node: Vec<Vec<[u8; 4]>>,
}

impl Addresses {
    pub fn new(nodes: usize, ifaces: &Interfaces) -> Addresses {
        let by_node = (0..nodes as NodeId).map(|n| ifaces.of(n).iter().map(|i| interface_ip(i.link, i.out - 2 * i.link)).collect()).collect();
        Addresses { by_node }
    }

    /// The address of `node`'s interface `iface` (its first for `ANY_INTERFACE`);
    /// 0.0.0.0 for a node without links, which sends nothing.
    pub fn ip(&self, node: NodeId, iface: u16) -> [u8; 4] {
        let list = &self.by_node[node as usize];
        let i = if iface == ANY_INTERFACE { 0 } else { iface as usize };
        list.get(i).copied().unwrap_or([0; 4])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_are_slash_30s_of_ten_slash_8() {
        assert_eq!(interface_ip(0, 0), [10, 0, 0, 1]);
        assert_eq!(interface_ip(0, 1), [10, 0, 0, 2]);
        assert_eq!(interface_ip(64, 1), [10, 0, 1, 2]);
        assert_eq!(interface_ip(MAX_LINKS as u32 - 1, 1), [10, 255, 255, 254]);
        assert_eq!(mac([10, 0, 1, 2]), [2, 0, 10, 0, 1, 2]);
    }

    #[test]
    fn ports_differ_per_subflow_and_stay_above_1023() {
        assert_eq!((client_port(0, 0), client_port(0, 1), client_port(1, 0)), (1024, 1025, 1040));
        assert!((0..100_000).all(|f| client_port(f, 15) >= 1024));
    }
}
