//! `[sim] host_egress = "qdisc"`: a host's own queue in front of each of
//! its links, as on a real host.
//!
//! Without it, a host's interface is a veth that takes every frame at once
//! (`veth_xmit` hands the skb to its peer and releases it from the sending
//! socket), so TCP never sees its own link fill: a burst of a few hundred
//! segments after a stretch of bunched ACKs lands in the emulator's
//! drop-tail queue at veth speed and overflows it, though a 1 Gb/s NIC
//! would have held it. On a real host the NIC drains a qdisc at line rate
//! and TCP Small Queues (`tcp_small_queue_check` in `net/ipv4/tcp_output.c`)
//! stop a socket while about a millisecond of its pacing rate waits below
//! it, so the sender's own link throttles it instead of dropping.
//!
//! Here every host interface gets a TBF qdisc (tc-tbf(8)) at the rate of
//! the direction leaving it, with the direction's queue limit and a bucket
//! of two packets; a size table (tc-stab(8)) takes the Ethernet header off
//! each frame, so it counts IP bytes as the simulator's links and the
//! emulator do. The emulator still carries the direction (rate, delay,
//! loss), without a queue limit of its own (`emulator::emulated`).
//! A direction whose rate varies (a capacity model) cannot be shaped so:
//! `support::refusals` names it before anything runs.

use pathpool_sim::net::capacity::Capacity;
use pathpool_sim::net::queue::QueueLimit;
use pathpool_sim::net::NodeId;
use pathpool_sim::scenario::spec::NodeKind;
use pathpool_sim::Model;

/// Ethernet header bytes (`ETH_HLEN`) a veth frame carries beyond the IP packet.
const ETH_HLEN: u32 = 14;

/// The qdisc of one host interface.
#[derive(Debug, Clone, PartialEq)]
pub struct HostQdisc {
    pub node: NodeId,
    pub interface: String,
    pub rate_bps: f64,
    /// The direction's drop-tail limit in IP bytes (packets · MTU for a packet limit).
    pub limit_bytes: u64,
    pub mtu: u32,
}

impl HostQdisc {
    /// The `tc -batch` line that installs it.
    pub fn command(&self) -> String {
        format!(
            "qdisc add dev {} root stab overhead -{ETH_HLEN} tbf rate {:.0}bit burst {} limit {}",
            self.interface,
            self.rate_bps,
            2 * self.mtu,
            self.limit_bytes
        )
    }
}

/// Every host interface's qdisc, or for a direction that has no constant
/// rate, why it cannot have one.
pub fn host_qdiscs(model: &Model) -> Vec<Result<HostQdisc, String>> {
    let mut out = Vec::new();
    for l in &model.links {
        for (d, (node, interface)) in [(l.a, &l.a_interface), (l.b, &l.b_interface)].into_iter().enumerate() {
            if model.nodes[node as usize].kind != NodeKind::Host {
                continue;
            }
            let dir = &l.dirs[d];
            let from = &model.nodes[node as usize].name;
            out.push(match dir.capacity {
                Capacity::Constant { bps } => Ok(HostQdisc {
                    node,
                    interface: interface.clone(),
                    rate_bps: bps,
                    limit_bytes: match dir.limit {
                        QueueLimit::Packets(n) => n * u64::from(l.mtu),
                        QueueLimit::Bytes(b) => b,
                    },
                    mtu: l.mtu,
                }),
                _ => Err(format!(
                    "link '{}': [sim] host_egress = \"qdisc\" needs a constant rate leaving host '{from}', and this one's capacity varies",
                    l.name
                )),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testbed::plan::tests::model;

    #[test]
    fn each_host_interface_is_shaped_at_its_direction_rate_and_limit() {
        let m = model(
            r#"
            [sim]
            duration = "1s"
            host_egress = "qdisc"
            [[nodes]]
            name = "client"
            [[nodes]]
            name = "r"
            kind = "router"
            [[nodes]]
            name = "server"
            [[links]]
            a = "client"
            b = "r"
            rate = "1Gbps"
            delay = "1ms"
            a_to_b = { queue = 20 }
            [[links]]
            a = "r"
            b = "server"
            rate = "10Mbps"
            delay = "5ms"
            queue_bytes = "30000B"
            "#,
        );
        let q: Vec<HostQdisc> = host_qdiscs(&m).into_iter().map(Result::unwrap).collect();
        assert_eq!(q.len(), 2, "the router's interfaces get none");
        assert_eq!(q[0].command(), "qdisc add dev eth0 root stab overhead -14 tbf rate 1000000000bit burst 3000 limit 30000");
        assert_eq!(q[1].command(), "qdisc add dev eth0 root stab overhead -14 tbf rate 10000000bit burst 3000 limit 30000");
        assert_eq!(q[1].node, 2);
    }

    #[test]
    fn a_varying_capacity_leaving_a_host_is_named() {
        let m = model(
            r#"
            [sim]
            duration = "1s"
            [[nodes]]
            name = "phone"
            [[nodes]]
            name = "server"
            [[links]]
            a = "phone"
            b = "server"
            delay = "1ms"
            a_to_b = { capacity = { schedule = [["0s", "5Mbps"], ["0.5s", "1Mbps"]] } }
            b_to_a = { rate = "10Mbps" }
            "#,
        );
        let q = host_qdiscs(&m);
        assert_eq!(
            q[0].as_ref().unwrap_err(),
            "link 'phone-server': [sim] host_egress = \"qdisc\" needs a constant rate leaving host 'phone', and this one's capacity varies"
        );
        assert_eq!(q[1].as_ref().unwrap().rate_bps, 10e6);
    }
}
