//! The network: packets, links (queue, capacity, delay, loss, up/down), nodes and routing.

pub mod ack_path;
pub mod capacity;
pub mod cell;
pub mod datagram;
pub mod delay;
pub mod family;
pub mod host_egress;
pub mod interfaces;
pub mod jitter;
pub mod link;
pub mod loss;
pub mod mtu;
pub mod packet;
pub mod queue;
pub mod routing;

pub type NodeId = u32;
/// One direction of a link (a link has two).
pub type LinkId = u32;
