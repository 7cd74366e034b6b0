//! A TCP socket's send buffer and its autotuning, as Linux sizes it
//! (`tcp_sndbuf_expand`, `tcp_should_expand_sndbuf` in
//! `net/ipv4/tcp_input.c`). Two users: a single-path sender with
//! `[tcp] send_buffer = "linux"`, whose application may keep at most the
//! buffer's worth unacknowledged or unsent, and the MPTCP `linger`
//! scheduler, which pushes data into a subflow only while its buffer has
//! room (`sk_stream_memory_free`).
//!
//! Linux sets `sk_sndbuf` to k · max(10, cwnd) · per_mss when the connection
//! is established and raises it (never lowers it) the same way whenever the
//! socket gains write space while its window is not full, up to
//! `tcp_wmem[2]` (4 MiB). k is the congestion control's `sndbuf_expand`:
//! 2 unless the algorithm says otherwise (BBR: 3). per_mss is the memory one full segment takes:
//! roundup_pow_of_two(MSS option + MAX_TCP_HEADER + skb_shared_info) +
//! sk_buff. MAX_TCP_HEADER depends on the kernel's configuration
//! (L1_CACHE_ALIGN(128 + MAX_HEADER), MAX_HEADER growing with wireless and
//! tunnel drivers); the kernel lab's (x86-64, no wireless, no tunnels:
//! LL_MAX_HEADER 32) has 192, so per_mss = 2048 + 256 = 2304 bytes for a
//! 1460-byte MSS option (the 1448-byte MSS plus 12 bytes of timestamp
//! option): measured there with `ss -tm`, every subflow's `tb` was
//! 2 · max(10, cwnd) · 2304 (46 080, 119 808, 1 884 672, 3 732 480 bytes;
//! scenario random-1-014). A distribution kernel with wireless drivers has
//! MAX_TCP_HEADER 320 and per_mss 4352, buffers about twice as large.
//! What occupies the buffer is counted here as payload bytes (sent and
//! unacknowledged, plus not yet sent); Linux counts the skbs' true size,
//! which for the large skbs a socket queues with segmentation offload (the
//! lab's hosts use GSO) is the payload plus a few per cent. So a socket may
//! hold about three windows of data, 2 · 2304 / 1448 ≈ 3.2.

/// `tcp_wmem[2]`, the largest buffer autotuning gives (Linux's default).
pub const WMEM_MAX: u64 = 4 << 20;
/// `MAX_TCP_HEADER` (the lab kernel's) + `SKB_DATA_ALIGN(sizeof(struct skb_shared_info))` (17 fragments) on
/// x86-64, and the timestamp option beyond the MSS.
const SEGMENT_OVERHEAD: u64 = 192 + 320 + 12;
/// `SKB_DATA_ALIGN(sizeof(struct sk_buff))` on x86-64.
const SKB_STRUCT: u64 = 256;

#[derive(Debug, Clone, Copy, Default)]
pub struct SendBuffer {
    /// `sk_sndbuf`, bytes; 0 until the subflow is first seen established.
    bytes: u64,
}

impl SendBuffer {
    /// Memory one full segment takes (Linux's per_mss).
    pub fn per_segment(mss: u64) -> u64 {
        (mss + SEGMENT_OVERHEAD).next_power_of_two() + SKB_STRUCT
    }

    /// `tcp_sndbuf_expand`, at establishment (`tcp_init_buffer_space`) and
    /// then only while the window is not full (`tcp_should_expand_sndbuf`);
    /// `factor` is the congestion control's `sndbuf_expand`. Bytes throughout.
    pub fn expand(&mut self, cwnd: u64, in_flight: u64, mss: u64, factor: u64) {
        if self.bytes > 0 && in_flight + mss > cwnd {
            return;
        }
        let segments = (cwnd / mss).max(10);
        self.bytes = self.bytes.max((factor * segments * Self::per_segment(mss)).min(WMEM_MAX));
    }

    /// `sk_stream_memory_free`: what the socket holds (`sk_wmem_queued`,
    /// unacknowledged plus unsent bytes) is below its buffer.
    pub fn has_room(&self, wmem_queued: u64) -> bool {
        wmem_queued < self.bytes
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lab_kernel_sizes_a_full_segment_at_2304_bytes() {
        assert_eq!(SendBuffer::per_segment(1448), 2304);
    }

    #[test]
    fn it_grows_only_while_the_window_is_not_full_and_stops_at_tcp_wmem_max() {
        let mut b = SendBuffer::default();
        b.expand(10 * 1448, 10 * 1448, 1448, 2);
        assert_eq!(b.bytes(), 2 * 10 * 2304, "set at establishment whatever the flight");
        b.expand(100 * 1448, 100 * 1448, 1448, 2);
        assert_eq!(b.bytes(), 2 * 10 * 2304, "a full window does not expand it");
        b.expand(100 * 1448, 50 * 1448, 1448, 3);
        assert_eq!(b.bytes(), 3 * 100 * 2304);
        b.expand(20 * 1448, 0, 1448, 2);
        assert_eq!(b.bytes(), 3 * 100 * 2304, "never lowered");
        b.expand(10_000 * 1448, 0, 1448, 2);
        assert_eq!(b.bytes(), WMEM_MAX);
        assert!(b.has_room(WMEM_MAX - 1) && !b.has_room(WMEM_MAX));
    }
}
