//! A scenario's link MTUs applied to its hosts and connections, by the
//! segment-size rules of `net::mtu` (RFC 9293 §3.7.1, RFC 6691).

use super::model::LinkModel;
use crate::net::family::Family;
use crate::net::mtu::{announced_mss, payload_under, DEFAULT_MTU};
use crate::tcp::TcpConfig;

/// The smallest MTU of each node's links (None for a node without links),
/// in one pass over the links: the world asks it for every flow's two ends.
pub fn host_mtus(links: &[LinkModel], nodes: usize) -> Vec<Option<u32>> {
    let mut mtus = vec![None::<u32>; nodes];
    for l in links {
        for end in [l.a, l.b] {
            let m = &mut mtus[end as usize];
            *m = Some(m.map_or(l.mtu, |v| v.min(l.mtu)));
        }
    }
    mtus
}

/// The MTU of each of `host`'s interfaces `names`, from the link it is on.
pub fn interface_mtus(links: &[LinkModel], host: u32, names: &[String]) -> Vec<u32> {
    let of = |name: &String| {
        links.iter().find(|l| (l.a == host && &l.a_interface == name) || (l.b == host && &l.b_interface == name)).map_or(DEFAULT_MTU, |l| l.mtu)
    };
    names.iter().map(of).collect()
}

/// `tcp` with its MSS within what both ends announce: a TCP connection
/// between hosts whose smallest link MTUs are `src_mtu` and `dst_mtu` sends
/// at most min(MTU) − `header_bytes` payload bytes per segment, where
/// `header_bytes` are the connection's over its `family`. An MPTCP
/// connection's subflows each take their own interfaces' MTUs instead
/// (`MptcpSender`, docs/scenario.md, `mtu`).
pub fn fit(tcp: &TcpConfig, src_mtu: Option<u32>, dst_mtu: Option<u32>, header_bytes: u32, family: Family) -> TcpConfig {
    let mut tcp = tcp.clone();
    if let Some(mtu) = src_mtu.into_iter().chain(dst_mtu).min() {
        tcp.mss = tcp.mss.min(payload_under(announced_mss(mtu, family), header_bytes, family));
    }
    tcp
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_smaller_end_bounds_the_segments() {
        let tcp = TcpConfig::default();
        assert_eq!(fit(&tcp, Some(1500), Some(1500), 52, Family::V4).mss, 1448);
        assert_eq!(fit(&tcp, Some(1440), Some(1500), 52, Family::V4).mss, 1388);
        assert_eq!(fit(&tcp, None, None, 52, Family::V4).mss, 1448);
        let small = TcpConfig { mss: 536, ..TcpConfig::default() };
        assert_eq!(fit(&small, Some(1440), Some(1500), 52, Family::V4).mss, 536);
        // IPv6: 1500 − 40 − 20 − 12 (RFC 8200 §8.3).
        assert_eq!(fit(&tcp, Some(1500), Some(1500), 72, Family::V6).mss, 1428);
    }
}
