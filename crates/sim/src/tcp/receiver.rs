//! The TCP receiver: reassembly, cumulative and selective ACKs, delayed ACKs,
//! and optionally Linux's SACK compression (`sack_compression.rs`).
//!
//! The application reads in-order data as soon as it arrives, so the
//! advertised window is the buffer minus the out-of-order bytes held.

use crate::engine::timer::{Fire, Timer};
use crate::net::packet::{InrppOption, Kind, Note, Packet, RcpHeader, SackBlock, MAX_SACK_BLOCKS};
use crate::net::NodeId;
use crate::tcp::sack_compression::{SackCompression, Verdict};
use crate::tcp::{Io, TcpConfig, TimerKind};
use crate::time::Time;

pub struct TcpReceiver {
    flow: u32,
    /// This endpoint (the flow's destination) and its peer.
    local: NodeId,
    peer: NodeId,
    header_bytes: u32,
    cfg: TcpConfig,
    /// Bytes the application expects in all (None: bulk).
    size: Option<u64>,
    rcv_nxt: u64,
    /// Out-of-order data held: disjoint, sorted [start, end) ranges above rcv_nxt.
    ooo: Vec<SackBlock>,
    ooo_bytes: u64,
    /// SACK blocks most recent first (RFC 2018 §4).
    recent: Vec<SackBlock>,
    /// RFC 7323 TS.Recent: the timestamp to echo.
    ts_recent: Time,
    /// The cumulative ACK last sent (RFC 7323 Last.ACK.sent).
    last_ack_sent: u64,
    unacked_segments: u32,
    /// The one ACK timer: a delayed ACK's, or compressed SACKs' (as Linux's
    /// delayed-ACK handler sends those too).
    delack_timer: Timer,
    /// Linux's SACK compression (`sack_compression = true`, with SACK).
    compression: Option<SackCompression>,
    /// RCP flows: the header of the latest data segment, echoed in every ACK.
    rcp_echo: Option<RcpHeader>,
    /// INRPP flows: every ACK carries an empty INRPP option, for routers to
    /// piggyback their notifications on (Reñé et al., §II-A.3).
    inrpp: bool,
    /// A misbehaving receiver (INRPP §V-C): forged slow-downs per ACK, and
    /// the bogus nonces used so far.
    forged_slow_downs: u32,
    forged: u32,
    /// The MSS option its SYN-ACK announces (0: none; `Packet::mss`).
    announced_mss: u16,
    /// When the last byte reached the application.
    pub finished_at: Option<Time>,
    pub packets_sent: u64,
}

impl TcpReceiver {
    pub fn new(flow: u32, local: NodeId, peer: NodeId, size: Option<u64>, header_bytes: u32, cfg: TcpConfig) -> TcpReceiver {
        let compression = (cfg.sack && cfg.sack_compression).then(SackCompression::default);
        TcpReceiver {
            flow,
            local,
            peer,
            header_bytes,
            cfg,
            size,
            rcv_nxt: 0,
            ooo: Vec::new(),
            ooo_bytes: 0,
            recent: Vec::new(),
            ts_recent: Time::ZERO,
            last_ack_sent: 0,
            unacked_segments: 0,
            delack_timer: Timer::default(),
            compression,
            rcp_echo: None,
            inrpp: false,
            forged_slow_downs: 0,
            forged: 0,
            announced_mss: 0,
            finished_at: None,
            packets_sent: 0,
        }
    }

    /// Makes the receiver misbehave: every ACK carries `n` forged slow-down
    /// notifications with fresh bogus nonces (INRPP §V-C's nonce flood).
    pub fn forge_slow_downs(&mut self, n: u32) {
        self.forged_slow_downs = n;
    }

    /// The MSS option to announce (TCP_MAXSEG before the handshake, RFC 9293
    /// §3.7.1): the peer's segments then carry at most that less its options.
    pub fn announce_mss(&mut self, mss: u16) {
        self.announced_mss = mss;
    }

    /// In-order bytes delivered to the application.
    pub fn delivered(&self) -> u64 {
        self.rcv_nxt
    }

    /// A new receive buffer: the window advertised from the next ACK on.
    pub fn set_buffer(&mut self, bytes: u64) {
        self.cfg.rcv_buffer = bytes;
    }

    fn rwnd(&self) -> u64 {
        self.cfg.rcv_buffer.saturating_sub(self.ooo_bytes)
    }

    pub fn on_packet(&mut self, p: &Packet, io: &mut Io) {
        match p.kind {
            Kind::Syn => {
                let mut a = Packet::new(self.flow, self.local, self.peer, Kind::SynAck, self.header_bytes);
                a.ts_val = io.now;
                a.ts_ecr = p.ts_val;
                a.rwnd = self.rwnd();
                a.mss = self.announced_mss;
                a.rcp = p.rcp;
                if let Some(c) = self.compression.as_mut() {
                    c.syn_ack_sent(io.now);
                }
                self.packets_sent += 1;
                io.out.push(a);
            }
            Kind::Data => self.on_data(p, io),
            _ => {}
        }
    }

    fn on_data(&mut self, p: &Packet, io: &mut Io) {
        self.rcp_echo = p.rcp;
        self.inrpp |= p.inrpp.is_some();
        if let Some(c) = self.compression.as_mut() {
            c.segment_arrived(io.now, p.len);
        }
        let (start, end) = (p.seq, p.seq + p.len as u64);
        if end > self.rcv_nxt + self.cfg.rcv_buffer {
            // Beyond the window we could ever have advertised: discard, but say where we are.
            self.send_ack(io);
            return;
        }
        if start <= self.rcv_nxt && end > self.rcv_nxt {
            // RFC 7323 §4.3: echo the segment at the left edge of the last ACK,
            // so a delayed ACK echoes the earliest segment it acknowledges.
            if start <= self.last_ack_sent {
                self.ts_recent = p.ts_val;
            }
            let had_holes = !self.ooo.is_empty();
            self.rcv_nxt = end;
            self.absorb_ooo();
            if let Some(size) = self.size {
                if self.rcv_nxt >= size && self.finished_at.is_none() {
                    self.finished_at = Some(io.now);
                }
            }
            // RFC 5681 §4.2: ACK at once when a segment fills (part of) a hole.
            // Linux does so when it fills the last hole or the ACK would
            // cover more than one segment, and else counts it as the first
            // duplicate for the new rcv_nxt (`__tcp_ack_snd_check`).
            let advance = self.rcv_nxt - self.last_ack_sent;
            if had_holes && !self.ooo.is_empty() && self.compression.as_ref().is_some_and(|c| c.within_one_segment(advance)) {
                self.ack_out_of_order(io);
                return;
            }
            if had_holes || !self.cfg.delayed_ack {
                self.send_ack(io);
                return;
            }
            self.unacked_segments += 1;
            if self.unacked_segments >= self.cfg.delayed_ack_segments {
                self.send_ack(io);
            } else if let Some(at) = self.delack_timer.arm(io.now + self.cfg.delayed_ack_timeout) {
                io.timers.push((TimerKind::DelayedAck, at));
            }
        } else if start > self.rcv_nxt {
            if self.compression.as_ref().is_some_and(|c| c.flush_before(&self.recent, start, end)) {
                self.send_ack(io);
            }
            self.insert_ooo(start, end);
            self.ack_out_of_order(io);
        } else {
            // Entirely old: a spurious retransmission; ACK at once.
            self.send_ack(io);
        }
    }

    /// Out of order: an immediate duplicate ACK carrying SACK blocks (RFC 5681
    /// §4.2), unless SACK compression withholds it.
    fn ack_out_of_order(&mut self, io: &mut Io) {
        let armed = self.delack_timer.is_armed();
        match self.compression.as_mut().map(|c| c.on_out_of_order(self.rcv_nxt, armed)) {
            None | Some(Verdict::Now) => self.send_ack(io),
            Some(Verdict::Hold(None)) => {}
            Some(Verdict::Hold(Some(delay))) => {
                if let Some(at) = self.delack_timer.arm(io.now + delay) {
                    io.timers.push((TimerKind::DelayedAck, at));
                }
            }
        }
    }

    fn insert_ooo(&mut self, start: u64, end: u64) {
        // Merge [start, end) into the sorted disjoint list.
        let mut s = start;
        let mut e = end;
        let first = self.ooo.partition_point(|b| b.1 < s);
        let mut last = first;
        while last < self.ooo.len() && self.ooo[last].0 <= e {
            s = s.min(self.ooo[last].0);
            e = e.max(self.ooo[last].1);
            last += 1;
        }
        let removed: u64 = self.ooo[first..last].iter().map(|b| b.1 - b.0).sum();
        self.ooo.splice(first..last, [(s, e)]);
        self.ooo_bytes = self.ooo_bytes - removed + (e - s);
        // The block containing the newest segment goes first; drop stale copies.
        self.recent.retain(|b| b.1 < s || b.0 > e);
        self.recent.insert(0, (s, e));
        self.recent.truncate(MAX_SACK_BLOCKS);
    }

    fn absorb_ooo(&mut self) {
        while let Some(&(s, e)) = self.ooo.first() {
            if s > self.rcv_nxt {
                break;
            }
            self.rcv_nxt = self.rcv_nxt.max(e);
            self.ooo_bytes -= e - s;
            self.ooo.remove(0);
        }
        let rcv_nxt = self.rcv_nxt;
        self.recent.retain(|b| b.0 > rcv_nxt);
    }

    fn send_ack(&mut self, io: &mut Io) {
        self.unacked_segments = 0;
        self.delack_timer.cancel();
        if let Some(c) = self.compression.as_mut() {
            c.ack_sent();
        }
        let n = if self.cfg.sack { self.recent.len() } else { 0 };
        // SACK option: kind, length and two NOPs of padding, then 8 bytes a block (RFC 2018 §3).
        let sack_bytes = if n > 0 { 4 + 8 * n as u32 } else { 0 };
        let mut a = Packet::new(self.flow, self.local, self.peer, Kind::Ack, self.header_bytes + sack_bytes);
        a.ack = self.rcv_nxt;
        self.last_ack_sent = self.rcv_nxt;
        a.rwnd = self.rwnd();
        a.rcp = self.rcp_echo;
        a.inrpp = self.inrpp.then(Box::<InrppOption>::default);
        if self.forged_slow_downs > 0 {
            let opt = a.inrpp.get_or_insert_with(Box::<InrppOption>::default);
            for _ in 0..self.forged_slow_downs {
                self.forged = self.forged.wrapping_add(1);
                opt.set(0xbad0_0000 | (self.forged & 0xffff), Note::SlowDown);
            }
        }
        a.ts_val = io.now;
        a.ts_ecr = self.ts_recent;
        a.sack[..n].copy_from_slice(&self.recent[..n]);
        a.n_sack = n as u8;
        self.packets_sent += 1;
        io.out.push(a);
    }

    pub fn on_timer(&mut self, kind: TimerKind, io: &mut Io) {
        debug_assert_eq!(kind, TimerKind::DelayedAck);
        match self.delack_timer.fire(io.now) {
            Fire::Ignore => {}
            Fire::Reschedule(at) => io.timers.push((TimerKind::DelayedAck, at)),
            Fire::Run => self.send_ack(io),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Segment 1 of 21 is lost; the others arrive 100 µs apart from 15 ms on,
    /// after a handshake whose RTT is 10 ms. Returns when each ACK left.
    fn acks_with_a_hole(sack_compression: bool) -> Vec<Time> {
        let cfg = TcpConfig { sack_compression, ..TcpConfig::default() };
        let mss = cfg.mss;
        let mut r = TcpReceiver::new(0, 1, 0, None, 52, cfg);
        let (mut out, mut timers) = (Vec::new(), Vec::new());
        r.on_packet(&Packet::new(0, 0, 1, Kind::Syn, 52), &mut Io { now: Time::from_millis(5), out: &mut out, timers: &mut timers });
        out.clear();
        let mut sent = Vec::new();
        for i in (0..=20u64).filter(|&i| i != 1) {
            let now = Time::from_millis(15) + Time::from_micros(100 * i);
            // Timers due before this arrival run first.
            timers.sort_by_key(|t| t.1);
            while let Some(&(kind, at)) = timers.first().filter(|t| t.1 <= now) {
                timers.remove(0);
                r.on_timer(kind, &mut Io { now: at, out: &mut out, timers: &mut timers });
                sent.extend(out.drain(..).map(|_| at));
            }
            let mut p = Packet::new(0, 0, 1, Kind::Data, 52 + mss);
            p.seq = i * mss as u64;
            p.len = mss;
            r.on_packet(&p, &mut Io { now, out: &mut out, timers: &mut timers });
            sent.extend(out.drain(..).map(|_| now));
        }
        sent
    }

    #[test]
    fn sack_compression_withholds_duplicates_beyond_three_for_five_percent_of_the_rtt() {
        assert_eq!(acks_with_a_hole(false).len(), 20, "RFC 5681: one ACK per segment");
        let ms = |us: u64| Time::from_millis(15) + Time::from_micros(us);
        // Segment 0; three duplicates at once (segments 2-4); then one ACK when the 500 µs timer that the
        // first segment held arms fires (segments 5, 10 and 15 arm it; segment 20's is still pending).
        let with = acks_with_a_hole(true);
        assert_eq!(with, vec![ms(0), ms(200), ms(300), ms(400), ms(1000), ms(1500), ms(2000)]);
    }
}
