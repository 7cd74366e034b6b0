//! The bytes of a mirrored content (`[[contents]]`) on the lab: every mirror
//! generates them from the content's name, so any mirror answers a range
//! request (RFC 9110 §14.2) with the same bytes and the client checks each
//! byte it receives against them. Byte o is byte o mod 8 (little-endian) of
//! SplitMix64 (Steele, Lea and Flood, OOPSLA 2014) applied to the name's
//! FNV-1a hash (Fowler, Noll and Vo; IETF draft-eastlake-fnv) plus o / 8.

/// The content's seed: the FNV-1a 64-bit hash of its name.
pub fn seed(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3))
}

/// SplitMix64's output for `x`.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Fills `buf` with the content's bytes from offset `off`.
pub fn fill(seed: u64, off: u64, buf: &mut [u8]) {
    let mut o = off;
    let mut k = 0;
    while k < buf.len() {
        let word = mix(seed.wrapping_add(o / 8)).to_le_bytes();
        let from = (o % 8) as usize;
        let n = (8 - from).min(buf.len() - k);
        buf[k..k + n].copy_from_slice(&word[from..from + n]);
        k += n;
        o += n as u64;
    }
}

/// Where `got`, read at content offset `off`, first differs from the content.
pub fn first_difference(seed: u64, off: u64, got: &[u8], scratch: &mut Vec<u8>) -> Option<u64> {
    scratch.resize(got.len(), 0);
    fill(seed, off, scratch);
    got.iter().zip(scratch.iter()).position(|(a, b)| a != b).map(|k| off + k as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_split_of_a_range_gives_the_same_bytes_and_names_differ() {
        let s = seed("movie");
        let mut whole = vec![0u8; 1000];
        fill(s, 3, &mut whole);
        let mut parts = vec![0u8; 1000];
        fill(s, 3, &mut parts[..13]);
        fill(s, 16, &mut parts[13..500]);
        fill(s, 503, &mut parts[500..]);
        assert_eq!(whole, parts);
        let mut scratch = Vec::new();
        assert_eq!(first_difference(s, 3, &whole, &mut scratch), None);
        whole[700] ^= 1;
        assert_eq!(first_difference(s, 3, &whole, &mut scratch), Some(703));
        let mut other = vec![0u8; 1000];
        fill(seed("movie2"), 3, &mut other);
        assert_ne!(other, parts);
    }
}
