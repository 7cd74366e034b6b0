//! Router modules: mechanisms that live in routers rather than in end-points
//! (RCP's rate computation; INRPP's caches and backpressure later), behind one
//! small trait and chosen by name in the scenario's `[routers]` table.
//!
//! One module instance runs per router node and owns that node's outgoing
//! link directions that the scenario puts under it. The world calls it when
//! a packet is offered to one of those directions (before the queue accepts
//! or drops it) and when a packet starts transmission on one (it left the
//! queue, or found the link idle); both hooks may rewrite header fields. A
//! module keeps its own per-direction state (arrival counts, averages), reads
//! each direction's capacity and queue through `RouterCtx`, and runs control
//! timers that the world schedules on its event queue. A new module is a new
//! file here plus one line in `build`.
//!
//! **How INRPP will use this seam** (Reñé, Ascigil, Psaras and Pavlou, "A
//! Congestion Control Framework Based on In-Network Resource Pooling",
//! §II–III). Its state is per interface, which is per outgoing direction
//! here, and its logic spans interfaces of a node, which a per-node instance
//! allows. `on_offer` is where INRPP sees every packet entering an
//! interface: data that overflows the queue goes to the interface's cache
//! instead of being dropped, a detoured packet's next hop is chosen, and an
//! ACK leaving towards the sender gets the slow-down / cancel notification
//! and nonce of its flow piggybacked; for this `on_offer` will return a
//! verdict (queue it, keep it in the cache, send it on another direction)
//! instead of `()`. `on_transmit` is where the queue has room again: INRPP
//! refills it from the cache, draining flows fairly. `RouterCtx` gives the
//! queue occupancy and capacity behind the interface states (Push,
//! Store-and-Detour, Backpressure, Disable-Backpressure, thresholds S_high
//! and S_low) and behind SC = α·T·RB − β·Q. Timers carry its probes every
//! T_p, rate decisions every T_d and notification expiry, as they carry
//! RCP's rate updates. What INRPP will add, each with its first caller: the
//! verdict; a hook for a packet arriving at the node on a direction, since
//! Algorithm 1 processes an ACK at the interface it arrives on (the one that
//! carries its flow's data the other way) and releases one cached data
//! packet per ACK in closed loop; and a way to send its own packets (probes,
//! notifications).

pub mod rcp;
pub mod set;

use crate::cc::{ParamTable, Params};
use crate::net::link::Link;
use crate::net::packet::Packet;
use crate::net::LinkId;
use crate::time::Time;

pub use set::RouterSet;

/// What a module may read of the network while handling a hook, and where it
/// asks for control timers.
pub struct RouterCtx<'a> {
    pub now: Time,
    links: &'a [Link],
    /// The module being called (timers come back to it).
    module: u32,
    /// (when, module, token) for the world to schedule.
    timers: &'a mut Vec<(Time, u32, u32)>,
}

impl RouterCtx<'_> {
    /// Capacity of link direction `l` now, bit/s (see `Capacity::rate_at`).
    pub fn capacity_bps(&self, l: LinkId) -> f64 {
        self.links[l as usize].capacity.rate_at(self.now)
    }

    /// Wire bytes waiting in `l`'s queue (not the packet in transmission).
    pub fn queue_bytes(&self, l: LinkId) -> u64 {
        self.links[l as usize].queue.len_bytes()
    }

    /// Has `on_timer(token)` called at `at` (not before now).
    pub fn schedule(&mut self, at: Time, token: u32) {
        self.timers.push((at.max(self.now), self.module, token));
    }
}

pub trait RouterModule {
    /// The run begins: arm the first control timers.
    fn start(&mut self, ctx: &mut RouterCtx);
    /// `pkt` is offered to outgoing direction `link`, before its queue
    /// accepts or drops it (arrivals the queue then drops count as input).
    fn on_offer(&mut self, link: LinkId, pkt: &mut Packet, ctx: &mut RouterCtx);
    /// `pkt` starts transmission on `link`.
    fn on_transmit(&mut self, link: LinkId, pkt: &mut Packet, ctx: &mut RouterCtx);
    /// A timer asked for with `RouterCtx::schedule(_, token)` is due.
    fn on_timer(&mut self, token: u32, ctx: &mut RouterCtx);
}

/// Module names accepted in scenarios.
pub fn names() -> &'static [&'static str] {
    &["rcp"]
}

/// Builds module `name` with the scenario's `[routers.params]` for the
/// outgoing directions `links` of one node, or lists what is wrong with the
/// parameters as (parameter, message) pairs.
pub fn build(name: &str, table: &ParamTable, links: &[LinkId]) -> Result<Box<dyn RouterModule>, Vec<(String, String)>> {
    let mut p = Params::new(name, table);
    let module: Box<dyn RouterModule> = match name {
        "rcp" => Box::new(rcp::Rcp::new(rcp::RcpParams::read(&mut p), links)),
        other => return Err(vec![(String::new(), format!("unknown router module '{other}'"))]),
    };
    p.finish()?;
    Ok(module)
}

/// Problems with `table` as parameters of module `name` (empty if none).
pub fn check_params(name: &str, table: &ParamTable) -> Vec<(String, String)> {
    build(name, table, &[]).err().unwrap_or_default()
}
