//! An MPTCP subflow's send buffer and its autotuning, as upstream Linux
//! sizes it (`tcp_sndbuf_expand`, `tcp_should_expand_sndbuf` in
//! `net/ipv4/tcp_input.c`), for the `linger` scheduler, which pushes data
//! into a subflow only while its buffer has room (`sk_stream_memory_free`).
//!
//! Linux sets `sk_sndbuf` to 2 · max(10, cwnd) · per_mss when the connection
//! is established and raises it (never lowers it) the same way whenever the
//! socket gains write space while its window is not full, up to
//! `tcp_wmem[2]` (4 MiB). per_mss is the memory one full segment takes:
//! roundup_pow_of_two(MSS option + MAX_TCP_HEADER + skb_shared_info) +
//! sk_buff = 4096 + 256 = 4352 bytes for a 1460-byte MSS option on x86-64
//! (the 1448-byte MSS plus 12 bytes of timestamp option). What occupies the
//! buffer is counted here as payload bytes (sent and unacknowledged, plus
//! not yet sent); Linux counts the skbs' true size, which for the large
//! skbs a subflow queues is the payload plus well under 1 %. So a subflow
//! may hold about six windows of data: 2 · 4352 / 1448 ≈ 6.

use super::scheduler::SubflowView;

/// `tcp_wmem[2]`, the largest buffer autotuning gives (Linux's default).
pub const WMEM_MAX: u64 = 4 << 20;
/// `MAX_TCP_HEADER` + `SKB_DATA_ALIGN(sizeof(struct skb_shared_info))` on x86-64, and the MSS option beyond the MSS.
const SEGMENT_OVERHEAD: u64 = 320 + 320 + 12;
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
    /// then only while the window is not full (`tcp_should_expand_sndbuf`).
    pub fn expand(&mut self, s: &SubflowView) {
        if self.bytes > 0 && s.in_flight + s.mss > s.cwnd {
            return;
        }
        let segments = (s.cwnd / s.mss).max(10);
        self.bytes = self.bytes.max((2 * segments * Self::per_segment(s.mss)).min(WMEM_MAX));
    }

    /// `sk_stream_memory_free`: what the subflow holds is below its buffer.
    pub fn has_room(&self, s: &SubflowView) -> bool {
        s.wmem_queued() < self.bytes
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linux_sizes_a_full_segment_at_4352_bytes() {
        assert_eq!(SendBuffer::per_segment(1448), 4352);
    }
}
