//! The TCP receiver: reassembly, cumulative and selective ACKs, delayed ACKs.
//!
//! The application reads in-order data as soon as it arrives, so the
//! advertised window is the buffer minus the out-of-order bytes held.

use crate::engine::timer::{Fire, Timer};
use crate::net::packet::{InrppOption, Kind, Note, Packet, RcpHeader, SackBlock, MAX_SACK_BLOCKS};
use crate::net::NodeId;
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
    delack_timer: Timer,
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
            self.insert_ooo(start, end);
            // Out of order: an immediate duplicate ACK carrying SACK blocks (RFC 5681 §4.2).
            self.send_ack(io);
        } else {
            // Entirely old: a spurious retransmission; ACK at once.
            self.send_ack(io);
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
