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
//! **How INRPP uses this seam** (Reñé, Ascigil, Psaras and Pavlou, "A
//! Congestion Control Framework Based on In-Network Resource Pooling",
//! §II–III; `inrpp/`). Its state is per interface, which is per outgoing
//! direction here, and its logic spans interfaces of a node, which a
//! per-node instance allows. Beyond RCP's two hooks it needs three things:
//!
//! - `on_offer` returns a `Verdict`: queue the packet as usual, or keep it
//!   (in the interface's cache, the module now holding its `PacketId`), or
//!   drop it. A module that keeps packets hands them back with `pull`, which
//!   the world calls whenever the direction's queue may have room (after
//!   each transmission starts, and when the module asks with
//!   `RouterCtx::kick`): the world checks the live queue each time, so the
//!   module never overfills it.
//! - `on_arrive` sees every packet reaching the node, with the direction it
//!   came in on: Algorithm 1 processes an ACK at the interface it arrives
//!   on (the reverse of the one carrying its flow's data) and releases one
//!   cached data packet per ACK in closed loop; a probe addressed to the
//!   node is consumed there (`Arrival::Consume`).
//! - `RouterCtx::inject` sends the module's own packets (probes and their
//!   answers), and `RouterCtx::detour` sends a kept packet over another
//!   direction, tagged with the next hop it was meant for.
//!
//! `RouterCtx` also gives the link-state view (each direction's ends and
//! whether it runs the module) behind INRPP's detour table.

pub mod inrpp;
pub mod rcp;
pub mod set;

use std::any::Any;
use std::collections::VecDeque;

use crate::cc::{ParamTable, Params};
use crate::net::link::Link;
use crate::net::packet::{Packet, PacketId};
use crate::net::{LinkId, NodeId};
use crate::time::Time;

pub use set::RouterSet;

/// What becomes of a packet offered to a module's direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The queue takes it (or drops it if full), as without a module.
    Queue,
    /// The module keeps it; it comes back through `pull` or `RouterCtx::detour`.
    Keep,
    /// Dropped by the module.
    Drop,
}

/// What becomes of a packet arriving at a module's node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arrival {
    /// Delivered or forwarded as usual.
    Forward,
    /// Addressed to the module, which has read it.
    Consume,
}

/// What a module asks the world to do once its hook returns.
#[derive(Debug, Clone)]
pub enum Action {
    /// Call `pull` for `link` while its queue has room.
    Kick { link: LinkId },
    /// Offer kept packet `id` to `link`, tagged with the next hop `to` it was meant for.
    Detour { link: LinkId, id: PacketId, to: NodeId },
    /// Send a new packet over `link`.
    Inject { link: LinkId, pkt: Box<Packet> },
}

/// Timers and actions the modules asked for, for the world to carry out.
#[derive(Default)]
pub struct Effects {
    /// (when, module, token).
    pub timers: Vec<(Time, u32, u32)>,
    pub actions: VecDeque<Action>,
}

/// What a module may read of the network while handling a hook, and where it
/// asks for control timers and actions.
pub struct RouterCtx<'a> {
    pub now: Time,
    links: &'a [Link],
    /// For each direction, whether a module runs on it.
    owned: &'a [Option<u32>],
    /// The module being called (timers come back to it).
    module: u32,
    fx: &'a mut Effects,
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

    /// Whether `l`'s queue would take a packet of `size` bytes now.
    pub fn queue_fits(&self, l: LinkId, size: u32) -> bool {
        self.links[l as usize].queue.fits(size)
    }

    /// Wire bytes whose transmission started on `l` so far.
    pub fn bytes_sent(&self, l: LinkId) -> u64 {
        self.links[l as usize].stats.bytes_sent
    }

    /// Every link direction as (id, from, to): the link-state view of the network.
    pub fn directions(&self) -> impl Iterator<Item = (LinkId, NodeId, NodeId)> + '_ {
        self.links.iter().enumerate().map(|(i, l)| (i as LinkId, l.from, l.to))
    }

    /// Whether a router module runs on direction `l`.
    pub fn runs_module(&self, l: LinkId) -> bool {
        self.owned.get(l as usize).is_some_and(Option::is_some)
    }

    /// Has `on_timer(token)` called at `at` (not before now).
    pub fn schedule(&mut self, at: Time, token: u32) {
        self.fx.timers.push((at.max(self.now), self.module, token));
    }

    /// Asks the world to `pull` kept packets for `link` while its queue has room.
    pub fn kick(&mut self, link: LinkId) {
        self.fx.actions.push_back(Action::Kick { link });
    }

    /// Sends kept packet `id` over `link`, tagged with the next hop `to`.
    pub fn detour(&mut self, link: LinkId, id: PacketId, to: NodeId) {
        self.fx.actions.push_back(Action::Detour { link, id, to });
    }

    /// Sends the module's own packet `pkt` over `link`.
    pub fn inject(&mut self, link: LinkId, pkt: Packet) {
        self.fx.actions.push_back(Action::Inject { link, pkt: Box::new(pkt) });
    }
}

pub trait RouterModule {
    /// The run begins: arm the first control timers.
    fn start(&mut self, ctx: &mut RouterCtx);
    /// Packet `id`, `pkt`, is offered to outgoing direction `link`, before
    /// its queue accepts or drops it (arrivals the queue then drops count as
    /// input).
    fn on_offer(&mut self, link: LinkId, id: PacketId, pkt: &mut Packet, ctx: &mut RouterCtx) -> Verdict;
    /// `pkt` starts transmission on `link`.
    fn on_transmit(&mut self, link: LinkId, pkt: &mut Packet, ctx: &mut RouterCtx);
    /// A timer asked for with `RouterCtx::schedule(_, token)` is due.
    fn on_timer(&mut self, token: u32, ctx: &mut RouterCtx);
    /// `pkt` reached the module's node over direction `link`.
    fn on_arrive(&mut self, _link: LinkId, _pkt: &mut Packet, _ctx: &mut RouterCtx) -> Arrival {
        Arrival::Forward
    }
    /// `link`'s queue would take a packet: hand over a kept one, if any fits
    /// (`RouterCtx::queue_fits`).
    fn pull(&mut self, _link: LinkId, _ctx: &mut RouterCtx) -> Option<PacketId> {
        None
    }
    /// The world samples its time series now.
    fn on_sample(&mut self, _ctx: &mut RouterCtx) {}
    /// The module itself, for the result tables it records.
    fn as_any(&self) -> &dyn Any;
}

/// Module names accepted in scenarios.
pub fn names() -> &'static [&'static str] {
    &["rcp", "inrpp"]
}

/// Builds module `name` with the scenario's `[routers.params]` for the
/// outgoing directions `links` of one node, or lists what is wrong with the
/// parameters as (parameter, message) pairs.
pub fn build(name: &str, table: &ParamTable, links: &[LinkId]) -> Result<Box<dyn RouterModule>, Vec<(String, String)>> {
    let mut p = Params::new(name, table);
    let module: Box<dyn RouterModule> = match name {
        "rcp" => Box::new(rcp::Rcp::new(rcp::RcpParams::read(&mut p), links)),
        "inrpp" => Box::new(inrpp::Inrpp::new(inrpp::InrppParams::read(&mut p), links)),
        other => return Err(vec![(String::new(), format!("unknown router module '{other}'"))]),
    };
    p.finish()?;
    Ok(module)
}

/// Problems with valid parameters `table` of module `name` on directions
/// `dirs` (name, rate in bit/s when the run starts): INRPP's thresholds
/// depend on each interface's capacity. One line per problem, naming the
/// directions.
pub fn check_directions(name: &str, table: &ParamTable, dirs: &[(String, f64)]) -> Vec<(String, String)> {
    if name != "inrpp" {
        return Vec::new();
    }
    let mut p = Params::new(name, table);
    let params = inrpp::InrppParams::read(&mut p);
    let mut problems: Vec<(String, String, Vec<&str>)> = Vec::new();
    for (dir, rate) in dirs {
        if let Err((key, message)) = params.thresholds(*rate) {
            match problems.iter_mut().find(|(k, m, _)| k == key && *m == message) {
                Some(found) => found.2.push(dir),
                None => problems.push((key.to_string(), message, vec![dir])),
            }
        }
    }
    problems.into_iter().map(|(k, m, on)| (k, format!("{m} (on {})", on.join(", ")))).collect()
}

/// Problems with `table` as parameters of module `name` (empty if none).
pub fn check_params(name: &str, table: &ParamTable) -> Vec<(String, String)> {
    build(name, table, &[]).err().unwrap_or_default()
}
