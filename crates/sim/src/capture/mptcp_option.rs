//! MPTCP option bytes (RFC 8684 §3, option kind 30) for synthesized TCP
//! headers: MP_CAPABLE and MP_JOIN on handshakes, DSS on data and ACKs.
//!
//! The simulator keeps no keys, tokens or HMACs. The listener's key is
//! derived from the flow number ([`listener_key`]); MP_JOIN's token, random
//! numbers and truncated HMAC are zero, so Wireshark shows the options but
//! cannot tie joins to their connection by token. DSS mappings carry no
//! checksum (the `A` bit of MP_CAPABLE is clear, §3.3.1).

/// TCP option kind of MPTCP (RFC 8684 §8, IANA).
pub const KIND: u8 = 30;

const SUBTYPE_CAPABLE: u8 = 0x0;
const SUBTYPE_JOIN: u8 = 0x1;
const SUBTYPE_DSS: u8 = 0x2;
/// MP_CAPABLE version 1 (§3.1).
const VERSION: u8 = 1;
/// MP_CAPABLE flag H: HMAC-SHA256 (§3.1).
const FLAG_H: u8 = 0x01;
/// DSS flags (§3.3, Figure 9): M mapping present, m DSN is 8 octets, A Data ACK present, a Data ACK is 8 octets.
const DSS_M: u8 = 0x04;
const DSS_M8: u8 = 0x08;
const DSS_A: u8 = 0x01;
const DSS_A8: u8 = 0x02;

/// The listener's 64-bit key of flow `flow`: ASCII "path" and the flow number.
pub fn listener_key(flow: u32) -> u64 {
    (0x7061_7468u64 << 32) | flow as u64
}

/// MP_CAPABLE on a SYN: version and flags only, 4 bytes (§3.1, v1 has no key on the SYN).
pub fn capable_syn(out: &mut Vec<u8>) {
    out.extend_from_slice(&[KIND, 4, SUBTYPE_CAPABLE << 4 | VERSION, FLAG_H]);
}

/// MP_CAPABLE on a SYN/ACK: the listener's key, 12 bytes (§3.1).
pub fn capable_syn_ack(out: &mut Vec<u8>, key: u64) {
    out.extend_from_slice(&[KIND, 12, SUBTYPE_CAPABLE << 4 | VERSION, FLAG_H]);
    out.extend_from_slice(&key.to_be_bytes());
}

/// MP_JOIN on a SYN: address id, receiver's token and sender's random number (zero), 12 bytes (§3.2).
pub fn join_syn(out: &mut Vec<u8>, address_id: u8) {
    out.extend_from_slice(&[KIND, 12, SUBTYPE_JOIN << 4, address_id]);
    out.extend_from_slice(&[0; 8]);
}

/// MP_JOIN on a SYN/ACK: address id, truncated HMAC and random number (zero), 16 bytes (§3.2).
pub fn join_syn_ack(out: &mut Vec<u8>, address_id: u8) {
    out.extend_from_slice(&[KIND, 16, SUBTYPE_JOIN << 4, address_id]);
    out.extend_from_slice(&[0; 12]);
}

/// DSS with a mapping (§3.3.1): 8-byte data sequence number of the first
/// payload byte, relative subflow sequence number, data-level length; 18 bytes.
pub fn dss_mapping(out: &mut Vec<u8>, dsn: u64, subflow_seq: u32, len: u16) {
    out.extend_from_slice(&[KIND, 18, SUBTYPE_DSS << 4, DSS_M | DSS_M8]);
    out.extend_from_slice(&dsn.to_be_bytes());
    out.extend_from_slice(&subflow_seq.to_be_bytes());
    out.extend_from_slice(&len.to_be_bytes());
}

/// DSS with an 8-byte Data ACK only (§3.3.2), 12 bytes.
pub fn dss_data_ack(out: &mut Vec<u8>, data_ack: u64) {
    out.extend_from_slice(&[KIND, 12, SUBTYPE_DSS << 4, DSS_A | DSS_A8]);
    out.extend_from_slice(&data_ack.to_be_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dss_mapping_layout_follows_rfc_8684_figure_9() {
        let mut b = Vec::new();
        dss_mapping(&mut b, 0x0102_0304_0506_0708, 9, 1448);
        assert_eq!(b.len(), b[1] as usize);
        assert_eq!(&b[..4], &[30, 18, 0x20, 0x0c]);
        assert_eq!(&b[4..12], &[1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(&b[12..16], &[0, 0, 0, 9]);
        assert_eq!(u16::from_be_bytes([b[16], b[17]]), 1448);
    }

    #[test]
    fn option_lengths_match_their_length_bytes() {
        let mut b = Vec::new();
        capable_syn(&mut b);
        capable_syn_ack(&mut b, listener_key(3));
        join_syn(&mut b, 1);
        join_syn_ack(&mut b, 1);
        dss_data_ack(&mut b, 5);
        let mut i = 0;
        let mut lens = Vec::new();
        while i < b.len() {
            lens.push(b[i + 1]);
            i += b[i + 1] as usize;
        }
        assert_eq!((i, lens), (b.len(), vec![4, 12, 12, 16, 12]));
    }
}
