//! The TCP sender: handshake, window-limited transmission, loss detection
//! and recovery, retransmission timer.
//!
//! - Loss recovery is SACK-based (RFC 6675: scoreboard, pipe, NextSeg) or,
//!   with `sack = false`, NewReno (RFC 6582), where each duplicate ACK
//!   stands for one segment that left the network (Linux's "reno SACK"
//!   accounting, `tcp_add_reno_sack`) and each partial ACK retransmits the
//!   next hole. The count outlives the end of fast recovery until an ACK
//!   advances snd_una: when the full ACK stops at a new hole, the data sent
//!   during the recovery has left the network all the same, and counting it
//!   as FlightSize at the next fast retransmit would set ssthresh from data
//!   no longer in flight (RFC 5681 eq. 4).
//! - The retransmission timer follows RFC 6298 §5; after a timeout every
//!   unSACKed segment is deemed lost and resent in order under slow start.
//!   ssthresh falls once per window of data: not again for a timeout during
//!   fast recovery or a backed-off one (RFC 5681 §3.1, Linux tcp_enter_loss).
//! - srtt and the RTO take their samples from timestamp echoes on ACKs that
//!   advance the cumulative ACK (RFC 7323 §4, as ns-3 does), so
//!   retransmissions need no Karn rule. With delayed ACKs the echo is that of
//!   the first segment the ACK covers.
//! - The congestion control's RTT sample, and the minimum RTT, are Linux's
//!   `ca_rtt_us` (`tcp_clean_rtx_queue`, `tcp_ack_update_rtt`): the time
//!   since the most recently sent segment this ACK newly delivers, among
//!   those never retransmitted, SACKed ones taking precedence; the timestamp
//!   echo only when there is no such segment. So a delayed ACK for segments
//!   paced apart does not add the pacing gap to min_rtt.
//! - Every ACK yields a delivery-rate sample (`rate_sample`) and is reported
//!   to the congestion control, which may also set a pacing rate: segments
//!   then leave no closer than `len / rate` apart (Linux's earliest-departure-
//!   time pacing, `tcp_wstamp_ns`), released by the pacing timer.
//! - PRR sets cwnd in fast recovery unless the algorithm owns its recovery
//!   window (BBR), as Linux skips `tcp_cwnd_reduction` for `cong_control`.
//! - New data comes from the application's byte stream or, for an MPTCP
//!   subflow, from chunks the connection pushes into it (`Source`).

use std::collections::VecDeque;

use crate::cc::{self, AckInfo, CcState, Congestion, CongestionControl};
use crate::tcp::sender_timers::{self, Due, Expiry, SenderTimers};
use crate::engine::RngStream;
use crate::net::family::Family;
use crate::net::packet::{Dss, Kind, Packet};
use crate::net::NodeId;
use crate::tcp::cwnd_usage::CwndUsage;
use crate::tcp::prr::Prr;
use crate::tcp::rack::Rack;
use crate::tcp::rate_sample::{RateEstimator, TxStamp};
use crate::tcp::rtt::RttEstimator;
use crate::tcp::scoreboard::Scoreboard;
use crate::tcp::send_buffer::SendBuffer;
use crate::tcp::{CwndGrowth, Io, NewRenoExit, NewRenoTimer, RecoveryAlgorithm, SendBufferModel, SsthreshFrom, TcpConfig, TimerKind};
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
    /// Payload bytes transmitted, retransmissions included (Linux `tcpi_bytes_sent`).
    pub payload_sent: u64,
    pub retransmits: u64,
    pub timeouts: u64,
    pub packets_sent: u64,
}

/// The latest send time among the segments one ACK newly delivers that were
/// never retransmitted (Linux's `last_ackt` / `last_sackt`).
#[derive(Debug, Default, Clone, Copy)]
struct SendTimes {
    last: Option<Time>,
}

impl SendTimes {
    fn add(&mut self, tx: &TxStamp) {
        if !tx.retransmission {
            self.last = Some(self.last.map_or(tx.sent_time, |t| t.max(tx.sent_time)));
        }
    }
}

/// Where the sender's new data comes from.
enum Source {
    /// A single-path application's byte stream: bytes [0, limit) have been
    /// handed over (u64::MAX: bulk). The peer's receive window applies.
    App { limit: u64 },
    /// An MPTCP connection's chunks (dsn, len), pushed only while this
    /// subflow has room in its window (Linux's push model,
    /// `mptcp_push_pending`). The connection applies the connection-level
    /// receive window (RFC 8684 §3.3.4); the subflow's own does not limit.
    Mapped { queue: VecDeque<(u64, u32)>, bytes: u64 },
}

pub struct TcpSender {
    flow: u32,
    src: NodeId,
    dst: NodeId,
    header_bytes: u32,
    /// The IP version it runs over (`net::family`): which fixed headers the
    /// peer's MSS option leaves out.
    family: Family,
    cfg: TcpConfig,
    cc: Box<dyn CongestionControl>,
    pub ccs: CcState,
    state: State,
    recovery: Recovery,
    source: Source,
    snd_una: u64,
    snd_nxt: u64,
    /// Peer's advertised receive window.
    rwnd: u64,
    dupacks: u32,
    /// New data sent on duplicate ACKs before recovery (RFC 3042 Limited
    /// Transmit; with SACK, RFC 6675's sends as pipe falls): kept out of the
    /// FlightSize that sets ssthresh (RFC 5681 §3.2 step 2).
    limited_transmit: u64,
    /// NewReno mode: bytes the duplicate ACKs say have left the network.
    reno_dup_bytes: u64,
    /// NewReno mode: partial ACKs in this fast recovery.
    partial_acks: u32,
    /// NewReno mode: snd_nxt at the last timeout (RFC 6582's `recover`).
    recover: Option<u64>,
    board: Scoreboard,
    /// PRR state while in fast recovery with `recovery = "prr"`.
    prr: Option<Prr>,
    pub rtt: RttEstimator,
    rate: RateEstimator,
    timers: SenderTimers,
    /// Earliest departure time of the next segment when pacing.
    next_departure: Time,
    syn_retransmitted: bool,
    pub stats: SenderStats,
    /// The latest valid delivery-rate sample, bytes/s (Linux's `tcpi_delivery_rate`).
    pub last_delivery_rate: Option<f64>,
    /// Whether the window was used, for `cwnd_growth = "cwnd_limited"`.
    usage: CwndUsage,
    /// The socket's send buffer with `send_buffer = "linux"` (a single-path sender only).
    sndbuf: Option<SendBuffer>,
    /// RACK's record of the latest delivery, with `rack = true` and SACK.
    rack: Option<Rack>,
}

impl TcpSender {
    /// `rng` is the flow's random stream for the congestion control.
    pub fn new(
        flow: u32,
        src: NodeId,
        dst: NodeId,
        size: Option<u64>,
        header_bytes: u32,
        cfg: TcpConfig,
        rng: RngStream,
    ) -> TcpSender {
        let cc = cc::make(&cfg.cc, &cfg.cc_params, rng);
        TcpSender::build(flow, src, dst, Source::App { limit: size.unwrap_or(u64::MAX) }, header_bytes, cfg, cc)
    }

    /// An MPTCP subflow's sender with congestion control `cc` (possibly
    /// coupled): its data is what the connection pushes (`push_mapped`).
    pub fn subflow(flow: u32, src: NodeId, dst: NodeId, header_bytes: u32, cfg: TcpConfig, cc: Box<dyn CongestionControl>) -> TcpSender {
        TcpSender::build(flow, src, dst, Source::Mapped { queue: VecDeque::new(), bytes: 0 }, header_bytes, cfg, cc)
    }

    fn build(
        flow: u32,
        src: NodeId,
        dst: NodeId,
        source: Source,
        header_bytes: u32,
        cfg: TcpConfig,
        mut cc: Box<dyn CongestionControl>,
    ) -> TcpSender {
        let mss = cfg.mss as u64;
        let ssthresh = cfg.initial_ssthresh.map_or(u64::MAX, |s| s as u64 * mss);
        let mut ccs = CcState { cwnd: cfg.initial_window as u64 * mss, ssthresh, mss, ..CcState::default() };
        cc.init(&mut ccs);
        TcpSender {
            flow,
            src,
            dst,
            header_bytes,
            family: Family::V4,
            cc,
            ccs,
            rtt: RttEstimator::from_config(&cfg),
            state: State::Idle,
            recovery: Recovery::Open,
            snd_una: 0,
            snd_nxt: 0,
            rwnd: cfg.rcv_buffer,
            dupacks: 0,
            limited_transmit: 0,
            reno_dup_bytes: 0,
            partial_acks: 0,
            recover: None,
            board: Scoreboard::default(),
            prr: None,
            rate: RateEstimator::default(),
            timers: SenderTimers::default(),
            next_departure: Time::ZERO,
            syn_retransmitted: false,
            stats: SenderStats::default(),
            last_delivery_rate: None,
            usage: CwndUsage::default(),
            rack: (cfg.rack && cfg.sack).then(Rack::default),
            sndbuf: (cfg.send_buffer == SendBufferModel::Linux && matches!(source, Source::App { .. })).then(SendBuffer::default),
            source,
            cfg,
        }
    }

    /// Bytes believed in flight (RFC 6675 pipe; NewReno: outstanding minus duplicate-ACKed).
    pub fn in_flight(&self) -> u64 {
        self.board.pipe().saturating_sub(self.reno_dup_bytes)
    }

    /// Bytes sent and not yet cumulatively acknowledged (snd_nxt − snd_una).
    pub fn outstanding(&self) -> u64 {
        self.snd_nxt - self.snd_una
    }

    pub fn acked(&self) -> u64 {
        self.snd_una
    }

    /// The congestion control, for reading its state (e.g. a bandwidth estimate).
    pub fn cc(&self) -> &dyn CongestionControl {
        self.cc.as_ref()
    }

    /// The congestion control as its concrete type, for controllers that
    /// drive it (eMPTCP sets Westwood+'s increment coefficient); None if the
    /// flow runs another algorithm.
    pub fn cc_as_mut<T: CongestionControl>(&mut self) -> Option<&mut T> {
        self.cc.as_mut().as_any_mut().downcast_mut()
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

    /// The application hands over `bytes` more (a sized source only; the
    /// connection may have been idle): sends what the window allows.
    pub fn write(&mut self, bytes: u64, io: &mut Io) {
        let Source::App { limit } = &mut self.source else { panic!("write on an MPTCP subflow") };
        *limit += bytes;
        self.send_what_we_can(io);
    }

    /// A bulk application stops writing: what was sent is all there will be.
    pub fn stop_writing(&mut self) {
        if let Source::App { limit } = &mut self.source {
            *limit = (*limit).min(self.snd_nxt);
        }
    }

    pub fn is_established(&self) -> bool {
        self.state == State::Established
    }

    /// In loss recovery after a retransmission timeout (Linux's CA_Loss).
    pub fn in_loss_recovery(&self) -> bool {
        matches!(self.recovery, Recovery::Loss { .. })
    }

    /// Whether it repairs losses with SACK (RFC 6675) or, without, by NewReno (RFC 6582).
    pub fn uses_sack(&self) -> bool {
        self.cfg.sack
    }

    /// Neither in fast recovery nor in loss recovery (Linux's CA_Open).
    pub fn in_open_state(&self) -> bool {
        self.recovery == Recovery::Open
    }

    /// An MPTCP subflow takes chunk [dsn, dsn + len) to send as new data.
    pub fn push_mapped(&mut self, dsn: u64, len: u32) {
        let Source::Mapped { queue, bytes } = &mut self.source else { panic!("push_mapped on a single-path sender") };
        queue.push_back((dsn, len));
        *bytes += len as u64;
    }

    /// Bytes pushed by the connection and not yet sent.
    pub fn queued_bytes(&self) -> u64 {
        match &self.source {
            Source::App { .. } => 0,
            Source::Mapped { bytes, .. } => *bytes,
        }
    }

    /// The (dsn, len) mappings this subflow holds: outstanding segments
    /// (SACKed ones included) and chunks not yet sent, in order.
    pub fn mappings(&self) -> impl Iterator<Item = (u64, u32)> + '_ {
        let queued = match &self.source {
            Source::App { .. } => None,
            Source::Mapped { queue, .. } => Some(queue.iter().copied()),
        };
        self.board.mappings().chain(queued.into_iter().flatten())
    }

    /// The MPTCP connection has no more data from the application: a
    /// subflow with nothing queued and room in its window is
    /// application-limited (draft-cheng §3.3, CheckIfApplicationLimited).
    pub fn check_app_limited(&mut self) {
        let pipe = self.in_flight();
        if self.queued_bytes() == 0 && pipe < self.ccs.cwnd {
            self.rate.mark_app_limited(pipe);
        }
    }

    /// Sends what the window allows now (after the connection pushed data).
    pub fn send_pending(&mut self, io: &mut Io) {
        self.send_what_we_can(io);
    }

    /// Halves the window of a subflow that holds up an MPTCP connection
    /// (Raiciu et al., NSDI 2012 §4.2, "penalising slow subflows"; Linux
    /// `mptcp_rcv_buf_optimization`): cwnd halves, and ssthresh too unless
    /// the subflow is in slow start.
    pub fn penalise(&mut self) {
        let prior = self.ccs.cwnd;
        self.ccs.cwnd = (prior / 2).max(self.ccs.mss);
        if prior >= self.ccs.ssthresh {
            self.ccs.ssthresh = (self.ccs.ssthresh / 2).max(2 * self.ccs.mss);
        }
    }

    fn send_syn(&mut self, io: &mut Io) {
        let syn = Packet::new(self.flow, self.src, self.dst, Kind::Syn, self.header_bytes);
        self.timers.send_syn(syn, &self.rtt, &mut self.stats, io);
    }

    pub fn on_packet(&mut self, p: &Packet, io: &mut Io) {
        match (self.state, p.kind) {
            (State::SynSent, Kind::SynAck) => {
                self.state = State::Established;
                if let Some(r) = self.take_rtt_sample(p, io.now) {
                    self.rtt.sample_min(r);
                }
                self.timers.rto.cancel();
                if p.mss != 0 {
                    self.cap_mss(crate::net::mtu::payload_under(p.mss as u32, self.header_bytes, self.family));
                }
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

    /// Runs over `family` (IPv4 by default): set before the handshake.
    pub fn set_family(&mut self, family: Family) {
        self.family = family;
    }

    /// Caps the payload per segment at `payload` bytes: the peer's MSS
    /// option less the options beyond the fixed headers (RFC 9293 §3.7.1),
    /// or TCP_MAXSEG before the handshake. The initial window and threshold
    /// count segments of the new size, as Linux sets them once the handshake
    /// fixed the MSS (`tcp_init_transfer`).
    pub fn cap_mss(&mut self, payload: u32) {
        if payload >= self.cfg.mss {
            return;
        }
        self.cfg.mss = payload;
        let mss = payload as u64;
        self.ccs.mss = mss;
        self.ccs.cwnd = self.cfg.initial_window as u64 * mss;
        if let Some(s) = self.cfg.initial_ssthresh {
            self.ccs.ssthresh = s as u64 * mss;
        }
        self.cc.init(&mut self.ccs);
    }

    /// Runs `cc`, algorithm `name`, instead of the configured one; before
    /// the SYN only (TCP_CONGESTION before connect), so its window starts
    /// from the initial one.
    pub fn set_cc(&mut self, name: &str, cc: Box<dyn CongestionControl>) {
        debug_assert!(!self.opened(), "the congestion control is set before the SYN");
        self.cfg.cc = name.to_string();
        self.cc = cc;
        let mss = self.ccs.mss;
        let ssthresh = self.cfg.initial_ssthresh.map_or(u64::MAX, |s| s as u64 * mss);
        self.ccs = CcState { cwnd: self.cfg.initial_window as u64 * mss, ssthresh, mss, ..CcState::default() };
        self.cc.init(&mut self.ccs);
    }

    /// The congestion control's name (`cc::names()`).
    pub fn cc_name(&self) -> &str {
        &self.cfg.cc
    }

    /// Whether it has sent its SYN (or started without a handshake).
    pub fn opened(&self) -> bool {
        self.state != State::Idle
    }

    /// The segment size in use: the flow's `mss`, or less if the peer announced less.
    pub fn mss(&self) -> u32 {
        self.cfg.mss
    }

    /// The timestamp echo's RTT sample, for srtt and the RTO.
    fn take_rtt_sample(&mut self, p: &Packet, now: Time) -> Option<Time> {
        if p.ts_ecr == Time::ZERO && p.kind != Kind::SynAck {
            return None;
        }
        let r = now.saturating_sub(p.ts_ecr);
        self.rtt.sample_srtt(r);
        Some(r)
    }

    fn on_ack(&mut self, p: &Packet, io: &mut Io) {
        if p.ack > self.snd_nxt || p.ack < self.snd_una {
            return;
        }
        self.rwnd = p.rwnd;
        let prior_in_flight = self.in_flight();
        let lost_before = self.board.lost_total();
        let newly_acked = p.ack - self.snd_una;
        let ts_rtt = if newly_acked > 0 { self.take_rtt_sample(p, io.now) } else { None };

        // Send times of the never-retransmitted segments this ACK newly SACKs
        // and cumulatively ACKs (Linux's last_sackt, last_ackt).
        let (mut sacked_times, mut acked_times) = (SendTimes::default(), SendTimes::default());
        let mut newly_sacked = 0;
        let min_rtt = self.rtt.min_rtt;
        if self.cfg.sack {
            for &(s, e) in p.sack_blocks() {
                newly_sacked += self.board.sack(s.max(p.ack), e, |tx, len, end| {
                    sacked_times.add(tx);
                    self.rate.on_delivered(tx, len);
                    if let Some(rack) = self.rack.as_mut() {
                        rack.on_delivered(io.now, tx, end, min_rtt);
                    }
                });
            }
        }
        let sacked_before_ack = self.board.sacked_bytes();
        let mut retransmission_acked = false;
        self.board.ack_each(p.ack, |tx, len, end, sacked| {
            retransmission_acked |= tx.retransmission;
            if !sacked {
                acked_times.add(tx);
                self.rate.on_delivered(tx, len);
                if let Some(rack) = self.rack.as_mut() {
                    rack.on_delivered(io.now, tx, end, min_rtt);
                }
            }
        });
        let rtt = Self::ca_rtt(io.now, acked_times, retransmission_acked, sacked_times, ts_rtt);
        if let Some(r) = rtt {
            self.rtt.sample_min(r);
        }
        // Bytes newly delivered: cumulatively acked but not SACKed before, plus newly SACKed.
        let sacked_now_acked = sacked_before_ack - self.board.sacked_bytes();
        let delivered = newly_acked - sacked_now_acked.min(newly_acked) + newly_sacked;
        self.snd_una = p.ack;

        let outstanding = !self.board.is_empty();
        if newly_acked == 0 && outstanding && (newly_sacked > 0 || !self.cfg.sack) {
            self.dupacks += 1;
            // Up to `recover` (RFC 6582 §3.2 step 4), duplicate ACKs may come
            // from the timeout's retransmissions of data the receiver had
            // (the ambiguity of RFC 6582 §4): they stand for no segment leaving
            // the network, and counting them would outlive the recovery.
            let after_timeout = self.recover.is_some_and(|r| p.ack <= r);
            if !self.cfg.sack && !after_timeout {
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
                // No hole below the data the duplicates stood for (Linux
                // tcp_reset_reno_sack on an ACK that advances snd_una in Open).
                self.dupacks = 0;
                self.limited_transmit = 0;
                self.reno_dup_bytes = 0;
            }
        }
        let mut rack_lost = false;
        if self.cfg.sack {
            self.board.detect_losses(self.cfg.dupack_threshold);
            if let Some(rack) = &self.rack {
                let dupthresh_sacked = self.board.sacked_bytes() >= self.cfg.dupack_threshold as u64 * self.ccs.mss;
                let reo_wnd = Rack::reo_wnd(self.recovery != Recovery::Open, dupthresh_sacked, self.rtt.min_rtt);
                rack_lost = self.board.rack_detect(rack, reo_wnd, io.now);
            }
        }

        match self.recovery {
            Recovery::Fast { point } | Recovery::Loss { point } if p.ack >= point => {
                if matches!(self.recovery, Recovery::Fast { .. }) {
                    self.cc.on_recovery_exit(&mut self.ccs);
                    if !self.cfg.sack {
                        self.ccs.cwnd = self.newreno_exit_cwnd();
                    }
                } else {
                    // After a timeout every segment was resent (go-back-N):
                    // the duplicates its retransmissions drew stand for nothing.
                    self.reno_dup_bytes = 0;
                }
                self.recovery = Recovery::Open;
                self.prr = None;
                self.dupacks = 0;
            }
            Recovery::Fast { .. } if newly_acked > 0 && !self.cfg.sack => {
                // RFC 6582 §3.2 step 3, partial acknowledgment: the next segment is lost too.
                self.board.mark_head_lost();
                self.partial_acks += 1;
            }
            _ => {}
        }

        // Recovery starts before the algorithm hears of the ACK, as in Linux
        // (tcp_fastretrans_alert precedes tcp_cong_control), so it sees the
        // recovery state this ACK leads to.
        let entering = self.recovery == Recovery::Open
            && outstanding
            && (self.dupacks >= self.cfg.dupack_threshold || self.board.head_lost() || rack_lost);
        if entering {
            self.enter_fast_recovery();
        }

        let losses = self.board.lost_total() - lost_before;
        let rate = self.rate.generate(io.now, losses, prior_in_flight, self.rtt.min_rtt);
        if let Some(r) = rate.rate() {
            self.last_delivery_rate = Some(r);
        }
        // The window grows with what the cumulative ACK covers (RFC 5681 §3.1,
        // as ns-3 does), not with SACKed bytes: after a timeout, SACKs for
        // segments sent before it would otherwise inflate slow start.
        let info = AckInfo {
            now: io.now,
            acked: newly_acked - sacked_now_acked.min(newly_acked),
            rtt,
            srtt: self.rtt.srtt(),
            min_rtt: self.rtt.min_rtt,
            in_flight: self.in_flight(),
            in_recovery: matches!(self.recovery, Recovery::Fast { .. }),
            in_loss_recovery: matches!(self.recovery, Recovery::Loss { .. }),
            snd_una: self.snd_una,
            snd_nxt: self.snd_nxt,
            next_departure: self.next_departure,
            rate,
            window_unused: self.cfg.cwnd_growth == CwndGrowth::CwndLimited && !self.usage.is_cwnd_limited(self.ccs.cwnd, self.ccs.ssthresh),
        };
        self.cc.on_ack(&mut self.ccs, &info);
        if std::mem::take(&mut self.ccs.mark_app_limited) {
            self.rate.mark_app_limited(self.in_flight());
        }
        // PRR paces the reduction from the ACK after the one that started recovery.
        if let Some(prr) = self.prr.as_mut().filter(|_| !entering) {
            let pipe = self.board.pipe().saturating_sub(self.reno_dup_bytes);
            self.ccs.cwnd = prr.cwnd(delivered, pipe, self.ccs.ssthresh, self.ccs.mss);
        }
        if entering {
            // RFC 6675 §5 step 4.3: the first retransmission goes regardless of pipe.
            if let Some((seq, len)) = self.board.next_retransmission() {
                self.retransmit(seq, len, io);
            }
        }

        // RFC 6298 §5.2–5.3.
        if !outstanding {
            self.timers.rto.cancel();
        } else if newly_acked > 0 && !self.impatient_hold() {
            self.timers.arm_rto(&self.rtt, io);
        }
        self.send_what_we_can(io);
    }

    /// The congestion control's RTT sample, Linux's `ca_rtt_us`
    /// (`tcp_clean_rtx_queue`, `tcp_ack_update_rtt`): from the most recently
    /// sent segment the ACK newly SACKs, else from the most recently sent one
    /// it newly ACKs cumulatively unless it ACKs a retransmitted one (Karn),
    /// else the timestamp echo (only on an ACK that advances snd_una).
    fn ca_rtt(now: Time, acked: SendTimes, retransmission_acked: bool, sacked: SendTimes, ts_rtt: Option<Time>) -> Option<Time> {
        let since = |t: Time| now.saturating_sub(t);
        sacked.last.map(since).or(acked.last.filter(|_| !retransmission_acked).map(since)).or(ts_rtt)
    }

    /// NewReno's cwnd on a full acknowledgment (RFC 6582 §3.2 step 3), once
    /// the congestion control has set it to ssthresh.
    fn newreno_exit_cwnd(&self) -> u64 {
        match self.cfg.newreno_exit {
            NewRenoExit::Ssthresh => self.ccs.cwnd,
            // Option (1): min(ssthresh, max(FlightSize, SMSS) + SMSS).
            NewRenoExit::Flight => self.ccs.ssthresh.min(self.in_flight().max(self.ccs.mss) + self.ccs.mss),
        }
    }

    /// RFC 6582 §3.2 step 3 (the Impatient variant): in fast
    /// recovery only the first partial ACK re-arms the timer.
    fn impatient_hold(&self) -> bool {
        self.cfg.newreno_timer == NewRenoTimer::Impatient && matches!(self.recovery, Recovery::Fast { .. }) && self.partial_acks > 1
    }

    fn enter_fast_recovery(&mut self) {
        // FlightSize (RFC 5681 eq. 4). NewReno takes out what duplicate ACKs
        // reported delivered, as ns-3's BytesInFlight does with its emulated
        // SACKs; Linux's Reno halves cwnd instead (tcp_reno_ssthresh).
        // With SACK, FlightSize leaves out the data Limited Transmit sent on the
        // duplicate ACKs (RFC 5681 §3.2 step 2), so that ssthresh is β times the
        // flight before the loss showed, as Linux's β·cwnd is while no SACKed data
        // sits above an older hole; `ssthresh_from = "cwnd"` takes cwnd as Linux does.
        let flight = if self.cfg.sack { self.board.outstanding().saturating_sub(self.limited_transmit) } else { self.in_flight() };
        let base = match self.cfg.ssthresh_from {
            SsthreshFrom::FlightSize => flight,
            SsthreshFrom::Cwnd => self.ccs.cwnd,
        };
        self.limited_transmit = 0;
        self.partial_acks = 0;
        self.cc.on_congestion(&mut self.ccs, Congestion::FastRetransmit, base);
        self.recovery = Recovery::Fast { point: self.snd_nxt };
        if self.cfg.recovery == RecoveryAlgorithm::Prr && !self.cc.owns_recovery_window() {
            self.prr = Some(Prr::new(base));
        }
        self.board.mark_head_lost();
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
            Expiry::ResendSyn => {
                self.syn_retransmitted = true;
                return self.send_syn(io);
            }
            Expiry::Nothing => return,
            Expiry::Recover { .. } => {}
        }
        // RFC 5681 §3.1 lowers ssthresh on a timeout only if the segment has
        // not yet been resent by the retransmission timer, and to no more than
        // eq. 4. A timeout during fast recovery (a lost retransmission) keeps
        // the ssthresh that recovery set for the same window of data, as Linux
        // does (tcp_enter_loss: "Reduce ssthresh if it has not yet been made
        // inside this window"): recomputed there from pipe, it would collapse
        // to 2 segments, everything but the lost retransmission being SACKed.
        let reduce = match self.recovery {
            Recovery::Open => true,
            Recovery::Fast { .. } => false,
            Recovery::Loss { .. } => !self.board.head_retransmitted(),
        };
        // FlightSize of RFC 5681 eq. 4 is taken as what is in the network
        // (pipe), as ns-3 does (BytesInFlight), not everything unacknowledged:
        // SACKed data would otherwise inflate ssthresh.
        let flight = self.in_flight();
        let ssthresh = self.ccs.ssthresh;
        // The algorithm sets the loss window and resets its own state either way.
        self.cc.on_congestion(&mut self.ccs, Congestion::Timeout, flight);
        if !reduce {
            self.ccs.ssthresh = ssthresh;
        }
        self.board.mark_all_lost();
        self.recovery = Recovery::Loss { point: self.snd_nxt };
        // RFC 6582 §3.2 step 4.
        self.recover = Some(self.snd_nxt);
        self.prr = None;
        self.dupacks = 0;
        self.limited_transmit = 0;
        self.reno_dup_bytes = 0;
        self.send_what_we_can(io);
        self.timers.arm_rto(&self.rtt, io);
    }

    /// Sends while the window allows: lost segments first, then new data
    /// (RFC 6675 NextSeg rules 1 and 2), each no earlier than pacing allows.
    fn send_what_we_can(&mut self, io: &mut Io) {
        if self.state != State::Established {
            return;
        }
        let sent_before = self.stats.segments_sent;
        let stopped_by_window = self.send_loop(io);
        // Only `cwnd_growth = "cwnd_limited"` reads the usage record: keep the per-send bookkeeping off otherwise.
        if self.cfg.cwnd_growth != CwndGrowth::CwndLimited {
            return;
        }
        // tcp_write_xmit: is_cwnd_limited |= in flight >= cwnd; tcp_cwnd_validate if anything was sent or the window is full.
        let limited = stopped_by_window || self.in_flight() + self.ccs.mss > self.ccs.cwnd;
        if self.stats.segments_sent > sent_before || limited {
            self.usage.on_send(limited, self.snd_nxt - self.snd_una, self.snd_una, self.snd_nxt);
        }
    }

    /// The body of `send_what_we_can`; returns whether the window stopped it.
    fn send_loop(&mut self, io: &mut Io) -> bool {
        loop {
            let pipe = self.in_flight();
            if let Some((seq, len)) = self.board.next_retransmission() {
                if pipe + len as u64 > self.ccs.cwnd {
                    return true;
                }
                if self.wait_for_pacing(io) {
                    return false;
                }
                self.retransmit(seq, len, io);
                continue;
            }
            // The next chunk of new data, and whether the peer's window applies.
            let (dsn, len, peer_window) = match &self.source {
                Source::App { limit } => (self.snd_nxt, (limit - self.snd_nxt).min(self.ccs.mss), true),
                Source::Mapped { queue, .. } => queue.front().map_or((0, 0, false), |&(dsn, len)| (dsn, len as u64, false)),
            };
            if len == 0 {
                // A single-path sender out of data with room in the window:
                // rate samples now reflect the application (draft-cheng
                // §3.3, CheckIfApplicationLimited). A subflow out of mapped
                // data is not application-limited while its connection has
                // more: the connection decides (`check_app_limited`).
                if pipe < self.ccs.cwnd && matches!(self.source, Source::App { .. }) {
                    self.rate.mark_app_limited(pipe);
                }
                return false;
            }
            if pipe + len > self.ccs.cwnd {
                return true;
            }
            if !self.send_buffer_has_room(pipe) {
                // The application could not write this segment yet. It is not application-limited:
                // Linux's `tcp_rate_check_app_limited` runs when the application writes, and a bulk writer
                // blocked on a full buffer writes again as soon as a third of it is free, while the data it
                // wrote last is still unsent (paced) or in the host's queues (`sk_wmem_alloc`).
                return false;
            }
            if (peer_window && self.snd_nxt + len > self.snd_una + self.rwnd.max(self.ccs.mss)) || self.wait_for_pacing(io) {
                return false;
            }
            if let Source::Mapped { queue, bytes } = &mut self.source {
                queue.pop_front();
                *bytes -= len;
            }
            let tx = self.rate.on_send(io.now, self.board.is_empty());
            self.board.push_mapped(self.snd_nxt, len as u32, dsn, tx);
            self.emit(self.snd_nxt, len as u32, dsn, false, io);
            self.snd_nxt += len;
            if self.recovery == Recovery::Open && self.dupacks > 0 {
                self.limited_transmit += len;
            }
        }
    }

    /// `send_buffer = "linux"`: whether the application had handed over the
    /// next segment, i.e. what the socket held before it (sent and not yet
    /// acknowledged: snd_nxt − snd_una, Linux's `sk_wmem_queued` in payload
    /// bytes) was below the buffer (`sk_stream_memory_free`). The buffer
    /// grows first if the window is not full (`tcp_new_space`).
    fn send_buffer_has_room(&mut self, pipe: u64) -> bool {
        let Some(buf) = self.sndbuf.as_mut() else { return true };
        buf.expand(self.ccs.cwnd, pipe, self.ccs.mss, self.cc.sndbuf_expand());
        buf.has_room(self.snd_nxt - self.snd_una)
    }

    /// With a pacing rate, a segment leaves only at its departure time; if that
    /// is still to come, arms the pacing timer and returns true.
    fn wait_for_pacing(&mut self, io: &mut Io) -> bool {
        if self.ccs.pacing_rate.is_none() || io.now >= self.next_departure {
            return false;
        }
        if let Some(at) = self.timers.pacing.arm(self.next_departure) {
            io.timers.push((TimerKind::Pacing, at));
        }
        true
    }

    /// Resends the outstanding segment at `seq`, with the mapping it was first sent with.
    fn retransmit(&mut self, seq: u64, len: u32, io: &mut Io) {
        let tx = TxStamp { retransmission: true, ..self.rate.on_send(io.now, self.board.is_empty()) };
        self.board.mark_retransmitted(seq, tx);
        self.stats.retransmits += 1;
        let dsn = self.board.dsn_at(seq);
        self.emit(seq, len, dsn, true, io);
    }

    fn emit(&mut self, seq: u64, len: u32, dsn: u64, retransmission: bool, io: &mut Io) {
        if let Some(rate) = self.ccs.pacing_rate {
            // The next departure is one segment time later (Linux tcp_update_skb_after_send).
            self.next_departure = self.next_departure.max(io.now) + Time::from_secs_f64(len as f64 / rate);
        }
        let mut p = Packet::new(self.flow, self.src, self.dst, Kind::Data, len + self.header_bytes);
        p.seq = seq;
        p.len = len;
        p.ts_val = io.now;
        p.retransmission = retransmission;
        if matches!(self.source, Source::Mapped { .. }) {
            p.dss = Some(Dss { dsn, data_ack: 0 });
        }
        self.stats.segments_sent += 1;
        self.stats.payload_sent += len as u64;
        self.stats.packets_sent += 1;
        if let Some(prr) = self.prr.as_mut() {
            prr.on_sent(len as u64);
        }
        io.out.push(p);
        if !self.timers.rto.is_armed() {
            self.timers.arm_rto(&self.rtt, io);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Seeds;

    #[test]
    fn the_peers_mss_option_bounds_the_segments_and_the_initial_window() {
        // RFC 9293 §3.7.1: the receiver announces 1000 in its SYN-ACK; with
        // 12 bytes of timestamps the sender's segments carry 988 bytes.
        let run = |announce: u16| {
            let mut s = TcpSender::new(0, 0, 1, None, 52, TcpConfig::default(), Seeds { master: 1 }.stream("cc"));
            let mut r = crate::tcp::TcpReceiver::new(0, 1, 0, None, 52, TcpConfig::default());
            r.announce_mss(announce);
            let (mut out, mut timers) = (Vec::new(), Vec::new());
            s.start(&mut Io { now: Time::ZERO, out: &mut out, timers: &mut timers });
            let syn = out.pop().expect("a SYN");
            r.on_packet(&syn, &mut Io { now: Time::from_millis(10), out: &mut out, timers: &mut timers });
            let syn_ack = out.pop().expect("a SYN-ACK");
            assert_eq!(syn_ack.mss, announce);
            s.on_packet(&syn_ack, &mut Io { now: Time::from_millis(20), out: &mut out, timers: &mut timers });
            (out.iter().map(|p| p.len).collect::<Vec<_>>(), s.ccs.cwnd)
        };
        let (lens, cwnd) = run(1000);
        assert_eq!(lens, vec![988; 10], "the initial window in 988-byte segments");
        assert_eq!(cwnd, 9880);
        // No option: the flow's mss; an option above it changes nothing.
        assert_eq!(run(0).0, vec![1448; 10]);
        assert_eq!(run(9000).0, vec![1448; 10]);
    }

    #[test]
    fn a_pacing_rate_spaces_segments() {
        // BBR starts pacing at high_gain · initial window / 1 ms (no RTT yet).
        let cfg = TcpConfig { cc: "bbr".into(), handshake: false, ..TcpConfig::default() };
        let mut s = TcpSender::new(0, 0, 1, None, 52, cfg, Seeds { master: 1 }.stream("cc"));
        let rate = s.ccs.pacing_rate.expect("BBR paces");
        let gap = Time::from_secs_f64(1448.0 / rate);
        let (mut out, mut timers) = (Vec::new(), Vec::new());
        s.start(&mut Io { now: Time::ZERO, out: &mut out, timers: &mut timers });
        // One segment leaves at once; the pacing timer releases the next one gap later.
        assert_eq!(out.len(), 1);
        assert!(timers.contains(&(TimerKind::Pacing, gap)), "{timers:?}");
        let mut now = gap;
        for sent in 2..=10 {
            timers.clear();
            s.on_timer(TimerKind::Pacing, &mut Io { now, out: &mut out, timers: &mut timers });
            assert_eq!(out.len(), sent);
            now += gap;
            if sent < 10 {
                assert_eq!(timers, [(TimerKind::Pacing, now)]);
            }
        }
        // The initial window (10 segments) is out: the window, not pacing, holds the 11th.
        assert!(timers.iter().all(|t| t.0 != TimerKind::Pacing), "{timers:?}");
        assert!(out.windows(2).all(|p| p[1].ts_val - p[0].ts_val == gap));
    }

    #[test]
    fn the_cc_rtt_sample_is_that_of_the_last_segment_acked() {
        // BBR paces its initial window: segments 0 and 1 leave `gap` apart.
        let cfg = TcpConfig { cc: "bbr".into(), handshake: false, ..TcpConfig::default() };
        let mut s = TcpSender::new(0, 0, 1, None, 52, cfg, Seeds { master: 1 }.stream("cc"));
        let (mut out, mut timers) = (Vec::new(), Vec::new());
        let t0 = Time::from_millis(1);
        s.start(&mut Io { now: t0, out: &mut out, timers: &mut timers });
        let second = timers.iter().find(|t| t.0 == TimerKind::Pacing).expect("paced").1;
        s.on_timer(TimerKind::Pacing, &mut Io { now: second, out: &mut out, timers: &mut timers });
        assert_eq!(out.len(), 2);
        // One delayed ACK for both, echoing segment 0's timestamp (RFC 7323 §4.3).
        let mss = s.ccs.mss;
        let now = Time::from_millis(50);
        let mut a = Packet::new(0, 1, 0, Kind::Ack, 52);
        a.ack = 2 * mss;
        a.rwnd = 1 << 20;
        a.ts_ecr = out[0].ts_val;
        s.on_packet(&a, &mut Io { now, out: &mut out, timers: &mut timers });
        // srtt takes the echo; min_rtt (Linux ca_rtt_us) the later segment, without the pacing gap.
        assert_eq!(s.rtt.srtt(), Some(now - t0));
        assert_eq!(s.rtt.min_rtt, Some(now - second));
    }

    /// The window after an application that has 9 segments to send, with a
    /// window of 10 (IW10), sees each acknowledged separately in slow start.
    fn window_after_nine_of_ten(growth: CwndGrowth) -> u64 {
        let cfg = TcpConfig { handshake: false, cwnd_growth: growth, ..TcpConfig::default() };
        let mss = cfg.mss as u64;
        let mut s = TcpSender::new(0, 0, 1, Some(9 * mss), 52, cfg, Seeds { master: 1 }.stream("cc"));
        let (mut out, mut timers) = (Vec::new(), Vec::new());
        s.start(&mut Io { now: Time::ZERO, out: &mut out, timers: &mut timers });
        assert_eq!(out.len(), 9);
        for i in 1..=9 {
            let mut a = Packet::new(0, 1, 0, Kind::Ack, 52);
            a.ack = i * mss;
            a.rwnd = 1 << 20;
            a.ts_ecr = out[0].ts_val;
            s.on_packet(&a, &mut Io { now: Time::from_millis(50 + i), out: &mut out, timers: &mut timers });
        }
        s.ccs.cwnd / mss
    }

    #[test]
    fn an_application_limited_window_grows_to_twice_its_flight_in_slow_start() {
        // RFC 5681 §3.1 growth: one segment per segment acknowledged, 10 + 9.
        assert_eq!(window_after_nine_of_ten(CwndGrowth::Always), 19);
        // Linux's tcp_is_cwnd_limited, its own example (include/net/tcp.h): "cwnd is 10 (IW10),
        // but application sends 9 frames. We allow cwnd to reach 18 when all frames are ACKed."
        assert_eq!(window_after_nine_of_ten(CwndGrowth::CwndLimited), 18);
    }

    /// A NewReno sender with its initial window (10 segments) out.
    fn sender_with_window_out() -> (TcpSender, Vec<Packet>, Vec<(TimerKind, Time)>) {
        let cfg = TcpConfig { handshake: false, ..TcpConfig::default() };
        let mut s = TcpSender::new(0, 0, 1, None, 52, cfg, Seeds { master: 1 }.stream("cc"));
        let (mut out, mut timers) = (Vec::new(), Vec::new());
        s.start(&mut Io { now: Time::ZERO, out: &mut out, timers: &mut timers });
        assert_eq!(out.len(), 10);
        (s, out, timers)
    }

    /// Runs the retransmission timer at its latest scheduled time.
    fn expire_rto(s: &mut TcpSender, out: &mut Vec<Packet>, timers: &mut Vec<(TimerKind, Time)>) {
        let at = timers.iter().rev().find(|t| t.0 == TimerKind::Retransmit).expect("RTO armed").1;
        timers.clear();
        s.on_timer(TimerKind::Retransmit, &mut Io { now: at, out, timers });
    }

    /// A NewReno sender (`sack = false`) with its initial window out, put
    /// into fast recovery by three duplicate ACKs: segment 0 is lost.
    fn newreno_in_recovery(cfg: TcpConfig) -> (TcpSender, Vec<Packet>, Vec<(TimerKind, Time)>) {
        let cfg = TcpConfig { handshake: false, sack: false, ..cfg };
        let mut s = TcpSender::new(0, 0, 1, None, 52, cfg, Seeds { master: 1 }.stream("cc"));
        let (mut out, mut timers) = (Vec::new(), Vec::new());
        s.start(&mut Io { now: Time::ZERO, out: &mut out, timers: &mut timers });
        for _ in 0..3 {
            s.on_packet(&ack_at(0), &mut Io { now: Time::from_millis(50), out: &mut out, timers: &mut timers });
        }
        assert!(!s.in_open_state() && !s.in_loss_recovery());
        (s, out, timers)
    }

    fn ack_at(seq: u64) -> Packet {
        let mut a = Packet::new(0, 1, 0, Kind::Ack, 52);
        a.ack = seq;
        a.rwnd = 1 << 20;
        a
    }

    #[test]
    fn only_the_first_partial_ack_rearms_the_impatient_timer() {
        for (timer, rearmed) in [(NewRenoTimer::SlowButSteady, true), (NewRenoTimer::Impatient, false)] {
            let (mut s, mut out, mut timers) = newreno_in_recovery(TcpConfig { newreno_timer: timer, ..TcpConfig::default() });
            let mss = s.ccs.mss;
            // Segments 2 and 4 were lost too: two partial ACKs, 10 ms apart.
            s.on_packet(&ack_at(2 * mss), &mut Io { now: Time::from_millis(60), out: &mut out, timers: &mut timers });
            let first = s.timers.rto.deadline().expect("armed");
            s.on_packet(&ack_at(4 * mss), &mut Io { now: Time::from_millis(70), out: &mut out, timers: &mut timers });
            assert!(!s.in_open_state());
            assert_eq!(s.timers.rto.deadline().expect("armed") > first, rearmed, "{timer:?}");
        }
    }

    #[test]
    fn the_flight_exit_rule_caps_cwnd_by_what_is_in_flight() {
        for (exit, expect_two_segments) in [(NewRenoExit::Ssthresh, false), (NewRenoExit::Flight, true)] {
            let (mut s, _, _) = newreno_in_recovery(TcpConfig { newreno_exit: exit, ..TcpConfig::default() });
            let mss = s.ccs.mss;
            assert!(s.ccs.ssthresh > 2 * mss, "{}", s.ccs.ssthresh);
            // Nothing left in flight: option (1) gives SMSS + SMSS.
            s.board = Scoreboard::default();
            s.reno_dup_bytes = 0;
            s.ccs.cwnd = s.ccs.ssthresh;
            let cwnd = s.newreno_exit_cwnd();
            assert_eq!(cwnd == 2 * mss, expect_two_segments, "{exit:?}: {cwnd}");
            assert_eq!(cwnd == s.ccs.ssthresh, !expect_two_segments, "{exit:?}: {cwnd}");
        }
    }

    #[test]
    fn a_timeout_in_the_open_state_halves_pipe() {
        let (mut s, mut out, mut timers) = sender_with_window_out();
        let mss = s.ccs.mss;
        expire_rto(&mut s, &mut out, &mut timers);
        assert!(s.in_loss_recovery());
        assert_eq!((s.ccs.cwnd, s.ccs.ssthresh), (mss, 5 * mss));
    }

    /// Three ACKs at 50 ms that leave segment 0 unacknowledged and SACK segments 1, then 1–2, then 1–3.
    fn sack_segments_1_to_3(s: &mut TcpSender, out: &mut Vec<Packet>, timers: &mut Vec<(TimerKind, Time)>) {
        let mss = s.ccs.mss;
        for k in 2..=4 {
            let mut a = Packet::new(0, 1, 0, Kind::Ack, 52);
            a.rwnd = 1 << 20;
            a.sack[0] = (mss, k * mss);
            a.n_sack = 1;
            s.on_packet(&a, &mut Io { now: Time::from_millis(50), out, timers });
        }
    }

    #[test]
    fn limited_transmit_stays_out_of_the_flight_that_sets_ssthresh() {
        let (mut s, mut out, mut timers) = sender_with_window_out();
        let mss = s.ccs.mss;
        // Segment 0 is lost; the SACKs for segments 1 and 2 each let one new segment out (RFC 3042).
        sack_segments_1_to_3(&mut s, &mut out, &mut timers);
        assert!(!s.in_open_state());
        assert_eq!(s.board.outstanding(), 12 * mss);
        // RFC 5681 §3.2 step 2: FlightSize is the 10 segments out before the loss showed, not 12.
        assert_eq!(s.ccs.ssthresh, 5 * mss);
    }

    #[test]
    fn ssthresh_from_cwnd_ignores_the_data_outstanding_above_the_window() {
        for (from, segments) in [(SsthreshFrom::FlightSize, 5), (SsthreshFrom::Cwnd, 3)] {
            let (mut s, mut out, mut timers) = sender_with_window_out();
            s.cfg.ssthresh_from = from;
            let mss = s.ccs.mss;
            // Ten segments out and a window of six, as after an earlier reduction: FlightSize exceeds cwnd.
            s.ccs.cwnd = 6 * mss;
            sack_segments_1_to_3(&mut s, &mut out, &mut timers);
            assert!(!s.in_open_state());
            assert_eq!(s.ccs.ssthresh, segments * mss, "{from:?}");
        }
    }

    #[test]
    fn one_ssthresh_reduction_per_window_across_timeouts() {
        let (mut s, mut out, mut timers) = sender_with_window_out();
        let mss = s.ccs.mss;
        // Segment 0 is lost; SACKs for segments 1, 2, 3 start fast recovery.
        sack_segments_1_to_3(&mut s, &mut out, &mut timers);
        assert!(!s.in_open_state() && !s.in_loss_recovery());
        let ssthresh = s.ccs.ssthresh;
        assert!(ssthresh >= 5 * mss, "{ssthresh}");
        // The retransmission is lost too. The timeout during fast recovery
        // keeps the window's ssthresh (Linux tcp_enter_loss), although pipe
        // is down to the segments sent since recovery began.
        expire_rto(&mut s, &mut out, &mut timers);
        assert!(s.in_loss_recovery());
        assert_eq!((s.ccs.cwnd, s.ccs.ssthresh), (mss, ssthresh));
        // Lost once more: the backed-off timeout keeps it too (RFC 5681 §3.1:
        // the head has been resent by the retransmission timer).
        expire_rto(&mut s, &mut out, &mut timers);
        assert_eq!((s.ccs.cwnd, s.ccs.ssthresh), (mss, ssthresh));
    }
}
