//! A cellular access model: cells (Node Bs) that share their air interface
//! among the UE interfaces attached to them, one UE per TTI and direction,
//! with mobility and handover. docs/cell.md describes the model, its
//! parameters and sources, and what it simplifies.
//!
//! One mechanism per file: `mobility` (where a host is), `channel` (path
//! loss, shadowing, SINR), `tbs` (SINR → CQI → transport block), `attach`
//! (serving cell and handover), `scheduler` (who gets the TTI). `Air` ties
//! them together for the world, which owns the packets: a UE interface's
//! link directions keep their queues, and the world moves the bits a TTI
//! grants from the queue onto the wire.

pub mod attach;
pub mod channel;
pub mod mobility;
pub mod scheduler;
pub mod tbs;

use crate::engine::{RngStream, Seeds};
use crate::net::packet::PacketId;
use crate::net::{LinkId, NodeId};
use crate::time::Time;
use attach::Attachment;
use channel::{Radio, Shadowing};
use mobility::{distance, Path};
use scheduler::{Candidate, Scheduler};

/// A cell, validated (`[[cells]]`).
#[derive(Debug, Clone)]
pub struct CellParams {
    pub name: String,
    pub position: (f64, f64),
    pub radius_m: f64,
    pub tti: Time,
    pub scheduler: scheduler::Kind,
    pub radio: Radio,
    pub shadowing: Shadowing,
    /// Probability that a transmission of a block fails (HARQ then resends it).
    pub bler: f64,
    pub harq_rtt: Time,
    pub harq_max_retx: u32,
    /// Probability that a packet is lost after HARQ (RLC residual loss).
    pub residual_loss: f64,
    /// No service to a UE for this long after it hands over to this cell.
    pub handover_interruption: Time,
    /// How often a UE's signal level is reported to its host's controllers.
    pub report_interval: Time,
    /// A fixed block per TTI, bits, instead of the CQI table (while CQI ≥ 1).
    pub tbs_bits: Option<u64>,
}

/// A UE interface: a host's link whose directions the cells serve.
#[derive(Debug, Clone)]
pub struct UeParams {
    /// The scenario link and which of its ends is the UE (0: `a`).
    pub link: u32,
    pub ue_side: usize,
    pub host: NodeId,
    pub iface: u16,
    /// Cells it may attach to.
    pub cells: Vec<usize>,
    pub path: Path,
    /// Whether the downlink (towards the UE) and the uplink are served by the cells.
    pub down: bool,
    pub up: bool,
}

impl UeParams {
    /// The link direction (`LinkId`) of the uplink or downlink.
    pub fn direction(&self, uplink: bool) -> LinkId {
        let from_ue = 2 * self.link + self.ue_side as u32;
        if uplink { from_ue } else { from_ue ^ 1 }
    }
}

/// Bits of one TTI's block for a UE at `distance_m` with `shadowing_db`.
pub fn block_bits(cell: &CellParams, distance_m: f64, shadowing_db: f64, uplink: bool) -> u64 {
    let cqi = tbs::cqi(cell.radio.sinr_db(distance_m, shadowing_db, uplink));
    if cqi == 0 {
        return 0;
    }
    match cell.tbs_bits {
        Some(bits) => bits,
        None => tbs::subframe_bits(cqi, cell.radio.prbs, uplink) as u64 * cell.tti.nanos() / 1_000_000,
    }
}

/// The rate a UE alone would get at time zero, bit/s, without shadowing
/// (a UE link direction's nominal rate); 0 if no cell covers it.
pub fn start_rate_bps(cells: &[CellParams], ue: &UeParams, uplink: bool) -> f64 {
    let pos = ue.path.position(Time::ZERO);
    match attach::covering(cells, &ue.cells, pos) {
        Some(i) => {
            let c = &cells[ue.cells[i]];
            block_bits(c, distance(pos, c.position), 0.0, uplink) as f64 / c.tti.secs()
        }
        None => 0.0,
    }
}

/// A block granted for one TTI: `bits` to `link`, received at `end`.
#[derive(Debug, Clone, Copy)]
pub struct Grant {
    pub link: LinkId,
    pub bits: u64,
    pub end: Time,
}

struct Direction {
    /// A TTI event is scheduled.
    pending: bool,
    last_tick: Option<Time>,
    scheduler: Scheduler,
}

struct Cell {
    /// UE interfaces that may attach to it (indices into `Air::ues`), in scenario order.
    ues: Vec<usize>,
    /// [downlink, uplink].
    dirs: [Direction; 2],
    harq: RngStream,
    residual: RngStream,
}

struct Ue {
    p: UeParams,
    at: Attachment,
    /// Per direction [down, up]: the packet being sent and its bits still to send.
    head: [Option<(PacketId, u64)>; 2],
    /// Per direction: the latest arrival so far (delivery stays in order).
    last_arrival: [Time; 2],
}

/// The cells and UE interfaces of a run.
pub struct Air {
    params: Vec<CellParams>,
    cells: Vec<Cell>,
    ues: Vec<Ue>,
    /// By link direction: (UE, uplink?) if a cell serves it.
    by_link: Vec<Option<(usize, bool)>>,
}

fn d(uplink: bool) -> usize {
    uplink as usize
}

impl Air {
    pub fn new(cells: &[CellParams], ues: &[UeParams], directions: usize, seeds: &Seeds, link_names: &[String]) -> Air {
        let mut by_link = vec![None; directions];
        let mut out_ues = Vec::new();
        for (i, u) in ues.iter().enumerate() {
            for (on, uplink) in [(u.down, false), (u.up, true)] {
                if on {
                    by_link[u.direction(uplink) as usize] = Some((i, uplink));
                }
            }
            let rng = seeds.stream(&format!("cell-ue:{}:shadowing", link_names[u.link as usize]));
            out_ues.push(Ue {
                at: Attachment::new(cells, u.cells.clone(), u.path.clone(), rng),
                p: u.clone(),
                head: [None, None],
                last_arrival: [Time::ZERO; 2],
            });
        }
        let out_cells = cells
            .iter()
            .enumerate()
            .map(|(c, p)| {
                let list: Vec<usize> = (0..ues.len()).filter(|&u| ues[u].cells.contains(&c)).collect();
                let dir = || Direction { pending: false, last_tick: None, scheduler: Scheduler::new(p.scheduler, list.len()) };
                Cell {
                    dirs: [dir(), dir()],
                    harq: seeds.stream(&format!("cell:{}:harq", p.name)),
                    residual: seeds.stream(&format!("cell:{}:residual", p.name)),
                    ues: list,
                }
            })
            .collect();
        Air { params: cells.to_vec(), cells: out_cells, ues: out_ues, by_link }
    }

    /// Whether a cell serves link direction `l`.
    pub fn serves(&self, l: LinkId) -> bool {
        self.by_link.get(l as usize).is_some_and(|x| x.is_some())
    }

    pub fn ue_count(&self) -> usize {
        self.ues.len()
    }

    fn advance(&mut self, ue: usize, t: Time) {
        self.ues[ue].at.advance(&self.params, t);
    }

    /// The next TTI boundary of `cell` at or after `now` that it has not ticked at yet.
    fn next_boundary(&self, cell: usize, uplink: bool, now: Time) -> Time {
        let tti = self.params[cell].tti.nanos();
        let mut t = Time(now.nanos().div_ceil(tti) * tti);
        if self.cells[cell].dirs[d(uplink)].last_tick.is_some_and(|l| l >= t) {
            t = Time(t.nanos() + tti);
        }
        t
    }

    /// Arms the TTI of `ue`'s serving cell in one direction, unless armed:
    /// (cell, uplink, when) to schedule.
    fn arm(&mut self, ue: usize, uplink: bool, now: Time) -> Option<(u32, bool, Time)> {
        let cell = self.ues[ue].at.serving();
        if self.cells[cell].dirs[d(uplink)].pending {
            return None;
        }
        let at = self.next_boundary(cell, uplink, now);
        self.cells[cell].dirs[d(uplink)].pending = true;
        Some((cell as u32, uplink, at))
    }

    /// Link direction `l` has data: the TTI event to schedule, if one is not already.
    pub fn wake(&mut self, l: LinkId, now: Time) -> Option<(u32, bool, Time)> {
        let (ue, uplink) = self.by_link[l as usize]?;
        self.advance(ue, now);
        self.arm(ue, uplink, now)
    }

    fn backlogged(&self, ue: usize, uplink: bool, queued: &dyn Fn(LinkId) -> bool) -> bool {
        let u = &self.ues[ue];
        let on = if uplink { u.p.up } else { u.p.down };
        on && (u.head[d(uplink)].is_some() || queued(u.p.direction(uplink)))
    }

    /// One TTI of `cell` in one direction at `now`: the block granted, if
    /// any UE attached to it has data and a usable channel. `queued(l)`:
    /// whether direction `l`'s queue holds packets.
    pub fn tick(&mut self, cell: usize, uplink: bool, now: Time, queued: &dyn Fn(LinkId) -> bool) -> Option<Grant> {
        {
            let dir = &mut self.cells[cell].dirs[d(uplink)];
            dir.pending = false;
            dir.last_tick = Some(now);
        }
        let mut candidates = Vec::new();
        for slot in 0..self.cells[cell].ues.len() {
            let ue = self.cells[cell].ues[slot];
            self.advance(ue, now);
            let u = &self.ues[ue];
            if u.at.serving() != cell || now < u.at.interrupted_until || !self.backlogged(ue, uplink, queued) {
                continue;
            }
            let c = &self.params[cell];
            let bits = block_bits(c, distance(u.at.path.position(now), c.position), u.at.shadowing_db(), uplink);
            if bits > 0 {
                candidates.push(Candidate { slot, bits });
            }
        }
        if candidates.is_empty() {
            return None;
        }
        let c = self.cells[cell].dirs[d(uplink)].scheduler.pick(&candidates);
        let ue = self.cells[cell].ues[c.slot];
        Some(Grant { link: self.ues[ue].p.direction(uplink), bits: c.bits, end: now + self.params[cell].tti })
    }

    /// After a TTI of `cell`: the TTI events to schedule for its UEs that
    /// still have data (at their serving cell, which a handover may have changed).
    pub fn rearm(&mut self, cell: usize, uplink: bool, now: Time, queued: &dyn Fn(LinkId) -> bool) -> Vec<(u32, bool, Time)> {
        let mut out = Vec::new();
        for slot in 0..self.cells[cell].ues.len() {
            let ue = self.cells[cell].ues[slot];
            if self.backlogged(ue, uplink, queued) {
                out.extend(self.arm(ue, uplink, now));
            }
        }
        out
    }

    /// The packet being sent on `l` and its bits still to send.
    pub fn head(&mut self, l: LinkId) -> &mut Option<(PacketId, u64)> {
        let (ue, uplink) = self.by_link[l as usize].expect("a cell direction");
        &mut self.ues[ue].head[d(uplink)]
    }

    /// The serving cell of the UE on `l`.
    fn cell_of(&self, l: LinkId) -> usize {
        let (ue, _) = self.by_link[l as usize].expect("a cell direction");
        self.ues[ue].at.serving()
    }

    /// HARQ retransmissions of a block on `l` as delay: each transmission
    /// fails with the cell's `bler`, at most `harq_max_retx` resends.
    pub fn harq_delay(&mut self, l: LinkId) -> Time {
        let i = self.cell_of(l);
        let (p, c) = (&self.params[i], &mut self.cells[i]);
        let mut k = 0;
        while k < p.harq_max_retx && c.harq.bernoulli(p.bler) {
            k += 1;
        }
        Time(p.harq_rtt.nanos() * k as u64)
    }

    /// Whether a packet on `l` is lost after HARQ (the cell's residual loss).
    pub fn residual_lost(&mut self, l: LinkId) -> bool {
        let i = self.cell_of(l);
        self.cells[i].residual.bernoulli(self.params[i].residual_loss)
    }

    /// When a packet on `l` due at `at` is delivered: in order, not before the previous one.
    pub fn in_order(&mut self, l: LinkId, at: Time) -> Time {
        let (ue, uplink) = self.by_link[l as usize].expect("a cell direction");
        let last = &mut self.ues[ue].last_arrival[d(uplink)];
        *last = (*last).max(at);
        *last
    }

    /// UE `ue`'s signal now: (host, interface, RSRP of its serving cell in
    /// dBm), and when to report next.
    pub fn report(&mut self, ue: usize, now: Time) -> (NodeId, u16, f64, Time) {
        self.advance(ue, now);
        let u = &self.ues[ue];
        let c = &self.params[u.at.serving()];
        let rsrp = c.radio.rsrp_dbm(distance(u.at.path.position(now), c.position), u.at.shadowing_db());
        (u.p.host, u.p.iface, rsrp, now + c.report_interval)
    }

    /// Every handover of UE `ue` so far: (time, from cell, to cell) by name.
    pub fn handovers(&self, ue: usize) -> Vec<(Time, String, String)> {
        let name = |c: usize| self.params[c].name.clone();
        self.ues[ue].at.handovers.iter().map(|&(t, a, b)| (t, name(a), name(b))).collect()
    }
}
