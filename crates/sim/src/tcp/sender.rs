//! The TCP sender: handshake, window-limited transmission, loss detection
//! and recovery, retransmission timer.
//!
//! - Loss recovery is SACK-based (RFC 6675: scoreboard, pipe, NextSeg) or,
//!   with `sack = false`, NewReno (RFC 6582), where each duplicate ACK
//!   stands for one segment that left the network (Linux's "reno SACK"
//!   accounting, `tcp_add_reno_sack`) and each partial ACK retransmits the
//!   next hole.
//! - The retransmission timer follows RFC 6298 §5; after a timeout every
//!   unSACKed segment is deemed lost and resent in order under slow start.
//! - RTT samples come from timestamp echoes on ACKs that advance the
//!   cumulative ACK (RFC 7323 §4), so retransmissions need no Karn rule.

use crate::cc::{self, AckInfo, CcState, Congestion, CongestionControl};
use crate::engine::timer::{Fire, Timer};
use crate::net::packet::{Kind, Packet};
use crate::net::NodeId;
use crate::tcp::prr::Prr;
use crate::tcp::rtt::RttEstimator;
use crate::tcp::scoreboard::Scoreboard;
use crate::tcp::{Io, RecoveryAlgorithm, TcpConfig, TimerKind};
use crate::time::Time;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Idle,
    SynSent,
    Established,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Recovery {
    Open,
    /// Fast recovery until `point` (HighData when it began) is acknowledged.
    Fast { point: u64 },
    /// After a timeout, until `point` is acknowledged.
    Loss { point: u64 },
}

#[derive(Debug, Default, Clone)]
pub struct SenderStats {
    pub segments_sent: u64,
    pub retransmits: u64,
    pub timeouts: u64,
    pub packets_sent: u64,
}

pub struct TcpSender {
    flow: u32,
    src: NodeId,
    dst: NodeId,
    header_bytes: u32,
    cfg: TcpConfig,
    cc: Box<dyn CongestionControl>,
    pub ccs: CcState,
    state: State,
    recovery: Recovery,
    /// Bytes the application has handed over so far (u64::MAX: bulk).
    app_limit: u64,
    snd_una: u64,
    snd_nxt: u64,
    /// Peer's advertised receive window.
    rwnd: u64,
    dupacks: u32,
    /// NewReno mode: bytes the duplicate ACKs say have left the network.
    reno_dup_bytes: u64,
    board: Scoreboard,
    /// PRR state while in fast recovery with `recovery = "prr"`.
    prr: Option<Prr>,
    pub rtt: RttEstimator,
    rto_timer: Timer,
    syn_retransmitted: bool,
    pub stats: SenderStats,
}

impl TcpSender {
    pub fn new(flow: u32, src: NodeId, dst: NodeId, size: Option<u64>, header_bytes: u32, cfg: TcpConfig) -> TcpSender {
        let mss = cfg.mss as u64;
        TcpSender {
            flow,
            src,
            dst,
            header_bytes,
            cc: cc::make(&cfg.cc),
            ccs: CcState { cwnd: cfg.initial_window as u64 * mss, ssthresh: u64::MAX, mss, pacing_rate: None },
            rtt: RttEstimator::new(cfg.initial_rto, cfg.min_rto, cfg.max_rto),
            state: State::Idle,
            recovery: Recovery::Open,
            app_limit: size.unwrap_or(u64::MAX),
            snd_una: 0,
            snd_nxt: 0,
            rwnd: cfg.rcv_buffer,
            dupacks: 0,
            reno_dup_bytes: 0,
            board: Scoreboard::default(),
            prr: None,
            rto_timer: Timer::default(),
            syn_retransmitted: false,
            stats: SenderStats::default(),
            cfg,
        }
    }

    /// Bytes believed in flight (RFC 6675 pipe; NewReno: outstanding minus duplicate-ACKed).
    pub fn in_flight(&self) -> u64 {
        self.board.pipe().saturating_sub(self.reno_dup_bytes)
    }

    pub fn acked(&self) -> u64 {
        self.snd_una
    }

    /// The application opens the connection and starts writing.
    pub fn start(&mut self, io: &mut Io) {
        if self.cfg.handshake {
            self.state = State::SynSent;
            self.send_syn(io);
        } else {
            self.state = State::Established;
            self.send_what_we_can(io);
        }
    }

    /// A bulk application stops writing: what was sent is all there will be.
    pub fn stop_writing(&mut self) {
        self.app_limit = self.app_limit.min(self.snd_nxt);
    }

    fn send_syn(&mut self, io: &mut Io) {
        let mut p = Packet::new(self.flow, self.src, self.dst, Kind::Syn, self.header_bytes);
        p.ts_val = io.now;
        self.stats.packets_sent += 1;
        io.out.push(p);
        self.arm_rto(io);
    }

    fn arm_rto(&mut self, io: &mut Io) {
        if let Some(at) = self.rto_timer.arm(io.now + self.rtt.rto()) {
            io.timers.push((TimerKind::Retransmit, at));
        }
    }

    pub fn on_packet(&mut self, p: &Packet, io: &mut Io) {
        match (self.state, p.kind) {
            (State::SynSent, Kind::SynAck) => {
                self.state = State::Established;
                self.take_rtt_sample(p, io.now);
                self.rto_timer.cancel();
                if self.syn_retransmitted {
                    // RFC 5681 §3.1: the initial window is one segment if the SYN was lost.
                    self.ccs.cwnd = self.ccs.mss;
                }
                self.rwnd = p.rwnd;
                self.send_what_we_can(io);
            }
            (State::Established, Kind::Ack) => self.on_ack(p, io),
            _ => {}
        }
    }

    fn take_rtt_sample(&mut self, p: &Packet, now: Time) -> Option<Time> {
        if p.ts_ecr == Time::ZERO && p.kind != Kind::SynAck {
            return None;
        }
        let r = now.saturating_sub(p.ts_ecr);
        self.rtt.sample(r);
        Some(r)
    }

    fn on_ack(&mut self, p: &Packet, io: &mut Io) {
        if p.ack > self.snd_nxt || p.ack < self.snd_una {
            return;
        }
        self.rwnd = p.rwnd;
        let newly_acked = p.ack - self.snd_una;
        let rtt = if newly_acked > 0 { self.take_rtt_sample(p, io.now) } else { None };

        let mut newly_sacked = 0;
        if self.cfg.sack {
            for &(s, e) in p.sack_blocks() {
                newly_sacked += self.board.sack(s.max(p.ack), e);
            }
        }
        let sacked_before_ack = self.board.sacked_bytes();
        self.board.ack(p.ack);
        // Bytes newly delivered: cumulatively acked but not SACKed before, plus newly SACKed.
        let sacked_now_acked = sacked_before_ack - self.board.sacked_bytes();
        let delivered = newly_acked - sacked_now_acked.min(newly_acked) + newly_sacked;
        self.snd_una = p.ack;

        let outstanding = !self.board.is_empty();
        if newly_acked == 0 && outstanding && (newly_sacked > 0 || !self.cfg.sack) {
            self.dupacks += 1;
            if !self.cfg.sack {
                // Each duplicate ACK means one more segment has left the network.
                let max = self.board.outstanding().saturating_sub(self.ccs.mss);
                self.reno_dup_bytes = (self.reno_dup_bytes + self.ccs.mss).min(max);
            }
        }
        if newly_acked > 0 {
            if !self.cfg.sack {
                // The cumulative ACK covers the segments the duplicates stood for,
                // except the one it acknowledges itself (Linux tcp_remove_reno_sacks).
                let covered = newly_acked.saturating_sub(self.ccs.mss);
                self.reno_dup_bytes = self.reno_dup_bytes.saturating_sub(covered);
            }
            if matches!(self.recovery, Recovery::Open) {
                self.dupacks = 0;
                self.reno_dup_bytes = 0;
            }
        }
        if self.cfg.sack {
            self.board.detect_losses(self.cfg.dupack_threshold);
        }

        match self.recovery {
            Recovery::Fast { point } | Recovery::Loss { point } if p.ack >= point => {
                if matches!(self.recovery, Recovery::Fast { .. }) {
                    self.cc.on_recovery_exit(&mut self.ccs);
                }
                self.recovery = Recovery::Open;
                self.prr = None;
                self.dupacks = 0;
                self.reno_dup_bytes = 0;
            }
            Recovery::Fast { .. } if newly_acked > 0 && !self.cfg.sack => {
                // RFC 6582 §3.2 step 5: a partial ACK means the next segment is lost too.
                self.board.mark_head_lost();
            }
            _ => {}
        }

        let in_recovery = matches!(self.recovery, Recovery::Fast { .. });
        // The window grows with what the cumulative ACK covers (RFC 5681 §3.1,
        // as ns-3 does), not with SACKed bytes: after a timeout, SACKs for
        // segments sent before it would otherwise inflate slow start.
        let cum_delivered = newly_acked - sacked_now_acked.min(newly_acked);
        if cum_delivered > 0 {
            let info = AckInfo {
                now: io.now,
                acked: cum_delivered,
                rtt,
                srtt: self.rtt.srtt(),
                min_rtt: self.rtt.min_rtt,
                in_flight: self.in_flight(),
                in_recovery,
            };
            self.cc.on_ack(&mut self.ccs, &info);
        }
        if let Some(prr) = self.prr.as_mut() {
            let pipe = self.board.pipe().saturating_sub(self.reno_dup_bytes);
            self.ccs.cwnd = prr.cwnd(delivered, pipe, self.ccs.ssthresh, self.ccs.mss);
        }

        if self.recovery == Recovery::Open
            && outstanding
            && (self.dupacks >= self.cfg.dupack_threshold || self.board.head_lost())
        {
            self.enter_fast_recovery(io);
        }

        // RFC 6298 §5.2–5.3.
        if !outstanding {
            self.rto_timer.cancel();
        } else if newly_acked > 0 {
            self.arm_rto(io);
        }
        self.send_what_we_can(io);
    }

    fn enter_fast_recovery(&mut self, io: &mut Io) {
        let flight = self.board.outstanding();
        self.cc.on_congestion(&mut self.ccs, Congestion::FastRetransmit, flight);
        self.recovery = Recovery::Fast { point: self.snd_nxt };
        if self.cfg.recovery == RecoveryAlgorithm::Prr {
            self.prr = Some(Prr::new(flight));
        }
        self.board.mark_head_lost();
        // RFC 6675 §5 step 4.3: the first retransmission goes regardless of pipe.
        if let Some((seq, len)) = self.board.next_retransmission() {
            self.transmit(seq, len, true, io);
        }
    }

    pub fn on_timer(&mut self, kind: TimerKind, io: &mut Io) {
        debug_assert_eq!(kind, TimerKind::Retransmit);
        match self.rto_timer.fire(io.now) {
            Fire::Ignore => {}
            Fire::Reschedule(at) => io.timers.push((TimerKind::Retransmit, at)),
            Fire::Run => self.on_rto(io),
        }
    }

    fn on_rto(&mut self, io: &mut Io) {
        self.rtt.back_off();
        self.stats.timeouts += 1;
        if self.state == State::SynSent {
            self.syn_retransmitted = true;
            self.send_syn(io);
            return;
        }
        if self.board.is_empty() {
            return;
        }
        let flight = self.board.outstanding();
        self.cc.on_congestion(&mut self.ccs, Congestion::Timeout, flight);
        self.board.mark_all_lost();
        self.recovery = Recovery::Loss { point: self.snd_nxt };
        self.prr = None;
        self.dupacks = 0;
        self.reno_dup_bytes = 0;
        self.send_what_we_can(io);
        self.arm_rto(io);
    }

    /// Sends while the window allows: lost segments first, then new data
    /// (RFC 6675 NextSeg rules 1 and 2).
    fn send_what_we_can(&mut self, io: &mut Io) {
        if self.state != State::Established {
            return;
        }
        loop {
            let pipe = self.in_flight();
            if let Some((seq, len)) = self.board.next_retransmission() {
                if pipe + len as u64 > self.ccs.cwnd {
                    return;
                }
                self.transmit(seq, len, true, io);
                continue;
            }
            let len = (self.app_limit - self.snd_nxt).min(self.ccs.mss);
            if len == 0
                || pipe + len > self.ccs.cwnd
                || self.snd_nxt + len > self.snd_una + self.rwnd.max(self.ccs.mss)
            {
                return;
            }
            self.board.push(self.snd_nxt, len as u32);
            self.transmit(self.snd_nxt, len as u32, false, io);
            self.snd_nxt += len;
        }
    }

    fn transmit(&mut self, seq: u64, len: u32, retransmission: bool, io: &mut Io) {
        if retransmission {
            self.board.mark_retransmitted(seq);
            self.stats.retransmits += 1;
        }
        let mut p = Packet::new(self.flow, self.src, self.dst, Kind::Data, len + self.header_bytes);
        p.seq = seq;
        p.len = len;
        p.ts_val = io.now;
        p.retransmission = retransmission;
        self.stats.segments_sent += 1;
        self.stats.packets_sent += 1;
        if let Some(prr) = self.prr.as_mut() {
            prr.on_sent(len as u64);
        }
        io.out.push(p);
        if !self.rto_timer.is_armed() {
            self.arm_rto(io);
        }
    }
}
