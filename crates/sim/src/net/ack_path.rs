//! How pure ACKs cross the network (`[sim] ack_path`).
//!
//! By default an ACK is a packet like any other: it waits in every queue on
//! its way back, takes its transmission time and is dropped by a full queue.
//! `instant` is the idealised reverse path of htsim's data-centre programs
//! (`datacenter/main_tcp.cpp` gives every sink a return route holding only
//! its source, so ACKs reach the sender at once, never queued or lost): it is
//! there to compare like with like against htsim, not a model of a network.

use serde::Deserialize;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AckPath {
    /// ACKs are queued, transmitted and dropped like data.
    #[default]
    Network,
    /// ACKs skip every queue and transmitter and are never dropped by a
    /// queue; they still take each link's propagation delay and stay behind
    /// packets already on the wire (`net::delay::Wire`). Links that are down
    /// still lose them. They count in no link's statistics.
    Instant,
}
