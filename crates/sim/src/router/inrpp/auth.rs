//! Per-neighbour authentication of INRPP notifications (Reñé et al., §V-C).
//! End-points never originate slow-down or cancel notifications, so a
//! router need only trust what its INRPP neighbours put on the ACKs it
//! receives: "authenticating the notifications between directly neighboring
//! routers would be sufficient to detect bogus nonces ... through a
//! lightweight mechanism such as a MAC-based authentication" (their [31],
//! Raghavan and Snoeren). Each router signs the INRPP option of every ACK it
//! sends to a neighbour with the key they share for that link direction; the
//! neighbour checks it and strips the notifications of an ACK that fails, or
//! that came from a node not running INRPP on that link (a host).
//!
//! The MAC is a keyed 64-bit mix of the link's key with the ACK's flow,
//! cumulative ACK and every (nonce, note) entry, truncated to 32 bits: a
//! stand-in for a real MAC with the property that matters here, that a node
//! without the key cannot produce a valid one.

use crate::net::packet::{InrppOption, Note};
use crate::net::LinkId;

/// SplitMix64's finaliser: a bijective 64-bit mix.
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// The key the two routers of link direction `link` share.
fn key(link: LinkId) -> u64 {
    mix(0x494e_5250_5000_0000 ^ link as u64)
}

fn note_code(n: Note) -> u64 {
    match n {
        Note::SlowDown => 1,
        Note::Nonce => 2,
        Note::Cancel => 3,
    }
}

/// The MAC of option `opt` on an ACK of `flow` acknowledging `ack`, sent over `link`.
pub fn mac(link: LinkId, flow: u32, ack: u64, opt: &InrppOption) -> u32 {
    let mut h = mix(key(link) ^ flow as u64) ^ mix(ack);
    for &(nonce, note) in opt.entries() {
        h = mix(h ^ ((nonce as u64) << 8 | note_code(note)));
    }
    (h >> 32) as u32
}

/// Whether `opt`, which came over `link` from a node that `signs` (runs
/// INRPP on that link), carries its sender's valid MAC.
pub fn verify(link: LinkId, signs: bool, flow: u32, ack: u64, opt: &InrppOption) -> bool {
    signs && opt.mac == mac(link, flow, ack, opt)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mac_binds_link_flow_ack_and_entries() {
        let mut opt = InrppOption::default();
        opt.set(7, Note::SlowDown);
        opt.mac = mac(3, 1, 1448, &opt);
        assert!(verify(3, true, 1, 1448, &opt));
        assert!(!verify(3, false, 1, 1448, &opt), "a host's ACK is never trusted");
        assert!(!verify(5, true, 1, 1448, &opt), "another link's key");
        assert!(!verify(3, true, 2, 1448, &opt));
        assert!(!verify(3, true, 1, 2896, &opt));
        let mut forged = opt;
        forged.set(9, Note::SlowDown);
        assert!(!verify(3, true, 1, 1448, &forged), "an entry added after signing");
    }
}
