//! Upstream Linux's default MPTCP scheduler (`mptcp_subflow_get_send` and
//! `__subflow_push_pending` in `net/mptcp/protocol.c`, Linux 6.x), with the
//! subflows' send buffers that bound it (`send_buffer`).
//!
//! Where `minrtt` (the out-of-tree kernel's scheduler) gives each chunk to the
//! lowest-RTT subflow with room in its congestion window, upstream Linux
//! ignores the windows: it pushes data into the subflow whose queue would
//! drain first, its *linger time* — bytes queued in the subflow (sent and
//! unacknowledged, or not yet sent: `sk_wmem_queued`) over its smoothed
//! pacing rate — in bursts of up to 64 KiB, as long as that subflow's send
//! buffer has room. When the subflow with the lowest linger time has a full
//! buffer, nothing is pushed at all (the function returns no subflow), even
//! if another subflow has an empty one. So a long-RTT subflow, whose linger
//! time is about its RTT even with an empty queue, gets data only while the
//! others' queues take longer to drain; between those moments its window is
//! not full, and with `[tcp] cwnd_growth = "cwnd_limited"` (Linux's rule)
//! its congestion control does not grow it.
//!
//! - Pacing rate: Linux's `tcp_update_pacing_rate`, mss · max(cwnd,
//!   packets out) / srtt, × 2 while cwnd < ssthresh / 2, else × 1.2
//!   (`tcp_pacing_ss_ratio`, `tcp_pacing_ca_ratio`). It is only the
//!   scheduler's yardstick here: CUBIC does not pace without the `fq` qdisc.
//! - Smoothing: a subflow's `avg_pacing_rate` starts at its pacing rate and,
//!   each time it is picked, becomes the average of itself weighted by the
//!   bytes queued and the current rate weighted by the burst.
//! - Send buffers grow as `tcp_new_space` grows them: whenever the
//!   connection pushes (after every ACK), each subflow whose window is not
//!   full is expanded, so a subflow whose queue ran dry in slow start keeps
//!   the buffer of its largest window then, though it is never expanded
//!   again once its queue always holds data (`send_buffer.rs`).
//! - Data frags: the application's data sits in frags of up to a 32 KiB page
//!   frag (`mptcp_carve_data_frag`, `SKB_FRAG_PAGE_ORDER`), and
//!   `__subflow_push_pending` checks the burst and the subflow's buffer
//!   only after a whole frag, so a subflow takes up to one frag beyond its
//!   buffer (the lab's short subflow in random-1-014 held 121–150 kB with a
//!   120 kB `tb`, `ss -tm`); frags are counted from the connection's first byte.
//! - Backup subflows only when no non-backup one is usable; a subflow without
//!   an RTT sample yet is skipped (Linux skips a subflow with no pacing rate).
//! - The connection's send buffer: the application's data not yet Data-ACKed
//!   fits in `tcp_wmem[0]` plus the subflows' send buffers (`__mptcp_sync_sndbuf`);
//!   beyond it nothing new is pushed.
//! - Reinjected chunks go as `minrtt` sends them (Linux picks them with
//!   `mptcp_subflow_get_retrans`, not with this function).

use super::minrtt::lowest_rtt;
use crate::tcp::send_buffer::SendBuffer;
use super::{Chunk, ConnectionView, Scheduler, Step, SubflowView};

/// `tcp_wmem[0]`, the base of the connection's send buffer (Linux's default).
pub const WMEM_MIN: u64 = 4096;

/// `MPTCP_SEND_BURST_SIZE`: 64 KiB less the TCP, IPv6 and fragment headers and the largest option space.
pub const BURST: u64 = 65_428;

/// The data a frag holds at most: a 32 KiB page frag (its `mptcp_data_frag` header, a few dozen bytes, ignored).
pub const DFRAG: u64 = 32 << 10;

#[derive(Default)]
pub struct Linger {
    /// Per subflow id: the smoothed pacing rate (bytes/s) and the send buffer.
    subflows: Vec<(f64, SendBuffer)>,
    /// The subflow being filled, the bytes left of its burst (`msk->snd_burst`)
    /// and the end of the frag being pushed into it.
    burst: Option<(usize, u64, u64)>,
}

/// `tcp_update_pacing_rate`, bytes per second; None before an RTT sample.
pub fn pacing_rate(s: &SubflowView) -> Option<f64> {
    let srtt = s.srtt?.secs();
    let ratio = if s.cwnd < s.ssthresh / 2 { 2.0 } else { 1.2 };
    (srtt > 0.0).then(|| ratio * s.cwnd.max(s.outstanding) as f64 / srtt)
}

impl Linger {
    fn state(&mut self, id: usize) -> &mut (f64, SendBuffer) {
        if self.subflows.len() <= id {
            self.subflows.resize_with(id + 1, || (0.0, SendBuffer::default()));
        }
        &mut self.subflows[id]
    }

    /// `mptcp_subflow_get_send`: the subflow to push new data into, if its buffer has room.
    fn pick(&mut self, subflows: &[SubflowView]) -> Option<usize> {
        let backup = !subflows.iter().any(|s| s.usable && !s.backup);
        let mut best: Option<(f64, usize)> = None;
        for s in subflows.iter().filter(|s| s.usable && s.backup == backup) {
            let Some(rate) = pacing_rate(s) else { continue };
            let st = self.state(s.id);
            if st.0 == 0.0 {
                st.0 = rate;
            }
            let linger = s.wmem_queued() as f64 / st.0;
            if best.is_none_or(|(b, _)| linger < b) {
                best = Some((linger, s.id));
            }
        }
        let (_, id) = best?;
        let s = subflows.iter().find(|s| s.id == id).expect("picked among them");
        if !self.state(id).1.has_room(s.wmem_queued()) {
            return None;
        }
        let rate = pacing_rate(s).expect("picked with a rate");
        let wmem = s.wmem_queued() as f64;
        let st = self.state(id);
        st.0 = (st.0 * wmem + rate * BURST as f64) / (wmem + BURST as f64);
        Some(id)
    }
}

impl Scheduler for Linger {
    fn next(&mut self, subflows: &[SubflowView], conn: &ConnectionView) -> Step {
        if let Some(chunk) = conn.reinject {
            return match lowest_rtt(subflows, &chunk, SubflowView::has_space) {
                Some(subflow) => Step::Send { subflow, chunk },
                None => Step::Wait,
            };
        }
        // `tcp_new_space` after each ACK: a subflow whose window is not full grows its buffer.
        for s in subflows.iter().filter(|s| s.usable) {
            self.state(s.id).1.expand(s.cwnd, s.in_flight, s.mss, s.sndbuf_expand);
        }
        let Some(chunk) = conn.new_data.filter(|_| !conn.window_limited) else {
            return Step::Wait;
        };
        // The connection's own send buffer (`__mptcp_sync_sndbuf`: tcp_wmem[0] plus every subflow's
        // sk_sndbuf) holds everything not yet Data-ACKed: the application may not write beyond it.
        let data_una = conn.unacked.front().map_or(chunk.dsn, |c| c.dsn);
        let buffer: u64 = WMEM_MIN + subflows.iter().map(|s| self.state(s.id).1.bytes()).sum::<u64>();
        if chunk.dsn + chunk.len as u64 - data_una > buffer {
            return Step::Wait;
        }
        // `__subflow_push_pending` keeps filling the picked subflow to the end of
        // the frag it is in, then on while the burst lasts and its buffer has
        // room; then the scheduler picks again.
        let current = self.burst.and_then(|(id, left, frag_end)| {
            let s = subflows.iter().find(|s| s.id == id && s.usable)?;
            (chunk.dsn < frag_end || left > 0 && self.state(id).1.has_room(s.wmem_queued())).then_some(id)
        });
        let Some(subflow) = current.or_else(|| {
            let id = self.pick(subflows)?;
            self.burst = Some((id, BURST, 0));
            Some(id)
        }) else {
            self.burst = None;
            return Step::Wait;
        };
        if let Some((_, left, frag_end)) = self.burst.as_mut() {
            *left = left.saturating_sub(chunk.len as u64);
            *frag_end = (*frag_end).max((chunk.dsn / DFRAG + 1) * DFRAG);
        }
        Step::Send { subflow, chunk: Chunk { sent_on: chunk.sent_on, ..chunk } }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{conn, sf};
    use super::*;
    use std::collections::VecDeque;

    #[test]
    fn the_lowest_linger_time_wins_even_when_its_buffer_is_full() {
        // Subflow 0: 10 ms, 20 segments; subflow 1: 100 ms, 20 segments, both in congestion avoidance.
        let mut s = vec![sf(0, 10, 20), sf(1, 100, 20)];
        for v in &mut s {
            v.ssthresh = 0;
        }
        let unacked = VecDeque::new();
        let mut l = Linger::default();
        // Empty queues: linger 0 for both; the first found wins and takes a burst.
        assert_eq!(l.next(&s, &conn(&unacked, Some(0), false)), Step::Send { subflow: 0, chunk: super::super::testing::new_chunk(0) });
        // Both hold a full window in flight: linger = srtt / 1.2, 8 ms and 83 ms; subflow 0 wins.
        l.burst = None;
        s[0].outstanding = 20_000;
        s[1].outstanding = 20_000;
        assert_eq!(l.pick(&s), Some(0));
        // Subflow 0's buffer is full, 2 · max(10, 20) segments of 2304 bytes (per_mss for a
        // 1000-byte MSS): its linger time is 92 160 B / 2.4 MB/s = 38 ms, still the lowest, so
        // nothing is pushed, although subflow 1 has room in its buffer.
        s[0].queued = 2 * 20 * SendBuffer::per_segment(1000) - 20_000;
        assert_eq!(l.pick(&s), None);
        // With more than 83 ms of data queued in subflow 0, subflow 1 is picked.
        s[0].outstanding = 0;
        s[0].queued = 0;
        s[1].outstanding = 1_000;
        assert_eq!(l.pick(&s), Some(0), "an empty queue lingers least");
    }

    #[test]
    fn a_subflow_whose_window_is_not_full_grows_its_buffer_though_not_picked() {
        let mut s = vec![sf(0, 10, 20), sf(1, 100, 10)];
        let unacked = VecDeque::new();
        let mut l = Linger::default();
        l.next(&s, &conn(&unacked, Some(0), false));
        assert_eq!(l.state(1).1.bytes(), 2 * 10 * SendBuffer::per_segment(1000));
        // Subflow 1 reached 40 segments with its queue run dry (window not full): `tcp_new_space` expands it.
        s[1].cwnd = 40_000;
        s[1].in_flight = 30_000;
        s[1].outstanding = 30_000;
        l.next(&s, &conn(&unacked, Some(1_000), false));
        assert_eq!(l.state(1).1.bytes(), 2 * 40 * SendBuffer::per_segment(1000));
        // A full window does not.
        s[1].cwnd = 80_000;
        s[1].in_flight = 80_000;
        l.next(&s, &conn(&unacked, Some(2_000), false));
        assert_eq!(l.state(1).1.bytes(), 2 * 40 * SendBuffer::per_segment(1000));
    }

    #[test]
    fn a_picked_subflow_takes_the_rest_of_its_frag_beyond_a_full_buffer() {
        let mut s = vec![sf(0, 10, 10)];
        let unacked = VecDeque::new();
        let mut l = Linger::default();
        let buffer = 2 * 10 * SendBuffer::per_segment(1000);
        // Picked at DSN 30 000 with room to spare; then its buffer fills at once.
        assert!(matches!(l.next(&s, &conn(&unacked, Some(30_000), false)), Step::Send { subflow: 0, .. }));
        s[0].queued = buffer;
        // The frag ends at 32 KiB: the chunk at 31 000 still goes, the one at 32 768 (a new frag) waits.
        assert!(matches!(l.next(&s, &conn(&unacked, Some(31_000), false)), Step::Send { subflow: 0, .. }));
        assert_eq!(l.next(&s, &conn(&unacked, Some(DFRAG), false)), Step::Wait);
    }
}
