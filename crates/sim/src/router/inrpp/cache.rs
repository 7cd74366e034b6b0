//! The cache of one INRPP interface (Reñé et al., §II-A, §III-D, Fig. 7): a
//! store beside the interface's queue for the data the queue cannot take.
//!
//! It keeps one FIFO per flow and hands packets out flow by flow in turn,
//! one packet each (round robin: the processor sharing of §IV-A, Fig. 12,
//! where "the flushing rate of the data belonging to each flow is the
//! same"). A packet whose flow this interface serves in closed loop (it
//! carries a nonce stored here, §II-A.3) is *held*: it leaves only when an
//! ACK of its flow releases it (Algorithm 1, lines 17–18), which adds a
//! credit to the flow. Packets are kept by id; they stay in the world's
//! packet pool, so a cached packet counts as in flight.
//!
//! With `Hold::Interface` (the authors' earlier ns-3 code, see `Hold`) the
//! credits belong to the interface instead: an ACK that carries a slow-down
//! lets one held packet go, whichever flow's, and the held flows take turns
//! on the credits as on the queue.

use std::collections::{BTreeMap, VecDeque};

use crate::net::packet::{InrppOption, PacketId};

/// Which packets an interface serving the closed loop holds, and whose
/// credits release them (the router parameter `hold`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hold {
    /// The paper's text (§II-A.3, Algorithm 1 lines 16–18): a packet is held
    /// if it carries a nonce the interface stores; an ACK of its flow
    /// releases one packet of that flow.
    Nonce,
    /// The authors' earlier published ns-3 router: while the interface stores
    /// any live nonce it holds every INRPP data packet it forwards, its
    /// flows' newcomers included; each ACK carrying a slow-down releases one
    /// packet of the interface, the flows served in turn.
    Interface,
}

impl Hold {
    pub const NAMES: [&'static str; 2] = ["nonce", "interface"];

    pub fn from_name(name: &str) -> Option<Hold> {
        match name {
            "nonce" => Some(Hold::Nonce),
            "interface" => Some(Hold::Interface),
            _ => None,
        }
    }
}

/// A packet in the cache and what the cache needs to know of it.
#[derive(Debug, Clone, Copy)]
pub struct Cached {
    pub id: PacketId,
    /// Wire bytes.
    pub size: u32,
    /// The nonces it carries (its sender's echo).
    pub nonces: InrppOption,
    /// A data segment (not a SYN).
    pub data: bool,
}

#[derive(Default)]
struct FlowQueue {
    packets: VecDeque<Cached>,
    bytes: u64,
    /// ACKs that released a held packet not yet sent (the queue was full).
    credits: u64,
}

pub struct Cache {
    hold: Hold,
    /// S_total, bytes.
    limit: u64,
    /// Packets cached.
    packets: u64,
    /// `Hold::Interface`: releases not yet used, shared by the flows.
    credits: u64,
    /// S, bytes.
    bytes: u64,
    flows: BTreeMap<u32, FlowQueue>,
    /// Flows with cached packets, in the order they are served.
    turn: VecDeque<u32>,
    pub max_bytes: u64,
}

impl Cache {
    pub fn new(limit: u64, hold: Hold) -> Cache {
        Cache { hold, limit, packets: 0, credits: 0, bytes: 0, flows: BTreeMap::new(), turn: VecDeque::new(), max_bytes: 0 }
    }

    /// S: bytes cached.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    pub fn is_empty(&self) -> bool {
        self.bytes == 0
    }

    /// Whether a packet of `size` bytes fits below S_total.
    pub fn fits(&self, size: u32) -> bool {
        self.bytes + size as u64 <= self.limit
    }

    /// Stores packet `c` of `flow`, which must fit.
    pub fn insert(&mut self, flow: u32, c: Cached) {
        debug_assert!(self.fits(c.size));
        let q = self.flows.entry(flow).or_default();
        if q.packets.is_empty() {
            self.turn.push_back(flow);
        }
        q.bytes += c.size as u64;
        q.packets.push_back(c);
        self.packets += 1;
        self.bytes += c.size as u64;
        self.max_bytes = self.max_bytes.max(self.bytes);
    }

    /// An ACK of `flow` releases one of its packets (Algorithm 1, line 17);
    /// false if the flow has none here. With `Hold::Interface`, one packet
    /// of any flow; false if the cache is empty.
    pub fn release(&mut self, flow: u32) -> bool {
        if self.hold == Hold::Interface {
            self.credits = (self.credits + 1).min(self.packets);
            return self.packets > 0;
        }
        match self.flows.get_mut(&flow) {
            Some(q) => {
                q.credits = (q.credits + 1).min(q.packets.len() as u64);
                true
            }
            None => false,
        }
    }

    /// The next packet to send: flows in turn, skipping those whose next
    /// packet is `held` without a release. None if no flow may send, or if
    /// the packet whose turn it is does not `fit` (it keeps its turn).
    pub fn pick(&mut self, fits: impl Fn(u32) -> bool, held: impl Fn(&Cached) -> bool) -> Option<Cached> {
        let shared = self.hold == Hold::Interface;
        for _ in 0..self.turn.len() {
            let flow = self.turn.pop_front().expect("a flow whose turn it is");
            let q = self.flows.get_mut(&flow).expect("flows in turn have packets");
            let head = q.packets.front().expect("flows in turn have packets");
            let is_held = held(head);
            let credits = if shared { self.credits } else { q.credits };
            if is_held && credits == 0 {
                self.turn.push_back(flow);
                continue;
            }
            if !fits(head.size) {
                self.turn.push_front(flow);
                return None;
            }
            let c = q.packets.pop_front().expect("checked above");
            if is_held && shared {
                self.credits -= 1;
            } else if is_held {
                q.credits -= 1;
            }
            self.packets -= 1;
            self.credits = self.credits.min(self.packets);
            q.bytes -= c.size as u64;
            self.bytes -= c.size as u64;
            if q.packets.is_empty() {
                self.flows.remove(&flow);
            } else {
                self.turn.push_back(flow);
            }
            return Some(c);
        }
        None
    }

    /// (flow, bytes cached) for every flow with packets here, by flow.
    pub fn flows(&self) -> impl Iterator<Item = (u32, u64)> + '_ {
        self.flows.iter().map(|(&f, q)| (f, q.bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::Note;

    fn packet(id: PacketId, nonce: Option<u32>) -> Cached {
        let mut nonces = InrppOption::default();
        if let Some(n) = nonce {
            nonces.set(n, Note::Nonce);
        }
        Cached { id, size: 1500, nonces, data: true }
    }

    #[test]
    fn flows_are_served_in_turn_and_the_limit_holds() {
        let mut c = Cache::new(4 * 1500, Hold::Nonce);
        for (id, flow) in [(0, 1), (1, 1), (2, 1), (3, 2)] {
            assert!(c.fits(1500));
            c.insert(flow, packet(id, None));
        }
        assert!(!c.fits(1));
        let order: Vec<PacketId> = std::iter::from_fn(|| c.pick(|_| true, |_| false)).map(|p| p.id).collect();
        // Flow 1 came first, then flow 2 gets its turn before flow 1's second packet.
        assert_eq!(order, [0, 3, 1, 2]);
        assert!(c.is_empty());
        assert_eq!(c.max_bytes, 6000);
    }

    #[test]
    fn held_packets_leave_one_per_release_and_a_packet_that_does_not_fit_keeps_its_turn() {
        let mut c = Cache::new(10 * 1500, Hold::Nonce);
        c.insert(1, packet(0, Some(9)));
        c.insert(1, packet(1, Some(9)));
        c.insert(2, packet(2, None));
        let held = |c: &Cached| c.nonces.nonces().any(|n| n == 9);
        assert_eq!(c.pick(|_| false, held).map(|p| p.id), None);
        assert_eq!(c.pick(|_| true, held).map(|p| p.id), Some(2));
        assert_eq!(c.pick(|_| true, held).map(|p| p.id), None, "flow 1 is held");
        // An ACK of a flow with nothing cached releases nothing.
        assert!(!c.release(3));
        assert!(c.release(1));
        assert_eq!(c.pick(|_| true, held).map(|p| p.id), Some(0));
        assert_eq!(c.pick(|_| true, held).map(|p| p.id), None);
        // Once the nonce is forgotten the flow drains freely.
        assert_eq!(c.pick(|_| true, |_| false).map(|p| p.id), Some(1));
    }

    /// `Hold::Interface`: every data packet is held, whatever its nonces;
    /// each release lets one go, of whichever flow's turn it is, so a
    /// newcomer without a nonce waits for credits like the others; a SYN is
    /// not held; credits never outnumber the packets cached.
    #[test]
    fn interface_hold_shares_the_credits_between_the_flows_in_turn() {
        let mut c = Cache::new(10 * 1500, Hold::Interface);
        // Nothing cached: an ACK releases nothing and leaves no credit behind.
        assert!(!c.release(1));
        c.insert(1, packet(0, Some(9)));
        c.insert(1, packet(1, Some(9)));
        c.insert(2, packet(2, None));
        c.insert(3, Cached { data: false, ..packet(3, None) });
        let held = |c: &Cached| c.data;
        // Only the SYN (flow 3) may leave without a release.
        assert_eq!(c.pick(|_| true, held).map(|p| p.id), Some(3));
        assert_eq!(c.pick(|_| true, held).map(|p| p.id), None);
        // Two ACKs of flow 1: one packet of flow 1, then one of flow 2 (its turn).
        assert!(c.release(1));
        assert!(c.release(1));
        assert_eq!(c.pick(|_| true, held).map(|p| p.id), Some(0));
        assert_eq!(c.pick(|_| true, held).map(|p| p.id), Some(2));
        assert_eq!(c.pick(|_| true, held).map(|p| p.id), None);
        // Credits are capped at the packets cached: one packet left, ten ACKs, one credit.
        for _ in 0..10 {
            assert!(c.release(2));
        }
        c.insert(2, packet(4, None));
        assert_eq!(c.pick(|_| true, held).map(|p| p.id), Some(1));
        assert_eq!(c.pick(|_| true, held).map(|p| p.id), None, "the credit was capped at one packet");
        assert!(c.release(7));
        assert_eq!(c.pick(|_| true, held).map(|p| p.id), Some(4));
        assert!(c.is_empty());
    }
}
