//! The sending end of an MPTCP connection.
//!
//! - Subflows are TCP senders fed with chunks of the connection's data
//!   (`TcpSender::subflow`). The connection pushes a chunk into a subflow
//!   only when the scheduler picks it — which it does only for a subflow with
//!   room in its window (Linux's `mptcp_push_pending` → `mptcp_write_xmit`).
//!   New data never goes beyond the Data ACK plus the receive window.
//! - Reinjection (RFC 8684 §3.3.6; Linux `mptcp_reinject_data`): the data a
//!   subflow holds is queued to be sent again on the others when it is closed,
//!   when an interface it uses goes down, and when its retransmission timer
//!   fires — the subflow is then "potentially failed" and skipped until it
//!   has data acknowledged again. The receiver discards duplicates by DSN.
//! - When the receive window blocks on data held by a subflow in loss
//!   recovery, that subflow's data is reinjected and the subflow is left
//!   stale for a while (`reinject_what_the_window_waits_on`).
//! - Which subflows exist is not decided here: the owner (the world) tells
//!   the path managers and device-side controllers (`crate::control`) when
//!   the connection is established and when an interface comes back, and
//!   carries out their decisions with `open_subflow`, `close_subflow` and
//!   `set_backup`. At those two moments the sender holds its push back, so
//!   that the new subflows' handshakes leave first (as in Linux, where the
//!   in-kernel path manager runs from the establishment itself); the owner
//!   calls `push` after.
//! - With `options_stripped` the connection falls back to TCP on its initial
//!   subflow (RFC 8684 §3.7): no other subflow is ever opened.
//! - Each subflow has its own MSS, from its own two interfaces' MTUs (each
//!   end's MSS option, RFC 9293 §3.7.1, RFC 6691) and any MSS the receiver
//!   announced (`SetMss`) or TCP_MAXSEG set at the sender (`cap_mss`, on
//!   every subflow, as Linux's `mptcp_setsockopt_sol_tcp` /
//!   `sync_socket_options` do). New data handed to a subflow is cut at that
//!   subflow's MSS, as Linux's `mptcp_sendmsg_frag` sizes each fragment with
//!   the subflow's `tcp_send_mss`; a chunk larger than the subflow's MSS
//!   (a reinjection or redundant copy of data first cut for another
//!   subflow) goes as several segments, each with its own DSS mapping.

use std::fmt;

use super::coupling::{self, PathState, Shared};
use super::scheduler::{self, Scheduler, Step, SubflowView};
use super::send_queue::SendQueue;
use super::timers::SubflowTimers;
use super::MptcpConfig;
use crate::engine::Seeds;
use crate::net::family::Family;
use crate::net::mtu::{announced_mss, payload_under};
use crate::net::packet::{Kind, Packet};
use crate::net::NodeId;
use crate::tcp::sender::SenderStats;
use crate::tcp::{Io, TcpConfig, TcpSender, TimerKind};
use crate::time::Time;

/// At most this many subflows are open at once (one bit each in a chunk's path mask).
pub const MAX_OPEN_SUBFLOWS: usize = 64;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubflowState {
    Open,
    /// Closed by the path manager or a controller.
    Closed,
    /// An interface it used went down.
    Failed,
}

impl SubflowState {
    pub fn name(self) -> &'static str {
        match self {
            SubflowState::Open => "open",
            SubflowState::Closed => "closed",
            SubflowState::Failed => "failed",
        }
    }
}

pub struct Subflow {
    pub sender: TcpSender,
    /// The source's interface.
    pub local: u16,
    /// The destination's interface.
    pub remote: u16,
    pub backup: bool,
    pub state: SubflowState,
    /// A retransmission timeout since it last had data acknowledged (Linux's `tp->pf`).
    pub potentially_failed: bool,
    /// The connection's receive window waited on it while it repaired losses,
    /// and its data up to this DSN was reinjected on the others: given no data
    /// until the Data ACK passes it or its recovery ends (upstream Linux's
    /// stale subflow, `mptcp_subflow_set_active`).
    pub stale_until: Option<u64>,
    pub opened_at: Time,
    pub established_at: Option<Time>,
    pub closed_at: Option<Time>,
    /// Payload bytes sent, retransmissions included.
    pub bytes_sent: u64,
    /// Payload bytes of chunks pushed into this subflow after another carried them.
    pub bytes_reinjected: u64,
    /// This subflow's bit in the chunks' path masks.
    bit: u64,
}

/// Why a subflow could not be opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpenError {
    /// The connection is not (or no longer can be) multipath: not yet
    /// established, or fallen back to TCP.
    NotMultipath,
    /// No route between the two interfaces.
    Unreachable,
    /// One of the interfaces is down.
    InterfaceDown,
    /// `MAX_OPEN_SUBFLOWS` subflows are open.
    TooMany,
}

impl fmt::Display for OpenError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(match self {
            OpenError::NotMultipath => "the connection is not multipath (not established, or fallen back to TCP)",
            OpenError::Unreachable => "no route between the two interfaces",
            OpenError::InterfaceDown => "an interface is down",
            OpenError::TooMany => "too many open subflows",
        })
    }
}

/// What the sampler reads of a connection.
pub struct ConnectionSample {
    /// Σ cwnd of the open subflows.
    pub cwnd: u64,
    /// The lowest srtt among the open subflows.
    pub srtt: Option<Time>,
    /// Σ bytes in flight of the open subflows (Σ inflight_i).
    pub in_flight: u64,
    pub pacing_rate: Option<f64>,
    pub bw_estimate: Option<f64>,
    /// Green MPTCP's flow imbalance inflight_D − Σ inflight_i, bytes.
    pub imbalance: i64,
}

pub struct MptcpSender {
    flow: u32,
    /// The flow's name, for its subflows' random streams.
    name: String,
    seeds: Seeds,
    src: NodeId,
    dst: NodeId,
    header_bytes: u32,
    cfg: TcpConfig,
    conf: MptcpConfig,
    coupling: Shared,
    scheduler: Box<dyn Scheduler>,
    queue: SendQueue,
    subflows: Vec<Subflow>,
    timers: SubflowTimers,
    /// Timers a subflow asked for during one call.
    scratch: Vec<(TimerKind, Time)>,
    views: Vec<SubflowView>,
    /// Scenario link of each of the source's / destination's interfaces, and whether it is up.
    local_links: Vec<u32>,
    remote_links: Vec<u32>,
    /// The MTU of each of the source's / destination's interfaces.
    local_mtus: Vec<u32>,
    remote_mtus: Vec<u32>,
    local_up: Vec<bool>,
    remote_up: Vec<bool>,
    /// The initial subflow completed its handshake.
    established: bool,
    /// Every subflow's counters together.
    stats: SenderStats,
    /// Counts changes to the connection's state and its subflows' (opened,
    /// established, ended, re-flagged), so an observer compares one number.
    changes: u64,
}

impl MptcpSender {
    /// `local` and `remote` give the scenario link and the MTU of each
    /// interface of `src` and `dst`; `size` None is a bulk transfer. `cfg`'s
    /// `mss` is the flow's: each subflow cuts it to its interfaces' MTUs.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        flow: u32,
        name: &str,
        seeds: Seeds,
        src: NodeId,
        dst: NodeId,
        size: Option<u64>,
        header_bytes: u32,
        cfg: TcpConfig,
        conf: MptcpConfig,
        (local_links, local_mtus): (Vec<u32>, Vec<u32>),
        (remote_links, remote_mtus): (Vec<u32>, Vec<u32>),
    ) -> MptcpSender {
        MptcpSender {
            flow,
            name: name.to_string(),
            seeds,
            src,
            dst,
            header_bytes,
            coupling: Shared::default(),
            scheduler: scheduler::make(&conf.scheduler, &conf.scheduler_setup(&conf.scheduler))
                .unwrap_or_else(|e| panic!("scheduler '{}' passed validation but: {e}", conf.scheduler)),
            queue: SendQueue::new(size, cfg.mss as u64, cfg.rcv_buffer),
            subflows: Vec::new(),
            timers: SubflowTimers::default(),
            scratch: Vec::new(),
            views: Vec::new(),
            local_up: vec![true; local_links.len()],
            remote_up: vec![true; remote_links.len()],
            local_links,
            remote_links,
            local_mtus,
            remote_mtus,
            established: false,
            stats: SenderStats::default(),
            changes: 0,
            cfg,
            conf,
        }
    }

    pub fn subflows(&self) -> &[Subflow] {
        &self.subflows
    }

    /// A subflow's TCP sender, for controllers that drive its congestion
    /// control (eMPTCP sets Westwood+'s increment: `cc_as_mut`).
    pub fn subflow_sender_mut(&mut self, id: usize) -> Option<&mut TcpSender> {
        self.subflows.get_mut(id).map(|s| &mut s.sender)
    }

    pub fn stats(&self) -> &SenderStats {
        &self.stats
    }

    /// The count of state changes so far (see the field).
    pub fn changes(&self) -> u64 {
        self.changes
    }

    /// The initial subflow completed its handshake.
    pub fn is_established(&self) -> bool {
        self.established
    }

    /// Established, but as TCP: a middlebox stripped the options (RFC 8684 §3.7).
    pub fn fell_back(&self) -> bool {
        self.established && self.conf.options_stripped
    }

    /// Bytes of the connection's data acknowledged by Data ACKs.
    pub fn data_acked(&self) -> u64 {
        self.queue.data_una()
    }

    /// Switches the packet scheduler (a controller's choice); Err says why
    /// it cannot run on this connection (`green` without an energy profile).
    pub fn set_scheduler(&mut self, name: &str, io: &mut Io) -> Result<(), String> {
        self.scheduler = scheduler::make(name, &self.conf.scheduler_setup(name)).map_err(|e| e.to_string())?;
        self.push(io);
        Ok(())
    }

    /// The coupling's name (`uncoupled`, `lia`, `olia`, `balia`).
    pub fn coupling(&self) -> &str {
        &self.conf.coupling
    }

    /// Caps the payload per segment before the first SYN (TCP_MAXSEG at
    /// the data sender): every subflow, the joins included, and the
    /// connection's chunks.
    pub fn cap_mss(&mut self, payload: u32) {
        if payload < self.cfg.mss {
            self.cfg.mss = payload;
            self.queue.set_chunk(payload as u64);
        }
    }

    /// Runs congestion control `name` on every subflow it will create, each
    /// its own instance (uncoupled), before the first SYN (TCP_CONGESTION on
    /// the MPTCP socket, which Linux copies to every subflow, joins
    /// included: `sync_socket_options`, net/mptcp/sockopt.c). The
    /// scenario's `cc_params` stay only if `name` is its algorithm.
    pub fn set_uncoupled_cc(&mut self, name: &str) {
        debug_assert!(!self.opened(), "the congestion control is set before the SYN");
        if self.cfg.cc != name {
            self.cfg.cc = name.to_string();
            self.cfg.cc_params = Default::default();
        }
        self.conf.coupling = "uncoupled".to_string();
    }

    /// The subflows' algorithm (under coupling `uncoupled`; the coupled ones are their own).
    pub fn subflow_cc(&self) -> &str {
        &self.cfg.cc
    }

    /// Whether the initial subflow's SYN has left.
    pub fn opened(&self) -> bool {
        !self.subflows.is_empty()
    }

    /// The application opens the connection: the initial subflow's handshake
    /// (MP_CAPABLE) starts.
    pub fn start(&mut self, io: &mut Io) {
        let (local, remote) = self.conf.initial;
        self.add_subflow(local, remote, false, io);
        if self.subflows[0].sender.is_established() {
            self.established = true;
            self.changes += 1;
        }
    }

    /// The subflow the peer would send its own data on: the open,
    /// established one with the lowest smoothed RTT, a backup only if no
    /// other is usable (Linux's default scheduler, `mptcp_subflow_get_send`).
    pub fn fastest_subflow(&self) -> Option<usize> {
        let usable = |s: &&Subflow| s.state == SubflowState::Open && s.sender.is_established() && !s.potentially_failed;
        let rtt = |s: &Subflow| s.sender.rtt.srtt().unwrap_or(Time::MAX);
        let pick = |backup: bool| {
            self.subflows.iter().enumerate().filter(|(_, s)| usable(s) && s.backup == backup).min_by_key(|(_, s)| rtt(s)).map(|(j, _)| j)
        };
        pick(false).or_else(|| pick(true))
    }

    /// The application hands over `bytes` more: the scheduler pushes them to the subflows.
    pub fn write(&mut self, bytes: u64, io: &mut Io) {
        self.queue.write(bytes);
        self.push(io);
    }

    /// A bulk application stops writing.
    pub fn stop_writing(&mut self) {
        self.queue.stop_writing();
    }

    /// An ACK or SYN-ACK for one of the subflows.
    pub fn on_packet(&mut self, p: &Packet, io: &mut Io) {
        let j = p.subflow as usize;
        let Some(sf) = self.subflows.get(j).filter(|s| s.state == SubflowState::Open) else {
            return;
        };
        let (was_established, acked) = (sf.sender.is_established(), sf.sender.acked());
        self.call(j, io, |s, io| s.on_packet(p, io));
        let sf = &mut self.subflows[j];
        if sf.sender.acked() > acked {
            sf.potentially_failed = false;
        }
        let mut connection_established = false;
        if !was_established && sf.sender.is_established() {
            sf.established_at = Some(io.now);
            let mss = sf.sender.mss();
            self.changes += 1;
            if j == 0 {
                self.established = true;
                connection_established = true;
                // The MSS the handshake settled (the peer's option) sizes the
                // connection's new chunks until a join with a larger one is up.
                self.queue.set_chunk(mss as u64);
            } else {
                self.queue.raise_chunk(mss as u64);
            }
        }
        if let Some(dss) = p.dss {
            self.queue.on_data_ack(dss.data_ack, p.rwnd);
        }
        let data_una = self.queue.data_una();
        for sf in self.subflows.iter_mut().filter(|s| s.stale_until.is_some()) {
            if sf.stale_until.is_some_and(|end| data_una >= end) || sf.sender.in_open_state() {
                sf.stale_until = None;
                self.changes += 1;
            }
        }
        // Once established, the owner pushes after the path managers opened their subflows.
        if !connection_established {
            self.push(io);
        }
    }

    /// A world timer of `kind` (retransmission or pacing) fired.
    pub fn on_timer(&mut self, kind: TimerKind, io: &mut Io) {
        for sub in self.timers.due(kind, io.now) {
            let j = sub as usize;
            if self.subflows[j].state != SubflowState::Open {
                continue;
            }
            let timeouts = self.subflows[j].sender.stats.timeouts;
            self.call(j, io, |s, io| s.on_timer(kind, io));
            let sf = &mut self.subflows[j];
            if sf.sender.stats.timeouts > timeouts && sf.sender.is_established() {
                sf.potentially_failed = true;
                let bit = sf.bit;
                let mappings: Vec<(u64, u32)> = sf.sender.mappings().collect();
                self.queue.queue_reinjection(mappings.into_iter(), bit);
            }
        }
        self.push(io);
    }

    /// Scenario link `link` went up or down: subflows on an interface that
    /// went down fail. Returns the interfaces it concerns, as (at the
    /// destination?, index); for one that came up, the owner tells the path
    /// managers, then pushes.
    pub fn interface_event(&mut self, link: u32, up: bool, io: &mut Io) -> Vec<(bool, u16)> {
        let mut touched = Vec::new();
        for (at_dst, (links, state)) in [(&self.local_links, &mut self.local_up), (&self.remote_links, &mut self.remote_up)].into_iter().enumerate() {
            for (i, &l) in links.iter().enumerate() {
                if l == link {
                    state[i] = up;
                    touched.push((at_dst == 1, i as u16));
                }
            }
        }
        if touched.is_empty() || up {
            return touched;
        }
        for j in 0..self.subflows.len() {
            let sf = &self.subflows[j];
            if !self.local_up[sf.local as usize] || !self.remote_up[sf.remote as usize] {
                self.end_subflow(j, SubflowState::Failed, io.now);
            }
        }
        self.push(io);
        touched
    }

    /// Opens a subflow between the source's interface `local` and the
    /// destination's interface `remote` (an MP_JOIN handshake); returns its id.
    pub fn open_subflow(&mut self, local: u16, remote: u16, backup: bool, io: &mut Io) -> Result<usize, OpenError> {
        if !self.established || self.conf.options_stripped {
            return Err(OpenError::NotMultipath);
        }
        if !self.conf.reachable[local as usize][remote as usize] {
            return Err(OpenError::Unreachable);
        }
        if !self.local_up[local as usize] || !self.remote_up[remote as usize] {
            return Err(OpenError::InterfaceDown);
        }
        if self.subflows.iter().filter(|s| s.state == SubflowState::Open).count() >= MAX_OPEN_SUBFLOWS {
            return Err(OpenError::TooMany);
        }
        let id = self.add_subflow(local, remote, backup, io);
        self.push(io);
        Ok(id)
    }

    /// Closes subflow `id`; its data is reinjected on the others.
    pub fn close_subflow(&mut self, id: usize, io: &mut Io) {
        self.end_subflow(id, SubflowState::Closed, io.now);
        self.push(io);
    }

    /// Sets or clears subflow `id`'s backup flag (MP_PRIO, RFC 8684 §3.3.8).
    pub fn set_backup(&mut self, id: usize, backup: bool, io: &mut Io) {
        self.subflows[id].backup = backup;
        self.changes += 1;
        self.push(io);
    }

    pub fn sample(&self) -> ConnectionSample {
        let open = || self.subflows.iter().filter(|s| s.state == SubflowState::Open).map(|s| &s.sender);
        let sum_opt = |v: Vec<f64>| (!v.is_empty()).then(|| v.iter().sum());
        let in_flight: u64 = open().map(TcpSender::in_flight).sum();
        ConnectionSample {
            cwnd: open().map(|s| s.ccs.cwnd).sum(),
            srtt: open().filter_map(|s| s.rtt.srtt()).min(),
            in_flight,
            pacing_rate: sum_opt(open().filter_map(|s| s.ccs.pacing_rate).collect()),
            bw_estimate: sum_opt(open().filter_map(|s| s.cc().bandwidth_estimate()).collect()),
            imbalance: self.queue.in_flight() as i64 - in_flight as i64,
        }
    }

    /// The mean and smallest RTT sample over every subflow.
    pub fn rtt_mean_min(&self) -> (Option<Time>, Option<Time>) {
        let (mut n, mut sum) = (0u64, 0u128);
        for s in &self.subflows {
            if let Some(m) = s.sender.rtt.mean() {
                n += s.sender.rtt.samples;
                sum += m.nanos() as u128 * s.sender.rtt.samples as u128;
            }
        }
        let mean = (n > 0).then(|| Time((sum / n as u128) as u64));
        (mean, self.subflows.iter().filter_map(|s| s.sender.rtt.min_rtt).min())
    }

    /// Creates subflow (local, remote) and starts its handshake; returns its id.
    fn add_subflow(&mut self, local: u16, remote: u16, backup: bool, io: &mut Io) -> usize {
        let id = self.subflows.len();
        let used = self.subflows.iter().filter(|s| s.state == SubflowState::Open).fold(0u64, |m, s| m | s.bit);
        let bit = 1u64 << (!used).trailing_zeros();
        // The initial subflow draws from the stream a single-path flow would use.
        let stream = if id == 0 { format!("flow:{}:cc", self.name) } else { format!("flow:{}:cc:{id}", self.name) };
        let cfg = TcpConfig { mss: self.cfg.mss.min(self.path_mss(local, remote)), ..self.cfg.clone() };
        let cc = coupling::make(&self.conf.coupling, &self.coupling, id, &cfg, self.seeds.stream(&stream));
        self.coupling.borrow_mut().push(PathState::default());
        let sender = TcpSender::subflow(self.flow, self.src, self.dst, self.header_bytes, cfg, cc);
        self.subflows.push(Subflow {
            sender,
            local,
            remote,
            backup,
            state: SubflowState::Open,
            potentially_failed: false,
            stale_until: None,
            opened_at: io.now,
            established_at: None,
            closed_at: None,
            bytes_sent: 0,
            bytes_reinjected: 0,
            bit,
        });
        self.call(id, io, |s, io| s.start(io));
        if self.subflows[id].sender.is_established() {
            self.subflows[id].established_at = Some(io.now);
        }
        self.changes += 1;
        id
    }

    /// The payload per segment that subflow (`local`, `remote`) negotiates
    /// from its interfaces: each end announces its MTU − 40 (RFC 9293
    /// §3.7.1), the sender takes the smaller less its options (RFC 6691).
    /// A receiver's `SetMss` comes on top, in the SYN-ACK.
    fn path_mss(&self, local: u16, remote: u16) -> u32 {
        let mtu = self.local_mtus[local as usize].min(self.remote_mtus[remote as usize]);
        payload_under(announced_mss(mtu, Family::V4), self.header_bytes, Family::V4)
    }

    fn end_subflow(&mut self, id: usize, state: SubflowState, now: Time) {
        let sf = &mut self.subflows[id];
        if sf.state != SubflowState::Open {
            return;
        }
        sf.state = state;
        sf.closed_at = Some(now);
        self.changes += 1;
        let bit = sf.bit;
        let mappings: Vec<(u64, u32)> = sf.sender.mappings().collect();
        self.queue.queue_reinjection(mappings.into_iter(), bit);
        self.queue.forget(bit);
    }

    /// Runs `f` on subflow `j`'s sender with the connection's coupling state
    /// up to date, then addresses what it sent and files its timers.
    fn call<R>(&mut self, j: usize, io: &mut Io, f: impl FnOnce(&mut TcpSender, &mut Io) -> R) -> R {
        self.refresh_coupling();
        let sf = &mut self.subflows[j];
        let before = sf.sender.stats.clone();
        let n0 = io.out.len();
        let r = f(&mut sf.sender, &mut Io { now: io.now, out: io.out, timers: &mut self.scratch });
        for p in &mut io.out[n0..] {
            p.subflow = j as u16;
            p.src_if = sf.local;
            p.dst_if = sf.remote;
            if p.kind == Kind::Data {
                sf.bytes_sent += p.len as u64;
            }
        }
        let after = &sf.sender.stats;
        self.stats.segments_sent += after.segments_sent - before.segments_sent;
        self.stats.retransmits += after.retransmits - before.retransmits;
        self.stats.timeouts += after.timeouts - before.timeouts;
        self.stats.packets_sent += after.packets_sent - before.packets_sent;
        self.timers.take(j as u16, &mut self.scratch, io.timers);
        r
    }

    /// Copies every subflow's window and RTT into the coupling's shared table.
    fn refresh_coupling(&mut self) {
        let mut table = self.coupling.borrow_mut();
        for (p, sf) in table.iter_mut().zip(&self.subflows) {
            let s = &sf.sender;
            p.cwnd = s.ccs.cwnd;
            p.ssthresh = s.ccs.ssthresh;
            p.mss = s.ccs.mss;
            p.srtt = s.rtt.srtt();
            p.active = sf.state == SubflowState::Open && s.is_established();
            p.in_recovery = !s.in_open_state() && !s.in_loss_recovery();
        }
    }

    /// The connection's receive window is exhausted (RFC 8684 §3.3.4) and
    /// the chunk at the Data ACK is held by a subflow repairing losses (in
    /// fast or loss recovery): queues for reinjection every chunk that
    /// subflow alone carries and has not had acknowledged (RFC 8684 §3.3.6),
    /// and marks the subflow stale until the Data ACK passes them or its
    /// recovery ends.
    /// The receiver takes a subflow's data only in that subflow's order, so
    /// none of them has reached the connection, and the Data ACK — hence the
    /// window — cannot move until they do. This is upstream Linux's
    /// `__mptcp_retransmit_pending_data` (everything from the Data ACK
    /// re-sent on the other subflows when a subflow is found stale), started
    /// when the window blocks, as the out-of-tree Linux MPTCP starts its
    /// opportunistic retransmission (`mptcp_rcv_buf_optimization`). Without
    /// SACK a subflow repairs one hole per round trip (RFC 6582), and data it
    /// sent meanwhile would wait behind the holes again, so, as Linux does
    /// with a stale subflow, it gets no new data while the connection waits.
    /// It only queues chunks carried by that subflow alone, so it acts once
    /// per stall. Returns whether it queued any.
    /// Only subflows without SACK take part: with SACK a subflow repairs its
    /// holes in about one round trip, and applying it there too changed SACK
    /// runs with small buffers (docs/validation.md, "MPTCP without SACK").
    fn reinject_what_the_window_waits_on(&mut self) -> bool {
        let v = self.queue.view(Time::ZERO);
        if !v.window_limited || v.reinject.is_some() {
            return false;
        }
        let Some(&head) = v.unacked.front() else { return false };
        let stalled = self.subflows.iter_mut().find(|s| s.state == SubflowState::Open && head.sent_on & s.bit != 0 && !s.sender.uses_sack() && !s.sender.in_open_state());
        let Some(sf) = stalled else { return false };
        let bit = sf.bit;
        let mappings: Vec<(u64, u32)> = sf.sender.mappings().collect();
        let end = mappings.iter().map(|&(dsn, len)| dsn + len as u64).max();
        if self.queue.queue_reinjection(mappings.into_iter(), bit) == 0 {
            return false;
        }
        sf.stale_until = end;
        self.changes += 1;
        true
    }

    /// Hands chunks to subflows for as long as the scheduler finds room.
    pub fn push(&mut self, io: &mut Io) {
        if !self.established {
            return;
        }
        loop {
            self.views.clear();
            for (id, sf) in self.subflows.iter().enumerate().filter(|(_, s)| s.state == SubflowState::Open) {
                let s = &sf.sender;
                self.views.push(SubflowView {
                    id,
                    bit: sf.bit,
                    iface: sf.local,
                    srtt: s.rtt.srtt(),
                    min_rtt: s.rtt.min_rtt,
                    cwnd: s.ccs.cwnd,
                    ssthresh: s.ccs.ssthresh,
                    in_flight: s.in_flight(),
                    queued: s.queued_bytes(),
                    outstanding: s.outstanding(),
                    mss: s.ccs.mss,
                    sndbuf_expand: s.cc().sndbuf_expand(),
                    backup: sf.backup,
                    usable: s.is_established() && !sf.potentially_failed && sf.stale_until.is_none(),
                    stalled: s.in_loss_recovery(),
                    open_state: s.in_open_state(),
                });
            }
            let step = self.scheduler.next(&self.views, &self.queue.view(io.now));
            match step {
                Step::Send { subflow, chunk } => {
                    // New data is cut at this subflow's MSS (`mptcp_sendmsg_frag`'s size goal).
                    let mss = self.subflows[subflow].sender.mss();
                    let chunk = self.queue.cut(chunk, mss);
                    if self.queue.assign(chunk, self.subflows[subflow].bit) {
                        self.subflows[subflow].bytes_reinjected += chunk.len as u64;
                    }
                    self.call(subflow, io, |s, io| {
                        // A chunk cut for a subflow with a larger MSS goes in several segments.
                        let mut at = 0;
                        while at < chunk.len {
                            let len = (chunk.len - at).min(mss);
                            s.push_mapped(chunk.dsn + at as u64, len);
                            at += len;
                        }
                        s.send_pending(io);
                    });
                }
                Step::Penalise { subflow } => self.subflows[subflow].sender.penalise(),
                Step::Wait => {
                    if self.reinject_what_the_window_waits_on() {
                        continue;
                    }
                    let v = self.queue.view(io.now);
                    if v.new_data.is_none() && v.reinject.is_none() {
                        for sf in self.subflows.iter_mut().filter(|s| s.state == SubflowState::Open) {
                            sf.sender.check_app_limited();
                        }
                    }
                    return;
                }
            }
        }
    }
}
