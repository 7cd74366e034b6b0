//! The RCP sender (Dukkipati's thesis and ns-2 RCP agent, `rcp-host.cc`): a
//! rate-based end-point with no congestion window.
//!
//! - The SYN carries the RCP header with the rate it wants (any); each RCP
//!   router lowers the field to its R, the receiver echoes it in the SYN-ACK,
//!   and data starts at that rate: the path's R from the first RTT on.
//! - Every data segment carries the header again (the rate field reset to
//!   "any", the RTT field set to the sender's smoothed RTT, which routers
//!   average into d), and every ACK echoes the rate the segment it answers
//!   picked up; the sending rate follows the latest echo.
//! - Segments leave paced: one wire packet of s bits every s/rate seconds.
//! - Loss recovery is by timeout only, as in the ns-2 agent: when the RFC
//!   6298 timer expires, every segment not (selectively) acknowledged is
//!   resent, paced like new data. There is no fast retransmit, so the
//!   receiver (a `TcpReceiver`, which buffers out-of-order data and reports
//!   it in SACK blocks) tolerates any reordering.

use crate::tcp::sender_timers::{self, Due, Expiry, SenderTimers};
use crate::net::packet::{Kind, Packet, RcpHeader};
use crate::net::NodeId;
use crate::tcp::rate_sample::TxStamp;
use crate::tcp::rtt::RttEstimator;
use crate::tcp::scoreboard::Scoreboard;
use crate::tcp::sender::SenderStats;
use crate::tcp::{Io, TcpConfig, TimerKind};
use crate::time::Time;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Idle,
    SynSent,
    Established,
}

pub struct RcpSender {
    flow: u32,
    src: NodeId,
    dst: NodeId,
    header_bytes: u32,
    mss: u64,
    state: State,
    /// Bytes the application has handed over so far (u64::MAX: bulk).
    app_limit: u64,
    snd_una: u64,
    snd_nxt: u64,
    /// Peer's advertised receive window.
    rwnd: u64,
    /// Outstanding segments, SACKed and lost ones marked (no rate stamps).
    board: Scoreboard,
    pub rtt: RttEstimator,
    /// The rate the path gives this flow, wire bit/s; None until the SYN-ACK.
    rate_bps: Option<f64>,
    /// When the last segment left, and its wire bits: the next may leave bits/rate later.
    last_departure: Option<(Time, f64)>,
    timers: SenderTimers,
    pub stats: SenderStats,
}

impl RcpSender {
    pub fn new(flow: u32, src: NodeId, dst: NodeId, size: Option<u64>, header_bytes: u32, cfg: &TcpConfig) -> RcpSender {
        RcpSender {
            flow,
            src,
            dst,
            header_bytes,
            mss: cfg.mss as u64,
            state: State::Idle,
            app_limit: size.unwrap_or(u64::MAX),
            snd_una: 0,
            snd_nxt: 0,
            rwnd: cfg.rcv_buffer,
            board: Scoreboard::default(),
            rtt: RttEstimator::from_config(cfg),
            rate_bps: None,
            last_departure: None,
            timers: SenderTimers::default(),
            stats: SenderStats::default(),
        }
    }

    /// The sending rate in payload bytes per second, as `CcState::pacing_rate` counts.
    pub fn payload_rate(&self) -> Option<f64> {
        let payload_share = self.mss as f64 / (self.mss + self.header_bytes as u64) as f64;
        self.rate_bps.map(|r| r / 8.0 * payload_share)
    }

    /// Bytes believed in the network (RFC 6675 pipe).
    pub fn in_flight(&self) -> u64 {
        self.board.pipe()
    }

    pub fn start(&mut self, io: &mut Io) {
        self.state = State::SynSent;
        self.send_syn(io);
    }

    /// A bulk application stops writing: what was sent is all there will be.
    pub fn stop_writing(&mut self) {
        self.app_limit = self.app_limit.min(self.snd_nxt);
    }

    fn header(&self) -> RcpHeader {
        RcpHeader { rate_bps: f64::INFINITY, rtt: self.rtt.srtt().unwrap_or(Time::ZERO) }
    }

    fn send_syn(&mut self, io: &mut Io) {
        let mut syn = Packet::new(self.flow, self.src, self.dst, Kind::Syn, self.header_bytes);
        syn.rcp = Some(self.header());
        self.timers.send_syn(syn, &self.rtt, &mut self.stats, io);
    }

    /// The echoed rate, if a router set it (an infinite one means the packet
    /// crossed no RCP router, which validation rules out for the data path).
    fn echoed_rate(p: &Packet) -> Option<f64> {
        p.rcp.map(|h| h.rate_bps).filter(|r| r.is_finite() && *r > 0.0)
    }

    pub fn on_packet(&mut self, p: &Packet, io: &mut Io) {
        match (self.state, p.kind) {
            (State::SynSent, Kind::SynAck) => {
                // Without a rate there is nothing to send at: the SYN timer asks again.
                let Some(rate) = Self::echoed_rate(p) else { return };
                self.rate_bps = Some(rate);
                self.rtt.sample(io.now.saturating_sub(p.ts_ecr));
                self.timers.rto.cancel();
                self.rwnd = p.rwnd;
                self.state = State::Established;
                self.send_what_we_can(io);
            }
            (State::Established, Kind::Ack) => self.on_ack(p, io),
            _ => {}
        }
    }

    fn on_ack(&mut self, p: &Packet, io: &mut Io) {
        if p.ack > self.snd_nxt || p.ack < self.snd_una {
            return;
        }
        if let Some(rate) = Self::echoed_rate(p) {
            self.rate_bps = Some(rate);
        }
        self.rwnd = p.rwnd;
        let newly_acked = p.ack - self.snd_una;
        if newly_acked > 0 && p.ts_ecr > Time::ZERO {
            // RFC 7323 §4: time the ACKs that advance the cumulative ACK.
            self.rtt.sample(io.now.saturating_sub(p.ts_ecr));
        }
        for &(s, e) in p.sack_blocks() {
            self.board.sack(s.max(p.ack), e, |_, _, _| {});
        }
        self.board.ack(p.ack, |_, _| {});
        self.snd_una = p.ack;
        // RFC 6298 §5.2–5.3.
        if self.board.is_empty() {
            self.timers.rto.cancel();
        } else if newly_acked > 0 {
            self.timers.arm_rto(&self.rtt, io);
        }
        self.send_what_we_can(io);
    }

    pub fn on_timer(&mut self, kind: TimerKind, io: &mut Io) {
        match self.timers.fire(kind, io) {
            Some(Due::Retransmit) => self.on_rto(io),
            Some(Due::Send) => self.send_what_we_can(io),
            None => {}
        }
    }

    fn on_rto(&mut self, io: &mut Io) {
        match sender_timers::expire(&mut self.rtt, &mut self.stats, self.state == State::SynSent, !self.board.is_empty()) {
            Expiry::ResendSyn => return self.send_syn(io),
            Expiry::Nothing => return,
            Expiry::Recover { .. } => {}
        }
        // Every segment not SACKed is resent (RFC 6675 §5.1's view after a timeout).
        self.board.mark_all_lost();
        self.send_what_we_can(io);
        self.timers.arm_rto(&self.rtt, io);
    }

    /// Sends lost segments first, then new data, each at its paced departure time.
    fn send_what_we_can(&mut self, io: &mut Io) {
        let Some(rate) = self.rate_bps.filter(|_| self.state == State::Established) else { return };
        loop {
            let (seq, len, retransmission) = match self.board.next_retransmission() {
                Some((seq, len)) => (seq, len as u64, true),
                None => {
                    let len = (self.app_limit - self.snd_nxt).min(self.mss);
                    if len == 0 || self.snd_nxt + len > self.snd_una + self.rwnd.max(self.mss) {
                        return;
                    }
                    (self.snd_nxt, len, false)
                }
            };
            // One packet of s wire bits every s/R seconds.
            let due = self.last_departure.map_or(Time::ZERO, |(t, bits)| t + Time::from_secs_f64(bits / rate));
            if io.now < due {
                if let Some(at) = self.timers.pacing.arm(due) {
                    io.timers.push((TimerKind::Pacing, at));
                }
                return;
            }
            self.transmit(seq, len as u32, retransmission, io);
            if !retransmission {
                self.snd_nxt += len;
            }
        }
    }

    fn transmit(&mut self, seq: u64, len: u32, retransmission: bool, io: &mut Io) {
        if retransmission {
            self.board.mark_retransmitted(seq, TxStamp::default());
            self.stats.retransmits += 1;
        } else {
            self.board.push(seq, len, TxStamp::default());
        }
        let mut p = Packet::new(self.flow, self.src, self.dst, Kind::Data, len + self.header_bytes);
        p.seq = seq;
        p.len = len;
        p.ts_val = io.now;
        p.retransmission = retransmission;
        p.rcp = Some(self.header());
        self.last_departure = Some((io.now, p.size as f64 * 8.0));
        self.stats.segments_sent += 1;
        self.stats.packets_sent += 1;
        io.out.push(p);
        if !self.timers.rto.is_armed() {
            self.timers.arm_rto(&self.rtt, io);
        }
    }
}
