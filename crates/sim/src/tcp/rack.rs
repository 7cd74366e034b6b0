//! RACK, time-based loss detection (RFC 8985 §6), as Linux runs it by
//! default (`net.ipv4.tcp_recovery` = 1, `net/ipv4/tcp_recovery.c`), for
//! `[tcp] rack = true`.
//!
//! RACK remembers when the most recently sent of the delivered segments was
//! sent (RACK.xmit_ts) and how long it took (RACK.rtt). A segment sent
//! before it that is still neither SACKed nor acknowledged is lost once it
//! is older than RACK.rtt plus a reordering window. Unlike RFC 6675's
//! count of SACKed segments above a hole, this also finds a *lost
//! retransmission*: its send time is that of the retransmission, and data
//! sent after it arriving says it is gone — without it only the
//! retransmission timer repairs one (`scoreboard::rack_detect` applies the
//! rule).
//!
//! Not modelled: the reordering timer of §6.3 (in recovery the window is 0
//! and the test is decided on each ACK; outside it a hole waits for the next
//! ACK or the timeout), Tail Loss Probes (§7), and the adaptation of the
//! window to observed reordering (Linux's `reord_seen` is taken as false: a
//! flow's packets on one path stay in order, unless a scenario changes a
//! link's delay or a route mid-run).

use crate::tcp::rate_sample::TxStamp;
use crate::time::Time;

#[derive(Debug, Clone, Copy, Default)]
pub struct Rack {
    /// RACK.xmit_ts and RACK.end_seq: the most recently sent segment delivered.
    xmit_ts: Time,
    end_seq: u64,
    /// RACK.rtt: how long that segment took; None before the first delivery.
    rtt: Option<Time>,
}

impl Rack {
    /// RFC 8985 §6.2 step 2 (Linux `tcp_rack_advance`): segment ending at
    /// `end`, last sent as `tx`, is newly SACKed or acknowledged at `now`.
    pub fn on_delivered(&mut self, now: Time, tx: &TxStamp, end: u64, min_rtt: Option<Time>) {
        let rtt = now.saturating_sub(tx.sent_time);
        // A retransmission acknowledged sooner than the path's minimum RTT:
        // the ACK is likely for the original, so the send time is unknown.
        if tx.retransmission && min_rtt.is_some_and(|m| rtt < m) {
            return;
        }
        if (tx.sent_time, end) > (self.xmit_ts, self.end_seq) {
            (self.xmit_ts, self.end_seq) = (tx.sent_time, end);
        }
        self.rtt = Some(rtt);
    }

    /// The reordering window (Linux `tcp_rack_reo_wnd`, no reordering seen):
    /// 0 in recovery or once `dupthresh` segments are SACKed, else min_rtt / 4.
    pub fn reo_wnd(in_recovery: bool, dupthresh_sacked: bool, min_rtt: Option<Time>) -> Time {
        if in_recovery || dupthresh_sacked {
            return Time::ZERO;
        }
        min_rtt.map_or(Time::ZERO, |m| Time(m.nanos() / 4))
    }

    /// §6.2 step 5: a segment ending at `end` last sent at `sent` was sent
    /// before the most recently delivered one and is older than RACK.rtt +
    /// `reo_wnd` at `now`.
    pub fn is_lost(&self, sent: Time, end: u64, reo_wnd: Time, now: Time) -> bool {
        let Some(rtt) = self.rtt else { return false };
        (sent, end) < (self.xmit_ts, self.end_seq) && sent + rtt + reo_wnd <= now
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sent_at(ms: u64, retransmission: bool) -> TxStamp {
        TxStamp { sent_time: Time::from_millis(ms), retransmission, ..TxStamp::default() }
    }

    #[test]
    fn a_segment_sent_before_a_delivered_one_is_lost_after_rack_rtt_plus_the_window() {
        let mut r = Rack::default();
        assert!(!r.is_lost(Time::ZERO, 1000, Time::ZERO, Time::from_secs(9)), "nothing delivered yet");
        // Sent at 10 ms, delivered at 60 ms: RACK.rtt 50 ms.
        r.on_delivered(Time::from_millis(60), &sent_at(10, false), 3000, None);
        let reo = Rack::reo_wnd(false, false, Some(Time::from_millis(40)));
        assert_eq!(reo, Time::from_millis(10));
        // Sent at 5 ms: lost at 5 + 50 + 10 = 65 ms, not before.
        assert!(!r.is_lost(Time::from_millis(5), 1000, reo, Time::from_millis(64)));
        assert!(r.is_lost(Time::from_millis(5), 1000, reo, Time::from_millis(65)));
        // Sent with it (same instant) but above it: not before it.
        assert!(!r.is_lost(Time::from_millis(10), 4000, reo, Time::from_secs(1)));
        assert!(r.is_lost(Time::from_millis(10), 2000, reo, Time::from_secs(1)));
        assert_eq!(Rack::reo_wnd(true, false, Some(Time::from_millis(40))), Time::ZERO);
    }

    #[test]
    fn a_retransmission_acked_faster_than_the_path_is_ignored() {
        let mut r = Rack::default();
        r.on_delivered(Time::from_millis(100), &sent_at(90, true), 2000, Some(Time::from_millis(40)));
        assert!(!r.is_lost(Time::ZERO, 1000, Time::ZERO, Time::from_secs(1)));
    }
}
