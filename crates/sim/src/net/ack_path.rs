//! How a connection's return packets cross the network (`[sim] ack_path`).
//!
//! By default the SYN-ACK and the pure ACKs are packets like any other: they
//! wait in every queue on their way back, take their transmission time and
//! are dropped by full queues. `instant` is the idealised reverse path of
//! htsim's data-centre programs (`datacenter/main_tcp.cpp` gives every sink a
//! return route holding only its source, so its SYN-ACK and ACKs reach the
//! sender at once, never queued or lost): it is there to compare like with
//! like against htsim, not a model of a network.

use serde::Deserialize;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AckPath {
    /// SYN-ACKs and ACKs are queued, transmitted and dropped like data.
    #[default]
    Network,
    /// SYN-ACKs and pure ACKs skip every queue and transmitter and are never dropped by a
    /// queue; they still take each link's propagation delay and stay behind
    /// packets already on the wire (`net::delay::Wire`). Links that are down
    /// still lose them. They count in no link's statistics.
    Instant,
}
