//! The sender's record of outstanding segments: which are SACKed, which are
//! deemed lost, which have been retransmitted (RFC 6675 §3–4).
//!
//! Counters are kept incrementally so that "pipe" is O(1) per ACK, following
//! Linux's accounting: in_flight = outstanding − sacked − lost + retransmitted
//! (`tcp_packets_in_flight`), in bytes here.
//!
//! Each segment also carries its delivery-rate stamp (`rate_sample::TxStamp`),
//! handed back when the segment is first (S)ACKed, and its data sequence
//! number: an MPTCP subflow retransmits a segment with the mapping it was
//! first sent with (RFC 8684 §3.3.1), and hands its outstanding mappings to
//! the connection for reinjection (§3.3.6).

use std::collections::VecDeque;

use crate::tcp::rack::Rack;
use crate::tcp::rate_sample::TxStamp;
use crate::time::Time;

#[derive(Debug, Clone)]
struct Segment {
    start: u64,
    len: u32,
    /// Data sequence number of the first byte (equal to `start` for single-path TCP).
    dsn: u64,
    sacked: bool,
    lost: bool,
    /// A retransmission of this segment is in flight.
    retransmitted: bool,
    /// This segment has been retransmitted at least once (Linux
    /// `TCPCB_EVER_RETRANS`), for F-RTO's test of an original's arrival.
    ever_retransmitted: bool,
    /// Delivery state when this segment was last (re)sent.
    tx: TxStamp,
}

impl Segment {
    fn end(&self) -> u64 {
        self.start + self.len as u64
    }
}

#[derive(Debug, Default)]
pub struct Scoreboard {
    segs: VecDeque<Segment>,
    outstanding: u64,
    sacked: u64,
    /// Lost and not SACKed.
    lost: u64,
    /// Retransmitted, not SACKed, not yet deemed lost again.
    retransmitted: u64,
    /// Highest SACKed byte (exclusive end), for the loss scan.
    high_sacked: u64,
    /// Segments below this sequence number have been examined by the loss scan.
    loss_scanned: u64,
    /// No segment below this needs retransmitting (a hint that keeps NextSeg O(1)).
    retx_from: u64,
    /// Bytes ever marked lost (Linux's `tp->lost`).
    lost_total: u64,
    /// Retransmissions as (start, send time), in the order they were sent,
    /// for RACK; entries whose segment has since been delivered or resent
    /// are skipped when reached.
    retx_order: VecDeque<(u64, Time)>,
}

impl Scoreboard {
    pub fn push(&mut self, start: u64, len: u32, tx: TxStamp) {
        self.push_mapped(start, len, start, tx);
    }

    /// Pushes a segment whose first byte has data sequence number `dsn`.
    pub fn push_mapped(&mut self, start: u64, len: u32, dsn: u64, tx: TxStamp) {
        self.segs.push_back(Segment { start, len, dsn, sacked: false, lost: false, retransmitted: false, ever_retransmitted: false, tx });
        self.outstanding += len as u64;
    }

    /// The data sequence number of the outstanding segment starting at `start`.
    pub fn dsn_at(&self, start: u64) -> u64 {
        let s = &self.segs[self.index_of(start)];
        debug_assert_eq!(s.start, start);
        s.dsn
    }

    /// (dsn, len) of every outstanding segment, SACKed ones included, in sequence order.
    pub fn mappings(&self) -> impl Iterator<Item = (u64, u32)> + '_ {
        self.segs.iter().map(|s| (s.dsn, s.len))
    }

    pub fn is_empty(&self) -> bool {
        self.segs.is_empty()
    }

    /// Bytes believed to be in the network (RFC 6675 "pipe").
    pub fn pipe(&self) -> u64 {
        self.outstanding - self.sacked - self.lost + self.retransmitted
    }

    pub fn outstanding(&self) -> u64 {
        self.outstanding
    }

    pub fn sacked_bytes(&self) -> u64 {
        self.sacked
    }

    pub fn lost_total(&self) -> u64 {
        self.lost_total
    }

    fn index_of(&self, seq: u64) -> usize {
        self.segs.partition_point(|s| s.end() <= seq)
    }

    /// Removes segments acknowledged cumulatively below `ack`, reporting those
    /// not SACKed before to `delivered`.
    pub fn ack(&mut self, ack: u64, mut delivered: impl FnMut(&TxStamp, u32)) {
        self.ack_each(ack, |tx, len, _, sacked| {
            if !sacked {
                delivered(tx, len);
            }
        });
    }

    /// Removes segments acknowledged cumulatively below `ack`, reporting each
    /// to `acked` with its length, its end and whether it had been SACKed before.
    pub fn ack_each(&mut self, ack: u64, mut acked: impl FnMut(&TxStamp, u32, u64, bool)) {
        while let Some(s) = self.segs.front() {
            if s.end() > ack {
                break;
            }
            let s = self.segs.pop_front().expect("front exists");
            self.outstanding -= s.len as u64;
            acked(&s.tx, s.len, s.end(), s.sacked);
            if s.sacked {
                self.sacked -= s.len as u64;
            } else {
                if s.lost {
                    self.lost -= s.len as u64;
                }
                if s.retransmitted {
                    self.retransmitted -= s.len as u64;
                }
            }
        }
        // Retransmissions now acknowledged leave RACK's queue (it is in send order, so some may wait behind one
        // still outstanding; `rack_detect` skips them).
        while self.retx_order.front().is_some_and(|&(start, _)| start < ack) {
            self.retx_order.pop_front();
        }
    }

    /// Marks segments wholly inside [start, end) as SACKed, reporting each to
    /// `delivered` with its length and end; returns bytes newly SACKed.
    pub fn sack(&mut self, start: u64, end: u64, mut delivered: impl FnMut(&TxStamp, u32, u64)) -> u64 {
        let mut newly = 0;
        let mut i = self.index_of(start);
        while i < self.segs.len() && self.segs[i].end() <= end {
            let s = &mut self.segs[i];
            if s.start >= start && !s.sacked {
                s.sacked = true;
                let len = s.len as u64;
                newly += len;
                if s.lost {
                    self.lost -= len;
                }
                if s.retransmitted {
                    self.retransmitted -= len;
                }
                self.sacked += len;
                self.high_sacked = self.high_sacked.max(s.end());
                delivered(&s.tx, s.len, s.end());
            }
            i += 1;
        }
        newly
    }

    /// RFC 6675 IsLost: a segment is lost once `dupthresh` SACKed segments lie
    /// above it. SACKed segments above a point only ever increase, so the lost
    /// set grows from the bottom and one upward scan suffices.
    pub fn detect_losses(&mut self, dupthresh: u32) {
        if self.sacked == 0 {
            return;
        }
        let Some(top) = self.index_of(self.high_sacked).checked_sub(1) else { return };
        let mut count = 0;
        let mut frontier = None;
        let mut i = top as isize;
        while i >= 0 {
            let s = &self.segs[i as usize];
            if s.end() <= self.loss_scanned {
                break;
            }
            if s.sacked {
                count += 1;
                if count >= dupthresh {
                    frontier = Some(i as usize);
                    break;
                }
            }
            i -= 1;
        }
        let Some(frontier) = frontier else { return };
        let from = self.index_of(self.loss_scanned);
        for j in from..frontier {
            self.mark_lost_at(j);
        }
        self.loss_scanned = self.loss_scanned.max(self.segs[frontier].start);
    }

    fn mark_lost_at(&mut self, j: usize) {
        let s = &mut self.segs[j];
        if !s.sacked && !s.lost {
            s.lost = true;
            self.lost += s.len as u64;
            self.lost_total += s.len as u64;
            self.retx_from = self.retx_from.min(s.start);
        }
    }

    /// RACK's loss marking (RFC 8985 §6.2 step 5, Linux `tcp_rack_detect_loss`):
    /// every segment neither SACKed nor awaiting retransmission that `rack`
    /// deems lost at `now` is marked lost, a retransmission in flight
    /// included (Linux `tcp_mark_skb_lost` clears its `SACKED_RETRANS`), so
    /// that it is sent again. Candidates are taken in send order, which ends
    /// the scan at the first that is not lost yet: retransmissions in the
    /// order they were sent, then the never-resent segments above the loss
    /// scan, whose order is their sequence. Returns whether any was marked.
    pub fn rack_detect(&mut self, rack: &Rack, reo_wnd: Time, now: Time) -> bool {
        let mut any = false;
        while let Some(&(start, sent)) = self.retx_order.front() {
            let i = self.index_of(start);
            let current = self.segs.get(i).filter(|s| s.start == start && s.retransmitted && !s.sacked && s.tx.sent_time == sent);
            if let Some(s) = current {
                if !rack.is_lost(sent, s.end(), reo_wnd, now) {
                    break;
                }
                let (len, start) = (s.len as u64, s.start);
                self.segs[i].retransmitted = false;
                self.retransmitted -= len;
                self.lost_total += len;
                self.retx_from = self.retx_from.min(start);
                any = true;
            }
            self.retx_order.pop_front();
        }
        let mut i = self.index_of(self.loss_scanned);
        while let Some(s) = self.segs.get(i) {
            if !(s.sacked || s.lost) {
                if !rack.is_lost(s.tx.sent_time, s.end(), reo_wnd, now) {
                    break;
                }
                self.mark_lost_at(i);
                any = true;
            }
            self.loss_scanned = self.loss_scanned.max(self.segs[i].end());
            i += 1;
        }
        any
    }

    /// Deems the first outstanding segment lost (fast retransmit, NewReno partial ACK).
    pub fn mark_head_lost(&mut self) {
        if !self.segs.is_empty() {
            self.mark_lost_at(0);
        }
    }

    /// The first outstanding segment has been retransmitted since the last timeout.
    pub fn head_retransmitted(&self) -> bool {
        self.segs.front().is_some_and(|s| s.retransmitted)
    }

    pub fn head_lost(&self) -> bool {
        self.segs.front().is_some_and(|s| s.lost)
    }

    /// After a timeout every unSACKed segment is lost, retransmissions included
    /// (RFC 6675 §5.1; Linux `tcp_enter_loss`).
    pub fn mark_all_lost(&mut self) {
        for j in 0..self.segs.len() {
            let s = &mut self.segs[j];
            if s.retransmitted && !s.sacked {
                s.retransmitted = false;
                self.retransmitted -= s.len as u64;
            }
            self.mark_lost_at(j);
        }
        self.loss_scanned = self.segs.back().map_or(0, |s| s.end());
        self.retx_from = 0;
        self.retx_order.clear();
    }

    /// After a timeout, for a sender without fast recovery (INRPP's): the
    /// first outstanding segment (RFC 6298 §5.4) and every segment with
    /// `dupthresh` SACKed ones above it (RFC 6675 IsLost) are lost, earlier
    /// retransmissions included; the segments above those may still be on
    /// their way and are left alone.
    pub fn mark_timeout_lost(&mut self, dupthresh: u32) {
        let mut sacked_above = 0;
        let frontier = self.segs.iter().rposition(|s| {
            sacked_above += s.sacked as u32;
            sacked_above >= dupthresh
        });
        let upto = frontier.unwrap_or(0).max(1).min(self.segs.len());
        for j in 0..upto {
            let s = &mut self.segs[j];
            if s.retransmitted && !s.sacked {
                s.retransmitted = false;
                self.retransmitted -= s.len as u64;
            }
            self.mark_lost_at(j);
        }
        if let Some(last) = upto.checked_sub(1) {
            self.loss_scanned = self.loss_scanned.max(self.segs[last].end());
        }
        self.retx_from = 0;
    }

    /// The lowest lost segment not yet retransmitted (RFC 6675 NextSeg rule 1).
    /// Lost segments lie below the loss scan, or are the head (fast retransmit).
    pub fn next_retransmission(&mut self) -> Option<(u64, u32)> {
        let head_end = self.segs.front().filter(|s| s.lost).map_or(0, |s| s.end());
        let limit = self.loss_scanned.max(head_end);
        let mut i = self.index_of(self.retx_from);
        while let Some(s) = self.segs.get(i) {
            if s.start >= limit {
                break;
            }
            if s.lost && !s.retransmitted && !s.sacked {
                return Some((s.start, s.len));
            }
            i += 1;
        }
        self.retx_from = limit;
        None
    }

    pub fn mark_retransmitted(&mut self, start: u64, tx: TxStamp) {
        let i = self.index_of(start);
        let s = &mut self.segs[i];
        debug_assert_eq!(s.start, start);
        s.tx = tx;
        s.ever_retransmitted = true;
        self.retx_order.push_back((start, tx.sent_time));
        if !s.retransmitted {
            s.retransmitted = true;
            self.retransmitted += s.len as u64;
        }
        self.retx_from = s.end();
    }

    /// Whether an ACK up to `ack` with these SACK blocks newly acknowledges a
    /// segment below `high` that was never retransmitted, so that an
    /// original transmission sent before `high` arrived (Linux
    /// `FLAG_ORIG_SACK_ACKED`): F-RTO's evidence that a timeout was spurious
    /// (RFC 5682 §3.1 step 3b; `high` is SND.NXT when the timer fired). Call
    /// it before the ACK updates the board.
    pub fn acks_an_original(&self, ack: u64, sack_blocks: &[(u64, u64)], high: u64) -> bool {
        let original = |s: &Segment| !s.sacked && !s.ever_retransmitted && s.end() <= high;
        let cumulative = self.segs.iter().take_while(|s| s.end() <= ack).any(original);
        cumulative
            || sack_blocks.iter().any(|&(start, end)| {
                self.segs
                    .range(self.index_of(start)..)
                    .take_while(|s| s.end() <= end)
                    .any(|s| s.start >= start && original(s))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(n: u64) -> Scoreboard {
        let mut b = Scoreboard::default();
        for i in 0..n {
            b.push(i * 100, 100, TxStamp::default());
        }
        b
    }

    /// F-RTO's test: segments 0–9 sent before a timeout (`high` = 1000),
    /// 0 and 1 retransmitted, 10–11 sent after it.
    #[test]
    fn an_original_is_one_sent_before_the_timeout_and_never_retransmitted() {
        let mut b = board(12);
        b.mark_all_lost();
        b.mark_retransmitted(0, TxStamp::default());
        b.mark_retransmitted(100, TxStamp::default());
        assert!(!b.acks_an_original(200, &[], 1000), "only retransmitted segments acknowledged");
        assert!(b.acks_an_original(300, &[], 1000));
        assert!(!b.acks_an_original(100, &[(1000, 1200)], 1000), "sent after the timeout");
        assert!(b.acks_an_original(100, &[(500, 600)], 1000));
        b.sack(500, 600, |_, _, _| {});
        assert!(!b.acks_an_original(100, &[(500, 600)], 1000), "already SACKed");
    }

    #[test]
    fn pipe_follows_sacks_losses_and_retransmissions() {
        let mut b = board(10);
        assert_eq!(b.pipe(), 1000);
        // Segment 0 lost; 1..4 SACKed.
        assert_eq!(b.sack(100, 400, |_, _, _| {}), 300);
        b.detect_losses(3);
        assert!(b.head_lost());
        assert_eq!(b.pipe(), 1000 - 300 - 100);
        assert_eq!(b.next_retransmission(), Some((0, 100)));
        b.mark_retransmitted(0, TxStamp::default());
        assert_eq!(b.pipe(), 700);
        assert_eq!(b.next_retransmission(), None);
        b.ack(400, |_, _| {});
        assert_eq!((b.outstanding(), b.pipe()), (600, 600));
    }

    #[test]
    fn rack_marks_a_lost_retransmission_lost_again_once_later_data_arrives() {
        let at = |ms: u64| TxStamp { sent_time: Time::from_millis(ms), ..TxStamp::default() };
        // Segments 0–9 sent at 0–9 ms.
        let mut b = Scoreboard::default();
        for i in 0..10 {
            b.push(i * 100, 100, at(i));
        }
        let (mut rack, rtt) = (Rack::default(), Time::from_millis(50));
        let deliver = |b: &mut Scoreboard, rack: &mut Rack, from: u64, to: u64, now: Time| {
            b.sack(from, to, |tx, _, end| rack.on_delivered(now, tx, end, Some(rtt)));
        };
        // 1 and 2 arrive (SACKed at 51–52 ms): 0, sent before them and older than RACK.rtt, is lost.
        deliver(&mut b, &mut rack, 100, 300, Time::from_millis(52));
        assert!(b.rack_detect(&rack, Time::ZERO, Time::from_millis(52)));
        assert_eq!(b.next_retransmission(), Some((0, 100)));
        // 0 is resent at 60 ms; 3 was sent before that and is SACKed: the retransmission is not judged by it.
        b.mark_retransmitted(0, TxStamp { retransmission: true, ..at(60) });
        deliver(&mut b, &mut rack, 300, 400, Time::from_millis(53));
        assert!(!b.rack_detect(&rack, Time::ZERO, Time::from_millis(53)));
        assert_eq!(b.pipe(), 100 + 600, "the retransmission and 4–9 in flight");
        // Segment 10, sent at 70 ms after the retransmission, arrives at 120 ms while 0's does not: 0 is lost again.
        b.push(1000, 100, at(70));
        b.sack(400, 1000, |_, _, _| {});
        deliver(&mut b, &mut rack, 1000, 1100, Time::from_millis(120));
        assert!(b.rack_detect(&rack, Time::ZERO, Time::from_millis(120)));
        assert_eq!(b.pipe(), 0);
        assert_eq!(b.next_retransmission(), Some((0, 100)));
    }

    #[test]
    fn a_timeout_without_fast_recovery_marks_the_head_and_the_sacked_holes_only() {
        let mut b = board(10);
        // SACK 2, 4, 6: the head and the holes below the third-highest SACK (2) are lost; 3, 5, 7–9 may still arrive.
        b.sack(200, 300, |_, _, _| {});
        b.sack(400, 500, |_, _, _| {});
        b.sack(600, 700, |_, _, _| {});
        b.mark_timeout_lost(3);
        assert_eq!(b.next_retransmission(), Some((0, 100)));
        b.mark_retransmitted(0, TxStamp::default());
        assert_eq!(b.next_retransmission(), Some((100, 100)));
        b.mark_retransmitted(100, TxStamp::default());
        assert_eq!(b.next_retransmission(), None);
        // Another timeout: the retransmitted head is sent again; without SACKs only the head.
        b.mark_timeout_lost(3);
        assert_eq!(b.next_retransmission(), Some((0, 100)));
        let mut quiet = board(3);
        quiet.mark_timeout_lost(3);
        assert_eq!(quiet.next_retransmission(), Some((0, 100)));
        quiet.mark_retransmitted(0, TxStamp::default());
        assert_eq!(quiet.next_retransmission(), None);
    }

    #[test]
    fn holes_below_three_sacks_are_lost() {
        let mut b = board(10);
        // SACK 2, 4, 6: holes 0,1,3,5; only those below the third-highest SACK (2) are lost.
        b.sack(200, 300, |_, _, _| {});
        b.sack(400, 500, |_, _, _| {});
        b.sack(600, 700, |_, _, _| {});
        b.detect_losses(3);
        assert_eq!(b.next_retransmission(), Some((0, 100)));
        b.mark_retransmitted(0, TxStamp::default());
        assert_eq!(b.next_retransmission(), Some((100, 100)));
        b.mark_retransmitted(100, TxStamp::default());
        assert_eq!(b.next_retransmission(), None);
        b.sack(800, 900, |_, _, _| {});
        b.detect_losses(3);
        assert_eq!(b.next_retransmission(), Some((300, 100)));
    }

    #[test]
    fn timeout_after_sacked_retransmission_keeps_counters() {
        let mut b = board(4);
        b.mark_head_lost();
        b.mark_retransmitted(0, TxStamp::default());
        b.sack(0, 100, |_, _, _| {});
        b.mark_all_lost();
        assert_eq!(b.pipe(), 0);
        assert_eq!(b.next_retransmission(), Some((100, 100)));
    }

    #[test]
    fn timeout_marks_everything_lost() {
        let mut b = board(4);
        b.sack(100, 200, |_, _, _| {});
        b.mark_retransmitted(0, TxStamp::default());
        b.mark_all_lost();
        assert_eq!(b.pipe(), 0);
        assert_eq!(b.next_retransmission(), Some((0, 100)));
    }
}
