//! Whether the sender used its congestion window: Linux's `tcp_cwnd_validate`
//! (`net/ipv4/tcp_output.c`) and `tcp_is_cwnd_limited` (`include/net/tcp.h`),
//! behind `[tcp] cwnd_growth = "cwnd_limited"`.
//!
//! Linux's Reno and CUBIC raise cwnd only while the sender is cwnd-limited
//! (`tcp_reno_cong_avoid`, `cubictcp_cong_avoid` return early otherwise), the
//! rule RFC 7661 §4.3 asks for ("a sender should not increase cwnd when it is
//! not cwnd-limited"; RFC 5681 §3.1 leaves it open). A sender stopped by the
//! window marks the flight it sent as cwnd-limited; the mark, and the largest
//! flight of a window that was not, hold until that flight is acknowledged.
//! In slow start the window may also grow up to twice the largest flight,
//! so an application that uses half the window still doubles it per round
//! trip. The sender with data always queued is cwnd-limited all the time,
//! so the rule changes nothing for a bulk single-path flow; it matters for
//! an MPTCP subflow that its scheduler leaves without data.

/// Linux's `is_cwnd_limited`, `max_packets_out` and `cwnd_usage_seq`, in bytes.
#[derive(Debug, Clone, Default)]
pub struct CwndUsage {
    /// The current flight was sent while the window was full.
    limited: bool,
    /// The largest flight of the current window (bytes outstanding).
    max_out: u64,
    /// snd_nxt when the record started: it ends when snd_una passes it.
    usage_seq: u64,
}

impl CwndUsage {
    /// After a send attempt (`tcp_write_xmit` → `tcp_cwnd_validate`):
    /// `outstanding` bytes are out (snd_nxt − snd_una), and `limited` says
    /// whether the window stopped the sender. Linux calls it only when
    /// something was sent or the window was full; so does the sender.
    pub fn on_send(&mut self, limited: bool, outstanding: u64, snd_una: u64, snd_nxt: u64) {
        if snd_una >= self.usage_seq || limited || (!self.limited && outstanding > self.max_out) {
            self.limited = limited;
            self.max_out = outstanding;
            self.usage_seq = snd_nxt;
        }
    }

    /// `tcp_is_cwnd_limited`: may the window grow on this ACK?
    pub fn is_cwnd_limited(&self, cwnd: u64, ssthresh: u64) -> bool {
        self.limited || (cwnd < ssthresh && cwnd < 2 * self.max_out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    #[test]
    fn a_full_window_marks_the_flight_until_it_is_acknowledged() {
        let mut u = CwndUsage::default();
        // Ten segments out, the window of ten full: limited until snd_una reaches 10 000.
        u.on_send(true, 10 * MSS, 0, 10 * MSS);
        assert!(u.is_cwnd_limited(10 * MSS, 5 * MSS));
        // Half acknowledged, two more sent without filling the window: still this flight's mark.
        u.on_send(false, 7 * MSS, 5 * MSS, 12 * MSS);
        assert!(u.is_cwnd_limited(10 * MSS, 5 * MSS));
        // The marked flight is acknowledged and the next send does not fill the window.
        u.on_send(false, 2 * MSS, 10 * MSS, 12 * MSS);
        assert!(!u.is_cwnd_limited(10 * MSS, 5 * MSS), "congestion avoidance, window not used");
    }

    #[test]
    fn slow_start_grows_to_twice_the_largest_flight() {
        let mut u = CwndUsage::default();
        // Nine of a window of ten sent (Linux's example: IW10, the application sends 9).
        u.on_send(false, 9 * MSS, 0, 9 * MSS);
        assert!(u.is_cwnd_limited(10 * MSS, u64::MAX));
        assert!(u.is_cwnd_limited(17 * MSS, u64::MAX));
        assert!(!u.is_cwnd_limited(18 * MSS, u64::MAX), "cwnd reaches twice the flight and stops");
    }
}
