//! What a frame is to the link model. IPv4 and IPv6 packets are the
//! scenario's traffic: they cross the modelled link and are charged their IP
//! length, as the simulator charges a packet its IP size (payload plus
//! `header_bytes`) and as Mahimahi counts the IP packets of its TUN device.
//!
//! Frames that only exist because the lab has an Ethernet layer the
//! simulator lacks — ARP (RFC 826) and the ICMPv6 neighbour discovery (RFC
//! 4861, types 133–137) and multicast listener (RFC 2710 and RFC 3810,
//! types 130–132 and 143) messages — are link control: forwarded at once,
//! never queued, delayed, lost or stopped by a down link. So neighbour
//! resolution never fails, and a down link drops traffic the way the
//! simulator's does (at the link) instead of making the kernel declare its
//! neighbour unreachable.

/// Destination MAC, source MAC, EtherType.
pub const ETH_HEADER: usize = 14;
const ETHERTYPE_IPV4: u16 = 0x0800;
const ETHERTYPE_IPV6: u16 = 0x86dd;
const IPV6_HEADER: usize = 40;
const NEXT_HOP_BY_HOP: u8 = 0;
const NEXT_ICMPV6: u8 = 58;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Frame {
    Control,
    /// An IP packet of this many bytes (header included).
    Data { ip_bytes: u32 },
}

pub fn classify(frame: &[u8]) -> Frame {
    let Some(ip) = frame.get(ETH_HEADER..) else { return Frame::Control };
    let ethertype = u16::from_be_bytes([frame[12], frame[13]]);
    match ethertype {
        // The length fields, not the frame's: a frame may carry padding.
        ETHERTYPE_IPV4 if ip.len() >= 20 => {
            Frame::Data { ip_bytes: (u16::from_be_bytes([ip[2], ip[3]]) as usize).min(ip.len()) as u32 }
        }
        ETHERTYPE_IPV6 if ip.len() >= IPV6_HEADER => {
            if icmpv6_type(ip).is_some_and(|t| matches!(t, 130..=137 | 143)) {
                return Frame::Control;
            }
            let payload = u16::from_be_bytes([ip[4], ip[5]]) as usize;
            Frame::Data { ip_bytes: (IPV6_HEADER + payload).min(ip.len()) as u32 }
        }
        _ => Frame::Control,
    }
}

/// The ICMPv6 type of an IPv6 packet whose ICMPv6 header follows the fixed
/// header, or one hop-by-hop options header (MLD carries a router alert
/// there, RFC 2711).
fn icmpv6_type(ip: &[u8]) -> Option<u8> {
    let mut next = ip[6];
    let mut at = IPV6_HEADER;
    if next == NEXT_HOP_BY_HOP {
        next = *ip.get(at)?;
        at += 8 * (*ip.get(at + 1)? as usize + 1);
    }
    (next == NEXT_ICMPV6).then(|| ip.get(at).copied()).flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eth(ethertype: u16, ip: &[u8]) -> Vec<u8> {
        let mut f = vec![0u8; 12];
        f.extend_from_slice(&ethertype.to_be_bytes());
        f.extend_from_slice(ip);
        f
    }

    fn ipv6(next: u8, payload: &[u8]) -> Vec<u8> {
        let mut ip = vec![0x60, 0, 0, 0];
        ip.extend_from_slice(&(payload.len() as u16).to_be_bytes());
        ip.extend_from_slice(&[next, 255]);
        ip.extend_from_slice(&[0u8; 32]);
        ip.extend_from_slice(payload);
        ip
    }

    #[test]
    fn ipv4_is_data_of_its_total_length() {
        let mut ip = vec![0u8; 60];
        ip[0] = 0x45;
        ip[2..4].copy_from_slice(&52u16.to_be_bytes());
        // 8 bytes of Ethernet padding after a 52-byte packet.
        assert_eq!(classify(&eth(ETHERTYPE_IPV4, &ip)), Frame::Data { ip_bytes: 52 });
    }

    #[test]
    fn arp_and_neighbour_discovery_are_control() {
        assert_eq!(classify(&eth(0x0806, &[0u8; 28])), Frame::Control);
        for t in [133u8, 134, 135, 136, 137] {
            assert_eq!(classify(&eth(ETHERTYPE_IPV6, &ipv6(NEXT_ICMPV6, &[t, 0, 0, 0]))), Frame::Control, "type {t}");
        }
        // MLDv2 report behind a hop-by-hop header with a router alert.
        let mut hbh = vec![NEXT_ICMPV6, 0, 5, 2, 0, 0, 1, 0];
        hbh.extend_from_slice(&[143, 0, 0, 0]);
        assert_eq!(classify(&eth(ETHERTYPE_IPV6, &ipv6(NEXT_HOP_BY_HOP, &hbh))), Frame::Control);
    }

    #[test]
    fn other_ipv6_is_data() {
        // ICMPv6 echo request (128) and a UDP datagram.
        assert_eq!(classify(&eth(ETHERTYPE_IPV6, &ipv6(NEXT_ICMPV6, &[128, 0, 0, 0]))), Frame::Data { ip_bytes: 44 });
        assert_eq!(classify(&eth(ETHERTYPE_IPV6, &ipv6(17, &[0u8; 20]))), Frame::Data { ip_bytes: 60 });
    }

    #[test]
    fn runts_are_control() {
        assert_eq!(classify(&[0u8; 10]), Frame::Control);
        assert_eq!(classify(&eth(ETHERTYPE_IPV4, &[0x45; 8])), Frame::Control);
    }
}
