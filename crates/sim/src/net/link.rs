//! One direction of a full-duplex link: a queue in front of a transmitter of
//! (possibly time-varying) capacity, then a wire of (possibly time-varying)
//! propagation delay that keeps packets in order and may lose them at random.
//!
//! The link itself only keeps state; `sim::World` drives it, since starting a
//! transmission schedules events.

use crate::engine::RngStream;
use crate::net::capacity::Capacity;
use crate::net::delay::Wire;
use crate::net::loss::LossModel;
use crate::net::queue::Queue;
use crate::net::NodeId;
use crate::time::Time;

#[derive(Debug, Default, Clone)]
pub struct LinkStats {
    pub bytes_sent: u64,
    pub packets_sent: u64,
    /// Wire bytes and packets that reached the far end (per-interface accounting).
    pub bytes_delivered: u64,
    pub packets_delivered: u64,
    pub drops_queue: u64,
    pub drops_loss: u64,
    pub drops_down: u64,
    pub max_queue_bytes: u64,
    pub max_queue_packets: u64,
}

/// The random stream a link direction's loss model draws from.
pub fn loss_stream(direction: &str) -> String {
    format!("link:{direction}:loss")
}

pub struct Link {
    /// "link-name:from>to".
    pub name: String,
    /// The scenario's link this direction belongs to.
    pub link_name: String,
    pub from: NodeId,
    pub to: NodeId,
    pub wire: Wire,
    pub capacity: Capacity,
    pub loss: LossModel,
    pub rng: RngStream,
    pub queue: Box<dyn Queue>,
    /// The transmitter is busy until then.
    pub busy_until: Time,
    /// A TxDone event is scheduled (at `busy_until`) to start the next packet.
    pub tx_done_pending: bool,
    pub up: bool,
    /// Incremented when the link goes down; packets on the wire from an older epoch are lost.
    pub epoch: u32,
    pub stats: LinkStats,
}

impl Link {
    pub fn note_queue(&mut self) {
        let s = &mut self.stats;
        s.max_queue_bytes = s.max_queue_bytes.max(self.queue.len_bytes());
        s.max_queue_packets = s.max_queue_packets.max(self.queue.len_packets());
    }
}
