//! A resolver's processing delay (`[[resolvers]] delay`, docs/dns.md), put
//! on the link out of its node rather than in the server: the simulator's
//! resolver sends its answer `delay` after the query arrived
//! (`sim::world::dns`, `dns_serve`), so the emulator holds each DNS answer
//! leaving the resolver's node for `delay` before it enters the link model,
//! and dnsmasq answers at once. Only answers are held (IPv4 UDP from port
//! 53, RFC 1035 §4.2.1, or from a view's port, `dns/server.rs`): other traffic of the node crosses the link as
//! usual. All answers wait the same time, so they leave in the order they
//! came, as in the simulator, where each is answered on its own.

use std::collections::VecDeque;

use pathpool_sim::net::packet::PacketId;
use pathpool_sim::Time;

use super::frame::ETH_HEADER;
use crate::dns;

const ETHERTYPE_IPV4: u16 = 0x0800;
const PROTOCOL_UDP: u8 = 17;

/// The answers held in one direction out of a resolver's node.
pub struct Hold {
    delay: Time,
    /// (when it enters the link, slot), in that order.
    held: VecDeque<(Time, PacketId)>,
}

impl Hold {
    pub fn new(delay: Time) -> Hold {
        Hold { delay, held: VecDeque::new() }
    }

    /// Holds `frame`, received at `at` in slot `id`, if it is a DNS answer; whether it did.
    pub fn take(&mut self, frame: &[u8], at: Time, id: PacketId) -> bool {
        if !is_dns_answer(frame) {
            return false;
        }
        self.held.push_back((at + self.delay, id));
        true
    }

    /// The next answer whose hold is over by `now`: (when it enters the link, slot).
    pub fn pop_due(&mut self, now: Time) -> Option<(Time, PacketId)> {
        self.held.front().is_some_and(|&(due, _)| due <= now).then(|| self.held.pop_front()).flatten()
    }

    /// When the next held answer enters the link.
    pub fn next_deadline(&self) -> Option<Time> {
        self.held.front().map(|&(due, _)| due)
    }
}

/// An IPv4 UDP datagram from a resolver's port (RFC 791 §3.1: IHL in 32-bit words,
/// protocol at byte 9; RFC 768: source port first).
fn is_dns_answer(frame: &[u8]) -> bool {
    let Some(ip) = frame.get(ETH_HEADER..) else { return false };
    if u16::from_be_bytes([frame[12], frame[13]]) != ETHERTYPE_IPV4 || ip.len() < 20 || ip[9] != PROTOCOL_UDP {
        return false;
    }
    let ihl = 4 * (ip[0] & 0x0f) as usize;
    ip.get(ihl..ihl + 2).is_some_and(|p| dns::is_answer_port(u16::from_be_bytes([p[0], p[1]])))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn udp(ports: (u16, u16), protocol: u8) -> Vec<u8> {
        let mut f = vec![0u8; 12];
        f.extend_from_slice(&ETHERTYPE_IPV4.to_be_bytes());
        let mut ip = vec![0u8; 20];
        ip[0] = 0x45;
        ip[9] = protocol;
        f.extend_from_slice(&ip);
        f.extend_from_slice(&ports.0.to_be_bytes());
        f.extend_from_slice(&ports.1.to_be_bytes());
        f.extend_from_slice(&[0u8; 4]);
        f
    }

    #[test]
    fn only_answers_wait_and_they_leave_in_order() {
        let ms = Time::from_millis;
        let mut h = Hold::new(ms(3));
        assert!(!h.take(&udp((40000, 53), PROTOCOL_UDP), ms(0), 0), "a query to port 53 is not held");
        assert!(!h.take(&udp((53, 40000), 6), ms(0), 1), "TCP from port 53 is not DNS over UDP");
        assert!(h.take(&udp((53, 40000), PROTOCOL_UDP), ms(1), 2));
        assert!(h.take(&udp((dns::VIEW_PORT_BASE + 1, 40001), PROTOCOL_UDP), ms(2), 3), "an answer by interface is held too");
        assert!(!h.take(&udp((dns::VIEW_PORT_BASE + dns::MAX_VIEWS as u16, 40001), PROTOCOL_UDP), ms(2), 4));
        assert_eq!(h.next_deadline(), Some(ms(4)));
        assert_eq!(h.pop_due(ms(3)), None);
        assert_eq!(h.pop_due(ms(5)), Some((ms(4), 2)));
        assert_eq!(h.pop_due(ms(5)), Some((ms(5), 3)));
        assert_eq!(h.next_deadline(), None);
    }
}
