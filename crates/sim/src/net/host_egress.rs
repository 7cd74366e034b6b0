//! What a host's own outgoing link directions do with a burst (`[sim] host_egress`,
//! honoured by both planes).
//!
//! By default a host's link direction is a drop-tail queue like any other:
//! a sender that hands it more packets than it holds loses them. A Linux
//! host does not lose its own packets so: its NIC drains a qdisc, and TCP
//! Small Queues (`tcp_small_queue_check` in `net/ipv4/tcp_output.c`) keep a
//! socket's next segments in the socket while about a millisecond of its
//! pacing rate waits below it, so a burst waits and leaves at line rate.
//! `qdisc` models that: a host's outgoing directions never drop on
//! overflow (their queues are unbounded). The packets wait in the link's
//! queue rather than in the socket, so they count as sent and their RTT
//! samples include the wait, where Linux times a segment from when it enters
//! the qdisc; at the rate of a host's own link that is a few packets' time.
//! The kernel lab puts a real qdisc there (`testbed/host_qdisc.rs`) and
//! takes its emulator's queue limits from the same `limit`
//! (`Model::queue_limit`).

use serde::Deserialize;

use crate::net::queue::QueueLimit;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HostEgress {
    /// A host's directions are drop-tail queues with the link's limit.
    #[default]
    DropTail,
    /// A host's directions never drop on overflow.
    Qdisc,
}

impl HostEgress {
    /// The queue limit of a direction with limit `limit` leaving a host (`from_host`) or a router.
    pub fn limit(self, from_host: bool, limit: QueueLimit) -> QueueLimit {
        match self {
            HostEgress::Qdisc if from_host => QueueLimit::Packets(u64::MAX),
            _ => limit,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_host_direction_under_qdisc_is_unbounded() {
        let l = QueueLimit::Packets(100);
        assert_eq!(HostEgress::DropTail.limit(true, l), l);
        assert_eq!(HostEgress::Qdisc.limit(false, l), l);
        assert_eq!(HostEgress::Qdisc.limit(true, l), QueueLimit::Packets(u64::MAX));
    }
}
