//! The INRPP sender (Reñé et al., §III-C): a rate-based TCP with no
//! congestion window.
//!
//! - **Open loop** (the initial mode): segments leave paced at the rate of
//!   the sender's interface ("processor sharing ... at the rate available
//!   through its outgoing interface"), limited only by the receiver's window;
//!   the INRPP flows of one host interface take turns on it, one packet
//!   each (`share`).
//! - **Closed loop**: an ACK carrying a slow-down notification (which only
//!   reaches the sender when every interface up to the first router is in
//!   Backpressure, §II-B) makes the sender send one data packet per ACK it
//!   receives (still in turn with the host's other flows). A cancel
//!   notification puts it back in open loop, and so does ACK silence
//!   (§III-C: "no ACK arrivals for an entire TCP retransmission timeout
//!   (RTO) period"): when the retransmission timer fires and no ACK at all
//!   (duplicates and the SYN-ACK count) has arrived for the whole RTO that
//!   expired. A timer that fires while ACKs still arrive (duplicates
//!   acknowledging nothing new) leaves the loop closed, and lets just the
//!   resent segment go.
//! - **Nonces**: every nonce an ACK carries is stored and echoed in all
//!   later data packets, so that the routers holding it cache this flow's
//!   data in closed loop (§II-A.3); a cancel forgets its nonce.
//! - **Recovery**: fast recovery is disabled (reordering by detours costs
//!   nothing); the RFC 6298 timer is kept, and on expiry the first
//!   unacknowledged segment is resent (§5.4) with the holes that SACK blocks
//!   show lost (RFC 6675 IsLost), not everything outstanding: with routers
//!   that cache rather than drop, most of that is usually still on its way
//!   (§III-C: timeouts are for "packet corruption"). Which it is, F-RTO
//!   tells (RFC 5682 §3, the SACK-enhanced version Linux runs): an ACK that
//!   acknowledges an original transmission makes the timeout spurious and
//!   nothing more is resent; if the first ACK after the timeout
//!   acknowledges only the retransmission and there is no new data to send,
//!   or a later one is a duplicate or SACKs only new data, the loss is real
//!   and every unSACKed segment is resent (go-back-N, RFC 6675 §5.1), as
//!   the sending rules allow. The receiver is TCP's, which holds
//!   out-of-order data and reports it in SACK blocks.

use std::rc::Rc;

use super::share::InterfaceShare;
use crate::net::packet::{InrppOption, Kind, Note, Packet};
use crate::net::NodeId;
use crate::tcp::rate_sample::TxStamp;
use crate::tcp::rtt::RttEstimator;
use crate::tcp::scoreboard::Scoreboard;
use crate::tcp::sender::SenderStats;
use crate::tcp::sender_timers::{self, Due, Expiry, SenderTimers};
use crate::tcp::{Io, TcpConfig, TimerKind};
use crate::time::Time;

/// SACKed segments above a hole that make it lost (RFC 6675's DupThresh).
const DUPTHRESH: u32 = 3;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Idle,
    SynSent,
    Established,
}

pub struct InrppSender {
    flow: u32,
    src: NodeId,
    dst: NodeId,
    header_bytes: u32,
    mss: u64,
    handshake: bool,
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
    /// The sender's interface, shared with the host's other INRPP senders.
    interface: Rc<InterfaceShare>,
    /// The interface's slot booked for the next packet.
    slot: Option<Time>,
    /// Closed loop: one data packet per ACK.
    closed_loop: bool,
    /// ACKs received in closed loop and not yet answered with a data packet.
    credits: u64,
    /// Nonces learnt from ACKs, echoed on every data packet.
    nonces: InrppOption,
    timers: SenderTimers,
    pub stats: SenderStats,
    /// Times the sender went from open to closed loop.
    pub slow_downs: u64,
    /// When the last ACK arrived (any ACK: duplicates and the SYN-ACK too).
    last_ack: Time,
    /// F-RTO under way after a timeout (RFC 5682 §3.1): SND.NXT when the
    /// timer fired ("recover"/`high_seq`).
    frto: Option<u64>,
    /// A timeout after ACK silence puts the sender back in open loop
    /// (§III-C: no ACK for the whole RTO that expired; a timeout while ACKs
    /// still arrive leaves it closed and lets just the first resent segment
    /// go). False (the flow option `inrpp = { timeout_open_loop = false }`):
    /// a closed-loop sender stays closed on every timeout, silent or not.
    pub timeout_open_loop: bool,
}

impl InrppSender {
    pub fn new(
        flow: u32,
        src: NodeId,
        dst: NodeId,
        size: Option<u64>,
        header_bytes: u32,
        cfg: &TcpConfig,
        interface: Rc<InterfaceShare>,
    ) -> InrppSender {
        InrppSender {
            flow,
            src,
            dst,
            header_bytes,
            mss: cfg.mss as u64,
            handshake: cfg.handshake,
            state: State::Idle,
            app_limit: size.unwrap_or(u64::MAX),
            snd_una: 0,
            snd_nxt: 0,
            rwnd: cfg.rcv_buffer,
            board: Scoreboard::default(),
            rtt: RttEstimator::from_config(cfg),
            interface,
            slot: None,
            closed_loop: false,
            credits: 0,
            nonces: InrppOption::default(),
            timers: SenderTimers::default(),
            stats: SenderStats::default(),
            slow_downs: 0,
            last_ack: Time::ZERO,
            frto: None,
            timeout_open_loop: true,
        }
    }

    /// The open-loop rate, its interface's (which the host's INRPP flows
    /// take turns on), in payload bytes per second, as
    /// `CcState::pacing_rate` counts.
    pub fn payload_rate(&self) -> Option<f64> {
        let payload_share = self.mss as f64 / (self.mss + self.header_bytes as u64) as f64;
        Some(self.interface.rate_bps() / 8.0 * payload_share)
    }

    /// Bytes believed in the network (RFC 6675 pipe).
    pub fn in_flight(&self) -> u64 {
        self.board.pipe()
    }

    pub fn closed_loop(&self) -> bool {
        self.closed_loop
    }

    pub fn start(&mut self, io: &mut Io) {
        if self.handshake {
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
        let mut syn = Packet::new(self.flow, self.src, self.dst, Kind::Syn, self.header_bytes);
        // The INRPP option already on the SYN marks the flow's first packet
        // as INRPP's, so a router caches it like the data when it overflows
        // the queue (§III-D) instead of dropping it (§III-C: INRPP routers
        // have no congestion-related drops).
        syn.inrpp = Some(Box::new(self.nonces));
        self.timers.send_syn(syn, &self.rtt, &mut self.stats, io);
    }

    pub fn on_packet(&mut self, p: &Packet, io: &mut Io) {
        match (self.state, p.kind) {
            (State::SynSent, Kind::SynAck) => {
                self.last_ack = io.now;
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

    /// The notifications an ACK carries (§III-C).
    fn on_notifications(&mut self, opt: &InrppOption) {
        for &(nonce, note) in opt.entries() {
            match note {
                Note::SlowDown | Note::Nonce => {
                    // A full option keeps the nonces it has (see `MAX_NONCES`).
                    self.nonces.set(nonce, Note::Nonce);
                }
                Note::Cancel => self.nonces.remove(nonce),
            }
        }
        if opt.has(Note::SlowDown) {
            if !self.closed_loop {
                self.slow_downs += 1;
            }
            self.closed_loop = true;
        } else if opt.has(Note::Cancel) {
            self.closed_loop = false;
            self.credits = 0;
        }
    }

    fn on_ack(&mut self, p: &Packet, io: &mut Io) {
        // Any ACK breaks the silence that reopens the loop (§III-C).
        self.last_ack = io.now;
        if p.ack > self.snd_nxt || p.ack < self.snd_una {
            return;
        }
        if let Some(opt) = &p.inrpp {
            self.on_notifications(opt);
        }
        if self.closed_loop {
            // Closed loop: this ACK lets one data packet leave.
            self.credits += 1;
        }
        self.rwnd = p.rwnd;
        let newly_acked = p.ack - self.snd_una;
        if newly_acked > 0 && p.ts_ecr > Time::ZERO {
            // RFC 7323 §4: time the ACKs that advance the cumulative ACK.
            self.rtt.sample(io.now.saturating_sub(p.ts_ecr));
        }
        let original = self.frto.is_some_and(|high| self.board.acks_an_original(p.ack, p.sack_blocks(), high));
        let mut newly_sacked = 0;
        for &(s, e) in p.sack_blocks() {
            newly_sacked += self.board.sack(s.max(p.ack), e, |_, _, _| {});
        }
        self.board.ack(p.ack, |_, _| {});
        self.snd_una = p.ack;
        if let Some(high) = self.frto {
            self.frto_on_ack(high, original, newly_acked, newly_sacked);
        }
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
        let expired = match sender_timers::expire(&mut self.rtt, &mut self.stats, self.state == State::SynSent, !self.board.is_empty()) {
            Expiry::ResendSyn => return self.send_syn(io),
            Expiry::Nothing => return,
            Expiry::Recover { expired } => expired,
        };
        // §III-C: no ACK for the whole RTO that expired puts the flow back
        // in open loop; a timeout while ACKs still arrive keeps it closed.
        let silent = io.now.saturating_sub(self.last_ack) >= expired;
        if !self.closed_loop || (self.timeout_open_loop && silent) {
            self.closed_loop = false;
            self.credits = 0;
        } else {
            self.credits = 1;
        }
        // The first unacknowledged segment is resent (RFC 6298 §5.4), and the
        // holes SACKs show lost (RFC 6675 IsLost); what lies above may be
        // waiting in a router's cache: the ACKs that follow tell (F-RTO,
        // RFC 5682 §3.1 step 1; on recurring timeouts too, §3.2, as Linux).
        self.board.mark_timeout_lost(DUPTHRESH);
        self.frto = Some(self.snd_nxt);
        self.send_what_we_can(io);
        self.timers.arm_rto(&self.rtt, io);
    }

    /// F-RTO's steps 2 and 3 (RFC 5682 §3.1) on an ACK after a timeout;
    /// `high` was SND.NXT when it fired, `original`: the ACK acknowledges a
    /// segment never retransmitted.
    fn frto_on_ack(&mut self, high: u64, original: bool, newly_acked: u64, newly_sacked: u64) {
        if original || self.snd_una >= high {
            // Step 3b: an original arrived, so the timeout was spurious (the
            // rest is on its way); or all sent before it is acknowledged.
            self.frto = None;
        } else if self.snd_nxt > high {
            // Step 3a: new data went out after the timeout (step 2b), and a
            // duplicate ACK, or one that SACKs only that new data, shows the
            // data sent before the timeout lost.
            if newly_acked == 0 || newly_sacked > 0 {
                self.go_back_n();
            }
        } else if newly_acked > 0 && self.next_new_len().is_none() {
            // Step 2b: the retransmission is acknowledged, no original is,
            // and there is no new data to probe with: recover conventionally.
            self.go_back_n();
        }
    }

    /// Conventional RTO recovery: every unSACKed segment is lost and resent
    /// (RFC 6675 §5.1; Linux `tcp_enter_loss`), as the sending rules allow.
    fn go_back_n(&mut self) {
        self.board.mark_all_lost();
        self.frto = None;
    }

    /// The length of the next new segment, if there is unsent data and the
    /// receiver's window would take it now.
    fn next_new_len(&self) -> Option<u64> {
        let len = (self.app_limit - self.snd_nxt).min(self.mss);
        (len > 0 && self.snd_nxt + len <= self.snd_una + self.rwnd.max(self.mss)).then_some(len)
    }

    /// Sends lost segments first, then new data, each in the interface slot
    /// it booked once the one before had left (§III-C's processor sharing);
    /// in closed loop only as many as ACKs have allowed.
    fn send_what_we_can(&mut self, io: &mut Io) {
        if self.state != State::Established {
            return;
        }
        loop {
            if self.closed_loop && self.credits == 0 {
                self.slot = None;
                return;
            }
            let (seq, len, retransmission) = match self.board.next_retransmission() {
                Some((seq, len)) => (seq, len as u64, true),
                None => match self.next_new_len() {
                    Some(len) => (self.snd_nxt, len, false),
                    None => {
                        self.slot = None;
                        return;
                    }
                },
            };
            let bits = (len + self.header_bytes as u64) as f64 * 8.0;
            let due = *self.slot.get_or_insert_with(|| self.interface.book(io.now, bits));
            if io.now < due {
                if let Some(at) = self.timers.pacing.arm(due) {
                    io.timers.push((TimerKind::Pacing, at));
                }
                return;
            }
            self.slot = None;
            if self.closed_loop {
                self.credits -= 1;
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
        p.inrpp = Some(Box::new(self.nonces));
        self.stats.segments_sent += 1;
        self.stats.packets_sent += 1;
        io.out.push(p);
        if !self.timers.rto.is_armed() {
            self.timers.arm_rto(&self.rtt, io);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sender() -> (InrppSender, Vec<Packet>, Vec<(TimerKind, Time)>) {
        let cfg = TcpConfig { handshake: false, ..TcpConfig::default() };
        (InrppSender::new(0, 0, 1, Some(100 * 1448), 52, &cfg, InterfaceShare::new(12e6)), Vec::new(), Vec::new())
    }

    fn ack(ack: u64, notes: &[(u32, Note)]) -> Packet {
        let mut a = Packet::new(0, 1, 0, Kind::Ack, 52);
        a.ack = ack;
        a.rwnd = 1 << 24;
        let mut opt = InrppOption::default();
        for &(n, note) in notes {
            opt.set(n, note);
        }
        a.inrpp = Some(Box::new(opt));
        a
    }

    /// Runs the sender's timer events due by `until`, in time order.
    fn advance(s: &mut InrppSender, out: &mut Vec<Packet>, timers: &mut Vec<(TimerKind, Time)>, until: Time) {
        while let Some(k) = (0..timers.len()).filter(|&k| timers[k].1 <= until).min_by_key(|&k| timers[k].1) {
            let (kind, at) = timers.remove(k);
            s.on_timer(kind, &mut Io { now: at, out, timers });
        }
    }

    #[test]
    fn open_loop_paces_at_the_interface_rate_and_slow_down_closes_the_loop() {
        let (mut s, mut out, mut timers) = sender();
        s.start(&mut Io { now: Time::ZERO, out: &mut out, timers: &mut timers });
        // 1500 wire bytes at 12 Mb/s: one packet per millisecond.
        assert_eq!(out.len(), 1);
        advance(&mut s, &mut out, &mut timers, Time::from_micros(4500));
        assert_eq!(out.len(), 5);
        // A slow-down: from now on one packet per ACK, whatever the pacing allows.
        let now = Time::from_micros(4600);
        s.on_packet(&ack(1448, &[(7, Note::SlowDown)]), &mut Io { now, out: &mut out, timers: &mut timers });
        assert!(s.closed_loop());
        advance(&mut s, &mut out, &mut timers, Time::from_millis(20));
        assert_eq!(out.len(), 6, "one ACK, one packet");
        // The nonce is echoed in the data that follows.
        assert_eq!(out[5].inrpp.as_ref().unwrap().entries(), &[(7, Note::Nonce)]);
        // A cancel reopens the loop: packets flow again at the interface rate.
        s.on_packet(&ack(2 * 1448, &[(7, Note::Cancel)]), &mut Io { now: Time::from_millis(30), out: &mut out, timers: &mut timers });
        assert!(!s.closed_loop());
        assert_eq!(out.len(), 7);
        assert!(out[6].inrpp.as_ref().unwrap().entries().is_empty());
        advance(&mut s, &mut out, &mut timers, Time::from_micros(32500));
        assert_eq!(out.len(), 9);
    }

    /// §III-C's processor sharing: two open-loop flows of one 12 Mb/s
    /// interface take turns, one 1500-byte packet each, so each sends one
    /// every 2 ms and the two together one a millisecond; once the first
    /// has sent its 5 packets, the second has the interface to itself; in
    /// closed loop it books a slot for each packet an ACK allows.
    #[test]
    fn the_flows_of_one_interface_take_turns_on_it() {
        let cfg = TcpConfig { handshake: false, ..TcpConfig::default() };
        let iface = InterfaceShare::new(12e6);
        let mut a = InrppSender::new(0, 0, 1, Some(5 * 1448), 52, &cfg, iface.clone());
        let mut b = InrppSender::new(1, 0, 2, Some(100 * 1448), 52, &cfg, iface.clone());
        let (mut out_a, mut out_b, mut ta, mut tb) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        a.start(&mut Io { now: Time::ZERO, out: &mut out_a, timers: &mut ta });
        b.start(&mut Io { now: Time::ZERO, out: &mut out_b, timers: &mut tb });
        // a leaves at 0 and books 1 ms; b books 2 ms, then a 3 ms, and so on.
        assert_eq!((out_a.len(), out_b.len()), (1, 0));
        let (mut t, mut departures) = (Time::ZERO, Vec::new());
        while t < Time::from_micros(12500) {
            t += Time::from_micros(250);
            let (na, nb) = (out_a.len(), out_b.len());
            advance(&mut a, &mut out_a, &mut ta, t);
            advance(&mut b, &mut out_b, &mut tb, t);
            departures.extend((na..out_a.len()).map(|_| ('a', t)).chain((nb..out_b.len()).map(|_| ('b', t))));
        }
        let at = |c: char| departures.iter().filter(|d| d.0 == c).map(|d| d.1.nanos() / 1000).collect::<Vec<_>>();
        assert_eq!(at('a'), [1000, 3000, 5000, 7000]);
        assert_eq!(at('b'), [2000, 4000, 6000, 8000, 9000, 10000, 11000, 12000]);
        // Closed loop: one ACK, one packet, in the next free slot.
        b.on_packet(&ack(1448, &[(7, Note::SlowDown)]), &mut Io { now: Time::from_micros(12600), out: &mut out_b, timers: &mut tb });
        assert!(b.closed_loop());
        advance(&mut b, &mut out_b, &mut tb, Time::from_millis(20));
        assert_eq!(out_b.len(), 9);
        assert_eq!(iface.book(Time::from_millis(20), 12_000.0), Time::from_millis(20), "nothing booked ahead");
    }

    /// The timer armed at 0 fires at 1 s, a whole RTO after the last ACK.
    #[test]
    fn a_timeout_reopens_the_loop_and_resends_what_was_not_acknowledged() {
        let (mut s, mut out, mut timers) = sender();
        s.start(&mut Io { now: Time::ZERO, out: &mut out, timers: &mut timers });
        s.on_packet(&ack(0, &[(3, Note::SlowDown)]), &mut Io { now: Time::ZERO, out: &mut out, timers: &mut timers });
        assert!(s.closed_loop());
        advance(&mut s, &mut out, &mut timers, Time::from_millis(999));
        let sent = out.len();
        advance(&mut s, &mut out, &mut timers, Time::from_secs(1));
        assert!(!s.closed_loop());
        assert_eq!(s.stats.timeouts, 1);
        assert!(out[sent..].iter().all(|p| p.retransmission), "the first packet after a timeout is a retransmission");
        assert_eq!(out[sent].seq, 0);
    }

    /// §III-C reopens the loop on ACK silence, "no ACK arrivals for an
    /// entire TCP retransmission timeout (RTO) period". Two closed-loop
    /// senders whose timer (1 s, re-armed by the slow-down ACK at 1 ms)
    /// fires at 1.001 s: the one that kept receiving duplicate ACKs stays
    /// closed and resends just the first unacknowledged segment; the one that
    /// received nothing for the RTO goes back to open loop.
    #[test]
    fn a_timeout_reopens_the_loop_only_after_an_rto_without_acks() {
        for duplicates in [true, false] {
            let (mut s, mut out, mut timers) = sender();
            s.start(&mut Io { now: Time::ZERO, out: &mut out, timers: &mut timers });
            s.on_packet(&ack(1448, &[(3, Note::SlowDown)]), &mut Io { now: Time::from_millis(1), out: &mut out, timers: &mut timers });
            assert!(s.closed_loop());
            if duplicates {
                for t in (101..=901).step_by(100) {
                    let now = Time::from_millis(t);
                    advance(&mut s, &mut out, &mut timers, now);
                    s.on_packet(&ack(1448, &[(3, Note::Nonce)]), &mut Io { now, out: &mut out, timers: &mut timers });
                }
            }
            advance(&mut s, &mut out, &mut timers, Time::from_millis(1000));
            assert_eq!(s.stats.timeouts, 0, "duplicates do not re-arm the timer");
            let sent = out.len();
            advance(&mut s, &mut out, &mut timers, Time::from_millis(1001));
            assert_eq!(s.stats.timeouts, 1);
            assert!(out[sent].retransmission && out[sent].seq == 1448);
            if duplicates {
                assert!(s.closed_loop(), "ACKs kept arriving: the loop stays closed");
                advance(&mut s, &mut out, &mut timers, Time::from_millis(1500));
                assert_eq!(out.len(), sent + 1, "one segment for the timeout");
            } else {
                assert!(!s.closed_loop(), "no ACK for the whole RTO: open loop");
                advance(&mut s, &mut out, &mut timers, Time::from_millis(1500));
                assert!(out.len() >= sent + 50, "open loop paces at the interface rate");
            }
        }
    }

    /// F-RTO (RFC 5682 §3.1) after a timeout that finds a flow's 100
    /// segments all sent and unacknowledged (12 Mb/s: one a millisecond;
    /// the timer armed at 0 fires at 1 s) and resends the first. If the
    /// first ACK after it acknowledges only that retransmission, the rest was
    /// lost too (a tail dropped by a full cache), there is no new data to
    /// probe with, and all 99 go again at once (step 2b, go-back-N); if it
    /// acknowledges originals, they were waiting in a cache and nothing more
    /// is resent (step 3b).
    #[test]
    fn after_a_timeout_f_rto_resends_a_lost_tail_and_nothing_that_was_only_late() {
        for tail_lost in [true, false] {
            let (mut s, mut out, mut timers) = sender();
            s.start(&mut Io { now: Time::ZERO, out: &mut out, timers: &mut timers });
            advance(&mut s, &mut out, &mut timers, Time::from_millis(999));
            assert_eq!(out.len(), 100);
            advance(&mut s, &mut out, &mut timers, Time::from_secs(1));
            assert_eq!(s.stats.timeouts, 1);
            assert!(out.len() == 101 && out[100].retransmission && out[100].seq == 0);
            let acked = if tail_lost { 1448 } else { 10 * 1448 };
            let now = Time::from_millis(1050);
            s.on_packet(&ack(acked, &[]), &mut Io { now, out: &mut out, timers: &mut timers });
            advance(&mut s, &mut out, &mut timers, Time::from_millis(1200));
            let resent: Vec<u64> = out[101..].iter().map(|p| p.seq / 1448).collect();
            if tail_lost {
                assert_eq!(resent, (1..100).collect::<Vec<_>>(), "go-back-N from the first unacknowledged segment");
                assert!(out[101..].iter().all(|p| p.retransmission));
            } else {
                assert!(resent.is_empty(), "the originals arrived: nothing is resent");
            }
        }
    }

    /// F-RTO step 3a: with new data to send, the first ACK after the
    /// timeout that acknowledges only the retransmission lets new data go
    /// (step 2b); the next, a duplicate that SACKs only that new data,
    /// shows what was sent before the timeout lost, and it is all resent
    /// before any more new data.
    #[test]
    fn f_rto_goes_back_when_only_data_sent_after_the_timeout_arrives() {
        let cfg = TcpConfig { handshake: false, ..TcpConfig::default() };
        let mut s = InrppSender::new(0, 0, 1, Some(2000 * 1448), 52, &cfg, InterfaceShare::new(12e6));
        let (mut out, mut timers) = (Vec::new(), Vec::new());
        s.start(&mut Io { now: Time::ZERO, out: &mut out, timers: &mut timers });
        advance(&mut s, &mut out, &mut timers, Time::from_secs(1));
        // SND.NXT when the timer fired, in segments (about a thousand).
        let high = s.frto.expect("F-RTO under way") / 1448;
        assert!((999..=1001).contains(&high));
        assert!(out.last().unwrap().retransmission && out.last().unwrap().seq == 0);
        s.on_packet(&ack(1448, &[]), &mut Io { now: Time::from_millis(1005), out: &mut out, timers: &mut timers });
        advance(&mut s, &mut out, &mut timers, Time::from_millis(1010));
        let after_ack = out.len();
        assert!(out[after_ack - 3..].iter().all(|p| !p.retransmission && p.seq >= high * 1448), "new data, not go-back-N");
        assert_eq!(s.frto, Some(high * 1448), "still undecided");
        let mut dup = ack(1448, &[]);
        dup.sack[0] = (high * 1448, (high + 2) * 1448);
        dup.n_sack = 1;
        s.on_packet(&dup, &mut Io { now: Time::from_millis(1010), out: &mut out, timers: &mut timers });
        advance(&mut s, &mut out, &mut timers, Time::from_millis(1100));
        let resent: Vec<u64> = out[after_ack..].iter().map(|p| p.seq / 1448).collect();
        assert_eq!(resent[..5], [1, 2, 3, 4, 5]);
        assert!(out[after_ack..].iter().all(|p| p.retransmission));
    }

    /// `timeout_open_loop = false`: a timeout leaves a closed-loop sender
    /// closed, and lets only the first unacknowledged segment go again.
    #[test]
    fn without_timeout_open_loop_a_timeout_keeps_the_loop_closed() {
        let (mut s, mut out, mut timers) = sender();
        s.timeout_open_loop = false;
        s.start(&mut Io { now: Time::ZERO, out: &mut out, timers: &mut timers });
        s.on_packet(&ack(0, &[(3, Note::SlowDown)]), &mut Io { now: Time::from_millis(1), out: &mut out, timers: &mut timers });
        assert!(s.closed_loop());
        let sent = out.len();
        s.on_timer(TimerKind::Retransmit, &mut Io { now: Time::from_secs(1), out: &mut out, timers: &mut timers });
        advance(&mut s, &mut out, &mut timers, Time::from_secs(2));
        assert!(s.closed_loop());
        assert_eq!(s.stats.timeouts, 1);
        assert_eq!(out.len(), sent + 1, "one segment for the timeout");
        assert!(out[sent].retransmission && out[sent].seq == 0);
    }
}
