//! Linux's SACK compression: while data is missing, a receiver that has
//! already sent three duplicate ACKs for the same cumulative point withholds
//! further ones for a short while and sends one ACK for many segments.
//!
//! RFC 5681 §4.2 asks for an immediate ACK for every out-of-order segment;
//! Linux since 4.18 ("tcp: add SACK compression", `__tcp_ack_snd_check` and
//! `tcp_sack_new_ofo_skb` in `net/ipv4/tcp_input.c`) sends the first
//! `TCP_FASTRETRANS_THRESH` (3) at once for each `rcv_nxt`, then holds
//! the next ones back until a timer of min(`tcp_comp_sack_delay_ns` = 1 ms,
//! 5 % of the RTT) fires or `tcp_comp_sack_nr` = 44 of them are held. An ACK
//! sent for any reason ends the hold (`tcp_event_ack_sent`). Under random
//! loss a receiver nearly always holds a hole, so this sets how many ACKs
//! a Linux sender sees: about one in three or four data segments where an
//! RFC 5681 receiver sends one per segment.
//!
//! Not modelled: the timer's 100 µs slack (`tcp_comp_sack_slack_ns`) and the
//! receiver's timestamp RTT estimate (`rcv_rtt_est`); the RTT is the passive
//! opener's own sample, from its SYN-ACK to the first segment after it (the
//! `srtt_us` Linux takes when it is the smaller), or 1 ms is waited without
//! a handshake.

use crate::net::packet::SackBlock;
use crate::time::Time;

/// `tcp_comp_sack_nr`: ACKs withheld at most before one is sent regardless.
const MAX_WITHHELD: u32 = 44;
/// `tcp_comp_sack_delay_ns`: the longest an ACK is withheld.
const MAX_DELAY: Time = Time::from_millis(1);
/// `TCP_FASTRETRANS_THRESH`: duplicate ACKs sent at once for each `rcv_nxt`,
/// so that the sender's fast retransmit is not delayed.
const SENT_AT_ONCE: u32 = 3;
/// `TCP_SACK_BLOCKS_EXPECTED`: SACK blocks an ACK surely delivers (three fit
/// beside timestamps, one ACK may be lost); a block about to move below them
/// is first sent in an ACK of its own.
const BLOCKS_EXPECTED: usize = 2;

/// What to do about the ACK an out-of-order segment calls for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Send it now.
    Now,
    /// Withhold it; the compression timer must fire within this delay (None:
    /// it is already armed).
    Hold(Option<Time>),
}

#[derive(Debug, Clone, Default)]
pub struct SackCompression {
    /// ACKs withheld since the last one sent (`compressed_ack`).
    withheld: u32,
    /// The `rcv_nxt` the immediate duplicates were counted for (`compressed_ack_rcv_nxt`).
    counted_at: u64,
    /// ACKs sent at once for `counted_at` (`dup_ack_counter`).
    sent_at_once: u32,
    /// When the SYN-ACK left, until the handshake's RTT is known.
    syn_ack_at: Option<Time>,
    rtt: Option<Time>,
    /// The largest segment received (Linux's `icsk_ack.rcv_mss`).
    rcv_mss: u64,
}

impl SackCompression {
    pub fn syn_ack_sent(&mut self, now: Time) {
        self.syn_ack_at = Some(now);
    }

    /// A segment of `len` bytes arrived: the first after the SYN-ACK gives the RTT.
    pub fn segment_arrived(&mut self, now: Time, len: u32) {
        if let Some(at) = self.syn_ack_at.take() {
            self.rtt = Some(now - at);
        }
        self.rcv_mss = self.rcv_mss.max(len as u64);
    }

    /// Whether an ACK for `advance` more bytes than the last one covers at
    /// most one segment: a hole-filling segment with data still missing is
    /// then ACKed as the first duplicate for the new `rcv_nxt`, not at once
    /// for itself (`__tcp_ack_snd_check`'s `rcv_nxt - rcv_wup > rcv_mss`).
    pub fn within_one_segment(&self, advance: u64) -> bool {
        advance <= self.rcv_mss
    }

    /// `tcp_sack_new_ofo_skb`: whether the withheld ACKs must go out before
    /// the segment [start, end) joins `recent` (the SACK blocks, most recent
    /// first), because it extends a block beyond the first two or adds a
    /// third.
    pub fn flush_before(&self, recent: &[SackBlock], start: u64, end: u64) -> bool {
        if self.withheld == 0 {
            return false;
        }
        let touched = recent.iter().position(|b| b.0 <= end && start <= b.1);
        touched.unwrap_or(recent.len()) >= BLOCKS_EXPECTED
    }

    /// `__tcp_ack_snd_check` with data missing above `rcv_nxt`.
    pub fn on_out_of_order(&mut self, rcv_nxt: u64, timer_armed: bool) -> Verdict {
        if self.withheld >= MAX_WITHHELD {
            return Verdict::Now;
        }
        if self.counted_at != rcv_nxt {
            self.counted_at = rcv_nxt;
            self.sent_at_once = 0;
        }
        if self.sent_at_once < SENT_AT_ONCE {
            self.sent_at_once += 1;
            return Verdict::Now;
        }
        self.withheld += 1;
        Verdict::Hold((!timer_armed).then(|| self.delay()))
    }

    /// An ACK left (`tcp_event_ack_sent`): nothing is withheld any more.
    pub fn ack_sent(&mut self) {
        self.withheld = 0;
    }

    /// min(1 ms, 5 % of the RTT).
    fn delay(&self) -> Time {
        self.rtt.map_or(MAX_DELAY, |r| MAX_DELAY.min(Time(r.0 / 20)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_at_once_per_cumulative_point_then_held_for_five_percent_of_the_rtt() {
        let mut c = SackCompression::default();
        c.syn_ack_sent(Time::from_millis(1));
        c.segment_arrived(Time::from_millis(11), 1448);
        for _ in 0..3 {
            assert_eq!(c.on_out_of_order(100, false), Verdict::Now);
        }
        assert_eq!(c.on_out_of_order(100, false), Verdict::Hold(Some(Time::from_micros(500))));
        assert_eq!(c.on_out_of_order(100, true), Verdict::Hold(None));
        // A new cumulative point: three more at once, however many are withheld.
        assert_eq!(c.on_out_of_order(200, true), Verdict::Now);
    }

    #[test]
    fn the_delay_is_at_most_a_millisecond_and_the_hold_at_most_44() {
        let mut c = SackCompression::default();
        c.syn_ack_sent(Time::ZERO);
        c.segment_arrived(Time::from_millis(100), 1448);
        for _ in 0..3 {
            c.on_out_of_order(0, false);
        }
        assert_eq!(c.on_out_of_order(0, false), Verdict::Hold(Some(Time::from_millis(1))));
        for _ in 1..MAX_WITHHELD {
            assert_eq!(c.on_out_of_order(0, true), Verdict::Hold(None));
        }
        assert_eq!(c.on_out_of_order(0, true), Verdict::Now);
    }

    #[test]
    fn a_block_leaving_the_first_two_positions_is_sent_first() {
        let mut c = SackCompression::default();
        let recent = [(30, 40), (10, 20)];
        assert!(!c.flush_before(&recent, 50, 60), "nothing withheld, nothing to flush");
        c.withheld = 1;
        assert!(!c.flush_before(&recent, 40, 45), "extends the first block");
        assert!(!c.flush_before(&recent, 20, 25), "extends the second");
        assert!(c.flush_before(&recent, 50, 60), "a third block");
        assert!(c.flush_before(&[(30, 40), (10, 20), (1, 5)], 5, 8), "extends the third");
    }
}
